"""`consolidator serve` as a subprocess on temporary roots: it consolidates, logs JSON lines,
survives a failing root, reloads on SIGHUP and stops cleanly on SIGTERM.

Every service here ticks every second (`[schedule] interval_seconds = 1`) and needs one
session (`[gates] min_sessions = 1`); HOME is isolated by tests/conftest.py.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from consolidator.state.statedir import root_key
from tests.conftest import EXAMPLES, make_writable

FAST = "[schedule]\ninterval_seconds = 1\n[gates]\nmin_sessions = 1\n"
STOP_WITHIN_S = 5.0
Event = dict[str, Any]


class Serve:
    """One `consolidator serve` process; its log (stderr) is read line by line as it comes,
    and its stdout, which must stay empty, is kept."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "consolidator", "serve", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines: list[str] = []
        self.events: list[Event] = []
        self.stdout = ""
        self._cond = threading.Condition()
        self._out = threading.Thread(target=self._read_stderr, daemon=True)
        self._err = threading.Thread(target=self._read_stdout, daemon=True)
        self._out.start()
        self._err.start()

    @property
    def stderr(self) -> str:
        """Everything the service wrote on stderr so far: its log and any other line."""
        with self._cond:
            return "".join(self.lines)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._cond:
                self.lines.append(line)
                try:
                    event = json.loads(line)
                except ValueError:
                    event = None
                if isinstance(event, dict):
                    self.events.append(event)
                self._cond.notify_all()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        self.stdout = self.proc.stdout.read()

    def mark(self) -> int:
        """The number of events so far: wait_for(..., after=mark) sees only newer ones."""
        with self._cond:
            return len(self.events)

    def wait_for(self, pred: Callable[[Event], bool], timeout: float = 20.0,
                 after: int = 0) -> Event:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event in self.events[after:]:
                    if pred(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and not self._out.is_alive():
                    tail = "".join(self.lines[-15:])
                    raise AssertionError(
                        f"no matching log event within {timeout} s "
                        f"(exit code {self.proc.poll()}); last lines:\n{tail}\n{self.stdout}"
                    )
                self._cond.wait(min(left, 0.2))

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, float]:
        """Send ``sig``; return the exit code and the seconds it took to exit."""
        start = time.monotonic()
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=STOP_WITHIN_S * 3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        elapsed = time.monotonic() - start
        self._out.join(5)
        self._err.join(5)
        return code, elapsed

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def serve() -> Iterator[Callable[..., Serve]]:
    started: list[Serve] = []

    def start(*args: str) -> Serve:
        service = Serve(*args)
        started.append(service)
        return service

    yield start
    for service in started:
        service.kill()


def _event(name: str, **fields: Any) -> Callable[[Event], bool]:
    return lambda e: e.get("event") == name and all(e.get(k) == v for k, v in fields.items())


def _config(tmp_path: Path, text: str = FAST, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _example(tmp_path: Path, name: str = "project") -> Path:
    """A private copy of examples/ with the ages of its story; returns its memory dir."""
    dest = tmp_path / name
    shutil.copytree(EXAMPLES, dest, symlinks=True)
    subprocess.run([sys.executable, str(dest / "set_ages.py")], check=True,
                   capture_output=True, timeout=30)
    return dest / "memory"


def _big_root(tmp_path: Path, memories: int = 1500) -> Path:
    """A root with ``memories`` 40-day-old memories in groups of three saying the same thing
    (so the pass merges a lot and takes a few seconds), and three sessions from the last
    hours; returns the memory dir."""
    project = tmp_path / "big"
    root = project / "memory"
    root.mkdir(parents=True)
    old = time.time() - 40 * 86400
    for i in range(memories):
        group = i // 3
        path = root / f"feedback_rule_{i:05d}.md"
        path.write_text(
            f"---\nname: rule_{i:05d}\ndescription: widget {group} rule, copy {i % 3}\n"
            f"type: feedback\n---\n"
            f"Rule {group}: the widget-{group} service listens on port {10000 + group}.\n"
            f"**Why:** incident {group} showed it.\n"
            f"**How to apply:** check the widget-{group} config before deploying.\n",
            encoding="utf-8",
        )
        os.utime(path, (old + i, old + i))
    index = root / "MEMORY.md"
    index.write_text("# Memory\n", encoding="utf-8")
    os.utime(index, (old, old))
    for hours in (1, 2, 3):
        transcript = project / f"{uuid.uuid4()}.jsonl"
        transcript.write_text(json.dumps({"type": "user", "cwd": str(project)}) + "\n")
        stamp = time.time() - hours * 3600
        os.utime(transcript, (stamp, stamp))
    return root


def _content_lines(path: Path) -> set[str]:
    text = path.read_bytes().decode("utf-8", "replace")
    return {line.strip() for line in text.splitlines() if line.strip() and line.strip() != "---"}


def _history(state: Path) -> list[Event]:
    proc = subprocess.run(
        [sys.executable, "-m", "consolidator", "history", "--json", "--state-dir", str(state)],
        check=False, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


# --- consolidating, logging, stopping -------------------------------------------------------


def test_serve_consolidates_a_root_and_logs_one_json_object_per_line(
    tmp_path: Path, serve: Callable[..., Serve]
) -> None:
    root = _example(tmp_path)
    state = tmp_path / "state"
    service = serve("--config", str(_config(tmp_path)), "--state-dir", str(state),
                    "--memory-dir", str(root), "--project-root", str(root.parent / "project"))

    done = service.wait_for(_event("root done", root=str(root)))
    assert done["status"] == "consolidated" and done["merges"] >= 2
    # The next ticks find the root just consolidated: held back at G4, said in the pass's
    # one line; the service goes on.
    service.wait_for(_event("pass", roots=1, due=0, closed={"G4 interval": 1}))
    code, elapsed = service.stop()

    assert code == 0 and elapsed < STOP_WITHIN_S, (code, elapsed, service.stderr)
    assert service.lines, "serve logged nothing"
    assert service.stdout == "", "the log goes to stderr"
    for line in service.lines:  # stderr is a pipe, not a terminal: JSON lines only
        assert isinstance(json.loads(line), dict), line
    assert "Traceback" not in service.stderr
    # Duplicates merged: one of each pair is left, the other is in the state dir's archive.
    left = {"feedback_no_mocks.md", "feedback_real_db_tests.md"} & {
        p.name for p in root.iterdir()}
    assert len(left) == 1, left
    assert (root / "project_deploy.md").exists()
    assert not (root / "project_deploy_notes.md").exists()
    assert list(state.glob("*/runs/*/archive/project_deploy_notes.md"))
    assert (root / ".consolidate-lock").read_bytes() == b""  # success: body emptied
    runs = _history(state)
    assert any(e["trigger"] == "serve" and e["status"] == "consolidated"
               and e["memory_dir"] == str(root) and e["dry_run"] is False for e in runs), runs


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_or_sigint_while_waiting_for_the_next_tick_exits_0(
    tmp_path: Path, serve: Callable[..., Serve], sig: int
) -> None:
    root = _example(tmp_path)
    config = _config(tmp_path, "[schedule]\ninterval_seconds = 3600\n[gates]\nmin_sessions = 1\n")
    service = serve("--config", str(config), "--state-dir", str(tmp_path / "state"),
                    "--memory-dir", str(root))
    service.wait_for(_event("root done", root=str(root)))

    code, elapsed = service.stop(sig)

    assert code == 0 and elapsed < STOP_WITHIN_S, (code, elapsed, service.stderr)
    service.wait_for(_event("stopped"), timeout=1)
    assert "Traceback" not in service.stderr


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
@pytest.mark.parametrize("lock_before", ["absent", "from an earlier consolidation"])
def test_sigterm_during_a_consolidation_rolls_the_lock_back_and_loses_nothing(
    tmp_path: Path, serve: Callable[..., Serve], lock_before: str
) -> None:
    root = _big_root(tmp_path)
    lock = root / ".consolidate-lock"
    if lock_before != "absent":
        lock.write_bytes(b"")
        three_days_ago = time.time_ns() - 3 * 86400 * 10**9
        os.utime(lock, ns=(three_days_ago, three_days_ago))
    before_lock = (lock.read_bytes(), lock.stat().st_mtime_ns) if lock.exists() else None
    originals = {p: _content_lines(p) for p in root.rglob("*.md") if p.name != "MEMORY.md"}
    state = tmp_path / "state"
    # --debug logs the start of each phase, so the signal lands inside "consolidate".
    service = serve("--debug", "--config", str(_config(tmp_path)), "--state-dir", str(state),
                    "--memory-dir", str(root), "--project-root", str(root.parent))
    service.wait_for(_event("phase", phase="consolidate"), timeout=30)
    time.sleep(0.3)  # let it merge some files first

    code, elapsed = service.stop()

    assert code == 0 and elapsed < STOP_WITHIN_S, (code, elapsed, service.stderr)
    service.wait_for(_event("pass stopped; lock rolled back"), timeout=1)
    assert not [e for e in service.events if e.get("event") == "root done"], \
        "the pass finished before SIGTERM: make the root bigger"
    after_lock = (lock.read_bytes(), lock.stat().st_mtime_ns) if lock.exists() else None
    assert after_lock == before_lock
    # Nothing lost: every line of every original memory is in a live file or the archive.
    archived = [p for p in state.glob("*/runs/*/archive/**/*") if p.is_file()]
    assert archived, "SIGTERM came before the first merge: nothing was tested"
    kept: set[str] = set()
    for path in [*root.rglob("*.md"), *archived]:
        kept |= _content_lines(path)
    lost = {str(p.name): sorted(lines - kept) for p, lines in originals.items() if lines - kept}
    assert not lost, dict(list(lost.items())[:5])


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_pass_stopped_by_sigterm_is_listed_in_history_so_it_can_be_undone(
    tmp_path: Path, serve: Callable[..., Serve]
) -> None:
    root = _big_root(tmp_path)
    state = tmp_path / "state"
    service = serve("--debug", "--config", str(_config(tmp_path)), "--state-dir", str(state),
                    "--memory-dir", str(root), "--project-root", str(root.parent))
    started = service.wait_for(_event("phase", phase="consolidate"), timeout=30)
    time.sleep(0.3)
    code, _elapsed = service.stop()
    assert code == 0
    assert list(state.glob(f"*/runs/{started['run_id']}/archive/*")), "nothing changed yet"

    assert started["run_id"] in {e["run_id"] for e in _history(state)}


# --- a failing root -------------------------------------------------------------------------


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_root_that_fails_is_logged_retried_and_the_service_keeps_running(
    tmp_path: Path, serve: Callable[..., Serve]
) -> None:
    broken, healthy = _example(tmp_path, "broken"), _example(tmp_path, "healthy")
    state = tmp_path / "state"
    # The broken root's run folder cannot be created: a file sits where runs/ should be.
    blocker = state / root_key(broken) / "runs"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("not a folder")
    config = _config(tmp_path, FAST + "scan_interval_minutes = 0\n")  # retry every tick
    service = serve("--config", str(config), "--state-dir", str(state),
                    "--memory-dir", str(broken), "--memory-dir", str(healthy))

    first = service.wait_for(_event("root failed", root=str(broken)))
    assert "Not a directory" in first["error"] or "runs" in first["error"]
    done = service.wait_for(_event("root done", root=str(healthy)))
    assert done["status"] == "consolidated"  # one failing root does not stop the others
    mark = service.mark()
    service.wait_for(_event("root failed", root=str(broken)), after=mark)  # next tick, again
    # The pass's line comes after both roots: once it is logged, the broken root's lock has
    # been rolled back, and the next tick is most of a second away.
    service.wait_for(_event("pass", roots=2), after=mark)
    assert service.proc.poll() is None
    # Rolled back after each failed run: it had none before. On a loaded machine the next tick
    # may already be running the root again (and holding the lock for that moment): between
    # two runs, the lock is gone.
    lock = broken / ".consolidate-lock"
    deadline = time.monotonic() + 5
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert not lock.exists()

    blocker.unlink()  # fixed: a later tick consolidates it
    fixed = service.wait_for(
        lambda e: e.get("event") == "root done" and e.get("root") == str(broken)
        and e.get("status") == "consolidated", after=service.mark())
    assert fixed["merges"] >= 2
    code, elapsed = service.stop()
    assert code == 0 and elapsed < STOP_WITHIN_S, (code, elapsed, service.stderr)


def test_a_root_whose_state_folder_is_unusable_does_not_block_the_other_roots(
    tmp_path: Path, serve: Callable[..., Serve]
) -> None:
    broken, healthy = _example(tmp_path, "broken"), _example(tmp_path, "healthy")
    state = tmp_path / "state"
    state.mkdir()
    (state / root_key(broken)).write_text("a file where the root's state folder goes")
    service = serve("--config", str(_config(tmp_path)), "--state-dir", str(state),
                    "--memory-dir", str(broken), "--memory-dir", str(healthy))

    end = service.wait_for(lambda e: e.get("event") == "pass failed"
                           or e.get("event") == "root done" and e.get("root") == str(healthy))
    code, _elapsed = service.stop()
    assert code == 0

    assert end.get("root") == str(healthy) and end.get("status") == "consolidated", end


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_root_that_fails_on_every_tick_is_logged_at_warning_level(
    tmp_path: Path, serve: Callable[..., Serve]
) -> None:
    broken, healthy = _example(tmp_path, "broken"), _example(tmp_path, "healthy")
    state = tmp_path / "state"
    # An interrupted run whose journal has garbage in the middle: recovery cannot read it.
    run_dir = state / root_key(broken) / "runs" / "20260101T000000Z-dead"
    run_dir.mkdir(parents=True)
    meta = {"meta": {"run_id": "20260101T000000Z-dead", "memory_dir": str(broken),
                     "started_ns": 0}}
    (run_dir / "journal.jsonl").write_bytes(
        (json.dumps(meta) + "\n").encode() + b"\xff garbage\n"
        + b'{"phase": "intent", "step": 1, "op": "rewrite", "file": "x.md"}\n')
    config = _config(tmp_path, FAST + "scan_interval_minutes = 0\n")  # retry every tick
    service = serve("--config", str(config), "--state-dir", str(state),
                    "--memory-dir", str(broken), "--memory-dir", str(healthy))

    first = service.wait_for(_event("root failed", root=str(broken)))
    assert first["level"] in ("warning", "error")
    done = service.wait_for(_event("root done", root=str(healthy)))
    assert done["status"] == "consolidated"
    again = service.wait_for(_event("root keeps failing", root=str(broken)))
    assert again["level"] == "warning" and again["ticks"] >= 2 and again["error"]
    assert service.proc.poll() is None
    assert not (broken / ".consolidate-lock").exists()
    code, elapsed = service.stop()
    assert code == 0 and elapsed < STOP_WITHIN_S, (code, elapsed, service.stderr)
    assert "Traceback" not in service.stderr
    statuses = [(e["memory_dir"], e["status"]) for e in _history(state)]
    assert statuses.count((str(broken), "failed")) >= 2


# --- config: errors and reload --------------------------------------------------------------

BAD_SCHEDULES = {
    "bad cron": ('[schedule]\ncron = "61 * * * *"\n', ["schedule.cron"]),
    "cron and interval": ('[schedule]\ncron = "*/10 * * * *"\ninterval_seconds = 60\n',
                          ["schedule", "cron", "interval_seconds"]),
}


@pytest.mark.parametrize("command", [["serve"], ["config", "check"]])
@pytest.mark.parametrize("case", sorted(BAD_SCHEDULES))
def test_a_bad_schedule_is_a_config_error_naming_its_key(
    tmp_path: Path, case: str, command: list[str]
) -> None:
    text, keys = BAD_SCHEDULES[case]
    config = _config(tmp_path, text)
    proc = subprocess.run(
        [sys.executable, "-m", "consolidator", *command, "--config", str(config),
         "--state-dir", str(tmp_path / "state")],
        check=False, capture_output=True, text=True, timeout=30,
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert str(config) in proc.stderr
    for key in keys:
        assert key in proc.stderr, proc.stderr
    assert proc.stdout == ""  # serve never started
    assert not (tmp_path / "state").exists()


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_sighup_reloads_the_config_and_keeps_the_old_one_if_the_new_is_broken(
    tmp_path: Path, serve: Callable[..., Serve]
) -> None:
    root = _example(tmp_path)
    config = _config(tmp_path, "[schedule]\ninterval_seconds = 3600\n[gates]\nmin_sessions = 1\n")
    service = serve("--config", str(config), "--state-dir", str(tmp_path / "state"),
                    "--memory-dir", str(root))
    service.wait_for(_event("root done", root=str(root)))

    config.write_text(FAST, encoding="utf-8")
    mark = service.mark()
    service.proc.send_signal(signal.SIGHUP)
    reloaded = service.wait_for(_event("config reloaded"), after=mark)
    assert reloaded["config"] == str(config)
    assert reloaded["roots"] == [f"{root} (auto)"]
    assert reloaded["state_dir"] == str(tmp_path / "state")
    # Under the old hourly schedule nothing would tick now; under the new one it does.
    service.wait_for(_event("pass", roots=1), after=mark, timeout=5)

    config.write_text("[schedule]\ninterval_seconds = 0\n", encoding="utf-8")
    mark = service.mark()
    service.proc.send_signal(signal.SIGHUP)
    failed = service.wait_for(_event("config reload failed; keeping the old config"), after=mark)
    assert any("schedule.interval_seconds" in p for p in failed["problems"])
    service.wait_for(_event("pass", roots=1), after=service.mark(), timeout=5)

    code, elapsed = service.stop()
    assert code == 0 and elapsed < STOP_WITHIN_S, (code, elapsed, service.stderr)


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_sighup_applies_the_log_section_too(
    tmp_path: Path, serve: Callable[..., Serve]
) -> None:
    """A reload that lowers [log] level takes effect at once: the pass lines (info) that a
    warning level kept out appear after SIGHUP, announced by the reload line."""
    root = _example(tmp_path)
    config = _config(tmp_path, FAST + '[log]\nformat = "json"\nlevel = "warning"\n')
    service = serve("--config", str(config), "--state-dir", str(tmp_path / "state"),
                    "--memory-dir", str(root))
    time.sleep(2.5)  # a couple of ticks at warning level
    assert not [e for e in service.events if e.get("level") == "info"], service.events

    config.write_text(FAST + '[log]\nformat = "json"\nlevel = "info"\n', encoding="utf-8")
    mark = service.mark()
    service.proc.send_signal(signal.SIGHUP)
    service.wait_for(_event("config reloaded"), after=mark)
    service.wait_for(lambda e: e.get("event") == "pass" and e.get("level") == "info", after=mark,
                     timeout=5)


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_root_the_service_cannot_use_is_one_warning_per_change_of_reason(
    tmp_path: Path, serve: Callable[..., Serve]
) -> None:
    """A root that vanishes (or that the unit may not write) is a warning once, not a skip
    line on every tick; when it comes back the service says so once."""
    root = _example(tmp_path)
    config = _config(tmp_path)
    service = serve("--config", str(config), "--state-dir", str(tmp_path / "state"),
                    "--memory-dir", str(root))
    service.wait_for(_event("pass", roots=1))
    aside = root.with_name("memory-aside")
    root.rename(aside)
    mark = service.mark()
    first = service.wait_for(_event("root cannot be used", root=str(root)), after=mark)
    assert first["level"] == "warning" and "not a directory" in first["reason"]
    time.sleep(2.5)  # more ticks with the same reason
    warned = [e for e in service.events[mark:] if e.get("event") == "root cannot be used"]
    assert len(warned) == 1
    aside.rename(root)
    service.wait_for(_event("root usable again", root=str(root)), after=mark)


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_an_unwritable_root_is_one_warning_per_change_of_reason_in_the_service(
    tmp_path: Path, serve: Callable[..., Serve], unwritable: Callable[[Path], None]
) -> None:
    """A root outside a unit's ReadWritePaths= is a warning once, then nothing at info on
    the ticks that find it so again; a new reason (it vanished) is a new warning."""
    root = _example(tmp_path)
    service = serve("--config", str(_config(tmp_path)), "--state-dir", str(tmp_path / "state"),
                    "--memory-dir", str(root))
    service.wait_for(_event("root done", root=str(root)))
    mark = service.mark()
    unwritable(root)
    first = service.wait_for(_event("root cannot be used", root=str(root)), after=mark)
    assert first["level"] == "warning" and "not readable and writable" in first["reason"]
    ticks = service.mark()
    service.wait_for(_event("pass", roots=1), after=ticks)
    service.wait_for(_event("pass", roots=1), after=service.mark())  # two more ticks
    said = [e for e in service.events[mark:] if e.get("root") == str(root)]
    assert [e["event"] for e in said] == ["root cannot be used"], said

    make_writable(root)
    aside = root.with_name("memory-aside")
    root.rename(aside)
    gone = service.wait_for(_event("root cannot be used", root=str(root)), after=ticks)
    assert gone["level"] == "warning" and "not a directory" in gone["reason"]
    aside.rename(root)
    service.wait_for(_event("root usable again", root=str(root)), after=ticks)
    code, _elapsed = service.stop()
    assert code == 0


def test_a_keyless_anthropic_backend_is_a_warning_when_run_starts(tmp_path: Path) -> None:
    root = _example(tmp_path)
    config = _config(tmp_path, '[llm]\nbackend = "anthropic"\n[log]\nformat = "json"\n')
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    proc = subprocess.run(
        [sys.executable, "-m", "consolidator", "run", "--force", "--config", str(config),
         "--memory-dir", str(root), "--state-dir", str(tmp_path / "state")],
        capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stderr.splitlines()]
    warning = next(e for e in events if "ANTHROPIC_API_KEY" in e["event"])
    assert warning["level"] == "warning" and warning["config"] == str(config)
