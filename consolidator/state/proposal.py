"""A run's proposal: the judgments it left for a person to review, kept per root.

A proposal names its run, and numbers each action (1, 2, ...) with its kind, its file, its
evidence and the exact state (size, mtime, mode, hash) of every file it touches, as the run
left them. Only an action whose files are still in that state can be applied; a newer run's
proposal replaces the older one. Each action's status moves from ``waiting`` to ``applied``,
``declined`` or ``refused`` (its files changed since); a declined judgment is remembered, and
not proposed again while its files are unchanged.

The file is JSON written by this user alone: one that is damaged, foreign, or writable by
others is refused, never trusted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from consolidator.errors import ConsolidatorError, UsageError
from consolidator.plan import Action, BadAction, Declined, action_from_json, declined_key
from consolidator.state import statedir, statefiles
from consolidator.state.statedir import APPLIED, DECLINED, REFUSED, WAITING
from consolidator.store.model import FileStat, Snapshot

FORMAT = 1
STATUSES = (WAITING, APPLIED, DECLINED, REFUSED)


class ProposalDamaged(ConsolidatorError):
    """A proposal file this tool cannot trust: nothing in it is applied."""


@dataclass(frozen=True)
class Item:
    number: int
    action: Action
    status: str = WAITING
    note: str = ""  # why it was refused


@dataclass(frozen=True)
class Proposal:
    run_id: str
    memory_dir: str
    created_at: str
    items: tuple[Item, ...]

    def waiting(self) -> tuple[Item, ...]:
        return tuple(i for i in self.items if i.status == WAITING)

    def pick(self, only: Sequence[int] | None = None,
             without: Sequence[int] = ()) -> tuple[Item, ...]:
        """The waiting items chosen by number; :class:`UsageError` for a number that names
        no action, or one that no longer waits."""
        numbers = {i.number: i for i in self.items}
        for n in [*(only or ()), *without]:
            if n not in numbers:
                count = len(self.items)
                raise UsageError(f"run {self.run_id} has no action {n} (it has "
                                 + (f"1-{count})" if count > 1 else "only action 1)"))
        for n in only or ():
            if numbers[n].status != WAITING:
                raise UsageError(f"action {n} of run {self.run_id} is {numbers[n].status}, "
                                 "not waiting")
        wanted = set(only) if only else set(numbers)
        chosen = [i for i in self.waiting() if i.number in wanted and i.number not in without]
        return self._with_needs(chosen)

    def blocked(self, item: Item) -> str | None:
        """Why ``item`` cannot apply on its own: an item it needs was declined or refused."""
        for other in self.items:
            if other.action.file in item.action.needs and other.status in (DECLINED, REFUSED):
                return (f"it needs action {other.number} ({other.action.file}), which was "
                        f"{other.status}")
        return None

    def _with_needs(self, chosen: list[Item]) -> tuple[Item, ...]:
        """``chosen`` plus each waiting item an item needs first (the topic memory an index
        fit moves lines into, the note a superseding memory writes before the archive)."""
        picked = {i.number for i in chosen}
        todo = list(chosen)
        while todo:
            needs = set(todo.pop().action.needs)
            for item in self.waiting():
                if item.number not in picked and item.action.file in needs:
                    picked.add(item.number)
                    todo.append(item)
        return tuple(i for i in self.waiting() if i.number in picked)

    def index_group(self, index_name: str) -> list[Item]:
        """The waiting items that change the index: its rewrite and what that needs."""
        rewrites = [i for i in self.waiting() if i.action.file == index_name]
        needs = {f for i in rewrites for f in i.action.needs}
        return [i for i in self.waiting() if i in rewrites or i.action.file in needs]

    def with_index(self, index_name: str, fresh: Sequence[Action], why: str) -> Proposal:
        """This proposal with its waiting index changes planned afresh as ``fresh`` (an apply
        changed the index they were planned on): the same numbers when there are as many,
        else the old ones refused with ``why`` and the new ones numbered after the rest."""
        group = self.index_group(index_name)
        if not group:
            return self
        if len(group) == len(fresh):
            swap = {i.number: a for i, a in zip(group, fresh, strict=True)}
            return replace(self, items=tuple(replace(i, action=swap[i.number])
                                             if i.number in swap else i for i in self.items))
        old = {i.number for i in group}
        items = [replace(i, status=REFUSED, note=why) if i.number in old else i
                 for i in self.items]
        items += [Item(len(items) + n, a) for n, a in enumerate(fresh, 1)]
        return replace(self, items=tuple(items))

    def settled(self, status: Mapping[int, tuple[str, str]]) -> Proposal:
        """This proposal with the given items' (status, note) set."""
        items = tuple(replace(i, status=status[i.number][0], note=status[i.number][1])
                      if i.number in status else i for i in self.items)
        return replace(self, items=items)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "run_id": self.run_id, "memory_dir": self.memory_dir,
            "created_at": self.created_at,
            "actions": [{"number": i.number, "status": i.status, "note": i.note,
                         **i.action.to_json()} for i in self.items],
        }


def build(run_id: str, root: Path, created_at: str, actions: Sequence[Action],
          final: Snapshot) -> tuple[Proposal | None, list[int], list[str]]:
    """The proposal for the actions a run did not apply, which of ``actions`` it holds (by
    position), and a note for each one left out because this run's own steps changed its
    files (the next run proposes it afresh)."""
    items: list[Item] = []
    kept: list[int] = []
    notes: list[str] = []
    states = states_of(final)
    for at, action in enumerate(actions):
        problem = moved_on(action, states)
        if problem:
            notes.append(f"{action.op} {action.file} not proposed: {problem}; the next run "
                         "looks again")
            continue
        items.append(Item(len(items) + 1, action))
        kept.append(at)
    if not items:
        return None, kept, notes
    return Proposal(run_id, str(root), created_at, tuple(items)), kept, notes


def moved_on(action: Action, states: Mapping[str, FileStat],
             unreadable: Mapping[str, str] | None = None) -> str | None:
    """Why ``action`` can no longer be applied to the root whose files are in ``states``
    (see :func:`states_of`), or ``None``: a file it touches changed (or went, or is there
    but cannot be read: ``unreadable``, see :func:`unreadable_of`) since the state it
    recorded, or a file it creates exists."""
    for before in action.before:
        now = states.get(before.rel)
        if now is None:
            why = (unreadable or {}).get(before.rel)
            return f"{before.rel} cannot be read now ({why})" if why else f"{before.rel} is gone"
        if (now.size, now.mtime_ns, now.sha256) != (before.size, before.mtime_ns, before.sha256):
            return f"{before.rel} changed since"
    if not action.before and action.file in states:
        return f"{action.file} exists now"
    return None


def states_of(snapshot: Snapshot) -> dict[str, FileStat]:
    """Every file of ``snapshot`` with its state, by its path in the root."""
    out = {m.file: m.stat for m in snapshot.memories}
    out.update({u.rel: u.stat for u in snapshot.unparsed if u.stat is not None})
    if snapshot.index.stat is not None:
        out[snapshot.index.name] = snapshot.index.stat
    return out


def unreadable_of(snapshot: Snapshot) -> dict[str, str]:
    """The files of ``snapshot`` that are there but could not be read, each with why."""
    out = {u.rel: u.error for u in snapshot.unparsed if u.stat is None}
    if snapshot.index.error is not None:
        out[snapshot.index.name] = snapshot.index.error
    return out


# ----------------------------------------------------------------------------- storage


def save(state: Path, proposal: Proposal | None) -> None:
    """Keep ``proposal`` as the root's proposal (``None``: nothing waits any more)."""
    path = statedir.proposal(state)
    if proposal is None:
        statefiles.remove(path)
        return
    data = json.dumps(proposal.to_json(), ensure_ascii=True, indent=1) + "\n"
    statefiles.replace(path, data.encode("ascii"))


def load(state: Path) -> Proposal | None:
    """The root's proposal, or ``None``; :class:`ProposalDamaged` for one not to trust."""
    path = statedir.proposal(state)
    try:
        raw = statefiles.read_private(path)
    except statefiles.Foreign as exc:
        raise ProposalDamaged(f"proposal refused: {exc}") from None
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a proposal of this format")
        items = []
        for n, entry in enumerate(data["actions"], 1):
            if entry.get("number") != n or entry.get("status") not in STATUSES:
                raise ValueError(f"action {n} is not numbered or has no status")
            items.append(Item(n, action_from_json(entry), entry["status"],
                              str(entry.get("note", ""))))
        proposal = Proposal(str(data["run_id"]), str(data["memory_dir"]),
                            str(data["created_at"]), tuple(items))
        statedir.check_run_id(proposal.run_id)
    except (ValueError, KeyError, TypeError, BadAction, UsageError) as exc:
        raise ProposalDamaged(f"{path} is damaged: {exc}") from None
    return proposal


def decline(state: Path, items: Iterable[Item]) -> None:
    """Remember declined judgments, so none comes back while its files are unchanged."""
    lines = [json.dumps(list(_key_json(declined_key(i.action))), ensure_ascii=True) + "\n"
             for i in items]
    if lines:
        statefiles.append(statedir.declined(state), "".join(lines).encode("ascii"))


def declined(state: Path) -> frozenset[Declined]:
    """Every judgment declined for this root (a line that does not read is passed over),
    those an earlier build kept under another name included."""
    raw = b""
    for path in (statedir.declined(state), statedir.declined_before(state)):
        try:
            raw += (statefiles.read_private(path) or b"") + b"\n"
        except (statefiles.Foreign, OSError):
            continue
    out = set()
    for line in raw.splitlines():
        try:
            op, file, files = json.loads(line)
            out.add((str(op), str(file), tuple((str(f), str(h)) for f, h in files)))
        except (ValueError, TypeError):
            continue
    return frozenset(out)


def _key_json(key: Declined) -> tuple[str, str, list[list[str]]]:
    op, file, files = key
    return op, file, [list(pair) for pair in files]
