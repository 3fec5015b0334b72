"""Which day may date a memory's passages that its text gives no date for.

A relative date is resolved against the date its passage is given (a heading, a label, the
file name: :mod:`consolidator.detect.dates.anchors`). For a passage given none, a memory as a
whole may still say which day it is of: its description, where the text bears it out
(:func:`described_day`), or the time it was written, where it is a record of one day
(:func:`dated_by_writing`). Everywhere else such a passage keeps its words as written.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import date, datetime, timedelta

from consolidator import clock
from consolidator.detect.dates.anchors import (
    RANGE_AFTER,
    RANGE_BEFORE,
    Explicit,
    explicit_dates,
    writing_day,
)
from consolidator.store.model import Memory

RECORD_LINES = 80  # longer than this, a memory has been added to over many days
_RECORD_TYPES = frozenset({None, "project"})  # feedback is a rule, user a profile, reference a
# definition: their undated lines are not a record of the day they were last saved


SESSION_KEY = "originSessionId"  # the session Claude Code wrote a memory in


def long_sessions(memories: Iterable[Memory]) -> frozenset[str]:
    """The memories written in a session that went on over more than one day: the memories
    sharing its ``originSessionId`` were last written (by their ``modified`` stamps, else
    their files' times) on different days. "This session" there names no one day, and the
    day a memory was last saved is not the day its undated lines were written."""
    days: dict[str, set[date]] = defaultdict(set)
    files: dict[str, list[str]] = defaultdict(list)
    for memory in memories:
        session = memory.doc.fields.get(memory.doc.key_of(SESSION_KEY), "").strip()
        if session:
            files[session].append(memory.file)
            days[session].add(clock.local(memory.written_ns).date())
    return frozenset(f for session, found in files.items() if len(days[session]) > 1
                     for f in found)


COPIED_LEAST = 5  # memories whose files' times say they were all written at one go
COPY_GAP_NS = clock.MINUTE_NS  # ... each within this of the next


def copied_together(memories: Iterable[Memory]) -> frozenset[str]:
    """The memories whose files' times are a copy's, not their writing's: with no stamp by
    Claude Code, in one run of at least COPIED_LEAST memories (stamped or not) whose files
    were each written within a minute of the next. A checkout, a restore or a copy writes a
    whole folder at one go; Claude Code saves a memory when a session learns something.
    Such a file's time dates none of its undated lines (a memory saved in the same minute
    as four others may be a session's own, and is then left as written: a day not given is
    no day lost). The dates its text and its name give still date their passages."""
    times = sorted((memory.stat.mtime_ns, memory.file, memory.modified_ns is None)
                   for memory in memories)
    out: list[str] = []
    run: list[tuple[str, bool]] = []
    last = None
    for mtime_ns, file, unstamped in times:
        if last is not None and mtime_ns - last >= COPY_GAP_NS:
            out.extend(f for f, bare in run if bare and len(run) >= COPIED_LEAST)
            run = []
        run.append((file, unstamped))
        last = mtime_ns
    out.extend(f for f, bare in run if bare and len(run) >= COPIED_LEAST)
    return frozenset(out)


def records_a_day(memory: Memory) -> bool:
    """Whether a memory's type is one whose text records work done (a project memory, or an
    untyped one), not a rule, a profile or a definition."""
    return memory.type in _RECORD_TYPES


def dated_by_writing(memory: Memory) -> bool:
    """Whether the time a memory was written may date the passages its text gives no date
    for: when Claude Code stamped it (``modified``), the text gives no later date and the
    stamp is no save past midnight of a session of the day before (:func:`_past_midnight`),
    or when it reads as a record of one day
    (a project note of at most RECORD_LINES lines holding no date anywhere, so that nothing
    in it was added on another day). A date in its description ("status as of 2026-04-11")
    names the day its text is of: the save time may date it only when it is that same day."""
    if memory.modified_ns is not None:
        stamped = clock.local(memory.modified_ns)
        return not _after(memory.body, stamped.date()) and not _past_midnight(memory, stamped)
    body = memory.body
    if not records_a_day(memory) or body.count("\n") >= RECORD_LINES \
            or explicit_dates(body):
        return False
    saved = clock.local(memory.written_ns).date()
    return all((d.year in (None, saved.year)) and (d.month, d.day) == (saved.month, saved.day)
               for d in explicit_dates(memory.description or ""))


SMALL_HOURS = 6  # a stamp before this hour may close a session of the day before


def _past_midnight(memory: Memory, stamped: datetime) -> bool:
    """Whether Claude Code stamped the memory in the small hours and the latest day its text
    gives is the day before ("End of day 21/09." saved at 01:51 on the 22nd): the session
    may be either day's, so the stamp dates no undated passage."""
    if stamped.hour >= SMALL_HOURS:
        return False
    before = stamped.date() - timedelta(days=1)
    days = [_day_of(found, stamped.date()) for found in explicit_dates(memory.body)]
    return max((day for day in days if day is not None), default=None) == before


def _day_of(found: Explicit, stamped: date) -> date | None:
    """The day an explicit date names (one without a year: in the stamp's year)."""
    try:
        return date(found.year or stamped.year, found.month, found.day)
    except ValueError:
        return None


def _after(text: str, stamped: date) -> bool:
    """Whether ``text`` gives a date more than a day after ``stamped`` (a date without a year
    taken in the stamp's year): lines were added after Claude Code's last stamp (an edit by
    hand, a copy), so the stamp does not date the text's undated passages. A date ahead of
    the writing (a deadline, a plan) counts too: such a memory is no record of one day."""
    latest = stamped + timedelta(days=1)
    return any(day is not None and day > latest
               for day in (_day_of(found, stamped) for found in explicit_dates(text)))


def titled_day(memory: Memory) -> date | None:
    """The day a memory's title says its text is of ("Deploy status (2026-05-10)", "测试状态
    (2026-03-28 更新)"): its frontmatter name ends with one dated aside in brackets, the date
    first in it and at most two words after it ("updated", "기준"; "(legacy — API cut
    2026-04-06)" tells of an event, a range of days names no one day), for a project (or
    untyped) memory whose text gives no later date, whose description names no other day,
    and whose stamp by Claude Code, if any, is of that day. (A heading's date is not the
    note's: "## Stock: 115,800 (20 March 2026)" dates a count, maybe not the writing.)"""
    if not records_a_day(memory):
        return None
    aside = _TITLE_ASIDE.search(memory.name)
    if aside is None:
        return None
    found = explicit_dates(aside.group(1))
    if len(found) != 1 or found[0].start != 0 or found[0].year is None \
            or RANGE_AFTER.match(aside.group(1), found[0].end) \
            or len(aside.group(1)[found[0].end :].split()) > 2:
        return None
    day = writing_day(found[0], clock.local(memory.written_ns).date())
    if day is None or _after(memory.body, day) or not _of_day(memory.description or "", day):
        return None
    if memory.modified_ns is not None and clock.local(memory.modified_ns).date() != day:
        return None
    return day


def _of_day(text: str, day: date) -> bool:
    """Whether every date ``text`` gives is ``day`` (a date without a year: that day of
    any year), none of them one end of a range."""
    for found in explicit_dates(text):
        if (found.year or day.year, found.month, found.day) != (day.year, day.month, day.day) \
                or RANGE_BEFORE.search(text, 0, found.start) or RANGE_AFTER.match(text, found.end):
            return False
    return True


_TITLE_ASIDE = re.compile(r"[(（\[]\s*([^()（）\[\]]{6,40}?)\s*[)）\]]\s*$")


def described_day(memory: Memory) -> date | None:
    """The day a memory's description says its text is of ("status as of 2026-04-11"), where
    the text bears it out: a project (or untyped) memory under RECORD_LINES lines; the
    description names one day, with its year, and no range; the text dates its sections with
    headings, every date it gives stands in a heading and is that day (its sections are of
    that day, so an undated one is too: a date in a sentence, "the outage began on …", may
    be an event's, not the writing's); it is not after the memory was saved, and Claude
    Code's stamp, if any, is of that day (a later stamp may have added lines on a later
    day)."""
    description = memory.description or ""
    found = explicit_dates(description)
    if len(found) != 1 or found[0].year is None or not records_a_day(memory) \
            or RANGE_BEFORE.search(description, 0, found[0].start) \
            or RANGE_AFTER.match(description, found[0].end):
        return None
    day = writing_day(found[0], clock.local(memory.written_ns).date())
    body = memory.body
    if day is None or body.count("\n") >= RECORD_LINES:
        return None
    given = 0
    for line in body.splitlines():
        for d in explicit_dates(line):
            if not _HEADING.match(line) \
                    or (d.year or day.year, d.month, d.day) != (day.year, day.month, day.day):
                return None
            given += 1
    if not given:
        return None
    if memory.modified_ns is not None and clock.local(memory.modified_ns).date() != day:
        return None
    return day


_HEADING = re.compile(r" {0,3}#{1,6}\s")
