"""Stopping cleanly: a signal asks, the run stops at the next step boundary.

A step (one file written, moved or created) always completes; between steps the run checks
the token, and a requested stop unwinds through the runner, which rolls the lock back.
"""

from __future__ import annotations

import threading


class Stopped(BaseException):
    """Raised at a step boundary after a stop was requested (not an error: a BaseException,
    so that no ``except Exception`` swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class StopToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self.signum = 0

    def request(self, signum: int) -> None:
        self.signum = signum
        self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise :class:`Stopped` if a stop was requested."""
        if self._event.is_set():
            raise Stopped(self.signum)

