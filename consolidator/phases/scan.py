"""Phase 1: read every memory and the index, and count which memories the sessions opened
since the last count (from their transcripts; no memory body is read for it)."""

from __future__ import annotations

from consolidator.phases.context import Work
from consolidator.state import usage
from consolidator.store.scan import scan


def run(work: Work) -> None:
    ctx = work.ctx
    work.snapshot = scan(ctx.root)
    work.usage = usage.counted(usage.load(ctx.state), ctx.session_folders, ctx.root)
