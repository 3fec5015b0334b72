"""A new pointer in an index that lists its memories in a table: a row of that table, with
the link in the column the other rows keep theirs in, the description in the column after
it, the type under a "Type" heading and the next number in a column that numbers the rows,
as a person adding a row would write it.

A table whose rows keep their links in no one column, or that has no separator row under
its header, is not written into: the new pointer is a list item after it."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from consolidator.index.parse import SEPARATOR_ROW, IndexLine, link_title
from consolidator.index.pointers import pointer_parts, shorten
from consolidator.store.model import Memory

# A cell's boundary: a pipe that is not escaped, in code or inside a wiki link's alias.
_CELL_PARTS = re.compile(r"\\.|`[^`]*`|\[\[[^\]]*\]\]|\|")
_LINK = re.compile(r"\]\(|\[\[")
_TYPE_HEADER = re.compile(r"^(type|kind|category|tipo|typ|type de|тип|tür|loại|jenis"
                          r"|類型|类型|種類|種別|タイプ|유형|종류)$", re.IGNORECASE)


@dataclass(frozen=True)
class Table:
    """How a table of pointers writes its rows."""

    columns: int
    link: int  # the column each row keeps its link in
    kind: int | None  # a column headed "Type"
    by_file: str  # "file" or "stem" where links read as their file ("[a.md](a.md)", "[a](a.md)")
    closed: bool  # rows end with a pipe
    number: int | None = None  # a column that numbers the rows 1, 2, 3 …
    last: int = 0  # ... and the last row's number


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


def table_above(lines: list[IndexLine], end: int) -> Table | None:
    """The table whose last row is ``lines[end - 1]``, when a header, a separator row and
    rows that link memories from one column (most of them) make it a table of pointers."""
    if end < 3 or lines[end - 1].kind != "table":
        return None
    start = end - 1
    while start > 0 and lines[start - 1].kind == "table":
        start -= 1
    if end - start < 3 or not SEPARATOR_ROW.match(lines[start + 1].text):
        return None
    header = cells(lines[start].text)
    linked = [line for line in lines[start + 2:end] if line.targets]
    rows = [cells(line.text) for line in linked]
    columns = Counter(next((i for i, cell in enumerate(row) if _LINK.search(cell)), -1)
                      for row in rows)
    link, count = columns.most_common(1)[0] if columns else (-1, 0)
    if link < 0 or link >= len(header) or 2 * count <= len(rows):
        return None
    named = Counter(_named_by(link_title(row[link]), line.targets[0])
                    for row, line in zip(rows, linked, strict=True) if len(row) > link)
    by_file, times = named.most_common(1)[0] if named else ("", 0)
    kind = next((i for i, cell in enumerate(header)
                 if i != link and _TYPE_HEADER.match(cell.strip("*_ ").casefold())), None)
    every = [cells(line.text) for line in lines[start + 2:end]]
    number = next((i for i in range(len(header)) if i != link and _counts(every, i)), None)
    return Table(len(header), link, kind, by_file if 2 * times > len(rows) else "",
                 lines[end - 1].text.rstrip().endswith("|"), number,
                 int(every[-1][number]) if number is not None else 0)


def _counts(rows: list[list[str]], column: int) -> bool:
    """Whether ``column`` numbers ``rows`` one by one (1, 2, 3 …, from any first number)."""
    cells = [row[column] if column < len(row) else "" for row in rows]
    if not all(cell.isdigit() and cell.isascii() for cell in cells):
        return False
    first = int(cells[0])
    return all(int(cell) == first + n for n, cell in enumerate(cells))


def _named_by(title: str, target: str) -> str:
    """How a link's text names its file: as the file ("a.md"), its stem ("a"), or not."""
    name = target.rsplit("/", 1)[-1]
    if title in (target, name):
        return "file"
    return "stem" if title in (target.removesuffix(".md"), name.removesuffix(".md")) else ""


def table_row(table: Table, memory: Memory, limit: int, title: str | None = None,
              hook: str | None = None, after: int = 0) -> str:
    """A row of ``table`` pointing to ``memory``, within ``limit`` characters (the hook is
    cut to fit; a pipe in the title or hook is escaped, so that it stays in its cell);
    ``after``: how many new rows go before it, for a column that numbers the rows."""
    if table.by_file:
        title = memory.file if table.by_file == "file" else memory.file.removesuffix(".md")
    link, hook = pointer_parts(memory, limit - 4 * table.columns, title, hook)
    row = [""] * table.columns
    row[table.link] = link.replace("|", r"\|")
    if table.kind is not None:
        row[table.kind] = memory.type or ""
    if table.number is not None:
        row[table.number] = str(table.last + after + 1)
    note = next((i for i in range(table.link + 1, table.columns)
                 if i not in (table.kind, table.number)), None)
    if note is not None and hook:
        spare = limit - len(_joined(row, table.closed))
        row[note] = shorten(hook, max(spare, 1)).replace("|", r"\|")
    return _joined(row, table.closed)


def _joined(row: list[str], closed: bool) -> str:
    return "| " + " | ".join(row) + (" |" if closed else "")
