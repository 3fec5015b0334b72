"""Phase 3: apply the plan through the store. The one place that knows about dry runs.

Order keeps every step safe to stop after: a merge first writes the survivor (which holds
every line of its sources), then archives the sources; a source that changed meanwhile
stays live. A file that changed since the scan is skipped and reported.
"""

from __future__ import annotations

from consolidator.errors import FileChanged
from consolidator.phases.context import Work
from consolidator.plan import Edit
from consolidator.store.frontmatter import ParseError
from consolidator.store.model import Memory


def apply_edit(work: Work, memory: Memory, edit: Edit, reason: str) -> bool:
    """Write one memory's new body (and description); False if it was skipped."""
    doc = memory.doc.with_body(edit.body)
    if edit.description is not None:
        try:
            doc = doc.with_field("description", edit.description)
        except ParseError as exc:
            work.skipped.append(f"{memory.file}: description kept ({exc})")
    data = doc.to_bytes()
    mtime = edit.mtime_ns if edit.mtime_ns is not None else memory.stat.mtime_ns
    if data == memory.doc.to_bytes() and mtime == memory.stat.mtime_ns:
        return True
    try:
        work.transaction().rewrite(memory.stat, data, mtime, reason)
    except FileChanged as exc:
        work.skipped.append(str(exc))
        return False
    return True


def archive(work: Work, memory: Memory, reason: str) -> None:
    try:
        work.transaction().archive(memory.stat, reason)
    except FileChanged as exc:
        work.skipped.append(str(exc))


def run(work: Work) -> None:
    if work.ctx.dry_run:
        return
    assert work.snapshot is not None
    by_file = work.snapshot.by_file()
    edits = {e.file: e for e in work.plan.edits}
    for action in work.plan.actions:
        work.ctx.stop.check()
        memory = by_file[action.file]
        if action.op == "merge":
            if not apply_edit(work, memory, edits[action.file], action.reason):
                continue  # survivor changed: keep every source live
            for source in action.sources:
                if source != action.file:
                    work.ctx.stop.check()
                    archive(work, by_file[source], f"merged into {action.file}")
        elif action.op == "archive":
            archive(work, memory, action.reason)
        elif action.op == "rewrite" and action.file in edits:
            apply_edit(work, memory, edits[action.file], action.reason)
