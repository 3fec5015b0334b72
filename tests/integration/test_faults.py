"""Faults a real run meets: a kill after every journal record, SIGKILLs at
random moments, four runs racing for one root, a live session writing during a run, SIGTERM,
a full disk and a read-only folder, and the modes of what the run writes.

Runs are real ``python -m consolidator run --force`` processes wherever a process dies or
races; the full-disk and read-only faults are injected in-process around ``cli.main``.
Memories are given old mtimes (anything changed in the last 15 minutes is never touched).
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import hashlib
import io
import itertools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from consolidator import cli
from consolidator.state.lock import last_consolidated_ns, pid_alive
from consolidator.state.statedir import root_key

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
LOCK = ".consolidate-lock"
LOCKS = (LOCK, ".consolidate.flock")
NS = 1_000_000_000
DAY = 86400
# One fixed age for every copy of the example, so that a kill run and the reference run
# plan from identical files (relative dates are counted from the mtime).
EXAMPLE_STAMP = int(time.time()) - 10 * DAY
PREVIOUS_LOCK_NS = (int(time.time()) - 3 * DAY) * NS
TEMP_RE = re.compile(r"\.(tmp|partial)$")
_SCRUB = ("CONSOLIDATOR_", "CLAUDE_CODE_", "ANTHROPIC_", "STATE_DIRECTORY")


# --------------------------------------------------------------------------- helpers


def child_env(home: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment for a child run: no consolidator or Claude Code settings leak in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB)}
    if home is not None:
        env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                   XDG_STATE_HOME=str(home / ".local" / "state"))
    env.update(extra)
    return env


def run_args(root: Path, state: Path, project: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "consolidator", "run", "--force", "--apply", "all", "--memory-dir", str(root),
            "--state-dir", str(state), "--project-root", str(project), *extra]


_OUTPUTS = itertools.count()


@dataclasses.dataclass
class Child:
    """A child run whose output goes to files (a pipe could fill up and stall it)."""

    proc: subprocess.Popen[bytes]
    out: Path
    err: Path

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait(self, timeout: float = 120) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"run did not finish within {timeout} s (hang)") from None

    @property
    def stdout(self) -> str:
        return self.out.read_text(encoding="utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.err.read_text(encoding="utf-8", errors="replace")

    def report(self) -> dict[str, Any]:
        """The root's part of the ``--json`` report."""
        return json.loads(self.stdout)["roots"][0]  # type: ignore[no-any-return]


def spawn(args: list[str], logs: Path, env: dict[str, str] | None = None) -> Child:
    logs.mkdir(parents=True, exist_ok=True)
    n = next(_OUTPUTS)
    out, err = logs / f"child-{n}.out", logs / f"child-{n}.err"
    with open(out, "wb") as so, open(err, "wb") as se:
        proc = subprocess.Popen(args, stdout=so, stderr=se, env=env or child_env(), cwd=REPO)
    return Child(proc, out, err)


def run_child(args: list[str], logs: Path, env: dict[str, str] | None = None,
              timeout: float = 120) -> Child:
    child = spawn(args, logs, env)
    child.wait(timeout)
    return child


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.002)


def tree(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` (symlinks not followed), lock files and temp files
    left out."""
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if rel in LOCKS or TEMP_RE.search(name) or path.is_symlink() or not path.is_file():
                continue
            out[rel] = path.read_bytes()
    return out


def temp_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if TEMP_RE.search(p.name))


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def journals(state: Path) -> list[Path]:
    return sorted(state.glob("*/runs/*/journal.jsonl"))


def records(journal: Path) -> list[dict[str, Any]]:
    out = []
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass  # a torn last line
    return out


def is_closed(journal: Path) -> bool:
    return any("closed" in r for r in records(journal))


def tail_closed(journal: Path) -> bool:
    """``is_closed`` reading only the journal's last bytes (cheap enough to poll)."""
    try:
        with open(journal, "rb") as fh:
            fh.seek(max(0, os.fstat(fh.fileno()).st_size - 256))
            return b'{"closed"' in fh.read()
    except FileNotFoundError:
        return False


def versions(
    original: dict[str, bytes], journal_files: Iterable[Path]
) -> dict[str, set[str | None]]:
    """Every whole state a file may be in: its original bytes, or the bytes of any step the
    journals announce (``None``: absent)."""
    allowed: dict[str, set[str | None]] = {rel: {sha(data)} for rel, data in original.items()}
    for journal in journal_files:
        for rec in records(journal):
            if rec.get("phase") != "intent":
                continue
            states = allowed.setdefault(rec["file"], {None})
            states.add(None if rec["op"] == "archive" else rec["after_sha256"])
    return allowed


def assert_whole_files(root: Path, original: dict[str, bytes],
                       allowed: dict[str, set[str | None]]) -> None:
    """No file is half-written: each is absent or byte-identical to one announced version."""
    now = tree(root)
    bad = [rel for rel in sorted(set(now) | set(original))
           if sha(now.get(rel)) not in allowed.get(rel, {None})]
    assert bad == [], f"files in a state no step produced (half-written?): {bad}"


def _lines(data: bytes) -> set[str]:
    text = data.decode("utf-8", "replace")
    return {line.rstrip("\r") for line in text.split("\n") if line.strip()}


def live_lines(root: Path) -> set[str]:
    """Lines of every live memory file (``*.md`` but ``MEMORY.md``) in the root."""
    out: set[str] = set()
    for rel, data in tree(root).items():
        if rel.endswith(".md") and Path(rel).name != "MEMORY.md":
            out |= _lines(data)
    return out


def kept_lines(state: Path) -> set[str]:
    """Lines of every file the state dir keeps (archive, backup, displaced, undone)."""
    out: set[str] = set()
    for path in state.rglob("*"):
        if path.is_file() and not path.is_symlink():
            out |= _lines(path.read_bytes())
    return out


def lost_lines(original: dict[str, bytes], root: Path, state: Path) -> list[str]:
    """Lines of the original memories found neither in a live memory nor under the state
    dir."""
    have = live_lines(root) | kept_lines(state)
    return [f"{rel}: {line}" for rel, data in sorted(original.items())
            if rel.endswith(".md") and Path(rel).name != "MEMORY.md"
            for line in sorted(_lines(data)) if line not in have]


def rolled_back_notes(report: dict[str, Any], run_id: str) -> list[str]:
    return [n for n in report.get("notes", [])
            if n.startswith(f"interrupted run {run_id} rolled back")]


def copy_example(dest: Path) -> Path:
    """examples/ copied to ``dest`` with every file at EXAMPLE_STAMP and an empty
    ``.consolidate-lock`` whose mtime says "last consolidated three days ago"; returns the
    memory dir."""
    shutil.copytree(EXAMPLES, dest, symlinks=True)
    for dirpath, _dirs, names in os.walk(dest):
        for name in names:
            os.utime(Path(dirpath) / name, (EXAMPLE_STAMP, EXAMPLE_STAMP))
    lock = dest / "memory" / LOCK
    lock.write_bytes(b"")
    os.utime(lock, ns=(PREVIOUS_LOCK_NS, PREVIOUS_LOCK_NS))
    return dest / "memory"


_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "su", "da", "fo", "gu", "hi",
              "jo", "be", "ce", "xa", "yo", "wu")


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))


def make_duplicates_root(base: Path, count: int, seed: int) -> Path:
    """``base/memory`` with ``count`` memories, a third of them duplicates (exact copies, or
    copies with one more line), all 10-30 days old; ``base/project`` empty. Returns the
    memory dir."""
    rng = random.Random(seed)
    root = base / "memory"
    root.mkdir(parents=True)
    (base / "project").mkdir()
    old = int(time.time()) - 10 * DAY
    i = 0
    while i < count:
        lines = [" ".join(_word(rng) for _ in range(rng.randint(6, 12))) + f" {i}."
                 for _ in range(rng.randint(2, 5))]
        lines.append(f"Tracked in TICKET-{seed}-{i:05d}.")
        body = "\n".join(lines) + "\n"
        name = f"project_{_word(rng)}_{i:05d}"
        files = [(name, body)]
        if (i + 2) % 3 == 0 and i + 1 < count:
            extra = rng.choice(["", f"Also {_word(rng)} {_word(rng)} {_word(rng)} {i}.\n"])
            files.append((f"{name}_copy", body + extra))
        for stem, text in files:
            path = root / f"{stem}.md"
            path.write_text(f"---\nname: {stem}\ndescription: {_word(rng)} {_word(rng)} "
                            f"{_word(rng)}\ntype: project\n---\n{text}", encoding="utf-8")
            stamp = old - rng.randint(0, 20 * DAY)
            os.utime(path, (stamp, stamp))
            i += 1
    return root


def clone(template: Path, dest: Path) -> Path:
    """A copy of a generated base folder (mtimes kept); returns its memory dir."""
    shutil.copytree(template, dest, symlinks=True)
    return dest / "memory"


# --------------------------------------------------------------------------- 1. kill points


@dataclasses.dataclass(frozen=True)
class Reference:
    """The example consolidated without interruption."""

    original: dict[str, bytes]
    final: dict[str, bytes]
    records: int
    allowed: dict[str, set[str | None]]


@functools.cache
def example_reference() -> Reference:
    """Run the example once, uninterrupted: its journal's length fixes the kill points."""
    base = Path(tempfile.mkdtemp(prefix="consolidator-faults-reference-"))
    try:
        root = copy_example(base / "examples")
        original = tree(root)
        child = run_child(run_args(root, base / "state", root.parent / "project"), base / "logs",
                          env=child_env(home=base / "home"))
        assert child.wait() == 0, child.stdout + child.stderr
        [journal] = journals(base / "state")
        return Reference(original, tree(root), len(records(journal)),
                         versions(original, [journal]))
    finally:
        shutil.rmtree(base, ignore_errors=True)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One case per journal record of the uninterrupted run: kill right after record N."""
    if "kill_after" not in metafunc.fixturenames:
        return
    try:
        count = example_reference().records
    except Exception as exc:  # noqa: BLE001 - surfaced by the test, not as a collection error
        metafunc.parametrize("kill_after", [pytest.param(0, id=f"reference-failed: {exc}")])
        return
    # The default suite kills after the first record, the last and every fifth; the slow set
    # (CI runs it) after each of the others.
    sampled = {1, count} | set(range(5, count + 1, 5))
    metafunc.parametrize("kill_after", [
        pytest.param(n, id=f"record{n}", marks=() if n in sampled else pytest.mark.slow)
        for n in range(1, count + 1)])


def test_a_run_killed_after_any_journal_record_leaves_whole_files_and_is_rolled_back(
    kill_after: int, tmp_path: Path
) -> None:
    """CONSOLIDATOR_FAULT_AFTER_STEP=N: the run dies (exit 137) right after record N. Every
    file is then whole, Claude Code's lock names a dead PID, and the next run rolls the
    interrupted run back, takes the lock over and ends exactly where one clean run ends."""
    assert kill_after > 0, "the uninterrupted reference run failed"
    ref = example_reference()
    root = copy_example(tmp_path / "examples")
    state, project, lock = tmp_path / "state", root.parent / "project", root / LOCK
    assert tree(root) == ref.original

    killed = spawn(run_args(root, state, project), tmp_path / "logs",
                   env=child_env(CONSOLIDATOR_FAULT_AFTER_STEP=str(kill_after)))
    assert killed.wait() == 137, killed.stdout + killed.stderr
    [journal] = journals(state)
    closed = is_closed(journal)
    assert closed == (kill_after == ref.records)

    # Every file is whole: its original bytes or what the uninterrupted run wrote.
    assert_whole_files(root, ref.original, ref.allowed)
    if not closed:
        # Claude Code's lock names the dead run; "last consolidated" is still the old time.
        assert lock.read_bytes() == str(killed.pid).encode()
        assert not pid_alive(killed.pid)
        assert last_consolidated_ns(root, time.time_ns(), state / root_key(root)) \
            == PREVIOUS_LOCK_NS

    before_next = time.time_ns()
    code, out, err = main_captured(run_argv(root, state, "--json"))  # in-process: faster
    assert code == 0, err
    report = json.loads(out)["roots"][0]
    assert report["status"] == "consolidated"
    assert len(rolled_back_notes(report, journal.parent.name)) == (0 if closed else 1), \
        report["notes"]
    assert temp_files(root) == []
    # The next run took the lock over and recorded itself as the last consolidation.
    assert lock.read_bytes() == b""
    assert lock.stat().st_mtime_ns >= before_next - 1_000_000
    # Rolled back and redone, the root is exactly what one uninterrupted run makes of it.
    assert tree(root) == ref.final
    assert lost_lines(ref.original, root, state) == []


DIE_MID_WRITE = """
import os, sys
root = sys.argv[1]
real_fsync = os.fsync
def fsync(fd):
    path = os.readlink(f"/proc/self/fd/{fd}")
    if path.startswith(root + os.sep) and path.endswith(".tmp"):
        os._exit(137)  # killed with the new bytes in a temp file, before the rename
    real_fsync(fd)
os.fsync = fsync
from consolidator.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_the_temp_file_a_run_killed_mid_write_leaves_is_cleared_by_the_next_run(
    tmp_path: Path,
) -> None:
    ref = example_reference()
    root = copy_example(tmp_path / "examples")
    state, project = tmp_path / "state", root.parent / "project"
    argv = run_args(root, state, project)[3:]  # after "python -m consolidator"

    killed = run_child([sys.executable, "-c", DIE_MID_WRITE, str(root), *argv], tmp_path / "logs")
    assert killed.wait() == 137, killed.stderr
    left = temp_files(root)
    assert len(left) == 1, "the run was not killed in the middle of a write"
    [journal] = journals(state)
    assert_whole_files(root, ref.original, versions(ref.original, [journal]))

    following = run_child(run_args(root, state, project, "--json"), tmp_path / "logs")
    assert following.wait() == 0, following.stderr
    assert rolled_back_notes(following.report(), journal.parent.name)
    assert temp_files(root) == [], f"{left} was left in the root"
    assert tree(root) == ref.final


# --------------------------------------------------------------------------- 2. random SIGKILL


@pytest.fixture(scope="module")
def few_hundred(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """240 memories, a third of them duplicates (the rebuilt index still fits in 200 lines),
    and the tree one uninterrupted run leaves."""
    template = tmp_path_factory.mktemp("few-hundred")
    make_duplicates_root(template, 240, seed=7)
    scratch = tmp_path_factory.mktemp("few-hundred-reference")
    root = clone(template, scratch / "base")
    child = run_child(run_args(root, scratch / "state", root.parent / "project"),
                      scratch / "logs", env=child_env(home=scratch / "home"))
    assert child.wait() == 0, child.stdout + child.stderr
    return template, tree(root)


@pytest.mark.slow
def test_runs_sigkilled_at_random_moments_are_recovered_by_the_next_run_losing_nothing(
    few_hundred: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    """Five real SIGKILLs, each a seeded 0-0.3 s after the run took the lock (so they land
    in scan, detect, consolidate or index rather than in interpreter start-up)."""
    template, final = few_hundred
    rng = random.Random(20261130)
    outcomes = []
    for i in range(5):
        root = clone(template, tmp_path / f"kill{i}")
        state, project = tmp_path / f"state{i}", root.parent / "project"
        original = tree(root)
        child = spawn(run_args(root, state, project), tmp_path / "logs")
        # Start the clock once the run holds the lock (interpreter start-up is not the run).
        wait_for(functools.partial(_holds_lock, child, root), 30, "the run to take the lock")
        delay = rng.uniform(0, 0.3)
        time.sleep(delay)  # the random moment of the kill, not a wait for time to pass
        child.proc.send_signal(signal.SIGKILL)
        code = child.wait()
        found = journals(state)
        at_kill = [len(records(j)) for j in found]
        assert code in (-signal.SIGKILL, 0), child.stderr
        assert_whole_files(root, original, versions(original, found))

        following = run_child(run_args(root, state, project, "--json"), tmp_path / "logs")
        assert following.wait() == 0, following.stderr
        report = following.report()
        interrupted = [j for j in found if not _closed_before(j)]
        for journal in interrupted:
            assert rolled_back_notes(report, journal.parent.name), report["notes"]
        # A kill inside a write may leave its temp file: only ever one of the run's own, never
        # a *.md (whether the next run clears it is test_the_temp_file_a_run_killed_mid_...).
        left = temp_files(root)
        assert all(re.fullmatch(r"(.*/)?\..+\.md\.[a-z0-9_]{8}\.tmp", t) for t in left), left
        assert lost_lines(original, root, state) == []
        assert tree(root) == final
        outcomes.append(f"delay {delay:.3f}s exit {code} journal records {at_kill}"
                        f"{' rolled back' if interrupted else ''}"
                        f"{f' temp files left {left}' if left else ''}")
    print("\nrandom SIGKILLs:\n  " + "\n  ".join(outcomes))


def _holds_lock(child: Child, root: Path) -> bool:
    """The run has taken the lock (its PID is in ``.consolidate-lock``) or already ended."""
    lock = root / LOCK
    return child.proc.poll() is not None or (
        lock.exists() and lock.read_bytes() == str(child.pid).encode())


def _closed_before(journal: Path) -> bool:
    """Was the journal closed by its own run (not by the recovery that followed)?"""
    closing = [r["closed"] for r in records(journal) if "closed" in r]
    return bool(closing) and closing[0] != "rolled back"


# --------------------------------------------------------------------------- 3, 4, 5: a large root


@pytest.fixture(scope="module")
def large_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 memories, a third of them duplicates: a run takes a few seconds."""
    template = tmp_path_factory.mktemp("large")
    make_duplicates_root(template, 2000, seed=11)
    return template


class JournalWatch(threading.Thread):
    """Polls the state dir's journals: when each was first seen and when it closed, and any
    moment at which two were open (changing the root) at once."""

    def __init__(self, state: Path) -> None:
        super().__init__(daemon=True)
        self.state = state
        self.first: dict[str, float] = {}
        self.closed: dict[str, float] = {}
        self.both_open: list[tuple[str, ...]] = []
        self.polls = 0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            self.poll()
            time.sleep(0.001)
        self.poll()

    def poll(self) -> None:
        self.polls += 1
        now = time.monotonic()
        open_now = []
        for journal in journals(self.state):
            name = journal.parent.name
            self.first.setdefault(name, now)
            if name not in self.closed:
                if tail_closed(journal):
                    self.closed[name] = now
                else:
                    open_now.append(name)
        if len(open_now) > 1:
            self.both_open.append(tuple(open_now))

    def stop(self) -> None:
        self._halt.set()
        self.join(10)


@pytest.mark.slow
def test_four_racing_runs_consolidate_once_and_the_others_find_the_lock_held(
    large_root: Path, tmp_path: Path
) -> None:
    """Four runs started together on a root that takes seconds: one consolidates, the others
    exit 75 (or 0 with nothing new, had one started after the first ended); their journals
    never overlap in time."""
    root = clone(large_root, tmp_path / "race")
    state, project = tmp_path / "state", root.parent / "project"
    original = tree(root)
    watch = JournalWatch(state)
    watch.start()
    children = [spawn(run_args(root, state, project, "--json"), tmp_path / "logs")
                for _ in range(4)]
    codes = [child.wait(180) for child in children]
    watch.stop()
    print(f"\nracing runs: exit codes {codes}; journals {sorted(watch.first)}; "
          f"{watch.polls} polls")

    assert set(codes) <= {0, 75}, [c.stderr[-2000:] for c in children]
    assert codes.count(75) >= 1, "the runs did not overlap: use a larger root"
    reports = [child.report() for child in children]
    for code, child, report in zip(codes, children, reports):
        assert "Traceback" not in child.stderr
        if code == 75:
            assert report["status"] == "skipped"
            assert report["gates"][-1]["id"] == "G7" and report["gates"][-1]["passed"] is False
            assert "lock held" in child.stderr
        else:
            assert report["status"] == "consolidated"
    winners = [r for c, r in zip(codes, reports) if c == 0]
    # (Topic memories the index rebuild makes are left out: every run re-makes them, see
    # test_a_second_run_over_a_root_it_just_consolidated_changes_nothing.)
    merged = [r for r in winners if any(_touches_memories(a) for a in r["actions"])]
    assert len(merged) == 1, "exactly one run consolidates; a later one finds nothing new"

    # No two runs changed the root at the same time: each journal opens after the last
    # one closed.
    assert watch.both_open == []
    spans = sorted((watch.first[n], watch.closed.get(n, float("inf")), n) for n in watch.first)
    for (_s1, end1, n1), (start2, _e2, n2) in itertools.pairwise(spans):
        assert end1 <= start2, f"runs {n1} and {n2} interleaved"
    assert all(is_closed(j) for j in journals(state))
    assert lost_lines(original, root, state) == []
    assert temp_files(root) == []


def _touches_memories(action: dict[str, Any]) -> bool:
    files = [action["file"], *action.get("sources", [])]
    return action["op"] in ("merge", "archive") and not all(
        f.startswith("index_") for f in files)


class LiveSession(threading.Thread):
    """A Claude Code session writing while the run works: appends a line to an existing
    memory (never re-creating one the run moved away) and, every tenth time, writes a new
    memory file. Remembers every line it wrote."""

    def __init__(self, root: Path, targets: list[Path], seed: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.targets = targets
        self.rng = random.Random(seed)
        self.written: list[str] = []
        self.created: list[str] = []
        self.gone = 0
        self._halt = threading.Event()

    def run(self) -> None:
        for k in itertools.count():
            if self._halt.is_set():
                return
            token = self.rng.randbytes(6).hex()
            if k % 10 == 9:
                name = f"project_live_session_{k:05d}.md"
                lines = [f"Live session fact {k} {token} {n}." for n in ("one", "two")]
                fd = os.open(self.root / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                try:
                    os.write(fd, (f"---\nname: live_session_{k}\ndescription: written during "
                                  "a run\ntype: project\n---\n" + "\n".join(lines)
                                  + "\n").encode())
                finally:
                    os.close(fd)
                self.created.append(name)
                self.written.extend(lines)
            else:
                line = f"Live session note {k} {token}."
                try:
                    fd = os.open(self.rng.choice(self.targets), os.O_WRONLY | os.O_APPEND)
                except FileNotFoundError:
                    self.gone += 1  # the run moved it away: the session sees it gone
                    continue
                try:
                    os.write(fd, f"\n{line}\n".encode())
                finally:
                    os.close(fd)
                self.written.append(line)
            time.sleep(0.001)

    def stop(self) -> None:
        self._halt.set()
        self.join(10)


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_lines_a_live_session_writes_during_a_run_all_stay_in_live_memories(
    large_root: Path, tmp_path: Path
) -> None:
    """While a run works, a thread appends lines to memories and writes new ones every
    millisecond; afterwards every line it wrote is in a live memory, not only in the archive."""
    root = clone(large_root, tmp_path / "live")
    state, project = tmp_path / "state", root.parent / "project"
    original = tree(root)
    session = LiveSession(root, sorted(root.glob("*.md")), seed=5)
    child = spawn(run_args(root, state, project, "--json"), tmp_path / "logs")
    session.start()
    code = child.wait(180)
    session.stop()
    assert code == 0, child.stderr[-3000:]
    report = child.report()
    assert report["status"] == "consolidated"

    live = live_lines(root)
    kept = [line for line in session.written if line in live]
    print(f"\nlive session: {len(session.written)} lines written "
          f"({len(session.created)} new files), {len(kept)} kept in live memories; "
          f"{session.gone} appends found their file moved away; "
          f"{len(report['skipped'])} files skipped by the run as changed")
    assert len(session.written) > 100, "the session wrote too little to prove anything"
    missing = [line for line in session.written if line not in live]
    assert missing == [], f"{len(missing)} lines lost from live memories, e.g. {missing[:5]}"
    assert all((root / name).exists() for name in session.created)
    assert lost_lines(original, root, state) == []
    assert temp_files(root) == []


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_sigterm_mid_run_exits_143_within_five_seconds_with_the_lock_mtime_put_back(
    large_root: Path, tmp_path: Path
) -> None:
    """SIGTERM once the run has changed files: it stops at the next step (finished steps
    stay, journaled as "stopped"), puts Claude Code's lock back and exits 128 + 15."""
    root = clone(large_root, tmp_path / "term")
    state, project, lock = tmp_path / "state", root.parent / "project", root / LOCK
    lock.write_bytes(b"")
    os.utime(lock, ns=(PREVIOUS_LOCK_NS, PREVIOUS_LOCK_NS))
    original = tree(root)
    child = spawn(run_args(root, state, project), tmp_path / "logs")
    wait_for(lambda: child.proc.poll() is not None
             or any(len(records(j)) >= 5 for j in journals(state)), 60,
             "the run to start changing the root")
    assert child.proc.poll() is None, "the run finished before SIGTERM: use a larger root"
    sent = time.monotonic()
    child.proc.send_signal(signal.SIGTERM)
    code = child.wait(30)
    took = time.monotonic() - sent
    print(f"\nSIGTERM: exit {code} after {took:.2f} s")

    assert code == 143, child.stderr
    assert took < 5
    assert "Traceback" not in child.stderr + child.stdout
    assert lock.stat().st_mtime_ns == PREVIOUS_LOCK_NS
    assert lock.read_bytes() == b""
    [journal] = journals(state)
    assert [r["closed"] for r in records(journal) if "closed" in r] == ["stopped"]
    assert_whole_files(root, original, versions(original, [journal]))
    assert lost_lines(original, root, state) == []
    assert temp_files(root) == []


# --------------------------------------------------------------------------- 6. full disk, EACCES


def main_captured(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def _fd_path(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


def disk_fills(monkeypatch: pytest.MonkeyPatch, matches: Callable[[str], bool],
               after: int) -> list[str]:
    """``os.fsync`` fails with ENOSPC for files ``matches`` accepts, after ``after``
    successful ones (where a full disk shows on delayed-allocation file systems). Returns the
    paths that hit the full disk."""
    real = os.fsync
    seen = [0]
    failed: list[str] = []

    def fsync(fd: int) -> None:
        path = _fd_path(fd)
        if matches(path):
            seen[0] += 1
            if seen[0] > after:
                failed.append(path)
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return failed


FULL_DISK_AT: dict[str, tuple[Callable[[Path, str], bool], int]] = {
    # where the disk is full: a matcher on the fsynced file's path, and the successes before
    "memory-dir temp file": (lambda root, p: p.startswith(str(root)) and p.endswith(".tmp"), 2),
    "state-dir backup": (lambda root, p: "/backup/" in p and p.endswith(".tmp"), 2),
    "journal": (lambda root, p: p.endswith("journal.jsonl"), 5),
}


def _only_run_id(state: Path) -> str:
    [journal] = journals(state)
    return journal.parent.name


def run_argv(root: Path, state: Path, *extra: str) -> list[str]:
    return ["run", "--force", "--apply", "all", "--memory-dir", str(root), "--state-dir", str(state),
            "--project-root", str(root.parent / "project"), *extra]


@pytest.mark.parametrize("where", list(FULL_DISK_AT))
def test_a_full_disk_mid_run_fails_the_root_cleanly_and_undo_restores_every_byte(
    where: str, example_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC after a few successful writes (at a temp file in the root, a backup in the
    state dir, or the journal): exit 1 without a traceback, nothing lost, no temp file left,
    and ``undo`` gives back every byte and mtime."""
    root, state = example_copy, tmp_path / "state"
    before = {rel: (data, (root / rel).stat().st_mtime_ns) for rel, data in tree(root).items()}
    original = tree(root)
    matcher, after = FULL_DISK_AT[where]
    with monkeypatch.context() as patch:
        failed = disk_fills(patch, lambda p: matcher(root, p), after)
        code, out, err = main_captured(run_argv(root, state, "--json"))

    assert failed, "the full disk was never reached"
    assert code == 1
    assert "Traceback" not in out + err
    report = json.loads(out)["roots"][0]
    assert report["status"] == "failed"
    assert "No space left on device" in (report.get("error") or err)
    assert temp_files(root) == []
    assert lost_lines(original, root, state) == []
    assert journals(state), "the run changed nothing before the disk filled up"

    code, out, err = main_captured(["undo", _only_run_id(state), "--state-dir", str(state)])
    assert code == 0, err
    after_undo = {rel: (data, (root / rel).stat().st_mtime_ns) for rel, data in tree(root).items()}
    assert after_undo == before


def _read_only(monkeypatch: pytest.MonkeyPatch, folder: Path) -> list[str]:
    """``folder`` behaves as read-only for the run (chmod does not stop root): no file may be
    created, renamed or linked in it or taken out of it. The store names files relative to
    directory descriptors, so each name is placed by its descriptor's folder."""
    denied: list[str] = []
    real_open, real_rename, real_replace, real_link = os.open, os.rename, os.replace, os.link

    def where(path: Any, dir_fd: int | None) -> Path:
        name = Path(os.fsdecode(path))
        if dir_fd is not None and not name.is_absolute():
            name = Path(os.readlink(f"/proc/self/fd/{dir_fd}")) / name
        return name.parent

    def deny(what: Any) -> None:
        denied.append(str(what))
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(what))

    def opener(path: Any, flags: int, *args: Any, dir_fd: int | None = None,
               **kwargs: Any) -> int:
        if flags & os.O_CREAT and where(path, dir_fd) == folder:
            deny(path)
        return real_open(path, flags, *args, dir_fd=dir_fd, **kwargs)

    def guarded(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(src: Any, dst: Any, *args: Any, src_dir_fd: int | None = None,
                 dst_dir_fd: int | None = None, **kwargs: Any) -> Any:
            if where(src, src_dir_fd) == folder or where(dst, dst_dir_fd) == folder:
                deny(src)
            return real(src, dst, *args, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd,
                        **kwargs)
        return call

    monkeypatch.setattr(os, "open", opener)
    monkeypatch.setattr(os, "rename", guarded(real_rename))
    monkeypatch.setattr(os, "replace", guarded(real_replace))
    monkeypatch.setattr(os, "link", guarded(real_link))
    return denied


def _put(root: Path, rel: str, text: str, days: float, mode: int = 0o644) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))


def _memory(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: Notes about {name}\ntype: project\n---\n{body}"


API = ("- The public API is versioned in the URL path.\n"
       "- Breaking changes need a new major version.\n"
       "- Every endpoint returns JSON errors with a code field.\n")


def small_root(base: Path, mode: int = 0o644) -> Path:
    """A root whose run merges (survivor rewritten), archives and rewrites, at the top and in
    ``ops/``; every memory with ``mode``."""
    root = base / "memory"
    (base / "project").mkdir(parents=True)
    _put(root, "project_api.md", _memory("project_api", API + "- Pagination uses cursors.\n"),
         20, mode)
    # Newer than the memory that contains it: the merge rewrites the survivor's mtime.
    _put(root, "project_api_copy.md", _memory("project_api_copy", API), 15, mode)
    _put(root, "project_demo.md", _memory("project_demo", "We fixed the demo date yesterday.\n"),
         6, mode)
    _put(root, "user_role.md", _memory("user_role", "The user maintains the billing service.\n"),
         40, mode)
    _put(root, "ops/project_oncall.md",
         _memory("project_oncall", "The on-call rota changed last week.\n"), 8, mode)
    _put(root, "ops/project_freeze.md",
         _memory("project_freeze", "Status: SUPERSEDED by the new release plan.\n"), 30, mode)
    _put(root, "MEMORY.md", "# Memory\n\n- [API](project_api.md) — the public API\n", 5)
    return root


def test_a_read_only_folder_fails_the_root_cleanly_and_undo_restores_every_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EACCES in ``ops/`` (simulated: chmod does not stop root) after changes at the top."""
    root, state = small_root(tmp_path), tmp_path / "state"
    before = {rel: (data, (root / rel).stat().st_mtime_ns) for rel, data in tree(root).items()}
    original = tree(root)
    with monkeypatch.context() as patch:
        denied = _read_only(patch, root / "ops")
        code, out, err = main_captured(run_argv(root, state, "--json"))

    assert denied, "the run never touched the read-only folder"
    assert code == 1
    assert "Traceback" not in out + err
    report = json.loads(out)["roots"][0]
    assert report["status"] == "failed"
    assert "Permission denied" in (report.get("error") or "")
    assert tree(root)["ops/project_oncall.md"] == original["ops/project_oncall.md"]
    assert tree(root)["ops/project_freeze.md"] == original["ops/project_freeze.md"]
    assert temp_files(root) == []
    assert lost_lines(original, root, state) == []
    assert journals(state), "nothing was changed before the read-only folder"

    code, _out, err = main_captured(["undo", _only_run_id(state), "--state-dir", str(state)])
    assert code == 0, err
    after_undo = {rel: (data, (root / rel).stat().st_mtime_ns) for rel, data in tree(root).items()}
    assert after_undo == before


def test_a_full_disk_mid_run_puts_claude_codes_lock_back(
    example_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state, lock = example_copy, tmp_path / "state", example_copy / LOCK
    lock.write_bytes(b"")
    os.utime(lock, ns=(PREVIOUS_LOCK_NS, PREVIOUS_LOCK_NS))
    matcher, after = FULL_DISK_AT["memory-dir temp file"]
    with monkeypatch.context() as patch:
        disk_fills(patch, lambda p: matcher(root, p), after)
        code, _out, _err = main_captured(run_argv(root, state))

    assert code == 1
    assert lock.read_bytes() == b""
    assert lock.stat().st_mtime_ns == PREVIOUS_LOCK_NS


def test_a_full_disk_that_stops_the_journal_still_puts_claude_codes_lock_back(
    example_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found here: the journal's close raised in the runner's ``finally`` before the lock's
    rollback, leaving this PID and the run's mtime in ``.consolidate-lock``."""
    root, state, lock = example_copy, tmp_path / "state", example_copy / LOCK
    lock.write_bytes(b"")
    os.utime(lock, ns=(PREVIOUS_LOCK_NS, PREVIOUS_LOCK_NS))
    matcher, after = FULL_DISK_AT["journal"]
    with monkeypatch.context() as patch:
        failed = disk_fills(patch, lambda p: matcher(root, p), after)
        code, _out, _err = main_captured(run_argv(root, state))

    assert failed and code == 1
    assert lock.read_bytes() == b""
    assert lock.stat().st_mtime_ns == PREVIOUS_LOCK_NS


def test_a_root_that_fails_says_why_in_one_line_on_stderr_without_a_traceback(
    example_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found here: a failed root exited 1 with nothing on stderr (only a log line on stdout)."""
    root, state = example_copy, tmp_path / "state"
    matcher, after = FULL_DISK_AT["memory-dir temp file"]
    with monkeypatch.context() as patch:
        disk_fills(patch, lambda p: matcher(root, p), after)
        code, out, err = main_captured(run_argv(root, state))

    assert code == 1
    assert "Traceback" not in out + err
    assert out == "", "the log goes to stderr"
    lines = [line for line in err.strip().splitlines() if not line.startswith("{")]
    assert len(lines) == 1 and "No space left on device" in lines[0], err  # besides the log
    failed = [json.loads(line) for line in err.splitlines() if '"root failed"' in line]
    assert len(failed) == 1 and failed[0]["level"] == "error"


# --------------------------------------------------------------------------- 7. modes


def test_a_rewritten_or_merged_memory_keeps_mode_0600_and_the_state_folders_are_0700(
    tmp_path: Path,
) -> None:
    """Writes keep the file's mode; archives hold users' memories, so the
    root's state folder and each run's folder are private."""
    root, state = small_root(tmp_path, mode=0o600), tmp_path / "state"
    original = tree(root)
    newest_source = (root / "project_api_copy.md").stat().st_mtime_ns

    code, out, err = main_captured(run_argv(root, state, "--json"))

    assert code == 0, err
    report = json.loads(out)["roots"][0]
    actions = {(a["op"], a["file"]) for a in report["actions"]}
    assert ("merge", "project_api.md") in actions
    assert ("rewrite", "project_demo.md") in actions
    after = tree(root)
    for rel in ("project_demo.md", "ops/project_oncall.md"):
        assert after[rel] != original[rel], f"{rel} was not rewritten"
        assert (root / rel).stat().st_mode & 0o7777 == 0o600, rel
    # The survivor of the merge was rewritten (it takes its newest source's mtime).
    survivor = (root / "project_api.md").stat()
    assert survivor.st_mtime_ns == newest_source
    assert survivor.st_mode & 0o7777 == 0o600
    root_state = state / root_key(root)
    assert root_state.stat().st_mode & 0o777 == 0o700
    run_dirs = list((root_state / "runs").iterdir())
    assert run_dirs
    for run_dir in run_dirs:
        assert run_dir.stat().st_mode & 0o777 == 0o700, run_dir


# --------------------------------------------------------------------------- a second run


def test_a_second_run_over_a_root_it_just_consolidated_changes_nothing(tmp_path: Path) -> None:
    """Found here: memories listed only in a topic memory counted as unindexed, so every run
    over an overflowing index made another topic memory (index_project-2.md, -3, ...)."""
    root = tmp_path / "memory"
    (tmp_path / "project").mkdir()
    for i in range(14):
        _put(root, f"project_topic_{i:02d}.md", _memory(
            f"topic_{i}", f"Module m{i} keeps its state in table t{i}.\n"), 10)
    config = tmp_path / "config.toml"
    config.write_text("[index]\nmax_lines = 10\n", encoding="utf-8")
    argv = ["--config", str(config), *run_argv(root, tmp_path / "state", "--json")]

    code, out, err = main_captured(argv)
    assert code == 0, err
    first = tree(root)
    code, out, err = main_captured(argv)

    assert code == 0, err
    assert json.loads(out)["roots"][0]["actions"] == []
    assert tree(root) == first
