"""Crash recovery: a run killed mid-way is rolled back before the next run does anything.

A run's journal ends with a ``closed`` record; one without it was interrupted (SIGKILL, power
loss). Its finished steps are undone to the exact bytes (a file a live session wrote since
is left as that session left it), its temp files are cleared from the root, and its journal
is closed as ``rolled back``. Every step is atomic, so no file is ever half-written.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from consolidator.store.journal import JOURNAL, Journal, is_closed
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


def clear_temp_files(root: Path) -> list[str]:
    """Remove the tool's own leftover temp files (``.<name>.<random>.tmp``) under ``root``."""
    removed = []
    for dirpath, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = Path(dirpath) / name
            if _TEMP.match(name) and path.is_file() and not path.is_symlink():
                path.unlink()
                removed.append(str(path.relative_to(root)))
    return removed


def recover(root: Path, state: Path) -> list[str]:
    """Roll back every interrupted run of ``root``; return what was done, for the report."""
    notes = []
    for run_dir in interrupted_runs(state):
        result: UndoResult = undo(root, run_dir, keep_newer=True)
        Journal(run_dir).close("rolled back")
        kept = f"; kept newer bytes of {', '.join(result.conflicts)}" if result.conflicts else ""
        notes.append(f"interrupted run {run_dir.name} rolled back: "
                     f"{len(result.restored)} file(s) restored{kept}")
    cleared = clear_temp_files(root)
    if cleared:
        notes.append(f"removed leftover temp files: {', '.join(cleared)}")
    return notes
