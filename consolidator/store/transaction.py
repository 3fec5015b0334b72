"""Changing a root, one journaled step at a time: rewrite, create, archive.

Each step: re-check the file against the scan, save its bytes to the run's backup, journal
the intent, make the change atomically, journal it done. A file that changed since the scan
is skipped (a live session is writing it) and reported by the caller.
"""

from __future__ import annotations

import hashlib
import stat as stat_mod
from pathlib import Path
from types import TracebackType
from typing import Any

from consolidator.errors import FileChanged
from consolidator.state import statedir, statefiles
from consolidator.store.dirfd import Folder, RootDir, open_folder
from consolidator.store.journal import AfterRecord, Journal
from consolidator.store.model import FileStat
from consolidator.store.move import move_in
from consolidator.store.recheck import guarded, read_checked, rel_parts
from consolidator.store.write import atomic_write, check_new_name, write_in


class Transaction:
    """The store's writer for one run on one root.

    The root is opened once, when the transaction starts, and every step walks to its file
    from that descriptor without following a link; a root moved or replaced since (by a
    symbolic link, say) makes the step raise :class:`UnsafePath` before it changes
    anything. ``meta["started_ns"]``, when given, is when the run started: a root that
    became a link after that is refused. :meth:`close` (or ``with``) lets the root go; a
    transaction that is never closed lets it go when it is collected.
    """

    def __init__(self, root: Path, run_dir: Path, meta: dict[str, Any],
                 after_record: AfterRecord | None = None) -> None:
        self.root = root
        self.run_dir = run_dir
        started = meta.get("started_ns")
        self.dir = RootDir(root, since_ns=started if isinstance(started, int) else None)
        try:
            self.journal = Journal(run_dir, after_record)
            self.journal.open(meta)
        except BaseException:
            self.dir.close()
            raise

    def close(self) -> None:
        self.dir.close()

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _folder_of(self, rel: str) -> tuple[Folder, str]:
        """The open folder of the scanned file ``rel``, and its name in it."""
        parts = rel_parts(rel)
        self.dir.check()
        try:
            return self.dir.folder(parts[:-1]), parts[-1]
        except (FileNotFoundError, NotADirectoryError):
            raise FileChanged(f"{rel}: removed since the scan") from None

    def guarded(self, rel: str) -> None:
        """:class:`FileChanged` if the scanned file ``rel`` is one its owner guards (see
        :func:`consolidator.store.recheck.guarded`)."""
        folder, name = self._folder_of(rel)
        with folder:
            self._unguarded(folder, name, rel)

    @staticmethod
    def _unguarded(folder: Folder, name: str, rel: str) -> None:
        st = folder.lstat(name)
        why = guarded(st) if st is not None and stat_mod.S_ISREG(st.st_mode) else ""
        if why:
            raise FileChanged(f"{rel}: {why}; left alone")

    def rewrite(self, stat: FileStat, data: bytes, mtime_ns: int, reason: str) -> None:
        """Replace a scanned file's bytes; raises FileChanged if it moved on meanwhile or its
        owner guards it."""
        folder, name = self._folder_of(stat.rel)
        with folder:
            self._unguarded(folder, name, stat.rel)
            original = read_checked(folder, name, stat)
            step = self.journal.next_step()
            dest = statedir.backup(self.run_dir, step, stat.rel)
            statefiles.private_dir(dest.parent)
            atomic_write(dest, original, mode=0o600)
            self.journal.intent(step, "write", stat.rel, stat, _sha(data), reason, mtime_ns)
            write_in(folder, name, data, mtime_ns=mtime_ns, mode=stat.mode, expected=stat)
            self.journal.done(step, "write", stat.rel)

    def create(self, rel: str, data: bytes, mtime_ns: int, reason: str,
               mode: int | None = None) -> None:
        """Create a new file; never overwrites one, nor takes a name an existing entry of its
        folder has on a case-insensitive or normalising file system (``MEMORY.md`` beside
        ``memory.md``): :class:`FileExistsError`, before anything is journaled or written.

        ``mode``: the root's own (see :func:`root_mode`); a private root stays private.
        """
        parts = rel_parts(rel)
        self.dir.check()
        check_new_name(self.root, rel, at=self.dir)
        with self.dir.folder(parts[:-1], create=True) as folder:
            step = self.journal.next_step()
            self.journal.intent(step, "create", rel, None, _sha(data), reason)
            write_in(folder, parts[-1], data, mtime_ns=mtime_ns, exclusive=True, mode=mode)
            self.journal.done(step, "create", rel)

    def archive(self, stat: FileStat, reason: str) -> None:
        """Move a scanned file, byte for byte, into this run's archive (not one its owner
        guards)."""
        folder, name = self._folder_of(stat.rel)
        with folder:
            self._unguarded(folder, name, stat.rel)
            step = self.journal.next_step()
            self.journal.intent(step, "archive", stat.rel, stat, stat.sha256, reason)
            dest = statedir.archived(self.run_dir, stat.rel)
            statefiles.private_dir(dest.parent)
            with open_folder(dest.parent) as into:
                move_in(folder, name, into, dest.name, stat)
            self.journal.done(step, "archive", stat.rel)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def root_mode(modes: list[int]) -> int | None:
    """The mode a new file in a root should get: the one most of its files have."""
    if not modes:
        return None
    return max(set(modes), key=lambda m: (modes.count(m), -m))
