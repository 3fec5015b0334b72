"""Phase 4: plan MEMORY.md within its limits, as actions the executor applies.

The index is planned from the root as the applied actions left it (read again after a real
run, so a step left alone never leaves the index pointing at a file that was not moved).
The text leaving the index lands first (topic memories, details moved into the memory they
describe); the index is rewritten only when all of it landed, so no line leaves the index
without a live copy.
"""

from __future__ import annotations

import dataclasses

from consolidator.decide import moves
from consolidator.index.fit import Limits
from consolidator.index.rebuild import IndexPlan, plan_index
from consolidator.phases.context import Work
from consolidator.plan import SAFE, Action, Create, Rewrite
from consolidator.store.frontmatter import BOM
from consolidator.store.model import Snapshot
from consolidator.store.transaction import root_mode


def plan(work: Work, snapshot: Snapshot) -> IndexPlan:
    """The rebuilt index for ``snapshot``, repointing what this run's applied actions moved."""
    moved, archived = moves(work.plan.done(), snapshot.existing_files())
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
        newline="\r\n" if text and "\r\n" in text else "\n",
        editable={m.file for m in snapshot.memories if m.stat.mtime_ns <= work.ctx.hot_after_ns},
        index_name=snapshot.index.name,
        occupied=snapshot.names,
    )


def actions(snapshot: Snapshot, index: IndexPlan, now_ns: int) -> list[Action]:
    """What the index plan writes: topic memories, details moved into memories, the index."""
    by_file = snapshot.by_file()
    current = snapshot.index
    mode = current.stat.mode if current.stat else root_mode([m.stat.mode for m in snapshot.memories])
    out: list[Action] = [
        Create(file=t.file, kind=SAFE, data=t.text.encode("utf-8"), mtime_ns=t.mtime_ns,
               reason=t.reason, sources=t.sources, mode=mode)
        for t in index.creates
    ]
    for file, lines in index.notes.items():
        memory = by_file[file]
        newline = memory.doc.newline
        body = memory.body
        if body and not body.endswith(("\n", "\r")):
            body += newline
        body += newline.join(lines) + newline
        out.append(Rewrite(file=file, kind=SAFE, data=memory.doc.with_body(body).to_bytes(),
                           mtime_ns=memory.stat.mtime_ns, before=(memory.stat,),
                           reason=f"index detail moved in: {len(lines)} line(s)",
                           evidence=tuple(lines)))
    if not index.changed:
        return out
    data = (BOM if current.bom else b"") + index.text.encode("utf-8")
    needs = tuple(a.file for a in out)
    if current.stat is None:
        out.append(Create(file=current.name, kind=SAFE, data=data, mtime_ns=now_ns,
                          reason="index rebuilt", mode=mode, needs=needs))
    else:
        out.append(Rewrite(file=current.name, kind=SAFE, data=data, mtime_ns=now_ns,
                           reason="index rebuilt", before=(current.stat,), needs=needs))
    return out


def run(work: Work) -> None:
    snapshot = work.after or work.snapshot
    assert snapshot is not None
    if snapshot.index.error is not None:
        note = f"{snapshot.index.name} left alone: {snapshot.index.error}"
        work.plan = dataclasses.replace(work.plan, notes=work.plan.notes + (note,))
        return
    index = plan(work, snapshot)
    steps = actions(snapshot, index, work.ctx.now_ns)
    applied = work.executor.apply(steps, [work.mode != "none"] * len(steps))
    work.plan = dataclasses.replace(work.plan.with_actions(steps, applied), index=index)
    work.after = work.executor.after(snapshot, steps, applied)
