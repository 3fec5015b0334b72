"""Markdown links between memories: finding them, resolving them, rewriting them.

One grammar for every reader: the index (pointer lines, repaired links) and detect (which
memories link where, repointing ``[t](old.md)`` and ``[[old-name]]`` to a survivor) agree on
what a link is and which file it names. A link's target is a root-relative ``.md`` file, or it
is not a link to a memory at all (URLs, absolute paths, other files, ``..`` out of the root).

Text in code is not a link: a fenced code block or an inline code span holding
``[t](old.md)`` is an example or a command, kept as written (see :func:`code_spans`).

The patterns run in time linear in their text, however hostile (a line of ten thousand
``[x](``): a match can only start at a ``[`` that is not escaped, and each part of a link stops
at the character that could start the next one (a link's text at the next bracket, its target
at the next ``[`` or space, an angle-bracket target at the next ``<``), so no stretch of text
is scanned again from each possible start.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable, Iterator, Sequence
from urllib.parse import quote, unquote

_DRIVE = re.compile(r"[A-Za-z]:")  # a Windows drive: never a memory of the root

# A link starts at a "[" no backslash escapes (one after an escaped backslash, `\\[`, is
# not escaped). Its text may hold balanced brackets two deep
# ("[[[maybe_unused]] is not …](x.md)"), its target balanced parentheses one deep
# ("notes(v2).md"), its title any of Markdown's three quotings; each alternative starts with
# its own character, so matching stays linear.
_FLAT = r"(?:[^\[\]\\]|\\.)"
_NESTED = r"\[(?:" + _FLAT + r"|\[" + _FLAT + r"*\])*\]"
LINK_RE = re.compile(
    r"(?:(?<!\\)|(?<=(?<!\\)\\\\))\[((?:" + _FLAT + "|" + _NESTED + r")*)\]"
    r"\(\s*(<[^<>\n]*>|(?:[^()\s\[]|\([^()\s\[]*\))+)"
    r"(\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)")
WIKI_RE = re.compile(r"\[\[([^\[\]|#\n]+)(?:[|#][^\[\]\n]*)?\]\]")
# A reference definition ("[1]: notes.md" on a line of its own; "[t][1]" elsewhere uses it):
# groups as LINK_RE's (label, target, title). A footnote ("[^1]: ...") is no link.
REF_RE = re.compile(
    r"^ {0,3}\[(?!\^)((?:[^\[\]\\\n]|\\.){1,999})\]:[ \t]*(<[^<>\n]*>|[^\s<>]+)"
    r"([ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*(?=\r?$)", re.MULTILINE)
_LINK_UNSAFE = set(" ()<>[]#%\\\"'`")
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
    next run of as many closes (a backslash before a backtick keeps it from opening one). Markdown pairs them within a paragraph, which a
    heading, a rule or an HTML block may end where this reading does not see it: text counts
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


def _in_code(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether position ``at`` lies in one of ``spans`` (sorted, not overlapping)."""
    k = bisect.bisect_right(spans, (at + 1, 0)) - 1  # the last span starting at or before
    return k >= 0 and at < spans[k][1]


def local_target(raw: str) -> str | None:
    """The root-relative file a link target names, or ``None`` if it is not a local memory."""
    return resolve_link(raw, "")


def resolve_link(raw: str, folder: str) -> str | None:
    """The root-relative ``.md`` file that a link written in ``folder`` points at, if any."""
    target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    target = target.split("#", 1)[0].strip()
    if not target or "://" in target or target.startswith(("mailto:", "/", "\\")):
        return None
    target = unquote(target.replace("\\", "/"))
    if not target.lower().endswith(".md"):
        return None
    normal = posixpath.normpath(posixpath.join(folder, target) if folder else target)
    if normal.startswith("../") or normal == ".." or _DRIVE.match(normal):
        return None
    return normal


def link_path(rel: str) -> str:
    """A file name as a Markdown link target that reads back as that file name: as it is
    when it can be, in angle brackets for spaces and parentheses, else percent-encoded."""
    unsafe = {c for c in rel if c in _LINK_UNSAFE or ord(c) < 32 or ord(c) == 127}
    if not unsafe:
        return rel
    if unsafe <= {" ", "(", ")"}:
        return f"<{rel}>"
    return quote(rel, safe="/")


def relink(match: re.Match[str], new_path: str) -> str:
    """The link in ``match`` pointed at ``new_path``, keeping its text, anchor and title."""
    raw = match.group(2)
    inner = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    anchor = "#" + inner.split("#", 1)[1] if "#" in inner else ""
    title = match.group(3) or ""
    target = link_path(new_path)
    if target.startswith("<"):  # the anchor belongs inside the brackets: <a b.md#why>
        target = f"{target[:-1]}{anchor}>"
    else:
        target += anchor
    if match.re is REF_RE:
        indent = match.group(0)[:match.group(0).index("[")]
        return f"{indent}[{match.group(1)}]: {target}{title}"
    return f"[{match.group(1)}]({target}{title})"


class _Code:
    """Whether a position of one text is in code, its code spans found on the first question
    (most texts hold no link to ask about)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[tuple[int, int]] | None = None

    def holds(self, match: re.Match[str]) -> bool:
        if self.spans is None:
            self.spans = code_spans(self.text)
        return _in_code(self.spans, match.start())


def link_matches(text: str) -> Iterator[re.Match[str]]:
    """Every Markdown link in ``text`` outside code, inline and reference definitions
    (groups: text or label, target, title)."""
    code = _Code(text)
    yield from (m for m in LINK_RE.finditer(text) if not code.holds(m))
    if "]:" in text:
        yield from (m for m in REF_RE.finditer(text) if not code.holds(m))


def wiki_matches(text: str) -> Iterator[re.Match[str]]:
    """Every ``[[key]]`` link in ``text`` outside code."""
    if "[[" not in text:
        return
    code = _Code(text)
    yield from (m for m in WIKI_RE.finditer(text) if not code.holds(m))


def _outside_code(pattern: re.Pattern[str], swap: Callable[[re.Match[str]], str],
                  text: str) -> str:
    """``text`` with every match of ``pattern`` outside code replaced by ``swap``."""
    code = _Code(text)
    return pattern.sub(lambda m: m.group(0) if code.holds(m) else swap(m), text)


def sub_links(swap: Callable[[re.Match[str]], str], text: str) -> str:
    """``text`` with every link outside code (inline or reference definition) replaced by
    ``swap``."""
    text = _outside_code(LINK_RE, swap, text)
    return _outside_code(REF_RE, swap, text) if "]:" in text else text


def sub_wiki(swap: Callable[[re.Match[str]], str], text: str) -> str:
    """``text`` with every ``[[key]]`` link outside code replaced by ``swap``."""
    return _outside_code(WIKI_RE, swap, text) if "[[" in text else text


def retarget(text: str, old: str, new: str) -> str:
    """Point every link in ``text`` whose local target is ``old`` at ``new``."""

    def swap(match: re.Match[str]) -> str:
        if local_target(match.group(2)) != old:
            return match.group(0)
        return relink(match, new)

    return sub_links(swap, text)


def unlink(text: str, targets: set[str], mark: str) -> str:
    """``text`` with every link to a file in ``targets`` turned into its plain title followed by
    ``(<file> <mark>)``, so its words stay and no link points at a file that is not there."""

    def plain(match: re.Match[str]) -> str:
        target = local_target(match.group(2))
        if target not in targets:
            return match.group(0)
        title = match.group(1).replace("\\[", "[").replace("\\]", "]").strip()
        note = f"({target} {mark})"
        if match.re is REF_RE:  # the label's uses stay words: "[t][1]" shows as written
            indent = match.group(0)[:match.group(0).index("[")]
            return f"{indent}{title}: {note}{match.group(3) or ''}"
        return f"{title} {note}" if title else note

    return sub_links(plain, text)
