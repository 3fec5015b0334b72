"""RunReport -> the Markdown a person reads before trusting a run: per root a summary, what
is (or would be) applied, what waits for review, the findings no action covers, the index,
the gates, and the memories last (those reference sections: :mod:`consolidator.report.sections`).
Every text quoted from a memory goes through the report's :class:`~consolidator.report.json.Mask`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from consolidator.index.rebuild import IndexPlan
from consolidator.plan import JUDGMENT, Action, Archive, Create, Merge, Plan, Rewrite
from consolidator.report.json import Mask, applied_flags, mask_for
from consolidator.report.outcome import RootReport, RunReport
from consolidator.report.sections import (
    Rest,
    file_list,
    findings_md,
    gates_md,
    index_md,
    inline,
    memories_md,
    plural,
    quoted,
    rest_of,
    warnings_of,
)
from consolidator.report.summary import command


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
    "loaded index": ("index lines Claude Code loads changed",
                     "index lines Claude Code loads changed"),
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
        what = f"**merge** {file_list(s for s in action.sources if s != action.file)} " \
               f"into `{action.file}`"
    elif isinstance(action, Create) and action.sources:
        what = f"**create** `{action.file}` from {file_list(action.sources)}"
    else:
        what = f"**{action.op}** `{action.file}`"
    return f"{what} ({action.kind}): {inline(mask(action.reason))}"


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
                           f"index lines moved out of {file_list(a.file for a in topics)}")
            continue
        bullet = f"{n}. " if numbered else "- "
        out.append(bullet + _action_line(action, mask))
        out += quoted(action.evidence, mask, " " * len(bullet))
    return out


def _is_topic_creation(action: Action) -> bool:
    return isinstance(action, Create) and action.reason.startswith("index overflow")


def _found(root: RootReport, rest: Rest, index_name: str) -> str:
    """The findings by kind as counts, with how many of each became actions."""
    plan = root.plan
    acted = [
        ("duplicate", "duplicates", len(plan.duplicates), len(rest.duplicates)),
        ("conflict", "conflicts", len(plan.conflicts), len(rest.conflicts)),
        ("similar pair", "similar pairs", len(plan.similar), len(rest.similar)),
        ("stale memory", "stale memories", len(plan.stale), len(rest.stale)),
    ]
    parts = [plural(n, one, many) + _became(n - left) for one, many, n, left in acted if n]
    dates = sum(1 for a in plan.actions if _change(a, index_name) == "date"
                for part in a.reason.split("; ") if part.startswith("relative date "))
    unparsed = root.snapshot.unparsed if root.snapshot else ()
    more = [
        ("relative date", "relative dates", dates, " (all in rewrites)"),
        ("duplicate across scopes", "duplicates across scopes", len(plan.across),
         " (never merged)"),
        ("unparsed file", "unparsed files", len(unparsed), " (left alone)"),
        ("pair with an unparsed file that says the same", "pairs with an unparsed file that "
         "say the same", len(plan.plain_similar), " (never merged)"),
        ("index pointer to a missing file", "index pointers to missing files",
         len(plan.index.missing) if plan.index else 0, ""),
        ("link in the index's text to a missing file", "links in the index's text to missing files",
         len(plan.index.linked_missing) if plan.index else 0, " (left as written)"),
        ("memory with no index pointer", "memories with no index pointer",
         _unindexed(plan.index) if plan.index else 0,
         f" ({len(plan.index.dropped)} with no room, named under Index)"
         if plan.index and plan.index.dropped else ""),
        ("memory with warnings", "memories with warnings",
         sum(1 for m in plan.memories if warnings_of(m)), ""),
    ]
    parts += [plural(n, one, many) + tail for one, many, n, tail in more if n]
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
        out += " (" + "; ".join(inline(w) for w in mask.all(index.why)) + ")"
    return out


def _became(n: int) -> str:
    return "" if not n else " (1 became an action)" if n == 1 else f" ({n} became actions)"


def _summary_md(report: RunReport, root: RootReport, mask: Mask, actions: _Actions,
                rest: Rest, index_name: str) -> list[str]:
    plan = root.plan
    status = f"Status: **{root.status}**"
    closed = next((g for g in root.gates if g.passed is False), None)
    if closed is not None:
        status += f"; gate {closed.id} {closed.name} is closed ({inline(closed.reason)})"
        if root.status == "planned":
            status += ": a `run` without --force would skip this root now"
    out = ["", "### Summary", "", f"- {status}"]
    if root.error:
        out.append(f"- Error: {inline(mask(root.error))}")
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
        out.append(f"- Model: {llm.backend}, {plural(llm.calls, 'call')}, "
                   f"{llm.input_tokens} input and {llm.output_tokens} output tokens")
    return out


def _waiting_line(report: RunReport, plan: Plan, waiting: tuple[Action, ...],
                  index_name: str) -> str:
    label = "Would wait for review" if report.dry_run else "Waiting for review"
    if not waiting:
        return f"- {label}: none"
    judged = tuple(a for a in waiting if a.kind == JUDGMENT)
    safe = tuple(a for a in waiting if a.kind != JUDGMENT)
    if not safe:
        what = f"{plural(len(judged), 'judgment')} ({_changes(judged, index_name)})"
    elif not judged:
        what = f"{plural(len(safe), 'change')}, all safe ({_changes(safe, index_name)})"
    else:  # each kind with its own changes: the safe merges are no judgments
        what = (f"{plural(len(waiting), 'change')}: {len(safe)} safe "
                f"({_changes(safe, index_name)}) and {plural(len(judged), 'judgment')} "
                f"({_changes(judged, index_name)})")
    line = f"- {label}: {what}"
    run_id = plan.proposal.run_id if plan.proposal is not None else None
    if report.dry_run or run_id is None:
        return line + "; this plan keeps none: a run without --dry-run keeps them as its " \
                      f"proposal, then `{command('proposals')}` lists them and " \
                      f"`{command('apply')}` applies them"
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
           f"- {plural(len(report.roots), 'root')}: "
           + ", ".join(f"{n} {status}" for status, n in sorted(statuses.items())),
           f"- {'A run would apply' if report.dry_run else 'Applied'}: "
           f"{_changes(done, 'MEMORY.md') or 'nothing'}",
           f"- Waiting for review: {plural(waiting, 'change') if waiting else 'none'}"]
    if over:
        out.append(f"- **Over Claude Code's index limits** in {plural(len(over), 'root')}: "
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
        actions, rest = _split(plan), rest_of(plan)
        out += ["", f"## {root.memory_dir} ({root.kind})"]
        out += _summary_md(report, root, mask, actions, rest, index_name)
        if root.status != "skipped":
            out += _plan_md(report, root, mask, actions)
            out += findings_md(root, rest, mask)
            out += index_md(root, mask)
        out += gates_md(root)
        if plan.notes:
            out += ["", "### Notes", ""] + [f"- {inline(mask(n))}" for n in plan.notes]
        if root.skipped:
            out += ["", "### Left alone (each with its reason)", ""]
            out += [f"- {inline(mask(s))}" for s in root.skipped]
        if root.status != "skipped":
            out += memories_md(plan, mask, verbose)
    return "\n".join(out) + "\n"
