"""Progress on a terminal (stderr) for passes that take more than a couple of seconds: which
root, which phase. Silent off a terminal. A log line first clears it (:func:`clear`), so the
two never share a line; the pass's end clears it for good (:func:`done`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

_DELAY_S = 2.0
_state = {"enabled": False, "start": 0.0, "shown": False}


def enable(on: bool) -> None:
    _state.update(enabled=on and sys.stderr.isatty(), start=time.monotonic(), shown=False)


def phase(root: Path, name: str) -> None:
    """Show which phase a root is in, once the run has taken longer than a moment."""
    if not _state["enabled"] or time.monotonic() - float(_state["start"]) < _DELAY_S:
        return
    sys.stderr.write(f"\r\x1b[K{root.parent.name}/{root.name}: {name}…")
    sys.stderr.flush()
    _state["shown"] = True


def clear() -> None:
    """Take the progress text off its line (the next :func:`phase` shows it again)."""
    if _state["shown"]:
        try:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    _state["shown"] = False


def done() -> None:
    clear()
