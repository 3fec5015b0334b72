"""The files in deploy/: they parse, say what they should, and document every option."""

from __future__ import annotations

import configparser
import json
import os
import plistlib
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, REPO

DEPLOY = REPO / "deploy"
SYSTEMD = DEPLOY / "systemd"
UNITS = ("consolidator.service", "consolidator-once.service", "consolidator-once.timer")
PLISTS = {
    "com.dream-consolidator.serve.plist": "serve",
    "com.dream-consolidator.run.plist": "run",
}
OPTION = re.compile(r"^[A-Za-z][A-Za-z0-9]*=")


def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string((SYSTEMD / name).read_text(encoding="utf-8"), source=name)
    return parser


# --- systemd -------------------------------------------------------------------------------


def test_the_service_runs_serve_and_restarts_only_on_failure() -> None:
    unit = _unit("consolidator.service")
    assert set(unit.sections()) == {"Unit", "Service", "Install"}
    service = unit["Service"]
    assert service["Type"] in {"simple", "exec"}
    assert service["ExecStart"].split()[-1] == "serve"
    assert service["ExecStart"].split()[0].endswith("/consolidator")
    assert service["Restart"] == "on-failure"
    assert int(service["RestartSec"]) > 0
    assert "2" in service["RestartPreventExitStatus"].split()
    assert "HUP" in service["ExecReload"]
    assert unit["Install"]["WantedBy"] == "default.target"


@pytest.mark.parametrize("name", ["consolidator.service", "consolidator-once.service"])
def test_the_services_keep_state_in_their_state_directory_and_write_only_the_roots(
    name: str,
) -> None:
    service = _unit(name)["Service"]
    assert service["StateDirectory"] == "dream-consolidator"
    assert service["ProtectSystem"] == "strict"
    assert service["ProtectHome"] == "read-only"
    assert service["ReadWritePaths"].lstrip("-").startswith("%h/.claude/projects")
    assert service["NoNewPrivileges"] == "yes"
    assert service["PrivateTmp"] == "yes"
    assert "User" not in service  # a user unit: the manager runs it as its user


def test_the_oneshot_runs_run_and_treats_a_held_lock_or_a_stop_as_success() -> None:
    unit = _unit("consolidator-once.service")
    service = unit["Service"]
    assert service["Type"] == "oneshot"
    assert service["ExecStart"].split()[1:] == ["run"]
    assert "--force" not in service["ExecStart"]
    assert {"75", "143"} <= set(service["SuccessExitStatus"].split())
    assert "Install" not in unit  # the timer starts it


def test_the_timer_fires_every_ten_minutes_and_catches_up() -> None:
    unit = _unit("consolidator-once.timer")
    timer = unit["Timer"]
    assert timer["OnCalendar"] in {"*:0/10", "*:00/10", "*-*-* *:00/10:00"}
    assert timer["Persistent"] == "true"
    assert re.fullmatch(r"\d+(s|sec|min|m)?", timer["RandomizedDelaySec"])
    assert timer.get("Unit", "consolidator-once.service") == "consolidator-once.service"
    assert unit["Install"]["WantedBy"] == "timers.target"


@pytest.mark.parametrize("name", UNITS)
def test_every_unit_option_has_a_comment_line_above_it(name: str) -> None:
    lines = (SYSTEMD / name).read_text(encoding="utf-8").splitlines()
    bare = [
        f"{name}:{i + 1}: {line}"
        for i, line in enumerate(lines)
        if OPTION.match(line) and (i == 0 or not lines[i - 1].lstrip().startswith(("#", ";")))
    ]
    assert not bare, "options without a comment above them:\n" + "\n".join(bare)


def test_the_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    # verify refuses an ExecStart= binary that does not exist: point it at a fake one.
    fake = tmp_path / "bin" / "consolidator"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    units = tmp_path / "units"
    units.mkdir()
    for name in UNITS:
        text = (SYSTEMD / name).read_text(encoding="utf-8")
        text = re.sub(r"^ExecStart=\S+", f"ExecStart={fake}", text, flags=re.MULTILINE)
        (units / name).write_text(text, encoding="utf-8")
    runtime = tmp_path / "runtime"  # the user manager needs an $XDG_RUNTIME_DIR
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "SYSTEMD_LOG_COLOR": "0"}
    proc = subprocess.run(
        [analyze, "--user", "verify", *(str(units / n) for n in UNITS)],
        check=False, capture_output=True, text=True, timeout=60, env=env, cwd=units,
    )
    output = proc.stdout + proc.stderr
    if proc.returncode != 0 and re.search(
        r"Failed to (initialize manager|lookup RuntimeDirectory|connect)|"
        r"No such device or address|Operation not permitted|not been booted with systemd",
        output,
    ):
        pytest.skip(f"systemd-analyze --user verify cannot work here: {output.strip()[:300]}")
    assert proc.returncode == 0, output
    # Unknown keys and bad values are only warnings ("…, ignoring") with exit 0.
    ours = [line for line in output.splitlines() if any(n in line for n in UNITS)]
    assert not ours, "\n".join(ours)


# --- launchd -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PLISTS))
def test_the_plists_parse_and_run_the_right_command(name: str) -> None:
    with open(DEPLOY / "launchd" / name, "rb") as fh:
        plist = plistlib.load(fh)
    assert plist["Label"] == name.removesuffix(".plist")
    args = plist["ProgramArguments"]
    assert args[0].startswith("/") and args[0].endswith("/consolidator")
    assert args[1:] == [PLISTS[name]]
    assert plist["StandardOutPath"].startswith("/Users/YOU/Library/Logs/")
    assert plist["StandardErrorPath"].startswith("/Users/YOU/Library/Logs/")
    assert plist["EnvironmentVariables"]["XDG_STATE_HOME"] == "/Users/YOU/.local/state"
    if PLISTS[name] == "serve":
        assert plist["KeepAlive"] in (True, {"SuccessfulExit": False})
        assert plist["RunAtLoad"] is True
        assert "StartInterval" not in plist
    else:
        assert plist["StartInterval"] == 600
        assert "KeepAlive" not in plist


@pytest.mark.parametrize("name", sorted(PLISTS))
def test_every_plist_key_has_a_comment_above_it(name: str) -> None:
    lines = (DEPLOY / "launchd" / name).read_text(encoding="utf-8").splitlines()
    bare = []
    for i, line in enumerate(lines):
        if line.strip().startswith("<key>"):
            above = next((p.strip() for p in reversed(lines[:i]) if p.strip()), "")
            if not above.endswith("-->"):
                bare.append(f"{name}:{i + 1}: {line.strip()}")
    assert not bare, "keys without a comment above them:\n" + "\n".join(bare)


# --- cron ----------------------------------------------------------------------------------

_ITEM = r"(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/[0-9]+)?"
CRON_FIELD = re.compile(rf"^{_ITEM}(,{_ITEM})*$")


def test_the_crontab_line_has_five_valid_fields_and_runs_consolidator_run() -> None:
    from apscheduler.triggers.cron import CronTrigger

    text = (DEPLOY / "cron" / "crontab").read_text(encoding="utf-8")
    entries = [
        line for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
        and not re.match(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*=", line)  # VAR=value lines
    ]
    assert len(entries) == 1, entries
    fields = entries[0].split(None, 5)
    assert len(fields) == 6, entries[0]
    for field in fields[:5]:
        assert CRON_FIELD.match(field), field
    CronTrigger.from_crontab(" ".join(fields[:5]), timezone="UTC")  # raises if out of range
    assert fields[:5] == ["*/10", "*", "*", "*", "*"]
    command = fields[5]
    assert "consolidator run" in command
    assert "--force" not in command
    assert "%" not in command  # cron turns % into a newline


def _claude_home_with_the_example(home: Path) -> Path:
    """The example project placed where Claude Code keeps it under ``home``; its memory dir."""
    project = home / ".claude" / "projects" / "-home-dev-acme-shop"
    shutil.copytree(EXAMPLES, project)
    subprocess.run([sys.executable, str(project / "set_ages.py")], check=True,
                   capture_output=True, timeout=30)
    return project / "memory"


def test_the_crontab_command_runs_as_written_in_crons_environment(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = _claude_home_with_the_example(home)
    script = home / ".local" / "bin" / "consolidator"  # where the line expects it
    script.parent.mkdir(parents=True)
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m consolidator "$@"\n')
    script.chmod(0o755)
    (home / ".local" / "state" / "dream-consolidator").mkdir(parents=True)  # install step
    line = next(
        line for line in (DEPLOY / "cron" / "crontab").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    )
    command = line.split(None, 5)[5]
    cron_env = {"HOME": str(home), "LOGNAME": "you", "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh"}

    proc = subprocess.run(["/bin/sh", "-c", command], env=cron_env, cwd=REPO, check=False,
                          capture_output=True, text=True, timeout=60)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == proc.stderr == ""  # everything went to the log
    log = home / ".local" / "state" / "dream-consolidator" / "cron.log"
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert any(e.get("event") == "root done" and e.get("root") == str(root)
               and e.get("status") == "consolidated" for e in events), events


def test_the_state_directory_systemd_passes_is_where_the_tool_keeps_its_state(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    root = _claude_home_with_the_example(home)
    state = tmp_path / "var-lib" / "dream-consolidator"  # what StateDirectory= would give
    state.mkdir(parents=True)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "STATE_DIRECTORY": str(state)}

    proc = subprocess.run([sys.executable, "-m", "consolidator", "run"], env=env, cwd=REPO,
                          check=False, capture_output=True, text=True, timeout=60)

    assert proc.returncode == 0, proc.stderr
    assert list(state.glob("*/history.jsonl")), list(state.rglob("*"))
    assert not (home / ".local" / "state").exists()
    assert (root / ".consolidate-lock").exists()


def test_the_deploy_readme_covers_every_way_with_install_check_and_remove() -> None:
    text = (DEPLOY / "README.md").read_text(encoding="utf-8")
    for needle in (
        "systemctl --user enable --now consolidator.service",
        "systemctl --user enable --now consolidator-once.timer",
        "journalctl --user -u consolidator.service",
        "launchctl bootstrap", "launchctl bootout", "/Users/YOU",
        "crontab -", "consolidator status", "consolidator history",
        "consolidator report", "consolidator undo",
    ):
        assert needle in text, needle
    for name in (*UNITS, *PLISTS, "crontab"):
        assert name in text, name


# --- install: pipx, never pip --user ------------------------------------------------------

README = DEPLOY / "README.md"
TEMPLATES = [*(SYSTEMD / n for n in UNITS), *(DEPLOY / "launchd" / n for n in PLISTS),
             DEPLOY / "cron" / "crontab"]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _code_blocks(text: str) -> list[str]:
    return [m.group(1) for m in FENCE.finditer(text)]


def test_no_deploy_file_suggests_pip_install_user() -> None:
    # PEP 668: current Debian, Ubuntu and Homebrew Pythons refuse `pip install --user`.
    for path in TEMPLATES:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pip3?\s+install|pip user install|pip --user", text), path.name
    text = README.read_text(encoding="utf-8")
    for block in _code_blocks(text):
        assert not re.search(r"\bpip3?\s+install\b", block), block
    for paragraph in text.split("\n\n"):
        if "pip install --user" in " ".join(paragraph.split()):
            assert "Do not use" in paragraph, paragraph  # only ever named as a warning


def test_the_readme_installs_with_pipx_into_the_path_the_files_expect() -> None:
    text = README.read_text(encoding="utf-8")
    install = next(b for b in _code_blocks(text) if "pipx install" in b)
    assert "~/.local/bin/consolidator" in install
    assert "uv tool install" in text
    assert "externally-managed-environment" in text
    for path in TEMPLATES:  # every file naming the script says pipx puts it there
        text = path.read_text(encoding="utf-8")
        if re.search(r"^ExecStart=|<string>/Users/YOU/\.local/bin/consolidator", text, re.M):
            assert "pipx install" in text, path.name


# --- the API key: never in a unit, a plist in the repo or the crontab ----------------------

ENV_FILE = "%h/.config/dream-consolidator/env"


@pytest.mark.parametrize("name", ["consolidator.service", "consolidator-once.service"])
def test_the_services_read_the_api_key_from_an_optional_private_env_file(name: str) -> None:
    text = (SYSTEMD / name).read_text(encoding="utf-8")
    lines = [line.lstrip("#; ").strip() for line in text.splitlines()
             if re.match(r"^[#;]?\s*EnvironmentFile=", line)]
    assert lines == [f"EnvironmentFile=-{ENV_FILE}"]  # "-": a missing file is fine
    assert "chmod 600" in text
    assert not re.search(r"^\s*Environment=.*ANTHROPIC_API_KEY", text, re.MULTILINE)
    assert not re.search(r"^\s*(LoadCredential|SetCredential)\w*=", text, re.MULTILINE)
    assert not re.search(r"sk-ant-[A-Za-z0-9]{8}", text)


@pytest.mark.parametrize("name", sorted(PLISTS))
def test_the_plists_have_a_commented_api_key_that_parses_once_uncommented(name: str) -> None:
    path = DEPLOY / "launchd" / name
    text = path.read_text(encoding="utf-8")
    with open(path, "rb") as fh:
        assert "ANTHROPIC_API_KEY" not in plistlib.load(fh)["EnvironmentVariables"]
    commented = re.findall(r"<!--\s*(<key>ANTHROPIC_API_KEY</key>\s*<string>[^<]*</string>)\s*-->",
                           text)
    assert len(commented) == 1, commented
    uncommented = re.sub(r"<!--\s*(<key>ANTHROPIC_API_KEY</key>.*?</string>)\s*-->", r"\1", text)
    env = plistlib.loads(uncommented.encode("utf-8"))["EnvironmentVariables"]
    assert env["ANTHROPIC_API_KEY"].startswith("sk-ant-")
    assert env["XDG_STATE_HOME"] == "/Users/YOU/.local/state"
    assert f"chmod 600 ~/Library/LaunchAgents/{name}" in " ".join(text.split())


def test_the_readme_keeps_the_key_in_a_0600_file_for_every_way() -> None:
    text = README.read_text(encoding="utf-8")
    flat = " ".join(text.split())
    assert f"EnvironmentFile=-{ENV_FILE}" in text
    assert "chmod 600 ~/.config/dream-consolidator/env" in text
    assert "chmod 600 ~/Library/LaunchAgents/com.dream-consolidator.serve.plist" in text
    assert "EnvironmentVariables" in text
    assert ". $HOME/.config/dream-consolidator/env" in text
    # LoadCredential= is mentioned only to say the tool does not read it.
    assert "does not read `$CREDENTIALS_DIRECTORY`" in flat


def _crontab_lines() -> list[str]:
    return (DEPLOY / "cron" / "crontab").read_text(encoding="utf-8").splitlines()


def test_the_crontab_holds_no_key_and_offers_a_line_sourcing_the_env_file() -> None:
    text = "\n".join(_crontab_lines())
    assert not re.search(r"ANTHROPIC_API_KEY=\S*[A-Za-z0-9]{8}", text)
    alternatives = [line[1:] for line in _crontab_lines() if re.match(r"^#\s*\*/10 ", line)]
    assert len(alternatives) == 1, alternatives
    fields = alternatives[0].split(None, 5)
    assert fields[:5] == ["*/10", "*", "*", "*", "*"]
    assert ". $HOME/.config/dream-consolidator/env" in fields[5]
    assert "consolidator run" in fields[5] and "%" not in fields[5]


def _fake_install(home: Path) -> Path:
    """A ``consolidator`` in ~/.local/bin that records its arguments and API key."""
    script = home / ".local" / "bin" / "consolidator"
    script.parent.mkdir(parents=True)
    record = home / "record"
    script.write_text(f'#!/bin/sh\necho "$* key=${{ANTHROPIC_API_KEY:-none}}" > "{record}"\n')
    script.chmod(0o755)
    (home / ".local" / "state" / "dream-consolidator").mkdir(parents=True)
    return record


def test_the_commented_crontab_line_passes_the_key_from_the_env_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    record = _fake_install(home)
    env_file = home / ".config" / "dream-consolidator" / "env"
    env_file.parent.mkdir(parents=True)
    env_file.write_text("ANTHROPIC_API_KEY=sk-ant-test-0123456789\n")  # not exported by itself
    env_file.chmod(0o600)
    line = next(line[1:] for line in _crontab_lines() if re.match(r"^#\s*\*/10 ", line))
    command = line.split(None, 5)[5]
    cron_env = {"HOME": str(home), "LOGNAME": "you", "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh"}

    proc = subprocess.run(["/bin/sh", "-c", command], env=cron_env, check=False,
                          capture_output=True, text=True, timeout=30)

    assert proc.returncode == 0, proc.stderr
    assert record.read_text().split() == ["run", "key=sk-ant-test-0123456789"]

    env_file.unlink()  # no file: no run at all, rather than a run without the key
    record.unlink()
    proc = subprocess.run(["/bin/sh", "-c", command], env=cron_env, check=False,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0
    assert not record.exists()


# --- the jq recipe skips what is not JSON --------------------------------------------------

def _jq_recipe() -> list[str]:
    text = README.read_text(encoding="utf-8").replace("\\\n", " ")
    line = next(line for line in text.splitlines() if re.search(r"\|\s*jq\b", line))
    import shlex

    jq = line[line.index("| jq") + 1:]
    return shlex.split(jq, comments=True)


def test_the_jq_recipe_reads_raw_lines_and_keeps_only_json_objects() -> None:
    args = _jq_recipe()
    assert args[0] == "jq"
    assert "-R" in args or any(re.fullmatch(r"-[a-zA-Z]*R[a-zA-Z]*", a) for a in args[1:-1])
    assert "fromjson?" in args[-1]


def test_the_jq_recipe_runs_over_a_journal_with_other_lines() -> None:
    jq = shutil.which("jq")
    if jq is None:
        pytest.skip("jq is not installed")
    journal = "\n".join([
        "Started consolidator.service - Dream Consolidator.",
        json.dumps({"event": "root skipped", "gate": "G3", "root": "/r"}),
        json.dumps({"event": "root done", "status": "consolidated", "root": "/r"}),
        json.dumps({"event": "pass", "roots": 2, "due": 0, "closed": {"G3 idle": 2}}),
        json.dumps({"event": "pass", "roots": 2, "due": 1, "consolidated": 1}),
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in <module>',
        "42", '"a string"', "[1, 2]", "null", "",
        '{"event": "cut off',
        json.dumps({"event": "root keeps failing", "count": 2}),
        "Stopping consolidator.service - Dream Consolidator...",
    ]) + "\n"
    args = _jq_recipe()

    proc = subprocess.run([jq, *args[1:]], input=journal, check=False, capture_output=True,
                          text=True, timeout=30)

    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    events = [json.loads(line)["event"] for line in proc.stdout.splitlines()]
    assert events == ["root done", "pass", "root keeps failing"]  # not the shut-gate pass


# --- launchd StartInterval: what launchd.plist(5) says ------------------------------------


def _comment_above(lines: list[str], key: str) -> str:
    i = next(i for i, line in enumerate(lines) if line.strip() == f"<key>{key}</key>")
    j = i - 1
    while "<!--" not in lines[j]:
        j -= 1
    return " ".join(" ".join(lines[j:i]).split())


def test_the_start_interval_comment_says_a_sleeping_interval_is_missed_not_made_up() -> None:
    # launchd.plist(5), since OS X 10.10: "If the system is asleep during the time of the
    # next scheduled interval firing, that interval will be missed due to shortcomings in
    # kqueue(3). If the job is running during an interval firing, that interval firing
    # will likewise be missed." Coalescing into one start on wake is StartCalendarInterval's.
    lines = (DEPLOY / "launchd" / "com.dream-consolidator.run.plist").read_text(
        encoding="utf-8").splitlines()
    comment = _comment_above(lines, "StartInterval")
    assert "every N seconds" in comment
    assert "missed" in comment and "asleep" in comment
    own = re.sub(r"\([^)]*StartCalendarInterval[^)]*\)", "", comment)
    assert not re.search(r"coalesce|runs on wake|one runs|skipped", own), own
    readme = " ".join(README.read_text(encoding="utf-8").split())
    for sentence in re.split(r"(?<=[.)])\s+", readme):
        if "coalesce" in sentence:
            assert "StartCalendarInterval" in sentence, sentence
    assert re.search(r"`StartInterval` does around sleep.{0,80}asleep is missed", readme)


# --- state on systemd older than 254 -------------------------------------------------------


@pytest.mark.parametrize("name", ["consolidator.service", "consolidator-once.service"])
def test_the_services_can_write_the_fallback_state_dir(name: str) -> None:
    paths_ = _unit(name)["Service"]["ReadWritePaths"].split()
    assert "-%h/.local/state/dream-consolidator" in paths_


def test_a_state_directory_in_the_config_folder_falls_back_to_local_state(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    root = _claude_home_with_the_example(home)
    config_folder = home / ".config" / "dream-consolidator"  # StateDirectory= on systemd < 254
    config_folder.mkdir(parents=True)
    (config_folder / "config.toml").write_text("")
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "STATE_DIRECTORY": str(config_folder)}

    proc = subprocess.run([sys.executable, "-m", "consolidator", "run"], env=env, cwd=REPO,
                          check=False, capture_output=True, text=True, timeout=60)

    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in config_folder.iterdir()) == ["config.toml"]
    state = home / ".local" / "state" / "dream-consolidator"
    assert list(state.glob("*/history.jsonl")), list(state.rglob("*"))
    assert (root / ".consolidate-lock").exists()


def test_the_readme_explains_the_fallback_instead_of_a_state_dir_flag() -> None:
    text = README.read_text(encoding="utf-8")
    flat = " ".join(text.split())
    assert "CONSOLIDATOR_STATE_DIR=~/.config" not in text
    row = next(line for line in text.splitlines()
               if line.startswith("| systemd (both units, user units)"))
    assert "`~/.local/state/dream-consolidator`" in row and "254" in row
    assert "falls back" in flat or "fall back" in flat
    # Both systemd installs make the folder before the unit first starts: systemd < 254
    # cannot create it in the sandbox, and 254+ would link a missing one to ~/.config.
    mkdir = "mkdir -p -m 700 ~/.local/state/dream-consolidator"
    for enable in ("enable --now consolidator.service", "enable --now consolidator-once.timer"):
        block = next(b for b in _code_blocks(text) if enable in b)
        assert mkdir in block and block.index(mkdir) < block.index(enable), block


# --- the metrics textfile: writable under the units, its alerts can fire -------------------

TOP_README = REPO / "README.md"
METRICS_PATH = re.compile(r'\[metrics\] textfile = "([^"]+)"')


def _metrics_paragraph() -> str:
    text = TOP_README.read_text(encoding="utf-8")
    start = text.index("**Metrics**")
    return text[start:text.index("\n**", start + 1)]


def _writable_under(name: str, home: str) -> list[str]:
    """The folders a unit lets the tool write: ReadWritePaths= and its StateDirectory=
    (a user unit's, systemd 254 and later)."""
    service = _unit(name)["Service"]
    found = [p.lstrip("-").replace("%h", home) for p in service["ReadWritePaths"].split()]
    return found + [f"{home}/.local/state/{service['StateDirectory']}"]


@pytest.mark.parametrize("name", ["consolidator.service", "consolidator-once.service"])
def test_the_readmes_metrics_textfile_is_writable_under_the_units(name: str) -> None:
    """ProtectSystem=strict makes every folder read-only but the ones a unit opens: the
    textfile the README suggests must lie in one of them, or no pass can write it."""
    home = "/home/you"
    (suggested,) = set(METRICS_PATH.findall(_metrics_paragraph()))
    folder = os.path.dirname(suggested.replace("~", home, 1))
    writable = _writable_under(name, home)
    assert any(folder == w or folder.startswith(w.rstrip("/") + "/") for w in writable), (
        folder, writable)
    assert folder in (DEPLOY / "README.md").read_text(encoding="utf-8")


def _alerts() -> list[str]:
    paragraph = _metrics_paragraph()
    (block,) = _code_blocks(paragraph)
    return [line.strip() for line in block.splitlines() if line.strip()]


def _evaluate(expr: str, now: float, values: dict[str, float]) -> bool:
    """One of the README's alert expressions (``time()``, metric names, numbers and
    comparisons) on one root's values, as Prometheus would for that series."""
    def value(found: re.Match[str]) -> str:
        return repr(values[found[0]])

    text = re.sub(r"\bdream_consolidator_\w+", value, expr.replace("time()", repr(now)))
    assert re.fullmatch(r"[\d.\s()+\-*/<>=e]+", text), text  # nothing else to evaluate
    return bool(eval(text, {"__builtins__": {}}))  # noqa: S307 - numbers and operators only


def test_the_documented_alerts_use_metrics_and_labels_written_and_can_fire(
    tmp_path: Path,
) -> None:
    parser = pytest.importorskip("prometheus_client.parser")
    home = tmp_path / "home"
    root = _claude_home_with_the_example(home)
    lock = root / ".consolidate-lock"
    lock.write_bytes(b"")
    four_days_ago = time.time() - 4 * 86400
    os.utime(lock, (four_days_ago, four_days_ago))
    textfile = tmp_path / "textfile" / "consolidator.prom"
    textfile.parent.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(f'[metrics]\ntextfile = "{textfile}"\n[gates]\nmin_sessions = 99\n')
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    proc = subprocess.run([sys.executable, "-m", "consolidator", "run", "--config",
                           str(config)], env=env, cwd=REPO, check=False, capture_output=True,
                          text=True, timeout=60)

    assert proc.returncode == 0, proc.stderr  # G6 closed: too few sessions, as on most ticks
    families = {f.name: f for f in parser.text_string_to_metric_families(textfile.read_text())}
    values: dict[str, float] = {}
    for family in families.values():
        for sample in family.samples:
            if sample.labels.get("memory_dir") == str(root):
                values[sample.name] = sample.value
    for label in re.findall(r"labels? ((?:`\w+`(?:, )?)+)", _metrics_paragraph()):
        for name in re.findall(r"`(\w+)`", label):
            assert any(name in s.labels for f in families.values() for s in f.samples), name
    for metric in re.findall(r"`(dream_consolidator_\w+)`", _metrics_paragraph()):
        assert metric in families, metric
    alerts = _alerts()
    assert alerts, "the README shows its alerts"
    for alert in alerts:
        for metric in re.findall(r"\bdream_consolidator_\w+", alert):
            assert metric in values, (metric, sorted(values))
    stale = alerts[0]
    assert "last_consolidation" in stale
    now = time.time()
    assert _evaluate(stale, now, values), "four days unconsolidated: the alert fires"
    assert not _evaluate(stale, four_days_ago + 86400, values), "one day: it does not"
    for alert in alerts[1:]:
        assert not _evaluate(alert, now, values), alert  # a healthy pass, written just now
