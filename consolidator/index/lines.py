"""An index's lines while a rebuild changes them: measured as Claude Code will count them
once written, edited with running totals, and where the text leaving them goes (the memory a
line describes, else a topic memory the index points to).

:class:`IndexLines` also makes the safe scope's one move (``move_unloaded``): only lines
Claude Code never loaded (past the window, see :mod:`consolidator.index.window`) move, section
by section, into at most a few topic memories the index points to; runs of blank lines close
up. Nothing a session reads changes. The judgment's fit is :class:`~consolidator.index.shrink.
Fitter`, built on it.

Every move is recorded with where it went and why. A topic memory already made by an
earlier run, with the title a new one would take, is extended rather than repeated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from consolidator.index.parse import (
    IndexLine,
    Names,
    classify,
)
from consolidator.index.pointers import pointer_line
from consolidator.index.said import says
from consolidator.index.sections import (
    QUIET,
    gapped,
    pointers_to,
    section_of,
    spaced,
    summary,
    top_sections,
)
from consolidator.index.topic import (
    OVERFLOW,
    UNLISTED,
    TopicMemory,
    extended,
    topic_body,
    topic_file_name,
    topic_memory,
)
from consolidator.index.value import Worth, worth
from consolidator.index.window import (
    HIDDEN,
    TOPIC_MAX_BYTES,
    Limits,
    chunks,
    line_cost,
    trimmed,
)
from consolidator.store.model import Memory
from consolidator.store.names import TOPIC_PREFIX

NOTE_PREFIX = "Index note (moved from MEMORY.md): "
MORE_TITLE = "More of the index"
MAX_TOPICS = 3  # topic memories one plan may create or extend


@dataclass
class IndexLines:
    """An index's lines being changed within ``limits``, with what moved and where."""

    lines: list[IndexLine]
    live: Mapping[str, Memory]
    editable: set[str] | None
    limits: Limits
    newline: str
    taken: set[str]
    mtime_ns: int
    notes: dict[str, list[str]] = field(default_factory=dict)
    moved: list[str] = field(default_factory=list)
    creates: list[TopicMemory] = field(default_factory=list)
    leftovers: list[IndexLine] = field(default_factory=list)  # for "More of the index"
    why: list[str] = field(default_factory=list)  # why the index could not fit
    used: frozenset[str] = frozenset()  # memories sessions were seen opening
    names: Names | None = None  # what a [[key]] may name

    def __post_init__(self) -> None:
        self._types: dict[str, str | None] | None = None
        self._nl = len(self.newline.encode())
        self._bytes = sum(self._size(line) for line in self.lines)
        self._count = sum(1 for line in self.lines if line.kind != HIDDEN)
        self._trim: tuple[int, int] | None = None  # see _trimmed
        self._origin = list(range(len(self.lines)))  # where each line stood at the start
        self._more: list[IndexLine] = []  # what "More of the index" holds so far

    # -- measuring and editing ---------------------------------------------------------

    def _size(self, line: IndexLine) -> int:
        return line_cost(line, self._nl)

    def pointer_bytes(self, lines: Iterable[IndexLine]) -> int:
        """The most a pointer to a topic of ``lines`` (and the blank line before it) takes:
        its hook quotes their words, so a character may take up to 4 bytes unless all of
        them are ASCII. With the blank line, such a pointer takes 2 lines."""
        width = 1 if all(line.text.isascii() for line in lines) else 4
        return width * self.limits.max_line_chars + 2 * self._nl

    def _trimmed(self) -> tuple[int, int]:
        """(lines, bytes) of the blank lines Claude Code trims: those before the first line
        it counts (after a frontmatter block or a comment too) and after the last one
        (worked out again only after the lines change)."""
        if self._trim is None:
            self._trim = trimmed(self.lines, self.newline)
        return self._trim

    def _measured(self) -> tuple[int, int]:
        """(lines, bytes) as Claude Code will count them once written (see
        :func:`~consolidator.index.window.size`: a rewrite writes every line with
        ``newline``), from the running totals."""
        lines, used = self._trimmed()
        return self._count - lines, self._bytes - used

    def fits(self, extra_lines: int = 0, extra_bytes: int = 0) -> bool:
        count, used = self._measured()
        return (count + extra_lines <= self.limits.max_lines
                and used + extra_bytes <= self.limits.max_bytes)

    def over(self) -> tuple[int, int]:
        """(lines, bytes) over the limits now (0 where within)."""
        count, used = self._measured()
        return (max(count - self.limits.max_lines, 0),
                max(used - self.limits.max_bytes, 0))

    def replace(self, lines: list[IndexLine]) -> None:
        """Take ``lines`` as the index's lines (measured afresh)."""
        self.lines = lines
        self._bytes = sum(self._size(line) for line in lines)
        self._count = sum(1 for line in lines if line.kind != HIDDEN)
        self._trim = None

    def _set(self, i: int, line: IndexLine) -> None:
        self._bytes += self._size(line) - self._size(self.lines[i])
        self.lines[i] = line
        self._trim = None

    def _remove(self, positions: Iterable[int]) -> None:
        gone = set(positions)
        self._bytes -= sum(self._size(self.lines[i]) for i in gone)
        self._count -= sum(1 for i in gone if self.lines[i].kind != HIDDEN)
        self.lines = [line for i, line in enumerate(self.lines) if i not in gone]
        self._trim = None

    def _insert(self, i: int, new: list[IndexLine]) -> None:
        self._bytes += sum(self._size(line) for line in new)
        self._count += sum(1 for line in new if line.kind != HIDDEN)
        self.lines[i:i] = new
        self._trim = None

    def _collapse_blanks(self) -> None:
        """Close up runs of blank lines (and blank lines at either end): not content."""
        drop = [i for i, line in enumerate(self.lines) if line.kind == "blank"
                and (i == 0 or self.lines[i - 1].kind == "blank")]
        self._remove_tracked(drop)
        while self.lines and self.lines[-1].kind == "blank":
            self._remove_tracked([len(self.lines) - 1])

    def _remove_tracked(self, positions: list[int]) -> None:
        gone = set(positions)
        self._origin = [o for i, o in enumerate(self._origin) if i not in gone]
        self._remove(positions)

    def append(self, pointers: list[IndexLine]) -> None:
        """``pointers`` after the last line Claude Code counts, after one blank line: blank
        lines and comments after it, which it does not count, stay after them (what follows
        a blank line makes it count)."""
        if not pointers:
            return
        at = next((i + 1 for i in range(len(self.lines) - 1, -1, -1)
                   if self.lines[i].kind not in ("blank", HIDDEN)), len(self.lines))
        if at and self.lines[at - 1].kind != "blank":
            pointers = [IndexLine("", "blank"), *pointers]
        self._insert(at, pointers)

    # -- where text goes ---------------------------------------------------------------

    def keep_text(self, target: str | None, text: str, cut: str, why: str) -> None:
        """Text leaving the index: into the memory it describes unless that memory already
        says ``cut`` (the part leaving), else kept for a topic memory."""
        memory = self.live.get(target or "")
        if memory is not None and self.editable is not None and memory.file not in self.editable:
            memory = None
        if memory is not None and says(memory, cut, text[: len(text) - len(cut)]
                                       if text.endswith(cut) else ""):
            self.moved.append(f"{why} of {memory.file}: already in the memory, cut")
            return
        if memory is not None:
            self.notes.setdefault(memory.file, []).append(NOTE_PREFIX + text)
            self.moved.append(f"{why} of {memory.file} -> {memory.file}")
            return
        self.leftovers.append(IndexLine(text, "text"))
        self.moved.append(f"{why} of {target or 'a line'} -> a topic memory")

    def _ours(self, file: str | None) -> Memory | None:
        """The topic memory an earlier run made at ``file``, when it may be extended."""
        memory = self.live.get(file or "")
        if memory is None or not memory.file.startswith(TOPIC_PREFIX) or "/" in memory.file:
            return None
        if self.editable is not None and memory.file not in self.editable:
            return None
        return memory

    def topics(self, title: str, body: list[IndexLine], fallback: str,
               reason: str = OVERFLOW) -> list[IndexLine]:
        """Topic memories holding ``body`` and the pointer lines to them (none for a topic
        memory the index already points to elsewhere). ``reason``: ``OVERFLOW`` for lines
        moved out of the index, ``UNLISTED`` for pointers to memories it has no room for
        (a list of memories, a reference whatever their types).

        A pointer in ``body`` to a topic memory an earlier run made is replaced by what that
        memory holds, and that memory takes ``body`` (so a section that moves in two steps
        ends in one file); so does an earlier topic memory of the same title.
        """
        moving = body
        body, reused = self._absorb(title, body)
        if reused is None:
            title = self._fresh_title(title)
        parts = chunks(body, TOPIC_MAX_BYTES)
        pointers = []
        for number, part in enumerate(parts, 1):
            name = title if len(parts) == 1 else f"{title} part {number}"
            sources = [t for line in part for t in line.targets]
            stamps = [self.live[s].stat.mtime_ns for s in sources if s in self.live]
            types = [t for s in sources if s in self.live and (t := self.live[s].type)]
            if reason == UNLISTED:
                types = ["reference"]
            kind = Counter(types).most_common(1)[0][0] if types else fallback
            old = reused if number == 1 else None
            if old is not None:
                file = old.file
                stamps.append(old.stat.mtime_ns)
            else:
                file = topic_file_name(name, self.taken, kind)
                self.taken.add(file)
            texts = spaced(part)
            newest = max(stamps, default=self.mtime_ns)
            topic = (extended(old, texts, newest, sources, name, reason) if old is not None
                     else topic_memory(file, name, texts, newest, types, self.newline,
                                       reason, sources=sources))
            self.creates.append(topic)
            if old is not None and pointers_to(old.file, self.lines) > pointers_to(old.file,
                                                                                     moving):
                continue  # a line that stays in the index points to it already
            held = sum(1 for line in part if line.kind not in QUIET)
            hook = (summary(part, f"{'memory' if held == 1 else 'memories'} MEMORY.md has no "
                                  "room for") if reason == UNLISTED else summary(part))
            line = pointer_line(topic.memory, self.limits.max_line_chars, title=name, hook=hook)
            pointers.append(classify(line, self.names))
        return pointers

    def _fresh_title(self, title: str) -> str:
        """``title``, numbered when a topic memory of this plan has it already: no two
        topics read alike in the index."""
        used = {t.title for t in self.creates}
        name, n = title, 2
        while name in used:
            name, n = f"{title} ({n})", n + 1
        return name

    def _absorb(self, title: str, body: list[IndexLine]) -> tuple[list[IndexLine],
                                                                   Memory | None]:
        """``body`` with the first pointer to an earlier topic memory replaced by its lines,
        and that memory; else ``body`` after the lines of an earlier topic of ``title``."""
        made = {t.file for t in self.creates}
        for n, line in enumerate(body):
            old = self._ours(line.target) if line.kind == "pointer" else None
            if old is not None and old.file not in made:
                inner = [classify(text, self.names) for text in topic_body(old)]
                return body[:n] + inner + body[n + 1:], old
        same = self.earlier_topic(title)
        if same is not None:
            return [classify(text, self.names) for text in topic_body(same)] + body, same
        return body, None

    def earlier_topic(self, title: str) -> Memory | None:
        """The topic memory of ``title`` an earlier run made, when this plan may extend it."""
        same = self._ours(topic_file_name(title, set(), "notes"))
        if same is None or same.file in {t.file for t in self.creates}:
            return None
        return same

    def _holds_pinned(self, at: int, marks: Sequence[Worth]) -> bool:
        """Whether the sub-section headed at ``at`` keeps a pinned line (its heading then
        stays with it, so the line keeps its context and a second run reads it the same)."""
        level = self.lines[at].level
        for i in range(at + 1, len(self.lines)):
            line = self.lines[i]
            if line.kind == "heading" and line.level <= level:
                return False
            if line.kind not in ("heading", *QUIET) and marks[i].pinned:
                return True
        return False

    def _room_for_topics(self) -> int:
        return MAX_TOPICS - len(self.creates)

    def marks(self) -> list[Worth]:
        """Each line's worth, as the lines stand now."""
        return self._marks()

    def _marks(self) -> list[Worth]:
        if self._types is None:
            self._types = {f: m.type for f, m in self.live.items()}
        return worth(self.lines, self._types, self.limits.max_lines // 2, self.used)

    def flush(self) -> None:
        """The lines kept for "More of the index" into one topic memory, pointed to last
        (a second flush rebuilds that memory with everything, and its pointer)."""
        if not self.leftovers:
            return
        moved, self.leftovers = self._more + self.leftovers, []
        if self._more:
            made = self.creates.pop()
            at = next(i for i in range(len(self.lines) - 1, -1, -1)
                      if made.file in self.lines[i].targets)
            gone = [at - 1, at] if at and self.lines[at - 1].kind == "blank" else [at]
            self._remove(gone)
            self.taken.discard(made.file)
        self._more = moved
        self.append(self.topics(MORE_TITLE, moved, "notes"))

    # -- the safe scope ----------------------------------------------------------------

    def move_unloaded(self, loaded: Sequence[bool]) -> None:
        """Move the lines Claude Code does not load (``loaded``: per line) into topic
        memories, one per top-level section they belong to (at most :data:`MAX_TOPICS`),
        each replaced by a pointer. Pinned lines, top-level headings and pointers to topic
        memories stay; blank runs close up. Lines a session reads are never touched."""
        self._collapse_blanks()
        if self.fits():
            return
        keep_loaded = [loaded[i] for i in self._origin]
        marks = self._marks()
        section = section_of(self.lines)
        tops = {start for start, _end in top_sections(self.lines)}
        groups: dict[int, list[int]] = {}
        for i, line in enumerate(self.lines):
            if keep_loaded[i] or line.kind in QUIET or marks[i].pinned and line.kind != "heading":
                continue
            if i in tops or (line.kind == "pointer" and (line.target or "").startswith(
                    TOPIC_PREFIX)):
                continue
            if line.kind == "heading" and self._holds_pinned(i, marks):
                continue
            groups.setdefault(section[i], []).append(i)
        order = sorted(groups)
        # A section's own topic must free a line or bytes (see _frees); sections that would
        # not, two or more, share one topic with the sections past MAX_TOPICS, headings and
        # all (together they free lines); a single one stays where it is.
        freeing = [s for s in order if self._frees(groups[s])]
        lone = [s for s in order if s not in freeing]
        if len(freeing) > MAX_TOPICS or len(lone) > 1:
            # Sections with a topic of their own come before every shared one: each group
            # is then replaced from the last up, and no move shifts another's lines.
            first = min(lone + freeing[MAX_TOPICS - 1:])
            own = [s for s in freeing[:MAX_TOPICS - 1] if s < first]
            shared = [s for s in order if s not in own]
            merged = [i for s in shared for i in
                      ([s] if s >= 0 and not keep_loaded[s]
                       and not self._holds_pinned(s, marks) else []) + groups[s]]
            groups = {s: groups[s] for s in own}
            groups[-2] = sorted(merged)
            self.why.append(f"the lines past Claude Code's window span {len(order)} sections: "
                            f"{len(shared)} of them share one topic memory")
        else:
            groups = {s: groups[s] for s in freeing}
        if not groups:
            return
        for start, taking in sorted(groups.items(), key=lambda kv: kv[1][0], reverse=True):
            if start >= 0 and start != -2:
                title = self.lines[start].heading_text or MORE_TITLE
            else:
                title = MORE_TITLE
            moved = gapped(self.lines, taking)
            pointers = self.topics(title, moved, "notes")
            self._remove(taking)
            self._insert(taking[0], pointers)
            files = ", ".join(p.target or "" for p in pointers) or "a topic memory"
            self.moved.append(f"{len(moved)} line(s) of {title!r} past Claude Code's window "
                              f"-> {files}")
        self._collapse_blanks()

    def _frees(self, taking: list[int]) -> bool:
        """Whether moving the lines at ``taking`` behind one pointer frees a line or bytes:
        a lone line no longer than the pointer that would replace it frees neither, and only
        adds a memory and a step for a session to take."""
        moved = [self.lines[i] for i in taking]
        if sum(1 for line in moved if line.kind != HIDDEN) > 1:
            return True
        return sum(self._size(line) for line in moved) > self.pointer_bytes(moved) - self._nl
