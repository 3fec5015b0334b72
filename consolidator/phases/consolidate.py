"""Phase 3: apply the plan through the store. The one place that knows about dry runs."""

from __future__ import annotations

from consolidator.phases.context import Work


def run(work: Work) -> None:
    if work.ctx.dry_run:
        return
    raise NotImplementedError("consolidation is not available yet")
