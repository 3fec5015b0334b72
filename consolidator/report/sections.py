"""The report's reference sections, after what a run applies and what waits: the findings no
action covers, the index with its planned diff, the gates and the memories; and the small
pieces of Markdown every section writes with (a table cell, an inline text, quoted
evidence). Every text quoted from a memory goes through the report's
:class:`~consolidator.report.json.Mask`.
(Not :mod:`consolidator.index.sections`, the index's own sections.)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from consolidator.detect.conflicts.hooks import drift_line
from consolidator.detect.dates.freshness import age_warning
from consolidator.detect.findings import Conflict, Duplicate, MemoryInfo, Similar, Stale
from consolidator.plan import Archive, Merge, Plan
from consolidator.report.json import Mask
from consolidator.report.outcome import RootReport


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def inline(text: str) -> str:
    """``text`` on one line, so a reason or a note never breaks the list it stands in."""
    return " ".join(text.splitlines())


def quoted(lines: Iterable[str], mask: Mask, indent: str = "  ") -> list[str]:
    """Evidence lines under an item, quoted so a person can judge it without the file."""
    return [f"{indent}> {cell(mask(line))}" for line in lines]


def unsaid(evidence: tuple[str, ...], reasons: tuple[str, ...]) -> list[str]:
    """The evidence lines a finding's reasons do not quote in full already."""
    said = " ".join(reasons)
    return [line for line in evidence if line not in said]


def file_list(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


@dataclass(frozen=True)
class Rest:
    """The findings no action covers: each is shown once, as a finding."""

    duplicates: tuple[Duplicate, ...]
    conflicts: tuple[Conflict, ...]
    similar: tuple[Similar, ...]
    stale: tuple[Stale, ...]


def rest_of(plan: Plan) -> Rest:
    """A duplicate a merge covers, a stale memory an archive covers, and a pair one action
    resolves (a merge of both, or one archived as superseded by the other) are actions."""
    groups = [set(a.sources) | {a.file} for a in plan.actions if isinstance(a, Merge)]
    groups += [{a.file, a.successor} for a in plan.actions
               if isinstance(a, Archive) and a.successor]
    archived = {a.file for a in plan.actions if isinstance(a, Archive)}

    def covered(files: Iterable[str]) -> bool:
        wanted = set(files)
        return any(wanted <= g for g in groups)

    return Rest(
        duplicates=tuple(d for d in plan.duplicates if not covered(d.files)),
        conflicts=tuple(c for c in plan.conflicts if not covered(c.files)),
        similar=tuple(s for s in plan.similar if not covered(s.files)),
        stale=tuple(s for s in plan.stale if s.file not in archived),
    )


def _age_note(warning: str, days: int) -> bool:
    """Whether ``warning`` is Claude Code's age note (the freshness column says it)."""
    return warning == age_warning(days) or _AGE_NOTE.match(warning) is not None


_AGE_NOTE = re.compile(r"This memory is \d+ days old\. ")


def warnings_of(memory: MemoryInfo) -> list[str]:
    """A memory's warnings but Claude Code's age note (the age column says it)."""
    return [w for w in memory.warnings if not _age_note(w, memory.age_days)]


def _unscoped(reasons: tuple[str, ...]) -> list[str]:
    """A stale finding's reasons without the scope each names: the item says it once."""
    return [re.sub(r" \(about a part\)(?=:|$)", "", r) for r in reasons]


def _alike(pair: Similar) -> str:
    """How alike a similar pair is, in words a reader can weigh."""
    if pair.rare:
        return (f"may say the same thing: a line of each shares {pair.rare} words no other "
                f"memory uses")
    return f"similarity {pair.similarity:.2f}"


def _newer(conflict: Conflict) -> str:
    """Which side of a conflict is the newer, and by what (see detect.conflicts.age)."""
    if conflict.newer_by_text:
        return f"(newer by the dates in its text: `{conflict.newer}`)"
    if conflict.same_age:
        return "(written within a minute of each other: neither is known to be newer)"
    return f"(newer: `{conflict.newer}`)"


def findings_md(root: RootReport, rest: Rest, mask: Mask) -> list[str]:
    unparsed = root.snapshot.unparsed if root.snapshot else ()
    groups: list[tuple[str, list[str]]] = [
        ("Conflicts", [line for c in rest.conflicts for line in (
            f"- `{c.files[0]}` vs `{c.files[1]}`: {inline(mask(c.reason))} {_newer(c)}",
            *quoted(c.evidence, mask))]),
        ("Similar, not merged", [line for s in rest.similar for line in (
            f"- `{s.files[0]}` ~ `{s.files[1]}` ({_alike(s)})",
            *quoted([f"{a}  ~  {b}" for a, b in s.lines], mask))]),
        ("Stale, not archived", [line for s in rest.stale for line in (
            f"- `{s.file}` ({s.age_days} days old; "
            f"{'about the whole memory' if s.archivable or s.whole else 'about a part of it'}): "
            f"{inline('; '.join(mask.all(_unscoped(s.reasons))))}",
            *quoted(unsaid(s.evidence, s.reasons), mask))]),
        ("Duplicates, not merged", [
            f"- {file_list(others)} {'duplicates' if len(others) == 1 else 'duplicate'} "
            f"`{d.keep}` (line similarity {d.similarity:.2f}); not merged in this run"
            for d in rest.duplicates for others in [[f for f in d.files if f != d.keep]]]),
        ("The same memory in another scope (reported, never merged)", [
            f"- {file_list(list(d.files))}: a private memory and the team's say the same "
            f"(line similarity {d.similarity:.2f}); team memory is shared with the whole "
            "team, so nothing crosses between the two" for d in root.plan.across]),
        ("Index lines that count otherwise than their memory (reported, never changed)", [
            f"- `{m.file}`: {inline(mask(w))}"
            for m in root.plan.memories for w in m.warnings if drift_line(w) is not None]),
        ("Files with no frontmatter to read (left untouched)", [
            f"- `{u.rel}`: {inline(mask(u.error))}"
            + (f"; holds what looks like a secret ({', '.join(u.secrets)}), never shown"
               if u.secrets else "") for u in unparsed]),
        ("A file with no frontmatter that says what another says (reported, never merged)", [
            line for s in root.plan.plain_similar for line in (
                f"- `{s.files[0]}` ~ `{s.files[1]}` ({_alike(s)}): only a memory with "
                "frontmatter is ever merged",
                *quoted([f"{a}  ~  {b}" for a, b in s.lines], mask))]),
    ]
    out = ["", "### Findings that did not become an action"]
    shown = [(title, lines) for title, lines in groups if lines]
    for title, lines in shown:
        out += ["", f"#### {title}", "", *lines]
    return out if shown else out + ["", "none"]


def index_md(root: RootReport, mask: Mask) -> list[str]:
    index = root.plan.index
    if index is None:
        return ["", "### Index", "", "not planned"]
    before = (root.snapshot.index.text or "") if root.snapshot else ""
    name = root.snapshot.index.name if root.snapshot else "MEMORY.md"
    fit = "within limits" if index.within_limits else "**over limits**"
    if index.full:
        fit += ", **full** (no room for Claude Code's next pointer line)"
    if index.over_limits and index.within_limits:
        fit = "within limits after shrinking (it was over)"
    out = ["", "### Index", "", f"{index.lines} lines, {index.bytes} bytes, {fit}"]
    if root.snapshot and root.snapshot.index.secrets:
        out.append(f"- holds what looks like a secret ({', '.join(root.snapshot.index.secrets)})"
                   ", never shown: Claude Code loads the index into every session")
    kept = {f for f, _state in index.unlinked}
    for label, items in (
        ("added", index.added),
        ("links to missing, archived or merged-away files, text kept in the index",
         [f"{f} ({state})" for f, state in index.unlinked]),
        ("links in the index's own text to missing files, left as written for you to fix",
         index.linked_missing),
        ("pointers removed, their text already live elsewhere",
         [f for f in index.removed if f not in kept]),
        ("repointed", [f"{a} -> {b}" for a, b in index.repointed]),
        ("moved", mask.all(index.moved)),
        ("could not be indexed, no room (a run leaves room for Claude Code's next pointer; "
         "a fit of the index waiting for review may make room)", mask.all(index.dropped)),
    ):
        if items:
            out.append(f"- {label}: " + ", ".join(f"`{i}`" for i in items))
    if index.changed:
        diff = difflib.unified_diff(
            mask.all(before.splitlines()), mask.all(index.text.splitlines()), name,
            f"{name} (planned)", lineterm="", n=1,
        )
        out += ["", "```diff", *diff, "```"]
    return out


def gates_md(root: RootReport) -> list[str]:
    out = ["", "### Gates", "", "| gate | passed | reason |", "|---|---|---|"]
    for g in root.gates:
        mark = {True: "yes", False: "**no**", None: "–"}[g.passed]
        out.append(f"| {g.id} {g.name} | {mark} | {cell(g.reason)} |")
    return out


def memories_md(plan: Plan, mask: Mask, verbose: bool) -> list[str]:
    """Every memory with its age (once: the age note is the age column), or without
    ``verbose`` only those with another warning."""
    out = ["", "### Memories", ""]
    if not plan.memories:
        return out + ["none read"]
    rows: list[str] = []
    quiet = 0
    for m in plan.memories:
        warnings = warnings_of(m)
        if not warnings and not verbose:
            quiet += 1
            continue
        rows.append(f"| `{cell(m.file)}` | {cell(mask(m.type)) if m.type else '–'} "
                    f"| {m.freshness} | {cell('; '.join(mask.all(warnings)))} |")
    if rows:
        out += ["| file | type | age | warnings |", "|---|---|---|---|", *rows]
    if quiet:
        more = "more " if rows else ""
        out += ([""] if rows else []) + [
            f"{quiet} {more}{'memory' if quiet == 1 else 'memories'} with no warning of "
            f"{'its' if quiet == 1 else 'their'} own (frontmatter, name, secret, use) besides "
            f"{'its' if quiet == 1 else 'their'} age; findings about them are listed above: the "
            "same report with `--verbose` lists them"]
    return out
