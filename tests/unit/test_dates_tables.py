"""Relative dates in a table's cells: a cell is the writer's words, read as a line of its own
and dated by its passage; a row that gives a date of its own is of that day, left as written."""

from __future__ import annotations

from datetime import datetime

import pytest

from consolidator.detect.dates.relative import find_relative, rewrite_relative

WRITTEN = datetime(2026, 6, 1, 12, 0)


def found(text: str, name: str = "", undated: bool = False) -> list[tuple[str, str]]:
    return [(f.phrase, f.resolved) for f in find_relative(text, WRITTEN, name, undated)]


@pytest.mark.parametrize(("text", "name", "want"), [
    # The section's heading dates the cell, as it dates a line of prose.
    ("# Status 2026-05-20\n\n| Item | State |\n|---|---|\n| API | was fixed yesterday by Bob |\n",
     "", [("yesterday", "2026-05-19")]),
    ("# 2026-05-10 记录\n\n| 时长 | 实测 |\n|---|---|\n| 8s | ~120s（昨晚 prod 实测） |\n",
     "", [("昨晚", "2026-05-09")]),
    # A snapshot's file name dates it.
    ("| gateway | 18791 | ✅ ACTIVE (починен сегодня) |\n",
     "project_snapshot_20260402.md", [("сегодня", "2026-04-02")]),
])
def test_a_cell_is_dated_by_its_passage(text: str, name: str,
                                        want: list[tuple[str, str]]) -> None:
    assert found(text, name) == want


@pytest.mark.parametrize("text", [
    # A row with a date of its own is of that day, which is not its section's.
    "# Log 2026-05-20\n\n| Date | Note |\n|---|---|\n| 2026-05-18 | deployed yesterday |\n",
    "# Log 2026-05-20\n\n| Note | Date |\n|---|---|\n| deployed yesterday | 05-18 |\n",
    "# Log 2026-05-20\n\n| 日期 | 记录 |\n|---|---|\n| 5月18日 | 昨天上线了 |\n",
    # A routine's table: "yesterday" is whichever day it runs on.
    "# Routine 2026-05-20\n\n| When | What |\n|---|---|\n"
    "| Every morning | check yesterday's logs |\n",
    # Code in a cell.
    "# Status 2026-05-20\n\n| Flag | Use |\n|---|---|\n| `--since yesterday` | filter |\n",
    # A label standing alone in a cell.
    "# Status 2026-05-20\n\n| Today | 3 open |\n|---|---|\n| Yesterday | 5 open |\n",
])
def test_a_cell_its_row_or_its_words_do_not_date_is_left(text: str) -> None:
    assert found(text) == []


def test_a_cells_rewrite_keeps_the_row_whole() -> None:
    text = "# Status 2026-05-20\n\n| Item | State |\n|---|---|\n| API | was fixed yesterday |\n"
    rewritten = rewrite_relative(text, find_relative(text, WRITTEN, "", False))
    row = rewritten.splitlines()[-1]
    assert "2026-05-19" in row and "yesterday" not in row
    assert row.count("|") == 3 and row.startswith("| API | ") and row.endswith(" |")


@pytest.mark.parametrize(("text", "want"), [
    # A sentence quoting a shell pipeline is prose, not a table row: its "2/3" is no row's date.
    ("**2026-05-20 — batch 2/3 done.** The last batch runs tonight; to stop it:"
     " `crontab -l | grep -v batch | crontab -`.\n", [("tonight", "2026-05-20")]),
    ("## 2026-05-20\n\nFixed yesterday in 3/4 shards (`ps aux | grep app | wc -l`).\n",
     [("yesterday", "2026-05-19")]),
])
def test_pipes_inside_code_make_no_table(text: str, want: list[tuple[str, str]]) -> None:
    assert found(text) == want


def test_a_row_without_a_leading_pipe_is_still_a_row() -> None:
    # GitHub reads "a | b | c" as a table row; its date is the row's own.
    text = "# Log 2026-05-20\n\nDate | Note | Who\n---|---|---\n05-18 | deployed yesterday | Bo\n"
    assert found(text) == []
    # ... and so is one whose cell quotes a pipeline.
    text = "# Log 2026-05-20\n\nDate | Note\n---|---\n05-18 | ran `ps | grep app` yesterday\n"
    assert found(text) == []
