"""The Plan: what detect decided and consolidate applies (or a dry run only shows).

Values only; nothing here reads or writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from consolidator.index.rebuild import IndexPlan


@dataclass(frozen=True, slots=True)
class LlmUsage:
    """What one root's run spent on the model."""

    backend: str = "offline"
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class MemoryInfo:
    file: str
    name: str
    type: str | None
    mtime_ns: int
    age_days: int
    freshness: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Duplicate:
    files: tuple[str, ...]
    keep: str
    similarity: float


@dataclass(frozen=True, slots=True)
class Conflict:
    files: tuple[str, str]
    newer: str
    similarity: float
    reason: str
    evidence: tuple[str, ...] = ()  # the disagreeing line of each file, as written


@dataclass(frozen=True, slots=True)
class Similar:
    """Two memories that say much the same thing, too differently to merge offline."""

    files: tuple[str, str]
    similarity: float
    lines: tuple[tuple[str, str], ...] = ()  # lines that match, one from each file


@dataclass(frozen=True, slots=True)
class Stale:
    file: str
    age_days: int
    reasons: tuple[str, ...]
    evidence: tuple[str, ...] = ()  # the lines the reasons rest on, as written
    archivable: bool = False  # evidence about the memory as a whole


@dataclass(frozen=True, slots=True)
class Action:
    """One change to memory files: ``merge``, ``create``, ``archive`` or ``rewrite``."""

    op: str
    file: str
    reason: str
    sources: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()  # the lines it rests on; a rewrite gives "before -> after"
    successor: str = ""  # an archive: the memory that supersedes it, if any


@dataclass(frozen=True, slots=True)
class Plan:
    memories: tuple[MemoryInfo, ...] = ()
    duplicates: tuple[Duplicate, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    similar: tuple[Similar, ...] = ()
    stale: tuple[Stale, ...] = ()
    actions: tuple[Action, ...] = ()
    index: IndexPlan | None = None
    notes: tuple[str, ...] = field(default=())  # run-level remarks, e.g. a skipped check
    edits: tuple[Edit, ...] = ()  # the payload of merge and rewrite actions

    def archived(self) -> dict[str, str]:
        """Files this plan moves into the archive -> why (merged-away or stale)."""
        out = {}
        for action in self.actions:
            if action.op == "archive":
                out[action.file] = action.reason
            elif action.op == "merge":
                for source in action.sources:
                    if source != action.file:
                        out[source] = f"merged into {action.file}"
        return out

    def redirects(self) -> dict[str, str]:
        """Merged-away (or superseded) file -> the survivor that took its place."""
        out = {
            source: action.file
            for action in self.actions
            if action.op == "merge"
            for source in action.sources
            if source != action.file
        }
        out.update({a.file: a.successor for a in self.actions if a.op == "archive" and a.successor})
        return out


@dataclass(frozen=True, slots=True)
class Edit:
    """New content for one memory: its body, maybe its description, and its mtime."""

    file: str
    body: str
    description: str | None = None
    mtime_ns: int | None = None
