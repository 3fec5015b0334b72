"""What of MEMORY.md Claude Code loads: its window, measured as Claude Code measures it.

Claude Code (since 2.1.211) counts only the index's loaded content: a frontmatter block at
the top and block HTML comments (``<!-- … -->`` lines) are not content; leading blank lines
are trimmed. It loads the first ``max_lines`` content lines, cut at the last line that ends
within ``max_bytes`` (UTF-8). Lines past that were never loaded: moving them is safe. Lines
inside the window are what every session reads: moving, shortening or rewording one is a
judgment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from consolidator.index.parse import IndexLine, parse_index
from consolidator.store.codespans import closable, closes_fence, opens_fence

HIDDEN = "hidden"  # the kind of a line Claude Code does not count (frontmatter, a comment)
CODE = "code"  # a line of a fenced code block: no heading, link or rule, and it moves whole
TOPIC_MAX_BYTES = 512 * 1024  # well under the 1 MiB past which a file is not read as a memory


@dataclass(frozen=True)
class Limits:
    max_lines: int = 200
    max_bytes: int = 25000
    max_line_chars: int = 150


def hide(lines: Sequence[IndexLine]) -> list[IndexLine]:
    """``lines`` with the frontmatter block and block HTML comments re-kinded ``hidden``: they
    cost nothing against the limits, link nothing, and never move."""
    out = list(lines)
    start = 0
    if out and out[0].text.strip() == "---":
        end = next((i for i in range(1, len(out)) if out[i].text.strip() in ("---", "...")),
                   None)
        if end is not None:
            for i in range(end + 1):
                out[i] = IndexLine(out[i].text, HIDDEN)
            start = end + 1
    i = start
    while i < len(out):
        text = out[i].text.strip()
        if text.startswith("<!--"):
            end = next((j for j in range(i, len(out)) if "-->" in out[j].text
                        and (j > i or out[j].text.index("-->") > out[j].text.index("<!--"))),
                       None)
            if end is not None and out[end].text.rstrip().endswith("-->"):
                for j in range(i, end + 1):
                    out[j] = IndexLine(out[j].text, HIDDEN)
                i = end + 1
                continue
        i += 1
    return fence(out)


def fence(lines: list[IndexLine]) -> list[IndexLine]:
    """``lines`` with each fenced code block (```` ``` ```` or ``~~~``, markers included)
    re-kinded ``code``: a ``#`` inside is a comment, not a heading; a NEVER inside is code.
    A fence never closed opens nothing (see :func:`~consolidator.store.links.closable`)."""
    fence = ""
    closed = closable([line.text if line.kind != HIDDEN else "" for line in lines])
    for i, line in enumerate(lines):
        if line.kind == HIDDEN:
            continue
        if not fence:
            fence = opens_fence(line.text)
            if not fence or not closed(i, fence):  # never closed: a plain line
                fence = ""
                continue
        elif closes_fence(line.text, fence):
            fence = ""
        lines[i] = IndexLine(line.text, CODE)
    return lines


def line_cost(line: IndexLine, newline_bytes: int) -> int:
    """What one line costs against the byte limit (nothing, for a hidden line)."""
    return 0 if line.kind == HIDDEN else len(line.text.encode("utf-8")) + newline_bytes


def counted(lines: Sequence[IndexLine]) -> list[int]:
    """Positions of the lines Claude Code counts: not hidden, leading blank lines trimmed."""
    out: list[int] = []
    for i, line in enumerate(lines):
        if line.kind == HIDDEN or (line.kind == "blank" and not out):
            continue
        out.append(i)
    while out and lines[out[-1]].kind == "blank":
        out.pop()
    return out


def trimmed(lines: Sequence[IndexLine], newline: str = "\n") -> tuple[int, int]:
    """(lines, bytes) of the blank lines Claude Code trims: those before the first line it
    counts (after a frontmatter block or a comment too) and after the last one."""
    nl = len(newline.encode())
    first = next((i for i, line in enumerate(lines) if line.kind not in ("blank", HIDDEN)),
                 len(lines))  # none: every blank line is trimmed
    gone = [line for line in lines[:first] if line.kind == "blank"]
    for i in range(len(lines) - 1, first, -1):
        if lines[i].kind == "blank":
            gone.append(lines[i])
        elif lines[i].kind != HIDDEN:
            break
    return len(gone), sum(line_cost(line, nl) for line in gone)


def newline_of(text: str | None) -> str:
    """The line ending most lines of ``text`` end with (CRLF on a tie): the one a rewrite
    writes."""
    crlf = text.count("\r\n") if text else 0
    return "\r\n" if crlf and 2 * crlf >= (text or "").count("\n") else "\n"


def line_endings(text: str) -> list[int]:
    """The bytes of each line's own ending, line by line as :func:`~consolidator.index.parse.
    parse_index` splits ``text``: 2 for CRLF, 1 for LF, none for a last line without one. A
    file whose lines end in both ways is measured as it is, not as one of them."""
    if not text:
        return []
    parts = text.removesuffix("\n").split("\n")
    out = [2 if part.endswith("\r") else 1 for part in parts]
    if not text.endswith("\n"):
        out[-1] = 1 if parts[-1].endswith("\r") else 0
    return out


def as_written(original: Sequence[IndexLine], lines: Sequence[IndexLine], newline: str,
               endings: Sequence[int], limits: Limits) -> str:
    """``lines`` as the text a rewrite writes. In an index whose lines end in both ways
    (``endings``: the original's, see :func:`line_endings`), a line kept from ``original``
    keeps its own ending and a new or changed one takes ``newline``; else every line ends
    with ``newline``. Kept endings are given up where they would cost bytes the one ending
    would not, unless the index still leaves room for Claude Code's next pointer."""
    one = "".join(line.text + newline for line in lines)
    if len(endings) != len(original) or len({end for end in endings if end}) < 2:
        return one
    ends = [newline] * len(lines)
    matcher = SequenceMatcher(None, [line.text for line in original],
                              [line.text for line in lines], autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            if endings[block.a + k]:
                ends[block.b + k] = "\r\n" if endings[block.a + k] == 2 else "\n"
    kept = "".join(line.text + end for line, end in zip(lines, ends, strict=True))
    if measure(kept)[1] <= measure(one)[1] or holds(*measure(kept), leaving(limits, 1, newline)):
        return kept
    return one


def _costs(lines: Sequence[IndexLine], newline: str,
           endings: Sequence[int] | None) -> list[int]:
    """What each line costs against the byte limit: with its own ending, when ``endings``
    gives them, else with ``newline``."""
    nl = len(newline.encode())
    if endings is None or len(endings) != len(lines):
        return [line_cost(line, nl) for line in lines]
    return [line_cost(line, end) for line, end in zip(lines, endings, strict=True)]


def loaded(lines: Sequence[IndexLine], limits: Limits, newline: str = "\n",
           endings: Sequence[int] | None = None) -> list[bool]:
    """Per line, whether Claude Code loads it into a session (hidden lines: never);
    ``endings``: each line's own ending (see :func:`line_endings`), if known."""
    costs = _costs(lines, newline, endings)
    out = [False] * len(lines)
    used = 0
    for n, i in enumerate(counted(lines)):
        used += costs[i]
        if n >= limits.max_lines or used > limits.max_bytes:
            break
        out[i] = True
    # Blank and trailing lines between loaded ones are loaded too (a trimmed blank line).
    return out


def size(lines: Sequence[IndexLine], newline: str = "\n",
         endings: Sequence[int] | None = None) -> tuple[int, int]:
    """(lines, UTF-8 bytes) of the content Claude Code counts (``endings``: as for
    :func:`loaded`)."""
    costs = _costs(lines, newline, endings)
    positions = counted(lines)
    return len(positions), sum(costs[i] for i in positions)


def pointer_room(limits: Limits, newline: str = "\n") -> int:
    """The bytes a pointer line may take whatever it says: ``max_line_chars`` characters of
    up to 4 bytes, and its newline."""
    return 4 * limits.max_line_chars + len(newline.encode())


def leaving(limits: Limits, pointers: int, newline: str = "\n", lines: int = 0,
            used: int = 0) -> Limits:
    """``limits`` less the room of ``pointers`` pointer lines (see :func:`pointer_room`) and
    of ``lines`` more lines taking ``used`` bytes. Claude Code's next memory write adds a
    pointer line, and since 2.1.210 a write that leaves the index over its limits fails."""
    return Limits(limits.max_lines - pointers - lines,
                  limits.max_bytes - pointers * pointer_room(limits, newline) - used,
                  limits.max_line_chars)


def holds(count: int, used: int, limits: Limits) -> bool:
    """Whether an index of ``count`` lines and ``used`` bytes is within ``limits``."""
    return count <= limits.max_lines and used <= limits.max_bytes


def within(lines: Sequence[IndexLine], limits: Limits, newline: str = "\n",
           endings: Sequence[int] | None = None) -> bool:
    return holds(*size(lines, newline, endings), limits)


def over_by(count: int, used: int, limits: Limits) -> str:
    """How far over its limits an index of ``count`` lines and ``used`` bytes is, in words
    (empty when it is within them)."""
    parts = []
    if count > limits.max_lines:
        parts.append(f"{count - limits.max_lines} line(s) over {limits.max_lines}")
    if used > limits.max_bytes:
        parts.append(f"{used - limits.max_bytes} byte(s) over {limits.max_bytes}")
    return " and ".join(parts)


def measure(text: str) -> tuple[int, int]:
    """(lines, UTF-8 bytes) of an index text as Claude Code counts them: its frontmatter and
    block HTML comments left out, leading and trailing blank lines trimmed, each line with
    its own ending."""
    return size(hide(parse_index(text)), endings=line_endings(text))


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
