"""The run journal: every change written down (and fsynced) before it is made.

A run's folder in the state dir holds ``journal.jsonl`` (one JSON object per step: an
``intent`` line before the change, a ``done`` line after), ``backup/`` (the exact bytes of
every file before it was rewritten) and ``archive/`` (files moved out of the root). Undo
reads the journal backwards and puts every byte back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from consolidator.store.model import FileStat

JOURNAL = "journal.jsonl"


@dataclass(frozen=True)
class Entry:
    step: int
    phase: str  # "intent" or "done"
    op: str  # "write" (rewrite a file), "create" (new file), "archive" (move out)
    file: str
    before: dict[str, Any] | None  # FileStat of the file before, None for a new file
    after_sha256: str | None = None
    reason: str = ""
    after_mtime_ns: int | None = None


def stat_dict(stat: FileStat | None) -> dict[str, Any] | None:
    return asdict(stat) if stat else None


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` (and any missing parents) as 0700: archives hold users' memories."""
    missing = []
    parent = path
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
        try:
            os.chmod(folder, 0o700)
        except OSError:
            pass
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass


class Journal:
    """Append-only, fsynced journal of one run on one root."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.path = run_dir / JOURNAL
        self._step = 0

    def open(self, meta: dict[str, Any]) -> None:
        ensure_private_dir(self.run_dir)
        self._append({"meta": meta})

    def next_step(self) -> int:
        self._step += 1
        return self._step

    def intent(self, step: int, op: str, file: str, before: FileStat | None,
               after_sha: str | None, reason: str, after_mtime_ns: int | None = None) -> None:
        self._append(asdict(Entry(step, "intent", op, file, stat_dict(before), after_sha,
                                  reason, after_mtime_ns)))

    def done(self, step: int, op: str, file: str) -> None:
        self._append({"step": step, "phase": "done", "op": op, "file": file})

    def mark_undone(self, when: str) -> None:
        self._append({"undone": when})

    def close(self, outcome: str) -> None:
        """Mark the run finished (``ok``, ``failed`` or ``rolled back``): not interrupted."""
        self._append({"closed": outcome})

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        _fault_point()


def _fault_point() -> None:
    """Fault injection for tests: ``CONSOLIDATOR_FAULT_AFTER_STEP=N`` makes the process exit
    hard (as if SIGKILLed) right after the N-th journal record of a run is on disk."""
    limit = os.environ.get("CONSOLIDATOR_FAULT_AFTER_STEP")
    if not limit:
        return
    _COUNT[0] += 1
    if _COUNT[0] >= int(limit):
        os._exit(137)


_COUNT = [0]


def is_undone(run_dir: Path) -> bool:
    """True once ``consolidator undo`` restored this run."""
    return any("undone" in record for record in _records(run_dir / JOURNAL))


def is_closed(run_dir: Path) -> bool:
    """True when the run's journal says it finished (an interrupted run never says so)."""
    return any("closed" in record for record in _records(run_dir / JOURNAL))


def read_entries(run_dir: Path) -> tuple[dict[str, Any], list[Entry], set[int]]:
    """(meta, intents in order, steps marked done) of a run's journal."""
    meta: dict[str, Any] = {}
    intents: list[Entry] = []
    done: set[int] = set()
    for record in _records(run_dir / JOURNAL):
        if "closed" in record or "undone" in record:
            continue
        if "meta" in record:
            meta = record["meta"]
        elif record.get("phase") == "intent":
            intents.append(Entry(**record))
        elif record.get("phase") == "done":
            done.add(int(record["step"]))
    return meta, intents, done


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a torn last line from a crash: the step never happened
            if isinstance(record, dict):
                yield record
