"""Planning MEMORY.md's rebuild: pure, from the scan (and what detect merges) to an IndexPlan.

An index within its limits keeps every line as it is; the rebuild only
- repoints links to merged-away files at their survivor, and a pointer whose file was renamed
  at the memory it now is;
- turns a link to a file that is missing or that this run archived into its plain text,
  marked, so the words stay loaded and no link dangles (the line goes only when the same
  text is already live elsewhere);
- adds a pointer for each memory that has none, where a person would put it.
Only when the index is over its line or byte limit does it shrink, least valuable text first
(see :mod:`consolidator.index.shrink`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from consolidator.index.fit import TOPIC_MAX_BYTES, Limits, measure
from consolidator.index.parse import (
    IndexLine,
    classify,
    link_title,
    parse_index,
    retarget,
    split_pointer,
    unlink,
)
from consolidator.index.pointers import add_pointers, pointer_line
from consolidator.index.shrink import Fitter, says
from consolidator.index.topic import PREFIX as TOPIC_PREFIX
from consolidator.index.topic import TopicMemory
from consolidator.store.model import INDEX_NAME, Memory

__all__ = ["TOPIC_MAX_BYTES", "IndexPlan", "Limits", "measure", "plan_index", "pointer_line"]


@dataclass(frozen=True)
class IndexPlan:
    """The rebuilt index and everything it takes to keep the rebuild lossless."""

    text: str
    changed: bool
    lines: int
    bytes: int
    within_limits: bool
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()  # files whose pointer lost its link (text kept or live)
    repointed: tuple[tuple[str, str], ...] = ()
    dropped: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()
    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # file -> lines to add
    creates: tuple[TopicMemory, ...] = ()
    unlinked: tuple[tuple[str, str], ...] = ()  # (file, "missing" | "archived"): text kept
    over_limits: bool = False  # the index had to shrink


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


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


class _LiveText:
    """The lines already live in the root (memory lines and descriptions, index lines),
    normalised, so a pointer's text is dropped only when it is said word for word elsewhere.

    Only the lines that could equal one of ``wanted`` are normalised: a memory whose text
    does not hold a wanted line's first word is passed over.
    """

    def __init__(
        self, live: Mapping[str, Memory], lines: list[IndexLine], wanted: set[str]
    ) -> None:
        self.seen: set[str] = set()
        firsts = {w.split(" ", 1)[0] for w in wanted if w}
        for memory in live.values():
            description = _norm(memory.description)
            if description in wanted:
                self.seen.add(description)
            folded = memory.body.casefold()
            if any(first in folded for first in firsts):
                self.seen.update(n for line in memory.body.splitlines()
                                 if (n := _norm(line)) in wanted)
        self.says = [self._said(line) for line in lines]
        self.index = Counter(norm for said in self.says for norm in said)

    @staticmethod
    def _said(line: IndexLine) -> set[str]:
        return {_norm(line.text), _norm(_kept_text(line))} - {""}

    def holds(self, text: str, at: int) -> bool:
        """Whether ``text`` of index line ``at`` is live elsewhere."""
        norm = _norm(text)
        if not norm:
            return True
        return norm in self.seen or self.index[norm] - (norm in self.says[at]) > 0

    def forget(self, at: int) -> None:
        """Index line ``at`` is leaving: its words no longer count as live."""
        self.index.subtract(self.says[at])
        self.says[at] = set()


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


def _kept_text(line: IndexLine) -> str:
    """The words a pointer carries beyond its link: its hook, else its title."""
    return split_pointer(line.text)[2] or link_title(line.text)


def plan_index(
    text: str | None,
    memories: Iterable[Memory],
    *,
    present: set[str],
    redirects: Mapping[str, str] | None = None,
    archived: Iterable[str] = (),
    index_mtime_ns: int = 0,
    limits: Limits | None = None,
    newline: str = "\n",
    editable: set[str] | None = None,
    index_name: str = INDEX_NAME,
    occupied: Iterable[str] = (),
) -> IndexPlan:
    """Plan the rebuilt index.

    ``memories``: the live memories after this run's merges and archives.
    ``present``: every ``.md`` file that will exist (memories and files that are not).
    ``redirects``: merged-away (or superseded) file -> the file that absorbed it.
    ``archived``: files this run moves into the archive with no successor.
    ``editable``: memories that may receive moved index text (default: all of them).
    ``occupied``: every other name in the root's top folder (folders, links, other files): a
    topic memory never takes one of them.
    """
    limits = limits or Limits()
    redirects = dict(redirects or {})
    archived = set(archived) - set(redirects)
    live = {m.file: m for m in memories}
    original = parse_index(text or "")
    lines = list(original)
    removed: list[str] = []
    repointed: list[tuple[str, str]] = []
    unlinked: list[tuple[str, str]] = []

    # 1. repoint merged-away and renamed links; a pointer to a file that is gone keeps its
    #    words as plain, marked text unless they are live already.
    linked = {t for line in lines for t in line.targets if t in present}
    pointed: set[str] = set()
    renames: _Renames | None = None
    dead_at: dict[int, set[str]] = {}
    for i, line in enumerate(lines):
        new_text = line.text
        for linked_file in line.targets:
            if linked_file in redirects:
                new_text = retarget(new_text, linked_file, redirects[linked_file])
                repointed.append((linked_file, redirects[linked_file]))
        line = classify(new_text) if new_text != line.text else line
        target = line.target
        if target is not None and target not in present and target not in archived:
            renames = renames or _Renames(live)
            match = renames.find(line, target, linked)
            if match is not None:
                line = classify(retarget(line.text, target, match.file))
                repointed.append((target, match.file))
                linked.add(match.file)
        lines[i] = line
        dead = {t for t in line.targets if t not in present and (t == line.target or t in archived)}
        if dead:
            dead_at[i] = dead
            continue
        if line.target is not None and line.target in pointed and line.text != original[i].text:
            # A second pointer to one memory after a merge: kept unless the memory says it.
            memory = live.get(line.target)
            if memory is not None and says(memory, _kept_text(line)):
                removed.append(line.target)
                lines[i] = IndexLine("", "drop")
                continue
        if line.target is not None:
            pointed.add(line.target)
    if dead_at:
        wanted = {_norm(_kept_text(lines[i])) for i in dead_at}
        live_text = _LiveText(live, original, wanted)
        for i, dead in dead_at.items():
            line = lines[i]
            if line.target in dead:
                removed.append(line.target or "")
                if live_text.holds(_kept_text(line), i):
                    live_text.forget(i)
                    lines[i] = IndexLine("", "drop")
                    continue
            new_text = unlink(line.text, dead & archived, "archived")
            new_text = unlink(new_text, dead - archived, "missing")
            unlinked += [(t, "archived" if t in archived else "missing") for t in sorted(dead)]
            lines[i] = classify(new_text)
    lines = [line for line in lines if line.kind != "drop"]

    # 2. a pointer for every memory that has none (one listed in a topic memory the index
    #    points to has one).
    linked = _reachable({t for line in lines for t in line.targets}, live)
    missing = [m for m in live.values() if m.file not in linked]
    added = sorted(m.file for m in missing)
    if missing:
        lines = add_pointers(lines, missing, limits.max_line_chars)

    # 3. only an index over its limits shrinks, least valuable text first.
    fitter = Fitter(
        lines, live, editable, limits, newline,
        taken=set(present) | set(occupied) | {index_name}, mtime_ns=index_mtime_ns,
    )
    over = not fitter.fits()
    fitter.fit()
    lines = fitter.lines
    dropped: list[str] = []
    ours = {topic.file for topic in fitter.creates}
    while not fitter.fits() and lines:
        # Only a limit too small for the pointers to the topic memories gets here: drop
        # other lines first, so what moved stays reachable as long as anything can be.
        at = next((i for i in range(len(lines) - 1, -1, -1)
                   if not ours & set(lines[i].targets)), len(lines) - 1)
        gone_line = lines.pop(at)
        dropped.append(gone_line.target or gone_line.text[:60])
        fitter.lines = lines
        fitter.__post_init__()

    changed = [line.text for line in lines] != [line.text for line in original]
    result = newline.join(line.text for line in lines) + newline if changed and lines else (
        "" if changed else (text or ""))
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
        moved=tuple(fitter.moved),
        notes={k: tuple(v) for k, v in fitter.notes.items()},
        creates=tuple(fitter.creates),
        unlinked=tuple(unlinked),
        over_limits=over,
    )
