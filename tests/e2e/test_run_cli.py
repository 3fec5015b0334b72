"""``consolidator run`` as a subprocess on several roots: gating, failures, exit codes, output.

Every root here is ``<tmp>/projects/<name>/memory`` with its session transcripts beside it in
``<tmp>/projects/<name>/``, the way Claude Code lays them out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from consolidator.state.statedir import root_key
from tests.conftest import flock_held_elsewhere, make_writable, write_sessions


def make_project(base: Path, name: str, sessions: int = 0, memories: int = 2) -> Path:
    """``base/projects/<name>/memory`` with old memories and ``sessions`` hour-old sessions."""
    project = base / "projects" / name
    root = project / "memory"
    root.mkdir(parents=True)
    old = time.time() - 10 * 86400
    for i in range(memories):
        path = root / f"project_{name}_{i}.md"
        path.write_text(
            f"---\nname: {name}_{i}\ndescription: {name} fact {i}\ntype: project\n---\n"
            f"In {name}, service s{i} listens on port 80{i:02d}.\n",
            encoding="utf-8",
        )
        os.utime(path, (old, old))
    write_sessions(project, sessions)
    return root


def consolidator(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "consolidator", *args],
        capture_output=True, text=True, timeout=60, env=dict(os.environ), check=False,
    )


def roots_by_dir(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["memory_dir"]: r for r in report["roots"]}


def closed_gate(root_report: dict[str, Any]) -> str | None:
    return next((g["id"] for g in root_report["gates"] if g["passed"] is False), None)


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# --------------------------------------------------------------------------- several roots


def test_each_root_given_by_repeated_memory_dir_is_gated_on_its_own(tmp_path: Path) -> None:
    busy = make_project(tmp_path, "busy", sessions=5)
    quiet = make_project(tmp_path, "quiet", sessions=1)
    recent = make_project(tmp_path, "recent", sessions=5)
    (recent / ".consolidate-lock").write_bytes(b"")
    hour_ago = time.time() - 3600
    os.utime(recent / ".consolidate-lock", (hour_ago, hour_ago))
    before_quiet = sorted(p.name for p in quiet.iterdir())

    proc = consolidator("run", "--json", "--memory-dir", str(busy), "--memory-dir", str(quiet),
                        "--memory-dir", str(recent), "--state-dir", str(tmp_path / "st"))

    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [r["memory_dir"] for r in report["roots"]] == [str(busy), str(quiet), str(recent)]
    roots = roots_by_dir(report)
    assert roots[str(busy)]["status"] == "consolidated"
    assert (roots[str(quiet)]["status"], closed_gate(roots[str(quiet)])) == ("skipped", "G6")
    assert (roots[str(recent)]["status"], closed_gate(roots[str(recent)])) == ("skipped", "G4")
    assert (busy / "MEMORY.md").is_file()
    assert sorted(p.name for p in quiet.iterdir()) == before_quiet


def test_roots_from_a_config_glob_each_use_the_transcripts_beside_them(tmp_path: Path) -> None:
    alpha = make_project(tmp_path, "alpha", sessions=5)
    beta = make_project(tmp_path, "beta", sessions=2)
    (tmp_path / "projects" / "no-memory").mkdir()
    (tmp_path / "projects" / "file-not-dir").mkdir()
    (tmp_path / "projects" / "file-not-dir" / "memory").write_text("a file, not a root")
    config = tmp_path / "config.toml"
    config.write_text(f'[memory]\nroots = ["{tmp_path}/projects/*/memory"]\n', encoding="utf-8")

    proc = consolidator("run", "--json", "--config", str(config),
                        "--state-dir", str(tmp_path / "st"))

    assert proc.returncode == 0, proc.stderr
    roots = roots_by_dir(json.loads(proc.stdout))
    assert sorted(roots) == [str(alpha), str(beta)]
    assert roots[str(alpha)]["status"] == "consolidated"
    assert next(g for g in roots[str(alpha)]["gates"] if g["id"] == "G6")["passed"] is True
    beta_g6 = next(g for g in roots[str(beta)]["gates"] if g["id"] == "G6")
    assert beta_g6["passed"] is False and beta_g6["reason"].startswith("2 session(s)")


def test_a_config_glob_that_matches_nothing_gives_no_root_and_exits_0(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[memory]\nroots = ["{tmp_path}/nowhere/*/memory"]\n', encoding="utf-8")
    proc = consolidator("run", "--json", "--config", str(config),
                        "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["roots"] == []


def test_no_store_found_names_where_it_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    proc = consolidator("status", "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert f"no memory store under {tmp_path / 'claude'} yet (name one with --memory-dir" \
        in proc.stderr


def test_one_failing_root_does_not_stop_the_others(tmp_path: Path) -> None:
    broken = make_project(tmp_path, "broken")
    healthy = make_project(tmp_path, "healthy")
    state = tmp_path / "st"
    # The broken root's run folder cannot be created: its journal cannot open.
    (state / root_key(broken)).mkdir(parents=True)
    (state / root_key(broken) / "runs").write_text("not a folder")

    proc = consolidator("run", "--force", "--json", "--memory-dir", str(broken),
                        "--memory-dir", str(healthy), "--state-dir", str(state))

    assert proc.returncode == 1, proc.stderr
    roots = roots_by_dir(json.loads(proc.stdout))
    assert roots[str(broken)]["status"] == "failed" and roots[str(broken)]["error"]
    assert roots[str(healthy)]["status"] == "consolidated"
    assert (healthy / "MEMORY.md").is_file()
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("force", [True, False], ids=["forced", "gated"])
def test_a_root_whose_state_folder_is_unusable_fails_alone(tmp_path: Path, force: bool) -> None:
    broken = make_project(tmp_path, "broken", sessions=5)
    healthy = make_project(tmp_path, "healthy", sessions=5)
    state = tmp_path / "st"
    state.mkdir()
    (state / root_key(broken)).write_text("a file where the root's state folder belongs")

    proc = consolidator("run", "--json", *(["--force"] if force else []),
                        "--memory-dir", str(broken), "--memory-dir", str(healthy),
                        "--state-dir", str(state))

    assert proc.returncode == 1, proc.stderr
    assert (healthy / "MEMORY.md").is_file(), "the healthy root listed after it was never run"
    roots = roots_by_dir(json.loads(proc.stdout))
    assert roots[str(broken)]["status"] == "failed"
    assert roots[str(healthy)]["status"] == "consolidated"


def _fault_in(monkeypatch: pytest.MonkeyPatch, phase: str, root: Path,
              exc: BaseException) -> None:
    """Make ``phase`` raise ``exc`` on ``root`` (and run as usual on every other root)."""
    from consolidator import phases

    def wrap(name: str, real: Any) -> Any:
        def run(work: Any) -> None:
            if name == phase and work.ctx.root == root:
                raise exc
            real(work)
        return run

    monkeypatch.setattr(phases, "PHASES", tuple((n, wrap(n, f)) for n, f in phases.PHASES))


def _log_events(text: str) -> list[dict[str, Any]]:
    """The JSON log lines among ``text`` (the command's own messages are plain lines)."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _history_lines(state: Path, root: Path) -> list[dict[str, Any]]:
    path = state / root_key(root) / "history.jsonl"
    return json_lines(path.read_text()) if path.exists() else []


@pytest.mark.parametrize("phase", ["scan", "detect", "consolidate", "index"])
def test_any_exception_in_a_phase_fails_that_root_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    phase: str,
) -> None:
    from consolidator import cli

    broken = make_project(tmp_path, "broken", sessions=5)
    healthy = make_project(tmp_path, "healthy", sessions=5)
    lock = broken / ".consolidate-lock"
    lock.write_bytes(b"")
    two_days_ago = time.time_ns() - 2 * 86400 * 10**9
    os.utime(lock, ns=(two_days_ago, two_days_ago))
    state = tmp_path / "st"
    _fault_in(monkeypatch, phase, broken, KeyError("a bug\nover two lines"))

    code = cli.main(["run", "--json", "--memory-dir", str(broken), "--memory-dir", str(healthy),
                     "--state-dir", str(state)])

    out, err = capsys.readouterr()
    assert code == 1
    report = roots_by_dir(json.loads(out))  # the report is still written
    assert report[str(broken)]["status"] == "failed"
    error = report[str(broken)]["error"]
    assert error == f"internal error in phase {phase}: KeyError: 'a bug\\nover two lines'"
    assert report[str(healthy)]["status"] == "consolidated"
    assert (healthy / "MEMORY.md").is_file()
    assert lock.stat().st_mtime_ns == two_days_ago and lock.read_bytes() == b""  # rolled back
    assert [e["status"] for e in _history_lines(state, broken)] == ["failed"]
    assert [e["status"] for e in _history_lines(state, healthy)] == ["consolidated"]
    assert "Traceback" not in err
    assert err.count(f"consolidator: {broken}: internal error") == 1
    failed = [e for e in _log_events(err) if e.get("event") == "root failed"]
    assert [(e["root"], e["level"]) for e in failed] == [(str(broken), "error")]
    assert "traceback" not in failed[0]


def test_a_failed_roots_traceback_is_logged_only_with_debug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from consolidator import cli

    broken = make_project(tmp_path, "broken", sessions=5)
    healthy = make_project(tmp_path, "healthy", sessions=5)
    _fault_in(monkeypatch, "detect", broken, ZeroDivisionError("division by zero"))

    code = cli.main(["run", "--json", "--debug", "--memory-dir", str(broken),
                     "--memory-dir", str(healthy), "--state-dir", str(tmp_path / "st")])

    out, err = capsys.readouterr()
    assert code == 1
    assert roots_by_dir(json.loads(out))[str(healthy)]["status"] == "consolidated"
    failed = [e for e in _log_events(err) if e.get("event") == "root failed"]
    assert len(failed) == 1
    assert failed[0]["traceback"].startswith("Traceback (most recent call last)")
    assert "ZeroDivisionError: division by zero" in failed[0]["traceback"]


def test_an_exception_in_a_gate_fails_that_root_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from consolidator import cli, gates
    from consolidator.gates import checks

    broken = make_project(tmp_path, "broken", sessions=5)
    healthy = make_project(tmp_path, "healthy", sessions=5)
    real = checks.sessions

    def sessions(ctx: Any) -> tuple[bool, str]:
        if ctx.root == broken:
            raise ValueError("a transcript name the gate could not handle")
        return real(ctx)

    monkeypatch.setitem(gates._CHECKS, "G6", sessions)

    code = cli.main(["run", "--json", "--memory-dir", str(broken), "--memory-dir", str(healthy),
                     "--state-dir", str(tmp_path / "st")])

    out, _err = capsys.readouterr()
    assert code == 1
    report = roots_by_dir(json.loads(out))
    assert report[str(broken)]["status"] == "failed"
    assert "ValueError" in report[str(broken)]["error"]
    assert report[str(healthy)]["status"] == "consolidated"
    assert [e["status"] for e in _history_lines(tmp_path / "st", broken)] == ["failed"]


# --------------------------------------------------------------------------- exit codes


def test_exit_code_is_0_when_a_gate_is_closed(tmp_path: Path) -> None:
    root = make_project(tmp_path, "p", sessions=0)
    proc = consolidator("run", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr


def test_exit_code_is_0_when_a_root_was_consolidated(tmp_path: Path) -> None:
    root = make_project(tmp_path, "p", sessions=5)
    proc = consolidator("run", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert (root / "MEMORY.md").is_file()


@pytest.mark.parametrize(
    "case", ["missing memory dir", "memory dir is a file", "bad config", "unknown option"]
)
def test_exit_code_is_2_for_a_usage_or_config_error_with_one_line(
    tmp_path: Path, case: str
) -> None:
    root = make_project(tmp_path, "p")
    args = ["run", "--state-dir", str(tmp_path / "st")]
    if case == "missing memory dir":
        args += ["--memory-dir", str(tmp_path / "nope")]
    elif case == "memory dir is a file":
        (tmp_path / "f").write_text("x")
        args += ["--memory-dir", str(tmp_path / "f")]
    elif case == "bad config":
        config = tmp_path / "c.toml"
        config.write_text("[gates]\nmin_hour = 3\n")
        args += ["--config", str(config), "--memory-dir", str(root)]
    else:
        args += ["--memory-dir", str(root), "--frobnicate"]
    proc = consolidator(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    if case != "bad config":  # a config error lists each problem on its own line
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (root / "MEMORY.md").exists()


def test_exit_code_is_75_when_a_forced_run_cannot_take_a_lock(tmp_path: Path) -> None:
    locked = make_project(tmp_path, "locked")
    free = make_project(tmp_path, "free")
    with flock_held_elsewhere(locked, tmp_path / "st"):
        proc = consolidator("run", "--force", "--json", "--memory-dir", str(locked),
                            "--memory-dir", str(free), "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 75, proc.stderr
    assert str(locked) in proc.stderr
    roots = roots_by_dir(json.loads(proc.stdout))
    assert roots[str(free)]["status"] == "consolidated"
    assert (roots[str(locked)]["status"], closed_gate(roots[str(locked)])) == ("skipped", "G7")
    assert not (locked / "MEMORY.md").exists()
    line = consolidator("history", "--memory-dir", str(locked),
                        "--state-dir", str(tmp_path / "st")).stdout.strip().splitlines()[-1]
    assert line.count(str(locked)) == 1, line
    assert line.endswith(f"{locked}: G7 another consolidator run holds the lock"), line


@pytest.mark.parametrize("alias", ["symlink", "dotdot"])
def test_a_lock_held_on_a_folder_stops_a_run_through_another_name_for_it(
    tmp_path: Path, alias: str
) -> None:
    root = make_project(tmp_path, "p")
    if alias == "symlink":
        named = tmp_path / "alias"
        named.symlink_to(root, target_is_directory=True)
    else:
        named = root.parent / "x" / ".." / root.name
        (root.parent / "x").mkdir()
    with flock_held_elsewhere(root, tmp_path / "st"):
        proc = consolidator("run", "--force", "--memory-dir", str(named),
                            "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 75, proc.stderr
    assert not (root / "MEMORY.md").exists()
    assert [p.name for p in (tmp_path / "st").iterdir()] == [root_key(root)], \
        "one folder, one state folder"


def test_exit_code_is_0_when_a_gated_run_finds_the_lock_held(tmp_path: Path) -> None:
    root = make_project(tmp_path, "p", sessions=5)
    with flock_held_elsewhere(root, tmp_path / "st"):
        proc = consolidator("run", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert not (root / "MEMORY.md").exists()


def test_exit_code_is_1_when_a_root_failed(tmp_path: Path) -> None:
    root = make_project(tmp_path, "p")
    (tmp_path / "st" / root_key(root)).mkdir(parents=True)
    (tmp_path / "st" / root_key(root) / "runs").write_text("not a folder")
    proc = consolidator("run", "--force", "--memory-dir", str(root),
                        "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- output


def test_run_json_prints_the_report_on_stdout_and_the_logs_on_stderr(tmp_path: Path) -> None:
    busy = make_project(tmp_path, "busy", sessions=5)
    quiet = make_project(tmp_path, "quiet")
    proc = consolidator("run", "--json", "--memory-dir", str(busy), "--memory-dir", str(quiet),
                        "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)  # the whole of stdout is one JSON document
    assert report["schema_version"] == 1 and report["dry_run"] is False
    assert len(report["roots"]) == 2
    for root in report["roots"]:
        assert [g["id"] for g in root["gates"]] == [f"G{i}" for i in range(1, 8)]
    logs = json_lines(proc.stderr)
    events = {e["event"] for e in logs}
    assert {"root done", "pass"} <= events
    assert all(e.get("run_id") == report["run_id"] for e in logs
               if e["event"] in ("root done", "pass"))


def test_plain_run_prints_json_log_lines_on_stderr_and_nothing_on_stdout(
    tmp_path: Path,
) -> None:
    busy = make_project(tmp_path, "busy", sessions=5)
    quiet = make_project(tmp_path, "quiet")
    proc = consolidator("run", "-v", "--memory-dir", str(busy), "--memory-dir", str(quiet),
                        "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # no report without --json, and never a log line
    lines = json_lines(proc.stderr)  # every line is a JSON object
    assert lines and all({"event", "level", "timestamp"} <= set(e) for e in lines)
    done = [e for e in lines if e["event"] == "root done"]
    skipped = [e for e in lines if e["event"] == "root skipped"]
    assert [(e["root"], e["status"], e["level"]) for e in done] == [
        (str(busy), "consolidated", "info")]
    assert [(e["root"], e["gate"], e["level"]) for e in skipped] == [
        (str(quiet), "G6", "debug")]
    (summary,) = [e for e in lines if e["event"] == "pass"]
    assert summary["level"] == "info"
    assert (summary["roots"], summary["due"], summary["consolidated"]) == (2, 1, 1)
    assert summary["closed"] == {"G6 sessions": 1}


def test_the_scan_throttle_holds_across_separate_processes(tmp_path: Path) -> None:
    root = make_project(tmp_path, "p", sessions=1)  # G6 closes: too few sessions
    args = ("run", "--json", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    first = json.loads(consolidator(*args).stdout)["roots"][0]
    assert closed_gate(first) == "G6"
    second = json.loads(consolidator(*args).stdout)["roots"][0]
    assert closed_gate(second) == "G5"
    assert second["gates"][5]["reason"] == "not evaluated"


def test_a_dry_run_records_its_scan_as_any_run_and_changes_nothing(tmp_path: Path) -> None:
    root = make_project(tmp_path, "p", sessions=5)
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    args = ("run", "--dry-run", "--json", "--memory-dir", str(root),
            "--state-dir", str(tmp_path / "st"))
    proc = consolidator(*args)
    assert proc.returncode == 0, proc.stderr
    (only,) = json.loads(proc.stdout)["roots"]
    assert only["status"] == "planned"
    assert all(g["passed"] for g in only["gates"])
    again = json.loads(consolidator(*args).stdout)["roots"][0]
    assert (again["status"], closed_gate(again)) == ("skipped", "G5"), "the throttle holds"
    report = json.loads(consolidator("report", "--json", *args[3:]).stdout)["roots"][0]
    assert report["status"] == "planned", "the report evaluates every gate, records nothing"
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before


def _with_stdout_closed(*args: str) -> tuple[int, str]:
    """Run the command with the reading end of its stdout already closed (`... | head -0`)."""
    proc = subprocess.Popen([sys.executable, "-m", "consolidator", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=60), err


def test_a_reader_that_goes_away_does_not_stop_or_garble_a_run(tmp_path: Path) -> None:
    busy = make_project(tmp_path, "busy", sessions=5)
    quiet = make_project(tmp_path, "quiet")
    code, err = _with_stdout_closed("run", "--memory-dir", str(busy), "--memory-dir", str(quiet),
                                    "--state-dir", str(tmp_path / "st"))
    assert code == 0
    assert "Traceback" not in err and "Logging error" not in err
    assert (busy / "MEMORY.md").is_file()  # the consolidation went on to the end


@pytest.mark.parametrize("command", [["report"], ["status"], ["history"], ["run", "--json"]])
def test_listings_into_a_closed_pipe_exit_quietly(tmp_path: Path, command: list[str]) -> None:
    root = make_project(tmp_path, "p", sessions=5)
    consolidator("run", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    code, err = _with_stdout_closed(*command, "--memory-dir", str(root),
                                    "--state-dir", str(tmp_path / "st"))
    assert code == 0, err
    assert "Traceback" not in err and "Broken pipe" not in err


@pytest.mark.parametrize("command", [["history"], ["run", "--force"]])
def test_a_command_started_with_stdout_closed_exits_as_it_would(
    tmp_path: Path, command: list[str]
) -> None:
    """`consolidator run >&-` from a cron line: no stdout at all is no failure."""
    root = make_project(tmp_path, "p", sessions=5)
    proc = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "consolidator", *command,
         "--memory-dir", str(root), "--state-dir", str(tmp_path / "st")],
        stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- where logs go


def _redirected(tmp_path: Path, name: str, *args: str) -> tuple[int, str, str]:
    """Run the command as a shell does with ``> name``: stdout into a file, stderr apart."""
    out = tmp_path / name
    with open(out, "w", encoding="utf-8") as stdout:
        proc = subprocess.run([sys.executable, "-m", "consolidator", *args], stdout=stdout,
                              stderr=subprocess.PIPE, text=True, timeout=60,
                              env=dict(os.environ), check=False)
    return proc.returncode, out.read_text(encoding="utf-8"), proc.stderr


def _over_two_projects(tmp_path: Path, name: str, command: list[str]) -> tuple[int, str, str]:
    """``command`` over a project due for a pass and a quiet one, its stdout sent to ``name``."""
    busy = make_project(tmp_path, "busy", sessions=5)
    quiet = make_project(tmp_path, "quiet")
    return _redirected(tmp_path, name, *command, "--memory-dir", str(busy), "--memory-dir",
                       str(quiet), "--state-dir", str(tmp_path / "st"))


@pytest.mark.parametrize("command", [
    ["run", "--dry-run"], ["run", "--dry-run", "--force"], ["report"], ["report", "-v"],
])
def test_a_plan_or_report_redirected_to_a_file_is_pure_markdown(
    tmp_path: Path, command: list[str]
) -> None:
    code, plan, err = _over_two_projects(tmp_path, "plan.md", command)
    assert code == 0, err
    assert plan.startswith("# Dream Consolidator report"), plan[:300]
    assert '"event"' not in plan and '"level"' not in plan, "no log line in the Markdown"
    logs = json_lines(err)  # the log, if any, is on stderr: JSON lines off a terminal
    if command[0] == "run":
        assert [e["event"] for e in logs if e["level"] == "info"][-1] == "pass"


@pytest.mark.parametrize("command", [
    ["run", "--dry-run", "--json"], ["run", "--json"], ["report", "--format", "json", "-v"],
])
def test_json_redirected_to_a_file_is_one_json_document(
    tmp_path: Path, command: list[str]
) -> None:
    code, text, err = _over_two_projects(tmp_path, "r.json", command)
    assert code == 0, err
    assert json.loads(text)["schema_version"] == 1  # the whole file is one document
    assert json_lines(err), "the log lines are on stderr"


# --------------------------------------------------------------------------- a closed gate


def test_a_closed_gate_pass_logs_one_short_line_at_info_with_the_counts_by_gate(
    tmp_path: Path,
) -> None:
    """A timer ticking every few minutes mostly finds every gate closed: one line per pass
    says so, whatever the number of roots; each root's details are at debug."""
    roots = [make_project(tmp_path, name) for name in ("a", "b", "c")]  # no sessions: G6
    recent = roots[2] / ".consolidate-lock"
    recent.write_bytes(b"")  # consolidated an hour ago: G4
    os.utime(recent, (time.time() - 3600, time.time() - 3600))
    args = [a for root in roots for a in ("--memory-dir", str(root))]
    args += ["--state-dir", str(tmp_path / "st")]

    proc = consolidator("run", *args)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert len(line.encode()) < 300, line
    summary = json.loads(line)
    assert (summary["event"], summary["level"]) == ("pass", "info")
    assert (summary["roots"], summary["due"]) == (3, 0)
    assert summary["closed"] == {"G4 interval": 1, "G6 sessions": 2}

    detailed = json_lines(consolidator("run", "-v", *args).stderr)  # G5 throttles a and b now
    skipped = [e for e in detailed if e["event"] == "root skipped"]
    assert sorted((e["root"], e["gate"], e["level"]) for e in skipped) == sorted(
        [(str(roots[0]), "G5", "debug"), (str(roots[1]), "G5", "debug"),
         (str(roots[2]), "G4", "debug")])
    (again,) = [e for e in detailed if e["event"] == "pass"]
    assert again["closed"] == {"G4 interval": 1, "G5 scan-throttle": 2}


# --------------------------------------------------------------------------- an unusable root


def _warnings(proc: subprocess.CompletedProcess[str], root: Path) -> list[dict[str, Any]]:
    return [e for e in json_lines(proc.stderr)
            if e["event"] in ("root cannot be used", "root usable again") and e["root"] == str(root)]


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_repeated_runs_warn_of_an_unwritable_root_once_per_change_of_reason(
    tmp_path: Path, unwritable: Callable[[Path], None]
) -> None:
    """A timer's one-shot runs remember, in the state dir, what they last warned of: an
    unwritable root is one warning, not one per tick; the same reason again is at debug."""
    root = make_project(tmp_path, "p", sessions=5)
    args = ("run", "-v", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    unwritable(root)

    first, second, third = (consolidator(*args) for _ in range(3))

    for proc in (first, second, third):
        assert proc.returncode == 0, proc.stderr
    (warned,) = _warnings(first, root)
    assert warned["level"] == "warning" and "not readable and writable" in warned["reason"]
    for later in (second, third):
        (again,) = _warnings(later, root)
        assert again["level"] == "debug" and again["reason"] == warned["reason"]
    quiet = consolidator(*[a for a in args if a != "-v"])
    assert _warnings(quiet, root) == [], "nothing at info or above the fourth time"

    make_writable(root)
    back = consolidator(*args)
    assert [(e["event"], e["level"]) for e in _warnings(back, root)] == [
        ("root usable again", "info")]
    assert _warnings(consolidator(*args), root) == []

    unwritable(root)
    (warned_again,) = _warnings(consolidator(*args), root)
    assert warned_again["level"] == "warning", "a new change of reason is said again"


def test_every_log_line_of_a_run_carries_its_run_id_the_early_warnings_too(
    tmp_path: Path,
) -> None:
    """The keyless-backend warning comes before any root is run, and a run that finds no
    memory directory runs none: their lines still carry the run's id, the one its pass
    line gives."""
    config = tmp_path / "c.toml"
    config.write_text('[llm]\nbackend = "anthropic"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "empty-claude")
    root = make_project(tmp_path, "one", sessions=5)
    for where in (["--memory-dir", str(root)], []):
        proc = subprocess.run(
            [sys.executable, "-m", "consolidator", "--config", str(config), "run",
             *where, "--state-dir", str(tmp_path / "st")],
            capture_output=True, text=True, timeout=60, env=env, check=False)
        lines = json_lines(proc.stderr)
        assert any("ANTHROPIC_API_KEY is not set" in e["event"] for e in lines), proc.stderr
        ids = {e.get("run_id") for e in lines}
        assert len(ids) == 1 and None not in ids, proc.stderr
