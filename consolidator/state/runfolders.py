"""Run folders (``<state dir>/<root key>/runs/<run id>/``, laid out by
:mod:`consolidator.state.statedir`): when each started, what each holds, and removing one.
(Not :mod:`consolidator.store.runfolder`, which moves one memory file in or out of one.)

A run folder goes only through :func:`remove_run`: retention removes one that holds nothing
but the tool's own files (journal, backups); ``consolidator prune`` also one whose archive
holds users' memories.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat as stat_mod
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from consolidator.clock import epoch_ns
from consolidator.state.statedir import OWN, RUN_ID, RUNS, USERS, journal

_RUN_SECOND = re.compile(r"(\d{8}T\d{6}Z)-")


def run_id_ns(run_id: str) -> int | None:
    """When a run started, to the second, as its id says (``20261130T031500Z-3f9a``), in
    nanoseconds since the epoch; ``None`` for a name that carries no time."""
    found = _RUN_SECOND.match(run_id)
    if found is None:
        return None
    try:
        moment = datetime.strptime(found.group(1), "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None
    return epoch_ns(moment)


def run_meta(run: Path) -> dict[str, Any]:
    """A run journal's ``meta`` record (only the first line is read; ``{}`` when there is
    none to read)."""
    try:
        with open(journal(run), "rb") as fh:
            meta = json.loads(fh.readline(64 * 1024)).get("meta")
    except (OSError, ValueError, AttributeError):
        return {}
    return meta if isinstance(meta, dict) else {}


def run_started_ns(run: Path) -> int | None:
    """When a run started: its journal's ``meta.started_ns``, else the time in its id;
    ``None`` when neither says."""
    started = run_meta(run).get("started_ns")
    if isinstance(started, int) and not isinstance(started, bool) and started > 0:
        return started
    return run_id_ns(run.name)


@dataclass(frozen=True)
class RunFiles:
    """What one run folder holds: the files of users' bytes in it (``(folder, path within
    it, size)``: archived memories, files an undo took out, newer bytes a forced undo put
    aside), whether it holds anything that is neither those nor the tool's own (journal,
    backups), and its size in bytes."""

    users: tuple[tuple[str, str, int], ...]
    other: bool
    size: int


def _folder(run: Path) -> None:
    """Raise :class:`NotADirectoryError` unless ``run`` is a folder (a link is not one)."""
    if not stat_mod.S_ISDIR(os.lstat(run).st_mode):
        raise NotADirectoryError(f"{run} is not a folder")


def only_own_files(run: Path) -> bool:
    """Whether ``run`` holds nothing but the tool's own files (journal, backups): no file
    under ``archive/``, ``undone/`` or ``displaced/``, nothing else. Stops at the first
    file that says no; raises :class:`OSError` when ``run`` cannot be listed."""
    _folder(run)
    for entry in os.scandir(run):
        if entry.name in OWN:
            continue
        if entry.name not in USERS or not entry.is_dir(follow_symlinks=False):
            return False
        for folder, dirs, files in os.walk(entry.path, onerror=_raise):
            if files or any(os.path.islink(os.path.join(folder, d)) for d in dirs):
                return False
    return True


def run_files(run: Path) -> RunFiles:
    """List ``run`` (no link is followed); raises :class:`OSError` when it cannot be listed."""
    _folder(run)
    users: list[tuple[str, str, int]] = []
    other = False
    size = 0
    for entry in os.scandir(run):
        if entry.name not in OWN and entry.name not in USERS:
            other = True
        if not entry.is_dir(follow_symlinks=False):
            size += entry.stat(follow_symlinks=False).st_size
            continue
        for folder, dirs, files in os.walk(entry.path, onerror=_raise):
            dirs.sort()
            links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
            for name in sorted(files) + links:
                where = os.path.join(folder, name)
                bytes_ = os.lstat(where).st_size
                size += bytes_
                if entry.name in USERS:
                    rel = os.path.relpath(where, entry.path).replace(os.sep, "/")
                    users.append((entry.name, rel, bytes_))
    return RunFiles(tuple(users), other, size)


def _raise(exc: OSError) -> None:
    raise exc


def remove_run(run: Path, *, users_files: bool = False) -> bool:
    """Remove the run folder ``run``, the one place that does. Without ``users_files``
    (retention) only a folder that holds nothing but the tool's own files (journal,
    backups) goes; with it (``consolidator prune``) its archive goes too. Returns whether
    it was removed; raises :class:`OSError`. Whether the run may go at all (closed, not the
    current proposal's) is the caller's to check first."""
    if run.parent.name != RUNS or not RUN_ID.fullmatch(run.name):
        return False
    if not stat_mod.S_ISDIR(os.lstat(run).st_mode):
        return False  # a link is never followed into
    if not users_files and not only_own_files(run):
        return False
    shutil.rmtree(run)
    return True
