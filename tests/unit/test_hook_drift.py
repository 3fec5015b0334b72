"""The index against its memories: an index line whose hook counts something otherwise than
the memory it points to is a warning on that memory, quoting both; the numbers that count
nothing (dates, ranges, versions, years), a memory that still writes the index's figure, and
a hook that agrees never are."""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidator.detect.conflicts.hooks import hook_drift
from consolidator.store.model import IndexFile, Memory, Snapshot
from tests.unit.test_detect import lines, memory


def drift(index: str, *memories: Memory) -> dict[str, list[str]]:
    return hook_drift(Snapshot(Path("."), memories, (), IndexFile(index, None)))


def test_a_hook_that_counts_other_agents_than_the_description_is_a_warning_quoting_both() -> None:
    team = memory("project_team.md", "The agents run on one VPS.\n",
                  description="Atlas runs 9 agents on the rented VPS")
    index = lines("# Memory", "- [Agent team](project_team.md) — Atlas 10 agents on the VPS")

    assert drift(index, team) == {"project_team.md": [
        'MEMORY.md line 2 says "Atlas 10 agents on the VPS", and the memory\'s description '
        '"Atlas runs 9 agents on the rented VPS", without 10: one of them is out of date']}


@pytest.mark.parametrize(("hook", "description"), [
    ("인터뷰 쇼츠 — 8편 구성 확정", "인터뷰 영상을 6편 숏폼으로 나누는 작업"),  # a counter on the number
    ("重构进度：39个模块已迁移", "重构进度，28个模块迁移完成"),
    ("Тарифы: 14 планов, цены в копейках", "Сайт показывает 12 планов с ценами"),  # inflected
    ("**Phase 4** wrapped up, next the audit", "Phase 3 done, data completion next"),  # a label
    ("Beta: 40 testers signed up", "The beta has 55 testers"),
    ("CI adds 3 more checks", "CI now adds 5 more checks"),  # the key past "more"
    ("Django 4.2 on the API", "API on Django 5.0"),  # a decimal is a value too
    # The description gives another figure: the body telling of the old one does not help.
    ("8 clips planned", "Cut into 6 clips"),
])
def test_the_key_is_read_beside_the_number_in_any_language(hook: str, description: str) -> None:
    note = memory("project_note.md", "The first plan had 8.\n", description=description)

    found = drift(f"- [Note](project_note.md) — {hook}\n", note)

    assert list(found) == ["project_note.md"]


def test_the_body_counts_too_where_it_gives_the_key_one_value() -> None:
    one = memory("infra.md", "The cluster now runs 14 services behind the gateway.\n",
                 description="The cluster and its gateway")
    two = memory("infra.md", lines("We began with 14 services.", "Today 16 services run."),
                 description="The cluster and its gateway")
    index = "- [Infra](infra.md) — 12 services behind one gateway\n"

    (warning,) = drift(index, one)["infra.md"]
    assert 'the memory\'s text "The cluster now runs 14 services behind the gateway."' in warning
    assert drift(index, two) == {}  # two values: the body tells a story, not one figure


@pytest.mark.parametrize(("hook", "description", "body"), [
    # The memory still writes the index's figure: the story of a change, not a stale hook.
    ("8 clips planned", "Cut into 6 clips (down from 8)", ""),
    # The hook writes the memory's figure too.
    ("10 agents (9 active)", "9 agents on the VPS", ""),
    # They agree.
    ("9 agents on the VPS", "Atlas with 9 agents", ""),
    # Numbers that count nothing: dates, times, ranges, versions, shares, sizes, years, ids.
    ("final cut due 4/29", "final cut due 5/2", ""),
    ("drift 13-25 mm", "drift 4-5 mm", ""),
    ("release 2.1.0 shipped", "release 2.4.1 shipped", ""),
    ("coverage 40% reached", "coverage 55% reached", ""),
    ("a 5x speedup", "a 3x speedup", ""),
    ("2025 plans", "2026 plans", ""),
    ("build at 09:30 daily", "build at 07:30 daily", ""),
    ("main f8c3c18 merged", "main c7b2139 merged", ""),
    # No key: a word after that joins rather than counts, a small word before.
    ("steps 3 and 4", "steps 5 and 6", ""),
    ("the 3 of them", "the 4 of them", ""),
    # Different keys: one count each of different things.
    ("10 agents", "12 cycles", ""),
    ("Added 3 tests", "Added 5 pages", ""),
    ("3 more tests", "5 more pages", ""),
])
def test_numbers_that_name_different_things_or_agree_are_no_drift(
        hook: str, description: str, body: str) -> None:
    note = memory("note.md", body or "Body.\n", description=description)

    assert drift(f"- [Note](note.md) — {hook}\n", note) == {}


def test_lines_that_are_no_pointers_or_point_at_no_memory_are_left_alone() -> None:
    note = memory("note.md", "Body.\n", description="Atlas runs 9 agents")
    index = lines("Atlas 10 agents, said in a sentence with a [link](note.md).",
                  "- [Gone](gone.md) — Atlas 10 agents",
                  "| [Note](note.md) | Atlas 10 agents |")

    assert drift(index, note) == {}
    assert drift("", note) == {}


def test_each_disagreeing_line_is_its_own_warning_under_the_index_name_the_root_has() -> None:
    note = memory("note.md", "Body.\n", description="Atlas runs 9 agents")
    index = lines("- [Note](note.md) — Atlas 10 agents", "- [Again](note.md) — 11 agents")
    snapshot = Snapshot(Path("."), (note,), (), IndexFile(index, None, name="memory.md"))

    warnings = hook_drift(snapshot)["note.md"]

    assert [w.split(" says ")[0] for w in warnings] == ["memory.md line 1", "memory.md line 2"]
