"""A relative day in a heading, where the text dates its section (issue 25): glossed, the
heading's words kept ("## Deploy tomorrow (2026-09-01)"). A heading that gives its day itself,
or one only the save time would date (a "## Tomorrow" list kept from day to day), is left.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from consolidator.detect.dates.relative import find_relative, rewrite_relative

WRITTEN = datetime(2026, 9, 2, 9, 0)  # saved the morning after the day the file is named for


def glossed(body: str, name: str = "project_state_2026_08_31.md",
            undated: bool = False) -> list[str]:
    return [f.replacement for f in find_relative(body, WRITTEN, name, undated)]


@pytest.mark.parametrize("body, expected", [
    ("# State\n\n## Deploy tomorrow\n\n- run the migration\n", "tomorrow (2026-09-01)"),
    ("# Estado\n\n## Para desplegar mañana\n\n- migrar la base de datos y revisar los "
     "registros de la aplicación en el servidor\n", "mañana (2026-09-01)"),
    ("# 状态\n\n## 明天要部署的改动\n\n- 迁移数据库\n", "明天 (2026-09-01)"),
    ("# Stato\n\n## Lavoro fatto in questa sessione\n\n- migrato il database\n",
     "questa sessione (2026-08-31)"),
], ids=["en", "es", "zh", "it-session"])
def test_a_headings_relative_day_is_glossed_with_the_day_its_file_name_gives(
        body: str, expected: str) -> None:
    (found,) = glossed(body)
    assert found.endswith(expected)


def test_the_heading_keeps_its_words_and_a_second_pass_glosses_nothing() -> None:
    body = "# State\n\n## Deploy tomorrow\n\n- run the migration\n"
    once = rewrite_relative(body, find_relative(body, WRITTEN, "project_state_2026_08_31.md",
                                                False))
    assert "## Deploy tomorrow (2026-09-01)\n" in once
    assert find_relative(once, WRITTEN, "project_state_2026_08_31.md", False) == []


def test_lines_under_a_glossed_heading_keep_the_day_of_their_writing() -> None:
    body = ("# State\n\n## Deploy tomorrow (2026-09-01)\n\n"
            "- Yesterday the staging run failed twice.\n")
    (found,) = find_relative(body, WRITTEN, "notes.md", False)
    assert found.resolved == "2026-08-30"


@pytest.mark.parametrize("body, name, undated", [
    # the heading gives its day itself
    ("# State\n\n## Today's checks (2026-08-31)\n\n- the backup ran\n",
     "project_state_2026_08_31.md", False),
    # only the save time would date it: a list kept from day to day
    ("# Todo\n\n## Tomorrow\n\n- call the bank\n", "todo.md", True),
    # no date at all
    ("# Todo\n\n## Tomorrow\n\n- call the bank\n", "todo.md", False),
], ids=["own-date", "save-time-only", "undated"])
def test_a_heading_dated_by_itself_or_by_nothing_but_the_save_time_is_left(
        body: str, name: str, undated: bool) -> None:
    assert glossed(body, name, undated) == []



@pytest.mark.parametrize("body", [
    "Resume point: commit 717ea76, 651 tests green.\n\n**Done before this session:** the "
    "whole pipeline.\n\n**Done in this session (markers):**\n- the marker model\n\n"
    "**Done afterwards (welcome screen):**\n- the drop zone\n",
    "Point de reprise : commit 717ea76.\n\n**Fait dans cette session (repères) :**\n"
    "- le modèle des repères\n\n**Fait ensuite :**\n- l'écran d'accueil\n",
    "**Yesterday:** shipped the fix.\n",
], ids=["en", "fr", "yesterday"])
def test_a_bold_label_naming_its_section_is_left_where_only_the_save_time_dates_it(
        body: str) -> None:
    """"**Done in this session:**" names what follows as a heading does: a status note kept
    and extended after that session ("Done afterwards") has no day for it but the save
    time, which is the last extension's."""
    assert glossed(body, "project_status.md", undated=True) == []


def test_a_bold_label_the_text_dates_is_glossed_keeping_its_words() -> None:
    body = "# Log 2026-08-31\n\n**Done in this session:** the markers.\n"
    assert glossed(body, "notes.md") == ["this session (2026-08-31)"]


def test_how_to_apply_speaks_to_sessions_to_come_even_in_a_dated_log() -> None:
    """"When a session opens, read this file first for yesterday's context": the day before
    whichever session reads it, in a log dated by its name too."""
    body = ("# Nhật ký\n\nĐã sửa lỗi đồng bộ và cập nhật tài liệu cho dự án.\n\n"
            "**How to apply:** khi mở phiên mới, đọc file này trước để biết bối cảnh hôm qua.\n")
    assert glossed(body, "session_log_2026_08_31.md") == []
