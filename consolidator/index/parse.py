"""Reading MEMORY.md into classified lines, every real shape included.

Pointer lines are list items that start with a link to a local ``.md`` file:
``- [Title](file.md) — hook``, ``- **[x](x.md)** — …``, ``* [x](x.md); hook``, ``1. [x](x.md): …``,
or with a wiki link to a memory: ``- [[name]] — hook``.
Headings, blank lines, tables and hand-written text (which may link to memories inside a
sentence) are kept as they are. What a link is, and which file it names, is
:mod:`consolidator.store.links`; its names are importable from here too. Which memory a
``[[name]]`` names is :mod:`consolidator.detect.links`, as in memory bodies.

Every pattern here runs in time linear in its text, however hostile (a heading padded with
spaces): a pointer's start is matched only at the start of a line, and a heading's closing
``#`` run and spaces are cut in Python, not by a lazy pattern.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from consolidator.detect.links import wiki_target, wiki_title
from consolidator.store.links import (
    LINK_RE,
    WIKI_RE,
    link_matches,
    link_path,
    local_target,
    relink,
    resolve_link,
    retarget,
    unlink,
    wiki_matches,
)
from consolidator.store.model import Memory

__all__ = [
    "LINK_RE",
    "SEPARATOR_ROW",
    "WIKI_RE",
    "IndexLine",
    "Names",
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
# A table's separator row, under its header ("|---|:-:|", "--- | ---").
SEPARATOR_ROW = re.compile(r"\s*\|?(?:\s*:?-+:?\s*\|)+(?:\s*:?-+:?\s*)?$")
_HEADING = re.compile(r"(#{1,6})\s")  # the title: see heading_title
_SEPARATORS = (" — ", " – ", " -- ", " - ", ": ", "; ", " | ")


@dataclass(frozen=True, slots=True)
class IndexLine:
    """One line of MEMORY.md, without its line ending."""

    text: str
    kind: str  # "heading", "pointer", "table", "blank" or "text"
    targets: tuple[str, ...] = ()  # root-relative memory files this line links to
    level: int = 0  # heading level
    listed: bool = False  # a pointer line of links alone ("[A](a.md) · [B](b.md)")

    @property
    def target(self) -> str | None:
        """A pointer line's memory file."""
        return self.targets[0] if self.kind == "pointer" and self.targets else None

    @property
    def pointers(self) -> tuple[str, ...]:
        """The memory files a pointer line points to: its first link's, or every link's in a
        line of links alone (each one a pointer); none for any other line."""
        if self.kind != "pointer" or not self.targets:
            return ()
        return self.targets if self.listed else self.targets[:1]

    @property
    def heading_text(self) -> str:
        match = _HEADING.match(self.text)
        return heading_title(self.text[match.end():]) if match else ""


def heading_title(rest: str) -> str:
    """A heading's title from what follows its ``#`` run: without the spaces around it and an
    optional closing ``#`` run (``## Notes ##`` -> ``Notes``)."""
    return rest.strip().rstrip("#").rstrip()


Names = Mapping[str, Memory]  # what a [[key]] may name: see consolidator.detect.links


# What may stand between the links of a line of links: a bullet, separators, emphasis.
_BETWEEN_LINKS = re.compile(r"[\s\-*+_·•|,;/–—]*(?:\d+[.)])?[\s\-*+_·•|,;/–—]*")


def _links_alone(text: str) -> bool:
    """Whether ``text`` holds nothing but links, a bullet and separators."""
    rest = WIKI_RE.sub(" ", LINK_RE.sub(" ", text)) if "[[" in text else LINK_RE.sub(" ", text)
    return _BETWEEN_LINKS.fullmatch(rest) is not None


def _link_targets(text: str, names: Names) -> list[tuple[int, str]]:
    """(position, file) of every link in ``text`` to a local memory file, Markdown (inline, or
    a reference definition: "[b]: b.md") and wiki; a ``[[key]]`` inside a Markdown link's
    text is part of that link."""
    found = [(m.start(), t) for m in link_matches(text)
             if (t := local_target(m.group(2))) is not None]
    if "[[" in text:
        spans = [m.span() for m in LINK_RE.finditer(text)] if found else []
        found += [(m.start(), t) for m in wiki_matches(text)
                  if not any(a <= m.start() < b for a, b in spans)
                  and (t := wiki_target(m.group(1), names)) is not None]
        found.sort()
    return found


def _first_link(text: str, at: int) -> re.Match[str] | None:
    """The first Markdown or wiki link from ``at`` on (a Markdown link where both start)."""
    link = LINK_RE.search(text, at)
    wiki = WIKI_RE.search(text, at) if "[[" in text else None
    if wiki is not None and (link is None or wiki.start() < link.start()):
        return wiki
    return link


def classify(text: str, names: Names | None = None) -> IndexLine:
    """Classify one line; ``names``: the memories a ``[[key]]`` may name by name or stem
    (a key that names none of them names ``key.md``)."""
    if not text.strip():
        return IndexLine(text, "blank")
    found = _link_targets(text, names or {})
    targets = tuple(t for _at, t in found)
    heading = _HEADING.match(text)
    if heading:  # its links are links like a sentence's ("### [Deploy](deploy.md)")
        return IndexLine(text, "heading", targets, level=len(heading.group(1)))
    if text.lstrip().startswith("|"):
        return IndexLine(text, "table", targets)
    start = _POINTER_START.match(text)
    if start and found and found[0][0] == start.end() - 1:
        return IndexLine(text, "pointer", targets, listed=len(found) > 1 and _links_alone(text))
    return IndexLine(text, "text", targets)


def parse_index(text: str, names: Names | None = None) -> list[IndexLine]:
    """Split MEMORY.md text (any line endings) into classified lines (``names``: as for
    :func:`classify`)."""
    if not text:
        return []
    body = text.removesuffix("\n")
    return [classify(line.rstrip("\r"), names) for line in body.split("\n")]


def split_pointer(text: str) -> tuple[str, str, str]:
    """Split a pointer line into (link part, separator, hook); the hook may be empty."""
    start = _POINTER_START.match(text)
    link = _first_link(text, start.end() - 1 if start else 0)
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
    """The text of a line's first link (a wiki link's alias, else its key)."""
    match = _first_link(text, 0)
    if match is None:
        return ""
    return match.group(1) if match.re is LINK_RE else wiki_title(match)
