"""Which memories a session opened, read from its transcript.

A transcript (``<project folder>/<session>.jsonl``; a subagent's under
``<session>/subagents/``) holds one JSON record a line. A memory counts as opened by a
session where a record shows it: a ``Read``, ``Grep``, ``Glob``, ``Edit``, ``Write`` (or
``MultiEdit``) tool call whose path is the memory's file, a ``Bash`` command that names the
file by its absolute or home-relative path (``cat ~/.claude/projects/p/memory/x.md``), the
file a tool's result names, a
``relevant_memories`` attachment's ``memories[].path``, a ``memory_saved`` record's
``writtenPaths``. ``MEMORY.md`` is loaded into every session and never counts. The format is
Claude Code's own and unversioned: it is read defensively (a line that is not JSON, or a
record of another shape, is passed over) and what it yields is a lower bound. Transcripts
are only read, a line at a time, and only lines that name the memory directory or one of
those record kinds are parsed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from consolidator.store.model import INDEX_NAME

TOOLS = frozenset({"Read", "Grep", "Glob", "Edit", "Write", "MultiEdit"})
PATH_KEYS = ("file_path", "path")
_KINDS = ('"relevant_memories"', '"memory_saved"')
# A path a shell command names: absolute or from the home folder, up to a blank, a quote or
# a shell operator, ending in .md.
_COMMAND_PATH = re.compile(r"""(?<![\w.~/-])(?:~|/)[^\s'"`;|&<>()]{0,1000}?\.md(?![\w.-])""")


def transcripts(folder: Path) -> Iterator[Path]:
    """A project folder's session transcripts, subagents' included."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
            yield Path(entry.path)
        elif entry.is_dir(follow_symlinks=False):
            sub = Path(entry.path) / "subagents"
            try:
                inner = list(os.scandir(sub))
            except OSError:
                continue
            yield from (Path(e.path) for e in inner
                        if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False))


def opened(transcript: Path, root: Path) -> set[str]:
    """The memory files (relative to ``root``) that ``transcript`` shows opened."""
    prefixes = {os.path.join(os.path.normpath(str(root)), ""),
                os.path.join(os.path.realpath(root), "")}
    needles = [p.rstrip(os.sep) for p in prefixes]
    home = os.path.join(os.path.expanduser("~"), "")
    needles += ["~" + n[len(home) - 1:] for n in needles if home != os.sep and n.startswith(home)]
    found: set[str] = set()
    try:
        with open(transcript, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if not any(n in line for n in needles) and not any(k in line for k in _KINDS):
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                for path in _paths(record):
                    rel = _memory_file(path, prefixes)
                    if rel is not None:
                        found.add(rel)
    except OSError:
        return found
    return found


def _paths(value: Any) -> Iterator[str]:
    """Every path a record names as opened, wherever it stands in the record."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        if item.get("type") == "tool_use" and item.get("name") in TOOLS:
            given = item.get("input")
            if isinstance(given, dict):
                yield from (v for k in PATH_KEYS if isinstance(v := given.get(k), str))
        if item.get("type") == "tool_use" and item.get("name") == "Bash":
            given = item.get("input")
            command = given.get("command") if isinstance(given, dict) else None
            if isinstance(command, str):
                yield from _COMMAND_PATH.findall(command)
        if item.get("type") == "relevant_memories":
            for memory in item.get("memories") or ():
                if isinstance(memory, dict) and isinstance(memory.get("path"), str):
                    yield memory["path"]
        if item.get("subtype") == "memory_saved":
            yield from (p for p in item.get("writtenPaths") or () if isinstance(p, str))
        if isinstance(item.get("filePath"), str):
            yield item["filePath"]
        stack.extend(v for v in item.values() if isinstance(v, (dict, list)))


def _memory_file(path: str, prefixes: set[str]) -> str | None:
    """``path`` relative to the root when it names a memory file there, else ``None``."""
    normal = os.path.normpath(os.path.expanduser(path))
    for prefix in prefixes:
        if normal.startswith(prefix):
            rel = normal[len(prefix):].replace(os.sep, "/")
            if rel.endswith(".md") and rel.casefold() != INDEX_NAME.casefold():
                return rel
    return None
