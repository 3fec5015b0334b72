"""The argument parser: every command, its options and their help."""

from __future__ import annotations

import argparse
import re
from typing import Any

from consolidator import __version__, clock
from consolidator.errors import UsageError


class _Parser(argparse.ArgumentParser):
    """Errors as :class:`UsageError` (exit 2, one line); an option is named in full, never
    by a prefix (``--forc`` is no ``--force``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

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
    group.add_argument("-v", "--verbose", action="count", default=default,
                       help="log at debug level (report: list every memory too)")
    group.add_argument("-q", "--quiet", action="store_true", default=default,
                       help="warnings and errors only")
    group.add_argument("--no-color", action="store_true", default=default,
                       help="no colour in terminal output (also: NO_COLOR set)")


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
    from consolidator.roots.layout import is_session_transcript

    if not is_session_transcript(f"{text}.jsonl"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a session id (a UUID)")
    return text


def _apply_option(parser: argparse.ArgumentParser) -> None:
    from consolidator.config import APPLY_MODES

    parser.add_argument(
        "--apply", choices=APPLY_MODES, default=None,
        help="which changes to apply without review: safe (mechanical ones; the default "
             "of [consolidate] apply), all, or none (only propose)")


def _all_roots(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument(
        "--all-roots", action="store_true",
        help=f"{verb} the proposal of RUN_ID in every memory dir it left one in (a pass over "
             "several roots leaves one per root; else name one with --memory-dir)")


def command(parent: Any, name: str, help: str) -> argparse.ArgumentParser:
    """A sub-command whose ``--help`` opens with what it does (its line in the list)."""
    made: argparse.ArgumentParser = parent.add_parser(
        name, help=help, description=help[0].upper() + help[1:] + ".")
    return made


def _duration(text: str) -> clock.Duration:
    """``30`` (days), ``30d``, ``12h``, ``2w``, ``90m``: :func:`consolidator.clock.duration`."""
    try:
        return clock.duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _since(text: str) -> str:
    """A date (``2026-11-01``), a time (``2026-11-01T10:00:00Z``) or a duration back from
    now (``30``, ``7d``, ``12h``, ``2w``): checked here, turned into a moment by the history
    command."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?Z?)?", text):
        return text
    try:
        clock.duration(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date (2026-11-01) or a duration: {clock.DURATION_FORMS}"
        ) from None
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="consolidator",
        description="Keeps Claude Code memory directories healthy, without losing a memory.",
        epilog="exit codes: 0 done or nothing to do, 1 a root failed (or an apply whose "
        "every chosen action was refused), 2 usage or config error, 75 a root's lock was held "
        "(run --force, undo, apply, reject), 128+N stopped by signal N (SIGTERM: 143)",
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    _common(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = False  # bare `consolidator` lists the commands

    report = command(sub, "report", help="the dry-run report: gates and the full plan")
    report.add_argument("--format", choices=("markdown", "json"), default=None,
                        help="markdown (the default) or json")
    report.add_argument("--json", action="store_true", help="print the JSON report "
                        "(--format json)")
    report.add_argument("--output", metavar="FILE", help="write the report here, not stdout")
    report.add_argument("--llm", action="store_true",
                        help="ask the configured LLM backend too (costs API calls)")
    _apply_option(report)
    _common(report, suppress=True)

    run = command(sub, "run", help="one pass over every root: gates, then phases")
    run.add_argument("--force", action="store_true", help="skip gates G1-G6 (never the lock)")
    run.add_argument("--dry-run", action="store_true",
                     help="plan and report; change no memory (the run is recorded in history)")
    run.add_argument("--json", action="store_true", help="print the JSON report")
    run.add_argument("--ended-session", metavar="SESSION_ID", type=_session_id,
                     help="a session that just ended (as the SessionEnd hook passes it): its "
                     "transcript is not a live session's")
    _apply_option(run)
    _common(run, suppress=True)

    hook = command(sub, "hook", help="Claude Code hooks: consolidation after a session ends")
    hook.add_argument("event", choices=("session-end",),
                      help="the hook event: session-end reads SessionEnd's JSON on stdin")
    hook.add_argument("--wait", action="store_true",
                      help="run the pass here and wait for it (default: start it in the "
                      "background and return at once)")
    _common(hook, suppress=True)

    serve = command(sub, "serve", help="the long-running service (APScheduler)")
    _common(serve, suppress=True)

    status = command(sub, "status", help="each root's gates and last run, reading no memory")
    status.add_argument("--json", action="store_true", help="print JSON")
    _common(status, suppress=True)

    hist = command(sub, "history", help="past runs with their counts")
    hist.add_argument("--json", action="store_true", help="one JSON object per line")
    hist.add_argument("--root", metavar="DIR", help="only this memory dir's runs")
    hist.add_argument("--since", metavar="WHEN", type=_since,
                      help="only runs since a date or a UTC time (2026-11-01, "
                      "2026-11-01T10:00Z) or within a duration (30 days: 30 or 30d; 90m, 12h, 2w)")
    hist.add_argument("--limit", metavar="N", type=int, help="only the newest N runs")
    _common(hist, suppress=True)

    undo = command(sub, "undo", help="restore a root to its bytes before a run")
    undo.add_argument("run_id", metavar="RUN_ID",
                      help="the run to undo, as history prints it, or latest (the newest "
                      "run that changed the root)")
    undo.add_argument("--force", action="store_true",
                      help="undo even over files changed since (their bytes are kept aside)")
    _common(undo, suppress=True)

    proposals = command(sub, "proposals", help="the judgments waiting for review, per root")
    proposals.add_argument("--json", action="store_true", help="print JSON")
    _common(proposals, suppress=True)

    apply = command(sub, "apply", help="apply a proposal's actions (all, or the chosen ones)")
    apply.add_argument("run_id", metavar="RUN_ID", nargs="?",
                       help="the run whose proposal to apply (default, or `latest`: every "
                       "waiting one)")
    choice = apply.add_mutually_exclusive_group()
    choice.add_argument("--only", metavar="N,M", type=_numbers, help="apply only these actions")
    choice.add_argument("--except", dest="without", metavar="N,M", type=_numbers,
                        help="apply all but these actions")
    _all_roots(apply, "apply")
    _common(apply, suppress=True)

    reject = command(sub, "reject", help="decline a proposal's actions (all, or the chosen ones)")
    reject.add_argument("run_id", metavar="RUN_ID", nargs="?",
                        help="the run whose proposal to decline (default, or `latest`: every "
                        "waiting one)")
    reject.add_argument("--only", metavar="N,M", type=_numbers,
                        help="decline only these actions")
    _all_roots(reject, "decline")
    _common(reject, suppress=True)

    prune = command(sub, "prune", help="remove old run folders and their archives, and say which")
    prune.add_argument("--older-than", metavar="AGE", type=_duration, required=True,
                       help="runs that started more than AGE ago (30 days: 30 or 30d; "
                       "12h, 2w)")
    prune.add_argument("--dry-run", action="store_true", help="say what would go; remove nothing")
    _common(prune, suppress=True)

    completion = command(sub, "completion", help="a shell completion script")
    completion.add_argument("shell", choices=("bash", "zsh", "fish"))

    config = command(sub, "config", help="config tools")
    config_sub = config.add_subparsers(dest="config_command", metavar="ACTION",
                                       parser_class=_Parser)
    config_sub.required = True
    check = command(config_sub, "check",
                    help="validate the config; list every problem, then the roots it finds")
    _common(check, suppress=True)
    show = command(config_sub, "show",
                   help="the effective config, each value with where it came from")
    _common(show, suppress=True)
    _common(config, suppress=True)
    return parser
