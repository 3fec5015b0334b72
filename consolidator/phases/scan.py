"""Phase 1: read every memory and the index, and count which memories the sessions opened
since the last count (from their transcripts; no memory body is read for it).

A Markdown file with no frontmatter to read is no memory and is left alone, but a password
written in a note beside the memories is still a password: each such file that is text is
scanned for secrets, and so is the index, and the report says what each seems to hold."""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Mapping
from pathlib import Path

from consolidator.detect.links import name_table, wiki_target
from consolidator.detect.secrets.scan import find as find_secrets
from consolidator.phases.context import Work, index_elsewhere
from consolidator.state import usage
from consolidator.store.links import link_matches, resolve_link, wiki_matches
from consolidator.store.model import Memory, Snapshot, Unparsed
from consolidator.store.scan import NESTED_INDEX, ReadProblem, read_regular, scan


def run(work: Work) -> None:
    ctx = work.ctx
    snapshot = scan(ctx.root)
    index = snapshot.index
    if index.text and (found := tuple(find_secrets(index.text))):
        # Claude Code loads the index into every session: a secret there is in all of them.
        snapshot = dataclasses.replace(snapshot, index=dataclasses.replace(index, secrets=found))
    if snapshot.unparsed:
        names = name_table(list(snapshot.memories))
        # With no index at the root, a note there may be one under another name
        # ("INDICE.md", "README.md"): where its links point is read as for a folder's own.
        unindexed = index.stat is None and index.error is None
        snapshot = dataclasses.replace(snapshot, unparsed=tuple(
            _with_secrets(ctx.root, u, names,
                          u.error == NESTED_INDEX or (unindexed and _at_top(u.rel)))
            for u in snapshot.unparsed))
        if unindexed:  # only the one that is the index keeps where its links point
            kept = index_elsewhere(snapshot)
            snapshot = dataclasses.replace(snapshot, unparsed=tuple(
                u if u.error == NESTED_INDEX or u.rel == kept or not u.links
                else dataclasses.replace(u, links=()) for u in snapshot.unparsed))
    work.snapshot = snapshot
    work.usage = usage.counted(usage.load(ctx.state), ctx.session_folders, ctx.root)


def _at_top(rel: str) -> bool:
    """Whether ``rel`` is a Markdown file at the root itself, not in a sub-folder."""
    return "/" not in rel and rel.casefold().endswith(".md")


def _with_secrets(root: Path, file: Unparsed, names: Mapping[str, Memory],
                  indexing: bool) -> Unparsed:
    """``file`` with the secrets its text holds, if it is text (read as the scan read it:
    never through a symlink, never past the size limit), and for a file that may be an index
    (``indexing``) the memories its links name (by path, or by ``[[name]]`` as ``names``
    resolves it)."""
    text = note_text(root, file)
    if text is None:
        return file
    found = tuple(find_secrets(text))
    links = _links(text, posixpath.dirname(file.rel), names) if indexing else ()
    return dataclasses.replace(file, secrets=found, links=links) if found or links else file


def with_index_links(snapshot: Snapshot) -> Snapshot:
    """``snapshot`` (as a plain scan reads it) with where each folder's own index links."""
    nested = [u for u in snapshot.unparsed if u.error == NESTED_INDEX and not u.links]
    if not nested:
        return snapshot
    names = name_table(list(snapshot.memories))
    found = {u.rel: _index_links(snapshot.root, u, names) for u in nested}
    return dataclasses.replace(snapshot, unparsed=tuple(
        dataclasses.replace(u, links=found[u.rel]) if found.get(u.rel) else u
        for u in snapshot.unparsed))


def _index_links(root: Path, file: Unparsed, names: Mapping[str, Memory]) -> tuple[str, ...]:
    """Where the links of a folder's own index point, as the scan phase reads them (for a
    snapshot read again after a run's changes, which holds only the files)."""
    text = note_text(root, file)
    return () if text is None else _links(text, posixpath.dirname(file.rel), names)


def note_text(root: Path, file: Unparsed) -> str | None:
    """The text of a file that is no memory, if it is text (read as the scan read it: never
    through a symlink, never past the size limit)."""
    if file.stat is None:
        return None  # unreadable, a symlink, too large: nothing was read
    try:
        data, _st = read_regular(root / file.rel)
        text = data.decode("utf-8-sig")
    except (ReadProblem, UnicodeDecodeError):
        return None
    return None if "\0" in text else text  # binary


def _links(text: str, folder: str, names: Mapping[str, Memory]) -> tuple[str, ...]:
    """The files the links of ``text``, a note in ``folder``, point to."""
    return tuple(sorted({target for match in link_matches(text)
                         if (target := resolve_link(match.group(2), folder))}
                        | {target for match in wiki_matches(text)
                           if (target := wiki_target(match.group(1), names))}))
