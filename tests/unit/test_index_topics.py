"""A huge index is moved into topic memories that each stay readable as a memory."""

from __future__ import annotations

import hashlib

import pytest

from consolidator.index.parse import classify, parse_index
from consolidator.index.pointers import pointer_line
from consolidator.index.rebuild import TOPIC_MAX_BYTES, Limits, plan_index
from consolidator.index.sections import spaced, summary
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory
from tests.unit.test_index_rebuild import make_memory


def _memory(rel: str) -> Memory:
    data = f"---\nname: {rel[:-3]}\ndescription: d\ntype: project\n---\nbody\n".encode()
    return Memory(FileStat(rel, len(data), 1, 0o644, hashlib.sha256(data).hexdigest()),
                  parse(data))


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_section_too_big_for_one_memory_is_split_across_topic_memories() -> None:
    hook = "x" * 140
    files = [f"m{i:05d}.md" for i in range(9000)]
    text = "## Project\n" + "".join(f"- [{f}]({f}) — {hook}\n" for f in files)
    assert len(text.encode()) > 2 * TOPIC_MAX_BYTES

    plan = plan_index(text, [_memory(f) for f in files], present=set(files), limits=Limits())

    assert plan.over_limits and plan.within_limits and not plan.dropped
    assert len(plan.creates) >= 3
    assert all(topic.reason == "index overflow" for topic in plan.creates)
    for topic in plan.creates:
        assert len(topic.text.encode()) < 1024 * 1024
        assert parse(topic.text.encode()).fields["name"] == topic.file[:-3]
    listed = {t for topic in plan.creates for line in parse_index(topic.text) for t in line.targets}
    assert set(files) <= listed
    pointed = {line.target for line in parse_index(plan.text) if line.target}
    assert {topic.file for topic in plan.creates} <= pointed


def test_a_topic_pointer_quotes_file_names_with_their_underscores() -> None:
    """Emphasis marks go from the words a topic pointer quotes; an underscore inside a word
    (a file name in code) is part of it."""
    hook = summary([classify("- See `project_living_intelligence.md` — the full stack"),
                    classify("- __Deploys__ go out _weekly_ from snake_case_branch")])

    assert hook == ("2 lines moved from MEMORY.md: See project_living_intelligence.md — the "
                    "full stack, Deploys go out weekly from snake_case_branch")


def test_a_topic_pointer_names_the_sections_it_holds_before_their_lines() -> None:
    """A hook cut to fit the line limit still names every section moved behind it: the
    headings come first, then the lines' own first words."""
    lines = [classify(f"- note number {n} about the pump and its valves") for n in range(8)]
    lines += [classify("## People and decisions"), classify("- Ana owns the pump")]

    hook = summary(lines)
    line = pointer_line(make_memory("index_more.md"), 150, title="More of the index", hook=hook)

    assert hook.startswith("10 lines moved from MEMORY.md: People and decisions, note number 0")
    assert "People and decisions" in line


@pytest.mark.parametrize(
    "fence", ["```bash", "~~~", "---", "***", "| --- | :-: |", "|---|---|"],
)
def test_a_topic_pointer_takes_no_words_from_fences_rules_or_separator_rows(fence: str) -> None:
    hook = summary([classify(fence), classify("make water"), classify("**Ana**: owns the pump")])

    assert hook == "3 lines moved from MEMORY.md: make water, Ana: owns the pump"


def test_a_rule_moved_under_a_paragraph_keeps_a_blank_line_before_it() -> None:
    """Without it, Markdown reads the paragraph as a heading underlined by the rule."""
    lines = [classify("Ports are fixed."), classify("---"), classify("- a list item"),
             classify("==="), classify(""), classify("---")]

    assert spaced(lines) == ["Ports are fixed.", "", "---", "- a list item", "", "===", "",
                             "---"]
