"""Memories that share lines: the same normal-form lines, found through an inverted index.

The cheapest kind of similarity, and the one reported before any other: most of two
memories' lines in common, neither memory holding all of the other's. Only lines of five words
or more pair memories, and a line shared by more than ``MAX_SHARED`` memories is boilerplate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container

from consolidator.detect.overlap.postings import line_postings
from consolidator.detect.text import normal_line
from consolidator.store.model import Memory

MAX_SHARED = 20  # a line in more memories than this is boilerplate: it pairs nothing
MAX_LINES = 5  # matching line pairs reported per pair


def sharing_lines(
    sets: dict[str, frozenset[str]], threshold: float, skip: Container[frozenset[str]]
) -> list[tuple[frozenset[str], float]]:
    """Pairs whose normal-line sets overlap by ``threshold`` (Jaccard) or more."""
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
                out.append((frozenset((a, b)), similarity))
    return out


def _written(memory: Memory) -> list[tuple[str, str]]:
    """Each body line with words in it: (normal form, the line as written, stripped)."""
    out = []
    for line in memory.body.splitlines():
        normal = normal_line(line)
        if normal:
            out.append((normal, line.strip()))
    return out


def same_lines(a: Memory, b: Memory) -> tuple[tuple[str, str], ...]:
    """Up to ``MAX_LINES`` pairs of lines with one normal form, the longest first."""
    theirs = {normal: text for normal, text in reversed(_written(b))}
    pairs = {normal: (text, theirs[normal]) for normal, text in _written(a) if normal in theirs}
    best = sorted(pairs, key=lambda n: (-n.count(" "), n))[:MAX_LINES]
    return tuple(pairs[n] for n in best)
