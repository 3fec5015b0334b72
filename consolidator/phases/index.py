"""Phase 4: plan MEMORY.md within its limits, as actions the executor applies.

The index is planned from the root as the applied actions left it (read again after a real
run, so a step left alone never leaves the index pointing at a file that was not moved).
The text leaving the index lands first (topic memories, details moved into the memory they
describe); the index is rewritten only when all of it landed, so no line leaves the index
without a live copy.

The line between safe and judgment follows Claude Code's window: the safe rebuild (links,
new pointers while they fit, lines Claude Code does not load moved out) runs unreviewed;
when the index is still over its limits, fitting it (moving, shortening any line a session
loads today) is a judgment, applied under ``apply = "all"`` and otherwise proposed.
"""

from __future__ import annotations

import dataclasses
import posixpath

from consolidator.context import REVIEWED_KINDS
from consolidator.decide import not_declined
from consolidator.decide.bodies import closed
from consolidator.decide.follow import moves
from consolidator.index.rebuild import ALL, LINKS, SAFE_SCOPE, IndexPlan, plan_index
from consolidator.index.topic import UNLISTED
from consolidator.index.window import Limits, newline_of
from consolidator.phases.context import Work
from consolidator.phases.scan import with_index_links
from consolidator.plan import JUDGMENT, SAFE, Action, Create, Rewrite
from consolidator.report.summary import command
from consolidator.store.frontmatter import BOM
from consolidator.store.model import Snapshot
from consolidator.store.scan import NESTED_INDEX
from consolidator.store.transaction import root_mode


def plan(work: Work, snapshot: Snapshot, scope: str = ALL) -> IndexPlan:
    """The rebuilt index for ``snapshot``, repointing what this run's applied actions moved."""
    moved, archived = moves(work.plan.done(), snapshot.existing_files())
    moved = work.earlier_merges(snapshot, moved)
    text = snapshot.index.text
    limits = work.ctx.cfg.index
    return plan_index(
        text,
        snapshot.memories,
        present=snapshot.existing_files(),
        redirects=moved,
        archived=archived,
        index_mtime_ns=snapshot.index.stat.mtime_ns if snapshot.index.stat else 0,
        limits=Limits(limits.max_lines, limits.max_bytes, limits.max_line_chars),
        newline=newline_of(text),
        editable={m.file for m in snapshot.memories if m.stat.mtime_ns <= work.ctx.hot_after_ns},
        index_name=snapshot.index.name,
        root_name=snapshot.root.name,
        occupied=snapshot.names,
        scope=scope,
        used={f for f, (count, _last) in work.usage.opened.items() if count}
        if work.usage is not None else (),
        named=work.snapshot.memories if work.snapshot is not None else (),
        listed_below=listed_below(snapshot),
        stores_below=snapshot.root.name in AGENT_FOLDERS,
    )


# Folders each of whose sub-folders is one agent's memory, with its own index.
AGENT_FOLDERS = frozenset({"agent-memory", "agent-memory-local"})


def listed_below(snapshot: Snapshot) -> dict[str, frozenset[str]]:
    """Each sub-folder's own index, with the memories it lists in its folder or below it."""
    return {u.rel: frozenset(target for target in u.links
                             if target.startswith(posixpath.dirname(u.rel) + "/"))
            for u in with_index_links(snapshot).unparsed if u.error == NESTED_INDEX}


def _more(reason: str) -> str:
    """What extending a topic memory made for ``reason`` adds to it."""
    return "more memories listed" if reason == UNLISTED else "more index lines moved in"


def actions(snapshot: Snapshot, index: IndexPlan, now_ns: int,
            kind: str = SAFE) -> list[Action]:
    """What the index plan writes: topic memories, details moved into memories, the index."""
    by_file = snapshot.by_file()
    current = snapshot.index
    mode = (current.stat.mode if current.stat
            else root_mode([m.stat.mode for m in snapshot.memories]))
    why = _why(index)
    out: list[Action] = [
        Create(file=t.file, kind=kind, data=t.text.encode("utf-8"), mtime_ns=t.mtime_ns,
               reason=t.reason + why, sources=t.sources, mode=mode) if t.before is None
        else Rewrite(file=t.file, kind=kind, data=t.text.encode("utf-8"), mtime_ns=t.mtime_ns,
                     reason=f"{t.reason}: {_more(t.reason)}" + why, before=(t.before,))
        for t in index.creates
    ]
    for file, lines in index.notes.items():
        memory = by_file[file]
        newline = memory.doc.newline
        body = closed(memory.body, newline) + (newline * 2).join(lines) + newline
        out.append(Rewrite(file=file, kind=kind, data=memory.doc.with_body(body).to_bytes(),
                           mtime_ns=memory.stat.mtime_ns, before=(memory.stat,),
                           reason=f"index detail moved in: {len(lines)} line(s)",
                           evidence=tuple(lines)))
    if not index.changed:
        return out
    data = (BOM if current.bom else b"") + index.text.encode("utf-8")
    needs = tuple(a.file for a in out)
    reason = "index rebuilt" if kind == SAFE else f"index: {_what(index)}"
    evidence = (*index.moved,
                *(f"{f}: {state}; its pointer's link removed, its words kept"
                  for f, state in index.unlinked),
                *(f"{old} -> {new}" for old, new in index.repointed))
    if current.stat is None:
        out.append(Create(file=current.name, kind=kind, data=data, mtime_ns=now_ns,
                          reason=reason + why, mode=mode, needs=needs, evidence=evidence))
    else:
        out.append(Rewrite(file=current.name, kind=kind, data=data, mtime_ns=now_ns,
                           reason=reason + why, before=(current.stat,), needs=needs,
                           evidence=evidence))
    return out


def _why(index: IndexPlan) -> str:
    """What a judgment to fit the index rests on: the index is over the limits Claude Code
    loads, so lines a session reads today would move."""
    if index.scope != ALL or not index.over_limits:
        return ""
    lines, size = index.before
    return (f" (it was {lines} lines, {size} bytes: over what Claude Code loads; this moves "
            "lines a session reads today)")


def run(work: Work) -> None:
    """The safe rebuild, applied; then the judgment that remains (fitting an index still over
    its limits, unlinking or repointing a pointer to a file that was already missing),
    proposed. Under ``apply = "all"`` the whole plan is applied as one, under ``"none"`` (and
    so in a store whose changes reach others) it is proposed as one. Under mode ``links``
    (an apply while the index's own changes wait for review) only the links to what it
    moved are mended, the rest proposed."""
    snapshot = work.after or work.snapshot
    assert snapshot is not None
    held = work.index_held()
    if held is not None:
        why = (snapshot.index.error if snapshot.index.error is not None
               else f"{held[0]}; {held[1]}")
        note = f"{snapshot.index.name} left alone: {why}"
        index = work.plan.index
        if snapshot.index.error is None:  # what it would mend is still worth knowing
            full = plan(work, snapshot, ALL)
            if full.missing:
                note += f"; it points at missing files: {', '.join(full.missing)}"
            # The report says the index as it stands, and why it was left so.
            cfg = work.ctx.cfg.index
            lines, size = full.before
            index = IndexPlan(snapshot.index.text or "", False, lines, size,
                              lines <= cfg.max_lines and size <= cfg.max_bytes,
                              before=full.before, missing=full.missing,
                              linked_missing=full.linked_missing, why=(why,))
        work.plan = dataclasses.replace(work.plan, index=index, notes=work.plan.notes + (note,))
        return
    safe = plan(work, snapshot, LINKS if work.mode == LINKS else SAFE_SCOPE)
    if work.mode not in ("safe", LINKS):  # one plan for all of it, applied or proposed
        full = plan(work, snapshot, ALL)
        kind = SAFE if _same(full, safe) else JUDGMENT
        if work.mode == "all":
            _apply(work, snapshot, full, kind, True)
            return
        steps = actions(snapshot, full, work.ctx.now_ns, kind)
        if work.ctx.kind in REVIEWED_KINDS:  # every change there is a judgment; its words
            # still say what it does ("index rebuilt")
            steps = [dataclasses.replace(step, kind=JUDGMENT) for step in steps]
        _propose(work, snapshot, steps, full)
        return
    after = _apply(work, snapshot, safe, SAFE, True)
    full = plan(work, after, ALL)
    kind = JUDGMENT
    if work.mode == LINKS and work.ctx.kind not in REVIEWED_KINDS \
            and _same(full, plan(work, after, SAFE_SCOPE)):
        kind = SAFE  # what waits again does no more than the safe rebuild would
    _propose(work, after, actions(after, full, work.ctx.now_ns, kind), full, safe)


def _propose(work: Work, snapshot: Snapshot, steps: list[Action], full: IndexPlan,
             shown: IndexPlan | None = None) -> None:
    """Keep ``steps`` (``full``'s actions) for review, unless they were declined before while
    the index is unchanged; the report shows ``shown`` (what was applied), else ``full``."""
    shown = full if shown is None else shown
    if not (full.changed or full.creates or full.notes):
        work.plan = dataclasses.replace(work.plan, index=shown)
        return
    if steps and not not_declined(steps[-1:], work.declined)[0]:
        note = (f"{snapshot.index.name}: its changes were declined before, not proposed while "
                "it is unchanged")
        work.plan = dataclasses.replace(work.plan, notes=work.plan.notes + (note,), index=shown)
        return
    start = len(work.plan.actions)
    work.plan = dataclasses.replace(work.plan.with_actions(steps, [False] * len(steps)),
                                    index=dataclasses.replace(
                                        shown, why=shown.why + _proposed(full)))
    work.proposed = work.proposed + tuple(range(start, start + len(steps)))


def _same(full: IndexPlan, safe: IndexPlan) -> bool:
    """Whether the whole plan does no more than the safe one."""
    return (full.text == safe.text and dict(full.notes) == dict(safe.notes)
            and [(t.file, t.text) for t in full.creates]
            == [(t.file, t.text) for t in safe.creates])


def _apply(work: Work, snapshot: Snapshot, index: IndexPlan, kind: str,
           wanted: bool) -> Snapshot:
    """Apply ``index``'s actions (``wanted``: else only list them); the root after them."""
    steps = actions(snapshot, index, work.ctx.now_ns, kind)
    applied = work.executor.apply(steps, [wanted] * len(steps))
    work.plan = dataclasses.replace(work.plan.with_actions(steps, applied), index=index)
    work.after = work.executor.after(snapshot, steps, applied)
    return work.after


def _proposed(full: IndexPlan) -> tuple[str, ...]:
    """The report's words for the index changes waiting for review."""
    if not full.over_limits:
        return (f"waiting for review ({command('proposals')}): {_what(full)}",)
    result = (f"within limits at {full.lines} lines, {full.bytes} bytes" if
              full.within_limits else f"still {full.over}")
    return (f"fitting it moves lines Claude Code loads today, so it waits for review "
            f"({command('proposals')}): {result}", *full.why)


def _what(index: IndexPlan) -> str:
    """The changes to lines Claude Code loads that a whole-index plan makes, in words."""
    parts = []
    if index.over_limits:
        parts.append("lines moved or shortened to fit Claude Code's limits")
    missing = sum(1 for _f, state in index.unlinked if state == "missing")
    if missing:
        parts.append(f"links to {missing} missing file(s) unlinked, their words kept")
    renamed = [old for old, _new in index.repointed]
    if renamed:
        parts.append(f"links to {len(renamed)} file(s) repointed")
    if index.added:
        parts.append(f"{len(index.added)} pointer(s) added")
    return "; ".join(parts) or "index lines changed"
