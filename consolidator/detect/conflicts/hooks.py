"""The index against its memories: a hook that counts a thing one way, the memory another.

Claude Code loads ``MEMORY.md`` into every session, and a memory's own text only when it is
opened. When a memory is brought up to date its line in the index often is not, so every
session reads the old figure: ``OpenClaw 10 agents`` in the index, ``9 agents`` in the memory's
description. Which side is right the text does not say (either may have been written last), so
this only warns. Topic memories the rebuild wrote are left out (their hooks count the lines
moved into them).

Two counts count one thing when their words are one word inflected (``agent``/``agents``,
``плана``/``планов``: the same in four letters or more but for at most two final letters;
``committers`` and ``commits`` are not) and the words around them share a content word
(``OpenClaw 10 agents on the VPS`` and ``OpenClaw 9 agents on the VPS`` do;
``2 agents offline`` and ``Atlas runs 9 agents`` do not). What a count is, and what is none:
:mod:`consolidator.detect.conflicts.counts`.

The two disagree when the memory gives the count's word other values and never the index's (a
memory that still gives it, ``6 clips, down from 8``, tells of the change), and the index never
writes the memory's: the description first (the memory's own one-line summary, as the hook is),
then the body where it gives the word exactly one value. The line a warning names is the
index's as read. Known false warnings: a hook that counts a part of what the memory counts
whole in the same word (``2 agents offline`` of ``9 agents on the VPS``, when the words around
them agree).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from itertools import chain

from consolidator.detect.conflicts.counts import Count, Values, as_counted, counts, numbers
from consolidator.detect.conflicts.negations import negated_hook
from consolidator.detect.links import is_topic
from consolidator.detect.text import normal_line
from consolidator.detect.words import line_features
from consolidator.index.parse import parse_index, split_pointer
from consolidator.store.model import Memory, Snapshot

_URL = re.compile(r"\w+://\S+")
MAX_COUNTS = 200  # counts of a hook looked at: enough for any hook
QUOTED = 20  # counts of one word a memory's text is compared by, around them
_CONTEXT = 60  # characters each side of a count whose words must share one
_SHOWN = 30  # characters of context each side of a number a warning quotes
_OUT_OF_DATE = "one of them is out of date"  # how every warning of this kind ends


def _alike(a: str, b: str) -> bool:
    """Whether two counted words are one word, inflected: equal, or the same in their first
    four letters and more, but for at most two final letters of each (CJK counters: equal)."""
    common = len(os.path.commonprefix((a, b)))
    return a == b or (common >= 4 and common >= max(len(a), len(b)) - 2)


def _around(text: str, count: Count) -> set[str]:
    """The content words and CJK character pairs around a count."""
    window = text[max(0, count.start - _CONTEXT) : count.start] + " " \
        + text[count.end : count.end + _CONTEXT]
    return line_features(normal_line(_URL.sub(" ", window)))  # a link is no shared subject


@dataclass(frozen=True, slots=True)
class _Word:
    """What one text says of one counted word: every value it gives, and the first counts
    (the ones a warning may quote)."""

    values: Values
    distinct: int  # how many values it gives
    counts: tuple[Count, ...]


class _Said:
    """One text's counts, by the word they count."""

    def __init__(self, text: str) -> None:
        self.text = text
        by_word: dict[str, list[Count]] = {}
        for count in counts(text):
            by_word.setdefault(count.word, []).append(count)
        self.by_head: dict[str, list[tuple[str, _Word]]] = {}
        for word, found in by_word.items():
            values = {min(c.values.exact) for c in found}
            said = _Word(Values(chain.from_iterable(c.values.exact for c in found),
                                 chain.from_iterable(c.values.refined for c in found)),
                         len(values), tuple(found[:QUOTED]))
            self.by_head.setdefault(word[:3], []).append((word, said))

    def of(self, word: str) -> list[_Word]:
        """What this text says of ``word`` (and of the word inflected)."""
        return [said for other, said in self.by_head.get(word[:3], ()) if _alike(other, word)]


def _against(hook: str, said: _Said, never: Values, hook_numbers: Values, one_value: bool,
             borne_out: _Said | None = None) -> tuple[Count, Count] | None:
    """The first count of ``hook`` that ``said`` gives other values, where the memory
    (``never``: every number it writes) never writes the hook's, the hook never writes the
    other's, and the words around the two share one (``one_value``: only where ``said``
    gives the word one value; ``borne_out``: a text of the memory that must not give the
    word the hook's value)."""
    for mine in counts(hook, MAX_COUNTS):
        if mine.values.agree(never):
            continue
        theirs = said.of(mine.word)
        if not theirs or any(w.values.agree(hook_numbers) for w in theirs):
            continue
        if one_value and sum(w.distinct for w in theirs) > 1:
            continue
        if borne_out is not None and any(w.values.agree(mine.values)
                                         for w in borne_out.of(mine.word)):
            continue
        near = _around(hook, mine)
        match = next((c for w in theirs for c in w.counts if near & _around(said.text, c)),
                     None)
        if match is not None:
            return mine, match
    return None


class _Memory:
    """A memory's text as counted, read once however many index lines point at it."""

    def __init__(self, memory: Memory) -> None:
        self.description = as_counted(memory.description)
        self.described = _Said(self.description)
        self.in_description = numbers(self.description)
        self._memory = memory
        self._body: tuple[_Said, Values] | None = None

    def body(self) -> tuple[_Said, Values]:
        """The body's counts, and every number the memory writes anywhere."""
        if self._body is None:
            body = as_counted(self._memory.body)
            self._body = (_Said(body), self.in_description | numbers(body))
        return self._body


def _quote(text: str, count: Count) -> str:
    """The count with a few words around it, on one line, from the text as counted (see
    :func:`~consolidator.detect.conflicts.counts.as_counted`)."""
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


def hook_drift(snapshot: Snapshot) -> dict[str, list[str]]:
    """For each memory whose index line counts something otherwise than the memory does, or
    says to do what the memory says not to (:mod:`consolidator.detect.conflicts.negations`),
    a warning per such line that quotes both."""
    text = snapshot.index.text
    if not text:
        return {}
    by_file = snapshot.by_file()
    read: dict[str, _Memory] = {}
    out: dict[str, list[str]] = {}
    for number, line in enumerate(parse_index(text, by_file), 1):
        memory = by_file.get(line.target or "")
        if memory is None or is_topic(memory.file):
            continue  # no memory, or one the rebuild wrote: its hook counts moved lines
        written = split_pointer(line.text)[2]
        if memory.file not in read:
            read[memory.file] = _Memory(memory)
        said = _count_drift(as_counted(written), read[memory.file]) \
            or _negation_drift(written, memory)
        if said is not None:
            out.setdefault(memory.file, []).append(
                f"{snapshot.index.name} line {number} says {said}: {_OUT_OF_DATE}")
    return out


def _count_drift(hook: str, known: _Memory) -> str | None:
    """What the hook and the memory say of a count they give different values, if any."""
    if not any(ch.isdigit() for ch in hook):
        return None
    hook_numbers = numbers(hook)
    body, everywhere = known.body()
    where, said = "description", known.described
    found = _against(hook, said, known.in_description, hook_numbers, False, body)
    if found is None:
        where, said = "text", body
        found = _against(hook, body, everywhere, hook_numbers, True)
    if found is None:
        return None
    mine, theirs = found
    return (f'"{_quote(hook, mine)}", and the memory\'s {where} '
            f'"{_quote(said.text, theirs)}", without {mine.shown}')


def _negation_drift(hook: str, memory: Memory) -> str | None:
    """What the hook says to do and the memory says not to, if anything."""
    found = negated_hook(hook, f"{memory.description or ''}\n{memory.body}")
    if found is None:
        return None
    phrase, said = found
    flat = " ".join(hook.split())
    at = flat.lower().find(phrase)
    return f'"{flat[at : at + len(phrase)]}", and the memory "{said}"'


_WARNING = re.compile(r"\S+ line (\d+) says ")


def drift_line(warning: str) -> int | None:
    """The index line a warning of :func:`hook_drift`'s names; None for any other warning."""
    found = _WARNING.match(warning) if warning.endswith(_OUT_OF_DATE) else None
    return int(found.group(1)) if found else None
