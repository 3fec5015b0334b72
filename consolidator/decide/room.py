"""Safe merges whose links in MEMORY.md would cost the index its room.

A merge points the index's links to a merged-away memory at its survivor; a longer file name
makes those lines longer. They are lines Claude Code loads: an index near its byte limit
would lose the room for Claude Code's next pointer line (since 2.1.210 its next memory write
fails), or go over its limit, its last loaded line no longer loaded. Such a merge is a
judgment: it waits for review, where the index's fit is planned with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from consolidator.detect.links import name_table
from consolidator.index.parse import IndexLine, parse_index
from consolidator.index.relink import Targets, repoint
from consolidator.index.window import (
    Limits,
    as_written,
    hide,
    holds,
    leaving,
    line_endings,
    measure,
    newline_of,
    size,
)
from consolidator.plan import JUDGMENT, SAFE, Action, Merge
from consolidator.store.model import Snapshot


def costly_merges(actions: Sequence[Action], snapshot: Snapshot, limits: Limits
                  ) -> tuple[list[Action], list[str]]:
    """``actions`` with each safe merge made a judgment, with a note, when the index its links
    leave would be over ``limits``, or without the room for one more pointer line it has now,
    or, for an index over its limits already, longer (a loaded line would leave the window).

    The index is measured line by line with its own endings, as read and as written (see
    :func:`~consolidator.index.window.as_written`)."""
    text = snapshot.index.text
    if not text or not any(isinstance(a, Merge) and a.kind == SAFE for a in actions):
        return list(actions), []
    names = name_table(list(snapshot.memories))
    lines = hide(parse_index(text, names))
    linked = {t for line in lines for t in line.targets}
    newline = newline_of(text)
    endings = line_endings(text)
    count, used = size(lines, newline, endings)
    over = not holds(count, used, limits)
    roomy = leaving(limits, 1, newline)  # with room for Claude Code's next pointer
    limit = roomy if holds(count, used, roomy) else limits  # that room is kept where it is

    def cost(after: list[IndexLine]) -> int:
        return measure(as_written(lines, after, newline, endings, limits))[1]

    written = cost(lines)  # with the merges kept safe so far
    redirects: dict[str, str] = {}
    out: list[Action] = []
    notes: list[str] = []
    for action in actions:
        if not isinstance(action, Merge) or action.kind != SAFE \
                or not linked & (set(action.sources) - {action.file}):
            out.append(action)  # (a merge the index does not link repoints nothing in it)
            continue
        trial = {**redirects, **{f: action.file for f in action.sources if f != action.file}}
        repointed, _moves = repoint(lines, Targets({}, set(), trial, set(), False, names))
        grown = cost(repointed)
        if grown <= (written if over else limit.max_bytes):
            redirects, written = trial, grown
            out.append(action)
            continue
        why = (f"its links in {snapshot.index.name} pointed at {action.file} would take the "
               f"index to {grown} bytes, " + (
                   "past its limit" if grown > limits.max_bytes and not over
                   else "pushing a loaded line out of what Claude Code loads" if over
                   else "leaving no room for Claude Code's next pointer"))
        out.append(replace(action, kind=JUDGMENT, reason=f"{action.reason}; {why}"))
        notes.append(f"merge into {action.file} waits for review: {why}")
    return out, notes
