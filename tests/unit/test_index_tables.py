"""A new pointer in an index that lists its memories in a table: a row of that table, written
as its other rows are; a table that is no list of pointers gets a list item after it."""

from __future__ import annotations

import pytest

from consolidator.index.tables import cells
from tests.unit.test_index_rebuild import lines_of, make_memory, rebuild

NEW = make_memory("project_new-thing.md", name="project_new-thing", description="A new thing")
OLD = [make_memory("a.md"), make_memory("b.md", mtype="feedback")]

TYPED = """# Memory

## Memories

| File | Type | Description |
|------|:----:|-------------|
| [a.md](a.md) | project | Alpha |
| [b.md](b.md) | feedback | Beta |

## Notes

A closing note.
"""

TITLED = """# Memory

| Memory | What it holds |
|---|---|
| [A](a.md) | alpha |
| [B](b.md) | beta |

Keep this table short.
"""


def test_a_new_pointer_is_a_row_of_the_table_in_its_columns() -> None:
    out = lines_of(rebuild(TYPED, [*OLD, NEW]).text)

    rows = [line for line in out if line.startswith("|")]
    assert rows[-1] == "| [project_new-thing.md](project_new-thing.md) | project | A new thing |"
    assert out[out.index(rows[-1]) + 1] == ""  # the table's last row, before the blank line
    assert out[:7] == lines_of(TYPED)[:7]


def test_a_table_naming_its_links_by_file_stem_names_the_new_one_so() -> None:
    text = "| Day | Summary |\n|---|---|\n| [2026-05-19](2026-05-19.md) | audit |\n"
    day = make_memory("2026-05-19.md", description="audit")

    out = lines_of(rebuild(text, [day, NEW]).text)

    assert out[-1] == "| [project_new-thing](project_new-thing.md) | A new thing |"


def test_a_row_goes_after_the_tables_last_row_not_after_the_paragraph_below_it() -> None:
    out = lines_of(rebuild(TITLED, [*OLD, NEW]).text)

    assert out == lines_of(TITLED)[:6] + ["| [New thing](project_new-thing.md) | A new thing |",
                                          "", "Keep this table short."]


def test_a_second_run_adds_no_second_row() -> None:
    once = rebuild(TITLED, [*OLD, NEW]).text

    assert rebuild(once, [*OLD, NEW]).text == once


def test_a_pipe_in_a_description_is_escaped_and_stays_in_its_cell() -> None:
    piped = make_memory("c.md", name="c", description="either this | or that")

    out = lines_of(rebuild(TITLED, [*OLD, piped]).text)

    row = next(line for line in out if "(c.md)" in line)
    assert cells(row) == ["[c](c.md)", r"either this \| or that"]


def test_a_long_description_is_cut_to_fit_the_row_within_the_pointer_limit() -> None:
    long = make_memory("c.md", name="c", description="word " * 80)

    out = lines_of(rebuild(TITLED, [*OLD, long]).text)

    row = next(line for line in out if "(c.md)" in line)
    assert len(row) <= 150
    assert row.endswith("… |")


@pytest.mark.parametrize(
    "table",
    [
        "| [A](a.md) | alpha |\n| [B](b.md) | beta |\n",  # no header, no separator row
        "| Name | Where |\n|---|---|\n| alpha | see [A](a.md) |\n| [B](b.md) | beta |\n",
    ],
    ids=["no-separator", "links-in-no-one-column"],
)
def test_a_table_that_is_no_list_of_pointers_gets_a_list_item_after_it(table: str) -> None:
    text = f"# Memory\n\n{table}"

    out = lines_of(rebuild(text, [*OLD, NEW]).text)

    assert out == lines_of(text) + ["", "- [New thing](project_new-thing.md) — A new thing"]


def test_a_list_after_a_table_takes_the_new_pointer_as_a_list_item() -> None:
    text = "# Memory\n\n| File | What |\n|---|---|\n| [A](a.md) | alpha |\n\n- [B](b.md) — beta\n"

    out = lines_of(rebuild(text, [*OLD, NEW]).text)

    assert out[-1] == "- [New thing](project_new-thing.md) — A new thing"


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("| a | b |", ["a", "b"]),
        ("a | b", ["a", "b"]),
        (r"| x \| y | z |", [r"x \| y", "z"]),
        ("| `a | b` | c |", ["`a | b`", "c"]),
        ("| [[key|alias]] | c |", ["[[key|alias]]", "c"]),
        ("| a |  | c |", ["a", "", "c"]),
    ],
)
def test_cells_split_on_pipes_outside_code_escapes_and_wiki_links(row: str,
                                                                   expected: list[str]) -> None:
    assert cells(row) == expected


def test_a_column_numbering_the_rows_takes_the_next_numbers() -> None:
    text = ("| # | Memory | Note |\n|---|---|---|\n| 7 | [A](a.md) | alpha |\n"
            "| 8 | [B](b.md) | beta |\n")
    more = make_memory("c.md", name="c", description="gamma")

    out = lines_of(rebuild(text, [*OLD, NEW, more]).text)

    assert [cells(line)[0] for line in out[2:]] == ["7", "8", "9", "10"]
    assert cells(out[-2]) == ["9", "[c](c.md)", "gamma"]  # the note past the number


CODED = """# Memory Index

| File | Type | Summary |
|---|---|---|
| `a.md` | project | Alpha |
| **`b.md`** | feedback | Beta |
| `c.md` | project | Gamma |
"""


def test_a_table_naming_its_files_in_code_takes_a_row_naming_the_new_one_so() -> None:
    """Some indexes name each row's file in code rather than link it: the new row does too,
    and a second run adds none."""
    memories = [*OLD, make_memory("c.md"), NEW]

    out = lines_of(rebuild(CODED, memories).text)

    assert out == lines_of(CODED) + ["| `project_new-thing.md` | project | A new thing |"]
    assert rebuild("\n".join(out) + "\n", memories).text == "\n".join(out) + "\n"


DOCUMENTS = """# Project memory

## Documents to read when needed

| Document | When | Path |
|---|---|---|
| Architecture | before changing the pipeline | `docs/ARCHITECTURE.md` |
| UI guide | before screen work | `docs/UI_GUIDE.md` |
| Troubleshooting | when an issue comes back | `docs/memory/troubleshooting.md` |
"""


def test_a_table_naming_project_documents_in_code_takes_no_row_for_a_memory() -> None:
    """A table whose rows name the project's documents in code, none of them a memory of
    the folder, lists no memory: a new pointer is a list item after it, never a row with
    only its path filled in."""
    out = lines_of(rebuild(DOCUMENTS, [*OLD, NEW]).text)

    assert out[:len(lines_of(DOCUMENTS))] == lines_of(DOCUMENTS)
    added = out[len(lines_of(DOCUMENTS)):]
    assert added[0] == ""
    assert "- [New thing](project_new-thing.md) — A new thing" in added
    assert not any(line.startswith("|") for line in added)


def test_the_same_table_naming_memories_of_the_folder_in_code_takes_a_row() -> None:
    text = DOCUMENTS.replace("docs/ARCHITECTURE.md", "a.md").replace("docs/UI_GUIDE.md",
                                                                     "b.md")
    out = lines_of(rebuild(text, [*OLD, NEW]).text)

    assert out == lines_of(text) + ["|  |  | `project_new-thing.md` |"]


def test_a_table_naming_memories_by_a_path_through_the_roots_own_folder_takes_a_row() -> None:
    text = DOCUMENTS.replace("docs/ARCHITECTURE.md", "memory/a.md").replace("docs/UI_GUIDE.md",
                                                                            "memory/b.md")
    out = lines_of(rebuild(text, [*OLD, NEW], root_name="memory").text)

    assert out == lines_of(text) + ["|  |  | `project_new-thing.md` |"]


def test_a_table_naming_files_in_code_in_a_few_rows_only_is_no_list_of_pointers() -> None:
    text = "# Memory\n\n| Topic | Notes |\n|---|---|\n| deploys | see `a.md` and `b.md` |\n"

    out = lines_of(rebuild(text, [*OLD, NEW]).text)

    assert out == lines_of(text) + ["", "- [New thing](project_new-thing.md) — A new thing"]
