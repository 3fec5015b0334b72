"""Fitting an over-limit MEMORY.md: the judgment's scope (the safe scope's move of unloaded
lines is :meth:`~consolidator.index.lines.IndexLines.move_unloaded`).

``Fitter.fit``, in order, stopping as soon as the index fits: long hooks are shortened (their
full text lands in the memory they describe, unless it already says it); detail lines under a
pointer move into that pointer's memory; then whole top-level sections (their sub-sections
with them), least valuable first and no more than it takes; then single lines, least
valuable first. Pinned lines (the title and intro, the first section, feedback rules, lines a
user marked as priority) never move: an index that cannot fit without them stays over, and
the plan says why.
"""

from __future__ import annotations

import re

from consolidator.index.lines import MAX_TOPICS, MORE_TITLE, NOTE_PREFIX, IndexLines
from consolidator.index.parse import (
    IndexLine,
    classify,
    link_path,
    link_title,
    split_pointer,
)
from consolidator.index.pointers import shorten
from consolidator.index.sections import (
    QUIET,
    blocks,
    gapped,
    top_sections,
    with_details,
)
from consolidator.index.value import Worth, parents
from consolidator.index.window import (
    HIDDEN,
    pointer_room,
)

__all__ = ["MAX_TOPICS", "MORE_TITLE", "NOTE_PREFIX", "Fitter"]

_INDENT = re.compile(r"^(\s*)")




class Fitter(IndexLines):
    """An index's lines being fitted to ``limits`` (see the module's doc)."""

    def fit(self, sections: bool = True) -> None:
        """Shrink the lines until they fit, moving no pinned line (see the module's doc);
        ``sections=False``: no whole section moves, only single lines."""
        if self.fits():
            return
        self._collapse_blanks()
        stages = (self._shorten_hooks, self._details_home,
                  *((self._sections,) if sections else ()), self._shorten_hooks, self._lines)
        for stage in stages:
            if self.fits():
                break
            stage(self._marks())
        self.flush()
        while not self.fits() and self._lines(self._marks()):
            self.flush()  # the pointer to what moved took room: move a little more
        self._collapse_blanks()  # what moved leaves no run of blank lines behind
        if not self.fits():
            marks = self._marks()
            pinned = sum(1 for i, line in enumerate(self.lines)
                         if marks[i].pinned and line.kind not in QUIET)
            self.why.append(f"{pinned} pinned line(s) (title, first section, feedback rules, "
                            "priority lines) and the pointers to what moved take the room: "
                            "they never move")

    def _shorten_hooks(self, marks: list[Worth]) -> None:
        """Shorten long hooks while the index has too many bytes but not too many lines
        (shortening cannot fix a line count; the lines that then move keep their hooks)."""
        if self._measured()[0] > self.limits.max_lines:
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
            self._set(i, classify(link + sep + short if short else link, self.names))
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
            elif line.kind in QUIET:
                continue
            elif owner is not None and indent > owner[0] and line.kind == "text":
                owners[i] = owner[1]
            else:
                owner = None
        return owners

    def _details_home(self, marks: list[Worth]) -> None:
        owners = self._owners()
        movable = [i for i, target in owners.items() if not marks[i].pinned
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

    def _section_bodies(self, marks: list[Worth]) -> list[tuple[float, int, list[int]]]:
        """Each top-level section's movable lines: (mean value, heading, positions).

        A section takes its sub-sections along; a sub-heading stays only where a pinned line
        under it stays too (so the pinned line keeps its context)."""
        out = []
        for start, end in top_sections(self.lines):
            body = [i for i in range(start + 1, end)
                    if (self.lines[i].kind == "heading" and not self._holds_pinned(i, marks))
                    or (self.lines[i].kind not in ("heading", *QUIET) and not marks[i].pinned)]
            content = [i for i in body if self.lines[i].kind != "heading"]
            if len(body) > 1 and content:
                mean = sum(marks[i].value for i in content) / len(content)
                out.append((mean, start, body))
        return out

    def _section_frees(self, body: list[int]) -> tuple[int, int]:
        """(lines, bytes) moving a section's ``body`` behind one pointer frees (a shared
        pointer may take a blank line too)."""
        return (len(body) - 2,
                sum(self._size(self.lines[i]) for i in body)
                - pointer_room(self.limits, self.newline))

    def _sections(self, marks: list[Worth]) -> None:
        """Move whole top-level sections, least valuable first, and no more than it takes:
        within the least valuable ones, the smallest that is enough, else the largest."""
        pool = self._section_bodies(marks)
        chosen: list[tuple[int, list[int]]] = []
        freed_lines = freed_bytes = 0
        while pool and not self.fits(-freed_lines, -freed_bytes):
            low = min(mean for mean, _s, _b in pool)
            tier = [entry for entry in pool if entry[0] <= low + 0.5]
            enough = [e for e in tier
                      if self.fits(-freed_lines - self._section_frees(e[2])[0],
                                   -freed_bytes - self._section_frees(e[2])[1])]
            if enough:  # the bottom-most of those not much larger than the smallest
                smallest = min(len(e[2]) for e in enough)
                pick = max((e for e in enough if len(e[2]) <= 1.5 * smallest),
                           key=lambda e: e[1])
            else:
                pick = max(tier, key=lambda e: (self._section_frees(e[2])[0]
                                                + self._section_frees(e[2])[1] // 100, e[1]))
            pool.remove(pick)
            lines_out, bytes_out = self._section_frees(pick[2])
            if lines_out <= 0 and bytes_out <= 0:
                continue
            chosen.append((pick[1], pick[2]))
            freed_lines += lines_out
            freed_bytes += bytes_out
        self._move_sections(chosen)

    def fit_tail(self, loaded: list[bool]) -> bool:
        """The other way to fit: first the whole top-level sections at the end of the index
        that Claude Code does not load whole today (``loaded``: per line as read), from the
        last up (after long hooks are shortened, as :meth:`fit` does first), then single
        lines, least valuable first, pinned lines kept. :meth:`fit` goes by value alone and
        may give up a large loaded section while the text past the window stays and becomes
        loaded; this gives up first what no session reads today, then no more than it takes.
        It stops at a section that points to a memory sessions were seen opening: usage says
        what to keep. Whether any section moved (if none, it did nothing)."""
        self._collapse_blanks()
        loaded_now = [loaded[i] for i in self._origin]
        self._shorten_hooks(self._marks())  # as fit does first (no line moves)
        marks = self._marks()
        bodies = {start: body for _mean, start, body in self._section_bodies(marks)}
        chosen: list[tuple[int, list[int]]] = []
        freed_lines = freed_bytes = 0
        for start, end in reversed(top_sections(self.lines)):
            if self.fits(-freed_lines, -freed_bytes) or all(loaded_now[start:end]) \
                    or any(self.used.intersection(line.targets)
                           for line in self.lines[start:end]):
                break  # a section sessions were seen using: the least-used move first
            body = bodies.get(start)
            if body is None:
                continue
            lines_out, bytes_out = self._section_frees(body)
            if lines_out > 0 or bytes_out > 0:
                chosen.append((start, body))
                freed_lines += lines_out
                freed_bytes += bytes_out
        if not chosen:
            return False
        self._move_sections(chosen)
        self.flush()  # the sections sharing "More of the index", pointed to
        self._collapse_blanks()  # what moved leaves no run of blank lines behind
        self.fit(sections=False)
        return True

    def _move_sections(self, chosen: list[tuple[int, list[int]]]) -> None:
        """Each chosen section's lines (heading position, body) behind a pointer: the largest
        get topic memories of their own (up to :data:`MAX_TOPICS` less one); the others,
        headings and all, share "More of the index"."""
        room = self._room_for_topics() - 1  # one stays for "More of the index"
        own = {start for start, _body in sorted(chosen, key=lambda c: -len(c[1]))[:room]}
        shared: list[IndexLine] = []
        # Replace from the bottom up, so that earlier positions stay valid.
        for start, body in sorted(chosen, reverse=True):
            title = self.lines[start].heading_text or MORE_TITLE
            if start not in own:
                end = next((i for i in range(start + 1, len(self.lines))
                            if self.lines[i].kind == "heading"
                            and self.lines[i].level <= self.lines[start].level), len(self.lines))
                whole = set(body) >= {i for i in range(start + 1, end)
                                      if self.lines[i].kind not in QUIET}
                taking = sorted({*body, *([start] if whole else [])})
                shared[:0] = self._with_kept_headings(start, taking)
                self._remove(taking)
                self.moved.append(f"section {title!r}: {len(body)} lines -> a topic memory "
                                  f"({MORE_TITLE!r}, index over its limits)")
                continue
            moved = self._with_kept_headings(start + 1, body)
            pointers = self.topics(title, moved, "notes")
            self._remove(body)
            self._insert(body[0], pointers)
            files = ", ".join(p.target or "" for p in pointers) or "its topic memory"
            self.moved.append(
                f"section {title!r}: {len(body)} lines -> {files} (index over its limits)")
        self.leftovers[:0] = shared

    def _with_kept_headings(self, first: int, taking: list[int]) -> list[IndexLine]:
        """The lines at ``taking`` (sorted, none before ``first``), each run of them under a
        heading that stays in the index led by a copy of it (the nearest heading at or after
        ``first``): in the topic memory they stand under their own heading, not the one
        before them there."""
        out: list[IndexLine] = []
        going = set(taking)
        heading = -1  # the heading the lines stand under
        copied = previous = -1
        for i in range(first, taking[-1] + 1 if taking else first):
            line = self.lines[i]
            if line.kind == "heading":
                heading = i
            if i not in going:
                continue
            if line.kind != "heading" and heading >= 0 and heading not in going \
                    and copied != heading:
                out.append(self.lines[heading])
                copied = heading
            out += gapped(self.lines, [i], previous)
            previous = i
        return out

    def _lines(self, marks: list[Worth]) -> bool:
        """Move single lines, least valuable and lowest first, into "More of the index";
        whether any moved."""
        ours = {topic.file for topic in self.creates}
        under = parents(self.lines)
        children: dict[int, list[int]] = {}
        for child, parent in under.items():
            children.setdefault(parent, []).append(child)
        for block in blocks(self.lines):  # a table moves whole, header and all
            if any(marks[i].pinned for i in block):
                under.update({i: block[0] for i in block})  # held: none moves alone
                continue
            # Each line of the block leads to its first, and the first to all the others:
            # any line taken takes the whole block (linked in linear, not quadratic, size).
            head, rest = block[0], block[1:]
            children.setdefault(head, []).extend(rest)
            for i in rest:
                children.setdefault(i, []).append(head)
        # A line under a list item or note moves with it, never alone (it would lose what it
        # is a detail of); a detail of a pointer may (its words name the pointer's memory).
        candidates = [i for i, line in enumerate(self.lines)
                      if line.kind not in ("blank", "heading", HIDDEN) and not marks[i].pinned
                      and not ours & set(line.targets)
                      and not (i in under and self.lines[under[i]].kind != "pointer")]
        if not candidates:
            return False
        if not (self.leftovers or self._more) and self._room_for_topics() < 1:
            self.why.append(f"more than {MAX_TOPICS} topic memories would be needed")
            return False
        pointer_lines, reserve = (0, 0) if self.leftovers or self._more else (
            2, self.pointer_bytes(self.lines[i] for i in candidates))
        taking: list[int] = []
        going: set[int] = set()
        bytes_out = 0
        for i in sorted(candidates, key=lambda i: (marks[i].value, -i)):
            if taking and self.fits(pointer_lines - len(going), reserve - bytes_out):
                break
            if i in going:
                continue  # already going, under a line taken before it
            group = with_details([i], children, going)
            taking += group
            going.update(group)
            bytes_out += sum(self._size(self.lines[j]) for j in group)
        taking = self._with_emptied_headings(sorted(going))
        self.leftovers += self._with_kept_headings(0, taking)
        self._remove(taking)
        self.moved.append(f"{len(taking)} lines -> a topic memory ({MORE_TITLE!r}, least "
                          "valuable first)")
        return True

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
            elif line.kind not in QUIET:
                body.append(i)
        return sorted(out)
