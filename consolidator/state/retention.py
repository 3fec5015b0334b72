"""What keeps a root's state folder from only growing: retention after each real pass, and
the run folders ``consolidator prune`` may remove.

Retention (``[state] keep_days``, ``keep_runs``), after each real pass on a root: history
lines older than ``keep_days`` go, and so do run folders older than ``keep_days`` or beyond
the newest ``keep_runs``, when they hold only the tool's own files (journal, backups). A run
whose archive holds users' memories stays (only ``consolidator prune`` removes it), and so
do an interrupted run (recovery needs it) and the run of the root's current proposal.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consolidator.clock import DAY_NS
from consolidator.config import StateSection
from consolidator.state import runfolders, statedir, statefiles
from consolidator.state.history import closed_by, entry_ns, last_recorded, log, parsed, record
from consolidator.state.lock import own_lock
from consolidator.store.journal import is_closed


def retain(state: Path, keep_days: int, keep_runs: int, now_ns: int,
           current: str = "") -> tuple[int, list[str]]:
    """Keep one root's state within ``keep_days`` and ``keep_runs``: drop older history
    lines (:func:`trim`) and remove the run folders that may go (:func:`retire_runs`; never
    ``current``, the pass just done). Returns (lines dropped, run ids removed); what cannot
    be done is logged, never raised: housekeeping does not fail a pass."""
    dropped = 0
    try:
        dropped = trim(state, keep_days, now_ns)
    except (OSError, statefiles.Foreign) as exc:
        log.warning("history not trimmed", state=str(state), error=str(exc))
    removed = retire_runs(state, keep_days, keep_runs, now_ns, current)
    if dropped or removed:
        log.info("old state removed", state=str(state), history_lines=dropped,
                 runs=removed, keep_days=keep_days, keep_runs=keep_runs)
    return dropped, removed


def trim(state: Path, keep_days: int, now_ns: int) -> int:
    """Drop the history lines of passes started more than ``keep_days`` days before
    ``now_ns``; returns how many went. Cheap when none is that old: only the first line is
    read; else the file is rewritten at once (atomically, under its lock). A line without a
    time is kept."""
    cutoff = now_ns - keep_days * DAY_NS
    path = statedir.history(state)
    first = _first_time(path)
    if first is None or first >= cutoff:
        return 0
    dropped = 0

    def edit(data: bytes) -> bytes | None:
        nonlocal dropped
        kept = []
        for raw in data.splitlines(keepends=True):
            entry = next(parsed([raw]), None)
            when = entry_ns(entry) if entry is not None else None
            if when is not None and when < cutoff:
                dropped += 1
            else:
                kept.append(raw)
        return b"".join(kept) if dropped else None

    statefiles.rewrite_locked(path, edit)
    return dropped


def _first_time(path: Path, lines: int = 16) -> int | None:
    """The time of the first entry among a history file's first ``lines`` lines."""
    try:
        with open(path, "rb") as fh:
            for _ in range(lines):
                raw = fh.readline(1 << 20)
                if not raw:
                    return None
                entry = next(parsed([raw]), None)
                when = entry_ns(entry) if entry is not None else None
                if when is not None:
                    return when
    except OSError:
        return None
    return None


class _Unknown(Exception):
    """The root's proposal file cannot be read: which run it names is not known."""


def proposal_run(state: Path) -> str | None:
    """The run id of the root's proposal while an action of it may wait for review (``None``:
    no proposal, or every action of it is done with: applied, declined, refused, or withdrawn
    when its run was undone); raises :class:`_Unknown` when the file is there but cannot be
    read or trusted."""
    try:
        raw = statefiles.read_private(statedir.proposal(state))
        if raw is None:
            return None
        data = json.loads(raw)
    except (OSError, ValueError, statefiles.Foreign) as exc:
        raise _Unknown(str(exc)) from None
    run_id = data.get("run_id") if isinstance(data, dict) else None
    if not isinstance(run_id, str):
        raise _Unknown(f"{statedir.proposal(state)} names no run")
    actions = data.get("actions")
    if isinstance(actions, list) and all(
            isinstance(a, dict) and a.get("status") in statedir.DONE_WITH for a in actions):
        return None
    return run_id  # something waits, or cannot be told not to


def retire_runs(state: Path, keep_days: int, keep_runs: int, now_ns: int,
                current: str = "") -> list[str]:
    """Remove the run folders of one root that started more than ``keep_days`` days before
    ``now_ns`` or are beyond the newest ``keep_runs`` (by the time in their ids: no journal
    is opened unless a run is old enough), unless it is ``current``, the run of the current
    proposal, holds anything but journal and backups (an archive with users' memories), or
    its journal is not closed (an interrupted run is needed for recovery). Returns the ids
    removed, oldest first."""
    timed = sorted((t, name) for name in statedir.run_ids(state)
                   if (t := runfolders.run_id_ns(name)) is not None)  # others are left alone
    edge = len(timed) - max(1, keep_runs)
    if edge > 0:  # runs started in the second where the newest keep_runs begin: exact times
        seconds = {timed[edge - 1][0], timed[edge][0]}
        timed = sorted(((runfolders.run_started_ns(statedir.run_dir(state, name)) or 0)
                        if t in seconds else t, name)
                       for t, name in timed)
    cutoff = now_ns - keep_days * DAY_NS
    beyond = {name for _t, name in timed[:max(0, len(timed) - max(1, keep_runs))]}
    candidates = [name for t, name in timed if (t < cutoff or name in beyond) and name != current]
    if not candidates:
        return []
    try:
        protected = proposal_run(state)
    except _Unknown as exc:
        log.warning("old runs kept: the proposal cannot be read", state=str(state),
                    error=str(exc))
        return []
    removed = []
    for name in candidates:
        run = statedir.run_dir(state, name)
        try:
            if name == protected or not runfolders.only_own_files(run) or not is_closed(run):
                continue
            if runfolders.remove_run(run):
                removed.append(name)
        except OSError as exc:
            log.warning("old run not removed", run=str(run), error=str(exc))
    return removed


# ----------------------------------------------------------------------------- prune


@dataclass(frozen=True)
class OldRun:
    """A run folder ``consolidator prune`` looks at, and why it stays (``None``: it goes)."""

    run_id: str
    path: Path
    started_ns: int
    files: runfolders.RunFiles
    kept: str | None = None


def old_runs(state: Path, before_ns: int) -> list[OldRun]:
    """The run folders of one root that started before ``before_ns`` (by the journal's
    ``started_ns``, else the time in the run id), oldest first, each with why it stays: an
    interrupted run (recovery needs it) and the current proposal's run are never pruned."""
    try:
        protected, unknown = proposal_run(state), None
    except _Unknown as exc:
        protected, unknown = None, str(exc)
    found = []
    for name in statedir.run_ids(state):
        run = statedir.run_dir(state, name)
        try:
            if not os.path.isdir(run) or os.path.islink(run):
                continue
            started = runfolders.run_started_ns(run)
            if started is None or started >= before_ns:
                continue
            files = runfolders.run_files(run)
        except OSError as exc:
            log.warning("run folder not listed", run=str(run), error=str(exc))
            continue
        kept = None
        if statedir.journal(run).exists() and not is_closed(run):
            kept = "interrupted; the next run on its memory dir rolls it back"
        elif unknown is not None:
            kept = f"the proposal cannot be read ({unknown}); it may be this run's"
        elif name == protected:
            kept = "its proposal is the one waiting for review (consolidator proposals)"
        found.append(OldRun(name, run, started, files, kept))
    return sorted(found, key=lambda r: (r.started_ns, r.run_id))


def record_pass(state: Path, entry: dict[str, Any], keep: StateSection | None = None,
                now_ns: int | None = None) -> bool:
    """Record one pass of the runner over a root; returns whether a line was written.

    A closed-gate pass (``skipped``) is written only when the gate that closed it differs
    from the root's last recorded line's (only the file's tail is read); every other status
    always is. After a real pass (not skipped, not a dry run), retention runs with ``keep``
    (see :func:`retain`); it never fails the pass.
    """
    if entry.get("status") == "skipped":
        gate = closed_by(entry)
        last = last_recorded(state)
        if gate is not None and last is not None and last.get("status") == "skipped" \
                and closed_by(last) == gate:
            return False
        record(state, entry, durable=False)
        return True
    record(state, entry)
    if keep is not None and not entry.get("dry_run"):
        when = now_ns if now_ns is not None else entry_ns(entry)
        run_id = entry.get("run_id")
        root = entry.get("memory_dir")
        try:
            with own_lock(Path(root) if isinstance(root, str) else None, state) as held:
                if held:  # else a run or an undo is at work there: next time
                    retain(state, keep.keep_days, keep.keep_runs,
                           when if when is not None else 0,
                           current=run_id if isinstance(run_id, str) else "")
        except Exception as exc:  # noqa: BLE001 - housekeeping never fails the pass
            log.warning("old state not removed", state=str(state), error=str(exc))
    return True
