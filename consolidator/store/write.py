"""The only code that rewrites files: atomic writes (archive moves are in
:mod:`consolidator.store.move`, the re-checks both make first in
:mod:`consolidator.store.recheck`, the side files and renames they share in
:mod:`consolidator.store.sidefiles`).

Nothing here unlinks a memory. A rewrite goes to a temp file beside the target (never named
``*.md``, so Claude Code never reads it), is fsynced, takes the old file's mode, owner and
extended attributes and the planned mtime, and replaces the target by rename. Before any
change the file on disk is compared with what the scan saw; a file a live session touched
meanwhile is left alone. A new file never takes a name that an existing one already has on
a case-insensitive or normalising file system (``MEMORY.md`` beside ``memory.md``).

Every name is looked up in a folder held open (see :mod:`consolidator.store.dirfd`): inside
a root, a folder swapped for a symbolic link between the check and the change cannot send
the change elsewhere. The file being replaced is held open from its last re-check until
after the rename, so a line a live session writes in that instant is seen (the descriptor
still reaches the file whatever its name became) and put back live: the step then raises
:class:`FileChanged` and counts as skipped. Every name the store makes beside a file (temp,
partial copy) fits in 255 bytes, whatever the file's own name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat as stat_mod
from pathlib import Path

import structlog

from consolidator.errors import FileChanged
from consolidator.store.dirfd import Folder, RootDir
from consolidator.store.model import FileStat
from consolidator.store.names import MAX_NAME_BYTES, collides, too_long
from consolidator.store.recheck import (
    Held,
    NotRegular,
    hold,
    hold_scanned,
    no_writer,
    place,
    place_of_scanned,
    rel_parts,
    settle,
)
from consolidator.store.sidefiles import (
    TEMP_SUFFIX,
    link,
    rename,
    restore,
    side_file,
    unlink_quietly,
)

DEFAULT_MODE = 0o644

__all__ = ["DEFAULT_MODE", "TEMP_SUFFIX", "atomic_write", "check_new_name", "write_in"]

log = structlog.get_logger("consolidator.store")


def check_new_name(root: Path, rel: str, *, at: RootDir | None = None) -> None:
    """Refuse to create ``root / rel`` where a file system that ignores case or Unicode
    normalisation already has it: each component of ``rel`` is compared, folded, with the
    entries of its folder (one listing per component; a missing folder ends the check).

    A folder on the way may exist under exactly its name; the file itself may not exist at
    all. Raises :class:`FileExistsError` naming the existing entry, or :class:`OSError`
    (``ENAMETOOLONG``) for a component over 255 bytes. ``at``: the root held open (else it
    is opened for the check); folders are walked without following a link.
    """
    long_part = too_long(rel)
    if long_part is not None:
        raise OSError(errno.ENAMETOOLONG,
                      f"{rel} not created: a name is over {MAX_NAME_BYTES} bytes ({long_part!r})")
    parts = rel_parts(rel)
    handle = at if at is not None else RootDir(root)
    try:
        done = ""
        for i, part in enumerate(parts):
            try:
                with handle.folder(parts[:i]) as folder:
                    names = folder.names()
            except (FileNotFoundError, NotADirectoryError):
                return  # a folder still to be made: nothing in it to collide with
            other = collides(part, names)
            last = i == len(parts) - 1
            if other is not None and (last or other != part):
                if other == part:
                    why = f"{done}{other} already exists"
                else:
                    why = (f"{done}{other} already exists, the same name on a case-insensitive "
                           "or normalising file system")
                raise FileExistsError(errno.EEXIST, f"{rel} not created: {why}")
            done += part + "/"
    finally:
        if at is None:
            handle.close()


# --------------------------------------------------------------------------- writing


def _carry_over(held: Held, folder: Folder, tmp: str, label: str) -> None:
    """The old file's owner and extended attributes onto its replacement ``tmp``, as far as
    this process may set them: a rename keeps the new file's own (the mode is set as it is
    written). An attribute the file system or the user's rights refuse is left behind, and
    the log says which (``label``: the file, as messages name it)."""
    owner = (held.st.st_uid, held.st.st_gid)  # a setgid folder gives a new file its group
    names = _xattr_names(held.fd)
    try:
        fd = os.open(folder.at(tmp), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC,
                     dir_fd=folder.dir_fd)
    except OSError:
        return
    refused: list[str] = []
    try:
        st = os.fstat(fd)
        if (st.st_uid, st.st_gid) != owner:
            with contextlib.suppress(OSError):
                os.fchown(fd, *owner)
        for attr in names:
            try:
                os.setxattr(fd, attr, os.getxattr(held.fd, attr))
            except OSError as exc:
                refused.append(f"{attr} ({exc.strerror or exc})")
    finally:
        os.close(fd)
    if refused:
        log.warning(f"{label}: extended attribute(s) not kept on the rewritten file: "
                    + ", ".join(refused), file=label, refused=len(refused))


def _xattr_names(fd: int) -> list[str]:
    """The extended attributes of the open file ``fd`` (none where the platform or the file
    system has none)."""
    if not hasattr(os, "listxattr"):
        return []
    try:
        return os.listxattr(fd)
    except OSError:
        return []


def write_in(
    folder: Folder,
    name: str,
    data: bytes,
    *,
    mtime_ns: int | None = None,
    mode: int | None = None,
    expected: FileStat | None = None,
    exclusive: bool = False,
) -> None:
    """:func:`atomic_write` of ``name`` in the open ``folder``."""
    label = expected.rel if expected is not None else name
    if mode is None:
        st = folder.lstat(name)
        mode = (stat_mod.S_IMODE(st.st_mode) if st is not None and stat_mod.S_ISREG(st.st_mode)
                else DEFAULT_MODE)
    tmp = side_file(folder, name, data, mode, mtime_ns)
    held: Held | None = None
    was_missing = False
    try:
        if expected is not None:
            held = hold_scanned(folder, name, expected)
        elif not exclusive:
            try:
                held = hold(folder, name)
            except NotRegular:
                pass  # a link or a FIFO at the name: replaced itself, never followed
            else:
                was_missing = held is None
        if held is not None and no_writer(held.fd) is False:
            raise FileChanged(f"{label}: open for writing in another program; left alone")
        folder.verify()
        if held is not None and not held.still_at(folder, name):
            raise FileChanged(f"{label}: replaced on disk while being written")
        if held is not None:
            _carry_over(held, folder, tmp, label)
        if exclusive or was_missing:
            # link() fails if the target exists: no window in which a new file could be lost.
            try:
                link(folder, tmp, folder, name)
            except FileExistsError:
                if was_missing:
                    raise FileChanged(f"{label}: created on disk while being written") from None
                raise
            unlink_quietly(folder, tmp)
        else:
            rename(folder, tmp, folder, name)
    except BaseException:
        unlink_quietly(folder, tmp)
        if held is not None:
            held.close()
        raise
    folder.fsync()
    if held is None:
        return
    try:
        settle(held)
        late = held.late()
        if late is not None:
            note = restore(folder, name, late[0], held.mode, late[1], base=data)
            raise FileChanged(f"{label}: written by a live session while being replaced; "
                              f"its bytes are back in place{note}")
    finally:
        held.close()


def atomic_write(
    path: Path,
    data: bytes,
    *,
    mtime_ns: int | None = None,
    mode: int | None = None,
    expected: FileStat | None = None,
    exclusive: bool = False,
    root: RootDir | None = None,
) -> None:
    """Replace (or create) ``path`` with ``data`` atomically.

    ``expected``: the file as scanned; it is re-checked right before the rename, and held
    open until after it: bytes a live session wrote in between are put back and
    :class:`FileChanged` raised (also without ``expected``, for any file replaced).
    ``exclusive``: the file must not exist (a new memory never overwrites one); without it,
    a file that did not exist is created the same way, so one made meanwhile is kept.
    ``mode``: defaults to the existing file's mode, else 0644. ``mtime_ns`` is set exactly.
    ``root``: the root held open, when ``path`` is inside it: its folders are walked from
    the root's descriptor without following a link (else ``path``'s folder is opened by its
    path). Raises :class:`FileChanged`, :class:`UnsafePath` or :class:`OSError`; on failure no
    temp file is left.
    """
    if expected is not None:
        folder, name = place_of_scanned(path, root, expected)
    else:
        folder, name = place(path, root)
    with folder:
        write_in(folder, name, data, mtime_ns=mtime_ns, mode=mode, expected=expected,
                 exclusive=exclusive)
