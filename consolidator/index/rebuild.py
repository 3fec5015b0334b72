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
Code does not load move (see :mod:`consolidator.index.lines`); in the ``all`` scope (a
judgment) it is fitted, least valuable text first, pinned lines kept (see
:mod:`consolidator.index.shrink`).

:func:`plan_index` runs four steps, each a function of its own that takes and returns plain
values: :func:`~consolidator.index.relink.relink_lines` (:mod:`consolidator.index.relink`),
:func:`~consolidator.index.additions.add_missing` (:mod:`consolidator.index.additions`),
:func:`shrink` and :func:`assemble`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from consolidator.detect.links import name_table
from consolidator.index.additions import add_missing, list_unlisted
from consolidator.index.parse import IndexLine, Names, classify, parse_index
from consolidator.index.pointers import pointer_line
from consolidator.index.relink import Relinked, Targets, relink_lines, repoint
from consolidator.index.shrink import Fitter
from consolidator.index.topic import TopicMemory
from consolidator.index.window import (
    TOPIC_MAX_BYTES,
    Limits,
    as_written,
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
# Only the links to files this run moved or archived, nothing added or moved: what an
# `apply` of chosen actions calls for where every index change waits for review.
LINKS = "links"

__all__ = [
    "LINKS",
    "TOPIC_MAX_BYTES",
    "Fitted",
    "IndexPlan",
    "Limits",
    "add_missing",
    "assemble",
    "measure",
    "plan_index",
    "pointer_line",
    "render",
    "shrink",
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
    # Files a sentence or a table of the index links that are missing: the user's words,
    # left as written (reported, never unlinked).
    linked_missing: tuple[str, ...] = ()
    over_limits: bool = False  # the index had to shrink
    before: tuple[int, int] = (0, 0)  # (lines, bytes) as Claude Code counted them before
    over: str = ""  # how far over its limits the rebuilt index still is ("" within)
    why: tuple[str, ...] = ()  # why it could not fit, or what it could not do
    scope: str = ALL


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
    def fresh() -> Fitter:
        return Fitter(list(lines), live, editable, limits, newline, taken=set(taken),
                      mtime_ns=mtime_ns, used=frozenset(used), names=names)

    fitter = fresh()
    over = not settled and not fitter.fits()
    if over and scope == SAFE_SCOPE:
        # Moved only where the index then fits: else the pointers to what moved stand past
        # the window too, the index is still over (Claude Code's memory writes still fail),
        # and nothing a session reads gained; a block whose first lines are loaded would be
        # split from its rest. The fit (a judgment) waits for review instead.
        trial = fresh()
        trial.move_unloaded(loaded_now if loaded_now is not None else [True] * len(lines))
        if trial.fits():
            fitter = trial
        elif trial.moved:
            fitter.why.append("moving the lines past Claude Code's window into topic memories "
                              "would leave the index over its limits, their pointers past "
                              "the window too: nothing moves without review")
    elif over:
        # Fitted with room left for Claude Code's next pointer (a write that leaves the index
        # over its limits fails), and for the pointer to the list of memories with none.
        room = 0 if not unlisted else fitter.pointer_bytes(
            classify(pointer_line(m, limits.max_line_chars)) for m in unlisted)
        fit_to = leaving(limits, 1, newline, 2 if unlisted else 0, room)
        fitter.limits = fit_to
        fitter.fit()
        if loaded_now is not None:
            # The sections at the end, which Claude Code does not load whole, may fit it while
            # giving up far less of what sessions read today (weighed by value and use):
            # then they move instead.
            tail = fresh()
            weights = [mark.value + 1 for mark in tail.marks()]
            tail.limits = fit_to
            if tail.fit_tail(list(loaded_now)) and tail.fits() \
                    and 2 * given_up(tail.lines, lines, loaded_now, weights) \
                    < given_up(fitter.lines, lines, loaded_now, weights):
                fitter = tail
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


def given_up(now: Sequence[IndexLine], before: Sequence[IndexLine],
             loaded: Sequence[bool], weights: Sequence[int]) -> int:
    """What a fit gives up of what Claude Code loaded: the characters of each line it loaded
    (``loaded``: per line of ``before``) that ``now`` no longer holds as written, times the
    line's weight (its value and its use)."""
    kept = Counter(line.text for line in now)
    lost = 0
    for line, read, weight in zip(before, loaded, weights, strict=False):
        if not read or line.kind in ("blank", "hidden"):
            continue
        if kept[line.text] > 0:
            kept[line.text] -= 1
        else:
            lost += weight * len(line.text)
    return lost


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
    changed, result = render(text, original, fitted.lines, newline, limits)
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
        linked_missing=relinked.linked_missing,
        over_limits=fitted.over_limits,
        before=measure(text or ""),
        over=over_by(count, used, limits),
        why=fitted.why,
        scope=scope,
    )


def render(
    text: str | None, original: Sequence[IndexLine], lines: Sequence[IndexLine], newline: str,
    limits: Limits | None = None,
) -> tuple[bool, str]:
    """Whether ``lines`` differ from the index as read, and the text to write: the index's own
    text, byte for byte (line endings and all), when they do not; else each line with its
    ending (see :func:`~consolidator.index.window.as_written`)."""
    changed = [line.text for line in lines] != [line.text for line in original]
    if not changed:
        return False, text or ""
    return True, as_written(original, lines, newline, line_endings(text or ""),
                           limits or Limits())


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
    root_name: str = "",
    listed_below: Mapping[str, Collection[str]] | None = None,
    stores_below: bool = False,
) -> IndexPlan:
    """Plan the rebuilt index.

    ``scope``: ``"safe"`` moves only lines Claude Code does not load; ``"all"`` may move
    any line but a pinned one (a judgment); ``"links"`` only mends links (``LINKS``).
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
    ``root_name``: the name of the root's folder (the index may name a memory by a path from
    the project's folder: "`memory/x.md`").
    ``listed_below``: each sub-folder's own index (its ``MEMORY.md``) and the memories it
    lists: where this index links that one, or the sub-folders are stores of their own
    (``stores_below``: each agent's folder under ``agent-memory/``, whose own index is one
    level down), they are listed there and get no second pointer here; otherwise Claude
    Code, which loads only this index, would not reach them, and they get one.
    """
    limits = limits or Limits()
    redirected = dict(redirects or {})
    live = {m.file: m for m in memories}
    names = name_table(list({**{m.file: m for m in named}, **live}.values()))
    original = hide(parse_index(text or "", names))
    relinked = relink_lines(original, Targets(live, present, redirected,
                                              set(archived) - set(redirected), scope == ALL, names))
    linked = {target for line in original for target in line.targets}
    claimed: set[str] = {file for rel, files in (listed_below or {}).items()
                         if rel in linked or (stores_below and rel.count("/") == 1)
                         for file in files}
    if scope != ALL:  # renames wait for review: their memories get no second pointer meanwhile
        _lines, moves = repoint(original, Targets(live, present, redirected, set(archived),
                                                  True, names))
        claimed |= {new for old, new in moves if old not in redirected}
    if scope == LINKS:
        return assemble(text, original, relinked, (), Fitted(relinked.lines), limits,
                        newline, scope)
    lines, added, unlisted = add_missing(relinked.lines, live, limits, newline, claimed,
                                         names, root_name)
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
