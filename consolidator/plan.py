"""The Plan: what detect decided and consolidate applies (or a dry run only shows).

Values only; nothing here reads or writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from consolidator.index.rebuild import IndexPlan


@dataclass(frozen=True)
class MemoryInfo:
    file: str
    name: str
    type: str | None
    mtime_ns: int
    age_days: int
    freshness: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Duplicate:
    files: tuple[str, ...]
    keep: str
    similarity: float


@dataclass(frozen=True)
class Conflict:
    files: tuple[str, str]
    newer: str
    similarity: float
    reason: str


@dataclass(frozen=True)
class Stale:
    file: str
    age_days: int
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Action:
    """One change to memory files: ``merge``, ``create``, ``archive`` or ``rewrite``."""

    op: str
    file: str
    reason: str
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    memories: tuple[MemoryInfo, ...] = ()
    duplicates: tuple[Duplicate, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    stale: tuple[Stale, ...] = ()
    actions: tuple[Action, ...] = ()
    index: IndexPlan | None = None
    notes: tuple[str, ...] = field(default=())  # run-level remarks, e.g. a skipped check
