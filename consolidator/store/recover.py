"""Crash recovery: a run killed mid-way is rolled back before the next run does anything.

A run's journal ends with a ``closed`` record; one without it was interrupted (SIGKILL, power
loss). Its finished steps are undone to the exact bytes (a file a live session wrote since
is left as that session left it), its temp files are cleared from the root, and its journal
is closed as ``rolled back``. Every step is atomic, so no file is ever half-written.

Recovery trusts nothing it reads: every interrupted journal is read and checked, and every
backup compared with the hash its journal recorded, before anything is changed. A damaged
journal or a backup that does not match fails the root with one line
(:class:`~consolidator.store.journal.JournalDamaged`,
:class:`~consolidator.store.undo.BackupDamaged`) and writes nothing. It runs under the lock
the run already holds.
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from consolidator.errors import UnsafePath
from consolidator.state import statedir
from consolidator.store.journal import Journal, RunJournal, is_closed, load
from consolidator.store.names import TAG_LEN, is_side_name_of, side_name
from consolidator.store.recheck import safe_path
from consolidator.store.sidefiles import TEMP_SUFFIX
from consolidator.store.undo import BackupDamaged, UndoResult, undo
from consolidator.store.undo_plan import check_copies

_TAG_AND_SUFFIX = TAG_LEN + len(TEMP_SUFFIX)  # what follows the prefix of a temp file


def interrupted_runs(state: Path) -> list[Path]:
    """Run folders of this root whose journal never closed, oldest first."""
    folders = [statedir.run_dir(state, name) for name in statedir.run_ids(state)]
    folders = [p for p in folders if statedir.journal(p).is_file()]
    return [p for p in folders if not is_closed(p)]


def temp_prefix(name: str) -> str:
    """What every temp file a write of ``name`` makes beside it starts with: ``.<name>.``,
    cut as :func:`~consolidator.store.names.side_name` cuts it to fit in 255 bytes."""
    return side_name(name, "x" * TAG_LEN, TEMP_SUFFIX)[:-_TAG_AND_SUFFIX]


def clear_files(root: Path, files: Iterable[str]) -> list[str]:
    """Remove the temp files writes of ``files`` (paths relative to ``root``) left behind.

    Only ``.<name>.<8 random characters>.tmp`` beside a journaled file is the tool's own; a
    user's file that merely looks like one is never touched. Each folder is listed once
    (a root of thousands of files is not listed once per file).
    """
    prefixes: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for rel in files:
        folder, _, name = rel.rpartition("/")
        prefixes[folder][temp_prefix(name)].add(name)
    removed = []
    for folder, wanted in sorted(prefixes.items()):
        try:
            where = safe_path(root, folder) if folder else root
            if where.is_symlink():
                continue  # never list (or unlink in) a folder outside the root
            entries = list(os.scandir(where))
        except (OSError, UnsafePath):
            continue
        for entry in entries:
            name = entry.name
            beside = wanted.get(name[:-_TAG_AND_SUFFIX]) if len(name) > _TAG_AND_SUFFIX else None
            if not beside or not any(is_side_name_of(name, of, TEMP_SUFFIX) for of in beside):
                continue
            try:
                if not stat_mod.S_ISREG(os.lstat(entry.path).st_mode):
                    continue
                os.unlink(entry.path)
            except FileNotFoundError:
                continue
            removed.append(f"{folder}/{name}" if folder else name)
    return sorted(removed)


def recover(root: Path, state: Path) -> list[str]:
    """Roll back every interrupted run of ``root``; return what was done, for the report.

    Raises (changing nothing) when a journal is damaged or a run's backups do not match it.
    """
    runs = interrupted_runs(state)
    if not runs:
        return []
    journals: list[tuple[Path, RunJournal]] = [(run_dir, load(run_dir)) for run_dir in runs]
    checked = []
    for run_dir, journal in journals:
        # The copies of every step that happened must be right before any rollback starts
        # (undo checks the rest, and each run's rollback is all or nothing).
        copies = check_copies(run_dir, journal)
        done = sorted(step for step in copies.bad if step in journal.done)
        if done:
            raise BackupDamaged(run_dir, [copies.bad[step] for step in done])
        checked.append((run_dir, journal, copies))
    notes = []
    for run_dir, journal, copies in reversed(checked):  # the newest first: undo goes back
        result: UndoResult = undo(root, run_dir, keep_newer=True, journal=journal,
                                  copies=copies)
        Journal(run_dir).close("rolled back")
        kept = f"; kept newer bytes of {', '.join(result.conflicts)}" if result.conflicts else ""
        notes.append((run_dir.name, f"interrupted run {run_dir.name} rolled back: "
                      f"{len(result.restored)} file(s) restored{kept}"))
    cleared = clear_files(root, {e.file for _dir, journal in journals for e in journal.intents})
    out = [note for _name, note in sorted(notes)]
    if cleared:
        out.append(f"removed leftover temp files: {', '.join(cleared)}")
    return out
