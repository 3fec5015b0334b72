"""The steps that follow applied actions, asked again after every application.

- :func:`moves` - which files the applied actions really moved out, and where to;
- :func:`relinks` - the safe steps they call for: links to a merged-away or superseded memory
  repointed at its survivor, a topic memory's links to an archived one kept as text;
- :func:`rebased` - a relative-date rewrite judged again on the bytes this run's own safe
  steps left in its memory;
- :func:`cannot_follow` - why the links to what an action moves out could not follow it now
  (``apply`` asks it of each item: a run pins such memories as it decides).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from consolidator.decide import date_rewrites
from consolidator.decide.bodies import changed_lines
from consolidator.detect.links import is_topic, links_of, name_table, repoint
from consolidator.plan import JUDGMENT, SAFE, Action, Archive, Rewrite, leaving, redirects
from consolidator.store.links import unlink
from consolidator.store.model import Memory, Snapshot


def relinks(
    snapshot: Snapshot, moved: Mapping[str, str], archived: Collection[str], hot_after_ns: int,
    gone: Iterable[Memory] = (),
) -> list[Rewrite]:
    """The safe steps that follow applied merges and archives: in every memory that stays
    (and no live session holds), links to a merged-away or superseded memory point at its
    survivor (``moved``), and a topic memory's links to an ``archived`` one become text.

    ``gone``: the memories as they were before they moved (a wiki link names one by its
    name, which only the memory itself knew)."""
    if not moved and not archived:
        return []
    present = {m.file for m in snapshot.memories}
    names = name_table([*snapshot.memories, *(m for m in gone if m.file not in present)])
    out = []
    for memory in snapshot.memories:
        if memory.stat.mtime_ns > hot_after_ns:
            continue
        reasons = []
        body, relinked = repoint(memory.body, memory.file, moved, names)
        if relinked:
            reasons.append("links repointed: " + ", ".join(f"{f} -> {moved[f]}" for f in relinked))
        if archived and is_topic(memory.file):
            kept_body = unlink(body, set(archived), "archived")
            if kept_body != body:
                body = kept_body
                reasons.append("links to archived memories kept as text")
        if reasons:
            out.append(Rewrite(
                file=memory.file, kind=SAFE, data=memory.doc.with_body(body).to_bytes(),
                mtime_ns=memory.stat.mtime_ns, before=(memory.stat,),
                reason="; ".join(reasons), evidence=changed_lines(memory.body, body),
            ))
    return out


def moves(actions: Iterable[Action], present: Collection[str]) -> tuple[dict[str, str], set[str]]:
    """(moved, archived) for :func:`relinks` and the index: merged-away or superseded files
    that are really gone -> their survivor, and archived files with no successor."""
    actions = list(actions)
    moved = {s: k for s, k in redirects(actions).items() if s not in present}
    archived = {f for f in leaving(actions) if f not in present and f not in moved}
    return moved, archived


def rebased(action: Action, snapshot: Snapshot, hot_after_ns: int) -> Action | None:
    """A relative-date rewrite judged again on its memory as ``snapshot`` has it now (this
    run's own safe steps may have changed it since: a link repointed, an index detail moved
    in): the same judgment on the new bytes, or ``None`` when there is none to make."""
    if not (isinstance(action, Rewrite) and action.kind == JUDGMENT
            and action.reason.startswith("relative date ")):
        return None
    memory = snapshot.by_file().get(action.file)
    if memory is None or memory.stat.mtime_ns > hot_after_ns:
        return None
    # The whole folder is read for what dates it (a session of several days, files copied
    # at one go); only this memory is rewritten.
    others = {m.file for m in snapshot.memories if m.file != action.file}
    fresh = date_rewrites(snapshot, {}, (), others)
    return fresh[0] if fresh else None


def cannot_follow(snapshot: Snapshot, actions: Sequence[Action],
                  hot_after_ns: int) -> dict[int, str]:
    """Position -> why moving out what that one of ``actions`` (applied together) moves
    would leave a link pointing at nothing, as the root is now. A memory one of them moves
    out links to nothing after it. An archive with no successor is refused while a memory
    staying behind links to it (a run keeps it for that reason); any move, while a memory
    linking to what it moves cannot be rewritten now: changed since ``hot_after_ns`` (a live
    session may be writing it) or guarded by its owner. The links are read once."""
    out: dict[int, str] = {}
    moving = [set(leaving([action])) for action in actions]
    gone = set().union(*moving)
    if not gone:
        return out
    names = name_table(list(snapshot.memories))
    inbound: dict[str, set[str]] = {}  # file moved out -> the memories staying that link to it
    for memory in snapshot.memories:
        if memory.file not in gone:
            for target in links_of(memory, names) & gone:
                inbound.setdefault(target, set()).add(memory.file)
    by_file = snapshot.by_file()
    for i, action in enumerate(actions):
        linkers = sorted({s for target in moving[i] for s in inbound.get(target, ())})
        people = [s for s in linkers if not is_topic(s)]
        if people and isinstance(action, Archive) and not action.successor:
            out[i] = (f"{', '.join(people)} now {'links' if len(people) == 1 else 'link'} to "
                      "it: archived, it would leave that link pointing at nothing (the next "
                      "run keeps it)")
            continue
        for linker in linkers:
            stat = by_file[linker].stat
            why = ("it changed in the last minutes: a live session may be writing it"
                   if stat.mtime_ns > hot_after_ns else stat.guarded)
            if why:
                out[i] = (f"{linker} links to {', '.join(sorted(moving[i]))} and cannot be "
                          f"rewritten now ({why}): its link could not follow; the next run "
                          "proposes it again")
                break
    return out
