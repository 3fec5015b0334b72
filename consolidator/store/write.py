"""The only code that changes files: atomic writes and archive moves (the re-checks they
make first are in :mod:`consolidator.store.recheck`).

Nothing here unlinks a memory. A rewrite goes to a temp file beside the target (never named
``*.md``, so Claude Code never reads it), is fsynced, takes the old file's mode, owner and
extended attributes and the planned mtime, and replaces the target by rename. Before any
change the file on disk is compared with what the scan saw; a file a live session touched
meanwhile is left alone. A new file never takes a name that an existing one already has on
a case-insensitive or normalising file system (``MEMORY.md`` beside ``memory.md``).

Every name is looked up in a folder held open (see :mod:`consolidator.store.dirfd`): inside
a root, a folder swapped for a symbolic link between the check and the change cannot send
the change elsewhere. The file being replaced or moved is held open from its last re-check
until after the rename, so a line a live session writes in that instant is seen (the
descriptor still reaches the file whatever its name became) and put back live: the step
then raises :class:`FileChanged` and counts as skipped. Every name the store makes beside a
file (temp, partial copy) fits in 255 bytes, whatever the file's own name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat as stat_mod
from pathlib import Path

import structlog

from consolidator.errors import FileChanged
from consolidator.store.dirfd import (
    NEW_FILE_FLAGS,
    PART_FILE_FLAGS,
    UTIME_FD,
    Folder,
    RootDir,
)
from consolidator.store.model import FileStat
from consolidator.store.names import (
    MAX_NAME_BYTES,
    TAG_CHARS,
    TAG_LEN,
    collides,
    side_name,
    too_long,
)
from consolidator.store.recheck import (
    Held,
    NotRegular,
    hold,
    hold_file,
    hold_scanned,
    no_writer,
    place,
    place_of_scanned,
    read_all,
    rel_parts,
    settle,
)

DEFAULT_MODE = 0o644
TEMP_SUFFIX = ".tmp"
PARTIAL_SUFFIX = ".partial"
KEPT_SUFFIX = ".kept"
_RESTORE_TRIES = 100
_LINK_NOFOLLOW = os.link in os.supports_follow_symlinks

__all__ = ["DEFAULT_MODE", "atomic_write", "check_new_name", "move_file", "move_in", "write_in"]

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


def _tag() -> str:
    return "".join(secrets.choice(TAG_CHARS) for _ in range(TAG_LEN))


def _new_side_file(folder: Folder, name: str, suffix: str) -> tuple[str, int]:
    """A new, empty, private file ``.{name}.{random}{suffix}`` beside ``name``."""
    for _ in range(100):
        side = side_name(name, _tag(), suffix)
        try:
            return side, os.open(folder.at(side), NEW_FILE_FLAGS, 0o600, dir_fd=folder.dir_fd)
        except FileExistsError:
            continue
        except OSError as exc:
            raise _named(exc, folder.path / side) from None
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder.path / name))


def _fill(fd: int, data: bytes, mode: int, mtime_ns: int | None, folder: Folder,
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


def _side_file(folder: Folder, name: str, data: bytes, mode: int, mtime_ns: int | None,
               suffix: str = TEMP_SUFFIX) -> str:
    """A new file beside ``name`` holding ``data``, fsynced; returns its name."""
    side, fd = _new_side_file(folder, name, suffix)
    try:
        try:
            _fill(fd, data, mode, mtime_ns, folder, side)
        finally:
            os.close(fd)
    except BaseException:
        _unlink_quietly(folder, side)
        raise
    return side


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


def _unlink_quietly(folder: Folder, name: str) -> None:
    """Remove one of the store's own side files."""
    try:
        os.unlink(folder.at(name), dir_fd=folder.dir_fd)
    except FileNotFoundError:
        pass


def _named(exc: OSError, first: Path, second: Path | None = None) -> OSError:
    """``exc`` again, naming full paths (the call named files relative to a folder)."""
    again = type(exc)(exc.errno, exc.strerror, str(first), None,
                      None if second is None else str(second))
    return again


def _rename(src: Folder, a: str, dst: Folder, b: str) -> None:
    try:
        os.rename(src.at(a), dst.at(b), src_dir_fd=src.dir_fd, dst_dir_fd=dst.dir_fd)
    except OSError as exc:
        raise _named(exc, src.path / a, dst.path / b) from None


def _link(src: Folder, a: str, dst: Folder, b: str) -> None:
    """A second name ``b`` for ``a``; :class:`FileExistsError` when anything has ``b``."""
    try:
        if _LINK_NOFOLLOW:
            os.link(src.at(a), dst.at(b), src_dir_fd=src.dir_fd, dst_dir_fd=dst.dir_fd,
                    follow_symlinks=False)
        else:
            os.link(src.at(a), dst.at(b), src_dir_fd=src.dir_fd, dst_dir_fd=dst.dir_fd)
    except OSError as exc:
        raise _named(exc, dst.path / b) from None


def _keep_aside(folder: Folder, name: str, data: bytes, mode: int, mtime_ns: int) -> str:
    """Keep bytes nobody else holds any more beside ``name`` (hidden, never ``*.md``)."""
    side = _side_file(folder, name, data, mode, mtime_ns, KEPT_SUFFIX)
    folder.fsync()
    return f"; other bytes written meanwhile kept as {side}"


def _restore(folder: Folder, name: str, content: bytes, mode: int, mtime_ns: int,
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
            return _keep_aside(folder, name, content, mode, mtime_ns)
        if live is None:  # nothing at the name: the bytes go back as a new file
            side = _side_file(folder, name, content, mode, mtime_ns)
            try:
                _link(folder, side, folder, name)
            except FileExistsError:
                continue
            finally:
                _unlink_quietly(folder, side)
            folder.fsync()
            return ""
        try:
            if not live.data.startswith(base):
                return _keep_aside(folder, name, content, mode, mtime_ns)
            extra = live.data[len(base):]
            merged = content + extra
            side, fd = _new_side_file(folder, name, TEMP_SUFFIX)
            placed = False
            try:
                _fill(fd, merged, mode, live.st.st_mtime_ns if extra else mtime_ns, folder,
                      side, sync=False)
                folder.verify()
                if not live.still_at(folder, name) or live.late() is not None:
                    continue
                _rename(folder, side, folder, name)
                placed = True
                os.fsync(fd)
            finally:
                os.close(fd)
                if not placed:
                    _unlink_quietly(folder, side)
            folder.fsync()
            settle(live)
            late = live.late()
            if late is None:
                return ""
            data, when = late
            if not data.startswith(live.data):
                return _keep_aside(folder, name, data, live.mode, when)
            content, base, mtime_ns = merged + data[len(live.data):], merged, when
        finally:
            live.close()
    return _keep_aside(folder, name, content, mode, mtime_ns)


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
    tmp = _side_file(folder, name, data, mode, mtime_ns)
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
                _link(folder, tmp, folder, name)
            except FileExistsError:
                if was_missing:
                    raise FileChanged(f"{label}: created on disk while being written") from None
                raise
            _unlink_quietly(folder, tmp)
        else:
            _rename(folder, tmp, folder, name)
    except BaseException:
        _unlink_quietly(folder, tmp)
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
            note = _restore(folder, name, late[0], held.mode, late[1], base=data)
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


# --------------------------------------------------------------------------- moving


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
            _rename(src, name, dst, dest_name)
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
        _link(dst, dest_name, src, name)
    except FileExistsError:
        moved = hold_file(dst, dest_name)
        if moved is None:
            return  # not a file: it stays where it is
        try:
            _restore(src, name, moved.data, moved.mode, moved.st.st_mtime_ns, base=b"")
        finally:
            moved.close()
    src.fsync()
    _unlink_quietly(dst, dest_name)  # the old name has every byte: this is a second name
    dst.fsync()


def _copy_across(src: Folder, name: str, dst: Folder, dest_name: str, held: Held,
                 expected: FileStat) -> None:
    """Cross-device move: copy the held bytes with mode and mtime, fsync, verify, and only
    then take the source's name away; bytes written to it by then are put back."""
    part = side_name(dest_name, "", PARTIAL_SUFFIX)
    fd = os.open(dst.at(part), PART_FILE_FLAGS, 0o600, dir_fd=dst.dir_fd)
    try:
        try:
            _fill(fd, held.data, held.mode, held.st.st_mtime_ns, dst, part)
            if read_all(fd) != held.data:
                raise OSError(errno.EIO, "copy did not match its source", str(src.path / name))
        finally:
            os.close(fd)
        _link(dst, part, dst, dest_name)
    finally:
        _unlink_quietly(dst, part)
    dst.fsync()
    changed = f"{expected.rel}: changed while being moved; left in place"
    try:
        if no_writer(held.fd) is False:
            raise FileChanged(f"{expected.rel}: open for writing in another program; left alone")
        src.verify()
        if not held.still_at(src, name) or held.late() is not None:
            raise FileChanged(changed)
        # Away under a temp name first: what is unlinked is then surely the held file.
        aside = side_name(name, _tag(), TEMP_SUFFIX)
        _rename(src, name, src, aside)
    except BaseException:
        _unlink_quietly(dst, dest_name)  # our copy: the source is still in place
        dst.fsync()
        raise
    if not held.still_at(src, aside):  # something renamed onto the name just before: back
        _unlink_quietly(dst, dest_name)  # the copy of a file no longer at the name
        try:
            _link(src, aside, src, name)
        except FileExistsError:
            other = hold_file(src, aside)
            if other is None:
                raise FileChanged(f"{changed} (replaced meanwhile, kept as {aside})") from None
            try:
                _restore(src, name, other.data, other.mode, other.st.st_mtime_ns, base=b"")
            finally:
                other.close()
        _unlink_quietly(src, aside)
        src.fsync()
        raise FileChanged(changed)
    _unlink_quietly(src, aside)
    src.fsync()
    settle(held)
    late = held.late()
    if late is None:
        return
    _restore(src, name, late[0], held.mode, late[1], base=b"")
    _unlink_quietly(dst, dest_name)  # the copy: the source is live again with every byte
    dst.fsync()
    raise FileChanged(f"{expected.rel}: changed while being moved; put back")
