"""Claims, and the claims of two memories that make the same point.

A claim is a sentence of a list item or a paragraph with three content features or more (see
:mod:`consolidator.detect.words`). :class:`Claims` finds each memory's claims once, and for a
pair the lines that make one point in other words: the evidence every kind of similar memory
but "shared lines" is reported with (:mod:`consolidator.detect.overlap.similar`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import chain, repeat

from consolidator.detect.text import normal_line
from consolidator.detect.words import line_features, sentences
from consolidator.store.links import sub_links, sub_wiki
from consolidator.store.model import Memory

DIGITS = re.compile(r"(?<!\S)\S*\d\S*")  # from a word's start only: linear
_TYPE_WORDS = frozenset(("user", "feedback", "project", "reference", "md", "note", "notes"))
_NONE: list[int] = []  # no claims hold a feature (never changed)
MAX_LINES = 5  # matching line pairs reported per pair
RULE_SHARE = 0.5  # share of a memory's claim lines matched for "the same rule reworded"
RESTATED_LINE = 0.6  # weighted share of a claim's features a line restating it must hold
RESTATED_FEATURES = 4  # ... of a claim with at least this many features
RESTATED_WHOLE = 0.4  # ... and this share of the longer of the two lines
MAX_CLAIMS = 60  # lines compared per memory when looking for the same rule in other words
# What a line points at rather than says: a path, a file's or a folder's, either slash, in
# code or written out (`docs/review_2026-03-19.md`, web/layout/faq.py, `C:\Users\me\bin`),
# and an identifier of hex groups (a model's or a voice's id, 3f0a9c2e-…). Two lines naming
# one file or id share its parts, not a point.
POINTERS = re.compile(r"`[^`\s]{0,200}[/\\][^`\s]{1,200}`"
                      r"|(?<![\w/.-])[\w.~-]{1,80}(?:[/\\][\w.-]{1,80}){1,12}"
                      r"|(?<![\w-])[0-9a-f]{4,}(?:-[0-9a-f]{4,}){2,}(?![\w-])", re.IGNORECASE)
# ... and wiki and Markdown links, which point at another memory or page.
_LINKS = re.compile(r"\[\[[^\[\]\n]{0,200}\]\]|\[[^\[\]\n]{0,200}\]\([^()\s]{0,300}\)"
                    rf"|{POINTERS.pattern}", re.IGNORECASE)


Claim = tuple[str, str, set[str], float]  # as written, normal form, features, mass


class Claims:
    """Each memory's claims, found once, and the matching claims of a pair.

    ``mass``: the summed rarity of some features (the caller knows how rare each is)."""

    def __init__(self, by_file: dict[str, Memory],
                 mass: Callable[[Iterable[str]], float]) -> None:
        self.by_file = by_file
        self.mass = mass
        self._cache: dict[str, list[Claim]] = {}
        self._indexes: dict[str, dict[str, list[int]]] = {}
        self._names: dict[str, set[str]] = {}
        self._unnumbered_lines: dict[str, str] = {}
        self._restated_key: tuple[str, str] = ("", "")
        self._restated_found: tuple[tuple[tuple[str, str], ...], float, bool] = ((), 0.0, False)

    def of(self, file: str) -> list[Claim]:
        """The memory's claims with three features or more: (as written, normal form,
        features, mass), at most ``MAX_CLAIMS`` of them. A claim is a sentence of a list item
        or a paragraph, its hard-wrapped lines joined (people wrap at 80 or 100 columns)."""
        cached = self._cache.get(file)
        if cached is not None:
            return cached
        out = self._cache[file] = []
        seen: set[str] = set()
        for text in sentences(self.by_file[file].body):
            # What a claim says is its own words: "See [[a]], [[b]]." says nothing.
            normal = normal_line(unlinked(text) if "[" in text else text)
            if not normal or normal in seen:
                continue
            seen.add(normal)
            found = line_features(normal)
            if len(found) >= 3:
                out.append((text, normal, found, self.mass(found)))
                if len(out) >= MAX_CLAIMS:
                    break
        return out


    def matched(
        self, a: str, b: str, line_match: float = 0.5, need_rule: bool = False,
        min_features: int = 0,
    ) -> tuple[tuple[tuple[str, str], ...], float, bool]:
        """Lines of the pair that make the same point; the share of the smaller side's claims
        (sentences with three features or more) that found one; and whether the pair is two
        instances of one template: matching lines that differ only in identifiers or numbers,
        or each side swapping in its own subject (``invoices-client`` for ``mailer-adapter``).
        ``need_rule``: stop as soon as a reworded rule's share can no longer be reached;
        ``min_features``: a match counts only between claims this substantial."""
        lines_a, lines_b = self.of(a), self.of(b)
        flipped = len(lines_a) > len(lines_b)
        small, large = (lines_b, lines_a) if flipped else (lines_a, lines_b)
        index = self._index(b if not flipped else a, large)
        if min_features:  # only substantial claims can be restated
            small = [claim for claim in small if len(claim[2]) >= min_features]
        counted = len(small)  # the share's denominator
        if min_features:  # ... by a claim holding RESTATED_WHOLE of their weight, so at least
            # as much of it in all the other memory's claims (a check most claims fail)
            small = [claim for claim in small
                     if self.mass(claim[2] & index.keys()) >= RESTATED_WHOLE * claim[3]]
        if not small:
            return (), 0.0, False
        scored: list[tuple[float, tuple[str, str]]] = []
        values = 0  # pairs of lines that differ only in their values
        swapped_small: Counter[str] = Counter()
        swapped_large: Counter[str] = Counter()
        needed = RULE_SHARE * counted if need_rule else 0.0
        for done, (text, normal, found, mass) in enumerate(small):
            if len(scored) + len(small) - done < needed:
                break  # too few claims left to reach the share a reworded rule needs
            # Claims of the other side by shared features, counted at C speed. A set yields
            # its items in an order that changes with the hash seed: ties go to the claim
            # that comes first in its memory, so the plan never depends on it.
            hits = Counter(chain.from_iterable(map(index.get, found, repeat(_NONE))))
            best: tuple[str, str, set[str]] | None = None
            best_score, best_at = 0.0, len(large)
            for at, count in hits.items():
                if count < 2:
                    continue
                other, their_normal, theirs, their_mass = large[at]
                if len(theirs) < min_features:
                    continue
                score = self.mass(found & theirs) / min(mass, their_mass)
                if score > best_score or (score == best_score and at < best_at):
                    best, best_score, best_at = (other, their_normal, theirs), score, at
            if best is None or best_score < line_match:
                continue
            other, their_normal, theirs = best
            if min_features and not self.restates(text, other, found, theirs, min_features):
                continue
            if (normal != their_normal
                    and self._unnumbered(normal) == self._unnumbered(their_normal)) \
                    or _named_apart(text, other):
                values += 1  # "Database ID: 3f0a…" against "Database ID: 8c1e…"
                continue
            swapped_small.update(found - theirs)
            swapped_large.update(theirs - found)
            scored.append((best_score, (other, text) if flipped else (text, other)))
        scored.sort(key=lambda s: -s[0])
        matched = tuple(pair for _, pair in scored[:MAX_LINES])
        small_file, large_file = (b, a) if flipped else (a, b)
        instances = values > len(scored) or (
            _swapped(swapped_small, len(scored)) and _swapped(swapped_large, len(scored))
        ) or bool(swapped_small.keys() & self._named(small_file)
                  and swapped_large.keys() & self._named(large_file))
        return matched, len(scored) / counted, instances

    def restated(self, a: str, b: str) -> tuple[tuple[tuple[str, str], ...], float,
                                                         bool]:
        """:meth:`matched` between substantial claims (cached: two kinds ask it)."""
        key = (a, b)
        if self._restated_key != key:
            self._restated_key = key
            self._restated_found = self.matched(a, b, RESTATED_LINE,
                                                       min_features=RESTATED_FEATURES)
        return self._restated_found

    def restates(self, text: str, other: str, found: set[str], theirs: set[str],
                  least: int) -> bool:
        """Whether two matching claims make one point: neither a heading, each substantial
        once its links are left out (a "see also [[x]]" line says nothing of its own), and
        the point most of the longer one too (a short line is not restated by a long one
        that mentions it)."""
        if min(len(found), len(theirs)) < least:
            return False
        if not (says_something(text, least) and says_something(other, least)):
            return False
        return self.mass(found & theirs) >= RESTATED_WHOLE * max(self.mass(found),
                                                                   self.mass(theirs))

    def _index(
        self, file: str, claims: list[Claim]
    ) -> dict[str, list[int]]:
        """Feature -> the claims of ``file`` that hold it (so a claim is compared only with
        claims it shares a feature with)."""
        found = self._indexes.get(file)
        if found is None:
            found = self._indexes[file] = {}
            for at, (_, _, features_of, _) in enumerate(claims):
                for feature in features_of:
                    found.setdefault(feature, []).append(at)
        return found

    def _unnumbered(self, normal: str) -> str:
        """A normal-form line without its words that hold a digit (cached: a claim meets many
        others)."""
        found = self._unnumbered_lines.get(normal)
        if found is None:
            found = self._unnumbered_lines[normal] = DIGITS.sub("", normal)
        return found

    def _named(self, file: str) -> set[str]:
        """The features of a memory's file name and name (its subject, as a rule): when each
        side of a pair swaps its own subject into otherwise matching lines, the two memories
        say the same things about two different subjects."""
        found = self._names.get(file)
        if found is None:
            memory = self.by_file[file]
            text = re.sub(r"[_\-./]+", " ", f"{memory.stem} {memory.name}")
            found = self._names[file] = line_features(normal_line(text)) - _TYPE_WORDS
        return found


# A label and the name of a thing right after it: "**Page :** `/ambiance`, …", "- Repo: org/app".
_LABEL_NAME = re.compile(r"[-*+>\s]{0,6}(?:\*\*|__)?(?P<label>[^\n:：*_`]{1,40}?)[ \t]*"
                         r"(?:\*\*|__)?[ \t]*[:：][ \t]*(?:\*\*|__)?[ \t]*"
                         r"(?P<value>`[^`\n]{1,120}`|[^\s,;`]*[/._\d][^\s,;`]*)")


def _named_apart(text: str, other: str) -> bool:
    """Whether two lines open with one label naming two things (a path, a page, a code
    name: "**Page :** `/ambiance`" and "**Page :** `/poche`"): one form filled in for two
    things, not one point made twice. A label with words after it ("**Why:** …") names
    nothing, and the lines are read as they are."""
    mine, theirs = _label_name(text), _label_name(other)
    return mine is not None and theirs is not None and mine[0] == theirs[0] \
        and mine[1] != theirs[1]


@lru_cache(maxsize=8192)
def _label_name(text: str) -> tuple[str, str] | None:
    """The label a line opens with and the name right after it, casefolded, if any (cached:
    a claim meets many others)."""
    found = _LABEL_NAME.match(text)
    return None if found is None else (found.group("label").strip().casefold(),
                                       found.group("value").strip("`").casefold())


# A line that is one bold label ending in a colon, alone or as a list item
# ("**Merchant store (payments into its own account):**"): a heading for what follows.
_LABEL_LINE = re.compile(r"(?:[-*+][ \t]+)?(?:\*\*|__)[^*_\n]+"
                         r"(?:[:：](?:\*\*|__)|(?:\*\*|__)[:：])\s*")


@lru_cache(maxsize=8192)
def says_something(text: str, least: int) -> bool:
    """Whether a claim makes a point of its own: not a heading, nor a label or a line ending
    in a colon that leads into what follows (each names a topic: "Before touching any code,
    state out loud:"), and with ``least`` content features once its links, paths and ids
    are left out (a "see also [[x]]" line, or one pointing at a file, says nothing of its
    own). Cached: a claim is asked of again for every pair it stands in."""
    if text.startswith("#") or _LABEL_LINE.fullmatch(text) or text.rstrip(" *_").endswith(
            (":", "：")):
        return False  # a heading, a label, or a line leading into what follows it
    if _bare_list(text):
        return False  # "- traccion, impacto, plegado": names, whose point is the heading's
    return not ("[" in text or "`" in text or "/" in text or "\\" in text or "-" in text) \
        or _unlinked_features(text) >= least


_ITEMS = re.compile(r"\s*[,，、;；/·・]\s*")
_BULLET = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")


def _bare_list(text: str) -> bool:
    """Whether ``text`` is nothing but a list of three names or more, with no label or verb
    ("20 désirs, 565 verbatims, 42 angles", "`a`, `b`, `c`"): what the names are listed for
    is said by the heading above it, and another memory listing them says its own thing
    ("Client: React 19, Vite, Tailwind 4", with its label, is a claim)."""
    bullet = _BULLET.match(text)
    items = _ITEMS.split(text[bullet.end() if bullet else 0 :].strip().rstrip(".。"))
    return len(items) >= 3 and all(
        0 < len(item) <= 30 and len(item.split()) <= 3 and ":" not in item and "：" not in item
        for item in items)


def unlinked(body: str) -> str:
    """``body`` without what its links point at: a ``[[name]]`` goes, a Markdown link keeps
    the words it shows. Linking to a memory is not saying what it says: two memories that
    link to each other, or a stub that points on ("moved to [[x]]", "see also [[a]] [[b]]"),
    share the linked names' words and nothing else."""
    return sub_wiki(lambda _m: " ", sub_links(lambda m: m.group(1) or " ", body))


@lru_cache(maxsize=8192)
def _unlinked_features(text: str) -> int:
    """How many content features ``text`` has once its links, paths and ids are left out
    (cached: a claim is asked of again for every pair it stands in)."""
    return len(line_features(normal_line(_LINKS.sub(" ", text))))


@lru_cache(maxsize=8192)
def unpointed(text: str) -> frozenset[str]:
    """The content features of ``text`` without the paths and ids it names (see
    :data:`POINTERS`; cached as :func:`_unlinked_features` is)."""
    return frozenset(line_features(normal_line(POINTERS.sub(" ", text))))


def _swapped(counts: Counter[str], matched: int) -> bool:
    """Whether one word recurs in what most matching lines do not share (a subject swap)."""
    return matched >= 3 and bool(counts) and counts.most_common(1)[0][1] * 2 > matched


def said(text: str, found: set[str]) -> set[str]:
    """The content features of a claim without the paths and ids it names (see
    :data:`POINTERS`)."""
    if "/" not in text and "\\" not in text and "-" not in text:
        return found
    return set(unpointed(text))
