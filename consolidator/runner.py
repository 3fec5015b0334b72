"""One pass over one root: gates, then the phases in order, into a RootReport.

A root that fails is reported as failed; the caller goes on with the next root.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import structlog

from consolidator.config import Config
from consolidator.errors import ConsolidatorError
from consolidator.gates import GateResult, not_evaluated
from consolidator.paths import project_root, root_key, transcripts_dir
from consolidator.phases import PHASES
from consolidator.phases.context import RootContext, Work
from consolidator.plan import Plan
from consolidator.store.model import Snapshot

log = structlog.get_logger("consolidator.runner")


@dataclass(frozen=True)
class LlmUsage:
    backend: str = "offline"
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


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


@dataclass(frozen=True)
class RunReport:
    run_id: str
    dry_run: bool
    roots: tuple[RootReport, ...]

    @property
    def failed(self) -> bool:
        return any(r.status == "failed" for r in self.roots)


def new_run_id(now: datetime) -> str:
    """``20261130T031500Z-3f9a``: sortable, and unique enough across processes."""
    return now.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(2)


@dataclass(frozen=True)
class RunOptions:
    """What the command line asked for, beyond the config."""

    state_dir: Path
    transcripts_dir: str | None = None
    project_root: str | None = None
    dry_run: bool = True
    force: bool = False


def context_for(
    root: Path, cfg: Config, opts: RunOptions, now: datetime, run_id: str
) -> RootContext:
    transcripts = transcripts_dir(opts.transcripts_dir, cfg, root)
    return RootContext(
        root=root,
        cfg=cfg,
        state=opts.state_dir / root_key(root),
        transcripts=transcripts,
        project=project_root(opts.project_root, cfg, transcripts),
        now=now,
        run_id=run_id,
        dry_run=opts.dry_run,
        force=opts.force,
    )


def run_root(ctx: RootContext) -> RootReport:
    """Run the phases on one root; never raises for an expected failure."""
    started = time.monotonic()
    bound = log.bind(run_id=ctx.run_id, root=str(ctx.root))
    gates = not_evaluated("not evaluated: gates are not available yet")
    work = Work(ctx)
    try:
        for name, phase in PHASES:
            bound.debug("phase", phase=name)
            phase(work)
    except (ConsolidatorError, OSError) as exc:
        bound.error("root failed", error=str(exc))
        return RootReport(
            ctx.root, "failed", gates, work.plan, work.snapshot, error=str(exc),
            duration_s=time.monotonic() - started,
        )
    status = "planned" if ctx.dry_run else "consolidated"
    report = RootReport(
        ctx.root, status, gates, work.plan, work.snapshot,
        duration_s=time.monotonic() - started,
    )
    bound.info(
        "root done",
        status=status,
        memories=len(work.plan.memories),
        actions=len(work.plan.actions),
        duration_s=round(report.duration_s, 3),
    )
    return report


def run_all(
    roots: list[Path], cfg: Config, opts: RunOptions, now: datetime
) -> RunReport:
    """Every root in turn; one failing root does not stop the others."""
    run_id = new_run_id(now)
    reports = [run_root(context_for(root, cfg, opts, now, run_id)) for root in roots]
    return RunReport(run_id, opts.dry_run, tuple(reports))
