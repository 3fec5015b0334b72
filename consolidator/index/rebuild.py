"""Planning MEMORY.md's rebuild: pure, from the scan (and what detect merges) to an IndexPlan.

Rules: keep order, headings and hand-written lines; repoint links to
merged-away or renamed files; drop other pointers to missing files, naming each; add memories
that have no pointer under their type's heading; shorten over-long pointer lines, moving the
cut words into the memory they describe; and when the index is still over its line or byte
limit, move whole sections (bottom first: Claude Code loads the top) into topic memories the
index points to. Whatever still cannot be indexed is named in ``dropped``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from consolidator.index.fit import (
    TOPIC_MAX_BYTES,
    Limits,
    chunks,
    collapse_blanks,
    head_that_fits,
    measure,
)
from consolidator.index.parse import (
    IndexLine,
    classify,
    link_path,
    link_title,
    parse_index,
    retarget,
    split_pointer,
)
from consolidator.index.topic import PREFIX as TOPIC_PREFIX
from consolidator.index.topic import TopicMemory, topic_file_name, topic_memory
from consolidator.store.model import MEMORY_TYPES, Memory

__all__ = ["TOPIC_MAX_BYTES", "IndexPlan", "Limits", "measure", "plan_index", "pointer_line"]

_TYPE_HEADINGS = {
    "user": ("user", "users", "about the user", "about me"),
    "feedback": ("feedback", "feedbacks", "preferences", "rules"),
    "project": ("project", "projects"),
    "reference": ("reference", "references", "links"),
}
ELLIPSIS = "…"


@dataclass(frozen=True)
class IndexPlan:
    """The rebuilt index and everything it takes to keep the rebuild lossless."""

    text: str
    changed: bool
    lines: int
    bytes: int
    within_limits: bool
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    repointed: tuple[tuple[str, str], ...] = ()
    dropped: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()
    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # file -> lines to add
    creates: tuple[TopicMemory, ...] = ()


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


def _hook_known(hook: str, memory: Memory | None) -> bool:
    """True when every word of ``hook`` already stands in the memory it describes."""
    if memory is None:
        return False
    known = _norm(f"{memory.name} {memory.description} {memory.body}")
    return set(_norm(hook).split()) <= set(known.split())


def _shorten(text: str, limit: int) -> str:
    """Cut ``text`` at a word boundary so that it plus an ellipsis fits ``limit`` characters."""
    if len(text) <= limit:
        return text
    room = max(limit - len(ELLIPSIS), 0)
    cut = text[:room]
    if " " in cut[room // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:—–-") + ELLIPSIS


def pointer_line(memory: Memory, limit: int) -> str:
    """A new pointer line ``- [name](file) — description``, within ``limit`` characters."""
    target = f"({link_path(memory.file)})"
    room = limit - len(target) - 4 - (20 if memory.description else 0)
    title = _shorten(memory.name.replace("[", "(").replace("]", ")"), max(room, 10))
    head = f"- [{title}]{target}"
    hook = memory.description
    if not hook:
        return head
    return head + " — " + _shorten(hook, max(limit - len(head) - 3, 1))


class _Renames:
    """Which live memory a pointer to a missing file most likely means, looked up by the
    memories' normalised names, stems (and their leading words) and descriptions, so a large
    index with many dangling pointers costs one pass over the memories, not one per pointer.
    """

    def __init__(self, live: Mapping[str, Memory]) -> None:
        self.by_name: dict[str, list[Memory]] = {}
        self.by_stem: dict[str, list[Memory]] = {}
        self.by_stem_head: dict[str, list[Memory]] = {}  # each proper leading-word run
        self.by_description: dict[str, list[Memory]] = {}
        for memory in live.values():
            self.by_name.setdefault(_norm(memory.name), []).append(memory)
            stem = _norm(memory.stem)
            self.by_stem.setdefault(stem, []).append(memory)
            for head in _leading_runs(stem):
                self.by_stem_head.setdefault(head, []).append(memory)
            self.by_description.setdefault(_norm(memory.description), []).append(memory)

    def find(self, line: IndexLine, target: str, linked: set[str]) -> Memory | None:
        """The one memory no line links to yet that matches the pointer, else ``None``.

        It matches when its name is the target's stem or the link's title, when either stem
        is the other's leading words, or when its description is the pointer's hook.
        """
        stem = _norm(target.rsplit("/", 1)[-1][:-3])
        title = _norm(link_title(line.text))
        hook = _norm(split_pointer(line.text)[2])
        candidates = [
            *self.by_name.get(stem, ()),
            *self.by_name.get(title, ()),
            *self.by_stem_head.get(stem, ()),
            *(m for head in _leading_runs(stem) for m in self.by_stem.get(head, ())),
            *(self.by_description.get(hook, ()) if hook else ()),
        ]
        hits = {m.file: m for m in candidates if m.file not in linked}
        return next(iter(hits.values())) if len(hits) == 1 else None


def _leading_runs(words: str) -> list[str]:
    """``"a b c"`` -> ``["a", "a b"]``: every proper run of leading words."""
    parts = words.split(" ")
    return [" ".join(parts[:n]) for n in range(1, len(parts))]


def _reachable(linked: set[str], live: Mapping[str, Memory]) -> set[str]:
    """``linked`` plus what the topic memories among them list, transitively."""
    out = set(linked)
    frontier = [f for f in out if f in live and f.rsplit("/", 1)[-1].startswith(TOPIC_PREFIX)]
    while frontier:
        topic = live[frontier.pop()]
        for line in parse_index(topic.body):
            for target in line.targets:
                if target not in out:
                    out.add(target)
                    if target in live and target.startswith(TOPIC_PREFIX):
                        frontier.append(target)
    return out


def _type_heading(lines: list[IndexLine], mtype: str) -> int | None:
    """The index of the heading that a memory of ``mtype`` belongs under."""
    words = _TYPE_HEADINGS.get(mtype, (mtype,))
    for i, line in enumerate(lines):
        if line.kind == "heading" and any(
            re.search(rf"\b{re.escape(w)}\b", line.heading_text.casefold()) for w in words
        ):
            return i
    return None


def _section_end(lines: list[IndexLine], start: int) -> int:
    """One past the last non-blank line of the section whose heading is at ``start``."""
    end = start + 1
    while end < len(lines) and lines[end].kind != "heading":
        end += 1
    while end > start + 1 and lines[end - 1].kind == "blank":
        end -= 1
    return end


def plan_index(
    text: str | None,
    memories: Iterable[Memory],
    *,
    present: set[str],
    redirects: Mapping[str, str] | None = None,
    index_mtime_ns: int = 0,
    limits: Limits | None = None,
    newline: str = "\n",
    editable: set[str] | None = None,
) -> IndexPlan:
    """Plan the rebuilt index.

    ``memories``: the live memories after this run's merges and archives.
    ``present``: every ``.md`` file that will exist (memories and files that are not).
    ``redirects``: merged-away file -> the file that absorbed it.
    ``editable``: memories that may receive moved index text (default: all of them).
    """
    limits = limits or Limits()
    redirects = dict(redirects or {})
    live = {m.file: m for m in memories}
    original = parse_index(text or "")
    lines = list(original)
    removed: list[str] = []
    repointed: list[tuple[str, str]] = []
    notes: dict[str, list[str]] = {}
    moved: list[str] = []
    overflow_notes: list[str] = []

    def keep_text(target: str | None, detail: str, why: str, whole: str) -> None:
        """Move index text that is leaving the index into its memory (or a topic memory)."""
        memory = live.get(target or "")
        if memory is not None and editable is not None and memory.file not in editable:
            memory = None
        if memory is not None and _hook_known(detail, memory):
            return
        if memory is not None:
            notes.setdefault(memory.file, []).append(f"Index note (moved from MEMORY.md): {detail}")
            moved.append(f"{memory.file}: {why} moved into the memory")
        else:
            overflow_notes.append(whole)
            moved.append(f"{target}: {why} moved into a topic memory")

    # 1. repoint merged-away and renamed pointers; drop other pointers to missing files, and
    #    a repointed second pointer to one file (its hook is kept in the memory).
    linked = {t for line in lines for t in line.targets if t in present}
    pointed = {
        line.target for line in lines if line.target in present and line.target not in redirects
    }
    renames: _Renames | None = None
    for i, line in enumerate(lines):
        new_text = line.text
        for linked_file in line.targets:
            if linked_file in redirects:
                new_text = retarget(new_text, linked_file, redirects[linked_file])
                repointed.append((linked_file, redirects[linked_file]))
        if new_text != line.text:
            lines[i] = line = classify(new_text)
        target = line.target
        if target is not None and target not in present:
            renames = renames or _Renames(live)
            match = renames.find(line, target, linked)
            if match is None:
                removed.append(target)
                lines[i] = IndexLine("", "drop")
                continue
            lines[i] = line = classify(retarget(line.text, target, match.file))
            repointed.append((target, match.file))
            linked.add(match.file)
            target = match.file
        repointed_here = line.text != original[i].text
        if target is not None and target in pointed and repointed_here:
            hook = split_pointer(line.text)[2] or line.text
            keep_text(target, hook, "duplicate pointer's hook", line.text)
            lines[i] = IndexLine("", "drop")
            continue
        if target is not None:
            pointed.add(target)
    lines = [line for line in lines if line.kind != "drop"]

    # 2. shorten over-long pointer lines; what is cut goes into the memory it describes.
    for i, line in enumerate(lines):
        if line.kind != "pointer" or len(line.text) <= limits.max_line_chars:
            continue
        link, sep, hook = split_pointer(line.text)
        title_cut = len(link) + len(sep) > limits.max_line_chars - 10
        if title_cut:
            title = _shorten(link_title(line.text), limits.max_line_chars // 2)
            link, sep = f"- [{title}]({link_path(line.target or '')})", sep or " — "
        room = limits.max_line_chars - len(link) - len(sep)
        lines[i] = classify(link + sep + _shorten(hook, room) if hook else link)
        detail = line.text if title_cut or not hook else hook
        keep_text(line.target, detail, "long index hook", line.text)

    # 3. add memories that no line links to (any more), under the heading of their type. A
    #    memory listed in a topic memory the index points to is indexed already.
    linked = _reachable({t for line in lines for t in line.targets}, live)
    added: list[str] = []
    section_ends: dict[str, int] = {}  # type -> where its next new line goes
    for memory in sorted(live.values(), key=lambda m: (m.type or "~", m.file)):
        if memory.file in linked:
            continue
        new_line = classify(pointer_line(memory, limits.max_line_chars))
        mtype = memory.type if memory.type in MEMORY_TYPES else "other"
        end = section_ends.get(mtype)
        if end is None:
            at = _type_heading(lines, mtype)
            if at is None:
                if lines and lines[-1].kind != "blank":
                    lines.append(IndexLine("", "blank"))
                lines.append(classify(f"## {mtype.capitalize()}"))
                at = len(lines) - 1
            end = _section_end(lines, at)
        lines.insert(end, new_line)
        # Every section at or after the new line moves down by one.
        section_ends = {t: e + 1 if e >= end else e for t, e in section_ends.items()}
        section_ends[mtype] = end + 1
        added.append(memory.file)
        linked.add(memory.file)

    # 4. fit the line and byte limits by moving whole sections, bottom first.
    taken = set(present)
    creates: list[TopicMemory] = []
    mtimes = {m.file: m.stat.mtime_ns for m in live.values()}

    def new_topic(title: str, body_lines: list[str], sources: Iterable[str]) -> TopicMemory:
        name = topic_file_name(title, taken)
        taken.add(name)
        stamps = [mtimes[s] for s in sources if s in mtimes] or [index_mtime_ns]
        types = [t for s in sources if s in live and (t := live[s].type)]
        topic = topic_memory(name, title, body_lines, max(stamps), types, newline)
        creates.append(topic)
        mtimes[topic.file] = topic.mtime_ns
        return topic

    def move_out(title: str, body: list[IndexLine]) -> list[IndexLine]:
        """Topic memories for ``body`` (several when it would pass TOPIC_MAX_BYTES, so each
        stays a readable memory), and the pointer lines to them."""
        parts = chunks(body, TOPIC_MAX_BYTES)
        pointers = []
        for number, part in enumerate(parts, 1):
            name = title if len(parts) == 1 else f"{title} part {number}"
            sources = [t for line in part for t in line.targets]
            topic = new_topic(name, [line.text for line in part], sources)
            pointers.append(classify(pointer_line(topic.memory, limits.max_line_chars)))
        return pointers

    if overflow_notes:
        lines += move_out("Notes", [IndexLine(text, "text") for text in overflow_notes])

    def render(items: list[IndexLine]) -> str:
        return newline.join(line.text for line in items) + newline if items else ""

    def fits(items: list[IndexLine]) -> bool:
        count, size = measure(render(items))
        return count <= limits.max_lines and size <= limits.max_bytes

    if not fits(lines):
        lines = collapse_blanks(lines)
    heads = [i for i, line in enumerate(lines) if line.kind == "heading"]
    for start in reversed(heads):
        if fits(lines):
            break
        end = _section_end(lines, start)
        body = lines[start + 1 : end]
        if len(body) <= 1:
            continue
        pointers = move_out(lines[start].heading_text, body)
        lines[start + 1 : end] = pointers
        files = ", ".join(p.target or "" for p in pointers)
        moved.append(f"section {lines[start].heading_text!r} ({len(body)} lines) -> {files}")

    if not fits(lines):
        lines = collapse_blanks(lines)
        keep = head_that_fits(lines, limits, newline)
        if keep < len(lines):
            tail = lines[keep:]
            lines = lines[:keep] + move_out("More of the index", tail)
            moved.append(f"last {len(tail)} lines -> {', '.join(p.target or '' for p in lines[keep:])}")

    dropped: list[str] = []
    while not fits(lines) and lines:
        gone = lines.pop()
        dropped.append(gone.target or gone.text[:60])

    changed = [line.text for line in lines] != [line.text for line in original]
    result = render(lines) if changed else (text or "")
    count, size = measure(result)
    return IndexPlan(
        text=result,
        changed=changed,
        lines=count,
        bytes=size,
        within_limits=count <= limits.max_lines and size <= limits.max_bytes,
        added=tuple(added),
        removed=tuple(removed),
        repointed=tuple(repointed),
        dropped=tuple(dropped),
        moved=tuple(moved),
        notes={k: tuple(v) for k, v in notes.items()},
        creates=tuple(creates),
    )
