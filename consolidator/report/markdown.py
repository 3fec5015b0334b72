"""RunReport -> the Markdown a person reads before trusting a run: per root a summary, what
is (or would be) applied, what waits for review, the findings no action covers, the index,
the gates, and the memories last. Every text quoted from a memory goes through the report's
:class:`~consolidator.report.json.Mask`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from consolidator.detect.conflicts.hooks import drift_line
from consolidator.detect.dates.freshness import age_warning
from consolidator.detect.findings import Conflict, Duplicate, MemoryInfo, Similar, Stale
from consolidator.index.rebuild import IndexPlan
from consolidator.plan import JUDGMENT, Action, Archive, Create, Merge, Plan, Rewrite
from consolidator.report.json import Mask, applied_flags, mask_for
from consolidator.report.outcome import RootReport, RunReport
from consolidator.report.summary import command


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _inline(text: str) -> str:
    """``text`` on one line, so a reason or a note never breaks the list it stands in."""
    return " ".join(text.splitlines())


def _quoted(lines: Iterable[str], mask: Mask, indent: str = "  ") -> list[str]:
    """Evidence lines under an item, quoted so a person can judge it without the file."""
    return [f"{indent}> {_cell(mask(line))}" for line in lines]


def _unsaid(evidence: tuple[str, ...], reasons: tuple[str, ...]) -> list[str]:
    """The evidence lines a finding's reasons do not quote in full already."""
    said = " ".join(reasons)
    return [line for line in evidence if line not in said]


def _files(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


@dataclass(frozen=True)
class _Actions:
    """A plan's actions as a person reads them."""

    done: tuple[Action, ...]  # applied (a dry run: a real run would apply them)
    waiting: tuple[Action, ...]  # the proposal, in the order it numbers them (1..n)
    left: tuple[Action, ...]  # neither: a step whose files changed, or left to a later run


def _split(plan: Plan) -> _Actions:
    """Sort the plan's actions into applied, waiting for review (in the proposal's order),
    and left alone."""
    flags = applied_flags(plan)
    picked = plan.proposal.at if plan.proposal is not None else ()
    return _Actions(
        done=tuple(a for a, ok in zip(plan.actions, flags, strict=True) if ok),
        waiting=tuple(plan.actions[i] for i in picked),
        left=tuple(a for i, (a, ok) in enumerate(zip(plan.actions, flags, strict=True))
                   if not ok and i not in picked),
    )


# What the summary counts, by kind of change: (one, many), each with ``{n}``.
_CHANGES: dict[str, tuple[str, str]] = {
    "merge": ("{n} merge", "{n} merges"),
    "archive": ("{n} archive", "{n} archives"),
    "date": ("{n} relative-date rewrite", "{n} relative-date rewrites"),
    "link": ("links updated in {n} memory", "links updated in {n} memories"),
    "supersede": ("{n} supersede note", "{n} supersede notes"),
    "conflict": ("{n} conflict brought up to date", "{n} conflicts brought up to date"),
    "detail": ("index lines moved into {n} memory", "index lines moved into {n} memories"),
    "topic": ("{n} topic memory created", "{n} topic memories created"),
    "rewrite": ("{n} rewrite", "{n} rewrites"),
    "index": ("index rebuilt", "index rebuilt"),
    "loaded index": ("index lines Claude Code loads changed", "index lines Claude Code loads changed"),
    "new index": ("index created", "index created"),
}


def _change(action: Action, index_name: str) -> str:
    """The kind of change ``action`` makes, as the summary counts it."""
    if action.file == index_name and isinstance(action, Rewrite | Create):
        if action.kind == JUDGMENT and not action.reason.startswith("index rebuilt"):
            return "loaded index"  # (a rebuild is a judgment too where changes reach others)
        return "index" if isinstance(action, Rewrite) else "new index"
    if isinstance(action, Merge | Archive):
        return action.op
    if isinstance(action, Create) or action.reason.startswith("index overflow"):
        return "topic"
    for prefix, key in (("relative date ", "date"), ("links ", "link"), ("conflict: ", "conflict"),
                        ("notes that it supersedes ", "supersede"),
                        ("index detail moved in", "detail")):
        if action.reason.startswith(prefix):
            return key
    return "rewrite"


def _changes(actions: Iterable[Action], index_name: str) -> str:
    """``2 merges, links updated in 1 memory, index rebuilt``: counts in plan order."""
    counts: dict[str, int] = {}
    for action in actions:
        key = _change(action, index_name)
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(_CHANGES[k][n != 1].format(n=n) for k, n in counts.items())


def _action_line(action: Action, mask: Mask) -> str:
    if isinstance(action, Merge) and set(action.sources) - {action.file}:
        what = f"**merge** {_files(s for s in action.sources if s != action.file)} " \
               f"into `{action.file}`"
    elif isinstance(action, Create) and action.sources:
        what = f"**create** `{action.file}` from {_files(action.sources)}"
    else:
        what = f"**{action.op}** `{action.file}`"
    return f"{what} ({action.kind}): {_inline(mask(action.reason))}"


def _actions_md(actions: Iterable[Action], mask: Mask, *, numbered: bool) -> list[str]:
    """One line per action, its evidence quoted below; unnumbered, the topic memories an
    index rebuild created are one line with their count."""
    out: list[str] = []
    actions = list(actions)
    topics = [] if numbered else [a for a in actions if _is_topic_creation(a)]
    for n, action in enumerate(actions, 1):
        if len(topics) > 1 and action in topics:
            if action is topics[0]:
                out.append(f"- **create** {len(topics)} topic memories ({action.kind}): "
                           f"index lines moved out of {_files(a.file for a in topics)}")
            continue
        bullet = f"{n}. " if numbered else "- "
        out.append(bullet + _action_line(action, mask))
        out += _quoted(action.evidence, mask, " " * len(bullet))
    return out


def _is_topic_creation(action: Action) -> bool:
    return isinstance(action, Create) and action.reason.startswith("index overflow")


@dataclass(frozen=True)
class _Rest:
    """The findings no action covers: each is shown once, as a finding."""

    duplicates: tuple[Duplicate, ...]
    conflicts: tuple[Conflict, ...]
    similar: tuple[Similar, ...]
    stale: tuple[Stale, ...]


def _rest(plan: Plan) -> _Rest:
    """A duplicate a merge covers, a stale memory an archive covers, and a pair one action
    resolves (a merge of both, or one archived as superseded by the other) are actions."""
    groups = [set(a.sources) | {a.file} for a in plan.actions if isinstance(a, Merge)]
    groups += [{a.file, a.successor} for a in plan.actions
               if isinstance(a, Archive) and a.successor]
    archived = {a.file for a in plan.actions if isinstance(a, Archive)}

    def covered(files: Iterable[str]) -> bool:
        wanted = set(files)
        return any(wanted <= g for g in groups)

    return _Rest(
        duplicates=tuple(d for d in plan.duplicates if not covered(d.files)),
        conflicts=tuple(c for c in plan.conflicts if not covered(c.files)),
        similar=tuple(s for s in plan.similar if not covered(s.files)),
        stale=tuple(s for s in plan.stale if s.file not in archived),
    )


def _age_note(warning: str, days: int) -> bool:
    """Whether ``warning`` is Claude Code's age note (the freshness column says it)."""
    return warning == age_warning(days) or _AGE_NOTE.match(warning) is not None


_AGE_NOTE = re.compile(r"This memory is \d+ days old\. ")


def _warnings(memory: MemoryInfo) -> list[str]:
    return [w for w in memory.warnings if not _age_note(w, memory.age_days)]


def _found(root: RootReport, rest: _Rest, index_name: str) -> str:
    """The findings by kind as counts, with how many of each became actions."""
    plan = root.plan
    acted = [
        ("duplicate", "duplicates", len(plan.duplicates), len(rest.duplicates)),
        ("conflict", "conflicts", len(plan.conflicts), len(rest.conflicts)),
        ("similar pair", "similar pairs", len(plan.similar), len(rest.similar)),
        ("stale memory", "stale memories", len(plan.stale), len(rest.stale)),
    ]
    parts = [_plural(n, one, many) + _became(n - left) for one, many, n, left in acted if n]
    dates = sum(1 for a in plan.actions if _change(a, index_name) == "date"
                for part in a.reason.split("; ") if part.startswith("relative date "))
    unparsed = root.snapshot.unparsed if root.snapshot else ()
    more = [
        ("relative date", "relative dates", dates, " (all in rewrites)"),
        ("duplicate across scopes", "duplicates across scopes", len(plan.across),
         " (never merged)"),
        ("unparsed file", "unparsed files", len(unparsed), " (left alone)"),
        ("index pointer to a missing file", "index pointers to missing files",
         len(plan.index.missing) if plan.index else 0, ""),
        ("memory with no index pointer", "memories with no index pointer",
         _unindexed(plan.index) if plan.index else 0,
         f" ({len(plan.index.dropped)} with no room, named under Index)"
         if plan.index and plan.index.dropped else ""),
        ("memory with warnings", "memories with warnings",
         sum(1 for m in plan.memories if _warnings(m)), ""),
    ]
    parts += [_plural(n, one, many) + tail for one, many, n, tail in more if n]
    return ", ".join(parts) or "nothing"


def _unindexed(index: IndexPlan) -> int:
    """Memories the index had no pointer to: given one, listed in the topic memory of those
    with no room, or named."""
    return len(set(index.added) | set(index.listed) | set(index.dropped))


def index_limits_line(index: IndexPlan, name: str, mask: Mask) -> str:
    """The summary's word on an index that was or is over what Claude Code loads: lines and
    bytes before and after, and, while it is over, that Claude Code's own memory writes fail
    (since Claude Code 2.1.210 a write that leaves the index over its limit is an error)."""
    lines, size = index.before
    out = (f"- Index {name}: {lines} lines, {size} bytes before; {index.lines} lines, "
           f"{index.bytes} bytes after")
    if index.full:
        out += (": within what Claude Code loads, but **full**: no room for one more pointer "
                "line, so Claude Code's next memory write fails until a line moves out")
    elif index.within_limits:
        out += ": within what Claude Code loads"
    else:
        out += (f": **still over Claude Code's limits** ({index.over}); Claude Code's own "
                "memory writes fail while it is")
    if index.why:
        out += " (" + "; ".join(_inline(w) for w in mask.all(index.why)) + ")"
    return out


def _became(n: int) -> str:
    return "" if not n else " (1 became an action)" if n == 1 else f" ({n} became actions)"


def _summary_md(report: RunReport, root: RootReport, mask: Mask, actions: _Actions,
                rest: _Rest, index_name: str) -> list[str]:
    plan = root.plan
    status = f"Status: **{root.status}**"
    closed = next((g for g in root.gates if g.passed is False), None)
    if closed is not None:
        status += f"; gate {closed.id} {closed.name} is closed ({_inline(closed.reason)})"
        if root.status == "planned":
            status += ": a `run` without --force would skip this root now"
    out = ["", "### Summary", "", f"- {status}"]
    if root.error:
        out.append(f"- Error: {_inline(mask(root.error))}")
    if root.status == "skipped":
        return out + ["- Nothing was planned: the phases run once every gate is open"]
    done = _changes(actions.done, index_name)
    if plan.index is not None and not plan.index.changed:
        done = f"{done}, index unchanged" if done else "index unchanged"
    out.append(f"- {'A run would apply' if report.dry_run else 'Applied'}: {done or 'nothing'}")
    out.append(_waiting_line(report, plan, actions.waiting, index_name))
    if actions.left:
        out.append(f"- Not applied, not proposed: {_changes(actions.left, index_name)}")
    out.append(f"- Found: {_found(root, rest, index_name)}")
    if plan.index is not None and (plan.index.over_limits or not plan.index.within_limits
                                   or plan.index.full):
        out.append(index_limits_line(plan.index, index_name, mask))
    llm = root.llm
    if llm.backend != "offline" or llm.calls:
        out.append(f"- Model: {llm.backend}, {_plural(llm.calls, 'call')}, "
                   f"{llm.input_tokens} input and {llm.output_tokens} output tokens")
    return out


def _waiting_line(report: RunReport, plan: Plan, waiting: tuple[Action, ...],
                  index_name: str) -> str:
    label = "Would wait for review" if report.dry_run else "Waiting for review"
    if not waiting:
        return f"- {label}: none"
    judgments = sum(1 for a in waiting if a.kind == JUDGMENT)
    what = _plural(judgments, "judgment") if judgments == len(waiting) else \
        _plural(len(waiting), "change") + (f", {judgments} of them judgments" if judgments
                                            else ", all safe")
    line = f"- {label}: {what} ({_changes(waiting, index_name)})"
    run_id = plan.proposal.run_id if plan.proposal is not None else None
    if report.dry_run or run_id is None:
        return line + f"; a run keeps them as its proposal: `{command('proposals')}` " \
                      f"lists them, `{command('apply')}` applies them"
    return line + f" in proposal `{run_id}`: `{command('proposals')}` lists them, " \
                  f"`{command(f'apply {run_id}')}` applies them"


def _plan_md(report: RunReport, root: RootReport, mask: Mask, actions: _Actions) -> list[str]:
    plan = root.plan
    dry = report.dry_run
    out = ["", "### What a run would apply" if dry else "### Applied", ""]
    out += _actions_md(actions.done, mask, numbered=False) or ["nothing"]
    out += ["", "### What would wait for review" if dry else "### Waiting for review", ""]
    if actions.waiting:
        run_id = plan.proposal.run_id if plan.proposal is not None else None
        if dry or run_id is None:
            out += ["A real run would keep these as its proposal, numbered as here, replacing "
                    f"any proposal waiting now (`{command('proposals')}` shows what waits and "
                    "its numbers; apply and reject go by those).", ""]
        else:
            out += [f"Proposal `{run_id}`: `{command(f'apply {run_id}')} [--only N,M | "
                    f"--except N]` applies them, `{command(f'reject {run_id}')} "
                    "[--only N,M]` declines them.", ""]
        out += _actions_md(actions.waiting, mask, numbered=True)
    else:
        out.append("none")
    if actions.left:
        out += ["", "### Planned, not applied" if dry else "### Not applied", "",
                "Neither applied nor proposed: a step left alone (see why below), one held "
                "while the index cannot be read (see Notes), or one this run's `apply` setting "
                "leaves to a later run.", ""]
        out += _actions_md(actions.left, mask, numbered=False)
    return out


def _unscoped(reasons: tuple[str, ...]) -> list[str]:
    """A stale finding's reasons without the scope each names: the item says it once."""
    return [re.sub(r" \(about a part\)(?=:|$)", "", r) for r in reasons]


def _alike(pair: Similar) -> str:
    """How alike a similar pair is, in words a reader can weigh."""
    if pair.rare:
        return (f"may say the same thing: a line of each shares {pair.rare} words no other "
                f"memory uses")
    return f"similarity {pair.similarity:.2f}"


def _findings_md(root: RootReport, rest: _Rest, mask: Mask) -> list[str]:
    unparsed = root.snapshot.unparsed if root.snapshot else ()
    groups: list[tuple[str, list[str]]] = [
        ("Conflicts", [line for c in rest.conflicts for line in (
            f"- `{c.files[0]}` vs `{c.files[1]}`: {_inline(mask(c.reason))} "
            f"(newer: `{c.newer}`)",
            *_quoted(c.evidence, mask))]),
        ("Similar, not merged", [line for s in rest.similar for line in (
            f"- `{s.files[0]}` ~ `{s.files[1]}` ({_alike(s)})",
            *_quoted([f"{a}  ~  {b}" for a, b in s.lines], mask))]),
        ("Stale, not archived", [line for s in rest.stale for line in (
            f"- `{s.file}` ({s.age_days} days old; "
            f"{'about the whole memory' if s.archivable else 'about a part of it'}): "
            f"{_inline('; '.join(mask.all(_unscoped(s.reasons))))}",
            *_quoted(_unsaid(s.evidence, s.reasons), mask))]),
        ("Duplicates, not merged", [
            f"- {_files(others)} {'duplicates' if len(others) == 1 else 'duplicate'} "
            f"`{d.keep}` (line similarity {d.similarity:.2f}); not merged in this run"
            for d in rest.duplicates for others in [[f for f in d.files if f != d.keep]]]),
        ("The same memory in another scope (reported, never merged)", [
            f"- {_files(list(d.files))}: a private memory and the team's say the same "
            f"(line similarity {d.similarity:.2f}); team memory is shared with the whole "
            "team, so nothing crosses between the two" for d in root.plan.across]),
        ("Index lines that count otherwise than their memory (reported, never changed)", [
            f"- `{m.file}`: {_inline(mask(w))}"
            for m in root.plan.memories for w in m.warnings if drift_line(w) is not None]),
        ("Not memories (left untouched)", [
            f"- `{u.rel}`: {_inline(mask(u.error))}" for u in unparsed]),
    ]
    out = ["", "### Findings that did not become an action"]
    shown = [(title, lines) for title, lines in groups if lines]
    for title, lines in shown:
        out += ["", f"#### {title}", "", *lines]
    return out if shown else out + ["", "none"]


def _index_md(root: RootReport, mask: Mask) -> list[str]:
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
    kept = {f for f, _state in index.unlinked}
    for label, items in (
        ("added", index.added),
        ("links to missing or archived files, text kept in the index",
         [f"{f} ({state})" for f, state in index.unlinked]),
        ("pointers removed, their text already live elsewhere",
         [f for f in index.removed if f not in kept]),
        ("repointed", [f"{a} -> {b}" for a, b in index.repointed]),
        ("moved", mask.all(index.moved)),
        ("could not be indexed, no room (a run leaves room for Claude Code's next pointer)",
         mask.all(index.dropped)),
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


def _gates_md(root: RootReport) -> list[str]:
    out = ["", "### Gates", "", "| gate | passed | reason |", "|---|---|---|"]
    for g in root.gates:
        mark = {True: "yes", False: "**no**", None: "–"}[g.passed]
        out.append(f"| {g.id} {g.name} | {mark} | {_cell(g.reason)} |")
    return out


def _memories_md(plan: Plan, mask: Mask, verbose: bool) -> list[str]:
    """Every memory with its age (once: the age note is the age column), or without
    ``verbose`` only those with another warning."""
    out = ["", "### Memories", ""]
    if not plan.memories:
        return out + ["none read"]
    rows: list[str] = []
    quiet = 0
    for m in plan.memories:
        warnings = _warnings(m)
        if not warnings and not verbose:
            quiet += 1
            continue
        rows.append(f"| `{_cell(m.file)}` | {_cell(mask(m.type)) if m.type else '–'} "
                    f"| {m.freshness} | {_cell('; '.join(mask.all(warnings)))} |")
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


def _overall_md(report: RunReport) -> list[str]:
    """Above the roots of a pass over several: how each root ended, what was applied and
    waits in all, and every index over Claude Code's limits (its memory writes fail there)."""
    statuses: dict[str, int] = {}
    done: list[Action] = []
    waiting = 0
    over: list[str] = []
    for root in report.roots:
        statuses[root.status] = statuses.get(root.status, 0) + 1
        actions = _split(root.plan)
        done += actions.done
        waiting += len(actions.waiting)
        index = root.plan.index
        if index is not None and not index.within_limits:
            over.append(f"`{root.memory_dir}` ({index.over})")
    out = ["", "## Overall", "",
           f"- {_plural(len(report.roots), 'root')}: "
           + ", ".join(f"{n} {status}" for status, n in sorted(statuses.items())),
           f"- {'A run would apply' if report.dry_run else 'Applied'}: "
           f"{_changes(done, 'MEMORY.md') or 'nothing'}",
           f"- Waiting for review: {_plural(waiting, 'change') if waiting else 'none'}"]
    if over:
        out.append(f"- **Over Claude Code's index limits** in {_plural(len(over), 'root')}: "
                   + "; ".join(over) + ". Claude Code's own memory writes fail there until the "
                   "index is back within them")
    return out


def markdown(report: RunReport, *, verbose: bool = False) -> str:
    """The report a person reads: per root, the summary first and the memories last.

    ``verbose``: list every memory, not only those with a warning besides their age.
    """
    mode = "dry run: nothing was changed" if report.dry_run else "changes applied"
    if report.recorded:
        title = f"# Dream Consolidator report `{report.run_id}`"
    else:  # an id nothing records would send a reader to `history` for nothing
        title, mode = "# Dream Consolidator report", f"{mode} or recorded"
    out = [title, "", f"_{mode}_"]
    if len(report.roots) > 1:
        out += _overall_md(report)
    for root in report.roots:
        plan = root.plan
        mask = mask_for(root)
        index_name = root.snapshot.index.name if root.snapshot else "MEMORY.md"
        actions, rest = _split(plan), _rest(plan)
        out += ["", f"## {root.memory_dir} ({root.kind})"]
        out += _summary_md(report, root, mask, actions, rest, index_name)
        if root.status != "skipped":
            out += _plan_md(report, root, mask, actions)
            out += _findings_md(root, rest, mask)
            out += _index_md(root, mask)
        out += _gates_md(root)
        if plan.notes:
            out += ["", "### Notes", ""] + [f"- {_inline(mask(n))}" for n in plan.notes]
        if root.skipped:
            out += ["", "### Left alone (each with its reason)", ""]
            out += [f"- {_inline(mask(s))}" for s in root.skipped]
        if root.status != "skipped":
            out += _memories_md(plan, mask, verbose)
    return "\n".join(out) + "\n"
