"""Fitting MEMORY.md to Claude Code's limits: measuring, and cutting what does not fit."""

from __future__ import annotations

from dataclasses import dataclass

from consolidator.index.parse import IndexLine

TOPIC_MAX_BYTES = 512 * 1024  # well under the 1 MiB past which a file is not read as a memory


@dataclass(frozen=True)
class Limits:
    max_lines: int = 200
    max_bytes: int = 25000
    max_line_chars: int = 150


def measure(text: str) -> tuple[int, int]:
    """(lines, UTF-8 bytes) of an index text, as Claude Code would count them."""
    body = text.removesuffix("\n")
    return (body.count("\n") + 1 if body else 0), len(text.encode("utf-8"))


def collapse_blanks(lines: list[IndexLine]) -> list[IndexLine]:
    """Drop blank lines at the ends and runs of more than one blank line."""
    out: list[IndexLine] = []
    for line in lines:
        if line.kind == "blank" and (not out or out[-1].kind == "blank"):
            continue
        out.append(line)
    while out and out[-1].kind == "blank":
        out.pop()
    return out


def chunks(lines: list[IndexLine], max_bytes: int) -> list[list[IndexLine]]:
    """``lines`` cut into runs of at most ``max_bytes`` (UTF-8), in order."""
    parts: list[list[IndexLine]] = [[]]
    size = 0
    for line in lines:
        cost = len(line.text.encode("utf-8")) + 2
        if parts[-1] and size + cost > max_bytes:
            parts.append([])
            size = 0
        parts[-1].append(line)
        size += cost
    return parts


def head_that_fits(lines: list[IndexLine], limits: Limits, newline: str) -> int:
    """How many leading lines fit beside the pointers to the topic memories holding the rest
    (each pointer reserved at its worst: max_line_chars characters of 4 bytes)."""
    pointer_cost = 4 * limits.max_line_chars + len(newline.encode())
    sizes = [len(line.text.encode("utf-8")) + len(newline.encode()) for line in lines]
    parts = 1
    while True:
        budget = limits.max_bytes - parts * pointer_cost
        keep, used = 0, 0
        for size in sizes[: max(limits.max_lines - parts, 0)]:
            if used + size > budget:
                break
            used += size
            keep += 1
        tail_bytes = sum(sizes[keep:])
        needed = max(1, -(-tail_bytes // TOPIC_MAX_BYTES))
        if needed <= parts:
            return keep
        parts = needed
