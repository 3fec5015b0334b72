"""The state dir: its layout and its ways of writing. Nothing else spells a path inside it.

::

    <state dir>/
      <root key>/                 one folder per memory directory (see :func:`root_key`)
        history.jsonl             one line per pass (appended under a lock, fsynced; lines
                                  older than [state] keep_days are dropped)
        last-scan                 its mtime: the last session scan (gate G5)
        lock-previous.json        what the marker was before a run still holding it
        root.flock                the tool's own lock on the root (filelock; empty)
        last-consolidated         the marker of a root Claude Code keeps no
                                  .consolidate-lock in (body: holder PID; mtime: the last
                                  consolidation)
        proposal.json             the judgments waiting for review (replaced atomically)
        declined.jsonl            judgments a person declined (appended, fsynced)
        usage.json                which memories the sessions opened (replaced atomically)
        unusable                  why gate G2 found the root unusable when a pass last
                                  warned of it (absent while it is usable)
        runs/<run id>/
          journal.jsonl           every change, written down before it is made
          backup/<step>/<file>    a file's bytes before a step rewrote it
          archive/<file>          files moved out of the root, byte for byte
          undone/<file>           files an undo took back out of the root
          displaced/<step>/<file> newer bytes a forced undo put aside

Everything is private to the user: folders 0700, files 0600. Nothing here is a ``.md`` file
under a root (the state dir is never inside one; see
:func:`consolidator.roots.paths.check_state_dir`).

A run folder's age, contents and removal are :mod:`consolidator.state.runfolders`'.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import secrets
import stat as stat_mod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from consolidator.errors import UsageError

HISTORY = "history.jsonl"
SCAN_MARK = "last-scan"
LOCK_PREVIOUS = "lock-previous.json"
ROOT_FLOCK = "root.flock"
LAST_RUN = "last-consolidated"
PROPOSAL = "proposal.json"
DECLINED_FILE = "declined.jsonl"
DECLINED_BEFORE = "declined"  # the name one earlier build wrote it under, still read
USAGE = "usage.json"
UNUSABLE = "unusable"
METRICS_UNWRITTEN = "metrics-unwritten"  # in the state dir: why the textfile was not written
RUNS = "runs"
JOURNAL = "journal.jsonl"
BACKUP = "backup"
ARCHIVE = "archive"
UNDONE = "undone"
DISPLACED = "displaced"
OWN = frozenset({JOURNAL, BACKUP})  # what a run folder holds that is the tool's alone
USERS = (ARCHIVE, UNDONE, DISPLACED)  # what holds users' bytes, moved out of a root
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
# The status of an action in proposal.json (consolidator.state.proposal reads and writes it).
WAITING, APPLIED, DECLINED, REFUSED = "waiting", "applied", "declined", "refused"
DONE_WITH = frozenset({APPLIED, DECLINED, REFUSED})  # an action that waits no more


def root_key(root: Path) -> str:
    """A folder name for one root's state: readable, and unique per folder.

    The path is resolved first (symlinks and ``..``, as far as it exists), so one folder
    reached through two aliases has one state folder, and so one lock."""
    return text_key(os.path.realpath(root))


def kept_for(state: Path, memory_dir: str) -> bool:
    """Whether ``state`` is the state folder of ``memory_dir``: its key, or the key an earlier
    build gave the path as written (before aliases were resolved)."""
    return state.name in (root_key(Path(memory_dir)), text_key(memory_dir))


def text_key(text: str) -> str:
    """A folder name for a path as written: readable, and unique per text."""
    readable = re.sub(r"[^A-Za-z0-9]", "-", text).strip("-")[-80:]
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{readable}-{digest}"


def root_state(state_dir: Path, root: Path) -> Path:
    """The folder of ``root``'s state."""
    return state_dir / root_key(root)


# ------------------------------------------------------------------- one root's files


def history(state: Path) -> Path:
    return state / HISTORY


def scan_mark(state: Path) -> Path:
    return state / SCAN_MARK


def lock_previous(state: Path) -> Path:
    return state / LOCK_PREVIOUS


def root_flock(state: Path) -> Path:
    return state / ROOT_FLOCK


def last_run(state: Path) -> Path:
    return state / LAST_RUN


def proposal(state: Path) -> Path:
    return state / PROPOSAL


def declined(state: Path) -> Path:
    return state / DECLINED_FILE


def declined_before(state: Path) -> Path:
    return state / DECLINED_BEFORE


def usage(state: Path) -> Path:
    return state / USAGE


def unusable(state: Path) -> Path:
    return state / UNUSABLE


def metrics_unwritten(state_dir: Path) -> Path:
    """Why the metrics textfile could not be written, as last warned of (the whole state
    dir's, not a root's)."""
    return state_dir / METRICS_UNWRITTEN


def runs(state: Path) -> Path:
    return state / RUNS


def run_dir(state: Path, run_id: str) -> Path:
    return state / RUNS / run_id


def root_folders(state_dir: Path) -> list[Path]:
    """Every root's folder in the state dir, by name (links are not followed)."""
    try:
        entries = sorted(os.scandir(state_dir), key=lambda e: e.name)
    except OSError:
        return []
    return [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]


def run_ids(state: Path, prefix: str = "") -> list[str]:
    """The names of this root's run folders (those starting with ``prefix``), sorted."""
    try:
        return sorted(e.name for e in os.scandir(runs(state)) if e.name.startswith(prefix))
    except OSError:
        return []


def run_folder(state: Path, run_id: str) -> Path | None:
    """The root's run folder named exactly ``run_id`` (the id is compared with the names
    listed in ``runs/``: it is never a pattern), or ``None`` (a link is not one)."""
    folder = run_dir(state, run_id)
    if run_id in run_ids(state) and folder.is_dir() and not folder.is_symlink():
        return folder
    return None


def check_run_id(run_id: str) -> None:
    if not RUN_ID.fullmatch(run_id):
        raise UsageError(f"{run_id!r} is not a run id (like 20261130T031500Z-3f9a)")


def state_of_run(run: Path) -> Path:
    """The root's state folder a run folder belongs to."""
    return run.parent.parent


# ------------------------------------------------------------------- one run's files


def journal(run: Path) -> Path:
    return run / JOURNAL


def backup(run: Path, step: int, rel: str) -> Path:
    """Where step ``step`` saved ``rel``'s bytes before rewriting it."""
    return run / "backup" / str(step) / rel


def archived(run: Path, rel: str) -> Path:
    """Where a file this run archived lies."""
    return run / "archive" / rel


def undone(run: Path, rel: str) -> Path:
    """Where an undo puts a file the run created."""
    return run / "undone" / rel


def displaced(run: Path, step: int, rel: str) -> Path:
    """Where a forced undo keeps the newer bytes it replaced."""
    return run / "displaced" / str(step) / rel


# ------------------------------------------------------------------- ways of writing


def private_dir(path: Path) -> None:
    """Create ``path`` (and any missing parents) as 0700: archives hold users' memories."""
    missing = []
    parent = path
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
        try:
            os.chmod(folder, 0o700)
        except OSError:
            pass
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass


def append(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Append ``data`` to a private file; fsynced when ``durable``.

    A last line cut short by a crash (no newline at the end) is ended first, so it stays one
    line on its own and ``data`` starts a line of its own.
    """
    private_dir(path.parent)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def replace(path: Path, data: bytes) -> None:
    """Write a private file whole (0600), its folder made private if need be."""
    private_dir(path.parent)
    write_whole(path, data, 0o600)


def write_whole(path: Path, data: bytes, mode: int) -> None:
    """Write ``path`` whole and atomically: a temp file beside it (never the target's name,
    so no reader sees it half written), given ``mode`` whatever the umask, every byte
    written and fsynced, renamed over the target, the folder fsynced. The folder must exist.
    """
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))
    fd = os.open(temp, flags, mode)
    try:
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    try:
        folder = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(folder)
    except OSError:
        pass
    finally:
        os.close(folder)


def remove(path: Path) -> None:
    """Remove one of the tool's own files (never a memory: those are archived)."""
    path.unlink(missing_ok=True)


class Foreign(Exception):
    """A state file not written by this user alone: it is never trusted."""


def read_private(path: Path, limit: int = 64 << 20) -> bytes | None:
    """A state file's bytes, or ``None`` when there is none.

    Raises :class:`Foreign` when it is not a regular file owned by this user and writable by
    no one else (another user could have planted it), or larger than ``limit``.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if path.is_symlink():
            raise Foreign(f"{path} is a symbolic link") from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            raise Foreign(f"{path} is not a regular file")
        if st.st_uid != os.getuid():
            raise Foreign(f"{path} belongs to another user")
        if st.st_mode & 0o022:
            raise Foreign(f"{path} is writable by others (mode {st.st_mode & 0o777:o})")
        if st.st_size > limit:
            raise Foreign(f"{path} is larger than {limit} bytes")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


# ------------------------------------------------------------------- a file many processes write


@contextmanager
def exclusive(path: Path, *, create: bool = True) -> Iterator[int]:
    """A descriptor of the private file ``path`` (created when missing and ``create``; else
    :class:`FileNotFoundError`), opened for appending and held under an exclusive ``flock``
    until the block ends.

    Every writer of the file locks it, so an append never lands between a rewrite's read and
    its rename. A file renamed over ``path`` while this waited is opened again: the lock is
    always on the file that ``path`` names now.
    """
    if create:
        private_dir(path.parent)
    flags = os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        fd = os.open(path, flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                now = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                now = None
        except BaseException:
            os.close(fd)
            raise
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            break
        os.close(fd)  # replaced (or removed) while we waited: lock the file there now
    try:
        yield fd
    finally:
        os.close(fd)  # lets the lock go


def append_locked(path: Path, data: bytes, *, durable: bool = True) -> None:
    """:func:`append`, under the file's lock (see :func:`exclusive`)."""
    with exclusive(path) as fd:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
        if durable:
            os.fsync(fd)


def rewrite_locked(path: Path, edit: Callable[[bytes], bytes | None],
                   limit: int = 1 << 30) -> bool:
    """Replace ``path`` (atomically, see :func:`replace`) by ``edit`` of its bytes, under the
    file's lock; ``edit`` returns ``None`` to leave it as it is. Returns whether it was
    replaced (a missing file is left missing); raises :class:`Foreign` for one larger than
    ``limit`` or not a regular file."""
    try:
        with exclusive(path, create=False) as fd:
            st = os.fstat(fd)
            if not stat_mod.S_ISREG(st.st_mode) or st.st_size > limit:
                raise Foreign(f"{path} is not a regular file of at most {limit} bytes")
            chunks, offset = [], 0
            while chunk := os.pread(fd, 1 << 20, offset):
                chunks.append(chunk)
                offset += len(chunk)
            new = edit(b"".join(chunks))
            if new is None:
                return False
            replace(path, new)
            return True
    except FileNotFoundError:
        return False
