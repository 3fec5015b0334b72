"""Progress on a terminal for runs that take more than a couple of seconds; silent otherwise."""

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


def done() -> None:
    if _state["shown"]:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
    _state["shown"] = False
