"""The one clock: what "now" is, and every conversion between a moment and nanoseconds.

Time comes from :func:`now` and is passed down (a run's context carries it), so the code and
the tests agree on what "now" is; freezegun moves it for the tests. Conversions are exact:
a float product of seconds and 1e9 would be off by a few hundred nanoseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

NS = 1_000_000_000
MINUTE_NS = 60 * NS
HOUR_NS = 3600 * NS
DAY_NS = 86_400 * NS
WEEK_NS = 7 * DAY_NS
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DURATION = re.compile(r"([0-9]+)([mhdw]?)")
_UNITS = {"m": (MINUTE_NS, "minute"), "h": (HOUR_NS, "hour"), "d": (DAY_NS, "day"),
          "w": (WEEK_NS, "week"), "": (DAY_NS, "day")}
DURATION_FORMS = "a number of days (30) or a number with its unit (30d, 12h, 2w, 90m)"


def now() -> datetime:
    """The current moment, in UTC."""
    return datetime.now(UTC)


def now_ns() -> int:
    """The current moment, in nanoseconds since the epoch."""
    return epoch_ns(now())


def epoch_ns(moment: datetime) -> int:
    """Exact nanoseconds since the epoch (a naive ``moment`` is local time)."""
    aware = moment if moment.tzinfo else moment.astimezone()
    return (aware - _EPOCH) // timedelta(microseconds=1) * 1000


def local(ns: int) -> datetime:
    """The local, naive moment of ``ns`` (what a memory's mtime means to its writer)."""
    return datetime.fromtimestamp(ns // NS) + timedelta(microseconds=ns % NS // 1000)


@dataclass(frozen=True)
class Duration:
    """A span of time as a command line gives it: ``ns`` long, said in ``words``."""

    ns: int
    words: str  # "30 days", "12 hours"


def duration(text: str) -> Duration:
    """The one reading of a duration for every command: ``30`` (days), ``30d``, ``12h``,
    ``2w`` or ``90m`` (minutes). Raises :class:`ValueError` for anything else."""
    found = _DURATION.fullmatch(text)
    if found is None:
        raise ValueError(f"{text!r} is not a duration: {DURATION_FORMS}")
    count = int(found.group(1))
    unit_ns, unit = _UNITS[found.group(2)]
    return Duration(count * unit_ns, f"{count} {unit}{'' if count == 1 else 's'}")
