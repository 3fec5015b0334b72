"""Checking that a merged text keeps every claim of its sources.

A claim's load-bearing parts are its numbers, paths, identifiers, names, dates and code:
each must survive the merge (in any case, for words; exactly, for code and numbers).
"""

from __future__ import annotations

import re

_CODE = re.compile(r"`([^`\n]+)`")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:/-]\d+)*(?![\w])")
_PATH = re.compile(r"(?:[\w.@~-]+/)+[\w.@-]+|[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}\b")
_IDENT = re.compile(r"\b(?:[a-z]+_[a-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]+|[A-Z]{2,}[A-Z0-9_]*|\w*\d\w*)\b")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b", re.MULTILINE)


def claim_tokens(text: str) -> set[str]:
    """The parts of ``text`` a faithful merge must keep."""
    found: set[str] = set()
    for pattern in (_CODE, _NUMBER, _PATH, _IDENT, _NAME):
        for match in pattern.finditer(text):
            value = match.group(1) if pattern is _CODE else match.group(0)
            if len(value) >= 2 or value.isdigit():
                found.add(value)
    return found


def missing_claims(sources: list[str], merged: str) -> list[str]:
    """Claim parts of ``sources`` that ``merged`` lost: words compared case-insensitively,
    numbers only where they stand on their own (3 is not kept by 30, nor 5432 by 15432)."""
    have = merged.casefold()
    numbers = set(_NUMBER.findall(merged)) | set(re.findall(r"\d+", merged))
    lost = set()
    for text in sources:
        for token in claim_tokens(text):
            kept = token in numbers if _NUMBER.fullmatch(token) else token.casefold() in have
            if not kept:
                lost.add(token)
    return sorted(lost)
