"""How each memory looks to a person reading the report: its age in Claude Code's words, and
every warning about it (no type, no description, lenient frontmatter, a shared name, what
looks like a secret, finished work its title or description tells of, an index line that
counts something otherwise than the memory). Not a
decision: nothing here acts on a memory."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime

from consolidator.detect.conflicts.hooks import hook_drift
from consolidator.detect.dates.freshness import age_days, age_warning, freshness_text
from consolidator.detect.findings import MemoryInfo
from consolidator.detect.perfile import Findings
from consolidator.detect.secrets.scan import find as find_secrets
from consolidator.state.usage import Usage
from consolidator.store.model import MEMORY_TYPES, Memory, Snapshot


def _unused(file: str, usage: Usage | None) -> list[str]:
    """The usage finding: no counted session of the last many opened the memory (a lower
    bound: the index is loaded into every session, and what the memory says may be used
    without opening it; never a reason to archive)."""
    if usage is None or not usage.unused(file):
        return []
    return [f"not opened in the last {usage.idle_for(file)} sessions counted (a lower bound: "
            "never archived for that)"]


def memory_warnings(
    memory: Memory, days: int, duplicate_names: set[str], secrets: Sequence[str] | None = None
) -> list[str]:
    """Every warning about one memory, Claude Code's age note first.

    ``secrets``: what the secret scan says of the memory, if the caller knows already.
    """
    warnings = []
    note = age_warning(days)
    if note:
        warnings.append(note)
    if memory.type is None:
        warnings.append("no type in frontmatter")
    elif memory.type not in MEMORY_TYPES:
        warnings.append(f"unknown type {memory.type!r}")
    if not memory.doc.fields.get("name", "").strip():
        warnings.append(f"no name in frontmatter (its file name, {memory.stem!r}, stands in)")
    if not memory.description:
        warnings.append("no description in frontmatter")
    if memory.doc.reader == "lenient":
        warnings.append("frontmatter is not valid YAML; read leniently")
    if memory.name in duplicate_names:
        warnings.append(f"name {memory.name!r} is also used by another memory")
    if secrets is None:
        secrets = find_secrets(memory.doc.head + memory.body)
    if secrets:
        warnings.append(f"holds what looks like a secret ({', '.join(secrets)}); it is "
                        "redacted before any text is sent to an API")
    return warnings


def describe(
    snapshot: Snapshot, now: datetime, findings: Mapping[str, Findings] | None = None,
    usage: Usage | None = None,
) -> tuple[MemoryInfo, ...]:
    """Each memory's age, freshness, how many counted sessions opened it, and warnings."""
    findings = findings or {}
    names = Counter(m.name for m in snapshot.memories)
    shared = {name for name, count in names.items() if count > 1}
    drift = hook_drift(snapshot)
    infos = []
    for memory in snapshot.memories:
        days = age_days(memory.written_ns, now)
        found = findings.get(memory.file)
        infos.append(MemoryInfo(
            file=memory.file, name=memory.name, type=memory.type,
            mtime_ns=memory.stat.mtime_ns, age_days=days, freshness=freshness_text(days),
            warnings=tuple(memory_warnings(memory, days, shared,
                                           found.secrets if found else None)
                           + ([found.finished] if found and found.finished else [])
                           + drift.get(memory.file, []) + _unused(memory.file, usage)),
            opened_in=usage.opened_in(memory.file) if usage is not None else None,
        ))
    return tuple(infos)
