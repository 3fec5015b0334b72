"""One function per gate: ``(ctx) -> (passed, reason)``. Listings and stat only."""

from __future__ import annotations

import os
import time
from pathlib import Path

from consolidator import lock
from consolidator.context import RootContext
from consolidator.paths import is_session_transcript
from consolidator.store.scan import walk

SCAN_FILE = "last-scan"
NS = 1_000_000_000


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
    return True, "enabled"


def memory_dir(ctx: RootContext) -> tuple[bool, str]:
    root = ctx.root
    if not root.is_dir():
        return False, f"{root} is not a directory (it vanished?)"
    if not os.access(root, os.R_OK | os.W_OK | os.X_OK):
        return False, f"{root} is not readable and writable"
    for _rel, entry, problem in walk(root):
        if problem is None and entry is not None:
            return True, "holds memories"
    return False, "holds no memory file"


def _recent_memory(ctx: RootContext, after_ns: int) -> str | None:
    for rel, problem, st in ctx.listing():
        if problem is None and st is not None and st.st_mtime_ns > after_ns:
            return rel
    return None


def _sessions(folder: Path) -> list[os.DirEntry[str]]:
    return [e for e in os.scandir(folder) if is_session_transcript(e.name) and e.is_file()]


def _recent_session(folder: Path, after_ns: int) -> str | None:
    """A session transcript changed after ``after_ns``, if any.

    The folder can hold hundreds of transcripts, so each is stat'ed first and only a recent
    one has its name checked: on an idle root the pattern is never run.
    """
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None  # an unreadable transcripts folder is G6's to report
    for entry in entries:
        if (entry.name.endswith(".jsonl") and _mtime_ns(entry) > after_ns
                and is_session_transcript(entry.name) and entry.is_file()):
            return entry.name
    return None


def _mtime_ns(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat().st_mtime_ns
    except OSError:
        return 0  # vanished or a dangling link: nothing is writing it


def idle(ctx: RootContext) -> tuple[bool, str]:
    window = ctx.cfg.gates.idle_minutes
    after = ctx.now_ns - window * 60 * NS
    busy = _recent_session(ctx.transcripts, after)
    if busy is not None:
        return False, f"session {busy} changed in the last {window} min"
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
    return False, f"last consolidation {_ago(since)} ago; needs {ctx.cfg.gates.min_hours} h"


def scan_throttle(ctx: RootContext) -> tuple[bool, str]:
    try:
        last = os.stat(ctx.state / SCAN_FILE).st_mtime_ns
    except OSError:
        return True, "no session scan recorded"
    need = ctx.cfg.gates.scan_interval_minutes * 60 * NS
    since = ctx.now_ns - last
    if since >= need or since < 0:
        return True, f"last session scan {_ago(since)} ago"
    return False, (f"last session scan {_ago(since)} ago; "
                   f"needs {ctx.cfg.gates.scan_interval_minutes} min")


def record_scan(ctx: RootContext) -> None:
    """Remember this session scan's time, so the throttle holds across processes."""
    from consolidator.store.journal import ensure_private_dir

    ensure_private_dir(ctx.state)
    path = ctx.state / SCAN_FILE
    path.touch()
    os.utime(path, ns=(ctx.now_ns, ctx.now_ns))


def sessions(ctx: RootContext) -> tuple[bool, str]:
    last = lock.last_consolidated_ns(ctx.root, ctx.now_ns, ctx.state) or 0
    try:
        count = sum(1 for e in _sessions(ctx.transcripts) if e.stat().st_mtime_ns > last)
    except OSError as exc:
        return False, f"transcripts folder {ctx.transcripts} unreadable: {exc.strerror or exc}"
    need = ctx.cfg.gates.min_sessions
    since = "since the last consolidation" if last else "in all"
    verdict = count >= need
    return verdict, f"{count} session(s) {since}; needs {need}"


def lock_probe(ctx: RootContext) -> tuple[bool, str]:
    """Whether the lock is free now, without taking it (the dry-run report's G7)."""
    held = lock.live_holder(ctx.root, time.time_ns(), ctx.cfg.gates.lock_stale_minutes)
    if held is not None:
        return False, f"Claude Code's lock is {held}"
    if not lock.own_lock_free(ctx.root):
        return False, "another consolidator run holds the lock"
    return True, "free (probed, not taken)"
