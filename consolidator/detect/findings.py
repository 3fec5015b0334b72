"""What detect finds: values a report shows and decide acts on.

Values only, below everything that acts: detectors build them, the plan and the report read
them; nothing here reads or writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    opened_in: int | None = None  # counted sessions that opened it (None: no count)


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
    # Found by key (one tool given two versions in differently worded lines): reported only,
    # never resolved offline.
    keyed: bool = False
    # Written within a minute of each other (see conflicts.age): which is newer is known only
    # where the dates in their text tell (``newer_by_text``); else ``newer`` is only the later
    # name, and the conflict is reported, never resolved.
    same_age: bool = False
    newer_by_text: bool = False


@dataclass(frozen=True, slots=True)
class Similar:
    """Two memories that say much the same thing, too differently to merge offline."""

    files: tuple[str, str]
    similarity: float
    lines: tuple[tuple[str, str], ...] = ()  # lines that match, one from each file
    restated: bool = False  # one point made again, not the memories alike as wholes
    # Set (to how many) when the only evidence is a line of each sharing that many words no
    # third memory uses: the pair may say the same thing (see overlap/similar.py).
    rare: int = 0


@dataclass(frozen=True, slots=True)
class Stale:
    file: str
    age_days: int
    reasons: tuple[str, ...]
    evidence: tuple[str, ...] = ()  # the lines the reasons rest on, as written
    archivable: bool = False  # evidence about the memory as a whole
    whole: bool = False  # about the memory as a whole, reported only (see StaleFinding)
