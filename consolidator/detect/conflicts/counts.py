"""Counts in text: a number and the word that says what it counts, in any language.

A count is a number and the word after it that says what it counts, in any language:
``10 agents``, ``6 планов``, or ``3 more checks`` (``more`` or ``new`` kept in the key:
``3 new tests`` are not a suite's ``40 tests``); in Chinese, Japanese and Korean the counter
written on the number (``8편``), and after a counter that fits anything (``3个``, ``3つの``,
``3개의``) up to three letters of the noun after it too (``个服务`` is not ``个服务器``).

Not counts: a number inside a date, a time, a range, a ratio (``3 of 5``, ``3 bis 5``), a
version, a share (``40 %``), a path or an identifier (``PR 412``, ``RFC 9110``); a year; an
approximate figure or a bound (``about 1,200``, ``~40``, ``约30``, ``up to 40``,
``at least 40``); a rate (``3 nodes per region``, ``50 calls a day``); a number of units of
time (``30 days``, ``25 minutes``, ``3个月``: English's and those of dateparser's locale data,
months and weekdays too), of money (``5000 USD``, ``5 евро``, ``9900원``), of a measure written
with capitals (``40 GiB``) or of times something happens (``3 times``, ``3 fois``, ``3次``). A
number is its value however it is written: ``1,200``, ``1 200`` and ``1200`` agree, so do
``30,9`` and ``30.9``, ``１０`` and ``10``, ``**10**`` and ``10``, and a version and its
refinement (``Node 20`` and ``Node 20.11``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from consolidator.detect.dates.locales import time_words
from consolidator.detect.script import CJK_LETTERS
from consolidator.detect.words import FUNCTION_WORDS

# Letters of the alphabets written with spaces (Latin, Greek, Cyrillic): one before a number
# makes it part of a word ("v181"); a CJK letter does not ("共10个").
_LETTERS = "\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"
# A number standing on its own: grouped thousands (1,200 / 1.200 / 1 200) or digits, with a
# decimal part; not after a letter, a digit or a sign that makes it part of a longer token,
# nor before one (a CJK letter after it is its counter: "8편").
_COUNT = re.compile(
    rf"(?<![0-9A-Za-z_{_LETTERS}./:#@$€£%+\-~–—≈\\])"
    r"(?P<n>\d{1,3}(?:,\d{3}){1,4}|\d{1,3}(?:\.\d{3}){1,4}(?![.,]?\d)"
    r"|\d{1,3}(?: \d{3}){1,4}(?![\d.,])|\d{1,15})"
    r"(?P<d>[.,]\d{1,6})?"
    r"(?![\d/:~×]|[.,\-–]\d|[ \t]?[%‰]|[A-Za-z_]|\.[A-Za-z])"
)
_EMPHASIS = re.compile(r"\*{1,3}|`+")  # around a number: "**10** agents", "`9` agents"
_ANY_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SPACED = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3}){1,4}(?!\d)")  # "8 553", "1 200 000"
_WORD_AFTER = re.compile(rf"[ \t]([^\W\d_]{{3,}})|([{CJK_LETTERS}])")
_NEXT_WORD = re.compile(rf"[ \t]?([{CJK_LETTERS}]{{1,2}}|[^\W\d_]{{3,}})")
# An identifier's label right before a number: "PR 412", "RFC 9110", "HTTP 404".
_CODE_BEFORE = re.compile(r"(?<![\w])[A-Z]{2,}[ \t#-]?$")
# What joins a counter that fits anything to its noun: "3つのサービス", "3개의 서버", "3个的".
_PARTICLE = re.compile(r"[ \t]?[の的之의]?[ \t]?")
_NOUN = re.compile(rf"[{CJK_LETTERS}]{{1,3}}")
# A rate, not a count: "3 nodes per region", "50 calls a day", "5 Anfragen pro Tag".
_RATE = re.compile(r"[ \t]*(?:/(?=[^\W\d_])|(?:per|each|every|a|an|pro|par|por|al|за|в)[ \t])",
                   re.IGNORECASE)
# Time written on a counter that fits anything: "3个月", "3ヶ月", "3개월", "3个小时".
_COUNTER_TIME = re.compile(r"[ヶケカか个個개]?[月時时주週周년年일日]|小时|小時|星期|시간|개월")
_RANGE_AFTER = re.compile(r"[ \t]{0,2}[-–~]?[ \t]{0,2}\d")  # "3 bis 5", "4 sur 5"
# Approximate figures: a sign or a word just before the number.
_ABOUT = re.compile(
    r"(?:[~≈≃<>≤≥]|约|約|대략|약|최대|최소|最多|最少|至少|\b(?:about|around|approx\.?|approximately|"
    r"over|under|nearly|almost|roughly|up to|more than|less than|fewer than|at least|at most|"
    r"max|min|maximum|minimum|rund|etwa|bis zu|mehr als|ca\.|circa|environ|jusqu'à|plus de|"
    r"moins de|unos|unas|cerca de|hasta|más de|quasi|fino a|até|около|примерно|почти|более|"
    r"больше|до|не менее))[ \t]*$", re.IGNORECASE)
MAX_DIGITS = 24  # a longer run of digits and separators is no figure
# Words between a number and what it counts ("3 more tests", "5 neue Seiten").
_BETWEEN = frozenset({
    "more", "new", "other", "extra", "mehr", "neue", "weitere", "plus", "nouveaux",
    "nouvelles", "autres", "más", "nuevos", "nuevas", "otros", "mais", "novos", "altri",
    "nuovi", "ещё", "новых", "других",
})
# Words that follow a number without being what it counts ("3 and 4", "5 of them", "8080
# behind nginx"), besides every language's commonest words (FUNCTION_WORDS).
_JOINING = frozenset({
    "and", "or", "of", "the", "for", "with", "from", "into", "than", "per", "via", "behind",
    "before", "after", "since", "until", "over", "under", "between", "und", "oder", "bis",
    "von", "les", "des", "par", "pour", "avec", "que", "por", "para", "con", "del", "для",
    "при", "или", "из",
})
# How often, not how many: "3 times", "3 fois", "3 veces", "3 volte", "3 vezes", "3 Mal".
_TIMES = frozenset({"times", "fois", "veces", "volte", "vezes", "mal", "раз", "раза"})
# Counters that fit anything: the word after them says what is counted.
_GENERIC = frozenset("个個件つ개项項条條点點种種本枚台名位")
# Counters of time, of how often and of money: a day, an hour, a time, a price, not a count
# of things.
_TIME_COUNTERS = frozenset("年月日号號時时分秒周週天회번次回시월일초원円元块圓")
# Money: an amount is said of many things at once (a budget, a plan, a price).
_MONEY = frozenset({"dollars", "dollar", "euros", "euro", "yen", "yuan", "pounds", "rupees",
                    "pesos", "reais", "dólares", "franken", "francs", "рублей", "рубля", "рубль",
                    "евро", "долларов", "доллара", "доллар", "гривен", "won"})
# Units of time in English, whatever dateparser's data holds.
_UNITS = frozenset({"second", "seconds", "secs", "minute", "minutes", "mins", "hour", "hours",
                    "hrs", "day", "days", "week", "weeks", "month", "months", "year", "years"})


@dataclass(frozen=True, slots=True)
class Count:
    """A number and what it counts, in the text it stands in."""

    word: str  # what it counts, case-folded
    values: Values  # the number's value, or each it may be ("1,200": 1200 or 1.2)
    shown: str  # the number as written
    start: int
    end: int


def _values(number: str, decimal: str | None) -> Values:
    """The values a number may have, however it groups its thousands."""
    digits = "".join(str(unicodedata.digit(ch, 0)) if ch.isdigit() else ch for ch in number)
    tail = decimal[1:] if decimal else ""
    if len(digits) > 3 and digits[-4] in ",. ":
        whole = float(digits.replace(",", "").replace(".", "").replace(" ", ""))
        plain = {whole} if not tail else {float(f"{int(whole)}.{tail}")}
        if digits.count(digits[-4]) == 1 and digits[-4] != " " and not tail:
            plain.add(float(digits.replace(",", ".")))  # "1,200" may be 1.2
        return Values(plain)
    if tail:  # a decimal refines its whole part: "Node 20.11" is Node 20
        return Values({float(f"{digits}.{tail}")}, {float(digits)})
    return Values({float(digits)})


def _counted(text: str, end: int) -> tuple[str | None, int]:
    """The word a number ending at ``end`` counts (None: no count), and where it ends."""
    after = _WORD_AFTER.match(text, end)
    if after is None:
        return None, end
    if after.group(2):  # a counter written on the number: "8편", "3个服务"
        counter = after.group(2)
        if counter in _TIME_COUNTERS or _COUNTER_TIME.match(text, end):
            return None, end
        if counter not in _GENERIC:
            return counter, after.end()
        joined = _PARTICLE.match(text, after.end())
        noun = _NOUN.match(text, joined.end() if joined else after.end())
        return (counter + noun.group(0), noun.end()) if noun else (None, end)
    word = after.group(1).casefold()
    stop = after.end()
    between = ""
    if word in _BETWEEN:  # kept in the key: "3 new tests" are not the suite's "40 tests"
        again = _NEXT_WORD.match(text, stop)
        if again is None:
            return None, end
        between, word, stop = f"{word} ", again.group(1).casefold(), again.end()
    if _not_a_thing(word, text[stop - len(word) : stop]) or _RANGE_AFTER.match(text, stop) \
            or _RATE.match(text, stop):
        return None, end
    return between + word, stop


def _not_a_thing(word: str, written: str) -> bool:
    """Whether a word after a number says something other than what it counts: a word that
    joins (``3 and 4``, ``für``), a unit of time, money or measure (``days``, ``euros``,
    ``GiB``, ``USD``: written with two capitals or more), how often (``times``)."""
    return word in _JOINING or word in _TIMES or word in _MONEY or word in _UNITS \
        or any(word in words for words in FUNCTION_WORDS.values()) \
        or sum(ch.isupper() for ch in written) >= 2 or word in time_words()


def counts(text: str, most: int | None = None) -> Iterator[Count]:
    """The counts of ``text`` (at most ``most``)."""
    found = 0
    for match in _COUNT.finditer(text):
        number = match.group("n")
        if len(number) == 4 and number[:2] in ("19", "20") and not match.group("d"):
            continue  # a year
        word, end = _counted(text, match.end())
        if word is None or _ABOUT.search(text, max(0, match.start() - 16), match.start()) \
                or _CODE_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            continue  # no count, an approximate figure, or an identifier
        yield Count(word, _values(number, match.group("d")), match.group(0), match.start(),
                     end)
        found += 1
        if most is not None and found >= most:
            return


def numbers(text: str) -> Values:
    """Every value a number written anywhere in ``text`` may have (dates, versions, ranges
    too): each run of digits, and the whole read with its separators (``,``, ``.`` or a
    space) as thousands or as a decimal point."""
    out: set[float] = set()
    refined: set[float] = set()
    for token in _ANY_NUMBER.findall(text):
        if len(token) > MAX_DIGITS:
            continue  # no figure: an identifier, a hash, a dump of digits
        parts = re.split(r"[.,]", token)
        out.update(float(part) for part in parts)
        if len(parts) > 1:
            out.add(float("".join(parts)))
            if len(parts) == 2:
                out.add(float(".".join(parts)))
            if len(parts) > 2 or len(parts[1]) != 3:  # a version, or plainly a decimal
                refined.add(float(parts[0]))
    out.update(float(token.replace(" ", "")) for token in _SPACED.findall(text))
    return Values(out, refined)


class Values:
    """Numbers as values, and the whole numbers a decimal or a version written among them
    refines (``20.11`` and ``3.8.1`` refine ``20`` and ``3``)."""

    __slots__ = ("exact", "refined", "whole")

    def __init__(self, values: Iterable[float], refined: Iterable[float] = ()) -> None:
        self.exact = frozenset(values)
        self.refined = frozenset(refined)
        self.whole = frozenset(v for v in self.exact if v >= 1 and v.is_integer())

    def __or__(self, other: Values) -> Values:
        return Values(self.exact | other.exact, self.refined | other.refined)

    def agree(self, other: Values) -> bool:
        """Whether a number of each may be one value: equal, or one the other refined."""
        return bool(self.exact & other.exact or self.whole & other.refined
                    or other.whole & self.refined)


def as_counted(text: str) -> str:
    """``text`` as counted: full-width digits and letters and no-break spaces in their plain
    forms (NFKC: ``１０`` is 10), without emphasis or code marks (``**10**`` is 10)."""
    text = unicodedata.normalize("NFKC", text) if not text.isascii() else text
    return _EMPHASIS.sub("", text) if "*" in text or "`" in text else text
