"""Why a root cannot be used, remembered in its state folder, so that the warning is said
once per change of reason: by a service ticking every ten minutes and by one-shot runs from
a timer or cron alike (each a new process, with nothing else to remember it by).

What makes a root unusable is gate G2's to say (:func:`consolidator.gates.unusable_reason`).
"""

from __future__ import annotations

from pathlib import Path

from consolidator.state import statedir

MAX_BYTES = 4096  # a reason is one line; anything longer is not ours


def remembered(state: Path) -> str | None:
    """The reason the last warning gave, or ``None`` (none given, or a file not to trust)."""
    try:
        data = statedir.read_private(statedir.unusable(state), MAX_BYTES)
    except (OSError, statedir.Foreign):
        return None
    return None if data is None else data.decode("utf-8", "replace")


def remember(state: Path, reason: str | None) -> None:
    """Keep ``reason`` as the one last warned of; ``None`` forgets it. Raises ``OSError``."""
    if reason is None:
        statedir.remove(statedir.unusable(state))
    else:
        statedir.replace(statedir.unusable(state), reason.encode("utf-8", "replace"))
