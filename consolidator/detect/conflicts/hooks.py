"""The index against its memories: a hook that counts a thing one way, the memory another.

Claude Code loads ``MEMORY.md`` into every session, and a memory's own text only when it is
opened. When a memory is brought up to date its line in the index often is not, so every
session reads the old figure: ``OpenClaw 10 agents`` in the index, ``9 agents`` in the
memory's description; ``Phase 4`` in the index, ``Phase 3`` in the description. Which side
is right the text does not say (either may have been written last), so this only reports.

The key is what the number counts or numbers, read from the text beside it, in any language:

- the word after it (``10 agents``, ``6 планов``, past ``more`` or ``new``), or the character
  after it in Chinese, Japanese and Korean, where a counter is written on the number
  (``8편``, ``39个``);
- a word before it that starts with a capital (``Phase 4``, ``OpenClaw 10``): a label, not
  ``the``.

Two counts count one thing when they agree on one side and do not differ on the other
(``Phase 4`` and ``Phase 3 done`` do; ``Added 3 tests`` and ``Added 5 pages`` do not).

Words are compared by their first letters (``agent``/``agents``, ``плана``/``планов``).
A number that is part of a date, a time, a range, a dotted version, a share or an
identifier (``4/29``, ``09:30``, ``13-25``, ``3.8.1``, ``40%``, ``v181``, ``5x``) counts nothing
here, nor does a year; a decimal (``1.5 GB``, ``Django 4.2``) is a value like any other. The two disagree when the memory states the key with other values and never writes the
index's number anywhere (a memory that still mentions it, ``from 8 to 6``, tells the story of
the change), and the index never writes the memory's: the description is compared first (the
memory's own one-line summary, as the hook is), then the body when it gives the key exactly
one value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from consolidator.detect.script import CJK_LETTERS
from consolidator.index.parse import parse_index, split_pointer
from consolidator.store.model import Memory, Snapshot

# A number standing as a count: not after a letter, a digit or a sign that makes it part of a
# longer token, and not before one (a CJK letter after it is its counter: "8편").
_COUNT = re.compile(
    r"(?<![\w./:#@$€£%+\-~–—])(\d{1,6}(?:[.,]\d{1,3})?)"
    r"(?![\d%/:~×]|[.,\-–]\d|[A-Za-z_]|\.[A-Za-z])"
)
_ANY_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD_AFTER = re.compile(rf"[ \t]([^\W\d_]{{3,}})|([{CJK_LETTERS}])")
_NEXT_WORD = re.compile(r"[ \t]([^\W\d_]{3,})")
_WORD_BEFORE = re.compile(r"(?<![^\W\d_])([^\W\d_]{3,})[ \t]$")
STEM = 5  # letters a key word is compared by
# Words that follow a number without being what it counts ("3 and 4", "5 of them").
_JOINING = frozenset({
    "and", "or", "of", "the", "for", "with", "from", "into", "than", "per", "und", "oder",
    "les", "des", "par", "pour", "avec", "que", "por", "para", "con", "del", "для", "при",
    "или", "из",
})
# Words between a number and what it counts ("3 more tests", "5 neue Seiten"): the key is
# the word after them.
_BETWEEN = frozenset({
    "more", "new", "other", "extra", "mehr", "neue", "weitere", "plus", "nouveaux",
    "nouvelles", "autres", "más", "nuevos", "nuevas", "otros", "mais", "novos", "altri",
    "nuovi", "ещё", "новых", "других",
})
_SHOWN = 30  # characters of context each side of a number a warning quotes


@dataclass(frozen=True, slots=True)
class _Count:
    """A number and what it counts: the word after it, and a capitalised word before it
    (either may be missing, not both)."""

    before: str | None
    after: str | None
    value: str
    start: int
    end: int

    def keys(self) -> list[tuple[str, str]]:
        return [(side, word) for side, word in (("b", self.before), ("a", self.after)) if word]

    def same_key(self, other: _Count) -> bool:
        """Whether two counts count one thing: one side alike, the other not different."""
        alike = [mine == theirs for mine, theirs in ((self.before, other.before),
                                                     (self.after, other.after))
                 if mine and theirs]
        return bool(alike) and all(alike)


def _after(text: str, end: int) -> tuple[str | None, int]:
    """The word a number ending at ``end`` counts, and where it ends."""
    after = _WORD_AFTER.match(text, end)
    if after is None:
        return None, end
    if after.group(2):
        return after.group(2), after.end()  # a counter written on the number: "8편"
    word = after.group(1).casefold()
    if word in _BETWEEN:
        again = _NEXT_WORD.match(text, after.end())
        return (again.group(1).casefold()[:STEM], again.end()) if again else (None, end)
    return (None, end) if word in _JOINING else (word[:STEM], after.end())


def _counts(text: str) -> Iterator[_Count]:
    """The counts of ``text``, each with the key it counts or numbers."""
    for match in _COUNT.finditer(text):
        value = match.group(1)
        if len(value) == 4 and value[:2] in ("19", "20"):
            continue  # a year
        after, end = _after(text, match.end())
        before = _WORD_BEFORE.search(text, max(0, match.start() - 40), match.start())
        label = before.group(1) if before and before.group(1)[0].isupper() else None
        if after or label:
            yield _Count(label.casefold()[:STEM] if label else None, after, value,
                         before.start() if label and before else match.start(), end)


def _numbers(text: str) -> set[str]:
    """Every number written anywhere in ``text`` (dates, versions and ranges included)."""
    return set(_ANY_NUMBER.findall(text))


def _quote(text: str, count: _Count) -> str:
    """The count with a few words around it, as written, on one line."""
    start = max(0, count.start - _SHOWN)
    end = min(len(text), count.end + _SHOWN)
    if start:
        space = text.find(" ", start, count.start)
        start = space + 1 if space >= 0 else start
    if end < len(text):
        space = text.rfind(" ", count.end, end)
        end = space if space >= 0 else end
    shown = " ".join(text[start:end].split())
    return f"{'…' if start else ''}{shown}{'…' if end < len(text) else ''}"


_Keyed = dict[tuple[str, str], list[_Count]]


def _keyed(text: str) -> _Keyed:
    """The counts of ``text`` by each of their keys."""
    out: _Keyed = {}
    for count in _counts(text):
        for key in count.keys():
            out.setdefault(key, []).append(count)
    return out


def _against(hook: str, hook_numbers: set[str], theirs: _Keyed, never: set[str],
             one_value: bool) -> tuple[_Count, _Count] | None:
    """The first count of ``hook`` that another text (its counts: ``theirs``) gives other
    values for, where the memory (``never``: every number it writes) never writes the hook's
    and the hook never writes the other's (``one_value``: only where the text gives the key
    one value)."""
    for mine in _counts(hook):
        if mine.value in never:
            continue
        found = [c for key in mine.keys() for c in theirs.get(key, ()) if mine.same_key(c)]
        if not found:
            continue
        values = {c.value for c in found}
        if values & hook_numbers or (one_value and len(values) > 1):
            continue
        return mine, found[0]
    return None


class _Said:
    """A memory's counts and numbers, in its description and in all its text, read once
    however many index lines point at it."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.described = _keyed(memory.description)
        self.in_description = _numbers(memory.description)
        self._body: tuple[_Keyed, set[str]] | None = None

    def body(self) -> tuple[_Keyed, set[str]]:
        """The body's counts, and every number the memory writes anywhere."""
        if self._body is None:
            self._body = (_keyed(self.memory.body),
                          self.in_description | _numbers(self.memory.body))
        return self._body


def hook_drift(snapshot: Snapshot, by_file: Mapping[str, Memory] | None = None
               ) -> dict[str, list[str]]:
    """For each memory whose index line counts something otherwise than the memory does, a
    warning per such line that quotes both."""
    text = snapshot.index.text
    if not text or not any(ch.isdigit() for ch in text):
        return {}
    by_file = by_file if by_file is not None else snapshot.by_file()
    said: dict[str, _Said] = {}
    out: dict[str, list[str]] = {}
    for number, line in enumerate(parse_index(text, by_file), 1):
        memory = by_file.get(line.target or "")
        if memory is None:
            continue
        hook = split_pointer(line.text)[2]
        if not any(ch.isdigit() for ch in hook):
            continue
        hook_numbers = _numbers(hook)
        known = said.get(memory.file) or said.setdefault(memory.file, _Said(memory))
        where, shown = "description", memory.description
        found = _against(hook, hook_numbers, known.described, known.in_description, False)
        if found is None:
            where, shown = "text", memory.body
            found = _against(hook, hook_numbers, *known.body(), True)
        if found is None:
            continue
        mine, theirs = found
        out.setdefault(memory.file, []).append(
            f'{snapshot.index.name} line {number} says "{_quote(hook, mine)}", and the '
            f'memory\'s {where} "{_quote(shown, theirs)}", without {mine.value}: one of them '
            "is out of date")
    return out
