"""Conflicts by key: two memories that give one named tool two versions.

``Settled stack: Astro 6 + React 19 + Tailwind 4`` in one memory against ``Astro 5 with
islands is all but required`` in another, or ``astro@5.2`` against ``astro@6.0``: the key is
the tool's name, the value its version. Unlike a skeleton conflict
(:mod:`consolidator.detect.conflicts.find`) the two lines need not be worded alike; the key is
what ties them. Most numbers after a capitalised word are no version (``Sprint 12``, ``PR 15``,
``June 5``, ``Kapitel 3``, ``Python 3.10`` on one server and ``3.12`` on another), so a key
is read only where the directory's own writing shows it is one:

- the name is a proper name: capitalised, at least two characters, and never written in lower
  case in the prose of any memory of the directory (``Top 5``, ``Fase 1``: a word at the start
  of a sentence, not a name); or a package pinned in code (``name@1.2``, ``name==1.2``);
- the version is a version: a number with at most two digits before its first dot, written
  apart from the name (``S3``, ``EC2`` are names), not a date (``June 5``), a minimum
  (``3.8+``, ``3.8 or later``), a share, a size, a factor, a range or part of a longer token
  (``5x``, ``2.3×``, ``5%``, ``5/6``);
- the name is a tool's: the directory lists it as a stack, joined to another name with its
  version (``Astro 6 + React 19``, ``Python 3.11 with Django 5.0``; ``KDR 14 neuer Punkt 5``
  is a record and its point), or pins it in code (``Section 4.2``,
  ``Release 1.4``, ``Python 3.12 locally`` alone name no tool);
- the name is no heading's (a heading that numbers a name, ``## Phase 2`` or ``### Top 15``,
  makes it a part of something, not a tool), and a line that is a heading states no version;
- the directory gives the name exactly two versions (three or more: a counter or an ordinal,
  not one tool), one in each memory (a memory that states both, or writes the other's dotted
  version anywhere, even without the name, is a note of the move from one to the other or of
  why one failed), and neither refines the other (``3`` and ``3.11``); a number the memory's
  own file name holds (``v8_refactoring.md``) names the memory, not a version;
- the two lines share a content word besides the name and the numbers (``islands`` in both:
  one claim about one use of the tool; ``locally`` against ``on the prod server`` is two
  places, each with its version), and the two memories are not one template filled in for two
  things (several of their lines line up with other values: two servers' RAM, CPU and OS).

Found in one pass over the memories' prose. Reported only, never resolved, not even where
``consolidate.resolve_conflicts`` brings a worded-alike claim up to date: a key read from two
differently worded lines is weaker evidence than one claim written twice. The newer memory is
the one written last (Claude Code's ``modified``, else the file's time).
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections import defaultdict
from collections.abc import Collection, Container, Iterable

from consolidator.detect.conflicts.age import newer_of
from consolidator.detect.conflicts.find import INSTANCE_LINES
from consolidator.detect.conflicts.skeletons import skeleton
from consolidator.detect.dates.anchors import explicit_dates
from consolidator.detect.findings import Conflict
from consolidator.detect.text import normal_line, normal_set
from consolidator.detect.words import line_features
from consolidator.store.codespans import code_spans
from consolidator.store.model import Memory

MAX_VERSIONS = 2  # versions a name may take across the directory and still be one tool
MAX_LINE = 2000  # characters of a line read for versions; a longer one is no single claim
STACK_GAP = 60  # characters at most between two versioned names that list one stack
# What joins two versioned names that list one stack ("Astro 6 + React 19", "Python 3.11
# with Django 5.0", "Node 20, pnpm 9"); other words between them make two statements
# ("KDR 14, new Punkt 5" is a record and its point).
_JOINED = re.compile(
    r"[ \t]*(?:\([^()\n]{0,40}\)[ \t]*)?"  # a remark on the first: "Astro 6 (SSR) + React 19"
    r"(?:[+,/&·|;、，＋]|\b(?:and|with|plus|und|mit|et|avec|y|con|e|com|и|с|на)\b"
    r"|和|与|及|と|や)?[ \t]*", re.IGNORECASE)

# A proper name and the version written after it: the name's last character is a letter, a
# `+` or a `#` (C++, C#); the version stands apart, and what follows it is no more of a token.
# (What stands before the name is checked after its capital: a pattern that starts with a
# character class is searched for far faster than one that starts with a look-behind.)
_NAMED = re.compile(
    r"(?P<name>[A-Z](?<![\w.@/#+\\-][A-Z])(?:[\w.+#-]*[^\W\d_+.#-]|[\w.-]*[+#]+))[ \u00a0]v?"
    r"(?P<version>\d{1,2}(?:\.\d{1,4}){0,3})"
    r"(?![\w+%/:*°×-]|[.,]\d| ?×| ?(?:or (?:later|newer|above|higher)|and (?:up|above|later)"
    r"|以上|以降|이상))"
)
# A package pinned in code to one version: `astro@5.2.1`, `django==4.2` (a range, `^5.2` or
# `>=4.2`, pins none).
_PINNED = re.compile(
    r"(?<![\w.@/-])(?P<name>@?[a-z][\w.-]*[a-z0-9](?:/[a-z][\w.-]*[a-z0-9])?)(?:@|==)v?"
    r"(?P<version>\d+(?:\.\d+){0,3})(?![\w.*])"
)
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
    versions: frozenset[str]


def find_version_conflicts(memories: Iterable[Memory],
                           skip: Container[frozenset[str]] = frozenset(),
                           sets: dict[str, frozenset[str]] | None = None) -> list[Conflict]:
    """Pairs of memories giving one named tool different versions (``skip``: pairs already
    reported as duplicates or conflicts; ``sets``: each memory's normal-form lines, if the
    caller has them)."""
    by_file = {m.file: m for m in memories}
    stated: dict[str, dict[str, _Stated]] = {}  # name (folded) -> file -> what it states
    seen = _Seen()
    for file, memory in by_file.items():
        if _DIGIT.search(memory.body):
            for key, found in _read(memory.body, seen).items():
                stated.setdefault(key, {})[file] = found
    keys = {key: files for key, files in stated.items()
            if len(files) >= 2 and key not in seen.headed and _two(files)
            and key in seen.tools}
    if keys:  # (rare: only then is every memory's prose read for the names in lower case)
        lower = _written_lower(by_file.values(), keys)
        keys = {key: files for key, files in keys.items() if key not in lower}
    out = []
    for key, files in sorted(keys.items()):
        one = {file: found for file, found in files.items()
               if len(found.versions) == 1 and not _names_itself(file, found.version)}
        for a in sorted(one):
            for b in sorted(one):
                if a < b and one[a].version != one[b].version \
                        and frozenset((a, b)) not in skip \
                        and _same_claim(one[a], one[b], key) \
                        and not _gives(by_file[a], one[b].version) \
                        and not _gives(by_file[b], one[a].version) \
                        and not _instances(by_file[a], by_file[b], sets):
                    out.append(_conflict(by_file[a], by_file[b], one[a], one[b]))
    return out


class _Seen:
    """What the directory's writing shows of its names, gathered while they are read."""

    def __init__(self) -> None:
        self.headed: set[str] = set()  # names a heading numbers: parts, not tools
        # Names listed beside another name with its version in one line (a stack), or pinned
        # in code: tools, the only names whose versions count.
        self.tools: set[str] = set()


def _versions(files: dict[str, _Stated]) -> frozenset[str]:
    return frozenset().union(*(found.versions for found in files.values()))


def _names_itself(file: str, version: str) -> bool:
    """Whether the memory's file name holds ``version`` as a number of its own."""
    return re.search(rf"(?<![\d.]){re.escape(version)}(?![\d.]*\d)", file) is not None


def _gives(memory: Memory, version: str) -> bool:
    """Whether the memory writes the other's dotted ``version`` too, with or without the
    name (``AGP 9.0.0 needs Gradle 9.1`` then ``so AGP went down to 8.7.3``): a note of a
    move from one to the other, or of why one failed, not a claim against it. A whole
    number (``6``) stands for too many other things to count."""
    return "." in version and re.search(
        rf"(?<![\w.])v?{re.escape(version)}(?![\w]|\.\d)", memory.body) is not None


def _same_claim(a: _Stated, b: _Stated, key: str) -> bool:
    """Whether two lines share a content word besides the name and the numbers: one claim
    about one use of the tool, not two places each with its version."""
    name = line_features(normal_line(key))
    words = [line_features(normal_line(found.line)) - name for found in (a, b)]
    return any(not word.isdigit() for word in words[0] & words[1])


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
    versions = sorted(_versions(files))
    return len(versions) == MAX_VERSIONS and not _refines(*versions)


def _read(body: str, seen: _Seen) -> dict[str, _Stated]:
    """The versions ``body`` states, by folded name (and, into ``seen``, the names its
    headings number and those it lists as a stack or pins). Each pattern runs over the whole
    text once (neither crosses a line); where the text is code or a date, and which line a
    match stands in, is worked out only once a pattern matches: a name in code is no
    statement, a pin only in a fenced block is none."""
    first: dict[str, tuple[int, _Stated]] = {}  # the earliest statement of each name
    versions: dict[str, set[str]] = defaultdict(set)
    # line -> where it gives a name a version: (start, end, name)
    on_line: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    dates: dict[int, list[tuple[int, int]]] = {}  # line -> where its dates stand
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
            key, version = name.casefold(), match.group("version")
            if _HEADING.match(line):
                if pattern is _NAMED:
                    seen.headed.add(key)
                continue
            if at not in dates:
                dates[at] = [(d.start, d.end) for d in explicit_dates(line)]
            column = match.start() - starts[at]
            if any(start < column + len(match.group(0)) and column < stop
                   for start, stop in dates[at]):
                continue  # "June 5": a date, not a version
            if pattern is _PINNED:
                seen.tools.add(key)
            on_line[at].append((match.start(), match.end(), key))
            versions[key].add(version)
            if key not in first or match.start() < first[key][0]:
                first[key] = (match.start(), _Stated(version, line.strip(), name, frozenset()))
    for given in on_line.values():
        given.sort()
        for (_s, stop, name), (start, _e, other) in zip(given, given[1:], strict=False):
            if name != other and start - stop <= STACK_GAP \
                    and _JOINED.fullmatch(body, stop, start) is not None:
                seen.tools |= {name, other}
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


def _refines(a: str, b: str) -> bool:
    """Whether one version is the other made more precise (``3`` and ``3.11``)."""
    return a.startswith(b + ".") or b.startswith(a + ".")


def _conflict(ma: Memory, mb: Memory, a: _Stated, b: _Stated) -> Conflict:
    newer, same_age, by_text = newer_of(ma, mb)
    reason = (f"{ma.file} says {a.name} {a.version} where {mb.file} says "
              f"{b.name} {b.version}")
    return Conflict((ma.file, mb.file), newer, 0.0, reason, (a.line, b.line), keyed=True,
                    same_age=same_age, newer_by_text=by_text)
