"""Folders held open: every change inside a root is made relative to a folder descriptor.

A path that was checked and is then used can lead somewhere else by the time it is used: a
folder of the root, or the root itself, swapped for a symbolic link in between. So the store
opens the root once (:class:`RootDir`), walks each folder of a path from it one component at
a time without following a link (``O_NOFOLLOW | O_DIRECTORY``), and names files only
relative to the descriptor of their folder (:class:`Folder`). Right before a change,
:meth:`Folder.verify` checks that the root's path still leads to the root's descriptor and
that the folder is still where the walk found it; a mismatch raises :class:`UnsafePath`
before anything is changed.

A root that is itself a symbolic link (a user who keeps the memory folder elsewhere) is
followed when it is opened, but only if the link is older than the run: a root that turned
into a link while the run went on is refused.

Folders outside any root (the state dir) are opened by their path and then used the same
way, so all of one step's names are in the one folder it opened.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from consolidator.errors import UnsafePath

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
PART_FILE_FLAGS = os.O_RDWR | os.O_CREAT | os.O_TRUNC | _NOFOLLOW | _CLOEXEC
# Every call the store makes relative to a folder; without them it names full paths.
HAVE_DIR_FD = {os.open, os.stat, os.rename, os.link, os.unlink, os.mkdir} <= os.supports_dir_fd
LIST_FD = os.listdir in os.supports_fd
UTIME_FD = os.utime in os.supports_fd
# How systems refuse to open a link with O_NOFOLLOW: Linux and macOS ELOOP, FreeBSD EMLINK;
# with O_DIRECTORY some say ENOTDIR.
LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})

Identity = tuple[int, int]


def identity(st: os.stat_result) -> Identity:
    """What makes a file itself, whatever its name: device and inode."""
    return st.st_dev, st.st_ino


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


class Folder:
    """An open folder. Names in it are given to ``os`` calls as :meth:`at` ``(name)`` with
    ``dir_fd=``:attr:`dir_fd`, so they are looked up in this very folder."""

    def __init__(self, fd: int, path: Path, root: RootDir | None = None,
                 parts: tuple[str, ...] = ()) -> None:
        self.fd = fd
        self.path = path  # for messages, and for systems without dir_fd calls
        self.root = root
        self.parts = parts  # where it lies in ``root``
        self.ident = identity(os.fstat(fd))
        self._closer = weakref.finalize(self, _close, fd)

    @property
    def dir_fd(self) -> int | None:
        return self.fd if HAVE_DIR_FD else None

    def at(self, name: str) -> str:
        """``name`` as a call relative to :attr:`dir_fd` takes it."""
        return name if HAVE_DIR_FD else os.path.join(self.path, name)

    def lstat(self, name: str) -> os.stat_result | None:
        """``name``'s own status (a link not followed), ``None`` when nothing has the name."""
        try:
            return os.stat(self.at(name), dir_fd=self.dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def names(self) -> list[str]:
        return os.listdir(self.fd if LIST_FD else self.path)

    def verify(self) -> None:
        """Raise :class:`UnsafePath` unless the folder is still where it was found: for a
        folder of a root, the root still at its path and the walk to it leading here."""
        if self.root is not None:
            self.root.check()
            if not self.parts:
                return
            try:
                fd = self.root.walk_fd(self.parts)
            except (FileNotFoundError, NotADirectoryError):
                raise UnsafePath(f"{self.path}: moved away while being changed") from None
            try:
                same = identity(os.fstat(fd)) == self.ident
            finally:
                os.close(fd)
        else:
            try:
                same = identity(os.stat(self.path)) == self.ident
            except OSError:
                same = False
        if not same:
            raise UnsafePath(f"{self.path}: moved or replaced while being changed")

    def fsync(self) -> None:
        try:
            os.fsync(self.fd)
        except OSError:
            pass  # not every system syncs a folder; the rename is still atomic

    def close(self) -> None:
        self._closer()

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def open_folder(path: Path) -> Folder:
    """A folder outside any root (the state dir), opened by its path."""
    return Folder(os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC), path)


def _is_link(name: str, dir_fd: int | None) -> bool:
    try:
        return stat_mod.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_dir(parent: int, part: str, path: Path, create: bool) -> int:
    """Open the folder ``part`` of the open folder ``parent`` without following a link."""
    name, dir_fd = (part, parent) if HAVE_DIR_FD else (str(path), None)
    try:
        for _ in range(2):
            try:
                return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
            except FileNotFoundError:
                if not create:
                    raise
            except OSError as exc:
                if exc.errno in LINK_ERRNOS and _is_link(name, dir_fd):
                    raise UnsafePath(f"{path}: a symbolic link, not followed") from None
                raise
            try:
                os.mkdir(name, 0o777, dir_fd=dir_fd)
            except FileExistsError:
                pass
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:  # the same error, naming the whole path
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None


class RootDir:
    """A root held open for a run: every walk to a file in it starts from this descriptor.

    ``since_ns``: when the run started. A root that is a symbolic link is followed only if
    the link is older than that (default: now); one made later is an attack, or a mistake.
    """

    def __init__(self, path: Path, *, since_ns: int | None = None) -> None:
        self.path = path
        own = os.lstat(path)
        self.link: Identity | None = None
        flags = DIR_FLAGS
        if stat_mod.S_ISLNK(own.st_mode):
            if own.st_ctime_ns >= (since_ns if since_ns is not None else time.time_ns()):
                raise UnsafePath(f"{path}: became a symbolic link after the run started")
            self.link = identity(own)
            flags &= ~_NOFOLLOW
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            if exc.errno in LINK_ERRNOS and self.link is None and _is_link(str(path), None):
                raise UnsafePath(f"{path}: replaced by a symbolic link") from None
            raise
        self.fd = fd
        self._closer = weakref.finalize(self, _close, fd)
        self.ident = identity(os.fstat(fd))
        self.check()

    def check(self) -> None:
        """Raise :class:`UnsafePath` unless the root's path still leads to this descriptor
        (and, for a linked root, through the same link)."""
        if not self._closer.alive:
            raise UnsafePath(f"{self.path}: no longer open for changes")
        try:
            now = identity(os.stat(self.path))
            link = identity(os.lstat(self.path)) if self.link is not None else None
            held = identity(os.fstat(self.fd))
        except OSError:
            raise UnsafePath(f"{self.path}: the memory folder was moved away") from None
        if now != self.ident or held != self.ident or link != self.link:
            raise UnsafePath(f"{self.path}: the memory folder was moved or replaced "
                             "(by a symbolic link?) while the run changed it")

    def walk_fd(self, parts: Sequence[str], *, create: bool = False) -> int:
        """A new descriptor of the folder ``parts`` (names, not a path) below the root,
        walked without following a link; ``create`` makes missing folders."""
        fd = os.dup(self.fd)
        path = self.path
        try:
            for part in parts:
                if part in ("", ".", "..") or "/" in part or "\0" in part:
                    raise UnsafePath(f"{part!r} is not a folder name inside the root")
                path = path / part
                step = _open_dir(fd, part, path, create)
                os.close(fd)
                fd = step
        except BaseException:
            os.close(fd)
            raise
        return fd

    def folder(self, parts: Sequence[str], *, create: bool = False) -> Folder:
        """The open folder ``parts`` below the root (see :meth:`walk_fd`)."""
        parts = tuple(parts)
        fd = self.walk_fd(parts, create=create)
        try:
            return Folder(fd, self.path.joinpath(*parts), self, parts)
        except BaseException:
            os.close(fd)
            raise

    def close(self) -> None:
        self._closer()

    def __enter__(self) -> RootDir:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
