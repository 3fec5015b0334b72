"""Step 1 of the index rebuild: links to files that moved or went.

A link to a merged-away file is pointed at its survivor, and a pointer to a missing file at
the memory it most likely means now (a rename; only in the ``all`` scope, where a guess is
reviewed). A link to a file that is missing, or that this run archives, becomes its plain
text, marked, so the words stay loaded and no link dangles; the line goes only when the
same text is already live elsewhere. A heading never grows: where mending its link to a
moved file would lengthen it, the link becomes its words alone. Every function takes and
returns plain values; positions stay put (a line leaving is marked to drop) until
:func:`relink_lines` puts them together.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from consolidator.detect.links import repoint as repoint_links
from consolidator.detect.links import unwiki
from consolidator.index.parse import (
    IndexLine,
    Names,
    classify,
    link_title,
    retarget,
    split_pointer,
    unlink,
)
from consolidator.index.said import said_form, says
from consolidator.store.model import Memory

__all__ = ["Relinked", "Targets", "dead_links", "drop_repeats", "plain_headings",
           "relink_lines", "repoint", "unlink_dead"]


@dataclass(frozen=True)
class Targets:
    """What an index's links may point at once this run is done.

    ``live``: the memories, by file; ``present``: the files there will be; ``redirects``:
    merged-away file -> its survivor; ``archived``: files this run archives with no
    successor; ``guess``: whether a pointer to a missing file may be taken for a rename (the
    ``all`` scope, where a guess is reviewed); ``names``: what a ``[[key]]`` may name (the
    memories before and after this run)."""

    live: Mapping[str, Memory]
    present: set[str]
    redirects: Mapping[str, str]
    archived: set[str]
    guess: bool = True
    names: Names = field(default_factory=dict)


@dataclass(frozen=True)
class Relinked:
    """Step 1's index lines, every link to a merged-away, renamed, archived or missing file
    fixed, and what was fixed."""

    lines: tuple[IndexLine, ...]
    removed: tuple[str, ...] = ()
    repointed: tuple[tuple[str, str], ...] = ()
    unlinked: tuple[tuple[str, str], ...] = ()
    origin: tuple[int, ...] = ()  # each line's position in the index as read
    missing: tuple[str, ...] = ()  # pointers' files missing before this run
    linked_missing: tuple[str, ...] = ()  # files the index's own text links, missing


_DROP = IndexLine("", "drop")  # a line leaving; positions stay put until step 1 ends


_NON_WORD = re.compile(r"[\W_]+")  # what separates words


def _norm(text: str) -> str:
    return _NON_WORD.sub(" ", text.casefold()).strip()


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

        It matches when its name is the target's stem or the link's title, when its file
        has the target's name in another folder (moved, not renamed), when either stem is the
        other's leading words, or when its description is the pointer's hook.
        """
        stem = _norm(target.rsplit("/", 1)[-1][:-3])
        title = _norm(link_title(line.text))
        hook = _norm(split_pointer(line.text)[2])
        candidates = [
            *self.by_name.get(stem, ()),
            *self.by_stem.get(stem, ()),
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


class _LiveText:
    """The lines already live in the root (memory lines and descriptions, index lines),
    normalised, so a pointer's text is dropped only when it is said word for word elsewhere.

    Only the lines that could equal one of ``wanted`` are normalised: a memory, or a line,
    that does not hold a wanted line's first word is passed over.
    """

    def __init__(
        self, live: Mapping[str, Memory], lines: Sequence[IndexLine], wanted: set[str]
    ) -> None:
        self.seen: set[str] = set()
        firsts = {w.split(" ", 1)[0].casefold() for w in wanted if w}
        for memory in live.values():
            description = said_form(memory.description)
            if description in wanted:
                self.seen.add(description)
            folded = memory.body.casefold()
            if any(first in folded for first in firsts):
                self.seen.update(n for line in memory.body.splitlines()
                                 if any(first in line.casefold() for first in firsts)
                                 and (n := said_form(line)) in wanted)
        self.says = [self._said(line) for line in lines]
        self.index = Counter(norm for said in self.says for norm in said)

    @staticmethod
    def _said(line: IndexLine) -> set[str]:
        return {said_form(line.text), said_form(_kept_text(line))} - {""}

    def holds(self, text: str, at: int) -> bool:
        """Whether ``text`` of index line ``at`` is live elsewhere."""
        norm = said_form(text)
        if not norm:
            return True
        return norm in self.seen or self.index[norm] - (norm in self.says[at]) > 0

    def forget(self, at: int) -> None:
        """Index line ``at`` is leaving: its words no longer count as live."""
        self.index.subtract(self.says[at])
        self.says[at] = set()


def _kept_text(line: IndexLine) -> str:
    """The words a pointer carries beyond its link: its hook, else its title."""
    return split_pointer(line.text)[2] or link_title(line.text)


def relink_lines(original: Sequence[IndexLine], to: Targets) -> Relinked:
    """Repoint merged-away and renamed links; a pointer to a file that is gone keeps its words
    as plain, marked text unless they are live already.

    ``to.guess=False`` (the safe scope) fixes only what this run's own moves call for: a
    pointer to a file that was missing already, or that a rename may explain, is left as it
    is, and a second pointer to a survivor stays."""
    live, present, archived, names = to.live, to.present, to.archived, to.names
    lines, repointed = repoint(original, to)
    dead_at = dead_links(lines, present, archived, to.guess)
    # A second pointer a merge made is a line Claude Code loads: dropping it, even where the
    # survivor says its words, is a judgment (the safe scope repoints it and keeps it).
    lines, repeats = drop_repeats(lines, original, live, dead_at) if to.guess \
        else (list(lines), [])
    lines, gone, unlinked = unlink_dead(lines, original, live, dead_at, archived, names)
    lines, bare = plain_headings(lines, to)
    # Files missing before this run: neither there, nor merged away or archived by it.
    missing = {(t, t in line.pointers) for line in original for t in line.targets
               if t not in present and t not in to.redirects and t not in archived}
    # A heading link left to a file that will not be there (its plain words could not be
    # kept apart): said too.
    missing |= {(t, False) for line in lines if line.kind == "heading"
                for t in line.targets if t not in present}
    return Relinked(
        lines=tuple(line for line in lines if line.kind != "drop"),
        removed=tuple(repeats + gone),
        repointed=tuple(dict.fromkeys(repointed)),  # a file once, however many lines link it
        unlinked=tuple(dict.fromkeys(unlinked + bare)),
        origin=tuple(i for i, line in enumerate(lines) if line.kind != "drop"),
        missing=tuple(sorted({t for t, pointed in missing if pointed})),
        linked_missing=tuple(sorted({t for t, pointed in missing if not pointed})),
    )


def repoint(
    lines: Sequence[IndexLine], to: Targets
) -> tuple[list[IndexLine], list[tuple[str, str]]]:
    """``lines`` with links to merged-away files pointed at their survivor, and a pointer to a
    missing file at the one memory it most likely means now (a rename); with each (old, new).

    A memory some line already links to is never taken for a rename, so no memory gets a
    second pointer by guesswork.
    """
    linked = {t for line in lines for t in line.targets if t in to.present}
    renames: _Renames | None = None
    out: list[IndexLine] = []
    repointed: list[tuple[str, str]] = []
    for line in lines:
        line, moves = _redirected(line, to.redirects, to.names)
        repointed += moves
        target = line.target
        if to.guess and target is not None and target not in to.present \
                and target not in to.archived:
            renames = renames or _Renames(to.live)  # built only for an index with a dead pointer
            match = renames.find(line, target, linked)
            renamed = retarget(line.text, target, match.file) if match is not None else ""
            if match is not None and renamed != line.text:  # a wiki pointer is not guessed at
                line = classify(renamed, to.names)
                repointed.append((target, match.file))
                linked.add(match.file)
        out.append(line)
    return out, repointed


def _redirected(
    line: IndexLine, redirects: Mapping[str, str], names: Names
) -> tuple[IndexLine, list[tuple[str, str]]]:
    """``line`` with each link to a merged-away file (Markdown or wiki) pointed at its
    survivor, as links in memory bodies are, and those moves."""
    olds = redirects.keys() & set(line.targets)
    if not olds:
        return line, []
    text, changed = repoint_links(line.text, "", redirects, names)
    if _grows(line, text):  # a heading: each link that fits, one by one (the rest go plain)
        text, changed = line.text, []
        # those that shrink it first, so that they make room for the rest
        for old in sorted(olds, key=lambda o: (len(redirects[o]) - len(o), o)):
            trial, moved = repoint_links(text, "", {old: redirects[old]}, names)
            if moved and not _grows(line, trial):
                text, changed = trial, changed + moved
    moves = [(old, redirects[old]) for old in dict.fromkeys(changed)]
    return (classify(text, names) if text != line.text else line), moves


def dead_links(
    lines: Sequence[IndexLine], present: set[str], archived: set[str], missing: bool = True
) -> dict[int, set[str]]:
    """Line position -> the files it links to that will not be there: a pointer's own memory,
    and any link to a file this run archives (a link inside a sentence to some other missing
    file is the user's to fix)."""
    dead_at: dict[int, set[str]] = {}
    for i, line in enumerate(lines):
        dead = {t for t in line.targets
                if t not in present and (t in line.pointers and missing or t in archived)}
        if dead:
            dead_at[i] = dead
    return dead_at


def drop_repeats(
    lines: Sequence[IndexLine],
    original: Sequence[IndexLine],
    live: Mapping[str, Memory],
    dead_at: Mapping[int, set[str]],
) -> tuple[list[IndexLine], list[str]]:
    """A second pointer to one memory that a merge (or rename) made marked to drop, when the
    memory already says its words; with the memories whose pointer went. Positions stay."""
    out = list(lines)
    removed: list[str] = []
    pointed: set[str] = set()
    for i, line in enumerate(lines):
        target = line.target
        if i in dead_at or target is None:
            continue
        if target in pointed and line.text != original[i].text:
            memory = live.get(target)
            if memory is not None and says(memory, _kept_text(line)):
                removed.append(target)
                out[i] = _DROP
                continue
        pointed.add(target)
    return out, removed


def unlink_dead(
    lines: Sequence[IndexLine],
    original: Sequence[IndexLine],
    live: Mapping[str, Memory],
    dead_at: Mapping[int, set[str]],
    archived: set[str],
    names: Names | None = None,
) -> tuple[list[IndexLine], list[str], list[tuple[str, str]]]:
    """Dead links turned into their plain text, marked ``archived`` or ``missing``, so the
    words stay loaded and no link dangles; a dead pointer whose words are live elsewhere is
    marked to drop instead. With the files whose pointer lost its link, and each
    (file, mark). Positions stay."""
    out = list(lines)
    removed: list[str] = []
    unlinked: list[tuple[str, str]] = []
    if not dead_at:
        return out, removed, unlinked
    live_text = _LiveText(live, original, {said_form(_kept_text(lines[i])) for i in dead_at})
    for i, dead in dead_at.items():
        line = lines[i]
        removed += [t for t in line.pointers if t in dead]
        if line.target in dead and set(line.pointers) <= dead:
            if live_text.holds(_kept_text(line), i):
                live_text.forget(i)
                out[i] = _DROP
                continue
        text = line.text
        for files, mark in ((dead & archived, "archived"), (dead - archived, "missing")):
            text = unwiki(unlink(text, files, mark), files, mark, names or {})
        if _grows(line, text):
            text = line.text
        if text != line.text:  # else its words could not be kept apart: left as written
            unlinked += [(t, "archived" if t in archived else "missing") for t in sorted(dead)]
        out[i] = classify(text, names)
    return out, removed, unlinked


def plain_headings(
    lines: Sequence[IndexLine], to: Targets
) -> tuple[list[IndexLine], list[tuple[str, str]]]:
    """Each heading's links to a file this run moves away, which repointing or marking would
    have lengthened (see :func:`_grows`), turned into their plain words: shorter than the
    link, so the heading stays in the window and no link points at a file the run moved. (A
    heading's link to a file missing before this run is the user's to fix: it is reported.)
    With each (file, ``merged`` or ``archived``). Positions stay."""
    out = list(lines)
    bare: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        if line.kind != "heading":
            continue
        gone = {t for t in line.targets
                if t not in to.present and (t in to.redirects or t in to.archived)}
        if not gone:
            continue
        text = unwiki(unlink(line.text, gone, ""), gone, "", to.names)
        if text != line.text and not _grows(line, text):
            out[i] = classify(text, to.names)
            bare += [(t, "merged" if t in to.redirects else "archived")
                     for t in sorted(gone) if t not in out[i].targets]
    return out, bare


def _grows(line: IndexLine, text: str) -> bool:
    """Whether ``text`` would make heading ``line`` longer. A heading never moves out of the
    loaded window (the rebuild keeps every heading), so the bytes it gained would push the
    window's last lines out: its link to a moved file is taken out instead, its words kept
    (:func:`plain_headings`)."""
    return line.kind == "heading" and len(text.encode()) > len(line.text.encode())
