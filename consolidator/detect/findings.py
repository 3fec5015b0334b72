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
    # Written within SAME_AGE_S of each other: which is newer is not known (``newer`` is then
    # only the later name), and the conflict is reported, never resolved.
    same_age: bool = False


SAME_AGE_S = 60  # seconds: files written this close (a checkout, a copy, one save of both)


def newer_of(a: str, a_ns: int, b: str, b_ns: int) -> tuple[str, bool]:
    """The file written last of two (Claude Code's ``modified``, else the file's time), and
    whether the two were written within SAME_AGE_S of each other, too close to tell."""
    newer = a if (a_ns, a) > (b_ns, b) else b
    return newer, abs(a_ns - b_ns) < SAME_AGE_S * 1_000_000_000


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
