"""One pass over one root: gates, then the phases in order, into a RootReport.

A root that fails, for whatever reason (an expected error or a bug), is reported as failed
with one line, its lock rolled back and its history line written; the next root still runs.
Only a stop (a signal) ends the pass early.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import structlog

from consolidator.config import Config
from consolidator.context import RootContext
from consolidator.errors import ConsolidatorError, LockHeld
from consolidator.gates import GATE_NAMES, GateResult, evaluate, not_evaluated
from consolidator.gates.checks import lock_probe, record_scan
from consolidator.outcome import RootReport, RunReport
from consolidator.plan import Waiting
from consolidator.report import progress
from consolidator.roots import stores
from consolidator.roots.paths import transcripts_dir
from consolidator.roots.stores import Store
from consolidator.state import history, retention, statedir
from consolidator.state.lock import RootLock
from consolidator.stop import Stopped, StopToken
from consolidator.store.recover import interrupted_runs, recover

log = structlog.get_logger("consolidator.runner")


def new_run_id(now: datetime) -> str:
    """``20261130T031500Z-3f9a``: sortable, and unique enough across processes."""
    return now.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(2)


@dataclass(frozen=True)
class RunOptions:
    """What the command line asked for, beyond the config."""

    state_dir: Path
    transcripts_dir: str | None = None
    project_root: str | None = None
    dry_run: bool = True
    force: bool = False
    trigger: str = "report"
    env: Mapping[str, str] = field(default_factory=dict)
    stop: StopToken = field(default_factory=StopToken)
    progress: bool = False
    llm: Any = None  # the run's backend, shared by its roots (one budget per run)
    debug: bool = False  # log a failed root's traceback (else its one line only)
    apply: str | None = None  # --apply safe|all|none (None: the config's)
    after_record: Callable[[], None] | None = None  # called after each journal record (tests)
    ended: str | None = None  # the session Claude Code's SessionEnd hook says just ended


def context_for(
    root: Path | Store, cfg: Config, opts: RunOptions, now: datetime, run_id: str
) -> RootContext:
    """The facts of one root's run. ``root``: a store, or a folder (its kind told by where
    it lies). Its sessions are those of its own project, unless transcripts are named."""
    store = root if isinstance(root, Store) else stores.describe(root, opts.env)
    root = store.path
    named = opts.transcripts_dir or cfg.memory.transcripts_dir
    transcripts = transcripts_dir(opts.transcripts_dir, cfg, root) if named or not \
        store.sessions else store.sessions[0]
    return RootContext(
        kind=store.kind,
        sessions=() if named else store.sessions,
        off=store.off,
        root=root,
        cfg=cfg,
        state=statedir.root_state(opts.state_dir, root),
        transcripts=transcripts,
        project_flag=opts.project_root,
        now=now,
        run_id=run_id,
        dry_run=opts.dry_run,
        force=opts.force,
        trigger=opts.trigger,
        env=opts.env,
        stop=opts.stop,
        llm=opts.llm,
        apply=opts.apply,
        after_record=opts.after_record,
        ended=opts.ended,
    )


def _take_lock(ctx: RootContext) -> tuple[GateResult, RootLock | None]:
    """G7 for a run: take the lock for real (or, in a dry run, only probe it)."""
    gid, name = GATE_NAMES[-1]
    if ctx.dry_run:
        passed, reason = lock_probe(ctx)
        return GateResult(gid, name, passed, reason), None
    held = RootLock(ctx.root, ctx.cfg.gates.lock_stale_minutes, ctx.state)
    try:
        held.acquire()
    except LockHeld as exc:
        return GateResult(gid, name, False, str(exc)), None
    except Exception as exc:
        try:
            held.rollback()  # whatever part of the lock it took goes back as it was
        finally:
            held.release()
        if isinstance(exc, OSError):
            raise ConsolidatorError(f"{ctx.root}: cannot take the lock: {exc}") from exc
        raise
    return GateResult(gid, name, True, "acquired"), held


def describe_error(exc: BaseException, phase: str | None = None) -> str:
    """One line for a failed root: an expected error's own message; for anything else, its
    type and message, and the phase it came from."""
    if isinstance(exc, (ConsolidatorError, OSError)):
        text = str(exc)
    else:
        where = f" in phase {phase}" if phase else ""
        text = f"internal error{where}: {type(exc).__name__}: {exc}"
    return " ".join(text.split()) or type(exc).__name__


def _log_failure(bound: Any, exc: BaseException, error: str, debug: bool) -> None:
    """One log line per failed root; the traceback only in debug mode."""
    expected = isinstance(exc, (ConsolidatorError, OSError))
    if debug and not expected:
        bound.error("root failed", error=error,
                    traceback="".join(traceback.format_exception(exc)).rstrip())
    else:
        bound.error("root failed", error=error)


def run_root(ctx: RootContext, *, debug: bool = False) -> RootReport:
    """Gates, then the phases, on one root; never raises but for a stop (:class:`Stopped`).

    ``debug``: a failure is logged with its traceback (else as one line).
    """
    started = time.monotonic()
    bound = log.bind(run_id=ctx.run_id, root=str(ctx.root))
    try:
        report = _gate_and_run(ctx, bound, started, debug)
    except Exception as exc:  # noqa: BLE001 - one root's failure must not stop the others
        error = describe_error(exc)
        _log_failure(bound, exc, error, debug)
        report = RootReport(ctx.root, "failed", not_evaluated(), error=error,
                            duration_s=time.monotonic() - started)
    report = dataclasses.replace(report, kind=ctx.kind)
    if ctx.trigger != "report":
        try:
            retention.record_pass(ctx.state, history_entry(ctx, report), ctx.cfg.state,
                                ctx.now_ns)
        except Exception as exc:  # noqa: BLE001 - recorded as the root's failure
            bound.error("history not recorded", error=describe_error(exc))
            if report.status != "failed":
                report = dataclasses.replace(
                    report, status="failed",
                    error=f"history not recorded: {describe_error(exc)}")
    event = "root skipped" if report.status == "skipped" else "root done"
    closed = next((g for g in report.gates if g.passed is False), None)
    bound.info(event, status=report.status, **history.counts(report),
               **({"gate": closed.id, "reason": closed.reason} if closed else {}),
               duration_s=round(report.duration_s, 3))
    return report


def _record_stopped(ctx: RootContext, gates: tuple[GateResult, ...], work: Any,
                    started: float) -> None:
    """A stopped run still gets its history line: its finished steps stay applied (and
    undoable), so its run id must be findable."""
    report = RootReport(ctx.root, "stopped", gates, work.plan, work.snapshot,
                        error="stopped by a signal", duration_s=time.monotonic() - started,
                        skipped=tuple(work.skipped))
    try:
        history.record(ctx.state, history_entry(ctx, report))
    except Exception:  # noqa: BLE001 - the stop goes on; the journal still names the run
        pass


def _recover(ctx: RootContext) -> list[str]:
    """Roll back interrupted runs before anything else (a dry run only says it found one)."""
    if not ctx.dry_run:
        return recover(ctx.root, ctx.state)
    return [f"interrupted run {p.name} found; the next real run rolls it back"
            for p in interrupted_runs(ctx.state)]


def _gate_and_run(ctx: RootContext, bound: Any, started: float, debug: bool) -> RootReport:
    report_only = ctx.trigger == "report"
    results, ok = evaluate(ctx, all_of_them=report_only)
    if not report_only and not ctx.dry_run and any(
            g.id == "G6" and g.passed is not None for g in results):
        record_scan(ctx)  # G5 holds across one-shot processes
    held: RootLock | None = None
    if not report_only:
        if ok:
            g7, held = _take_lock(ctx)
            results[-1] = g7
            ok = g7.passed is True
    gates = tuple(results)
    if not ok and not report_only:
        closed = next(g for g in gates if g.passed is False)
        return RootReport(ctx.root, "skipped", gates, duration_s=time.monotonic() - started,
                          lock_held=closed.id == "G7")

    from consolidator.phases import PHASES  # the heavy part: only once the gates are open
    from consolidator.phases.context import Work
    from consolidator.state import proposal

    work = Work(ctx, mode=ctx.mode, declined=proposal.declined(ctx.state))
    if held is not None:
        work.lock_before_ns = held.previous_mtime_ns
    status, error = ("planned" if ctx.dry_run else "consolidated"), None
    recovered: list[str] = []
    current: str | None = "recover"
    try:
        recovered = _recover(ctx)
        current = None
        ctx.memo.pop("listing", None)  # the gates are done with it: let it go
        for name, phase in PHASES:
            ctx.stop.check()
            current = name
            structlog.contextvars.bind_contextvars(phase=name)
            progress.phase(ctx.root, name)
            bound.debug("phase", phase=name)
            phase(work)
        current = "propose"
        structlog.contextvars.unbind_contextvars("phase")
        _propose(work, bound)
        current = None
        if work.snapshot is not None:
            work.snapshot = work.snapshot.without_bodies()
        if held is not None:
            held.success(ctx.now_ns)
    except Stopped:
        status = "stopped"
        _record_stopped(ctx, gates, work, started)
        raise
    except Exception as exc:  # noqa: BLE001 - any failure fails this root only
        status, error = "failed", describe_error(exc, current)
        _log_failure(bound, exc, error, debug)
    finally:
        structlog.contextvars.unbind_contextvars("phase")
        status, error = close_run(work, held, status, error)
    usage, llm_notes = work.llm_usage()
    plan = dataclasses.replace(
        work.plan, notes=tuple(recovered) + work.plan.notes + tuple(llm_notes)
    )
    return RootReport(
        ctx.root, status, gates, plan, work.snapshot, error=error,
        duration_s=time.monotonic() - started, skipped=tuple(work.skipped), llm=usage,
    )


def close_run(work: Any, held: RootLock | None, status: str,
              error: str | None) -> tuple[str, str | None]:
    """Close the run's journal and let the lock go (rolled back unless the run succeeded);
    a journal that cannot be closed fails the root but never keeps the lock held."""
    try:
        if work.tx is not None:
            try:
                work.tx.journal.close("ok" if status in ("consolidated", "applied") else status)
            finally:
                work.tx.close()  # the root's folder descriptor
    except Exception as exc:  # noqa: BLE001 - a full disk must not keep the lock held
        status, error = "failed", error or f"journal not closed: {describe_error(exc)}"
    finally:
        if held is not None:
            try:
                held.rollback()  # a no-op after success
            finally:
                held.release()
    return status, error


def _propose(work: Any, bound: Any) -> None:
    """Keep what this run did not apply as the root's proposal (a dry run only counts it)."""
    from consolidator.decide import rebased
    from consolidator.state import proposal

    ctx = work.ctx
    final = work.after or work.snapshot
    if final is None:
        return
    planned = list(work.plan.actions)
    for i in work.proposed:  # a date rewrite this run's own steps moved on: judged afresh
        if proposal.moved_on(planned[i], final) is not None:
            fresh = rebased(planned[i], final, ctx.hot_after_ns)
            planned[i] = fresh if fresh is not None else planned[i]
    work.plan = dataclasses.replace(work.plan, actions=tuple(planned))
    actions = [planned[i] for i in work.proposed]
    made, kept, notes = proposal.build(ctx.run_id, ctx.root,
                                       ctx.now.strftime("%Y-%m-%dT%H:%M:%SZ"), actions, final)
    waiting = Waiting(None if ctx.dry_run else ctx.run_id, len(kept),
                      tuple(work.proposed[k] for k in kept)) if made is not None else None
    work.plan = dataclasses.replace(work.plan, proposal=waiting,
                                    notes=work.plan.notes + tuple(notes))
    if work.executor.propose(ctx.state, made) and made is not None:
        bound.info(f"{len(made.items)} change(s) wait for review: consolidator proposals",
                   proposal=ctx.run_id, waiting=len(made.items))


def history_entry(ctx: RootContext, report: RootReport) -> dict[str, object]:
    return history.entry(
        run_id=ctx.run_id, memory_dir=str(ctx.root), kind=ctx.kind, started=ctx.now,
        trigger=ctx.trigger, status=report.status, dry_run=ctx.dry_run,
        counts=history.counts(report),
        gates=[{"id": g.id, "name": g.name, "passed": g.passed, "reason": g.reason}
               for g in report.gates],
        skipped=list(report.skipped), error=report.error,
        duration_s=round(report.duration_s, 3),
    )


def run_all(
    roots: list[Path] | list[Store], cfg: Config, opts: RunOptions, now: datetime
) -> RunReport:
    """Every root in turn; one failing root does not stop the others."""
    run_id = new_run_id(now)
    progress.enable(opts.progress)
    reports = []
    try:
        for given in roots:
            opts.stop.check()
            root = given.path if isinstance(given, Store) else given
            structlog.contextvars.bind_contextvars(run_id=run_id, root=str(root))
            try:
                ctx = context_for(given, cfg, opts, now, run_id)
            except Exception as exc:  # noqa: BLE001 - this root fails, the others run
                error = describe_error(exc)
                log.error("root failed", run_id=run_id, root=str(root), error=error)
                reports.append(RootReport(root, "failed", not_evaluated(), error=error))
                continue
            reports.append(run_root(ctx, debug=opts.debug))
    finally:
        structlog.contextvars.unbind_contextvars("run_id", "root", "phase")
        progress.done()
    return RunReport(run_id, opts.dry_run, tuple(reports))
