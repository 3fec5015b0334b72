"""Similar memories: much the same content, too differently worded to merge offline.

Three kinds are reported, each with the lines that match (as written, one from each file):

- *shared lines*: most normal-form lines in common, neither memory holding all of the other's;
- *the same rule in different words*: most of one memory's claims each have a line in the
  other that makes the same point with other words (content words and CJK character bigrams,
  weighted by rarity, so template words count for little);
- *more detail*: one memory's content nearly all stands in a longer one ("more detail than X");
- *a point restated*: a claim of one memory made again, in its own words, by a line of another
  (a status file repeating a rule, two notes stating one fact), found line by line among
  memories that share rare words, and reported with the lines (at most
  :data:`~consolidator.detect.overlap.claims.MAX_LINES`);
- *a line of each sharing rare words*: a line of one and a line of the other that share
  ``RARE_LINE_WORDS`` content words no third memory uses, in memories that share some of
  their weighted words as wholes (``RARE_WHOLE``). Weaker evidence than the others (on real
  directories about three in five such pairs were one point made twice): reported as a
  pair that *may* say the same thing, with the two lines, and still asked of a model.

Everything is near-linear in the number of memories: shared lines come from an inverted
index of lines; word-level candidates from an inverted index over each memory's rarest
content features, with posting lists capped, so a pair is only compared when it shares rare
words. Reported, never merged offline; an LLM backend may merge them.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Container, Iterable
from typing import NamedTuple

from consolidator.detect.findings import Similar
from consolidator.detect.overlap.claims import (
    DIGITS,
    RESTATED_FEATURES,
    RESTATED_LINE,
    RULE_SHARE,
    Claims,
    said,
    says_something,
    unlinked,
)
from consolidator.detect.overlap.shared_lines import same_lines, sharing_lines
from consolidator.detect.text import normal_line, normal_set, tokens
from consolidator.detect.words import line_features, lines_features
from consolidator.store.model import Memory

__all__ = ["Similar", "find_similar", "related_pairs"]

_DIGIT = re.compile(r"\d")
RAREST = 16  # a memory is looked up by this many of its rarest features
MIN_RARE_SHARED = 4  # ... and paired only with memories sharing this many of them
MAX_CANDIDATES = 6  # memories compared in full per memory, the most rare features first
LINE_GATE = 0.2  # weighted share of the smaller memory's features below which nothing matches
MIN_FEATURES = 8  # the smaller memory must say this much for "more detail"
RARE_LINE_WORDS = 4  # content words no third memory uses a line of each must share
RARE_WHOLE = 0.05  # ... in memories sharing this weighted share of their words as wholes
class _Bar(NamedTuple):
    """Thresholds for one kind of text (weighted shares of content features)."""

    whole: float  # Jaccard for "much the same content"
    contained: float  # share of the smaller memory for "more detail"
    linked: float  # the same, when one memory names the other
    rule: float  # share of the smaller memory below which no rule is looked for, line by line
    line: float  # share of a line's features another line must hold to make the same point
    described: float  # share of the shorter description the other must hold, for a rule


_BAR = _Bar(whole=0.45, contained=0.72, linked=0.5, rule=0.35, line=0.5, described=0.3)
_CJK_BAR = _Bar(whole=0.35, contained=0.6, linked=0.4, rule=0.2, line=0.35, described=0.2)


def find_similar(
    memories: Iterable[Memory],
    skip: Container[frozenset[str]],
    threshold: float = 0.5,
    sets: dict[str, frozenset[str]] | None = None,
    lines_features: dict[str, set[str]] | None = None,
) -> list[Similar]:
    """Pairs of memories that say much the same thing, with the lines that match.

    ``skip``: pairs already reported otherwise (duplicates, conflicts); ``threshold``: the
    share of normal lines two memories must have in common to count as sharing lines;
    ``sets``: each memory's normal-form lines, if the caller has them already;
    ``lines_features``: a cache of the content features of those lines, by file.
    """
    by_file = {m.file: m for m in memories}
    sets = sets if sets is not None else {f: normal_set(m.body) for f, m in by_file.items()}
    sets = {f: lines for f, lines in sets.items() if f in by_file}
    cache = lines_features if lines_features is not None else {}
    for file, memory in by_file.items():
        if file in sets and ("[[" in memory.body or "](" in memory.body):
            sets[file] = normal_set(unlinked(memory.body))
            cache.pop(file, None)  # worked out from the lines as written
    found: dict[frozenset[str], Similar] = {}
    for pair, similarity in sharing_lines(sets, threshold, skip):
        a, b = sorted(pair)
        found[pair] = Similar((a, b), similarity, same_lines(by_file[a], by_file[b]))
    words = _Words(by_file, sets, cache)
    for a, b in words.candidates():
        pair = frozenset((a, b))
        if pair in skip or pair in found:
            continue
        judged = words.judge(a, b) or words.restated(a, b) or words.rare_line(a, b)
        if judged is not None:
            found[pair] = judged
    return sorted(found.values(), key=lambda s: (-s.similarity, s.files))


SHOWN_WORDS = 6  # rare words a related pair's evidence names


def related_pairs(memories: Iterable[Memory], skip: Container[frozenset[str]],
                  busy: Container[str], limit: int) -> list[tuple[tuple[str, str], str]]:
    """At most ``limit`` pairs of memories that share words no third memory uses yet were
    found neither similar nor anything else (``skip``), neither memory ``busy`` (acted on, or
    being written), the most shared rarity first, each with those words. On real
    directories such pairs held four in five of the pairs people called one point made
    twice, but one in seven is one: a question for a model, never a finding."""
    by_file = {m.file: m for m in memories}
    words = _Words(by_file, {f: normal_set(m.body) for f, m in by_file.items()}, {})
    scored = []
    for a, b in words.candidates():
        if frozenset((a, b)) in skip or a in busy or b in busy:
            continue
        only = words.only_theirs(a, b)
        if only:
            scored.append((-words.mass(only), (a, b), only))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [(pair, "they share words no other memory uses: "
             + ", ".join(sorted(only)[:SHOWN_WORDS])) for _mass, pair, only in scored[:limit]]


# --- the same content in other words ---------------------------------------------------------


class _Words:
    """Content features per memory, their rarity, and the comparisons built on them."""

    def __init__(
        self, by_file: dict[str, Memory], sets: dict[str, frozenset[str]],
        cache: dict[str, set[str]],
    ) -> None:
        """``cache``: the content features of memories' lines, by file (see
        :func:`~consolidator.detect.words.lines_features`)."""
        self.by_file = by_file
        self.sets = sets
        self.feats: dict[str, set[str]] = {}
        for file, lines in sets.items():
            memory = by_file[file]
            heading = " ".join(tokens(f"{memory.name.replace('_', ' ')} {memory.description}"))
            # The last detector to want them: the cache lets them go, to keep memory down.
            found = lines_features(cache, file, lines, keep=False)
            self.feats[file] = found | line_features(heading)
        self.df: Counter[str] = Counter()
        for found in self.feats.values():
            self.df.update(found)
        # Rarity of a feature: the log of how many memories there are per memory holding it.
        log_total = math.log(len(self.feats) + 1) + 0.05
        self.weight = _Weights(log_total)
        self.weight.update((f, log_total - math.log(n)) for f, n in self.df.items())
        self.claims = Claims(by_file, self.mass)
        self._cjk_counts: dict[str, int] = {}
        self._masses: dict[str, float] = {}
        self._folded: tuple[str, str] = ("", "")  # the last memory's text, case-folded
        self._values: dict[str, dict[str, set[str]]] = {}
        self._descriptions: dict[str, set[str]] = {}

    def candidates(self) -> list[tuple[str, str]]:
        """Pairs sharing at least ``MIN_RARE_SHARED`` of one side's rarest features."""
        cap = min(200, max(20, len(self.feats) // 50))
        rarest: dict[str, list[str]] = {}
        for file, found in self.feats.items():
            usable = [f for f in found if 2 <= self.df[f] <= cap]
            rarest[file] = heapq.nsmallest(RAREST, usable, key=lambda f: (self.df[f], f))
        wanted = {f for chosen in rarest.values() for f in chosen}
        postings: dict[str, list[str]] = defaultdict(list)
        for file, found in self.feats.items():
            for feature in found & wanted:
                postings[feature].append(file)
        out: set[tuple[str, str]] = set()
        for a, chosen in rarest.items():
            counts: Counter[str] = Counter()
            for feature in chosen:
                counts.update(postings[feature])
            del counts[a]
            for b, shared in counts.most_common(MAX_CANDIDATES):
                if shared >= MIN_RARE_SHARED:
                    out.add((a, b) if a < b else (b, a))
        return sorted(out)

    def mass(self, found: Iterable[str]) -> float:
        """The summed rarity of some features (each feature weighs its rarity).

        ``fsum`` is exact, so the total does not depend on the order a set yields its items
        in (that order changes with the hash seed, and a plan must not)."""
        return math.fsum(map(self.weight.__getitem__, found))

    def _file_mass(self, file: str) -> float:
        """The :meth:`mass` of all of a memory's features (worked out once per memory)."""
        found = self._masses.get(file)
        if found is None:
            found = self._masses[file] = self.mass(self.feats[file])
        return found

    def judge(self, a: str, b: str) -> Similar | None:
        """A Similar for the pair if it says much the same, else None."""
        fa, fb = self.feats[a], self.feats[b]
        shared = self.mass(fa & fb)
        mass_a, mass_b = self._file_mass(a), self._file_mass(b)
        smaller = min(mass_a, mass_b)
        if not shared or shared < LINE_GATE * smaller:
            return None  # too little in common for any kind of similarity
        # CJK text is compared by character pairs, about half of them across word boundaries:
        # the same meaning shares a smaller part of them than of words.
        bar = _CJK_BAR if (self._cjk(a) + self._cjk(b)) * 2 > len(fa) + len(fb) else _BAR
        jaccard = shared / (mass_a + mass_b - shared)
        contained = shared / smaller
        mentions = self._mentions(a, b)  # "more detail than X": one names the other
        whole = jaccard >= bar.whole or (
            contained >= (bar.linked if mentions else bar.contained)
            and min(len(fa), len(fb)) >= MIN_FEATURES)
        if not whole and (contained < bar.rule or not (
                mentions or self._described_alike(a, b, bar.described))):
            return None
        matched, share, instances = self.claims.matched(a, b, bar.line, need_rule=True)
        if instances or self._filled_in(a, b):
            return None  # one template filled in for two things (two services, two sessions)
        # Either way, most of what the smaller memory claims must have a match: words in
        # common are not enough when the claims themselves differ (two cards, one form).
        if share < RULE_SHARE or len(matched) < (1 if whole else 2):
            return None
        score = max(jaccard, contained * 0.9) if whole else max(jaccard, share * contained)
        return Similar((a, b), round(score, 3), matched)

    def restated(self, a: str, b: str) -> Similar | None:
        """A Similar for the pair if a claim of one is made again by a line of the other: most
        of a substantial claim's weighted features, in a pair that is not one template filled
        in twice."""
        if self._one_template(a, b) or _dated_notes(self.by_file[a].stem, self.by_file[b].stem):
            return None  # one form filled in twice, or two sessions of one day's log
        matched, share, _instances = self.claims.restated(a, b)
        if not matched:  # a memory's own summary of its point, made again by the other
            matched = self._restated_description(a, b) or self._restated_description(b, a)
            share = RESTATED_LINE if matched else 0.0
        return Similar((a, b), round(share, 3), matched, restated=True) if matched else None

    def rare_line(self, a: str, b: str) -> Similar | None:
        """A Similar for the pair if a line of each shares ``RARE_LINE_WORDS`` content words
        no third memory uses, and the memories share ``RARE_WHOLE`` of their weighted words
        as wholes (marked ``rare``: the pair may say the same thing)."""
        if _series(self.by_file[a].stem, self.by_file[b].stem) \
                or _dated_notes(self.by_file[a].stem, self.by_file[b].stem):
            return None  # two notes of one dated or numbered series share its form
        fa, fb = self.feats[a], self.feats[b]
        only = self.only_theirs(a, b)
        if len(only) < RARE_LINE_WORDS:
            return None
        shared = self.mass(fa & fb)
        whole = shared / (self._file_mass(a) + self._file_mass(b) - shared)
        if whole < RARE_WHOLE:
            return None
        best: tuple[int, str, str] = (RARE_LINE_WORDS - 1, "", "")
        theirs = [(text, said(text, found) & only) for text, _n, found, _m in self.claims.of(b)
                  if says_something(text, RESTATED_FEATURES)]
        for text, _normal, found, _mass in self.claims.of(a):
            mine = said(text, found) & only
            if len(mine) <= best[0] or not says_something(text, RESTATED_FEATURES):
                continue
            for other, common in theirs:
                count = len(mine & common)
                if count > best[0]:
                    best = (count, text, other)
        if not best[1] or self._one_template(a, b):
            return None  # nothing, or one template filled in twice (two labs, two sessions)
        return Similar((a, b), round(whole, 3), ((best[1], best[2]),), rare=best[0])

    def only_theirs(self, a: str, b: str) -> set[str]:
        """The content features two memories share that no third memory has."""
        return {f for f in self.feats[a] & self.feats[b] if self.df[f] == 2}

    def _one_template(self, a: str, b: str) -> bool:
        """Whether the pair is one form filled in twice: matching claims that differ only in
        their values or subjects, or lines that line up with other numbers."""
        return self.claims.restated(a, b)[2] or self._swaps(a, b) > 0

    def _restated_description(self, a: str, b: str) -> tuple[tuple[str, str], ...]:
        """The line of ``b`` that makes the point ``a``'s description sums up, if any (as a
        pair in the order (a, b))."""
        described = self._described(a)
        text = self.by_file[a].description
        if len(described) < RESTATED_FEATURES:
            return ()
        for other, _normal, theirs, _mass in self.claims.of(b):
            shared = self.mass(described & theirs)
            if shared >= RESTATED_LINE * self.mass(described) \
                    and self.claims.restates(text, other, described, theirs, RESTATED_FEATURES):
                return ((text, other) if a < b else (other, text),)
        return ()

    def _cjk(self, file: str) -> int:
        """How many of a memory's features are CJK character pairs."""
        found = self._cjk_counts.get(file)
        if found is None:
            found = self._cjk_counts[file] = sum(1 for f in self.feats[file] if not f.isascii())
        return found

    def _mentions(self, a: str, b: str) -> bool:
        """Whether either memory names the other (its file stem or its name) in its text."""
        for one, other in ((a, b), (b, a)):
            memory = self.by_file[one]
            # Only the last one kept: a folded copy of every candidate's body costs more
            # memory than folding again costs time, and candidates come in runs of one file.
            if self._folded[0] == one:
                text = self._folded[1]
            else:
                text = f"{memory.description}\n{memory.body}".casefold()
                self._folded = (one, text)
            named = self.by_file[other]
            for label in {named.stem.casefold(), named.name.casefold()}:
                if len(label) >= 6 and label in text:
                    return True
        return False

    def _filled_in(self, a: str, b: str) -> bool:
        """Whether two memories are one form filled in twice: more of their lines line up
        with other numbers or identifiers ("VLAN: 110" / "VLAN: 240") than are the same."""
        swapped = self._swaps(a, b)
        return swapped >= 2 and swapped > len(self.sets[a] & self.sets[b])

    def _swaps(self, a: str, b: str) -> int:
        """How many lines of two memories line up with other numbers or identifiers: forms
        both fill in, with no line of one filled in as the other's is."""
        ka, kb = self._unvalued(a), self._unvalued(b)
        return sum(1 for k in ka.keys() & kb.keys() if not ka[k] & kb[k])

    def _unvalued(self, file: str) -> dict[str, set[str]]:
        """The normal lines with a number or identifier in them, by the line without them."""
        found = self._values.get(file)
        if found is None:
            found = self._values[file] = {}
            for line in self.sets[file]:
                if _DIGIT.search(line):
                    found.setdefault(DIGITS.sub("", line), set()).add(line)
        return found

    def _described_alike(self, a: str, b: str, bar: float) -> bool:
        """Whether two descriptions (each memory's own summary of its rule) overlap by ``bar``
        of the shorter; true when either memory has none to compare."""
        da, db = self._described(a), self._described(b)
        if not da or not db:
            return True
        return self.mass(da & db) >= bar * min(self.mass(da), self.mass(db))

    def _described(self, file: str) -> set[str]:
        found = self._descriptions.get(file)
        if found is None:
            found = line_features(normal_line(self.by_file[file].description))
            self._descriptions[file] = found
        return found

class _Weights(dict[str, float]):
    """Feature -> rarity; a feature no memory was indexed with (a CJK pair across a wrapped
    line) weighs as the rarest."""

    def __init__(self, rarest: float) -> None:
        super().__init__()
        self.rarest = rarest

    def __missing__(self, feature: str) -> float:
        return self.rarest


_DIGITS = re.compile(r"\d+")
_DATED = re.compile(r"(?:19|20)\d\d-?[01]\d-?[0-3]\d(?!\d)")
_NAME_WORDS = re.compile(r"[-_ .]+")


def _series(a: str, b: str) -> bool:
    """Whether two file stems name two notes of one series: the same once their numbers are
    left out (``session_2026_03_22`` and ``session_2026_03_23``, ``sprint-12`` and
    ``sprint-13``), or once the subject in front of one kind of note is
    (``tiktok-competitor-analysis`` and ``streaming-competitor-analysis``). Such notes share
    the series' own lines (its closing "How to apply", the steps that update each), and words
    no third memory uses are then no sign of one point made twice."""
    if a != b and bool(_DIGITS.search(a)) and _DIGITS.sub("#", a) == _DIGITS.sub("#", b):
        return True
    wa, wb = _NAME_WORDS.split(a.casefold()), _NAME_WORDS.split(b.casefold())
    return len(wa) == len(wb) >= 3 and wa[1:] == wb[1:] and wa[0] != wb[0]


def _dated_notes(a: str, b: str) -> bool:
    """Whether both stems open with one date: two notes of one day's log of sessions
    (``2026-07-15-0613-voice-notes``, ``2026-07-15-0701-daily-mood``), each recording its
    session in the log's own steps. A dated decision and a later note restating it are not."""
    first, second = _DATED.match(a), _DATED.match(b)
    return bool(first and second and first[0].replace("-", "") == second[0].replace("-", ""))
