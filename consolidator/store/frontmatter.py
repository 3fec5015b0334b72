"""A tolerant, lossless reader and editor for memory files.

A file is kept as ``head`` (from the opening ``---`` through the closing fence line, exactly
as on disk) and ``body`` (everything after). Nothing is ever re-serialised: an edit replaces
the one value it changes, so unknown keys, key order, quoting, the nested ``metadata:`` form,
CRLF line ends, a BOM and a missing final newline all survive.

Reading goes from cheap to forgiving (the readers are in :mod:`consolidator.store.fields`): a
line reader for the flat and one-level nested forms real memories use; PyYAML for anything
richer; a lenient ``key: value`` reader for the rest.
A one-line value holding a second ``: `` (``description: Deploy: run migrations first``) is
not YAML, but Claude Code writes it and reads it as a plain scalar to the end of the line;
both the line reader and the YAML reader read it so. Only when all three readers fail is the
frontmatter unparseable.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from consolidator.store.fields import (
    FieldSpan,
    ParseError,
    locate_simple,
    plain_or_quoted,
    read_lenient,
    read_lines,
    read_yaml,
)

BOM = b"\xef\xbb\xbf"
MAX_FRONTMATTER_CHARS = 64 * 1024
NESTED_PARENT = "metadata"

__all__ = ["BOM", "MAX_FRONTMATTER_CHARS", "NESTED_PARENT", "Document", "FieldSpan", "ParseError",
           "parse", "parse_text", "plain_safe"]

_OPEN_RE = re.compile(r"---[ \t]*\r?(\n|\Z)")
# A frontmatter block further down, under a comment or a title (how far it is looked for):
# the file is still no memory, but the report says where the block is.
LATE_OPEN_CHARS = 2000
_LATE_OPEN_RE = re.compile(r"\n---[ \t]*\r?\n(?:name|description|type|metadata)[ \t]*:")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
_YAML_SPECIAL = re.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON"
    r"|off|Off|OFF|y|Y|n|N|[-+]?(?:\d[\d_]*)?\.?\d+(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|\d{4}-\d\d?-\d\d?.*"
    r"|[-+]?0b[01_]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[-+]?[0-9][0-9_.]*)$"
)


@dataclass(frozen=True, slots=True)
class Document:
    """A memory file's text, split so that it can be edited without reformatting."""

    bom: bool
    head: str
    body: str
    fields: dict[str, str]  # "name", "description", "type", "metadata.type", ... (scalars)
    spans: dict[str, FieldSpan]  # the fields that can be edited in place
    reader: str  # "lines", "yaml" or "lenient"

    @property
    def newline(self) -> str:
        """The file's line ending, for lines the tool adds."""
        return "\r\n" if "\r\n" in self.head else "\n"

    @property
    def nested(self) -> bool:
        """True when the type lives under ``metadata:`` rather than at the top."""
        return "type" not in self.fields and f"{NESTED_PARENT}.type" in self.fields

    def key_of(self, name: str) -> str:
        """The field key that holds ``name``: itself at the top, else under ``metadata:``
        where Claude Code writes it there (``metadata.modified``); a new one goes where the
        type is (under ``metadata:`` in a nested document, else at the top)."""
        if name in self.fields:
            return name
        nested = f"{NESTED_PARENT}.{name}"
        return nested if nested in self.fields or self.nested else name

    @property
    def memory_type(self) -> str | None:
        value = self.fields.get("type") or self.fields.get(f"{NESTED_PARENT}.type")
        return value.strip().lower() if value else None

    def to_bytes(self) -> bytes:
        """The exact bytes this document stands for."""
        return (BOM if self.bom else b"") + (self.head + self.body).encode("utf-8")

    def with_body(self, body: str) -> Document:
        """This document with ``body``; a closing fence the file ended on (no newline after
        it, no body) gets its newline first, so the new body never runs into the fence."""
        head = self.head
        if body and head and not head.endswith(("\n", "\r")):
            head += self.newline
        return replace(self, head=head, body=body)

    def with_field(self, key: str, value: str) -> Document:
        """Set a top-level scalar, keeping its quoting; a new key goes before the closing fence.

        Raises :class:`ParseError` when the key exists but is not a one-line scalar.
        """
        if any(ord(c) < 32 and c not in "\t\n" for c in value) or "\x7f" in value:
            raise ParseError(f"value for {key!r} holds control characters; not written")
        span = self.spans.get(key)
        return self._with_written(key, value, _encode(value, span.quote if span else ""))

    def with_field_of(self, name: str, other: Document) -> Document:
        """Set the field ``name`` to ``other``'s value for it, written as ``other`` writes it
        (its quoting kept byte for byte), each where its document keeps it: at the top or
        under ``metadata:`` (see :meth:`key_of`); raises :class:`ParseError` as
        :meth:`with_field` does."""
        key, theirs = self.key_of(name), other.key_of(name)
        span = other.spans.get(theirs)
        if span is None:
            return self.with_field(key, other.fields[theirs])
        written = other.head.split("\n")[span.line][span.start:span.end]
        return self._with_written(key, other.fields[theirs], written)

    @staticmethod
    def _child_slot(lines: list[str], parent: str) -> tuple[int, str]:
        """Where a new key of the ``parent:`` block goes (after its last indented line) and
        the indentation its lines have."""
        at = _first_child(lines, parent) + 1
        indent = ""
        while at < len(lines) and lines[at][:1] in (" ", "\t"):
            if not indent:
                indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
            at += 1
        if not indent:
            raise ParseError(f"the {parent!r} block is empty; left as it is")
        return at, indent

    def _with_written(self, key: str, value: str, written: str) -> Document:
        lines = self.head.split("\n")
        span = self.spans.get(key)
        if span is not None:
            line = lines[span.line]
            lines[span.line] = line[: span.start] + written + line[span.end :]
        elif key in self.fields:
            raise ParseError(f"field {key!r} is not a one-line value and is left as it is")
        else:
            cr = "\r" if self.newline == "\r\n" else ""
            parent, _, child = key.rpartition(".")
            if parent:  # a new key under ``metadata:``: after its last line, indented alike
                at, indent = self._child_slot(lines, parent)
                lines.insert(at, f"{indent}{child}: {written}{cr}")
            else:
                close = max(i for i, text in enumerate(lines) if text.strip())
                lines.insert(close, f"{key}: {written}{cr}")
        head = "\n".join(lines)
        expected = {**self.fields, key: value}
        reparsed = parse_text(head + self.body, bom=self.bom)
        if reparsed.fields != expected:
            raise ParseError(f"setting {key!r} would not read back as written; left as it is")
        return replace(self, head=head, fields=reparsed.fields, spans=reparsed.spans,
                       reader=reparsed.reader)


def _first_child(lines: list[str], parent: str) -> int:
    """The index of the line ``parent:`` opens a block on (raises ParseError if none)."""
    for at, text in enumerate(lines):
        if text.rstrip("\r").rstrip() == f"{parent}:":
            return at
    raise ParseError(f"no {parent!r} block to add a key to; left as it is")


def parse(data: bytes) -> Document:
    """Parse a memory file's bytes; raise :class:`ParseError` saying why it is not a memory."""
    if b"\x00" in data:
        raise ParseError("binary file (NUL bytes)")
    bom = data.startswith(BOM)
    try:
        text = data[3:].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"invalid UTF-8 at byte {exc.start + (3 if bom else 0)}") from None
    return parse_text(text, bom=bom)


def parse_text(text: str, *, bom: bool = False) -> Document:
    """Parse decoded text (see :func:`parse`)."""
    opening = _OPEN_RE.match(text)
    if opening is None:
        late = _LATE_OPEN_RE.search(text, 0, LATE_OPEN_CHARS)
        if late is not None:
            line = text.count("\n", 0, late.start()) + 2
            raise ParseError(f"no frontmatter at the top (a '---' block starts at line {line}; "
                             "Claude Code reads frontmatter only at the top)")
        raise ParseError("no frontmatter")
    closing = _CLOSE_RE.search(text, opening.end())
    if closing is None or not opening.group(1):
        raise ParseError("frontmatter has no closing '---'")
    end = text.find("\n", closing.end())
    end = len(text) if end < 0 else end + 1
    if end > MAX_FRONTMATTER_CHARS:
        raise ParseError("frontmatter larger than 64 KiB")
    head, body = text[:end], text[end:]
    inner = text[opening.end() : closing.start()]
    first_line = head.count("\n", 0, opening.end())
    result = read_lines(inner, first_line)
    reader = "lines"
    if result is None:
        result, reader = read_yaml(inner), "yaml"
        if result is None:
            result, reader = read_lenient(inner, first_line), "lenient"
    fields, spans = result
    if not fields:
        raise ParseError("frontmatter holds no keys")
    if reader == "yaml":
        spans = locate_simple(inner, first_line, fields)
    return Document(bom=bom, head=head, body=body, fields=fields, spans=spans, reader=reader)


# --- writing values ----------------------------------------------------------------------


def plain_safe(value: str) -> bool:
    """True when ``value`` can be written as an unquoted YAML scalar and read back as is."""
    return bool(
        value
        and value == value.strip()
        and "\n" not in value
        and "\r" not in value
        and plain_or_quoted(value) == (value, "")
        and not _YAML_SPECIAL.match(value)
    )


def _encode(value: str, quote: str) -> str:
    """``value`` as a YAML scalar in the file's style: plain if it may be, else quoted —
    single quotes where they suffice (the line reader reads them back without YAML)."""
    if quote == "" and plain_safe(value):
        return value
    single = "'" + value.replace("'", "''") + "'"
    if "\n" not in value and "\t" not in value and (
        quote == "'" or '"' in value or "\\" in value
    ):
        return single
    return json.dumps(value, ensure_ascii=False)
