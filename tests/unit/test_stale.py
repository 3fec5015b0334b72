"""Stale evidence and its scope: what speaks for the whole memory, what for a part, what for
nothing at all; deadlines and the dates that are not deadlines. Each class has its negative
twin, in English, Chinese and Japanese where the class applies."""

from __future__ import annotations

import hashlib
import time
from datetime import date, datetime
from pathlib import Path

import pytest

from consolidator.detect.dates.deadlines import find_deadlines
from consolidator.detect.scope import outline
from consolidator.detect.stale.evidence import StaleFinding, find_stale, study_stale
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory

WRITTEN = datetime(2026, 2, 1, 12, 0)
NOW = datetime(2026, 11, 30, 12, 0)


def memory(body: str, *, name: str = "notes", description: str = "a memory",
           extra: str = "", written: datetime = WRITTEN) -> Memory:
    """A memory as the scan hands it over, written at ``written``."""
    data = (f"---\nname: {name}\ndescription: {description}\ntype: project\n{extra}---\n"
            f"{body}").encode()
    stat = FileStat("notes.md", len(data), int(written.timestamp() * 1e9), 0o644,
                    hashlib.sha256(data).hexdigest())
    return Memory(stat, parse(data))


def stale(body: str, **kwargs: object) -> StaleFinding | None:
    return find_stale(memory(body, **kwargs), NOW, None)  # type: ignore[arg-type]


def whole(body: str, **kwargs: object) -> StaleFinding:
    found = stale(body, **kwargs)
    assert found is not None and found.archivable, found
    return found


def part(body: str, **kwargs: object) -> StaleFinding:
    found = stale(body, **kwargs)
    assert found is not None and not found.archivable, found
    return found


def finished(body: str, **kwargs: object) -> str:
    """The note that the memory is marked as finished work; it is no stale finding."""
    found, note = study_stale(memory(body, **kwargs), NOW, None)  # type: ignore[arg-type]
    assert found is None and note is not None, (found, note)
    return note


def days(text: str, written: datetime = WRITTEN) -> list[str]:
    return [d.day.isoformat() for d in find_deadlines(text, written)]


# --- status in the frontmatter --------------------------------------------------------------


@pytest.mark.parametrize("extra", [
    "status: superseded\n", "status: Done\n", "metadata:\n  type: project\n  status: 已废弃\n",
    "status: 完了\n", "superseded_by: auth_v3.md\n",
])
def test_a_retired_status_in_the_frontmatter_is_about_the_whole_memory(extra: str) -> None:
    found = whole("Plan for the session store.\n", extra=extra)
    assert found.kinds == ("marker",)
    assert "frontmatter" in found.reasons[0]


@pytest.mark.parametrize("extra", ["status: active\n", "status: in progress\n",
                                   "metadata:\n  status: 进行中\n", "superseded_by: null\n"])
def test_a_live_status_in_the_frontmatter_is_no_evidence(extra: str) -> None:
    assert stale("Plan for the session store.\n", extra=extra) is None


# --- status in the name and description: a tag, not a word in a sentence -------------------


@pytest.mark.parametrize(("name", "description"), [
    ("migration-v2-DONE", "the v2 migration plan"),
    ("old-talk-outline-superseded", "talk outline"),
    ("分享提纲-已废弃", "旧提纲"),
    ("notes", "OBSOLETE - the v2 migration plan"),
    ("notes", "The v2 migration plan (superseded by migration_v3.md)"),
    ("notes", "【廃止】旧ログ集約の手順"),
])
def test_a_status_tag_in_the_name_or_description_is_about_the_whole_memory(
    name: str, description: str
) -> None:
    found = whole("Steps are below.\n", name=name, description=description)
    assert found.evidence[0] in (name, description)


@pytest.mark.parametrize("description", [
    "The unified orders DB, which abolished and merged the two regional ones",
    "The v3 API replaces the v1 API; how to call it",
    "Supersedes ADR-002: one engine for all postings",
    "新订单库废弃并合并了两个旧的区域库",
    "統合受注DBは旧地域DB2つを廃止統合したもの",
    "spec review round 3 done, decisions settled (v0.2.6)",
    "Tasks marked done move to the archive board",
    "第3轮评审已完成后的设计背景",
])
def test_a_status_word_saying_something_else_changed_is_no_evidence(description: str) -> None:
    assert stale("How to query it.\n", description=description) is None


def test_a_progress_word_in_lowercase_inside_a_name_is_no_evidence() -> None:
    assert stale("Our definition.\n", name="feedback_definition_of_done") is None


@pytest.mark.parametrize("name", [
    "Refactor phase status — phase 3 and sprint 24 batches 完成",
    "決済SDK移行 完了",
    "Payments SDK move — DONE",
    "【完了】決済SDK移行",
    "【完了】 決済SDK移行",
    "RESOLVED: auth bug",
])
def test_finished_work_in_a_name_with_spaces_is_a_note_in_any_script(name: str) -> None:
    # A name with spaces is a title: "24 batches done" tells of an event, in any script.
    note = finished("- the batch log\n- the figures that hold\n", name=name)
    assert note.startswith("marked as finished work")


@pytest.mark.parametrize("name", ["数据迁移-已完成", "payments_sdk_move_DONE"])
def test_finished_work_as_a_tag_on_a_slug_name_still_retires_it(name: str) -> None:
    assert whole("- step one\n", name=name).kinds == ("marker",)


# --- the first line and the lead paragraph vs sub-headings, tables and lists ---------------


@pytest.mark.parametrize("first", [
    "# Observability talk outline — SUPERSEDED by talk_2027.md",
    "# 旧方案（已废弃）",
    "# 旧ログ集約の手順【廃止】",
])
def test_a_status_tag_in_the_first_line_is_about_the_whole_memory(first: str) -> None:
    found = whole(f"{first}\n\n- step one\n- step two\n")
    assert "first line" in found.reasons[0]
    assert found.evidence == (first,)


@pytest.mark.parametrize(("first", "description"), [
    ("# 【完了】決済SDK移行", "a memory"),
    ("DONE: the v2 migration plan, step by step.", "a memory"),
    ("# Editor and writer split", "v8 editor and writer split — completed 2026-06-22"),
    ("# 编剧工作台重构", "主编与写手分工重构——2026.6.22 完成"),
    ("# Notes", "【已完成】索引流水线重写"),
])
def test_finished_work_in_a_title_or_description_is_a_note_not_stale(
    first: str, description: str
) -> None:
    # It tells of an event; what the work built (the split, the SDK) may well still hold.
    note = finished(f"{first}\n\n- step one\n- step two\n", description=description)
    assert note.startswith("marked as finished work")


@pytest.mark.parametrize(("body", "extra"), [
    ("# Payments SDK move\n\nStatus: done\n\n- step one\n", ""),
    ("# 決済SDK移行\n\n状態：完了\n\n- 手順一\n", ""),
    ("# Payments SDK move\n\n- step one\n", "status: completed\n"),
])
def test_finished_work_as_the_memory_s_status_still_retires_it(body: str, extra: str) -> None:
    assert whole(body, extra=extra).kinds == ("marker",)


def test_a_status_word_in_a_hyphenated_compound_is_no_status() -> None:
    # "closed-loop", "done-ish": a technical term, not the memory's status.
    body = "# Velocity floors\n\n- Linear floor 0.04 m/s.\n"
    found, note = study_stale(memory(body, description="Floors (closed-loop sweep, 2026-07-02)"),
                              NOW, None)  # type: ignore[arg-type]
    assert found is None and note is None
    assert finished(body, description="Floors sweep (closed)").startswith("marked as finished")


@pytest.mark.parametrize("status", [
    "Status: done, except the store registration (the user's step)",
    "STATUS: COMPLETE as of 2026-03-17; the registration still to do",
    "状態：完了（残り：ストア登録）",
    "Status: superseded, except the API section below",
])
def test_a_status_that_leaves_something_out_of_it_does_not_retire_the_memory(
    status: str
) -> None:
    # What the line leaves out is open work, or text that still holds: the memory is alive.
    body = f"# Payments SDK move\n\n{status}\n\n- step one\n- step two\n"
    assert stale(body) is None
    assert finished(body).startswith("status ")
    assert "leaves something out of it" in finished(body)


@pytest.mark.parametrize("body", [
    "# Checkout outage\n\nThe gateway failed.\n\n### RESOLVED (settled by a test run)\nDetails.\n",
    "# 支付故障\n\n网关无响应。\n\n### 已解决（压测确认）\n细节。\n",
    "# 決済障害\n\nゲートウェイが停止。\n\n### 解決済み（負荷試験で確認）\n詳細。\n",
])
def test_a_progress_word_in_a_sub_heading_is_no_finding(body: str) -> None:
    assert stale(body) is None


@pytest.mark.parametrize(("body", "word"), [
    ("# Deploying\n\nContainers.\n\n## Old VM deploy (SUPERSEDED by containers)\nCopy.\n",
     "SUPERSEDED"),
    ("# 部署\n\n容器。\n\n## 旧的虚拟机部署方式（已过时）\n拷贝。\n", "已过时"),
    ("# デプロイ\n\nコンテナ。\n\n## 旧VMデプロイ手順（陳腐化）\nコピー。\n", "陳腐化"),
])
def test_a_retiring_word_in_a_sub_heading_is_a_finding_about_a_part(body: str, word: str) -> None:
    found = part(body)
    assert word in found.reasons[0] and "sub-heading" in found.reasons[0]
    assert found.evidence[0].startswith("## ")


@pytest.mark.parametrize("body", [
    "# 籍贯查询\n\n读错表。\n\n## 受影响 (v170 抽离起 → p3 一直 silent 失效)\n- 加成\n",
    "# Birthplace lookup\n\nWrong table.\n\n## Affected (since the v170 split, silently invalidated)\n",
    "# 出身地\n\n表を誤読。\n\n## 影響 (v170 分離以来 ずっと 無効)\n- 加算\n",
])
def test_a_status_word_closing_a_sentence_in_brackets_is_its_verb_not_a_tag(body: str) -> None:
    assert stale(body) is None


@pytest.mark.parametrize(("body", "word"), [
    ("# 部署\n\n容器。\n\n## 旧的虚拟机部署方式 (已过时)\n拷贝。\n", "已过时"),
    ("# 部署\n\n容器。\n\n## 虚拟机部署 (迁到容器 — 已过时)\n拷贝。\n", "已过时"),
    ("# Deploying\n\nContainers.\n\n## VM deploy (2026-03-01 obsolete)\nCopy.\n", "obsolete"),
])
def test_a_status_tag_alone_or_after_a_separator_in_brackets_is_still_a_tag(
    body: str, word: str,
) -> None:
    assert word in part(body).reasons[0]


@pytest.mark.parametrize("body", [
    "# Tasks\n\n| Sub-task | State |\n|---|---|\n| Snapshot | DONE |\n| Cut-over | open |\n",
    "# 任务\n\n| 子任务 | 状态 |\n|---|---|\n| 快照 | 已完成 |\n",
    "# タスク\n\n| サブタスク | 状態 |\n|---|---|\n| スナップショット | 完了 |\n",
    "# Roadmap\n\n- Sprint 14 (DONE)\n- Sprint 15 (in progress)\n",
    "# 路线图\n\n- 第14迭代（已完成）\n- 第15迭代（进行中）\n",
    "# ロードマップ\n\n- スプリント14（完了）\n- スプリント15（進行中）\n",
    "# Decisions\n\nWhat we settled.\n\n## ALL RESOLVED\n- keep index names\n",
    "# 決定事項\n\n決めたこと。\n\n## すべて解決済み\n- 名前は変えない\n",
])
def test_status_words_in_tables_lists_and_sub_headings_of_a_live_memory_are_no_finding(
    body: str,
) -> None:
    assert stale(body) is None


@pytest.mark.parametrize("status", ["Status: Superseded", "状态：已完成", "ステータス: 完了"])
def test_a_status_line_in_the_lead_is_about_the_whole_memory(status: str) -> None:
    found = whole(f"# ADR-0011: ledger engine\n\n- {status}\n- Date: 2026-01-20\n\n## Context\nx\n")
    assert "lead paragraph" in found.reasons[0]


@pytest.mark.parametrize(("status", "reported"), [
    ("Status: Superseded", True), ("状态：已过时", True), ("状態：置き換え済み", True),
    ("Status: Done and verified live", False), ("状态：已完成", False), ("状態：完了", False),
])
def test_a_status_line_under_a_sub_heading_is_about_a_part(status: str, reported: bool) -> None:
    body = f"# Decision log\n\nDecisions, newest last.\n\n## D-07: sessions in Redis\n- {status}\n"
    found = stale(body)
    if reported:
        assert found is not None and not found.archivable
    else:
        assert found is None


@pytest.mark.parametrize("status", [
    "Statut : remplacé", "Estado: obsoleto", "Stato: superato", "Status: überholt",
    "Статус: устарело", "상태: 폐기됨", "Status: verouderd", "Durum: geçersiz",
    "Stan: nieaktualne", "Estado: concluído", "Statut : terminé", "Статус: завершено",
    "상태: 완료", "Estado: superado por la v2",
    # cancelled, and closed
    "Статус: отменено", "Durum: iptal edildi", "Status: cancelado", "Status: dibatalkan",
    "Statut : annulé", "Статус: закрыто", "Estado: cerrado",
])
def test_a_status_line_in_other_languages_is_about_the_whole_memory(status: str) -> None:
    found = whole(f"# Sessions in Redis\n\n- {status}\n- 2026-01-20\n\n## Context\nx\n")
    assert "lead paragraph" in found.reasons[0]


@pytest.mark.parametrize("body", [
    "# Sessions in Redis\n\nLa API obsoleta se retiró; la nueva va por Redis.\n",
    "# Sessions in Redis\n\nустарело всё, кроме схемы: см. ниже.\n",
    "# Sessions in Redis\n\nveraltet ist nur die Doku, der Code gilt.\n",
    "# 폐기물 처리\n\n폐기물 처리 규칙은 그대로 유효하다.\n",
    "# Sessions in Redis\n\n- Estado: obsoleto, salvo la sección de la API\n",
])
def test_the_same_words_in_a_sentence_or_leaving_a_part_out_are_no_status(body: str) -> None:
    assert stale(body) is None


@pytest.mark.parametrize("first", [
    "Replaced: proportional de-vig with odds-ratio as the default above 5% hold.",
    "Deprecated: `config.load_env()` — use `config.load_env_file()` instead.",
    "Abgelöst: proportionales De-Vig durch Odds-Ratio als Standard.",
    "Substituído: o de-vig proporcional pelo odds-ratio como padrão.",
])
def test_an_opening_label_naming_what_changed_records_a_change_not_a_status(
    first: str
) -> None:
    """"Replaced: X with Y" tells what the memory's subject changed to; it stays true."""
    assert stale(first + "\n\nUse the odds-ratio helper.\n") is None


@pytest.mark.parametrize("first", ["Superseded: see [[deploy-v2]].", "Deprecated: kept for history.",
                                   "SUPERSEDED by the container pipeline; kept for history."])
def test_an_opening_label_standing_alone_or_naming_a_successor_is_a_status(first: str) -> None:
    assert whole(first + "\n\nDeploys ran from the build VM.\n")


@pytest.mark.parametrize("first", ["完成代码改动后，自己跑 exe 看日志。",
                                   "完了した後、ログを確認してから報告する。"])
def test_a_word_of_finishing_opening_a_clause_of_time_is_no_status(first: str) -> None:
    """"After completing the change, run it yourself": a rule, not finished work."""
    found, note = study_stale(memory(first + "\n"), NOW, None)
    assert found is None and note is None


@pytest.mark.parametrize(("status", "reported"), [
    ("Estado: obsoleto", True), ("Статус: устарело", True), ("Status: veraltet", True),
    ("Estado: concluído", False), ("상태: 완료", False),
])
def test_a_status_line_in_other_languages_under_a_sub_heading_is_about_a_part(
    status: str, reported: bool
) -> None:
    body = f"# Decision log\n\nDecisions, newest last.\n\n## D-07: sessions in Redis\n- {status}\n"
    found = stale(body)
    assert (found is not None and not found.archivable) if reported else found is None


def test_several_status_lines_in_the_lead_are_items_not_the_memory() -> None:
    assert stale("Migration steps:\nStatus: done\nStatus: open\n") is None


# --- "no longer": a sentence, not a status ---------------------------------------------------


@pytest.mark.parametrize("line", [
    "The advice to retry POSTs by hand is no longer valid: the gateway replays them.",
    "以前“POST 要手动重试”的建议已不再适用：网关会自动重放。",
    "POST を手動で再試行する以前の手順は、もう有効ではない。",
    "The CSV export is still available but no longer used by billing.",
    "旧导出接口仍然可用，只是计费已经不再使用它。",
    "エクスポート自体はまだ動くが、請求処理ではもう使っていない。",
    '> "We no longer open the PDF at all." — support lead',
    "客服主管说：“PDF 版已不再适用了。”",
    "サポートいわく「PDF版はもう有効ではないので見ていません」とのこと。",
    "If the old tool names come back, this advice is no longer valid.",
    "如果旧名字又恢复了，这条规则就不再适用。",
    "もし旧ツール名が復活していたら、この手順はもう有効ではない。",
])
def test_no_longer_in_a_sentence_dialogue_or_condition_is_no_finding(line: str) -> None:
    assert stale(f"# Exports\n\nKeep the export.\n\n{line}\n") is None


# --- deadlines: the memory's subject, a part, or not a deadline at all -----------------------


@pytest.mark.parametrize("lead", [
    "Until 2026-03-12 the release branch is frozen: hotfixes only.",
    "2026年3月12日前，release 分支封版，只允许紧急修复。",
    "2026年3月12日まで main へのマージは禁止。",
])
def test_a_passed_deadline_in_the_lead_is_the_memorys_subject(lead: str) -> None:
    found = whole(f"# Release freeze\n\n{lead}\n\nTag hotfixes `hf-N`.\n")
    assert found.kinds == ("deadline",)
    assert "2026-03-12" in found.reasons[0] and found.evidence == (lead,)


@pytest.mark.parametrize("lead", [
    "Until 2026-03-12 the release branch was frozen: hotfixes only.",
    "2026年3月12日前，release 分支曾经封版，只允许紧急修复。",
    "2026年3月12日まで main へのマージは禁止だった。",
])
def test_the_same_words_told_in_the_past_are_a_past_event(lead: str) -> None:
    assert stale(f"# Release freeze\n\n{lead}\n", written=datetime(2026, 3, 20, 12)) is None


@pytest.mark.parametrize("lead", [
    "Merge freeze until 2026-03-12: hotfixes only.",
    "2026年3月12日前，release 分支封版，只允许紧急修复。",
    "2026年3月12日まで main へのマージは禁止。",
])
def test_a_rule_in_the_head_stays_a_deadline_after_a_later_edit(lead: str) -> None:
    found = whole(f"# Release freeze\n\n{lead}\n", written=datetime(2026, 3, 20, 12))
    assert "2026-03-12" in found.reasons[0]


@pytest.mark.parametrize("item", [
    "- Merge freeze until 2026-03-12: hotfixes only.",
    "- 2026年3月12日前，release 分支封版。",
    "- 2026年3月12日まで main へのマージは禁止。",
])
def test_a_rule_in_a_part_written_after_its_day_is_history(item: str) -> None:
    body = f"# Release notes\n\nWhat happened this spring.\n\n{item}\n"
    assert stale(body, written=datetime(2026, 3, 20, 12)) is None


@pytest.mark.parametrize("description", [
    "Staging stays read-only until 2026-09-30", "预发环境有效期至2026年9月30日",
    "2026年9月30日まで検証環境は読み取り専用",
])
def test_a_passed_limit_of_validity_in_the_description_is_the_memorys_subject(
    description: str,
) -> None:
    found = whole("Details below.\n", description=description)
    assert "2026-09-30" in found.reasons[0]


@pytest.mark.parametrize("description", [
    "Grant report due 2026-09-30", "**Deadline:** 2026-09-30 · plan for the pilot",
    "截止 2026年9月30日 提交季度报告", "2026年9月30日までに監査を終える",
])
def test_work_due_by_a_passed_day_is_reported_but_not_archivable(description: str) -> None:
    found = part("Two pages at most.\n", description=description)
    assert "2026-09-30" in found.reasons[0] and "work due" in found.reasons[0]


@pytest.mark.parametrize("item", [
    "- Hosting: renewal decision due 2026-10-15; ask finance first.",
    "- 主机：2026年10月15日前确定是否续约。",
    "- 棚卸し：2026年10月までに完了させる",
])
def test_a_passed_deadline_in_a_list_item_is_about_a_part(item: str) -> None:
    found = part(f"Vendor contracts we manage.\n\n{item}\n- CDN: month to month.\n")
    assert found.kinds == ("deadline",) and found.evidence == (item,)


def test_a_passed_deadline_with_a_later_one_still_ahead_is_not_archivable() -> None:
    body = ("# Audit\n\nAccess review until 2026-03-31.\n\n"
            "- Log retention review: by 2027-03-31\n")
    found = part(body)
    assert "2026-03-31" in found.reasons[0]


@pytest.mark.parametrize("text", [
    "The chat server was closed a few days before 2026-07-14.",
    "The streaming endpoint was shown working end to end on 2026-08-02.",
    "p95 stayed flat through 2026-05-27, then rose.",
    "The weekly report covers data through 2026-05-26.",
    "Session ended 2026-06-17 after step 3; resume at step 4.",
    "截至2026年5月27日，p95 一直稳定在 180ms。",
    "データ範囲 2024-01-02〜2026-06-01、全 947 件。",
])
def test_past_events_achievements_windows_and_resume_points_are_not_deadlines(text: str) -> None:
    assert days(text, written=datetime(2026, 8, 10, 12)) == []


@pytest.mark.parametrize("text", [
    "Badge rules, e.g. a contract that expires 2026-05-18 is shown in red.",
    "到期前一个月标红，例如 2026-05-18 到期的合同。",
    "例えば 2026-05-18 に期限が切れる契約は赤。",
    "Run `freeze --until 2026-05-18` to try it.",
    "月次レポートは 2026年5月18日までの売上を集計する。",
])
def test_examples_code_and_up_to_ranges_are_not_deadlines(text: str) -> None:
    assert days(text, written=datetime(2026, 4, 20, 12)) == []


@pytest.mark.parametrize("body", [
    "| Task | Due |\n|---|---|\n| Report | due 2026-03-05 |\n",
    "```\nlicence: trial, expires 2026-03-05\n```\n",
    "> The trial expires 2026-03-05.\n",
])
def test_dates_in_tables_code_and_quotes_are_not_deadlines(body: str) -> None:
    assert stale(f"Notes.\n\n{body}") is None


def test_a_relative_phrase_is_never_a_deadline() -> None:
    assert find_deadlines("The licence trial expires in 24 days.", WRITTEN) == []
    assert stale("Trial licence: expires in 24 days, then renew.\n") is None


@pytest.mark.parametrize(("text", "day"), [
    ("Finish the audit by October 2026.", "2026-10-31"),
    ("Finish the audit by October 20, 2026.", "2026-10-20"),
    ("Finish the audit before October 2026.", "2026-09-30"),
    ("Finish the audit by the end of October.", "2026-10-31"),
    ("2026年10月までに監査を終える。", "2026-10-31"),
    ("3月5日まで新機能の追加は禁止。", "2026-03-05"),
    ("截止日期：2026年3月5日", "2026-03-05"),
    ("Code freeze 2026-03-01 to 2026-03-12, hotfixes only.", "2026-03-12"),
    ("3月1日至3月12日封版。", "2026-03-12"),
])
def test_a_month_is_its_last_day_and_a_range_ends_on_its_end(text: str, day: str) -> None:
    assert days(text) == [day]


def test_a_month_then_a_year_is_not_read_as_a_day() -> None:
    assert days("By May 2026 the import script printed thousands of warnings.") == []
    assert days("Ship it by October 2026.") != ["2026-10-20"]


# --- paths ---------------------------------------------------------------------------------


def test_a_missing_path_is_about_a_part_and_quotes_its_line(tmp_path: Path) -> None:
    (tmp_path / "src" / "jobs").mkdir(parents=True)
    (tmp_path / "src" / "app.py").write_text("")
    m = memory("# Code map\n\n- Export job: `src/jobs/export.py`\n- Entry: `src/app.py`\n")
    found = find_stale(m, NOW, tmp_path)
    assert found is not None and not found.archivable
    assert found.reasons == ("cites `src/jobs/export.py` — not in the project (about a part)",)
    assert found.evidence == ("- Export job: `src/jobs/export.py`",)


@pytest.mark.parametrize("line", [
    "- Deleted `src/old/cron.py`; its jobs run from the scheduler.",
    "- Renamed `src/utils/strings.py` to `src/text.py`.",
    "- Planned: new module `src/jobs/digest.py`.",
    "- 删除了 `src/old/cron.py`。",
    "- `src/old/cron.py` を削除した。",
])
def test_a_missing_path_in_a_line_about_its_removal_or_creation_is_no_finding(
    tmp_path: Path, line: str
) -> None:
    assert find_stale(memory(f"Cleanup.\n\n{line}\n"), NOW, tmp_path) is None


# --- the head, and the cost of adversarial text ----------------------------------------------


def test_the_head_is_the_title_and_the_paragraph_under_it() -> None:
    lines = outline("# Title\n\nLead one.\nLead two.\n\nBody.\n\n## Sub\nText.\n")
    assert [line.text for line in lines if line.head] == ["# Title", "Lead one.", "Lead two."]


@pytest.mark.slow  # a megabyte per input; tests/unit/test_linear.py guards growth by default
@pytest.mark.parametrize("chunk", [
    "(", "[DONE ", "Status: ", "2026-01-01 ", "until ", "「", "`", "\"", "'", "— ", "1月",
    "by October ", "no longer ", "已完成", "- (superseded ", "2026-01-01 to ",
])
def test_a_megabyte_of_adversarial_text_is_read_in_linear_time(chunk: str) -> None:
    body = chunk * (1_000_000 // len(chunk))
    started = time.perf_counter()
    find_stale(memory(body), NOW, None)
    find_stale(memory(body.replace(" ", "\n")), NOW, None)
    assert time.perf_counter() - started < 15  # linear: a few seconds; quadratic: hours


def test_the_found_day_is_a_date() -> None:
    (found,) = find_deadlines("Deploys are blocked until 2026-05-01.", WRITTEN)
    assert found.day == date(2026, 5, 1) and found.phrase == "until 2026-05-01"
    assert found.line == "Deploys are blocked until 2026-05-01."


# --- a first line that is one section's heading ------------------------------------------------


@pytest.mark.parametrize("heading,other", [
    ("## DONE (this session)", "## Still to decide"),
    ("## 已完成（本次 session）", "## 待決定"),
    ("## 完了済み（今回のセッション）", "## 未決定"),
])
def test_a_status_sub_heading_opening_one_of_several_sections_is_not_the_title(
    heading: str, other: str
) -> None:
    found = stale(f"{heading}\n\n- login page\n- cache fix\n\n{other}\n\n- push alerts\n")
    assert found is None or not found.archivable


def test_a_status_title_over_the_whole_memory_still_speaks_for_it() -> None:
    whole("# SUPERSEDED by the container pipeline\n\n## Steps\n\n- build on the VM\n")


# --- paused, not retired ------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["paused", "inactive", "on hold", "暂停", "休止"])
def test_a_paused_status_in_the_frontmatter_is_reported_and_never_archived(value: str) -> None:
    found = stale("Vocabulary drill every morning.\n", extra=f"status: {value}\n")
    assert found is not None and not found.archivable
    assert found.evidence == (f"status: {value}",)


def test_an_active_status_in_the_frontmatter_is_no_finding() -> None:
    assert stale("Vocabulary drill every morning.\n", extra="status: active\n") is None


def test_finished_work_in_a_name_written_as_a_title_is_a_note_not_stale() -> None:
    # A tag in capitals retires (migration-v2-DONE, above); a title that says it was done
    # tells of an event.
    assert "v8 refactor (done)" in finished("Steps are below.\n", name="v8 refactor (done)")


# --- a first line that is one of the lead paragraph's numbered items -------------------------


@pytest.mark.parametrize("lead", [
    "Phase 1 Foundation COMPLETE.\nPhase 2 Core Pages COMPLETE.\nPhase 3 IN PROGRESS.\n",
    "Phase 1 (old layout) — SUPERSEDED\nPhase 2 — in progress\n",
    "Step 1: obsolete\nStep 2: run the export again\n",
    "Sprint #4 — done\nSprint #5 — planning\n",
])
def test_a_status_on_the_first_of_numbered_items_is_that_item_s(lead: str) -> None:
    """"Phase 1 ... COMPLETE." above "Phase 2 ..." and "Phase 3 IN PROGRESS": the status
    speaks for its phase, not for the memory (neither finished work nor stale)."""
    found, note = study_stale(memory(lead + "\nDetails below.\n"), NOW, None)
    assert (found, note) == (None, None)


@pytest.mark.parametrize("lead", [
    "Phase 1 (old layout) — SUPERSEDED\nSee the current plan instead.\n",
    "Phase 1 (old layout) — SUPERSEDED\nPhase 1 steps were these:\n",
])
def test_a_status_on_a_numbered_first_line_alone_still_speaks_for_the_memory(
    lead: str
) -> None:
    """The same first line with no sibling item after it (or the same item again) speaks
    for the whole memory, as before."""
    assert "first line" in whole(lead).reasons[0]
