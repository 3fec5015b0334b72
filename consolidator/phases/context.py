"""What one root's run carries from phase to phase."""

from __future__ import annotations

from dataclasses import dataclass, field

from consolidator.context import RootContext
from consolidator.plan import Plan
from consolidator.store.model import Snapshot
from consolidator.store.transaction import Transaction


__all__ = ["RootContext", "Work"]


@dataclass
class Work:
    """The values the phases hand on: the scan, the plan, and what was skipped."""

    ctx: RootContext
    snapshot: Snapshot | None = None
    plan: Plan = field(default_factory=Plan)
    skipped: list[str] = field(default_factory=list)  # changed on disk, left alone
    tx: Transaction | None = None

    def transaction(self) -> Transaction:
        """The run's journaled writer, opened on the first change."""
        if self.tx is None:
            self.tx = Transaction(
                self.ctx.root,
                self.ctx.run_dir,
                {"run_id": self.ctx.run_id, "memory_dir": str(self.ctx.root),
                 "started_at": self.ctx.now.isoformat()},
            )
        return self.tx
