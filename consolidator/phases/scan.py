"""Phase 1: read every memory and the index."""

from __future__ import annotations

from consolidator.phases.context import Work
from consolidator.store.scan import scan


def run(work: Work) -> None:
    work.snapshot = scan(work.ctx.root)
