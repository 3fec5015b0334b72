"""The writing day of each line of a note: the dated heading above it, the label opening its
paragraph, the note's own date line, the file's name, else the writing time (the grammar of
the dates themselves: :mod:`consolidator.detect.dates.anchors`).

The note's own date line is a label naming the note's day ("Date: 2026-03-24", "**Created:**
...", "日期：...", "作成日: ...") in its first lines, or its first line of text written as its
title with the date in brackets ("Notes of session 1.2 (2026-03-28).", "Sitzungsnotizen
(28.03.2026)"). A longer first line, or one whose date is no aside in brackets ("Deployed on
2026-03-28 after the review."), tells of an event, not of the note's day.
"""

from __future__ import annotations

import re
from datetime import date

from consolidator.detect.dates.anchors import (
    UNREAD,
    Explicit,
    explicit_dates,
    few_words,
    heading_date,
    indent_of,
    label_date,
    mark_end,
    name_day,
    writing_day,
)

META_LINES = 12  # how far down a note's own date line may stand
_META_DATE = re.compile(
    r"[ \t]*(?:[-*+][ \t]+)?[*_]{0,2}(?P<word>date|created|written|data|fecha|datum|dato|tarih|"
    r"дата|날짜|ngày|日期|日付|作成日|记录日期|記録日)[*_]{0,2}"
    r"[ \t]*[:：][ \t]*[*_]{0,2}[ \t]*",
    re.IGNORECASE,
)
# Words that are a date's label in one language and a word of another ("Data: 2026-03-28
# export of the orders table"): a label only with the date standing alone after it.
_ALSO_WORDS = frozenset(("data", "datum", "dato"))
_BRACKETED = re.compile(r"[(（\[]\s*$")  # what stands right before a date in brackets
_CLOSED = re.compile(r"\s*[)）\]][.。:：]?\s*$")  # ... and after it, at the line's end


def note_day(line: str, written: date, first: bool) -> date | None:
    """The day ``line`` gives the whole note, if it is the note's date line (``first``: it is
    the first line of text, only blank lines and headings above it)."""
    meta = _META_DATE.match(line)
    if meta is not None:
        dates = explicit_dates(line[meta.end() : meta.end() + 40])
        if not dates or dates[0].start or (meta["word"].casefold() in _ALSO_WORDS
                                           and line[meta.end() + dates[0].end :].strip(" \t*_")):
            return None
        return writing_day(dates[0], written)
    if not first or line[:1].isspace() or line.lstrip()[:1] in "-*+>|":
        return None
    dates = explicit_dates(line[:200])
    if len(dates) != 1 or dates[0].year is None or not _titled(line.rstrip(), dates[0]):
        return None
    return writing_day(dates[0], written)


def _titled(line: str, found: Explicit) -> bool:
    """Whether ``line`` is a short title with ``found`` in brackets at its end."""
    head = line[: found.start]
    return (_BRACKETED.search(head) is not None and _CLOSED.fullmatch(line, found.end) is not None
            and few_words(_BRACKETED.sub("", head)))


class Anchors:
    """The writing day of each line of a text, from its headings, labels and file name."""

    def __init__(self, lines: list[str], prose: list[bool], written: date, name: str,
                 glossed: dict[int, date], undated: bool | date = True) -> None:
        """``lines``: the text's lines; ``prose[i]``: line i is prose or a heading (not code,
        a table or a quotation); ``glossed``: line index -> the day a phrase's own date gloss
        makes that line's writing day ("Today (Wed 08-19): ..."); ``undated``: whether
        ``written`` dates a line nothing else dates (else such a line has no day)."""
        self._lines = lines
        self._prose = prose
        self._written = written
        self._glossed = glossed
        # (``undated`` may be the day the memory says its text is of: it dates such a line)
        own = undated if isinstance(undated, date) else written if undated else None
        named = name_day(name, written)
        self._fallback: date | None = named or own
        # whether the fallback is the writing time, not a day the text or its name gives
        self._by_writing = named is None and undated is True
        self._writing: list[bool] = []  # per line visited: its day is the writing time's
        self._section = False  # the line being visited took the day of no heading or label
        self._days: list[date | None] = []
        self._stack: list[tuple[int, date | None]] = []
        self._label: tuple[int, date] | None = None  # (indent, day) of the open paragraph
        self._begun = False  # a line of text (not a heading) has been visited
        self._latest: date | None = None  # the latest day a heading or label above gave

    def day_for(self, index: int) -> date | None:
        """The writing day of line ``index`` (lines are visited in order, once), or None when
        nothing dates it."""
        while len(self._days) <= index:
            self._section = False
            self._days.append(self._advance(len(self._days)))
            self._writing.append(self._section and self._by_writing)
        day = self._days[index]
        return None if day == UNREAD else day

    def dated_by_text(self, index: int) -> bool:
        """Whether the text itself dates line ``index`` (a heading, a label, the note's
        date line, the file's name, the day its description names), not its writing time."""
        return self.day_for(index) is not None and not self._writing[index]

    def _advance(self, index: int) -> date | None:
        """Take line ``index`` into the running state; return its writing day."""
        line = self._lines[index]
        if not line.strip() or not self._prose[index]:
            self._label = None
            return self._section_day()
        heading = heading_date(line, self._written)
        if heading is not None:
            level, day = heading
            # "## Yesterday (9/22) run log": the date glosses the phrase, so the heading was
            # written the day after it, not on it.
            day = self._glossed.get(index, day)
            while self._stack and self._stack[-1][0] >= level:
                self._stack.pop()
            self._stack.append((level, day))
            self._seen(day)
            self._label = None
            return day or self._section_day()
        if index < META_LINES and (day := note_day(line, self._written, not self._begun)):
            self._fallback, self._by_writing, self._begun = day, False, True
            return day
        self._begun = True
        own = self._glossed.get(index) or label_date(line, self._written)
        indent = indent_of(line)
        if own is not None:
            self._label = (indent, own)
            self._seen(own)
            return own
        if self._label is not None and mark_end(line) > indent and indent <= self._label[0]:
            self._label = None  # a new item at the same level: its own date, or none
        return self._label[1] if self._label else self._section_day()

    def _seen(self, day: date | None) -> None:
        if day is not None and day != UNREAD and (self._latest is None or day > self._latest):
            self._latest = day

    def _section_day(self) -> date | None:
        """The date of the nearest dated heading above, else the note's own date line or the
        file name's, else the writing time (when it may date an undated line). A day the
        note's name or date line gives dates no line below a later dated heading or label:
        the note went on to later days ("session_2026_06_01.md" with items of 06-02 above),
        and which day an undated line is of, the text does not say."""
        for _, day in reversed(self._stack):
            if day is not None:
                return day
        self._section = True
        fallback = self._fallback
        if fallback is not None and not self._by_writing and self._latest is not None \
                and self._latest > fallback:
            return None
        return fallback
