"""structlog set-up: console lines on a terminal, one JSON object per line otherwise.

Every log line goes to stderr: stdout carries a command's result alone (``run --dry-run >
plan.md``, ``report --format json > r.json``); journald, launchd and cron keep stderr as
they keep stdout. The standard-library loggers of APScheduler, filelock, httpx and anthropic
go through the same renderer, so a journal or a cron mail reads as one stream.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

from consolidator.cli import pipes
from consolidator.report import progress
from consolidator.report.summary import CHANGES, command, summary_of

BRIDGED = ("apscheduler", "filelock", "httpx", "httpx2", "httpcore", "anthropic")


def configure(fmt: str = "auto", level: str = "info", stream: TextIO | None = None,
              colors: bool = False) -> None:
    """Route every log line to ``stream`` (stderr by default) in the chosen format;
    ``colors``: console lines on a terminal may be coloured."""
    stream = stream or sys.stderr
    use_json = fmt == "json" or (fmt == "auto" and not _isatty(stream))
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if use_json
        else structlog.dev.ConsoleRenderer(colors=colors and _isatty(stream) and _colorama())
    )
    plain: list[Any] = [] if use_json else [plain_summary]
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *plain,
                    renderer],
    )
    handler = _Handler(stream)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    for name in BRIDGED:
        # Their debug chatter can carry request bodies; keep them at warning unless debugging.
        logging.getLogger(name).setLevel(logging.DEBUG if level == "debug" else logging.WARNING)
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )


# The keys a console line keeps; a root's summary line says its counts in words instead.
_KEPT = ("timestamp", "level", "logger")


def plain_summary(_logger: Any, _name: str, event: MutableMapping[str, Any]
                  ) -> MutableMapping[str, Any]:
    """On a terminal, a root's closing line in a few words a person reads at a glance
    (``skipped: G4 interval, …``; ``consolidated: 2 merged, 1 archived; undo: …``) instead
    of its dozen counters; off a terminal the JSON line keeps every field."""
    if event.get("event") == "pass":
        kept = {k: event[k] for k in _KEPT if k in event}
        return {**kept, "event": f"pass: {pass_words(event)}"}
    if event.get("event") not in ("root done", "root skipped"):
        return event
    root, status = event.get("root", ""), event.get("status", "")
    if status == "skipped":
        from consolidator.gates import GATE_NAMES

        gate = event.get("gate", "")
        name = dict(GATE_NAMES).get(gate, "")
        text = f"skipped: {gate} {name}, {event.get('reason', '')}".rstrip(", ")
    elif status == "failed":
        text = f"failed: {event.get('error', 'see the lines above')}"
    else:
        text = f"{status}: {summary_of(event, dry=status == 'planned')}"
        if status == "consolidated" and any(event.get(k) for k in CHANGES):
            text += f"; undo: {command('undo ' + str(event.get('run_id', 'RUN_ID')))}"
    kept = {k: event[k] for k in _KEPT if k in event}
    return {**kept, "event": f"{root}: {text}"}


def pass_words(counts: MutableMapping[str, Any]) -> str:
    """A pass in a few words: ``3 roots, none due (2 at G4 interval, 1 at G3 idle)``."""
    roots, due = counts.get("roots", 0), counts.get("due", 0)
    text = f"{roots} {'root' if roots == 1 else 'roots'}"
    outcomes = [f"{counts[s]} {s}" for s in ("consolidated", "planned", "failed", "stopped")
                if counts.get(s)]
    if roots:
        text += ", " + (", ".join(outcomes) if due else "none due")
    closed = counts.get("closed") or {}
    if closed and due:
        text += f", {sum(closed.values())} not due"
    if closed:
        text += " (" + ", ".join(f"{n} at {gate}" for gate, n in closed.items()) + ")"
    return text


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that goes quiet when its reader has gone (``run | head``).

    The run itself carries on: a closed pipe must never stop a consolidation half way.
    """

    def emit(self, record: logging.LogRecord) -> None:
        progress.clear()  # a log line starts on a line of its own, never after the progress
        super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:  # the stdlib name
        if isinstance(sys.exc_info()[1], BrokenPipeError):
            self.stream = pipes.stdout_closed() if self.stream is sys.stdout else pipes.devnull()
            return
        super().handleError(record)


def _colorama() -> bool:
    """structlog colours through colorama on Windows only; elsewhere it needs nothing."""
    return sys.platform != "win32"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def get(name: str = "consolidator") -> Any:
    return structlog.get_logger(name)
