"""Phase 3: apply the plan's chosen actions through the executor, then the safe steps they
call for (links to what moved, repointed or kept as text).

Under ``apply = "safe"`` (the default) only safe actions are chosen and each judgment waits
for review; ``"all"`` chooses every action; ``"none"`` none. What is not chosen is this run's
proposal. While the index must be left as it is (it cannot be read, or a session changed it
within ``idle_minutes``), nothing that moves a memory out of the root is chosen: the index's
pointers to it could not follow.
"""

from __future__ import annotations

import dataclasses

import structlog

from consolidator.decide.follow import moves, relinks
from consolidator.execute import imagine
from consolidator.phases.context import Work, chosen
from consolidator.plan import leaving

log = structlog.get_logger("consolidator.phases")


def run(work: Work) -> None:
    assert work.snapshot is not None
    plan = work.plan
    held = work.index_held()
    # An index that cannot be read stays so until a person mends it: what moves a memory out
    # is not proposed either (an apply would refuse it); the next run after the mend does it.
    stuck = held is not None and work.snapshot.index.error is not None \
        and work.ctx.trigger != "apply"
    wanted, unproposed = [], set()
    for i, action in enumerate(plan.actions):
        want = chosen(action, work.mode)
        if held is not None and leaving([action]) and (want or stuck):
            if stuck:
                unproposed.add(i)
            else:
                why, then = held
                work.skipped.append(f"{action.file}: left as it is, {why}, so its pointers "
                                    f"could not follow a memory moved out; {then}")
            want = False
        wanted.append(want)
    if unproposed:
        why, then = held or ("", "")
        n = len(unproposed)
        note = (f"{why}: {n} {'change' if n == 1 else 'changes'} moving a memory out "
                f"not proposed (listed as not applied), as its pointers could not follow; "
                f"{then}")
        work.plan = plan = dataclasses.replace(plan, notes=plan.notes + (note,))
        # A background run keeps no report: its log says it (a report's too, on stderr).
        log.warning(f"{n} change(s) held: {why}", held=n, then=then)
    applied = work.executor.apply(plan.actions, wanted)
    work.proposed = tuple(i for i, w in enumerate(wanted) if not w and i not in unproposed)
    work.plan = dataclasses.replace(plan, applied=tuple(applied))
    # The links are planned on the root as the applied actions leave it, worked out from
    # them; the root is read again once, when the round's steps are all done.
    work.after = imagine(work.snapshot, [a for a, ok in zip(plan.actions, applied,
                                                            strict=True) if ok])
    follow_through(work)
    work.after = work.executor.after(work.snapshot, work.plan.actions, work.plan.applied)


def follow_through(work: Work) -> None:
    """The links that applied merges and archives call for, repointed (or, in a topic
    memory, kept as text), planned on ``work.after``."""
    assert work.after is not None
    moved, archived = moves(work.plan.done(), work.after.existing_files())
    moved = work.earlier_merges(work.after, moved)
    before = work.snapshot.memories if work.snapshot is not None else ()
    steps = relinks(work.after, moved, archived, work.ctx.hot_after_ns,
                    [m for m in before if m.file in moved or m.file in archived])
    if not steps:
        return
    applied = work.executor.apply(steps, [work.mode != "none"] * len(steps))
    work.plan = work.plan.with_actions(steps, applied)

