"""Stale memories, each with its evidence and the scope the evidence speaks for.

Age alone is never evidence, only a warning. Evidence about the memory as a whole (a status in
its frontmatter, name, description, first line or lead paragraph; a passed limit that is the
memory's own subject, "until 2026-03-12 the branch is frozen", with no later deadline still
ahead) makes it archivable. Evidence about a part (a sub-section marked superseded, a passed
deadline in a list item, work that was due by a passed day, a line saying some text no longer
holds, a project file it names that is gone) is reported with its line, never archived.
See ``markers``, ``deadlines`` and ``scope`` for what counts as each.

The memory's citations, checked against the project as it is now, are the evidence about the
world (see ``citations``). A cited file still there is evidence the memory is alive: it vetoes
an archive that rests only on a status word.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from consolidator import clock
from consolidator.detect.dates.deadlines import Deadline, deadlines_in, might_date
from consolidator.detect.scope import Line, outline
from consolidator.detect.stale import citations
from consolidator.detect.stale.citations import MAX_PART_REASONS
from consolidator.detect.stale.markers import (
    Marker,
    frontmatter_marker,
    hints_in,
    leaves_open,
    part_markers,
    paused_status,
    retires,
    whole_marker,
)
from consolidator.detect.stale.replaced import Replaced
from consolidator.roots.project import Project
from consolidator.store.model import Memory

QUOTE_CHARS = 120  # how much of a line a reason quotes


@dataclass(frozen=True)
class StaleFinding:
    file: str
    reasons: tuple[str, ...]
    archivable: bool  # evidence about the memory as a whole: the offline backend may archive
    kinds: tuple[str, ...]  # "marker", "deadline", "path", "symbol", "branch", "command",
    # "citation"
    evidence: tuple[str, ...] = ()  # the lines the reasons rest on, as written, one per reason
    # Evidence about the memory as a whole that is reported only (another memory says it
    # replaces this one): never archived, as ``archivable`` may be.
    whole: bool = False

    def with_replaced(self, said: Sequence[Replaced]) -> StaleFinding:
        """This finding with the statements of other memories that they replace it."""
        return dataclasses.replace(
            self, reasons=self.reasons + tuple(
                f"`{r.by}` says it replaces this memory (reported, never archived: a statement "
                f"in words): {_quote(r.line)}" for r in said),
            kinds=tuple(dict.fromkeys((*self.kinds, "replaced"))),
            evidence=self.evidence + tuple(r.line for r in said), whole=True)


def replaced_finding(file: str, said: Sequence[Replaced],
                     found: StaleFinding | None) -> StaleFinding:
    """``found`` (or a new finding for ``file``) with the statements that ``said`` it is
    replaced."""
    return (found or StaleFinding(file, (), False, ())).with_replaced(said)


def _quote(text: str) -> str:
    """A line as a reason quotes it: whole, or cut with an ellipsis."""
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"


class _Evidence:
    """Reasons, kinds and evidence lines as they are found, one evidence line per reason."""

    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.kinds: list[str] = []
        self.lines: list[str] = []
        self.whole_kinds: set[str] = set()  # what the evidence about the whole memory is

    @property
    def whole(self) -> bool:
        return bool(self.whole_kinds)

    def add(self, reason: str, kind: str, line: str, whole: bool = False) -> None:
        self.reasons.append(reason)
        self.kinds.append(kind)
        self.lines.append(line)
        if whole:
            self.whole_kinds.add(kind)

    def finding(self, file: str) -> StaleFinding | None:
        if not self.reasons:
            return None
        return StaleFinding(file, tuple(self.reasons), self.whole,
                            tuple(dict.fromkeys(self.kinds)), tuple(self.lines))


def _whole(marker: Marker, found: _Evidence) -> str | None:
    """A status about the whole memory: evidence when it retires the memory; finished work
    in its name, description or first line ("Plan 015 (DONE)", "v8 split — completed") is
    returned as a note instead. It tells of an event, and on real text no one here had read
    what the work built mostly still held: it is no evidence that the memory is stale."""
    if retires(marker):
        found.add(f"status marker {marker.word!r} in the {marker.where}: "
                  f"{_quote(marker.line)}", "marker", marker.line, whole=True)
        return None
    if leaves_open(marker):
        return (f"status {marker.word!r} in the {marker.where} leaves something out of it, "
                f"so the memory is not called stale as a whole: {_quote(marker.line)}")
    return (f"marked as finished work ({marker.word!r} in the {marker.where}): what it holds "
            f"may still be true, so it is not called stale: {_quote(marker.line)}")


def _markers(memory: Memory, lines: list[Line], found: _Evidence,
             hints: tuple[str, ...]) -> str | None:
    """Status markers: one about the whole memory, else those about parts; the note on
    finished work, if that is what the whole memory's marker says."""
    whole = whole_marker(memory, [line for line in lines if line.head])
    if whole:
        return _whole(whole, found)
    for part in part_markers(lines, hints)[:MAX_PART_REASONS]:
        found.add(f"status marker {part.word!r} in a {part.where} (about a part): "
                  f"{_quote(part.line)}", "marker", part.line)
    return None


def _deadlines(memory: Memory, lines: list[Line], now: datetime, found: _Evidence) -> None:
    """Passed deadlines. Archivable only when the head says the memory holds until a day
    ("until 2026-03-12 the branch is frozen"), that day has passed and no deadline in the
    memory is still ahead. Work due by a day ("report due 2026-09-30") makes the memory
    history, not wrong: reported, not archived; so is every passed deadline in a part."""
    written = clock.local(memory.written_ns)
    fields = [Line(0, text, "text", True, "") for text in (memory.name, memory.description)
              if text]
    every: list[Deadline] = deadlines_in(fields, written)
    head_count = len(every)
    every += deadlines_in(lines, written)
    today = now.date()
    passed = sorted((d for d in every if d.day < today), key=lambda d: d.day, reverse=True)
    if not passed:
        return
    heads = {line.number for line in lines if line.head}
    in_head = {id(d) for i, d in enumerate(every) if i < head_count or d.number in heads}
    alive = len(passed) < len(every)  # a deadline still ahead: the memory is alive
    last = passed[0]
    if id(last) in in_head and last.validity and not alive:
        found.add(f"deadline passed: {last.phrase!r} ({last.day.isoformat()}), the memory's "
                  f"own subject: {_quote(last.line)}", "deadline", last.line, whole=True)
        return
    for d in passed[:MAX_PART_REASONS]:
        scope = "work due in the memory's head" if id(d) in in_head else "about a part"
        found.add(f"deadline passed: {d.phrase!r} ({d.day.isoformat()}) ({scope}): "
                  f"{_quote(d.line)}", "deadline", d.line)


def _alive(present: list[tuple[str, str]], found: _Evidence) -> None:
    """A cited file still in the project vetoes an archive that rests only on a status word:
    the memory is kept, and its evidence reported."""
    if not present or not found.whole_kinds or found.whole_kinds - {"marker"}:
        return
    found.whole_kinds.clear()
    shown = ", ".join(f"`{p}`" for p, _line in present[:3])
    found.add(f"not archived: it cites {len(present)} project file(s) still there ({shown})",
              "citation", present[0][1])


def find_stale(
    memory: Memory,
    now: datetime,
    project: Path | Project | None,
) -> StaleFinding | None:
    """The evidence that ``memory`` is stale, or ``None`` (see :func:`study_stale`)."""
    return study_stale(memory, now, project)[0]


def study_stale(
    memory: Memory,
    now: datetime,
    project: Path | Project | None,
) -> tuple[StaleFinding | None, str | None]:
    """The evidence that ``memory`` is stale, or ``None``; and the note that it is marked as
    finished work, if it is (a warning, not evidence).

    A deadline is only ever a day the writer wrote, never one the tool worked out from a
    relative phrase (the next run would archive on the tool's own guess).
    """
    if isinstance(project, Path):
        project = Project(project)
    found = _Evidence()
    body = memory.body
    text = "\n".join((memory.name, memory.description, body))
    lines: list[Line] | None = None
    finished: str | None = None
    hints = hints_in(text)  # most memories hold no status word at all: one quick scan
    if hints:
        lines = outline(body)
        finished = _markers(memory, lines, found, hints)
    else:
        marker = frontmatter_marker(memory)
        if marker:
            finished = _whole(marker, found)
    paused = paused_status(memory)
    if paused:
        found.add(f"set aside by its frontmatter, not retired (reported, never archived): "
                  f"{paused}", "marker", paused)
    if might_date(text):
        lines = lines if lines is not None else outline(body)
        _deadlines(memory, lines, now, found)
    if project is not None:
        present = citations.check(memory, project, found.add)
        citations.symbols(present, project, found.add)
        citations.branches(memory, project, found.add)
        citations.commands(memory, project, found.add)
        _alive(present, found)
    return found.finding(memory.file), finished
