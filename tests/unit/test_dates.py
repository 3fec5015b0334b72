"""Relative dates: only phrases that name a day relative to the writing are rewritten, each
counted from the nearest explicit date it is anchored to. Every class of text that is not a
date has its twin that is, in English, Chinese and Japanese where the class applies."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from consolidator.detect.dates.anchors import explicit_dates
from consolidator.detect.dates.relative import find_relative, rewrite_relative

WRITTEN = datetime(2026, 11, 18, 12, 0)  # a Wednesday; "yesterday" is 2026-11-17


def phrases(text: str, name: str = "") -> list[str]:
    return [f.phrase for f in find_relative(text, WRITTEN, name)]


def days(text: str, name: str = "", written: datetime = WRITTEN) -> list[str]:
    return [f.resolved for f in find_relative(text, written, name)]


def assert_not_a_date(text: str) -> None:
    assert find_relative(text, WRITTEN) == [], text


# --- the ordinary case: a day relative to the writing ----------------------------------------

@pytest.mark.parametrize(("text", "day"), [
    ("We agreed on the schema yesterday.", "2026-11-17"),
    ("The client demo moved to next Tuesday.", "2026-11-24"),
    ("Deployed the fix 3 days ago.", "2026-11-15"),
    ("昨天修复了登录问题。", "2026-11-17"),
    ("下周三和财务对账。", "2026-11-25"),
    ("明日、資料を送る。", "2026-11-19"),
    ("来週の水曜日にリリース予定。", "2026-11-25"),
])
def test_a_day_relative_to_the_writing_is_found_and_resolved(text: str, day: str) -> None:
    assert days(text) == [day]


@pytest.mark.parametrize(("text", "written", "day"), [
    ("The client demo moved to next Tuesday.", datetime(2026, 11, 23, 10, 0), ""),  # a Monday
    ("The client demo moved to next Tuesday.", datetime(2026, 11, 20, 10, 0), "2026-11-24"),
    ("We shipped it last Monday.", datetime(2026, 11, 19, 10, 0), ""),  # a Thursday
    ("We shipped it last Monday.", datetime(2026, 11, 23, 10, 0), "2026-11-16"),
    ("We shipped it last Friday.", datetime(2026, 11, 23, 10, 0), "2026-11-20"),
])
def test_next_or_last_weekday_of_the_writing_week_may_be_either_of_two_days(
    text: str, written: datetime, day: str
) -> None:
    """"next Tuesday" written on a Monday is tomorrow to some and eight days on to others:
    left as written. Written on a Friday it is one day."""
    assert days(text, written=written) == ([day] if day else [])


# --- code ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "```bash\nfind . -newermt yesterday -name '*.log'\n```",
    "Run `git log --since=yesterday` first.",
    "The query keeps rows where due >= today+7.",
    "The window is [today, today+N] in the scheduler.",
    "Filter: updated=今日 で絞り込む。",
    "条件は 期限=今日 のみ。",
    "Old logs: find . -newermt yesterday | xargs rm",
])
def test_a_relative_word_in_code_or_a_formula_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


def test_the_same_word_in_prose_after_a_code_block_is_a_date() -> None:
    text = "```bash\nfind . -newermt yesterday\n```\nThe cleanup ran yesterday."
    (found,) = find_relative(text, WRITTEN)
    assert found.line == "The cleanup ran yesterday." and found.resolved == "2026-11-17"


@pytest.mark.parametrize("text", [
    "Build log:\n\n    Build failed: the signing cert expired yesterday\n    retry 3\n",
    "    We deployed the fix yesterday.\n",
    "Log:\n\n\tThe cleanup ran yesterday.\n",
    "Log:\n\n    $ make deploy\n\n    deploy broke yesterday\n",  # a blank line inside it
])
def test_a_relative_word_in_an_indented_code_block_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


@pytest.mark.parametrize("text", [
    # a list item's own lines are indented as much as a code block's
    "- Deploys\n\n    The cleanup ran yesterday.\n",
    "- Deploys\n    - The cleanup ran yesterday.\n",
    # an indented line cannot break into a paragraph
    "Deploys:\n    The cleanup ran yesterday.\n",
    # after the block, prose again
    "Log:\n\n    exit 1\n\nThe cleanup ran yesterday.\n",
])
def test_the_same_words_indented_in_a_list_or_a_paragraph_are_a_date(text: str) -> None:
    assert [f.phrase for f in find_relative(text, WRITTEN)] == ["yesterday"]


# --- quotations and dialogue -------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    'The user wrote: "ship it tomorrow or never".',
    "> I will fix it tomorrow, promised.",
    "编辑原话：「三十万，今天签字，明天付款。」",
    "【沈均】今天签字，明天付款。",
    "ユーザー：明日やります",
    "沈均：（冷笑）今天签字。",
])
def test_a_relative_word_in_quotes_or_dialogue_is_not_the_writers_date(text: str) -> None:
    assert_not_a_date(text)


@pytest.mark.parametrize(("quoted", "plain"), [
    ("Der neue Titel der App lautet „Lieber heute als morgen“ und gilt ab gestern.",
     "Der neue Titel der App gilt ab morgen und wurde gestern gesetzt."),
    ("Nous avons choisi le titre de la campagne avec l'équipe. Le titre retenu est « Mieux "
     "vaut demain que jamais » pour toutes les affiches.",
     "Nous avons choisi le titre de la campagne avec l'équipe. Le titre retenu sera publié "
     "demain pour toutes les affiches."),
    ("Tytuł to „Lepiej dziś niż jutro”, ustalony na spotkaniu, że nie zmienia się do końca "
     "roku na stronie.",
     "Tytuł ustalony na spotkaniu, że nie zmienia się do końca roku. Publikacja będzie jutro "
     "na stronie."),
])
def test_a_relative_word_in_other_languages_quotes_is_not_the_writers_date(
    quoted: str, plain: str
) -> None:
    """„…“, „…”, «…», »…«: quotations as "…" are; the writer's own words around them are
    still read."""
    inside = {"morgen", "demain", "jutro", "dziś", "heute"}
    assert not inside & {p.casefold() for p in phrases(quoted)}
    assert inside & {p.casefold() for p in phrases(plain)}


@pytest.mark.parametrize(("text", "phrase"), [
    ("The user agreed to ship it tomorrow.", "tomorrow"),
    ("编辑说今天签字，明天付款。", "今天"),
    ("ユーザーは明日やると言った。", "明日"),
])
def test_the_same_words_reported_by_the_writer_are_dates(text: str, phrase: str) -> None:
    assert phrase in phrases(text)


# --- tables and UI labels ----------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "| Today | 3 open |\n|---|---|\n| Yesterday | 5 open |",
    "Checkbox labels: Today / Yesterday / 1 week ago",
    "- [ ] Today\n- [ ] Tomorrow",
    "The Today tab lists what is due.",
    "筛选项：今天、昨天、上周",
    "「今日のタスク」ビューを開く。",
    "今日のタスクビューは未完了を表示する。",
    "今天按钮点了没反应。",
    # A page or a tab named after the day.
    "保存后进入今天页，时间线显示 1 条记录。",
    "点开今天 Tab 看不到记录。",
    "点开今天Tab看不到记录。",
])
def test_a_relative_word_in_a_table_cell_or_ui_label_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


@pytest.mark.parametrize(("text", "phrase"), [
    ("Today: finished the tab layout.", "Today"),
    ("今天把筛选项改好了。", "今天"),
    ("今日のタスクを全部片付けた。", "今日"),
    ("今天修好了登录页。", "今天"),
    # The day beside a page named after another day.
    ("昨天修了今天页的 bug。", "昨天"),
    # A noun that starts the day's clause, and a word that only begins with 页.
    ("今天界面改版上线了。", "今天"),
    ("今天页数统计出错。", "今天"),
    ("早上开会、今天下午部署。", "今天"),
    # Japanese writes 、 as a comma: a day before it is the day.
    ("今日、設定画面を直した。", "今日"),
])
def test_the_same_words_in_the_writers_log_are_dates(text: str, phrase: str) -> None:
    assert phrases(text) == [phrase]


# --- headings and names ------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "## Tomorrow\nNothing planned.",
    "## 今日の作業\n特になし。",
    "We held a session titled Tomorrow Review with the client.",
    "Tomorrow Review moved to the big room.",
    "She hums Yesterday while debugging.",
    "明日香さんに確認した。",
    "今日头条的接口限流了。",
    "上周期的数据有问题。",
    "马上周一上线。",
])
def test_a_relative_word_in_a_heading_or_a_name_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


def test_a_heading_is_not_rewritten_but_the_text_under_it_is() -> None:
    text = "## Tomorrow\nWe ship tomorrow."
    (found,) = find_relative(text, WRITTEN)
    assert found.line == "We ship tomorrow."


# --- identifiers, file names, links ------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "The widget lives in today-panel.tsx.",
    "See notes/yesterday.md for details.",
    "See [the notes](notes/yesterday.md).",
    "Linked from [[yesterday-standup]].",
    "Reports go to https://example.com/today/report daily.",
    "Holidays are in todays_report and yesterdays.csv.",
    "Call today() before the loop.",
])
def test_a_relative_word_in_an_identifier_or_a_link_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


# --- words that only contain the characters ------------------------------------------------------

@pytest.mark.parametrize("text", [
    "禁用词：明日方舟、原神",
    "NGワード：明日方舟、今日頭条",
    "上周期的配置还在用。",
    "上周一些用户反馈很慢。",
])
def test_a_longer_word_that_starts_with_a_day_word_is_not_that_day(text: str) -> None:
    found = find_relative(text, WRITTEN)
    assert all(f.phrase in ("上周",) for f in found)
    if found:  # 上周一些: "some ... last week", the week and not its Monday
        assert found[0].resolved.startswith("2026-11-09")


# --- "today" as "currently" --------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "In today's world nobody reads the docs.",
    "The parser handles none of these today.",
    "Today the gauge shows about 1900.",
    "Today we still use the old API.",
    # The present state against history: what a source gives now, not a day's event.
    "The current albums (capped at 10) give what is on the profile today; the history "
    "gives the rest.",
    "如今这套流程在今天的团队里还很常见。",
    "今日ではこの方式は使われない。",
])
def test_today_meaning_currently_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


@pytest.mark.parametrize(("text", "day"), [
    ("Today we shipped the parser.", "2026-11-18"),
    ("The standup is today at 10.", "2026-11-18"),
    ("Status as of today: 40 users signed up.", "2026-11-18"),
    ("今天修复了解析器。", "2026-11-18"),
    ("今日は会議があった。", "2026-11-18"),
])
def test_today_naming_the_day_of_an_event_is_a_date(text: str, day: str) -> None:
    assert days(text) == [day]


# --- general rules and examples ------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "If the order does not fill, it is not working today; try again tomorrow.",
    "The job prepares tomorrow's partitions at 23:00.",
    "The cutoff never moves to next Tuesday.",
    "The balance resets to today's closing price.",
    "Compare with yesterday's close, e.g. 1.2% up.",
    "如果今天没成交，明天再试。",
    "每天晚上准备明天的分区。",
    "注文が通らなかったら、明日もう一度試す。",
    "毎日、明日の分を準備する。",
])
def test_a_general_rule_or_an_example_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


@pytest.mark.parametrize(("text", "phrase"), [
    ("The order did not fill; we try again tomorrow.", "tomorrow"),
    ("Tomorrow's standup is cancelled.", "Tomorrow"),
    ("今天没成交，明天再试。", "明天"),
    ("注文が通らなかった。明日もう一度試す。", "明日"),
])
def test_the_same_plan_made_for_one_day_is_a_date(text: str, phrase: str) -> None:
    assert phrase in phrases(text)


# --- deadlines and start dates --------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Merge freeze until tomorrow for the release.",
    "Send the slides by tomorrow.",
    "下周三之前完成评审。",
    "截止明天提交材料。",
    "明日までに資料を送る。",
])
def test_a_deadline_is_left_as_written_so_no_deadline_is_invented(text: str) -> None:
    assert_not_a_date(text)


@pytest.mark.parametrize(("text", "phrase"), [
    ("The merge freeze starts tomorrow for the release.", "tomorrow"),
    ("明天提交材料。", "明天"),
    ("明日、資料を送る。", "明日"),
])
def test_the_same_day_that_is_no_deadline_is_a_date(text: str, phrase: str) -> None:
    assert phrases(text) == [phrase]


@pytest.mark.parametrize(("text", "phrase"), [
    ("From tomorrow on, every pull request needs two approvals.", "tomorrow"),
    ("明天起 CI 会检查每个拉取请求的提交信息格式。", "明天"),
    ("明日から全ての PR に二人のレビューが必要になる。", "明日"),
])
def test_a_rule_that_starts_on_a_day_is_dated_by_it(text: str, phrase: str) -> None:
    assert phrases(text) == [phrase]


def test_every_counting_things_is_no_habit_but_every_counting_times_is() -> None:
    assert phrases("Tomorrow we review every open pull request.") == ["Tomorrow"]
    assert_not_a_date("Every night the job prepares tomorrow's partitions.")


# --- durations ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "The price went from cheap to flat in a week.",
    "Ship it over the next week.",
    "During the last month the queue grew.",
])
def test_a_duration_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


def test_next_week_on_its_own_is_the_week_after_the_writing() -> None:
    assert days("We ship next week.") == ["the week of 2026-11-23"]
    assert days("下周上线。") == ["2026-11-23那周"]
    assert days("来週リリースする。") == ["2026-11-23の週"]


# --- the day a phrase is counted from -------------------------------------------------------------

def test_a_date_glossing_the_phrase_is_its_day_and_the_lines_writing_day() -> None:
    text = "Today (Wednesday 08-19): shipped the parser; tomorrow we review it."
    assert days(text) == ["2026-08-19", "2026-08-20"]


@pytest.mark.parametrize("text", [
    "## Yesterday (11/12) run log\n- The owner changed the settings yesterday; the run crashed.",
    "## 어제(11/12) 실행 로그\n- 오너가 어제 설정을 바꿨고 실행이 죽었다.",
    "## 昨天（11月12日）运行日志\n- 老板昨天改了设置，运行崩了。",
])
def test_a_date_glossing_a_phrase_in_a_heading_dates_the_section_by_the_phrase(
    text: str
) -> None:
    """The heading's "yesterday" was the 12th: the section was written on the 13th, and its
    own "yesterday" is the 12th too (a heading that gives its day itself is left)."""
    assert days(text) == ["2026-11-12"]


def test_a_plain_date_in_a_heading_is_the_sections_writing_day() -> None:
    assert days("## Run log 11/12\n- The owner changed the settings yesterday.") \
        == ["2026-11-11"]


def test_a_gloss_without_a_year_never_puts_the_day_after_the_note_was_saved() -> None:
    # Saved in November: May is the May before, whichever May is nearer the saving day.
    assert days("- Yesterday (05-05) the deploy went out; the gap shows since.") \
        == ["2026-05-05"]
    assert days("- 어제(05-05) 배포 후 확인한 차이.") == ["2026-05-05"]
    assert days("- Tomorrow (11-19) the review.") == ["2026-11-19"]


@pytest.mark.parametrize(("text", "expected"), [
    # The bracketed date is the phrase's day: the whole date takes both their places.
    ("- Yesterday (05-05) the deploy went out.", "- On 2026-05-05 the deploy went out."),
    ("- 어제(05-05) 배포 후 확인.", "- 2026-05-05 배포 후 확인."),
    # What else the brackets say stays in them.
    ("Today (Wednesday 08-19): shipped.", "On 2026-08-19 (Wednesday): shipped."),
    ("昨天（3月5日，周三）发布了。", "2026-03-05（周三）发布了。"),
    # Bold marks around the brackets: only the phrase gives way, so no mark is left alone.
    ("Yesterday **(05-05)** it broke.", "On 2026-05-05 **(05-05)** it broke."),
])
def test_a_rewritten_phrase_takes_its_yearless_gloss_with_it(text: str, expected: str) -> None:
    assert rewritten(text) == expected


def test_a_passage_dated_by_a_range_of_days_has_no_one_writing_day() -> None:
    # "(2026-06-18/19)": a session over two days; "tomorrow" under it is not the 19th.
    text = ("**The left wheel cuts out (2026-06-18/19): the chain drops.**\n\n"
            "**TO DO TOMORROW:** reseat the connector.\n")
    assert find_relative(text, WRITTEN, "", False) == []
    one_day = text.replace("2026-06-18/19", "2026-06-18")
    assert [f.resolved for f in find_relative(one_day, WRITTEN, "", False)] == ["2026-06-19"]


@pytest.mark.parametrize("text", ["~$12-25k at risk", "12-25% of the runs", "part A12-25",
                                  "costs 10-20 € a month", "10-12°C inside", "￥10-12万 budget"])
def test_a_range_of_amounts_or_a_code_is_no_date(text: str) -> None:
    assert explicit_dates(text) == []
    assert [(d.month, d.day) for d in explicit_dates(f"{text}, shipped 12-25.")] == [(12, 25)]


def test_a_heading_dated_with_a_time_after_its_date_dates_its_section() -> None:
    text = "## Sessions (as of 2026-04-11 ~03:30 UTC)\n\n- The new model shipped tonight.\n"
    assert [f.resolved for f in find_relative(text, WRITTEN, "", False)] == ["2026-04-11"]
    ranged = text.replace("~03:30 UTC", "~ 14")  # a range of days: no one day
    assert find_relative(ranged, WRITTEN, "", False) == []


@pytest.mark.parametrize("text", [
    "- Update expected **~2026-06-19** (tomorrow): compare, do not guess.",
    "- Mise à jour attendue ~2026-06-19 (demain), puis test.",
    "- 更新预计 2026-06-19（明天）到。",
])
def test_a_relative_word_in_brackets_after_a_date_glosses_that_date(text: str) -> None:
    assert find_relative(text, WRITTEN, "", True) == []


def test_a_date_inside_a_link_names_what_it_links_to_not_the_lines_day() -> None:
    # The note of the 29th links the note of the 28th: "yesterday" is the 28th, the day the
    # link names, counted from the note's own date (its heading), not from the link's.
    text = ("# Session 2026-05-29\n\n## Related\n"
            "- [Session 2026-05-28](project_session_2026_05_28.md) — yesterday's session\n")
    assert days(text) == ["2026-05-28"]
    assert days("# 2026-05-29 세션\n\n- [[project-session-2026-05-28]] — 어제 세션\n") \
        == ["2026-05-28"]


def test_a_gloss_with_a_year_is_already_absolute_and_left_alone() -> None:
    assert find_relative("Yesterday (2026-03-23) we met the client.", WRITTEN) == []


def test_a_dated_label_opening_the_line_anchors_it() -> None:
    text = "Context (2026-03-24): he will call today or tomorrow."
    assert days(text) == ["2026-03-24", "2026-03-25"]
    assert days("★方針（2026-07-13 明示）：昨日ユーザーが言った。") == ["2026-07-12"]


def test_a_clock_time_in_a_dated_label_does_not_end_the_label() -> None:
    text = ("## Pipeline 2026-08-02\n- **Evening slot 18:00 -> 20:00 (2026-08-27):** moved; "
            "tomorrow the morning slot follows.")
    assert days(text) == ["2026-08-28"]


@pytest.mark.parametrize("text", [
    "## 규칙 2026-08-26\n- 매일 아침 어제 로그를 먼저 확인한다.",
    "## 규칙 2026-08-26\n- 항상 어제 로그부터 본다.",
    "## 파이프라인 2026-08-26\n- 1편(어제 것 우선)을 영어로 현지화해 업로드.",
    # "today's date": the date of whichever day the check runs, not the day of the note
    "- 2026-08-23: \"완료:\" 문구 누락으로 오판 → 성공 판정을 \"오늘 날짜 리포트\n"
    "  파일 존재\"로 변경.",
])
def test_a_korean_rule_or_a_thing_of_the_day_is_no_date(text: str) -> None:
    assert_not_a_date(text)


def test_a_korean_event_of_one_day_is_a_date() -> None:
    assert days("## 로그 2026-08-26\n- 어제 반복 신청으로 발송이 제한되었다.") == ["2026-08-25"]


def test_a_dated_label_anchors_its_paragraph_and_sub_items_only() -> None:
    text = "- 2026-03-20: set up CI\n  - broke it yesterday\n- fixed again yesterday"
    assert days(text) == ["2026-03-19", "2026-11-17"]


def test_a_dated_file_name_dates_no_line_below_a_later_dated_item() -> None:
    # A log named after its first day that went on to later days: an undated item after
    # items of a later day is of a day the text does not give; one before them is the name's.
    text = ("## Commits\n- Shipped the login yesterday.\n## Next\n"
            "1. **Checkout done (2026-06-02):** wired to the API.\n"
            "2. Test data cleaned; nothing left from yesterday's run in prod.\n")
    assert [(f.phrase, f.resolved) for f in find_relative(
        text, WRITTEN, "session_2026-06-01.md", undated=False)] == [("yesterday", "2026-05-31")]


def test_the_dated_heading_above_anchors_its_section() -> None:
    text = "# Log\n## 2026-03-24\n### Done\n- fixed login yesterday\n## Notes\nShip tomorrow."
    assert days(text) == ["2026-03-23", "2026-11-19"]
    assert days("## 反馈 1：偏离主线（2026-06-25）\n\n主编昨天说要改。") == ["2026-06-24"]
    assert days("# レビュー（2026-06-10）\n\n## 修正済み\n- 昨日直した。") == ["2026-06-09"]


def test_a_day_first_dotted_date_anchors_its_section_a_dotted_version_does_not() -> None:
    # 30.09.2026 is how much of Europe writes a date; 1.2.2026.3 is a version number.
    assert days("## Итоги 30.09.2026\n\nВчера выкатили релиз.") == ["2026-09-29"]
    assert days("**Stand 03.11.2026:**\n\nGestern ist der Build gebrochen und wir haben ihn "
                "nicht repariert, das ist so.") == ["2026-11-02"]
    assert days("## Build 1.2.2026.3\n\nВчера выкатили релиз.") == ["2026-11-17"]


@pytest.mark.parametrize(("text", "day"), [
    # Czech spaces its dotted dates; a label may give day and month alone, day first.
    ("## Přesun serveru (20. 5. 2026)\n\nVčera jsme přesunuli databázi na nový server, je to "
     "pro zálohy lepší.\n", "2026-05-19"),
    ("## Stand (09.04.)\n\nGestern ist der Build gebrochen und wir haben ihn nicht repariert, "
     "das ist so.\n", "2026-04-08"),
    ("## Aktualizace (9. 4.)\n\nVčera jsme přesunuli databázi na nový server, je to pro "
     "zálohy lepší.\n", "2026-04-08"),
])
def test_a_day_first_date_spaced_or_without_its_year_anchors_its_section(
    text: str, day: str
) -> None:
    assert days(text) == [day]


@pytest.mark.parametrize("text", [
    "## 10/04/2026\n\n- Yesterday the deploy failed on the migration step.\n",
    "**Closed (11/09/2026):** yesterday the last invoice was paid and we closed the account.\n",
])
def test_a_date_either_order_makes_leaves_its_passage_undated_not_dated_by_the_file(
    text: str
) -> None:
    """10/04/2026 is 10 April or 4 October: the passage has a day, not one that can be told,
    and the writing time must not stand in for it."""
    assert_not_a_date(text)


def test_a_bold_dated_line_stands_as_a_heading() -> None:
    text = "**UPDATE 2026-03-25 — ACTIVE:**\n\n- She offered to call today or tomorrow."
    assert days(text) == ["2026-03-25", "2026-03-26"]


def test_the_file_name_dates_the_text_when_the_text_does_not() -> None:
    assert days("Shipped yesterday.", "notes/standup_20260320.md") == ["2026-03-19"]
    assert days("Shipped yesterday.", "project_pivot_2026-03-23.md") == ["2026-03-22"]


def test_a_date_line_at_the_top_dates_the_note() -> None:
    assert days("**Date:** 2026-03-24\n\nWe met yesterday.") == ["2026-03-23"]
    assert days("日期：2026-03-24\n\n昨天开会了。") == ["2026-03-23"]


def test_the_mtime_is_the_writing_day_when_nothing_else_dates_the_text() -> None:
    assert days("Deadline moved: yesterday we set it to 2026-09-01.") == ["2026-11-17"]


def test_a_date_after_the_writing_is_no_anchor() -> None:
    assert days("## Launch 2027-01-15\nWe agreed on it yesterday.") == ["2026-11-17"]


def test_a_date_without_a_year_takes_the_latest_year_not_after_the_writing() -> None:
    early = datetime(2026, 1, 5, 12)
    assert days("## 12-30\nWe met yesterday.", written=early) == ["2025-12-29"]
    assert days("## 12月30日\n昨天开会了。", written=early) == ["2025-12-29"]


def test_a_dated_label_alone_on_its_line_heads_the_list_below() -> None:
    text = "Handoff 2026-10-02 (Fri):\n- Paged twice last night.\n- Ask Priya tomorrow."
    assert days(text) == ["2026-10-01", "2026-10-03"]
    assert days("2026/09/03 障害メモ:\n- 昨夜から 502 が出ている。") == ["2026-09-02"]


def test_a_month_and_day_in_a_heading_dates_it_but_a_count_of_parts_does_not() -> None:
    assert days("## Meeting notes — 4/8\n- Bob sends the numbers tomorrow.") == ["2026-04-09"]
    assert days("## Phase 2/3\n- Bob sends the numbers tomorrow.") == ["2026-11-19"]


# --- output, mentions, enumerations ---------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "The CLI printed: Last login: yesterday at 17:02 from 10.0.0.4",
    "客户回复：明天再说。",
    "エラーメッセージ：明日以降に再試行してください",
    "Reminder: tomorrow means the day after the deploy here, not the calendar day.",
    "Support for relative dates like today, tomorrow and next week is missing.",
    "We parse the words today and tomorrow in the search box.",
])
def test_output_a_mentioned_word_or_an_enumeration_of_terms_is_not_a_date(text: str) -> None:
    assert_not_a_date(text)


@pytest.mark.parametrize(("text", "phrase"), [
    ("The CLI broke yesterday after the upgrade.", "yesterday"),
    ("客户说明天回复。", "明天"),
    ("He will call today or tomorrow.", "tomorrow"),
])
def test_the_same_words_used_by_the_writer_are_dates(text: str, phrase: str) -> None:
    assert phrase in phrases(text)


# --- rules without a rule word, habits beside a dated change -------------------------------------

def test_a_sentence_about_any_such_thing_in_general_is_a_rule() -> None:
    assert_not_a_date("A hotfix merged today is deployed tomorrow at 09:00 by the pipeline.")
    assert days("A week ago the build broke.") == ["The week of 2026-11-09"]


def test_a_chinese_habit_governs_its_clause_only() -> None:
    assert_not_a_date("每周三晚上例行发布明天的候选版本。")
    assert phrases("每周三晚上例行发布，明天的发布顺延一周。") == ["明天"]


# --- hard-wrapped sentences -----------------------------------------------------------------------

def test_a_hard_wrapped_sentence_is_read_across_its_lines() -> None:
    wrapped = "**How to apply:** today's actual fixes (the favicon, the blank\n" \
              "pages, the pricing tables) were real and can be checked live."
    assert phrases(wrapped) == ["today"]
    rule = "If the export is late the bot waits and\nretries tomorrow without paging anyone."
    assert_not_a_date(rule)


# --- running twice, index notes, evidence --------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Today (Wednesday 08-19): shipped; tomorrow we review.\nLast week we planned it.",
    "昨天修复了，下周三上线，上个月开始。",
    "先週決めた。来週の月曜日にリリースする。",
    "We met 3 days ago and ship next Tuesday; last week was calm.",
])
def test_a_rewritten_text_holds_no_relative_date_the_second_time(text: str) -> None:
    once = rewrite_relative(text, find_relative(text, WRITTEN))
    assert once != text
    assert find_relative(once, WRITTEN) == []


def test_a_line_moved_from_the_index_is_left_alone() -> None:
    assert_not_a_date("Index note (moved from MEMORY.md): fixed the login bug yesterday")


def test_each_finding_quotes_its_whole_line() -> None:
    text = "Intro.\n- **Deploy**: we shipped it yesterday, finally\nOutro."
    (found,) = find_relative(text, WRITTEN)
    assert found.line == "- **Deploy**: we shipped it yesterday, finally"
    assert text[found.start : found.end] == "yesterday"


# --- cost -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "[" * 300_000 + "today",
    "<a " * 300_000 + "today",
    '"' * 300_000 + "today",
    "today (" * 150_000,
    "we met yesterday. " * 60_000,
    "今天修复了。" * 150_000,
    "## " + "2026-01-01 " * 90_000 + "\nyesterday",
    ("x " * 100 + "today\n") * 5_000,
])
def test_a_megabyte_of_adversarial_text_takes_at_most_a_few_seconds(text: str) -> None:
    started = time.perf_counter()
    find_relative(text, WRITTEN)
    assert time.perf_counter() - started < 3.0


# --------------------------------------------------------------------------- splicing


def rewritten(text: str) -> str:
    return rewrite_relative(text, find_relative(text, WRITTEN))


@pytest.mark.parametrize("text", [
    "本日4/30期限で提出する。",  # a day glued to the phrase: splicing would glue two dates
    "Deploy went out yesterday 11/20 after review.",  # the text gives the day right there
    "The cutoff moved to 12/01 tomorrow per the vendor.",
])
def test_a_phrase_with_a_date_right_beside_it_is_left_as_written(text: str) -> None:
    assert rewritten(text) == text


@pytest.mark.parametrize("text", [
    "今天3次部署都失败了。",  # a count glued on: no time of day, left
    "明天10:00:00 上线新版本。",  # a clock with seconds may be a stamp: left
    "昨晚上8点上线了新版本。",  # 昨晚上 is the day word: no "2026-11-17上"
    "昨晚上 8点上线了新版本。",
    "昨晚上的会议定了上线方案。",
    "We deploy tonight (around 8pm) after the backup.",  # its own bracket: no second one
    "We deploy **tonight** (around 8pm) after the backup.",
])
def test_a_phrase_glued_to_a_number_that_is_no_time_of_day_is_left_as_written(
        text: str) -> None:
    assert rewritten(text) == text


@pytest.mark.parametrize(("text", "want"), [
    ("昨天20:00上线了新版本。", "2026-11-17 20:00上线了新版本。"),
    ("昨天9点上线了新版本。", "2026-11-17 9点上线了新版本。"),
    ("昨日15時にリリースした。", "2026-11-17 15時にリリースした。"),
    # A part of the day keeps its word, the date glossing it: "8点" stays the evening's.
    ("昨晚8点上线了新版本。", "昨晚 (2026-11-17) 8点上线了新版本。"),
    ("昨晚20:00上线了新版本。", "昨晚 (2026-11-17) 20:00上线了新版本。"),
    ("昨晚上线了新版本。", "昨晚 (2026-11-17)上线了新版本。"),  # 上线: a verb of its own
    ("昨天10:00-11:00开会定了方案。", "2026-11-17 10:00-11:00开会定了方案。"),
    ("昨天10点5分上线了新版本。", "2026-11-17 10点5分上线了新版本。"),
])
def test_a_time_of_day_glued_to_the_phrase_stays_apart_from_the_date(text: str,
                                                                     want: str) -> None:
    # The day splices in as a whole token, the time after it: never "2026-11-1720:00".
    assert rewritten(text) == want


@pytest.mark.parametrize(("text", "want"), [
    ("We shipped the parser yesterday.", "We shipped the parser on 2026-11-17."),
    ("Yesterday we shipped the parser.", "On 2026-11-17 we shipped the parser."),
    ("The freeze holds since yesterday.", "The freeze holds since 2026-11-17."),
    ("The demo from yesterday went well.", "The demo from 2026-11-17 went well."),
    ("Tagged v2.3 yesterday after the smoke tests.",
     "Tagged v2.3 on 2026-11-17 after the smoke tests."),
    ("昨天上线了新版本。", "2026-11-17上线了新版本。"),
])
def test_an_inserted_date_keeps_the_sentence_grammatical(text: str, want: str) -> None:
    assert rewritten(text) == want
    (found,) = find_relative(text, WRITTEN)
    assert found.resolved == "2026-11-17", "the day itself, for the report"


@pytest.mark.parametrize(("heading", "day"), [
    ("## Estado 14/07/2026", "2026-07-13"),  # day first
    ("## Status 07/14/2026", "2026-07-13"),  # month first
    ("## Estado 02/10/2026", None),  # either order makes a date: the heading dates nothing
])
def test_a_heading_dated_by_numbers_anchors_its_passage_where_one_order_makes_a_date(
    heading: str, day: str | None
) -> None:
    text = (f"# Cierres\n\n{heading}\n\n- Ayer se cerró la caja con diferencia y el gerente "
            "la revisó con el equipo de la tienda.\n")
    found = find_relative(text, datetime(2026, 12, 3, 12, 0), "cierres.md", undated=False)
    assert [f.resolved for f in found] == ([day] if day else [])


# --- code tells of no event; a day chosen; days offered one for another ----------------------

@pytest.mark.parametrize("text", [
    "Run the gap check up to today and print `reached_end`.",
    "(iterate to today, print reached_today)",
])
def test_words_in_code_are_no_event_that_makes_today_a_day(text: str) -> None:
    assert_not_a_date(text)


def test_the_same_sentence_telling_of_an_event_is_a_date() -> None:
    assert days("Fixed the gap check today and printed the count.") == ["2026-11-18"]


@pytest.mark.parametrize(("text", "replacement"), [
    ("Fred recommends tomorrow.", "2026-11-19"),
    ("Keep the slot free and use tomorrow for the pull.", "2026-11-19"),
    ("We deploy tomorrow.", "on 2026-11-19"),
])
def test_a_day_chosen_takes_the_date_as_a_noun_a_day_of_doing_takes_on(
    text: str, replacement: str
) -> None:
    assert [f.replacement for f in find_relative(text, WRITTEN)] == [replacement]


def test_days_offered_one_for_another_are_dated_together_or_not_at_all() -> None:
    # "today" alone here would not pass (no event), "tomorrow" would: neither is dated.
    assert_not_a_date("Next window: after the 14:00 refresh today, or tomorrow before 09:00.")
    assert [f.replacement for f in find_relative("David picked tomorrow over tonight.",
                                                 WRITTEN)] == ["2026-11-19",
                                                               "tonight (2026-11-18)"]
    assert days("He will call today or tomorrow.") == ["2026-11-18", "2026-11-19"]


@pytest.mark.parametrize("text", [
    "Stop below the high of yesterday.",
    "Entry above the yesterday close.",
    "Hard filter: (yesterday VA / developing VA / POC).",
    "Stop bajo el máximo de ayer, siempre.",
    "Stop sous le plus haut d'hier, toujours.",
    "Stop sotto il massimo di ieri, sempre.",
])
def test_a_day_qualifying_a_noun_in_a_rule_is_a_rolling_term_not_a_date(text: str) -> None:
    """"The high of yesterday" is any day's yesterday, as "yesterday's high" is."""
    assert_not_a_date(text)


def test_the_same_qualifier_in_a_record_of_an_event_is_a_date() -> None:
    assert days("We reverted the change of yesterday after the outage.") == ["2026-11-17"]
    assert days("Merged yesterday PR #12 after review.") == ["2026-11-17"]


@pytest.mark.parametrize("text", [
    "Der Server ist heute morgen abgestürzt, und ich habe die Logs gesichert.\n",
    "Elke morgen draait de backup van de database en ik controleer de logs.\n",
    "Jede Nacht holt der Cronjob die Spiele für morgen und speichert sie in der Datenbank.\n",
    "The nightly cron job pulls the fixtures for tomorrow.",
    "The daily report job summarises yesterday.",
    "Tag the release tomorrow morning.",
])
def test_a_part_of_a_day_or_each_runs_day_is_no_date(text: str) -> None:
    """German and Dutch "morgen" after a word of time or "every" is "morning"; a job that
    recurs ("nightly", "jede Nacht") has a tomorrow of each run; "tomorrow morning" has no
    one word a date could take the place of."""
    assert_not_a_date(text)


@pytest.mark.parametrize(("text", "day"), [
    ("Der Cronjob wurde angepasst, und morgen prüfen wir die neuen Daten in der Datenbank.\n",
     "2026-11-19"),
    ("We added the cron job yesterday.", "2026-11-17"),
])
def test_the_same_words_about_one_day_are_dates(text: str, day: str) -> None:
    assert days(text) == [day]


@pytest.mark.parametrize("text", [
    "Si l'envoi des factures échoue, on réessaie demain avec la même liste de clients.\n",
    "Wenn der Upload der Dateien fehlschlägt, versuchen wir es morgen noch einmal mit dem Skript.\n",
    "Se o envio das faturas falhar, o sistema tenta de novo amanhã com a mesma lista.\n",
    "Se l'invio delle fatture non riesce, il sistema riprova domani con la stessa lista.\n",
    "Jeśli wysyłka faktur się nie uda, to system ponowi próbę jutro z tą samą listą.\n",
    "Pokud nahrání souborů selže, tak to zkusíme zítra znovu se stejným seznamem.\n",
    "Если импорт упал, бот повторяет его завтра с тем же списком.\n",
    "İçe aktarma bozulursa bot yarın aynı listeyle tekrar dener.\n",
    "Nous n'envoyons jamais la facture le jour même, toujours demain avec le relevé.\n",
    "Každý den ráno zkontroluj, co včera selhalo, a teprve potom začni pracovat.\n",
    "Todas as manhãs, conferir primeiro o que falhou ontem antes de começar o trabalho.\n",
    "Her sabah önce dün neyin bozulduğunu kontrol et, sonra işe başla.\n",
    "Setiap pagi, periksa dulu apa yang gagal kemarin sebelum mulai bekerja.\n",
    "Mỗi sáng, kiểm tra trước những gì đã lỗi hôm qua rồi mới bắt đầu làm việc.\n",
])
def test_another_language_s_condition_habit_or_always_makes_its_day_a_rule_s(text: str) -> None:
    """A condition ("si", "wenn", "se", "jeśli", "pokud", "если", Turkish "-rsa"), "always"
    or "never", or a habit ("každý den", "todas as manhãs", "her sabah", "setiap pagi",
    "mỗi sáng"): the day is each time's, not one day."""
    assert_not_a_date(text)


@pytest.mark.parametrize(("text", "day"), [
    ("Včera jsme přesunuli databázi na nový server, je to pro zálohy lepší a běží to dál.\n",
     "2026-11-17"),
    ("Вчера мы перенесли базу данных на новый сервер, и резервные копии работают.\n",
     "2026-11-17"),
    ("Dün bu veritabanını bir yeni sunucuya taşıdık ve yedekler için çok iyi oldu.\n",
     "2026-11-17"),
    # Polish "nie" is "not", German's "never": read as "never" in German text only.
    ("Wczoraj serwer nie odpowiadał, więc przenieśliśmy bazę danych na nowy, to jest dla nas"
     " lepsze.\n",
     "2026-11-17"),
])
def test_the_same_languages_records_of_a_day_are_dates(text: str, day: str) -> None:
    assert days(text) == [day]


def test_a_day_a_report_covers_is_its_object() -> None:
    assert [f.replacement for f in find_relative("The incident report covers yesterday.",
                                                 WRITTEN)] == ["2026-11-17"]


def test_a_condition_after_the_day_in_another_language_leaves_it_a_date() -> None:
    """"Revisar mañana … y, si no basta, volver": the condition governs what follows it."""
    text = ("Revisar mañana el volumen del filtro y, si no es suficiente, volver a la "
            "configuración de la semana pasada para los nuevos anuncios.\n")
    assert days(text) == ["2026-11-19"]


@pytest.mark.parametrize("text", [
    # a setting's value, in English and elsewhere
    'Feature idea: the user enters a date (default: today) and sees all registered models.',
    "The --since parameter of the export command defaults to yesterday.",
    "El parámetro --since de la exportación vale ayer por defecto para todos los informes.\n",
    # two days joined: one read as a behaviour leaves the other too
    "The revenue report shows totals for today and yesterday side by side.",
    # a habit keeps its "from yesterday" (a thing of each run's day, no change starting)
    "Every morning we first read the error list from yesterday before touching the scheduler.",
])
def test_a_default_a_pair_read_as_one_and_a_habit_s_from_are_no_dates(text: str) -> None:
    assert_not_a_date(text)


def test_a_week_from_now_is_a_day_seven_days_on() -> None:
    assert [f.replacement for f in find_relative("A week from now the trial accounts expire.",
                                                 WRITTEN)] == ["On 2026-11-25"]
    # "two of them today and tomorrow": both pass, both are dated
    assert days("We test the upgrade today and tomorrow we deploy it.") == [
        "2026-11-18", "2026-11-19"]
    assert days("From tomorrow on, every deploy needs a second review.") == ["2026-11-19"]


@pytest.mark.parametrize(("text", "want"), [
    ("We shipped the parser last night.", "We shipped the parser last night (2026-11-17)."),
    ("The batch runs tonight after the backup.",
     "The batch runs tonight (2026-11-18) after the backup."),
    ("昨夜から502が出ている。", "昨夜 (2026-11-17)から502が出ている。"),
    ("Last night's deploy broke the cache.", "Last night's (2026-11-17) deploy broke the cache."),
    ("昨晚（11/17）上线了新版本。", "昨晚 (2026-11-17)上线了新版本。"),  # the whole date
    ("Last night (11/17) we shipped the fix.", "Last night (2026-11-17) we shipped the fix."),
    ("昨晚上传了新版本的日志。", "昨晚 (2026-11-17)上传了新版本的日志。"),  # 上传: a verb
])
def test_a_part_of_the_day_keeps_its_word_and_the_date_glosses_it(text: str,
                                                                  want: str) -> None:
    # "on 2026-11-17" in place of "last night" would say less than the writer did.
    assert rewritten(text) == want
    assert rewritten(want) == want, "a second pass finds it dated"


# --- a day and a month's name with no year ---------------------------------------------------

@pytest.mark.parametrize(("text", "month_day"), [
    ("## 20 mars", (3, 20)),
    ("## 3. März", (3, 3)),
    ("- 5 de mayo: cerramos el piloto", (5, 5)),
    ("## 1 мая", (5, 1)),
    ("## 3 May", (5, 3)),
    ("## 20 mars — revue du sprint", (3, 20)),
    ("## 24 March", (3, 24)),
    ("## 1 mai", (5, 1)),
    ("Revue du 12 sept. avec le client", (9, 12)),
    ("## 7 листопада", (11, 7)),
])
def test_a_day_and_a_months_name_in_any_language_is_a_date_without_a_year(
    text: str, month_day: tuple[int, int]
) -> None:
    assert [(d.year, d.month, d.day) for d in explicit_dates(text)] == [(None, *month_day)]


@pytest.mark.parametrize("text", ["Step 3 may fail on CI", "3 LED strips on the desk",
                                  "2 out of 5 runs", "chapitre 2 vii", "5 gen consoles",
                                  "the 3 marsupials", "100 mars", "2 out.", "3 LED.",
                                  "Windows 11 Pro.", "4 gen.", "## 2 Mars rovers",
                                  "le 20 mars nous avons livré"])
def test_a_number_before_a_word_that_is_also_a_short_month_name_is_no_date(text: str) -> None:
    # A short name is a month only as the whole name; any name only where no word follows
    # it, as a date stands in a heading or a label.
    assert explicit_dates(text) == []


def test_a_heading_with_a_day_and_a_months_name_dates_its_section() -> None:
    # Written in November: its headings are of this year's March, each section its own day.
    text = ("# Journal\n\n## 19 mars\n\n- Hier nous avons migré la base de test.\n\n"
            "## 20 mars\n\n- Hier soir la migration de production est passée.\n")
    assert days(text) == ["2026-03-18", "2026-03-19"]


@pytest.mark.parametrize(("text", "want"), [
    # Its bracket says more than the date: the whole date takes the date's place in it.
    ("We deploy tonight (Wed 11-18) after the backup.",
     "We deploy tonight (Wed 2026-11-18) after the backup."),
    ("Shipped last night (11/17, Tue) at last.", "Shipped last night (2026-11-17, Tue) at last."),
    ("今晚（周三 11-18）上线新版本。", "今晚（周三 2026-11-18）上线新版本。"),
    # ... and where it holds the date alone, the whole date is the bracket
    ("Shipped last night (11/17) at last.", "Shipped last night (2026-11-17) at last."),
])
def test_a_part_of_the_days_bracket_with_its_weekday_takes_the_whole_date(
        text: str, want: str) -> None:
    assert rewritten(text) == want


@pytest.mark.parametrize("text", [
    "We deploy tonight **(Wed 11-18)** after the backup.",
    "Shipped last night **(11/17)** after review.",
    "Shipped **last night** (11/17) after review.",
    "We deploy tonight _(11-18)_ after the backup.",
    "We deploy tonight __(Wed 11-18)__ after the backup.",
])
def test_a_part_of_the_day_dated_in_a_bracket_with_emphasis_is_left_as_written(
        text: str) -> None:
    # The text dates it right there; its gloss would follow with a second bracket, as the
    # marks keep the first one from giving way.
    assert rewritten(text) == text
