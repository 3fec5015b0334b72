"""Notes with no frontmatter that say what a memory says, or what another such note says.

A file with no frontmatter (a note written by hand, one another tool keeps, a memory whose
fields are bold labels) is no memory and is never changed. Where the index links it, every
session may read it all the same, and a point made there and again in a memory is the same
rot as two memories making it. Such notes are compared as memories are (see
:func:`consolidator.detect.overlap.similar.find_similar`) and the pairs with one are reported,
never merged. Not compared: a dated note (a day's log records what a memory may hold as a
rule, which is no copy of it), a note that lists other notes (an index of its own), and a
folder of more notes than a person keeps by hand (logs a tool writes).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Container, Iterable, Iterator
from datetime import date
from itertools import islice

from consolidator.detect.dates.anchors import name_day
from consolidator.detect.findings import Similar
from consolidator.detect.overlap.similar import find_similar
from consolidator.detect.text import normal_line, normal_set
from consolidator.store.frontmatter import Document
from consolidator.store.links import link_matches, wiki_matches
from consolidator.store.model import Memory, Unparsed

MAX_NOTES = 40  # notes compared in one root; more is a folder of logs, not notes by hand
MAX_LINKS = 3  # links a note holds from which on it lists other notes
# Matching lines a pair with a note is reported on: a note keeps no fields to say what it
# is about, and one line alike is as often a template's (a "how to update this file" line
# atop each of a folder's notes) as one point made twice.
MIN_LINES = 2
TEMPLATE = 3  # files holding one line as written, from which on it is a template's


def comparable(file: Unparsed, text: str, today: date) -> Memory | None:
    """The note as a memory of no fields, to be compared (never written), or ``None`` where
    it is not compared: its file name dated, or its text a list of links."""
    if file.stat is None or name_day(file.rel, today) is not None:
        return None
    if len(list(islice(_note_links(text), MAX_LINKS))) >= MAX_LINKS:
        return None
    return Memory(file.stat, Document(bom=False, head="", body=text, fields={}, spans={},
                                      reader="lines"))


def _note_links(text: str) -> Iterator[str]:
    """The targets of the links in ``text`` to a Markdown note (``[a](a.md)``, ``[[a]]``)."""
    for match in link_matches(text):
        target = match.group(2).strip("<>").split("#", 1)[0]
        if target.casefold().endswith(".md"):
            yield target
    yield from (match.group(1) for match in wiki_matches(text))


class _WithNote:
    """The pairs a search for similar notes skips: those in ``skip``, and every pair of two
    memories (each has been compared already)."""

    def __init__(self, notes: set[str], skip: Container[frozenset[str]]) -> None:
        self.notes = notes
        self.skip = skip

    def __contains__(self, pair: object) -> bool:
        return not (isinstance(pair, frozenset) and pair & self.notes) or pair in self.skip


def similar_notes(live: Iterable[Memory], notes: list[Memory],
                  skip: Container[frozenset[str]]) -> list[Similar]:
    """The pairs of a note and a memory, or of two notes, that say much the same thing on
    ``MIN_LINES`` lines or more, with those lines; none where the notes are more than
    ``MAX_NOTES``. A line three files or more hold as written is a template's (a header atop
    each note), and no evidence of one point made twice."""
    if not notes or len(notes) > MAX_NOTES:
        return []
    files = {n.file for n in notes}
    memories = [*live, *notes]
    found = [s for s in find_similar(memories, _WithNote(files, skip)) if files & set(s.files)]
    if not found:
        return []
    held = Counter(line for memory in memories for line in normal_set(memory.body))
    out = []
    for pair in found:
        lines = tuple((a, b) for a, b in pair.lines
                      if held[normal_line(a)] < TEMPLATE and held[normal_line(b)] < TEMPLATE)
        if len(lines) >= MIN_LINES:
            out.append(dataclasses.replace(pair, lines=lines))
    return out
