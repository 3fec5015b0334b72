"""Phase 4: plan MEMORY.md within its limits; in a real run, write it and what it moves.

A dry run plans from the scan plus the plan's merges and archives. A real run re-reads the
root after phase 3 and plans from what is really there, so a skipped step never leaves the
index pointing at a file that was not moved.
"""

from __future__ import annotations

import dataclasses
import os

from consolidator.errors import FileChanged
from consolidator.index.fit import Limits
from consolidator.index.rebuild import IndexPlan, plan_index
from consolidator.phases.consolidate import apply_edit
from consolidator.phases.context import Work
from consolidator.plan import Action, Edit
from consolidator.store.frontmatter import BOM
from consolidator.store.model import Snapshot
from consolidator.store.scan import scan
from consolidator.store.transaction import root_mode


def _plan(
    work: Work, snapshot: Snapshot, gone: set[str], redirects: dict[str, str], archived: set[str]
) -> IndexPlan:
    text = snapshot.index.text
    limits = work.ctx.cfg.index
    live = [m for m in snapshot.memories if m.file not in gone]
    return plan_index(
        text,
        live,
        present=snapshot.existing_files() - gone,
        redirects=redirects,
        archived=archived,
        index_mtime_ns=snapshot.index.stat.mtime_ns if snapshot.index.stat else 0,
        limits=Limits(limits.max_lines, limits.max_bytes, limits.max_line_chars),
        newline="\r\n" if text and "\r\n" in text else "\n",
        editable={m.file for m in live if m.stat.mtime_ns <= work.ctx.hot_after_ns},
        index_name=snapshot.index.name,
        occupied=_top_names(snapshot),
    )


def _top_names(snapshot: Snapshot) -> set[str]:
    """Every name in the root's top folder: a folder, a link or a big file may hold a name
    the scan does not list as a memory. Only names are read."""
    try:
        return set(os.listdir(snapshot.root))
    except OSError:
        return set()


def _write(work: Work, snapshot: Snapshot, plan: IndexPlan) -> None:
    by_file = snapshot.by_file()
    tx = work.transaction()
    index_stat = snapshot.index.stat
    mode = index_stat.mode if index_stat else root_mode([m.stat.mode for m in snapshot.memories])
    index = snapshot.index
    # The text leaving the index lands first; if any of it cannot, the index stays as it is
    # this run, so no line leaves it without a live copy.
    landed = True
    for topic in plan.creates:
        try:
            tx.create(topic.file, topic.text.encode("utf-8"), topic.mtime_ns, topic.reason, mode)
        except (FileChanged, OSError) as exc:
            work.skipped.append(f"{topic.file}: {exc}")
            landed = False
    for file, lines in plan.notes.items():
        memory = by_file[file]
        newline = memory.doc.newline
        body = memory.body
        if body and not body.endswith(("\n", "\r")):
            body += newline
        body += newline.join(lines) + newline
        landed = apply_edit(work, memory, Edit(file, body), "index detail moved in") and landed
    if not plan.changed:
        return
    if not landed:
        work.skipped.append(f"{index.name}: left as it is, the text it would move did not land")
        return
    data = (BOM if index.bom else b"") + plan.text.encode("utf-8")
    try:
        if index.stat is None:
            tx.create(index.name, data, work.ctx.now_ns, "index rebuilt", mode)
        else:
            tx.rewrite(index.stat, data, work.ctx.now_ns, "index rebuilt")
    except (FileChanged, OSError) as exc:
        work.skipped.append(f"{index.name}: {exc}")


def run(work: Work) -> None:
    snapshot = work.snapshot
    assert snapshot is not None
    leaving = set(work.plan.archived())
    if work.ctx.dry_run:
        gone, redirects = leaving, work.plan.redirects()
        present = snapshot.existing_files() - gone
    else:
        snapshot = scan(work.ctx.root)
        present = snapshot.existing_files()
        gone = set()
        redirects = {s: k for s, k in work.plan.redirects().items() if s not in present}
    archived = {f for f in leaving if f not in present and f not in redirects}
    if snapshot.index.error is not None:
        note = f"{snapshot.index.name} left alone: {snapshot.index.error}"
        work.plan = dataclasses.replace(work.plan, notes=work.plan.notes + (note,))
        return
    plan = _plan(work, snapshot, gone, redirects, archived)
    actions = list(work.plan.actions)
    for file, lines in plan.notes.items():
        actions.append(Action("rewrite", file, f"index detail moved in: {len(lines)} line(s)"))
    for topic in plan.creates:
        actions.append(Action("create", topic.file, topic.reason, topic.sources))
    work.plan = dataclasses.replace(work.plan, index=plan, actions=tuple(actions))
    if not work.ctx.dry_run:
        _write(work, snapshot, plan)
