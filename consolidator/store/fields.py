"""The three readers of a memory's frontmatter fields, from cheap to forgiving: a line reader
for the flat and one-level nested forms real memories use (:func:`read_lines`); PyYAML for
anything richer (:func:`read_yaml`); a lenient ``key: value`` reader for the rest
(:func:`read_lenient`). Each takes the text between the fences and returns the fields with
where each editable value sits (:class:`FieldSpan`), or None when the form is not its own.
:mod:`consolidator.store.frontmatter` splits a file and picks the reader.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:(.*)$")
# A value ends at its last character that is not a blank: found by one greedy match, never
# by a lazy one retried at every blank (a line of many spaces would take quadratic time).
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:(?:[ \t]++(.*[^ \t\n]|))?[ \t]*$")
_CHILD_RE = re.compile(
    r"^([ \t]+)([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:(?:[ \t]++(.*[^ \t\n]|))?[ \t]*$")
_PLAIN_BAD_START = set("-?:,[]{}#&*!|>'\"%@`")


class ParseError(ValueError):
    """The file cannot be read as a memory; the message says why."""


@dataclass(frozen=True, slots=True)
class FieldSpan:
    """Where one scalar value sits in ``head``: line number, columns, quoting."""

    line: int
    start: int
    end: int
    quote: str  # "", "'" or '"'


Fields = tuple[dict[str, str], dict[str, FieldSpan]]


def _content_lines(inner: str) -> Iterator[tuple[int, str]]:
    """(offset, line) for the frontmatter lines that are neither blank nor comments."""
    for offset, raw in enumerate(inner.split("\n")):
        line = raw.rstrip("\r")
        if line.strip() and not line.lstrip().startswith("#"):
            yield offset, line


def read_lines(inner: str, first_line: int) -> Fields | None:
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
        scalar = plain_or_quoted(value_text, colons=True)
        if scalar is None:
            return None
        key = sys.intern(key)  # the same few keys in every file: keep one copy of each
        fields[key] = scalar[0]
        spans[key] = FieldSpan(first_line + offset, match.start(group), match.end(group), scalar[1])
    return fields, spans


def plain_or_quoted(text: str, *, colons: bool = False) -> tuple[str, str] | None:
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
        if plain_or_quoted(value) is None and plain_or_quoted(value, colons=True):
            quoted = "'" + value.replace("'", "''") + "'"
            lines[i] = raw[: match.start(group)] + quoted + raw[match.end(group) :]
    return "\n".join(lines)


def read_yaml(inner: str) -> Fields | None:

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
    return (value is None or isinstance(value, (str, int, float, bool))
            or hasattr(value, "isoformat"))


def _scalar_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def read_lenient(inner: str, first_line: int) -> Fields:
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


def locate_simple(inner: str, first_line: int, fields: dict[str, str]) -> dict[str, FieldSpan]:
    """For YAML-read frontmatter: the top-level one-line scalars the line reader agrees on."""
    spans: dict[str, FieldSpan] = {}
    for offset, raw in enumerate(inner.split("\n")):
        match = _KEY_RE.match(raw.rstrip("\r"))
        if not match or not match.group(2):
            continue
        key = match.group(1)
        scalar = plain_or_quoted(match.group(2), colons=True)
        if scalar is not None and fields.get(key) == scalar[0] and key not in spans:
            spans[key] = FieldSpan(first_line + offset, match.start(2), match.end(2), scalar[1])
    return spans
