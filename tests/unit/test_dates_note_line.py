"""The note's own date line: a first line of text written as the note's title with its date
in brackets dates every passage no heading or label of its own dates (issue 25).

"Notes of session 1.2 (2026-03-28)." over "## Setup ... fixed in this session": the session
is the 28th, not the day the file was last saved. A first line that tells of an event with a
date in it, a longer sentence, or a date that is not the line's closing aside dates nothing.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from consolidator.detect.dates.relative import find_relative

SAVED = datetime(2026, 3, 30, 9, 0)  # saved two days after the day the text names


def glossed(body: str, undated: bool = False) -> list[str]:
    return [f.replacement for f in find_relative(body, SAVED, "notes.md", undated)]


@pytest.mark.parametrize("body, phrase", [
    ("Notes of session 1.2 (2026-03-28).\n\n## Setup\n\nFixed the config in this session.\n",
     "this session"),
    ("Notas de la Sesión 1.2 (2026-03-28).\n\n## phpunit.xml\n\nSe descomentaron en esta sesión.\n",
     "esta sesión"),
    ("# Modules\n\nセッション 1.2 のメモ（2026-03-28）\n\n## 設定\n\n本セッションで設定を直した。\n",
     "本セッション"),
    ("Заметки сессии 1.2 [28.03.2026]\n\n## Настройка\n\nВ этой сессии исправлен конфиг.\n",
     "этой сессии"),
], ids=["en", "es", "ja-under-a-title", "ru"])
def test_a_title_line_with_its_date_in_brackets_dates_the_note(body: str, phrase: str) -> None:
    assert glossed(body) == [f"{phrase} (2026-03-28)"]
    assert glossed(body, undated=True) == [f"{phrase} (2026-03-28)"]  # not the saving day


@pytest.mark.parametrize("body", [
    "Deployed on 2026-03-28 after the review.\n\n## Setup\n\nFixed the config in this session.\n",
    "We moved the whole build to the new runners and cleaned the caches (2026-03-28).\n\n"
    "## Setup\n\nFixed the config in this session.\n",
    "- Session 1.2 (2026-03-28)\n\n## Setup\n\nFixed the config in this session.\n",
    "Setup notes.\n\nSession 1.2 (2026-03-28).\n\n## Setup\n\nFixed the config in this session.\n",
    "Sessions 1.2 (2026-03-28) and 1.3 (2026-03-29).\n\n## Setup\n\nFixed it in this session.\n",
], ids=["event", "long-sentence", "list-item", "not-first", "two-dates"])
def test_a_first_line_that_is_no_dated_title_dates_nothing(body: str) -> None:
    assert glossed(body) == []


@pytest.mark.parametrize("label", ["Date", "*Data", "Fecha", "- **Datum**", "Дата", "날짜"])
def test_a_date_label_in_the_notes_language_dates_the_note(label: str) -> None:
    closer = "*" if label == "*Data" else ""
    body = f"# Research\n\n{label}: 2026-03-28{closer}\n\n## Findings\n\nFixed it in this session.\n"
    assert glossed(body) == ["this session (2026-03-28)"]


@pytest.mark.parametrize("line", [
    "Data pipeline: 2026-03-28 rebuilt.",
    # "Data", "Datum" are words of English too: a label only with the date alone after it.
    "Data: 2026-03-28 export of the orders table",
    "**Datum:** 2026-03-28 survey, WGS84",
])
def test_a_line_that_is_no_date_label_dates_nothing(line: str) -> None:
    body = f"# Research\n\n{line}\n\n## Findings\n\nFixed it in this session.\n"
    assert glossed(body) == []
