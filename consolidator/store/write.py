"""The only code that changes files: atomic writes, re-checks and archive moves.

Nothing here unlinks a memory. A rewrite goes to a temp file beside the target (never named
``*.md``, so Claude Code never reads it), is fsynced, takes the old file's mode and the
planned mtime, and replaces the target by rename. Before any change the file on disk is
compared with what the scan saw; a file a live session touched meanwhile is left alone. A new
file never takes a name that an existing one already has on a case-insensitive or
normalising file system (``MEMORY.md`` beside ``memory.md``).
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from pathlib import Path

from consolidator.errors import FileChanged, UnsafePath
from consolidator.store.model import FileStat
from consolidator.store.names import MAX_NAME_BYTES, clip, collides, too_long
from consolidator.store.scan import ReadProblem, file_stat, read_regular

DEFAULT_MODE = 0o644


def safe_path(root: Path, rel: str) -> Path:
    """``root / rel``, refusing anything that leaves the root or passes through a symlink."""
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or any(p in ("..", "") for p in parts):
        raise UnsafePath(f"{rel!r} is not a path inside the root")
    current = root
    for part in parts[:-1]:
        current = current / part
        if current.is_symlink():
            raise UnsafePath(f"{rel!r} passes through a symbolic link")
    return root / rel


def check_new_name(root: Path, rel: str) -> None:
    """Refuse to create ``root / rel`` where a file system that ignores case or Unicode
    normalisation already has it: each component of ``rel`` is compared, folded, with the
    entries of its folder (one listing per component; a missing folder ends the check).

    A folder on the way may exist under exactly its name; the file itself may not exist at
    all. Raises :class:`FileExistsError` naming the existing entry, or :class:`OSError`
    (``ENAMETOOLONG``) for a component over 255 bytes.
    """
    long_part = too_long(rel)
    if long_part is not None:
        raise OSError(errno.ENAMETOOLONG,
                      f"{rel} not created: a name is over {MAX_NAME_BYTES} bytes ({long_part!r})")
    parts = Path(rel).parts
    folder, done = root, ""
    for i, part in enumerate(parts):
        try:
            names = os.listdir(folder)
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
        folder, done = folder / part, done + part + "/"


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def current_stat(path: Path, rel: str) -> FileStat | None:
    """The file as it is now, or ``None`` if it is gone or unreadable."""
    try:
        data, st = read_regular(path)
    except ReadProblem:
        return None
    return file_stat(rel, data, st)


def check_unchanged(path: Path, expected: FileStat) -> None:
    """Raise :class:`FileChanged` unless the file still has the scanned bytes and mtime."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise FileChanged(f"{expected.rel}: removed since the scan") from None
    if st.st_size != expected.size or st.st_mtime_ns != expected.mtime_ns:
        raise FileChanged(f"{expected.rel}: changed on disk since the scan")
    now = current_stat(path, expected.rel)
    if now is None or now.sha256 != expected.sha256:
        raise FileChanged(f"{expected.rel}: changed on disk since the scan")


def atomic_write(
    path: Path,
    data: bytes,
    *,
    mtime_ns: int | None = None,
    mode: int | None = None,
    expected: FileStat | None = None,
    exclusive: bool = False,
) -> None:
    """Replace (or create) ``path`` with ``data`` atomically.

    ``expected``: the file as scanned; it is re-checked right before the rename.
    ``exclusive``: the file must not exist (a new memory never overwrites one).
    ``mode``: defaults to the existing file's mode, else 0644. ``mtime_ns`` is set exactly.
    Raises :class:`FileChanged` or :class:`OSError`; on failure no temp file is left.
    """
    folder = path.parent
    if mode is None:
        try:
            mode = os.lstat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = DEFAULT_MODE
    # mkstemp adds 8 characters and the suffix: a name near the limit still gets a temp file.
    prefix = clip(f".{path.name}", ".", MAX_NAME_BYTES - 8 - len(".tmp"))
    fd, tmp_name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if mtime_ns is not None:
            os.utime(tmp, ns=(mtime_ns, mtime_ns))
        if expected is not None:
            check_unchanged(path, expected)
        if exclusive:
            # link() fails if the target exists: no window in which a new file could be lost.
            os.link(tmp, path)
            tmp.unlink()
        else:
            os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(folder)


def move_file(source: Path, dest: Path, expected: FileStat) -> None:
    """Move ``source`` to ``dest`` byte for byte, keeping its mtime; ``dest`` must not exist.

    Re-checks the source first and the moved bytes after; if they differ the file is moved
    back and :class:`FileChanged` raised.
    """
    check_unchanged(source, expected)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(dest):
        raise FileExistsError(errno.EEXIST, "archive target exists", str(dest))
    try:
        os.rename(source, dest)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        _copy_then_remove(source, dest)
    moved = current_stat(dest, expected.rel)
    if moved is None or moved.sha256 != expected.sha256:
        os.rename(dest, source)
        raise FileChanged(f"{expected.rel}: changed while being moved; put back")
    _fsync_dir(dest.parent)
    _fsync_dir(source.parent)


def _copy_then_remove(source: Path, dest: Path) -> None:
    """Cross-device move: copy with metadata, fsync, verify, only then remove the source."""
    tmp = dest.with_name(f".{dest.name}.partial")
    shutil.copy2(source, tmp, follow_symlinks=False)
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    if Path(tmp).read_bytes() != source.read_bytes():
        tmp.unlink()
        raise OSError(errno.EIO, "copy did not match its source", str(source))
    os.rename(tmp, dest)
    source.unlink()
