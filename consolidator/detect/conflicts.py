"""Conflicts: two memories with a line that says the same thing but for one value.

``The dev database listens on port 5432`` against ``... port 6432``; ``use pnpm`` against
``use npm``; ``deploy on Wednesday`` against ``deploy on Thursday``; ``always`` against
``never``; ``node v18`` against ``node v20``. One index finds them in linear time: each
line is keyed by its tokens with every value (numbers, weekdays, months, package managers,
always/never, words with digits) replaced by its class, so lines that differ only in
values share a key. Conflicts are reported, never merged offline.
"""

from __future__ import annotations

from collections.abc import Iterable

from consolidator.detect.text import jaccard, normal_set, shingles
from consolidator.plan import Conflict
from consolidator.store.model import Memory

MIN_LINE_TOKENS = 4
MAX_LINE_TOKENS = 60
MAX_POSTINGS = 12  # a skeleton shared by more lines than this is boilerplate

_CLASSES = {
    **{d: "<weekday>" for d in (
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "mon", "tue", "wed", "thu", "fri", "sat", "sun")},
    **{m: "<month>" for m in (
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december")},
    **{p: "<pkg>" for p in ("npm", "pnpm", "yarn", "bun", "pip", "poetry", "uv", "pipenv")},
    **{w: "<freq>" for w in ("always", "never", "sometimes", "must", "mustn", "should")},
    **{w: "<bool>" for w in ("true", "false", "yes", "no", "on", "off", "enabled", "disabled")},
    **{w: "<tab>" for w in ("tabs", "spaces")},
    **{c: "<cjk-number>" for c in "一二三四五六七八九十"},  # 周三 vs 周四, 3 vs 4 in CJK
}
_STOP = frozenset(
    ["a", "an", "the", "to", "of", "in", "on", "at", "for", "and", "or", "is", "are", "was", "be", "it", "this", "that", "with", "as", "by", "from", "we", "you", "i", "our", "my"]
)
def _value_class(token: str) -> str:
    """The class a value token stands for (``<num>``, ``<weekday>``…; ``<id>`` for a word
    with digits in it: ``v18``, ``es2020``, ``hunter2``), else the token."""
    known = _CLASSES.get(token)
    if known is not None:
        return known
    if token.isdigit():
        return "<num>"
    return token if token.isalpha() else "<id>"


def _differs(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, str] | None:
    """The values that differ between two lines of one skeleton, if they are substantive."""
    # The same change twice in a line ("use pnpm ... pnpm install") is said once.
    pairs = list(dict.fromkeys((x, y) for x, y in zip(a, b, strict=True) if x != y))
    left = [x for x, _ in pairs]
    right = [y for _, y in pairs]
    if not left or all(t in _STOP for t in left + right):
        return None
    return " ".join(left), " ".join(right)


def find_conflicts(
    memories: Iterable[Memory],
    skip: set[frozenset[str]] | None = None,
    sets: dict[str, frozenset[str]] | None = None,
) -> list[Conflict]:
    """Pairs of memories that disagree on a claim; ``skip`` holds pairs already duplicates.

    ``sets``: each memory's normal-form lines, if the caller has them (they are tokenised
    already: a normal line is its tokens joined by spaces).
    """
    skip = skip or set()
    by_file = {m.file: m for m in memories}
    sets = sets if sets is not None else {f: normal_set(m.body) for f, m in by_file.items()}
    # Each key's first line is kept on its own; a list is made only when a second line shares
    # the key, and lines are kept as the strings ``sets`` holds already: most keys are unique,
    # so this keeps the index small on a large directory.
    first: dict[int, tuple[str, str]] = {}
    shared: dict[int, list[tuple[str, str]]] = {}
    for file in by_file:
        for line in sorted(sets.get(file, ())):
            toks = line.split(" ")
            if not MIN_LINE_TOKENS <= len(toks) <= MAX_LINE_TOKENS:
                continue
            # Only a value may differ — a number, a version, a known alternative: two lines
            # that differ in an ordinary word are about different things. A line with no
            # value cannot conflict, and costs nothing more.
            if all(t not in _CLASSES and t.isalpha() for t in toks):
                continue
            entry = (file, line)
            key = hash(tuple(_value_class(t) for t in toks))
            seen = first.setdefault(key, entry)
            if seen is not entry:
                postings = shared.get(key)
                if postings is None:
                    shared[key] = [seen, entry]
                elif len(postings) <= MAX_POSTINGS:
                    postings.append(entry)
    found: dict[frozenset[str], tuple[str, str]] = {}
    for entries in shared.values():
        if len(entries) > MAX_POSTINGS:
            continue
        split = [(f, tuple(line.split(" "))) for f, line in entries]
        for i, (fa, ta) in enumerate(split):
            for fb, tb in split[i + 1 :]:
                pair = frozenset((fa, fb))
                if fa == fb or ta == tb or len(ta) != len(tb) or pair in skip or pair in found:
                    continue
                diff = _differs(ta, tb)
                if diff is not None:
                    found[pair] = diff if fa < fb else (diff[1], diff[0])
    out = []
    for pair, (va, vb) in found.items():
        fa, fb = sorted(pair)
        a, b = by_file[fa], by_file[fb]
        newer = fa if (a.stat.mtime_ns, fa) > (b.stat.mtime_ns, fb) else fb
        similarity = jaccard(shingles(a.body), shingles(b.body))
        reason = f"{fa} says {va!r} where {fb} says {vb!r}"
        out.append(Conflict((fa, fb), newer, similarity, reason))
    return sorted(out, key=lambda c: c.files)
