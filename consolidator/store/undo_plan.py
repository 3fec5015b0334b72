"""Before an undo changes anything: the run's saved copies checked against its journal, and
each step judged against the files as they are now (see :mod:`consolidator.store.undo`, which
makes the steps).

A step is ``todo`` (the run's change is there to undo), ``clean`` (nothing to undo: the file
is as before the run, or the step never happened) or ``conflict`` (the file changed since the
run). Steps are judged newest first, against a simulation of the files as the undo goes back
in time. A copy the undo would need that is missing, altered or outside the run's folder stops
the whole undo, unless its step never happened.
"""

from __future__ import annotations

import os
import stat as stat_mod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from consolidator.errors import UnsafePath
from consolidator.state import statedir
from consolidator.store.dirfd import Folder, RootDir
from consolidator.store.journal import Entry, RunJournal
from consolidator.store.model import FileStat
from consolidator.store.recheck import rel_parts
from consolidator.store.scan import ReadProblem, file_stat, read_regular

READ_ALL = 1 << 40  # undo reads a file whatever its size


OTHER: Literal["other"] = "other"
Now = FileStat | None | Literal["other"]  # a regular file, nothing, or anything else


def what_is_at(path: str, rel: str, dir_fd: int | None = None) -> Now:
    """What is at ``path`` (a name in ``dir_fd``'s folder, or a path): a regular file (read
    and hashed), nothing, or something else (a folder, a link, a FIFO; never followed)."""
    try:
        st = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError:
        return OTHER
    if not stat_mod.S_ISREG(st.st_mode):
        return OTHER
    try:
        data, st = read_regular(path, limit=READ_ALL, dir_fd=dir_fd)
    except ReadProblem:
        return OTHER
    return file_stat(rel, data, st)


def saved(path: Path, rel: str) -> Now:
    """A file of the run's folder (a backup, an archived or displaced copy)."""
    return what_is_at(str(path), rel)


def folder_of(rd: RootDir, rel: str, create: bool = False) -> tuple[Folder, str]:
    """The folder of ``rel`` in the root, walked from the root's descriptor without
    following a link, and ``rel``'s name in it."""
    parts = rel_parts(rel)
    rd.check()
    return rd.folder(parts[:-1], create=create), parts[-1]


def in_root(rd: RootDir, rel: str) -> Now:
    """The root's file ``rel`` as it is now."""
    try:
        folder, name = folder_of(rd, rel)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (UnsafePath, OSError):
        return OTHER  # a folder on the way is a link now, or cannot be opened
    with folder:
        return what_is_at(folder.at(name), rel, folder.dir_fd)


def _inside(base: str, path: Path) -> bool:
    """Whether ``path``, links resolved, lies below the resolved folder ``base``."""
    return os.path.realpath(path).startswith(base.rstrip(os.sep) + os.sep)


def before_of(entry: Entry) -> FileStat:
    assert entry.before is not None
    b = entry.before
    return FileStat(entry.file, b["size"], b["mtime_ns"], b["mode"], b["sha256"])


@dataclass
class Copies:
    """The run's saved copies, checked against its journal."""

    backups: dict[int, FileStat] = field(default_factory=dict)  # step -> backup, verified
    archived: dict[str, FileStat] = field(default_factory=dict)  # file -> archived copy
    bad: dict[int, str] = field(default_factory=dict)  # step -> what is wrong with its copy
    problems: list[str] = field(default_factory=list)  # the ones that stop the undo


def check_copies(run_dir: Path, journal: RunJournal) -> Copies:
    """Every backup (a backup is never used up) and every archived copy still in the
    archive, against the hash the journal recorded for it. Whether a bad one stops the undo
    is decided by :func:`plan_steps`: it does unless its step never happened."""
    copies = Copies()
    base = os.path.realpath(run_dir)
    for entry in journal.intents:
        if entry.op == "create":
            continue
        want = before_of(entry)
        if entry.op == "write":
            path, what = statedir.backup(run_dir, entry.step, entry.file), "backup"
        else:
            path, what = statedir.archived(run_dir, entry.file), "archived copy"
        label = f"{what} of {entry.file} (step {entry.step})"
        if not _inside(base, path):
            copies.bad[entry.step] = f"{label} lies outside the run's folder"
            continue
        found = saved(path, entry.file)
        if found is None and entry.op == "archive":
            continue  # already put back, or never moved: judged with the root's file
        if not isinstance(found, FileStat):
            copies.bad[entry.step] = (f"{label} is missing" if found is None
                                      else f"{label} is not a regular file")
        elif found.sha256 != want.sha256:
            copies.bad[entry.step] = f"{label} does not match the journal"
        elif entry.op == "write":
            copies.backups[entry.step] = found
        else:
            copies.archived[entry.file] = found
    return copies


@dataclass
class Step:
    entry: Entry
    state: str  # "todo", "clean" (nothing to undo) or "conflict" (changed since the run)
    current: Now  # the file as the step will find it (after the later steps' undo)


def _judge(entry: Entry, current: Now, done: bool, copies: Copies) -> str:
    """``todo``, ``clean`` or ``conflict``; or ``damaged:<why>``."""
    sha = current.sha256 if isinstance(current, FileStat) else None
    if entry.op == "create":
        # Undone only if the run made it: a done record, or exactly the bytes it wrote.
        # Nothing there, or a folder or link, is a create that never happened (or is gone).
        if sha is None:
            return "clean"
        if sha == entry.after_sha256:
            return "todo"
        return "conflict" if done else "clean"
    before = before_of(entry)
    if entry.op == "write":
        if sha == entry.after_sha256 and isinstance(current, FileStat) \
                and (current.sha256, current.mtime_ns) != (before.sha256, before.mtime_ns):
            return "todo"
        if sha == before.sha256 or not done and sha != entry.after_sha256:
            return "clean"  # as before the run, or a write that never happened
        return "conflict"
    if entry.file in copies.archived:
        return "todo" if current is None else "conflict"
    if not done or sha == before.sha256:
        return "clean"  # never moved, or already put back
    return f"damaged:the archived copy of {entry.file} (step {entry.step}) is missing"


def plan_steps(rd: RootDir, journal: RunJournal, copies: Copies,
          keep_newer: bool) -> list[Step]:
    """Each step, newest first, judged against a simulation of the files as undo goes back
    in time: a file the run wrote twice is judged against what the later write left."""
    virtual: dict[str, Now] = {}
    out = []
    for entry in reversed(journal.intents):
        current = virtual[entry.file] if entry.file in virtual else in_root(rd, entry.file)
        done = entry.step in journal.done
        state = _judge(entry, current, done, copies)
        if entry.step in copies.bad and (done or state != "clean"):
            # A step that happened needs its copy; one that never did (its file changed
            # under the run before it wrote) does not.
            copies.problems.append(copies.bad[entry.step])
            state = "clean"
        elif state.startswith("damaged:"):
            copies.problems.append(state.split(":", 1)[1])
            state = "clean"
        out.append(Step(entry, state, current))
        if state == "clean" or (state == "conflict" and keep_newer):
            virtual[entry.file] = current
        elif entry.op == "create":
            virtual[entry.file] = None
        elif entry.op == "write":
            virtual[entry.file] = before_of(entry)
        else:
            archived = copies.archived[entry.file]
            virtual[entry.file] = FileStat(entry.file, archived.size, archived.mtime_ns,
                                           archived.mode, archived.sha256)
    return out
