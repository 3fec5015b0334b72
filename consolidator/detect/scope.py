"""Where a line stands in a memory: in the part that speaks for the whole memory, or in a part.

Only a memory's head speaks for all of it: its title (the first line) and the lead paragraph
right under the title (or the first paragraph, when there is no title). A first line that is a
sub-heading with sibling sections after it is one section's heading, not a title. A
sub-heading, a table row, a list item further down, a quotation or a code block speaks for a
part only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from consolidator.store.codespans import fence_kinds

HEAD_LINES = 6  # a lead paragraph longer than this is a body, not a head

# "- Status: superseded", "* **Date:** 2026-03-01": the metadata list some memories open with.
_META_ITEM = re.compile(r"[-*+]\s+\**[^\W\d][\w ]{0,20}\**\s*[:：]")
_LIST = re.compile(r"(?:[-*+]|\d{1,3}[.)])\s")
# Inline code and quotations: what they hold is someone else's words, output or an example.
# Each alternative is one delimiter pair around a run of characters that are not the closer.
_QUOTED = re.compile(
    r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」|『[^』\n]*』|(?<!\w)'[^'\n]{0,200}'(?!\w)"
)


@dataclass(frozen=True, slots=True)
class Line:
    """One non-empty line of a body, stripped, with its place."""

    number: int  # index among the body's lines (``body.splitlines()``)
    text: str
    kind: str  # "heading", "table", "list", "quote", "code" or "text"
    head: bool  # the title or the lead paragraph: speaks for the whole memory
    section: str  # the nearest heading above it, "" at the top


def _kind(text: str) -> str:
    """The kind of one stripped line outside code fences."""
    first = text[0]
    if first == "#" and text.lstrip("#")[:1] in (" ", "\t", ""):
        return "heading"
    if first == "|":
        return "table"
    if first == ">":
        return "quote"
    if (first in "-*+" or first.isdigit()) and _LIST.match(text):
        return "list"
    return "text"


def outline(body: str) -> list[Line]:
    """The body's non-empty lines with their kind, section and whether they are the head."""
    out: list[Line] = []
    section = ""
    # The head: the first line, then (after a title, or as its continuation) one paragraph.
    head_state = "start"  # "start" -> "after-title" | "lead" -> "done"
    head_count = 0
    lines = body.splitlines()
    for (number, raw), code in zip(enumerate(lines), fence_kinds(lines), strict=True):
        text = raw.strip()
        if code:
            if code == "fence":
                head_state = "done"
            if text:
                out.append(Line(number, text, "code", False, section))
            continue
        if not text:
            if head_state == "lead":
                head_state = "done"
            continue
        kind = _kind(text)
        head = False
        if head_state == "start":
            head = True
            head_state = "after-title" if kind == "heading" else "lead"
        elif head_state in ("after-title", "lead") and head_count < HEAD_LINES and (
            kind == "text" or (kind == "list" and _META_ITEM.match(text))
        ):
            head = True
            head_state = "lead"
        else:
            head_state = "done"
        head_count += head
        if kind == "heading":
            section = text
        out.append(Line(number, text, kind, head, section))
    if _opens_with_a_section(out):
        out = [Line(n.number, n.text, n.kind, False, n.section) for n in out]
    return out


def _level(text: str) -> int:
    return len(text) - len(text.lstrip("#"))


def _opens_with_a_section(lines: list[Line]) -> bool:
    """Whether the first line is a sub-heading over one section among others (``## Done (this
    session)`` then ``## To decide``), not a title: then nothing speaks for the whole memory."""
    if not lines or lines[0].kind != "heading" or _level(lines[0].text) < 2:
        return False
    level = _level(lines[0].text)
    return any(line.kind == "heading" and _level(line.text) <= level for line in lines[1:])


def unquoted(text: str) -> str:
    """``text`` with inline code and quotations blanked out (same length, same offsets)."""
    if not any(mark in text for mark in "`\"“「『'"):
        return text
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), text)


def bare(text: str) -> str:
    """A line without its Markdown lead-in (heading marks, bullet, checkbox, emphasis)."""
    text = text.lstrip("#>").strip()
    if _LIST.match(text):
        text = text.split(None, 1)[1] if " " in text else ""
    if text.startswith(("[ ]", "[x]", "[X]")):
        text = text[3:].lstrip()
    return text.strip().strip("*_").strip()
