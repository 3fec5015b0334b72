"""The commands that make one pass over the roots: report, run, and the SessionEnd hook
(``serve``, which makes them on a schedule, is :mod:`consolidator.cli.serve`)."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import structlog

from consolidator import clock, log, runner
from consolidator.cli.codes import EXIT_FAILED, EXIT_LOCKED, EXIT_OK
from consolidator.cli.common import (
    journal_hook,
    listed_verbose,
    load_config,
    open_output,
    output_writable,
    render,
    roots_and_state,
    setup_logging,
    warn_keyless,
    writable_state,
    write_metrics,
    write_out,
)
from consolidator.errors import UsageError
from consolidator.llm import make_backend
from consolidator.report.summary import command
from consolidator.roots import hooks, paths
from consolidator.stop import Stopped, StopToken

if TYPE_CHECKING:
    from datetime import datetime

    from consolidator.config import Config


def report(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    fmt = report_format(args)
    cfg = load_config(args, env)
    setup_logging(cfg, args, quiet=True, env=env)
    found, state = roots_and_state(args, cfg, env)
    roots = [s.path for s in found]
    if args.output:
        paths.check_output(args.output, roots)  # before any work
        output_writable(args.output)
    opts = runner.RunOptions(
        state_dir=state,
        transcripts_dir=args.transcripts_dir,
        project_root=args.project_root,
        dry_run=True,
        env=env,
        llm=make_backend(cfg.llm, env, enabled=args.llm, explicit=args.llm),
        debug=args.debug,
        apply=args.apply,
        progress=True,  # on a terminal only: a large root is not silent for seconds
    )
    result = runner.run_all(found, cfg, opts, clock.now())
    if args.output:
        with open_output(args.output, roots) as stream:
            render(result, fmt, stream, listed_verbose(args))
    else:
        verbose = listed_verbose(args)
        write_out(lambda stream: render(result, fmt, stream, verbose))
    return EXIT_FAILED if result.failed else EXIT_OK


def report_format(args: argparse.Namespace) -> str:
    """``report``'s format: ``--json`` is ``--format json``, as ``--json`` is for every
    command; with ``--format markdown`` it is a usage error."""
    if args.json:
        if args.format not in (None, "json"):
            raise UsageError(f"--json and --format {args.format}: choose one")
        return "json"
    return str(args.format or "markdown")


def stop_on_signals(token: StopToken) -> Callable[[], None]:
    """SIGTERM and SIGINT ask the run to stop at the next step boundary.

    Returns a function that puts the previous handlers back.
    """
    def handler(signum: int, _frame: object) -> None:
        token.request(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, old in previous.items():
            signal.signal(sig, old)

    return restore


def run(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    cfg = load_config(args, env)
    setup_logging(cfg, args, env=env)  # stderr: stdout carries only the report
    now = clock.now()
    run_id = runner.new_run_id(now)
    # Every line the run logs carries its id, the warnings before any root is run too.
    with structlog.contextvars.bound_contextvars(run_id=run_id):
        return _run(args, env, cfg, now, run_id)


def _run(args: argparse.Namespace, env: Mapping[str, str], cfg: Config, now: datetime,
         run_id: str) -> int:
    warn_keyless(cfg, env)
    roots, state = roots_and_state(args, cfg, env)
    writable_state(state)
    opts = runner.RunOptions(
        state_dir=state,
        transcripts_dir=args.transcripts_dir,
        project_root=args.project_root,
        dry_run=args.dry_run,
        force=args.force,
        trigger="hook" if args.ended_session else "run",
        env=env,
        progress=not args.json,
        llm=make_backend(cfg.llm, env, enabled=True),
        debug=args.debug,
        apply=args.apply,
        after_record=journal_hook(env),
        ended=args.ended_session,
    )
    restore = stop_on_signals(opts.stop)
    try:
        result = runner.run_all(roots, cfg, opts, now, run_id)
    except Stopped as exc:
        print(f"consolidator: stopped by signal {exc.signum}: the lock is as it was, the steps "
              f"already made stay (`{command('undo latest')}` takes them back), and the next "
              "run follows their links", file=sys.stderr)
        return 128 + exc.signum
    finally:
        restore()
    write_metrics(cfg, result, state)
    if args.json or args.dry_run:
        # --json: the JSON report; a dry run otherwise: the plan as a person reads it.
        fmt = "json" if args.json else "markdown"
        verbose = listed_verbose(args)
        write_out(lambda out: render(result, fmt, out, verbose))
    for root in result.roots:
        if root.status == "failed":
            print(f"consolidator: {root.memory_dir}: {root.error}", file=sys.stderr)
    if result.failed:
        return EXIT_FAILED
    if args.force and result.lock_held:
        held = [str(r.memory_dir) for r in result.roots if r.lock_held]
        print(f"consolidator: lock held, not consolidated: {', '.join(held)}", file=sys.stderr)
        return EXIT_LOCKED
    return EXIT_OK


def hook(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """``hook session-end``: the pass for the project of the session that just ended, as a
    Claude Code SessionEnd hook runs it (its JSON input on stdin). Quiet: it prints nothing
    unless the input is wrong, and by default it starts the pass in the background and
    returns at once, so it never holds Claude Code up; the gates still decide."""
    ended = hooks.read_session_end(sys.stdin.buffer)
    cfg = load_config(args, env)
    # Before discovery, which may warn: on stderr, and in the background only an error (a
    # project with no memory store is no news at the end of each of its sessions).
    if args.wait:
        setup_logging(cfg, args, env=env)  # by hand: say what it did
    else:
        log.configure(cfg.log.format, "error", sys.stderr, colors=False)
    found, state = roots_and_state(args, cfg, env)
    stores = hooks.stores_of(ended, found)
    if not stores:
        return EXIT_OK
    if not args.wait:
        argv = hooks.run_argv(ended, stores, args.config, str(state))
        subprocess.Popen([sys.executable, "-m", "consolidator", *argv],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
                         env=dict(env))
        return EXIT_OK
    opts = runner.RunOptions(state_dir=state, transcripts_dir=args.transcripts_dir, env=env,
                             dry_run=False, trigger="hook", ended=ended.session_id,
                             llm=make_backend(cfg.llm, env, enabled=True), debug=args.debug,
                             after_record=journal_hook(env))
    result = runner.run_all(stores, cfg, opts, clock.now())
    write_metrics(cfg, result, state)
    return EXIT_FAILED if result.failed else EXIT_OK
