"""A date written in brackets right after a relative phrase, glossing it: "today (Wednesday
08-19)", "昨天（3月5日，周三）". It is the phrase's day, and dates the line (see
:mod:`consolidator.detect.dates.anchors`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from consolidator.detect.dates.anchors import EN_WEEKDAY, Explicit, explicit_dates

# A date glossing the phrase right before it: "today (Wednesday 08-19)", "昨天（3月5日，周三）".
_GLOSS_HEAD = re.compile(r"[ \t]{0,3}(?:\*{1,2})?[ \t]{0,3}[(（][ \t]{0,3}")
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
    brackets cannot lose their date cleanly (bold marks around them)."""

    date: Explicit
    end: int
    rest: str | None


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
    if "*" in head.group():
        return Gloss(found, body.end(), None)
    at = body.start("date") + len(raw) - len(raw.lstrip(_GLOSS_SEPARATORS))
    opening = text[end : head.end()]
    inner = (text[head.end() : at + found.start] + text[at + found.end : body.end() - 1])
    inner = inner.strip(_GLOSS_SEPARATORS)
    rest = f"{opening}{inner}{text[body.end() - 1]}" if inner else ""
    return Gloss(found, body.end(), rest)
