"""Relative dates in memory text ("yesterday", "next Tuesday", 「明日」), to rewrite as absolute ones.

Relative phrases are resolved against the memory's mtime (its local calendar date): that is
when "yesterday" was written. English, Chinese and Japanese forms are known.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
_CN_DAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_JA_DAYS = {"月": 0, "火": 1, "水": 2, "木": 3, "金": 4, "土": 5, "日": 6}
_WD = "|".join(WEEKDAYS)
_NUM_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "a": 1, "an": 1}

_RELATIVE = re.compile(
    rf"\b(?P<en>yesterday|today|tomorrow|tonight"
    rf"|(?:last|next|this) (?:week|month|{_WD})"
    rf"|(?P<n>\d+|one|two|three|four|five|six|seven|a|an) (?P<unit>days?|weeks?) (?P<dir>ago|from now)"
    rf"|in (?P<n2>\d+|one|two|three|four|five|six|seven|a) (?P<unit2>days?|weeks?))\b"
    rf"|(?P<cjk>前天|昨天|今天|明天|后天|上周[一二三四五六日天]?|下周[一二三四五六日天]?"
    rf"|(?:这|本)周[一二三四五六日天]|昨日|今日|明日|先週|来週(?:[月火水木金土日]曜日?)?)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RelativeDate:
    phrase: str
    start: int
    end: int
    resolved: str  # what replaces the phrase
    line: str = ""  # the whole line it stands in, as written (the report's evidence)


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _resolve(match: re.Match[str], base: date) -> str | None:
    text = match.group(0)
    low = text.casefold()
    simple = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "前天": -2, "昨天": -1,
              "今天": 0, "明天": 1, "后天": 2, "昨日": -1, "今日": 0, "明日": 1}
    if low in simple:
        return (base + timedelta(days=simple[low])).isoformat()
    if match.group("n") or match.group("n2"):
        raw = (match.group("n") or match.group("n2")).casefold()
        count = int(raw) if raw.isdigit() else _NUM_WORDS[raw]
        unit = (match.group("unit") or match.group("unit2")).casefold()
        days = count * (7 if unit.startswith("week") else 1)
        sign = -1 if match.group("dir") and match.group("dir").casefold() == "ago" else 1
        return (base + timedelta(days=sign * days)).isoformat()
    week_shift = {"last": -7, "next": 7, "this": 0, "上周": -7, "下周": 7, "这周": 0, "本周": 0,
                  "先週": -7, "来週": 7}
    for prefix, shift in week_shift.items():
        if not low.startswith(prefix):
            continue
        rest = low[len(prefix):].strip()
        if rest in ("week", ""):
            monday = (_monday(base) + timedelta(days=shift)).isoformat()
            if prefix in ("先週", "来週"):
                return f"{monday}の週"
            return f"{monday}那周" if prefix in ("上周", "下周") else f"the week of {monday}"
        if rest == "month":
            month = (base.replace(day=1) + timedelta(days=32 * (shift // 7))).replace(day=1)
            if shift == 0:
                month = base.replace(day=1)
            elif shift < 0:
                month = (base.replace(day=1) - timedelta(days=1)).replace(day=1)
            return month.strftime("%Y-%m")
        day_index = _weekday_index(rest)
        if day_index is None:
            return None
        if prefix in ("next", "last"):
            # "next Tuesday": the first Tuesday after the date; "last Tuesday": the last before.
            step = 1 if prefix == "next" else -1
            day = base + timedelta(days=step)
            while day.weekday() != day_index:
                day += timedelta(days=step)
            return day.isoformat()
        return (_monday(base) + timedelta(days=shift + day_index)).isoformat()
    return None


def _weekday_index(rest: str) -> int | None:
    if rest in WEEKDAYS:
        return WEEKDAYS.index(rest)
    if rest[:1] in _CN_DAYS and len(rest) == 1:
        return _CN_DAYS[rest]
    if rest[:1] in _JA_DAYS and rest[1:] in ("", "曜", "曜日"):
        return _JA_DAYS[rest[:1]]
    return None


_CODE = re.compile(r"`[^`\n]*`|https?://\S+")


_RELATIVE_HINTS = (
    "yesterday", "today", "tomorrow", "tonight", "week", "month", "day", " ago", "from now",
    *WEEKDAYS, "前天", "昨", "今", "明", "后天", "周", "先週", "来週",
)
def mentions(text: str, hints: tuple[str, ...]) -> bool:
    """A cheap first look (substring search in C) before the slower regular expressions."""
    low = text.casefold()
    return any(hint in low for hint in hints)


def find_relative(text: str, written: datetime, name: str = "") -> list[RelativeDate]:
    """Relative date phrases in ``text`` (outside code spans and URLs), resolved.

    ``written``: when the text was written (the memory's mtime); ``name``: the memory's file
    name relative to the root, which may carry the date the text was written.
    """
    if not mentions(text, _RELATIVE_HINTS):
        return []
    base = written.date()
    shielded = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    out = []
    for match in _RELATIVE.finditer(text):
        if any(s <= match.start() < e for s, e in shielded):
            continue
        resolved = _resolve(match, base)
        if resolved:
            out.append(RelativeDate(match.group(0), match.start(), match.end(), resolved,
                                    line_at(text, match.start())))
    return out


def line_at(text: str, offset: int) -> str:
    """The whole line of ``text`` that ``offset`` falls in, without its line break."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start : end if end >= 0 else len(text)].rstrip("\r")


def rewrite_relative(text: str, found: Sequence[RelativeDate]) -> str:
    """``text`` with each found phrase replaced by its absolute date."""
    for item in sorted(found, key=lambda f: f.start, reverse=True):
        text = text[: item.start] + item.resolved + text[item.end :]
    return text
