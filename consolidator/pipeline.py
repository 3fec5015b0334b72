"""The rounds of one root's run, in order, as the README tells them.

1. **scan** the root: every memory and the index, read once;
2. **find** duplicates, conflicts, similar and stale memories, relative dates (the model, when
   one is configured, asked what only it can settle), and **decide** the plan;
3. **apply the chosen** actions (safe ones by default), then the **relinks** they call for;
4. **plan the index** from the root as they left it, and **apply** its safe rebuild;
5. **propose the rest**: what was not applied waits for a person's review.

Plans and outcomes are values carried in :class:`Work`; only the executor knows whether a
step is written or imagined (a dry run).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import structlog

from consolidator import phases
from consolidator.context import REVIEWED_KINDS
from consolidator.decide.follow import rebased
from consolidator.phases.context import Work
from consolidator.plan import Waiting
from consolidator.report import progress
from consolidator.report.summary import command
from consolidator.state import proposal
from consolidator.state.proposal import declined

if TYPE_CHECKING:
    from structlog.stdlib import BoundLogger

__all__ = ["Rounds", "Work", "declined", "propose"]


class Rounds:
    """One root's rounds over ``work``; :attr:`current` names the round at work (a failure's
    report says where it came from)."""

    def __init__(self, work: Work, bound: BoundLogger) -> None:
        self.work = work
        self.bound = bound
        self.current: str | None = None

    def run(self) -> None:
        ctx = self.work.ctx
        for name, step in phases.PHASES:  # scan, detect, consolidate, index
            ctx.stop.check()
            self.current = name
            with structlog.contextvars.bound_contextvars(phase=name):
                progress.phase(ctx.root, name)
                self.bound.debug("phase", phase=name)
                step(self.work)
        self.current = "propose"
        propose(self.work, self.bound)
        self.current = None


def propose(work: Work, bound: BoundLogger) -> None:
    """Keep what this run did not apply as the root's proposal (a dry run only counts it)."""
    ctx = work.ctx
    final = work.after or work.snapshot
    if final is None:
        return
    planned = list(work.plan.actions)
    states = proposal.states_of(final)
    for i in work.proposed:  # a date rewrite this run's own steps moved on: judged afresh
        if proposal.moved_on(planned[i], states) is not None:
            fresh = rebased(planned[i], final, ctx.hot_after_ns)
            planned[i] = fresh if fresh is not None else planned[i]
    where = REVIEWED_KINDS.get(ctx.kind)
    if where is not None:  # synced to every member, or committed: each proposal says so
        planned = [dataclasses.replace(a, reason=f"{a.reason} ({where})") for a in planned]
    work.plan = dataclasses.replace(work.plan, actions=tuple(planned))
    actions = [planned[i] for i in work.proposed]
    made, kept, notes = proposal.build(ctx.run_id, ctx.root,
                                       ctx.now.strftime("%Y-%m-%dT%H:%M:%SZ"), actions, final)
    saved = work.executor.propose(ctx.state, made)
    # A dry run keeps nothing; its proposal is named by the run (or report) that made it all
    # the same, as the report's format wants a run id there.
    waiting = Waiting(ctx.run_id, len(kept),
                      tuple(work.proposed[k] for k in kept)) if made is not None else None
    work.plan = dataclasses.replace(work.plan, proposal=waiting,
                                    notes=work.plan.notes + tuple(notes))
    if saved and made is not None:
        bound.info(f"{len(made.items)} change(s) wait for review: {command('proposals')}",
                   proposal=ctx.run_id, waiting=len(made.items))
