"""Moving a file between a memory root and a run's folder, for undo: taken out to a free name
in the run's folder, byte for byte (:func:`take_out`), and placed back at its name in the root
without ever replacing anything there (:func:`place_back`). A folder or a symbolic link is
never moved.
(Not :mod:`consolidator.state.runfolders`, which lists run folders and removes them.)
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from consolidator.errors import ConsolidatorError, FileChanged
from consolidator.state import statefiles
from consolidator.store.dirfd import RootDir, open_folder
from consolidator.store.model import FileStat
from consolidator.store.move import move_file
from consolidator.store.names import clip
from consolidator.store.recheck import check_unchanged
from consolidator.store.undo_plan import OTHER, Now, folder_of, in_root, saved

TRIES = 5  # a forced undo displaces a file a live session keeps recreating at most this often


class NotRegular(ConsolidatorError):
    """A path the undo must restore is now a folder, a symbolic link or something else that
    is never moved or overwritten, not even by ``--force``. Nothing was changed."""

    def __init__(self, files: list[str]) -> None:
        self.files = files
        super().__init__("not a regular file now (a folder or link is never moved), "
                         "not undone: " + ", ".join(files))


def free_name(dest: Path) -> Path:
    """``dest``, or a name beside it that is free (``.<pid>``, ``.<pid>-N``), within the
    file system's 255 bytes."""
    if not os.path.lexists(dest):
        return dest
    n = 0
    while True:
        suffix = f".{os.getpid()}" + (f"-{n}" if n else "")
        candidate = dest.with_name(clip(dest.name, suffix))
        if not os.path.lexists(candidate):
            return candidate
        n += 1


def same_file(a: FileStat, b: FileStat) -> bool:
    """Whether two records name the same bytes at the same mtime."""
    return (a.size, a.mtime_ns, a.sha256) == (b.size, b.mtime_ns, b.sha256)


def take_out(rd: RootDir, rel: str, dest: Path, expected: FileStat | None = None) -> \
        tuple[Path, FileStat] | None:
    """Move the root's regular file ``rel`` to a free name at ``dest`` (in the run's
    folder), byte for byte.

    ``expected``: move it only if it is still exactly that, else :class:`FileChanged` (it
    stays, or is put back with anything written to it meanwhile). Without: move what is
    there now (a file a session keeps writing is tried again); None if nothing is. A folder
    or link is never moved (:class:`NotRegular`).
    """
    path = rd.path / rel
    for _ in range(TRIES):
        now: Now = expected
        if expected is None:
            now = in_root(rd, rel)
            if now is None:
                return None
            if now == OTHER:
                raise NotRegular([rel])
        assert isinstance(now, FileStat)
        statefiles.private_dir(dest.parent)
        target = free_name(dest)
        try:
            move_file(path, target, now, source_root=rd)
        except FileChanged:
            if expected is not None:
                raise
            continue  # written meanwhile (and put back): take what is there now
        return target, now
    raise FileChanged(f"{rel}: kept changing while being moved aside")


_NO_LINKS = (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP)


def place_back(rd: RootDir, source: Path, rel: str, expected: FileStat | None = None) -> None:
    """Move ``source`` (in the run's folder) to ``rel`` in the root without ever replacing
    anything there: :class:`FileExistsError` if the name is taken, even a moment ago (the
    new name is made with link(), which never replaces). ``expected``: ``source`` must
    still be exactly that."""
    if expected is not None:
        check_unchanged(source, expected)
    with open_folder(source.parent) as src:
        dst, name = folder_of(rd, rel, create=True)
        with dst:
            src.verify()
            dst.verify()
            try:
                if _LINK_NOFOLLOW:
                    os.link(src.at(source.name), dst.at(name), src_dir_fd=src.dir_fd,
                            dst_dir_fd=dst.dir_fd, follow_symlinks=False)
                else:
                    os.link(src.at(source.name), dst.at(name), src_dir_fd=src.dir_fd,
                            dst_dir_fd=dst.dir_fd)
            except FileExistsError:
                raise FileExistsError(errno.EEXIST, "a file is in the way",
                                      str(rd.path / rel)) from None
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
                found = expected or saved(source, rel)
                if not isinstance(found, FileStat):
                    raise
                # No second name possible (another file system): move_file's own checks.
                move_file(source, rd.path / rel, found, dest_root=rd)
                return
            dst.fsync()
            # The file lives on at ``rel``: this drops only the run folder's second name.
            os.unlink(src.at(source.name), dir_fd=src.dir_fd)
            src.fsync()


_LINK_NOFOLLOW = os.link in os.supports_follow_symlinks
