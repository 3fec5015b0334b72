"""The one clock: what "now" is, and every conversion between a moment and nanoseconds.

Time comes from :func:`now` and is passed down (a run's context carries it), so the code and
the tests agree on what "now" is; freezegun moves it for the tests. Conversions are exact:
a float product of seconds and 1e9 would be off by a few hundred nanoseconds.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

NS = 1_000_000_000
MINUTE_NS = 60 * NS
HOUR_NS = 3600 * NS
DAY_NS = 86_400 * NS
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


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
