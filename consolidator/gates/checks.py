"""One function per gate: ``(ctx) -> (passed, reason)``. Listings and stat only."""

from __future__ import annotations

import json
import os
import stat as stat_mod
from datetime import UTC, datetime
from pathlib import Path

from consolidator import clock
from consolidator.clock import MINUTE_NS, NS
from consolidator.context import RootContext
from consolidator.roots.layout import is_session_transcript
from consolidator.state import lock, statedir, statefiles
from consolidator.store.model import INDEX_NAME
from consolidator.store.names import fold
from consolidator.store.scan import find_index, walk

INDEX_KEY = fold(INDEX_NAME)
NO_MEMORY = "holds no memory file"  # G2's one reason that leaves the root usable


def _ago(ns: int) -> str:
    seconds = max(0, ns // NS)
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds / 3600:.1f} h"


def enabled(ctx: RootContext) -> tuple[bool, str]:
    for var in ("CONSOLIDATOR_DISABLE", "CLAUDE_CODE_DISABLE_AUTO_MEMORY"):
        if ctx.env.get(var, "").strip().lower() in ("1", "true", "yes"):
            return False, f"disabled by {var}={ctx.env[var]}"
    if not ctx.cfg.gates.enabled:
        return False, "disabled by config gates.enabled = false"
    if ctx.off is not None:
        return False, ctx.off
    return True, "enabled"


def memory_dir(ctx: RootContext) -> tuple[bool, str]:
    root = ctx.root
    if not root.is_dir():
        return False, f"{root} is not a directory (it vanished?)"
    if not os.access(root, os.R_OK | os.W_OK | os.X_OK):
        return False, f"{root} is not readable and writable"
    if _top_memory(root) or any(problem is None and entry is not None
                                for _rel, entry, problem in walk(root)):
        return True, "holds memories"
    return False, NO_MEMORY


def _top_memory(root: Path) -> bool:
    """Whether the root's top folder holds a plain ``.md`` file no index name could be: one
    listing, stopping at the first (the full walk runs only when there is none)."""
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                if (entry.name.endswith(".md") and fold(entry.name) != INDEX_KEY
                        and entry.is_file(follow_symlinks=False)):
                    return True
    except OSError:
        return False
    return False


def _recent_memory(ctx: RootContext, after_ns: int) -> str | None:
    for rel, problem, st in ctx.listing():
        if problem is None and st is not None and st.st_mtime_ns > after_ns:
            return rel
    return None


MAX_MARK_BYTES = 1 << 20  # the sessions remembered since the last consolidation, at most


def _sessions(folder: Path) -> list[os.DirEntry[str]]:
    return [e for e in os.scandir(folder) if is_session_transcript(e.name) and e.is_file()]


def _recent_session(folder: Path, after_ns: int, ended: str | None = None) -> str | None:
    """A session transcript changed after ``after_ns``, if any (``ended``: the file name of
    one that is over, passed over).

    The folder can hold hundreds of transcripts, so each is stat'ed first and only a recent
    one has its name checked: on an idle root the pattern is never run.
    """
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None  # an unreadable transcripts folder is G6's to report
    for entry in entries:
        if (entry.name.endswith(".jsonl") and _mtime_ns(entry) > after_ns
                and entry.name != ended and is_session_transcript(entry.name)
                and entry.is_file()):
            return entry.name
    return None


def _mtime_ns(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat().st_mtime_ns
    except OSError:
        return 0  # vanished or a dangling link: nothing is writing it


def busy_index(ctx: RootContext) -> str | None:
    """Why the root's index counts as in a live session's hands, or ``None``.

    The index (``MEMORY.md`` or the case variant the store reads) is written by Claude Code
    sessions too, so an edit within ``idle_minutes`` means one may still be writing. The
    tool's own rewrite is not an edit: it carries the run's start time, which is also the
    lock's "last consolidated" mtime, so an index whose mtime is exactly that is ours.
    One listing and one ``lstat``; the index is never opened.
    """
    name = find_index(ctx.root)
    if name is None:
        return None
    try:
        st = os.lstat(ctx.root / name)
    except OSError:
        return None
    if not stat_mod.S_ISREG(st.st_mode):
        return None  # a link or a FIFO is never written: the index phase leaves it alone
    mtime = st.st_mtime_ns
    window = ctx.cfg.gates.idle_minutes
    if mtime <= ctx.idle_after_ns:
        return None
    if mtime == lock.last_consolidated_ns(ctx.root, ctx.now_ns, ctx.state):
        return None  # written by the last consolidation itself
    if _written_by_a_run(ctx.state, mtime):
        return None  # written by a run of ours that failed or was killed
    if mtime > ctx.now_ns:  # a clock set wrong, or a copy that kept another machine's times
        return (f"index {name} is dated {_ago(mtime - ctx.now_ns)} ahead of this clock; "
                f"read as changed within {window} min")
    return f"index {name} changed {_ago(ctx.now_ns - mtime)} ago, within {window} min"


def _written_by_a_run(state: Path, mtime_ns: int) -> bool:
    """Whether a run of ours started at exactly ``mtime_ns`` (its index write carries that
    time). Run ids begin with their start second, so only the journals of runs started in
    that second are looked at, and of each only its first record (the run's metadata)."""
    second = datetime.fromtimestamp(mtime_ns // NS, UTC).strftime("%Y%m%dT%H%M%SZ-")
    for name in statedir.run_ids(state, second):
        try:
            with open(statedir.journal(statedir.run_dir(state, name)), "rb") as fh:
                meta = json.loads(fh.readline(64 * 1024)).get("meta")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(meta, dict) and meta.get("started_ns") == mtime_ns:
            return True
    return False


def idle(ctx: RootContext) -> tuple[bool, str]:
    """No session and no memory changed within ``idle_minutes``. The index is not looked at
    (a hand edit of it is no session at work); a run leaves an index changed within the
    window alone, and so moves no memory out (see :func:`busy_index`).

    A session that just ended (``ctx.ended``, named by Claude Code's SessionEnd hook) is not
    live: its transcript is passed over, and when no other session of the store's projects
    changed within the window, what it wrote counts as settled (see
    :func:`consolidator.gates.settled_by`).
    """
    window = ctx.cfg.gates.idle_minutes
    after = ctx.idle_after_ns
    ended = f"{ctx.ended}.jsonl" if ctx.ended else None
    for folder in ctx.session_folders:
        busy = _recent_session(folder, after, ended)
        if busy is not None:
            return False, f"session {busy} changed in the last {window} min"
    if ended is not None:
        return True, (f"session {ctx.ended} ended and no other changed in the last {window} "
                      "min: what it wrote is settled")
    recent = _recent_memory(ctx, after)
    if recent is not None:
        return False, f"memory {recent} changed in the last {window} min"
    return True, f"nothing changed in the last {window} min"


def interval(ctx: RootContext) -> tuple[bool, str]:
    last = lock.last_consolidated_ns(ctx.root, ctx.now_ns, ctx.state)
    if last is None:
        return True, "never consolidated"
    need = ctx.cfg.gates.min_hours * 3600 * NS
    since = ctx.now_ns - last
    if since >= need:
        return True, f"last consolidation {_ago(since)} ago"
    # A consolidation under way stamped the lock as it started: say so, not "0 s ago".
    held = lock.live_holder(ctx.root, ctx.now_ns, ctx.cfg.gates.lock_stale_minutes, ctx.state)
    if held is not None:
        return False, f"a consolidation is under way (the lock is {held})"
    return False, f"last consolidation {_ago(since)} ago; needs {ctx.cfg.gates.min_hours} h"


def scan_throttle(ctx: RootContext) -> tuple[bool, str]:
    try:
        last = os.stat(statedir.scan_mark(ctx.state)).st_mtime_ns
    except OSError:
        return True, ("no session count recorded yet (every `run` that reaches G6 records one; "
                      "`report` and --force do not)")
    need = ctx.cfg.gates.scan_interval_minutes * MINUTE_NS
    since = ctx.now_ns - last
    if since >= need or since < 0:
        return True, f"last session scan {_ago(since)} ago"
    return False, (f"last session scan {_ago(since)} ago; "
                   f"needs {ctx.cfg.gates.scan_interval_minutes} min")


def record_scan(ctx: RootContext) -> None:
    """Remember this session scan's time, so the throttle holds across processes, and the
    sessions it counted since the last consolidation: Claude Code deletes transcripts older
    than ``cleanupPeriodDays``, and a session it deleted still happened."""
    path = statedir.scan_mark(ctx.state)
    last = lock.last_consolidated_ns(ctx.root, ctx.now_ns, ctx.state) or 0
    counted = ctx.memo.get("sessions_since")  # G6's own count, when it ran on this context
    seen = counted[1] if counted is not None and counted[0] == last else _since(ctx, last)[0]
    statefiles.replace(path, json.dumps(seen, sort_keys=True).encode())
    os.utime(path, ns=(ctx.now_ns, ctx.now_ns))


def _remembered(ctx: RootContext, last: int) -> dict[str, int]:
    """The sessions an earlier scan counted after ``last`` (name -> mtime)."""
    try:
        with open(statedir.scan_mark(ctx.state), "rb") as fh:
            data = json.loads(fh.read(MAX_MARK_BYTES))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and v > last}


def _since(ctx: RootContext, last: int) -> tuple[dict[str, int], str | None]:
    """Every session changed after ``last``: those in the transcript folders now, and those
    an earlier scan counted whose transcripts are gone since (name -> mtime); and why the
    only folder could not be read, if it could not."""
    found = _remembered(ctx, last)
    for folder in ctx.session_folders:
        try:
            for entry in _sessions(folder):
                mtime = entry.stat().st_mtime_ns
                if mtime > last:
                    found[f"{folder.name}/{entry.name}"] = mtime
        except OSError as exc:
            if len(ctx.session_folders) == 1:
                return found, f"transcripts folder {folder} unreadable: {exc.strerror or exc}"
    return found, None


def sessions(ctx: RootContext) -> tuple[bool, str]:
    last = lock.last_consolidated_ns(ctx.root, ctx.now_ns, ctx.state) or 0
    found, error = _since(ctx, last)
    if error is not None:
        return False, error
    ctx.memo["sessions_since"] = (last, found)  # what record_scan remembers, not listed again
    count = len(found)
    need = ctx.cfg.gates.min_sessions
    since = "since the last consolidation" if last else "in all"
    verdict = count >= need
    return verdict, f"{count} session(s) {since}; needs {need}"


def lock_probe(ctx: RootContext) -> tuple[bool, str]:
    """Whether the lock is free now, without taking it (the dry-run report's G7)."""
    held = lock.live_holder(ctx.root, clock.now_ns(), ctx.cfg.gates.lock_stale_minutes,
                             ctx.state)
    if held is not None:
        return False, f"Claude Code's lock is {held}"
    if not lock.own_lock_free(ctx.root, ctx.state):
        return False, "another consolidator run holds the lock"
    return True, "free (probed, not taken)"
