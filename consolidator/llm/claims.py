"""Checking that a model's merged text keeps every claim of its sources, line by line.

A memory states about one claim a line. A merge keeps a claim only when ONE line of the
merged text holds, together, what makes the source line true:

- its *facts*: numbers, dates, paths, identifiers, code and names (words compared in any case,
  numbers only where they stand on their own: 3 is not kept by 30, nor 5432 by 15432);
- its *negations* (not, never, no, n't, without, 不, 没, 禁止, しない, ない, 않, …): at least as
  many, so "Do not deploy" never becomes "Deploy";
- most of its *words*: at least half of the content words of each of its sentences, so a
  sentence dropped from the merge is noticed even when it holds no fact.

Two more rules keep a merge from passing by piling words up: a merged line carries at most
``MAX_CLAIMS_PER_LINE`` different claims of the sources (one line holding the tokens of whole
memories is no merge), and it says "not" no more often than the claims it carries (a
negation added turns a claim around as surely as one dropped).

Reordering lines, changing bullets, case and wording around the facts all pass. A lost line
is reported by its missing facts and negations, else by its own words.

Every pattern here is linear: no nested or overlapping unbounded quantifiers, and a pattern
that could start anywhere in a run of letters starts only at the run's first character, so
a source of a megabyte is checked in time proportional to its size.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from consolidator.detect.script import CJK_CLAIM

MAX_CLAIMS_PER_LINE = 2
SHOWN = 60  # characters of a line quoted in what the check reports
# Source and merged lines compared at most. Each source line is compared only with the
# distinct merged lines that share a word with it; a merge that still needs more comparisons
# than this (thousands of lines on each side, all alike) is refused unchecked, which is safe:
# the offline decision stands.
MAX_COMPARISONS = 1_000_000
TOO_LONG = "a merged text too long to check"

_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")  # where it stands is checked in Python
_DIGITS = re.compile(r"\d+")
_PATH = re.compile(r"(?<![\w.@~/\\-])[\w.@~-]*[/\\][\w.@~/\\-]*[\w@-]"
                   r"|(?<![\w.-])[\w-]+\.[A-Za-z][A-Za-z0-9]{1,7}\b")
_IDENT = re.compile(r"\b(?:[a-z]+_[a-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]+|[A-Z]{2,}[A-Z0-9_]*"
                    r"|[^\W\d]*\d\w*)\b")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")
_LEAD = re.compile(r"[ \t>]*(?:[-*+]|\d{1,9}[.)]|#{1,6})?[ \t]*")  # quote, bullet, heading
_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|[。！？；;]")
_CJK_CHARS = CJK_CLAIM
_CJK_OR_NOT = re.compile(rf"[{_CJK_CHARS}]|[^{_CJK_CHARS}]+")
_CJK = re.compile(rf"[{_CJK_CHARS}]")
_CJK_PARTICLES = frozenset(
    "のはがをにでともへやかなね" "的了是在和与與之也就都而" "이가을를은는에의도로와과")

# English negations, as words ("n't" counts as "not").
_NEGATION_WORDS = re.compile(
    r"\b(?:not|never|no|without|cannot|none|nothing|nobody|nowhere|neither|nor)\b|n't\b")
# Negations in languages written without spaces between words, counted where they stand.
# しない, 使わない and 少ない all hold ない: only ない is listed, so none counts twice.
_NEGATION_MARKS = ("不", "没", "沒", "禁止", "勿", "别", "ない", "ません", "ずに", "않", "못",
                   "없", "금지")
# Words that carry no claim of their own.
_STOPWORDS = frozenset("""
the and for are was were been being has have had this that these those with from into onto
then than also just only very more most some any all each every per its their there here
when where which who what how why but yet our your you they them she him her his
use uses used using should must will would can could may might shall does did done
about after before over under again once such same other another both either
""".split())


@dataclass(slots=True)
class _Line:
    """One line, as the check compares it."""

    text: str
    fold: str
    facts: frozenset[str]
    numbers: frozenset[str]  # numbers standing on their own, and every run of digits
    negations: int
    keys: frozenset[str]  # content words (cut to a stem) and CJK characters
    sentences: tuple[frozenset[str], ...]  # the keys of each sentence
    carried: list[int] = field(default_factory=list)  # claims of the sources it holds


def negations(text: str) -> int:
    """How many negations ``text`` holds, in any of the languages the check knows."""
    fold = text.casefold().replace("’", "'")
    return sum(fold.count(mark) for mark in _NEGATION_MARKS) + len(_NEGATION_WORDS.findall(fold))


def _keys(text: str) -> set[str]:
    """The content words of ``text``, cut to their first five letters (deploy, deploys and
    deployed are one word); in CJK text every character but a particle counts."""
    words = set(_WORD.findall(text.casefold()))
    out = {w[:5] for w in words if w.isascii() and len(w) >= 3 and w not in _STOPWORDS}
    for word in words:
        if word.isascii() or _CJK.search(word) is None:
            if not word.isascii() and len(word) >= 3 and word not in _STOPWORDS:
                out.add(word[:5])  # a word in another alphabet (é, ü, Cyrillic)
            continue
        for part in _CJK_OR_NOT.findall(word):
            if _CJK.match(part):
                if part not in _CJK_PARTICLES:
                    out.add(part)
            elif len(part) >= 3 and part not in _STOPWORDS:
                out.add(part[:5])
    return out


def _numbers(text: str) -> tuple[set[str], set[str]]:
    """The numbers of ``text`` that stand on their own (not inside a word or a longer
    number), and every run of digits in it."""
    standing: set[str] = set()
    for match in _NUMBER.finditer(text):
        start, end = match.span()
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_"):
            standing.add(match.group())
    return standing, set(_DIGITS.findall(text))


def _names(line: str) -> set[str]:
    """Capitalised words that do not open the line or a sentence: names."""
    lead = _LEAD.match(line)
    first = lead.end() if lead else 0
    out = set()
    for match in _NAME.finditer(line):
        start = match.start()
        before = line[max(first, start - 8):start].rstrip(" \t*_\"'(“「")
        if start > first and before and before[-1] not in ".!?:;":
            out.add(match.group())
    return out


def claim_tokens(text: str) -> set[str]:
    """The facts of ``text`` a faithful merge must keep: code, numbers, paths, identifiers
    and names."""
    found: set[str] = set()
    for code in text.split("`")[1::2]:
        if code.strip() and "\n" not in code:
            found.add(code.strip())
    for line in text.splitlines():
        found |= _numbers(line)[0]
        found |= _names(line)
        found.update(_PATH.findall(line))
        found.update(_IDENT.findall(line))
    return {value for value in found if len(value) >= 2 or value.isdigit()}


def _read(text: str) -> _Line:
    standing, runs = _numbers(text)
    sentences = tuple(frozenset(k) for part in _SENTENCE_END.split(text) if (k := _keys(part)))
    return _Line(
        text=text.strip(),
        fold=text.casefold(),
        facts=frozenset(claim_tokens(text)),
        numbers=frozenset(standing | runs),
        negations=negations(text),
        keys=frozenset().union(*sentences),
        sentences=sentences,
    )


def _kept(fact: str, line: _Line) -> bool:
    if _NUMBER.fullmatch(fact):
        return fact in line.numbers
    return fact.casefold() in line.fold


def _lacks(source: _Line, merged: _Line) -> tuple[list[str], bool]:
    """The facts and negations ``merged`` lacks of ``source``, and whether it lacks most of
    the words of one of its sentences; ``([], False)`` when it holds the claim."""
    lost = sorted(f for f in source.facts if not _kept(f, merged))
    if merged.negations < source.negations:
        lost.append("a negation")
    unsaid = any(len(s & merged.keys) < math.ceil(len(s) / 2) for s in source.sentences)
    return lost, unsaid


def _normal(text: str) -> str:
    lead = _LEAD.match(text)
    return " ".join(text[lead.end() if lead else 0:].casefold().split()).strip("*_ ")


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


@dataclass(slots=True)
class _Claim:
    """A claim of the sources: one line, or the same line said by each memory."""

    line: _Line
    fits: list[int]  # the merged lines that hold it
    negations: int


def missing_claims(sources: list[str], merged: str) -> list[str]:
    """What ``merged`` loses of ``sources`` (empty: nothing): each lost fact or negation, or
    the words of a line that no merged line holds, and each merged line that packs too many
    claims together or adds a negation."""
    targets: list[_Line] = []
    distinct: set[str] = set()
    for raw in merged.splitlines():
        if raw.strip() and raw.strip() not in distinct:  # a line said twice holds no more
            distinct.add(raw.strip())
            targets.append(_read(raw))
    by_key: dict[str, list[int]] = {}
    for i, target in enumerate(targets):
        for key in target.keys:
            by_key.setdefault(key, []).append(i)
    seen: set[str] = set()
    claims: dict[frozenset[str], list[_Claim]] = {}  # by their facts
    lost: set[str] = set()
    budget = MAX_COMPARISONS
    for text in sources:
        for raw in text.splitlines():
            normal = _normal(raw)
            if not normal or normal in seen:
                continue
            seen.add(normal)
            source = _read(raw)
            if not source.facts and not source.keys and not source.negations:
                continue  # a rule, a fence, punctuation: no claim
            # Only a line sharing a word with the source can hold it.
            budget -= (sum(len(by_key.get(k, ())) for k in source.keys) if source.keys
                       else len(targets))
            if budget < 0:
                return [TOO_LONG]
            near = (sorted({i for k in source.keys for i in by_key.get(k, ())})
                    if source.keys else range(len(targets)))
            verdicts = [(i, *_lacks(source, targets[i])) for i in near]
            fits = [i for i, facts, unsaid in verdicts if not facts and not unsaid]
            if fits:
                same = claims.setdefault(source.facts, [])
                budget -= len(same)
                _add(same, source, fits)
                continue
            closest = min(((facts, unsaid) for _i, facts, unsaid in verdicts),
                          key=lambda v: (v[1], len(v[0])), default=([], True))
            lost.update(closest[0] or [_shown(source.text)])
    every = [claim for same in claims.values() for claim in same]
    return sorted(lost | _overloaded(every, targets))


def _add(same: list[_Claim], source: _Line, fits: list[int]) -> None:
    """Count ``source`` as a claim, unless one of ``same`` (the claims with its facts) is it
    already: the same line in the other memory, in other words."""
    for claim in same:
        shared = len(claim.line.keys & source.keys)
        if shared * 2 >= max(len(claim.line.keys), len(source.keys)):
            claim.negations = max(claim.negations, source.negations)
            holding = set(fits)
            claim.fits = [i for i in claim.fits if i in holding] or claim.fits
            return
    same.append(_Claim(source, fits, source.negations))


def _overloaded(claims: list[_Claim], targets: list[_Line]) -> set[str]:
    """Merged lines that carry more claims than one line may, or more negations than the
    claims they carry. Each claim goes to the line holding it that carries the fewest yet
    (a line with its own number of negations first); the claims with fewest choices go
    first."""
    for n, claim in sorted(enumerate(claims), key=lambda c: len(c[1].fits)):
        best = min(claim.fits, key=lambda i: (targets[i].negations != claim.negations,
                                              len(targets[i].carried)))
        targets[best].carried.append(n)
    out = set()
    for target in targets:
        if len(target.carried) > MAX_CLAIMS_PER_LINE:
            out.add(f"{len(target.carried)} claims packed into one line: "
                    f"{_shown(target.text)}")
        if target.negations > sum(claims[n].negations for n in target.carried):
            out.add(f"a negation added: {_shown(target.text)}")
    return out
