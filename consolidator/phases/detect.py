"""Phase 2: decide, writing nothing. Memories in, an immutable plan out."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import datetime

from consolidator.freshness import age_days, age_warning, freshness_text
from consolidator.phases.context import Work
from consolidator.plan import MemoryInfo
from consolidator.store.model import MEMORY_TYPES, Memory, Snapshot


def memory_warnings(memory: Memory, days: int, duplicate_names: set[str]) -> list[str]:
    """Every warning about one memory, Claude Code's age note first."""
    warnings = []
    note = age_warning(days)
    if note:
        warnings.append(note)
    if memory.type is None:
        warnings.append("no type in frontmatter")
    elif memory.type not in MEMORY_TYPES:
        warnings.append(f"unknown type {memory.type!r}")
    if not memory.description:
        warnings.append("no description in frontmatter")
    if memory.doc.reader == "lenient":
        warnings.append("frontmatter is not valid YAML; read leniently")
    if memory.name in duplicate_names:
        warnings.append(f"name {memory.name!r} is also used by another memory")
    return warnings


def describe(snapshot: Snapshot, now: datetime) -> tuple[MemoryInfo, ...]:
    """Each memory's age, freshness and warnings."""
    names = Counter(m.name for m in snapshot.memories)
    shared = {name for name, count in names.items() if count > 1}
    infos = []
    for memory in snapshot.memories:
        days = age_days(memory.stat.mtime_ns, now)
        infos.append(
            MemoryInfo(
                file=memory.file,
                name=memory.name,
                type=memory.type,
                mtime_ns=memory.stat.mtime_ns,
                age_days=days,
                freshness=freshness_text(days),
                warnings=tuple(memory_warnings(memory, days, shared)),
            )
        )
    return tuple(infos)


def run(work: Work) -> None:
    assert work.snapshot is not None
    notes = list(work.plan.notes)
    if work.ctx.project.path is None:
        notes.append(f"path check skipped: {work.ctx.project.source}")
    work.plan = dataclasses.replace(
        work.plan, memories=describe(work.snapshot, work.ctx.now), notes=tuple(notes)
    )
