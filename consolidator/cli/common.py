"""What every command shares: config, logging, roots, writing results."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import structlog

from consolidator import clock, config, log
from consolidator.cli import pipes
from consolidator.errors import UsageError
from consolidator.report import metrics
from consolidator.roots import paths, stores
from consolidator.state import statedir, statefiles, unusable
from consolidator.store.journal import crash_after

if TYPE_CHECKING:
    from consolidator.config import Config
    from consolidator.report.outcome import RunReport
    from consolidator.roots.stores import Store

NO_ROOT = "no memory directory found"


def write_out(produce: Callable[[TextIO], object]) -> None:
    """Write a command's result on stdout; a reader that went away does not change the exit
    code."""
    try:
        produce(sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        pipes.stdout_closed()


def render(result: RunReport, fmt: str, out: TextIO, verbose: bool = False) -> None:
    """A pass's report on ``out``: JSON, or the Markdown a person reads."""
    from consolidator.report import json, markdown  # only a command that prints one

    if fmt == "json":
        json.write_json(result, out)
    else:
        out.write(markdown.markdown(result, verbose=verbose))


def load_config(args: argparse.Namespace, env: Mapping[str, str]) -> Config:

    return config.load(paths.config_path(args.config, env))


def setup_logging(cfg: Config, args: argparse.Namespace, quiet: bool = False,
                  env: Mapping[str, str] | None = None) -> None:
    """Log lines on stderr as ``[log]`` says, unless the command line says otherwise:
    ``--debug`` or ``-v`` (debug), ``-q`` (warnings only); ``quiet`` commands log warnings
    only unless asked for more. Colour only on a terminal, never with ``NO_COLOR`` or
    ``--no-color``. Stdout is the command's result alone."""
    louder = bool(getattr(args, "debug", False)) or bool(getattr(args, "verbose", None))
    if louder:
        level = "debug"
    elif getattr(args, "quiet", False) or quiet:
        level = "warning"
    else:
        level = cfg.log.level
    log.configure(cfg.log.format, level, sys.stderr, colors=colors(args, env))


def colors(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> bool:
    """Whether terminal output may be coloured (the NO_COLOR convention, ``--no-color``)."""
    env = os.environ if env is None else env
    return not getattr(args, "no_color", False) and not env.get("NO_COLOR")


def listed_verbose(args: argparse.Namespace) -> bool:
    """``-v``: list everything (every memory in a report)."""
    return bool(getattr(args, "verbose", None))


def warner() -> Callable[[str, str], None]:
    """How a command hears about roots that do not look like memory directories: a named
    ``--memory-dir`` gets one warning line on stderr, a skipped configured folder a log line;
    each once per process (``serve`` lists its roots on every tick)."""
    said: set[str] = set()
    logger = structlog.get_logger("consolidator.roots.paths")

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


def roots_and_state(
    args: argparse.Namespace, cfg: Config, env: Mapping[str, str],
    warn: Callable[[str, str], None] | None = None, *, checked: bool = True,
) -> tuple[list[Store], Path]:
    """The roots (each a store of its kind) and the state dir, refused (exit 2) when one lies
    inside the other, or when ``--project-root`` is given for several roots (each root's
    project comes from its own transcripts)."""
    warn = warn or warner()
    found = paths.roots(args.memory_dir, cfg, env, warn, checked=checked)
    if not found:
        warn("warning", f"{NO_ROOT}: " + ("no configured pattern matches a memory directory"
                                          if cfg.memory.roots else
                                          f"Claude Code keeps no memory store under "
                                          f"{stores.claude_home(env)} yet (name one with "
                                          "--memory-dir; see consolidator config check)"))
    state = paths.state_dir(args.state_dir, cfg, env)
    paths.check_state_dir(state, [s.path for s in found])
    if getattr(args, "project_root", None) and len(found) > 1:
        raise UsageError(f"--project-root belongs to one memory dir, and {len(found)} are "
                         "selected: name one with --memory-dir (each root's project comes "
                         "from its own transcripts otherwise)")
    return found, state


def open_output(output: str, roots: list[Path]) -> TextIO:
    """Open ``--output`` for the report without truncating first: the path is checked once
    more against every root, then the file is emptied (a pipe or a device is written as is)."""


    fd = os.open(output, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOCTTY", 0), 0o666)
    try:
        paths.check_output(output, roots)  # again: the path may have changed during the run
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "w", encoding="utf-8")


def journal_hook(env: Mapping[str, str]) -> Callable[[], None] | None:
    """Fault injection for tests: ``CONSOLIDATOR_FAULT_AFTER_STEP=N`` ends the process hard
    right after the N-th journal record; read once, here."""
    limit = env.get("CONSOLIDATOR_FAULT_AFTER_STEP", "")
    if not limit.isdigit():
        return None

    return crash_after(int(limit))


def warn_keyless(cfg: Config, env: Mapping[str, str]) -> None:
    """A config that asks for the anthropic backend with no key runs offline: a warning line
    at the start says so (``config check`` calls it an error)."""
    if cfg.llm.backend == "anthropic" and not env.get("ANTHROPIC_API_KEY", "").strip():

        structlog.get_logger("consolidator.llm").warning(
            "llm.backend is anthropic but ANTHROPIC_API_KEY is not set; deciding offline",
            config=cfg.source)


def writable_state(state: Path) -> None:
    """The state dir exists (made private if need be) and can be written: else one line,
    exit 2, before any root is touched (a journal must be writable before any change)."""
    try:
        statefiles.private_dir(state)
        probe = state / f".write-probe.{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"state dir {state}: not writable ({exc.strerror or exc}); choose "
                         "another with --state-dir or [state] dir") from None


def write_metrics(cfg: Config, result: RunReport, state: Path) -> None:
    """The pass's Prometheus textfile, when ``[metrics] textfile`` names one; a file that
    cannot be written is never the pass's failure: a warning once per change of reason (a
    service ticking every ten minutes, or cron, does not repeat it every pass), a debug line
    while it stays the same, and one line when the file is written again."""
    if not cfg.metrics.textfile or getattr(result, "dry_run", True):
        return
    path = Path(cfg.metrics.textfile).expanduser()
    log = structlog.get_logger("consolidator.report.metrics")
    reason = None
    try:
        metrics.write_textfile(path, result, clock.now(), state)
    except OSError as exc:
        reason = f"{path}: {exc.strerror or exc}"
    change = unusable.note(statedir.metrics_unwritten(state), reason)
    if reason is None:
        if change.changed:
            log.info("metrics textfile written again", path=str(path), was=change.before)
    elif change.changed:
        log.warning("metrics textfile not written", path=str(path), reason=reason)
    else:
        log.debug("metrics textfile not written", path=str(path), reason=reason,
                  warned_before=True)


def output_writable(output: str) -> None:
    """``--output`` can be written: its folder exists and takes new files, or the file
    itself is writable (and not a folder). Checked before any work: exit 2, one line."""
    path = Path(output).expanduser()
    if path.is_dir():
        raise UsageError(f"--output {output}: is a folder")
    folder = path.parent if str(path.parent) else Path(".")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise UsageError(f"--output {output}: not writable")
    elif not folder.is_dir():
        raise UsageError(f"--output {output}: no folder {folder}")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--output {output}: cannot create a file in {folder}")
