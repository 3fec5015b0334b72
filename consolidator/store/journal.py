"""The run journal: every change written down (and fsynced) before it is made.

A run's folder in the state dir holds ``journal.jsonl`` (one JSON object per step: an
``intent`` line before the change, a ``done`` line after), ``backup/`` (the exact bytes of
every file before it was rewritten) and ``archive/`` (files moved out of the root). Undo
reads the journal backwards and puts every byte back.

The journal is read as bytes, one line at a time. A last line cut short by a crash (no
newline, or a character cut in half) is a step that never happened and is ignored; any other
line that is not a well-formed record makes the reader raise :class:`JournalDamaged`, naming
the file and the line, and nothing is undone from that journal.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from consolidator.errors import ConsolidatorError
from consolidator.state import statedir, statefiles
from consolidator.store.model import FileStat


@dataclass(frozen=True)
class Entry:
    step: int
    phase: str  # "intent" or "done"
    op: str  # "write" (rewrite a file), "create" (new file), "archive" (move out)
    file: str
    before: dict[str, Any] | None  # FileStat of the file before, None for a new file
    after_sha256: str | None = None
    reason: str = ""
    after_mtime_ns: int | None = None


def stat_dict(stat: FileStat | None) -> dict[str, Any] | None:
    return asdict(stat) if stat else None


AfterRecord = Callable[[], None]


class Journal:
    """Append-only, fsynced journal of one run on one root.

    ``after_record``: called once each record is on disk (tests use it to kill the process
    at an exact step; see :func:`crash_after`).
    """

    def __init__(self, run_dir: Path, after_record: AfterRecord | None = None) -> None:
        self.run_dir = run_dir
        self.path = statedir.journal(run_dir)
        self._step = 0
        self._after_record = after_record

    def open(self, meta: dict[str, Any]) -> None:
        statefiles.private_dir(self.run_dir)
        self._append({"meta": meta})

    def next_step(self) -> int:
        self._step += 1
        return self._step

    def intent(self, step: int, op: str, file: str, before: FileStat | None,
               after_sha: str | None, reason: str, after_mtime_ns: int | None = None) -> None:
        self._append(asdict(Entry(step, "intent", op, file, stat_dict(before), after_sha,
                                  reason, after_mtime_ns)))

    def done(self, step: int, op: str, file: str) -> None:
        self._append({"step": step, "phase": "done", "op": op, "file": file})

    def action(self, action: dict[str, Any]) -> None:
        """The plan's action the next steps carry out (its JSON, without the payload)."""
        self._append({"action": action})

    def mark_undone(self, when: str) -> None:
        self._append({"undone": when})

    def close(self, outcome: str) -> None:
        """Mark the run finished (``ok``, ``failed`` or ``rolled back``): not interrupted."""
        self._append({"closed": outcome})

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        statefiles.append(self.path, line.encode("utf-8"))
        if self._after_record is not None:
            self._after_record()


def crash_after(records: int) -> AfterRecord:
    """A hook that makes the process exit hard (as if SIGKILLed) right after the
    ``records``-th journal record of the process is on disk: fault injection for tests."""
    count = [0]

    def after_record() -> None:
        count[0] += 1
        if count[0] >= records:
            os._exit(137)

    return after_record




class JournalDamaged(ConsolidatorError):
    """A journal line that is not a record this tool wrote: nothing of that run is undone."""

    def __init__(self, path: Path, line: int, why: str) -> None:
        self.path = path
        self.line = line
        super().__init__(f"damaged journal {path}, line {line}: {why}; "
                         "nothing of that run was undone")


OPS = ("write", "create", "archive")
_SHA = re.compile(r"[0-9a-f]{64}")
_MARKS = ("closed", "undone")
_STAT_KEYS = {"rel": str, "size": int, "mtime_ns": int, "mode": int, "sha256": str}


@dataclass
class RunJournal:
    """One run's journal, read and checked."""

    path: Path
    meta: dict[str, Any] = field(default_factory=dict)
    intents: list[Entry] = field(default_factory=list)
    done: set[int] = field(default_factory=set)
    closed: str | None = None
    undone: bool = False
    actions: list[dict[str, Any]] = field(default_factory=list)  # what the steps carry out


def safe_rel(rel: object) -> TypeGuard[str]:
    """Whether ``rel`` is a relative POSIX path that stays below the folder it is joined to:
    no absolute path, no ``..``, ``.`` or empty component, no NUL."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\0" in rel:
        return False
    return all(part not in ("", ".", "..") for part in rel.split("/"))


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _stat_problem(before: object) -> str | None:
    if not isinstance(before, dict):
        return "'before' is not an object"
    for key, kind in _STAT_KEYS.items():
        value = before.get(key)
        if kind is int and not _is_int(value) or kind is str and not isinstance(value, str):
            return f"'before.{key}' is missing or not a {kind.__name__}"
    if before["size"] < 0 or not 0 <= before["mode"] <= 0o7777:
        return "'before' has an impossible size or mode"
    if not _SHA.fullmatch(before["sha256"]):
        return "'before.sha256' is not a SHA-256"
    return None


def _intent(record: dict[str, Any]) -> Entry | str:
    """The entry an intent record stands for, or why it is not one."""
    step, op, rel, before = (record.get(k) for k in ("step", "op", "file", "before"))
    if not _is_int(step) or step < 1:
        return "'step' is not a positive whole number"
    if op not in OPS:
        return f"'op' is not one of {', '.join(OPS)}"
    if not safe_rel(rel):
        return "'file' is not a relative path inside the memory dir"
    if op == "create":
        if before is not None:
            return "a create has a 'before'"
    else:
        why = _stat_problem(before)
        if why:
            return why
    after = record.get("after_sha256")
    if not isinstance(after, str) or not _SHA.fullmatch(after):
        return "'after_sha256' is not a SHA-256"
    reason = record.get("reason", "")
    after_mtime = record.get("after_mtime_ns")
    if not isinstance(reason, str) or not (after_mtime is None or _is_int(after_mtime)):
        return "'reason' or 'after_mtime_ns' has the wrong type"
    return Entry(step, "intent", op, rel, dict(before) if before else None, after, reason,
                 after_mtime)


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(raw.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is one
        return None
    return record if isinstance(record, dict) else None


def _is_mark(record: dict[str, Any] | None) -> bool:
    return (record is not None and len(record) == 1
            and any(isinstance(record.get(k), str) for k in _MARKS))


def _split_mark(raw: bytes) -> dict[str, Any] | None:
    """A close or undo mark an older version appended right after a torn record, on the
    same line (it did not end the torn line first)."""
    for key in _MARKS:
        at = raw.rfind(b'{"' + key.encode() + b'"')
        if at > 0:
            record = _parse(raw[at:])
            if _is_mark(record):
                return record
    return None


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, record) of every whole record; raises :class:`JournalDamaged`.

    A line that does not parse is a record torn by a crash when nothing but close and undo
    marks follows it (they are all that is ever appended to a dead run's journal);
    anywhere else it is damage.
    """
    lines = path.read_bytes().split(b"\n")
    if lines and not lines[-1]:
        lines.pop()  # the file ends with a newline, as it should
    parsed = [_parse(raw) if raw.strip() else None for raw in lines]
    out: list[tuple[int, dict[str, Any]]] = []
    marks_after = True  # every line after the current one is a mark (or blank)
    for index in range(len(lines) - 1, -1, -1):
        raw, record, number = lines[index], parsed[index], index + 1
        if not raw.strip():
            continue
        if record is None:
            if not marks_after:
                raise JournalDamaged(path, number, "not a JSON object (UTF-8)")
            mark = _split_mark(raw)
            if mark is not None:
                out.append((number, mark))
            continue  # torn by a crash: the step never happened
        out.append((number, record))
        marks_after = marks_after and _is_mark(record)
    out.reverse()
    return out


def load(run_dir: Path) -> RunJournal:
    """Read and check ``run_dir``'s journal; raises :class:`JournalDamaged` (or OSError)."""
    path = statedir.journal(run_dir)
    journal = RunJournal(path)
    steps: dict[int, str] = {}
    for number, record in _records(path):
        if _is_mark(record):
            if "closed" in record:
                journal.closed = record["closed"]
            else:
                journal.undone = True
        elif set(record) == {"action"}:
            if not isinstance(record["action"], dict):
                raise JournalDamaged(path, number, "'action' is not an object")
            journal.actions.append(record["action"])
        elif set(record) == {"meta"}:
            if not isinstance(record["meta"], dict):
                raise JournalDamaged(path, number, "'meta' is not an object")
            journal.meta = record["meta"]
        elif record.get("phase") == "intent":
            entry = _intent(record)
            if isinstance(entry, str):
                raise JournalDamaged(path, number, entry)
            if entry.step in steps:
                raise JournalDamaged(path, number, f"step {entry.step} is journaled twice")
            steps[entry.step] = entry.file
            journal.intents.append(entry)
        elif record.get("phase") == "done":
            step = record.get("step")
            if not _is_int(step) or steps.get(step) != record.get("file"):
                raise JournalDamaged(path, number, "a 'done' record for no journaled step")
            journal.done.add(step)
        else:
            raise JournalDamaged(path, number, "not a journal record")
    return journal


def _has_mark(run_dir: Path, key: str) -> bool:
    """Whether any line of the journal is the mark ``key``; the rest is not read (a damaged
    journal is reported by whatever reads its steps)."""
    try:
        data = (statedir.journal(run_dir)).read_bytes()
    except FileNotFoundError:
        return False
    needle = b'{"' + key.encode() + b'"'
    if needle not in data:
        return False
    for raw in data.split(b"\n"):
        record = _parse(raw) if needle in raw else None
        if record is None and needle in raw:
            record = _split_mark(raw)
        if _is_mark(record) and record is not None and key in record:
            return True
    return False


def closed_as(run_dir: Path) -> str | None:
    """How the run's journal closed ("ok", "stopped", ...), read from its last line alone;
    ``None`` while it is open or when the last line is no close mark."""
    try:
        with open(statedir.journal(run_dir), "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 4096))
            tail = fh.read()
    except OSError:
        return None
    record = _parse(tail.rstrip(b"\n").rpartition(b"\n")[2])
    closed = record.get("closed") if _is_mark(record) and record is not None else None
    return closed if isinstance(closed, str) else None


def is_closed(run_dir: Path) -> bool:
    """True when the run's journal says it finished (an interrupted run never says so)."""
    return _has_mark(run_dir, "closed")
