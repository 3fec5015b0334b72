"""What a pass did: one RootReport per root, in a RunReport. Values only, read by the report,
the history and the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from consolidator.detect.findings import LlmUsage
from consolidator.gates import GateResult
from consolidator.plan import Plan
from consolidator.store.model import Snapshot


@dataclass(frozen=True)
class RootReport:
    memory_dir: Path
    status: str  # planned | consolidated | skipped | failed
    gates: tuple[GateResult, ...]
    plan: Plan = field(default_factory=Plan)
    snapshot: Snapshot | None = None
    error: str | None = None
    llm: LlmUsage = field(default_factory=LlmUsage)
    duration_s: float = 0.0
    skipped: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # memories a merge folded in but left live (changed on disk)
    lock_held: bool = False
    kind: str = "auto"  # the kind of store (see consolidator.roots.stores)


@dataclass(frozen=True)
class RunReport:
    run_id: str
    dry_run: bool
    roots: tuple[RootReport, ...]
    recorded: bool = True  # the run is in each root's history (``report`` records nothing)

    @property
    def failed(self) -> bool:
        return any(r.status == "failed" for r in self.roots)

    @property
    def lock_held(self) -> bool:
        return any(r.lock_held for r in self.roots)
