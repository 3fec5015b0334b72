"""The values the store hands to the phases: files as they were when scanned."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from consolidator.clock import epoch_ns, now_ns
from consolidator.store.frontmatter import Document

INDEX_NAME = "MEMORY.md"
MEMORY_TYPES = ("user", "feedback", "project", "reference")
MODIFIED = "modified"  # the frontmatter key Claude Code stamps on every memory write


def modified_ns(value: str | None) -> int | None:
    """A ``modified`` value (``2026-11-25T10:00:00.000Z``; a time without a zone is UTC) as
    epoch nanoseconds, or ``None`` when it is missing or not an ISO 8601 time."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.strip().strip("'\""))
    except ValueError:
        return None
    return epoch_ns(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


_DAY_NS = 86_400 * 10**9
_EPOCH_NS = 365 * _DAY_NS  # 1971: a date can be counted back from any time after it


def plausible_stamp(stamped: int | None) -> bool:
    """Whether a ``modified`` stamp can be the time of a write: not in the future (a day of
    clock skew aside) and after 1970. A stamp ahead of the clock, or one a hand typed
    (``9999-12-31``), dates nothing; the file's mtime does. A stamp newer than the mtime is
    no sign of either: a checkout or a sync may leave older mtimes."""
    return stamped is not None and _EPOCH_NS <= stamped <= now_ns() + _DAY_NS


@dataclass(frozen=True, slots=True)
class FileStat:
    """One file as scanned: where, how big, when, and its bytes' hash."""

    rel: str  # POSIX path relative to the root
    size: int
    mtime_ns: int
    mode: int
    sha256: str
    # Names the file has (hard links): what the scan saw, never part of "unchanged".
    nlink: int = field(default=1, compare=False)

    @property
    def guarded(self) -> str:
        """Why a run must not replace or move this file (see :func:`guard`), "" if it may."""
        return guard(self.mode, self.nlink)


def guard(mode: int, nlink: int) -> str:
    """Why a run must not replace or move a file its owner guards ("" when it may): a
    write-protected file (a rename needs only the folder's permission, so the tool would
    step over the protection), or one with another hard link (a new file under one name would
    silently split the two). Undo and rollback put bytes back whatever this says."""
    if not mode & 0o200:  # the owner's write permission
        return "write-protected (its owner may not write it)"
    if nlink > 1:
        return f"it has {nlink} hard links (another name shares its bytes)"
    return ""


@dataclass(frozen=True, slots=True)
class Memory:
    """A file with parseable frontmatter: the only kind ever merged, archived or rewritten."""

    stat: FileStat
    doc: Document

    @property
    def file(self) -> str:
        return self.stat.rel

    @property
    def stem(self) -> str:
        return Path(self.stat.rel).stem

    @property
    def name(self) -> str:
        return self.doc.fields.get("name", "").strip() or self.stem

    @property
    def description(self) -> str:
        return self.doc.fields.get("description", "").strip()

    @property
    def type(self) -> str | None:
        return self.doc.memory_type

    @property
    def modified_ns(self) -> int | None:
        """Claude Code's own ``modified`` stamp (every memory write since 2.1.214, at the
        top of the frontmatter or under ``metadata:``), or ``None`` where the frontmatter has
        none, not an ISO 8601 time, or one no write can have stamped (see
        :func:`plausible_stamp`)."""
        stamped = modified_ns(self.doc.fields.get(self.doc.key_of(MODIFIED)))
        return stamped if plausible_stamp(stamped) else None

    @property
    def written_ns(self) -> int:
        """When the memory was last written, for every judgment of age: its ``modified``
        stamp where it has one (copies, checkouts and syncs reset a file's mtime, not the
        stamp), else its mtime."""
        stamped = self.modified_ns
        return self.stat.mtime_ns if stamped is None else stamped

    @property
    def body(self) -> str:
        return self.doc.body


@dataclass(frozen=True, slots=True)
class Unparsed:
    """A file that is reported and left byte for byte alone (``secrets``: the kinds of
    credential its text seems to hold, as the scan phase found them; ``links``: for a
    folder's own index, the files its links point to, which must not move out from under it).
    """

    rel: str
    error: str
    stat: FileStat | None = None
    secrets: tuple[str, ...] = ()
    links: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class IndexFile:
    """The index as scanned; ``text`` is ``None`` when it is missing or unreadable.

    ``name`` is the file name it really has at the root: ``MEMORY.md``, or a case variant
    (``memory.md``) a user made, which is rewritten in place. When there is no index it is
    ``MEMORY.md``, the name a new one gets.
    """

    text: str | None
    stat: FileStat | None
    error: str | None = None
    bom: bool = False
    name: str = INDEX_NAME
    secrets: tuple[str, ...] = ()  # kinds of credential its text seems to hold


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything the scan read from one root."""

    root: Path
    memories: tuple[Memory, ...]
    unparsed: tuple[Unparsed, ...]
    index: IndexFile
    names: frozenset[str] = frozenset()  # every entry of the root's top folder, by name
    # .md files in the folders set apart (team/, logs/): not this root's memories, but there
    outside: frozenset[str] = frozenset()

    def by_file(self) -> dict[str, Memory]:
        return {m.file: m for m in self.memories}

    def without_bodies(self) -> Snapshot:
        """What a report needs of a finished scan: the index and the unparsed files, not the
        memories themselves (on a large root they are most of the memory in use)."""
        return Snapshot(self.root, (), self.unparsed, self.index, self.names, self.outside)

    def existing_files(self) -> set[str]:
        """Every ``.md`` entry present, relative to the root: memories and everything the scan
        listed but did not parse (a symlink, a file over the size cap, one it could not read
        or parse), and the files of the folders set apart (``team/``, ``logs/``). Existing is
        existing: a pointer to any of them is not a dead link."""
        return {m.file for m in self.memories} | {u.rel for u in self.unparsed} | self.outside
