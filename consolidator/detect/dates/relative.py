"""Relative dates in memory text ("yesterday", "next Tuesday", 「明日」), to rewrite as absolute ones.

Only phrases that name a day relative to the writing are found: in the writer's own prose
(see ``layout``), meaning a day (see ``sense``). Each is counted from the date the text gives
for its passage (see ``anchors``: a gloss, a dated label or heading, the note's date line, a
dated file name); where the text gives none, from the memory's ``modified`` stamp, or its
mtime only in a record of one day (see ``dated_by_writing``), and otherwise it is left as
written. English, Chinese and Japanese phrases and what they say are our own (see
``phrases``); every other language's come from dateparser's locale data (see ``locales``).
What a rewrite writes is never found again.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from consolidator import clock
from consolidator.detect.dates.anchors import explicit_dates, name_day
from consolidator.detect.dates.gloss import glosses
from consolidator.detect.dates.layout import ANY_LABEL, Layout, how_to_apply, table_cell
from consolidator.detect.dates.locale_sense import (
    days_in_code,
    of_a_thing,
    part_of_day,
    states_a_rule,
)
from consolidator.detect.dates.locales import LocalePhrase, find_locale, written_in
from consolidator.detect.dates.passage import Anchors
from consolidator.detect.dates.phrases import (
    RELATIVE,
    RELATIVE_ASCII,
    RELATIVE_HINTS,
    Meaning,
    ambiguous,
    resolve,
    trim,
)
from consolidator.detect.dates.sense import (
    FUTURE,
    PAST,
    PRESENT,
    names_a_day,
    sentence,
    without_asides,
)
from consolidator.detect.dates.session import session_phrases
from consolidator.detect.dates.splice import (
    as_adverb,
    aside_after,
    dated_beside,
    glossed_part,
    spaced,
)
from consolidator.detect.dates.undated import (
    dated_by_writing,
    described_day,
    records_a_day,
    titled_day,
)
from consolidator.store.model import Memory

__all__ = ["RelativeDate", "find_relative", "line_at", "mentions", "relative_in",
           "rewrite_relative"]

WRAP_LINES = 3  # lines each side a hard-wrapped sentence is followed into
WRAP_CHARS = 200  # characters of each such line that are read
_CONTINUES = re.compile(r"[ \t]{0,12}[a-z(]")
MAX_PHRASES = 1000  # more relative phrases than this in one memory: not hand-written notes


@dataclass(frozen=True)
class RelativeDate:
    phrase: str
    start: int
    end: int
    resolved: str  # the day (or week, or month) the phrase names
    line: str = ""  # the whole line it stands in, as written (the report's evidence)
    replacement: str = ""  # what replaces the phrase in its sentence (else ``resolved``)


@dataclass(frozen=True, slots=True)
class _Candidate:
    match_start: int
    match_end: int
    line: int
    meaning: Meaning
    by_text: bool = False  # dated only where the text gives its passage's day
    heading: bool = False  # stands in a heading: glossed, where the text dates its section


def mentions(text: str, hints: tuple[str, ...]) -> bool:
    """A cheap first look (substring search in C) before the slower regular expressions."""
    low = text.casefold()
    return any(map(low.__contains__, hints))  # at C speed, unlike a generator


_SEPARATORS = ("", ",", "、", "，", "/", "|", "·", "／", "｜", "・")
_JOINERS = ("and", "or", ", and", ", or", "和", "或", "与", "や", "と", "、と")
# Words offering one day for another, or joining two ("today, or tomorrow before 09:00",
# "picked tomorrow over tonight", "totals for today and yesterday"): the two are dated
# together or not at all (each judged alone, one may pass and the other not, by where the
# line wraps or by a sense word that reads one of them, leaving "today, or 2026-09-05" or
# "today and 2026-11-19").
_ALTERNATIVES = frozenset(("or", ", or", "over", "vs", "vs.", "versus", "rather than",
                           "instead of", "或", "或者", "还是", "還是", "か", "oder", "ou", "o",
                           "and", ", and", "&", "和", "与", "と", "und", "et", "y", "e"))


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


# "tomorrow morning", "yesterday afternoon": no one word takes the date's place in English
# ("on 2026-12-04 morning" breaks the sentence), so the phrase is left as written.
_PART_OF_DAY = re.compile(r"[ \t]+(?:morning|afternoon|evening|night|noon|midday|lunch(?:time)?)\b",
                          re.IGNORECASE)


def _offered(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Starts of pairs of phrases (``spans``: each one's start and end, in order) offered one
    for another or joined ("today, or tomorrow", "today and yesterday", "hoy vs ayer")."""
    return [(left[0], right[0]) for left, right in zip(spans, spans[1:], strict=False)
            if right[0] - left[1] <= 14
            and text[left[1] : right[0]].strip(" \t*_").casefold() in _ALTERNATIVES]


def _a_rule(layout: Layout, phrase: LocalePhrase, languages: frozenset[str]) -> bool:
    """Whether the line of another language's ``phrase`` states a rule or a habit for it,
    its asides aside."""
    index = layout.line_of(phrase.start)
    column = phrase.start - layout.starts[index]
    line = without_asides(layout.lines[index], column, column + phrase.end - phrase.start)
    return states_a_rule(line, column, languages)


def _candidates(text: str, matches: list[re.Match[str]], others: list[LocalePhrase],
                layout: Layout, dated_name: bool = False,
                headings: list[_Candidate] | None = None,
                record: bool = False) -> list[_Candidate]:
    """The phrases of ``text`` (its ``matches``, then those of other languages) that stand in
    prose and name a day there. ``dated_name``: the file's name carries the day it records,
    so another language's "today" is that day whatever it means (the day, or "currently").
    ``headings``: filled with the phrases that stand in headings (a date glossing one dates
    the heading's section; one the heading gives no date for is a candidate too, glossed
    only where the text dates its section). ``record``: the text is a record of work,
    where another language's "today" set against another day in its sentence ("the
    listing dated 25.08 — its validator today sees 427") names a day, when the text dates
    its passage (a heading, a label, the note's date line)."""
    listed = _options(matches, text)
    spans: list[tuple[int, int, Meaning | None, bool]] = []
    applying = how_to_apply(layout.lines) if others else set()
    languages = written_in(text) if others else frozenset()
    # Where no sense rule of ours reads the sentence, code built on a day ("isToday") tells
    # that the word names the app's day, which no writing day dates.
    in_code = days_in_code(text) if others else frozenset()
    for match in matches:
        if match.start() not in listed and not _PART_OF_DAY.match(text, match.end()):
            end, meaning = trim(match, text)
            spans.append((match.start(), end, meaning, False))
    taken = [(m.start(), m.end()) for m in matches]
    for other in others:
        if any(s < other.end and other.start < e for s, e in taken):
            continue
        by_text = other.shift == 0 and not (dated_name or other.session)
        if other.unit == "week" or (by_text and not record) \
                or (other.unit == "day" and other.shift in in_code and not other.session) \
                or layout.line_of(other.start) in applying \
                or of_a_thing(text, other) or part_of_day(text, other, others) \
                or _a_rule(layout, other,
                           languages | {"en", other.session} if other.session else languages):
            # Where no rule of ours reads the sentence: a week has no one way of being
            # written in every language; "today" may be "today's quiz" or "currently" (the
            # same day, in a note whose name is dated); a day of something ("de ayer"), a
            # part of a day ("heute morgen") and each run's day (jede Nacht) name none; and
            # in a rule's instructions,
            # "yesterday" is the day before a session reads it.
            continue
        # "This session" is the writing's day, in the past by the time it is read, with
        # none of the senses of "today" ("currently") that the present is read for.
        # So is "today" in a passage the text dates: as of that day, whichever sense it has.
        category = PAST if other.session or by_text or other.shift < 0 \
            else PRESENT if other.shift == 0 else FUTURE
        spans.append((other.start, other.end,
                      Meaning(category, other.unit, other.shift, style=""), by_text))
    out: list[_Candidate] = []
    for start, end, meaning, by_text in sorted(spans, key=lambda s: s[0]):
        if meaning is None:
            continue
        index = layout.line_of(start)
        heading = layout.kinds[index] == "heading"
        if heading and headings is not None:
            headings.append(_Candidate(start, end, index, meaning, by_text))
        kind = layout.kinds[index]
        if kind not in ("text", "table") and not heading:
            continue
        column = start - layout.starts[index]
        stop = column + end - start
        line = layout.lines[index]
        if layout.masked(index, column, stop):
            continue  # code, a link or a quotation
        if kind == "table":  # a cell is read alone, as a line of its own
            left, right = table_cell(line, column, stop)
            if explicit_dates(f"{line[:left]} {line[right:]}", slashes=True):
                continue  # a row of a dated log ("| 05-18 | deployed yesterday |"): its own day
            line, column, stop = line[left:right], column - left, stop - left
        # "**Done in this session:** ...": a bold label names its section as a heading does
        label = ANY_LABEL.match(line)
        heading = heading or (label is not None and stop <= label.end() and (
            line[: label.end()].rstrip("*_ ").endswith((":", "："))
            or line[label.end() :].lstrip().startswith((":", "："))))
        if (by_text and not explicit_dates(sentence(line, column, stop))) \
                or (heading and explicit_dates(line, slashes=True)):
            # hidden; "today" set against no other day in its sentence; a heading that
            # gives its day itself ("## Today's checks (2026-05-14)")
            continue
        before, after = _wrapped(layout, index) if kind == "text" else ("", "")
        if names_a_day(line, column, stop, meaning.category, before, after):
            out.append(_Candidate(start, end, index, meaning, by_text, heading))
    found = {c.match_start for c in out}
    joined = sorted([*((m.start(), m.end()) for m in matches), *((o.start, o.end) for o in others)])
    split = {start for pair in _offered(joined, text) if len(found.intersection(pair)) == 1
             for start in pair}
    return [c for c in out if c.match_start not in split] if split else out


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


def relative_in(memory: Memory, body: str | None = None,
                long_session: bool = False, copied: bool = False) -> list[RelativeDate]:
    """The relative dates of a memory (or of ``body``, its text as a plan rewrote it),
    counted from the dates its text gives, else from the day its description says the text
    is of (:func:`described_day`), else from its writing time where that may date them
    (:func:`dated_by_writing`; never in a ``long_session``, see :func:`long_sessions`, nor
    where the file's time is a ``copied`` one, see :func:`copied_together`)."""
    return find_relative(memory.body if body is None else body,
                         clock.local(memory.written_ns), memory.file,
                         lambda: described_day(memory) or titled_day(memory)
                         or (not (long_session or copied) and dated_by_writing(memory)),
                         sessions=records_a_day(memory) and not long_session)


def find_relative(text: str, written: datetime, name: str = "",
                  undated: bool | date | Callable[[], bool | date] = True,
                  sessions: bool = True) -> list[RelativeDate]:
    """Relative date phrases in ``text`` that name a day relative to its writing, resolved.

    ``written``: when the text was written (the memory's ``modified`` or mtime, local);
    ``name``: the memory's file name relative to the root, which may carry the day the text
    was written. ``undated``: whether ``written`` may date a passage the text gives no date
    for (true of a record of one day; a phrase in any other undated passage is left alone),
    or the day that dates such a passage (the one its description names), or a function
    that tells, asked only when the text holds a relative phrase. ``sessions``: whether
    "this session" names the day of the writing (in a record of work, not in a rule, a
    profile or a definition, whose session is whichever reads it: see ``session``).
    """
    matches: list[re.Match[str]] = []
    if mentions(text, RELATIVE_HINTS):
        pattern = RELATIVE_ASCII if text.isascii() else RELATIVE
        matches = list(itertools.islice(pattern.finditer(text), MAX_PHRASES + 1))
        if len(matches) > MAX_PHRASES:
            return []  # a dump of logs or data rather than notes a person wrote
    others = list(itertools.islice(find_locale(text), MAX_PHRASES + 1))
    if sessions:
        others = sorted([*others, *session_phrases(text)], key=lambda p: p.start)
    if not (matches or others) or len(others) > MAX_PHRASES:
        return []
    layout = Layout(text)
    today = written.date()
    headings: list[_Candidate] = []
    found = _candidates(text, matches, others, layout, name_day(name, today) is not None,
                        headings, sessions)
    if not found:
        return []
    own, notes, glossed = glosses(text, [*found, *headings], today)
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
        if (item.by_text or item.heading) and gloss_day is None \
                and not anchors.dated_by_text(item.line):
            # "today" where only the writing time would date it: maybe "currently"; a
            # heading's "Tomorrow" over a list kept from day to day
            continue
        if gloss_day is not None:
            resolved = gloss_day.isoformat()
        elif base is not None and not ambiguous(item.meaning, base):
            resolved = resolve(item.meaning, base)
        else:
            continue  # no date for this passage, or two days it may name: left as written
        # "yesterday (05-05)": the whole date takes the phrase's place and its gloss's.
        note = notes.get(item.match_start)
        end = item.match_end if note is None else note.end
        phrase = text[item.match_start : item.match_end]
        if phrase[:1].isupper() and resolved.startswith("the "):
            resolved = "T" + resolved[1:]
        # Our own languages' phrases give way to the date, said as the sentence needs it;
        # another language's keeps its word, the date glossing it ("ayer (2026-08-26)"):
        # its grammar around a date is not ours to know; so does a part of the day, which
        # a date would say less than (see :func:`glossed_part`).
        if item.meaning.part:
            if note is None and aside_after(text, end):
                continue  # "tonight (Wed)": its own bracket says what it adds
            end, spliced = glossed_part(text, item.match_start, end, phrase, resolved,
                                        note.span if note is not None and note.rest else None)
        else:
            spliced = as_adverb(text, item.match_start, end, phrase, resolved) \
                if item.meaning.style and not item.heading else resolved if note is not None \
                else f"{phrase} ({resolved})"
            spliced += note.rest or "" if note is not None else ""
        spliced = spaced(text, end, spliced)
        out.append(RelativeDate(text[item.match_start : end], item.match_start, end, resolved,
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
