"""Reading a root the way Claude Code does: every ``*.md`` but ``MEMORY.md``, recursively.

Symlinks are never followed (a link could lead out of the root or into a loop); FIFOs,
sockets and devices are never opened; files over 1 MiB are never read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat as stat_mod
from collections.abc import Iterator
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

MAX_FILE_BYTES = 1024 * 1024
# An index far past Claude Code's 25 KB is exactly what the rebuild is for: read it up to here.
MAX_INDEX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


class ReadProblem(Exception):
    """A file could not be read safely; the message says why."""


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> tuple[bytes, os.stat_result]:
    """Read a regular file without following a symlink or blocking on a FIFO.

    Raises :class:`ReadProblem` for anything else, or when the file is over ``limit`` bytes.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
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


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link, not followed"
    return exc.strerror or str(exc)


def file_stat(rel: str, data: bytes, st: os.stat_result) -> FileStat:
    return FileStat(
        rel=rel,
        size=len(data),
        mtime_ns=st.st_mtime_ns,
        mode=stat_mod.S_IMODE(st.st_mode),
        sha256=hashlib.sha256(data).hexdigest(),
    )


def walk(root: Path) -> Iterator[tuple[str, os.DirEntry[str] | None, str | None]]:
    """Yield ``(rel, entry, problem)`` for every ``*.md`` under ``root`` except index files.

    ``problem`` is set (and ``entry`` may be ``None``) for what must not be opened.
    """
    stack: list[tuple[Path, str, int]] = [(root, "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield prefix or ".", None, f"folder unreadable: {exc.strerror or exc}"
            continue
        subfolders = []
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_symlink():
                if entry.name.endswith(".md"):
                    yield rel, entry, "symbolic link, not followed"
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name.startswith("."):
                    continue
                if depth + 1 >= MAX_DEPTH:
                    yield rel, None, f"folder nested deeper than {MAX_DEPTH} levels, not read"
                    continue
                subfolders.append((Path(entry.path), rel + "/", depth + 1))
                continue
            if not entry.name.endswith(".md") or entry.name == INDEX_NAME:
                continue
            if not entry.is_file(follow_symlinks=False):
                yield rel, entry, "not a regular file"
                continue
            yield rel, entry, None
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
    """Read ``MEMORY.md`` (missing is fine: the rebuild creates it)."""
    path = root / INDEX_NAME
    if not os.path.lexists(path):
        return IndexFile(text=None, stat=None)
    try:
        data, st = read_regular(path, limit=MAX_INDEX_BYTES)
    except ReadProblem as exc:
        return IndexFile(text=None, stat=None, error=str(exc))
    fstat = file_stat(INDEX_NAME, data, st)
    bom = data.startswith(BOM)
    try:
        text = (data[3:] if bom else data).decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(BOM) if bom else 0)
        return IndexFile(text=None, stat=fstat, error=f"invalid UTF-8 at byte {offset}")
    if "\x00" in text:
        return IndexFile(text=None, stat=fstat, error="binary file (NUL bytes)")
    return IndexFile(text=text, stat=fstat, bom=bom)


def scan(root: Path) -> Snapshot:
    """Read every memory and the index of ``root``."""
    memories: list[Memory] = []
    unparsed: list[Unparsed] = []
    for rel, _entry, problem in walk(root):
        if problem is not None:
            unparsed.append(Unparsed(rel, problem))
            continue
        result = read_memory(root, rel)
        (memories if isinstance(result, Memory) else unparsed).append(result)  # type: ignore[arg-type]
    return Snapshot(root, tuple(memories), tuple(unparsed), read_index(root))
