"""Planning MEMORY.md's rebuild: pure, from the scan (and what detect merges) to an IndexPlan.

An index within its limits keeps every line as it is; the rebuild only
- repoints links to merged-away files at their survivor, and a pointer whose file was renamed
  at the memory it now is (a ``[[name]]`` link is a link to the memory it names, as in
  memory bodies);
- turns a link to a file that is missing or that this run archived into its plain text,
  marked, so the words stay loaded and no link dangles (the line goes only when the same
  text is already live elsewhere);
- adds a pointer for each memory that has none, where a person would put it.
  A new pointer goes in only while the index stays within its limits with room left for
  Claude Code's own next pointer.
Only when the index is over its line or byte limit (measured as Claude Code measures it, see
:mod:`consolidator.index.window`) does it shrink: in the ``safe`` scope only the lines Claude
Code does not load move; in the ``all`` scope (a judgment) it is fitted, least valuable text
first, pinned lines kept (see :mod:`consolidator.index.shrink`).

:func:`plan_index` runs four steps, each a function of its own that takes and returns plain
values: :func:`relink_lines` (itself :func:`repoint`, :func:`dead_links`, :func:`drop_repeats`
and :func:`unlink_dead`), :func:`add_missing` (:mod:`consolidator.index.additions`),
:func:`shrink` and :func:`assemble`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from consolidator.detect.links import name_table, unwiki
from consolidator.detect.links import repoint as repoint_links
from consolidator.index.additions import add_missing, list_unlisted
from consolidator.index.parse import (
    IndexLine,
    Names,
    classify,
    link_title,
    parse_index,
    retarget,
    split_pointer,
    unlink,
)
from consolidator.index.pointers import pointer_line
from consolidator.index.said import said_form, says
from consolidator.index.shrink import Fitter
from consolidator.index.topic import TopicMemory
from consolidator.index.window import (
    TOPIC_MAX_BYTES,
    Limits,
    hide,
    holds,
    leaving,
    line_endings,
    loaded,
    measure,
    over_by,
    within,
)
from consolidator.store.model import INDEX_NAME, Memory

SAFE_SCOPE, ALL = "safe", "all"  # what a rebuild may move: unloaded lines only, or any

__all__ = [
    "TOPIC_MAX_BYTES",
    "Fitted",
    "IndexPlan",
    "Limits",
    "Relinked",
    "add_missing",
    "assemble",
    "dead_links",
    "drop_repeats",
    "measure",
    "plan_index",
    "pointer_line",
    "relink_lines",
    "render",
    "repoint",
    "shrink",
    "unlink_dead",
]


@dataclass(frozen=True)
class IndexPlan:
    """The rebuilt index and everything it takes to keep the rebuild lossless."""

    text: str
    changed: bool
    lines: int
    bytes: int
    within_limits: bool
    # Within its limits, but with no room for one more pointer line: Claude Code's next
    # memory write would leave it over them, and fail (since 2.1.210).
    full: bool = False
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()  # files whose pointer lost its link (text kept or live)
    repointed: tuple[tuple[str, str], ...] = ()
    dropped: tuple[str, ...] = ()
    listed: tuple[str, ...] = ()  # memories listed in the topic memory of those with no room
    moved: tuple[str, ...] = ()
    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # file -> lines to add
    creates: tuple[TopicMemory, ...] = ()
    unlinked: tuple[tuple[str, str], ...] = ()  # (file, "missing" | "archived"): text kept
    # Files the index pointed at that were missing before this run, whatever this plan does
    # with their pointers (a safe plan leaves them: unlinking one is a judgment).
    missing: tuple[str, ...] = ()
    over_limits: bool = False  # the index had to shrink
    before: tuple[int, int] = (0, 0)  # (lines, bytes) as Claude Code counted them before
    over: str = ""  # how far over its limits the rebuilt index still is ("" within)
    why: tuple[str, ...] = ()  # why it could not fit, or what it could not do
    scope: str = ALL


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


@dataclass(frozen=True)
class Fitted:
    """Steps 3 and 4's index: its lines within the limits (as far as they can be), and what
    the fitting moved, wrote into memories, created and, as a last resort, dropped."""

    lines: tuple[IndexLine, ...]
    over_limits: bool = False
    dropped: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()
    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    creates: tuple[TopicMemory, ...] = ()
    why: tuple[str, ...] = ()
    added: tuple[str, ...] = ()  # pointers added once the index fitted
    listed: tuple[str, ...] = ()  # memories listed in the topic memory of those with no room


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


# -- step 1: links to files that moved or went ------------------------------------------


def relink_lines(
    original: Sequence[IndexLine],
    live: Mapping[str, Memory],
    present: set[str],
    redirects: Mapping[str, str],
    archived: set[str],
    guess: bool = True,
    names: Names | None = None,
) -> Relinked:
    """Repoint merged-away and renamed links; a pointer to a file that is gone keeps its words
    as plain, marked text unless they are live already.

    ``guess=False`` (the safe scope) fixes only what this run's own moves call for: a pointer
    to a file that was missing already, or that a rename may explain, is left as it is, and
    a second pointer to a survivor stays.
    ``names``: what a ``[[key]]`` may name (the memories before and after this run)."""
    names = names or {}
    lines, repointed = repoint(original, live, present, redirects, archived, guess, names)
    dead_at = dead_links(lines, present, archived, guess)
    # A second pointer a merge made is a line Claude Code loads: dropping it, even where the
    # survivor says its words, is a judgment (the safe scope repoints it and keeps it).
    lines, repeats = drop_repeats(lines, original, live, dead_at) if guess else (list(lines), [])
    lines, gone, unlinked = unlink_dead(lines, original, live, dead_at, archived, names)
    return Relinked(
        lines=tuple(line for line in lines if line.kind != "drop"),
        removed=tuple(repeats + gone),
        repointed=tuple(repointed),
        unlinked=tuple(unlinked),
        origin=tuple(i for i, line in enumerate(lines) if line.kind != "drop"),
        missing=tuple(sorted({line.target for line in original if line.target
                              and line.target not in present and line.target not in redirects
                              and line.target not in archived})),
    )


def repoint(
    lines: Sequence[IndexLine],
    live: Mapping[str, Memory],
    present: set[str],
    redirects: Mapping[str, str],
    archived: set[str],
    guess: bool = True,
    names: Names | None = None,
) -> tuple[list[IndexLine], list[tuple[str, str]]]:
    """``lines`` with links to merged-away files pointed at their survivor, and a pointer to a
    missing file at the one memory it most likely means now (a rename); with each (old, new).

    A memory some line already links to is never taken for a rename, so no memory gets a
    second pointer by guesswork.
    """
    linked = {t for line in lines for t in line.targets if t in present}
    renames: _Renames | None = None
    out: list[IndexLine] = []
    repointed: list[tuple[str, str]] = []
    names = names or {}
    for line in lines:
        line, moves = _redirected(line, redirects, names)
        repointed += moves
        target = line.target
        if guess and target is not None and target not in present and target not in archived:
            renames = renames or _Renames(live)  # built only for an index with a dead pointer
            match = renames.find(line, target, linked)
            renamed = retarget(line.text, target, match.file) if match is not None else ""
            if match is not None and renamed != line.text:  # a wiki pointer is not guessed at
                line = classify(renamed, names)
                repointed.append((target, match.file))
                linked.add(match.file)
        out.append(line)
    return out, repointed


def _redirected(
    line: IndexLine, redirects: Mapping[str, str], names: Names
) -> tuple[IndexLine, list[tuple[str, str]]]:
    """``line`` with each link to a merged-away file (Markdown or wiki) pointed at its
    survivor, as links in memory bodies are, and those moves."""
    if not redirects.keys() & set(line.targets):
        return line, []
    text, changed = repoint_links(line.text, "", redirects, names)
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
                if t not in present and (t == line.target and missing or t in archived)}
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
        if line.target in dead:
            removed.append(line.target or "")
            if live_text.holds(_kept_text(line), i):
                live_text.forget(i)
                out[i] = _DROP
                continue
        text = line.text
        for files, mark in ((dead & archived, "archived"), (dead - archived, "missing")):
            text = unwiki(unlink(text, files, mark), files, mark, names or {})
        if text != line.text:  # else its words could not be kept apart: left as written
            unlinked += [(t, "archived" if t in archived else "missing") for t in sorted(dead)]
        out[i] = classify(text, names)
    return out, removed, unlinked


# -- steps 3 and 4: within the limits -----------------------------------------------------


def shrink(
    lines: Sequence[IndexLine],
    live: Mapping[str, Memory],
    *,
    editable: set[str] | None,
    limits: Limits,
    newline: str,
    taken: set[str],
    mtime_ns: int,
    scope: str = ALL,
    loaded_now: Sequence[bool] | None = None,
    unlisted: Sequence[Memory] = (),
    used: Iterable[str] = (),
    names: Names | None = None,
    settled: bool = False,
) -> Fitted:
    """Only an index over its limits shrinks: in the ``safe`` scope only the lines Claude Code
    does not load (``loaded_now``, per line) move; in ``all`` the index is fitted, pinned
    lines kept (see :mod:`consolidator.index.shrink`). Memories with no pointer and no room
    (``unlisted``) are listed in one topic memory the index points to, when that pointer
    fits; else they are named in ``dropped``. ``taken``: names a topic memory may not take;
    ``settled``: the lines are the index as read, within its limits measured line by line
    with their own endings (one ending for all, as a rewrite writes them, may count more:
    it is not rewritten for that)."""
    fitter = Fitter(list(lines), live, editable, limits, newline, taken=set(taken),
                    mtime_ns=mtime_ns, used=frozenset(used), names=names)
    over = not settled and not fitter.fits()
    if over and scope == SAFE_SCOPE:
        fitter.move_unloaded(loaded_now if loaded_now is not None else [True] * len(lines))
    elif over:
        if unlisted:  # fitted with room left for the pointer to their list
            room = fitter.pointer_bytes(classify(pointer_line(m, limits.max_line_chars))
                                        for m in unlisted)
            fitter.limits = leaving(limits, 0, newline, 2, room)
        fitter.fit()
        fitter.limits = limits
    before = {t for line in fitter.lines for t in line.targets}
    # An index fitted by a judgment has room made for the list's pointer (no more: a fit moves
    # no more than it takes); one that was not fitted keeps room for Claude Code's next
    # pointer, as any pointer a run adds does.
    dropped, listed = list_unlisted(fitter, unlisted,
                                    keep_room=not over or scope == SAFE_SCOPE)
    added = sorted({t for line in fitter.lines for t in line.targets} - before
                   & {m.file for m in unlisted})
    return Fitted(
        lines=tuple(fitter.lines),
        over_limits=over,
        dropped=tuple(dropped),
        listed=tuple(listed),
        moved=tuple(fitter.moved),
        notes={k: tuple(v) for k, v in fitter.notes.items()},
        creates=tuple(fitter.creates),
        why=tuple(fitter.why),
        added=tuple(added),
    )


# -- step 5: the plan ---------------------------------------------------------------------


def assemble(
    text: str | None,
    original: Sequence[IndexLine],
    relinked: Relinked,
    added: Sequence[str],
    fitted: Fitted,
    limits: Limits,
    newline: str,
    scope: str = ALL,
) -> IndexPlan:
    """The plan from what each step did, measured as Claude Code will count it."""
    changed, result = render(text, original, fitted.lines, newline)
    count, used = measure(result)
    return IndexPlan(
        text=result,
        changed=changed,
        lines=count,
        bytes=used,
        within_limits=holds(count, used, limits),
        full=holds(count, used, limits) and not holds(count, used, leaving(limits, 1, newline)),
        added=tuple(sorted([*added, *fitted.added])),
        removed=relinked.removed,
        repointed=relinked.repointed,
        dropped=fitted.dropped,
        listed=fitted.listed,
        moved=fitted.moved,
        notes=fitted.notes,
        creates=fitted.creates,
        unlinked=relinked.unlinked,
        missing=relinked.missing,
        over_limits=fitted.over_limits,
        before=measure(text or ""),
        over=over_by(count, used, limits),
        why=fitted.why,
        scope=scope,
    )


def render(
    text: str | None, original: Sequence[IndexLine], lines: Sequence[IndexLine], newline: str
) -> tuple[bool, str]:
    """Whether ``lines`` differ from the index as read, and the text to write: the index's own
    text, byte for byte (line endings and all), when they do not."""
    changed = [line.text for line in lines] != [line.text for line in original]
    if not changed:
        return False, text or ""
    return True, newline.join(line.text for line in lines) + newline if lines else ""


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
    scope: str = ALL,
    used: Iterable[str] = (),
    named: Iterable[Memory] = (),
) -> IndexPlan:
    """Plan the rebuilt index.

    ``scope``: ``"safe"`` moves only lines Claude Code does not load; ``"all"`` may move
    any line but a pinned one (a judgment).
    ``memories``: the live memories after this run's merges and archives.
    ``present``: every ``.md`` file that will exist (memories and files that are not).
    ``redirects``: merged-away (or superseded) file -> the file that absorbed it.
    ``archived``: files this run moves into the archive with no successor.
    ``editable``: memories that may receive moved index text (default: all of them).
    ``occupied``: every other name in the root's top folder (folders, links, other files): a
    topic memory never takes one of them.
    ``used``: the memories sessions were seen opening: fitting moves the least-used first.
    ``named``: the memories before this run (a ``[[name]]`` in the index may name one that
    this run merged away or archived).
    """
    limits = limits or Limits()
    redirected = dict(redirects or {})
    live = {m.file: m for m in memories}
    names = name_table(list({**{m.file: m for m in named}, **live}.values()))
    original = hide(parse_index(text or "", names))
    relinked = relink_lines(original, live, present, redirected, set(archived) - set(redirected),
                            guess=scope == ALL, names=names)
    claimed: set[str] = set()
    if scope != ALL:  # renames wait for review: their memories get no second pointer meanwhile
        _lines, moves = repoint(original, live, present, redirected, set(archived), True, names)
        claimed = {new for old, new in moves if old not in redirected}
    lines, added, unlisted = add_missing(relinked.lines, live, limits, newline, claimed)
    endings = line_endings(text or "")
    window = loaded(original, limits, newline, endings)
    loaded_now = ([window[i] for i in relinked.origin] if len(lines) == len(relinked.lines)
                  else [True] * len(lines))
    fitted = shrink(
        lines, live, editable=editable, limits=limits, newline=newline,
        taken=set(present) | set(occupied) | {index_name}, mtime_ns=index_mtime_ns,
        scope=scope, loaded_now=loaded_now, unlisted=unlisted, used=used, names=names,
        settled=[line.text for line in lines] == [line.text for line in original]
        and within(original, limits, newline, endings),
    )
    return assemble(text, original, relinked, added, fitted, limits, newline, scope)
