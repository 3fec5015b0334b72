"""A tolerant, lossless reader and editor for memory files.

A file is kept as ``head`` (from the opening ``---`` through the closing fence line, exactly
as on disk) and ``body`` (everything after). Nothing is ever re-serialised: an edit replaces
the one value it changes, so unknown keys, key order, quoting, the nested ``metadata:`` form,
CRLF line ends, a BOM and a missing final newline all survive.

Reading goes from cheap to forgiving: a line reader for the flat and one-level nested forms
real memories use; PyYAML for anything richer; a lenient ``key: value`` reader for the rest.
A one-line value holding a second ``: `` (``description: Deploy: run migrations first``) is
not YAML, but Claude Code writes it and reads it as a plain scalar to the end of the line;
both the line reader and the YAML reader read it so. Only when all three readers fail is the
frontmatter unparseable.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:(.*)$")

BOM = b"\xef\xbb\xbf"
MAX_FRONTMATTER_CHARS = 64 * 1024
NESTED_PARENT = "metadata"

_OPEN_RE = re.compile(r"---[ \t]*\r?(\n|\Z)")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
# A value ends at its last character that is not a blank: found by one greedy match, never
# by a lazy one retried at every blank (a line of many spaces would take quadratic time).
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:(?:[ \t]++(.*[^ \t\n]|))?[ \t]*$")
_CHILD_RE = re.compile(
    r"^([ \t]+)([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:(?:[ \t]++(.*[^ \t\n]|))?[ \t]*$")
_PLAIN_BAD_START = set("-?:,[]{}#&*!|>'\"%@`")
_YAML_SPECIAL = re.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON"
    r"|off|Off|OFF|y|Y|n|N|[-+]?(?:\d[\d_]*)?\.?\d+(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|\d{4}-\d\d?-\d\d?.*"
    r"|[-+]?0b[01_]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[-+]?[0-9][0-9_.]*)$"
)


class ParseError(ValueError):
    """The file cannot be read as a memory; the message says why."""


@dataclass(frozen=True, slots=True)
class FieldSpan:
    """Where one scalar value sits in ``head``: line number, columns, quoting."""

    line: int
    start: int
    end: int
    quote: str  # "", "'" or '"'


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
    result = _read_lines(inner, first_line)
    reader = "lines"
    if result is None:
        result, reader = _read_yaml(inner), "yaml"
        if result is None:
            result, reader = _read_lenient(inner, first_line), "lenient"
    fields, spans = result
    if not fields:
        raise ParseError("frontmatter holds no keys")
    if reader == "yaml":
        spans = _locate_simple(inner, first_line, fields)
    return Document(bom=bom, head=head, body=body, fields=fields, spans=spans, reader=reader)


# --- the three readers -------------------------------------------------------------------

Fields = tuple[dict[str, str], dict[str, FieldSpan]]


def _content_lines(inner: str) -> Iterator[tuple[int, str]]:
    """(offset, line) for the frontmatter lines that are neither blank nor comments."""
    for offset, raw in enumerate(inner.split("\n")):
        line = raw.rstrip("\r")
        if line.strip() and not line.lstrip().startswith("#"):
            yield offset, line


def _read_lines(inner: str, first_line: int) -> Fields | None:
    """Read flat and one-level nested ``key: value`` lines; ``None`` if anything is richer."""
    fields: dict[str, str] = {}
    spans: dict[str, FieldSpan] = {}
    parent: str | None = None
    for offset, line in _content_lines(inner):
        child = _CHILD_RE.match(line)
        if child and parent is not None:
            key, value_text = f"{parent}.{child.group(2)}", child.group(3)
            match = child
            group = 3
        else:
            top = _KEY_RE.match(line)
            if top is None:
                return None
            key, value_text, match, group = top.group(1), top.group(2), top, 2
            parent = key if not value_text else None
            if not value_text:
                continue
        if value_text is None:
            return None
        scalar = _plain_or_quoted(value_text, colons=True)
        if scalar is None:
            return None
        key = sys.intern(key)  # the same few keys in every file: keep one copy of each
        fields[key] = scalar[0]
        spans[key] = FieldSpan(first_line + offset, match.start(group), match.end(group), scalar[1])
    return fields, spans


def _plain_or_quoted(text: str, *, colons: bool = False) -> tuple[str, str] | None:
    """A one-line scalar's value and quote style, or ``None`` if YAML must decide.

    ``colons``: read a plain value holding ``: `` (or ending in ``:``) to the end of the line,
    as Claude Code does; off when asking what may be *written* plain (YAML would refuse it).
    """
    if not text:
        return "", ""
    if len(text) >= 2 and text[0] == text[-1] == "'":
        inner = text[1:-1]
        if "'" in inner.replace("''", ""):
            return None
        return inner.replace("''", "'"), "'"
    if len(text) >= 2 and text[0] == text[-1] == '"':
        inner = text[1:-1]
        if "\\" in inner or '"' in inner:
            return None
        return inner, '"'
    if text[0] in _PLAIN_BAD_START or " #" in text or "\t#" in text:
        return None
    if not colons and (": " in text or ":\t" in text or text.endswith(":")):
        return None
    return text, ""


def _colons_quoted(inner: str) -> str:
    """``inner`` with each one-line plain value that holds ``: `` (top level, or under a key
    that opens a mapping) single-quoted, so that YAML reads it as Claude Code does."""
    lines = inner.split("\n")
    in_mapping = False  # the last top-level key has no value on its line
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r")
        match = _KEY_RE.match(line)
        group = 2
        if match is not None:
            in_mapping = not match.group(2)
        elif in_mapping and (match := _CHILD_RE.match(line)) is not None:
            group = 3
        if match is None or not match.group(group):
            continue
        value = match.group(group)
        if _plain_or_quoted(value) is None and _plain_or_quoted(value, colons=True):
            quoted = "'" + value.replace("'", "''") + "'"
            lines[i] = raw[: match.start(group)] + quoted + raw[match.end(group) :]
    return "\n".join(lines)


def _read_yaml(inner: str) -> Fields | None:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(inner, Loader=loader)
    except Exception:  # noqa: BLE001 - any YAML failure means "try the lenient reader"
        quoted = _colons_quoted(inner)
        if quoted == inner:
            return None
        try:
            data = yaml.load(quoted, Loader=loader)
        except Exception:  # noqa: BLE001 - as above
            return None
    if not isinstance(data, dict):
        return None
    fields: dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            continue
        if isinstance(value, dict):
            for sub, subvalue in value.items():
                if isinstance(sub, str) and _is_scalar(subvalue):
                    fields[f"{key}.{sub}"] = _scalar_text(subvalue)
        else:
            # A list or other rich value is present but not editable: recorded as "".
            fields[key] = _scalar_text(value) if _is_scalar(value) else ""
    return fields, {}


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool)) or hasattr(value, "isoformat")


def _scalar_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _read_lenient(inner: str, first_line: int) -> Fields:
    """``key: anything`` lines, split at the first colon; raise if a line is not one."""
    fields: dict[str, str] = {}
    spans: dict[str, FieldSpan] = {}
    parent: str | None = None
    for offset, line in _content_lines(inner):
        if line[0] in " \t" and parent is not None:
            stripped = line.strip()
            if stripped.startswith("- "):
                continue
            key, sep, value = stripped.partition(":")
            if not sep or not _KEY.fullmatch(key.strip()):
                raise ParseError(f"frontmatter line {first_line + offset + 1} is not 'key: value'")
            fields[f"{parent}.{key.strip()}"] = _unquote(value.strip())
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            raise ParseError(f"frontmatter line {first_line + offset + 1} is not 'key: value'")
        key, value = match.group(1), match.group(2).strip()
        parent = key if not value else None
        if value:
            fields[key] = _unquote(value)
            start = match.start(2) + (len(match.group(2)) - len(match.group(2).lstrip()))
            quoted = len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]
            quote = value[0] if quoted else ""
            spans[key] = FieldSpan(first_line + offset, start, start + len(value), quote)
    return fields, spans


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _locate_simple(inner: str, first_line: int, fields: dict[str, str]) -> dict[str, FieldSpan]:
    """For YAML-read frontmatter: the top-level one-line scalars the line reader agrees on."""
    spans: dict[str, FieldSpan] = {}
    for offset, raw in enumerate(inner.split("\n")):
        match = _KEY_RE.match(raw.rstrip("\r"))
        if not match or not match.group(2):
            continue
        key = match.group(1)
        scalar = _plain_or_quoted(match.group(2), colons=True)
        if scalar is not None and fields.get(key) == scalar[0] and key not in spans:
            spans[key] = FieldSpan(first_line + offset, match.start(2), match.end(2), scalar[1])
    return spans


# --- writing values ----------------------------------------------------------------------


def plain_safe(value: str) -> bool:
    """True when ``value`` can be written as an unquoted YAML scalar and read back as is."""
    return bool(
        value
        and value == value.strip()
        and "\n" not in value
        and "\r" not in value
        and _plain_or_quoted(value) == (value, "")
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
