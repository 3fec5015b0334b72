"""The file primitives the store's writes and moves share: new files beside a file (temp,
partial copy, kept bytes; never named ``*.md``, so Claude Code never reads one), renames and
links that name full paths when they fail, and putting a live session's bytes back where a
change displaced them (:func:`restore`).

Every name is looked up in a folder held open (see :mod:`consolidator.store.dirfd`). Nothing
here unlinks anything but the store's own side files.
"""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path

from consolidator.store.dirfd import NEW_FILE_FLAGS, UTIME_FD, Folder
from consolidator.store.names import TAG_CHARS, TAG_LEN, side_name
from consolidator.store.recheck import NotRegular, hold, settle

TEMP_SUFFIX = ".tmp"
PARTIAL_SUFFIX = ".partial"
KEPT_SUFFIX = ".kept"
_RESTORE_TRIES = 100
_LINK_NOFOLLOW = os.link in os.supports_follow_symlinks


def new_tag() -> str:
    """A random tag that makes a side file's name unique."""
    return "".join(secrets.choice(TAG_CHARS) for _ in range(TAG_LEN))


def new_side_file(folder: Folder, name: str, suffix: str) -> tuple[str, int]:
    """A new, empty, private file ``.{name}.{random}{suffix}`` beside ``name``."""
    for _ in range(100):
        side = side_name(name, new_tag(), suffix)
        try:
            return side, os.open(folder.at(side), NEW_FILE_FLAGS, 0o600, dir_fd=folder.dir_fd)
        except FileExistsError:
            continue
        except OSError as exc:
            raise named(exc, folder.path / side) from None
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder.path / name))


def fill(fd: int, data: bytes, mode: int, mtime_ns: int | None, folder: Folder,
          name: str, *, sync: bool = True) -> None:
    """Write ``data`` to the new file ``fd`` (``name`` in ``folder``), set its mode and
    mtime, and (``sync``) fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fchmod(fd, mode)
    if mtime_ns is not None:
        if UTIME_FD:
            os.utime(fd, ns=(mtime_ns, mtime_ns))
        else:
            os.utime(folder.at(name), ns=(mtime_ns, mtime_ns), dir_fd=folder.dir_fd,
                     follow_symlinks=False)
    if sync:
        os.fsync(fd)


def side_file(folder: Folder, name: str, data: bytes, mode: int, mtime_ns: int | None,
               suffix: str = TEMP_SUFFIX) -> str:
    """A new file beside ``name`` holding ``data``, fsynced; returns its name."""
    side, fd = new_side_file(folder, name, suffix)
    try:
        try:
            fill(fd, data, mode, mtime_ns, folder, side)
        finally:
            os.close(fd)
    except BaseException:
        unlink_quietly(folder, side)
        raise
    return side


def unlink_quietly(folder: Folder, name: str) -> None:
    """Remove one of the store's own side files."""
    try:
        os.unlink(folder.at(name), dir_fd=folder.dir_fd)
    except FileNotFoundError:
        pass


def named(exc: OSError, first: Path, second: Path | None = None) -> OSError:
    """``exc`` again, naming full paths (the call named files relative to a folder)."""
    again = type(exc)(exc.errno, exc.strerror, str(first), None,
                      None if second is None else str(second))
    return again


def rename(src: Folder, a: str, dst: Folder, b: str) -> None:
    try:
        os.rename(src.at(a), dst.at(b), src_dir_fd=src.dir_fd, dst_dir_fd=dst.dir_fd)
    except OSError as exc:
        raise named(exc, src.path / a, dst.path / b) from None


def link(src: Folder, a: str, dst: Folder, b: str) -> None:
    """A second name ``b`` for ``a``; :class:`FileExistsError` when anything has ``b``."""
    try:
        if _LINK_NOFOLLOW:
            os.link(src.at(a), dst.at(b), src_dir_fd=src.dir_fd, dst_dir_fd=dst.dir_fd,
                    follow_symlinks=False)
        else:
            os.link(src.at(a), dst.at(b), src_dir_fd=src.dir_fd, dst_dir_fd=dst.dir_fd)
    except OSError as exc:
        raise named(exc, dst.path / b) from None


def keep_aside(folder: Folder, name: str, data: bytes, mode: int, mtime_ns: int) -> str:
    """Keep bytes nobody else holds any more beside ``name`` (hidden, never ``*.md``)."""
    side = side_file(folder, name, data, mode, mtime_ns, KEPT_SUFFIX)
    folder.fsync()
    return f"; other bytes written meanwhile kept as {side}"


def restore(folder: Folder, name: str, content: bytes, mode: int, mtime_ns: int,
             base: bytes) -> str:
    """Put ``content`` (a live session's bytes, which a change displaced) back at ``name``,
    where ``base`` had just been put: what anyone added after ``base`` meanwhile is kept,
    after ``content``. With ``base`` empty, a file someone made at the name since is kept
    after ``content`` in the same way. Returns a note when it had to keep bytes aside.

    A session may still be writing: the file is prepared unsynced and checked again just
    before the rename (fsynced right after it), so the instant in which a write can land in
    the file being displaced is short; one that lands there anyway is merged on the next
    round.
    """
    for _ in range(_RESTORE_TRIES):
        try:
            live = hold(folder, name)
        except NotRegular:
            return keep_aside(folder, name, content, mode, mtime_ns)
        if live is None:  # nothing at the name: the bytes go back as a new file
            side = side_file(folder, name, content, mode, mtime_ns)
            try:
                link(folder, side, folder, name)
            except FileExistsError:
                continue
            finally:
                unlink_quietly(folder, side)
            folder.fsync()
            return ""
        try:
            if not live.data.startswith(base):
                return keep_aside(folder, name, content, mode, mtime_ns)
            extra = live.data[len(base):]
            merged = content + extra
            side, fd = new_side_file(folder, name, TEMP_SUFFIX)
            placed = False
            try:
                fill(fd, merged, mode, live.st.st_mtime_ns if extra else mtime_ns, folder,
                      side, sync=False)
                folder.verify()
                if not live.still_at(folder, name) or live.late() is not None:
                    continue
                rename(folder, side, folder, name)
                placed = True
                os.fsync(fd)
            finally:
                os.close(fd)
                if not placed:
                    unlink_quietly(folder, side)
            folder.fsync()
            settle(live)
            late = live.late()
            if late is None:
                return ""
            data, when = late
            if not data.startswith(live.data):
                return keep_aside(folder, name, data, live.mode, when)
            content, base, mtime_ns = merged + data[len(live.data):], merged, when
        finally:
            live.close()
    return keep_aside(folder, name, content, mode, mtime_ns)
