"""Inverted indexes of lines: which memories hold a line, kept small for large roots."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def line_postings(
    sets: Iterable[tuple[str, frozenset[str]]], keep: Callable[[str], bool] | None = None
) -> dict[str, str | list[str]]:
    """Each line -> the file that has it, or the list of files once a second one has it.

    Most lines are in one memory only: a list for each would cost more than the sets do.
    """
    out: dict[str, str | list[str]] = {}
    for file, lines in sets:
        for line in lines:
            if keep is not None and not keep(line):
                continue
            seen = out.setdefault(line, file)
            if seen is file:
                continue
            if isinstance(seen, str):
                out[line] = [seen, file]
            else:
                seen.append(file)
    return out


def files_of(entry: str | list[str]) -> list[str]:
    """The files of one posting (a lone file is kept as itself)."""
    return [entry] if isinstance(entry, str) else entry
