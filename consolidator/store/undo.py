"""Undo: put a root back to its exact bytes (and mtimes) before a run.

All or nothing. Before anything is changed, the journal is read and checked, every backup
and archived copy the undo will use is compared with the hash the journal recorded, and every
step is judged against the files as they are now. A file that changed since the run is a
conflict: undo refuses and lists them, unless forced; even then the current bytes are saved
in the run's folder (``displaced/``) before being replaced. Each file is re-checked right
before it is written or moved, as a run does; a file a live session wrote in the meantime is
never overwritten. If a step fails half-way, the steps this undo already did are put back
and the root is left as it was. Nothing is unlinked: a file the run created is moved into
``undone/``. Only what the journal says the run did is undone: a step that never happened
(no ``done`` record, and the file is not what the step would have made) is left alone, and
a folder or symbolic link is never moved.

What an undo will do is checked and planned first (:mod:`consolidator.store.undo_plan`); this
module makes the steps, moving files in and out of the run's folder with
:mod:`consolidator.store.runfolder`. :func:`undo_run` is the entry point for
``consolidator undo``: it holds the root's locks.
Crash recovery calls :func:`undo` under the lock its run already holds.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from consolidator.errors import ConsolidatorError, FileChanged
from consolidator.state import statedir
from consolidator.state.lock import RootLock, forget_run
from consolidator.store.dirfd import RootDir
from consolidator.store.journal import (
    Entry,
    Journal,
    RunJournal,
    load,
)
from consolidator.store.model import FileStat
from consolidator.store.recheck import read_checked
from consolidator.store.runfolder import (
    TRIES,
    NotRegular,
    place_back,
    same_file,
    take_out,
)
from consolidator.store.scan import ReadProblem, file_stat, read_regular
from consolidator.store.undo_plan import (
    OTHER,
    READ_ALL,
    Copies,
    Step,
    before_of,
    check_copies,
    folder_of,
    plan_steps,
)
from consolidator.store.write import atomic_write


class UndoRefused(ConsolidatorError):
    """Files changed since the run; ``files`` names them. Nothing was changed."""

    def __init__(self, files: list[str], why: str = "changed since the run") -> None:
        self.files = files
        super().__init__(f"{why}, not undone (use --force): " + ", ".join(files))


class BackupDamaged(ConsolidatorError):
    """The run's own copies (backup, archive) are missing or do not match what its journal
    recorded, or lie outside its folder: nothing of that run is undone."""

    def __init__(self, run_dir: Path, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"run {run_dir.name} not undone, its saved copies cannot be trusted: "
                         + "; ".join(problems))


class UndoFailed(ConsolidatorError):
    """A step failed half-way; what this undo had done was put back."""


@dataclass
class UndoResult:
    restored: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    displaced: dict[str, str] = field(default_factory=dict)  # file -> where its newer bytes went


class _Undoer:
    """Carries out a plan step by step, remembering how to put each step back."""

    def __init__(self, rd: RootDir, run_dir: Path, copies: Copies, force: bool,
                 keep_newer: bool) -> None:
        self.rd = rd
        self.run_dir = run_dir
        self.copies = copies
        self.force = force
        self.keep_newer = keep_newer
        self.result = UndoResult()
        self.inverse: list[tuple[str, Callable[[], None]]] = []

    def run(self, steps: list[Step]) -> UndoResult:
        for step in steps:
            if step.state == "clean" or (step.state == "conflict" and self.keep_newer):
                continue
            try:
                self._step(step)
            except (FileChanged, FileExistsError) as exc:
                if self.keep_newer:  # recovery: a live session wrote it; leave it so
                    if step.entry.file not in self.result.conflicts:
                        self.result.conflicts.append(step.entry.file)
                    continue
                self._fail(step, exc)
            except (ConsolidatorError, OSError, ReadProblem) as exc:
                self._fail(step, exc)
            if step.entry.file not in self.result.restored:
                self.result.restored.append(step.entry.file)
        self.result.restored.sort()
        self.result.conflicts.sort()
        return self.result

    def _step(self, step: Step) -> None:
        entry = step.entry
        if entry.op == "write":
            self._write(step)
        elif entry.op == "create":
            self._remove_created(step)
        else:
            self._unarchive(step)

    # -- the three kinds of step -------------------------------------------------------

    def _backup_bytes(self, entry: Entry) -> bytes:
        want = self.copies.backups[entry.step]
        data, st = read_regular(statedir.backup(self.run_dir, entry.step, entry.file),
                                limit=READ_ALL)
        if file_stat(entry.file, data, st).sha256 != want.sha256:
            raise BackupDamaged(self.run_dir, [f"backup of {entry.file} (step {entry.step}) "
                                               "changed during the undo"])
        return data

    def _write(self, step: Step) -> None:
        entry, before, rd = step.entry, before_of(step.entry), self.rd
        path = rd.path / entry.file
        data = self._backup_bytes(entry)
        put = FileStat(entry.file, len(data), before.mtime_ns, before.mode, before.sha256)
        if step.state == "todo":
            assert isinstance(step.current, FileStat)
            replaced = step.current
            try:
                folder, name = folder_of(rd, entry.file)
                with folder:
                    old = read_checked(folder, name, replaced)  # kept, to put back
                atomic_write(path, data, mtime_ns=before.mtime_ns, mode=before.mode,
                             expected=replaced, root=rd)
            except (FileChanged, FileExistsError, FileNotFoundError, NotADirectoryError) as exc:
                if not self.force:
                    raise FileChanged(str(exc)) from exc
            else:
                self._undo_later(entry.file, lambda: atomic_write(
                    path, old, mtime_ns=replaced.mtime_ns, mode=replaced.mode, expected=put,
                    root=rd))
                return
        self._displace_then(step, lambda: atomic_write(
            path, data, mtime_ns=before.mtime_ns, mode=before.mode, exclusive=True, root=rd),
            put)

    def _remove_created(self, step: Step) -> None:
        entry = step.entry
        assert isinstance(step.current, FileStat)
        made = step.current
        displaced = statedir.displaced(self.run_dir, entry.step, entry.file)
        # What the run made goes to undone/; bytes changed since (forced) to displaced/.
        dest = statedir.undone(self.run_dir, entry.file) if step.state == "todo" else displaced
        try:
            moved = take_out(self.rd, entry.file, dest, made)
        except FileChanged:
            if not self.force:
                raise
            moved = take_out(self.rd, entry.file, displaced)
        if moved is None:
            return
        target, was = moved
        if step.state != "todo" or not same_file(was, made):
            self.result.displaced[entry.file] = str(target)
        self._undo_later(entry.file, lambda: place_back(self.rd, target, entry.file, was))

    def _unarchive(self, step: Step) -> None:
        entry = step.entry
        archived = self.copies.archived[entry.file]
        source = statedir.archived(self.run_dir, entry.file)
        expected = FileStat(entry.file, archived.size, archived.mtime_ns, archived.mode,
                            archived.sha256)

        def back() -> None:  # into the archive again, under its own name
            moved = take_out(self.rd, entry.file, source, expected)
            if moved is not None and moved[0] != source:
                raise FileExistsError(errno.EEXIST, "archive name taken", str(source))

        if step.state == "todo":
            try:
                place_back(self.rd, source, entry.file, expected)
            except (FileChanged, FileExistsError):
                if not self.force:
                    raise  # a file appeared where the archived one goes back
            else:
                self._undo_later(entry.file, back)
                return
        self._displace_then(step, lambda: place_back(self.rd, source, entry.file, expected),
                            expected, back=back)

    # -- forced steps and putting back ---------------------------------------------------

    def _displace_then(self, step: Step, put: Callable[[], None], result: FileStat,
                       back: Callable[[], None] | None = None) -> None:
        """Forced: move what is at the file's name now into ``displaced/``, then ``put`` the
        old bytes there (never over a file: one a live session recreates meanwhile is moved
        aside too)."""
        entry, rd = step.entry, self.rd
        dest = statedir.displaced(self.run_dir, entry.step, entry.file)
        aside: list[tuple[Path, FileStat]] = []
        try:
            for _ in range(TRIES):
                moved = take_out(rd, entry.file, dest)
                if moved is not None:
                    aside.append(moved)
                    self.result.displaced[entry.file] = str(moved[0])
                try:
                    put()
                except (FileExistsError, FileChanged):
                    continue
                break
            else:
                raise FileChanged(f"{entry.file}: kept being recreated during the undo")
        except BaseException:
            try:
                self._put_back_aside(entry.file, aside)
            except (ConsolidatorError, OSError, ReadProblem):
                pass  # a session's file is there now: what was moved aside stays aside
            raise

        def inverse() -> None:
            if back is not None:
                back()
            else:  # the restored copy goes into undone/, what was there comes back
                take_out(rd, entry.file, statedir.undone(self.run_dir, entry.file), result)
            self._put_back_aside(entry.file, aside)
        self._undo_later(entry.file, inverse)

    def _put_back_aside(self, rel: str, aside: list[tuple[Path, FileStat]]) -> None:
        if aside:  # the latest is what the root had; earlier ones stay in displaced/
            target, _was = aside[-1]
            place_back(self.rd, target, rel)
            if len(aside) == 1:
                self.result.displaced.pop(rel, None)

    def _undo_later(self, rel: str, inverse: Callable[[], None]) -> None:
        self.inverse.append((rel, inverse))

    def _fail(self, step: Step, exc: BaseException) -> NoReturn:
        """Put back every step this undo did, newest first, then raise."""
        left = []
        for rel, inverse in reversed(self.inverse):
            try:
                inverse()
            except (ConsolidatorError, OSError, ReadProblem):
                left.append(rel)  # changed since this undo wrote it: a session's, kept
        done = len(self.inverse)
        kept = (f"; {', '.join(sorted(set(left)))} changed meanwhile and "
                "stay as they are now") if left else ""
        if isinstance(exc, (FileChanged, FileExistsError)) and not left:
            raise UndoRefused([step.entry.file], "changed during the undo") from exc
        raise UndoFailed(f"undo stopped at {step.entry.file}: {exc}; the {done} step(s) it "
                         f"had done were put back{kept}") from exc


def undo(root: Path, run_dir: Path, force: bool = False, keep_newer: bool = False,
         journal: RunJournal | None = None, copies: Copies | None = None) -> UndoResult:
    """Restore ``root`` to its bytes before the run journaled in ``run_dir``.

    ``force``: also restore files changed since (their current bytes are kept aside).
    ``keep_newer``: leave files changed since as they are (crash recovery: a live session
    wrote them after the interrupted run did).

    Raises :class:`JournalDamaged` or :class:`BackupDamaged` (nothing changed),
    :class:`UndoRefused` or :class:`NotRegular` (nothing changed), :class:`UndoFailed`
    (a step failed; the others were put back). The caller holds the root's lock.
    ``journal`` and ``copies``: already read and checked (:func:`load`, :func:`check_copies`).
    """
    journal = journal if journal is not None else load(run_dir)
    copies = copies if copies is not None else check_copies(run_dir, journal)
    with RootDir(root) as rd:
        steps = plan_steps(rd, journal, copies, keep_newer)
        if copies.problems:
            raise BackupDamaged(run_dir, copies.problems)
        conflicts = sorted({s.entry.file for s in steps if s.state == "conflict"})
        if conflicts and not (force or keep_newer):
            raise UndoRefused(conflicts)
        odd = sorted({s.entry.file for s in steps if s.state == "conflict"
                      and s.current == OTHER and s.entry.op != "create"})
        if odd and force and not keep_newer:
            raise NotRegular(odd)
        undoer = _Undoer(rd, run_dir, copies, force and not keep_newer, keep_newer)
        result = undoer.run(steps)
    result.conflicts = sorted(set(result.conflicts) | set(conflicts))
    return result


@dataclass
class Undone:
    """What :func:`undo_run` did on one root."""

    root: Path
    result: UndoResult | None  # None: the run was already undone


def undo_run(root: Path, run_dir: Path, *, force: bool, stale_minutes: int,
             when: str) -> Undone:
    """``consolidator undo`` on one root: take the root's locks (both files, as a run
    does; raises :class:`LockHeld`), undo, mark the run undone, and put Claude Code's
    "last consolidated" back to before that run when it still records it."""
    state = statedir.state_of_run(run_dir)
    held = RootLock(root, stale_minutes, state)
    try:
        held.acquire()
    except BaseException:
        try:
            held.rollback()  # whatever part of the lock it took goes back as it was
        finally:
            held.release()
        raise
    try:
        journal = load(run_dir)
        if journal.undone and not force:
            return Undone(root, None)
        result = undo(root, run_dir, force=force, journal=journal)
        record = Journal(run_dir)
        if journal.closed is None:
            record.close("rolled back")  # an interrupted run: recovery need not look again
        record.mark_undone(when)
        held.rollback()  # an undo is not a consolidation: the lock's mtime goes back
        meta = journal.meta
        if isinstance(meta.get("started_ns"), int):
            before = meta.get("lock_before_ns")
            forget_run(root, meta["started_ns"], before if isinstance(before, int) else None,
                       state)
        return Undone(root, result)
    finally:
        try:
            held.rollback()  # a no-op once done
        finally:
            held.release()
