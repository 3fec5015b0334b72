"""Run history: one JSON line per root per run, appended to the root's state folder."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from consolidator import statedir
from consolidator.store.model import INDEX_NAME

INDEX_KEY = INDEX_NAME.casefold()


def counts(report: Any) -> dict[str, int]:
    """What a RootReport did (in a dry run: would do), as numbers."""
    plan = report.plan
    done = [a for a in plan.done() if a.file.casefold() != INDEX_KEY]
    ops = Counter(a.op for a in done)
    index = plan.index
    return {
        "memories": len(plan.memories),
        "duplicates": len(plan.duplicates),
        "conflicts": len(plan.conflicts),
        "stale": len(plan.stale),
        "merges": ops["merge"],
        "archives": ops["archive"] + sum(len(a.sources) - 1 for a in done if a.op == "merge"),
        "rewrites": ops["rewrite"],
        "creates": ops["create"],
        "proposed": plan.proposal.actions if plan.proposal else 0,
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
    line = json.dumps(entry, ensure_ascii=False) + "\n"
    statedir.append(statedir.history(state), line.encode("utf-8"), durable=durable)


def read_all(state_dir: Path) -> list[dict[str, Any]]:
    """Every root's history, oldest first."""
    entries = list(_entries(state_dir))
    return sorted(entries, key=lambda e: (e.get("started_at", ""), e.get("run_id", "")))


def last_for(root_state: Path) -> dict[str, Any] | None:
    """The newest history entry of one root, reading only the file's tail."""
    path = statedir.history(root_state)
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
    for folder in statedir.root_folders(state_dir):
        try:
            with open(statedir.history(folder), encoding="utf-8") as fh:
                yield from _parsed(fh)
        except OSError:
            continue
