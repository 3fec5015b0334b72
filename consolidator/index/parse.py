"""Reading MEMORY.md into classified lines, every real shape included.

Pointer lines are list items that start with a link to a local ``.md`` file:
``- [Title](file.md) — hook``, ``- **[x](x.md)** — …``, ``* [x](x.md); hook``, ``1. [x](x.md): …``.
Headings, blank lines, tables and hand-written text (which may link to memories inside a
sentence) are kept as they are.

Every pattern here runs in time linear in its text, however hostile (a line of ten thousand
``[x](``, a heading padded with spaces): a match can only start at a ``[`` that is not
escaped, and each part of a link stops at the character that could start the next one (a
link's text at the next bracket, its target at the next ``[`` or space, an angle-bracket
target at the next ``<``), so no stretch of text is scanned again from each possible start.
A heading's closing ``#`` run and spaces are cut in Python, not by a lazy pattern.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

LINK_RE = re.compile(
    r"(?<!\\)\[((?:[^\[\]\\]|\\.)*)\]\(\s*(<[^<>\n]*>|[^)\s\[]+)(\s+\"[^\"\n]*\")?\s*\)")
WIKI_RE = re.compile(r"\[\[([^\[\]|#\n]+)(?:[|#][^\[\]\n]*)?\]\]")
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


def local_target(raw: str) -> str | None:
    """The root-relative file a link target names, or ``None`` if it is not a local memory."""
    return resolve_link(raw, "")


def resolve_link(raw: str, folder: str) -> str | None:
    """The root-relative ``.md`` file that a link written in ``folder`` points at, if any."""
    target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    target = target.split("#", 1)[0].strip()
    if not target or "://" in target or target.startswith(("mailto:", "/", "\\")):
        return None
    target = unquote(target.replace("\\", "/"))
    if not target.lower().endswith(".md"):
        return None
    normal = posixpath.normpath(posixpath.join(folder, target) if folder else target)
    if normal.startswith("../") or normal == ".." or re.match(r"^[A-Za-z]:", normal):
        return None
    return normal


def relink(match: re.Match[str], new_path: str) -> str:
    """The link in ``match`` pointed at ``new_path``, keeping its text, anchor and title."""
    raw = match.group(2)
    inner = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    anchor = "#" + inner.split("#", 1)[1] if "#" in inner else ""
    title = match.group(3) or ""
    return f"[{match.group(1)}]({link_path(new_path)}{anchor}{title})"


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


def retarget(text: str, old: str, new: str) -> str:
    """Point every link in ``text`` whose local target is ``old`` at ``new``."""

    def swap(match: re.Match[str]) -> str:
        if local_target(match.group(2)) != old:
            return match.group(0)
        return relink(match, new)

    return LINK_RE.sub(swap, text)


_LINK_UNSAFE = set(" ()<>[]#%\\\"'`")


def link_path(rel: str) -> str:
    """A file name as a Markdown link target that reads back as that file name: as it is
    when it can be, in angle brackets for spaces and parentheses, else percent-encoded."""
    unsafe = {c for c in rel if c in _LINK_UNSAFE or ord(c) < 32 or ord(c) == 127}
    if not unsafe:
        return rel
    if unsafe <= {" ", "(", ")"}:
        return f"<{rel}>"
    return quote(rel, safe="/")


def unlink(text: str, targets: set[str], mark: str) -> str:
    """``text`` with every link to a file in ``targets`` turned into its plain title followed by
    ``(<file> <mark>)``, so its words stay and no link points at a file that is not there."""

    def plain(match: re.Match[str]) -> str:
        target = local_target(match.group(2))
        if target not in targets:
            return match.group(0)
        title = match.group(1).replace("\\[", "[").replace("\\]", "]").strip()
        note = f"({target} {mark})"
        return f"{title} {note}" if title else note

    return LINK_RE.sub(plain, text)
