"""Duplicates: memories whose every line stands, symbol for symbol, in another memory.

That covers exact copies, copies reworded by whitespace, case, bullet style or sentence
punctuation, reordered copies, and a memory wholly contained in a longer one. Because the
survivor already holds every line of every memory it absorbs, merging them never drops a claim.

Two forms of a line are used. Candidates come from the *normal* form (words only, shared with
the other detectors): an inverted index of lines, where a container must hold the contained
memory's rarest line, so only that line's posting list is checked — near-linear in the number
of memories. Each candidate is then confirmed on the *exact* form
(:func:`consolidator.detect.text.exact_line`), which keeps every symbol, sign, operator,
currency, version range, emoji and strike-through: memories that differ only in ``-5``/``+5``,
``==``/``!=`` or ``✅``/``❌`` share every normal line but are not duplicates. They are left to
the conflict and similarity detectors, which report them and merge nothing.

A line counts as held only where the survivor says it live and as the absorbed memory says it:
not in code or an HTML comment, not in a block a label the absorbed memory lacks leads in
("Ideas we rejected:"), numbered steps in their order (see :meth:`_Exact.led_alike`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from consolidator.detect.overlap.postings import files_of, line_postings
from consolidator.detect.text import exact_lines, exact_set, normal_set, numbered
from consolidator.store.model import Memory

MIN_TOKENS = 4  # a memory must say at least this much to be called a duplicate
MAX_POSTINGS = 500  # a line shared by more memories than this is boilerplate


@dataclass(frozen=True)
class Cluster:
    """Memories that say the same thing; ``keep`` holds every line of the others."""

    keep: str
    files: tuple[str, ...]  # keep first, then the absorbed ones
    similarity: float  # the lowest line-set similarity of an absorbed memory to ``keep``
    kind: str  # "same lines" or "contained"


class Together:
    """The pairs of files that share a cluster, answered without listing them: a cluster of
    N copies is N entries here, where a set of its pairs would be N²."""

    def __init__(self, clusters: Iterable[Cluster]) -> None:
        self._cluster = {file: i for i, c in enumerate(clusters) for file in c.files}

    def __contains__(self, pair: object) -> bool:
        if not isinstance(pair, frozenset) or len(pair) != 2:
            return False
        a, b = pair
        found = self._cluster.get(a)
        return found is not None and found == self._cluster.get(b)


def _newest_first(memory: Memory) -> tuple[int, int, str]:
    return (-memory.written_ns, -len(memory.body), memory.file)


def line_sets(memories: Iterable[Memory]) -> dict[str, frozenset[str]]:
    """Each memory's set of normal-form lines (computed once, shared by the detectors)."""
    return {m.file: normal_set(m.body) for m in memories}


class _Exact:
    """Each memory's exact-form lines, what leads each in, and its numbered steps, worked out
    once and only for the memories that need a check."""

    def __init__(self, by_file: dict[str, Memory]) -> None:
        self._by_file = by_file
        self._sets: dict[str, frozenset[str]] = {}
        self._leads: dict[str, dict[str, set[str]]] = {}
        self._places: dict[str, dict[str, int]] = {}
        self._orders: dict[str, tuple[str, ...]] = {}

    def __getitem__(self, file: str) -> frozenset[str]:
        found = self._sets.get(file)
        if found is None:
            found = self._sets[file] = exact_set(self._by_file[file].body)
        return found

    def leads(self, file: str) -> dict[str, set[str]]:
        """Each exact line of a memory with what leads it in, wherever it stands (see
        :func:`~consolidator.detect.text.exact_lines`)."""
        found = self._leads.get(file)
        if found is None:
            found = self._leads[file] = defaultdict(set)
            places = self._places[file] = {}
            for at, (form, lead) in enumerate(exact_lines(self._by_file[file].body)):
                found[form].add(lead)
                places.setdefault(form, at)
        return found

    def key(self, file: str) -> tuple[frozenset[tuple[str, str]], tuple[str, ...]]:
        """What two memories must share to be equal: each line with what leads it in, and
        their numbered steps in order."""
        steps = self.order(file)
        return (frozenset((form, lead) for form, leads in self.leads(file).items()
                          for lead in leads), steps if len(steps) > 1 else ())

    def led_alike(self, inner: str, outer: str) -> bool:
        """Whether every line of ``inner`` stands in ``outer`` led in as ``inner`` leads it in:
        under the same label or heading, or, for a line ``inner`` gives none, under none or
        one ``inner`` holds too. "Always deploy on Fridays." is not held by a list under
        "Ideas we rejected:", nor a decision by the same words under "Rejected:"."""
        mine, theirs = self[inner], self.leads(outer)
        for form, leads in self.leads(inner).items():
            held = theirs.get(form, set())
            for lead in leads:
                if not (lead in held if lead else any(not o or o in mine for o in held)):
                    return False
        return self.in_order(inner, outer)

    def order(self, file: str) -> tuple[str, ...]:
        """A memory's numbered items, in order (see :func:`~consolidator.detect.text.numbered`)."""
        found = self._orders.get(file)
        if found is None:
            found = self._orders[file] = numbered(self._by_file[file].body)
        return found

    def in_order(self, inner: str, outer: str) -> bool:
        """Whether ``inner``'s numbered items stand in ``outer`` in the same order: "1. Run
        the migrations 2. Deploy" is not held by a memory that deploys first."""
        steps = self.order(inner)
        if len(steps) < 2:
            return True
        self.leads(outer)  # works out where each of its lines first stands
        places = [self._places[outer].get(step, -1) for step in steps]
        return all(a < b for a, b in zip(places, places[1:]))


def _copies(files: Collection[str]) -> set[str]:
    """The files whose name is another's with something added ("notes_2.md", "notes copy.md"
    beside "notes.md"): copies, as people and tools name them."""
    stems = {f: f.rsplit(".", 1)[0].casefold() for f in files}
    return {f for f, stem in stems.items()
            if any(o != f and len(stem) > len(other) and stem.startswith(other)
                   for o, other in stems.items())}


def find_duplicates(
    memories: Iterable[Memory], sets: dict[str, frozenset[str]] | None = None,
    named: Callable[[], Collection[str]] = frozenset,
) -> list[Cluster]:
    """Group duplicate memories; each cluster names its survivor.

    ``sets``: each memory's normal-form lines, if the caller has them already; ``named``:
    the files the index or other memories link to (asked only when equal copies must choose
    a survivor: the name people and links already use is kept, not a copy's ``_2``).
    """
    by_file = {m.file: m for m in memories}
    sets = sets if sets is not None else line_sets(by_file.values())
    exact = _Exact(by_file)
    # Memories of different types are never one memory, whatever their bodies say: a body
    # shared by a reference and a feedback memory is reported as similar, not merged.
    groups: dict[tuple[str | None, frozenset[str]], list[str]] = defaultdict(list)
    for file, lines in sets.items():
        # A normal line is its tokens joined by single spaces.
        if file in by_file and sum(line.count(" ") + 1 for line in lines) >= MIN_TOKENS:
            groups[by_file[file].type, lines].append(file)

    # 1. Equal normal sets are equal memories only when their exact sets are equal too; each
    #    group of equals is represented by its newest member.
    rep_of: dict[str, str] = {}
    reps: dict[str, frozenset[str]] = {}
    for (_type, lines), files in groups.items():
        same: dict[tuple[frozenset[tuple[str, str]], tuple[str, ...]], list[str]] | None = None
        if len(files) > 1:
            same = defaultdict(list)
            for file in files:  # equal lines, each led in alike, and steps in one order
                same[exact.key(file)].append(file)
        for equal in same.values() if same is not None else [files]:
            ordered = sorted(equal, key=lambda f: _newest_first(by_file[f]))
            if len(ordered) > 1:
                linked, copies = named(), _copies(ordered)
                # The name links use, else the original's over a copy's ("x_2", "x copy"):
                # stable, so the newest among each.
                ordered.sort(key=lambda f: (f not in linked, f in copies))
            reps[ordered[0]] = lines
            for file in ordered:
                rep_of[file] = ordered[0]

    # 2. Strict containment between representatives: found via the rarest normal line,
    #    confirmed on the exact lines.
    postings = line_postings(reps.items())
    parent: dict[str, str] = {}
    for rep, lines in reps.items():
        rarest = min(lines, key=lambda line: len(files_of(postings[line])))
        holders = files_of(postings[rarest])
        if len(holders) > MAX_POSTINGS:
            continue
        containers = [
            other
            for other in holders
            if other != rep and len(reps[other]) >= len(lines) and lines <= reps[other]
            and by_file[other].type == by_file[rep].type and exact[rep] < exact[other]
            and exact.led_alike(rep, other)
        ]
        if containers:
            parent[rep] = max(
                containers, key=lambda o: (len(exact[o]), by_file[o].written_ns, o)
            )

    def top(rep: str) -> str:
        while rep in parent:
            rep = parent[rep]
        return rep

    members: dict[str, list[str]] = defaultdict(list)
    for file, rep in rep_of.items():
        members[top(rep)].append(file)
    clusters = []
    for keep, files in members.items():
        if len(files) < 2:
            continue
        others = sorted(f for f in files if f != keep)
        similarity = min(len(sets[f] & sets[keep]) / len(sets[f] | sets[keep]) for f in others)
        kind = "same lines" if all(exact[f] == exact[keep] for f in others) else "contained"
        clusters.append(Cluster(keep, (keep, *others), similarity, kind))
    return sorted(clusters, key=lambda c: c.keep)
