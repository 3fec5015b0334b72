"""Deadlines and date ranges stated in memory text, with the day each one ends."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from consolidator.detect.dates import MONTHS, mentions

_LEADS = ("until", "till", "through", "by ", "before", "due", "deadline", "expire", "end")
_DEADLINE_HINTS = (
    "until", "till", "through", "by ", "before", "due", "deadline", "expire", "end",
    " to ", "–", "—", "-", "截止", "截至", "到期", "まで", "前",
)


# Each shape is its own pattern: one alternation of all three, case-insensitive, is several
# times slower to scan than these in turn (month names are searched in case-folded text).
_DATE_SHAPES = (
    re.compile(r"\d{4}-\d\d?-\d\d?"),
    re.compile(r"\d{1,2}月\d{1,2}"),
    re.compile(rf"\b(?:{'|'.join(m[:3] for m in MONTHS)})[a-z]*\.? \d+"),
)



_ISO = r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
_MONTH_NAMES = "|".join(MONTHS) + "|" + "|".join(m[:3] for m in MONTHS)
_NAMED = rf"(?P<mon>{_MONTH_NAMES})\.? (?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:,? (?P<y>\d{{4}}))?"
_CJK_DATE = r"(?:(?P<y>\d{4})年)?(?P<m>\d{1,2})月(?P<d>\d{1,2})[日号]"
_LEAD = r"\b(?:until|till|through|by|before|due(?: on| by)?|deadline:?|expires?(?: on)?|ends?(?: on)?)\s+"
_DEADLINES = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        _LEAD + _ISO,
        _LEAD + _NAMED,
        r"\b\d{4}-\d{1,2}-\d{1,2}\s*(?:to|–|—|-|until|through)\s*" + _ISO,
        r"(?:截止|截至|到期)(?:日期)?[:：]?\s*" + _CJK_DATE,
        _CJK_DATE + r"\s*(?:まで|截止|之前|前)",
    )
)


@dataclass(frozen=True)
class Deadline:
    phrase: str
    day: date


def _year_for(month: int, day: int, written: date) -> date | None:
    """A date given without a year: the first such date on or after the writing date."""
    for year in (written.year, written.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate >= written:
            return candidate
    return None


def find_deadlines(text: str, written: datetime) -> list[Deadline]:
    """Deadlines and date-range ends stated in ``text``."""
    out: list[Deadline] = []
    low = text.casefold()
    # A month name only matters after a lead word ("by March 5"): skip that scan without one.
    named = any(lead in low for lead in _LEADS)
    shapes = sorted(
        (m.start(), m.end())
        for i, pattern in enumerate(_DATE_SHAPES)
        if i != 2 or named
        for m in pattern.finditer(low if i == 2 else text)
    )
    if not shapes or not mentions(text, _DEADLINE_HINTS):
        return out
    base = written.date()
    # The patterns run only on short windows around something shaped like a date: a long
    # memory costs one quick scan, not five slow ones.
    windows: list[tuple[int, int]] = []
    for shape_start, shape_end in shapes:
        start, end = max(0, shape_start - 40), min(len(text), shape_end + 40)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((start, end))
    seen: set[tuple[int, str]] = set()
    for pattern, (start, end) in ((p, w) for w in windows for p in _DEADLINES):
        for match in pattern.finditer(text, start, end):
            if (match.start(), match.group(0)) in seen:
                continue
            seen.add((match.start(), match.group(0)))
            g = match.groupdict()
            try:
                month = _month_number(g["mon"]) if g.get("mon") else int(g["m"])
                dom = int(g["d"])
                day = date(int(g["y"]), month, dom) if g.get("y") else _year_for(month, dom, base)
            except (ValueError, TypeError):
                continue
            if day is not None:
                out.append(Deadline(match.group(0), day))
    return out


def _month_number(name: str) -> int:
    low = name.casefold().rstrip(".")
    for i, month in enumerate(MONTHS):
        if month.startswith(low):
            return i + 1
    raise ValueError(name)
