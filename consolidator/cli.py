"""The command line: the only place that exits, and the map from errors to exit codes.

Exit codes: 0 done, nothing to do, or a gate closed; 1 a root failed; 2 usage or config
error; 75 ``run --force`` could not take a lock.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from consolidator import __version__, pipes
from consolidator.errors import ConfigError, ConsolidatorError, LockHeld, UsageError

if TYPE_CHECKING:
    from consolidator.stop import StopToken
    from consolidator.stores import Store

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LOCKED = 0, 1, 2, 75
NO_ROOT = "no memory directory found"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _common(parser: argparse.ArgumentParser, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    group = parser.add_argument_group("common options")
    group.add_argument("--config", metavar="PATH", default=default, help="config file")
    group.add_argument(
        "--memory-dir", metavar="DIR", action="append", default=default,
        help="a memory directory (repeatable; overrides the configured roots)",
    )
    group.add_argument("--state-dir", metavar="DIR", default=default, help="state directory")
    group.add_argument(
        "--transcripts-dir", metavar="DIR", default=default, help="session transcripts folder"
    )
    group.add_argument(
        "--project-root", metavar="DIR", default=default,
        help="project folder that memories' paths are checked against",
    )
    group.add_argument(
        "--debug", action="store_true", default=default, help="show tracebacks on errors"
    )


def _numbers(text: str) -> list[int]:
    """``1,3`` -> ``[1, 3]``: action numbers as ``proposals`` shows them."""
    try:
        numbers = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of action numbers "
                                         "like 1,3") from None
    if not numbers or any(n < 1 for n in numbers):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of action numbers like 1,3")
    return numbers


def _session_id(text: str) -> str:
    from consolidator.paths import is_session_transcript

    if not is_session_transcript(f"{text}.jsonl"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a session id (a UUID)")
    return text


def _apply_option(parser: argparse.ArgumentParser) -> None:
    from consolidator.config import APPLY_MODES

    parser.add_argument(
        "--apply", choices=APPLY_MODES, default=None,
        help="which changes to apply without review: safe (mechanical ones; the default "
             "of [consolidate] apply), all, or none (only propose)")


def _journal_hook(env: Mapping[str, str]) -> Callable[[], None] | None:
    """Fault injection for tests: ``CONSOLIDATOR_FAULT_AFTER_STEP=N`` ends the process hard
    right after the N-th journal record; read once, here."""
    limit = env.get("CONSOLIDATOR_FAULT_AFTER_STEP", "")
    if not limit.isdigit():
        return None
    from consolidator.store.journal import crash_after

    return crash_after(int(limit))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="consolidator",
        description="Keeps Claude Code memory directories healthy, without losing a memory.",
        epilog="exit codes: 0 done or nothing to do, 1 a root failed, 2 usage or config "
        "error, 75 run --force could not take a lock",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _common(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    report = sub.add_parser("report", help="the dry-run report: gates and the full plan")
    report.add_argument("--format", choices=("markdown", "json"), default="markdown")
    report.add_argument("--output", metavar="FILE", help="write the report here, not stdout")
    report.add_argument("--llm", action="store_true",
                        help="ask the configured LLM backend too (costs API calls)")
    report.add_argument("-v", "--verbose", action="store_true",
                        help="list every memory with its age and warnings")
    _apply_option(report)
    _common(report, suppress=True)

    run = sub.add_parser("run", help="one pass over every root: gates, then phases")
    run.add_argument("--force", action="store_true", help="skip gates G1-G6 (never the lock)")
    run.add_argument("--dry-run", action="store_true", help="plan and report; change nothing")
    run.add_argument("--json", action="store_true", help="print the JSON report")
    run.add_argument("--ended-session", metavar="SESSION_ID", type=_session_id,
                     help="a session that just ended (as the SessionEnd hook passes it): its "
                     "transcript is not a live session's")
    _apply_option(run)
    _common(run, suppress=True)

    hook = sub.add_parser("hook", help="Claude Code hooks: consolidation after a session ends")
    hook.add_argument("event", choices=("session-end",),
                      help="the hook event: session-end reads SessionEnd's JSON on stdin")
    hook.add_argument("--wait", action="store_true",
                      help="run the pass here and wait for it (default: start it in the "
                      "background and return at once)")
    _common(hook, suppress=True)

    serve = sub.add_parser("serve", help="the long-running service (APScheduler)")
    _common(serve, suppress=True)

    status = sub.add_parser("status", help="each root's gates and last run, reading no memory")
    status.add_argument("--json", action="store_true", help="print JSON")
    _common(status, suppress=True)

    hist = sub.add_parser("history", help="past runs with their counts")
    hist.add_argument("--json", action="store_true", help="one JSON object per line")
    _common(hist, suppress=True)

    undo = sub.add_parser("undo", help="restore a root to its bytes before a run")
    undo.add_argument("run_id", metavar="RUN_ID")
    undo.add_argument("--force", action="store_true",
                      help="undo even over files changed since (their bytes are kept aside)")
    _common(undo, suppress=True)

    proposals = sub.add_parser("proposals", help="the judgments waiting for review, per root")
    proposals.add_argument("--json", action="store_true", help="print JSON")
    _common(proposals, suppress=True)

    apply = sub.add_parser("apply", help="apply a proposal's actions (all, or the chosen ones)")
    apply.add_argument("run_id", metavar="RUN_ID", nargs="?",
                       help="the run whose proposal to apply (default: every waiting one)")
    choice = apply.add_mutually_exclusive_group()
    choice.add_argument("--only", metavar="N,M", type=_numbers, help="apply only these actions")
    choice.add_argument("--except", dest="without", metavar="N,M", type=_numbers,
                        help="apply all but these actions")
    _common(apply, suppress=True)

    reject = sub.add_parser("reject", help="decline a proposal's actions (all, or the chosen)")
    reject.add_argument("run_id", metavar="RUN_ID", nargs="?",
                        help="the run whose proposal to decline (default: every waiting one)")
    reject.add_argument("--only", metavar="N,M", type=_numbers,
                        help="decline only these actions")
    _common(reject, suppress=True)

    config = sub.add_parser("config", help="config tools")
    config_sub = config.add_subparsers(dest="config_command", metavar="ACTION",
                                       parser_class=_Parser)
    config_sub.required = True
    check = config_sub.add_parser(
        "check", help="validate the config; list every problem, then the roots it finds")
    _common(check, suppress=True)
    _common(config, suppress=True)
    return parser


def _write(produce: Callable[[TextIO], object]) -> None:
    """Write a command's result on stdout; a reader that went away does not change the exit
    code."""
    try:
        produce(sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        pipes.stdout_closed()


def _render(report: Any, result: Any, fmt: str, out: TextIO, verbose: bool = False) -> None:
    if fmt == "json":
        report.write_json(result, out)
    else:
        out.write(report.to_markdown(result, verbose=verbose))


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run the command line; return the exit code (never raises for an expected error)."""
    env = os.environ if env is None else env
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    try:
        args = build_parser().parse_args(args_list)
        handler = _HANDLERS[args.command]
        return handler(args, env)
    except ConfigError as exc:
        print(f"consolidator: config error in {exc.source}:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"consolidator: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except LockHeld as exc:
        print(f"consolidator: {exc}", file=sys.stderr)
        return EXIT_LOCKED
    except BrokenPipeError:
        pipes.stdout_closed()  # the reader of a listing went away (`history | head`)
        return EXIT_OK
    except (ConsolidatorError, OSError) as exc:
        if debug:
            raise
        print(f"consolidator: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 128 + 2


def _load_config(args: argparse.Namespace, env: Mapping[str, str]):  # type: ignore[no-untyped-def]
    from consolidator import config, paths

    return config.load(paths.config_path(args.config, env))


def _setup_logging(cfg, debug: bool, stream=None, quiet: bool = False) -> None:  # type: ignore[no-untyped-def]
    from consolidator import log

    level = "debug" if debug else ("warning" if quiet else cfg.log.level)
    log.configure(cfg.log.format, level, stream)


def _warner() -> Callable[[str, str], None]:
    """How a command hears about roots that do not look like memory directories: a named
    ``--memory-dir`` gets one warning line on stderr, a skipped configured folder a log line;
    each once per process (``serve`` lists its roots on every tick)."""
    import structlog

    said: set[str] = set()
    logger = structlog.get_logger("consolidator.paths")

    def warn(level: str, message: str) -> None:
        if message in said:
            return
        said.add(message)
        if message.startswith("--memory-dir"):
            print(f"consolidator: warning: {message}", file=sys.stderr)
        elif message.startswith(NO_ROOT):
            logger.warning(NO_ROOT, detail=message[len(NO_ROOT) + 2:])
        elif level == "warning":
            logger.warning("not a memory directory", detail=message)
        else:
            logger.info("not a memory directory", detail=message)

    return warn


def _roots_and_state(
    args: argparse.Namespace, cfg: Any, env: Mapping[str, str],
    warn: Callable[[str, str], None] | None = None,
) -> tuple[list[Store], Path]:
    """The roots (each a store of its kind) and the state dir, refused (exit 2) when one lies
    inside the other, or when ``--project-root`` is given for several roots (each root's
    project comes from its own transcripts)."""
    from consolidator import paths

    warn = warn or _warner()
    found = paths.roots(args.memory_dir, cfg, env, warn)
    if not found:
        warn("warning", f"{NO_ROOT}: " + ("no configured pattern matches a memory directory"
                                          if cfg.memory.roots else
                                          "Claude Code keeps no memory store here yet "
                                          "(see consolidator config check)"))
    state = paths.state_dir(args.state_dir, cfg, env)
    paths.check_state_dir(state, [s.path for s in found])
    if getattr(args, "project_root", None) and len(found) > 1:
        raise UsageError(f"--project-root belongs to one memory dir, and {len(found)} were "
                         "found: name one with --memory-dir (each root's project comes from "
                         "its own transcripts otherwise)")
    return found, state


def _open_output(output: str, roots: list[Path]) -> TextIO:
    """Open ``--output`` for the report without truncating first: the path is checked once
    more against every root, then the file is emptied (a pipe or a device is written as is)."""
    import stat

    from consolidator import paths

    fd = os.open(output, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOCTTY", 0), 0o666)
    try:
        paths.check_output(output, roots)  # again: the path may have changed during the run
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "w", encoding="utf-8")


def _cmd_report(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from consolidator import paths, report, runner
    from consolidator.llm import make_backend

    cfg = _load_config(args, env)
    _setup_logging(cfg, args.debug, quiet=True)
    found, state = _roots_and_state(args, cfg, env)
    roots = [s.path for s in found]
    if args.output:
        paths.check_output(args.output, roots)  # before any work
    opts = runner.RunOptions(
        state_dir=state,
        transcripts_dir=args.transcripts_dir,
        project_root=args.project_root,
        dry_run=True,
        env=env,
        llm=make_backend(cfg.llm, env, enabled=args.llm),
        debug=args.debug,
        apply=args.apply,
    )
    result = runner.run_all(found, cfg, opts, datetime.now(UTC))
    if args.output:
        with _open_output(args.output, roots) as stream:
            _render(report, result, args.format, stream, args.verbose)
    else:
        _write(lambda stream: _render(report, result, args.format, stream, args.verbose))
    return EXIT_FAILED if result.failed else EXIT_OK


def _stop_on_signals(token: StopToken) -> Callable[[], None]:
    """SIGTERM and SIGINT ask the run to stop at the next step boundary.

    Returns a function that puts the previous handlers back.
    """
    import signal

    def handler(signum: int, _frame: object) -> None:
        token.request(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, old in previous.items():
            signal.signal(sig, old)

    return restore


def _cmd_run(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from consolidator import runner
    from consolidator.llm import make_backend
    from consolidator.stop import Stopped

    cfg = _load_config(args, env)
    _setup_logging(cfg, args.debug, stream=sys.stderr if args.json else sys.stdout)
    roots, state = _roots_and_state(args, cfg, env)
    opts = runner.RunOptions(
        state_dir=state,
        transcripts_dir=args.transcripts_dir,
        project_root=args.project_root,
        dry_run=args.dry_run,
        force=args.force,
        trigger="run",
        env=env,
        progress=not args.json,
        llm=make_backend(cfg.llm, env, enabled=True),
        debug=args.debug,
        apply=args.apply,
        after_record=_journal_hook(env),
        ended=args.ended_session,
    )
    restore = _stop_on_signals(opts.stop)
    try:
        result = runner.run_all(roots, cfg, opts, datetime.now(UTC))
    except Stopped as exc:
        print(f"consolidator: stopped by signal {exc.signum}; rolled back", file=sys.stderr)
        return 128 + exc.signum
    finally:
        restore()
    if args.json:
        from consolidator import report

        _write(lambda out: report.write_json(result, out))
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


def _cmd_serve(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from consolidator import runner
    from consolidator.llm import make_backend
    from consolidator.scheduler import Service

    cfg = _load_config(args, env)
    _setup_logging(cfg, args.debug, stream=sys.stdout)
    warn = _warner()
    _roots_and_state(args, cfg, env, warn)  # a bad --memory-dir or state dir fails now, exit 2
    hook = _journal_hook(env)

    def one_pass(current, stop):  # type: ignore[no-untyped-def]
        roots, state = _roots_and_state(args, current, env, warn)
        opts = runner.RunOptions(
            state_dir=state,
            transcripts_dir=args.transcripts_dir,
            project_root=args.project_root,
            dry_run=False,
            trigger="serve",
            env=env,
            stop=stop,
            llm=make_backend(current.llm, env, enabled=True),
            debug=args.debug,
            after_record=hook,
        )
        return runner.run_all(roots, current, opts, datetime.now(UTC))

    return Service(lambda: _load_config(args, env), one_pass).serve()


def _cmd_undo(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from consolidator import history, paths, statedir
    from consolidator.store.journal import JournalDamaged, load
    from consolidator.store.undo import undo_run

    cfg = _load_config(args, env)
    state = paths.state_dir(args.state_dir, cfg, env)
    run_dirs = statedir.find_runs(state, args.run_id)  # exact names only: an id is never a pattern
    wanted = {str(s.path) for s in paths.roots(args.memory_dir, cfg, env)} \
        if args.memory_dir else None
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    failed = locked = False
    for run_dir in run_dirs:
        where = str(run_dir)
        try:
            meta = load(run_dir).meta
            memory_dir = meta.get("memory_dir")
            if not isinstance(memory_dir, str) or not os.path.isabs(memory_dir) \
                    or statedir.root_key(Path(memory_dir)) != statedir.state_of_run(run_dir).name:
                raise JournalDamaged(statedir.journal(run_dir), 1,
                                     "it names no memory dir, or not the one it is kept for")
            root = Path(memory_dir)
            where = str(root)
            if wanted is not None and memory_dir not in wanted:
                continue
            done = undo_run(root, run_dir, force=args.force, when=now,
                            stale_minutes=cfg.gates.lock_stale_minutes)
        except LockHeld as exc:
            print(f"consolidator: {exc}; not undone", file=sys.stderr)
            locked = True
            continue
        except (ConsolidatorError, OSError) as exc:
            if args.debug:
                raise
            text = " ".join(str(exc).split())
            print(f"consolidator: {text if text.startswith(where) else where + ': ' + text}",
                  file=sys.stderr)
            failed = True
            continue
        result = done.result
        if result is None:
            print(f"{root}: run {args.run_id} was already undone")
            continue
        history.record(statedir.state_of_run(run_dir), {
            "run_id": args.run_id, "memory_dir": str(root), "started_at": now,
            "trigger": "undo", "status": "undone", "dry_run": False,
            "counts": {"restored": len(result.restored)}, "conflicts": result.conflicts,
        })
        print(f"{root}: restored {len(result.restored)} file(s)"
              + (f"; over changes in {', '.join(result.conflicts)}" if result.conflicts else ""))
        for rel, kept in sorted(result.displaced.items()):
            print(f"  the newer bytes of {rel} are kept in {kept}")
    if failed:
        return EXIT_FAILED
    return EXIT_LOCKED if locked else EXIT_OK


def _cmd_history(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    import json

    from consolidator import history, paths

    cfg = _load_config(args, env)
    entries = history.read_all(paths.state_dir(args.state_dir, cfg, env))
    if args.memory_dir:
        wanted = {str(s.path) for s in paths.roots(args.memory_dir, cfg, env)}
        entries = [e for e in entries if e.get("memory_dir") in wanted]
    if args.json:
        for entry in entries:
            print(json.dumps(entry, ensure_ascii=False))
        return EXIT_OK
    print(f"{'run_id':<22} {'trigger':<7} {'status':<12} {'dry':<4} merges archives rewrites  memory_dir")
    for e in entries:
        c = e.get("counts", {})
        print(f"{e.get('run_id', ''):<22} {e.get('trigger', ''):<7} {e.get('status', ''):<12} "
              f"{'yes' if e.get('dry_run') else 'no':<4} {c.get('merges', 0):>6} "
              f"{c.get('archives', 0):>8} {c.get('rewrites', 0):>8}  {e.get('memory_dir', '')}")
    return EXIT_OK


def _cmd_status(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    import json

    from consolidator import history, lock, runner
    from consolidator.freshness import iso
    from consolidator.gates import evaluate

    cfg = _load_config(args, env)
    _setup_logging(cfg, args.debug, quiet=True)
    roots, state_dir = _roots_and_state(args, cfg, env)
    opts = runner.RunOptions(state_dir=state_dir, transcripts_dir=args.transcripts_dir,
                             project_root=args.project_root, env=env, trigger="status")
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = []
    for store in roots:
        ctx = runner.context_for(store, cfg, opts, now, "status")
        gates, _ok = evaluate(ctx, all_of_them=True)
        last = lock.last_consolidated_ns(ctx.root, ctx.now_ns, ctx.state)
        rows.append({
            "memory_dir": str(ctx.root),
            "kind": ctx.kind,
            "gates": [{"id": g.id, "name": g.name, "passed": g.passed, "reason": g.reason}
                      for g in gates],
            "last_consolidated": iso(last) if last else None,
            "last_run": history.last_for(ctx.state),
            "waiting": _waiting_count(ctx.state),
        })
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    for row in rows:
        print(f"{row['memory_dir']} ({row['kind']})")
        print(f"  last consolidated: {row['last_consolidated'] or 'never'}")
        last_run = row["last_run"]
        print("  last run: " + (f"{last_run['run_id']} {last_run['status']}" if last_run else "none"))
        if row["waiting"]:
            print(f"  waiting for review: {row['waiting']} change(s) (consolidator proposals)")
        for g in row["gates"]:
            mark = {True: "pass", False: "FAIL", None: "-"}[g["passed"]]
            print(f"  {g['id']} {g['name']:<14} {mark:<5} {g['reason']}")
    return EXIT_OK


def _waiting_count(state: Path) -> int:
    """How many actions of the root's proposal wait (a damaged proposal counts none)."""
    from consolidator import proposal

    try:
        found = proposal.load(state)
    except ConsolidatorError:
        return 0
    return len(found.waiting()) if found is not None else 0


def _cmd_proposals(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    import json

    from consolidator import review

    cfg = _load_config(args, env)
    roots, state = _roots_and_state(args, cfg, env)
    found = review.waiting(state, [s.path for s in roots])
    if args.json:
        _write(lambda out: out.write(json.dumps(
            [{"memory_dir": str(root), "run_id": p.run_id, "created_at": p.created_at,
              "actions": [{"number": i.number, **i.action.to_json(payload=False)}
                          for i in p.waiting()]}
             for root, p in found], ensure_ascii=False, indent=2) + "\n"))
        return EXIT_OK
    if not found:
        print("nothing waits for review")
        return EXIT_OK
    _write(lambda out: out.write(_proposals_text(found)))
    return EXIT_OK


def _proposals_text(found: list[tuple[Path, Any]]) -> str:
    from consolidator.report import Mask

    lines = []
    for root, p in found:
        items = p.waiting()
        mask = Mask(t for i in items for t in (i.action.reason, *i.action.evidence))
        lines += [f"{root}", f"  run {p.run_id} ({p.created_at}): {len(items)} change(s) wait"]
        for item in items:
            action = item.action
            lines.append(f"  {item.number:>3}. {action.op} {action.file}: {mask(action.reason)}")
            lines += [f"       > {mask(line)}" for line in action.evidence[:6]]
            if len(action.evidence) > 6:
                lines.append(f"       > ... {len(action.evidence) - 6} more line(s)")
        lines += [f"  apply: consolidator apply {p.run_id} [--only N,M | --except N]",
                  f"  decline: consolidator reject {p.run_id} [--only N,M]", ""]
    return "\n".join(lines)


def _cmd_apply(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from consolidator import review, runner

    cfg = _load_config(args, env)
    _setup_logging(cfg, args.debug, quiet=True)
    roots, state = _roots_and_state(args, cfg, env)
    numbered = bool(args.only or args.without)
    targets = review.target(state, [s.path for s in roots], args.run_id, numbered)
    if not targets:
        print("nothing waits for review")
        return EXIT_OK
    now = datetime.now(UTC)
    run_id = runner.new_run_id(now)
    opts = runner.RunOptions(state_dir=state, transcripts_dir=args.transcripts_dir,
                             project_root=args.project_root, dry_run=False, trigger="apply",
                             env=env, debug=args.debug, after_record=_journal_hook(env))
    failed = locked = False
    for root, found in targets:
        try:
            done = review.apply(root, found, cfg, opts, now, run_id, args.only,
                                args.without or ())
        except LockHeld as exc:
            print(f"consolidator: {exc}; nothing applied", file=sys.stderr)
            locked = True
            continue
        except UsageError:
            raise
        except (ConsolidatorError, OSError) as exc:
            if args.debug:
                raise
            text = " ".join(str(exc).split())
            print(f"consolidator: {root}: {text}", file=sys.stderr)
            failed = True
            continue
        print(f"{root}: applied {_listed(done.applied)} of run {found.run_id}"
              + (f"; undo: consolidator undo {run_id}" if done.applied else ""))
        for number, why in sorted(done.refused.items()):
            print(f"  {number}: refused, {why}")
    if failed:
        return EXIT_FAILED
    return EXIT_LOCKED if locked else EXIT_OK


def _listed(numbers: list[int]) -> str:
    if not numbers:
        return "nothing"
    return ("action " if len(numbers) == 1 else "actions ") + ", ".join(map(str, numbers))


def _cmd_reject(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from consolidator import review, statedir

    cfg = _load_config(args, env)
    roots, state = _roots_and_state(args, cfg, env)
    targets = review.target(state, [s.path for s in roots], args.run_id, bool(args.only))
    if not targets:
        print("nothing waits for review")
        return EXIT_OK
    for root, found in targets:
        done = review.reject(statedir.root_state(state, root), root, found, args.only)
        print(f"{root}: declined {_listed(done.declined)} of run {found.run_id}; "
              "not proposed again while their files are unchanged")
    return EXIT_OK


def _cmd_config(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    import glob

    from consolidator import paths

    path = paths.config_path(args.config, env)
    cfg = _load_config(args, env)
    print(f"{path or 'built-in defaults'}: ok")
    home = str(Path(env.get("HOME") or os.path.expanduser("~")))
    for pattern in () if args.memory_dir else cfg.memory.roots:
        expanded = home + pattern[1:] if pattern.startswith("~") else pattern
        if not glob.glob(expanded):
            print(f"warning: memory.roots pattern {pattern!r} matches nothing")
    found = paths.roots(args.memory_dir, cfg, env, _warner())
    where = "configured" if cfg.memory.roots and not args.memory_dir else "found"
    print(f"{len(found)} memory dir(s) {where}:" if found else
          "no memory dir found (Claude Code keeps none yet, or memory.roots matches none)")
    for store in found:
        print(f"  {store.path} ({store.kind})" + (f": {store.off}" if store.off else ""))
    return EXIT_OK


def _cmd_hook(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """``hook session-end``: the pass for the project of the session that just ended, as a
    Claude Code SessionEnd hook runs it (its JSON input on stdin). Quiet: it prints nothing
    unless the input is wrong, and by default it starts the pass in the background and
    returns at once, so it never holds Claude Code up; the gates still decide."""
    import subprocess

    from consolidator import hooks, runner

    ended = hooks.read_session_end(sys.stdin.buffer)
    cfg = _load_config(args, env)
    found, state = _roots_and_state(args, cfg, env)
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
    _setup_logging(cfg, args.debug, quiet=True)
    opts = runner.RunOptions(state_dir=state, transcripts_dir=str(ended.transcript.parent),
                             env=env, dry_run=False, trigger="hook", ended=ended.session_id,
                             debug=args.debug)
    result = runner.run_all(stores, cfg, opts, datetime.now(UTC))
    return EXIT_FAILED if result.failed else EXIT_OK


_HANDLERS: dict[str, Callable[[argparse.Namespace, Mapping[str, str]], int]] = {
    "report": _cmd_report,
    "run": _cmd_run,
    "serve": _cmd_serve,
    "status": _cmd_status,
    "history": _cmd_history,
    "undo": _cmd_undo,
    "config": _cmd_config,
    "proposals": _cmd_proposals,
    "apply": _cmd_apply,
    "reject": _cmd_reject,
    "hook": _cmd_hook,
}
