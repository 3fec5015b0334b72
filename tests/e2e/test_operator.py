"""An operator's conventions through the real command: version, help, completion, config
show, colour, terminal lines and progress, run --dry-run's plan, the metrics textfile."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from consolidator import __version__, cli
from consolidator.report import progress
from tests.conftest import EXAMPLES, REPO


def _run(*args: str, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "consolidator", *args], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})}, cwd=cwd)


def _in_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """The command's output as a person at a terminal sees it (a pseudo-terminal)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "consolidator", *args], stdin=slave,
                            stdout=slave, stderr=slave, env={**os.environ, **(env or {})})
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "ex", copy_function=shutil.copy2)
    subprocess.run([sys.executable, str(tmp_path / "ex" / "set_ages.py")], check=True,
                   capture_output=True)
    return tmp_path / "ex" / "memory"


def test_version_and_its_short_flag() -> None:
    for flag in ("--version", "-V"):
        proc = _run(flag)
        assert proc.returncode == 0 and proc.stdout.strip() == f"consolidator {__version__}"


def test_bare_consolidator_lists_the_commands() -> None:
    proc = _run()
    assert proc.returncode == 0, proc.stderr
    for command in ("run", "report", "serve", "status", "history", "undo", "proposals",
                    "apply", "reject", "prune", "completion", "config", "hook"):
        assert f"    {command}" in proc.stdout, command


def test_every_command_opens_its_help_with_what_it_does() -> None:
    for command in ("run", "report", "serve", "status", "history", "undo", "proposals",
                    "apply", "reject", "prune", "hook"):
        proc = _run(command, "--help")
        assert proc.returncode == 0, command
        lines = proc.stdout.split("\n\n")
        assert len(lines) > 1 and lines[1].strip().endswith("."), (command, proc.stdout[:300])


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_names_every_command(shell: str, tmp_path: Path) -> None:
    proc = _run("completion", shell)
    assert proc.returncode == 0, proc.stderr
    for command in ("run", "report", "apply", "proposals", "prune", "completion"):
        assert command in proc.stdout
    if shell == "bash":
        script = tmp_path / "c.bash"
        script.write_text(proc.stdout)
        done = subprocess.run(
            ["bash", "-c", f"source {script}; COMP_WORDS=(consolidator app); COMP_CWORD=1; "
             "_consolidator; echo ${COMPREPLY[@]}"], capture_output=True, text=True, check=True)
        assert done.stdout.split() == ["apply"]
    installed = shutil.which(shell)
    if installed and shell in ("zsh", "fish"):
        script = tmp_path / f"c.{shell}"
        script.write_text(proc.stdout)
        assert subprocess.run([installed, "-n", str(script)], capture_output=True).returncode == 0


def test_config_show_says_where_each_value_came_from(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[gates]\nmin_hours = 6\n[consolidate]\napply = "none"\n')
    proc = _run("config", "show", "--config", str(config), "--state-dir", str(tmp_path / "s"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"# config: {config} (--config)"
    assert any(l.startswith("min_hours = 6 ") and l.endswith("# config file") for l in lines)
    assert any(l.startswith('apply = "none" ') and l.endswith("# config file") for l in lines)
    assert any(l.startswith("idle_minutes = 15 ") and l.endswith("# default") for l in lines)
    assert lines[-1] == f"# state dir: {tmp_path / 's'} (--state-dir)"


def _keyless_config_check(tmp_path: Path, toml: str) -> subprocess.CompletedProcess[str]:
    """``config check`` of a config file holding ``toml``, with no ANTHROPIC_API_KEY."""
    config = tmp_path / "c.toml"
    config.write_text(toml)
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    return subprocess.run([sys.executable, "-m", "consolidator", "config", "check", "--config",
                           str(config)], capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize(("toml", "named"), [
    ('[llm]\nbackend = "anthropic"\n', ["llm.backend: "]),
    # beside the file's other problems: every problem at once
    ('[llm]\nbackend = "anthropic"\n\n[schedule]\ncron = "0 0 30 2 *"\n',
     ["llm.backend: ", "schedule.cron: "]),
])
def test_config_check_calls_a_keyless_anthropic_backend_an_error(
        tmp_path: Path, toml: str, named: list[str]) -> None:
    proc = _keyless_config_check(tmp_path, toml)
    assert proc.returncode == 2
    assert all(key in proc.stderr for key in named)
    assert "ANTHROPIC_API_KEY" in proc.stderr and "Traceback" not in proc.stderr


def test_a_terminal_gets_one_plain_line_per_root_with_the_undo_hint(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    state = tmp_path / "state"
    out = _in_a_terminal("run", "--force", "--memory-dir", str(root), "--state-dir", str(state),
                         env={"NO_COLOR": "1"})
    run_id = json.loads(_run("history", "--json", "--state-dir", str(state)).stdout
                        .splitlines()[-1])["run_id"]
    line = next(l for l in out.splitlines() if f"{root}: consolidated:" in l)
    assert "2 merged" in line and f"undo: consolidator undo {run_id}" in line
    assert "memories=" not in line and "llm_calls" not in line  # no counters at a terminal
    assert "\x1b[" not in out, "NO_COLOR: no colour codes"
    skipped = _in_a_terminal("run", "--memory-dir", str(root), "--state-dir", str(state),
                             "--no-color")
    assert "pass: 1 root, none due (1 at G4 interval)" in skipped
    assert f"{root}: skipped" not in skipped, "a closed gate's root line is at debug"
    assert "\x1b[" not in skipped
    detailed = _in_a_terminal("run", "-v", "--memory-dir", str(root), "--state-dir",
                              str(state), "--no-color")
    assert f"{root}: skipped: G4 interval, last consolidation" in detailed


def test_off_a_terminal_the_json_lines_keep_every_field(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    proc = _run("run", "--force", "--memory-dir", str(root), "--state-dir", str(tmp_path / "s"))
    assert proc.stdout == "", "the log goes to stderr"
    done = [json.loads(l) for l in proc.stderr.splitlines() if '"root done"' in l]
    assert done and done[0]["merges"] == 2 and "memories" in done[0]


def test_progress_shows_on_a_terminal_and_clears_before_a_log_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a pseudo-terminal the phase shows on stderr (after a delay, here none) and is taken
    off its line before the next log line; off a terminal nothing is written for it."""
    root = _copy(tmp_path)
    master, slave = pty.openpty()
    terminal = os.fdopen(slave, "w", buffering=1, encoding="utf-8", closefd=True)
    monkeypatch.setattr(progress, "_DELAY_S", 0.0)
    monkeypatch.setattr(sys, "stderr", terminal)
    code = cli.main(["run", "--force", "--memory-dir", str(root), "--state-dir",
                     str(tmp_path / "s")], env={**os.environ})
    terminal.flush()
    seen = b""
    while select.select([master], [], [], 0.2)[0]:
        seen += os.read(master, 65536)
    terminal.close()
    os.close(master)
    assert code == 0
    text = seen.decode("utf-8", "replace")
    assert "memory: scan…" in text and "memory: index…" in text
    after_progress = text.rsplit("…", 1)[1]
    assert after_progress.startswith("\r\x1b[K"), "the progress line is cleared at the end"
    assert "pass: 1 root, 1 consolidated" in after_progress, "the log shares the terminal"
    assert text.endswith("\n"), "no progress text is left after the last log line"
    assert "asking the model" not in text, "the offline backend asks no model"


def test_progress_writes_nothing_off_a_terminal(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    proc = _run("run", "--force", "--memory-dir", str(root), "--state-dir", str(tmp_path / "s"))
    assert "…" not in proc.stderr and "\r" not in proc.stderr


def test_run_dry_run_prints_the_plan_a_person_reads(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    proc = _run("run", "--dry-run", "--force", "--memory-dir", str(root), "--state-dir",
                str(tmp_path / "s"))
    assert proc.returncode == 0, proc.stderr
    assert "# Dream Consolidator report" in proc.stdout
    assert "### What a run would apply" in proc.stdout


def test_the_metrics_textfile_follows_each_real_pass(tmp_path: Path) -> None:
    parser = pytest.importorskip("prometheus_client.parser")
    root = _copy(tmp_path)
    textfile = tmp_path / "consolidator.prom"
    config = tmp_path / "c.toml"
    config.write_text(f'[metrics]\ntextfile = "{textfile}"\n')
    proc = _run("run", "--force", "--config", str(config), "--memory-dir", str(root),
                "--state-dir", str(tmp_path / "s"))
    assert proc.returncode == 0, proc.stderr
    families = {f.name: f for f in parser.text_string_to_metric_families(textfile.read_text())}
    merges = families["dream_consolidator_merges"].samples
    assert [(s.labels["memory_dir"], s.value) for s in merges] == [(str(root), 2.0)]
    # 2 archives, 1 relative-date rewrite, the loaded index pointer to a missing file
    assert families["dream_consolidator_proposal_waiting_actions"].samples[0].value == 4.0


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_textfile_that_cannot_be_written_is_one_warning_per_change_of_reason(
    tmp_path: Path
) -> None:
    """A service or a timer runs every few minutes: the same failure is said once, at
    warning, then at debug; the file written again says so once."""
    root = _copy(tmp_path)
    blocker = tmp_path / "metrics"
    blocker.write_text("a file where the textfile's folder should be")
    config = tmp_path / "c.toml"
    config.write_text(f'[metrics]\ntextfile = "{blocker / "c.prom"}"\n')

    def run() -> str:
        proc = _run("run", "--force", "--config", str(config), "--memory-dir", str(root),
                    "--state-dir", str(tmp_path / "s"))
        assert proc.returncode == 0, proc.stderr
        return proc.stderr

    assert run().count("metrics textfile not written") == 1
    assert "metrics textfile not written" not in run()
    blocker.unlink()
    blocker.mkdir()
    assert run().count("metrics textfile written again") == 1
    assert (blocker / "c.prom").exists()
    assert "metrics textfile" not in run()


def test_a_state_dir_that_cannot_be_written_is_one_line_before_any_work(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("a file where the state dir would go")
    before = sorted(p.name for p in root.iterdir())
    proc = _run("run", "--force", "--memory-dir", str(root), "--state-dir", str(blocker / "s"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "state dir" in proc.stderr
    assert sorted(p.name for p in root.iterdir()) == before, "nothing touched, no lock taken"


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_pytest_durations_measure_real_time() -> None:
    """freezegun freezes the tests' clock, not pytest's: a frozen test still has a real
    duration in `pytest --durations`."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=1",
         "tests/integration/test_history_retention.py::"
         "test_runs_started_in_the_same_second_are_listed_in_the_order_they_started"],
        capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stdout
    line = next(l for l in proc.stdout.splitlines() if "s call" in l or "s setup" in l)
    assert float(line.split("s ")[0]) < 60


@pytest.mark.parametrize("where", ["missing/x.md", "folder", "readonly/x.md"])
def test_a_report_output_that_cannot_be_written_is_refused_before_any_work(
    tmp_path: Path, where: str
) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "readonly").mkdir(mode=0o500)
    if where == "readonly/x.md" and os.geteuid() == 0:
        pytest.skip("running as root: file permissions do not restrict root")
    started = time.monotonic()
    proc = _run("report", "--memory-dir", str(EXAMPLES / "memory"), "--output",
                str(tmp_path / where))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "--output" in proc.stderr and "Traceback" not in proc.stderr
    assert time.monotonic() - started < 10


def test_a_memory_dir_above_the_stores_claude_code_keeps_is_refused(tmp_path: Path) -> None:
    """Named with --memory-dir, a folder that holds Claude Code's stores below it (a home
    whose config dir is not hidden, a project's .claude) would mix their scopes in one pass:
    refused with the stores named, nothing written."""
    home = tmp_path / "home"
    store = home / "cc" / "projects" / "-work-app" / "memory"
    (store / "team").mkdir(parents=True)
    memory = "---\nname: tests\ndescription: real db\ntype: feedback\n---\nUse a real db.\n"
    (store / "feedback_tests.md").write_text(memory)
    (store / "team" / "feedback_tests.md").write_text(memory)
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "cc")}
    proc = _run("run", "--force", "--memory-dir", str(home), "--state-dir",
                str(tmp_path / "s"), env=env)
    assert proc.returncode == 2, proc.stderr
    assert f"it holds memory dirs Claude Code keeps ({store}" in proc.stderr
    assert not (home / "MEMORY.md").exists() and not (tmp_path / "s").exists()


def test_report_json_prints_the_json_report_as_format_json_does(tmp_path: Path) -> None:
    args = ("--memory-dir", str(EXAMPLES / "memory"), "--state-dir", str(tmp_path / "s"))
    as_flag = _run("report", "--json", *args)
    as_format = _run("report", "--format", "json", *args)
    assert as_flag.returncode == 0, as_flag.stderr
    doc = json.loads(as_flag.stdout)
    assert doc["schema_version"] == 1 and doc["dry_run"] is True
    assert [r["memory_dir"] for r in doc["roots"]] == [
        r["memory_dir"] for r in json.loads(as_format.stdout)["roots"]]
    clash = _run("report", "--json", "--format", "markdown", *args)
    assert clash.returncode == 2 and clash.stdout == ""
    assert "--json" in clash.stderr and clash.stderr.count("\n") == 1


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_history_since_and_prune_older_than_take_the_same_durations(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    state = str(tmp_path / "s")
    assert _run("run", "--force", "--memory-dir", str(root), "--state-dir", state).returncode == 0
    for form in ("30", "30d", "12h", "2w", "90m"):
        listed = _run("history", "--json", "--since", form, "--state-dir", state)
        assert listed.returncode == 0, (form, listed.stderr)
        assert len(listed.stdout.splitlines()) == 1, form
        pruned = _run("prune", "--older-than", form, "--dry-run", "--state-dir", state)
        assert pruned.returncode == 0, (form, pruned.stderr)
    said = _run("prune", "--older-than", "2w", "--state-dir", state)
    assert (said.returncode, said.stdout) == (0, "nothing older than 2 weeks\n")
    for command in (("history", "--since"), ("prune", "--older-than")):
        bad = _run(*command, "3x", "--state-dir", state)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, command
        assert "30d" in bad.stderr and "2w" in bad.stderr, bad.stderr
