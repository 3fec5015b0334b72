"""Reading MEMORY.md into classified lines, every real shape included.

Pointer lines are list items that start with a link to a local ``.md`` file:
``- [Title](file.md) — hook``, ``- **[x](x.md)** — …``, ``* [x](x.md); hook``, ``1. [x](x.md): …``.
Headings, blank lines, tables and hand-written text (which may link to memories inside a
sentence) are kept as they are. What a link is, and which file it names, is
:mod:`consolidator.store.links`; its names are importable from here too.

Every pattern here runs in time linear in its text, however hostile (a heading padded with
spaces): a pointer's start is matched only at the start of a line, and a heading's closing
``#`` run and spaces are cut in Python, not by a lazy pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from consolidator.store.links import (
    LINK_RE,
    WIKI_RE,
    link_path,
    local_target,
    relink,
    resolve_link,
    retarget,
    unlink,
)

__all__ = [
    "LINK_RE",
    "WIKI_RE",
    "IndexLine",
    "classify",
    "heading_title",
    "link_path",
    "link_title",
    "local_target",
    "parse_index",
    "relink",
    "resolve_link",
    "retarget",
    "split_pointer",
    "unlink",
]

_POINTER_START = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+(?:\*\*|__|\*|_)?)\[")
_HEADING = re.compile(r"(#{1,6})\s")  # the title: see heading_title
_SEPARATORS = (" — ", " – ", " -- ", " - ", ": ", "; ", " | ")


@dataclass(frozen=True, slots=True)
class IndexLine:
    """One line of MEMORY.md, without its line ending."""

    text: str
    kind: str  # "heading", "pointer", "table", "blank" or "text"
    targets: tuple[str, ...] = ()  # root-relative memory files this line links to
    level: int = 0  # heading level

    @property
    def target(self) -> str | None:
        """A pointer line's memory file."""
        return self.targets[0] if self.kind == "pointer" and self.targets else None

    @property
    def heading_text(self) -> str:
        match = _HEADING.match(self.text)
        return heading_title(self.text[match.end():]) if match else ""


def heading_title(rest: str) -> str:
    """A heading's title from what follows its ``#`` run: without the spaces around it and an
    optional closing ``#`` run (``## Notes ##`` -> ``Notes``)."""
    return rest.strip().rstrip("#").rstrip()


def classify(text: str) -> IndexLine:
    """Classify one line."""
    if not text.strip():
        return IndexLine(text, "blank")
    heading = _HEADING.match(text)
    if heading:
        return IndexLine(text, "heading", level=len(heading.group(1)))
    targets = tuple(
        t for t in (local_target(m.group(2)) for m in LINK_RE.finditer(text)) if t is not None
    )
    if text.lstrip().startswith("|"):
        return IndexLine(text, "table", targets)
    start = _POINTER_START.match(text)
    if start and targets:
        first = LINK_RE.search(text, start.end() - 1)
        if first and first.start() == start.end() - 1 and local_target(first.group(2)):
            return IndexLine(text, "pointer", targets)
    return IndexLine(text, "text", targets)


def parse_index(text: str) -> list[IndexLine]:
    """Split MEMORY.md text (any line endings) into classified lines."""
    if not text:
        return []
    body = text.removesuffix("\n")
    return [classify(line.rstrip("\r")) for line in body.split("\n")]


def split_pointer(text: str) -> tuple[str, str, str]:
    """Split a pointer line into (link part, separator, hook); the hook may be empty."""
    start = _POINTER_START.match(text)
    link = LINK_RE.search(text, start.end() - 1 if start else 0)
    if link is None:
        return text, "", ""
    end = link.end()
    for closer in ("**", "__", "*", "_"):
        if start and start.group(1).rstrip().endswith(closer) and text.startswith(closer, end):
            end += len(closer)
            break
    rest = text[end:]
    for sep in _SEPARATORS:
        if rest.startswith(sep):
            return text[:end], sep, rest[len(sep) :]
    return text[:end], "", rest


def link_title(text: str) -> str:
    """The text of a line's first link."""
    match = LINK_RE.search(text)
    return match.group(1) if match else ""
