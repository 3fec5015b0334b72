"""MEMORY.md lines: every real shape classified, pointers split, links retargeted."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consolidator.index.parse import (
    classify,
    link_path,
    link_title,
    local_target,
    parse_index,
    retarget,
    split_pointer,
)

# --- pointer lines --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "target"),
    [
        ("- [Title](file.md) — hook", "file.md"),
        ("- **[x](x.md)** — …", "x.md"),
        ("- __[x](x.md)__ - hook", "x.md"),
        ("- *[x](x.md)* — hook", "x.md"),
        ("* [x](x.md); hook", "x.md"),
        ("+ [x](x.md)", "x.md"),
        ("1. [x](x.md): hook", "x.md"),
        ("12) [x](x.md) hook", "x.md"),
        ("  - [x](x.md) — nested item", "x.md"),
        ("- [x](<a b.md>) — hook", "a b.md"),
        ("- [x](./x.md) — hook", "x.md"),
        ("- [x](sub/x.md) — hook", "sub/x.md"),
        ("- [x](sub/../x.md) — hook", "x.md"),
        ("- [x](a%20b.md) — hook", "a b.md"),
        ("- [x](x.md#why) — hook", "x.md"),
        ('- [x](x.md "a title") — hook', "x.md"),
        ("- [노트](한국어_메모.md) — 설명", "한국어_메모.md"),
    ],
)
def test_every_pointer_shape_is_a_pointer_to_its_root_relative_file(line: str, target: str) -> None:
    parsed = classify(line)

    assert parsed.kind == "pointer"
    assert parsed.target == target
    assert parsed.targets[0] == target
    assert parsed.text == line


def test_pointer_with_two_links_names_both_and_points_at_the_first() -> None:
    parsed = classify("- [a](a.md) and [b](b.md)")

    assert parsed.kind == "pointer"
    assert parsed.targets == ("a.md", "b.md")
    assert parsed.target == "a.md"


@pytest.mark.parametrize(
    "line",
    [
        "- [x](http://example.com/x.md) — hook",
        "- [x](https://example.com/x.md) — hook",
        "- [x](#anchor) — hook",
        "- [x](../outside.md) — hook",
        "- [x](sub/../../outside.md) — hook",
        "- [x](/abs/x.md) — hook",
        "- [x](C:/notes/x.md) — hook",
        "- [x](mailto:someone@x.md) — hook",
        "- [x](notes.txt) — hook",
    ],
)
def test_links_that_are_not_local_memories_do_not_make_a_pointer(line: str) -> None:
    parsed = classify(line)

    assert parsed.kind == "text"
    assert parsed.targets == ()
    assert parsed.target is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("x.md", "x.md"),
        ("./x.md", "x.md"),
        ("sub/x.md", "sub/x.md"),
        ("<a b.md>", "a b.md"),
        ("a%20b.md", "a b.md"),
        ("sub\\x.md", "sub/x.md"),
        ("X.MD", "X.MD"),
        ("x.md#section", "x.md"),
        ("http://e.com/x.md", None),
        ("#anchor", None),
        ("../outside.md", None),
        ("..", None),
        ("/etc/x.md", None),
        ("\\\\server\\x.md", None),
        ("D:\\x.md", None),
        ("x.txt", None),
        ("", None),
    ],
)
def test_local_target_names_only_files_inside_the_root(raw: str, expected: str | None) -> None:
    assert local_target(raw) == expected


# --- headings, tables, text, blanks ---------------------------------------------------------


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5, 6])
def test_headings_of_every_level_carry_their_level_and_text(level: int) -> None:
    parsed = classify("#" * level + " Project notes")

    assert parsed.kind == "heading"
    assert parsed.level == level
    assert parsed.heading_text == "Project notes"
    assert parsed.target is None


def test_closing_hashes_are_not_part_of_the_heading_text() -> None:
    assert classify("## Feedback ##").heading_text == "Feedback"


@pytest.mark.parametrize("line", ["####### seven hashes", "#hashtag without space"])
def test_hashes_that_do_not_make_a_heading_are_text(line: str) -> None:
    parsed = classify(line)

    assert parsed.kind == "text"
    assert parsed.level == 0


def test_heading_with_a_link_is_a_heading_that_links_its_file() -> None:
    line = classify("## See [x](x.md)")

    assert (line.kind, line.targets, line.target, line.pointers) == ("heading", ("x.md",), None, ())


@pytest.mark.parametrize(
    ("line", "targets"),
    [
        ("| Topic | File |", ()),
        ("|---|---|", ()),
        ("| Deploy | [deploy](deploy.md) |", ("deploy.md",)),
        ("  | a | [x](x.md) | [y](sub/y.md) |", ("x.md", "sub/y.md")),
        ("| web | [site](https://e.com/a.md) |", ()),
    ],
)
def test_table_rows_are_tables_with_the_memories_they_link(
    line: str, targets: tuple[str, ...]
) -> None:
    parsed = classify(line)

    assert parsed.kind == "table"
    assert parsed.targets == targets
    assert parsed.target is None


@pytest.mark.parametrize(
    ("line", "targets"),
    [
        ("See [deploy](deploy.md) before any release.", ("deploy.md",)),
        ("Rules live in [a](a.md) and [b](<b c.md>).", ("a.md", "b c.md")),
        ("- see [x](x.md) for more", ("x.md",)),
        ("- Use pnpm, see [x](http://e.com) and [y](y.md)", ("y.md",)),
    ],
)
def test_links_inside_a_sentence_are_text_with_targets(line: str, targets: tuple[str, ...]) -> None:
    parsed = classify(line)

    assert parsed.kind == "text"
    assert parsed.targets == targets
    assert parsed.target is None


@pytest.mark.parametrize(
    "line",
    [
        "The staging database listens on port 6432.",
        "- Always use pnpm, never npm",
        "1. Deploys happen on Thursday",
        "사용자는 한국어로 답변을 선호한다",
        "**Why:** a mocked test passed while the migration failed",
        "---",
    ],
)
def test_plain_facts_are_text_without_targets(line: str) -> None:
    parsed = classify(line)

    assert parsed.kind == "text"
    assert parsed.targets == ()


@pytest.mark.parametrize("line", ["", " ", "\t", "   \t  "])
def test_blank_and_whitespace_only_lines_are_blank(line: str) -> None:
    parsed = classify(line)

    assert parsed.kind == "blank"
    assert parsed.text == line


# --- whole index -----------------------------------------------------------------------------

SAMPLE = [
    "# Memory index",
    "",
    "## Feedback",
    "- [No mocks](feedback_no_mock.md) — integration tests hit a real database",
    "| a | [t](t.md) |",
    "See [x](x.md) for details.",
    "Port 5432 is the default.",
]


def test_index_lines_are_classified_in_order() -> None:
    parsed = parse_index("\n".join(SAMPLE) + "\n")

    assert [line.text for line in parsed] == SAMPLE
    assert [line.kind for line in parsed] == [
        "heading",
        "blank",
        "heading",
        "pointer",
        "table",
        "text",
        "text",
    ]


def test_crlf_index_gives_the_same_lines_as_lf() -> None:
    lf = parse_index("\n".join(SAMPLE) + "\n")
    crlf = parse_index("\r\n".join(SAMPLE) + "\r\n")

    assert crlf == lf
    assert all("\r" not in line.text for line in crlf)


def test_final_newline_does_not_add_a_line_but_a_trailing_blank_line_is_kept() -> None:
    assert [line.text for line in parse_index("a\nb")] == ["a", "b"]
    assert [line.text for line in parse_index("a\nb\n")] == ["a", "b"]
    assert [line.kind for line in parse_index("a\nb\n\n")] == ["text", "text", "blank"]
    assert [line.kind for line in parse_index("a\r\n\r\n")] == ["text", "blank"]


def test_empty_index_has_no_lines() -> None:
    assert parse_index("") == []


_LINE_CHARS = st.characters(codec="utf-8", exclude_characters="\r\n")


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.text(_LINE_CHARS, max_size=40), max_size=20), crlf=st.booleans())
def test_any_index_splits_back_into_its_lines(lines: list[str], crlf: bool) -> None:
    newline = "\r\n" if crlf else "\n"
    text = newline.join(lines) + newline if lines else ""

    assert [line.text for line in parse_index(text)] == lines


# --- split_pointer -----------------------------------------------------------------------


@pytest.mark.parametrize("sep", [" — ", " – ", " - ", ": ", "; ", " -- ", " | "])
def test_split_pointer_finds_each_separator(sep: str) -> None:
    line = f"- [Deploy](deploy.md){sep}ship on Thursday - after review: always"

    assert split_pointer(line) == (
        "- [Deploy](deploy.md)",
        sep,
        "ship on Thursday - after review: always",
    )


@pytest.mark.parametrize("marker", ["**", "__", "*", "_"])
def test_split_pointer_keeps_the_emphasis_around_a_link_in_the_link_part(marker: str) -> None:
    line = f"- {marker}[x](x.md){marker} — the hook"

    assert split_pointer(line) == (f"- {marker}[x](x.md){marker}", " — ", "the hook")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("1. [x](x.md): hook", ("1. [x](x.md)", ": ", "hook")),
        ("* [x](x.md); hook", ("* [x](x.md)", "; ", "hook")),
        ("- [x](<a b.md>) — hook", ("- [x](<a b.md>)", " — ", "hook")),
        ("- [x](x.md) hook without separator", ("- [x](x.md)", "", " hook without separator")),
        ("- [x](x.md)", ("- [x](x.md)", "", "")),
        ("no link at all", ("no link at all", "", "")),
    ],
)
def test_split_pointer_handles_markers_and_missing_parts(
    line: str, expected: tuple[str, str, str]
) -> None:
    assert split_pointer(line) == expected


@settings(max_examples=100, deadline=None)
@given(
    title=st.text(st.characters(codec="utf-8", exclude_characters="[]\\\r\n"), max_size=20),
    sep=st.sampled_from([" — ", " – ", " - ", ": ", "; ", ""]),
    hook=st.text(_LINE_CHARS, max_size=60),
)
def test_split_pointer_parts_join_back_into_the_line(title: str, sep: str, hook: str) -> None:
    line = f"- [{title}](x.md){sep}{hook}"

    link, found_sep, found_hook = split_pointer(line)

    assert link + found_sep + found_hook == line
    assert link == f"- [{title}](x.md)"


# --- retarget, link_title, link_path -------------------------------------------------------


def test_retarget_rewrites_only_links_to_the_old_file() -> None:
    line = (
        "- [a](a.md) — see [also](./a.md), [b](b.md), [web](https://e.com/a.md),"
        " [sub](sub/a.md) and [top](#a.md)"
    )

    assert retarget(line, "a.md", "c.md") == (
        "- [a](c.md) — see [also](c.md), [b](b.md), [web](https://e.com/a.md),"
        " [sub](sub/a.md) and [top](#a.md)"
    )


def test_retarget_matches_escaped_and_angle_bracket_forms_of_the_old_file() -> None:
    line = "[one](a%20b.md) [two](<a b.md>) [three](a_b.md)"

    assert retarget(line, "a b.md", "c.md") == "[one](c.md) [two](c.md) [three](a_b.md)"


def test_retarget_to_a_file_with_spaces_uses_angle_brackets() -> None:
    assert retarget("- [a](a.md) — hook", "a.md", "new note.md") == "- [a](<new note.md>) — hook"


def test_retarget_with_no_matching_link_leaves_the_line_alone() -> None:
    line = "| x | [b](b.md) | plain **bold** text [not a link] |"

    assert retarget(line, "a.md", "c.md") == line


def test_link_title_is_the_text_of_the_first_link() -> None:
    assert link_title("- **[No mocks](a.md)** and [other](b.md)") == "No mocks"
    assert link_title("no link") == ""


@pytest.mark.parametrize(
    ("rel", "expected"),
    [("a.md", "a.md"), ("sub/a.md", "sub/a.md"), ("a b.md", "<a b.md>"), ("a(1).md", "<a(1).md>")],
)
def test_link_path_wraps_names_markdown_would_break(rel: str, expected: str) -> None:
    assert link_path(rel) == expected
    assert local_target(link_path(rel)) == rel
