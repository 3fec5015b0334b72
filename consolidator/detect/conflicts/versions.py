"""Conflicts by key: two memories that give one named tool two versions.

``Stack: Astro 6 + React 19`` in one memory against ``Astro 5 is all but required`` in
another, or ``astro@5.2`` against ``astro@6.0``: the key is the tool's name, the value its
version. Unlike a skeleton conflict (:mod:`consolidator.detect.conflicts.find`) the two lines
need not be worded alike; the key is what ties them, so it is read as a key only where the
directory's own writing shows it is one:

- the name is a proper name: capitalised, at least two characters, and never written in lower
  case in the prose of any memory of the directory (``Top 5``, ``Fase 1``, ``Des 237``: a word
  at the start of a sentence, not a name); or a package pinned in code (``name@1.2``,
  ``name==1.2``);
- the version is a version: a number with at most two digits before its first dot, written
  apart from the name (``S3``, ``EC2`` are names), not a minimum (``3.8+``, ``>= 3.8``, ``3.8
  or later``), a share, a size, a range or part of a longer token (``5x``, ``5%``, ``5/6``);
- the name is no heading's (a heading that numbers a name, ``## Phase 2`` or ``### Top 15``,
  makes it a part of something, not a tool), and a line that is a heading states no version;
- the directory gives the name exactly two versions (three or more: a counter or an ordinal,
  not one tool), one in each memory (a memory that states both is a note of the move from one
  to the other), and neither refines the other (``3`` and ``3.11``); a value the memory's own
  file name holds (``v8_refactoring.md``) names the memory, not a version;
- the two memories are not one template filled in for two things (several of their lines
  line up with other values: two servers' RAM, CPU and OS).

Found in one pass over the memories' prose; like every conflict, reported, never merged
offline. The newer memory is the one written last (Claude Code's ``modified``, else the
file's time).
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections import defaultdict
from collections.abc import Collection, Container, Iterable

from consolidator.detect.conflicts.find import INSTANCE_LINES
from consolidator.detect.conflicts.skeletons import skeleton
from consolidator.detect.findings import Conflict
from consolidator.detect.text import normal_set
from consolidator.store.codespans import code_spans
from consolidator.store.model import Memory

MAX_VERSIONS = 2  # versions a name may take across the directory and still be one tool
MAX_LINE = 2000  # characters of a line read for versions; a longer one is no single claim

# A proper name and the version written after it: the name's last character is a letter, a
# `+` or a `#` (C++, C#); the version stands apart, and what follows it is no more of a token.
# (What stands before the name is checked after its capital: a pattern that starts with a
# character class is searched for far faster than one that starts with a look-behind.)
_NAMED = re.compile(
    r"(?P<name>[A-Z](?<![\w.@/#+\\-][A-Z])(?:[\w.+#-]*[^\W\d_+.#-]|[\w.-]*[+#]+))[ \u00a0]v?"
    r"(?P<version>\d{1,2}(?:\.\d{1,4}){0,3})"
    r"(?![\w.+%/:*°-]|,\d| ?(?:or (?:later|newer|above|higher)|and (?:up|above|later)"
    r"|以上|以降|이상))"
)
# A package pinned in code to one version: `astro@5.2.1`, `django==4.2` (a range, `^5.2` or
# `>=4.2`, pins none).
_PINNED = re.compile(
    r"(?<![\w.@/-])(?P<name>@?[a-z][\w.-]*[a-z0-9](?:/[a-z][\w.-]*[a-z0-9])?)(?:@|==)v?"
    r"(?P<version>\d+(?:\.\d+){0,3})(?![\w.*])"
)
_TRAILING_VERSION = re.compile(r"\d+(?:\.\d+)*$")  # the version a statement ends with
_DIGIT = re.compile(r"\d")
_BREAK = re.compile(r"\n")
_HEADING = re.compile(r" {0,3}#{1,6}\s")
_WORD = re.compile(r"(?<![\w.@/#\\-])[^\W\d_][\w+#-]*")


@dataclasses.dataclass(frozen=True, slots=True)
class _Stated:
    """The first statement of a name's version in a memory, and every version it gives."""

    version: str
    line: str  # as written, stripped
    name: str  # as written
    said: str  # the name and its version as the line writes them (``Astro 5``)
    versions: frozenset[str]


def find_version_conflicts(memories: Iterable[Memory],
                           skip: Container[frozenset[str]] = frozenset(),
                           sets: dict[str, frozenset[str]] | None = None) -> list[Conflict]:
    """Pairs of memories giving one named tool different versions (``skip``: pairs already
    reported as duplicates or conflicts; ``sets``: each memory's normal-form lines, if the
    caller has them)."""
    by_file = {m.file: m for m in memories}
    stated: dict[str, dict[str, _Stated]] = {}  # name (folded) -> file -> what it states
    headed: set[str] = set()  # names a heading numbers
    for file, memory in by_file.items():
        if _DIGIT.search(memory.body):
            for key, found in _read(memory.body, headed).items():
                stated.setdefault(key, {})[file] = found
    keys = {key: files for key, files in stated.items()
            if len(files) >= 2 and key not in headed and _two(files)}
    if keys:  # (rare: only then is every memory's prose read for the names in lower case)
        lower = _written_lower(by_file.values(), keys)
        keys = {key: files for key, files in keys.items() if key not in lower}
    out = []
    for _key, files in sorted(keys.items()):
        one = {file: found for file, found in files.items()
               if len(found.versions) == 1 and found.version not in file.lower()}
        for a in sorted(one):
            for b in sorted(one):
                if a < b and one[a].version != one[b].version \
                        and frozenset((a, b)) not in skip \
                        and not _instances(by_file[a], by_file[b], sets):
                    out.append(_conflict(by_file[a], by_file[b], one[a], one[b]))
    return out


def _instances(a: Memory, b: Memory, sets: dict[str, frozenset[str]] | None) -> bool:
    """Whether two memories are one template filled in for two things: several of their
    lines line up (one skeleton) with other values, as two servers' RAM, CPU and OS do."""
    lines_a, lines_b = ((sets[m.file] if sets is not None else normal_set(m.body))
                        for m in (a, b))
    keyed: dict[str, set[str]] = defaultdict(set)
    for line in lines_a:
        if (key := skeleton(line)) is not None:
            keyed[key].add(line)
    lined_up = sum(1 for line in lines_b
                   if (key := skeleton(line)) in keyed and line not in keyed[key])
    return lined_up >= INSTANCE_LINES


def _two(files: dict[str, _Stated]) -> bool:
    """Whether the directory gives a name exactly two versions, neither refining the other."""
    versions = sorted(frozenset().union(*(found.versions for found in files.values())))
    return len(versions) == MAX_VERSIONS and not _refines(*versions)


def _read(body: str, headed: set[str]) -> dict[str, _Stated]:
    """The versions ``body`` states, by folded name (and, into ``headed``, the names its
    headings number). Each pattern runs over the whole text once (neither crosses a line);
    where the text is code, and which line a match stands in, is worked out only once a
    pattern matches: a name in code is no statement, a pin only in a fenced block is none."""
    first: dict[str, tuple[int, _Stated]] = {}  # the earliest statement of each name
    versions: dict[str, set[str]] = defaultdict(set)
    code: _Code | None = None
    starts: list[int] = []
    for pattern, allowed in ((_NAMED, None), (_PINNED, "inline")):
        if pattern is _PINNED and "@" not in body and "==" not in body:
            continue
        for match in pattern.finditer(body):
            if code is None:
                code = _Code(body)
                starts = [0, *(m.end() for m in _BREAK.finditer(body))]
            where = code.at(match.start())
            if where is not None and where != allowed:
                continue
            name = match.group("name")
            at = bisect.bisect_right(starts, match.start()) - 1
            end = starts[at + 1] - 1 if at + 1 < len(starts) else len(body)
            if len(name) < 2 or end - starts[at] > MAX_LINE:
                continue
            line = body[starts[at]:end]
            if _HEADING.match(line):
                if pattern is _NAMED:
                    headed.add(name.casefold())
                continue
            key, version = name.casefold(), match.group("version")
            versions[key].add(version)
            if key not in first or match.start() < first[key][0]:
                first[key] = (match.start(), _Stated(version, line.strip(), name,
                                                     match.group(0), frozenset()))
    return {key: dataclasses.replace(found, versions=frozenset(versions[key]))
            for key, (_, found) in first.items()}


class _Code:
    """Where a text is code (:func:`consolidator.store.codespans.code_spans`)."""

    def __init__(self, text: str) -> None:
        spans = code_spans(text)
        self._starts = [start for start, _ in spans]
        self._ends = [end for _, end in spans]
        self._fenced = [text.find("\n", start, end) >= 0 for start, end in spans]

    def at(self, offset: int) -> str | None:
        """"fenced" (a fenced block), "inline" (a code span) or None (prose)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0 or offset >= self._ends[i]:
            return None
        return "fenced" if self._fenced[i] else "inline"


def _written_lower(memories: Iterable[Memory], names: Collection[str]) -> set[str]:
    """Which of ``names`` some memory's prose writes in lower case (a word, not a name)."""
    found: set[str] = set()
    for memory in memories:
        folded = memory.body.casefold()
        if not any(name in folded for name in names):
            continue
        code: _Code | None = None
        for match in _WORD.finditer(memory.body):
            word = match.group(0)
            if not word[0].islower() or (folded_word := word.casefold()) not in names:
                continue
            code = code or _Code(memory.body)
            if code.at(match.start()) is None:
                found.add(folded_word)
    return found


def restated(old: str, new: str) -> str:
    """What the older memory states (``Astro 5``, ``astro@5.2``), with the newer version in
    place of its own: its name as it writes it."""
    mine, theirs = _TRAILING_VERSION.search(old), _TRAILING_VERSION.search(new)
    if mine is None or theirs is None:  # (never: each statement ends with its version)
        return new
    return old[: mine.start()] + theirs.group(0)


def _refines(a: str, b: str) -> bool:
    """Whether one version is the other made more precise (``3`` and ``3.11``)."""
    return a.startswith(b + ".") or b.startswith(a + ".")


def _conflict(ma: Memory, mb: Memory, a: _Stated, b: _Stated) -> Conflict:
    newer = ma.file if (ma.written_ns, ma.file) > (mb.written_ns, mb.file) else mb.file
    reason = (f"{ma.file} says {a.name} {a.version} where {mb.file} says "
              f"{b.name} {b.version}")
    return Conflict((ma.file, mb.file), newer, 0.0, reason, (a.line, b.line),
                    (a.said, b.said))
