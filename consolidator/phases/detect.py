"""Phase 2: decide, writing nothing. Memories in, an immutable plan out."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from consolidator import progress
from consolidator.context import RootContext
from consolidator.detect.conflicts import find_conflicts
from consolidator.detect.dates import find_relative, rewrite_relative
from consolidator.detect.duplicates import Cluster, Together, find_duplicates
from consolidator.detect.links import is_topic, linked_from, linking_to, name_table, repoint
from consolidator.detect.perfile import Findings, both, study_all
from consolidator.detect.similar import find_similar
from consolidator.detect.stale import ProjectPaths, StaleFinding
from consolidator.detect.text import exact_line, exact_set
from consolidator.freshness import age_days, age_warning, freshness_text
from consolidator.index.parse import unlink
from consolidator.llm import redact
from consolidator.llm.base import Answer, Question
from consolidator.phases.context import Work
from consolidator.plan import (
    Action,
    Conflict,
    Duplicate,
    Edit,
    MemoryInfo,
    Plan,
    Similar,
    Stale,
)
from consolidator.store.model import MEMORY_TYPES, Memory, Snapshot
from consolidator.store.scan import MAX_FILE_BYTES


def memory_warnings(
    memory: Memory, days: int, duplicate_names: set[str], secrets: Sequence[str] | None = None
) -> list[str]:
    """Every warning about one memory, Claude Code's age note first.

    ``secrets``: what :func:`redact.find` says of the memory, if the caller knows already.
    """
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
    if secrets is None:
        secrets = redact.find(memory.doc.head + memory.body)
    if secrets:
        warnings.append(f"holds what looks like a secret ({', '.join(secrets)}); it is "
                        "redacted before any text is sent to an API")
    return warnings


def describe(
    snapshot: Snapshot, now: datetime, findings: dict[str, Findings] | None = None
) -> tuple[MemoryInfo, ...]:
    """Each memory's age, freshness and warnings."""
    findings = findings or {}
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
                warnings=tuple(memory_warnings(
                    memory, days, shared,
                    found.secrets if (found := findings.get(memory.file)) else None,
                )),
            )
        )
    return tuple(infos)




def said_in(phrase: str, text: str) -> bool:
    """Whether ``text`` already says ``phrase``: its exact form (every sign, symbol and number
    kept) stands in one of the text's lines between spaces or line ends, so "port 543" is not
    said by "port 5432", nor "+5 s" by "-5 s"."""
    wanted = exact_line(phrase)
    if not wanted:
        return True
    bounded = re.compile(rf"(?:^|(?<=\s)){re.escape(wanted)}(?=$|[\s.,;:!?)])")
    return any(bounded.search(line) for line in exact_set(text) if wanted in line)


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
        if source.description and not said_in(source.description, known + "\n".join(extra)):
            extra.append(source.description)
    if extra:
        newline = keep.doc.newline
        if body and not body.endswith(("\n", "\r")):
            body += newline
        body += newline.join(f"- {line}" for line in extra) + newline
    return body, (description if description != keep.description else None)


def changed_lines(before: str, after: str) -> tuple[str, ...]:
    """Each line a rewrite changes, as ``before -> after`` (the evidence a person checks).

    Rewrites change text within lines, never the line breaks, so lines pair up by position.
    """
    old, new = before.splitlines(), after.splitlines()
    if len(old) != len(new):
        return ()
    return tuple(f"{a.strip()} -> {b.strip()}" for a, b in zip(old, new, strict=True) if a != b)


def plan(snapshot: Snapshot, ctx: RootContext, paths: ProjectPaths | None = None) -> Plan:
    """Everything detect finds, and the actions the offline backend takes on it.

    ``paths``: the project's files as looked up so far (it records what this plan looked up).
    """
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

    project = ctx.project.path
    if paths is None and project is not None:
        paths = ProjectPaths(project)
    findings = study_all(snapshot.memories, now, paths, ctx.stop.check)
    sets = {file: found.lines for file, found in findings.items()}
    clusters = find_duplicates(snapshot.memories, sets)
    ctx.stop.check()
    pairs = Together(clusters)
    feats: dict[str, set[str]] = {}  # on one core, conflicts fill it and similar reuses it
    # Conflicts and similar memories on two cores: similar skips the conflicting pairs
    # afterwards, which gives the same list as skipping them while it looks.
    conflicts, similar_all = both(
        lambda: find_conflicts(snapshot.memories, skip=pairs, sets=sets, features=feats),
        lambda: find_similar(snapshot.memories, pairs, sets=sets, lines_features=feats),
        len(snapshot.memories),
    )
    ctx.stop.check()
    relative = {file: found.relative for file, found in findings.items()}
    stale = [found.stale for found in findings.values() if found.stale is not None]

    actions: list[Action] = []
    edits: dict[str, Edit] = {}
    in_cluster = {f for c in clusters for f in c.files}
    # A memory in a live session's hands cannot have its links repointed this run: keep
    # everything it links to where it is.
    pinned = hot | linked_from(snapshot, hot)
    for cluster in clusters:
        if hot & set(cluster.files) or pinned & set(cluster.files[1:]):
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
        if finding.archivable and allowed and finding.file not in in_cluster | pinned:
            actions.append(Action("archive", finding.file, "stale: " + "; ".join(finding.reasons),
                                  evidence=finding.evidence))

    conflicting = {frozenset(c.files) for c in conflicts}
    similar = [s for s in similar_all if frozenset(s.files) not in conflicting]
    if ctx.llm is not None:
        judged = _ask_llm(ctx, by_file, pinned, similar, conflicts, stale, actions, edits)
        actions, edits = judged
    actions, kept = _keep_linked(snapshot, actions, edits)
    notes += [f"{file} not archived: {', '.join(sources)} link to it" for file, sources in
              kept.items()]
    draft = Plan(actions=tuple(actions))
    gone = set(draft.archived())
    redirects = draft.redirects()
    archived = gone - set(redirects)
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
        if archived and is_topic(memory.file):
            kept_body = unlink(body, archived, "archived")
            if kept_body != body:
                body = kept_body
                reasons.append("links to archived memories kept as text")
        if opts.rewrite_relative_dates:
            written = datetime.fromtimestamp(memory.stat.mtime_ns / 1e9)
            found = (relative[memory.file] if body == memory.body
                     else find_relative(body, written, memory.file))
            if found:
                body = rewrite_relative(body, found)
                reasons += [f"relative date {f.phrase!r} -> {f.resolved}" for f in found]
        if reasons:
            edits[memory.file] = Edit(
                memory.file, body, current.description if current else None,
                current.mtime_ns if current else memory.stat.mtime_ns,
            )
            if memory.file not in {a.file for a in actions if a.op == "merge"}:
                before = current.body if current else memory.body
                actions.append(Action("rewrite", memory.file, "; ".join(reasons),
                                      evidence=changed_lines(before, body)))
    acted = {f for a in actions for f in (a.file, *a.sources)}
    similar = [pair for pair in similar if not acted & set(pair.files)]
    return Plan(
        memories=describe(snapshot, now, findings),
        duplicates=tuple(Duplicate(c.files, c.keep, c.similarity) for c in clusters),
        conflicts=tuple(conflicts),
        similar=tuple(similar),
        stale=tuple(
            Stale(s.file, age_days(by_file[s.file].stat.mtime_ns, now),
                  s.reasons + ((f"not archived: {', '.join(kept[s.file])} link to it",)
                               if s.file in kept else ()),
                  s.evidence, s.archivable)
            for s in stale
        ),
        actions=tuple(actions),
        edits=tuple(edits.values()),
        notes=tuple(notes),
    )


def _keep_linked(
    snapshot: Snapshot, actions: list[Action], edits: dict[str, Edit]
) -> tuple[list[Action], dict[str, list[str]]]:
    """Drop the archive of a memory (with no successor) that memories staying behind link
    to: archiving it would break their links. Returns the actions and what was kept."""
    plan = Plan(actions=tuple(actions))
    leaving = set(plan.archived())
    candidates = {a.file for a in actions if a.op == "archive" and not a.successor}
    inbound = linking_to(snapshot, candidates, leaving, edits)
    if not inbound:
        return actions, {}
    kept = [a for a in actions if not (a.op == "archive" and a.file in inbound)]
    return kept, {file: sorted(sources) for file, sources in sorted(inbound.items())}


def run(work: Work) -> None:
    assert work.snapshot is not None
    project = work.ctx.project.path
    paths = ProjectPaths(project) if project is not None else None
    work.plan = plan(work.snapshot, work.ctx, paths)
    work.paths_looked_up = paths.looked_up if paths is not None else {}


def _questions(
    similar: list[Similar], conflicts: list[Conflict], stale: list[StaleFinding],
    acted: set[str],
) -> list[Question]:
    """What only a model can decide, most important first."""
    out = [
        Question("conflict", c.files, c.reason, 3.0 + c.similarity) for c in conflicts
    ] + [
        Question("merge", s.files, f"{s.similarity:.0%} of their lines are shared", 2.0
                 + s.similarity) for s in similar
    ] + [
        Question("stale", (f.file,), "; ".join(f.reasons), 1.0) for f in stale
    ]
    out = [q for q in out if not acted & set(q.files)]
    return sorted(out, key=lambda q: (-q.priority, q.files))


def _ask_llm(
    ctx: RootContext,
    by_file: dict[str, Memory],
    hot: set[str],
    similar: list[Similar],
    conflicts: list[Conflict],
    stale: list[StaleFinding],
    actions: list[Action],
    edits: dict[str, Edit],
) -> tuple[list[Action], dict[str, Edit]]:
    """Ask the backend about each open cluster; apply each checked answer to the plan."""
    acted = set(hot) | {f for a in actions for f in (a.file, *a.sources)}
    questions = _questions(similar, conflicts, stale, acted)
    for number, question in enumerate(questions, 1):
        if acted & set(question.files):
            continue
        ctx.stop.check()
        progress.phase(ctx.root, f"detect: asking the model ({number}/{len(questions)})")
        answer = ctx.llm.ask(question, by_file)
        if answer is None:
            continue
        acted |= set(question.files)
        actions_for(answer, by_file, actions, edits)
    return actions, edits


def actions_for(
    answer: Answer, by_file: dict[str, Memory], actions: list[Action], edits: dict[str, Edit]
) -> None:
    """Turn one checked answer into plan actions (a merge, or an archive with its note)."""
    question = answer.question
    if answer.decision == "merge" and answer.keep and answer.body:
        files = (answer.keep, *[f for f in question.files if f != answer.keep])
        newest = max(by_file[f].stat.mtime_ns for f in files)
        edits[answer.keep] = Edit(answer.keep, answer.body, answer.description, newest)
        actions.append(Action("merge", answer.keep, f"merged by the model: {answer.reason}",
                              files))
    elif answer.decision == "supersede" and answer.keep:
        (old,) = [f for f in question.files if f != answer.keep]
        keep = by_file[answer.keep]
        newline = keep.doc.newline
        body = keep.body if keep.body.endswith(("\n", "\r")) or not keep.body else (
            keep.body + newline)
        note = f"- Supersedes `{old}` (archived): {answer.reason}".replace("\n", " ")
        edits[answer.keep] = Edit(answer.keep, body + note + newline, None, keep.stat.mtime_ns)
        actions.append(Action("rewrite", answer.keep, f"notes that it supersedes {old}"))
        actions.append(Action("archive", old, f"superseded by {answer.keep}: {answer.reason}",
                              successor=answer.keep))
    elif answer.decision == "obsolete":
        actions.append(Action("archive", question.files[0],
                              f"stale, confirmed by the model: {question.evidence}; "
                              f"{answer.reason}"))
