"""Phase 4: plan (and in a real run, write) MEMORY.md within its limits."""

from __future__ import annotations

import dataclasses

from consolidator.index.rebuild import Limits, plan_index
from consolidator.phases.context import Work
from consolidator.plan import Action


def run(work: Work) -> None:
    snapshot = work.snapshot
    assert snapshot is not None
    if snapshot.index.error is not None:
        work.plan = dataclasses.replace(
            work.plan,
            notes=work.plan.notes + (f"MEMORY.md left alone: {snapshot.index.error}",),
        )
        return
    gone = {a.file for a in work.plan.actions if a.op == "archive"}
    redirects = {
        source: a.file
        for a in work.plan.actions
        if a.op == "merge"
        for source in a.sources
        if source != a.file
    }
    gone |= set(redirects)
    live = [m for m in snapshot.memories if m.file not in gone]
    text = snapshot.index.text
    limits = work.ctx.cfg.index
    plan = plan_index(
        text,
        live,
        present=snapshot.existing_files() - gone,
        redirects=redirects,
        index_mtime_ns=snapshot.index.stat.mtime_ns if snapshot.index.stat else 0,
        limits=Limits(limits.max_lines, limits.max_bytes, limits.max_line_chars),
        newline="\r\n" if text and "\r\n" in text else "\n",
    )
    actions = list(work.plan.actions)
    for file, lines in plan.notes.items():
        actions.append(Action("rewrite", file, f"index detail moved in: {len(lines)} line(s)"))
    for topic in plan.creates:
        actions.append(Action("create", topic.file, "index overflow", topic.sources))
    work.plan = dataclasses.replace(work.plan, index=plan, actions=tuple(actions))
