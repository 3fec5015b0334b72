"""Step 2 of the rebuild: a pointer for every memory, without ever pushing the index into
shrinking.

A memory counts as reached when a line of the index links it, or names its path without a
link (`_archived/old-plan.md` in code, as lists of archived memories are often written), or a
memory a line links does (a user's own list of memories, a "dormant" list, a topic memory;
topic memories are followed further). New pointers go in only while the index stays within
its limits with room left for Claude Code's own next pointer; the memories left over are
listed in one topic memory the index points to, when that pointer fits with that room left
too, else named.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping, Sequence

from consolidator.detect.links import is_topic, name_table, set_aside
from consolidator.index.parse import IndexLine, classify
from consolidator.index.placing import add_pointers
from consolidator.index.pointers import pointer_line
from consolidator.index.sections import pointers_to
from consolidator.index.shrink import MAX_TOPICS, Fitter
from consolidator.index.topic import UNLISTED
from consolidator.index.window import Limits, leaving, pointer_room, within
from consolidator.store.links import link_matches, resolve_link, wiki_matches
from consolidator.store.model import Memory

UNLISTED_TITLE = "Memories not listed in the index"


def add_missing(
    lines: Sequence[IndexLine], live: Mapping[str, Memory], limits: Limits, newline: str = "\n",
    reached: Iterable[str] = (), names: Mapping[str, Memory] | None = None, root_name: str = "",
) -> tuple[list[IndexLine], list[str], list[Memory]]:
    """``lines`` with a pointer for each memory the index does not reach, as long as the
    index stays within ``limits`` (a new pointer never pushes it into shrinking); the files
    that got one, and the memories left without (rules first, then newest, get the room).

    A memory counts as reached when a line links it, or a memory a line links does (a
    user's own list of memories, a topic memory), and so does one in ``reached`` (a rename
    that a pointer left for review would repoint to it). ``names``: what the index's wiki
    links name, for new pointers in an index that links its memories so; ``root_name``: the
    name of the root's folder, which a path may start from ("`memory/x.md`")."""
    linked = _reachable({t for line in lines for t in line.targets}
                        | _named(lines, live, root_name) | _patterned(lines, live, root_name),
                        live) | set(reached)
    return add_within(lines, [m for m in live.values()
                              if m.file not in linked and not set_aside(m.file)],
                      limits, newline, names=names, known=_Known(live, root_name))


def add_within(
    lines: Sequence[IndexLine], memories: Iterable[Memory], limits: Limits, newline: str,
    spare: int = 1, names: Mapping[str, Memory] | None = None,
    known: Container[str] | None = None,
) -> tuple[list[IndexLine], list[str], list[Memory]]:
    """``lines`` with pointers to as many of ``memories`` as fit within ``limits`` with room
    left for ``spare`` more pointer lines (Claude Code's next memory write adds one, and
    since 2.1.210 a write that leaves the index over its limits fails) and, when not all fit
    and there is room for it, for one more pointer, to the rest; the files added, and the
    memories left over. ``known``: the folder's memories (see
    :func:`~consolidator.index.placing.add_pointers`)."""
    missing = sorted(memories, key=_room_order)
    room = leaving(limits, spare, newline)
    if not missing or not within(lines, room, newline):
        return list(lines), [], missing
    full = add_pointers(list(lines), missing, limits.max_line_chars, names, known)
    if within(full, room, newline):
        return full, sorted(m.file for m in missing), []
    # ... and a blank line and the pointer to the rest, where the index has room for them;
    # else as many pointers as fit, the rest named.
    reserve = leaving(limits, spare + 1, newline, 1, len(newline.encode()))
    target = reserve if within(lines, reserve, newline) else room
    low, high = 0, len(missing) - 1  # the most that fit within the target
    while low < high:
        mid = (low + high + 1) // 2
        if within(add_pointers(list(lines), missing[:mid], limits.max_line_chars, names, known),
                  target, newline):
            low = mid
        else:
            high = mid - 1
    kept = missing[:low]
    out = (add_pointers(list(lines), kept, limits.max_line_chars, names, known) if kept
           else list(lines))
    return out, sorted(m.file for m in kept), missing[low:]


# A memory's path as a line may write it without linking it: a whole token (in code or not),
# root-relative, optionally after "./".
_PATH = re.compile(r"(?<![\w./\\-])(?:\./)?([\w.-]+(?:/[\w.-]+)*\.md)(?![\w/\\-])")


# A family of memories an index line names by a pattern of their paths: the daily logs of
# `memory/YYYY-MM-DD.md` (a date written as letters stands for its digits), or a sub-folder's
# notes, `notes/*.md`, `logs/<topic>.md`. A pattern for a kind of memory at the top
# (`feedback_*.md`) names a convention, not a list, and names none; so does one with more
# than one wildcard (`*-*.md`: no index lists memories so).
_DATE_LETTERS = re.compile(r"(?:YYYY|yyyy)(?:[-_.]?(?:MM|mm)(?:[-_.]?(?:DD|dd))?)?")
_BRACKETED_DATE = re.compile(r"[<{]([YMDymd]{2,4})[>}]")  # {YYYY}-{MM}-{DD}: the letters
_WILD = re.compile(r"(?<!\*)\*(?!\*)|<[\w ]+>|\{[\w ]+\}")  # any name (never `**`)
_TOKEN = re.compile(r"[\w.<>{}*/-]+")  # one run each: linear in the line's length
_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3})(.+)\1")
_ENDS = ".,;:!?"


def _family(token: str, root_name: str = "") -> tuple[str, re.Pattern[str]] | None:
    """The folder and the file names a pattern ``token`` stands for (at most one wildcard,
    so matching a name is linear); None when it is no such pattern, or would name memories
    of every kind."""
    bare = token.rstrip(_ENDS)
    dressed = _EMPHASIS.fullmatch(bare)  # **notes/*.md**: emphasis, not wildcards
    path = (dressed.group(2) if dressed else bare).rstrip(_ENDS).removeprefix("./")
    through = f"{root_name}/" if root_name else ""
    if through and (path.startswith(through) or f"/{through}" in path):
        path = path[path.rfind(through) + len(through) :]  # memory/x.md from the project
    if not path.endswith(".md") or "**" in path or path.startswith(("/", "../")):
        return None
    folder, _, name = path.rpartition("/")
    name = _BRACKETED_DATE.sub(r"\1", name)
    wild = list(_WILD.finditer(name))
    dated = _DATE_LETTERS.search(name)
    overlap = dated is not None and any(w.start() < dated.end() and dated.start() < w.end()
                                        for w in wild)  # {YYYY x}: neither, read right
    if len(wild) > 1 or _WILD.search(folder) or overlap or not (dated or (folder and wild)):
        return None
    parts, at = [], 0
    for match in sorted([*wild, *([dated] if dated else [])], key=lambda m: m.start()):
        parts.append(re.escape(name[at : match.start()]))
        parts.append(r"[^/]+" if match in wild else
                     "".join(r"\d" if c.isalpha() else re.escape(c) for c in match.group(0)))
        at = match.end()
    return folder, re.compile("".join(parts) + re.escape(name[at:]))


def _named(lines: Sequence[IndexLine], live: Mapping[str, Memory], root_name: str = ""
           ) -> set[str]:
    """The memories an index line names by their path without a link (a list of archived
    memories in code; "→ see `memory/x.md`", from the project's folder, through the root's
    own name): the line reaches them, and a pointer of ours would list them twice."""
    out: set[str] = set()
    for line in lines:
        if ".md" not in line.text:
            continue
        for match in _PATH.finditer(line.text):
            path = as_memory(match.group(1), live, root_name)
            if path is not None:
                out.add(path)
    return out


def _patterned(lines: Sequence[IndexLine], live: Iterable[str], root_name: str = ""
               ) -> set[str]:
    """The memories an index line names by a pattern of their paths (see :func:`_family`),
    written as a path of its own (not the end of a Windows path, a home folder's or a
    variable's); each pattern is matched only against its own folder's memories."""
    out: set[str] = set()
    families: dict[str, tuple[str, re.Pattern[str]] | None] = {}
    folders: dict[str, list[str]] = {}
    for file in live:
        folder, _, name = file.rpartition("/")
        folders.setdefault(folder, []).append(name)
    for line in lines:
        text = line.text
        if ".md" not in text:
            continue
        for match in _TOKEN.finditer(text):
            token = match.group(0)
            if ".md" not in token or text[match.start() - 1 : match.start()] in ("\\", "~", "$") \
                    or not ("YYYY" in token.upper() or "/" in token):
                continue
            if token not in families:
                families[token] = _family(token, root_name)
            family = families[token]
            if family is not None:
                folder, names = family
                out.update(f"{folder}/{name}" if folder else name
                           for name in folders.get(folder, ()) if names.fullmatch(name))
    return out


def as_memory(path: str, live: Container[str], root_name: str = "") -> str | None:
    """The memory ``path`` names: itself, or the rest of a path through the root's own
    folder (``memory/x.md`` from the project's folder, when the root is named ``memory``);
    None when it names none."""
    if path in live:
        return path
    through = f"{root_name}/" if root_name else ""
    at = path.rfind(through) if through else -1
    if at >= 0 and (at == 0 or path[at - 1] == "/") and path[at + len(through):] in live:
        return path[at + len(through):]
    return None


class _Known:
    """The memories of the folder as an index may name them: by their path, or by one through
    the root's own folder (see :func:`as_memory`)."""

    def __init__(self, live: Container[str], root_name: str) -> None:
        self._live, self._root_name = live, root_name

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and as_memory(path, self._live, self._root_name) is not None


def _room_order(memory: Memory) -> tuple[int, int, str]:
    rank = {"feedback": 0, "user": 1, "project": 2, "reference": 3}.get(memory.type or "", 4)
    return rank, -memory.stat.mtime_ns, memory.file


def list_unlisted(fitter: Fitter, unlisted: Sequence[Memory], keep_room: bool = True
                  ) -> tuple[list[str], list[str]]:
    """Point to ``unlisted`` from one topic memory, when its pointer fits (``keep_room``: with
    room left for Claude Code's next pointer, as for any pointer a run adds to an index it
    did not fit), or from the one an earlier run made, when the index still points to it
    (extending it costs the index nothing); else name them. Returns (named, listed)."""
    if not unlisted:
        return [], []
    room = int(keep_room)  # pointer lines left free for Claude Code
    lines, _added, rest = add_within(fitter.lines, unlisted, fitter.limits, fitter.newline,
                                     room, known=fitter.live)
    fitter.replace(lines)
    if not rest:
        return [], []
    unlisted = rest
    limit = fitter.limits.max_line_chars
    body = [classify(pointer_line(m, limit)) for m in sorted(unlisted, key=lambda m: m.file)]
    earlier = fitter.earlier_topic(UNLISTED_TITLE)
    listed = earlier is not None and pointers_to(earlier.file, fitter.lines) > 0
    if (listed or fitter.fits(2 + room, fitter.pointer_bytes(body)
                              + room * pointer_room(fitter.limits, fitter.newline))) \
            and len(fitter.creates) < MAX_TOPICS:
        pointers = fitter.topics(UNLISTED_TITLE, body, "notes", UNLISTED)
        fitter.append(pointers)
        fitter.moved.append(f"{len(unlisted)} memories with no room in the index -> "
                            + (", ".join(p.target or "" for p in pointers if p.target)
                               or (earlier.file if earlier else "their list")))
        return [], sorted(m.file for m in unlisted)
    return sorted(m.file for m in unlisted), []  # named: no room for them


def _reachable(linked: set[str], live: Mapping[str, Memory]) -> set[str]:
    """``linked`` plus what the memories among them list (a user's own list of memories: a
    link opening a list item, or a line of links alone; a link in passing, "see [[rule]]"
    inside a sentence, lists nothing), and, transitively, what topic memories list (by any
    link, or by path)."""
    out = set(linked)
    table: dict[str, Memory] | None = None
    names: dict[str, str] | None = None
    frontier = [f for f in out if f in live]
    while frontier:
        memory = live[frontier.pop()]
        folder = memory.file.rpartition("/")[0]
        if is_topic(memory.file):
            targets = {t for m in link_matches(memory.body)
                       if (t := resolve_link(m.group(2), folder)) is not None}
            if "[[" in memory.body:
                if names is None:
                    names = {}
                    for m in live.values():
                        names.setdefault(m.stem.casefold(), m.file)
                        names.setdefault(m.name.casefold(), m.file)
                targets |= {names[key] for w in wiki_matches(memory.body)
                            if (key := w.group(1).strip().casefold()) in names}
            if ".md" in memory.body:
                # Index lines moved into a topic memory reach there what they reached in
                # the index: a path named without a link too ("See `x.md`").
                targets |= {m.group(1) for m in _PATH.finditer(memory.body)
                            if m.group(1) in live}
        else:
            if table is None:
                table = name_table(list(live.values()))
            targets = _listed(memory, folder, table)
        for target in targets - out:
            out.add(target)
            if target in live and is_topic(target):
                frontier.append(target)
    return out


def _listed(memory: Memory, folder: str, table: Mapping[str, Memory]) -> set[str]:
    """The memories ``memory`` lists: the link opening each list item, every link of a line
    of links alone (read as the index's own lines are); in a list of memories (most of its
    lines with a link list one), every link it holds."""
    listed: set[str] = set()
    passing: set[str] = set()
    shaped = lines = 0
    for raw in memory.body.splitlines():
        if "](" not in raw and "[[" not in raw and "]:" not in raw:
            continue
        line = classify(raw, table)
        found = [t for m in link_matches(raw) if (t := resolve_link(m.group(2), folder))] \
            if folder else list(line.targets)
        lines += 1
        passing.update(found)
        if line.kind == "pointer":
            shaped += 1
            listed.update(found if line.listed else found[:1])
    # A list of memories (most of its linking lines list one): all of it is the list.
    return passing if lines and 2 * shaped >= lines else listed
