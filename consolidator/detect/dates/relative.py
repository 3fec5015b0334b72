"""Relative dates in memory text ("yesterday", "next Tuesday", 「明日」), to rewrite as absolute ones.

Only phrases that name a day relative to the writing are found: in the writer's own prose
(see ``layout``), meaning a day (see ``sense``). Each is counted from the date the text gives
for its passage (see ``anchors``: a gloss, a dated label or heading, the note's date line, a
dated file name); where the text gives none, from the memory's ``modified`` stamp, or its
mtime only in a record of one day (see ``dated_by_writing``), and otherwise it is left as
written. English, Chinese and Japanese forms are our own; every other language's come from
dateparser's locale data (see ``locales``). What a rewrite writes is never found again.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from consolidator import clock
from consolidator.detect.dates.anchors import (
    Anchors,
    gloss,
    name_day,
    near_day,
)
from consolidator.detect.dates.layout import Layout
from consolidator.detect.dates.locales import MONTHS, LocalePhrase, find_locale
from consolidator.detect.dates.sense import FUTURE, PAST, PRESENT, names_a_day
from consolidator.detect.dates.splice import as_adverb, dated_beside
from consolidator.detect.dates.undated import dated_by_writing, described_day
from consolidator.store.model import Memory

__all__ = ["MONTHS", "WEEKDAYS", "RelativeDate", "dated_by_writing", "find_relative", "line_at",
           "mentions", "relative_in", "rewrite_relative"]

WRAP_LINES = 3  # lines each side a hard-wrapped sentence is followed into
WRAP_CHARS = 200  # characters of each such line that are read
_CONTINUES = re.compile(r"[ \t]{0,12}[a-z(]")
MAX_PHRASES = 1000  # more relative phrases than this in one memory: not hand-written notes
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
_RELATIVE = re.compile(f"{_RELATIVE_EN}|{_RELATIVE_CJK}", re.IGNORECASE)
# ASCII text holds none of the Chinese or Japanese phrases: the English ones alone scan it in
# about half the time. Their groups stand after a branch that never matches, so a match has
# every group the full pattern has (None), and the same matches come out.
_RELATIVE_ASCII = re.compile(
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
_WEEK_SHIFT = {"上": -1, "下": 1, "本": 0, "这": 0, "先週": -1, "来週": 1, "今週": 0,
               "再来週": 2, "last": -1, "next": 1, "this": 0}
_MONTH_SHIFT = {"上个月": -1, "下个月": 1, "本月": 0, "这个月": 0, "先月": -1, "来月": 1,
                "今月": 0}
# 上/下/本 that end a longer word before 周: 马上周一 is "at once, Monday", not "last Monday".
_WORD_ENDS = {"上": set("马晚早线以之身网路手台面楼街"), "下": set("一以之底私当留剩记写放落"),
              "本": set("基日版文成根样脚账课剧书资")}
# A weekday character that starts a longer word: 上周一些 is "some ... last week".
_NOT_A_WEEKDAY = set("些直起样次般志记期常程报")

_RELATIVE_HINTS = (
    "yesterday", "today", "tomorrow", "tonight", "last night", "week", "month", "day", " ago",
    "from now", *WEEKDAYS, "前天", "昨", "今", "明", "后天", "周", "星期", "礼拜", "个月", "本月",
    "週", "先月", "来月", "本日",
)


@dataclass(frozen=True)
class RelativeDate:
    phrase: str
    start: int
    end: int
    resolved: str  # the day (or week, or month) the phrase names
    line: str = ""  # the whole line it stands in, as written (the report's evidence)
    replacement: str = ""  # what replaces the phrase in its sentence (else ``resolved``)


@dataclass(frozen=True, slots=True)
class _Meaning:
    """What a phrase says: ``days`` from the writing day, or a week or a month."""

    category: str  # PAST, FUTURE or PRESENT (see sense)
    unit: str  # "day", "week", "weeks-ago" or "month"
    shift: int  # days, weeks or months
    weekday: int | None = None  # a day of the shifted week
    nearest: bool = False  # English "next/last Tuesday": the nearest one after/before
    style: str = "en"  # how a week is written: en, zh or ja


@dataclass(frozen=True, slots=True)
class _Candidate:
    match_start: int
    match_end: int
    line: int
    meaning: _Meaning


def mentions(text: str, hints: tuple[str, ...]) -> bool:
    """A cheap first look (substring search in C) before the slower regular expressions."""
    low = text.casefold()
    return any(map(low.__contains__, hints))  # at C speed, unlike a generator


def _category(days: int, phrase: str) -> str:
    if phrase.casefold() in _PRESENT_WORDS:
        return PRESENT
    return PAST if days < 0 else FUTURE


def _meaning(match: re.Match[str]) -> _Meaning | None:
    """What the phrase of ``match`` says, or None when it names no day, week or month."""
    text = match.group(0)
    low = text.casefold()
    if low in _DAYS:
        return _Meaning(_category(_DAYS[low], low), "day", _DAYS[low])
    if match.group("rel"):
        shift, unit = _WEEK_SHIFT[match.group("rel").casefold()], match.group("unit").casefold()
        if unit == "month":
            return _Meaning(PRESENT if shift == 0 else _category(shift, ""), "month", shift)
        if unit == "week":
            return _Meaning(PRESENT if shift == 0 else _category(shift, ""), "week", shift)
        return _Meaning(PAST if shift < 0 else FUTURE, "week", shift, WEEKDAYS.index(unit),
                        nearest=shift != 0)
    if match.group("n"):
        raw = match.group("n").casefold()
        count = int(raw) if raw.isdigit() else _NUMBERS[raw]
        sign = -1 if match.group("dir").casefold() == "ago" else 1
        if match.group("nunit").casefold().startswith("week"):
            return _Meaning(PAST if sign < 0 else FUTURE, "weeks-ago", sign * count)
        return _Meaning(PAST if sign < 0 else FUTURE, "day", sign * count)
    if match.group("zhweek"):
        return _week(_WEEK_SHIFT[match.group("zhweek")], match.group("zhwd"), _CN_DAYS, "zh")
    if match.group("jaweek"):
        return _week(_WEEK_SHIFT[match.group("jaweek")], match.group("jawd"), _JA_DAYS, "ja")
    if match.group("zhmonth") or match.group("jamonth"):
        shift = _MONTH_SHIFT[text]
        return _Meaning(PRESENT if shift == 0 else _category(shift, ""), "month", shift)
    return None


def _week(shift: int, day: str | None, names: dict[str, int], style: str) -> _Meaning:
    """A CJK week phrase: the calendar week ``shift`` weeks away, or one of its days."""
    if day is None:
        return _Meaning(PRESENT if shift == 0 else _category(shift, ""), "week", shift,
                        style=style)
    return _Meaning(PAST if shift < 0 else FUTURE, "week", shift, names[day], style=style)


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _week_of(monday: date, style: str) -> str:
    if style == "ja":
        return f"{monday.isoformat()}の週"
    if style == "zh":
        return f"{monday.isoformat()}那周"
    return f"the week of {monday.isoformat()}"


def _resolve(meaning: _Meaning, base: date) -> str:
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


def _trim(match: re.Match[str], text: str) -> tuple[int, _Meaning | None]:
    """The phrase's end and meaning, with CJK week words that are parts of longer words cut."""
    end = match.end()
    meaning = _meaning(match)
    if match.group("zhweek"):
        if text[match.start() - 1 : match.start()] in _WORD_ENDS.get(match.group("zhweek"), ()):
            return end, None
        if match.group("zhwd") and text[end : end + 1] in _NOT_A_WEEKDAY:
            return end - 1, _week(_WEEK_SHIFT[match.group("zhweek")], None, _CN_DAYS, "zh")
    return end, meaning


_SEPARATORS = ("", ",", "、", "，", "/", "|", "·", "／", "｜", "・")
_JOINERS = ("and", "or", ", and", ", or", "和", "或", "与", "や", "と", "、と")


def _options(matches: list[re.Match[str]], text: str) -> set[int]:
    """Starts of phrases listed side by side as options or terms ("Today / Yesterday",
    今天、明天, "like today, tomorrow and next week"), not used as dates."""
    listed: set[int] = set()
    run: list[int] = []
    for left, right in zip(matches, matches[1:], strict=False):
        between = text[left.end() : right.start()].strip(" \t*_")
        if right.start() - left.end() <= 5 and between in _SEPARATORS:
            listed.update((left.start(), right.start()))  # a pair with nothing between
        if right.start() - left.end() <= 7 and (between in _SEPARATORS or between in _JOINERS):
            run = run or [left.start()]
            run.append(right.start())
            if len(run) >= 3:  # three or more in a row: an enumeration of terms
                listed.update(run)
        else:
            run = []
    return listed


def _candidates(text: str, matches: list[re.Match[str]], others: list[LocalePhrase],
                layout: Layout, dated_name: bool = False) -> list[_Candidate]:
    """The phrases of ``text`` (its ``matches``, then those of other languages) that stand in
    prose and name a day there. ``dated_name``: the file's name carries the day it records,
    so another language's "today" is that day whatever it means (the day, or "currently")."""
    listed = _options(matches, text)
    spans: list[tuple[int, int, _Meaning | None]] = []
    applying = _how_to_apply(layout.lines) if others else set()
    for match in matches:
        if match.start() not in listed:
            end, meaning = _trim(match, text)
            spans.append((match.start(), end, meaning))
    taken = [(m.start(), m.end()) for m in matches]
    for other in others:
        if any(s < other.end and other.start < e for s, e in taken):
            continue
        if other.unit == "week" or (other.shift == 0 and not dated_name) \
                or layout.line_of(other.start) in applying:
            # Where no rule of ours reads the sentence: a week has no one way of being
            # written in every language; "today" may be "today's quiz" or "currently" (the
            # same day, in a note whose name is dated); and in a rule's instructions,
            # "yesterday" is the day before a session reads it.
            continue
        category = PRESENT if other.shift == 0 else PAST if other.shift < 0 else FUTURE
        spans.append((other.start, other.end,
                      _Meaning(category, other.unit, other.shift, style="")))
    out: list[_Candidate] = []
    for start, end, meaning in sorted(spans, key=lambda s: s[0]):
        if meaning is None:
            continue
        index = layout.line_of(start)
        if layout.kinds[index] != "text":
            continue
        column = start - layout.starts[index]
        stop = column + end - start
        line = layout.lines[index]
        if layout.masked(index, column, stop):
            continue
        before, after = _wrapped(layout, index)
        if names_a_day(line, column, stop, meaning.category, before, after):
            out.append(_Candidate(start, end, index, meaning))
    return out


# The label Claude Code's memories put before a rule's instructions ("**How to apply:** ...").
_HOW_TO_APPLY = re.compile(r"[ \t]*(?:[-*+][ \t]+)?[*_]{0,2}how to apply[*_]{0,2}[ \t]*[:：]",
                           re.IGNORECASE)
_ANY_LABEL = re.compile(r"[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)[^*_\n]{1,40}(?:\*\*|__)")


def _how_to_apply(lines: list[str]) -> set[int]:
    """The lines of every "How to apply:" paragraph: instructions for sessions to come, where
    "yesterday" is whichever day a session reads it on (it runs to a blank line or the next
    bold label)."""
    out: set[int] = set()
    inside = False
    for at, line in enumerate(lines):
        if _HOW_TO_APPLY.match(line):
            inside = True
        elif not line.strip() or _ANY_LABEL.match(line):
            inside = False
        if inside:
            out.add(at)
    return out


def _continues(line: str) -> bool:
    """Whether ``line`` goes on with the sentence of the line above (a hard wrap): it opens
    with a lower-case word or a bracket, not with a bullet, a label or a capital."""
    return _CONTINUES.match(line) is not None


def _wrapped(layout: Layout, index: int) -> tuple[str, str]:
    """The lines a hard-wrapped sentence comes from and goes on to, around line ``index``."""
    lines, kinds = layout.lines, layout.kinds
    before: list[str] = []
    at = index
    while at > 0 and len(before) < WRAP_LINES and _continues(lines[at]) \
            and kinds[at - 1] == "text":
        at -= 1
        before.insert(0, lines[at][-WRAP_CHARS:].strip())
    after: list[str] = []
    at = index + 1
    while at < len(lines) and len(after) < WRAP_LINES and kinds[at] == "text" \
            and _continues(lines[at]):
        after.append(lines[at][:WRAP_CHARS].strip())
        at += 1
    return (" ".join(before) + " " if before else ""), (" " + " ".join(after) if after else "")


def relative_in(memory: Memory, body: str | None = None) -> list[RelativeDate]:
    """The relative dates of a memory (or of ``body``, its text as a plan rewrote it),
    counted from the dates its text gives, else from the day its description says the text
    is of (:func:`described_day`), else from its writing time where that may date them
    (:func:`dated_by_writing`)."""
    return find_relative(memory.body if body is None else body,
                         clock.local(memory.written_ns), memory.file,
                         lambda: described_day(memory) or dated_by_writing(memory))


def find_relative(text: str, written: datetime, name: str = "",
                  undated: bool | date | Callable[[], bool | date] = True
                  ) -> list[RelativeDate]:
    """Relative date phrases in ``text`` that name a day relative to its writing, resolved.

    ``written``: when the text was written (the memory's ``modified`` or mtime, local);
    ``name``: the memory's file name relative to the root, which may carry the day the text
    was written. ``undated``: whether ``written`` may date a passage the text gives no date
    for (true of a record of one day; a phrase in any other undated passage is left alone),
    or the day that dates such a passage (the one its description names), or a function
    that tells, asked only when the text holds a relative phrase.
    """
    matches: list[re.Match[str]] = []
    if mentions(text, _RELATIVE_HINTS):
        pattern = _RELATIVE_ASCII if text.isascii() else _RELATIVE
        matches = list(itertools.islice(pattern.finditer(text), MAX_PHRASES + 1))
        if len(matches) > MAX_PHRASES:
            return []  # a dump of logs or data rather than notes a person wrote
    others = list(itertools.islice(find_locale(text), MAX_PHRASES + 1))
    if not (matches or others) or len(others) > MAX_PHRASES:
        return []
    layout = Layout(text)
    today = written.date()
    found = _candidates(text, matches, others, layout, name_day(name, today) is not None)
    if not found:
        return []
    glossed: dict[int, date] = {}
    own: dict[int, date | None] = {}  # match start -> the day its gloss gives, None: absolute
    for item in found:
        if item.meaning.unit != "day":
            continue
        note = gloss(text, item.match_end)
        if note is None:
            continue
        day = near_day(note, today + timedelta(days=item.meaning.shift))
        if day is None:
            continue
        own[item.match_start] = None if note.year is not None else day
        glossed.setdefault(item.line, day - timedelta(days=item.meaning.shift))
    if callable(undated):
        undated = undated()
    anchors = Anchors(layout.lines, layout.prose(), today, name, glossed, undated)
    out = []
    for item in found:
        if item.match_start in own and own[item.match_start] is None:
            continue  # "yesterday (2026-03-23)": already absolute
        if item.match_start not in own and dated_beside(text, item.match_start, item.match_end):
            continue  # "本日4/30期限", "yesterday 11/20": the text gives the day right there
        gloss_day = own.get(item.match_start)
        base = anchors.day_for(item.line)
        if gloss_day is not None:
            resolved = gloss_day.isoformat()
        elif base is not None:
            resolved = _resolve(item.meaning, base)
        else:
            continue  # no date for this passage: the phrase is left as written
        phrase = text[item.match_start : item.match_end]
        if phrase[:1].isupper() and resolved.startswith("the "):
            resolved = "T" + resolved[1:]
        spliced = as_adverb(text, item.match_start, item.match_end, phrase, resolved) \
            if item.meaning.style else resolved
        out.append(RelativeDate(phrase, item.match_start, item.match_end, resolved,
                                layout.lines[item.line], spliced))
    return out


def line_at(text: str, offset: int) -> str:
    """The whole line of ``text`` that ``offset`` falls in, without its line break."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start : end if end >= 0 else len(text)].rstrip("\r")


def rewrite_relative(text: str, found: Sequence[RelativeDate]) -> str:
    """``text`` with each found phrase replaced by its absolute date."""
    parts: list[str] = []
    done = 0
    for item in sorted(found, key=lambda f: f.start):
        if item.start < done:
            continue  # overlapping findings: the first one wins
        parts += [text[done : item.start], item.replacement or item.resolved]
        done = item.end
    parts.append(text[done:])
    return "".join(parts)
