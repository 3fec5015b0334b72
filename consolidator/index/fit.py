"""Fitting MEMORY.md to Claude Code's limits: measuring, and cutting what does not fit."""

from __future__ import annotations

from consolidator.index.parse import IndexLine, parse_index
from consolidator.index.window import Limits, counted, hide, size

__all__ = ["TOPIC_MAX_BYTES", "Limits", "chunks", "measure"]

TOPIC_MAX_BYTES = 512 * 1024  # well under the 1 MiB past which a file is not read as a memory


def measure(text: str) -> tuple[int, int]:
    """(lines, UTF-8 bytes) of an index text as Claude Code counts them: its frontmatter and
    block HTML comments left out, leading and trailing blank lines trimmed."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = hide(parse_index(text))
    count, used = size(lines, newline)
    if count and text and not text.endswith("\n") and counted(lines)[-1] == len(lines) - 1:
        used -= len(newline)  # the last line has no line ending to count
    return count, used


def chunks(lines: list[IndexLine], max_bytes: int) -> list[list[IndexLine]]:
    """``lines`` cut into runs of at most ``max_bytes`` (UTF-8), in order."""
    parts: list[list[IndexLine]] = [[]]
    used = 0
    for line in lines:
        cost = len(line.text.encode("utf-8")) + 2
        if parts[-1] and used + cost > max_bytes:
            parts.append([])
            used = 0
        parts[-1].append(line)
        used += cost
    return parts
