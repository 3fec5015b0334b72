"""The index against its memories: a hook that says to do what the memory says not to.

``cancel Hetzner by 2026-05-25`` in the index, ``Do NOT cancel Hetzner`` in the memory: the
memory was brought up to date and its line in the index was not, so every session reads the
old decision. Which side is right the text does not say, so this only warns, as a count that
differs does (:mod:`consolidator.detect.conflicts.hooks`).

The memory negates a phrase ("do not", "don't", "never", "must not", "no longer" before it;
not a bare "not", which negates a noun as often: "this is not production data") of at least
two words, one of them a content word of four letters or more, cut at
the first punctuation; the hook writes the whole phrase without a negation before it, and the
memory never writes it without one (a memory that says both, "we used to cancel X; do not
cancel X now", tells of the change). English only: where other languages put their negation
(after the verb, or around it) no word-for-word reading of ours is sure of it.
"""

from __future__ import annotations

import re

MAX_PHRASES = 200  # negated phrases of one memory looked at: enough for any memory
_NEGATED = re.compile(
    r"(?<![\w'’])(?:do not|don'?t|does not|doesn'?t|never|must not|mustn'?t|should not"
    r"|shouldn'?t|no longer|cannot|can'?t|won'?t|will not)[ \t]+"
    r"([A-Za-z][\w-]{0,40}(?:[ \t]+[A-Za-z0-9][\w./-]{0,40}){1,3})",
    re.IGNORECASE,
)
# What a negation ends with, right before a phrase: the phrase is negated there too.
_NEGATION_BEFORE = re.compile(r"(?:\bnot|n'?t|\bnever|\bno longer|\bcannot)[ \t]*$")
_PUNCTUATION = ".,;:!?)]}\"'’”"
_WORD = re.compile(r"\S+")
# Words that make no phrase of their own: "not be", "never the", "do not have to".
_STOP = frozenset({
    "a", "all", "also", "always", "an", "and", "any", "are", "as", "at", "be", "been", "by",
    "even", "ever", "every", "for", "from", "get", "had", "has", "have", "how", "in", "is",
    "it", "just", "more", "much", "need", "of", "on", "only", "or", "so", "that", "the",
    "there", "this", "to", "too", "very", "want", "was", "were", "what", "when", "with", "yet",
})


def negated_phrases(text: str) -> list[tuple[str, str]]:
    """(phrase in lower case, as written with its negation) of each negated phrase."""
    out: list[tuple[str, str]] = []
    for match in _NEGATED.finditer(text):
        words: list[str] = []
        ends: list[int] = []  # where each word ends in ``text``
        for word in _WORD.finditer(text, match.start(1), match.end(1)):
            bare = word.group(0).rstrip(_PUNCTUATION)
            words.append(bare.lower())
            ends.append(word.start() + len(bare))
            if len(bare) < len(word.group(0)):
                break
        while len(words) > 2 and words[-1] in _STOP:
            words.pop()
        if len(words) >= 2 and words[0] not in _STOP \
                and any(len(w) >= 4 and w not in _STOP for w in words):
            out.append((" ".join(words), text[match.start() : ends[len(words) - 1]]))
        if len(out) >= MAX_PHRASES:
            break
    return out


def flat(text: str) -> str:
    """``text`` in lower case, its words spaced once (how phrases are compared)."""
    return " ".join(text.lower().split())


def says_plainly(flat_text: str, phrase: str) -> bool:
    """Whether ``flat_text`` (see :func:`flat`) writes ``phrase`` with no negation right
    before it."""
    for match in re.finditer(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", flat_text):
        if not _NEGATION_BEFORE.search(flat_text, max(0, match.start() - 14), match.start()):
            return True
    return False


def negated_hook(hook: str, text: str) -> tuple[str, str] | None:
    """The phrase ``hook`` says to do and the memory's ``text`` says not to, as each writes
    it, or None. (The memory's whole text is read again only for a phrase the hook says.)"""
    if not hook.strip():
        return None
    flat_hook = flat(hook)
    candidates: dict[str, str] = {}  # each phrase once, as first written
    for phrase, said in negated_phrases(text):
        if phrase not in candidates and says_plainly(flat_hook, phrase):
            candidates[phrase] = said
    if not candidates:
        return None
    flat_text = flat(text)
    return next(((phrase, said) for phrase, said in candidates.items()
                 if not says_plainly(flat_text, phrase)), None)
