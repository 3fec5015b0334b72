"""The plan: typed actions, each with its payload, and what decide found.

Values only; nothing here reads or writes a file. An action carries everything it takes to
apply it later, in another process: the bytes it writes, the mtime it gives, and the exact
state (size, mtime, mode, hash) of every file it touches, so that applying it to a file that
has moved on since is refused. Actions serialize to JSON for the proposal, the report and the
journal, and come back from it unchanged.

Every action is *safe* (mechanical and lossless: a merge of a memory another already holds
line for line, the index's rebuild, links repointed at a survivor) or a *judgment*
(archiving on any evidence, rewriting relative dates, anything a model decided).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar

from consolidator.detect.findings import Conflict, Duplicate, MemoryInfo, Similar, Stale
from consolidator.store.model import FileStat

if TYPE_CHECKING:
    from consolidator.index.rebuild import IndexPlan

SAFE, JUDGMENT = "safe", "judgment"
KINDS = (SAFE, JUDGMENT)


@dataclass(frozen=True, slots=True, kw_only=True)
class Action:
    """One change to the root. ``before``: the state of every file it touches, as it must
    be when the action is applied (a file it creates is absent and not listed)."""

    op: ClassVar[str] = ""
    file: str
    reason: str
    kind: str = SAFE
    sources: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()  # the lines it rests on; a rewrite gives "before -> after"
    before: tuple[FileStat, ...] = ()
    needs: tuple[str, ...] = ()  # files whose earlier actions in the same plan must apply first

    def touches(self) -> tuple[str, ...]:
        """Every file this action changes or moves."""
        return tuple(dict.fromkeys((self.file, *self.sources)))

    def state_of(self, rel: str) -> FileStat | None:
        return next((s for s in self.before if s.rel == rel), None)

    def to_json(self, *, payload: bool = True) -> dict[str, Any]:
        """The action as JSON; ``payload=False`` leaves out the bytes it writes (a report)."""
        out: dict[str, Any] = {"op": self.op}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "data":
                if payload:
                    out["content"] = value.decode("utf-8", "surrogateescape")
            elif f.name == "before":
                if payload:
                    out["before"] = [_stat_json(s) for s in value]
            elif f.name == "needs" and not value:
                continue
            elif isinstance(value, tuple):
                out[f.name] = list(value)
            else:
                out[f.name] = value
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Written(Action):
    """An action that writes a file whole: ``data`` are its new bytes, ``mtime_ns`` its mtime."""

    data: bytes
    mtime_ns: int

    def after(self) -> FileStat:
        """The state of ``file`` once this action is applied."""
        old = self.state_of(self.file)
        mode = old.mode if old is not None else getattr(self, "mode", None) or 0o644
        return FileStat(self.file, len(self.data), self.mtime_ns, mode,
                        hashlib.sha256(self.data).hexdigest())


@dataclass(frozen=True, slots=True, kw_only=True)
class Merge(Written):
    """Write the survivor (``file``) with what it absorbs, then archive the other
    ``sources``. A source that changed meanwhile stays live."""

    op: ClassVar[str] = "merge"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rewrite(Written):
    """Replace a file's bytes (a memory, or the index)."""

    op: ClassVar[str] = "rewrite"


@dataclass(frozen=True, slots=True, kw_only=True)
class Create(Written):
    """A new file (a topic memory for index overflow, or a missing index)."""

    op: ClassVar[str] = "create"
    mode: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Archive(Action):
    """Move a memory, byte for byte, into the run's archive."""

    op: ClassVar[str] = "archive"
    successor: str = ""  # the memory that supersedes it, if any


OPS: dict[str, type[Action]] = {cls.op: cls for cls in (Merge, Rewrite, Create, Archive)}


def _stat_json(stat: FileStat) -> dict[str, Any]:
    return {"file": stat.rel, "size": stat.size, "mtime_ns": stat.mtime_ns, "mode": stat.mode,
            "sha256": stat.sha256}


class BadAction(ValueError):
    """JSON that is not an action this tool wrote."""


def action_from_json(data: Mapping[str, Any]) -> Action:
    """The action :meth:`Action.to_json` wrote; :class:`BadAction` for anything else."""
    try:
        cls = OPS[data["op"]]
        args: dict[str, Any] = {"kind": data["kind"]}
        for f in fields(cls):
            if f.name == "data":
                args["data"] = _text(data["content"]).encode("utf-8", "surrogateescape")
            elif f.name == "before":
                args["before"] = tuple(_stat_from(s) for s in _list(data.get("before", [])))
            elif f.name in data and f.type in ("tuple[str, ...]",):
                args[f.name] = tuple(_text(v) for v in _list(data[f.name]))
            elif f.name in data:
                args[f.name] = data[f.name]
        action = cls(**args)
        _check(action)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise BadAction(f"not an action: {exc}") from None
    return action


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{value!r} is not a list")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a number")
    return value


def _stat_from(data: Any) -> FileStat:
    return FileStat(_text(data["file"]), _int(data["size"]), _int(data["mtime_ns"]),
                    _int(data["mode"]), _text(data["sha256"]))


def _check(action: Action) -> None:
    if action.kind not in KINDS:
        raise BadAction(f"unknown kind {action.kind!r}")
    for name in ("file", "reason"):
        _text(getattr(action, name))
    if isinstance(action, Written):
        _int(action.mtime_ns)
    if isinstance(action, Create) and action.mode is not None:
        _int(action.mode)
    if isinstance(action, Archive):
        _text(action.successor)


def redirects(actions: Iterable[Action]) -> dict[str, str]:
    """Merged-away (or superseded) file -> the survivor that took its place."""
    out: dict[str, str] = {}
    for action in actions:
        if isinstance(action, Merge):
            out.update({s: action.file for s in action.sources if s != action.file})
        elif isinstance(action, Archive) and action.successor:
            out[action.file] = action.successor
    return out


MERGED_INTO = "merged into "  # the reason a merged-away source is archived with, + survivor


def leaving(actions: Iterable[Action]) -> dict[str, str]:
    """Files these actions move into the archive -> why (merged-away or stale)."""
    out: dict[str, str] = {}
    for action in actions:
        if isinstance(action, Archive):
            out[action.file] = action.reason
        elif isinstance(action, Merge):
            out.update({s: f"{MERGED_INTO}{action.file}" for s in action.sources
                        if s != action.file})
    return out


@dataclass(frozen=True, slots=True)
class Waiting:
    """A run's proposal: how many judgments it left for review."""

    run_id: str  # the run that made it (a dry run's keeps nothing: see dry_run)
    actions: int
    at: tuple[int, ...] = ()  # where each proposed action stands in the plan, in its order


@dataclass(frozen=True, slots=True)
class Plan:
    memories: tuple[MemoryInfo, ...] = ()
    duplicates: tuple[Duplicate, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    similar: tuple[Similar, ...] = ()
    stale: tuple[Stale, ...] = ()
    actions: tuple[Action, ...] = ()
    applied: tuple[bool, ...] = ()  # per action: applied (a dry run: a real run would)
    index: IndexPlan | None = None
    notes: tuple[str, ...] = field(default=())  # run-level remarks, e.g. a skipped check
    proposal: Waiting | None = None
    across: tuple[Duplicate, ...] = ()  # duplicates across scopes: reported, never merged
    plain_similar: tuple[Similar, ...] = ()  # with a note that has no frontmatter: reported

    def done(self) -> tuple[Action, ...]:
        """The actions applied (or that a real run would apply)."""
        return tuple(a for a, ok in zip(self.actions, self.applied, strict=False) if ok)

    def waiting(self) -> tuple[Action, ...]:
        """The actions not applied: judgments for review, and steps skipped."""
        flags = self.applied + (False,) * (len(self.actions) - len(self.applied))
        return tuple(a for a, ok in zip(self.actions, flags, strict=True) if not ok)

    def archived(self) -> dict[str, str]:
        return leaving(self.actions)

    def redirects(self) -> dict[str, str]:
        return redirects(self.actions)

    def with_actions(self, more: Iterable[Action], applied: Iterable[bool]) -> Plan:
        """This plan with ``more`` actions appended (and whether each applied)."""
        more = tuple(more)
        return replace(self, actions=self.actions + more,
                       applied=self.applied + tuple(applied))


Declined = tuple[str, str, tuple[tuple[str, str], ...]]  # op, file, (file, sha256) of each


def declined_key(action: Action) -> Declined:
    """What a declined judgment is known by: its op, its file and its files' hashes."""
    return (action.op, action.file, tuple(sorted((s.rel, s.sha256) for s in action.before)))
