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
