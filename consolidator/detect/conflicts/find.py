"""Conflicts: two memories about one subject, with a line that says the same thing but for a
value.

``The dev database listens on port 5432`` against ``... port 6432``; ``use pnpm`` against
``use npm``; ``deploy on Wednesday`` against ``deploy on Thursday``; ``always`` against
``never``; ``-5 s`` against ``+5 s``; ``==`` against ``!=``; a claim against the same claim
struck through.

Candidates are found in linear time from the normal-form lines the detectors share
(:mod:`consolidator.detect.conflicts.skeletons`): a line with a value is keyed by its skeleton (each
value replaced by its class), so lines that differ only in values share a key; a line without
one is keyed by itself when one side holds symbols that the normal form drops. Each candidate
is then read as written, with the symbols kept (:mod:`consolidator.detect.conflicts.values`).

A shared skeleton is not yet a disagreement. Real memories are full of lines that differ in a
value because they are about different things: two reference memories with their own database
IDs, the VLANs of two labs, two session logs each with its own date, two runs of one
experiment with their own figures. So a candidate is a conflict only when

- the values are values, not names: hashes, UUIDs, long numbers and words with digits (``s17``,
  ``ps4``) name things and never disagree, nor does a value that names the memory itself (the
  date or number in its own file name);
- the line is one claim with one or two changed values, not a row of figures;
- neither memory lists the skeleton with several values (``VLAN 10`` and ``VLAN 20`` in one
  memory are two things, not two opinions);
- the two lines are not under parallel headings, nor the memories parallel by name
  (``Lab A`` / ``Lab B``, ``session 17`` / ``session 18``), nor does each line name its own
  memory's subject (a word of its file name the other's lacks: two jobs' times, each line
  naming its own job);
- and there is enough shared context beyond the value: content words in the line itself, or
  memories about the same subject (a share of content words in common), more of it the less
  the line says. Dates, paths and plain numbers need more than a known alternative such as a
  weekday, a package manager, always/never or a changed symbol.

Conflicts are reported, never merged offline.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Sequence
from datetime import date
from functools import lru_cache

from consolidator import clock
from consolidator.detect.conflicts.age import newer_of
from consolidator.detect.conflicts.skeletons import MIN_LINE_TOKENS, candidates
from consolidator.detect.conflicts.subject import Subjects, Written
from consolidator.detect.conflicts.values import Tok, diff_kind, differs, tokens
from consolidator.detect.findings import Conflict
from consolidator.detect.text import exact_line, normal_set
from consolidator.detect.text import tokens as word_tokens
from consolidator.detect.words import FUNCTION_WORDS
from consolidator.store.model import Memory

RELATED = 0.2  # the overlap two memories named for one subject count as having, at least
INSTANCE_LINES = 2  # lines lining up with other values that make two memories two instances
INSTANCE_CHANGES = 3  # ... if they carry this many different value changes
MAX_CHANGES = 2  # distinct value changes in one line; more is a row of figures, not a claim

_STRONG = frozenset({"choice", "operator", "mark", "struck", "sign", "symbol", "currency"})
_STOP = frozenset(
    "a an the to of in on at for and or is are was be it this that with as by from we you i "
    "our my use used uses using can will do does not no only all any each every per via".split()
) | frozenset().union(*FUNCTION_WORDS.values())  # and other Latin languages' function words
# Words that say when or where a line was written, or what kind of line it is (the Why and
# How to apply labels of Claude Code's memories), not what it claims.
_META = frozenset(
    "date dated updated update created modified written last session time day week why how "
    "apply "
    "version rev revision id 日 期 更 新 作 成 付 時 间 間".split()
)
# Where one claim in a line ends and a remark begins.
_CLAUSE = re.compile(r"[;；。！？!?()（）]|[,，]\s*|\s(?:--|—|–|-)\s")


def find_conflicts(
    memories: Iterable[Memory],
    skip: Container[frozenset[str]] = frozenset(),
    sets: dict[str, frozenset[str]] | None = None,
    features: dict[str, set[str]] | None = None,
) -> list[Conflict]:
    """Pairs of memories that disagree on a claim; ``skip`` holds pairs already duplicates.

    ``sets``: each memory's normal-form lines, if the caller has them (they are tokenised
    already: a normal line is its tokens joined by spaces); ``features``: a
    cache of the content features of its lines, shared with other detectors.
    """
    by_file = {m.file: m for m in memories}
    sets = sets if sets is not None else {f: normal_set(m.body) for f, m in by_file.items()}
    pairs = candidates(by_file, sets)
    wanted: dict[str, set[str]] = {}
    for one, other in pairs:
        for file, normal in (one, other):
            wanted.setdefault(file, set()).add(normal)
    subjects = Subjects(by_file, sets, wanted, features)
    found: dict[frozenset[str], tuple[tuple[int, int, int], Conflict]] = {}
    differing: dict[frozenset[str], set[tuple[str, str]]] = {}
    for (fa, na), (fb, nb) in pairs:
        pair = frozenset((fa, fb))
        if fa == fb or pair in skip:
            continue
        side_a, side_b = subjects.written(fa, na), subjects.written(fb, nb)
        if _listed(side_a) or _listed(side_b):
            continue  # one memory states several values: a list of things, not an opinion
        for a in side_a:
            for b in side_b:
                if a.text != b.text:
                    differing.setdefault(pair, set()).add((a.text, b.text))
                judged = _judge(a, b, subjects)
                if judged is not None and (pair not in found or judged[0] > found[pair][0]):
                    found[pair] = judged
    return sorted(
        (c for pair, (_, c) in found.items()
         if not _instances(differing.get(pair, set()), *c.files, subjects)),
        key=lambda c: c.files,
    )


def _instances(differing: set[tuple[str, str]], a: str, b: str, ctx: Subjects) -> bool:
    """Whether two memories are one template filled in for two things: several rows of their
    tables line up with other figures (one experiment measured twice), or their lines line
    up with several *different* value changes (two servers: RAM, CPU and OS all differ) and
    neither name holds the other's words (two versions of one memory usually keep its name).
    One change restated in several lines (a port, and the URL that holds it) is one
    disagreement."""
    if len(differing) < INSTANCE_LINES:
        return False
    if sum(1 for x, _ in differing if x.startswith("|")) >= INSTANCE_LINES:
        return True
    if len(_distinct_changes(differing)) < INSTANCE_CHANGES:
        return False
    na = {t.value for t in ctx.name(a)}
    nb = {t.value for t in ctx.name(b)}
    return not (na <= nb or nb <= na)


def _distinct_changes(differing: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The value changes behind lines that line up, without those that only restate another
    (``5432`` -> ``6432`` inside a URL that changes the same way)."""
    changes: set[tuple[str, str]] = set()
    for text_a, text_b in differing:
        ta, tb = _line_tokens(text_a), _line_tokens(text_b)
        aligned = _changes(ta, tb) if len(ta) == len(tb) else None
        if aligned is None:
            changes.add((text_a, text_b))  # lined up by a part only: count it as its own
        else:
            changes |= {(x.value, y.value) for x, y in aligned}
    return {(x, y) for x, y in changes
            if not any((p, q) != (x, y) and p in x and x.replace(p, q) == y
                       for p, q in changes)}


def _listed(lines: list[Written]) -> bool:
    """Whether one memory writes one normal line with different values (``x == y`` and
    ``x != y``, two struck and plain copies): it enumerates, it does not claim one value."""
    if len(lines) < 2:
        return False
    values = {tuple(t.value for t in tokens(w.text)) for w in lines}
    return len(values) > 1


def _changes(ta: Sequence[Tok], tb: Sequence[Tok]) -> list[tuple[Tok, Tok]] | None:
    """The distinct value changes between two lines of one skeleton (None when the
    skeletons differ after all)."""
    if len(ta) != len(tb) or any(x.skel != y.skel for x, y in zip(ta, tb, strict=True)):
        return None
    out: dict[tuple[str, str], tuple[Tok, Tok]] = {}
    for x, y in zip(ta, tb, strict=True):
        if differs(x, y):
            if x.value.removeprefix("~~") == y.value.removeprefix("~~"):
                out.setdefault(("~~", ""), (x, y))  # a struck run is one change, however long
            else:
                out.setdefault((x.value, y.value), (x, y))
    return list(out.values())


def _context_words(toks: Sequence[Tok], changed: set[int]) -> int:
    """How much a line says besides its values: its content words, CJK characters at half
    weight (two characters make about one word)."""
    latin = cjk = 0
    for i, t in enumerate(toks):
        if i in changed or t.kind != "word" or t.skel in _STOP or t.skel in _META:
            continue
        if len(t.skel) == 1 and ord(t.skel) >= 0x3040:
            cjk += 1
        elif len(t.skel) > 1:
            latin += 1
    return latin + cjk // 2


_NAMING = ("id", "code", "number", "date")
# Words after which a number names a thing (order 1048576, ticket 123, 第 3 集), not a value.
_NAMING_NOUNS = frozenset(
    "id ids no nr num number ticket tickets issue issues pr prs mr commit sha hash order orders "
    "invoice account uid pid run build job session step phase sprint part chapter episode item "
    "case task story epic row page room lab 第 工 单 号".split()
)


def _named_by_number(ta: Sequence[Tok], tb: Sequence[Tok]) -> bool:
    """Whether a changed number follows a word that makes it a name (``order 1048576``)."""
    for i, (x, y) in enumerate(zip(ta, tb, strict=True)):
        if x.kind == "number" and x.value != y.value and i and ta[i - 1].skel in _NAMING_NOUNS:
            return True
    return False


# Units a number is measured in: "30 seconds" is a setting's value, not a count of things.
_UNITS = frozenset(
    "ms millis milliseconds sec secs seconds min mins minutes hours hrs days weeks months "
    "years bytes kb mb gb tb kib mib gib px pt em rem percent fps rpm qps rps".split()
)


def _counts(ta: Sequence[Tok], tb: Sequence[Tok]) -> bool:
    """Whether a changed number counts things (``42 tests``, ``3 open issues``): a count
    written at two times is two facts, not two opinions."""
    for i, (x, y) in enumerate(zip(ta, tb, strict=True)):
        if x.kind != "number" or x.value == y.value or i + 1 >= len(ta):
            continue
        after = ta[i + 1]
        if after.kind == "word" and after.value.isalpha() and len(after.value) > 3 \
                and after.value.endswith("s") and after.value not in _UNITS:
            return True
    return False


def _parallel(ta: list[Tok], tb: list[Tok]) -> bool:
    """Two names or headings for two instances of one thing: the same words but for
    numbers, dates, identifiers or single letters (``Lab A``/``Lab B``, ``S17``/``S18``)."""
    if not ta or len(ta) != len(tb) or ta == tb:
        return False
    pairs = list(zip(ta, tb, strict=True))
    if not any(x.value == y.value and x.kind == "word" for x, y in pairs):
        return False
    return all(
        x.value == y.value or x.kind in _NAMING or y.kind in _NAMING
        or (len(x.value) == 1 and len(y.value) == 1)
        for x, y in pairs
    )


def _enough(kinds: set[str], words: int, overlap: float) -> bool:
    """Whether the shared context suffices for this kind of change (see the module doc)."""
    if kinds <= _STRONG:
        return words >= 3 or (words >= 1 and overlap >= 0.12)
    if kinds & {"date", "name"}:
        return (words >= 3 and overlap >= 0.1) or (words >= 2 and overlap >= 0.25)
    return ((words >= 3 and overlap >= 0.05) or (words >= 2 and overlap >= 0.15)
            or (words >= 1 and overlap >= 0.3))


def _judge(a: Written, b: Written, ctx: Subjects) -> tuple[tuple[int, int, int], Conflict] | None:
    """A conflict between two lines (or two clauses of them) of one skeleton, with its
    strength; None if they do not disagree about one subject."""
    if a.text == b.text or exact_line(a.text) == exact_line(b.text):
        return None  # the same line, symbol for symbol: most shared lines end here, cheaply
    if _parallel(ctx.name(a.file), ctx.name(b.file)) and not ctx.same_description(a.file, b.file):
        return None  # lab_a / lab_b, session_17 / session_18: unless both say they are one subject
    if a.heading and b.heading and _parallel(tokens(a.heading), tokens(b.heading)):
        return None
    if _each_its_own(a, b, ctx):
        return None
    ta, tb = _line_tokens(a.text), _line_tokens(b.text)
    if len(ta) == len(tb):
        judged = _judge_tokens(a, b, ta, tb, ctx)
        if judged is not None or all(x.skel == y.skel for x, y in zip(ta, tb, strict=True)):
            return judged
    # A claim followed by a remark ("port 6432 (moved to pgbouncer)"): clause by clause.
    clauses_b = _clauses(b.text)
    for ca in _clauses(a.text):
        for cb in clauses_b:
            if len(cb) == len(ca) and ca[0].skel == cb[0].skel:
                judged = _judge_tokens(a, b, ca, cb, ctx)
                if judged is not None:
                    return judged
    return None


_WORD = re.compile(r"[^\W_]{3,}")


def _each_its_own(a: Written, b: Written, ctx: Subjects) -> bool:
    """Whether each line names its own memory's subject, outside a remark in brackets: a word
    of its file name that neither the other's name nor the other line has (two cron jobs'
    times, each line naming its job's own history folder). Two things, each with its value,
    not two opinions on one."""
    name_a = {t.value.casefold() for t in ctx.name(a.file)}
    name_b = {t.value.casefold() for t in ctx.name(b.file)}
    own_a = {w for w in name_a - name_b if _WORD.fullmatch(w)}
    own_b = {w for w in name_b - name_a if _WORD.fullmatch(w)}
    if not own_a or not own_b:
        return False
    words_a, words_b = _claim_words(a.text), _claim_words(b.text)
    return bool(own_a & words_a - words_b) and bool(own_b & words_b - words_a)


_REMARK = re.compile(r"\([^()\n]*\)|（[^（）\n]*）")


def _claim_words(text: str) -> set[str]:
    """The words of a line outside its remarks in brackets ("port 6432 (through pgbouncer)":
    the remark says why, the claim is about the port)."""
    return set(_WORD.findall(_REMARK.sub(" ", text).casefold()))


@lru_cache(maxsize=4096)
def _line_tokens(text: str) -> tuple[Tok, ...]:
    """A line's value tokens (a line meets many others: each is read once)."""
    return tuple(tokens(text))


@lru_cache(maxsize=4096)
def _clauses(text: str) -> tuple[tuple[Tok, ...], ...]:
    """The value tokens of each clause of a line long enough to be a claim."""
    parts = (tuple(tokens(part)) for part in _CLAUSE.split(text))
    return tuple(part for part in parts if len(part) >= MIN_LINE_TOKENS)


def _both_past(changes: Sequence[tuple[Tok, Tok]], a: Written, b: Written,
               ctx: Subjects) -> bool:
    """Whether every changed date is a day up to the one its memory was written on: each
    memory telling when something had happened."""
    days = [clock.local(ctx.memory(f).written_ns).date() for f in (a.file, b.file)]
    for pair in changes:
        for tok, written in zip(pair, days, strict=True):
            try:
                day = date(*(int(n) for n in tok.value.removeprefix("~~").split("-")))
            except (TypeError, ValueError):
                return False  # no year, or no day: not known to be past
            if day > written:
                return False
    return True


def _judge_tokens(
    a: Written, b: Written, ta: Sequence[Tok], tb: Sequence[Tok], ctx: Subjects
) -> tuple[tuple[int, int, int], Conflict] | None:
    """The conflict two aligned token runs (whole lines or clauses) make, if any."""
    changes = _changes(ta, tb)
    if not changes or len(changes) > MAX_CHANGES:
        return None
    kinds = {diff_kind(x, y) for x, y in changes}
    if "id" in kinds or _named_by_number(ta, tb) or _counts(ta, tb):
        return None
    if any(x.value in ctx.own(a.file) or y.value in ctx.own(b.file) for x, y in changes
           if x.kind in _NAMING):
        return None
    if ("code" in kinds or kinds == {"date"} and _both_past(changes, a, b, ctx)) \
            and not ctx.related(a.file, b.file):
        # "s17" / "s18" name things, and two days before either memory was written say when
        # each one's own thing happened ("built on 1 Oct" / "built on 2 Oct"), unless both
        # memories are about one subject (a plan's two days are a conflict either way)
        return None
    # The words of a struck-through claim are its context, not its values.
    changed = {i for i, (x, y) in enumerate(zip(ta, tb, strict=True)) if differs(x, y)
               and x.value.removeprefix("~~") != y.value.removeprefix("~~")}
    words = _context_words(ta, changed)
    overlap = ctx.overlap(a.file, b.file)
    if ctx.related(a.file, b.file):
        overlap = max(overlap, RELATED)  # named for one subject: as good as shared words
    if not _enough(kinds, words, overlap):
        return None
    # The best evidence: a known alternative, then a plain value rather than a path or URL
    # that holds it, then the line that says most.
    strength = (int(kinds <= _STRONG), int("name" not in kinds), words)
    return strength, _conflict(a, b, changes, kinds, overlap, ctx)


def _conflict(
    a: Written, b: Written, changes: list[tuple[Tok, Tok]], kinds: set[str], overlap: float,
    ctx: Subjects,
) -> Conflict:
    """The Conflict value: files in order, the newer one, the reason and both lines."""
    if a.file > b.file:
        a, b = b, a
        changes = [(y, x) for x, y in changes]
    ma, mb = ctx.memory(a.file), ctx.memory(b.file)
    newer, same_age, by_text = newer_of(ma, mb)
    if kinds == {"struck"}:
        claim = " ".join(word_tokens(a.text.replace("~~", "")))
        struck, plain = (a, b) if any(x.value.startswith("~~") for x, _ in changes) else (b, a)
        reason = f"{struck.file} strikes through {claim!r}, which {plain.file} still states"
    else:
        va = " ".join(x.value for x, _ in changes)
        vb = " ".join(y.value for _, y in changes)
        reason = f"{a.file} says {va!r} where {b.file} says {vb!r}"
    return Conflict((a.file, b.file), newer, round(overlap, 3), reason, (a.text, b.text),
                    same_age=same_age, newer_by_text=by_text)
