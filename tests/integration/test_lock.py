"""The root's lock, with real second processes holding or being interrupted.

Holders are real processes: a Python child holding ``filelock`` on ``.consolidate.flock``, a
``sleep`` whose PID sits in ``.consolidate-lock`` as a live Claude Code holder, a finished
child as a dead one, and a ``consolidator run --force`` stopped by SIGTERM mid-run.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from consolidator import cli, runner
from consolidator import phases as consolidator_phases
from consolidator.phases import PHASES
from tests.conftest import SESSION_IDS, flock_held_elsewhere, snapshot_tree

NS = 1_000_000_000
MIN = 60 * NS
HOUR = 60 * MIN
DAY = 24 * HOUR


# --------------------------------------------------------------------------- helpers


def whole_seconds_ago(seconds: float) -> int:
    return (int(time.time() - seconds)) * NS


def make_root(base: Path, memories: int = 3, sessions: int = 0) -> Path:
    """``base/project/memory`` with old memories and ``sessions`` hour-old transcripts."""
    root = base / "project" / "memory"
    root.mkdir(parents=True)
    old = whole_seconds_ago(10 * 86400)
    for i in range(memories):
        path = root / f"project_fact_{i:05d}.md"
        path.write_text(
            f"---\nname: fact_{i}\ndescription: fact number {i} about module m{i}\n"
            f"type: project\n---\nModule m{i} keeps its state in table t{i} and logs to l{i}.\n",
            encoding="utf-8",
        )
        os.utime(path, ns=(old, old))
    hour_ago = whole_seconds_ago(3600)
    for sid in SESSION_IDS[:sessions]:
        path = root.parent / f"{sid}.jsonl"
        path.write_text('{"type": "user"}\n', encoding="utf-8")
        os.utime(path, ns=(hour_ago, hour_ago))
    return root


def lock_path(root: Path) -> Path:
    return root / ".consolidate-lock"


def write_lock(root: Path, body: bytes, mtime_ns: int) -> None:
    path = lock_path(root)
    path.write_bytes(body)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def lock_state(root: Path) -> tuple[bytes, int] | None:
    path = lock_path(root)
    if not path.exists():
        return None
    return path.read_bytes(), path.stat().st_mtime_ns


def without_own_lock(tree: dict[str, Any]) -> dict[str, Any]:
    """A snapshot minus ``.consolidate.flock``, which a run may leave behind (it is empty)."""
    tree = dict(tree)
    flock = tree.pop(".consolidate.flock", None)
    assert flock is None or flock[0] == b""
    return tree


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    """``consolidator run --json ARGV`` in this process: the exit code and the report."""
    code = cli.main(["run", "--json", *argv])
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip() else {})


def gates_of(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["id"]: g for g in report["roots"][0]["gates"]}


def consolidator(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "consolidator", *args],
        capture_output=True, text=True, timeout=timeout, env=dict(os.environ), check=False,
    )


@contextmanager
def live_process() -> Iterator[int]:
    """The PID of a process that stays alive for the test."""
    proc = subprocess.Popen(["sleep", "30"])
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.fixture(autouse=True)
def keep_signal_handlers() -> Iterator[None]:
    """``cli.main(["run", ...])`` installs SIGTERM/SIGINT handlers; put pytest's back."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


# --------------------------------------------------------------------------- contention


def test_a_forced_run_exits_75_and_changes_nothing_while_another_process_holds_the_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path)
    write_lock(root, b"", whole_seconds_ago(3 * 86400))
    with flock_held_elsewhere(root, tmp_path / "st"):
        before = snapshot_tree(root)
        code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                                "--state-dir", str(tmp_path / "st"))
        assert snapshot_tree(root) == before
    assert code == 75
    assert report["roots"][0]["status"] == "skipped"
    g7 = gates_of(report)["G7"]
    assert g7["passed"] is False and "another consolidator run" in g7["reason"]


def test_a_run_without_force_reports_the_lock_gate_failed_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path, sessions=5)
    with flock_held_elsewhere(root, tmp_path / "st"):
        before = snapshot_tree(root)
        code, report = run_json(capsys, "--memory-dir", str(root),
                                "--state-dir", str(tmp_path / "st"))
        assert snapshot_tree(root) == before
    assert code == 0
    gates = gates_of(report)
    assert [gates[f"G{i}"]["passed"] for i in range(1, 8)] == [True] * 6 + [False]
    assert report["roots"][0]["status"] == "skipped"


def test_the_lock_is_free_again_once_the_other_process_lets_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path)
    args = ("--force", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    with flock_held_elsewhere(root, tmp_path / "st"):
        assert run_json(capsys, *args)[0] == 75
    code, report = run_json(capsys, *args)
    assert code == 0 and report["roots"][0]["status"] == "consolidated"


# ----------------------------------------------------------------- Claude Code's lock file


@pytest.mark.parametrize("newline", [b"", b"\n"])
def test_a_fresh_lock_file_naming_a_live_process_counts_as_held(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], newline: bytes
) -> None:
    root = make_root(tmp_path)
    with live_process() as pid:
        body = str(pid).encode() + newline
        mtime = whole_seconds_ago(60)
        write_lock(root, body, mtime)
        before = snapshot_tree(root)
        code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                                "--state-dir", str(tmp_path / "st"))
        assert without_own_lock(snapshot_tree(root)) == before
    assert code == 75
    g7 = gates_of(report)["G7"]
    assert g7["passed"] is False and str(pid) in g7["reason"]
    assert lock_state(root) == (body, mtime)


def _assert_taken_over(code: int, report: dict[str, Any], root: Path) -> None:
    assert code == 0, report
    assert report["roots"][0]["status"] == "consolidated"
    assert gates_of(report)["G7"]["passed"] is True
    state = lock_state(root)
    assert state is not None and state[0] == b""


def test_a_lock_file_naming_a_dead_process_is_taken_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path)
    write_lock(root, str(dead_pid()).encode(), whole_seconds_ago(60))
    code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                            "--state-dir", str(tmp_path / "st"))
    _assert_taken_over(code, report, root)


def test_a_lock_file_older_than_lock_stale_minutes_is_taken_over_even_with_a_live_pid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path)
    with live_process() as pid:
        write_lock(root, str(pid).encode(), whole_seconds_ago(61 * 60))
        code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                                "--state-dir", str(tmp_path / "st"))
    _assert_taken_over(code, report, root)


@pytest.mark.parametrize(("age", "held"), [(60 * MIN, False), (60 * MIN - NS, True)])
def test_a_live_holder_counts_until_exactly_lock_stale_minutes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], age: int, held: bool
) -> None:
    root = make_root(tmp_path)
    now_ns = whole_seconds_ago(0)
    with live_process() as pid:
        write_lock(root, str(pid).encode(), now_ns - age)
        with freeze_time(datetime.fromtimestamp(now_ns // NS, UTC)):
            code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                                    "--state-dir", str(tmp_path / "st"))
    assert code == (75 if held else 0)
    assert gates_of(report)["G7"]["passed"] is (not held)


@pytest.mark.parametrize(
    "kind", ["garbage", "empty", "negative", "huge", "zero", "future mtime"]
)
def test_a_lock_file_without_a_valid_live_holder_is_taken_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    root = make_root(tmp_path)
    with live_process() as pid:
        body, mtime = {
            "garbage": (b"not a pid \x00\xff", whole_seconds_ago(60)),
            "empty": (b"", whole_seconds_ago(60)),
            "negative": (f"-{pid}".encode(), whole_seconds_ago(60)),
            "huge": (b"99999999999999999999", whole_seconds_ago(60)),
            "zero": (b"0", whole_seconds_ago(60)),
            "future mtime": (str(pid).encode(), whole_seconds_ago(-86400)),
        }[kind]
        write_lock(root, body, mtime)
        code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                                "--state-dir", str(tmp_path / "st"))
    _assert_taken_over(code, report, root)


# --------------------------------------------------------------------------- success and rollback


def test_after_a_successful_run_the_lock_is_empty_and_dated_at_the_run_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path)
    start_ns = whole_seconds_ago(0)
    with freeze_time(datetime.fromtimestamp(start_ns // NS, UTC)):
        code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                                "--state-dir", str(tmp_path / "st"))
    assert code == 0 and report["roots"][0]["status"] == "consolidated"
    assert lock_state(root) == (b"", start_ns)


def test_a_real_run_leaves_the_lock_dated_at_its_start_within_a_second_of_when_it_ran(
    tmp_path: Path,
) -> None:
    root = make_root(tmp_path)
    write_lock(root, b"", whole_seconds_ago(3 * 86400))
    before = time.time()
    proc = consolidator("run", "--force", "--json", "--memory-dir", str(root),
                        "--state-dir", str(tmp_path / "st"))
    after = time.time()
    assert proc.returncode == 0, proc.stderr
    body, mtime_ns = lock_state(root) or (None, 0)
    assert body == b""
    assert before - 1 <= mtime_ns / NS <= after
    started = datetime.fromtimestamp(mtime_ns // NS, UTC).strftime("%Y%m%dT%H%M%SZ")
    assert json.loads(proc.stdout)["run_id"].startswith(started)  # the run's own start


def _boom(_work: object) -> None:
    raise OSError(28, "No space left on device")


@pytest.fixture
def failing_detect(monkeypatch: pytest.MonkeyPatch) -> None:
    """The detect phase raises OSError, wherever the runner looks its phases up."""
    phases = tuple((name, _boom if name == "detect" else fn) for name, fn in PHASES)
    monkeypatch.setattr(consolidator_phases, "PHASES", phases)
    if hasattr(runner, "PHASES"):
        monkeypatch.setattr(runner, "PHASES", phases)


@pytest.mark.usefixtures("failing_detect")
def test_a_failing_phase_restores_the_lock_mtime_exactly_and_fails_the_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path)
    previous = (b"", whole_seconds_ago(3 * 86400) + 123_456_789)
    write_lock(root, *previous)
    before = snapshot_tree(root)
    code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                            "--state-dir", str(tmp_path / "st"))
    assert code == 1
    assert report["roots"][0]["status"] == "failed"
    assert "No space left" in report["roots"][0]["error"]
    assert lock_state(root) == previous
    assert without_own_lock(snapshot_tree(root)) == before


@pytest.mark.usefixtures("failing_detect")
def test_a_failing_phase_removes_the_lock_file_when_there_was_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path)
    code, report = run_json(capsys, "--force", "--memory-dir", str(root),
                            "--state-dir", str(tmp_path / "st"))
    assert code == 1 and report["roots"][0]["status"] == "failed"
    assert not lock_path(root).exists()


@pytest.mark.usefixtures("failing_detect")
def test_a_failed_run_does_not_delay_the_next_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path, sessions=5)
    write_lock(root, b"", whole_seconds_ago(2 * 86400))
    code, _report = run_json(capsys, "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    assert code == 1
    _code, again = run_json(capsys, "--dry-run", "--memory-dir", str(root),
                            "--state-dir", str(tmp_path / "st2"))
    assert gates_of(again)["G4"]["passed"] is True


# --------------------------------------------------------------------------- signals


def _wait_for_lock_body(root: Path, proc: subprocess.Popen[bytes], body: bytes) -> bool:
    """Until the child has written ``body`` into the lock (True) or has exited (False)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            proc.wait(timeout=0.002)
        except subprocess.TimeoutExpired:
            try:
                if lock_path(root).read_bytes() == body:
                    return True
            except OSError:
                pass
        else:
            return False
    raise AssertionError("the run neither took the lock nor finished in 30 s")


def test_sigterm_in_the_middle_of_a_run_exits_143_and_restores_the_lock_mtime(
    tmp_path: Path,
) -> None:
    for size in (3000, 8000):
        root = make_root(tmp_path / f"n{size}", memories=size)
        previous = (b"", whole_seconds_ago(3 * 86400) + 987_654_321)
        write_lock(root, *previous)
        proc = subprocess.Popen(
            [sys.executable, "-m", "consolidator", "run", "--force", "--memory-dir", str(root),
             "--state-dir", str(tmp_path / "st")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        if _wait_for_lock_body(root, proc, str(proc.pid).encode()):
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=30)
            assert proc.returncode == 128 + signal.SIGTERM, err
            assert b"Traceback" not in err
            assert lock_state(root) == previous
            return
        proc.communicate(timeout=30)
    pytest.skip("the run finished before it could be interrupted, even on 8000 memories")


def test_sigterm_right_after_the_lock_is_taken_still_restores_the_lock_mtime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from consolidator.state.lock import RootLock

    root = make_root(tmp_path)
    previous = (b"", whole_seconds_ago(3 * 86400))
    write_lock(root, *previous)
    real_acquire = RootLock.acquire

    def acquire_then_signal(self: RootLock) -> None:
        real_acquire(self)
        os.kill(os.getpid(), signal.SIGTERM)  # delivered at the next bytecode boundary

    monkeypatch.setattr(RootLock, "acquire", acquire_then_signal)
    code = cli.main(["run", "--force", "--memory-dir", str(root),
                     "--state-dir", str(tmp_path / "st")])
    capsys.readouterr()
    assert code == 143
    assert lock_state(root) == previous


# --------------------------------------------------------------------------- status and report


def test_status_shows_each_gate_and_the_last_run(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    state = tmp_path / "st"
    ran = consolidator("run", "--force", "--json", "--memory-dir", str(root),
                       "--state-dir", str(state))
    assert ran.returncode == 0, ran.stderr
    run_id = json.loads(ran.stdout)["run_id"]
    proc = consolidator("status", "--memory-dir", str(root), "--state-dir", str(state))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"{root} (auto)"
    for gid, name in (("G1", "enabled"), ("G2", "memory-dir"), ("G3", "idle"),
                      ("G4", "interval"), ("G5", "scan-throttle"), ("G6", "sessions"),
                      ("G7", "lock")):
        assert any(re.match(rf"\s+{gid} {re.escape(name)}\s+(pass|FAIL)\s", ln) for ln in lines), (
            gid, proc.stdout)
    assert re.search(r"G4 interval\s+FAIL", proc.stdout)  # just consolidated
    assert f"last recorded run: {run_id} consolidated\n" in proc.stdout
    assert "last consolidated: never" not in proc.stdout
    dry = consolidator("run", "--dry-run", "--force", "--json", "--memory-dir", str(root),
                       "--state-dir", str(state))
    assert dry.returncode == 0, dry.stderr
    again = consolidator("status", "--memory-dir", str(root), "--state-dir", str(state))
    assert f"{json.loads(dry.stdout)['run_id']} planned (dry run: nothing changed)" \
        in again.stdout, "a dry run never reads as the last real one"


def test_status_json_names_the_last_consolidation_and_records_no_scan(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    state = tmp_path / "st"
    write_lock(root, b"", whole_seconds_ago(2 * 86400))
    proc = consolidator("status", "--json", "--memory-dir", str(root), "--state-dir", str(state))
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert [g["id"] for g in row["gates"]] == [f"G{i}" for i in range(1, 8)]
    assert row["last_consolidated"] is not None and row["last_run"] is None
    assert not list(state.glob("*/last-scan"))


@pytest.mark.parametrize("command", ["report", "status"])
def test_report_and_status_create_no_file_under_the_root(tmp_path: Path, command: str) -> None:
    root = make_root(tmp_path, sessions=5)
    write_lock(root, b"", whole_seconds_ago(2 * 86400))
    before = snapshot_tree(root.parent)
    proc = consolidator(command, "--memory-dir", str(root), "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert not (root / ".consolidate.flock").exists()
    assert snapshot_tree(root.parent) == before
    assert sorted(p.name for p in root.iterdir()) == sorted(
        [".consolidate-lock"] + [f"project_fact_{i:05d}.md" for i in range(3)]
    )


def test_the_report_probes_the_lock_without_taking_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_root(tmp_path)
    args = ["report", "--format", "json", "--memory-dir", str(root),
            "--state-dir", str(tmp_path / "st")]
    with flock_held_elsewhere(root, tmp_path / "st"):
        before = snapshot_tree(root)
        assert cli.main(args) == 0
        held = json.loads(capsys.readouterr().out)
        assert snapshot_tree(root) == before
    assert gates_of(held)["G7"]["passed"] is False
    assert held["roots"][0]["status"] == "planned"
    assert cli.main(args) == 0
    assert gates_of(json.loads(capsys.readouterr().out))["G7"]["passed"] is True


@pytest.mark.parametrize("kind", ["folder", "symlink"])
def test_a_lock_file_that_cannot_be_written_fails_only_its_own_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    odd = make_root(tmp_path / "odd")
    healthy = make_root(tmp_path / "healthy")
    target = tmp_path / "outside-target"
    if kind == "folder":
        lock_path(odd).mkdir()
    else:
        lock_path(odd).symlink_to(target)
    code, report = run_json(capsys, "--force", "--memory-dir", str(odd),
                            "--memory-dir", str(healthy), "--state-dir", str(tmp_path / "st"))
    assert not target.exists(), "the symlink must never be followed"
    assert report, "no JSON report: the whole run was aborted"
    statuses = {r["memory_dir"]: r["status"] for r in report["roots"]}
    assert statuses[str(healthy)] == "consolidated"
    assert statuses[str(odd)] in ("failed", "skipped")
    assert code in (1, 75)
