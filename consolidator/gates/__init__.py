"""The seven gates, numbered in the contract's order and evaluated cheapest first; each
returns a verdict and a reason.

Gates read folder listings and ``stat`` only, never a memory body: a closed gate must cost
next to nothing, since the service checks every root every few minutes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
# Cheapest first: G4 reads one file's mtime, G5 one stat; G3 stats every transcript and
# memory, so it runs only once those pass.
ORDER = ("G1", "G2", "G4", "G5", "G3", "G6", "G7")
_CHECKS = {gid: check for gid, _name, check in GATES}


@dataclass(frozen=True)
class GateResult:
    id: str
    name: str
    passed: bool | None
    reason: str


def not_evaluated(reason: str = "not evaluated") -> tuple[GateResult, ...]:
    """Every gate, unevaluated (for a root whose gates never ran)."""
    return tuple(GateResult(gid, name, None, reason) for gid, name in GATE_NAMES)


def unusable_reason(gates: Iterable[GateResult]) -> tuple[bool, str | None]:
    """``(known, reason)``: whether G2 said anything about the root in these results, and
    why the root cannot be used (``None``: usable). A root is unusable when G2 closes for any
    reason but an empty folder: it is gone, not a folder, or not readable and writable (a
    sandbox's ``ReadWritePaths=`` that leaves it out). G2 not evaluated (an earlier gate
    closed, ``--force``, the root failed first) says nothing."""
    g2 = next((g for g in gates if g.id == "G2"), None)
    if g2 is None or g2.passed is None:
        return False, None
    if g2.passed or g2.reason == checks.NO_MEMORY:
        return True, None
    return True, g2.reason


def settled_by(ctx: RootContext, results: list[GateResult]) -> bool:
    """Whether the gates found the session that just ended (Claude Code's SessionEnd hook)
    the only one at work: G3 passed on it, so what it wrote is in no live session's hands."""
    return ctx.ended is not None and not ctx.force and any(
        g.id == "G3" and g.passed is True for g in results)


def evaluate(ctx: RootContext, *, all_of_them: bool) -> tuple[list[GateResult], bool]:
    """Run the gates cheapest first (:data:`ORDER`); return the results in their numbered
    order and whether every one passed.

    ``all_of_them``: the dry-run report evaluates all seven (G7 only probes) and records
    nothing. Otherwise the first failure ends the evaluation (the gates after it in
    evaluation order: not evaluated), ``--force`` skips G1–G6, and G7 is left to the runner,
    which takes the lock for real (it is returned as not evaluated).
    """
    verdicts: dict[str, tuple[bool | None, str]] = {}
    ok = True
    for gid in ORDER:
        check = _CHECKS[gid]
        if (gid == "G7" and not all_of_them) or (not ok and not all_of_them):
            verdicts[gid] = (None, "not evaluated")
        elif ctx.force and gid != "G7":
            verdicts[gid] = (None, "skipped by --force")
        else:
            passed, reason = check(ctx)
            verdicts[gid] = (passed, reason)
            ok = ok and passed
    return [GateResult(gid, name, *verdicts[gid]) for gid, name in GATE_NAMES], ok
