"""A date written in brackets right after a relative phrase, glossing it: "today (Wednesday
08-19)", "昨天（3月5日，周三）". It is the phrase's day, and dates the line (see
:mod:`consolidator.detect.dates.anchors`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Protocol

from consolidator.detect.dates.anchors import EN_WEEKDAY, Explicit, explicit_dates, near_day
from consolidator.detect.dates.phrases import Meaning
from consolidator.detect.dates.splice import possessive

# A date glossing the phrase right before it: "today (Wednesday 08-19)", "昨天（3月5日，周三）".
_GLOSS_HEAD = re.compile(r"[ \t]{0,3}(?:\*{1,2}|_{1,2})?[ \t]{0,3}[(（][ \t]{0,3}")
_GLOSS_BODY = re.compile(
    rf"(?:(?:{EN_WEEKDAY})[ \t,，、]{{0,3}})?(?P<date>[^)）\n]{{1,24}}?)"
    rf"(?:[ \t,，、]{{0,3}}(?:{EN_WEEKDAY}))?[ \t]{{0,3}}[)）]",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Gloss:
    """A date in brackets right after a phrase: ``end``, where the brackets close; ``rest``,
    the brackets as they read once the date is written in the phrase's place ("" when they
    held nothing else, " (Wednesday)" when they also named the weekday), or None when the
    brackets cannot lose their date cleanly (bold marks around them); ``span``, where the
    date stands in the text."""

    date: Explicit
    end: int
    rest: str | None
    span: tuple[int, int] = (0, 0)


_GLOSS_SEPARATORS = " \t,，、"


def gloss(text: str, end: int) -> Gloss | None:
    """The date written in brackets right after a phrase ending at ``end``, if any."""
    head = _GLOSS_HEAD.match(text, end)
    if head is None:
        return None
    body = _GLOSS_BODY.match(text, head.end())
    if body is None:
        return None
    raw = body.group("date")
    inside = raw.strip(_GLOSS_SEPARATORS)
    dates = explicit_dates(inside, slashes=True)
    if len(dates) != 1 or len(inside) - (dates[0].end - dates[0].start) > 2:
        return None  # the brackets say more than a date: not a gloss
    found = dates[0]
    at = body.start("date") + len(raw) - len(raw.lstrip(_GLOSS_SEPARATORS))
    span = (at + found.start, at + found.end)
    if "*" in head.group() or "_" in head.group():
        return Gloss(found, body.end(), None, span)
    opening = text[end : head.end()]
    inner = (text[head.end() : at + found.start] + text[at + found.end : body.end() - 1])
    inner = inner.strip(_GLOSS_SEPARATORS)
    rest = f"{opening}{inner}{text[body.end() - 1]}" if inner else ""
    return Gloss(found, body.end(), rest, span)


class Phrase(Protocol):
    """A relative phrase found in a text: where it stands and what it means."""

    @property
    def match_start(self) -> int: ...
    @property
    def match_end(self) -> int: ...
    @property
    def line(self) -> int: ...
    @property
    def meaning(self) -> Meaning: ...


def glosses(text: str, phrases: Iterable[Phrase], today: date
            ) -> tuple[dict[int, date | None], dict[int, Gloss], dict[int, date]]:
    """The glosses of ``phrases`` (of a day) in ``text``, saved ``today``, as three maps:
    phrase start -> the day its gloss gives, None where the text dates it there already (a
    gloss with its year; a part of the day's in emphasis, "tonight **(11-18)**", which a date
    would follow with a second bracket); phrase start -> its gloss, where the whole date may
    take its place; line -> the writing day its first gloss gives."""
    own: dict[int, date | None] = {}
    notes: dict[int, Gloss] = {}
    written: dict[int, date] = {}
    for phrase in phrases:
        meaning = phrase.meaning
        if meaning.unit != "day":
            continue
        owner = possessive(text, phrase.match_end) if meaning.part else 0
        note = gloss(text, phrase.match_end) or (
            gloss(text, phrase.match_end + owner) if owner else None)  # "last night's (11/17)"
        day = near_day(note.date, today + timedelta(days=meaning.shift)) if note else None
        if note is None or day is None:
            continue
        own[phrase.match_start] = None if note.date.year is not None \
            or note.rest is None and meaning.part else day
        if note.rest is not None:
            notes[phrase.match_start] = note
        written.setdefault(phrase.line, day - timedelta(days=meaning.shift))
    return own, notes, written
