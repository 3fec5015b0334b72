"""Standard output whose reader went away (`consolidator history | head`)."""

from __future__ import annotations

import os
import sys
from typing import TextIO


def devnull() -> TextIO:
    return open(os.devnull, "w", encoding="utf-8")  # open for the life of the process


def stdout_closed() -> TextIO:
    """Point standard output at /dev/null once its reader has gone; return the new stream.

    Without this the interpreter's final flush reports the broken pipe again on exit.
    """
    sink = devnull()
    try:
        os.dup2(sink.fileno(), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.stdout = sink
    return sink
