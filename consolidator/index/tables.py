"""A new pointer in an index that lists its memories in a table: a row of that table, written
as a person adding a row would write it, in the way the other rows are: indented as they are,
the link in the column where they keep their links to memories (named by the file's path,
name or stem where theirs are, bold where theirs are), the description in the next free
column after it, the type in the column of types (headed "Type", or holding memory types),
and the next number, as wide, in a column that numbers the rows.

Some indexes name each row's file in code rather than link it (`` `user_profile.md` ``): such a
row lists that memory as a link would, and a new row names its file the same way.

A table whose rows keep their links in no one column, or that has no separator row under
its header, is not written into: the new pointer is a list item after it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Container
from dataclasses import dataclass

from consolidator.index.parse import LINK_RE, SEPARATOR_ROW, WIKI_RE, IndexLine, link_title
from consolidator.index.pointers import ELLIPSIS, pointer_parts, shorten
from consolidator.store.model import MEMORY_TYPES, Memory

# A cell's boundary: a pipe that is not escaped, in code or inside a wiki link's alias.
_CELL_PARTS = re.compile(r"\\.|`[^`]*`|\[\[[^\]]*\]\]|\|")
_TYPE_HEADER = re.compile(r"^(type|kind|category|tipo|typ|type de|тип|tür|loại|jenis"
                          r"|類型|类型|種類|種別|タイプ|유형|종류)$", re.IGNORECASE)
_EXTERNAL = re.compile(r"<?(?:[a-z][a-z0-9+.-]*:|#)", re.IGNORECASE)  # a URL, mailto:, #anchor
# A memory file named in code, relative to the folder: `user_profile.md`, `notes/x.md`.
_CODE_PATH = re.compile(r"`(?:\./)?([\w.-]+(?:/[\w.-]+)*\.md)`")


@dataclass(frozen=True)
class Table:
    """How a table of pointers writes its rows."""

    columns: int
    link: int  # the column each row keeps its memory's link in
    kind: int | None  # the column of memory types
    named: str  # "path", "name", "stem" or "path stem" where links read as their file, else ""
    closed: bool  # rows end with a pipe
    number: int | None = None  # a column that numbers the rows 1, 2, 3 …
    last: str = ""  # ... and the last row's number, as written
    indent: str = ""  # what the rows stand indented by (a table inside a list item)
    bold: bool = False  # links in bold
    note: int | None = None  # the column a row's description goes in
    code: bool = False  # rows name their files in code, not by a link


def cells(text: str) -> list[str]:
    """The cells of a table row, without the pipes before the first and after the last."""
    out, start = [], 0
    for match in _CELL_PARTS.finditer(text):
        if match.group() == "|":
            out.append(text[start:match.start()])
            start = match.end()
    out.append(text[start:])
    if out and not out[0].strip():
        out = out[1:]
    if out and not out[-1].strip():
        out = out[:-1]
    return [cell.strip() for cell in out]


def row_files(line: IndexLine, known: Container[str] | None = None) -> tuple[str, ...]:
    """The memory files a line lists: its links' targets; for a table's row that links
    none, the files its cells name in code (``known``: the folder's memories, when given, of
    which a file named in code must be one: a table of the project's own documents,
    `docs/ARCHITECTURE.md`, lists no memory)."""
    if line.targets or line.kind != "table" or "`" not in line.text:
        return line.targets
    return tuple(match.group(1) for match in _CODE_PATH.finditer(line.text)
                 if known is None or match.group(1) in known)


def _links_a_memory(cell: str) -> bool:
    """Whether a cell holds a link to a file of the folder: a wiki link, a Markdown link
    whose target is no web address, mail address or anchor, or a file's path in code."""
    return WIKI_RE.search(cell) is not None or _in_code(cell) is not None or any(
        not _EXTERNAL.match(match.group(2)) for match in LINK_RE.finditer(cell))


def _in_code(cell: str) -> str | None:
    """The path a cell holds alone in code (bold or not), else None."""
    match = _CODE_PATH.fullmatch(cell.strip("*_ "))
    return None if match is None else match.group(1)


def table_above(lines: list[IndexLine], end: int, known: Container[str] | None = None
                ) -> Table | None:
    """The table whose last row is ``lines[end - 1]``, when a header, a separator row and
    rows that link memories from one column (most of them) make it a table of pointers
    (``known``: as for :func:`row_files`)."""
    if end < 3 or lines[end - 1].kind != "table":
        return None
    start = end - 1
    while start > 0 and lines[start - 1].kind == "table":
        start -= 1
    if end - start < 3 or not SEPARATOR_ROW.match(lines[start + 1].text):
        return None
    header = cells(lines[start].text)
    linked = [line for line in lines[start + 2:end] if row_files(line, known)]
    rows = [cells(line.text) for line in linked]
    columns = Counter(next((i for i, cell in enumerate(row) if _links_a_memory(cell)), -1)
                      for row in rows)
    link, count = columns.most_common(1)[0] if columns else (-1, 0)
    if link < 0 or link >= len(header) or 2 * count <= len(rows):
        return None
    linking = [(row[link], row_files(line, known)[0])
               for row, line in zip(rows, linked, strict=True)
               if len(row) > link]
    coded = sum(_in_code(cell) is not None for cell, _target in linking)
    named, times = Counter(_named_by(_in_code(cell) or link_title(cell), target)
                           for cell, target in linking).most_common(1)[0]
    bold = sum(cell.startswith(("**", "__")) for cell, _target in linking)
    every = [cells(line.text) for line in lines[start + 2:end]]
    number = next((i for i in range(len(header)) if i != link and _counts(every, i)), None)
    last = lines[end - 1].text
    kind = _kind_column(header, rows, link)
    # The description's column: the first after the link's that holds words (not the
    # types, not numbers: a priority, a count).
    note = next((i for i in range(link + 1, len(header)) if i not in (kind, number)
                 and not all(row[i].isdigit() for row in rows if i < len(row) and row[i])),
                None)
    return Table(
        len(header), link, kind, named if 2 * times > len(rows) else "",
        last.rstrip().endswith("|"), number, every[-1][number] if number is not None else "",
        last[:len(last) - len(last.lstrip())], 2 * bold > len(linking), note,
        2 * coded > len(linking))


def _kind_column(header: list[str], rows: list[list[str]], link: int) -> int | None:
    """The column of memory types: headed "Type" (in any language the tool reads), or
    holding a memory type in most rows that link one."""
    for i, cell in enumerate(header):
        if i != link and _TYPE_HEADER.match(cell.strip("*_ ").casefold()):
            return i
    for i in range(len(header)):
        typed = sum(1 for row in rows if i < len(row) and i != link
                    and row[i].strip("*_` ").casefold() in MEMORY_TYPES)
        if rows and 2 * typed > len(rows):
            return i
    return None


def _named_by(title: str, target: str) -> str:
    """How a link's text names its file: by its path, name or stem, the path without
    ``.md``, or not."""
    name = target.rsplit("/", 1)[-1]
    for form, written in (("path", target), ("name", name),
                          ("stem", name.removesuffix(".md")),
                          ("path stem", target.removesuffix(".md"))):
        if title == written:
            return form
    return ""


def _counts(rows: list[list[str]], column: int) -> bool:
    """Whether ``column`` numbers ``rows`` one by one (1, 2, 3 …, from any first number), in
    two rows or more (one number alone may be anything: a priority, a count)."""
    cells = [row[column] if column < len(row) else "" for row in rows]
    if len(cells) < 2 or not all(cell.isdigit() and cell.isascii() for cell in cells):
        return False
    first = int(cells[0])
    return all(int(cell) == first + n for n, cell in enumerate(cells))


def _title(table: Table, memory: Memory) -> str | None:
    """The link's text where the other rows name their files: by path, name or stem."""
    name = memory.file.rsplit("/", 1)[-1]
    return {"path": memory.file, "name": name, "stem": name.removesuffix(".md"),
            "path stem": memory.file.removesuffix(".md")}.get(table.named)


def _cell(text: str) -> str:
    """``text`` as one table cell: on one line, its pipes escaped."""
    return " ".join(text.split()).replace("|", r"\|")


def table_row(table: Table, memory: Memory, limit: int, title: str | None = None,
              hook: str | None = None, after: int = 0) -> str:
    """A row of ``table`` pointing to ``memory``, within ``limit`` characters (the title cut
    to fit and the hook after it; text on one line, pipes escaped so that they stay in their
    cell); ``after``: how many new rows go before it, for a column that numbers the rows."""
    row = [""] * table.columns
    if table.kind is not None:
        row[table.kind] = memory.type or ""
    if table.number is not None:
        number = int(table.last) + after + 1
        row[table.number] = str(number).zfill(len(table.last))
    wrap = "**" if table.bold else ""
    room = limit - len(_joined(row, table)) - 2 * len(wrap) - 2  # (the title's brackets)
    link, hook = pointer_parts(memory, room, _title(table, memory) or title, hook)
    if table.code:  # named as the other rows name theirs (by path, if they name none alike)
        link = f"`{_title(table, memory) or memory.file}`"
    row[table.link] = wrap + link.replace("|", r"\|") + wrap
    if table.note is not None and hook:
        spare = limit - len(_joined(row, table))
        text = shorten(_cell(hook), max(spare, 1))
        if text.endswith("\\" + ELLIPSIS):  # not a backslash escaping the ellipsis
            text = text[:-2] + ELLIPSIS
        row[table.note] = text
    return _joined(row, table)


def _joined(row: list[str], table: Table) -> str:
    return table.indent + "| " + " | ".join(row) + (" |" if table.closed else "")
