"""Archive moves: a memory's bytes to a new name (the archive), byte for byte with its
mtime, never a copy left behind and never a byte lost (the re-checks first are in
:mod:`consolidator.store.recheck`, the side files and renames in
:mod:`consolidator.store.sidefiles`).

Nothing here unlinks a memory. The file is held open from its last re-check until after the
rename, so bytes a live session writes in that instant are seen and the file put back at its
old name with them: the step then raises :class:`FileChanged` and counts as skipped. Across
file systems the move is a copy, fsynced and verified, and only then is the source's name
taken away.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from consolidator.errors import FileChanged
from consolidator.store.dirfd import PART_FILE_FLAGS, Folder, RootDir
from consolidator.store.model import FileStat
from consolidator.store.names import side_name
from consolidator.store.recheck import (
    Held,
    hold_file,
    hold_scanned,
    no_writer,
    place,
    place_of_scanned,
    read_all,
    settle,
)
from consolidator.store.sidefiles import (
    PARTIAL_SUFFIX,
    TEMP_SUFFIX,
    fill,
    link,
    new_tag,
    rename,
    restore,
    unlink_quietly,
)

__all__ = ["move_file", "move_in"]


def move_file(
    source: Path,
    dest: Path,
    expected: FileStat,
    *,
    source_root: RootDir | None = None,
    dest_root: RootDir | None = None,
) -> None:
    """Move ``source`` to ``dest`` byte for byte, keeping its mtime; ``dest`` must not exist.

    Re-checks the source first and holds it open; if it changed by the end of the move it
    is put back (bytes written meanwhile included) and :class:`FileChanged` raised. Across
    file systems: copy, fsync, verify, and only then take the source's name away.
    ``source_root``/``dest_root``: the root held open that ``source``/``dest`` lies in
    (folders walked from its descriptor; missing folders of ``dest`` are made).
    """
    src, name = place_of_scanned(source, source_root, expected)
    with src:
        held = hold_scanned(src, name, expected)
        held.close()  # held again by move_in, right before the move
        dst, dest_name = place(dest, dest_root, create=True)
        with dst:
            move_in(src, name, dst, dest_name, expected)


def move_in(src: Folder, name: str, dst: Folder, dest_name: str, expected: FileStat) -> None:
    """:func:`move_file` of ``name`` in the open ``src`` to ``dest_name`` in ``dst``."""
    held = hold_scanned(src, name, expected)
    try:
        if dst.lstat(dest_name) is not None:
            raise FileExistsError(errno.EEXIST, "archive target exists",
                                  str(dst.path / dest_name))
        if no_writer(held.fd) is False:
            raise FileChanged(f"{expected.rel}: open for writing in another program; left alone")
        src.verify()
        dst.verify()
        if not held.still_at(src, name):
            raise FileChanged(f"{expected.rel}: changed on disk since the scan")
        try:
            rename(src, name, dst, dest_name)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            _copy_across(src, name, dst, dest_name, held, expected)
            return
        dst.fsync()
        src.fsync()
        settle(held)
        moved_it = held.still_at(dst, dest_name)
        if moved_it and held.late() is None:
            return
        _move_back(src, name, dst, dest_name)
        raise FileChanged(f"{expected.rel}: changed while being moved; put back")
    finally:
        held.close()


def _move_back(src: Folder, name: str, dst: Folder, dest_name: str) -> None:
    """Put what a same-file-system move just took back at its old name, bytes written to it
    meanwhile included; a file a live session made at the old name since stays, after them."""
    try:
        link(dst, dest_name, src, name)
    except FileExistsError:
        moved = hold_file(dst, dest_name)
        if moved is None:
            return  # not a file: it stays where it is
        try:
            restore(src, name, moved.data, moved.mode, moved.st.st_mtime_ns, base=b"")
        finally:
            moved.close()
    src.fsync()
    unlink_quietly(dst, dest_name)  # the old name has every byte: this is a second name
    dst.fsync()


def _copy_across(src: Folder, name: str, dst: Folder, dest_name: str, held: Held,
                 expected: FileStat) -> None:
    """Cross-device move: copy the held bytes with mode and mtime, fsync, verify, and only
    then take the source's name away; bytes written to it by then are put back."""
    part = side_name(dest_name, "", PARTIAL_SUFFIX)
    fd = os.open(dst.at(part), PART_FILE_FLAGS, 0o600, dir_fd=dst.dir_fd)
    try:
        try:
            fill(fd, held.data, held.mode, held.st.st_mtime_ns, dst, part)
            if read_all(fd) != held.data:
                raise OSError(errno.EIO, "copy did not match its source", str(src.path / name))
        finally:
            os.close(fd)
        link(dst, part, dst, dest_name)
    finally:
        unlink_quietly(dst, part)
    dst.fsync()
    changed = f"{expected.rel}: changed while being moved; left in place"
    try:
        if no_writer(held.fd) is False:
            raise FileChanged(f"{expected.rel}: open for writing in another program; left alone")
        src.verify()
        if not held.still_at(src, name) or held.late() is not None:
            raise FileChanged(changed)
        # Away under a temp name first: what is unlinked is then surely the held file.
        aside = side_name(name, new_tag(), TEMP_SUFFIX)
        rename(src, name, src, aside)
    except BaseException:
        unlink_quietly(dst, dest_name)  # our copy: the source is still in place
        dst.fsync()
        raise
    if not held.still_at(src, aside):  # something renamed onto the name just before: back
        unlink_quietly(dst, dest_name)  # the copy of a file no longer at the name
        try:
            link(src, aside, src, name)
        except FileExistsError:
            other = hold_file(src, aside)
            if other is None:
                raise FileChanged(f"{changed} (replaced meanwhile, kept as {aside})") from None
            try:
                restore(src, name, other.data, other.mode, other.st.st_mtime_ns, base=b"")
            finally:
                other.close()
        unlink_quietly(src, aside)
        src.fsync()
        raise FileChanged(changed)
    unlink_quietly(src, aside)
    src.fsync()
    settle(held)
    late = held.late()
    if late is None:
        return
    restore(src, name, late[0], held.mode, late[1], base=b"")
    unlink_quietly(dst, dest_name)  # the copy: the source is live again with every byte
    dst.fsync()
    raise FileChanged(f"{expected.rel}: changed while being moved; put back")
