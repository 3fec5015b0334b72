"""structlog set-up: console lines on a terminal, one JSON object per line otherwise.

The standard-library loggers of APScheduler, filelock, httpx and anthropic go through the same
renderer, so a journal or a cron mail reads as one stream.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog

from consolidator import pipes

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
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
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


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that goes quiet when its reader has gone (``run | head``).

    The run itself carries on: a closed pipe must never stop a consolidation half way.
    """

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
