"""How old a memory is, in Claude Code's words."""

from __future__ import annotations

import time
from datetime import datetime
from functools import lru_cache

from consolidator.clock import DAY_NS, NS, epoch_ns


def age_days(mtime_ns: int, now: datetime) -> int:
    """Whole days since ``mtime_ns`` (floor; never negative for a future mtime)."""
    return max(0, (epoch_ns(now) - mtime_ns) // DAY_NS)


@lru_cache(maxsize=4096)
def freshness_text(days: int) -> str:
    """``today``, ``yesterday`` or ``N days ago``."""
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days ago"


@lru_cache(maxsize=4096)
def age_warning(days: int) -> str | None:
    """The note Claude Code attaches to memories over a day old."""
    if days <= 1:
        return None
    return (
        f"This memory is {days} days old. Memories are point-in-time observations, not live "
        "state — claims about code behavior or file:line citations may be outdated. Verify "
        "against current code before asserting as fact."
    )


def iso(mtime_ns: int) -> str:
    """UTC ISO 8601 with a ``Z``, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime_ns // NS))
