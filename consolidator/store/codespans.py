"""Where Markdown text is code: fenced blocks and inline code spans, read as CommonMark reads
them where it matters and, where a reading could go either way, taken for prose. A link in
code is no link (see :mod:`consolidator.store.links`), and the index's code lines are not its
pointers (see :func:`consolidator.index.window.fence`): a real link taken for code would
never follow a merge, while an example taken for a link is only rewritten.

Linear in the text, however hostile: fences are paired in one pass from the end, backtick
runs by their lengths.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

# A fence opening or closing a code block: three or more backticks or tildes, indented at
# most three spaces.
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_TICKS = re.compile(r"`+")
_BLANK = re.compile(r"[ \t]*\r?\n?")
# A line that starts a block of its own, ending the paragraph before it (a list item, a
# heading, a quote): an inline code span never runs into it. Only a list numbered 1 may
# interrupt a paragraph; a quoted line after a quoted line goes on with its paragraph.
_BLOCK_START = re.compile(r" {0,3}(?:[-*+][ \t]|1[.)][ \t]|#{1,6}(?:[ \t]|$)|>)")
_QUOTED = re.compile(r" {0,3}>")
# Inside a list or a quote any numbered line starts an item of its own.
_IN_LIST = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]| {0,3}>")
_NUMBERED = re.compile(r"\s{0,12}\d{1,9}[.)][ \t]")


def opens_fence(line: str) -> str:
    """The fence ``line`` opens a code block with ("" if none): a backtick fence's info
    string holds no backtick."""
    found = _FENCE.match(line)
    if found is None or (found.group(1)[0] == "`" and "`" in line[found.end():]):
        return ""
    return found.group(1)


def closes_fence(line: str, fence: str) -> bool:
    """Whether ``line`` closes the block ``fence`` opened: the same character, at least as
    many of it, nothing after but spaces."""
    found = _FENCE.match(line)
    return found is not None and found.group(1)[0] == fence[0] \
        and len(found.group(1)) >= len(fence) and not line[found.end():].strip()


def fence_kinds(lines: Iterable[str]) -> Iterator[str]:
    """Per line, where it stands among fenced code blocks as the detectors read a memory
    (a fence indented under a list item counts): ``"fence"`` for a line that opens or
    closes a block, ``"code"`` for one inside a block, ``""`` for one outside. A block
    closes only on a fence of its own character, at least as long (```` ``` ```` inside a
    ``~~~`` block is code)."""
    fence = ""
    for line in lines:
        text = line.strip()
        if fence:
            if closes_fence(text, fence):
                fence = ""
                yield "fence"
            else:
                yield "code"
        elif (fence := opens_fence(text)):
            yield "fence"
        else:
            yield ""


LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]")  # a list item's first line


def dead_lines(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """Per line, what of it says nothing live, and what would close the block left open after
    it. The kind is ``"fence"`` or ``"code"`` (as :func:`fence_kinds` reads fences),
    ``"comment"`` for a line of an HTML comment (one opening a line runs to its ``-->``; a
    line that is one whole comment is one too), ``""`` for a live line. The closer is the
    fence or ``-->`` that ends the block open after the line, ``""`` where none is open or
    where Markdown ends it on its own: a fence opened inside a list item ends with the item.
    Inside a comment a fence is text, as Markdown reads it."""
    fence = closer = ""
    comment = listed = False
    for line in lines:
        text = line.strip()
        if comment:
            comment = "-->" not in text
            yield "comment", "-->" if comment else ""
        elif fence:
            if closes_fence(text, fence):
                fence = closer = ""
                yield "fence", ""
            else:
                yield "code", closer
        elif text.startswith("<!--") and ("-->" not in text[4:] or text.endswith("-->")):
            comment = "-->" not in text[4:]
            yield "comment", "-->" if comment else ""
        elif (fence := opens_fence(text)):
            closer = "" if listed and line[:1] in " \t" else fence  # a list item's own
            yield "fence", closer
        else:
            if text:
                listed = LIST_ITEM.match(line) is not None or (listed and line[:1] in " \t")
            yield "", ""


def closable(lines: Sequence[str]) -> Callable[[int, str], bool]:
    """For ``lines``, whether a fence opened at line ``i`` is closed by a line after it: one
    never closed (a list item's, say, that the list's end closes) is read as a plain line,
    so nothing after it is taken for code. Worked out in one pass from the end."""
    after = [(0, 0)] * (len(lines) + 1)  # the longest ``` and ~~~ closers after each line
    tick = tilde = 0
    for i in range(len(lines) - 1, -1, -1):
        after[i] = (tick, tilde)
        found = _FENCE.match(lines[i])
        if found is not None and not lines[i][found.end():].strip():
            run = len(found.group(1))
            if found.group(1)[0] == "`":
                tick = max(tick, run)
            else:
                tilde = max(tilde, run)

    def closed(i: int, fence: str) -> bool:
        return after[i][0 if fence[0] == "`" else 1] >= len(fence)

    return closed


def code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every stretch of ``text`` that is code, in order: each fenced block
    (its fences included; a fence never closed is read as a plain line: see
    :func:`closable`) and each inline code span. A run of backticks opens a span that the
    next run of as many closes (a backslash before a backtick keeps it from opening one).
    Markdown pairs them within a paragraph, which a heading, a rule or an HTML block may end
    where this reading does not see it: text counts
    as inline code only where pairing within its paragraph and pairing within its line both
    say so (a link taken for code would never follow a merge; an example taken for a link
    is only rewritten)."""
    if "`" not in text and "~~~" not in text:
        return []
    spans: list[tuple[int, int]] = []
    fence = ""  # the open block's fence
    opened = 0
    paragraph = -1  # where the paragraph being read began (-1: none)
    previous = ""  # the line before
    listed = False  # the paragraph being read is in a list or a quote
    at = 0
    lines = text.split("\n")
    closed = closable(lines)
    for i, line in enumerate(lines):
        end = min(at + len(line) + 1, len(text))
        if fence:
            if closes_fence(line, fence):
                spans.append((opened, end))
                fence = ""
        elif ((found := opens_fence(line)) and closed(i, found)) or _BLANK.fullmatch(line):
            if paragraph >= 0:
                spans += _prose_code(text, paragraph, at)
                paragraph = -1
            if found:
                fence, opened = found, at
        elif paragraph < 0:
            paragraph, listed = at, bool(_IN_LIST.match(line))
        elif (_BLOCK_START.match(line) and not (_QUOTED.match(line) and _QUOTED.match(previous))
              or listed and _NUMBERED.match(line)):
            spans += _prose_code(text, paragraph, at)
            paragraph, listed = at, bool(_IN_LIST.match(line))
        at = end
        previous = line
    if paragraph >= 0:
        spans += _prose_code(text, paragraph, len(text))
    return sorted(spans)


_LINE = re.compile(r"[^\r\n]+")  # a line, whatever ends it (\n, \r\n or \r)


def _prose_code(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The inline code of the paragraph ``text[start:end]``: where pairing its backticks
    within the paragraph and within each line agree."""
    if "`" not in text[start:end]:
        return []
    by_line = [span for line in _LINE.finditer(text, start, end)
               for span in _inline_code(text, line.start(), line.end())]
    return _overlap(_inline_code(text, start, end), by_line)


def _overlap(one: list[tuple[int, int]], other: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The stretches two sorted lists of disjoint spans share."""
    out = []
    i = j = 0
    while i < len(one) and j < len(other):
        a, b = max(one[i][0], other[j][0]), min(one[i][1], other[j][1])
        if a < b:
            out.append((a, b))
        if one[i][1] < other[j][1]:
            i += 1
        else:
            j += 1
    return out


def _inline_code(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The inline code spans of ``text[start:end]``, one paragraph: a run of backticks
    closes at the next run of the same length; one that never closes is a plain backtick,
    and so is a backtick after a backslash (the rest of its run may still open a span)."""
    if "`" not in text[start:end]:
        return []
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, start, end)]
    ahead: dict[int, list[int]] = {}  # run length -> indices of the runs of that length
    for i, (a, b) in enumerate(runs):
        ahead.setdefault(b - a, []).append(i)
    opens = []  # where each run may open a span: past a tick a backslash escapes
    for a, _b in runs:
        slashes = 0
        while a - slashes - 1 >= start and text[a - slashes - 1] == "\\":
            slashes += 1
        opens.append(a + slashes % 2)
    spans = []
    i = 0
    while i < len(runs):
        a, b = opens[i], runs[i][1]
        same = ahead.get(b - a, []) if b > a else []
        k = bisect.bisect_right(same, i)
        if k < len(same):
            j = same[k]
            spans.append((a, runs[j][1]))
            i = j + 1
        else:
            i += 1
    return spans


def in_code(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether position ``at`` lies in one of ``spans`` (sorted, not overlapping)."""
    k = bisect.bisect_right(spans, (at + 1, 0)) - 1  # the last span starting at or before
    return k >= 0 and at < spans[k][1]
