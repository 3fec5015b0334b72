"""Markdown links between memories: finding them, resolving them, rewriting them.
(Which memories link where, and repointing them: :mod:`consolidator.detect.links`.)

One grammar for every reader: the index (pointer lines, repaired links) and detect (which
memories link where, repointing ``[t](old.md)`` and ``[[old-name]]`` to a survivor) agree on
what a link is and which file it names. A link's target is a root-relative ``.md`` file, or it
is not a link to a memory at all (URLs, absolute paths, other files, ``..`` out of the root).

Text in code is not a link: a fenced code block or an inline code span holding
``[t](old.md)`` is an example or a command, kept as written (see
:mod:`consolidator.store.codespans`).

The patterns run in time linear in their text, however hostile (a line of ten thousand
``[x](``): a match can only start at a ``[`` that is not escaped, and each part of a link stops
at the character that could start the next one (a link's text at the next bracket, its target
at the next ``[`` or space, an angle-bracket target at the next ``<``), so no stretch of text
is scanned again from each possible start.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from urllib.parse import quote, unquote

from consolidator.store.codespans import code_spans, in_code

_DRIVE = re.compile(r"[A-Za-z]:")  # a Windows drive: never a memory of the root

# A link starts at a "[" no backslash escapes: none before it, or an even run (`\\[`: an
# escaped backslash). A run longer than MAX_RUN counts as escaping it, whatever its length: a
# lookbehind has a fixed width, and a "[" read as open after an odd run would let a search
# run on through every escaped bracket after it (quadratic on hostile text). The "[" is
# matched first, so a search jumps from one to the next. Its text
# may hold balanced brackets two deep ("[[[maybe_unused]] is not …](x.md)"), its target
# balanced parentheses one deep ("notes(v2).md"), its title any of Markdown's three
# quotings; each alternative starts with its own character, so matching stays linear.
MAX_RUN = 4  # backslashes before a "[" that may still leave it open
_OPEN = r"\[(?:(?<!\\\[)|(?<=(?<!\\)\\\\\[)|(?<=(?<!\\)\\\\\\\\\[))"
_FLAT = r"(?:[^\[\]\\]|\\.)"
_NESTED = r"\[(?:" + _FLAT + r"|\[" + _FLAT + r"*\])*\]"
LINK_RE = re.compile(
    _OPEN + r"((?:" + _FLAT + "|" + _NESTED + r")*)\]"
    r"\(\s*(<[^<>\n]*>|(?:[^()\s\[]|\([^()\s\[]*\))+)"
    r"(\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)")
# A wiki link starts at an unescaped "[" too: `\[[x]]` shows "[[x]]" as words.
WIKI_RE = re.compile(_OPEN + r"\[([^\[\]|#\n]+)(?:[|#][^\[\]\n]*)?\]\]")
# A reference definition ("[1]: notes.md" on a line of its own; "[t][1]" elsewhere uses it):
# groups as LINK_RE's (label, target, title). A footnote ("[^1]: ...") is no link.
REF_RE = re.compile(
    r"^ {0,3}\[(?!\^)((?:[^\[\]\\\n]|\\.){1,999})\]:[ \t]*(<[^<>\n]*>|[^\s<>]+)"
    r"([ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*(?=\r?$)", re.MULTILINE)
_LINK_UNSAFE = set(" ()<>[]#%\\\"'`")
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
        return in_code(self.spans, match.start())


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


def as_words(text: str) -> str:
    """``text`` kept as words: where a link or wiki link stands in it outside code (a dead
    link's title holding ``[[maybe_unused]]``, a C++ attribute), every bracket outside code
    that could open one is escaped, ``\\[[maybe_unused]]``. It shows as written and never
    reads as a link of its own on the next pass, however deep the brackets nest; code is
    left exactly as written."""
    if "[" not in text:
        return text
    spans = code_spans(text)
    if not any(not in_code(spans, m.start()) for pattern in (LINK_RE, WIKI_RE)
               for m in pattern.finditer(text)):
        return text
    return _escape_open(text, spans, bytearray(len(text)))


def _escape_open(text: str, spans: list[tuple[int, int]], keep: bytearray) -> str:
    """``text`` with every "[" escaped that is not escaped already, not in code (``spans``)
    and not where ``keep`` is set."""
    return "".join(
        "\\[" if c == "[" and not keep[i] and not in_code(spans, i) and not _escaped(text, i)
        else c
        for i, c in enumerate(text))


def _escaped(text: str, at: int) -> bool:
    """Whether a backslash escapes the "[" at ``at``, as the link patterns read it: an odd run
    of them before it, or one longer than MAX_RUN."""
    run = 0
    while run <= MAX_RUN and at - run > 0 and text[at - run - 1] == "\\":
        run += 1
    return run % 2 == 1 or run > MAX_RUN


def unlink(text: str, targets: set[str], mark: str) -> str:
    """``text`` with every link to a file in ``targets`` turned into its plain title followed by
    ``(<file> <mark>)``, so its words stay and no link points at a file that is not there; an
    empty ``mark`` leaves the title alone (the file's name where the link has no title), which
    is always shorter than the link.

    The words never join the text around them into a link of their own (``[see
    [t](gone.md)](x.md)``: with the inner link gone, the outer brackets would read as one):
    then the brackets that open no link are escaped first, which shows them as before; and
    where even that would leave a new link, or one a second pass would change, the text is
    left as written."""
    out = _unlink(text, targets, mark)
    if out == text:
        return out
    before = _reads(text)
    if _holds_as_before(before, out, targets, mark):
        return out
    guarded = _unlink(_escape_loose(text), targets, mark)
    return guarded if _holds_as_before(before, guarded, targets, mark) else text


def _reads(text: str) -> set[tuple[str, str]]:
    """What ``text`` links to, as the readers see it: each link's target and wiki link's key."""
    return {("link", m.group(2)) for m in link_matches(text)} \
        | {("wiki", m.group(1)) for m in wiki_matches(text)}


def _holds_as_before(before: set[tuple[str, str]], out: str, targets: set[str],
                     mark: str) -> bool:
    """Whether ``out`` (a text unlinked) reads as no link the text did not hold (``before``,
    what it read as), and a second pass leaves it as it is."""
    return _reads(out) <= before and _unlink(out, targets, mark) == out


def _escape_loose(text: str) -> str:
    """``text`` with every unescaped "[" outside code and outside its links escaped: brackets
    that open nothing, shown as they were."""
    inside = bytearray(len(text))  # 1 where a link or wiki link stands
    for match in (*link_matches(text), *wiki_matches(text)):
        inside[match.start() : match.end()] = b"\1" * (match.end() - match.start())
    return _escape_open(text, code_spans(text), inside)


def _unlink(text: str, targets: set[str], mark: str) -> str:
    """:func:`unlink`, without its guard."""

    def plain(match: re.Match[str]) -> str | None:
        target = local_target(match.group(2))
        if target not in targets:
            return None
        title = as_words(match.group(1).strip())  # escapes kept: they show as written
        note = f"({target} {mark})" if mark else ""
        if match.re is REF_RE:  # the label's uses stay words: "[t][1]" shows as written
            indent = match.group(0)[:match.group(0).index("[")]
            return f"{indent}{title}{': ' if note else ''}{note}{match.group(3) or ''}"
        return " ".join(part for part in (title, note) if part) or target

    return as_plain(sub_links, plain, text)


# Put before the words of an unlinked image, so that its "!" goes with them.
_IMAGE_MARK = "\ue000"


def as_plain(sub: Callable[[Callable[[re.Match[str]], str], str], str],
             words: Callable[[re.Match[str]], str | None], text: str) -> str:
    """``text`` with each link ``sub`` finds replaced by its ``words`` (``None``: left as
    written). An image's mark goes with its link: ``![t](x.md)`` becomes ``t``, not ``!t``
    (where the text holds the private character that marks the place, the "!" stays)."""
    image = _IMAGE_MARK not in text

    def swap(match: re.Match[str]) -> str:
        out = words(match)
        if out is None:
            return match.group(0)
        at, whole = match.start(), match.string
        if image and whole[at - 1 : at] == "!" and _escapes(whole, at - 1) % 2 == 0:
            return _IMAGE_MARK + out
        return out

    out = sub(swap, text)
    # The mark and its "!" go; a Latin word, a bracket, a colon or code before it stays apart
    # from the words ("Wow![B](b.md)" reads "Wow B", "![A](a.md)![B](b.md)" "A B"); Chinese
    # and Japanese need no space.
    return _MARKED.sub(lambda m: m.group(1) + " " if m.group(1) else "", out) if image else out


_MARKED = re.compile(rf"([A-Za-z0-9)\]:`]?)!{_IMAGE_MARK}")


def _escapes(text: str, at: int) -> int:
    """How many backslashes stand right before column ``at`` (an odd count escapes it)."""
    count = 0
    while at - count > 0 and text[at - count - 1] == "\\":
        count += 1
    return count
