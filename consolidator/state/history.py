"""Run history: one line per pass, in the order passes started.

History is one JSON line per pass, appended to the root's ``history.jsonl``. A line carries
``started_ns`` (the run's start, exact): lines are ordered by it, so runs started within
the same second come out in the order they started; an older line without it falls back to
``started_at`` and then to the order lines were written in. A pass that a gate closed is
written only when another gate closed it than the root's last line says: a service ticking
on a shut gate adds one line, not one per tick (``status`` evaluates the gates itself).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from consolidator.clock import DURATION_FORMS, duration, epoch_ns
from consolidator.errors import UsageError

if TYPE_CHECKING:
    from consolidator.plan import Plan
    from consolidator.report.outcome import RootReport
from consolidator.state import runfolders, statedir, statefiles
from consolidator.store.model import INDEX_NAME

log = structlog.get_logger("consolidator.state.history")

INDEX_KEY = INDEX_NAME.casefold()
TAIL_BYTES = 65536  # what is read of a history file's end to find its last lines


def changes(plan: Plan, kept: Sequence[str] = ()) -> dict[str, int]:
    """The files a pass changed (in a dry run: would change), by kind of change: the index's
    own rebuild is not one; a memory folded into a survivor is an archive (and merged away),
    unless it changed on disk meanwhile and stayed live (``kept``)."""
    done = [a for a in plan.done() if a.file.casefold() != INDEX_KEY]
    ops = Counter(a.op for a in done)
    folded = sum(len(a.sources) - 1 for a in done if a.op == "merge") - len(kept)
    return {"merges": ops["merge"], "archives": ops["archive"] + folded, "merged_away": folded,
            "rewrites": ops["rewrite"], "creates": ops["create"]}


def counts(report: RootReport) -> dict[str, int]:
    """What a RootReport did (in a dry run: would do), as numbers."""
    plan = report.plan
    changed = changes(plan, report.kept)
    # The pointers the index gained or lost, where its rebuild was made (not only listed, as
    # under apply = "none", nor left for review).
    index_done = any(a.file.casefold() == INDEX_KEY for a in plan.done())
    index = plan.index if index_done else None
    return {
        "memories": len(plan.memories),
        "duplicates": len(plan.duplicates),
        "conflicts": len(plan.conflicts),
        "stale": len(plan.stale),
        **changed,
        "proposed": plan.proposal.actions if plan.proposal else 0,
        "index_added": len(index.added) if index else 0,
        "index_removed": len(index.removed) if index else 0,
        "index_rebuilt": int(index_done),
        # Still over Claude Code's limits after the pass: its own memory writes fail.
        "index_over": int(bool(plan.index and not plan.index.within_limits)),
        # Within them but with no room for one more pointer: Claude Code's next write fails.
        "index_full": int(bool(plan.index and plan.index.full)),
        "index_dropped": len(plan.index.dropped) if plan.index else 0,
        "skipped": len(report.skipped),
        "held": held(plan, len(report.skipped)),
        "llm_calls": report.llm.calls,
        "llm_input_tokens": report.llm.input_tokens,
        "llm_output_tokens": report.llm.output_tokens,
    }


def held(plan: Plan, skipped: int) -> int:
    """The plan's actions neither applied nor proposed, past those a step left alone as it
    ran (each of those says why on its own): what waits for a person to mend something first
    (an index that cannot be read)."""
    done = plan.applied + (False,) * (len(plan.actions) - len(plan.applied))
    waiting = set(plan.proposal.at) if plan.proposal is not None else set()
    left = sum(1 for i, ok in enumerate(done) if not ok and i not in waiting)
    return max(0, left - skipped)


# ----------------------------------------------------------------------------- time and order


def entry_ns(entry: dict[str, Any]) -> int | None:
    """When the pass of ``entry`` started, in nanoseconds since the epoch: ``started_ns``,
    else ``started_at`` (to the second), else the time in its run id; ``None`` if none says."""
    exact = entry.get("started_ns")
    if isinstance(exact, int) and not isinstance(exact, bool):
        return exact
    text = entry.get("started_at")
    if isinstance(text, str):
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
            return epoch_ns(aware)
    run_id = entry.get("run_id")
    return runfolders.run_id_ns(run_id) if isinstance(run_id, str) else None



def in_order(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` oldest first by :func:`entry_ns`; entries of the same time keep the order
    they come in (a root's file: the order they were written in)."""
    return sorted(entries, key=lambda e: entry_ns(e) or 0)


def since_ns(text: str, now: datetime) -> int:
    """The moment ``--since`` names: a date (``2026-11-01``, its midnight UTC), a time
    (``2026-11-01T10:00:00Z``; UTC, as history shows times) or a duration back from
    ``now`` (:func:`consolidator.clock.duration`: ``30``, ``7d``, ``12h``, ``2w``, ``30m``).
    A date written without its dashes (``20261101``) is that date, not twenty million days.
    Raises :class:`UsageError` for anything else."""
    try:
        if not (len(text) == 8 and text.isdigit()):
            return epoch_ns(now) - duration(text).ns
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--since {text}: not a date (2026-11-01), a time "
                         f"(2026-11-01T10:00:00Z) or a duration: {DURATION_FORMS}") from None
    return epoch_ns(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


# ----------------------------------------------------------------------------- writing


def entry(*, run_id: str, memory_dir: str | None, started: datetime, trigger: str,
          status: str, counts: dict[str, int], kind: str | None = None, dry_run: bool = False,
          **more: Any) -> dict[str, Any]:
    """One history line, the one way every pass, apply, undo and prune builds it: the fields
    ``history --json`` promises first, then what the kind of pass adds (``more``)."""
    return {
        "run_id": run_id, "memory_dir": memory_dir, "kind": kind,
        "started_at": started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "started_ns": epoch_ns(started),  # orders passes started within the same second
        "trigger": trigger, "status": status, "dry_run": dry_run, "counts": counts, **more,
    }


def record(state: Path, entry: dict[str, Any], durable: bool = True) -> None:
    """Append one entry to the root's history (fsynced when ``durable``: a run that changed
    files; a closed gate's line is not worth a disk flush on the service's hot path). The
    append holds the file's lock, so it never lands inside a retention rewrite."""
    line = json.dumps(entry, ensure_ascii=False) + "\n"
    statefiles.append_locked(statedir.history(state), line.encode("utf-8"), durable=durable)


def closed_by(entry: dict[str, Any]) -> str | None:
    """The id of the gate that closed ``entry``'s pass (the first that failed), or ``None``."""
    for gate in entry.get("gates") or ():
        if isinstance(gate, dict) and gate.get("passed") is False:
            found = gate.get("id")
            return found if isinstance(found, str) else None
    return None


# ----------------------------------------------------------------------------- reading


def read_all(state_dir: Path) -> list[dict[str, Any]]:
    """Every root's history, oldest first (see :func:`in_order`)."""
    return in_order(_entries(state_dir))


def last_for(root_state: Path) -> dict[str, Any] | None:
    """The newest history entry of one root (by start), reading only the file's tail."""
    newest: dict[str, Any] | None = None
    for entry in _tail(root_state):
        if newest is None or (entry_ns(entry) or 0) >= (entry_ns(newest) or 0):
            newest = entry
    return newest


def last_recorded(root_state: Path) -> dict[str, Any] | None:
    """The last line written to one root's history, reading only the file's tail."""
    tail = _tail(root_state)
    return tail[-1] if tail else None


def _tail(root_state: Path) -> list[dict[str, Any]]:
    """The entries in the last :data:`TAIL_BYTES` of one root's history, in file order."""
    path = statedir.history(root_state)
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            tail = fh.read().splitlines()
    except OSError:
        return []
    return list(parsed(tail))


def parsed(lines: Iterable[str | bytes]) -> Iterator[dict[str, Any]]:
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
        yield from of_root(folder)


def of_root(root_state: Path) -> Iterator[dict[str, Any]]:
    """One root's history, in the order its lines were written (none when it has none)."""
    try:
        with open(statedir.history(root_state), encoding="utf-8", errors="replace") as fh:
            yield from parsed(fh)
    except OSError:
        return


def memory_dir_of(state: Path) -> str | None:
    """The memory dir a root's state folder is kept for, as its history or its newest
    journal names it (only a name whose key is the folder's counts); ``None`` if unknown."""
    names: list[object] = [e.get("memory_dir") for e in reversed(_tail(state))]
    runs = statedir.run_ids(state)
    if runs:
        names.append(runfolders.run_meta(statedir.run_dir(state, runs[-1])).get("memory_dir"))
    for name in names:
        if isinstance(name, str) and os.path.isabs(name) \
                and statedir.kept_for(state, name):
            return name
    return None
