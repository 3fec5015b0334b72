"""What one root's run carries from phase to phase."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from consolidator.config import Config
from consolidator.paths import ProjectRoot
from consolidator.plan import Plan
from consolidator.store.model import Snapshot


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


@dataclass
class Work:
    """The values the phases hand on: the scan, then the plan."""

    ctx: RootContext
    snapshot: Snapshot | None = None
    plan: Plan = field(default_factory=Plan)
