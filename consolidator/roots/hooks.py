"""Claude Code's SessionEnd hook as a trigger: a pass for the project of the session that
just ended, the way Claude Code's own consolidation follows real sessions.

Claude Code runs the hook's command with a JSON object on stdin (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, ``reason``). The pass covers the stores of
that session's project only (its auto memory, team scope and project/local subagent
memories; not a user-scope subagent memory, which spans every project), and its gates still
decide. The ended session is no longer live: its transcript does not close the idle gate.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from consolidator.errors import UsageError
from consolidator.roots.layout import is_session_transcript
from consolidator.roots.stores import Store

MAX_INPUT = 1 << 20


@dataclass(frozen=True)
class SessionEnd:
    session_id: str
    transcript: Path  # the session's transcript; its folder holds the project's sessions
    cwd: Path | None = None


def read_session_end(stream: BinaryIO) -> SessionEnd:
    """The hook's input; :class:`UsageError` (one line) for anything else."""
    raw = stream.read(MAX_INPUT + 1)
    if len(raw) > MAX_INPUT:
        raise UsageError("hook input: larger than 1 MiB; not a SessionEnd event")
    try:
        data: Any = json.loads(raw)
    except ValueError:
        raise UsageError("hook input: not JSON; Claude Code passes the SessionEnd event as a "
                         "JSON object on stdin") from None
    if not isinstance(data, dict):
        raise UsageError("hook input: not a JSON object")
    event = data.get("hook_event_name", "SessionEnd")
    if event != "SessionEnd":
        raise UsageError(f"hook input: event {event!r}, not SessionEnd")
    missing = [key for key in ("session_id", "transcript_path") if key not in data]
    if missing:
        raise UsageError(f"hook input: no {' and no '.join(missing)}; Claude Code's SessionEnd "
                         "event carries both")
    session = data.get("session_id")
    transcript = data.get("transcript_path")
    if not isinstance(session, str) or not is_session_transcript(f"{session}.jsonl"):
        raise UsageError("hook input: session_id is not a session id (a UUID)")
    if not isinstance(transcript, str) or not os.path.isabs(transcript) or "\0" in transcript:
        raise UsageError("hook input: transcript_path is not an absolute path")
    cwd = data.get("cwd")
    return SessionEnd(session, Path(transcript),
                      Path(cwd) if isinstance(cwd, str) and os.path.isabs(cwd) else None)


def stores_of(ended: SessionEnd, stores: Iterable[Store]) -> list[Store]:
    """The stores whose sessions include the one that ended (its project's)."""
    folder = Path(os.path.realpath(ended.transcript.parent))
    return [s for s in stores if s.kind != "agent-user"
            and any(Path(os.path.realpath(f)) == folder for f in s.sessions)]


def run_argv(ended: SessionEnd, stores: Iterable[Store], config: str | None,
             state_dir: str | None) -> list[str]:
    """The ``consolidator`` arguments of the pass the hook starts in the background (it finds
    each store's sessions again, as discovery knows them)."""
    argv = ["run", "--ended-session", ended.session_id]
    for store in stores:
        argv += ["--memory-dir", str(store.path)]
    if config:
        argv += ["--config", config]
    if state_dir:
        argv += ["--state-dir", state_dir]
    return argv
