"""What detect learns from each memory on its own, on both cores when that pays.

Most of a plan's time goes into reading each memory by itself: its normal-form lines, its
relative dates, its stale evidence, the secrets it holds. None of that depends on another
memory, so a large root is split in two: a forked helper process takes one half while this
process does the other. Only the findings travel back; the memories are shared with the
helper by the fork itself.

The split happens only where it is safe and worth it: on Linux (fork is the start method
there), with at least two usable cores, for at least ``SPLIT_AT`` memories, and only from a
process with no other thread (the `serve` scheduler runs jobs on threads, and a background
service had better stay on one core anyway). On any trouble with the helper the work is
simply done here, in full.

:func:`both` does the same for two detectors that compare memories with each other (conflicts
and similar memories): one in a forked helper, the other here.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from consolidator import log
from consolidator import secrets as redact
from consolidator.detect.dates import RelativeDate, find_relative
from consolidator.detect.stale import ProjectPaths, StaleFinding, find_stale
from consolidator.detect.text import normal_set
from consolidator.store.model import Memory

SPLIT_AT = 2000  # below this a fork costs more than it saves
PART = 1000  # memories per message from the helper
CHECK_EVERY = 256  # memories between two checks for a stop

_A = TypeVar("_A")
_B = TypeVar("_B")


@dataclass(frozen=True, slots=True)
class Findings:
    """One memory, studied on its own."""

    lines: frozenset[str]  # its normal-form lines
    relative: tuple[RelativeDate, ...]  # relative dates, resolved against its mtime
    stale: StaleFinding | None
    secrets: tuple[str, ...]  # kinds of credential it seems to hold


def study(memory: Memory, now: datetime, project: ProjectPaths | None) -> Findings:
    written = datetime.fromtimestamp(memory.stat.mtime_ns / 1e9)
    relative = find_relative(memory.body, written, memory.file)
    return Findings(
        lines=normal_set(memory.body),
        relative=tuple(relative),  # () for most memories: one shared empty tuple
        stale=find_stale(memory, now, project),
        secrets=tuple(redact.find(memory.doc.head + memory.body)),
    )


def study_all(
    memories: Sequence[Memory],
    now: datetime,
    project: ProjectPaths | None,
    check: Callable[[], None] = lambda: None,
) -> dict[str, Findings]:
    """Every memory's findings, in the order given; ``project`` records the paths looked up.

    ``check`` is called every ``CHECK_EVERY`` memories and may raise to stop (a signal).
    """
    if len(memories) >= SPLIT_AT and can_split():
        try:
            return _in_two(memories, now, project, check)
        except Exception as exc:  # noqa: BLE001 - whatever went wrong, do it all here
            log.get(__name__).warning("helper process failed; studying every memory here",
                                      error=f"{type(exc).__name__}: {exc}")
    return _study_here(memories, now, project, check)


def _study_here(
    memories: Sequence[Memory], now: datetime, project: ProjectPaths | None,
    check: Callable[[], None],
) -> dict[str, Findings]:
    found = {}
    for n, memory in enumerate(memories):
        if n % CHECK_EVERY == 0:
            check()
        found[memory.file] = study(memory, now, project)
    return found


def can_split() -> bool:
    """Whether a forked helper is safe and has a core of its own."""
    if sys.platform != "linux" or threading.active_count() != 1:
        return False
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) >= 2


# What the helper works on: set just before the fork, so the helper inherits it unpickled.
_SHARED: tuple[Sequence[Memory], datetime, Path | None] | None = None


def _study_part(start: int, stop: int) -> tuple[dict[str, Findings], dict[str, bool]]:
    """In the helper: findings for ``memories[start:stop]`` and the paths looked up."""
    assert _SHARED is not None
    memories, now, root = _SHARED
    paths = ProjectPaths(root) if root is not None else None
    found = {m.file: study(m, now, paths) for m in memories[start:stop]}
    return found, (paths.looked_up if paths is not None else {})


def _flush() -> None:
    """Flush the standard streams before a fork: a forked child flushes them when it ends,
    and anything still buffered here would be written twice."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass  # no stream (started with it closed), or one that is closed


def _in_two(
    memories: Sequence[Memory], now: datetime, project: ProjectPaths | None,
    check: Callable[[], None],
) -> dict[str, Findings]:
    global _SHARED
    half = len(memories) // 2
    _SHARED = (memories, now, project.root if project is not None else None)
    _flush()
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    try:
        # The helper's half comes back in parts, so that no one message is large, and so
        # that a stop waits for one part at most.
        parts = [pool.submit(_study_part, start, min(start + PART, len(memories)))
                 for start in range(half, len(memories), PART)]
        found = _study_here(memories[:half], now, project, check)
        for part in parts:
            check()
            theirs, looked_up = part.result()
            found.update(theirs)
            if project is not None:
                for path, missing in looked_up.items():
                    project.looked_up.setdefault(path, missing)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _SHARED = None
    return {m.file: found[m.file] for m in memories}


# What the helper of :func:`both` runs: set just before the fork, like ``_SHARED``.
_TASK: Callable[[], Any] | None = None


def _run_task() -> Any:
    assert _TASK is not None
    return _TASK()


def both(first: Callable[[], _A], second: Callable[[], _B], size: int) -> tuple[_A, _B]:
    """``first()`` and ``second()``, on two cores when a root of ``size`` memories makes that
    pay: ``first`` in a forked helper (its result must pickle), ``second`` here. Each must be
    a pure function of what it reads, since the helper works on a copy. Otherwise, and on any
    trouble with the helper, ``first`` runs here, before ``second``."""
    global _TASK
    if size < SPLIT_AT or not can_split():
        done = first()
        return done, second()
    _TASK = first
    _flush()
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    try:
        future = pool.submit(_run_task)  # forks now, with _TASK set
        theirs = second()
        try:
            mine: _A = future.result()
        except Exception as exc:  # noqa: BLE001 - whatever went wrong, do it here
            log.get(__name__).warning("helper process failed; working here",
                                      error=f"{type(exc).__name__}: {exc}")
            mine = first()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _TASK = None
    return mine, theirs
