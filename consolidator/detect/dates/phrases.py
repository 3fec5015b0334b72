"""Our own relative-date phrases (English, Chinese, Japanese) and what each says.

A phrase is found by one pattern (:data:`RELATIVE`; :data:`RELATIVE_ASCII` for ASCII text,
where only the English ones can stand), read into a :class:`Meaning` (a number of days, weeks
or months from the writing day, or a day of a shifted week), and resolved against the day its
passage was written (:func:`resolve`). Where a phrase may stand and which day it counts from
are :mod:`consolidator.detect.dates.relative`'s; every other language's phrases come from
dateparser's locale data (:mod:`consolidator.detect.dates.locales`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from consolidator.detect.dates.sense import FUTURE, PAST, PRESENT

__all__ = ["RELATIVE", "RELATIVE_ASCII", "RELATIVE_HINTS", "WEEKDAYS", "Meaning", "resolve",
           "trim"]

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CN_DAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_JA_DAYS = {"月": 0, "火": 1, "水": 2, "木": 3, "金": 4, "土": 5, "日": 6}
_WD = "|".join(WEEKDAYS)
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "a": 1, "an": 1}

_RELATIVE_EN = (
    r"\b(?:(?P<dd>(?:the )?day (?:before yesterday|after tomorrow))"
    r"|(?P<simple>yesterday|today|tomorrow|tonight|last night)"
    rf"|(?P<rel>last|next|this) (?P<unit>week|month|{_WD})"
    rf"|(?P<n>\d{{1,3}}|{'|'.join(_NUMBERS)}) (?P<nunit>days?|weeks?) (?P<dir>ago|from now))\b"
)
_RELATIVE_CJK = (
    r"(?P<zhday>大前天|大后天|前天|昨天|今天|明天|后天|昨晚|今晚|明晚)"
    r"|(?P<zhweek>[上下本这])个?(?:周|星期|礼拜)(?P<zhwd>[一二三四五六日天])?"
    r"|(?P<zhmonth>上个月|下个月|本月|这个月)"
    r"|(?P<jaday>一昨日|明後日|昨日|今日|明日|本日|昨夜|今夜|今晩|今朝)"
    r"|(?P<jaweek>再来週|先週|来週|今週)(?:の?(?P<jawd>[月火水木金土日])曜日?)?"
    r"|(?P<jamonth>先月|来月|今月)"
)
RELATIVE = re.compile(f"{_RELATIVE_EN}|{_RELATIVE_CJK}", re.IGNORECASE)
# ASCII text holds none of the Chinese or Japanese phrases: the English ones alone scan it in
# about half the time. Their groups stand after a branch that never matches, so a match has
# every group the full pattern has (None), and the same matches come out.
RELATIVE_ASCII = re.compile(
    f"{_RELATIVE_EN}|(?!)" + "".join(f"(?P<{name}>)" for name in
                                     re.findall(r"\(\?P<(\w+)>", _RELATIVE_CJK)),
    re.IGNORECASE,
)

_DAYS = {
    "day before yesterday": -2, "the day before yesterday": -2, "day after tomorrow": 2,
    "the day after tomorrow": 2, "yesterday": -1, "today": 0, "tomorrow": 1, "tonight": 0,
    "last night": -1, "大前天": -3, "前天": -2, "昨天": -1, "今天": 0, "明天": 1, "后天": 2,
    "大后天": 3, "昨晚": -1, "今晚": 0, "明晚": 1, "一昨日": -2, "昨日": -1, "今日": 0,
    "明日": 1, "明後日": 2, "本日": 0, "昨夜": -1, "今夜": 0, "今晩": 0, "今朝": 0,
}
_PRESENT_WORDS = frozenset({"today", "今天", "今日", "本日", "今朝"})
# Words for a part of a day (the night, the evening, the morning): a date in their place
# would lose it ("we shipped last night" is no "we shipped on 2026-11-17"), so they keep
# their word and the date glosses it, "last night (2026-11-17)".
_PART_OF_DAY = frozenset({"tonight", "last night", "昨晚", "今晚", "明晚", "昨夜", "今夜",
                          "今晩", "今朝"})
_WEEK_SHIFT = {"上": -1, "下": 1, "本": 0, "这": 0, "先週": -1, "来週": 1, "今週": 0,
               "再来週": 2, "last": -1, "next": 1, "this": 0}
_MONTH_SHIFT = {"上个月": -1, "下个月": 1, "本月": 0, "这个月": 0, "先月": -1, "来月": 1,
                "今月": 0}
# 上/下/本 that end a longer word before 周: 马上周一 is "at once, Monday", not "last Monday".
_WORD_ENDS = {"上": set("马晚早线以之身网路手台面楼街"), "下": set("一以之底私当留剩记写放落"),
              "本": set("基日版文成根样脚账课剧书资")}
# A weekday character that starts a longer word: 上周一些 is "some ... last week".
_NOT_A_WEEKDAY = set("些直起样次般志记期常程报")

RELATIVE_HINTS = (
    "yesterday", "today", "tomorrow", "tonight", "last night", "week", "month", "day", " ago",
    "from now", *WEEKDAYS, "前天", "昨", "今", "明", "后天", "周", "星期", "礼拜", "个月", "本月",
    "週", "先月", "来月", "本日",
)


@dataclass(frozen=True, slots=True)
class Meaning:
    """What a phrase says: ``days`` from the writing day, or a week or a month."""

    category: str  # PAST, FUTURE or PRESENT (see sense)
    unit: str  # "day", "week", "weeks-ago" or "month"
    shift: int  # days, weeks or months
    weekday: int | None = None  # a day of the shifted week
    nearest: bool = False  # English "next/last Tuesday": the nearest one after/before
    style: str = "en"  # how a week is written: en, zh or ja
    part: bool = False  # a part of the day ("last night", 今晚): it keeps its word, glossed


def _category(days: int, phrase: str) -> str:
    if phrase.casefold() in _PRESENT_WORDS:
        return PRESENT
    return PAST if days < 0 else FUTURE


def _meaning(match: re.Match[str]) -> Meaning | None:
    """What the phrase of ``match`` says, or None when it names no day, week or month."""
    text = match.group(0)
    low = text.casefold()
    if low in _DAYS:
        return Meaning(_category(_DAYS[low], low), "day", _DAYS[low], part=low in _PART_OF_DAY)
    if match.group("rel"):
        shift, unit = _WEEK_SHIFT[match.group("rel").casefold()], match.group("unit").casefold()
        if unit == "month":
            return Meaning(PRESENT if shift == 0 else _category(shift, ""), "month", shift)
        if unit == "week":
            return Meaning(PRESENT if shift == 0 else _category(shift, ""), "week", shift)
        return Meaning(PAST if shift < 0 else FUTURE, "week", shift, WEEKDAYS.index(unit),
                        nearest=shift != 0)
    if match.group("n"):
        raw = match.group("n").casefold()
        count = int(raw) if raw.isdigit() else _NUMBERS[raw]
        sign = -1 if match.group("dir").casefold() == "ago" else 1
        if match.group("nunit").casefold().startswith("week"):
            if sign > 0:  # "a week from now" is a day: seven days on
                return Meaning(FUTURE, "day", 7 * count)
            return Meaning(PAST, "weeks-ago", -count)
        return Meaning(PAST if sign < 0 else FUTURE, "day", sign * count)
    if match.group("zhweek"):
        return _week(_WEEK_SHIFT[match.group("zhweek")], match.group("zhwd"), _CN_DAYS, "zh")
    if match.group("jaweek"):
        return _week(_WEEK_SHIFT[match.group("jaweek")], match.group("jawd"), _JA_DAYS, "ja")
    if match.group("zhmonth") or match.group("jamonth"):
        shift = _MONTH_SHIFT[text]
        return Meaning(PRESENT if shift == 0 else _category(shift, ""), "month", shift)
    return None


def _week(shift: int, day: str | None, names: dict[str, int], style: str) -> Meaning:
    """A CJK week phrase: the calendar week ``shift`` weeks away, or one of its days."""
    if day is None:
        return Meaning(PRESENT if shift == 0 else _category(shift, ""), "week", shift,
                        style=style)
    return Meaning(PAST if shift < 0 else FUTURE, "week", shift, names[day], style=style)


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _week_of(monday: date, style: str) -> str:
    if style == "ja":
        return f"{monday.isoformat()}の週"
    if style == "zh":
        return f"{monday.isoformat()}那周"
    return f"the week of {monday.isoformat()}"


def ambiguous(meaning: Meaning, base: date) -> bool:
    """Whether an English "next/last <weekday>" written on ``base`` may name either of two
    days: the nearest one falls in ``base``'s own week ("next Tuesday" written on a Monday is
    tomorrow to some and a week later to others; "last Monday" written on a Friday, the same).
    Written later in the week ("next Tuesday" on a Friday), only one day fits."""
    if not meaning.nearest or meaning.weekday is None:
        return False
    if meaning.shift > 0:
        day = base + timedelta(days=(meaning.weekday - base.weekday()) % 7 or 7)
    else:
        day = base - timedelta(days=(base.weekday() - meaning.weekday) % 7 or 7)
    return _monday(day) == _monday(base)


def resolve(meaning: Meaning, base: date) -> str:
    """What replaces a phrase with ``meaning`` written on ``base``."""
    if meaning.unit == "day":
        return (base + timedelta(days=meaning.shift)).isoformat()
    if meaning.unit == "weeks-ago":
        return _week_of(_monday(base + timedelta(weeks=meaning.shift)), "en")
    if meaning.unit == "month":
        month = base.month - 1 + meaning.shift
        return f"{base.year + month // 12:04d}-{month % 12 + 1:02d}"
    if meaning.weekday is None:
        return _week_of(_monday(base) + timedelta(weeks=meaning.shift), meaning.style)
    if meaning.nearest:  # "next Tuesday": the first Tuesday after; "last": the last before
        step = 1 if meaning.shift > 0 else -1
        day = base + timedelta(days=step)
        while day.weekday() != meaning.weekday:
            day += timedelta(days=step)
        return day.isoformat()
    return (_monday(base) + timedelta(weeks=meaning.shift, days=meaning.weekday)).isoformat()


def trim(match: re.Match[str], text: str) -> tuple[int, Meaning | None]:
    """The phrase's end and meaning, with CJK week words that are parts of longer words cut."""
    end = match.end()
    meaning = _meaning(match)
    if match.group("zhweek"):
        if text[match.start() - 1 : match.start()] in _WORD_ENDS.get(match.group("zhweek"), ()):
            return end, None
        if match.group("zhwd") and text[end : end + 1] in _NOT_A_WEEKDAY:
            return end - 1, _week(_WEEK_SHIFT[match.group("zhweek")], None, _CN_DAYS, "zh")
    return end, meaning
