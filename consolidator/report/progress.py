"""Progress on a terminal (stderr) for passes that take more than a couple of seconds: which
root, which phase. Silent off a terminal. A log line first clears it (:func:`clear`), so the
two never share a line; the pass's end clears it for good (:func:`done`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

_DELAY_S = 2.0
_state: dict[str, object] = {"enabled": False, "start": 0.0, "shown": False, "text": ""}


def enable(on: bool) -> None:
    _state.update(enabled=on and _terminal(), start=time.monotonic(), shown=False, text="")


def _terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def phase(root: Path, name: str) -> None:
    """Say which phase a root is in; shown once the run has taken longer than a moment (and
    again by :func:`tick` while a long phase goes on)."""
    _state["text"] = f"{root.parent.name}/{root.name}: {name}…"
    _state["shown"] = False
    tick()


def tick() -> None:
    """Show the current phase if it is not on the screen yet and the run has taken longer
    than a moment: long loops call this, so a phase that started early still shows."""
    if not _state["enabled"] or _state["shown"] or not _state["text"] \
            or time.monotonic() - float(str(_state["start"])) < _DELAY_S:
        return
    try:
        sys.stderr.write(f"\r\x1b[K{_state['text']}")
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    _state["shown"] = True


def clear() -> None:
    """Take the progress text off its line (the next :func:`tick` shows it again)."""
    if _state["shown"]:
        try:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    _state["shown"] = False


def done() -> None:
    clear()
    _state["text"] = ""
