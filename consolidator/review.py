"""``consolidator apply`` and ``reject``: a person's answer to a run's proposal, per root.

Applying goes through the same executor, store, journal and undo as a run, under the root's
lock: the chosen actions first (each refused, with its reason, when a file it touches is no
longer in the state the proposal recorded), then the safe steps they call for (links
repointed, the index rebuilt; where the index's own changes wait as an item, or every change
waits for review, only the links to what they moved). An apply whose every chosen action
was refused changes nothing more, and is recorded as ``refused``, not ``applied``. It gets a
run id of its own, so ``consolidator undo`` takes it back. It is not a consolidation: Claude
Code's "last consolidated" time stays as it was.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import structlog

from consolidator.config import Config
from consolidator.decide.follow import cannot_follow, moves
from consolidator.decide.linked import held_by_indexes
from consolidator.errors import ConsolidatorError, UsageError
from consolidator.index.rebuild import LINKS
from consolidator.phases import consolidate, index
from consolidator.phases.context import Work
from consolidator.phases.scan import with_index_links
from consolidator.plan import Plan, Written
from consolidator.runner import RunOptions, context_for
from consolidator.session import Session, describe_error
from consolidator.state import proposal, statedir
from consolidator.state.proposal import Item, Proposal
from consolidator.state.runs import LATEST
from consolidator.state.statedir import APPLIED, DECLINED, REFUSED
from consolidator.store.scan import scan

log = structlog.get_logger("consolidator.review")


@dataclass
class Answered:
    """What ``apply`` or ``reject`` did on one root."""

    root: Path
    run_id: str  # the proposal's run
    applied: list[int] = field(default_factory=list)
    refused: dict[int, str] = field(default_factory=dict)
    declined: list[int] = field(default_factory=list)
    apply_run: str | None = None  # the apply's own run id (for undo)
    follow_ups: int = 0  # safe steps applied after the chosen actions
    links_only: bool = False  # ... which only mended links (the index's changes wait)

    @property
    def all_refused(self) -> bool:
        """Every chosen action was refused: the apply did not do what it was asked."""
        return bool(self.refused) and not self.applied


def proposals(state_dir: Path, roots: Sequence[Path] | None) -> list[tuple[Path, Proposal]]:
    """Every proposal kept in the state dir, with its memory dir (``roots``: only theirs).

    The state dir is where proposals live, so a root needs no config or discovery to be
    found here; a proposal kept under another root's folder is damaged and refused.
    """
    if roots is not None:
        folders = [(root, statedir.root_state(state_dir, root)) for root in roots]
    else:
        folders = []
        for state in statedir.root_folders(state_dir):
            found = proposal.load(state)
            if found is not None:
                folders.append((Path(found.memory_dir), state))
    out = []
    for root, state in folders:
        found = proposal.load(state)
        if found is None:
            continue
        if not statedir.kept_for(state, found.memory_dir):
            raise proposal.ProposalDamaged(f"{statedir.proposal(state)} is damaged: it names "
                                           f"{found.memory_dir}, not the root it is kept for")
        out.append((root, found))
    return out


def waiting(state_dir: Path, roots: Sequence[Path] | None) -> list[tuple[Path, Proposal]]:
    """Each proposal that still has actions waiting (``roots``: only theirs)."""
    return [(r, p) for r, p in proposals(state_dir, roots) if p.waiting()]


def target(state_dir: Path, roots: Sequence[Path] | None, run_id: str | None,
           numbered: bool, all_roots: bool = False) -> list[tuple[Path, Proposal]]:
    """The proposals an ``apply``/``reject`` is about: those of ``run_id``, else every one
    waiting (``roots``: only theirs). :class:`UsageError` for an id with no proposal (or none
    left waiting); for an id whose proposals wait in several roots when neither ``roots``
    nor ``all_roots`` says which (one pass over several roots gives each the same id); and
    for action numbers that could mean more than one proposal (each numbered from 1)."""
    if run_id == LATEST:  # as with `undo latest`: a root keeps only its newest proposal
        run_id = None
    if run_id is not None:
        statedir.check_run_id(run_id)
        found = [(r, p) for r, p in proposals(state_dir, roots) if p.run_id == run_id]
        if not found:
            raise UsageError(f"no proposal of run {run_id!r} (see consolidator proposals)")
        found = [(r, p) for r, p in found if p.waiting()]
        if not found:
            raise UsageError(f"run {run_id}: nothing waits any more (already applied or "
                             "declined)")
        if roots is None and not all_roots and len(found) > 1:
            where = ", ".join(str(r) for r, _p in found)
            raise UsageError(f"run {run_id} left proposals in {len(found)} memory dirs "
                             f"({where}): name one with --memory-dir, or take them all with "
                             "--all-roots; nothing changed")
    else:
        found = waiting(state_dir, roots)
    if numbered and len(found) > 1:
        where = ", ".join(str(r) for r, _p in found)
        raise UsageError(f"action numbers belong to one proposal, and {len(found)} wait "
                         f"({where}): name one with --memory-dir"
                         + ("" if run_id else " and its RUN_ID"))
    return found


def apply(root: Path, found: Proposal, cfg: Config, opts: RunOptions, now: datetime,
          run_id: str, only: Sequence[int] | None, without: Sequence[int]) -> Answered:
    """Apply the chosen waiting actions of ``found`` to ``root`` (see the module's doc)."""
    items = found.pick(only, without)
    ctx = context_for(root, cfg, opts, now, run_id)
    if not root.is_dir():
        raise ConsolidatorError("not a folder any more (it vanished?)")
    session = Session.of(ctx)
    session.acquire()
    started = time.monotonic()
    done = Answered(root, found.run_id, apply_run=run_id)
    work = Work(ctx, mode="all", session=session)
    status, error = "applied", None
    try:
        session.recover()
        current = proposal.load(ctx.state)  # again, under the lock
        if current is None or current.run_id != found.run_id:
            raise UsageError(f"run {found.run_id}: its proposal was replaced meanwhile")
        items = current.pick([i.number for i in items])
        work.snapshot = with_index_links(scan(root))
        ready = _ready(items, work, done, current)
        work.plan = Plan(actions=tuple(i.action for i in ready))
        consolidate.run(work)
        followed = any(work.plan.applied)
        if followed:  # else no step is called for: nothing changes
            # The index's own changes apply only when chosen as items: where they wait as
            # one (or every change waits for review: apply = "none", a team's store) only
            # the links to what the chosen actions moved are mended, no pointer added.
            index_waits = set(current.index_group(work.snapshot.index.name)) - set(items)
            work.mode = LINKS if index_waits or ctx.mode == "none" else "safe"
            done.links_only = work.mode == LINKS
            index.run(work)
        _settle(work, ready, done)
        if done.all_refused:
            status = "refused"  # history says so
        settled = current.settled(_statuses(done))
        fresh = [work.plan.actions[i] for i in work.proposed]
        if followed and work.index_held() is None and (
                (work.after is not None and work.after.index.stat != work.snapshot.index.stat)
                or _names_gone(current.index_group(work.snapshot.index.name), work)):
            settled = settled.with_index(
                work.snapshot.index.name, fresh,
                f"planned again on what apply {run_id} left")
        proposal.save(ctx.state, settled)
    except Exception as exc:
        status, error = "failed", describe_error(exc)
        raise
    finally:
        # Not a consolidation: the lock's mtime goes back.
        status, error = session.close(status, error)
        session.record(
            status, {"applied": len(done.applied), "refused": len(done.refused),
                     "follow_ups": done.follow_ups, "skipped": len(work.skipped)},
            proposal=done.run_id, refused={str(n): why for n, why in done.refused.items()},
            error=error, duration_s=round(time.monotonic() - started, 3))
    log.info("proposal applied", root=str(root), proposal=found.run_id, run_id=run_id,
             applied=len(done.applied), refused=len(done.refused))
    return done


def _ready(items: Sequence[Item], work: Work, done: Answered, found: Proposal) -> list[Item]:
    """The items whose files are still as the proposal recorded, and whose needs were not
    declined; the others refused."""
    assert work.snapshot is not None
    ready = []
    states = proposal.states_of(work.snapshot)
    unreadable = proposal.unreadable_of(work.snapshot)
    for item in items:
        problem = found.blocked(item) or proposal.moved_on(item.action, states, unreadable)
        if problem is None:
            ready.append(item)
        else:
            done.refused[item.number] = problem
    # A folder's own index that now links what an item would move out holds it, as a run
    # holds it (that index is never changed here, so its link could not follow).
    kept, notes = held_by_indexes(work.snapshot, [item.action for item in ready])
    if notes:
        held = iter(notes)
        kept_ids = {id(action) for action in kept}
        for item in ready:
            if id(item.action) not in kept_ids:
                done.refused[item.number] = next(held)
        ready = [item for item in ready if id(item.action) in kept_ids]
    # Links, read with every ready item applied: an item refused here keeps its memory, and
    # what that memory links to, in place; asked again until none is refused.
    while True:
        stuck = cannot_follow(work.snapshot, [i.action for i in ready], work.ctx.hot_after_ns)
        if not stuck:
            return ready
        for n, why in stuck.items():
            done.refused[ready[n].number] = why
        ready = [item for n, item in enumerate(ready) if n not in stuck]


def _names_gone(group: Sequence[Item], work: Work) -> bool:
    """Whether a waiting index item writes the name of a file the apply merged away or
    archived (a pointer it would add to a memory no longer there): it is planned again."""
    left = work.after or work.snapshot
    assert left is not None
    moved, archived = moves(work.plan.done(), left.existing_files())
    gone = [file.encode() for file in (*moved, *archived)]
    return any(isinstance(item.action, Written) and any(g in item.action.data for g in gone)
               for item in group)


def _settle(work: Work, ready: Sequence[Item], done: Answered) -> None:
    """Which of the chosen items applied; one the executor left alone is refused with the
    reason it gave."""
    flags = work.plan.applied
    for n, item in enumerate(ready):
        if flags[n]:
            done.applied.append(item.number)
        else:
            reasons = [s for s in work.skipped if item.action.file in s]
            done.refused[item.number] = "; ".join(reasons) or "left alone"
    done.follow_ups = sum(work.plan.applied[len(ready):])


def _statuses(done: Answered) -> dict[int, tuple[str, str]]:
    out = {n: (APPLIED, f"by run {done.apply_run}") for n in done.applied}
    out.update({n: (REFUSED, why) for n, why in done.refused.items()})
    out.update({n: (DECLINED, "") for n in done.declined})
    return out


def reject(state: Path, root: Path, found: Proposal, only: Sequence[int] | None,
           without: Sequence[int] = ()) -> Answered:
    """Decline the chosen waiting actions: they are not proposed again while their files
    are unchanged."""
    items = found.pick(only, without)
    proposal.decline(state, items)
    done = Answered(root, found.run_id, declined=[i.number for i in items])
    proposal.save(state, found.settled(_statuses(done)))
    return done
