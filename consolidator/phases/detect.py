"""Phase 2: decide, writing nothing. Memories in, an immutable plan out."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from consolidator.context import RootContext
from consolidator.detect.conflicts import find_conflicts
from consolidator.detect.dates import find_relative, rewrite_relative
from consolidator.detect.duplicates import Cluster, find_duplicates
from consolidator.detect.links import name_table, repoint
from consolidator.detect.stale import find_stale
from consolidator.detect.text import words_covered
from consolidator.freshness import age_days, age_warning, freshness_text
from consolidator.phases.context import Work
from consolidator.plan import Action, Conflict, Duplicate, Edit, MemoryInfo, Plan, Stale
from consolidator.store.model import MEMORY_TYPES, Memory, Snapshot
from consolidator.store.scan import MAX_FILE_BYTES


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


def merged_body(cluster: Cluster, by_file: dict[str, Memory]) -> tuple[str, str | None]:
    """The survivor's body (with any source description it lacks) and its best description."""
    keep = by_file[cluster.keep]
    body = keep.body
    known = f"{keep.name}\n{keep.description}\n{body}"
    description = keep.description or None
    extra: list[str] = []
    for file in cluster.files[1:]:
        source = by_file[file]
        if description is None and source.description:
            description = source.description
        if source.description and not words_covered(source.description, known + "\n".join(extra)):
            extra.append(source.description)
    if extra:
        newline = keep.doc.newline
        if body and not body.endswith(("\n", "\r")):
            body += newline
        body += newline.join(f"- {line}" for line in extra) + newline
    return body, (description if description != keep.description else None)


def plan(snapshot: Snapshot, ctx: RootContext) -> Plan:
    """Everything detect finds, and the actions the offline backend takes on it."""
    now = ctx.now
    opts = ctx.cfg.consolidate
    by_file = snapshot.by_file()
    notes: list[str] = []
    hot = {f for f, m in by_file.items() if m.stat.mtime_ns > ctx.hot_after_ns}
    if hot:
        notes.append(f"left alone, changed within {ctx.cfg.gates.idle_minutes} min: "
                     + ", ".join(sorted(hot)))
    if ctx.project.path is None:
        notes.append(f"path check skipped: {ctx.project.source}")

    clusters = find_duplicates(snapshot.memories)
    pairs = {frozenset((a, b)) for c in clusters for a in c.files for b in c.files if a != b}
    conflicts = find_conflicts(snapshot.memories, skip=pairs)
    stale = [s for m in snapshot.memories if (s := find_stale(m, now, ctx.project.path))]

    actions: list[Action] = []
    edits: dict[str, Edit] = {}
    in_cluster = {f for c in clusters for f in c.files}
    for cluster in clusters:
        if hot & set(cluster.files):
            continue
        body, description = merged_body(cluster, by_file)
        if len(body.encode("utf-8")) + len(by_file[cluster.keep].doc.head) > MAX_FILE_BYTES:
            notes.append(f"merge into {cluster.keep} skipped: the result would exceed 1 MiB")
            continue
        newest = max(by_file[f].stat.mtime_ns for f in cluster.files)
        edits[cluster.keep] = Edit(cluster.keep, body, description, newest)
        actions.append(Action("merge", cluster.keep, f"{cluster.kind} (similarity "
                              f"{cluster.similarity:.2f})", cluster.files))
    for finding in stale:
        allowed = ("marker" in finding.kinds and opts.archive_status_markers) or (
            "deadline" in finding.kinds and opts.archive_passed_deadlines
        )
        if finding.archivable and allowed and finding.file not in in_cluster | hot:
            actions.append(Action("archive", finding.file, "stale: " + "; ".join(finding.reasons)))

    draft = Plan(actions=tuple(actions))
    gone = set(draft.archived())
    redirects = draft.redirects()
    names = name_table(list(snapshot.memories))
    for memory in snapshot.memories:
        if memory.file in gone or memory.file in hot:
            continue
        current = edits.get(memory.file)
        body = current.body if current else memory.body
        reasons = []
        body, relinked = repoint(body, memory.file, redirects, names)
        if relinked:
            reasons.append("links repointed: " + ", ".join(f"{f} -> {redirects[f]}" for f in relinked))
        if opts.rewrite_relative_dates:
            written = datetime.fromtimestamp(memory.stat.mtime_ns / 1e9)
            found = find_relative(body, written)
            if found:
                body = rewrite_relative(body, found)
                reasons += [f"relative date {f.phrase!r} -> {f.resolved}" for f in found]
        if reasons:
            edits[memory.file] = Edit(
                memory.file, body, current.description if current else None,
                current.mtime_ns if current else memory.stat.mtime_ns,
            )
            if memory.file not in {a.file for a in actions if a.op == "merge"}:
                actions.append(Action("rewrite", memory.file, "; ".join(reasons)))
    return Plan(
        memories=describe(snapshot, now),
        duplicates=tuple(Duplicate(c.files, c.keep, c.similarity) for c in clusters),
        conflicts=tuple(Conflict(c.files, c.newer, c.similarity, c.reason) for c in conflicts),
        stale=tuple(
            Stale(s.file, age_days(by_file[s.file].stat.mtime_ns, now), s.reasons) for s in stale
        ),
        actions=tuple(actions),
        edits=tuple(edits.values()),
        notes=tuple(notes),
    )


def run(work: Work) -> None:
    assert work.snapshot is not None
    work.plan = plan(work.snapshot, work.ctx)
