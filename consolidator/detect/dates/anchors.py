"""The day a relative date is counted from: the nearest explicit date the phrase is anchored to.

People date their notes in many places (2026-03-24, 2026年3月24日, March 24, 2026, 24.03.2026):
a date right after the phrase ("today (Wed 08-19)"),
a dated label opening the line or paragraph ("Context (2026-03-24): ...", "- 2026-03-24: ..."),
the heading above ("## 2026-03-24", "# 本番レビュー（2026-06-10）"), a bold line standing as
a heading, or the file name ("standup_20260320.md"). Only when none of these holds a date is
the memory's mtime the writing day. A date without a year takes it from the mtime. How each
line of a note takes its day from these: :mod:`consolidator.detect.dates.passage`.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from datetime import date, timedelta
from heapq import merge

from consolidator.detect.dates.locales import MONTHS, month_names
from consolidator.detect.script import HAN, KANA, lazy
from consolidator.store.links import LINK_RE, WIKI_RE

# A month's name, whole or cut to three letters (and "sept"), longest first: the month
# vocabulary of every date grammar here (deadlines.py's too).
MONTH_NAMES = "|".join(sorted({*MONTHS, *(m[:3] for m in MONTHS), "sept"},
                              key=lambda m: (-len(m), m)))
_MON = MONTH_NAMES
EN_WEEKDAY = (r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}\.?"
               r"|(?:周|星期|礼拜)[一二三四五六日天]|[月火水木金土日]曜日?")

# Dates with a year. Each is one bounded shape: no nested or overlapping unbounded repeats.
_FULL = (
    re.compile(r"(?<![\d.])(?P<y>(?:19|20)\d\d)(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)"
               r"(?P<d>\d{1,2})(?!\d)"),
    re.compile(r"(?P<y>(?:19|20)\d\d)\s?年\s?(?P<m>\d{1,2})\s?月\s?(?P<d>\d{1,2})\s?[日号]?"),
    # Day first, with dots: how most of Europe writes a date ("30.09.2026"); never a version
    # ("1.2.2026.3") or a longer run of dotted numbers.
    re.compile(r"(?<![\d.])(?P<d>\d{1,2})\.[ \t]?(?P<m>\d{1,2})\.[ \t]?(?P<y>(?:19|20)\d\d)"
               r"(?!\d|\.\d)"),
    re.compile(rf"\b(?P<mon>{_MON})\.? (?P<d>\d{{1,2}})(?:st|nd|rd|th)?,? (?P<y>(?:19|20)\d\d)\b",
               re.IGNORECASE),
    re.compile(rf"\b(?P<d>\d{{1,2}}) (?P<mon>{_MON})\.?,? (?P<y>(?:19|20)\d\d)\b", re.IGNORECASE),
    # "21-Jul-2026", as logs and some locales write it.
    re.compile(rf"(?<![\w-])(?P<d>\d{{1,2}})-(?P<mon>{_MON})-(?P<y>(?:19|20)\d\d)\b",
               re.IGNORECASE),
    re.compile(r"(?P<y>(?:19|20)\d\d)\s?년\s?(?P<m>\d{1,2})\s?월\s?(?P<d>\d{1,2})\s?일"),
)
# Dates without a year. "08-19" needs two digits each side: "steps 1-2" is not a date, nor
# is a range of amounts or a code ("$12-25k", "12-25%", "10-20 €", "10-12°C", "￥10-12万",
# "A12-25").
_PARTIAL = (
    re.compile(r"(?<![\d./$€£¥₩￥＄A-Za-z_-])(?P<m>0[1-9]|1[0-2])-(?P<d>0[1-9]|[12]\d|3[01])"
               r"(?![\d/%A-Za-z°℃-]| ?[€$£¥₩￥%°℃]|[万千億亿元円원])"),
    re.compile(r"(?<![\d年])(?P<m>\d{1,2})\s?月\s?(?P<d>\d{1,2})\s?[日号]"),
    re.compile(r"(?<![\d년])(?P<m>\d{1,2})\s?월\s?(?P<d>\d{1,2})\s?일"),
    re.compile(rf"\b(?P<mon>{_MON})\.? (?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)", re.IGNORECASE),
)
# A day, a month's name in another language and a year: "11 avril 2026", "3 de marzo de
# 2026", "11. April 2026", "11 апреля 2026", "21-jul-2026" (the name is looked up in
# ``month_names``).
_LOCAL = lazy(r"(?<![\w.-])(?P<d>\d{1,2})(?:\.?[ \t](?:de[ \t])?(?P<name>[^\W\d_]{3,12})\.?,?[ \t]"
              r"(?:de[ \t])?|-(?P<hyphened>[^\W\d_]{3,12})-)(?P<y>(?:19|20)\d\d)(?!\d)")
# The same with no year ("18 novembre", "3. März", "5 de mayo", "24 March"): the year is the
# writing time's, as for "March 24". Only where no word follows, as a date stands in a heading
# or a label ("## 20 mars", "Revue du 20 mars :"): "2 Mars rovers" names planets. A name of
# three letters is a month only where it is the month's whole name ("mai", "maj", "mei",
# "мая", "May" with its capital): "3 LED.", "2 out.", "Windows 11 Pro." and "Step 3 may"
# hold words of their own, as a roman numeral ("2 vii") is a number.
_LOCAL_NO_YEAR = lazy(r"(?<![\w.-])(?P<d>\d{1,2})\.?[ \t](?:de[ \t])?"
                      r"(?P<name>[^\W\d_]{3,12})\.?(?!\w)(?![ \t]*[^\W\d_])")
_WHOLE_SHORT = frozenset({"mai", "maj", "mei", "мая", "May"})
_ROMAN = re.compile(r"[ivxlc]+")
# A day and a month by number before a four-digit year, with slashes or dashes: "14/07/2026"
# (most of the world) or "07/14/2026" (the US). Read only where one order alone makes a date:
# "02/10/2026" may be either day.
_NUMERIC = re.compile(r"(?<![\d/.-])(?P<a>\d{1,2})(?P<s>[/-])(?P<b>\d{1,2})(?P=s)"
                      r"(?P<y>(?:19|20)\d\d)(?![\d/-])")
# Day first with dots and no year, in a label or a heading: "(9. 4.)" as Czech spaces it,
# "Stand (09.04.)" with two digits each (a version, "2.1.", has neither).
_DOTTED = (re.compile(r"(?<![\d.])(?P<d>\d{1,2})\.[ \t](?P<m>\d{1,2})\.(?![ \t]?\d)"),
           re.compile(r"(?<![\d.])(?P<d>\d\d)\.(?P<m>\d\d)\.(?![ \t]?\d)"))
# A date a label or a heading gives in a form that cannot be read (either order of
# "11/09/2026" makes a day): its passage has a day, not one we know, and the writing time
# must not stand in for it.
UNREAD = date.min
# "3/4" is a fraction as often as a date: only right after a phrase, in brackets, is it a date.
_SLASH = re.compile(r"(?<![\d/])(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])")

_NAME_DATE = re.compile(
    r"(?<!\d)(?P<y>(?:19|20)\d\d)[-_.]?(?P<m>0[1-9]|1[0-2])[-_.]?(?P<d>0[1-9]|[12]\d|3[01])(?!\d)"
)
_HEADING = re.compile(r"[ ]{0,3}(#{1,6})[ \t]")
_LIST_MARK = re.compile(r"[ \t]*(?:(?:[-*+•]|\d{1,3}[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?")
# A label ends at a colon, not one inside a clock time ("**18:00 → 20:00 (2026-08-27):**").
_LABEL_END = re.compile(r"(?<!\d)[:：]|[:：](?!\d)|\s[—–-]\s|\s\|\s")
_BOLD_LINE = re.compile(r"(?:\*\*|__)(?P<inner>[^*_\n]{1,120})(?:\*\*|__)[ \t]*[:：]?[ \t]*")
_WORD = lazy(rf"[A-Za-z]+|[{KANA}{HAN}]")
# Words before "2/3" that make it a count of parts, not a date.
_ORDINALS = frozenset({"phase", "step", "part", "stage", "round", "episode", "ep", "task", "item",
                       "page", "chapter", "sprint", "week", "day", "of", "第", "题", "集", "章"})


@dataclass(frozen=True, slots=True)
class Explicit:
    """A date as written: ``year`` is None when the text gave none."""

    year: int | None
    month: int
    day: int
    start: int
    end: int


def _month_of(match: re.Match[str]) -> int | None:
    """The month number of a match with a ``m`` or a ``mon`` group, or None."""
    named = match.groupdict().get("mon")
    if named:
        low = named.casefold().rstrip(".")
        return next((i + 1 for i, m in enumerate(MONTHS) if m.startswith(low[:3])), None)
    return int(match.group("m"))


def numeric_days(a: int, b: int, year: int) -> list[date]:
    """The days "a/b/year" may be: day first, month first, or both where both make a date
    (02/10/2026: the 2nd of October or February the 10th), one where they are the same."""
    out: list[date] = []
    for day, month in ((a, b), (b, a)):
        try:
            found = date(year, month, day)
        except ValueError:
            continue
        if found not in out:
            out.append(found)
    return out


class _Found:
    """The dates found so far, their spans kept sorted: the first shape to match a span wins,
    so they never overlap, and whether a match overlaps one is a binary search. A shape's
    own matches never overlap each other: they join the sorted spans when its pass ends, in
    one merge (a body full of dates is read in n log n, not n squared)."""

    def __init__(self) -> None:
        self.dates: list[Explicit] = []
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._pass: list[tuple[int, int]] = []  # this pass's spans, in order

    def overlaps(self, match: re.Match[str]) -> bool:
        at = bisect_left(self._starts, match.end())  # the spans starting before it ends
        return at > 0 and self._ends[at - 1] > match.start()

    def add(self, year: int | None, month: int, day: int, match: re.Match[str]) -> None:
        self._pass.append((match.start(), match.end()))
        self.dates.append(Explicit(year, month, day, match.start(), match.end()))

    def end_pass(self) -> None:
        """The spans this pass found join the others."""
        if self._pass:
            spans = list(merge(zip(self._starts, self._ends, strict=True), self._pass))
            self._starts = [start for start, _ in spans]
            self._ends = [end for _, end in spans]
            self._pass = []


def explicit_dates(text: str, slashes: bool = False) -> list[Explicit]:
    """Every explicit date in ``text`` (with or without a year), in order of position."""
    found = _Found()
    for shapes, with_year in ((_FULL, True), (_PARTIAL, False)):
        for shape in shapes:
            for match in shape.finditer(text):
                month = None if found.overlaps(match) else _month_of(match)
                if month is not None:
                    found.add(int(match.group("y")) if with_year else None, month,
                              int(match.group("d")), match)
            found.end_pass()
    if not text.isascii() or " 20" in text or " 19" in text or "-20" in text:
        names = None
        for match in _LOCAL().finditer(text):
            names = month_names() if names is None else names
            month = names.get((match.group("name") or match.group("hyphened")).casefold())
            if month is not None and not found.overlaps(match):
                found.add(int(match.group("y")), month, int(match.group("d")), match)
        found.end_pass()
    _without_year(text, found)
    if "/" in text or "-" in text:
        for match in _NUMERIC.finditer(text):
            days = numeric_days(int(match.group("a")), int(match.group("b")),
                                int(match.group("y")))
            if len(days) == 1 and not found.overlaps(match):  # else either order or neither
                found.add(days[0].year, days[0].month, days[0].day, match)
        found.end_pass()
    if slashes:
        for match in _SLASH.finditer(text):
            if not found.overlaps(match):
                found.add(None, int(match.group("m")), int(match.group("d")), match)
    return sorted(found.dates, key=lambda f: f.start)


def _without_year(text: str, found: _Found) -> None:
    """Adds to ``found`` the dates of ``text`` written as a day and a month's name with no
    year, in English or a language of :func:`month_names`, that overlap none of it."""
    names = None
    for match in _LOCAL_NO_YEAR().finditer(text):
        name = match.group("name")
        word = name.casefold()
        if len(word) < 4 and name not in _WHOLE_SHORT and word not in _WHOLE_SHORT - {"may"} \
                or _ROMAN.fullmatch(word) or found.overlaps(match):
            continue
        names = month_names() if names is None else names
        month = names.get(word) or next((i for i, m in enumerate(MONTHS, 1) if m == word), None)
        day = int(match.group("d"))
        if month is not None and 1 <= day <= 31:
            found.add(None, month, day, match)
    found.end_pass()


def _valid(year: int, month: int, day: int) -> date | None:
    """The date, or None when it does not exist (month 13, Feb 30)."""
    try:
        return date(year, month, day)
    except ValueError:
        return None


def writing_day(found: Explicit, written: date) -> date | None:
    """``found`` as a day the text was written on: never after ``written``.

    A date without a year is the latest such day not after ``written``; one that cannot be
    read (month 0) is :data:`UNREAD`.
    """
    if found.month == 0:
        return UNREAD
    if found.year is not None:
        day = _valid(found.year, found.month, found.day)
        return day if day is not None and day <= written else None
    for year in (written.year, written.year - 1):
        day = _valid(year, found.month, found.day)
        if day is not None and day <= written:
            return day
    return None


def near_day(found: Explicit, target: date) -> date | None:
    """``found`` as the day nearest ``target``, the day a phrase names counted from when its
    text was saved: a date without a year takes the nearest year that does not put the day
    after ``target`` (a day's slack for time zones). "Yesterday (05-05)" in a note saved in
    December is the May before it, never the May after: its text was written before it was
    saved."""
    if found.year is not None:
        return _valid(found.year, found.month, found.day)
    latest = target + timedelta(days=1)
    days = [d for y in (target.year - 1, target.year, target.year + 1)
            if (d := _valid(y, found.month, found.day)) is not None and d <= latest]
    return max(days) if days else None


def name_day(name: str, written: date) -> date | None:
    """The writing day carried by a file name ("notes/standup_20260320.md"), if any."""
    for match in _NAME_DATE.finditer(name):
        day = _valid(int(match.group("y")), int(match.group("m")), int(match.group("d")))
        if day is not None and day <= written:
            return day
    return None


def few_words(text: str) -> bool:
    """Whether ``text`` (a label with its date taken out) is short: a label, not a sentence."""
    return len(_WORD().findall(text)) <= 8


def mark_end(line: str) -> int:
    """Where a line's content starts, after its indent, list bullet and checkbox."""
    match = _LIST_MARK.match(line)
    return match.end() if match else 0


# A date that is one end of a range: "11–15 April 2026", "2026-04-11..15", "2026-04-11 ~ 18",
# "2026-06-18/19": a passage of several days, no one day it was written on.
RANGE_BEFORE = re.compile(r"\d\s*(?:[-–—~]|\.\.)\s*$")
# (A time after the date is no end of a range: "Apr 11 2026 ~04:00 UTC".)
RANGE_AFTER = re.compile(r"\s*(?:[-–—~]|\.\.)\s*\d(?!\d?[:h]\d)|/\d{1,2}(?![\d/])")


def _days(text: str) -> list[Explicit]:
    """The explicit dates of a label or a heading, with one that is the end of a range left
    out (and every date after it: which day the text is of cannot be told); a day-first date
    with dots and no year is read, and one neither order settles is there unread (month 0)."""
    found_all = explicit_dates(text)
    if "." in text or "/" in text or "-" in text:
        extra = [Explicit(None, int(m.group("m")), int(m.group("d")), m.start(), m.end())
                 for shape in _DOTTED for m in shape.finditer(text)]
        extra += [Explicit(int(m.group("y")), 0, 0, m.start(), m.end())
                  for m in _NUMERIC.finditer(text)
                  if len(numeric_days(int(m.group("a")), int(m.group("b")),
                                      int(m.group("y")))) == 2]
        for found in extra:
            if not any(f.start < found.end and found.start < f.end for f in found_all):
                found_all.append(found)
        found_all.sort(key=lambda f: f.start)
    out: list[Explicit] = []
    for found in found_all:
        if RANGE_AFTER.match(text, found.end) or RANGE_BEFORE.search(text, 0, found.start):
            break
        out.append(found)
    return out


def label_date(line: str, written: date) -> date | None:
    """The date of a label opening ``line`` ("Context (2026-03-24):", "- 2026-03-24 —")."""
    content = line[mark_end(line):]
    head = content.lstrip("*_[(（ \t")
    # A date inside a link (Markdown or wiki) names what it links to (a dated session note),
    # not the day the line was written.
    links = [m.span() for pattern in (LINK_RE, WIKI_RE) for m in pattern.finditer(content, 0, 300)]
    dates = [d for d in _days(content[:90])
             if not any(start <= d.start and d.end <= end for start, end in links)]
    if not dates:
        return None
    first = dates[0]
    if first.start <= len(content) - len(head) + 1:
        return writing_day(first, written)  # the line opens with the date
    stop = _LABEL_END.search(content, 0, 90)
    if stop is None or first.end > stop.start():
        return None
    label = content[: first.start] + content[first.end : stop.start()]
    return writing_day(first, written) if few_words(label) else None


def heading_date(line: str, written: date) -> tuple[int, date | None] | None:
    """(level, date) when ``line`` is a heading, a bold line or a date standing alone."""
    heading = _HEADING.match(line)
    if heading:
        dates = _days(line[:200]) or _heading_slash(line[:200])
        return len(heading.group(1)), writing_day(dates[0], written) if dates else None
    bold = _BOLD_LINE.fullmatch(line.strip())
    if bold:
        dates = _days(bold.group("inner"))
        return (7, writing_day(dates[0], written)) if dates else None
    content = line.strip().rstrip(" *_")
    if mark_end(line) == indent_of(line) and content.endswith((":", "：")) \
            and _LABEL_END.search(content, 0, len(content) - 1) is None:
        day = label_date(line, written)  # "Handoff 2026-10-02 (Fri):" over a list
        return (7, day) if day else None
    return None


def _heading_slash(heading: str) -> list[Explicit]:
    """A "4/8" date in a heading ("## Meeting notes — 4/8"), unless it counts parts of
    something ("## Phase 2/3", "## Step 1/5"): the only slash pair in the heading."""
    found = list(_SLASH.finditer(heading))
    if len(found) != 1:
        return []
    match = found[0]
    before = _WORD().findall(heading[max(0, match.start() - 12) : match.start()])
    if before and before[-1].casefold() in _ORDINALS:
        return []
    month, day = int(match.group("m")), int(match.group("d"))
    return [Explicit(None, month, day, match.start(), match.end())] if month <= 12 else []


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
