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
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from consolidator.config import Config
from consolidator.context import RootContext
from consolidator.errors import ConsolidatorError
from consolidator.gates import (
    GateResult,
    evaluate,
    not_evaluated,
    settled_by,
    unusable_reason,
)
from consolidator.report import progress
from consolidator.report.outcome import RootReport, RunReport
from consolidator.roots import stores
from consolidator.roots.paths import transcripts_dir
from consolidator.roots.stores import Store
from consolidator.session import Session, describe_error
from consolidator.state import history, statedir, unusable
from consolidator.stop import Stopped, StopToken

if TYPE_CHECKING:
    from structlog.stdlib import BoundLogger

    from consolidator.llm.base import Backend
    from consolidator.pipeline import Work

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
    llm: Backend | None = None  # the run's backend, shared by its roots (one budget per run)
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


def _log_failure(bound: BoundLogger, exc: BaseException, error: str, debug: bool) -> None:
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
    session = Session.of(ctx)
    try:
        report = _gate_and_run(ctx, session, bound, started, debug)
    except Exception as exc:  # noqa: BLE001 - one root's failure must not stop the others
        error = describe_error(exc)
        _log_failure(bound, exc, error, debug)
        report = RootReport(ctx.root, "failed", not_evaluated(), error=error,
                            duration_s=time.monotonic() - started)
    report = dataclasses.replace(report, kind=ctx.kind)
    if ctx.trigger != "report":
        try:
            session.record(report.status, history.counts(report), keep=ctx.cfg.state,
                           now_ns=ctx.now_ns, **_pass_fields(report))
        except Exception as exc:  # noqa: BLE001 - recorded as the root's failure
            bound.error("history not recorded", error=describe_error(exc))
            if report.status != "failed":
                report = dataclasses.replace(
                    report, status="failed",
                    error=f"history not recorded: {describe_error(exc)}")
    if ctx.trigger != "report":
        _note_unusable(ctx.state, report, bound)
    closed = next((g for g in report.gates if g.passed is False), None)
    # A closed gate is the common case of a timer ticking every few minutes: its details
    # are for debugging; the pass's one line (see run_all) says it at info.
    say, event = (bound.debug, "root skipped") if report.status == "skipped" else \
        (bound.info, "root done")
    say(event, status=report.status, **history.counts(report),
        **({"gate": closed.id, "reason": closed.reason} if closed else {}),
        duration_s=round(report.duration_s, 3))
    return report


def _note_unusable(state: Path, report: RootReport, bound: BoundLogger) -> None:
    """A root that cannot be used (gone, not a folder, not writable: outside a unit's
    ``ReadWritePaths=``) is a warning once per change of reason, remembered in its state
    folder so one-shot runs say it once too; the same reason again is a debug line, and a
    root usable again says so once."""
    known, reason = unusable_reason(report.gates)
    if not known:
        return
    change = unusable.note(statedir.unusable(state), reason)
    if not change.changed:
        if reason is not None:
            bound.debug("root cannot be used", reason=reason, warned_before=True)
        return
    if reason is None:
        bound.info("root usable again", was=change.before)
    else:
        bound.warning("root cannot be used", reason=reason)
    if not change.remembered:  # the warning is said again next pass; nothing else at stake
        bound.debug("unusable root not remembered")


def pass_summary(reports: Sequence[RootReport]) -> dict[str, Any]:
    """The pass's counts: roots, how many were due (their gates opened), each outcome of
    those, and the roots a gate held back by that gate (``{"G4 interval": 2}``)."""
    outcomes = Counter(r.status for r in reports if r.status != "skipped")
    closed = Counter(next((f"{g.id} {g.name}" for g in r.gates if g.passed is False), "?")
                     for r in reports if r.status == "skipped")
    return {"roots": len(reports), "due": sum(outcomes.values()), **dict(outcomes),
            **({"closed": dict(sorted(closed.items()))} if closed else {})}


def _record_stopped(session: Session, gates: tuple[GateResult, ...], work: Work,
                    started: float) -> None:
    """A stopped run still gets its history line: its finished steps stay applied (and
    undoable), so its run id must be findable."""
    report = RootReport(work.ctx.root, "stopped", gates, work.plan, work.snapshot,
                        error="stopped by a signal", duration_s=time.monotonic() - started,
                        skipped=tuple(work.skipped), kept=tuple(work.kept))
    try:
        session.record(report.status, history.counts(report), **_pass_fields(report))
    except Exception:  # noqa: BLE001 - the stop goes on; the journal still names the run
        pass


def _pass_fields(report: RootReport) -> dict[str, Any]:
    """What a pass's history line adds to every line's fields."""
    return {
        "gates": [{"id": g.id, "name": g.name, "passed": g.passed, "reason": g.reason}
                  for g in report.gates],
        "skipped": list(report.skipped), "error": report.error,
        "duration_s": round(report.duration_s, 3),
    }


def _gate_and_run(ctx: RootContext, session: Session, bound: BoundLogger, started: float,
                  debug: bool) -> RootReport:
    report_only = ctx.trigger == "report"
    results, ok = evaluate(ctx, all_of_them=report_only)
    if settled_by(ctx, results):
        ctx = dataclasses.replace(ctx, settled=True)
    if not report_only and any(g.id == "G6" and g.passed is not None for g in results):
        session.sessions_scanned()
    if not report_only and ok:
        results[-1] = session.gate()
        ok = results[-1].passed is True
    gates = tuple(results)
    if not ok and not report_only:
        closed = next(g for g in gates if g.passed is False)
        return RootReport(ctx.root, "skipped", gates, duration_s=time.monotonic() - started,
                          lock_held=closed.id == "G7")
    from consolidator.pipeline import Rounds, Work, declined  # heavy: only once gates open

    work = Work(ctx, mode=ctx.mode, declined=declined(ctx.state), session=session)
    status, error = session.planned_status, None
    recovered: list[str] = []
    went_through = False
    rounds = Rounds(work, bound)
    try:
        recovered = session.recover()
        ctx.memo.pop("listing", None)  # the gates are done with it: let it go
        rounds.run()
        session.keep_usage(work.usage)
        if work.snapshot is not None:
            work.snapshot = work.snapshot.without_bodies()
        went_through = True
    except Stopped:
        status = "stopped"
        _record_stopped(session, gates, work, started)
        raise
    except Exception as exc:  # noqa: BLE001 - any failure fails this root only
        status, error = "failed", describe_error(exc, rounds.current)
        _log_failure(bound, exc, error, debug)
    finally:
        status, error = session.close(status, error, consolidated=went_through)
    usage, llm_notes = work.llm_usage()
    plan = dataclasses.replace(
        work.plan, notes=tuple(recovered) + work.plan.notes + tuple(llm_notes)
    )
    return RootReport(
        ctx.root, status, gates, plan, work.snapshot, error=error,
        duration_s=time.monotonic() - started, skipped=tuple(work.skipped),
        kept=tuple(work.kept), llm=usage,
    )


def run_all(
    roots: list[Path] | list[Store], cfg: Config, opts: RunOptions, now: datetime,
    run_id: str | None = None,
) -> RunReport:
    """Every root in turn; one failing root does not stop the others. ``run_id``: the pass's
    id, when its caller logged under it already."""
    run_id = run_id or new_run_id(now)
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
        structlog.contextvars.unbind_contextvars("root", "phase")
        log.info("pass", run_id=run_id, **pass_summary(reports))
    finally:
        structlog.contextvars.unbind_contextvars("run_id", "root", "phase")
        progress.done()
    return RunReport(run_id, opts.dry_run, tuple(reports), recorded=opts.trigger != "report")
