"""What detect learns from each memory on its own: its normal-form lines, its relative
dates, its stale evidence, the secrets it holds. None of that depends on another memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from consolidator.detect.dates.relative import RelativeDate, relative_in
from consolidator.detect.dates.undated import copied_together, long_sessions
from consolidator.detect.links import is_topic, set_aside
from consolidator.detect.secrets.scan import find as find_secrets
from consolidator.detect.stale.evidence import StaleFinding, study_stale
from consolidator.detect.text import normal_set
from consolidator.roots.project import Project
from consolidator.store.model import Memory

CHECK_EVERY = 256  # memories between two checks for a stop


@dataclass(frozen=True, slots=True)
class Findings:
    """One memory, studied on its own."""

    lines: frozenset[str]  # its normal-form lines
    relative: tuple[RelativeDate, ...]  # relative dates, resolved against its mtime
    stale: StaleFinding | None
    secrets: tuple[str, ...]  # kinds of credential it seems to hold
    finished: str | None = None  # the note that it is marked as finished work (a warning)


def study(memory: Memory, now: datetime, project: Project | None,
          long_session: bool = False, copied: bool = False) -> Findings:
    """``long_session``: whether the memory's session went on over several days (see
    :func:`~consolidator.detect.dates.undated.long_sessions`); ``copied``: whether its
    file's time is a copy's (:func:`~consolidator.detect.dates.undated.copied_together`)."""
    relative = relative_in(memory, long_session=long_session, copied=copied)
    # A topic memory holds lines moved out of the index, named after their heading: a status
    # in that name or those lines was the index's, which no run judges stale either. A note
    # in a folder of old notes (`archive/`) was set aside by its owner: "status: archived"
    # there says where it is, and moving it out again would do nothing for any session.
    aside = is_topic(memory.file) or set_aside(memory.file)
    stale, finished = (None, None) if aside else study_stale(memory, now, project)
    return Findings(
        lines=normal_set(memory.body),
        relative=tuple(relative),  # () for most memories: one shared empty tuple
        stale=stale,
        secrets=tuple(find_secrets(memory.doc.head + memory.body)),
        finished=finished,
    )


def study_all(
    memories: Sequence[Memory],
    now: datetime,
    project: Project | None,
    check: Callable[[], None] = lambda: None,
) -> dict[str, Findings]:
    """Every memory's findings, in the order given; ``project`` records the paths looked up.

    ``check`` is called every ``CHECK_EVERY`` memories and may raise to stop (a signal).
    """
    found = {}
    long, copied = long_sessions(memories), copied_together(memories)
    for n, memory in enumerate(memories):
        if n % CHECK_EVERY == 0:
            check()
        found[memory.file] = study(memory, now, project, memory.file in long,
                                   memory.file in copied)
    return found
