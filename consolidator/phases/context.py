"""What one root's run carries from phase to phase.
(Not :mod:`consolidator.context`, the fixed facts the gates read.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from consolidator.context import RootContext
from consolidator.detect.findings import LlmUsage
from consolidator.detect.links import named_anywhere, set_aside
from consolidator.execute import Executor
from consolidator.gates.checks import busy_index
from consolidator.plan import SAFE, Action, Declined, Plan
from consolidator.session import Session
from consolidator.state import runs
from consolidator.state.usage import Usage
from consolidator.store.model import Snapshot
from consolidator.store.scan import SYMLINK

__all__ = ["RootContext", "Work", "chosen", "index_held"]


def chosen(action: Action, mode: str) -> bool:
    """Whether a run under ``[consolidate] apply = mode`` applies ``action`` itself (else it
    waits in the proposal)."""
    return mode == "all" or (mode == "safe" and action.kind == SAFE)


@dataclass
class Work:
    """The values the phases hand on: the scan, the plan, and what was left alone.

    ``mode``: ``safe``, ``all`` or ``none`` (see :func:`chosen`); ``consolidator apply``
    runs the phases after detect with mode ``all`` on the actions a person chose.
    """

    ctx: RootContext
    mode: str = "safe"
    snapshot: Snapshot | None = None
    plan: Plan = field(default_factory=Plan)
    after: Snapshot | None = None  # the root as the applied actions leave it
    proposed: tuple[int, ...] = ()  # where the actions this run leaves for review stand
    declined: frozenset[Declined] = frozenset()
    usage: Usage | None = None  # which memories the sessions opened (scan counts them)
    session: Session | None = None  # the root's lifecycle (default: a session of ctx)
    _llm_start: tuple[int, int, int, int] = (0, 0, 0, 0)
    _held: tuple[tuple[str, str] | None] | None = None  # index_held, once worked out
    _cut_short: dict[str, str] | None = None  # runs.merged_away, once read

    def __post_init__(self) -> None:
        if self.session is None:
            self.session = Session.of(self.ctx)
        usage = self.ctx.llm.usage if self.ctx.llm is not None else None
        if usage is not None:
            self._llm_start = (usage.calls, usage.input_tokens, usage.output_tokens,
                               len(usage.notes))

    def earlier_merges(self, snapshot: Snapshot, moved: dict[str, str]) -> dict[str, str]:
        """``moved`` (this run's merged-away files -> survivors), and the links in
        ``snapshot``'s memories and index to a file the root's previous run merged away and
        was then cut short before it repointed them (see :func:`runs.merged_away`), each at
        its survivor if that is there: what such a link surely means, so following it is as
        safe as this run's own follow-through."""
        if self._cut_short is None:  # read once a run: as a rule one journal line
            self._cut_short = runs.merged_away(self.ctx.state, self.ctx.run_id)
        earlier = self._cut_short
        if not earlier:
            return moved
        present = snapshot.existing_files()
        gone = named_anywhere(snapshot) - present - moved.keys()
        out = dict(moved)
        for file in sorted(gone & earlier.keys()):
            survivor, seen = earlier[file], {file}
            while survivor not in present and survivor in earlier and survivor not in seen:
                seen.add(survivor)
                survivor = earlier[survivor]  # merged away in its turn
            if survivor in present:
                out[file] = survivor
        return out

    @property
    def skipped(self) -> list[str]:
        return self.executor.skipped

    @property
    def kept(self) -> list[str]:
        """Memories a merge folded in but left live, as they changed on disk."""
        return self.executor.kept

    @property
    def executor(self) -> Executor:
        assert self.session is not None
        return self.session.executor

    def index_held(self) -> tuple[str, str] | None:
        """:func:`index_held` for the index as the scan found it, worked out once: this
        run's own changes (an index item applied) never hold the index back."""
        if self._held is None:
            assert self.snapshot is not None
            self._held = (index_held(self.ctx, self.snapshot),)
        return self._held[0]

    def llm_usage(self) -> tuple[LlmUsage, list[str]]:
        """What this root spent on the model, and the backend's notes about it."""
        if self.ctx.llm is None:
            return LlmUsage(), []
        usage = self.ctx.llm.usage
        calls, tokens_in, tokens_out, notes = self._llm_start
        spent = LlmUsage(usage.backend, usage.calls - calls, usage.input_tokens - tokens_in,
                         usage.output_tokens - tokens_out)
        return spent, [*usage.standing, *usage.notes[notes:]]


def index_held(ctx: RootContext, snapshot: Snapshot) -> tuple[str, str] | None:
    """Why this run must leave the index as it is, and what then to do; ``None`` when it
    may change it. An index that is there but cannot be read, or that its owner guards
    (write-protected, or sharing its bytes with another name), cannot be repointed; one a
    session changed within ``idle_minutes`` may be in its hands (unless that session has
    ended: see ``RootContext.settled``; an ``apply`` only re-checks the file as it writes).
    Either way no memory may leave the root, or the index would point at a file that is gone."""
    index = snapshot.index
    if index.stat is None and index.error is None:
        kept = index_elsewhere(snapshot)
        if kept is not None:
            why = (f"there is no {index.name}, and {kept} links most of the memories (the "
                   "folder's index under another name, never duplicated here)")
            return why, f"rename it {index.name} for Claude Code to load it, or link it from one"
    if index.error is not None:
        mend = ("replace the link with a copy of the file it points at"
                if index.error == SYMLINK else "mend it")
        return f"{index.name} cannot be read ({index.error})", f"{mend} and run again"
    guarded = index.stat.guarded if index.stat is not None else ""
    if guarded:
        return (f"{index.name} cannot be rewritten ({guarded})",
                "let its owner write it (one name, write permission) and run again")
    # A person's `apply` is no background run: what they answer, they answer now.
    busy = None if ctx.settled or ctx.trigger == "apply" else busy_index(ctx)
    if busy is not None:
        return (f"{busy}: a live session may be writing it",
                "the next run, once it has rested, does it")
    return None


def index_elsewhere(snapshot: Snapshot) -> str | None:
    """The note at the root, when there is no index, that links most of the memories an
    index would list (two at least; not those kept in folders of old notes, which no index
    points to): the folder's index under another name ("INDICE.md"), which a new
    ``MEMORY.md`` would duplicate, and would load what its owner may keep out of sessions."""
    files = {m.file for m in snapshot.memories if not set_aside(m.file)}
    best = max(((len(files.intersection(u.links)), u.rel) for u in snapshot.unparsed
                if "/" not in u.rel and u.links), default=None)
    if best is None or best[0] < 2 or 2 * best[0] <= len(files):
        return None
    return best[1]
