"""Content words of a memory: what it is about, as opposed to how memories are written.
(Not :mod:`consolidator.detect.dates.words`, the words that tell a dated event from a rule.)

Two memories about one subject share content words; two memories written from one template
share only the template. So the comparison keeps words that carry meaning — Latin words that
are neither stop words nor the words every memory uses (why, how, apply, session…), lightly
stemmed so that "overwriting" meets "overwrite" — and, for Chinese and Japanese, which have no
spaces, and Korean, whose words take their endings and particles in the word itself, pairs of
adjacent characters (character bigrams), leaving out pairs of hiragana alone, which are
mostly grammar.

Input is a *normal line* (``consolidator.detect.text.normal_line``): its tokens joined by single
spaces, CJK characters one token each.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable

from consolidator.detect.script import BIGRAM_CHARS
from consolidator.store.codespans import fence_kinds

# The commonest short words of each Latin-script language: enough to tell which one a text is
# written in (dates/locales.py; a language not listed is never assumed for a Latin-script
# memory), and words that never say what a line is about (conflicts).
FUNCTION_WORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "en": "the and is are to of with for was were this that not from have has will be",
    "de": "der die das und ist nicht mit für ein eine auf wird sind den dem auch wir ich",
    "fr": "le la les et est des une pour avec pas dans sur du au ce qui sont nous en un il",
    "es": "el los las es para con una del por que está no se lo como más la en un",
    "pt": "os as para com uma do da não que em se dos das mais são na no ao um foi",
    "it": "il lo gli per con una del della non che sono di un al nel la le si ha più anche come",
    "nl": "de het en is van een voor met niet op zijn ook wordt dat",
    "pl": "na się jest nie do że to oraz jak po dla",
    "tr": "ve bir bu için ile değil da de olarak ama çok",
    "id": "dan yang di ini untuk dengan tidak itu ke dari pada akan",
    "vi": "và của là không có được cho với này các những một trong đã sẽ đang bị rồi cũng "
          "khi nếu thì để từ",
    "sv": "och är att det som en för på med inte av till",
    "da": "og er at det som en for på med ikke af til",
    "nb": "og er at det som en for på med ikke av til",
    "ro": "și este la de cu pentru nu că în un",
    "cs": "je na se že to do pro není",
}.items()}

_STOP = frozenset(
    """a an the to of in on at for and or nor but if then than so as by from with without
    into onto over under about after before again once is are was were be been being am do
    does did done doing have has had having it its this that these those there here what
    which who whom whose when where why how all any both each few more most other some such
    no not only own same too very can will just should would could may might must shall
    we you i he she they them our your my me us his her their him also via per etc
    e g eg ie vs one two use used using get got make made see new now up out off
    why how apply note notes related see also memory memories user feedback project
    reference type name description md todo ok yes""".split()
)
# Bigrams of hiragana alone are mostly particles and verb endings (する, ない, ので).
_HIRAGANA = range(0x3040, 0x30A0)
_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly")


def stem(word: str) -> str:
    """A light English stem: common suffixes and a final e removed, never below 3 letters."""
    base = word
    for suffix in _SUFFIXES:
        if base.endswith(suffix) and len(base) - len(suffix) >= 3:
            base = base[: -len(suffix)]
            break
    if base.endswith("e") and len(base) > 3:
        base = base[:-1]
    return base


class _Stems(dict[str, str]):
    """Word -> its stem ('' for what is no content word: a stop word, a number, a letter);
    filled on first use, so a set of words maps through it at C speed."""

    def __missing__(self, word: str) -> str:
        if len(self) > 200_000:  # a bound on a cache that a large root would fill
            self.clear()
        found = "" if len(word) < 2 or word.isdigit() or word in _STOP else (
            stem(word) if word.isascii() else word)
        self[word] = found
        return found


_STEMS = _Stems()


def _words(candidates: Iterable[str]) -> set[str]:
    """The content words among the tokens that are not CJK characters (Latin, Cyrillic and
    other words), English ones stemmed."""
    out = set(map(_STEMS.__getitem__, candidates))  # at C speed, unlike a comprehension
    out.discard("")
    return out


# Two CJK characters side by side in a normal line (which puts a space between them); the
# lookahead lets the pairs overlap, and the search stays linear.
_PAIR = re.compile(rf"(?=([{BIGRAM_CHARS}]) ([{BIGRAM_CHARS}]))")
_HIRAGANA_CHARS = frozenset(chr(c) for c in _HIRAGANA)


def _bigrams(normal: str) -> tuple[set[str], list[str]]:
    """The CJK bigrams of a normal line, and its other tokens."""
    grams = {a + b for a, b in _PAIR.findall(normal)
             if a not in _HIRAGANA_CHARS or b not in _HIRAGANA_CHARS}
    others = [t for t in normal.split(" ") if len(t) > 1 or ord(t[:1] or " ") < 0x3040]
    return grams, others


def line_features(normal: str) -> set[str]:
    """The content features of one normal line: stemmed words and CJK bigrams."""
    if normal.isascii():
        return _words(normal.split(" "))
    grams, others = _bigrams(normal)
    return grams | _words(others)


def features(normal_lines: Iterable[str]) -> set[str]:
    """The content features of many normal lines together (the words of all Latin lines are
    split at once: most memories are mostly Latin text)."""
    latin: list[str] = []
    out: set[str] = set()
    for line in normal_lines:
        if line.isascii():
            latin.append(line)
        else:
            out |= line_features(line)
    if latin:
        out |= _words(set(" ".join(latin).split(" ")))
    # The same words stand in thousands of memories: one string each, not one per memory.
    return set(map(sys.intern, out))


def lines_features(
    cache: dict[str, set[str]], file: str, lines: Iterable[str], keep: bool = True
) -> set[str]:
    """The :func:`features` of a memory's normal lines, kept in ``cache`` (by file) so that
    the detectors that all want them work them out once; not to be changed in place.
    ``keep=False`` takes them out of the cache (the last detector to want them)."""
    found = cache.get(file) if keep else cache.pop(file, None)
    if found is None:
        found = features(lines)
        if keep:
            cache[file] = found
    return found


_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])\s+")


def sentences(body: str) -> list[str]:
    """The sentences of a body's list items and paragraphs (each claim a person could state
    on its own), as written."""
    out: list[str] = []
    for paragraph in _paragraphs(body):
        out += [part.strip() for part in _SENTENCE_END.split(paragraph) if part.strip()]
    return out


_ITEM = re.compile(r"(?:[-*+•]|\d{1,3}[.)]|#{1,6}|\||>)\s")


def _paragraphs(body: str) -> list[str]:
    """List items and paragraphs of a body, each as one line (wrapped lines joined with a
    space); headings, table rows and code lines stand alone."""
    out: list[str] = []
    current: list[str] = []
    lines = body.splitlines()
    for raw, code in zip(lines, fence_kinds(lines), strict=True):
        line = raw.strip()
        starts = not line or bool(code) or _ITEM.match(line) is not None
        if starts and current:
            out.append(" ".join(current))
            current = []
        if line and not code:
            if line.startswith(("#", "|")):
                out.append(line)
            else:
                current.append(line)
    if current:
        out.append(" ".join(current))
    return out
