"""What a memory already says, word for word: the test an index line must pass before it
leaves ``MEMORY.md`` as "already said" (the fitter's cut text, a dead pointer's words).

Two texts say the same only where they hold the same words in the same order; a cut counts as
said by a memory only as a whole sentence of it, or from right after the word that stood
before the cut to a sentence's end. Markdown's dress (emphasis, brackets, bullets, the
punctuation a word ends on) is not a word; a sign, an operator, a strike-through, a quote and
code are, code in its own case.
"""

from __future__ import annotations

import re
from functools import lru_cache

from consolidator.store.codespans import code_spans
from consolidator.store.model import Memory

# What dresses words without changing them: emphasis around them (CommonMark's flanking
# delimiter runs: "**bold**", "_it_", never the "_" of `_save`, `__init__.py` or the "*" of
# `*args`), brackets and typographic quotes around a word, the punctuation a word ends on;
# what only separates words; and what ends a sentence (a cut counts as said only as a whole
# sentence, or from the word that stood before it to a sentence's end: "never deploy on
# fridays" does not say "deploy on fridays", nor "git reset --hard" "git reset").
_EMPHASIS = re.compile(r"(?<![\w*.])(\*\*|\*|__|_)(?=\S)(.{1,200}?)(?<=\S)\1(?![\w*.])")
_BRACKETS = "()[]{}“”‘’«»「」『』（）"
_ENDS = ".,;:!?。，；：！？"
_STOPS = ".!?。！？"
_SEPARATORS = frozenset({"—", "–", "|"})
_BULLET = frozenset({"-", "*", "+", ">"})  # a list item's or a quote's mark, opening a line
BOUNDARY = "¶"  # where a sentence or a block starts or ends, in a memory's said text


def _word(token: str) -> tuple[str, bool]:
    """``token`` without the brackets, quotes and end punctuation around it (a token of
    signs alone, ``!=``, stays whole), and whether it ends a sentence."""
    word = token.strip(_BRACKETS)
    if not any(c.isalnum() for c in word):
        return word, False
    bare = word.rstrip(_ENDS)
    return bare, bare != word and word[-1] in _STOPS


def _tokens(line: str) -> list[str]:
    """The tokens of one line: prose lower-cased without emphasis; code as written, each of
    its tokens marked with a leading NUL (its case and every mark count)."""
    out: list[str] = []
    at = 0
    for a, b in code_spans(line) if "`" in line else ():
        out += _plain(line[at:a]).casefold().split()
        out += [f"\0{w}" for w in line[a:b].strip("`").split()]
        at = b
    return out + _plain(line[at:]).casefold().split()


def _words(text: str, stops: bool) -> list[str]:
    """The words of ``text`` (see :func:`said_form`); ``stops``: with ``BOUNDARY`` where a
    block starts (its first line, a line after a blank one, a list item) and after each
    sentence."""
    out: list[str] = []
    block = True  # the next line starts a block (the first, or one after a blank line)
    for line in text.splitlines():
        if not line.strip():
            block = True
            continue
        tokens = _tokens(line)
        if tokens and tokens[0] in _BULLET:
            tokens = tokens[1:]
            block = True
        if stops and block and (not out or out[-1] != BOUNDARY):
            out.append(BOUNDARY)
        block = False
        for token in tokens:
            if token.startswith("\0"):
                out.append(token[1:])
                continue
            word, ends = _word(token)
            if word and word not in _SEPARATORS:
                out.append(word)
            if ends and stops and out[-1] != BOUNDARY:
                out.append(BOUNDARY)
    return out


def _plain(text: str) -> str:
    """``text`` with emphasis taken off its words (nested two deep)."""
    for _ in range(2):
        text = _EMPHASIS.sub(r"\2", text)
    return text


@lru_cache(maxsize=4096)
def said_form(text: str) -> str:
    """``text`` as words in their order, lower-cased, without emphasis, brackets, quotes,
    bullets or the punctuation a word ends on: two texts with one form say the same words in
    the same order. A sign, an operator, a strike-through and code stay (``-5`` is not
    ``+5``, ``!=`` is not ``=``, ``~~x~~`` is not ``x``, `` `_save` `` is not ``save``)."""
    return " ".join(_words(text, stops=False))


@lru_cache(maxsize=512)
def _said_in(name: str, description: str, body: str) -> str:
    """Everything a memory says, as one run of words with ``BOUNDARY`` where each block and
    each sentence starts (a sentence wrapped over two lines reads on)."""
    return " ".join(["", *_words(name, True), *_words(description, True),
                     *_words(body, True), BOUNDARY, ""])


def says(memory: Memory, text: str, before: str = "") -> bool:
    """True when ``memory`` already says ``text``: its words, in their order, stand together
    in the memory's name, description or body (the same words in another order may say the
    opposite: "staging first, never prod" is not "prod first, never staging"), as a whole
    sentence, or, for the tail of a longer text, from right after the word ``before`` ends
    on to a sentence's end ("never deploy on fridays" does not say "deploy on fridays", nor
    "git reset --hard" "git reset")."""
    form = said_form(text)
    if not form:
        return True
    left = _words(before, stops=True)
    start = left[-1] if left else BOUNDARY
    said = _said_in(memory.name, memory.description, memory.body)
    return f" {start} {form} {BOUNDARY} " in said
