"""Fitting an over-limit MEMORY.md by giving up the least valuable text first.

In order, stopping as soon as the index fits: long hooks are shortened (their full text
lands in the memory they describe, unless it already says it); detail lines under a pointer
move into that pointer's memory; then, section by section from the least valuable, the
lines that are not pinned move into a topic memory the index points to; then single lines,
least valuable first; only then pinned lines, and lines a user stressed last of all. Each
move is recorded with where it went and why.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from consolidator.index.fit import TOPIC_MAX_BYTES, Limits, chunks
from consolidator.index.parse import IndexLine, classify, link_path, link_title, split_pointer
from consolidator.index.pointers import pointer_line, shorten
from consolidator.index.topic import TopicMemory, topic_file_name, topic_memory
from consolidator.index.value import Worth, parents, worth
from consolidator.store.model import Memory

NOTE_PREFIX = "Index note (moved from MEMORY.md): "
_INDENT = re.compile(r"^(\s*)")
_MARKUP = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+|[*_`#>|]+")


def _norm_words(text: str) -> set[str]:
    return set(re.sub(r"[\W_]+", " ", text.casefold()).split())


def says(memory: Memory, text: str) -> bool:
    """True when every word of ``text`` already stands in ``memory``."""
    known = _norm_words(f"{memory.name} {memory.description} {memory.body}")
    return _norm_words(text) <= known


@dataclass
class Fitter:
    """An index's lines being fitted to ``limits``, with what the fitting moved."""

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
    leftovers: list[str] = field(default_factory=list)  # text with no memory to go to

    def __post_init__(self) -> None:
        self._types: dict[str, str | None] | None = None
        self._nl = len(self.newline.encode())
        self._bytes = sum(self._size(line) for line in self.lines)

    # -- measuring ---------------------------------------------------------------------

    def _size(self, line: IndexLine) -> int:
        return len(line.text.encode("utf-8")) + self._nl

    def fits(self, extra_lines: int = 0, extra_bytes: int = 0) -> bool:
        return (len(self.lines) + extra_lines <= self.limits.max_lines
                and self._bytes + extra_bytes <= self.limits.max_bytes)

    def _set(self, i: int, line: IndexLine) -> None:
        self._bytes += self._size(line) - self._size(self.lines[i])
        self.lines[i] = line

    def _remove(self, positions: Iterable[int]) -> None:
        gone = set(positions)
        self._bytes -= sum(self._size(self.lines[i]) for i in gone)
        self.lines = [line for i, line in enumerate(self.lines) if i not in gone]

    def _insert(self, i: int, new: list[IndexLine]) -> None:
        self._bytes += sum(self._size(line) for line in new)
        self.lines[i:i] = new

    def drop(self, at: int) -> IndexLine:
        """Take line ``at`` out, its text kept nowhere: the last resort for a limit too small
        even for the pointers to what the fitting moved, so the index fits all the same."""
        line = self.lines[at]
        self._remove([at])
        return line

    # -- where text goes ---------------------------------------------------------------

    def keep_text(self, target: str | None, text: str, cut: str, why: str) -> None:
        """Text leaving the index: into the memory it describes unless that memory already
        says ``cut`` (the part leaving), else kept for a topic memory."""
        memory = self.live.get(target or "")
        if memory is not None and self.editable is not None and memory.file not in self.editable:
            memory = None
        if memory is not None and says(memory, cut):
            self.moved.append(f"{why} of {memory.file}: already in the memory, cut")
            return
        if memory is not None:
            self.notes.setdefault(memory.file, []).append(NOTE_PREFIX + text)
            self.moved.append(f"{why} of {memory.file} -> {memory.file}")
            return
        self.leftovers.append(text)
        self.moved.append(f"{why} of {target or 'a line'} -> a topic memory")

    def topics(self, title: str, body: list[IndexLine], fallback: str) -> list[IndexLine]:
        """Topic memories holding ``body`` (split so each stays a readable memory) and the
        pointer lines to them."""
        parts = chunks(body, TOPIC_MAX_BYTES)
        pointers = []
        for number, part in enumerate(parts, 1):
            name = title if len(parts) == 1 else f"{title} part {number}"
            sources = [t for line in part for t in line.targets]
            stamps = [self.live[s].stat.mtime_ns for s in sources if s in self.live]
            types = [t for s in sources if s in self.live and (t := self.live[s].type)]
            kind = Counter(types).most_common(1)[0][0] if types else fallback
            file = topic_file_name(name, self.taken, kind)
            self.taken.add(file)
            topic = topic_memory(file, name, [line.text for line in part],
                                 max(stamps, default=self.mtime_ns), types, self.newline,
                                 sources=sources)
            self.creates.append(topic)
            hook = _summary(part)
            line = pointer_line(topic.memory, self.limits.max_line_chars, title=name, hook=hook)
            pointers.append(classify(line))
        return pointers

    # -- the stages --------------------------------------------------------------------

    def _marks(self) -> list[Worth]:
        if self._types is None:
            self._types = {f: m.type for f, m in self.live.items()}
        return worth(self.lines, self._types, self.limits.max_lines // 2)

    def fit(self) -> None:
        """Shrink the lines until they fit (or nothing movable is left)."""
        if self.fits():
            return
        self._collapse_blanks()
        stages = (self._shorten_hooks, self._details_home, self._sections,
                  self._shorten_hooks, self._lines)
        for stage in stages:
            if self.fits():
                break
            stage(self._marks())
        if self.leftovers:
            notes = [IndexLine(text, "text") for text in self.leftovers]
            self.leftovers = []
            pointers = self.topics("Notes from the index", notes, "notes")
            self._insert(len(self.lines), pointers)
            if not self.fits():
                self._lines(self._marks())
        if not self.fits():
            self._lines(self._marks(), pinned_too=True)

    def _collapse_blanks(self) -> None:
        drop = [i for i, line in enumerate(self.lines) if line.kind == "blank"
                and (i == 0 or self.lines[i - 1].kind == "blank" or i == len(self.lines) - 1)]
        self._remove(drop)
        while self.lines and self.lines[-1].kind == "blank":
            self._remove([len(self.lines) - 1])

    def _shorten_hooks(self, marks: list[Worth]) -> None:
        """Shorten long hooks while the index has too many bytes but not too many lines
        (shortening cannot fix a line count; the lines that then move keep their hooks)."""
        if len(self.lines) > self.limits.max_lines:
            return
        limit = self.limits.max_line_chars
        order = sorted(
            (i for i, line in enumerate(self.lines)
             if line.kind == "pointer" and len(line.text) > limit and not marks[i].stressed),
            key=lambda i: (marks[i].pinned, marks[i].value, -i),
        )
        for i in order:
            if self.fits():
                return
            line = self.lines[i]
            link, sep, hook = split_pointer(line.text)
            title_cut = len(link) + len(sep) > limit - 10
            if title_cut:
                title = shorten(link_title(line.text), limit // 2)
                link, sep = f"- [{title}]({link_path(line.target or '')})", sep or " — "
            room = limit - len(link) - len(sep)
            short = shorten(hook, room) if hook else ""
            self._set(i, classify(link + sep + short if short else link))
            if title_cut or not hook:
                self.keep_text(line.target, line.text, line.text, "long pointer line")
            else:
                cut = hook[len(short.removesuffix("…")):]
                self.keep_text(line.target, hook, cut, "long hook")

    def _owners(self) -> dict[int, str]:
        """Indented detail lines under a pointer line -> that pointer's memory."""
        owners: dict[int, str] = {}
        owner: tuple[int, str] | None = None  # (indent, target)
        for i, line in enumerate(self.lines):
            indent = len(_INDENT.match(line.text).group(1))  # type: ignore[union-attr]
            if line.kind == "pointer" and line.target:
                owner = (indent, line.target)
            elif line.kind == "blank":
                continue
            elif owner is not None and indent > owner[0] and line.kind == "text":
                owners[i] = owner[1]
            else:
                owner = None
        return owners

    def _details_home(self, marks: list[Worth]) -> None:
        owners = self._owners()
        movable = [i for i, target in owners.items() if (not marks[i].pinned or marks[i].held)
                   and target in self.live
                   and (self.editable is None or target in self.editable)]
        done: list[int] = []
        freed = 0
        for i in sorted(movable, reverse=True):
            if self.fits(-len(done), -freed):
                break
            done.append(i)
            freed += self._size(self.lines[i])
        for i in sorted(done):  # noted in the order they were written
            text = self.lines[i].text.strip()
            self.keep_text(owners[i], text, text, "detail line")
        self._remove(done)

    def _sections(self, marks: list[Worth]) -> None:
        heads = [i for i, line in enumerate(self.lines) if line.kind == "heading"]
        sections = []
        for n, start in enumerate(heads):
            end = heads[n + 1] if n + 1 < len(heads) else len(self.lines)
            body = [i for i in range(start + 1, end)
                    if self.lines[i].kind != "blank" and not marks[i].pinned]
            if len(body) > 1:
                mean = sum(marks[i].value for i in body) / len(body)
                sections.append((mean, -start, start, body))
        chosen: list[tuple[int, list[int]]] = []
        saved_lines = saved_bytes = 0
        for _mean, _neg, start, body in sorted(sections):
            if self.fits(-saved_lines, -saved_bytes):
                break
            chosen.append((start, body))
            saved_lines += len(body) - 1
            saved_bytes += sum(self._size(self.lines[i]) for i in body) - 200
        # Replace from the bottom up, so that earlier positions stay valid.
        for start, body in sorted(chosen, reverse=True):
            title = self.lines[start].heading_text
            moved = [self.lines[i] for i in body]
            pointers = self.topics(title, moved, "notes")
            self._remove(body)
            self._insert(body[0], pointers)
            files = ", ".join(p.target or "" for p in pointers)
            self.moved.append(
                f"section {title!r}: {len(body)} lines -> {files} (index over its limits)")

    def _with_emptied_headings(self, taking: list[int]) -> list[int]:
        """``taking`` (sorted) plus each heading all of whose lines it takes: the heading goes
        with them, so no empty heading stays behind and the moved lines keep their context."""
        chosen = set(taking)
        out = set(taking)
        start: int | None = None
        body: list[int] = []
        for i, line in enumerate([*self.lines, IndexLine("", "heading")]):
            if line.kind == "heading":
                if start is not None and body and all(j in chosen for j in body):
                    out.add(start)
                start, body = (i if i < len(self.lines) else None), []
            elif line.kind != "blank":
                body.append(i)
        return sorted(out)

    def _lines(self, marks: list[Worth], pinned_too: bool = False) -> None:
        """Move single lines, least valuable and lowest first, into one topic memory."""
        ours = {topic.file for topic in self.creates}
        under = parents(self.lines)
        children: dict[int, list[int]] = {}
        for child, parent in under.items():
            children.setdefault(parent, []).append(child)
        # A line under a list item or note moves with it, never alone (it would lose what it
        # is a detail of); a detail of a pointer may (its words name the pointer's memory).
        candidates = [i for i, line in enumerate(self.lines)
                      if line.kind != "blank" and (line.kind != "heading" or pinned_too)
                      and (pinned_too or not marks[i].pinned) and not ours & set(line.targets)
                      and not (i in under and self.lines[under[i]].kind != "pointer")]
        heading = {i for i in candidates if self.lines[i].kind == "heading"}
        key = ((lambda i: (i in heading, marks[i].stressed, marks[i].pinned, -i)) if pinned_too
               else (lambda i: (marks[i].value, -i)))
        reserve_bytes = 4 * self.limits.max_line_chars + self._nl
        taking: list[int] = []
        going: set[int] = set()
        bytes_out = 0
        for i in sorted(candidates, key=key):
            parts = max(1, -(-bytes_out // TOPIC_MAX_BYTES))
            if taking and self.fits(parts + 1 - len(taking), parts * reserve_bytes - bytes_out):
                break
            if i in going:
                continue  # already going, under a line taken before it
            group = _with_details([i], children)
            taking += group
            going.update(group)
            bytes_out += sum(self._size(self.lines[j]) for j in group)
        if not taking:
            return
        taking = self._with_emptied_headings(sorted(taking))
        moved = [self.lines[i] for i in taking]
        self._remove(taking)
        pointers = self.topics("More of the index", moved, "notes")
        if self.lines and self.lines[-1].kind != "blank" and pointers:
            pointers = [IndexLine("", "blank"), *pointers]
        self._insert(len(self.lines), pointers)
        why = ("pinned lines (feedback rules, the first section; stressed lines last), as the "
               "index could not fit without them" if pinned_too else "least valuable first")
        self.moved.append(f"{len(moved)} lines -> "
                          f"{', '.join(p.target or '' for p in pointers if p.target)} ({why})")


def _summary(lines: list[IndexLine]) -> str:
    """A topic pointer's hook: how many lines moved, then what they are about, in the words
    of the lines themselves (a pointer's title, a note's first words, a heading), so that a
    session can tell when to open it. The pointer line is shortened to the line limit."""
    about: list[str] = []
    for line in lines:
        if line.kind == "blank":
            continue
        if line.kind == "heading":
            words = line.heading_text
        elif line.kind == "pointer":
            words = link_title(line.text)
        else:
            words = " ".join(_MARKUP.sub(" ", line.text).split()[:6])
        words = words.strip().rstrip(".,;:。、，；：")
        if words and words not in about:
            about.append(words)
    count = sum(1 for line in lines if line.kind != "blank")
    head = f"{count} lines moved from MEMORY.md"
    return f"{head}: {', '.join(about)}" if about else head


def _with_details(taking: list[int], children: Mapping[int, list[int]]) -> list[int]:
    """``taking`` plus every line indented (at any depth) under a line it takes."""
    chosen = set(taking)
    todo = list(taking)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in chosen:
                chosen.add(child)
                todo.append(child)
    return sorted(chosen)
