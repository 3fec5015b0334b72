"""The seven gates, cheapest first. Each returns a verdict and a reason.

Gates read folder listings and ``stat`` only, never a memory body: a closed gate must cost
next to nothing, since the service checks every root every few minutes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from consolidator.context import RootContext
from consolidator.gates import checks

Check = Callable[[RootContext], tuple[bool, str]]

GATES: tuple[tuple[str, str, Check], ...] = (
    ("G1", "enabled", checks.enabled),
    ("G2", "memory-dir", checks.memory_dir),
    ("G3", "idle", checks.idle),
    ("G4", "interval", checks.interval),
    ("G5", "scan-throttle", checks.scan_throttle),
    ("G6", "sessions", checks.sessions),
    ("G7", "lock", checks.lock_probe),
)
GATE_NAMES = tuple((gid, name) for gid, name, _ in GATES)


@dataclass(frozen=True)
class GateResult:
    id: str
    name: str
    passed: bool | None
    reason: str


def not_evaluated(reason: str = "not evaluated") -> tuple[GateResult, ...]:
    """Every gate, unevaluated (for a root whose gates never ran)."""
    return tuple(GateResult(gid, name, None, reason) for gid, name in GATE_NAMES)


def evaluate(ctx: RootContext, *, all_of_them: bool) -> tuple[list[GateResult], bool]:
    """Run the gates in order; return the results and whether every one passed.

    ``all_of_them``: the dry-run report evaluates all seven (G7 only probes) and records
    nothing. Otherwise the first failure ends the evaluation (later gates: not evaluated),
    ``--force`` skips G1–G6 (but G3 still closes for an index edited within
    ``idle_minutes``), and G7 is left to the runner, which takes the lock for real.
    """
    results: list[GateResult] = []
    ok = True
    for gid, name, check in GATES:
        if gid == "G7" and not all_of_them:
            break
        if not ok and not all_of_them:
            results.append(GateResult(gid, name, None, "not evaluated"))
            continue
        if ctx.force and gid == "G3":
            forced, reason = checks.idle_under_force(ctx)
            results.append(GateResult(gid, name, forced, reason))
            ok = ok and forced is not False
            continue
        if ctx.force and gid != "G7":
            results.append(GateResult(gid, name, None, "skipped by --force"))
            continue
        if gid == "G6" and not all_of_them and not ctx.dry_run:
            checks.record_scan(ctx)
        passed, reason = check(ctx)
        results.append(GateResult(gid, name, passed, reason))
        ok = ok and passed
    return results, ok
