"""Stale memories, each with its evidence. Age alone is never evidence, only a warning.

Evidence: a status marker (SUPERSEDED, DONE, RESOLVED, OBSOLETE, "no longer"); a deadline or
date range that has passed; a project file the memory names that no longer exists (only
relative paths with a folder and a file extension are checked: ``src/legacy/auth.py``, not
folders, URLs, wiki links, links to other memories or bare file names).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from consolidator.detect.dates import RelativeDate, find_relative, rewrite_relative
from consolidator.detect.deadlines import find_deadlines
from consolidator.index.parse import LINK_RE, WIKI_RE
from consolidator.store.model import Memory

# Markers that retire the memory as a whole (in its name, description, a heading, its first
# line or a "Status:" line): these may be archived.
_MARKER_WORDS = ("SUPERSEDED", "OBSOLETE", "DONE", "RESOLVED", "DEPRECATED")
_MARKER_WORD = re.compile(r"\b(?:SUPERSEDED|OBSOLETE|DONE|RESOLVED|DEPRECATED)\b")
_STATUS = re.compile(
    r"\bstatus\s*\**\s*[:：]\s*\**\s*(?:superseded|obsolete|done|resolved|deprecated|closed)\b"
)
_CJK_MARKERS = ("已完成", "已解决", "已废弃", "已过时", "完了済み", "解決済み", "廃止")
# "no longer" often states a current fact ("we no longer use Redis"): reported, not archived.
_WEAK = ("no longer", "不再", "もう使わない")


def _marker(text: str) -> str | None:
    """The status marker in ``text``, if any (substring checks first: most text has none)."""
    if any(word in text for word in _MARKER_WORDS):
        found = _MARKER_WORD.search(text)
        if found:
            return found.group(0)
    low = text.casefold()
    if "status" in low:
        found = _STATUS.search(low)
        if found:
            return text[found.start() : found.end()] if len(low) == len(text) else found.group(0)
    if "superseded by" in low:
        return "superseded by"
    return next((word for word in _CJK_MARKERS if word in text), None)


def _weak(text: str) -> str | None:
    low = text.casefold()
    return next((word for word in _WEAK if word in low), None)


_PATH = re.compile(
    r"(?<![\w/.:@~\\-])((?:\.{1,2}/)?(?:[\w@.+-]+/)+[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,7})"
    r"(?![\w/])"
)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|\bwww\.\S+", re.IGNORECASE)


@dataclass(frozen=True)
class StaleFinding:
    file: str
    reasons: tuple[str, ...]
    archivable: bool  # evidence strong enough for the offline backend to archive
    kinds: tuple[str, ...]  # "marker", "deadline", "path", "no-longer"
    evidence: tuple[str, ...] = ()  # the lines the reasons rest on, as written


def _marker_lines(memory: Memory) -> list[str]:
    lines = [line.strip() for line in memory.body.splitlines() if line.strip()]
    head = [memory.name, memory.description] + lines[:1]
    head += [l for l in lines if l.startswith("#") or re.match(r"\W*status\b", l, re.IGNORECASE)]
    return head


def mentioned_paths(body: str) -> list[str]:
    """Relative project paths a memory names (links, wiki links and URLs excluded)."""
    if "/" not in body:  # every path checked has a folder in it
        return []
    text = LINK_RE.sub(" ", body)
    text = WIKI_RE.sub(" ", text)
    text = _URL.sub(" ", text)
    found = []
    for match in _PATH.finditer(text):
        path = match.group(1)
        if path.lower().endswith(".md") and "/" not in path.rstrip("/"):
            continue
        found.append(path)
    return list(dict.fromkeys(found))


def _missing(project: Path, path: str) -> bool:
    normal = posixpath.normpath(path)
    if normal.startswith("..") or os.path.isabs(normal):
        return False
    return not os.path.lexists(project / normal)


class ProjectPaths:
    """Which project files exist, each looked up once per run.

    What was looked up is kept: a cached plan is only reused while every answer still holds.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.looked_up: dict[str, bool] = {}  # path as written -> missing

    def missing(self, path: str) -> bool:
        known = self.looked_up.get(path)
        if known is None:
            known = self.looked_up[path] = _missing(self.root, path)
        return known


def find_stale(
    memory: Memory,
    now: datetime,
    project: Path | ProjectPaths | None,
    relative: Sequence[RelativeDate] | None = None,
) -> StaleFinding | None:
    """The evidence that ``memory`` is stale, or ``None``.

    ``relative``: the memory's relative dates, if the caller found them already.
    """
    if isinstance(project, Path):
        project = ProjectPaths(project)
    reasons: list[str] = []
    kinds: list[str] = []
    strong = False
    head_text = "\n".join(_marker_lines(memory))
    marker = _marker(head_text)
    if marker:
        reasons.append(f"status marker {marker.strip()!r}")
        kinds.append("marker")
        strong = True
    else:
        body_marker = _marker(memory.body)
        if body_marker:
            reasons.append(f"status marker {body_marker.strip()!r} in the body")
            kinds.append("marker")
    weak = _weak(memory.body) or _weak(memory.description)
    if weak:
        reasons.append(f"says {weak!r}")
        kinds.append("no-longer")
    written = datetime.fromtimestamp(memory.stat.mtime_ns / 1e9)
    # "until tomorrow" is a deadline too, once resolved against the day it was written.
    if relative is None:
        relative = find_relative(memory.body, written)
    body = rewrite_relative(memory.body, relative)
    passed = [d for d in find_deadlines(body, written) if d.day < now.date()]
    if passed:
        last = max(passed, key=lambda d: d.day)
        reasons.append(f"deadline passed: {last.phrase!r} ({last.day.isoformat()})")
        kinds.append("deadline")
        strong = True
    if project is not None:
        for path in mentioned_paths(memory.body):
            if project.missing(path):
                reasons.append(f"references missing path {path}")
                kinds.append("path")
    if not reasons:
        return None
    return StaleFinding(memory.file, tuple(reasons), strong, tuple(dict.fromkeys(kinds)))
