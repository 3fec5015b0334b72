"""One interface for every backend: a question about a cluster in, a checked answer out.

A backend is asked only about clusters detect already found, never about the whole
directory. ``None`` means "decide offline" — the answer for the offline backend, and for any
answer that fails validation, times out, errors or would break the budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from consolidator.store.model import Memory

DECISIONS = {
    "merge": ("merge", "keep_both"),
    "conflict": ("supersede", "keep_both"),
    "stale": ("obsolete", "valid"),
}


@dataclass(frozen=True)
class Question:
    kind: str  # a key of DECISIONS: "merge", "conflict" or "stale"
    files: tuple[str, ...]
    evidence: str
    priority: float


@dataclass(frozen=True)
class Answer:
    """A validated answer; ``keep`` is always one of the question's files (or None)."""

    question: Question
    decision: str
    reason: str
    keep: str | None = None
    body: str | None = None
    description: str | None = None


@dataclass
class Usage:
    backend: str = "offline"
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    notes: list[str] = field(default_factory=list)
    standing: list[str] = field(default_factory=list)  # true of every root of the run


class Backend(Protocol):
    usage: Usage

    def ask(self, question: Question, memories: dict[str, Memory]) -> Answer | None:
        """A checked answer, or ``None`` to let the offline decision stand."""


class Offline:
    """The default: every decision is the offline one; no call, no cost."""

    def __init__(self) -> None:
        self.usage = Usage("offline")

    def ask(self, question: Question, memories: dict[str, Memory]) -> Answer | None:
        return None
