"""Run history: one JSON line per root per run, appended to the root's state folder."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from consolidator.store.journal import ensure_private_dir

HISTORY = "history.jsonl"


def counts(report: Any) -> dict[str, int]:
    """What a RootReport did (or would do), as numbers."""
    plan = report.plan
    ops = Counter(a.op for a in plan.actions)
    index = plan.index
    return {
        "memories": len(plan.memories),
        "duplicates": len(plan.duplicates),
        "conflicts": len(plan.conflicts),
        "stale": len(plan.stale),
        "merges": ops["merge"],
        "archives": ops["archive"] + sum(len(a.sources) - 1 for a in plan.actions if a.op == "merge"),
        "rewrites": ops["rewrite"],
        "creates": ops["create"],
        "index_added": len(index.added) if index else 0,
        "index_removed": len(index.removed) if index else 0,
        "skipped": len(report.skipped),
        "llm_calls": report.llm.calls,
        "llm_input_tokens": report.llm.input_tokens,
        "llm_output_tokens": report.llm.output_tokens,
    }


def record(state: Path, entry: dict[str, Any], durable: bool = True) -> None:
    """Append one entry to the root's history (fsynced when ``durable``: a run that changed
    files; a closed gate's line is not worth a disk flush on the service's hot path)."""
    ensure_private_dir(state)
    line = json.dumps(entry, ensure_ascii=False) + "\n"
    fd = os.open(state / HISTORY, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def read_all(state_dir: Path) -> list[dict[str, Any]]:
    """Every root's history, oldest first."""
    entries = list(_entries(state_dir))
    return sorted(entries, key=lambda e: (e.get("started_at", ""), e.get("run_id", "")))


def last_for(root_state: Path) -> dict[str, Any] | None:
    """The newest history entry of one root, reading only the file's tail."""
    path = root_state / HISTORY
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 65536))
            tail = fh.read().splitlines()
    except OSError:
        return None
    return next(_parsed(reversed(tail)), None)


def _parsed(lines: Iterable[str | bytes]) -> Iterator[dict[str, Any]]:
    """The JSON objects among ``lines`` (a torn or foreign line is passed over)."""
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry


def _entries(state_dir: Path) -> Iterator[dict[str, Any]]:
    try:
        folders = sorted(p for p in state_dir.iterdir() if p.is_dir())
    except OSError:
        return
    for folder in folders:
        try:
            with open(folder / HISTORY, encoding="utf-8") as fh:
                yield from _parsed(fh)
        except OSError:
            continue
