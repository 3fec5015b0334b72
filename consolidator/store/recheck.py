"""Where a file is, and whether it is still as the scan saw it: the store's re-checks.

A path inside a root is walked from the root's open descriptor without following a link
(:func:`place`). A file about to change is opened and held (:class:`Held`) from its last
re-check until after the change: its bytes, size and mtime are compared with the scan's,
and the descriptor keeps reaching the file whatever its name becomes, so a write a live
session makes in that instant is seen (:meth:`Held.late`). Where the system can tell
(Linux leases), a file some program holds open for writing is waited for, then left alone
(:func:`no_writer`). :mod:`consolidator.store.write` and :mod:`consolidator.store.move` make
the changes themselves.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import signal
import stat as stat_mod
import time
from pathlib import Path, PurePosixPath

from consolidator.errors import FileChanged, UnsafePath
from consolidator.store.dirfd import FILE_FLAGS, LINK_ERRNOS, Folder, RootDir, identity, open_folder
from consolidator.store.model import FileStat, guard
from consolidator.store.scan import ReadProblem, file_stat, read_regular

# A program with the file open for writing is waited for this long before a change (then
# the file is left alone) and after it (then a write it made through its old handle is seen).
WRITER_WAIT_S = 1.0
# Where the system cannot tell whether anyone has a file open: a pause before the last look.
GRACE_S = 0.002
_F_SETLEASE: int | None = getattr(fcntl, "F_SETLEASE", None)
_F_SETSIG: int | None = getattr(fcntl, "F_SETSIG", None)


# --------------------------------------------------------------------------- paths


def rel_parts(rel: str) -> tuple[str, ...]:
    """The components of ``rel``, refusing anything that is not a plain path in the root."""
    path = PurePosixPath(rel)
    parts = path.parts
    if not parts or path.is_absolute() or Path(rel).is_absolute() or any(
            p in ("..", ".", "") for p in parts) or rel in (".", ""):
        raise UnsafePath(f"{rel!r} is not a path inside the root")
    return parts


def safe_path(root: Path, rel: str) -> Path:
    """``root / rel``, refusing anything that leaves the root or passes through a symlink.

    A check of the path as it is now; the changes themselves walk the folders again from
    the root's descriptor (:class:`RootDir`), so a link swapped in later is refused too.
    """
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or any(p in ("..", "") for p in parts):
        raise UnsafePath(f"{rel!r} is not a path inside the root")
    current = root
    for part in parts[:-1]:
        current = current / part
        if current.is_symlink():
            raise UnsafePath(f"{rel!r} passes through a symbolic link")
    return root / rel


def place(path: Path, root: RootDir | None, *, create: bool = False) -> tuple[Folder, str]:
    """The open folder of ``path`` and ``path``'s name in it: walked from ``root``'s
    descriptor without following a link, or (a path outside any root) opened by its path.
    ``create`` makes missing folders."""
    if root is None:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        return open_folder(path.parent), path.name
    try:
        rel = path.relative_to(root.path)
    except ValueError:
        raise UnsafePath(f"{path} is not inside {root.path}") from None
    parts = rel_parts(rel.as_posix())
    root.check()
    return root.folder(parts[:-1], create=create), parts[-1]


def place_of_scanned(path: Path, root: RootDir | None, expected: FileStat) -> tuple[Folder, str]:
    try:
        return place(path, root)
    except (FileNotFoundError, NotADirectoryError):
        raise FileChanged(f"{expected.rel}: removed since the scan") from None


# --------------------------------------------------------------------------- reading


def read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _sig(st: os.stat_result) -> tuple[int, int]:
    return st.st_size, st.st_mtime_ns


class NotRegular(Exception):
    """The name is a link, a folder, a FIFO or a device: nothing to hold."""


def _open_regular(folder: Folder, name: str) -> int | None:
    """A descriptor of the regular file ``name`` (``None`` when nothing has the name)."""
    try:
        fd = os.open(folder.at(name), FILE_FLAGS, dir_fd=folder.dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in LINK_ERRNOS:
            raise NotRegular(name) from None
        raise
    try:
        if not stat_mod.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(name)
    except BaseException:
        os.close(fd)
        raise
    return fd


class Held:
    """A file held open from the last re-check until after the change: the descriptor keeps
    reaching the file whatever its name became, so a late write to it is seen."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        st = os.fstat(fd)
        data = b""
        for _ in range(4):  # a read torn by a write is read again
            before = st
            data = read_all(fd)
            st = os.fstat(fd)
            if _sig(before) == _sig(st) and len(data) == st.st_size:
                break
        self.data = data
        self.st = st

    @property
    def mode(self) -> int:
        return stat_mod.S_IMODE(self.st.st_mode)

    def matches(self, expected: FileStat) -> bool:
        return (_sig(self.st) == (expected.size, expected.mtime_ns)
                and hashlib.sha256(self.data).hexdigest() == expected.sha256)

    def late(self) -> tuple[bytes, int] | None:
        """``(bytes, mtime_ns)`` of the file now if anyone wrote to it since it was read."""
        st = os.fstat(self.fd)
        data = read_all(self.fd)
        if _sig(st) == _sig(self.st) and data == self.data:
            return None
        return data, st.st_mtime_ns

    def still_at(self, folder: Folder, name: str) -> bool:
        st = folder.lstat(name)
        return st is not None and identity(st) == identity(self.st)

    def close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


def no_writer(fd: int, wait_s: float | None = None) -> bool | None:
    """Whether no program has the file ``fd`` reaches open for writing (``fd`` is our own,
    read-only), waiting up to ``wait_s`` for one that has to close it; ``None`` where the
    system cannot tell. Asked with a read lease (Linux), which is refused while anyone has
    the file open for writing, and given up again at once."""
    if _F_SETLEASE is None or _F_SETSIG is None:
        return None
    try:
        # Were the lease broken in the instant it is held, the signal must be harmless:
        # SIGIO would end the process.
        fcntl.fcntl(fd, _F_SETSIG, signal.SIGURG)
    except OSError:
        return None
    deadline = time.monotonic() + (WRITER_WAIT_S if wait_s is None else wait_s)
    while True:
        try:
            fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_RDLCK)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EBUSY):
                return None  # not the file's owner, or a file system without leases
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.0005)
            continue
        try:
            fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_UNLCK)
        except OSError:
            pass
        return True


def settle(held: Held) -> None:
    """Before the last look at a file just replaced or moved: let a write begun through a
    handle opened before the change land first."""
    if no_writer(held.fd) is None:
        time.sleep(GRACE_S)


def hold(folder: Folder, name: str) -> Held | None:
    """The regular file ``name`` held open, ``None`` when nothing has the name."""
    fd = _open_regular(folder, name)
    return None if fd is None else Held(fd)


def hold_file(folder: Folder, name: str) -> Held | None:
    """The regular file ``name`` held open, ``None`` when there is none (or something else)."""
    try:
        return hold(folder, name)
    except NotRegular:
        return None


def hold_scanned(folder: Folder, name: str, expected: FileStat) -> Held:
    """``name`` held open, if it still has the scanned size, mtime and bytes."""
    changed = f"{expected.rel}: changed on disk since the scan"
    try:
        fd = _open_regular(folder, name)
    except NotRegular:
        raise FileChanged(changed) from None
    if fd is None:
        raise FileChanged(f"{expected.rel}: removed since the scan")
    try:
        if _sig(os.fstat(fd)) != (expected.size, expected.mtime_ns):
            raise FileChanged(changed)
        held = Held(fd)
    except BaseException:
        os.close(fd)
        raise
    if not held.matches(expected):
        held.close()
        raise FileChanged(changed)
    return held


def guarded(st: os.stat_result) -> str:
    """:func:`~consolidator.store.model.guard` of a file as it is now."""
    return guard(st.st_mode, st.st_nlink)


def read_checked(folder: Folder, name: str, expected: FileStat) -> bytes:
    """The bytes of ``name`` in ``folder``; :class:`FileChanged` unless they are as scanned."""
    held = hold_scanned(folder, name, expected)
    held.close()
    return held.data


def current_stat(path: Path, rel: str, *, root: RootDir | None = None) -> FileStat | None:
    """The file as it is now, or ``None`` if it is gone or unreadable."""
    try:
        folder, name = place(path, root)
    except OSError:
        return None
    try:
        data, st = read_regular(folder.at(name), dir_fd=folder.dir_fd)
    except ReadProblem:
        return None
    finally:
        folder.close()
    return file_stat(rel, data, st)


def check_unchanged(path: Path, expected: FileStat, *, root: RootDir | None = None) -> None:
    """Raise :class:`FileChanged` unless the file still has the scanned bytes and mtime."""
    folder, name = place_of_scanned(path, root, expected)
    try:
        read_checked(folder, name, expected)
    finally:
        folder.close()
