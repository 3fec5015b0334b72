"""The seven gates, cheapest first (CONTRACT §2). Each returns a verdict and a reason."""

from __future__ import annotations

from dataclasses import dataclass

GATE_NAMES: tuple[tuple[str, str], ...] = (
    ("G1", "enabled"),
    ("G2", "memory-dir"),
    ("G3", "idle"),
    ("G4", "interval"),
    ("G5", "scan-throttle"),
    ("G6", "sessions"),
    ("G7", "lock"),
)


@dataclass(frozen=True)
class GateResult:
    id: str
    name: str
    passed: bool | None
    reason: str


def not_evaluated(reason: str = "not evaluated") -> tuple[GateResult, ...]:
    """Every gate, unevaluated (for a root whose gates never ran)."""
    return tuple(GateResult(gid, name, None, reason) for gid, name in GATE_NAMES)
