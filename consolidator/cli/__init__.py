"""The command line: the only place that exits, and the map from errors to exit codes.

Each command lives in the module that owns its subject (:mod:`.passes`: report, run, hook;
:mod:`.serve`: serve; :mod:`.review`: proposals, apply, reject; :mod:`.state`: status,
history, undo; :mod:`.settings`: config check) and is imported only when it runs, so
``--help`` and a closed-gate pass stay cheap. See :mod:`.codes` for the exit codes.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from consolidator.cli import pipes
from consolidator.cli.codes import EXIT_FAILED, EXIT_LOCKED, EXIT_OK, EXIT_USAGE
from consolidator.cli.parser import build_parser
from consolidator.errors import ConfigError, ConsolidatorError, LockHeld, UsageError

__all__ = ["EXIT_FAILED", "EXIT_LOCKED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

Handler = Callable[[argparse.Namespace, Mapping[str, str]], int]
_COMMANDS = {  # command -> (module, function)
    "report": ("passes", "report"),
    "run": ("passes", "run"),
    "serve": ("serve", "serve"),
    "hook": ("passes", "hook"),
    "status": ("state", "status"),
    "history": ("state", "history"),
    "undo": ("state", "undo"),
    "proposals": ("review", "proposals"),
    "apply": ("review", "apply"),
    "reject": ("review", "reject"),
    "config": ("settings", "config"),
    "prune": ("state", "prune"),
    "completion": ("completion", "completion"),
}


def handler(command: str) -> Handler:
    """The function that carries out ``command``, imported now."""
    module, name = _COMMANDS[command]
    found: Handler = getattr(importlib.import_module(f"consolidator.cli.{module}"), name)
    return found


def _flush_stdout() -> None:
    if sys.stdout is None:  # started with stdout closed (`>&-`): nothing was written
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pipes.stdout_closed()


def _with_options(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """The command's handler, every command it prints for a person to paste carrying this
    one's ``--config`` and ``--state-dir``."""
    from consolidator.report import summary

    summary.use_options(getattr(args, "config", None), getattr(args, "state_dir", None))
    try:
        return handler(args.command)(args, env)
    finally:
        summary.use_options(None, None)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run the command line; return the exit code (never raises for an expected error)."""
    env = os.environ if env is None else env
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    try:
        args = build_parser().parse_args(args_list)
        if args.command is None:
            build_parser().print_help(sys.stdout)  # bare `consolidator`: what it can do
            return EXIT_OK
        code = _with_options(args, env)
        _flush_stdout()  # here, not at exit: a reader gone by now changes no exit code
        return code
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
