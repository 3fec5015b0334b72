"""The command line: the only place that exits, and the map from errors to exit codes.

Exit codes: 0 done, nothing to do, or a gate closed; 1 a root failed; 2 usage or config
error; 75 ``run --force`` could not take a lock.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping, Sequence

from consolidator import __version__
from consolidator.errors import ConfigError, ConsolidatorError, LockHeld, UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LOCKED = 0, 1, 2, 75


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
    _common(report, suppress=True)

    config = sub.add_parser("config", help="config tools")
    config_sub = config.add_subparsers(dest="config_command", metavar="ACTION",
                                       parser_class=_Parser)
    config_sub.required = True
    check = config_sub.add_parser("check", help="validate the config; list every problem")
    _common(check, suppress=True)
    _common(config, suppress=True)
    return parser


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


def _setup_logging(cfg, debug: bool, stream=None) -> None:  # type: ignore[no-untyped-def]
    from consolidator import log

    log.configure(cfg.log.format, "debug" if debug else cfg.log.level, stream)


def _cmd_report(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from consolidator import paths, report, runner

    cfg = _load_config(args, env)
    _setup_logging(cfg, args.debug)
    roots = paths.roots(args.memory_dir, cfg, env)
    if args.output:
        out = Path(args.output).absolute()
        for root in roots:
            if out == root or root in out.parents:
                raise UsageError(f"--output {args.output}: inside the memory dir {root}")
    opts = runner.RunOptions(
        state_dir=paths.state_dir(args.state_dir, cfg, env),
        transcripts_dir=args.transcripts_dir,
        project_root=args.project_root,
        dry_run=True,
    )
    result = runner.run_all(roots, cfg, opts, datetime.now(timezone.utc))
    text = report.to_json(result) if args.format == "json" else report.to_markdown(result)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if not roots:
        print("consolidator: no memory directory found", file=sys.stderr)
    return EXIT_FAILED if result.failed else EXIT_OK


def _cmd_config(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from consolidator import paths

    path = paths.config_path(args.config, env)
    _load_config(args, env)
    print(f"{path or 'built-in defaults'}: ok")
    return EXIT_OK


_HANDLERS: dict[str, Callable[[argparse.Namespace, Mapping[str, str]], int]] = {
    "report": _cmd_report,
    "config": _cmd_config,
}
