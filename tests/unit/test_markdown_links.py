"""The Markdown link grammar every reader shares: links resolved from a memory's own folder,
rewritten keeping their text, anchor and title, and turned into marked plain text; and a
module that depends on nothing of the tool's, so detect can use it without the index."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest

from consolidator.detect.words import _paragraphs
from consolidator.index import parse
from consolidator.store import codespans
from consolidator.store import links as markdown_links
from consolidator.store.codespans import code_spans, fence_kinds
from consolidator.store.links import (
    LINK_RE,
    WIKI_RE,
    link_matches,
    link_path,
    local_target,
    relink,
    resolve_link,
    retarget,
    sub_wiki,
    unlink,
    wiki_matches,
)


@pytest.mark.parametrize(
    ("raw", "folder", "expected"),
    [
        ("b.md", "notes", "notes/b.md"),
        ("../b.md", "notes", "b.md"),
        ("./sub/b.md#part", "notes", "notes/sub/b.md"),
        ("<my note.md>", "", "my note.md"),
        ("my%20note.md", "", "my note.md"),
        ("../../b.md", "notes", None),
        ("https://e.com/b.md", "notes", None),
        ("b.txt", "notes", None),
    ],
)
def test_resolve_link_reads_a_target_from_the_folder_it_is_written_in(
    raw: str, folder: str, expected: str | None
) -> None:
    assert resolve_link(raw, folder) == expected


def test_local_target_is_a_link_written_at_the_root() -> None:
    assert local_target("sub/../a.md") == "a.md"
    assert local_target("../a.md") is None


def test_relink_keeps_the_text_the_anchor_and_the_title() -> None:
    match = LINK_RE.search('see [the rule](old.md#why "Old rule") here')
    assert match is not None

    assert relink(match, "new note.md") == '[the rule](<new note.md#why> "Old rule")'


def test_retarget_and_unlink_touch_only_links_to_the_files_named() -> None:
    text = "[a](a.md), [b](b.md) and [[a]]"

    assert retarget(text, "a.md", "c.md") == "[a](c.md), [b](b.md) and [[a]]"
    assert unlink(text, {"a.md"}, "archived") == "a (a.md archived), [b](b.md) and [[a]]"
    assert unlink("[](a.md)", {"a.md"}, "missing") == "(a.md missing)"


@pytest.mark.parametrize(("text", "kept"), [
    ("[[[maybe_unused]] is no evidence](a.md)",
     r"\[\[maybe_unused]] is no evidence (a.md missing)"),
    ("[see [the rule](b.md) first](a.md)", r"see \[the rule](b.md) first (a.md missing)"),
    ("[x [a [b](c.md)](d.md)](a.md)", r"x \[a \[b](c.md)](d.md) (a.md missing)"),
    (r"[a \[b\] c](a.md)", r"a \[b\] c (a.md missing)"),
    ("[`[[x]]` and [[y]]](a.md)", r"`[[x]]` and \[\[y]] (a.md missing)"),
    ("[`[[x]]` is code](a.md)", "`[[x]]` is code (a.md missing)"),
])
def test_a_link_kept_as_words_never_reads_as_a_link_of_its_own(text: str, kept: str) -> None:
    # The title's brackets are escaped: it shows as written, and the next pass finds no
    # link there to unlink or repoint.
    words = unlink(text, {"a.md"}, "missing")

    assert words == kept
    assert not list(link_matches(words)) and not list(wiki_matches(words))
    assert unlink(words, {"a.md", "b.md", "maybe_unused.md"}, "missing") == words


@pytest.mark.parametrize(("text", "kept"), [
    ("[see [[a](x.md)](a.md)", r"\[see \[a](x.md) (a.md missing)"),
    ("[x [[y](a.md)](a.md)", r"\[x \[y](a.md) (a.md missing)"),
    ("[[[ ](a.md)](a.md)", r"\[\[ ](a.md) (a.md missing)"),
    ("[draft] [[y](x.md)](a.md) and [z](x.md)", r"[draft] \[y](x.md) (a.md missing) and [z](x.md)"),
])
def test_kept_words_never_join_the_brackets_around_them_into_a_link(text: str, kept: str) -> None:
    # A stray "[" before the dead link would close on the kept words' "]": the brackets that
    # open nothing are escaped first, shown as they were; links that stand stay links.
    words = unlink(text, {"a.md"}, "missing")

    assert words == kept
    before = {m.group(2) for m in link_matches(text)}
    assert {m.group(2) for m in link_matches(words)} <= before - {"a.md"}
    assert not list(wiki_matches(words))
    assert unlink(words, {"a.md"}, "missing") == words


def test_an_unlink_that_cannot_keep_its_words_apart_leaves_the_text_as_written() -> None:
    # The title ends on the start of a link, "[x](a.md`", that the mark's closing parenthesis
    # would finish: no form of the words is sure to read as no link, so nothing changes.
    text = "[[x](a.md`](a.md))"
    assert unlink(text, {"a.md"}, "missing") == text


@pytest.mark.parametrize(("text", "links", "wikis"), [
    (r"\[a](x.md) \\[b](x.md) \\\[c](x.md) \\\\[d](x.md)", ["b", "d"], []),
    (r"\\\\\\[e](x.md) \\\\\[f](x.md)", [], []),
    (r"\[[a]] \\[[b]] \\\[[c]] \\\\[[d]]", [], ["b", "d"]),
])
def test_a_bracket_after_an_odd_run_of_backslashes_is_escaped(
    text: str, links: list[str], wikis: list[str]
) -> None:
    # One or three backslashes escape it; two or four are escaped backslashes before an open
    # bracket. A run longer than four is read as escaping it: no link is read there.
    assert [m.group(1) for m in link_matches(text)] == links
    assert [m.group(1) for m in wiki_matches(text)] == wikis


def test_an_escaped_bracket_opens_no_wiki_link() -> None:
    assert [m.group(1) for m in wiki_matches(r"\[[a]] and \\[[b]]")] == ["b"]


def test_reference_definitions_are_links_and_footnotes_are_not() -> None:
    text = ('See [the rule][1] and [setup].\n\n[1]: old.md#why "Old rule"\n'
            '  [setup]: <set up.md>\n[^1]: old.md\n[web]: https://example.com/old.md\n')

    found = [(m.group(1), local_target(m.group(2))) for m in link_matches(text)]
    assert found == [("1", "old.md"), ("setup", "set up.md"), ("web", None)]
    assert retarget(text, "old.md", "new note.md") == text.replace(
        '[1]: old.md#why', '[1]: <new note.md#why>')
    assert unlink(text, {"old.md"}, "archived") == text.replace(
        '[1]: old.md#why "Old rule"', '1: (old.md archived) "Old rule"'), \
        "the definition's words stay; the label's uses read as written"


def test_a_link_rewritten_into_angle_brackets_is_read_back_as_the_same_file() -> None:
    for text in ("[t](old.md#why)", '[1]: old.md#why "T"', "[1]: old.md\r\n[2]: old.md\r\n"):
        rewritten = retarget(text, "old.md", "new note.md")
        found = [local_target(m.group(2)) for m in link_matches(rewritten)]
        assert found and set(found) == {"new note.md"}, (text, rewritten)


def test_wiki_links_name_a_memory_without_their_heading_or_alias() -> None:
    names = [m.group(1) for m in WIKI_RE.finditer("[[deploy#steps]] and [[setup|how to]]")]

    assert names == ["deploy", "setup"]


def test_link_path_reads_back_as_the_file_it_names() -> None:
    for rel in ("a.md", "a b.md", "a(1).md", "a#1.md", "日本.md"):
        assert local_target(link_path(rel)) == rel


@pytest.mark.parametrize("module", [markdown_links, codespans])
def test_the_grammar_depends_only_on_the_standard_library(module: Any) -> None:
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    modules = {alias.name for node in ast.walk(tree)
               if isinstance(node, ast.Import) for alias in node.names}
    modules |= {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module}

    assert {m.split(".")[0] for m in modules - {"consolidator.store.codespans"}} \
        <= set(sys.stdlib_module_names) | {"__future__"}


@pytest.mark.parametrize(
    "name", ["LINK_RE", "WIKI_RE", "link_path", "local_target", "relink", "resolve_link",
             "retarget", "unlink"],
)
def test_the_index_parser_still_offers_the_grammar_under_its_old_names(name: str) -> None:
    assert getattr(parse, name) is getattr(markdown_links, name)


def test_a_bracket_after_an_escaped_backslash_opens_a_link() -> None:
    assert [m.group(2) for m in LINK_RE.finditer(r"a path \\[t](a.md) and \[u](b.md)")] \
        == ["a.md"], "an escaped backslash escapes nothing after it; an escaped [ is text"


def test_a_target_with_parentheses_and_every_kind_of_title_are_read() -> None:
    text = "[v2](notes(v2).md) [a](a.md 'single') [b](b.md (parens)) ([c](c.md))"

    assert [m.group(2) for m in LINK_RE.finditer(text)] == ["notes(v2).md", "a.md", "b.md",
                                                            "c.md"]
    assert retarget(text, "a.md", "z.md").startswith("[v2](notes(v2).md) [a](z.md 'single')")
    assert retarget(text, "notes(v2).md", "v3.md").startswith("[v2](v3.md) ")


def test_a_link_text_with_balanced_brackets_is_still_a_link() -> None:
    found = [m.group(2) for m in LINK_RE.finditer(
        "- [[[maybe_unused]] is not dead code](feedback_unused.md) — count callers first")]

    assert found == ["feedback_unused.md"]


CODE = (
    "Use [the notes](a.md) and [[a]].\n"
    "```markdown\n"
    "- [Old](a.md) — a pointer line, as an example\n"
    "[1]: a.md\n"
    "```\n"
    "Inline: `[Old](a.md)`, ``a ` [[a]] tick``, then [again](a.md).\n"
    "   ~~~~\n"
    "[[a]] in a tilde block\n"
    "   ~~~~\n"
    "[2]: a.md\n"
)


def test_code_spans_are_fenced_blocks_and_inline_code() -> None:
    spans = code_spans(CODE)

    assert [CODE[a:b] for a, b in spans] == [
        "```markdown\n- [Old](a.md) — a pointer line, as an example\n[1]: a.md\n```\n",
        "`[Old](a.md)`",
        "``a ` [[a]] tick``",
        "   ~~~~\n[[a]] in a tilde block\n   ~~~~\n",
    ]
    assert code_spans("no code, one ` tick") == []
    open_block = "- item\n  ```\nthe list ended, [x](a.md) is a link\n"
    assert code_spans(open_block) == [], "a fence never closed opens nothing"
    assert [m.group(2) for m in link_matches(open_block)] == ["a.md"]


def test_a_link_in_code_is_no_link_and_is_never_rewritten() -> None:
    found = [(m.start(), m.group(2)) for m in link_matches(CODE)]

    assert [target for _at, target in found] == ["a.md", "a.md", "a.md"]
    assert [m.group(1) for m in wiki_matches(CODE)] == ["a"]
    moved = retarget(CODE, "a.md", "b.md")
    assert moved.count("(b.md)") == 2 and "[2]: b.md" in moved
    assert moved.count("(a.md)") == 2 and "[1]: a.md" in moved, "the examples stay as written"
    plain = unlink(CODE, {"a.md"}, "archived")
    assert "- [Old](a.md) — a pointer line" in plain and "`[Old](a.md)`" in plain
    assert sub_wiki(lambda m: "X", CODE).count("[[a]]") == 2


@pytest.mark.parametrize(("text", "code"), [
    ("Build with `make\nrelease` first, then [the rule](a.md) and `--dry-run`.", None),
    ("A literal \\` tick, then [the rule](a.md) and `make deploy`.", ["`make deploy`"]),
    ("`a\\` ends at the escaped-looking tick: [the rule](a.md)", ["`a\\`"]),
    ("- one `open\n- two [the rule](a.md) `x`", ["`x`"]),
    ("one `open\n\ntwo [the rule](a.md) `x`", ["`x`"]),
    ("a\u2028```\n[the rule](a.md)\n", []),
    ("A stray ` tick.\n---\nThen [the rule](a.md) and `make sdk`.", None),
    ("# A ` heading\nThen [the rule](a.md) and `make sdk`.", None),
    ("A stray ` tick.\rThen [the rule](a.md) and `make sdk`.", None),
], ids=["wrapped", "escaped", "backslash-inside", "list-items", "paragraphs", "not-a-newline",
        "after-a-rule", "after-a-heading", "cr-line-ends"])
def test_inline_code_never_hides_a_link_markdown_sees(text: str, code: list[str] | None) -> None:
    """Code is where pairing within the paragraph and within the line agree (``None``: they
    disagree, and only the link is sure)."""
    if code is not None:
        assert [text[a:b] for a, b in code_spans(text)] == code
    assert [m.group(2) for m in link_matches(text)] == ["a.md"], "the real link is a link"


def test_finding_code_spans_stays_linear_on_hostile_text() -> None:
    hostile = "`" * 20_000 + " x " + "``" * 10_000 + "\n" + "```\n" * 5_000

    spans = code_spans(hostile)  # quadratic pairing would take minutes here

    assert spans and all(a < b for a, b in spans)


# --- fenced blocks as the detectors read a memory -------------------------------------------


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("a\n```bash\nx\n```\nb", ["", "fence", "code", "fence", ""]),
        ("a\n~~~\nx\n~~~\nb", ["", "fence", "code", "fence", ""]),
        ("~~~\n```\nx\n~~~\nb", ["fence", "code", "code", "fence", ""]),  # not its closer
        ("````\n```\nx\n````", ["fence", "code", "code", "fence"]),  # a shorter run is code
        ("- item\n    ```\n    x\n    ```\nb", ["", "fence", "code", "fence", ""]),  # in a list
        ("``` a`b\nx", ["", ""]),  # a backtick in a backtick fence's info string: no fence
    ],
    ids=["backticks", "tildes", "other-fence-inside", "longer-fence", "indented", "no-fence"],
)
def test_fence_kinds_pair_each_fence_with_its_own_closer(text: str, kinds: list[str]) -> None:
    assert list(fence_kinds(text.split("\n"))) == kinds


@pytest.mark.parametrize("fence", ["```", "~~~"])
def test_a_closing_fence_never_joins_the_paragraph_after_it(fence: str) -> None:
    assert _paragraphs(f"Intro\n{fence}\ncode\n{fence}\nAfter") == ["Intro", "After"]
