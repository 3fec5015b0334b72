"""Which of two conflicting memories is the newer one.

The one written last: Claude Code's ``modified`` stamp, else the file's time. Two memories
written within a minute of each other (a checkout, a copy, one save of both) are of one age
as far as their times tell; there the dates in their text may tell instead: the memory whose
latest dated record is a later day is the newer. Only days up to the day the memory was
written count (a date ahead of it is a plan or a deadline, not a record). Where neither tells,
the conflict has no newer side and is never resolved.
"""

from __future__ import annotations

from datetime import date, timedelta

from consolidator import clock
from consolidator.detect.dates.anchors import explicit_dates
from consolidator.store.model import Memory

SAME_AGE_NS = clock.MINUTE_NS  # files written this close are of one age


def newer_of(a: Memory, b: Memory) -> tuple[str, bool, bool]:
    """The newer file of ``a`` and ``b``; whether they were written within SAME_AGE_NS of each
    other; and whether the dates in their text then tell which is newer (else the newer
    file named is only the later name)."""
    newer = a.file if (a.written_ns, a.file) > (b.written_ns, b.file) else b.file
    if abs(a.written_ns - b.written_ns) >= SAME_AGE_NS:
        return newer, False, False
    day_a, day_b = last_recorded(a), last_recorded(b)
    if day_a is None or day_b is None or day_a == day_b:
        return newer, True, False
    return (a.file if day_a > day_b else b.file), True, True


def last_recorded(memory: Memory) -> date | None:
    """The latest day, with its year, that a memory's text gives and that is not after the
    day it was written: the day its newest record is of (a conflict resolved by the dates in
    the text says its older line was superseded on that day)."""
    latest = clock.local(memory.written_ns).date() + timedelta(days=1)
    days = []
    for found in explicit_dates(memory.body):
        if found.year is None:
            continue
        try:
            day = date(found.year, found.month, found.day)
        except ValueError:
            continue
        if day <= latest:
            days.append(day)
    return max(days, default=None)
