"""How a resolved day takes a relative phrase's place in its sentence: not at all where a
date already stands beside the phrase (it would be glued to it), and in English with the
word the sentence needs ("we shipped on 2026-11-25", but "since 2026-11-25")."""

from __future__ import annotations

import re

# A date written right beside a phrase: digits glued to it, or after a space or bracket.
# (A dotted pair is a version, "v2.3", as often as a day: only / - and 月 count.)
_DATE_AFTER = re.compile(r"[ \t]?[(（]?\d{1,4}[/\-月]\d{1,2}(?![\w.])")
# (A date just before the phrase's bracket, in bold or not: "~2026-06-19 (tomorrow)" — the
# phrase glosses the date.)
_DATE_BEFORE = re.compile(r"(?<![\w.])\d{1,4}[/\-月]\d{1,2}[日)）]?[*_]{0,2}[ \t]?[(（]?\Z")
# A time of day (20:00, 10点, 9時, 10:00-11:00, 10点5分), not a date: what may follow a day
# word glued on (時間 and 小时 are hours of work, but read as well with a date before them).
_TIME_AFTER = re.compile(r"\d{1,2}(?:[:：][0-5]\d|[点點時时](?:\d{1,2}分)?)"
                         r"(?![\d/.:：]|-(?![0-2]?\d[:：]))")
# The last character of the evening's and the night's day words (今晚, 昨夜, 今晩); 今晚上 is
# one word ("this evening"), unless 上 starts a verb of its own (上线 "went live", 上传).
_EVENING = frozenset("晚夜晩")
_SHANG_VERBS = frozenset("线線传傳架报報市映")
# Words after which a day needs no "on": a preposition or a conjunction already says how.
_NO_ON = frozenset({"since", "until", "till", "by", "from", "before", "after", "on", "for",
                    "of", "to", "through", "than", "between", "and", "or", "nor", "at", "in",
                    "as", "except", "unlike", "like", "over", "vs", "versus", "instead"})
# Verbs of choosing or covering, whose object the day is ("Fred recommends tomorrow", "the
# report covers yesterday"): the date takes its place as a noun ("recommends 2026-09-05");
# "on" would tell when the choosing was made. (Verbs of doing, "we deploy tomorrow", take "on".)
_CHOOSING = re.compile(
    r"(?:recommend|suggest|propose|prefer|pick|picked|choose|chose|chosen|select|use|keep|take"
    r"|took|book|reserve|block|want|favou?r|target|cover|summari[sz]e|include|list)"
    r"(?:s|d|ed|es)?",
    re.IGNORECASE)
_VERB_AFTER = re.compile(r"\s*(?:'s\b|’s\b|is\b|was\b|will\b|would\b|has\b|had\b|marks\b)",
                         re.IGNORECASE)
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[ \t]*$")
_ASIDE = re.compile(r"(?:['’]s)?[*_]{0,3}[ \t]*[(（]")


def dated_beside(text: str, start: int, end: int) -> bool:
    """Whether an explicit date stands right beside the phrase (no rewrite: a date spliced
    in would be glued to it, and the text already says the day). A time of day glued on
    after it is no date ("今晚20:00", "明天10点"): the day splices in with a space before the
    time (see :func:`spaced`)."""
    if (text[end : end + 1].isdigit() and not _TIME_AFTER.match(text, end)) \
            or text[start - 1 : start].isdigit():
        return True
    if text[end - 1 : end] in _EVENING and text[end : end + 1] == "上" \
            and text[end + 1 : end + 2] not in _SHANG_VERBS:
        return True  # 今晚上8点, 昨晚上的会: the word is 今晚上 (but 今晚上线: 今晚 and 上线)
    return bool(_DATE_AFTER.match(text, end) or _DATE_BEFORE.search(text, max(0, start - 12),
                                                                     start))


def as_adverb(text: str, start: int, end: int, phrase: str, resolved: str) -> str:
    """``resolved`` as it reads in the English sentence in place of ``phrase``: "we shipped
    yesterday" -> "we shipped on 2026-11-25", unless a preposition already stands before it
    ("since yesterday"), or the day is the sentence's subject or owner ("Today is ...",
    "yesterday's call"). Other languages need no word around a date."""
    if not phrase[:1].isascii() or not phrase[:1].isalpha() or not resolved[:1].isdigit():
        return resolved
    before = _WORD_BEFORE.search(text, max(0, start - 24), start)
    if before is not None and (before.group(1).casefold() in _NO_ON
                               or _CHOOSING.fullmatch(before.group(1))):
        return resolved
    if _VERB_AFTER.match(text, end):
        return resolved
    return ("On " if phrase[:1].isupper() else "on ") + resolved


def spaced(text: str, end: int, spliced: str) -> str:
    """``spliced`` as it takes the place of a phrase ending at ``end``: with a space after
    it where a time of day was glued on ("今晚20:00" -> "2026-02-27 20:00", never
    "2026-02-2720:00")."""
    return f"{spliced} " if text[end : end + 1].isdigit() and not spliced.endswith(" ") \
        else spliced


def glossed_part(text: str, start: int, end: int, phrase: str, resolved: str,
                 dated: tuple[int, int] | None = None) -> tuple[int, str]:
    """Where a part of the day's gloss ends and what takes ``start``-``end``'s place: the
    phrase kept and the date after it, after its possessive ("last night's (2026-11-17)
    deploy", never "last night (2026-11-17)'s"); a date the text gave beside it in brackets
    ("昨晚（11/17）") gives way to the whole one. ``dated``: where that date stands, when
    its brackets say more than it ("tonight (Wed 11-18)"): they stay, the whole date in its
    place ("tonight (Wed 2026-11-18)"), rather than a second pair follow."""
    after = start + len(phrase)
    if dated is not None:
        return end, f"{text[start:dated[0]]}{resolved}{text[dated[1]:end]}"
    own = text[after : after + possessive(text, after)]
    return (after + len(own) if end == after else end), f"{phrase}{own} ({resolved})"


def possessive(text: str, at: int) -> int:
    """The length of a possessive "'s" at column ``at`` that ends its word (2), else 0."""
    return 2 if text[at : at + 2] in ("'s", "’s") and not (
        text[at + 2 : at + 3].isalnum() or text[at + 2 : at + 3] in "'’") else 0


def aside_after(text: str, end: int) -> bool:
    """Whether a bracket that is no date's follows a phrase ending at ``end`` ("tonight
    (Wed)", "tonight (around 8pm)"): a part of the day there keeps its words as written,
    rather than take a second bracket."""
    return _ASIDE.match(text, end) is not None

