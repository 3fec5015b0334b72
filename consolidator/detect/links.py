"""Links in memory bodies and the index: which memories link where, and repointing
``[t](old.md)``, ``[label]: old.md`` and ``[[old-name]]`` to a survivor.
(The grammar of a link is :mod:`consolidator.store.links`; this module applies it to memories.)

A ``[[key]]`` link names a memory by its name, file stem or file (see :func:`name_table`);
in the index, a key that names no memory names the file ``key.md``, as a Markdown link to
it would."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from consolidator.store.links import (
    as_plain,
    link_matches,
    link_path,
    relink,
    resolve_link,
    sub_links,
    sub_wiki,
    wiki_matches,
)
from consolidator.store.model import Memory, Snapshot
from consolidator.store.names import TOPIC_PREFIX


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
        new = redirects[memory.file]
        survivor = names.get(new)
        changed.append(memory.file)
        stem = posixpath.splitext(new)[0]
        # The key as it was written (by stem, else by name), if the survivor's reads back
        # as that survivor: a name with "#" or "|" in it would name something else.
        named = survivor.name if survivor is not None else stem
        keys = [stem, named] if key == memory.stem else [named, stem]
        for new_key in keys:
            if survivor is not None and _WIKI_KEY.fullmatch(new_key) \
                    and names.get(new_key) is survivor:  # not ambiguous: it names the survivor
                return match.group(0).replace(match.group(1), new_key, 1)
        # No key names it: a Markdown link to its file, with the words the link showed.
        return relink_to(wiki_title(match), posixpath.relpath(new, folder) if folder else new)

    body = sub_links(file_link, body)
    body = sub_wiki(wiki_link, body)
    return body, changed


_WIKI_KEY = re.compile(r"[^\[\]|#\n]+")  # what a [[key]] may hold (see WIKI_RE)


def relink_to(title: str, path: str) -> str:
    """A Markdown link showing ``title`` that points at ``path``."""
    shown = title.replace("[", "\\[").replace("]", "\\]")
    return f"[{shown}]({link_path(path)})"


def wiki_target(key: str, names: Mapping[str, Memory]) -> str | None:
    """The root-relative file ``[[key]]`` names: the memory of that name, stem or file, else
    ``None``. A wiki link is a name, not a path: the notes app that shows it looks the name up
    in the whole vault, so a name no memory answers to may well be a note outside the memory
    folder (``[[tasks]]`` at the vault's root, ``[[Decision/]]``, a folder), not a memory gone."""
    named = names.get(key.strip())
    return None if named is None else named.file


def wiki_title(match: re.Match[str]) -> str:
    """The words a ``[[key|alias]]`` link shows: its alias, else its key."""
    inner = match.group(0)[2:-2]
    alias = inner.split("|", 1)[1] if "|" in inner else ""
    return (alias or match.group(1)).strip()


def unwiki(text: str, targets: set[str], mark: str, names: Mapping[str, Memory]) -> str:
    """``text`` with every ``[[key]]`` link to a file in ``targets`` turned into its plain
    words followed by ``(<file> <mark>)`` (the words alone for an empty ``mark``), as
    :func:`consolidator.store.links.unlink` does for Markdown links."""

    def plain(match: re.Match[str]) -> str | None:
        target = wiki_target(match.group(1), names)
        if target not in targets:
            return None
        return f"{wiki_title(match)} ({target} {mark})" if mark else wiki_title(match)

    return as_plain(sub_wiki, plain, text)


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


def links_of(memory: Memory, names: dict[str, Memory], body: str | None = None) -> set[str]:
    """Every memory file that ``memory`` (or ``body``, its new text) links to, by file or
    by name."""
    folder = posixpath.dirname(memory.file)
    out: set[str] = set()
    body = memory.body if body is None else body
    for match in link_matches(body):
        target = resolve_link(match.group(2), folder)
        if target:
            out.add(target)
    for match in wiki_matches(body):
        named = names.get(match.group(1).strip())
        if named is not None:
            out.add(named.file)
    return out


def linked_from(snapshot: Snapshot, sources: set[str]) -> set[str]:
    """Every memory file that the memories in ``sources`` link to (by file or by name)."""
    if not sources:
        return set()
    names = name_table(list(snapshot.memories))
    by_file = snapshot.by_file()
    return {t for file in sources for t in links_of(by_file[file], names)}


def named_anywhere(snapshot: Snapshot) -> frozenset[str]:
    """Every memory file the index or another memory links to, by file or by name."""
    names = name_table(list(snapshot.memories))
    index = snapshot.index.text or ""
    out = {t for m in link_matches(index) if (t := resolve_link(m.group(2), ""))}
    out.update(names[m.group(1).strip()].file for m in wiki_matches(index)
               if m.group(1).strip() in names)
    for memory in snapshot.memories:
        out.update(links_of(memory, names))
    return frozenset(out)


def linking_to(
    snapshot: Snapshot, targets: set[str], leaving: set[str], bodies: Mapping[str, str]
) -> dict[str, list[str]]:
    """Target -> the memories that link to it, among those staying (not in ``leaving``) and
    written by a person (the tool's own topic memories are repointed like the index), each
    read as this plan leaves it (``bodies``: file -> its new body)."""
    if not targets:
        return {}
    names = name_table(list(snapshot.memories))
    out: dict[str, list[str]] = {}
    for memory in snapshot.memories:
        if memory.file in leaving or is_topic(memory.file):
            continue
        for target in links_of(memory, names, bodies.get(memory.file)) & targets:
            if target != memory.file:
                out.setdefault(target, []).append(memory.file)
    return out


def is_topic(file: str) -> bool:
    """A topic memory the index rebuild created to hold index lines."""
    return posixpath.basename(file).startswith(TOPIC_PREFIX)


# Folders a person keeps old or day-by-day notes in, in the languages the tool reads: a note
# there is kept out of sight on purpose (a superseded rule in `archive/`, a session in
# `diary/`), and a pointer would load it into every session.
_SET_ASIDE = frozenset((
    "archive", "archives", "archived", "old", "deprecated", "obsolete", "attic", "trash",
    "backup", "backups", "diary", "journal", "arxiu", "archivo", "archivio", "arquivo",
    "archiv", "archief", "archiwum", "архив", "보관", "아카이브", "アーカイブ", "归档", "歸檔",
    "存档", "旧", "古い",
))


def set_aside(file: str) -> bool:
    """Whether ``file`` stands in a folder of old or day-by-day notes (see ``_SET_ASIDE``)."""
    folders = file.split("/")[:-1]
    return any(folder.casefold().strip("_-. ") in _SET_ASIDE for folder in folders)
