"""A relative day the project's code is built on ("isToday", "getTodayRecords"): in its notes
the word for that day, in a language whose sentences no sense rule of ours reads, names the
app's view of the day it is used (오늘 기록, "today's records"), not the day the note was
written, and is left as written. A library's own ``date.today()`` is no such name, nor is the
word alone. English, Chinese and Japanese sentences are read by their own sense rules."""

from __future__ import annotations

import hashlib
from datetime import datetime

import pytest

from consolidator.detect.dates.locale_sense import days_in_code
from consolidator.detect.dates.relative import relative_in
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory

WRITTEN = datetime(2026, 5, 12, 21, 0)
DATED = "project_session_20260512.md"  # a record of one day, dated by its name


def glossed(body: str) -> list[str]:
    data = f"---\nname: session\ndescription: a day's work\ntype: project\n---\n{body}".encode()
    stat = FileStat(rel=DATED, size=len(data), mode=0o644,
                    mtime_ns=int(WRITTEN.timestamp() * 1_000_000_000),
                    sha256=hashlib.sha256(data).hexdigest())
    return [f.resolved for f in relative_in(Memory(stat, parse(data)))]


@pytest.mark.parametrize(("code", "shifts"), [
    ("isToday", {0}), ("getTodayRecords()", {0}), ("today_count", {0}), ("TODAY_KEY", {0}),
    ("isYesterday(d)", {-1}), ("tomorrowSlots", {1}),
    ("date.today()", set()), ("today", set()), ("Today view", set()), ("todays", set()),
    ("_Today_", set()), ("__today__", set()), ("see notes/today_tasks.md", set()),
    ("[tasks](project_today_tasks.md)", set()), ("https://example.org/a/yesterday_news", set()),
    ("obj.getTodayRecords()", {0}), ("row.today_count.total", {0}), ("self._today", {0}),
    ("isToday.value", {0}), ("daily_today.py", {0}), ("`toDateString/todayString`", {0}),
])
def test_a_day_names_code_only_joined_to_another_word(code: str, shifts: set[int]) -> None:
    assert days_in_code(code) == shifts


# A dated day's record in languages whose sentences no sense rule of ours reads: only the
# code tells the app's "today" from the day of the writing.
LINES = ["- 오늘 기록만 카드에 표시 (길게 누르면 삭제)", "- Записи за сегодня показываются сверху."]


@pytest.mark.parametrize("line", LINES)
def test_today_in_the_notes_of_code_built_on_today_is_the_app_s_today(line: str) -> None:
    body = f"## Record list\n{line}\n- `getTodayRecords()` filters by `isToday(r.date)`.\n"
    assert glossed(body) == []


@pytest.mark.parametrize("line", LINES)
def test_without_such_code_the_day_s_record_dates_its_today(line: str) -> None:
    body = f"## Record list\n{line}\n- `getRecords()` filters by `date.today()`.\n"
    assert glossed(body) == ["2026-05-12"]


def test_yesterday_is_left_only_where_the_code_is_built_on_yesterday() -> None:
    base = "## Исправления\n- Вчера экспорт сломался, и его починили.\n"
    assert glossed(base + "- `isToday(d)` decides the badge.\n") == ["2026-05-11"]
    assert glossed(base + "- `isYesterday(d)` decides the badge.\n") == []


def test_our_own_languages_are_read_by_their_sense_rules_not_by_the_code() -> None:
    """English, Chinese and Japanese sentences are read word by word: a day's record of work
    done today is dated whatever the code is built on."""
    body = "## 今天完成的工作\n- 今天完成了估值模块。\n- `todayPrefix` 判断是否当天。\n"
    assert glossed(body) == ["2026-05-12", "2026-05-12"]
