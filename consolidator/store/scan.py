"""Reading a root the way Claude Code does: every ``*.md`` but ``MEMORY.md``, recursively.

The root's index is ``MEMORY.md``, or, when there is none, a case variant of it such as
``memory.md`` (on macOS and Windows the same file): that one is read as the index and is
never also a memory.

Symlinks are never followed (a link could lead out of the root or into a loop); FIFOs,
sockets and devices are never opened; files over 1 MiB are never read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat as stat_mod
from collections.abc import Iterable, Iterator
from pathlib import Path

from consolidator.store.frontmatter import BOM, ParseError, parse
from consolidator.store.model import (
    INDEX_NAME,
    FileStat,
    IndexFile,
    Memory,
    Snapshot,
    Unparsed,
)
from consolidator.store.names import fold

MAX_FILE_BYTES = 1024 * 1024
# An index far past Claude Code's 25 KB is exactly what the rebuild is for: read it up to here.
MAX_INDEX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
# Top-level folders that hold no memory of this root: the team scope (a root of its own,
# synced to the whole team: nothing crosses between the two) and assistant mode's daily logs
# (raw material for a later distillation, not memories).
APART = ("team", "logs")
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_INDEX_KEY = fold(INDEX_NAME)


class ReadProblem(Exception):
    """A file could not be read safely; the message says why."""


def read_regular(
    path: Path | str, limit: int = MAX_FILE_BYTES, *, dir_fd: int | None = None
) -> tuple[bytes, os.stat_result]:
    """Read a regular file without following a symlink or blocking on a FIFO.

    ``dir_fd``: ``path`` is a name in the folder open as this descriptor.
    Raises :class:`ReadProblem` for anything else, or when the file is over ``limit`` bytes.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise ReadProblem(_why(exc)) from None
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            raise ReadProblem("not a regular file")
        if st.st_size > limit:
            raise ReadProblem(f"larger than {limit // 1024} KiB ({st.st_size} bytes)")
        chunks = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise ReadProblem(f"larger than {limit // 1024} KiB")
        return data, st
    finally:
        os.close(fd)


SYMLINK = "symbolic link, not followed"
# A folder's own MEMORY.md: an index of its notes, not a memory: the user's index of that
# folder, or the index of a store of its own (each agent's folder under `agent-memory/`,
# which Claude Code loads for that agent). Read for its links and secrets, left as it is.
NESTED_INDEX = "an index of its folder, not a memory (left as it is)"


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return SYMLINK
    return exc.strerror or str(exc)


def file_stat(rel: str, data: bytes, st: os.stat_result) -> FileStat:
    return FileStat(
        rel=rel,
        size=len(data),
        mtime_ns=st.st_mtime_ns,
        mode=stat_mod.S_IMODE(st.st_mode),
        sha256=hashlib.sha256(data).hexdigest(),
        nlink=st.st_nlink,
    )


def pick_index(entries: Iterable[os.DirEntry[str]]) -> str | None:
    """The name of the index among a root's entries, or ``None`` when it has none.

    ``MEMORY.md`` whatever it is (a link or a FIFO is reported by :func:`read_index`);
    else the first name, in sorted order, that folds to it (``memory.md``, ``Memory.md``, an
    NFD spelling) and is not a folder. Other variants stay ordinary files. No file is stat'ed.
    """
    found: str | None = None
    for entry in entries:
        name = entry.name
        if name == INDEX_NAME:
            return name
        if ((found is None or name < found) and fold(name) == _INDEX_KEY
                and not entry.is_dir(follow_symlinks=False)):
            found = name
    return found


def find_index(root: Path) -> str | None:
    """The index's name at ``root`` (one listing, no stat), or ``None`` when there is none."""
    try:
        with os.scandir(root) as entries:
            return pick_index(entries)
    except OSError:
        # A root that cannot be listed may still let a known name be opened.
        return INDEX_NAME if os.path.lexists(root / INDEX_NAME) else None


def walk(
    root: Path, index_name: str | None = None
) -> Iterator[tuple[str, os.DirEntry[str] | None, str | None]]:
    """Yield ``(rel, entry, problem)`` for every ``*.md`` under ``root`` except index files.

    Index files are the root's index (``index_name``, else the one :func:`pick_index` finds
    in the root's listing) and every other file named ``MEMORY.md`` (a folder's, yielded with
    :data:`NESTED_INDEX` as its problem: it is there, but no memory). ``problem`` is set (and
    ``entry`` may be ``None``) for what must not be opened. No file is opened or stat'ed.
    """
    stack: list[tuple[Path, str, int]] = [(root, "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield prefix or ".", None, f"folder unreadable: {exc.strerror or exc}"
            continue
        index = (index_name or pick_index(entries)) if depth == 0 else None
        subfolders = []
        for entry in entries:
            rel = prefix + entry.name
            if entry.name == index and not entry.is_dir(follow_symlinks=False):
                continue  # the index, read (or reported) by read_index: never a memory
            if entry.is_symlink():
                if entry.name.endswith(".md"):
                    yield rel, entry, SYMLINK
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name.startswith(".") or (depth == 0 and entry.name in APART):
                    continue
                if depth + 1 >= MAX_DEPTH:
                    yield rel, None, f"folder nested deeper than {MAX_DEPTH} levels, not read"
                    continue
                subfolders.append((Path(entry.path), rel + "/", depth + 1))
                continue
            if not entry.name.endswith(".md") or (entry.name == INDEX_NAME and not depth):
                continue
            if not entry.is_file(follow_symlinks=False):
                yield rel, entry, "not a regular file"
                continue
            # a folder's own index is there (a pointer to it is no dead link), but no memory
            yield rel, entry, NESTED_INDEX if entry.name == INDEX_NAME else None
        stack.extend(reversed(subfolders))


Listed = tuple[str, str | None, os.stat_result | None]  # rel, problem, lstat (None: unreadable)


def listing(root: Path) -> list[Listed]:
    """What :func:`walk` yields, each with its ``lstat``: a root seen without opening a file."""
    out: list[Listed] = []
    for rel, entry, problem in walk(root):
        st = None
        if entry is not None:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                pass  # vanished since the listing
        out.append((rel, problem, st))
    return out


def read_memory(root: Path, rel: str) -> Memory | Unparsed:
    """Read and parse one file; an :class:`Unparsed` says why it is not a memory."""
    try:
        data, st = read_regular(root / rel)
    except ReadProblem as exc:
        return Unparsed(rel, str(exc))
    fstat = file_stat(rel, data, st)
    try:
        return Memory(fstat, parse(data))
    except ParseError as exc:
        return Unparsed(rel, str(exc), fstat)
    except Exception as exc:  # noqa: BLE001 - a reader bug must not stop the scan: skip the file
        return Unparsed(rel, f"frontmatter could not be read ({type(exc).__name__})", fstat)


def read_index(root: Path) -> IndexFile:
    """Read the root's index, ``MEMORY.md`` or the case variant :func:`find_index` picks.

    Missing is fine (the rebuild creates ``MEMORY.md``); a link, a FIFO, invalid UTF-8 or NUL
    bytes give an :class:`IndexFile` with ``error`` set and the name it was found under.
    """
    name = find_index(root)
    if name is None:
        return IndexFile(text=None, stat=None)
    try:
        data, st = read_regular(root / name, limit=MAX_INDEX_BYTES)
    except ReadProblem as exc:
        return IndexFile(text=None, stat=None, error=str(exc), name=name)
    fstat = file_stat(name, data, st)
    bom = data.startswith(BOM)
    try:
        text = (data[3:] if bom else data).decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(BOM) if bom else 0)
        return IndexFile(text=None, stat=fstat, error=f"invalid UTF-8 at byte {offset}", name=name)
    if "\x00" in text:
        return IndexFile(text=None, stat=fstat, error="binary file (NUL bytes)", name=name)
    return IndexFile(text=text, stat=fstat, bom=bom, name=name)


def scan(root: Path) -> Snapshot:
    """Read every memory and the index of ``root``; the index is never also a memory."""
    index = read_index(root)  # first: the walk then skips exactly the file read as the index
    memories: list[Memory] = []
    unparsed: list[Unparsed] = []
    for rel, _entry, problem in walk(root, index.name):
        if problem == NESTED_INDEX:
            unparsed.append(_nested_index(root, rel))
            continue
        if problem is not None:
            unparsed.append(Unparsed(rel, problem))
            continue
        result = read_memory(root, rel)
        if isinstance(result, Memory):
            memories.append(result)
        else:
            unparsed.append(result)
    return Snapshot(root, tuple(memories), tuple(unparsed), index, _top_names(root),
                    _apart(root))


def _nested_index(root: Path, rel: str) -> Unparsed:
    """A folder's own index, read as a memory would be (its text is checked for secrets)."""
    try:
        data, st = read_regular(root / rel)
    except ReadProblem as exc:
        return Unparsed(rel, str(exc))
    return Unparsed(rel, NESTED_INDEX, file_stat(rel, data, st))


def _apart(root: Path) -> frozenset[str]:
    """The ``.md`` files in the folders set apart (:data:`APART`), by name only: a link to
    one of them is not a dead link, and none of them is ever read or changed here."""
    out: set[str] = set()
    for name in APART:
        base = root / name
        if base.is_symlink() or not base.is_dir():
            continue
        for folder, dirs, files in os.walk(base):
            depth = Path(folder).relative_to(root).parts
            if len(depth) >= MAX_DEPTH:
                dirs[:] = []
            rel = "/".join(depth)
            out.update(f"{rel}/{f}" for f in files if f.endswith(".md"))
    return frozenset(out)


def _top_names(root: Path) -> frozenset[str]:
    """Every name in the root's top folder: a folder, a link or a big file may hold a name
    the scan does not list as a memory. Only names are read."""
    try:
        return frozenset(os.listdir(root))
    except OSError:
        return frozenset()
