"""The argument parser: every command, its options and their help."""

from __future__ import annotations

import argparse

from consolidator import __version__
from consolidator.errors import UsageError


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
