"""The one executor: applies actions through the store, or, in a dry run, only says which
would apply. Nothing else knows whether a run is dry.

A run's safe actions, a run's whole plan under ``apply = "all"`` and ``consolidator apply``
all pass through :meth:`Executor.apply`. Each step re-checks its files against the state the
action recorded (``before``); a file that moved on since is left alone and reported. Order
keeps every step safe to stop after: a merge writes the survivor (which holds every line of
its sources) before it archives them, and a step whose ``needs`` did not land is not taken.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from consolidator.errors import FileChanged
from consolidator.plan import MERGED_INTO, Action, Archive, Create, Merge, Rewrite, Written
from consolidator.state import proposal as proposals
from consolidator.state.proposal import Proposal
from consolidator.stop import StopToken
from consolidator.store.frontmatter import BOM, ParseError, parse
from consolidator.store.model import FileStat, IndexFile, Memory, Snapshot, Unparsed
from consolidator.store.scan import scan
from consolidator.store.transaction import Transaction


class Executor:
    """Applies actions to one root. ``transaction``: opens the run's journaled writer on the
    first change (never called in a dry run)."""

    def __init__(self, root: Path, *, dry_run: bool, transaction: Callable[[], Transaction],
                 stop: StopToken | None = None) -> None:
        self.root = root
        self.dry_run = dry_run
        self._transaction = transaction
        self._stop = stop or StopToken()
        self.skipped: list[str] = []  # one line per step left alone
        self.kept: list[str] = []  # memories a merge folded in but left live (changed on disk)

    def apply(self, actions: Sequence[Action], chosen: Sequence[bool]) -> list[bool]:
        """Apply each chosen action in order; return whether each applied (a dry run: would)."""
        applied: list[bool] = []
        failed: set[str] = set()
        for action, wanted in zip(actions, chosen, strict=True):
            if not wanted:
                failed.add(action.file)  # what needs it waits with it
                applied.append(False)
                continue
            self._stop.check()
            if failed & set(action.needs):
                self.skipped.append(f"{action.file}: left as it is, what it depends on did "
                                    "not land")
                ok = False
            else:
                ok = True if self.dry_run else self._apply(action)
            if not ok:
                failed.add(action.file)
            applied.append(ok)
        return applied

    def after(self, snapshot: Snapshot, actions: Sequence[Action],
              applied: Sequence[bool]) -> Snapshot:
        """The root as these actions leave it: read again after a real run (so a step left
        alone is seen as it really is); in a dry run, worked out from the actions."""
        if not any(applied):
            return snapshot
        if not self.dry_run:
            return scan(self.root)
        return imagine(snapshot, [a for a, ok in zip(actions, applied, strict=True) if ok])

    def propose(self, state: Path, proposal: Proposal | None) -> bool:
        """Keep ``proposal`` as the root's proposal, replacing any older one (``None``: no
        change waits any more). A dry run keeps nothing; returns whether it was kept."""
        if self.dry_run:
            return False

        proposals.save(state, proposal)
        return True

    def _apply(self, action: Action) -> bool:
        tx = self._transaction()  # a journal that cannot open fails the root, not a step
        tx.journal.action(action.to_json(payload=False))
        try:
            if isinstance(action, Merge):
                return self._merge(tx, action)
            if isinstance(action, Archive):
                tx.archive(_before(action, action.file), action.reason)
            elif isinstance(action, Create):
                tx.create(action.file, action.data, action.mtime_ns, action.reason, action.mode)
            elif isinstance(action, Rewrite):
                tx.rewrite(_before(action, action.file), action.data, action.mtime_ns,
                           action.reason)
            else:
                raise TypeError(f"unknown action {action!r}")
        except FileChanged as exc:
            self.skipped.append(str(exc))
            return False
        except OSError as exc:
            if not isinstance(action, Create):
                raise
            self.skipped.append(f"{action.file}: {exc}")  # its name is taken: left out
            return False
        return True

    def _merge(self, tx: Transaction, action: Merge) -> bool:
        # A source its owner guards would stay live beside the survivor that now holds its
        # lines: the merge waits whole (each file is checked again as it is written).
        for source in action.sources:
            tx.guarded(source)
        tx.rewrite(_before(action, action.file), action.data, action.mtime_ns, action.reason)
        for source in action.sources:
            if source == action.file:
                continue
            self._stop.check()
            try:
                tx.archive(_before(action, source), f"{MERGED_INTO}{action.file}")
            except FileChanged as exc:
                self.skipped.append(str(exc))  # it stays live: nothing of it is lost
                self.kept.append(source)
        return True


def _before(action: Action, rel: str) -> FileStat:
    stat = action.state_of(rel)
    if stat is None:
        raise FileChanged(f"{rel}: the action recorded no state for it")
    return stat


def imagine(snapshot: Snapshot, actions: Sequence[Action]) -> Snapshot:
    """``snapshot`` as if ``actions`` had been applied (what a dry run plans from next)."""
    memories = {m.file: m for m in snapshot.memories}
    unparsed = {u.rel: u for u in snapshot.unparsed}
    index = snapshot.index
    names = set(snapshot.names)
    for action in actions:
        gone = [s for s in action.sources if s != action.file] if isinstance(action, Merge) \
            else [action.file] if isinstance(action, Archive) else []
        for rel in gone:
            memories.pop(rel, None)
            if "/" not in rel:
                names.discard(rel)
        if not isinstance(action, Written):
            continue
        if "/" not in action.file:
            names.add(action.file)
        if action.file == index.name:
            index = _index_after(index, action)
            continue
        unparsed.pop(action.file, None)
        try:
            memories[action.file] = Memory(action.after(), parse(action.data))
        except ParseError as exc:
            memories.pop(action.file, None)
            unparsed[action.file] = Unparsed(action.file, str(exc), action.after())
    return Snapshot(snapshot.root, tuple(memories.values()), tuple(unparsed.values()), index,
                    frozenset(names), snapshot.outside)


def _index_after(index: IndexFile, action: Written) -> IndexFile:
    bom = action.data.startswith(BOM)
    text = (action.data[len(BOM):] if bom else action.data).decode("utf-8")
    return IndexFile(text=text, stat=action.after(), bom=bom, name=index.name)
