"""How an index is built up, read off its lines: its top-level sections, the blocks that
move whole (tables, fenced code), the lines indented under another, and a short summary of
a run of lines in their own words (a topic memory's pointer hook).
(Not :mod:`consolidator.report.sections`, the report's sections.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from consolidator.index.parse import SEPARATOR_ROW, IndexLine, link_title
from consolidator.index.window import CODE, HIDDEN
from consolidator.store.codespans import opens_fence

# Markup around a line's words: its bullet, heading or quote mark, and emphasis (a "#" inside
# the words, as in "PR #2062", stays).
# Markdown's marks: a list or quote lead, emphasis and code marks, table bars; an underscore
# only outside a word (`project_x.md` keeps its own).
_MARKUP = re.compile(r"^\s*(?:#+\s*|>\s*|(?:[-*+]|\d+[.)])\s+)|[*`|]+"
                     r"|(?<![^\W_])_+|_+(?![^\W_])")
QUIET = ("blank", HIDDEN)  # lines that are not content
# A thematic break: with a code fence ("```bash") and a table's separator row, a line that
# says nothing of what a run of lines is about.
_RULE = re.compile(r"\s{0,3}(?:[-*_=]\s*){3,}$")
_SPACED = re.compile(r"\s+([:;,.!?])")  # a space a removed mark left before punctuation


def top_sections(lines: Sequence[IndexLine]) -> list[tuple[int, int]]:
    """The index's top-level sections as (heading position, end), in order.

    The top level is the highest heading level in use, leaving out a lone ``#`` title that
    heads the index; a section runs to the next heading of its level or higher, so its
    sub-sections (one heading per day, per sprint, per release) belong to it.
    """
    heads = [(i, line.level) for i, line in enumerate(lines) if line.kind == "heading"]
    if not heads:
        return []
    levels = [level for _i, level in heads]
    rest = heads
    if levels.count(1) == 1 and heads[0][1] == 1 and len(heads) > 1:
        rest = heads[1:]  # the title
    top = min(level for _i, level in rest)
    starts = [i for i, level in rest if level <= top]
    return [(start, starts[n + 1] if n + 1 < len(starts) else len(lines))
            for n, start in enumerate(starts)]


def section_of(lines: Sequence[IndexLine]) -> list[int]:
    """Per line, the position of the top-level heading it stands under (-1: before any)."""
    out = [-1] * len(lines)
    for start, end in top_sections(lines):
        for i in range(start, end):
            out[i] = start
    return out


def summary(lines: list[IndexLine], what: str = "lines moved from MEMORY.md") -> str:
    """A topic pointer's hook: how many lines it holds (``what`` they are), then what they are
    about, in the words of the lines themselves (a pointer's title, a note's first words, a
    heading), so that a session can tell when to open it. The pointer line is shortened to
    the line limit."""
    headings: list[str] = []
    about: list[str] = []
    seen: set[str] = set()
    for line in lines:
        if line.kind in QUIET or _RULE.match(line.text) or SEPARATOR_ROW.match(line.text) \
                or opens_fence(line.text):
            continue
        if line.kind == "heading":
            words = line.heading_text
        elif line.kind == "pointer":
            words = link_title(line.text)
        else:
            words = " ".join(_MARKUP.sub(" ", line.text).split()[:6])
        words = _SPACED.sub(r"\1", words).strip().rstrip(".,;:。、，；：")
        if words and words not in seen:
            seen.add(words)
            (headings if line.kind == "heading" else about).append(words)
    count = sum(1 for line in lines if line.kind not in QUIET)
    head = f"{count} {what}"
    # The sections first: a hook cut to fit still names every part the lines come from.
    about = headings + about
    return f"{head}: {', '.join(about)}" if about else head


def pointers_to(file: str, lines: Iterable[IndexLine]) -> int:
    return sum(1 for line in lines if file in line.targets)


def blocks(lines: Sequence[IndexLine]) -> list[list[int]]:
    """The positions of each run of table lines, and of each fenced code block: each moves
    whole, or not at all."""
    out: list[list[int]] = []
    for i, line in enumerate(lines):
        if line.kind not in ("table", CODE):
            continue
        if out and out[-1][-1] == i - 1 and lines[i - 1].kind == line.kind:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def with_details(taking: list[int], children: Mapping[int, list[int]],
                  going: set[int]) -> list[int]:
    """``taking`` plus every line indented (at any depth) under a line it takes."""
    chosen = set(taking)
    todo = list(taking)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in chosen and child not in going:
                chosen.add(child)
                todo.append(child)
    return sorted(chosen)


_UNDERLINE = re.compile(r" {0,3}(?:=+|-{2,})[ \t]*$")  # underlines the text above: a heading


def gapped(lines: Sequence[IndexLine], taking: Sequence[int], first: int = -1) -> list[IndexLine]:
    """The lines at ``taking`` (sorted) as they move, one blank line kept where only blank
    lines part two of them (a table moved glued to the list item before it would read as
    more of that item); ``first``: the line moved just before them, if any."""
    out: list[IndexLine] = []
    before = first
    for i in taking:
        if before >= 0 and i > before + 1 \
                and all(lines[j].kind == "blank" for j in range(before + 1, i)):
            out.append(IndexLine("", "blank"))
        out.append(lines[i])
        before = i
    return out


def spaced(lines: Sequence[IndexLine]) -> list[str]:
    """The texts of ``lines`` as a topic memory holds them: a blank line kept before a rule
    (``---``) or a row of ``=`` that follows text, which moved without the blank line
    between them would make that text a heading."""
    out: list[str] = []
    before: IndexLine | None = None
    for line in lines:
        if before is not None and before.text.strip() and CODE not in (before.kind, line.kind) \
                and _UNDERLINE.match(line.text):
            out.append("")
        out.append(line.text)
        before = line
    return out
