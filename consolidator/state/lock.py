"""The root's lock, shared with Claude Code's own consolidation.

Two layers: a non-blocking ``filelock`` on ``root.flock`` in the root's state folder excludes
other consolidator processes for the whole read–decide–write window; Claude Code's
``<root>/.consolidate-lock`` (body = holder PID, mtime = last consolidation) tells Claude Code
a run is going on, and records when the last one finished.

Claude Code keeps ``.consolidate-lock`` only in an auto-memory root. Every other root (a team
scope, a subagent's memory inside a project's repository) gets no file of the tool's: its
marker, the same body and mtime, is ``last-consolidated`` in the root's state folder. A
reader looks where the marker is: the root's own ``.consolidate-lock`` when there is one.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import structlog
from filelock import FileLock, Timeout

from consolidator import clock
from consolidator.clock import MINUTE_NS, NS
from consolidator.errors import LockHeld
from consolidator.state import statedir, statefiles

CLAUDE_LOCK = ".consolidate-lock"
MAX_PID = 1 << 22  # Linux's pid_max ceiling; anything larger is garbage

log = structlog.get_logger("consolidator.state.lock")


@dataclass(frozen=True)
class Holder:
    """What ``.consolidate-lock`` says now."""

    exists: bool
    pid: int | None = None
    mtime_ns: int | None = None
    body: bytes = b""


def marker(root: Path, state: Path | None, auto: bool | None = None) -> Path:
    """The file that says who holds ``root`` and when it was last consolidated: Claude
    Code's ``.consolidate-lock`` in an auto-memory root (``auto``; when unknown, wherever one
    already is), else ``last-consolidated`` in the root's state folder."""
    own = root / CLAUDE_LOCK
    if state is None or auto or (auto is None and os.path.lexists(own)):
        return own
    return statedir.last_run(state)


def _flock(root: Path, state: Path | None) -> Path:
    """The tool's own lock file: in the root's state folder (in the root itself only for a
    caller that has no state dir)."""
    return statedir.root_flock(state if state is not None else root)


def read_holder(path: Path) -> Holder:
    """What the marker at ``path`` says."""
    try:
        st = os.lstat(path)
        with open(path, "rb") as fh:
            body = fh.read(64)
    except FileNotFoundError:
        return Holder(False)
    except OSError:
        return Holder(True)
    text = body.decode("ascii", "replace").strip()
    pid = int(text) if text.isdigit() and 0 < int(text) < MAX_PID else None
    return Holder(True, pid, st.st_mtime_ns, body)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def last_consolidated_ns(root: Path, now_ns: int, state: Path | None = None) -> int | None:
    """When the root was last consolidated (the lock file's mtime); a future mtime is ignored.

    A run of ours that was killed (its PID dead, still in the file) could not put the old
    mtime back; the state dir remembers it, so the kill does not delay the next run a day.
    """
    holder = read_holder(marker(root, state))
    if not holder.exists or holder.mtime_ns is None or holder.mtime_ns > now_ns + MINUTE_NS:
        return None
    if state is not None and holder.pid is not None and not pid_alive(holder.pid):
        saved = _read_previous(state)
        if saved is not None and saved.get("pid") == holder.pid:
            previous = saved.get("mtime_ns")
            return previous if isinstance(previous, int) else None
    return holder.mtime_ns


def _read_previous(state: Path) -> dict[str, object] | None:
    try:
        data = json.loads(statedir.lock_previous(state).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def live_holder(root: Path, now_ns: int, stale_minutes: int,
                state: Path | None = None) -> str | None:
    """Why the root's marker counts as held by someone else, or ``None``."""
    holder = read_holder(marker(root, state))
    if not holder.exists or holder.mtime_ns is None:
        return None
    if holder.pid is None:
        if holder.body.strip():
            log.warning("lock file holds no valid PID; taking it over", root=str(root))
        return None
    if holder.pid == os.getpid():
        return None
    age_ns = now_ns - holder.mtime_ns
    if age_ns < 0:
        log.warning("lock file mtime is in the future; taking it over", root=str(root))
        return None
    if age_ns >= stale_minutes * MINUTE_NS:
        return None
    if not pid_alive(holder.pid):
        return None
    return f"held by PID {holder.pid} for {age_ns // NS} s"


def own_lock_free(root: Path, state: Path | None = None) -> bool:
    """Probe: is the filelock free now? Creates nothing (the report writes nothing)."""
    try:
        fd = os.open(_flock(root, state), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return True  # no lock file: nobody holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


class RootLock:
    """Held for one run: acquire, then ``success`` or ``rollback``, then ``release``."""

    def __init__(self, root: Path, stale_minutes: int, state: Path | None = None,
                 auto: bool | None = None) -> None:
        """``auto``: whether ``root`` is an auto-memory root, where Claude Code keeps its
        lock (None: unknown, the marker stays wherever it already is)."""
        self.root = root
        self.stale_minutes = stale_minutes
        self.state = state
        self.marker = marker(root, state, auto)
        self._flock: object | None = None
        self._previous: Holder | None = None

    def acquire(self) -> None:
        """Take both locks or raise :class:`LockHeld` (taking neither)."""
        if self.state is not None:
            self.state.mkdir(parents=True, exist_ok=True)
        flock = FileLock(str(_flock(self.root, self.state)), timeout=0)
        try:
            flock.acquire()
        except Timeout:
            raise LockHeld(f"{self.root}: another consolidator run holds the lock") from None
        reason = live_holder(self.root, clock.now_ns(), self.stale_minutes, self.state)
        if reason is not None:
            flock.release()
            raise LockHeld(f"{self.root}: Claude Code's lock is {reason}")
        self._flock = flock
        self._previous = read_holder(self.marker)
        if self.state is not None and self._previous.pid is not None:
            saved = _read_previous(self.state)
            if saved is not None and saved.get("pid") == self._previous.pid:
                # Our own run, killed: what it found is what the file should go back to.
                mtime = saved.get("mtime_ns")
                self._previous = Holder(isinstance(mtime, int), None,
                                        mtime if isinstance(mtime, int) else None)
        if self.state is not None:
            record = {"pid": os.getpid(), "mtime_ns": self._previous.mtime_ns
                      if self._previous.exists else None}
            statefiles.replace(statedir.lock_previous(self.state), json.dumps(record).encode())
        self._write(str(os.getpid()).encode("ascii"), None)

    @property
    def previous_mtime_ns(self) -> int | None:
        """The mtime the marker had before this run (None: there was none)."""
        if self._previous is None or not self._previous.exists:
            return None
        return self._previous.mtime_ns

    def success(self, start_ns: int) -> None:
        """Empty the body; the mtime records this run's start as the last consolidation."""
        self._write(b"", start_ns)
        self._previous = None
        self._forget()

    def _forget(self) -> None:
        if self.state is not None:
            statefiles.remove(statedir.lock_previous(self.state))

    def rollback(self) -> None:
        """Put the marker back as it was, so the next run is not delayed."""
        previous = self._previous
        if previous is None:
            return
        path = self.marker
        if not previous.exists:
            path.unlink(missing_ok=True)
        else:
            self._write(previous.body, previous.mtime_ns)
        self._previous = None
        self._forget()

    def release(self) -> None:
        if self._flock is not None:
            self._flock.release()  # type: ignore[attr-defined]
            self._flock = None

    def _write(self, body: bytes, mtime_ns: int | None) -> None:
        path = self.marker
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o644)
        try:
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        if mtime_ns is not None:
            os.utime(path, ns=(mtime_ns, mtime_ns))


def forget_run(root: Path, run_started_ns: int, before_ns: int | None,
               state: Path | None = None) -> bool:
    """After an undo: if the marker still records that run as the last consolidation, put
    back what it recorded before (or remove the file if there was none). True if changed."""
    path = marker(root, state)
    holder = read_holder(path)
    if not holder.exists or holder.mtime_ns != run_started_ns or holder.body.strip():
        return False
    if before_ns is None:
        path.unlink(missing_ok=True)
    else:
        os.utime(path, ns=(before_ns, before_ns))
    return True


@contextmanager
def own_lock(root: Path | None, state: Path | None = None) -> Iterator[bool]:
    """The tool's own lock on ``root``, taken without waiting: yields whether the root is
    free of any run or undo (a root that is gone or unknown is: nothing can work there).
    Housekeeping that removes run folders holds it, so it never races a run or an undo."""
    if root is not None and root.is_symlink():
        yield False  # a root swapped for a link: its lock file would land where it points
        return
    if root is None or not root.is_dir():
        yield True
        return

    held = FileLock(str(_flock(root, state)), timeout=0)
    try:
        held.acquire()
    except (Timeout, OSError):
        yield False
        return
    try:
        yield True
    finally:
        held.release()
