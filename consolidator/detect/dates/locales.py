"""Relative days in the languages :mod:`relative` has no forms of, from dateparser's locale data.

dateparser keeps, for each of some 200 locales, the words for "today", "yesterday", "next
week", "3 days ago" and the like (its ``relative-type`` and ``relative-type-regex`` tables).
Those tables are read here as data, without importing dateparser itself: the files are plain
Python literals, loaded on the first memory that needs them. English, Chinese and Japanese
keep their own, richer forms in :mod:`relative`.

The words of one language are often words of another ("hier" is "yesterday" in French and
"here" in German; "more" is "tomorrow" in Afrikaans), so a Latin-script phrase counts only in
a memory written in its language, told by the language's commonest short words. A phrase in
a script few languages share (Cyrillic, Hangul, Thai, ...) counts wherever it stands.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from consolidator.detect.script import HANGUL
from consolidator.detect.words import FUNCTION_WORDS

# The months in English, in order: the keys of dateparser's month tables, and the names
# every date grammar here reads.
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
# Languages relative.py reads with its own forms, and dateparser's variants of them.
_OWN = ("en", "zh", "ja", "yue")
_KEY = re.compile(r"(?P<in>in )?(?P<n>\d+|\\1) (?P<unit>day|week|month)(?P<ago> ago)?")
_NUMBER = re.compile(r"\(\\d\+\+\[\.,\]\?\\d\*\+\)")
MAX_DAYS = 3  # "the day after the day after tomorrow" is as far as a word for a day goes
_LATIN = re.compile(r"[a-zA-Z\u00c0-\u024f\u1e00-\u1eff]")
_WORD = re.compile(r"[^\W\d_]+")
# A letter of a script other than Latin, Chinese and Japanese (whose days relative.py reads):
# only a text holding one may hold another script's phrases.
_OTHER_LETTER = re.compile(
    r"[^\W\d_\x00-\u024f\u0300-\u036f\u1e00-\u1eff\u3040-\u30ff\u31f0-\u31ff"
    r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003ffff]")
# Combining marks, which Python's \w leaves out: vowel signs of the Indic scripts (परसों is
# one word, not परस and a sign), Thai, Lao, Khmer and Myanmar; Arabic and Hebrew points;
# decomposed Latin accents.
_MARKS = ("\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
          "\u06d6-\u06ed\u0900-\u0963\u0981-\u0dff\u0e31\u0e34-\u0e3a\u0e47-\u0e4e"
          "\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd\u102b-\u103e\u1056-\u1059\u17b4-\u17d3")
_TOKEN = re.compile(rf"\d+|(?:[^\W\d_]|[{_MARKS}])+")  # a number or a run of letters
# Points a writer may leave out (Arabic short vowels, Hebrew niqqud): words are compared
# without them, so غدًا is the locale's غدا.
_OPTIONAL = dict.fromkeys(
    [*range(0x064B, 0x0660), 0x0670, *range(0x0591, 0x05BE), 0x05BF, 0x05C1, 0x05C2, 0x05C4,
     0x05C5, 0x05C7])
_REGEX_SYNTAX = re.compile(r"[\\\[\](){}?*+|^$]")
_GAP = re.compile(r"[ \t'’\-]{0,3}")  # what may stand between the words of one phrase
_UNSPACED = re.compile(rf"[{HANGUL}\u0e00-\u0eff\u1780-\u17ff\u1000-\u109f]")
_SPACED_WITH_PARTICLES = re.compile(f"[{HANGUL}]+")  # Korean: words spaced, particles written on
# Korean writes its particles and the copula onto the word (어제는, 내일까지, 어제까지는,
# 오늘이다): a closed class, so anything else written on makes a longer word (오늘날,
# 내일모레, 내일배움카드).
KOREAN_ENDINGS = frozenset(
    "은 는 이 가 을 를 에 에서 에게 께 한테 의 도 만 까지 부터 로 으로 와 과 랑 이랑 하고 보다 "
    "처럼 마다 쯤 밖에 조차 마저 라도 이라도 요 이요 야 이야 엔 인 임 이다 입니다 이고 이며 였다 "
    "이었다 였고 이었고 였는데 인데".split()
)
_LONGEST_ENDING = max(map(len, KOREAN_ENDINGS))
_LANGUAGES_OF: dict[str, tuple[str, ...]] = {
    word: tuple(lang for lang, words in FUNCTION_WORDS.items() if word in words)
    for word in set().union(*FUNCTION_WORDS.values())
}
MIN_FUNCTION_WORDS = 3  # hits a language needs to count as the memory's language
# A word after a determiner is a noun: "por la mañana" is "in the morning", "der Morgen" the
# morning, not tomorrow.
_DETERMINERS = frozenset("the this la el los las le les der die das den dem des il lo gli una "
                         "un une een het esta este cette ce questa questo diese dieser".split())


@dataclass(frozen=True, slots=True)
class LocalePhrase:
    """A relative day found in a memory: ``shift`` days, weeks or months (``unit``) away."""

    start: int
    end: int
    unit: str  # "day", "week" or "month"
    shift: int
    # "this session" (see session.py): the language it is written in ("en", "it", "zh"),
    # else empty
    session: str = ""


@dataclass(frozen=True, slots=True)
class _Entry:
    """One phrase of a locale as the words it is written in ("#" stands for a number)."""

    words: tuple[str, ...]
    unit: str
    shift: int  # the shift itself, or the sign a number is multiplied by (``counted``)
    counted: bool


@dataclass(frozen=True, slots=True)
class _Language:
    entries: tuple[_Entry, ...]
    latin: bool


def _data_folder() -> Path | None:
    spec = importlib.util.find_spec("dateparser")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "date_translation_data"
    return folder if folder.is_dir() else None


def _meaning(key: str) -> tuple[str, int] | None:
    """(unit, shift) of a table key such as "1 day ago" or "in 2 day"; None for hours, years,
    durations ("1 week") and shifts no single word names."""
    match = _KEY.fullmatch(key)
    if match is None or bool(match.group("in")) == bool(match.group("ago")):
        return None
    sign = 1 if match.group("in") else -1
    unit = match.group("unit")
    if match.group("n") == "\\1":
        return unit, sign
    shift = int(match.group("n"))
    if shift > (MAX_DAYS if unit == "day" else 1):
        return None
    return unit, sign * shift


def _read(path: Path) -> dict[str, object] | None:
    """The ``info`` literal of one locale file, or None if it cannot be read."""
    spec = importlib.util.spec_from_file_location(f"_consolidator_locale_{path.stem}", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - a broken data file is one language less, not a crash
        return None
    info = getattr(module, "info", None)
    return info if isinstance(info, dict) else None


def _words(phrase: str) -> tuple[str, ...]:
    return tuple(w.translate(_OPTIONAL) for w in _TOKEN.findall(phrase.casefold()))


def _language(info: dict[str, object]) -> _Language | None:
    entries: dict[tuple[str, ...], _Entry] = {}
    two_ways: set[tuple[str, ...]] = set()  # words the locale gives two meanings: none read
    for table_key, counted in (("relative-type", False), ("relative-type-regex", True)):
        table = info.get(table_key)
        for key, phrases in (table.items() if isinstance(table, dict) else ()):
            meaning = _meaning(key)
            if meaning is None or not isinstance(phrases, list):
                continue
            for phrase in phrases:
                text, numbers = _NUMBER.subn(" 0 ", str(phrase)) if counted else (str(phrase), 0)
                if counted != (numbers == 1) or _REGEX_SYNTAX.search(text) \
                        or (not counted and any(map(str.isdigit, text))):
                    continue  # a pattern this reading cannot follow, or a number as a word
                words = tuple("#" if w == "0" else w for w in _words(text))
                if words and (len(words) > 1 or len(words[0]) >= 2):
                    entry = entries.setdefault(words, _Entry(words, *meaning, counted))
                    if (entry.unit, entry.shift) != meaning:
                        two_ways.add(words)  # Hindi कल: yesterday and tomorrow both
    entries = {words: e for words, e in entries.items() if words not in two_ways}
    own = {words: e for words, e in entries.items() if not _LATIN.search(" ".join(words))}
    if own:  # a language of another script: its Latin-script entries are English fill-ins
        return _Language(tuple(own.values()), latin=False)
    return _Language(tuple(entries.values()), latin=True) if entries else None


@cache
def _files() -> dict[str, Path]:
    """The locale files, by language code (one listing; none is read)."""
    folder = _data_folder()
    paths = sorted(folder.glob("*.py")) if folder else []
    return {path.stem: path for path in paths
            if not path.stem.startswith("_") and path.stem.split("-")[0] not in _OWN}


@cache
def _language_of(code: str) -> _Language | None:
    """One locale's relative days, read on first use."""
    info = _read(_files()[code])
    return _language(info) if info else None


def written_in(text: str) -> frozenset[str]:
    """The Latin-script languages ``text`` is written in, by their commonest words (English
    included, so that an English memory quoting one French word stays English)."""
    counts = dict.fromkeys(FUNCTION_WORDS, 0)
    for word in _WORD.findall(text.casefold()):
        for lang in _LANGUAGES_OF.get(word, ()):
            counts[lang] += 1
    best = max(counts.values())
    if best < MIN_FUNCTION_WORDS:
        return frozenset()
    return frozenset(lang for lang, n in counts.items()
                     if n >= MIN_FUNCTION_WORDS and n * 3 >= best * 2)


def _codes_for(latin: frozenset[str], other: bool) -> frozenset[str]:
    """The locales whose phrases may stand in a text written in the Latin-script languages
    ``latin``: theirs, and, when the text holds letters of another script (``other``), every
    locale of another script. Only those locales' files are read."""
    out = set()
    for code in _files():
        if code.split("-")[0] in latin or other:
            lang = _language_of(code)
            if lang is not None and (not lang.latin or code.split("-")[0] in latin):
                out.add(code)
    return frozenset(out)


@cache
def _by_first_word(codes: frozenset[str]) -> dict[str, tuple[_Entry, ...]]:
    """The entries of ``codes`` by their first word, longest phrase first. A phrase that
    starts with a number ("# days ago", hundreds of them) is filed under "#" and its second
    word, so a number in the text is tried only against the phrases its next word may start."""
    out: dict[str, list[_Entry]] = {}
    for code in sorted(codes):
        language = _language_of(code)
        for entry in language.entries if language is not None else ():
            head = entry.words[0]
            if head == "#" and len(entry.words) > 1:
                head = f"#{entry.words[1]}"
            out.setdefault(head, []).append(entry)
    return {w: tuple(sorted(es, key=lambda e: -len(e.words))) for w, es in out.items()}


def _heads(tokens: list[tuple[int, int, str]], at: int) -> list[str]:
    """The index keys a phrase written at token ``at`` may be filed under: the word, or its
    starts in a script written without spaces; for a number, "#" and the next word's."""
    word = tokens[at][2]
    if word.isdigit():
        after = tokens[at + 1][2] if at + 1 < len(tokens) else ""
        return [f"#{head}" for head in _starts(after)] + ["#"]
    return _starts(word)


def _starts(word: str) -> list[str]:
    """``word``, or in a script written without spaces each of its starts, longest first."""
    if not _UNSPACED.match(word):
        return [word]
    return [word[:k] for k in range(len(word), 0, -1)]


def _fits(word: str, wanted: str, last: bool) -> bool:
    """Whether a word of the text is the phrase's ``wanted`` word: the same, a number for
    "#", or, for the last word in a script written without spaces, its start (Korean writes
    a particle onto the word: 어제는)."""
    if wanted == "#":
        return word.isdigit() and len(word) <= 3
    return word == wanted or (last and _UNSPACED.match(wanted) is not None
                              and word.startswith(wanted))


def find_locale(text: str) -> Iterator[LocalePhrase]:
    """The relative days of ``text`` written in a language relative.py has no forms of."""
    latin = written_in(text) - {"en"}
    other = not text.isascii() and _OTHER_LETTER.search(text) is not None
    if not (latin or other):
        return
    codes = _codes_for(latin, other)
    index = _by_first_word(codes) if codes else {}
    if not index:
        return
    tokens = [(m.start(), m.end(), m.group().casefold().translate(_OPTIONAL))
              for m in _TOKEN.finditer(text)]
    at = 0
    while at < len(tokens):
        candidates = [e for head in _heads(tokens, at) for e in index.get(head, ())]
        if len(candidates) > 1:
            candidates.sort(key=lambda e: -len(e.words))  # the longest phrase first
        entry = next((e for e in candidates if _matches(tokens, at, e, text)), None)
        if entry is None:
            at += 1
            continue
        last = tokens[at + len(entry.words) - 1]
        stop = last[1] if last[2] == entry.words[-1] or entry.words[-1] == "#" \
            else last[0] + len(entry.words[-1])  # a particle written onto the last word
        if len(entry.words) == 1 and at and tokens[at - 1][2] in _DETERMINERS \
                or _starts_a_word(entry.words[-1], text[stop:last[1]]) \
                or entry.counted and entry.shift > 0:
            # A noun after a determiner ("por la mañana"); the start of a longer word in a
            # language that spaces its words (내일배움카드, a programme's name, against
            # 내일까지); "in N days", which is as often how long something takes ("deleted
            # after 7 days") as a day, and which the English forms leave out as well.
            at += 1
            continue
        shift = entry.shift
        if entry.counted:
            number = next(int(tokens[at + i][2]) for i, w in enumerate(entry.words) if w == "#")
            shift *= number
        yield LocalePhrase(tokens[at][0], stop, entry.unit, shift)
        at += len(entry.words)


def _starts_a_word(word: str, tail: str) -> bool:
    """Whether ``tail``, written onto ``word``, makes it part of a longer word rather than
    carry particles: in Korean, a tail that is not a run of particles and copula endings."""
    return bool(tail) and _SPACED_WITH_PARTICLES.fullmatch(word) is not None \
        and not _endings_only(tail)


def _endings_only(tail: str) -> bool:
    """Whether ``tail`` splits wholly into Korean particles and copula endings."""
    ends = {0}  # the offsets a run of endings can reach
    for at in range(len(tail)):
        if at in ends:
            ends.update(at + n for n in range(1, _LONGEST_ENDING + 1)
                        if tail[at:at + n] in KOREAN_ENDINGS)
    return len(tail) in ends


def _matches(tokens: list[tuple[int, int, str]], at: int, entry: _Entry, text: str) -> bool:
    """Whether the phrase ``entry`` is written at token ``at``: word by word, with nothing but
    a space, an apostrophe or a hyphen between them."""
    if at + len(entry.words) > len(tokens):
        return False
    for i, wanted in enumerate(entry.words):
        start, end, word = tokens[at + i]
        if not _fits(word, wanted, i == len(entry.words) - 1):
            return False
        if i and not _GAP.fullmatch(text, tokens[at + i - 1][1], start):
            return False
    return True


# The languages whose month names date a note ("11 avril 2026", "3 de marzo de 2026",
# "11. April 2026", "11 апреля 2026"): those whose memories the tool can tell apart, and the
# Cyrillic ones. A name two of them give different months is no name.
MONTH_LANGUAGES = ("cs", "da", "de", "es", "fr", "hu", "id", "it", "nb", "nl", "pl", "pt", "ro",
                   "ru", "sv", "tr", "uk")


@cache
def month_names() -> dict[str, int]:
    """Month names of :data:`MONTH_LANGUAGES`, casefolded, to their number: words of three
    letters or more, read from dateparser's locale data on first use."""
    found: dict[str, set[int]] = {}
    files = _files()
    for code in MONTH_LANGUAGES:
        info = _read(files[code]) if code in files else None
        for number, key in enumerate(MONTHS, 1):
            names = info.get(key) if info else None
            for name in names if isinstance(names, list) else ():
                word = str(name).casefold()
                if len(word) >= 3 and _WORD.fullmatch(word):
                    found.setdefault(word, set()).add(number)
    return {word: next(iter(months)) for word, months in found.items() if len(months) == 1}


# Units of time a date library names, besides the months and weekdays.
_TIME_KEYS = ("year", "month", "week", "day", "hour", "minute", "second")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
TIME_LANGUAGES = (*MONTH_LANGUAGES, "en", "el", "bg", "vi", "ko", "ja", "zh", "ar", "he", "hi",
                  "fa", "th")


@cache
def time_words() -> frozenset[str]:
    """The words for units of time, months and weekdays in :data:`TIME_LANGUAGES`,
    casefolded (``minutes``, ``stunden``, ``мая``, ``giorni``): what counts time, not things.
    Read from dateparser's locale data on first use; empty without it."""
    folder = _data_folder()
    found: set[str] = set()
    for code in TIME_LANGUAGES:
        path = folder / f"{code}.py" if folder else None
        info = _read(path) if path is not None and path.is_file() else None
        for key in (*_TIME_KEYS, *MONTHS, *_WEEKDAYS):
            names = info.get(key) if info else None
            for name in names if isinstance(names, list) else ():
                word = str(name).casefold()
                if _WORD.fullmatch(word):
                    found.add(word)
    return frozenset(found)
