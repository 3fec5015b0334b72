"""What the state dir knows about one root's runs, for an undo: which runs a run id or
``latest`` names, which root a run belongs to, which later runs changed the same files, and
what of the root's proposal an undone run takes back or lets wait again."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consolidator.errors import ConsolidatorError, UsageError
from consolidator.plan import MERGED_INTO
from consolidator.state import history, proposal, runfolders, statedir
from consolidator.store.journal import JournalDamaged, closed_as, load

LATEST = "latest"  # ``undo latest``: each root's newest run with something to undo


@dataclass
class ToUndo:
    """What an undo of one run id (or of ``latest``) finds.

    ``folders``: the run folders to undo, one per root. ``unchanged``: (memory dir, why)
    for each root the run changed nothing in (history lists it, no folder was ever made).
    ``gone``: (memory dir, why) for each root history lists the run for, but whose folder
    to undo it from is not there (removed by ``prune`` or retention, or a prune's id).
    """

    folders: list[Path] = field(default_factory=list)
    unchanged: list[tuple[str, str]] = field(default_factory=list)
    gone: list[tuple[str, str]] = field(default_factory=list)


_RUN_ID_FORM = re.compile(r"\d{8}T\d{6}Z-[0-9a-z]+")  # as consolidator.runner.new_run_id makes


def to_undo(state_dir: Path, run_id: str, wanted: set[str] | None) -> ToUndo:
    """The run folders named exactly ``run_id`` (never a pattern), and what history says of
    the roots that have none (``wanted``: only these memory dirs; a folder's own root is
    checked by :func:`root_of` when it is undone). Raises :class:`UsageError` when the id is
    not one, or names no run at all."""
    statedir.check_run_id(run_id)
    found = ToUndo()
    for state in statedir.root_folders(state_dir):
        folder = statedir.run_folder(state, run_id)
        if folder is not None:
            found.folders.append(folder)
            continue
        for entry in history.of_root(state):
            memory_dir = entry.get("memory_dir")
            if entry.get("run_id") != run_id or entry.get("trigger") == "undo" \
                    or not isinstance(memory_dir, str) \
                    or (wanted is not None and memory_dir not in wanted):
                continue
            why = _unchanged(entry)
            if why is not None:
                found.unchanged.append((memory_dir, why))
            else:
                found.gone.append((memory_dir, _gone(entry)))
            break  # one line per root and run
    if not (found.folders or found.unchanged or found.gone):
        why = ("consolidator history lists the runs recorded there; a pass stopped by the "
               "same closed gate as the one before it is not recorded, and changed nothing"
               if _RUN_ID_FORM.fullmatch(run_id) else
               "a run id looks like 20261205T033504Z-7647; consolidator history lists them")
        raise UsageError(f"no run {run_id!r} in {state_dir} ({why})")
    if not (found.folders or found.unchanged):
        roots = ", ".join(f"{root} ({why})" for root, why in found.gone)
        raise UsageError(f"no run {run_id!r} in {state_dir} to undo: history lists it for "
                         f"{roots}")
    return found


def _unchanged(entry: dict[str, Any]) -> str | None:
    """Why the run of a history line left nothing to undo, or ``None`` if it may have."""
    if entry.get("dry_run"):
        return "was a dry run: it changed nothing"
    if entry.get("status") == "skipped":
        return "was stopped by a closed gate: it changed nothing"
    if entry.get("changed") is False:
        return "changed nothing"
    return None


def _gone(entry: dict[str, Any]) -> str:
    """Why the run of a history line that may have changed files has no folder to undo."""
    if entry.get("trigger") == "prune":
        return "a prune: what it removed cannot be put back"
    removed = "removed by consolidator prune or [state] keep_runs"
    if "changed" not in entry:  # a line written before history said whether it changed
        return f"it keeps no run folder: it changed nothing, or its folder was {removed}"
    return f"its run folder was {removed}"


def latest(state_dir: Path, wanted: Sequence[Path] | None
           ) -> tuple[list[Path], list[tuple[str, str]]]:
    """``undo latest``: for each memory dir in ``wanted`` (else the one root of the state
    dir that has history), its newest run with something to undo (see :func:`newest`).
    Returns those run folders and, for each memory dir that has none, why. Raises
    :class:`UsageError` when ``wanted`` is not given and several roots have history."""
    if wanted is not None:
        states = [(str(root), statedir.root_state(state_dir, root)) for root in wanted]
    else:
        states = [(history.memory_dir_of(s) or str(s), s)
                  for s in statedir.root_folders(state_dir)
                  if history.last_recorded(s) is not None or statedir.run_ids(s)]
        if len(states) > 1:
            where = ", ".join(name for name, _s in states)
            raise UsageError(f"undo latest: {len(states)} memory dirs have history ({where}): "
                             "name one with --memory-dir")
    folders, none = [], []
    for name, state in states:
        run = newest(state)
        if run is None:
            none.append((name, _none_left(state)))
        else:
            folders.append(run)
    return folders, none


def _none_left(state: Path) -> str:
    """Why a root has no run left to undo, in words: its newest run that changed files (not
    undone) has no folder any more, or every such run is undone (or none changed any)."""
    changed: dict[str, dict[str, Any]] = {}
    for entry in history.of_root(state):
        run_id = entry.get("run_id")
        if not isinstance(run_id, str):
            continue
        if entry.get("trigger") == "undo":  # an undo's line carries the id of the run undone
            changed.pop(run_id, None)
        elif entry.get("trigger") in ("run", "apply") and _unchanged(entry) is None:
            changed[run_id] = entry
    for run_id, entry in reversed(changed.items()):
        if statedir.run_folder(state, run_id) is None:
            return f"its newest run that changed it, {run_id}, cannot be undone: {_gone(entry)}"
    return "every run that changed it is undone, or none did"


def newest(state: Path) -> Path | None:
    """The root's newest run (by start) that changed files and was neither undone nor rolled
    back; ``None`` when it has none. A damaged journal on the way raises
    :class:`JournalDamaged` rather than being passed over for an older run."""
    started = [(runfolders.run_started_ns(statedir.run_dir(state, name)) or 0, name)
               for name in statedir.run_ids(state)]
    for _when, name in sorted(started, reverse=True):
        folder = statedir.run_dir(state, name)
        if not folder.is_dir() or folder.is_symlink():
            continue
        journal = load(folder)
        if journal.intents and not journal.undone and journal.closed != "rolled back":
            return folder
    return None


CUT_SHORT = ("stopped", "failed")  # how a run's journal closes when it ended part way


def merged_away(state: Path, current: str = "") -> dict[str, str]:
    """What the root's newest run merged away (archived as merged into a survivor), each
    file with its survivor, when that run was cut short (stopped by a signal, or failed)
    after its merges and before the links they call for; empty otherwise. Only the newest
    run counts: the first run after it repoints those links, and later a link to the name
    may be the user's own, to a file of the same name since removed. A run a crash left
    open is rolled back by recovery, not followed. ``current``: the run asking, never its
    own newest."""
    names = [name for name in statedir.run_ids(state) if name != current]
    if not names:
        return {}
    if all(_RUN_ID_FORM.fullmatch(name) for name in names):  # the ids begin with the second
        names = [name for name in names if name[:16] == names[-1][:16]]  # each run began
    newest = max((statedir.run_dir(state, name) for name in names),
                 key=lambda run: runfolders.run_started_ns(run) or 0)
    if closed_as(newest) not in CUT_SHORT:  # as a rule "ok": its last line alone is read
        return {}
    try:
        journal = load(newest)
    except Exception:  # noqa: BLE001 - a damaged journal is only not read here
        return {}
    if journal.undone or journal.closed not in CUT_SHORT:
        return {}
    return {entry.file: entry.reason[len(MERGED_INTO):] for entry in journal.intents
            if entry.op == "archive" and entry.step in journal.done
            and entry.reason.startswith(MERGED_INTO)}


def root_of(run_dir: Path) -> Path:
    """The memory dir a run's journal names; :class:`JournalDamaged` when it names none, or
    not the root whose state folder keeps it."""
    memory_dir = load(run_dir).meta.get("memory_dir")
    if not isinstance(memory_dir, str) or not os.path.isabs(memory_dir) \
            or not statedir.kept_for(statedir.state_of_run(run_dir), memory_dir):
        raise JournalDamaged(statedir.journal(run_dir), 1,
                             "it names no memory dir, or not the one it is kept for")
    return Path(memory_dir)


def later_runs(run_dir: Path, files: list[str] | None = None) -> list[str]:
    """The runs of the same root after ``run_dir`` (neither undone nor rolled back) that
    changed any of ``files`` (``None``: any file ``run_dir`` set out to change), oldest first:
    what an undo of ``run_dir`` must undo first."""
    try:
        own = load(run_dir)
    except Exception:  # noqa: BLE001 - a damaged journal: undo itself says what is wrong
        return []
    wanted = {e.file for e in own.intents} if files is None else set(files)
    started = own.meta.get("started_ns")
    if not wanted or not isinstance(started, int):
        return []
    state = statedir.state_of_run(run_dir)
    out = []
    for name in statedir.run_ids(state):
        try:
            journal = load(statedir.run_dir(state, name))
        except Exception:  # noqa: BLE001 - a damaged journal is only not named here
            continue
        when = journal.meta.get("started_ns")
        if (isinstance(when, int) and when > started and not journal.undone
                and journal.closed != "rolled back"
                and {e.file for e in journal.intents} & wanted):
            out.append((when, name))
    return [name for _when, name in sorted(out)]


def _proposal(state: Path, run_id: str | None = None) -> proposal.Proposal | None:
    """The root's proposal (``run_id``: only if that run made it); ``None`` where there is
    none, or it is damaged."""
    try:
        found = proposal.load(state)
    except ConsolidatorError:
        return None
    return None if found is None or run_id not in (None, found.run_id) else found


def applied_from(state: Path, run_id: str) -> list[str]:
    """The ``apply`` runs, neither undone nor rolled back, that applied actions of
    ``run_id``'s proposal, oldest first: what an undo of ``run_id`` must undo first, whatever
    files they changed (undone, the run withdraws its proposal, and those actions would be
    left standing with no run behind them)."""
    found = _proposal(state, run_id)
    if found is None:
        return []
    names = sorted({i.note.removeprefix("by run ") for i in found.items
                    if i.status == statedir.APPLIED and i.note.startswith("by run ")})
    out = []
    for name in names:
        try:
            journal = load(statedir.run_dir(state, name))
        except Exception:  # noqa: BLE001 - a damaged journal is only not named here
            continue
        if not journal.undone and journal.closed != "rolled back":
            out.append(name)
    return out


def reopened(state: Path, run_id: str) -> list[int]:
    """After an ``apply`` run is undone: the actions of the root's proposal it had applied
    wait for review again (their files are back as the proposal recorded them). Returns
    their numbers; a proposal that is gone, replaced or damaged is left as it is."""
    found = _proposal(state)
    if found is None:
        return []
    mine = [i.number for i in found.items
            if i.status == statedir.APPLIED and i.note == f"by run {run_id}"]
    if mine:
        proposal.save(state, found.settled({n: (statedir.WAITING, "") for n in mine}))
    return mine


def withdrawn(state: Path, run_id: str) -> list[int]:
    """After the run that made the root's proposal is undone: what still waited of it is
    withdrawn (refused, "its run was undone"), so that nothing the run judged applies to
    the files it put back. Returns their numbers."""
    found = _proposal(state, run_id)
    if found is None:
        return []
    waiting = [i.number for i in found.waiting()]
    if waiting:
        proposal.save(state, found.settled(
            {n: (statedir.REFUSED, "its run was undone") for n in waiting}))
    return waiting
