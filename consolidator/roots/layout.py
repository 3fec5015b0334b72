"""Claude Code's memory layout on disk, read cheaply: what a memory directory looks like,
which transcripts are sessions, and which project folder a session worked in.

Nothing here reads a memory's body: gates and discovery use it on every tick.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from consolidator.store.scan import pick_index

SHAPE_FILES = 20  # top-level .md files whose heads are read at most, per root
SHAPE_HEAD_BYTES = 4096
MEMORY_KEYS = frozenset({"name", "description", "type"})


def holds_memories(root: Path) -> bool:
    """Whether ``root`` looks like a memory directory: it has an index (``MEMORY.md`` in any
    case) or a top-level ``.md`` file whose frontmatter has at least two of ``name``,
    ``description`` and ``type`` (flat, or ``type`` under ``metadata:``).

    Cheap: one listing, then the first few KiB of at most :data:`SHAPE_FILES` files, stopping
    at the first memory-shaped one. A folder that cannot be listed counts as a memory
    directory: G2 reports what is wrong with it.
    """
    try:
        with os.scandir(root) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return True
    if pick_index(entries) is not None:
        return True
    read = 0
    for entry in entries:
        if read >= SHAPE_FILES:
            break
        try:
            if not entry.name.endswith(".md") or not entry.is_file(follow_symlinks=False):
                continue
        except OSError:
            continue
        read += 1
        if _memory_head(Path(entry.path)):
            return True
    return False


_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:")
_NESTED_TYPE = re.compile(r"^[ \t]+type[ \t]*:")


def _memory_head(path: Path) -> bool:
    """Whether the file's frontmatter (read from its first few KiB) names a memory."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError:
        return False
    try:
        head = os.read(fd, SHAPE_HEAD_BYTES)
    except OSError:
        return False
    finally:
        os.close(fd)
    text = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return False
    keys: set[str] = set()
    in_metadata = False
    for line in lines[1:]:
        if line.rstrip() in ("---", "..."):
            break
        top = _KEY.match(line)
        if top:
            key = top.group(1).lower()
            keys.add(key)
            in_metadata = key == "metadata"
        elif in_metadata and _NESTED_TYPE.match(line):
            keys.add("type")
    return len(keys & MEMORY_KEYS) >= 2


_SESSION_RE = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$", re.IGNORECASE
)


def is_session_transcript(name: str) -> bool:
    """True for a UUID-named ``*.jsonl`` (subagent ``agent-*.jsonl`` files are not sessions)."""
    return len(name) == 42 and name.endswith(".jsonl") and bool(_SESSION_RE.match(name))


def newest_transcript_cwd(transcripts: Path, max_bytes: int = 256 * 1024) -> Path | None:
    """The ``cwd`` named in the newest session transcript (reads at most its first lines)."""
    try:
        entries = [
            e for e in os.scandir(transcripts) if is_session_transcript(e.name) and e.is_file()
        ]
    except OSError:
        return None
    for entry in sorted(entries, key=lambda e: e.stat().st_mtime_ns, reverse=True)[:5]:
        try:
            with open(entry.path, "rb") as fh:
                head = fh.read(max_bytes)
        except OSError:
            continue
        for line in head.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("cwd"), str) and record["cwd"]:
                return Path(record["cwd"])
    return None
