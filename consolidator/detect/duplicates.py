"""Duplicates: memories whose every line (in normal form) stands in another memory.

That covers exact copies, copies reworded by whitespace, case, punctuation or bullet style,
reordered copies, and a memory wholly contained in a longer one. Because the survivor already
holds every line of every memory it absorbs, merging them never drops a claim.

Candidates come from an inverted index of lines: a container must hold the contained
memory's rarest line, so only that line's posting list is checked. Near-linear in the
number of memories.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from consolidator.detect.text import normal_set
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


def _newest_first(memory: Memory) -> tuple[int, int, str]:
    return (-memory.stat.mtime_ns, -len(memory.body), memory.file)


def line_sets(memories: Iterable[Memory]) -> dict[str, frozenset[str]]:
    """Each memory's set of normal-form lines (computed once, shared by the detectors)."""
    return {m.file: normal_set(m.body) for m in memories}


def find_duplicates(
    memories: Iterable[Memory], sets: dict[str, frozenset[str]] | None = None
) -> list[Cluster]:
    """Group duplicate memories; each cluster names its survivor."""
    by_file = {m.file: m for m in memories}
    sets = sets if sets is not None else line_sets(by_file.values())
    groups: dict[frozenset[str], list[str]] = defaultdict(list)
    for file, lines in sets.items():
        # A normal line is its tokens joined by single spaces.
        if sum(line.count(" ") + 1 for line in lines) >= MIN_TOKENS:
            groups[lines].append(file)

    # 1. Identical line sets: each contains the others, so the newest survives.
    rep_of: dict[str, str] = {}
    reps: dict[str, frozenset[str]] = {}
    for lines, files in groups.items():
        ordered = sorted(files, key=lambda f: _newest_first(by_file[f]))
        reps[ordered[0]] = lines
        for file in ordered:
            rep_of[file] = ordered[0]

    # 2. Strict containment between representatives, via the rarest line.
    postings = line_postings(reps.items())
    parent: dict[str, str] = {}
    for rep, lines in reps.items():
        rarest = min(lines, key=lambda line: len(files_of(postings[line])))
        if len(files_of(postings[rarest])) > MAX_POSTINGS:
            continue
        containers = [
            other
            for other in files_of(postings[rarest])
            if other != rep and len(reps[other]) > len(lines) and lines <= reps[other]
        ]
        if containers:
            parent[rep] = max(
                containers, key=lambda o: (len(reps[o]), by_file[o].stat.mtime_ns, o)
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
        kind = "same lines" if all(sets[f] == sets[keep] for f in others) else "contained"
        clusters.append(Cluster(keep, (keep, *others), similarity, kind))
    return sorted(clusters, key=lambda c: c.keep)


def line_postings(
    sets: Iterable[tuple[str, frozenset[str]]], keep: Callable[[str], bool] | None = None
) -> dict[str, str | list[str]]:
    """Each line -> the file that has it, or the list of files once a second one has it.

    Most lines are in one memory only: a list for each would cost more than the sets do.
    """
    out: dict[str, str | list[str]] = {}
    for file, lines in sets:
        for line in lines:
            if keep is not None and not keep(line):
                continue
            seen = out.setdefault(line, file)
            if seen is file:
                continue
            if isinstance(seen, str):
                out[line] = [seen, file]
            else:
                seen.append(file)
    return out


def files_of(entry: str | list[str]) -> list[str]:
    return [entry] if isinstance(entry, str) else entry


MAX_SHARED = 20  # a line in more memories than this is boilerplate: it pairs nothing


@dataclass(frozen=True)
class Similar:
    """Two memories sharing most of their lines, neither holding all of the other's."""

    files: tuple[str, str]
    similarity: float


def find_similar(
    memories: Iterable[Memory],
    skip: set[frozenset[str]],
    threshold: float = 0.5,
    sets: dict[str, frozenset[str]] | None = None,
) -> list[Similar]:
    """Near-duplicates by shared lines: words alone cannot merge these without dropping a
    claim, so the offline backend only reports them; an LLM backend may merge them."""
    sets = sets if sets is not None else line_sets(memories)
    # Only lines of five words or more pair memories: a line that says something.
    postings = line_postings(sets.items(), lambda line: line.count(" ") >= 4)
    # Per file, what its long lines cannot vouch for: short lines, and long lines too common
    # to pair on. Two memories sharing c pairable lines share at most c plus the smaller of
    # those, so most candidate pairs are ruled out without comparing their sets.
    short: dict[str, int] = dict.fromkeys(sets, 0)
    common: dict[str, int] = dict.fromkeys(sets, 0)
    for file, lines in sets.items():
        for line in lines:
            files = postings.get(line)
            if files is None:
                short[file] += 1
            elif isinstance(files, list) and len(files) > MAX_SHARED:
                common[file] += 1
    out = []
    for a, lines in sets.items():  # one file's candidates at a time: no table of all pairs
        counts: dict[str, int] = defaultdict(int)
        for line in lines:
            files = postings.get(line)
            if isinstance(files, list) and len(files) <= MAX_SHARED:
                for b in files:
                    if b > a:
                        counts[b] += 1
        for b, shared in counts.items():
            most = shared + min(short[a], short[b]) + min(common[a], common[b])
            if most < threshold * max(len(lines), len(sets[b])):
                continue
            if frozenset((a, b)) in skip:
                continue
            union = len(lines | sets[b])
            similarity = len(lines & sets[b]) / union if union else 0.0
            if similarity >= threshold:
                out.append(Similar((a, b), similarity))
    return sorted(out, key=lambda s: (-s.similarity, s.files))
