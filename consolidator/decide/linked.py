"""What links hold in place: a memory does not move out from under a link that could not
follow it."""

from __future__ import annotations

from consolidator.detect.links import linking_to
from consolidator.plan import Action, Archive, Merge, Rewrite, leaving
from consolidator.store.frontmatter import parse
from consolidator.store.model import Snapshot


def keep_linked(
    snapshot: Snapshot, actions: list[Action]
) -> tuple[list[Action], dict[str, list[str]]]:
    """Drop the archive of a memory (with no successor) that memories staying behind link
    to: archiving it would break their links. Returns the actions and what was kept."""
    gone = set(leaving(actions))
    candidates = {a.file for a in actions if isinstance(a, Archive) and not a.successor}
    bodies = {a.file: parse(a.data).body for a in actions if isinstance(a, (Merge, Rewrite))}
    inbound = linking_to(snapshot, candidates, gone, bodies)
    if not inbound:
        return actions, {}
    kept = [a for a in actions if not (isinstance(a, Archive) and a.file in inbound)]
    return kept, {file: sorted(sources) for file, sources in sorted(inbound.items())}


def held_by_indexes(snapshot: Snapshot, actions: list[Action]) -> tuple[list[Action], list[str]]:
    """Drop the merge or archive that would move out a memory a folder's own index links to:
    that index is never changed here, so its link could not follow. Returns the actions and
    a note for each one dropped."""
    held: dict[str, list[str]] = {}
    for unparsed in snapshot.unparsed:
        for target in unparsed.links:
            held.setdefault(target, []).append(unparsed.rel)
    if not held:
        return actions, []
    out, notes = [], []
    for action in actions:
        moving = [f for f in leaving([action]) if f in held]
        if isinstance(action, (Merge, Archive)) and moving:
            notes.append(f"{action.op} {action.file} left out: "
                         + "; ".join(f"{', '.join(held[f])} links to {f}" for f in moving)
                         + " (a folder's own index, never changed here)")
            continue
        out.append(action)
    return out, notes
