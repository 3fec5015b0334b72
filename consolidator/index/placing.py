"""Where a new pointer goes in an index: beside its namesake, under the heading for the
memory's type, the index's list heading, the heading its siblings stand under, or the section
of the user's own categories whose words it shares; else after the last pointer, or, in an
index sorted under the user's categories, under a heading of its type at the end. A row of a
table that lists memories counts as a pointer here: a new pointer placed right after such a
table is written as its row (:mod:`consolidator.index.tables`)."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Container, Mapping

from consolidator.detect.text import normal_line
from consolidator.detect.words import line_features
from consolidator.index.parse import IndexLine, classify
from consolidator.index.pointers import (
    BULLET,
    Style,
    other_script,
    pointer_line,
    style_of,
    titled_like,
)
from consolidator.index.tables import row_files, table_above, table_row
from consolidator.index.type_headings import names_a_type, type_heading
from consolidator.index.value import parents
from consolidator.store.model import MEMORY_TYPES, Memory

_LIST_HEADING = re.compile(
    r"\b(?:index|memories|memory files|files|topics|entries|contents)\b|目次|索引|一覧|目录|目錄|목록",
    re.IGNORECASE,
)


def _sections(lines: list[IndexLine], known: Container[str] | None = None
              ) -> dict[int, list[str]]:
    """Heading -> the memory files its pointer lines link (headings over pointers only;
    ``known``: as for :func:`~consolidator.index.tables.row_files`)."""
    out: dict[int, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        if line.kind == "heading":
            current = i
        elif current is not None and _entry(line, known):
            out.setdefault(current, []).append(row_files(line, known)[0])
    return out


def _entry(line: IndexLine, known: Container[str] | None = None) -> bool:
    """Whether a line lists a memory: a pointer line, or a table's row that links or names
    one."""
    return bool(line.target) or (line.kind == "table" and bool(row_files(line, known)))


def list_heading(lines: list[IndexLine], known: Container[str] | None = None) -> int | None:
    """The index's own list heading: one named like a list ("## Index", "## Memories",
    "## 目次") that holds pointers, else the heading over most of the pointer lines (more
    than all the others hold together). None when the pointers stand under several headings
    none of which is the list: those are the user's own categories, and a memory that none
    of them is shown to hold is not filed under one."""
    counts = {i: len(targets) for i, targets in _sections(lines, known).items()}
    named = [i for i in counts if _LIST_HEADING.search(lines[i].heading_text)]
    if named:
        return named[0]
    if counts:
        most = max(counts, key=lambda i: (counts[i], -i))
        # ... unless it is a heading of one type ("## Rules"): a list of that type's memories
        # is no place for a memory of another.
        if 2 * counts[most] > sum(counts.values()) and not names_a_type(lines[most]):
            return most
    return None


_NUMBER = re.compile(r"(\d+)([.)])[ \t]")


def _numbered(lines: list[IndexLine], new: set[int]) -> list[IndexLine]:
    """``lines`` with each new pointer (by id in ``new``) numbered on from the item above it
    in its section, as the index's own numbered list is ("7. [x](x.md)" after "6. …")."""
    out: list[IndexLine] = []
    last = 0
    for line in lines:
        if line.kind == "heading":
            last = 0
        found = _NUMBER.match(line.text)
        if id(line) in new and found:
            last += 1
            line = classify(f"{last}{found.group(2)} {line.text[found.end():]}")
        elif found:
            last = int(found.group(1))
        out.append(line)
    return out


_PREFIX = re.compile(r"([^\W\d_]+)[_-]\w")  # the first word of a slug: `decision_`, `todo-`


def _prefix(file: str) -> str | None:
    match = _PREFIX.match(file.rsplit("/", 1)[-1])
    return match.group(1).casefold() if match else None


_NAME_WORDS = re.compile(r"[-_.\s]+")


def _name_words(file: str) -> list[str]:
    stem = file.rsplit("/", 1)[-1].removesuffix(".md").casefold()
    return [w for w in _NAME_WORDS.split(stem) if w]


Kin = dict[str, list[tuple[int, list[str]]]]


def _kin(sections: dict[int, list[str]]) -> Kin:
    """The pointers' file names split into words, grouped by first word, with their heading:
    worked out once for every memory :func:`_namesake` places."""
    out: Kin = {}
    for heading, targets in sections.items():
        for target in targets:
            words = _name_words(target)
            if words:
                out.setdefault(words[0], []).append((heading, words))
    return out


def _namesake(file: str, kin: Kin) -> int | None:
    """The one heading holding the pointer whose file shares the most first words with
    ``file``, two at least (a type word and a subject), where no other heading's file shares
    as many (``kin``: :func:`_kin` of the index's sections)."""
    mine = _name_words(file)
    best, where = 1, set()
    for heading, theirs in kin.get(mine[0], []) if mine else []:
        shared = next((n for n, (a, b) in enumerate(zip(mine, theirs, strict=False))
                       if a != b), min(len(mine), len(theirs)))
        if shared > best:
            best, where = shared, {heading}
        elif shared == best and best > 1:
            where.add(heading)
    return next(iter(where)) if len(where) == 1 else None


def sibling_heading(lines: list[IndexLine], file: str, mtype: str | None = None,
                    sections: dict[int, list[str]] | None = None) -> int | None:
    """The heading whose pointers link files named with the same first word as ``file``
    (``decision_x.md`` under the section holding ``decision_y.md``), else with the memory's
    type as their first word (``git_workflow.md``, a feedback memory, under the section
    holding ``feedback_tests.md``, whatever language its heading is in), when one heading
    has more of them than any other (``sections``: :func:`_sections` of ``lines``, if known)."""
    sections = _sections(lines) if sections is None else sections
    for word in (_prefix(file), mtype):
        if not word:
            continue
        counts = Counter({i: sum(1 for t in targets if _prefix(t) == word)
                          for i, targets in sections.items()})
        ranked = [(n, i) for i, n in counts.most_common(2) if n]
        if ranked and not (len(ranked) == 2 and ranked[0][0] == ranked[1][0]):
            return ranked[0][1]
    return None


SUBJECT_WORDS = 2  # content words a section must share with a memory to be its subject's


def section_words(lines: list[IndexLine], sections: dict[int, list[str]]
                  ) -> dict[int, list[set[str]]]:
    """Heading -> the content features of each of its section's lines (the heading's too):
    worked out once for every memory :func:`subject_heading` places."""
    return {heading: [line_features(normal_line(line.text))
                      for line in lines[heading:section_end(lines, heading)]]
            for heading in sections}


def subject_heading(memory: Memory, words: dict[int, list[set[str]]]) -> int | None:
    """The section of the user's own categories that is about the memory's subject: the one
    sharing ``SUBJECT_WORDS`` content words at least with the memory's name and description,
    and more of them, counted once per line of the section that has them (the heading and
    its pointer lines), than any other section (a memory on "the Mattermost channels every
    new Foreman dev gets" under "## Foreman System", whose lines name Foreman again and
    again). Words every section has, and the names of memory types, say nothing of a
    subject."""
    if len(words) < 2:
        return None
    mine = line_features(normal_line(f"{_NAME_WORDS.sub(' ', memory.name)} "
                                     f"{memory.description}")) - set(MEMORY_TYPES)
    counts = {heading: Counter(f for found in each for f in found & mine)
              for heading, each in words.items()}
    everywhere = set.intersection(*(set(found) for found in counts.values()))
    ranked = sorted(((len(found.keys() - everywhere),
                      sum(n for f, n in found.items() if f not in everywhere), -heading)
                     for heading, found in counts.items()), key=lambda r: (r[1], r[2]),
                    reverse=True)
    (kinds, best, heading), (_, second, _) = ranked[0], ranked[1]
    return -heading if kinds >= SUBJECT_WORDS and best > second else None


def section_end(lines: list[IndexLine], start: int) -> int:
    """One past the last non-blank line of the section whose heading is at ``start``
    (a sub-heading ends it too)."""
    end = start + 1
    while end < len(lines) and lines[end].kind != "heading":
        end += 1
    while end > start + 1 and lines[end - 1].kind == "blank":
        end -= 1
    return end


def _place_in(lines: list[IndexLine], start: int, known: Container[str] | None = None) -> int:
    """Where a new pointer goes in the section whose heading is at ``start``: at its end, or
    after its table, when a table's row is the last line in it to list a memory."""
    end = section_end(lines, start)
    last = max((i for i in range(start + 1, end) if _entry(lines[i], known)), default=None)
    if last is not None and lines[last].kind == "table":
        return item_end(lines, last)
    return end


def item_end(lines: list[IndexLine], at: int) -> int:
    """One past the list item at ``at``: with the lines indented under it (its details, as
    :func:`~consolidator.index.value.parents` reads them) and a paragraph's lazy continuation
    lines, so that nothing is put between an item and the rest of what it says; one past its
    table, for a table's row."""
    if lines[at].kind == "table":
        end = at + 1
        while end < len(lines) and lines[end].kind == "table":
            end += 1
        return end
    under = parents(lines)
    inside = {at}
    end = at + 1
    for i in range(at + 1, len(lines)):
        kind = lines[i].kind
        if kind == "heading":
            break
        if under.get(i) in inside:
            inside.add(i)
            end = i + 1
        elif kind == "text" and i == end:  # unindented, right after: still the same item
            end = i + 1
        elif kind != "blank":
            break
    return end


def add_pointers(
    lines: list[IndexLine], memories: list[Memory], limit: int,
    names: Mapping[str, Memory] | None = None, known: Container[str] | None = None,
) -> list[IndexLine]:
    """``lines`` with a pointer to each of ``memories`` where a person would put it: beside
    its namesake (the pointer whose file shares the most first words with its file, two at
    least: ``project_state_0903_evening.md`` beside ``project_state_0903_morning.md``, not
    under "Other projects"), else under the heading that names its type, the index's list
    heading, or the heading its siblings stand under (:func:`sibling_heading`). ``names``:
    what the index's wiki links name (name, stem or file -> memory); where the index links
    its memories so, a new pointer does too when its key names that memory alone
    (:func:`~consolidator.detect.links.name_table`), else it is a Markdown link.
    ``known``: the folder's memories, of which a file a table's row names in code must be
    one for the row to list a memory (:func:`~consolidator.index.tables.row_files`)."""
    style = style_of(lines)
    fresh = not any(line.kind != "blank" for line in lines)
    by_place: dict[int | None, list[IndexLine]] = {}
    headings: dict[str, int] = {}  # type -> heading this call created (index in ``appended``)
    appended: list[IndexLine] = []
    last_pointer = max((i for i, l in enumerate(lines) if _entry(l, known)), default=None)
    listed = list_heading(lines, known)
    # Pointers under several headings, none the list: the user's categories. A memory none
    # of them is shown to hold goes under a heading of its type at the end.
    sections = _sections(lines, known)
    words = _kin(sections)
    sorted_in = not fresh and listed is None and len(sections) > 1
    level = min((lines[i].level for i in sections), default=2)
    places: dict[str, int | None] = {}  # type -> where its new lines go
    script = other_script(lines)
    subjects: dict[int, list[set[str]]] = {}  # (worked out when first needed)
    for memory in sorted(memories, key=lambda m: (m.type or "~", m.file)):
        own = titled_like(memory) if script else None
        line = classify(pointer_line(memory, limit, _keyed(style, memory, names),
                                     *(own or (None, None))))
        mtype = memory.type if memory.type in MEMORY_TYPES else "other"
        if mtype not in places:
            at = type_heading(lines, mtype)
            if at is None and not fresh:
                at = listed
            places[mtype] = None if at is None else _place_in(lines, at, known)
        kin = None if fresh else _namesake(memory.file, words)
        end = places[mtype] if kin is None else _place_in(lines, kin, known)
        if end is None and not fresh:
            sibling = sibling_heading(lines, memory.file, memory.type, sections)
            if sibling is None and sorted_in:
                subjects = subjects or section_words(lines, sections)
                sibling = subject_heading(memory, subjects)
            end = None if sibling is None else _place_in(lines, sibling, known)
        if end is None and last_pointer is not None and not fresh and not sorted_in:
            end = item_end(lines, last_pointer)
        if end is not None:
            table = table_above(lines, end, known)
            if table is not None:
                title, hook = own or (None, None)
                line = classify(table_row(table, memory, limit, title, hook,
                                          after=len(by_place.get(end, []))))
            by_place.setdefault(end, []).append(line)
        elif fresh or sorted_in:
            if mtype not in headings:
                if appended:
                    appended.append(IndexLine("", "blank"))
                appended.append(classify(f"{'#' * level} {mtype.capitalize()}"))
                headings[mtype] = len(appended)
            appended.append(line)
        else:
            appended.append(line)
    out: list[IndexLine] = []
    for i, line in enumerate(lines + [IndexLine("", "end")]):
        new = by_place.get(i, [])
        if new and out and out[-1].kind not in ("blank", "heading", "pointer") \
                and new[0].kind != "table" and not BULLET.match(out[-1].text):
            out.append(IndexLine("", "blank"))  # never glued to a paragraph
        out.extend(new)
        if line.kind != "end":
            out.append(line)
    if appended:
        if fresh:
            out = [line for line in out if line.kind != "blank"]
            if not out:
                out = [classify("# Memory index"), IndexLine("", "blank")]
            elif out[-1].kind != "blank":
                out.append(IndexLine("", "blank"))
        elif out and out[-1].kind != "blank" and (sorted_in or not BULLET.match(out[-1].text)):
            out.append(IndexLine("", "blank"))  # (a heading of its own after a blank line)
        out.extend(appended)
    if style.bullet[0].isdigit():
        out = _numbered(out, {id(line) for line in appended}
                        | {id(line) for new in by_place.values() for line in new})
    return out


def _keyed(style: Style, memory: Memory, names: Mapping[str, Memory] | None) -> Style:
    """``style``, without its wiki links where ``[[stem]]`` would not name ``memory`` (no
    table of names, or another memory answers to that name): a link that names another
    memory, or none, would leave this one unlisted and a pointer added on every run."""
    if not style.wiki:
        return style
    named = None if names is None else names.get(memory.file.removesuffix(".md"))
    return style if named is not None and named.file == memory.file \
        else dataclasses.replace(style, wiki="")
