"""How often each memory was opened, counted across runs from the sessions' transcripts.

Kept in the root's state folder (:func:`consolidator.state.statedir.usage`), because Claude
Code deletes transcripts after ``cleanupPeriodDays`` (30 by default): what a deleted
transcript showed stays counted. Each
transcript is counted once, in the order sessions were seen; one that grew since (a session
that went on) adds only what it opened since. A transcript's memories are read from its
records, never from a memory's body. The counts are a lower bound — the index is loaded into
every session and never shows, and sessions before the first count are unknown — so they
order and report, and never archive anything on their own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consolidator.roots.transcripts import opened, transcripts
from consolidator.state import statedir, statefiles

UNUSED_AFTER = 30  # sessions: a memory none of the last this many opened is reported


@dataclass
class Usage:
    """Sessions counted, and per memory the sessions that opened it."""

    sessions: int = 0  # sessions counted so far; each has its ordinal, 1, 2, ...
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)  # transcript -> its count
    opened: dict[str, list[int]] = field(default_factory=dict)  # memory -> [sessions, last]

    def opened_in(self, file: str) -> int:
        """How many counted sessions opened ``file``."""
        return self.opened.get(file, [0, 0])[0]

    def idle_for(self, file: str) -> int:
        """How many counted sessions in a row, up to the last, did not open ``file``."""
        return self.sessions - self.opened.get(file, [0, 0])[1]

    def unused(self, file: str) -> bool:
        """Not opened in the last :data:`UNUSED_AFTER` sessions counted."""
        return self.sessions >= UNUSED_AFTER and self.idle_for(file) >= UNUSED_AFTER


def load(state: Path) -> Usage:
    """The root's counts so far (none yet, or unreadable: counting starts afresh)."""
    try:
        data = json.loads(statedir.usage(state).read_text(encoding="utf-8"))
        return Usage(int(data["sessions"]), dict(data["seen"]),
                     {k: [int(v[0]), int(v[1])] for k, v in data["opened"].items()})
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return Usage()


def save(state: Path, usage: Usage) -> None:
    data = {"sessions": usage.sessions, "seen": usage.seen, "opened": usage.opened}
    statefiles.replace(statedir.usage(state),
                       (json.dumps(data, ensure_ascii=False) + "\n").encode())


def counted(usage: Usage, folders: Iterable[Path], root: Path) -> Usage:
    """``usage`` with the transcripts of ``folders`` counted that were not yet, or grew since;
    the transcripts of sessions that Claude Code deleted keep what they were counted for."""
    found: list[tuple[int, str, Path]] = []
    for folder in folders:
        for transcript in transcripts(folder):
            try:
                mtime = transcript.stat().st_mtime_ns
            except OSError:
                continue
            key = os.path.relpath(transcript, folder.parent) if folder.parent != folder \
                else transcript.name
            before = usage.seen.get(key)
            if before is None or before.get("mtime_ns") != mtime:
                found.append((mtime, key, transcript))
    out = Usage(usage.sessions, dict(usage.seen), {k: list(v) for k, v in usage.opened.items()})
    for mtime, key, transcript in sorted(found):
        before = out.seen.get(key)
        ordinal = before["ordinal"] if before else out.sessions + 1
        if before is None:
            out.sessions += 1
        already = set(before["opened"]) if before else set()
        now = opened(transcript, root)
        for file in sorted(now - already):
            count, _last = out.opened.get(file, [0, 0])
            out.opened[file] = [count + 1, ordinal]
        for file in sorted(now & already):
            out.opened[file][1] = max(out.opened[file][1], ordinal)
        out.seen[key] = {"mtime_ns": mtime, "ordinal": ordinal, "opened": sorted(now | already)}
    return out
