"""How the state dir's files are written: private (folders 0700, files 0600), appended
under a lock and fsynced, replaced whole and atomically, read only when they are the user's
own. Where each file lives is :mod:`consolidator.state.statedir`'s.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import stat as stat_mod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


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
        _append_to(fd, data, durable)
    finally:
        os.close(fd)


def _append_to(fd: int, data: bytes, durable: bool) -> None:
    """Append ``data`` to the open file ``fd`` as whole lines (see :func:`append`)."""
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        data = b"\n" + data
    os.write(fd, data)
    if durable:
        os.fsync(fd)


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
        _append_to(fd, data, durable)


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
