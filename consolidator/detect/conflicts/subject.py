"""What a memory is about, and where its lines stand: the context a conflict is judged in.

Computed lazily, only for the memories of a candidate pair: the content features of the whole
memory (to tell whether two memories share a subject), its name as value tokens (to tell two
instances of one template apart: ``lab_a`` / ``lab_b``), the values that name the memory itself
(the date or number in its file name), and its lines as written with the heading above each.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from consolidator.detect.conflicts.values import Tok, tokens
from consolidator.detect.text import normal_line
from consolidator.detect.words import line_features, lines_features
from consolidator.store.codespans import fence_kinds
from consolidator.store.model import Memory

_TYPE_WORDS = frozenset(("user", "feedback", "project", "reference", "md"))
# Words many memory names carry whatever they are about.
_GENERIC_NAME_WORDS = frozenset(
    "notes note rules rule info misc log logs memo summary details detail new old copy draft "
    "session sessions the and".split()
)
_DATE_IN_NAME = re.compile(r"(\d{4})\D(\d{1,2})\D(\d{1,2})")


@dataclass(frozen=True, slots=True)
class Written:
    """A line as written (stripped), its memory and the heading above it."""

    file: str
    text: str
    heading: str


_LETTERED_NUMBER = re.compile(r"[^\W\d_]{1,4}\d{1,4}[^\W\d_]{0,2}")


class Subjects:
    """Per-memory context, computed on first use and kept for the run of one detector."""

    def __init__(
        self, by_file: dict[str, Memory], sets: dict[str, frozenset[str]],
        wanted: dict[str, set[str]] | None = None,
        lines_features: dict[str, set[str]] | None = None,
    ) -> None:
        """``wanted``: per memory, the normal lines that :meth:`written` will be asked for
        (only those are looked for; None: every line); ``lines_features``: a cache of the
        content features of each memory's normal lines, shared with other detectors."""
        self._by_file = by_file
        self._lines_features = lines_features if lines_features is not None else {}
        self._wanted = wanted
        self._sets = sets
        self._features: dict[str, set[str]] = {}
        self._names: dict[str, list[Tok]] = {}
        self._own: dict[str, set[str]] = {}
        self._lines: dict[str, dict[str, list[Written]]] = {}
        self._common: frozenset[str] | None = None

    def memory(self, file: str) -> Memory:
        return self._by_file[file]

    def overlap(self, a: str, b: str) -> float:
        """The share of content features two memories have in common (Jaccard, 0..1)."""
        fa, fb = self._feats(a), self._feats(b)
        shared = len(fa & fb)
        union = len(fa) + len(fb) - shared  # without building the union
        return shared / union if union else 0.0

    def _feats(self, file: str) -> set[str]:
        found = self._features.get(file)
        if found is None:
            memory = self._by_file[file]
            about = normal_line(f"{memory.name.replace('_', ' ')} {memory.description}")
            lines = lines_features(self._lines_features, file, self._sets.get(file, ()))
            found = lines | line_features(about)
            self._features[file] = found
        return found

    def same_description(self, a: str, b: str) -> bool:
        """Whether two memories describe themselves in the same words (one subject)."""
        da = normal_line(self._by_file[a].description)
        return bool(da) and da == normal_line(self._by_file[b].description)

    def related(self, a: str, b: str) -> bool:
        """Whether two memories' file names share a content word (``reference_redis`` and
        ``project_redis_migration``): named for one subject."""
        words_a = {t.value for t in self.name(a) if t.kind == "word" and len(t.value) > 2}
        words_b = {t.value for t in self.name(b) if t.kind == "word" and len(t.value) > 2}
        return bool((words_a & words_b) - _GENERIC_NAME_WORDS - self._everyones())

    def _everyones(self) -> frozenset[str]:
        """Name words three memories in four or more carry, in a folder of six or more: the
        project's own prefix (``quadrangis_``), not a subject two of them share."""
        if self._common is None:
            seen: Counter[str] = Counter()
            for file in self._by_file:
                seen.update({t.value for t in self.name(file) if t.kind == "word"})
            many = len(self._by_file)
            self._common = frozenset(w for w, n in seen.items()
                                     if many >= 6 and 4 * n >= 3 * many)
        return self._common

    def name(self, file: str) -> list[Tok]:
        """The memory's file stem as value tokens, without type words (feedback_, project_)."""
        found = self._names.get(file)
        if found is None:
            stem = re.sub(r"[_\s]+", " ", self._by_file[file].stem)
            found = [t for t in tokens(stem) if t.value not in _TYPE_WORDS]
            self._names[file] = found
        return found

    def own(self, file: str) -> set[str]:
        """Values that name the memory itself: the numbers, dates and identifiers in its file
        name and its name (a session log's own date is not a claim about anything)."""
        found = self._own.get(file)
        if found is None:
            memory = self._by_file[file]
            text = f"{memory.stem} {memory.name}"
            runs = re.findall(r"\d+", text)
            found = {run.lstrip("0") or "0" for run in runs}
            for run in runs:  # 20260315 is the date 2026-3-15
                if len(run) == 8:
                    found.add(f"{int(run[:4])}-{int(run[4:6])}-{int(run[6:])}")
            for y, m, d in _DATE_IN_NAME.findall(text):
                found.add(f"{int(y)}-{int(m)}-{int(d)}")
            found |= {t.value for t in tokens(text) if t.kind in ("id", "code")}
            # A part of the name with a letter and a digit names a thing of a series: "v5" and
            # "lot4" of project_polity_v5_lot4, "v6a" of project_polity_v6a_lot4.
            found |= {part for part in re.split(r"[\W_]+", text.casefold())
                      if _LETTERED_NUMBER.fullmatch(part)}
            self._own[file] = found
        return found

    def written(self, file: str, normal: str) -> list[Written]:
        """The lines of a memory whose normal form is ``normal``, as written."""
        lines = self._lines.get(file)
        if lines is None:
            wanted = self._wanted.get(file) if self._wanted is not None else None
            lines = self._lines[file] = _by_normal(file, self._by_file[file].body, wanted)
        return lines.get(normal, [])


def _by_normal(file: str, body: str, wanted: set[str] | None) -> dict[str, list[Written]]:
    """The lines of a body by their normal form (only the ``wanted`` ones, if given), with the
    heading above each; headings and code fences themselves are left out (a title names a
    part, it makes no claim)."""
    out: dict[str, list[Written]] = {}
    # A line has a wanted normal form only if it holds that form's first word: most lines are
    # passed over with a substring test instead of being normalised.
    firsts = {n.split(" ", 1)[0] for n in wanted} if wanted is not None else None
    heading = ""
    lines = body.splitlines()
    for raw, code in zip(lines, fence_kinds(lines), strict=True):
        line = raw.strip()
        if code == "fence":
            continue
        if not code and line.startswith("#"):
            heading = line.lstrip("#").strip()
            continue
        if firsts is not None:
            low = line.casefold()
            if not any(first in low for first in firsts):
                continue
        normal = normal_line(raw)
        if normal and (wanted is None or normal in wanted):
            out.setdefault(normal, []).append(Written(file, line, heading))
    return out
