"""File names as a case-insensitive or normalising file system sees them.

macOS (APFS, HFS+) and Windows by default treat ``MEMORY.md`` and ``memory.md`` as one
file, and macOS also treats a name in NFD (``e`` + combining accent, as HFS+ stores it) as the
same as its NFC form. A root that lives on such a file system, or is synced to one, must never
get two names that fold together: on Linux they would be two files, on the Mac one of them
would silently win. Everything here is pure: callers list the folder and pass the names in.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable

MAX_NAME_BYTES = 255  # one path component, in the file system's bytes (ext4, APFS, NTFS-ish)
TOPIC_PREFIX = "index_"  # the names of the topic memories the index rebuild creates


def fold(name: str) -> str:
    """``name`` as a case-insensitive, normalising file system compares it.

    NFC, case-folded, NFC again (folding can leave a composable sequence behind), so NFC and
    NFD spellings and any mix of cases give the same key.
    """
    if name.isascii():  # the common case: NFC leaves ASCII alone and casefold is lower
        return name.lower()
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def same(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name one entry on a case-insensitive or normalising system."""
    return a == b or fold(a) == fold(b)


def collides(name: str, existing: Iterable[str]) -> str | None:
    """The entry of ``existing`` (one folder's names) that creating ``name`` would hit.

    An exact match is returned first; otherwise the first name that folds to the same key;
    ``None`` when ``name`` is free everywhere.
    """
    key = fold(name)
    found: str | None = None
    for other in existing:
        if other == name:
            return other
        if found is None and fold(other) == key:
            found = other
    return found


def name_bytes(name: str) -> int:
    """How many bytes ``name`` takes on disk (undecodable names kept as the OS gave them)."""
    return len(os.fsencode(name))


def fits(name: str, limit: int = MAX_NAME_BYTES) -> bool:
    """Whether one path component is short enough for the file system (255 UTF-8 bytes)."""
    return 0 < name_bytes(name) <= limit


def too_long(rel: str, limit: int = MAX_NAME_BYTES) -> str | None:
    """The first component of the POSIX path ``rel`` over ``limit`` bytes, if any."""
    for part in rel.split("/"):
        if name_bytes(part) > limit:
            return part
    return None


def clip(stem: str, suffix: str = "", limit: int = MAX_NAME_BYTES) -> str:
    """``stem + suffix`` cut (in the stem, on a character boundary) to at most ``limit`` bytes.

    Raises :class:`ValueError` when ``suffix`` alone does not fit.
    """
    room = limit - name_bytes(suffix)
    if room < 0:
        raise ValueError(f"suffix {suffix!r} is longer than {limit} bytes")
    out: list[str] = []
    for char in stem:  # by character, so a multi-byte one is never split
        room -= name_bytes(char)
        if room < 0:
            break
        out.append(char)
    return "".join(out) + suffix


TAG_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
TAG_LEN = 8


def side_name(name: str, tag: str, suffix: str, limit: int = MAX_NAME_BYTES) -> str:
    """The hidden name of a file the store keeps beside ``name`` for a moment:
    ``.{name}.{tag}{suffix}`` (a temp file ``.a.md.k3j9x0q2.tmp``), or ``.{name}{suffix}``
    without a tag; the ``name`` part is cut so that the whole fits in ``limit`` bytes.
    """
    return clip(f".{name}", f".{tag}{suffix}" if tag else suffix, limit)


def is_side_name_of(candidate: str, name: str, suffix: str) -> bool:
    """Whether ``candidate`` is a :func:`side_name` of ``name`` with ``suffix`` and a random
    tag of :data:`TAG_LEN` characters (so a user's file that merely looks similar is not)."""
    end = len(suffix) + TAG_LEN + 1
    if len(candidate) <= end or not candidate.endswith(suffix):
        return False
    tag = candidate[-end + 1:len(candidate) - len(suffix)]
    if candidate[-end] != "." or any(c not in TAG_CHARS for c in tag):
        return False
    return candidate == side_name(name, tag, suffix)
