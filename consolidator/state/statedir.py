"""The state dir's layout. Nothing else spells a path inside it.

::

    <state dir>/
      <root key>/                 one folder per memory directory (see :func:`root_key`)
        history.jsonl             one line per pass (appended under a lock, fsynced; lines
                                  older than [state] keep_days are dropped)
        last-scan                 its mtime: the last session scan (gate G5)
        lock-previous.json        what the marker was before a run still holding it
        root.flock                the tool's own lock on the root (filelock; empty)
        last-consolidated         the marker of a root Claude Code keeps no
                                  .consolidate-lock in (body: holder PID; mtime: the last
                                  consolidation)
        proposal.json             the judgments waiting for review (replaced atomically)
        declined.jsonl            judgments a person declined (appended, fsynced)
        usage.json                which memories the sessions opened (replaced atomically)
        unusable                  why gate G2 found the root unusable when a pass last
                                  warned of it (absent while it is usable)
        runs/<run id>/
          journal.jsonl           every change, written down before it is made
          backup/<step>/<file>    a file's bytes before a step rewrote it
          archive/<file>          files moved out of the root, byte for byte
          undone/<file>           files an undo took back out of the root
          displaced/<step>/<file> newer bytes a forced undo put aside

Everything is private to the user: folders 0700, files 0600. Nothing here is a ``.md`` file
under a root (the state dir is never inside one; see
:func:`consolidator.roots.paths.check_state_dir`).

How its files are written (private, appended under a lock, replaced whole) is
:mod:`consolidator.state.statefiles`'; a run folder's age, contents and removal are
:mod:`consolidator.state.runfolders`'.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from consolidator.errors import UsageError

HISTORY = "history.jsonl"
SCAN_MARK = "last-scan"
LOCK_PREVIOUS = "lock-previous.json"
ROOT_FLOCK = "root.flock"
LAST_RUN = "last-consolidated"
PROPOSAL = "proposal.json"
DECLINED_FILE = "declined.jsonl"
DECLINED_BEFORE = "declined"  # the name one earlier build wrote it under, still read
USAGE = "usage.json"
UNUSABLE = "unusable"
METRICS_UNWRITTEN = "metrics-unwritten"  # in the state dir: why the textfile was not written
RUNS = "runs"
JOURNAL = "journal.jsonl"
BACKUP = "backup"
ARCHIVE = "archive"
UNDONE = "undone"
DISPLACED = "displaced"
OWN = frozenset({JOURNAL, BACKUP})  # what a run folder holds that is the tool's alone
USERS = (ARCHIVE, UNDONE, DISPLACED)  # what holds users' bytes, moved out of a root
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
# The status of an action in proposal.json (consolidator.state.proposal reads and writes it).
WAITING, APPLIED, DECLINED, REFUSED = "waiting", "applied", "declined", "refused"
DONE_WITH = frozenset({APPLIED, DECLINED, REFUSED})  # an action that waits no more


def root_key(root: Path) -> str:
    """A folder name for one root's state: readable, and unique per folder.

    The path is resolved first (symlinks and ``..``, as far as it exists), so one folder
    reached through two aliases has one state folder, and so one lock."""
    return text_key(os.path.realpath(root))


def kept_for(state: Path, memory_dir: str) -> bool:
    """Whether ``state`` is the state folder of ``memory_dir``: its key, or the key an earlier
    build gave the path as written (before aliases were resolved)."""
    return state.name in (root_key(Path(memory_dir)), text_key(memory_dir))


def text_key(text: str) -> str:
    """A folder name for a path as written: readable, and unique per text."""
    readable = re.sub(r"[^A-Za-z0-9]", "-", text).strip("-")[-80:]
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{readable}-{digest}"


def root_state(state_dir: Path, root: Path) -> Path:
    """The folder of ``root``'s state."""
    return state_dir / root_key(root)


# ------------------------------------------------------------------- one root's files


def history(state: Path) -> Path:
    return state / HISTORY


def scan_mark(state: Path) -> Path:
    return state / SCAN_MARK


def lock_previous(state: Path) -> Path:
    return state / LOCK_PREVIOUS


def root_flock(state: Path) -> Path:
    return state / ROOT_FLOCK


def last_run(state: Path) -> Path:
    return state / LAST_RUN


def proposal(state: Path) -> Path:
    return state / PROPOSAL


def declined(state: Path) -> Path:
    return state / DECLINED_FILE


def declined_before(state: Path) -> Path:
    return state / DECLINED_BEFORE


def usage(state: Path) -> Path:
    return state / USAGE


def unusable(state: Path) -> Path:
    return state / UNUSABLE


def metrics_unwritten(state_dir: Path) -> Path:
    """Why the metrics textfile could not be written, as last warned of (the whole state
    dir's, not a root's)."""
    return state_dir / METRICS_UNWRITTEN


def runs(state: Path) -> Path:
    return state / RUNS


def run_dir(state: Path, run_id: str) -> Path:
    return state / RUNS / run_id


def root_folders(state_dir: Path) -> list[Path]:
    """Every root's folder in the state dir, by name (links are not followed)."""
    try:
        entries = sorted(os.scandir(state_dir), key=lambda e: e.name)
    except OSError:
        return []
    return [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]


def run_ids(state: Path, prefix: str = "") -> list[str]:
    """The names of this root's run folders (those starting with ``prefix``), sorted."""
    try:
        return sorted(e.name for e in os.scandir(runs(state)) if e.name.startswith(prefix))
    except OSError:
        return []


def run_folder(state: Path, run_id: str) -> Path | None:
    """The root's run folder named exactly ``run_id`` (the id is compared with the names
    listed in ``runs/``: it is never a pattern), or ``None`` (a link is not one)."""
    folder = run_dir(state, run_id)
    if run_id in run_ids(state) and folder.is_dir() and not folder.is_symlink():
        return folder
    return None


def check_run_id(run_id: str) -> None:
    if not RUN_ID.fullmatch(run_id):
        raise UsageError(f"{run_id!r} is not a run id (like 20261130T031500Z-3f9a)")


def state_of_run(run: Path) -> Path:
    """The root's state folder a run folder belongs to."""
    return run.parent.parent


# ------------------------------------------------------------------- one run's files


def journal(run: Path) -> Path:
    return run / JOURNAL


def backup(run: Path, step: int, rel: str) -> Path:
    """Where step ``step`` saved ``rel``'s bytes before rewriting it."""
    return run / "backup" / str(step) / rel


def archived(run: Path, rel: str) -> Path:
    """Where a file this run archived lies."""
    return run / "archive" / rel


def undone(run: Path, rel: str) -> Path:
    """Where an undo puts a file the run created."""
    return run / "undone" / rel


def displaced(run: Path, step: int, rel: str) -> Path:
    """Where a forced undo keeps the newer bytes it replaced."""
    return run / "displaced" / str(step) / rel
