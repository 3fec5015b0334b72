"""A warning said once per change of its reason, the reason remembered in the state dir: by
a service ticking every ten minutes and by one-shot runs from a timer or cron alike (each a
new process, with nothing else to remember it by). Two warnings use it: why a root cannot be
used (gate G2's to say, :func:`consolidator.gates.unusable_reason`), kept in the root's state
folder, and why the metrics textfile could not be written, kept in the state dir.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from consolidator.state import statefiles

MAX_BYTES = 4096  # a reason is one line; anything longer is not ours


class Change(NamedTuple):
    """What :func:`note` found: whether the reason changed, the one before, and whether the
    new one could be remembered."""

    changed: bool
    before: str | None
    remembered: bool


def remembered(file: Path) -> str | None:
    """The reason the last warning gave, or ``None`` (none given, or a file not to trust)."""
    try:
        data = statefiles.read_private(file, MAX_BYTES)
    except (OSError, statefiles.Foreign):
        return None
    return None if data is None else data.decode("utf-8", "replace")


def remember(file: Path, reason: str | None) -> None:
    """Keep ``reason`` as the one last warned of; ``None`` forgets it. Raises ``OSError``."""
    if reason is None:
        statefiles.remove(file)
    else:
        statefiles.replace(file, reason.encode("utf-8", "replace"))


def note(file: Path, reason: str | None) -> Change:
    """Compare ``reason`` (``None``: all is well) with the one last warned of, and remember
    it when it changed (a state dir that cannot be written: the warning is said again)."""
    before = remembered(file)
    if reason == before:
        return Change(False, before, True)
    try:
        remember(file, reason)
    except OSError:
        return Change(True, before, False)
    return Change(True, before, True)
