"""What the state dir knows about one root's runs, for an undo: which root a run belongs
to, which later runs changed the same files, and what of the root's proposal an undone run
takes back or lets wait again."""

from __future__ import annotations

import os
from pathlib import Path

from consolidator.errors import ConsolidatorError
from consolidator.state import proposal, statedir
from consolidator.store.journal import JournalDamaged, load


def root_of(run_dir: Path) -> Path:
    """The memory dir a run's journal names; :class:`JournalDamaged` when it names none, or
    not the root whose state folder keeps it."""
    memory_dir = load(run_dir).meta.get("memory_dir")
    if not isinstance(memory_dir, str) or not os.path.isabs(memory_dir) \
            or statedir.root_key(Path(memory_dir)) != statedir.state_of_run(run_dir).name:
        raise JournalDamaged(statedir.journal(run_dir), 1,
                             "it names no memory dir, or not the one it is kept for")
    return Path(memory_dir)


def later_runs(run_dir: Path, files: list[str]) -> list[str]:
    """The runs of the same root after ``run_dir`` (not undone) that changed any of
    ``files``, oldest first: what an undo refused for "changed since" should undo first."""
    if not files:
        return []
    state = statedir.state_of_run(run_dir)
    started = load(run_dir).meta.get("started_ns")
    if not isinstance(started, int):
        return []
    out = []
    for name in statedir.run_ids(state):
        try:
            journal = load(statedir.run_dir(state, name))
        except Exception:  # noqa: BLE001 - a damaged journal is only not named here
            continue
        when = journal.meta.get("started_ns")
        if (isinstance(when, int) and when > started and not journal.undone
                and {e.file for e in journal.intents} & set(files)):
            out.append((when, name))
    return [name for _when, name in sorted(out)]


def reopened(state: Path, run_id: str) -> list[int]:
    """After an ``apply`` run is undone: the actions of the root's proposal it had applied
    wait for review again (their files are back as the proposal recorded them). Returns
    their numbers; a proposal that is gone, replaced or damaged is left as it is."""
    try:
        found = proposal.load(state)
    except ConsolidatorError:
        return []
    if found is None:
        return []
    mine = [i.number for i in found.items
            if i.status == proposal.APPLIED and i.note == f"by run {run_id}"]
    if mine:
        proposal.save(state, found.settled({n: (proposal.WAITING, "") for n in mine}))
    return mine


def withdrawn(state: Path, run_id: str) -> list[int]:
    """After the run that made the root's proposal is undone: what still waited of it is
    withdrawn (refused, "its run was undone"), so that nothing the run judged applies to
    the files it put back. Returns their numbers."""
    try:
        found = proposal.load(state)
    except ConsolidatorError:
        return []
    if found is None or found.run_id != run_id:
        return []
    waiting = [i.number for i in found.waiting()]
    if waiting:
        proposal.save(state, found.settled(
            {n: (proposal.REFUSED, "its run was undone") for n in waiting}))
    return waiting
