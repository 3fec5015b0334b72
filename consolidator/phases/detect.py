"""Phase 2: find, ask, decide. Writes nothing.

Detect reads every memory (duplicates, conflicts, similar memories, stale evidence, relative
dates); the model, when one is configured, is asked about what only it can settle; then the
pure :func:`consolidator.decide.decide` turns all of it into the plan.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from functools import cache, partial

from consolidator.context import RootContext
from consolidator.decide import Found, decide
from consolidator.detect.conflicts.find import find_conflicts
from consolidator.detect.conflicts.versions import find_version_conflicts
from consolidator.detect.findings import Duplicate
from consolidator.detect.links import named_anywhere, set_aside
from consolidator.detect.overlap.duplicates import Together, find_duplicates
from consolidator.detect.overlap.notes import MAX_NOTES, comparable, similar_notes
from consolidator.detect.overlap.similar import find_similar, related_pairs
from consolidator.detect.perfile import study_all
from consolidator.detect.stale.citations import weigh_citations
from consolidator.detect.stale.evidence import replaced_finding
from consolidator.detect.stale.replaced import find_replaced
from consolidator.detect.text import normal_set
from consolidator.llm.base import Answer, Backend, Question
from consolidator.phases.context import Work
from consolidator.phases.scan import note_text
from consolidator.plan import Declined
from consolidator.report import progress
from consolidator.roots.project import Project
from consolidator.roots.stores import TEAM
from consolidator.store.model import Memory, Snapshot, Unparsed
from consolidator.store.scan import scan


def find(snapshot: Snapshot, ctx: RootContext, paths: Project | None = None,
         declined: frozenset[Declined] = frozenset()) -> Found:
    """Everything detect finds in ``snapshot`` (``paths`` records the project paths it looks
    up)."""
    notes = [] if ctx.project.path is not None else [f"path check skipped: {ctx.project.source}"]
    if paths is None and ctx.project.path is not None:
        paths = Project(ctx.project.path)
    def check() -> None:  # every few hundred memories: a stop, and the progress shown
        ctx.stop.check()
        progress.tick()

    if paths is not None and not weigh_citations(snapshot.memories, paths):
        notes.append(f"path check skipped: most paths the memories cite are not in "
                     f"{ctx.project.path} (they are about another tree)")
    progress.phase(ctx.root, f"detect: reading {len(snapshot.memories)} memories")
    findings = study_all(snapshot.memories, ctx.now, paths, check)
    # A note in a folder of old notes (`archive/`) is history its owner set aside: no pair
    # with it is judged (a copy of a live memory there is its old version, a conflict the
    # change that retired it).
    live = [m for m in snapshot.memories if not set_aside(m.file)]
    for file, said in find_replaced(live).items():
        found = findings[file]
        findings[file] = dataclasses.replace(
            found, stale=replaced_finding(file, said, found.stale))
    progress.phase(ctx.root, "detect: duplicates, conflicts and similar memories")
    sets = {file: found.lines for file, found in findings.items()}
    clusters = find_duplicates(live, sets, cache(partial(named_anywhere, snapshot)))
    ctx.stop.check()
    pairs = Together(clusters)
    feats: dict[str, set[str]] = {}  # conflicts fill it and similar reuses it
    conflicts = find_conflicts(live, skip=pairs, sets=sets, features=feats)
    worded = {frozenset(c.files) for c in conflicts}
    conflicts += [c for c in find_version_conflicts(live, skip=pairs, sets=sets)
                  if frozenset(c.files) not in worded]
    # Similar memories skip the conflicting pairs afterwards: the same list as skipping
    # them while it looks.
    similar = find_similar(live, pairs, sets=sets, lines_features=feats)
    ctx.stop.check()
    conflicting = {frozenset(c.files) for c in conflicts}
    across = across_scopes(live, ctx, sets)
    unfronted = [f for f in snapshot.unparsed
                 if f.error == "no frontmatter" and not set_aside(f.rel)]  # none at all
    if len(unfronted) > MAX_NOTES:  # (told before any is read)
        notes.append(f"{len(unfronted)} files with no frontmatter were not compared with the "
                     f"memories: more than {MAX_NOTES} (logs a tool keeps, as a rule)")
        unfronted = []
    plain_alike = similar_notes(live, plain_notes(snapshot, unfronted, ctx.now.date()), pairs)
    return Found(
        snapshot=snapshot, per_file=findings, clusters=tuple(clusters),
        conflicts=tuple(conflicts),
        similar=tuple(s for s in similar if frozenset(s.files) not in conflicting),
        notes=tuple(notes), declined=declined, hot_after_ns=ctx.hot_after_ns, across=across,
        shared=ctx.kind == "team", plain_similar=tuple(plain_alike),
    )


def plain_notes(snapshot: Snapshot, files: list[Unparsed], today: date) -> list[Memory]:
    """Those of ``files`` (with no frontmatter) that are compared with the memories (see
    :mod:`consolidator.detect.overlap.notes`), each read as the scan read it."""
    out = []
    for file in files:
        text = note_text(snapshot.root, file)
        note = comparable(file, text, today) if text else None
        if note is not None:
            out.append(note)
    return out


def across_scopes(live: list[Memory], ctx: RootContext,
                  sets: dict[str, frozenset[str]]) -> tuple[Duplicate, ...]:
    """The memories an auto memory directory (``live``: those not set aside) and its team
    scope both hold: reported, never merged (team memory is synced to the whole team; a merge
    would publish a private memory, or take a shared one from colleagues). The team's
    memories are only read, and those it sets aside left out too."""
    team = ctx.root / TEAM
    if ctx.kind != "auto" or team.is_symlink() or not team.is_dir():
        return ()
    theirs = [Memory(dataclasses.replace(m.stat, rel=f"{TEAM}/{m.file}"), m.doc)
              for m in scan(team).memories if not set_aside(m.file)]
    if not theirs:
        return ()
    lines = {**sets, **{m.file: normal_set(m.body) for m in theirs}}
    out = []
    for cluster in find_duplicates([*live, *theirs], lines):
        mine = [f for f in cluster.files if not f.startswith(f"{TEAM}/")]
        if mine and len(mine) < len(cluster.files):
            out.append(Duplicate(cluster.files, "", cluster.similarity))
    return tuple(out)


def run(work: Work) -> None:
    assert work.snapshot is not None
    ctx = work.ctx
    paths = Project(ctx.project.path) if ctx.project.path is not None else None
    found = dataclasses.replace(find(work.snapshot, ctx, paths, work.declined),
                                usage=work.usage)
    work.plan = decide(_asked(found, ctx), ctx.cfg, ctx.now)


MAX_RELATED = 3  # pairs sharing rare words a model is asked about, per run


def _asked(found: Found, ctx: RootContext) -> Found:
    """``found`` with the model's answers about what the offline decisions leave open (the
    offline backend has none to give: nothing is asked)."""
    if ctx.llm is None or getattr(ctx.llm.usage, "backend", "offline") == "offline":
        return found
    offline = decide(found, ctx.cfg, ctx.now)
    acted = {f for a in offline.actions for f in a.touches()}
    acted |= {m.file for m in found.snapshot.memories
              if m.stat.mtime_ns > ctx.hot_after_ns or set_aside(m.file)}
    by_file = found.snapshot.by_file()
    stale = [f.stale for f in found.per_file.values() if f.stale is not None]
    questions = [
        Question("conflict", c.files, c.reason, 3.0 + c.similarity) for c in found.conflicts
    ] + [
        Question("merge", s.files, f"{s.similarity:.0%} of their lines are shared",
                 2.0 + s.similarity) for s in offline.similar
        # One point made again is no reason to fold two memories into one: reported only.
        # A pair with only a line of each sharing rare words is asked below, as such.
        if not s.restated and not s.rare
    ] + [
        Question("stale", (f.file,), "; ".join(f.reasons), 1.0) for f in stale
    ]
    # Last, pairs that share rare words and were found nothing offline: the same point in
    # other words is what offline reading misses most, and only a model can tell it.
    known = {frozenset(q.files) for q in questions}
    known |= {frozenset(c.files) for c in found.clusters}
    # A restated point is not asked; a pair that may say the same thing is (it shares rare
    # words).
    known |= {frozenset(s.files) for s in found.similar if not s.rare}
    questions += [Question("merge", pair, evidence, 0.5) for pair, evidence in
                  related_pairs(found.snapshot.memories, known, acted, MAX_RELATED)]
    questions = sorted((q for q in questions if not acted & set(q.files)),
                       key=lambda q: (-q.priority, q.files))
    answers = _ask(ctx, ctx.llm, questions, by_file, acted)
    return dataclasses.replace(found, answers=tuple(answers))


def _ask(ctx: RootContext, llm: Backend, questions: list[Question],
         by_file: dict[str, Memory], acted: set[str]) -> list[Answer]:
    """Ask the backend each question whose files no earlier answer settled."""
    answers = []
    for number, question in enumerate(questions, 1):
        if acted & set(question.files):
            continue
        ctx.stop.check()
        progress.phase(ctx.root, f"detect: asking the model ({number}/{len(questions)})")
        answer = llm.ask(question, by_file)
        if answer is None:
            continue
        acted |= set(question.files)
        answers.append(answer)
    return answers

