"""Crash recovery: a run killed mid-way is rolled back before the next run does anything.

A run's journal ends with a ``closed`` record; one without it was interrupted (SIGKILL, power
loss). Its finished steps are undone to the exact bytes (a file a live session wrote since
is left as that session left it), its temp files are cleared from the root, and its journal
is closed as ``rolled back``. Every step is atomic, so no file is ever half-written.
"""

from __future__ import annotations

import re
from pathlib import Path

from consolidator.store.journal import JOURNAL, Journal, is_closed, read_entries
from consolidator.store.undo import UndoResult, undo

_TEMP = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")


def interrupted_runs(state: Path) -> list[Path]:
    """Run folders of this root whose journal never closed, oldest first."""
    runs = state / "runs"
    try:
        folders = sorted(p for p in runs.iterdir() if (p / JOURNAL).is_file())
    except OSError:
        return []
    return [p for p in folders if not is_closed(p)]


def clear_temp_files(root: Path, run_dirs: list[Path]) -> list[str]:
    """Remove the temp files an interrupted run left beside the files it was writing.

    Only ``.<name>.<8 random characters>.tmp`` beside a file that run journaled is the
    tool's own; a user's file that merely looks like one is never touched.
    """
    removed = []
    for run_dir in run_dirs:
        _meta, intents, _done = read_entries(run_dir)
        for rel in {entry.file for entry in intents}:
            target = root / rel
            try:
                siblings = list(target.parent.iterdir())
            except OSError:
                continue
            for path in siblings:
                name = path.name
                if (name.startswith(f".{target.name}.") and _TEMP.match(name)
                        and len(name) == len(target.name) + 14
                        and path.is_file() and not path.is_symlink()):
                    path.unlink()
                    removed.append(str(path.relative_to(root)))
    return sorted(set(removed))


def recover(root: Path, state: Path) -> list[str]:
    """Roll back every interrupted run of ``root``; return what was done, for the report."""
    notes = []
    runs = interrupted_runs(state)
    cleared = clear_temp_files(root, runs)
    for run_dir in runs:
        result: UndoResult = undo(root, run_dir, keep_newer=True)
        Journal(run_dir).close("rolled back")
        kept = f"; kept newer bytes of {', '.join(result.conflicts)}" if result.conflicts else ""
        notes.append(f"interrupted run {run_dir.name} rolled back: "
                     f"{len(result.restored)} file(s) restored{kept}")
    if cleared:
        notes.append(f"removed leftover temp files: {', '.join(cleared)}")
    return notes
