"""What one root's run carries from phase to phase."""

from __future__ import annotations

from dataclasses import dataclass, field

from consolidator.context import RootContext
from consolidator.detect.findings import LlmUsage
from consolidator.execute import Executor
from consolidator.plan import SAFE, Action, Declined, Plan
from consolidator.session import Session
from consolidator.state.usage import Usage
from consolidator.store.model import Snapshot

__all__ = ["RootContext", "Work", "chosen"]


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

    def __post_init__(self) -> None:
        if self.session is None:
            self.session = Session.of(self.ctx)
        usage = self.ctx.llm.usage if self.ctx.llm is not None else None
        if usage is not None:
            self._llm_start = (usage.calls, usage.input_tokens, usage.output_tokens,
                               len(usage.notes))

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

    def llm_usage(self) -> tuple[LlmUsage, list[str]]:
        """What this root spent on the model, and the backend's notes about it."""
        if self.ctx.llm is None:
            return LlmUsage(), []
        usage = self.ctx.llm.usage
        calls, tokens_in, tokens_out, notes = self._llm_start
        spent = LlmUsage(usage.backend, usage.calls - calls, usage.input_tokens - tokens_in,
                         usage.output_tokens - tokens_out)
        return spent, [*usage.standing, *usage.notes[notes:]]
