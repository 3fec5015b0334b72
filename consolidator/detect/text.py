"""Normalised text for comparing memories in any language.

Latin-script text compares by words; Chinese, Japanese and Korean text has no spaces between
words, so every CJK character is its own token. A line's *normal form* ignores case,
whitespace, punctuation, Markdown emphasis and bullet style, so ``- Use **pnpm**.`` and
``* use pnpm`` are the same line.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_BULLET = re.compile(r"^\s*(?:[-*+•·]|\d+[.)]|[a-z][.)])\s+", re.IGNORECASE)
_CJK = (
    r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff"
    r"\u3130-\u318f"
)
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


@lru_cache(maxsize=16384)
def joined_tokens(text: str) -> str:
    """The tokens of ``text`` joined by single spaces (a line's words, as one string).

    Memories repeat lines, so this is cached; one string per line keeps the cache small.
    """
    # ASCII text is its own NFKC form, and its case-folding is lower-casing: skip the work.
    folded = text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_TOKEN.findall(folded))


def tokens(text: str) -> tuple[str, ...]:
    """Words (Latin) and single characters (CJK), case-folded."""
    joined = joined_tokens(text)
    return tuple(joined.split(" ")) if joined else ()


_BULLET_HEADS = frozenset("-*+•·0123456789")


def normal_line(line: str) -> str:
    """A line's normal form ('' for a line with no words)."""
    head = line[:1]
    if head in _BULLET_HEADS or head.isspace() or line[1:2] in (".", ")"):
        line = _BULLET.sub("", line)
    return joined_tokens(line)


def normal_set(body: str) -> frozenset[str]:
    """The set of normal forms of a body's lines."""
    return frozenset(n for n in (normal_line(line) for line in body.splitlines()) if n)


def shingles(text: str, size: int = 3) -> set[str]:
    """Overlapping token n-grams (character n-grams for CJK, by construction of tokens)."""
    toks = tokens(text)
    if len(toks) < size:
        return {" ".join(toks)} if toks else set()
    return {" ".join(toks[i : i + size]) for i in range(len(toks) - size + 1)}


def jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def words_covered(text: str, within: str) -> bool:
    """True when every token of ``text`` occurs somewhere in ``within``."""
    return set(tokens(text)) <= set(tokens(within))
