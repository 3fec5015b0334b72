"""Edge cases of a new pointer written as a row of the index's table of memories
(consolidator.index.tables and its use in consolidator.index.placing).

Every case checks the tool's safety rules as well as the row itself: each line the user
wrote is kept, unchanged and in order; a second run over the result changes nothing; every
memory stays reachable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from consolidator.index.rebuild import Limits
from consolidator.index.tables import cells
from consolidator.store.model import Memory
from tests.unit.test_index_rebuild import (
    index_targets,
    is_subsequence,
    lines_of,
    make_memory,
    rebuild,
)

OLD = [make_memory("a.md"), make_memory("b.md", mtype="feedback")]
C = make_memory("c.md", name="c", description="gamma")

PLAIN = """# Memory

| Memory | What |
|---|---|
| [A](a.md) | alpha |
| [B](b.md) | beta |
"""


def run(text: str, memories: list[Memory], **kwargs: Any) -> str:
    """The rebuilt text, checked against the safety rules every case shares."""
    plan = rebuild(text, memories, **kwargs)
    out = plan.text
    assert is_subsequence(lines_of(text), lines_of(out)), "a user's line was changed or moved"
    again = rebuild(out, [*memories, *(t.memory for t in plan.creates)], **kwargs)
    assert again.text == out, "a second run changed the index"
    return out


def rows(out: str) -> list[str]:
    return [line for line in lines_of(out) if line.lstrip().startswith("|")]


def row_of(out: str, file: str) -> str:
    return next(line for line in lines_of(out) if f"({file})" in line or f"(<{file}>)" in line)


# --- table shapes and link styles: the new row, written as the other rows are -------------

SHAPES = {
    "alignment-row": (
        ("| File | Type | Description |\n|:---|:----:|---:|\n"
         "| [a.md](a.md) | project | Alpha |\n| [b.md](b.md) | feedback | Beta |\n"),
        "| [c.md](c.md) | project | gamma |",
    ),
    "header-fewer-cells": (
        "| Memory | Note |\n|---|---|\n| [A](a.md) | alpha | x |\n| [B](b.md) | beta | y |\n",
        "| [c](c.md) | gamma |",
    ),
    "header-more-cells": (
        ("| Memory | Note | Extra | More |\n|---|---|---|---|\n| [A](a.md) | alpha |\n"
         "| [B](b.md) | beta |\n"),
        "| [c](c.md) | gamma |  |  |",
    ),
    "escaped-pipes": (
        "| Memory | Note |\n|---|---|\n| [A](a.md) | a \\| b |\n| [B](b.md) | `x | y` |\n",
        "| [c](c.md) | gamma |",
    ),
    "link-after-escaped-pipes": (
        "| Topic | Memory |\n|---|---|\n| a \\| b | [A](a.md) |\n| `x | y` | [B](b.md) |\n",
        "|  | [c](c.md) |",
    ),
    "open-table": (
        "| Memory | Note\n|---|---\n| [A](a.md) | alpha\n| [B](b.md) | beta\n",
        "| [c](c.md) | gamma",
    ),
    "wiki-links-by-stem": (
        "| Memory | What |\n|---|---|\n| [[a]] | alpha |\n| [[b]] | beta |\n",
        "| [c](c.md) | gamma |",
    ),
    "bold-links": (
        "| Memory | What |\n|---|---|\n| **[A](a.md)** | alpha |\n| **[B](b.md)** | beta |\n",
        "| **[c](c.md)** | gamma |",
    ),
    "web-links-in-another-column": (
        ("| Source | Memory |\n|---|---|\n| [site](https://a.example) | [A](a.md) |\n"
         "| [doc](https://b.example) | [B](b.md) |\n"),
        "|  | [c](c.md) |",
    ),
    "indented-in-a-list-item": (
        ("# Memory\n\n- Memories:\n\n  | Memory | What |\n  |---|---|\n"
         "  | [A](a.md) | alpha |\n  | [B](b.md) | beta |\n"),
        "  | [c](c.md) | gamma |",
    ),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_new_row_is_written_as_the_tables_rows_are(shape: str) -> None:
    text, expected = SHAPES[shape]

    out = run(text, [*OLD, C])

    assert lines_of(out)[-1] == expected


# --- line endings, final newline --------------------------------------------------------


def test_a_crlf_index_gets_its_new_row_with_crlf_and_keeps_its_own_crlf() -> None:
    text = PLAIN.replace("\n", "\r\n")

    out = run(text, [*OLD, C], newline="\r\n")

    assert out == text + "| [c](c.md) | gamma |\r\n"
    assert "\n" not in out.replace("\r\n", "")


def test_an_index_without_a_final_newline_gets_the_row_after_its_last_row() -> None:
    text = PLAIN.rstrip("\n")

    out = run(text, [*OLD, C])

    assert lines_of(out) == lines_of(text) + ["| [c](c.md) | gamma |"]


@pytest.mark.parametrize(
    ("text", "files", "expected"),
    [
        ("| Memory | Note |\n|---|---|\n| [A](<my a.md>) | alpha |\n| [B](<my b.md>) | beta |\n",
         ("my a.md", "my b.md", "my c.md"), "| [my c](<my c.md>) | gamma |"),
        ("| File | What |\n|---|---|\n| [a.md](notes/a.md) | alpha |\n"
         "| [b.md](notes/b.md) | beta |\n",
         ("notes/a.md", "notes/b.md", "notes/c.md"), "| [c.md](notes/c.md) | gamma |"),
    ],
    ids=["angle-brackets-and-spaces", "subfolder-files-by-name"],
)
def test_a_new_row_links_its_file_as_the_rows_link_theirs(text: str, files: tuple[str, ...],
                                                          expected: str) -> None:
    *old, new = files
    mems = [make_memory(f) for f in old] + [
        make_memory(new, name=Path(new).stem, description="gamma")]

    out = run(text, mems)

    assert lines_of(out)[-1] == expected
    assert new in index_targets(out)


# --- what the memory says -------------------------------------------------------------


def test_a_secret_in_a_description_is_masked_in_the_row() -> None:
    token = "sk-ant-api03-" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
    secret = make_memory("c.md", name="c", description=f"key {token} here")

    out = run(PLAIN, [*OLD, secret])

    assert "sk-ant" not in out and "abcdefghij" not in out
    assert row_of(out, "c.md") == "| [c](c.md) | key [REDACTED] here |"


def test_a_secret_in_a_memorys_name_is_masked_in_the_rows_title() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    secret = make_memory("c.md", name=f"token {token}", description="gamma")

    out = run(PLAIN, [*OLD, secret])

    assert token not in out and token[:12] not in out
    assert "(c.md)" in row_of(out, "c.md")


def test_brackets_in_the_name_and_description_keep_the_row_one_link() -> None:
    odd = make_memory("c.md", name="c [draft]", description="see [x] and more")

    out = run(PLAIN, [*OLD, odd])

    row = row_of(out, "c.md")
    assert cells(row) == ["[c (draft)](c.md)", "see [x] and more"]


def test_a_pipe_in_a_title_is_escaped_and_stays_in_its_cell() -> None:
    odd = make_memory("c.md", name="either|or", description="gamma")

    out = run(PLAIN, [*OLD, odd])

    assert len(cells(row_of(out, "c.md"))) == 2


def test_a_description_with_a_newline_stays_one_row() -> None:
    two = make_memory("c.md", name="c", description='"line one\\nline two"')
    assert two.description == "line one\nline two"

    out = run(PLAIN, [*OLD, two])

    assert lines_of(out)[-1].startswith("| [c](c.md) | line one")
    assert lines_of(out)[-1].endswith(" |")
    assert len(lines_of(out)) == len(lines_of(PLAIN)) + 1


TYPED = ("| Memory | Type | What |\n|---|---|---|\n| [A](a.md) | project | alpha |\n"
         "| [B](b.md) | feedback | beta |\n")
CJK = "# メモリ\n\n| メモリ | 説明 |\n|---|---|\n| [A](a.md) | アルファ |\n| [B](b.md) | ベータ |\n"


@pytest.mark.parametrize(
    ("text", "name", "description", "mtype", "starts"),
    [
        (CJK, "c", "日本語の説明" * 40, "project", "| [c](c.md) | 日本語の説明"),
        (PLAIN, "word-" * 60, "gamma " * 40, "project", "| ["),
        (PLAIN, "c", "x|" * 100, "project", "| [c](c.md) | x\\|"),
        (TYPED, "c" * 200, "", "reference", "| [ccc"),  # the Type cell counted too
    ],
    ids=["long-cjk-description", "long-title", "description-of-pipes", "long-title-typed"],
)
def test_a_row_is_cut_within_the_line_limit(text: str, name: str, description: str,
                                            mtype: str, starts: str) -> None:
    long = make_memory("c.md", name=name, description=description or None, mtype=mtype)

    out = run(text, [*OLD, long])

    row = row_of(out, "c.md")
    assert len(row) <= 150 and row.startswith(starts) and "(c.md)" in row


# --- where the row goes ---------------------------------------------------------------


def test_of_two_tables_in_one_section_the_last_takes_the_row() -> None:
    text = (
        "# Memory\n\n## Memories\n\n| Memory | What |\n|---|---|\n| [A](a.md) | alpha |\n\n"
        "| Memory | What |\n|---|---|\n| [B](b.md) | beta |\n\n## Notes\n\nnote\n"
    )

    out = run(text, [*OLD, C])

    lines = lines_of(out)
    assert lines[lines.index("| [B](b.md) | beta |") + 1] == "| [c](c.md) | gamma |"
    assert lines[-3:] == ["## Notes", "", "note"]


def test_a_table_under_a_type_heading_takes_that_types_memories_only() -> None:
    text = (
        "# Memory\n\n## Memories\n\n- [A](a.md) — alpha\n\n## Feedback\n\n"
        "| Rule | Why |\n|:---|:---:|\n| [B](b.md) | beta |\n"
    )
    rule = make_memory("feedback_x.md", name="feedback_x", description="xx", mtype="feedback")

    out = run(text, [*OLD, C, rule])

    lines = lines_of(out)
    assert lines[lines.index("- [A](a.md) — alpha") + 1] == "- [c](c.md) — gamma"
    assert lines[-1] == "| [X](feedback_x.md) | xx |"


def test_a_table_under_the_list_heading_takes_memories_of_other_types() -> None:
    text = (
        "# Memory\n\n## Memories\n\n| Memory | What |\n|---|---|\n| [A](a.md) | alpha |\n\n"
        "## Feedback\n\n- [B](b.md) — beta\n"
    )
    user = make_memory("u.md", name="u", description="who", mtype="user")

    out = run(text, [*OLD, user])

    lines = lines_of(out)
    assert lines[lines.index("| [A](a.md) | alpha |") + 1] == "| [u](u.md) | who |"


def test_a_table_followed_by_a_list_lets_the_list_take_the_pointer() -> None:
    text = (
        "# Memory\n\n| Memory | Note |\n|---|---|\n| [A](a.md) | alpha |\n\nMore:\n\n"
        "- [B](b.md) — beta\n"
    )

    out = run(text, [*OLD, C])

    assert lines_of(out)[-1] == "- [c](c.md) — gamma"
    assert len(rows(out)) == 3


def test_several_new_rows_go_in_one_table_numbered_on_in_the_order_written() -> None:
    text = (
        "| No. | Memory | Type | Note |\n|--:|---|---|---|\n"
        "| 1 | [A](a.md) | project | alpha |\n| 2 | [B](b.md) | feedback | beta |\n"
    )
    more = [
        C,
        make_memory("d.md", name="d", description="delta", mtype="user"),
        make_memory("e.md", name="e", description="eps", mtype="feedback"),
    ]

    out = run(text, [*OLD, *more])

    new = [cells(line) for line in lines_of(out)[4:]]
    assert [row[0] for row in new] == ["3", "4", "5"]
    assert sorted(row[1] for row in new) == ["[c](c.md)", "[d](d.md)", "[e](e.md)"]
    assert {row[1]: row[2] for row in new}["[d](d.md)"] == "user"


def test_a_number_column_that_does_not_count_by_one_is_left_empty() -> None:
    text = (
        "| # | Memory | Note |\n|---|---|---|\n| 1 | [A](a.md) | alpha |\n"
        "| 3 | [B](b.md) | beta |\n"
    )

    out = run(text, [*OLD, C])

    assert cells(lines_of(out)[-1]) == ["", "[c](c.md)", "gamma"]


def test_a_zero_padded_number_column_keeps_its_padding() -> None:
    text = (
        "| # | Memory | Note |\n|---|---|---|\n| 01 | [A](a.md) | alpha |\n"
        "| 02 | [B](b.md) | beta |\n"
    )

    out = run(text, [*OLD, C])

    assert cells(lines_of(out)[-1])[0] == "03"


def test_a_number_in_a_one_row_table_is_not_taken_for_a_row_number() -> None:
    text = "| Memory | Priority |\n|---|---|\n| [A](a.md) | 1 |\n"

    out = run(text, [OLD[0], C])

    assert cells(lines_of(out)[-1]) == ["[c](c.md)", ""]


@pytest.mark.parametrize(
    "header",
    ["Tipo", "Typ", "Тип", "类型", "種類", "**Type**", "Kind",  # a type heading
     "Kategorie", "Catégorie", "Categoría", "分类", "カテゴリ"],  # memory types under it
)
def test_the_column_of_types_takes_the_type(header: str) -> None:
    text = (
        f"| Memory | {header} | Note |\n|---|---|---|\n| [A](a.md) | project | alpha |\n"
        "| [B](b.md) | feedback | beta |\n"
    )

    out = run(text, [*OLD, C])

    assert cells(lines_of(out)[-1]) == ["[c](c.md)", "project", "gamma"]


# --- limits -----------------------------------------------------------------------------


def _numbered_table(count: int, title: str = "# Memory\n\n") -> tuple[str, list[Memory]]:
    mems = [
        make_memory(f"m{i:03}.md", name=f"m{i:03}", description=f"memory {i}") for i in range(count)
    ]
    text = (
        title
        + "| # | Memory | Note |\n|---|---|---|\n"
        + "".join(f"| {i + 1} | [M{i:03}](m{i:03}.md) | memory {i} |\n" for i in range(count))
    )
    return text, mems


NEW = [make_memory(f"n{i:02}.md", name=f"n{i:02}", description=f"new {i}") for i in range(20)]


def test_near_the_line_limit_the_rows_that_fit_are_added_and_the_rest_listed() -> None:
    text, mems = _numbered_table(185)

    plan = rebuild(text, [*mems, *NEW])
    out = run(text, [*mems, *NEW])

    assert plan.within_limits and plan.lines <= 199  # room left for Claude Code's next one
    assert plan.added and plan.listed
    assert set(plan.added) | set(plan.listed) == {m.file for m in NEW}
    table = [cells(line) for line in rows(out)][2:]
    assert [int(row[0]) for row in table] == list(range(1, len(table) + 1))
    topic = plan.creates[0]
    assert all(f in topic.text for f in plan.listed)
    assert f"({topic.file})" in out


def test_near_the_byte_limit_rows_stop_where_the_bytes_run_out() -> None:
    text, mems = _numbered_table(30)
    limits = Limits(max_lines=1000, max_bytes=len(text.encode()) + 700, max_line_chars=150)

    plan = rebuild(text, [*mems, *NEW], limits=limits)
    out = run(text, [*mems, *NEW], limits=limits)

    assert plan.within_limits
    assert len(out.encode()) <= limits.max_bytes
    # (no room for the pointer to a topic memory too: the rest are named in the report)
    assert set(plan.added) | set(plan.listed) | set(plan.dropped) == {m.file for m in NEW}
    assert 0 < len(plan.added) < len(NEW)
    table = [cells(line) for line in rows(out)][2:]
    assert [int(row[0]) for row in table] == list(range(1, 31 + len(plan.added)))


def test_an_index_over_its_limits_loses_no_row() -> None:
    # (over its limits, lines are moved to a topic memory by design: not `run`'s rule)
    text, mems = _numbered_table(210)

    plan = rebuild(text, [*mems, *NEW])
    out = plan.text

    assert plan.within_limits and plan.over_limits
    topics = [t.memory for t in plan.creates]  # (a second run reads them as memories)
    assert rebuild(out, [*mems, *NEW, *topics]).text == out
    moved = "".join(t.text for t in plan.creates)
    for line in lines_of(text)[2:]:
        assert line in out or line in moved, line
    for m in [*mems, *NEW]:
        assert f"({m.file})" in out or f"({m.file})" in moved


# --- the real command -------------------------------------------------------------------


def _write_memory(root: Path, name: str, description: str, mtype: str = "project") -> None:
    (root / f"{name}.md").write_bytes(
        f"---\nname: {name}\ndescription: {description}\ntype: {mtype}\n---\nBody.\n".encode()
    )


@pytest.mark.parametrize(
    "index",
    [
        (
            b"\xef\xbb\xbf# Memory\r\n\r\n| Memory | Type | What |\r\n|:---|:---:|---|\r\n"
            b"| [A](a.md) | project | alpha |\r\n| [B](b.md) | feedback | beta |\r\n\r\n"
            b"Keep this short.\r\n"
        ),
        (
            b"# Memory\n\n| # | Memory | What |\n|---|---|---|\n| 1 | [A](a.md) | alpha |\n"
            b"| 2 | [B](b.md) | beta |"
        ),
    ],
    ids=["bom-crlf", "numbered-no-final-newline"],
)
def test_the_cli_writes_the_row_and_undo_restores_the_bytes(tmp_path: Path, index: bytes) -> None:
    memory, state, project = tmp_path / "M", tmp_path / "S", tmp_path / "P"
    for folder in (memory, state, project):
        folder.mkdir()
    (memory / "MEMORY.md").write_bytes(index)
    _write_memory(memory, "a", "alpha")
    _write_memory(memory, "b", "beta", "feedback")
    _write_memory(memory, "c", "gamma | delta")
    old = 1_000_000_000
    for path in memory.iterdir():
        os.utime(path, (old, old))  # (ages them far past 30 days)
    env = {**os.environ, "HOME": str(tmp_path)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "consolidator", *args], cwd="/tmp",
                              env=env, capture_output=True, text=True, timeout=120,
                              check=False)

    done = cli("run", "--force", "--memory-dir", str(memory), "--state-dir", str(state),
               "--project-root", str(project))
    assert done.returncode == 0, done.stderr
    written = (memory / "MEMORY.md").read_bytes()
    text = written.decode("utf-8-sig")
    assert written.startswith(b"\xef\xbb\xbf") == index.startswith(b"\xef\xbb\xbf")
    row = next(line for line in text.splitlines() if "(c.md)" in line)
    assert r"gamma \| delta" in row and row.startswith("| ")
    if b"\r\n" in index:
        assert text.count("\r\n") == text.count("\n")
        assert row == "| [c](c.md) | project | gamma \\| delta |"
    else:
        assert row == "| 3 | [c](c.md) | gamma \\| delta |"
    old_lines = index.decode("utf-8-sig").splitlines()
    assert is_subsequence(old_lines, text.splitlines())

    undone = cli("undo", "latest", "--state-dir", str(state))
    assert undone.returncode == 0, undone.stderr
    assert (memory / "MEMORY.md").read_bytes() == index


# --- tables the tool must tell apart --------------------------------------------------


def test_a_table_right_under_frontmatter_takes_the_row() -> None:
    text = "---\ntitle: x\n---\n" + PLAIN.removeprefix("# Memory\n\n")

    out = run(text, [*OLD, C])

    assert lines_of(out) == lines_of(text) + ["| [c](c.md) | gamma |"]


def test_a_table_in_a_code_block_is_never_written_into() -> None:
    text = "```\n| Memory | What |\n|---|---|\n| [A](a.md) | alpha |\n```\n\n- [B](b.md) — beta\n"

    out = run(text, [*OLD, C])

    assert lines_of(out) == lines_of(text) + ["- [c](c.md) — gamma"]


def test_a_table_of_other_things_after_the_memories_table_is_left_alone() -> None:
    text = PLAIN + "\n| Tool | Use |\n|---|---|\n| git | vcs |\n"

    out = run(text, [*OLD, C])

    lines = lines_of(out)
    assert lines[lines.index("| [B](b.md) | beta |") + 1] == "| [c](c.md) | gamma |"
    assert lines[-3:] == ["| Tool | Use |", "|---|---|", "| git | vcs |"]


def test_a_row_goes_before_a_block_comment_right_under_the_table() -> None:
    text = PLAIN + "<!-- keep sorted -->\n"

    out = run(text, [*OLD, C])

    assert lines_of(out)[-2:] == ["| [c](c.md) | gamma |", "<!-- keep sorted -->"]
