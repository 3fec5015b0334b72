"""Repointing links in memory bodies: ``[t](old.md)`` and ``[[old-name]]`` to a survivor."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from consolidator.index.parse import LINK_RE, WIKI_RE, relink, resolve_link
from consolidator.store.model import Memory


def repoint(
    body: str,
    source_file: str,
    redirects: Mapping[str, str],
    names: Mapping[str, Memory],
) -> tuple[str, list[str]]:
    """Return ``body`` with links to merged-away files pointed at their survivors.

    ``redirects``: merged-away file -> survivor file (root-relative).
    ``names``: every way a wiki link may name a memory (name and file stem) -> the memory.
    Returns the new body and the files whose links were repointed.
    """
    folder = posixpath.dirname(source_file)
    changed: list[str] = []

    def file_link(match: re.Match[str]) -> str:
        rel = resolve_link(match.group(2), folder)
        if rel is None or rel not in redirects:
            return match.group(0)
        changed.append(rel)
        new = redirects[rel]
        return relink(match, posixpath.relpath(new, folder) if folder else new)

    def wiki_link(match: re.Match[str]) -> str:
        key = match.group(1).strip()
        memory = names.get(key)
        if memory is None or memory.file not in redirects:
            return match.group(0)
        survivor = names.get(redirects[memory.file]) or None
        changed.append(memory.file)
        new_name = redirects[memory.file][:-3] if key == memory.stem else (
            survivor.name if survivor else redirects[memory.file][:-3]
        )
        return match.group(0).replace(match.group(1), new_name, 1)

    body = LINK_RE.sub(file_link, body)
    body = WIKI_RE.sub(wiki_link, body)
    return body, changed


def name_table(memories: list[Memory]) -> dict[str, Memory]:
    """Name, file stem and file -> memory, for resolving wiki links (ambiguous names left out)."""
    table: dict[str, Memory] = {}
    ambiguous: set[str] = set()
    for memory in memories:
        for key in {memory.name, memory.stem, memory.file}:
            if key in table and table[key] is not memory:
                ambiguous.add(key)
            table[key] = memory
    return {k: v for k, v in table.items() if k not in ambiguous}
