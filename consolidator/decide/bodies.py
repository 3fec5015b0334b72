"""The text of a memory an action changes: a merge's survivor (every line kept, the absorbed
memories' descriptions it does not say yet appended, the newest ``modified`` stamp), a body
rewritten under its own frontmatter, and the lines a rewrite changed, as evidence."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from consolidator.detect.overlap.duplicates import Cluster
from consolidator.detect.text import exact_line, exact_set
from consolidator.store.codespans import dead_lines
from consolidator.store.frontmatter import ParseError
from consolidator.store.model import MODIFIED, Memory


def with_body(memory: Memory, body: str, description: str | None,
               stamped: Memory | None = None) -> tuple[bytes, list[str]]:
    """The bytes of ``memory`` with a new body (and description, when it can be written, and
    the ``modified`` stamp of ``stamped``, as it is written there)."""
    doc = memory.doc.with_body(body)
    notes = []
    try:
        if description is not None and description != memory.description:
            doc = doc.with_field("description", description)
    except ParseError as exc:
        notes.append(f"{memory.file}: description kept ({exc})")
    try:
        if stamped is not None:
            doc = doc.with_field_of(MODIFIED, stamped.doc)
    except ParseError as exc:
        notes.append(f"{memory.file}: {MODIFIED} kept ({exc})")
    return doc.to_bytes(), notes


def newest_stamp(keep: Memory, merged: Iterable[Memory]) -> Memory | None:
    """The memory whose ``modified`` stamp a merge's survivor carries: the newest stamp of
    the merged memories (``None``: the survivor's own, or none, stands)."""
    stamped = [(m.modified_ns, m) for m in merged if m.modified_ns is not None]
    if not stamped:
        return None
    newest, memory = max(stamped, key=lambda pair: (pair[0], pair[1].file))
    if keep.modified_ns is not None and keep.modified_ns >= newest:
        return None
    return memory


def appended(body: str, lines: list[str], newline: str) -> str:
    """``body`` with ``lines`` after it, as a block of their own (see :func:`closed`)."""
    return closed(body, newline) + newline.join(lines) + newline


def closed(body: str, newline: str) -> str:
    """``body`` ready for a block after it: ending in a line end and a blank line, and a
    code block or an HTML comment it leaves open closed (as Markdown reads it, an open one
    runs to the end of the text: closed there, what it holds reads as before, and what comes
    after is text)."""
    if body and not body.endswith(("\n", "\r")):
        body += newline
    closer = ""
    lines = body.splitlines()
    for _kind, closer in dead_lines(lines):
        pass
    if closer:
        body += closer + newline
    # A block of its own: right after a list item or a line of text, Markdown would read
    # what follows as more of that item or paragraph.
    return body + newline if closer or (lines and lines[-1].strip()) else body


def said_in(phrase: str, text: str) -> bool:
    """Whether ``text`` already says ``phrase``: its exact form (every sign, symbol and number
    kept) stands in one of the text's lines between spaces or line ends, so "port 543" is not
    said by "port 5432", nor "+5 s" by "-5 s"."""
    wanted = exact_line(phrase)
    if not wanted:
        return True
    bounded = re.compile(rf"(?:^|(?<=\s)){re.escape(wanted)}(?=$|[\s.,;:!?)])")
    return any(bounded.search(line) for line in exact_set(text) if wanted in line)


def merged_body(cluster: Cluster, by_file: Mapping[str, Memory]) -> tuple[str, str | None]:
    """The survivor's body (with any source description it lacks) and its best description."""
    keep = by_file[cluster.keep]
    known = f"{keep.name}\n{keep.description}\n{keep.body}"
    description = keep.description or None
    extra: list[str] = []
    for file in cluster.files[1:]:
        source = by_file[file]
        if description is None and source.description:
            description = source.description
        if source.description and not said_in(source.description, known + "\n".join(extra)):
            extra.append(source.description)
    body = appended(keep.body, [f"- {line}" for line in extra], keep.doc.newline) if extra \
        else keep.body
    return body, (description if description != keep.description else None)


def changed_lines(before: str, after: str) -> tuple[str, ...]:
    """Each line a rewrite changes, as ``before -> after`` (the evidence a person checks).

    Rewrites change text within lines, never the line breaks, so lines pair up by position.
    """
    old, new = before.splitlines(), after.splitlines()
    if len(old) != len(new):
        return ()
    return tuple(f"{a.strip()} -> {b.strip()}" for a, b in zip(old, new, strict=True) if a != b)
