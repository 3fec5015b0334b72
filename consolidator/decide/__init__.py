"""Deciding what to do: a pure function of the findings, the config and the clock.

No file, network or process is touched here: detect has read the memories and the model has
been asked before :func:`decide` runs (its answers are findings like any other). Each step
below takes values and returns actions, so a test can reach it on its own:

1. :func:`hands_off` - memories a live session may hold, and what they link to;
2. :func:`merges` - duplicates one memory holds line for line: safe;
3. :func:`archives` - stale memories, on evidence about the memory as a whole: judgments;
4. :func:`answered` - what the model decided (merges, supersessions, archives): judgments;
5. :func:`~consolidator.decide.linked.keep_linked` - no archive breaks a link from a memory
   that stays, and :func:`~consolidator.decide.linked.held_by_indexes` no merge or archive
   one from a folder's own index;
6. :func:`date_rewrites` - relative dates made absolute: judgments, each after any merge of
   its file;
7. :func:`not_declined` - a judgment a person declined is not proposed again while its
   files are unchanged.

The steps that follow an application (links repointed, a date rewrite judged again on the
bytes a safe step left) are in :mod:`consolidator.decide.follow`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from consolidator import clock
from consolidator.clock import MINUTE_NS, epoch_ns
from consolidator.config import Config
from consolidator.decide.bodies import appended, changed_lines, merged_body, newest_stamp, with_body
from consolidator.decide.linked import held_by_indexes, keep_linked
from consolidator.decide.room import costly_merges
from consolidator.detect.conflicts.age import last_recorded
from consolidator.detect.dates.anchors import mark_end
from consolidator.detect.dates.freshness import age_days
from consolidator.detect.dates.relative import relative_in, rewrite_relative
from consolidator.detect.dates.undated import copied_together, long_sessions
from consolidator.detect.describe import describe
from consolidator.detect.findings import Conflict, Duplicate, Similar, Stale
from consolidator.detect.links import is_topic, linked_from, links_of, name_table
from consolidator.detect.overlap.duplicates import Cluster
from consolidator.detect.perfile import Findings
from consolidator.detect.text import dead_kinds
from consolidator.index.window import Limits
from consolidator.llm.base import Answer
from consolidator.plan import (
    JUDGMENT,
    SAFE,
    Action,
    Archive,
    Declined,
    Merge,
    Plan,
    Rewrite,
    declined_key,
    leaving,
)
from consolidator.state.usage import Usage
from consolidator.store.frontmatter import ParseError, parse
from consolidator.store.model import Memory, Snapshot
from consolidator.store.scan import MAX_FILE_BYTES


@dataclass(frozen=True)
class Found:
    """Everything detect found in one root: what :func:`decide` decides from."""

    snapshot: Snapshot
    per_file: Mapping[str, Findings]
    clusters: tuple[Cluster, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    similar: tuple[Similar, ...] = ()  # pairs alike but too different to merge offline
    notes: tuple[str, ...] = ()
    answers: tuple[Answer, ...] = ()  # the model's checked answers
    declined: frozenset[Declined] = field(default_factory=frozenset)
    hot_after_ns: int | None = None  # a later mtime: maybe in a live session's hands
    across: tuple[Duplicate, ...] = ()  # the same memory in this root and another scope
    usage: Usage | None = None  # which memories the sessions opened, counted so far
    shared: bool = False  # a team scope: synced to every member, a removal comes back
    plain_similar: tuple[Similar, ...] = ()  # a note with no frontmatter alike: reported only


SHARED_NOTE = ("team memory is shared with your team: nothing in it is merged or archived "
               "(a removed file comes back with the next pull), every change is proposed")


def decide(found: Found, cfg: Config, now: datetime) -> Plan:
    """The plan for one root: its findings, and every action with its kind and payload."""
    snapshot = found.snapshot
    by_file = snapshot.by_file()
    hot_after = found.hot_after_ns if found.hot_after_ns is not None else \
        epoch_ns(now) - cfg.gates.idle_minutes * MINUTE_NS
    guarded = guarding(snapshot)
    hot, pinned = hands_off(snapshot, hot_after, guarded)
    notes = list(found.notes)
    if hot:
        ahead = sorted(f for f in hot if by_file[f].stat.mtime_ns > epoch_ns(now))
        notes.insert(0, f"left alone, changed within {cfg.gates.idle_minutes} min: "
                     + ", ".join(sorted(hot)) + (
                         f" ({len(ahead)} of them dated ahead of this clock: a clock set "
                         "wrong, or a copy that kept another machine's times)" if ahead else ""))
    if guarded:
        notes.append("guarded by their owner, so the memories they link to stay where they "
                     "are (their links could not follow): " + ", ".join(
                         f"{file} ({why})" for file, why in sorted(guarded.items())))
    merged, too_big = merges(found.clusters, by_file, hot, pinned)
    notes += too_big
    limits = Limits(cfg.index.max_lines, cfg.index.max_bytes, cfg.index.max_line_chars)
    kept_safe, costly = costly_merges(merged, snapshot, limits)
    notes += costly
    blocked = pinned | {f for c in found.clusters for f in c.files}
    actions: list[Action] = [*kept_safe, *archives(found, cfg, blocked)]
    actions += answered(found.answers, by_file, hot | {f for a in actions for f in a.touches()})
    actions, kept = keep_linked(snapshot, actions)
    notes += [f"{file} not archived: {', '.join(sources)} link to it"
              for file, sources in kept.items()]
    actions, held = held_by_indexes(snapshot, actions)
    notes += held
    if cfg.consolidate.resolve_conflicts:
        actions += superseded(by_file, found.conflicts,
                              hot | {f for a in actions for f in a.touches()})
    if cfg.consolidate.rewrite_relative_dates:
        actions += date_rewrites(snapshot, found.per_file, actions, hot)
    if found.shared:  # a team file removed here is restored by the next pull, for everyone
        actions = [a for a in actions if not isinstance(a, (Merge, Archive))]
        notes.append(SHARED_NOTE)
    actions, declined = not_declined(actions, found.declined)
    notes += [f"{a.op} {a.file}: declined before, not proposed while it is unchanged"
              for a in declined]
    # A pair a merge or an archive takes apart is no longer two memories to look at; one
    # whose only change is an edit in place (a date, a superseded line) still is.
    gone = {f for a in actions if isinstance(a, (Merge, Archive)) for f in a.touches()}
    return Plan(
        memories=describe(snapshot, now, found.per_file, found.usage),
        duplicates=tuple(Duplicate(c.files, c.keep, c.similarity) for c in found.clusters),
        conflicts=found.conflicts,
        similar=tuple(s for s in found.similar if not gone & set(s.files)),
        stale=_stale(found, by_file, now, kept),
        actions=tuple(actions),
        notes=tuple(notes),
        across=found.across,
        plain_similar=found.plain_similar,
    )


# ----------------------------------------------------------------------------- steps


def hands_off(snapshot: Snapshot, hot_after_ns: int,
              guarded: Collection[str] = ()) -> tuple[set[str], set[str]]:
    """(hot, pinned): memories changed after ``hot_after_ns`` (a live session may hold
    them), and those plus every memory they, or one of ``guarded`` (see :func:`guarding`),
    link to (their links cannot be repointed this run, so what they link to stays where it
    is)."""
    hot = {m.file for m in snapshot.memories if m.stat.mtime_ns > hot_after_ns}
    return hot, hot | linked_from(snapshot, hot | set(guarded))


def guarding(snapshot: Snapshot) -> dict[str, str]:
    """Memories their owner guards (write-protected, or sharing their bytes with another
    name) that link to other memories, each with why: a run cannot rewrite their links, so
    what they link to must stay where it is."""
    guarded = {m.file: m.stat.guarded for m in snapshot.memories if m.stat.guarded}
    if not guarded:
        return {}
    names = name_table(list(snapshot.memories))
    by_file = snapshot.by_file()
    return {f: why for f, why in guarded.items() if links_of(by_file[f], names) - {f}}


def merges(
    clusters: Iterable[Cluster], by_file: Mapping[str, Memory], hot: set[str],
    pinned: set[str],
) -> tuple[list[Merge], list[str]]:
    """A safe merge for each cluster of duplicates no live session holds, and a note for each
    merge whose result would be too large to be a memory."""
    out: list[Merge] = []
    notes: list[str] = []
    for cluster in clusters:
        if hot & set(cluster.files) or pinned & set(cluster.files[1:]):
            continue
        keep = by_file[cluster.keep]
        body, description = merged_body(cluster, by_file)
        if len(body.encode("utf-8")) + len(keep.doc.head) > MAX_FILE_BYTES:
            notes.append(f"merge into {cluster.keep} skipped: the result would exceed 1 MiB")
            continue
        data, note = with_body(keep, body, description,
                                newest_stamp(keep, [by_file[f] for f in cluster.files]))
        notes += note
        out.append(Merge(
            file=cluster.keep, sources=cluster.files, kind=SAFE, data=data,
            mtime_ns=max(by_file[f].stat.mtime_ns for f in cluster.files),
            reason=(f"{cluster.kind} (similarity {cluster.similarity:.2f})"
                    if cluster.kind != "contained" else
                    f"contained: every line of {', '.join(cluster.files[1:])} is in "
                    f"{cluster.keep} (line similarity {cluster.similarity:.2f})"),
            before=tuple(by_file[f].stat for f in cluster.files),
        ))
    return out, notes


def archives(found: Found, cfg: Config, blocked: Collection[str]) -> list[Archive]:
    """An archive for each memory stale as a whole, where the config allows that evidence."""
    opts = cfg.consolidate
    by_file = found.snapshot.by_file()
    out = []
    for finding in (f.stale for f in found.per_file.values() if f.stale is not None):
        allowed = ("marker" in finding.kinds and opts.archive_status_markers) or (
            "deadline" in finding.kinds and opts.archive_passed_deadlines) or (
            "path" in finding.kinds and opts.archive_gone_citations)
        if finding.archivable and allowed and finding.file not in blocked:
            out.append(Archive(file=finding.file, kind=JUDGMENT,
                               reason="stale: " + "; ".join(finding.reasons),
                               evidence=finding.evidence,
                               before=(by_file[finding.file].stat,)))
    return out


def answered(
    answers: Iterable[Answer], by_file: Mapping[str, Memory], taken: Collection[str]
) -> list[Action]:
    """The model's checked answers as judgments (a file already acted on is left out)."""
    out: list[Action] = []
    taken = set(taken)
    for answer in answers:
        files = answer.question.files
        if taken & set(files):
            continue
        decided = _answer_actions(answer, by_file)
        if decided:
            out += decided
            taken |= set(files)
    return out


def _answer_actions(answer: Answer, by_file: Mapping[str, Memory]) -> list[Action]:
    files = answer.question.files
    if answer.decision == "merge" and answer.keep and answer.body:
        keep = by_file[answer.keep]
        ordered = (answer.keep, *[f for f in files if f != answer.keep])
        data, _ = with_body(keep, answer.body, answer.description,
                             newest_stamp(keep, [by_file[f] for f in ordered]))
        return [Merge(file=answer.keep, sources=ordered, kind=JUDGMENT, data=data,
                      mtime_ns=max(by_file[f].stat.mtime_ns for f in ordered),
                      reason=f"merged by the model: {answer.reason}",
                      before=tuple(by_file[f].stat for f in ordered))]
    if answer.decision == "supersede" and answer.keep:
        # The survivor notes what it replaces first; the archive waits for that note.
        (old,) = [f for f in files if f != answer.keep]
        keep = by_file[answer.keep]
        note = f"- Supersedes `{old}` (archived): {answer.reason}".replace("\n", " ")
        data, _ = with_body(keep, appended(keep.body, [note], keep.doc.newline), None)
        return [
            Rewrite(file=answer.keep, kind=JUDGMENT, data=data, mtime_ns=keep.stat.mtime_ns,
                    before=(keep.stat,), reason=f"notes that it supersedes {old}"),
            Archive(file=old, kind=JUDGMENT, successor=answer.keep, needs=(answer.keep,),
                    before=(by_file[old].stat,),
                    reason=f"superseded by {answer.keep}: {answer.reason}"),
        ]
    if answer.decision == "obsolete":
        file = files[0]
        return [Archive(file=file, kind=JUDGMENT, before=(by_file[file].stat,),
                        reason=f"stale, confirmed by the model: {answer.question.evidence}; "
                               f"{answer.reason}")]
    return []


def date_rewrites(
    snapshot: Snapshot, per_file: Mapping[str, Findings], actions: Sequence[Action],
    hot: Collection[str],
) -> list[Rewrite]:
    """Relative dates made absolute in every memory that stays, each counted from the
    nearest date its text gives, else its writing time where that may date it (a record of
    one day: see relative_in). A memory a merge rewrites is rewritten after it:
    its state is the merge's result."""
    gone = set(leaving(actions))
    earlier = {a.file: a for a in actions if isinstance(a, (Merge, Rewrite))}
    out = []
    long, copied = long_sessions(snapshot.memories), copied_together(snapshot.memories)
    for memory in snapshot.memories:
        if memory.file in gone or memory.file in hot or is_topic(memory.file):
            continue  # a topic memory holds index lines: its mtime does not date them
        prior = earlier.get(memory.file)  # a merge or a note this plan writes first
        doc = memory.doc
        if prior is not None:
            try:
                doc = parse(prior.data)
            except ParseError:
                continue
        found = (per_file[memory.file].relative if prior is None and memory.file in per_file
                 else relative_in(memory, doc.body, memory.file in long,
                                  memory.file in copied))
        if not found:
            continue
        body = rewrite_relative(doc.body, found)
        before = prior.after() if prior is not None else memory.stat
        out.append(Rewrite(
            file=memory.file, kind=JUDGMENT, data=doc.with_body(body).to_bytes(),
            mtime_ns=before.mtime_ns, before=(before,),
            reason="; ".join(f"relative date {f.phrase!r} -> {f.resolved}" for f in found),
            evidence=changed_lines(doc.body, body),
        ))
    return out


def superseded(by_file: Mapping[str, Memory], conflicts: Iterable[Conflict],
               taken: Collection[str]) -> list[Rewrite]:
    """For each conflict, the older memory brought up to the newer one's value: its line
    says what the newer memory says, and the line as it was stays below it, dated and marked
    superseded (never deleted). A claim already struck through, a memory another action
    changes, a line in code or an HTML comment, or a line no longer found as written is
    left for the report."""
    out: list[Rewrite] = []
    done = set(taken)
    for conflict in conflicts:
        older = next(f for f in conflict.files if f != conflict.newer)
        if older in done or conflict.newer in done or "strikes through" in conflict.reason \
                or conflict.keyed or (conflict.same_age and not conflict.newer_by_text):
            continue  # (a conflict by key is reported only: see detect.conflicts.versions;
            # of two memories written within a minute, neither may be known to be newer)
        old_line, new_line = (conflict.evidence[conflict.files.index(f)]
                              for f in (older, conflict.newer))
        memory, newer = by_file[older], by_file[conflict.newer]
        lines = memory.body.split("\n")
        at = _live_at(lines, old_line)
        if at is None or _live_at(newer.body.split("\n"), new_line) is None:
            continue  # gone, or in code or a comment: an example, not a claim either way
        lead = old_line[: mark_end(old_line)]
        stated = new_line[mark_end(new_line):]
        was = old_line[len(lead):]
        recorded = last_recorded(newer) if conflict.newer_by_text else None
        day = (recorded or clock.local(newer.written_ns).date()).isoformat()
        indent = lead[: len(lead) - len(lead.lstrip(" \t"))]
        note = f"{indent}- Superseded on {day} by {conflict.newer}: {was}"
        end = "\r" if lines[at].endswith("\r") else ""  # a CRLF file keeps its line ends
        lines[at : at + 1] = [lead + stated + end, note + end]
        body = "\n".join(lines)
        out.append(Rewrite(
            file=older, kind=JUDGMENT, data=memory.doc.with_body(body).to_bytes(),
            mtime_ns=memory.stat.mtime_ns, before=(memory.stat,),
            reason=f"conflict: {conflict.reason}; {conflict.newer} is newer",
            evidence=(f"{old_line} -> {lead + stated}", f"+ {note}"),
        ))
        done.add(older)
    return out


def _live_at(lines: list[str], wanted: str) -> int | None:
    """Where ``wanted`` stands in ``lines`` as a live line (not in code or a comment)."""
    kinds = list(dead_kinds(lines))
    return next((i for i, line in enumerate(lines)
                 if line.rstrip("\r") == wanted and not kinds[i]), None)


def not_declined(
    actions: list[Action], declined: Collection[Declined]
) -> tuple[list[Action], list[Action]]:
    """(kept, left out): judgments a person declined while their files are unchanged."""
    if not declined:
        return actions, []
    keep: list[Action] = []
    out: list[Action] = []
    for action in actions:
        (out if action.kind == JUDGMENT and declined_key(action) in declined else keep).append(
            action)
    return keep, out


def _stale(found: Found, by_file: Mapping[str, Memory], now: datetime,
           kept: Mapping[str, list[str]]) -> tuple[Stale, ...]:
    out = []
    for finding in (f.stale for f in found.per_file.values() if f.stale is not None):
        linked = (f"not archived: {', '.join(kept[finding.file])} link to it",) \
            if finding.file in kept else ()
        out.append(Stale(finding.file, age_days(by_file[finding.file].written_ns, now),
                         finding.reasons + linked, finding.evidence, finding.archivable,
                         finding.whole))
    return tuple(out)
