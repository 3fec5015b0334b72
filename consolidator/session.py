"""One root's lifecycle, the same for a run, an apply, an undo and a prune.

A session holds what a change to one root needs around it: the lock (or, in a dry run, only
a probe of it), the rollback of a run an earlier process left interrupted, the journaled
transaction (opened on the first change, never in a dry run), its close or rollback at the
end with the lock let go, and the root's history line — built here and nowhere else.

A session and the executor are the only readers of "is this run dry": everything else reads
plans and outcomes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from consolidator.config import StateSection
from consolidator.context import RootContext
from consolidator.errors import ConsolidatorError, LockHeld
from consolidator.execute import Executor
from consolidator.gates import GATE_NAMES, GateResult
from consolidator.gates.checks import lock_probe, record_scan
from consolidator.state import history, retention, usage
from consolidator.state.lock import RootLock
from consolidator.state.usage import Usage
from consolidator.store.recover import interrupted_runs, recover
from consolidator.store.transaction import Transaction

# A journal closed with "ok": its changes stand (an apply whose chosen actions were all
# refused may still have made safe steps).
OK_STATUSES = ("consolidated", "applied", "refused")


def describe_error(exc: BaseException, phase: str | None = None) -> str:
    """One line for a failed root: an expected error's own message; for anything else, its
    type and message, and the phase it came from."""
    if isinstance(exc, (ConsolidatorError, OSError)):
        text = str(exc)
    else:
        where = f" in phase {phase}" if phase else ""
        text = f"internal error{where}: {type(exc).__name__}: {exc}"
    return " ".join(text.split()) or type(exc).__name__


@dataclass
class Session:
    """One root's run, apply, undo or prune (see the module's doc).

    ``root`` is ``None`` only for a prune of a state folder whose memory dir is unknown.
    """

    root: Path | None
    state: Path
    run_id: str
    started: datetime
    trigger: str
    kind: str | None = None
    dry: bool = False
    ctx: RootContext | None = None
    held: RootLock | None = None
    tx: Transaction | None = None
    _executor: Executor | None = field(default=None, repr=False)
    after_record: Callable[[], None] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, ctx: RootContext) -> Session:
        return cls(ctx.root, ctx.state, ctx.run_id, ctx.now, ctx.trigger, ctx.kind,
                   ctx.dry_run, ctx, after_record=ctx.after_record)

    @property
    def planned_status(self) -> str:
        """A pass's status when it went through: it planned (dry) or consolidated."""
        return "planned" if self.dry else "consolidated"

    @property
    def lock_before_ns(self) -> int | None:
        """The ``.consolidate-lock`` mtime the session found (an undo puts it back)."""
        return self.held.previous_mtime_ns if self.held is not None else None

    def _context(self) -> RootContext:
        assert self.ctx is not None, "a session of a run or an apply has its context"
        return self.ctx

    # ------------------------------------------------------------------------- the lock

    def gate(self) -> GateResult:
        """G7 for a run: take the lock for real, or in a dry run only probe it."""
        gid, name = GATE_NAMES[-1]
        if self.dry:
            passed, reason = lock_probe(self._context())
            return GateResult(gid, name, passed, reason)
        try:
            self.acquire()
        except LockHeld as exc:
            return GateResult(gid, name, False, str(exc))
        except OSError as exc:
            raise ConsolidatorError(f"{self.root}: cannot take the lock: {exc}") from exc
        return GateResult(gid, name, True, "acquired")

    def acquire(self) -> None:
        """Take the root's lock (:class:`LockHeld` when it is held); whatever part of it a
        failure took goes back as it was."""
        ctx = self._context()
        held = RootLock(ctx.root, ctx.cfg.gates.lock_stale_minutes, ctx.state,
                        auto=ctx.kind == "auto")
        try:
            held.acquire()
        except BaseException:
            try:
                held.rollback()
            finally:
                held.release()
            raise
        self.held = held

    def sessions_scanned(self) -> None:
        """Remember that the gates read the transcripts now (G5 holds across processes), in
        the state dir: a dry ``run`` too, as it records its history line (only ``report``
        and ``status`` record nothing, and they never call this)."""
        record_scan(self._context())

    # ------------------------------------------------------------------------- changes

    def recover(self) -> list[str]:
        """Roll back interrupted runs before anything else (a dry run only says it found
        one)."""
        assert self.root is not None
        if not self.dry:
            return recover(self.root, self.state)
        return [f"interrupted run {p.name} found; the next real run rolls it back"
                for p in interrupted_runs(self.state)]

    @property
    def executor(self) -> Executor:
        """The one executor of the session's changes: it writes them through
        :meth:`transaction`, or in a dry run only says which it would apply."""
        if self._executor is None:
            ctx = self._context()
            self._executor = Executor(ctx.root, dry_run=self.dry,
                                      transaction=self.transaction, stop=ctx.stop)
        return self._executor

    def transaction(self) -> Transaction:
        """The run's journaled writer, opened on the first change."""
        assert self.root is not None and not self.dry, "a dry run never opens a transaction"
        if self.tx is None:
            ctx = self._context()
            self.tx = Transaction(
                self.root,
                ctx.run_dir,
                {"run_id": self.run_id, "memory_dir": str(self.root),
                 "started_at": self.started.isoformat(), "started_ns": ctx.now_ns,
                 "trigger": self.trigger, "lock_before_ns": self.lock_before_ns},
                self.after_record,
            )
        return self.tx

    def close(self, status: str, error: str | None, *,
              consolidated: bool = False) -> tuple[str, str | None]:
        """Close the journal and let the lock go: marked consolidated when ``consolidated``
        (a pass whose phases went through), else rolled back to the time it had. A journal
        that cannot be closed fails the root but never keeps the lock held."""
        try:
            if consolidated and self.held is not None:
                self.held.success(self._context().now_ns)
            if self.tx is not None:
                try:
                    self.tx.journal.close("ok" if status in OK_STATUSES else status)
                finally:
                    self.tx.close()  # the root's folder descriptor
        except Exception as exc:  # noqa: BLE001 - a full disk must not keep the lock held
            status, error = "failed", error or f"journal not closed: {describe_error(exc)}"
        finally:
            held, self.held = self.held, None
            if held is not None:
                try:
                    held.rollback()  # a no-op after success
                finally:
                    held.release()
        return status, error

    def keep_usage(self, counted: Usage | None) -> None:
        """Keep what the run counted of the sessions' use of memories (a dry run keeps
        nothing: the next real run counts the same sessions)."""
        if counted is not None and not self.dry:
            usage.save(self.state, counted)

    # ------------------------------------------------------------------------- history

    def record(self, status: str, counts: dict[str, int], *, keep: StateSection | None = None,
               now_ns: int | None = None, durable: bool = True, **more: Any) -> bool:
        """Write the session's history line; returns whether one was written.

        ``keep``: a pass over the root, recorded as passes are (a closed gate's line only
        when the gate changed; retention after a real pass); ``durable``: fsync the line.
        A run's or an apply's line says whether it ``changed`` files (kept a journal, so
        ``undo`` has something to take back).
        """
        if self.ctx is not None:
            more.setdefault("changed", self.tx is not None)
        entry = history.entry(
            run_id=self.run_id, memory_dir=str(self.root) if self.root else None,
            kind=self.kind, started=self.started, trigger=self.trigger, status=status,
            dry_run=self.dry, counts=counts, **more)
        if keep is not None:
            return retention.record_pass(self.state, entry, keep, now_ns)
        history.record(self.state, entry, durable=durable)
        return True
