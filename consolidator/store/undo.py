"""Undo: put a root back to its exact bytes (and mtimes) before a run.

Everything is checked before anything is changed. A file that changed since the run is a
conflict: undo refuses and lists them, unless forced; even then the current bytes are saved
in the run's folder (``displaced/``) before being replaced. Nothing is unlinked: a file the
run created is moved into ``undone/``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from consolidator.errors import ConsolidatorError
from consolidator.store.journal import Entry, ensure_private_dir, read_entries
from consolidator.store.model import FileStat
from consolidator.store.scan import ReadProblem, file_stat, read_regular
from consolidator.store.transaction import archive_path, backup_path
from consolidator.store.write import atomic_write, move_file, safe_path


class UndoRefused(ConsolidatorError):
    """Files changed since the run; ``files`` names them."""

    def __init__(self, files: list[str]) -> None:
        self.files = files
        super().__init__("changed since the run, not undone (use --force): " + ", ".join(files))


@dataclass
class UndoResult:
    restored: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


State = tuple[str, int] | None  # (sha256, mtime_ns) of a file, or None when absent


def _now(path: Path) -> State:
    if not os.path.lexists(path):
        return None
    try:
        data, st = read_regular(path, limit=1 << 40)
    except ReadProblem:
        return ("unreadable", 0)
    return file_stat("", data, st).sha256, st.st_mtime_ns


def _plan(root: Path, run_dir: Path, intents: list[Entry]) -> list[tuple[Entry, str]]:
    """Each step, newest first, with ``todo``, ``clean`` (nothing to undo) or ``conflict``.

    Steps are judged against a simulation of the files as undo goes back in time, so a file
    the run wrote twice is judged against what the later write left, not what is on disk.
    """
    virtual: dict[str, State] = {}
    out = []
    for entry in reversed(intents):
        path = safe_path(root, entry.file)
        current = virtual[entry.file] if entry.file in virtual else _now(path)
        before: State = (
            (entry.before["sha256"], entry.before["mtime_ns"]) if entry.before else None
        )
        sha = current[0] if current else None
        if entry.op == "write":
            if sha == entry.after_sha256 and current != before:
                state = "todo"
            else:
                state = "clean" if current == before or (before and sha == before[0]) else "conflict"
        elif entry.op == "create":
            state = "clean" if current is None else (
                "todo" if sha == entry.after_sha256 else "conflict")
        else:
            archived = os.path.lexists(archive_path(run_dir, entry.file))
            if current is None and archived:
                state = "todo"
            else:
                state = "clean" if not archived and sha == (before[0] if before else None) \
                    else "conflict"
        out.append((entry, state))
        virtual[entry.file] = before if state != "clean" or entry.op != "create" else current
    return out


def undo(root: Path, run_dir: Path, force: bool = False, keep_newer: bool = False) -> UndoResult:
    """Restore ``root`` to its bytes before the run journaled in ``run_dir``.

    ``force``: also restore files changed since (their current bytes are kept aside).
    ``keep_newer``: leave files changed since as they are (crash recovery: a live session
    wrote them after the interrupted run did).
    """
    _meta, intents, _done = read_entries(run_dir)
    states = _plan(root, run_dir, intents)
    result = UndoResult(conflicts=sorted({e.file for e, s in states if s == "conflict"}))
    if result.conflicts and not (force or keep_newer):
        raise UndoRefused(result.conflicts)
    for entry, state in states:
        if state == "clean" or (state == "conflict" and keep_newer):
            continue
        path = safe_path(root, entry.file)
        if state == "conflict" and os.path.lexists(path):
            _displace(path, run_dir / "displaced" / f"{entry.step}" / entry.file)
        if entry.op == "write":
            assert entry.before is not None
            data = backup_path(run_dir, entry.step, entry.file).read_bytes()
            atomic_write(path, data, mtime_ns=entry.before["mtime_ns"], mode=entry.before["mode"])
        elif entry.op == "create":
            if os.path.lexists(path):
                _displace(path, run_dir / "undone" / entry.file)
        else:
            assert entry.before is not None
            move_file(archive_path(run_dir, entry.file), path, FileStat(**entry.before))
        result.restored.append(entry.file)
    return result


def _displace(path: Path, dest: Path) -> None:
    ensure_private_dir(dest.parent)
    if os.path.lexists(dest):
        dest = dest.with_name(dest.name + f".{os.getpid()}")
    os.rename(path, dest)
