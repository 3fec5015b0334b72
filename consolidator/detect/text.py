"""Normalised text for comparing memories in any language.

Latin-script text compares by words; Chinese, Japanese and Korean text has no spaces between
words, so every CJK character is its own token. A line's *normal form* ignores case,
whitespace, punctuation, Markdown emphasis and bullet style, so ``- Use **pnpm**.`` and
``* use pnpm`` are the same line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache

from consolidator.detect.script import CJK_LETTERS, HAN_KANA
from consolidator.store.codespans import dead_lines, fence_kinds

_BULLET = re.compile(r"^\s*(?:[-*+•·]|\d+[.)]|[a-z][.)])\s+", re.IGNORECASE)
_TOKEN = re.compile(rf"[{CJK_LETTERS}]|[^\W_{CJK_LETTERS}]+")
# ASCII text: every character but a letter or a digit (what _TOKEN finds there) is a gap; a
# newline stays itself, to cut a whole body into lines after one pass over it.
_ASCII_GAPS = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum()})
_ASCII_BODY_GAPS = str.maketrans(
    {c: (c if c == "\n" else " ") for c in map(chr, range(128)) if not c.isalnum()})
# Line breaks other than a newline (str.splitlines cuts at them too).
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")
# In ASCII text cut at newlines alone: the bullets whose removal changes a line's tokens (a
# number or a letter, "1." or "b)"; a "-" or "*" bullet is a gap anyway).
_ASCII_WORD_BULLET = re.compile(r"^[ \t\x1f]*(?:\d+|[a-z])[.)][ \t\x1f]+", re.M | re.I)


@lru_cache(maxsize=16384)
def joined_tokens(text: str) -> str:
    """The tokens of ``text`` joined by single spaces (a line's words, as one string).

    Memories repeat lines, so this is cached; one string per line keeps the cache small.
    """
    # ASCII text is its own NFKC form, its case-folding is lower-casing, and its tokens are
    # its runs of letters and digits: skip the work.
    if text.isascii():
        return " ".join(text.lower().translate(_ASCII_GAPS).split())
    return " ".join(_TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()))


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
    if body.isascii() and not any(b in body for b in _OTHER_BREAKS):
        # The whole body at once: what normal_line does to each line, in a few passes.
        text = _ASCII_WORD_BULLET.sub("", body).lower().translate(_ASCII_BODY_GAPS)
        lines = {" ".join(line.split()) for line in text.split("\n")}
        lines.discard("")
        return frozenset(lines)
    return frozenset(n for n in (normal_line(line) for line in body.splitlines()) if n)


# --- the exact form: what a merge must keep ------------------------------------------------
#
# A merge is safe only when every line of the absorbed memory stands in the survivor. The
# normal form above keeps words alone, so "-5 s" and "+5 s", "C++" and "C#", "✅" and "❌" share
# one normal line. The exact form keeps every symbol, sign, operator, currency, version range,
# emoji and strike-through, and forgets only what never changes a claim: whitespace, bullet
# style, heading marks, bold markers, letter case outside code, full- vs half-width forms,
# prose commas and clause dashes, and the punctuation that ends a sentence.

_EXACT_BULLET = re.compile(r"^(?:[-*+•·]|\d{1,3}[.)])\s+")
_EXACT_HEADING = re.compile(r"^#{1,6}\s+")
# A comma, semicolon or colon that ends a clause: followed by a space, the end, or Han/Kana
# text, or written right after Han/Kana text (Chinese and Japanese put no space after one).
_PROSE_PUNCT = re.compile(
    rf"(?<=[{HAN_KANA}])[,;:、]|[,;:、](?=\s|$|[{HAN_KANA}])"
)
# A dash standing between two clauses as a separator ("a -- b", "(x) — b"); never between
# numbers, where it is a minus or a range.
_CLAUSE_DASH = re.compile(r"(?<=[^\s\d]) +(?:--?|—|–) +(?=[^\W\d_])")
_SPACE_NEAR_HAN = re.compile(rf" (?=[{HAN_KANA}])|(?<=[{HAN_KANA}]) ")
_SENTENCE_END = ".!。！…;,:、 "
_RULE_CHARS = frozenset("-=*_|: ")
# Full-width ASCII (U+FF01-FF5E) and the ideographic space fold to their ASCII forms; the
# emoji presentation selectors and zero-width characters are dropped.
_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {
    0x3000: 0x20, 0xFE0F: None, 0xFE0E: None, 0x200B: None, 0x200D: None, 0xFEFF: None,
}


_WORD = re.compile(r"\w+")


def _fold_word(match: re.Match[str]) -> str:
    """A word case-folded where its case says nothing: letters alone, all in one case or
    capitalised ("Always", "FRIDAYS"). An identifier keeps its case (``NODE_ENV``, ``iOS``)."""
    word = match.group(0)
    if word.isalpha() and (word.islower() or word.isupper() or word.istitle()):
        return word.casefold()
    return word


def _fold_outside_code(text: str) -> str:
    """``text`` case-folded except inside inline code spans (`...`) and in words whose case is
    meaning (see :func:`_fold_word`)."""
    parts = text.split("`")
    return "`".join(p if i % 2 else _WORD.sub(_fold_word, p) for i, p in enumerate(parts))


def exact_line(line: str) -> str:
    """A prose line's exact form ('' when it says nothing: blank, a rule, a table border)."""
    text = " ".join(line.translate(_WIDTH).split())
    if not text or set(text) <= _RULE_CHARS:
        return ""
    text = _EXACT_HEADING.sub("", _EXACT_BULLET.sub("", text)).replace("**", "")
    text = _fold_outside_code(text)
    if any(c in text for c in ",;:、"):
        text = _PROSE_PUNCT.sub("", text)
    if " -" in text or " —" in text or " –" in text:
        text = _CLAUSE_DASH.sub(" ", text)
    if not text.isascii():
        text = _SPACE_NEAR_HAN.sub("", text)
    return " ".join(text.rstrip(_SENTENCE_END).split())


CODE_MARK, COMMENT_MARK = "\x00", "\x01"  # before lines of code and of HTML comments
_LABEL_END = (":", "：")


def exact_set(body: str) -> frozenset[str]:
    """The exact forms of a body's lines. Code-block lines are kept as written (right-trimmed),
    since case, indentation and every character can matter in code; they and the lines of a
    block HTML comment are marked as such (``CODE_MARK``, ``COMMENT_MARK``): a line in code
    or a comment says nothing live, and is never the same line as one in prose."""
    return frozenset(form for form, _lead in exact_lines(body))


_NUMBERED = re.compile(r"\s{0,12}\d{1,3}[.)]\s")


def numbered(body: str) -> tuple[str, ...]:
    """The exact forms of a body's numbered items ("1. Run the migrations"), in order: the
    order of steps is a claim of its own."""
    lines = body.splitlines()
    return tuple(exact_line(line) for line, code in zip(lines, fence_kinds(lines), strict=True)
                 if not code and _NUMBERED.match(line))


def dead_kinds(lines: Sequence[str]) -> Iterator[str]:
    """Per line, what of it says nothing live: ``"fence"``, ``"code"``, ``"comment"`` or
    ``""`` (see :func:`~consolidator.store.codespans.dead_lines`)."""
    return (kind for kind, _closer in dead_lines(lines))


def exact_lines(body: str) -> Iterator[tuple[str, str]]:
    """Each line's exact form (see :func:`exact_set`) with the exact form of what leads it
    in: the label line its block opens with ("Ideas we rejected:"), else the heading above
    it (not a title heading opening the body), else ``""``. A line stands for its claim only
    under what leads it in: under "Ideas we rejected:" it says the opposite."""
    lines = body.splitlines()
    heading = label = ""
    title = next((i for i, line in enumerate(lines) if line.strip()), -1)
    for at, (line, code) in enumerate(zip(lines, dead_kinds(lines), strict=True)):
        if code:
            yield (COMMENT_MARK + line.strip() if code == "comment" else
                   CODE_MARK + (line.strip() if code == "fence" else line.rstrip())), ""
            continue
        text = line.strip()
        form = exact_line(line)
        if not text:
            label = ""  # a blank line ends a block, and the label that opened it
        elif form:
            yield form, label or heading
            if _EXACT_HEADING.match(text):
                heading, label = ("" if at == title else form), ""
            elif text.rstrip("*_ ").endswith(_LABEL_END):
                label = form
