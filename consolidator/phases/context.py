"""What one root's run carries from phase to phase."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from consolidator.config import Config
from consolidator.paths import ProjectRoot
from consolidator.plan import Plan
from consolidator.stop import StopToken
from consolidator.store.model import Snapshot
from consolidator.store.transaction import Transaction


@dataclass(frozen=True)
class RootContext:
    """The fixed facts of one root's run."""

    root: Path
    cfg: Config
    state: Path  # this root's folder in the state dir
    transcripts: Path
    project: ProjectRoot
    now: datetime
    run_id: str
    dry_run: bool = True
    force: bool = False
    trigger: str = "report"
    env: Mapping[str, str] = field(default_factory=dict)
    stop: StopToken = field(default_factory=StopToken, compare=False)

    @property
    def now_ns(self) -> int:
        return int(self.now.timestamp() * 1_000_000_000)

    @property
    def hot_after_ns(self) -> int:
        """Memories with a later mtime may be in a live session's hands: never touched."""
        return self.now_ns - self.cfg.gates.idle_minutes * 60 * 1_000_000_000

    @property
    def run_dir(self) -> Path:
        return self.state / "runs" / self.run_id


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
