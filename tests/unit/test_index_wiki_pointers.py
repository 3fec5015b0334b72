"""A new pointer in an index that links its memories by wiki links (``- [[name]] — hook``):
a wiki link too, keyed by the file's stem, titled where the others are (``[[stem|Title]]``);
a Markdown link where that key would name another memory, or none."""

from __future__ import annotations

from tests.unit.test_index_rebuild import lines_of, make_memory, rebuild

NEW = make_memory("project_new-thing.md", name="project_new-thing", description="A new thing")
OLD = [make_memory("feedback_a.md", description="Alpha"),
       make_memory("feedback_b.md", description="Beta")]

KEYED = "# Memory\n\n- [[feedback_a]] — Alpha\n- [[feedback_b]] — Beta\n"
TITLED = "# Memory\n\n- [[feedback_a|Rule A]] — Alpha\n- [[feedback_b|Rule B]] — Beta\n"


def test_a_new_pointer_is_a_wiki_link_where_the_index_links_so() -> None:
    out = rebuild(KEYED, [*OLD, NEW]).text

    assert lines_of(out) == lines_of(KEYED) + ["- [[project_new-thing]] — A new thing"]
    assert rebuild(out, [*OLD, NEW]).text == out  # listed: a second run adds nothing


def test_a_new_wiki_pointer_is_titled_where_the_others_are() -> None:
    out = rebuild(TITLED, [*OLD, NEW]).text

    assert lines_of(out)[-1] == "- [[project_new-thing|New thing]] — A new thing"
    assert rebuild(out, [*OLD, NEW]).text == out


def test_a_key_another_memory_answers_to_gets_a_markdown_link() -> None:
    """A memory named like the new file's stem would take its wiki link: the new pointer
    links the file instead, and a second run adds no second pointer."""
    other = make_memory("feedback_c.md", name="project_new-thing", description="Gamma")
    index = KEYED + "- [[feedback_c]] — Gamma\n"

    out = rebuild(index, [*OLD, other, NEW]).text

    assert lines_of(out)[-1] == "- [New thing](project_new-thing.md) — A new thing"
    assert rebuild(out, [*OLD, other, NEW]).text == out


def test_a_memory_in_a_folder_gets_a_markdown_link() -> None:
    nested = make_memory("notes/project_nested.md", name="project_nested", description="Deep")

    out = rebuild(KEYED, [*OLD, nested]).text

    assert lines_of(out)[-1] == "- [Nested](notes/project_nested.md) — Deep"


def test_an_index_of_markdown_links_keeps_them() -> None:
    text = "# Memory\n\n- [A](feedback_a.md) — Alpha\n- [[feedback_b]] — Beta\n"

    out = rebuild(text, [*OLD, NEW]).text

    assert lines_of(out)[-1] == "- [New thing](project_new-thing.md) — A new thing"
