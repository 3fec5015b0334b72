"""Conflicts on text as people write it: the same subject saying two different things, and
never two different things that merely share a template.

Each class of writing has its positive case and its negative twin, in English, Chinese and
Japanese where the class applies.
"""

from __future__ import annotations

import hashlib
import time
from datetime import datetime

import pytest

from consolidator.detect.conflicts.find import find_conflicts
from consolidator.detect.conflicts.values import tokens
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory

OLD = datetime(2026, 3, 2, 12, 0)
NEW = datetime(2026, 9, 21, 12, 0)


def memory(file: str, body: str, *, written: datetime = OLD, description: str = "") -> Memory:
    """A Memory as the scan hands it over, with a fixed mtime."""
    name = file.removesuffix(".md")
    data = f"---\nname: {name}\ndescription: {description or name}\ntype: project\n---\n{body}"
    raw = data.encode()
    stat = FileStat(rel=file, size=len(raw), mtime_ns=int(written.timestamp() * 1e9),
                    mode=0o644, sha256=hashlib.sha256(raw).hexdigest())
    return Memory(stat, parse(raw))


def pair(left: str, right: str, *, a: str = "a.md", b: str = "b.md") -> list[Memory]:
    return [memory(a, left, written=OLD), memory(b, right, written=NEW)]


# --- known alternatives: tool, weekday, always/never, on/off ---------------------------------

ALTERNATIVES = {
    "en package manager": ("Use npm for all installs in this repo; CI runs the clean install.\n",
                           "- Use pnpm for all installs in this repo; CI runs the clean "
                           "install.\n"),
    "en weekday": ("Releases go out every Wednesday after the 14:00 sync.\n",
                   "Releases go out every Thursday after the 14:00 sync; nothing risky after.\n"),
    "en always never": ("Always squash migrations before merging a feature branch.\n",
                        "- Never squash migrations before merging a feature branch — the audit "
                        "trail needs every step.\n"),
    "zh weekday": ("每周三下午发版，发版前一天冻结 main。\n", "每周四下午发版，发版前一天冻结 main。\n"),
    "zh must": ("合并前必须压缩迁移文件，文件名带上工单号。\n", "- 合并前不要压缩迁移文件，审计需要保留每一步。\n"),
    "ja weekday": ("リリースは毎週水曜日の午後に出す。\n", "リリースは毎週木曜日の午後に出す。\n"),
    "ja enabled": ("- 本番では feature flag のキャッシュを有効にする。TTL は 30 秒。\n",
                   "- 本番では feature flag のキャッシュを無効にする。即時反映を優先。\n"),
}


@pytest.mark.parametrize("case", sorted(ALTERNATIVES))
def test_one_claim_with_another_known_alternative_is_a_conflict(case: str) -> None:
    left, right = ALTERNATIVES[case]
    (conflict,) = find_conflicts(pair(left, right))
    assert conflict.files == ("a.md", "b.md")
    assert conflict.newer == "b.md"
    assert conflict.evidence == (left.strip(), right.strip())


@pytest.mark.parametrize("case", sorted(ALTERNATIVES))
def test_the_same_alternative_said_of_another_subject_is_no_conflict(case: str) -> None:
    left, right = ALTERNATIVES[case]
    # The other memory says it of something else: the words around the value differ.
    other = right.replace("Releases go out", "Newsletters are sent").replace(
        "squash migrations", "rebase branches").replace("for all installs", "for the docs site"
    ).replace("发版", "周会").replace("压缩迁移文件", "更新变更日志").replace(
        "リリース", "定例会").replace("キャッシュ", "ログ")
    assert find_conflicts(pair(left, other)) == []


# --- numbers, a claim followed by a remark ------------------------------------------------------


@pytest.mark.parametrize(("left", "right"), [
    ("- Dev database: localhost:5432 (plain Postgres, from docker compose)\n",
     "- Dev database: localhost:6432 (through pgbouncer since the rollout)\n"),
    ("- redis-jfs 端口：6380（master 在 160）\n", "- redis-jfs 端口：6390（迁移后改的，master 仍在 160）\n"),
    ("- 開発DB：localhost:5432（docker compose の Postgres）\n", "- 開発DB：localhost:6432（pgbouncer 経由）\n"),
])
def test_a_changed_number_in_a_claim_followed_by_a_remark_is_a_conflict(
    left: str, right: str
) -> None:
    # Named for one subject; files come in name order, evidence in files order.
    older, newer = "reference_dev_db.md", "project_dev_db_pooling.md"
    (conflict,) = find_conflicts(pair(left, right, a=older, b=newer))
    assert conflict.files == (newer, older)
    assert conflict.evidence == (right.strip(), left.strip())


@pytest.mark.parametrize("template", [
    "# {lab} lab\n\n- VLAN: {n}0\n- Gateway: 10.{n}.0.1\n"
    "- DHCP range: 10.{n}.0.100 - 10.{n}.0.200\n",
    "# {lab} 机房\n\n- 网段：10.{n}.0.0/16\n- 网关：10.{n}.0.1\n- 145 = 10.{n}.100.145，NFS 客户端\n",
    "# {lab}\n\n| | |\n|---|---|\n| RAM | {n}4 GB |\n| CPU | {n}6 cores |\n"
    "| OS | Ubuntu 2{n}.04 |\n",
])
def test_one_template_filled_in_for_two_things_is_no_conflict(template: str) -> None:
    berlin = memory("reference_lab_berlin.md", template.format(lab="Berlin", n=2))
    porto = memory("reference_lab_porto.md", template.format(lab="Porto", n=4), written=NEW)
    assert find_conflicts([berlin, porto]) == []


@pytest.mark.parametrize(("run_a", "run_b"), [
    ("| bm25 | 0.412 | 12 |\n| hybrid | 0.495 | 38 |\n",
     "| bm25 | 0.431 | 12 |\n| hybrid | 0.529 | 37 |\n"),
    ("| 标准 | 30 | 14 分 |\n| 高画质 | 50 | 41 分 |\n", "| 标准 | 30 | 11 分 |\n| 高画质 | 50 | 33 分 |\n"),
])
def test_two_runs_of_one_measurement_are_no_conflict(run_a: str, run_b: str) -> None:
    head = "| model | score | ms |\n|---|---|---|\n"
    runs = [memory("project_eval.md", head + run_a), memory("project_eval_rerun.md", head + run_b)]
    assert find_conflicts(runs) == []


# --- identifiers and the memory's own values ----------------------------------------------------


@pytest.mark.parametrize(("left", "right"), [
    ("- Database ID: `8c1e4f2a9b7d4e03a6f5c2b1d0e9f874` for the tasks board\n",
     "- Database ID: `3f0a7b6c5d4e4a21b9c8d7e6f5a4b3c2` for the tasks board\n"),
    ("- Data source: a91c3e57-2f4b-4d6e-9a8c-7b1e0f2d3c45 for the tasks board\n",
     "- Data source: 3c0e9b12-6d4a-4f8e-b2c1-9a7d5e3f1b08 for the tasks board\n"),
    ("## 次回 PS#4 候補（S18 以降）の確認と整理をする\n- 次は S18 の候補を確認して整理する。\n",
     "## 次回 PS#4 候補（S19 以降）の確認と整理をする\n- 次は S19 の候補を確認して整理する。\n"),
    ("- Order 1048576 was refunded twice by the payments worker.\n",
     "- Order 2097152 was refunded twice by the payments worker.\n"),
    ("相关工单：TESSERA-1671。\n- 支付服务的重试次数上限为三次。\n",
     "相关工单：TESSERA-1798。\n- 支付服务的重试次数上限为三次。\n"),
    ("- Tracked in ticket PAY-212 for the payments worker.\n",
     "- Tracked in ticket PAY-318 for the payments worker.\n"),
])
def test_values_that_name_things_never_conflict(left: str, right: str) -> None:
    assert find_conflicts(pair(left, right)) == []


def test_a_version_is_a_value_not_a_name() -> None:
    found = find_conflicts(pair("The API service runs on Node 20 in every environment.\n",
                                "The API service runs on Node 22 in every environment.\n"))
    assert [c.reason for c in found] == ["a.md says '20' where b.md says '22'"]


@pytest.mark.parametrize(("a", "b", "line"), [
    ("project_session_2026-09-03.md", "project_session_2026-09-17.md",
     "Session notes written on {d} for the importer retries work.\n"),
    ("会话记录_20260903.md", "会话记录_20260917.md", "本次会话日期 {d}，继续做导入重试。\n"),
])
def test_a_session_logs_own_date_is_no_conflict(a: str, b: str, line: str) -> None:
    first = memory(a, line.format(d="2026-09-03"))
    second = memory(b, line.format(d="2026-09-17"), written=NEW)
    assert find_conflicts([first, second]) == []


def test_one_date_for_one_event_in_two_memories_is_a_conflict() -> None:
    found = find_conflicts(pair("The code freeze for the 3.0 release starts on 2027-01-11.\n",
                                "The code freeze for the 3.0 release starts on 2027-01-18.\n"))
    assert [c.reason for c in found] == ["a.md says '2027-1-11' where b.md says '2027-1-18'"]


def test_the_dates_two_rationale_lines_cite_are_two_events_in_any_language() -> None:
    # "Why: feedback of <day> (…)" says which feedback; function words of the memory's own
    # language and the Why label are not what a line is about.
    assert find_conflicts(pair(
        "Palette sombre pour les titres.\n\n"
        "**Why:** retours du 2026-09-23 (essais de titres) sur la palette.\n",
        "Transitions courtes entre les plans.\n\n"
        "**Why:** retours du 2026-09-26 (le montage final) sur la palette.\n")) == []
    found = find_conflicts(pair(
        "Le gel du code de la version 3.0 commence le 2027-01-11.\n",
        "Le gel du code de la version 3.0 commence le 2027-01-18.\n"))
    assert [c.reason for c in found] == ["a.md says '2027-1-11' where b.md says '2027-1-18'"]


# --- lists, headings, paths ---------------------------------------------------------------------


def test_a_memory_listing_both_values_is_no_conflict_with_either() -> None:
    both = memory("a.md", "- The API listens on port 8080 in dev.\n"
                          "- The API listens on port 443 in production.\n")
    one = memory("b.md", "- The API listens on port 8080 in dev.\n", written=NEW)
    assert find_conflicts([both, one]) == []


def test_lines_under_parallel_headings_are_no_conflict() -> None:
    a = memory("a.md", "## Lab A\n- The uplink of the lab switch is port 24 on the rack.\n")
    b = memory("b.md", "## Lab B\n- The uplink of the lab switch is port 48 on the rack.\n")
    assert find_conflicts([a, b]) == []
    same = memory("b.md", "## Lab A\n- The uplink of the lab switch is port 48 on the rack.\n")
    assert len(find_conflicts([a, same])) == 1


def test_two_jobs_each_named_in_its_own_line_are_no_conflict() -> None:
    # Each line names its own memory's job (its history folder): two jobs, two times.
    left = "- Every trading day at 15:00 cron posts to both groups; saved in matrix_history/\n"
    right = "- Every trading day at 07:30 cron posts to both groups; saved in overnight_history/\n"
    assert find_conflicts(pair(left, right, a="reference_lin_matrix.md",
                               b="reference_market_overnight.md")) == []
    # Lines that name no job, in the same memories: one schedule, two times.
    plain = "- Every trading day at {} cron posts to both groups; saved in the history.\n"
    assert len(find_conflicts(pair(plain.format("15:00"), plain.format("07:30"),
                                   a="reference_lin_matrix.md",
                                   b="reference_market_overnight.md"))) == 1


def test_a_subject_named_only_in_a_remark_is_still_one_claim() -> None:
    # "(through pgbouncer)" says why the port moved; the claim is the dev database's port.
    left = "- Dev database: localhost:5432 (plain Postgres 16, from docker compose)\n"
    right = "- Dev database: localhost:6432 (through pgbouncer since the pgbouncer rollout)\n"
    assert len(find_conflicts(pair(left, right, a="project_dev_env.md",
                                   b="project_pgbouncer.md"))) == 1


@pytest.mark.parametrize(("left", "right"), [
    ("Application logs are written to /var/log/orders/app.log on the worker hosts.\n",
     "Application logs are written to /srv/orders/logs/app.log on the worker hosts.\n"),
    ("应用日志写在 /var/log/factor/app.log，每天轮转一次。\n", "应用日志写在 /data/factor/logs/app.log，每天轮转一次。\n"),
    ("アプリのログは /var/log/orders/app.log に出力される。\n", "アプリのログは /srv/orders/logs/app.log に出力される。\n"),
])
def test_one_file_in_two_places_is_a_conflict(left: str, right: str) -> None:
    assert len(find_conflicts(pair(left, right, a="reference_logs.md", b="project_logs.md"))) == 1


def test_two_different_files_in_one_sentence_are_no_conflict() -> None:
    found = find_conflicts(pair(
        "Property-based tests cover the parsing code in `src/audit/jobs.py` for every tenant.\n",
        "Property-based tests cover the parsing code in `src/ledger/client.py` for every "
        "tenant.\n"))
    assert found == []


# --- symbols the normal form drops --------------------------------------------------------------

SYMBOL_TWINS = [
    ("Retry the webhook after -5 seconds of clock skew.",
     "Retry the webhook after +5 seconds of clock skew."),
    ("The render plugin is written in C++ and stays thin.",
     "The render plugin is written in C# and stays thin."),
    ("Keep candidates when `score >= 7.0` in the weekly review.",
     "Keep candidates when `score > 7.0` in the weekly review."),
    ("Alert when `errors == 0` is false for the nightly job.",
     "Alert when `errors != 0` is false for the nightly job."),
    ("The monthly API charge is $25 per top-up for the team.",
     "The monthly API charge is €25 per top-up for the team."),
    ("Cron times on the build box are in UTC+2 for the office.",
     "Cron times on the build box are in UTC-2 for the office."),
    ("Pin `date-fns` to `^4.2.0` in the web package.",
     "Pin `date-fns` to `~4.2.0` in the web package."),
    ("Local runs read flags from the `APP_FEATURE_FLAGS` variable.",
     "Local runs read flags from the `APP-FEATURE-FLAGS` variable."),
    ("| 检查点比对 CheckPoint | ✅ |", "| 检查点比对 CheckPoint | ❌ |"),
    ("- ~~Connect through the staging VPN for database access.~~",
     "- Connect through the staging VPN for database access."),
]


@pytest.mark.parametrize(("left", "right"), SYMBOL_TWINS)
def test_lines_that_differ_only_in_a_symbol_are_a_conflict(left: str, right: str) -> None:
    (conflict,) = find_conflicts(pair(left + "\nAsk in the team channel first.\n",
                                      right + "\nAsk in the team channel first.\n"))
    assert conflict.evidence == (left, right)


def test_a_struck_claim_is_named_as_struck() -> None:
    (conflict,) = find_conflicts(pair(SYMBOL_TWINS[-1][0] + "\n", SYMBOL_TWINS[-1][1] + "\n"))
    assert conflict.reason.startswith("a.md strikes through 'connect through the staging vpn")


@pytest.mark.parametrize(("left", "right"), [
    ("Re-read the shared plan file before writing it back.",
     "Reread the shared plan file before writing it back."),
    ("- **Use** the `staging` VPN for database access.",
     "* use the `staging` VPN for database access!"),
])
def test_lines_that_differ_only_in_form_are_no_conflict(left: str, right: str) -> None:
    assert find_conflicts(pair(left + "\n", right + "\n")) == []


@pytest.mark.parametrize(("left", "right", "reason"), [
    ("v4", "4", None),
    ("^v4.2", "^4.2", None),
    ("v4", "v3", "a.md says 'v4' where b.md says 'v3'"),
    ("^v4.2", "^4.3", "a.md says '^v4.2' where b.md says '^4.3'"),
])
def test_a_version_with_its_mark_and_without_is_one_version(
    left: str, right: str, reason: str | None
) -> None:
    line = "The landing page is built with Tailwind CSS {} and GSAP for its animations.\n"
    found = find_conflicts(pair(line.format(left), line.format(right)))
    assert [c.reason for c in found] == ([reason] if reason else [])


@pytest.mark.parametrize(("text", "kinds"), [
    ("ticket TESSERA-1671", ["word", "id"]),
    ("in UTC-0300", ["word", "word", "number"]),
    ("in UTC-2", ["word", "word", "number"]),
])
def test_a_key_with_its_number_is_one_name_an_offset_is_a_number(
    text: str, kinds: list[str]
) -> None:
    assert [t.kind for t in tokens(text)] == kinds


# --- linear time --------------------------------------------------------------------------------


@pytest.mark.slow  # a megabyte per input; tests/unit/test_linear.py guards growth by default
@pytest.mark.parametrize("chunk", ["a-1", "1a", "x/", "~~", "9" * 7 + "g", "周三", "C#a_B "])
def test_a_megabyte_of_adversarial_text_is_tokenised_in_linear_time(chunk: str) -> None:
    text = chunk * (1_000_000 // len(chunk))
    started = time.perf_counter()
    tokens(text)
    find_conflicts(pair(text, text[::-1]))
    assert time.perf_counter() - started < 20


def test_a_short_code_is_a_value_for_one_subject_and_a_name_otherwise() -> None:
    left = "- The staging database password is hunter2 for the admin role.\n"
    right = "- The staging database password is Tr0ub4dor3 for the admin role.\n"
    # Two memories named for one subject: the code is its value, and they disagree on it.
    assert len(find_conflicts(pair(left, right, a="staging_db.md", b="staging_db_new.md"))) == 1
    # Two memories about different things: "S17" and "S18" name two sessions.
    assert find_conflicts(pair(left, right, a="ops_notes.md", b="billing_notes.md")) == []


@pytest.mark.parametrize(("left", "right"), [
    ("Refund order 10423 by hand, the payments worker skipped it.\n",
     "Refund order 10877 by hand, the payments worker skipped it.\n"),
    ("第 3 集的结尾要留一个压力型钩子，主角不能赢得太轻松。\n", "第 4 集的结尾要留一个压力型钩子，主角不能赢得太轻松。\n"),
])
def test_a_number_that_names_a_thing_is_no_conflict(left: str, right: str) -> None:
    assert find_conflicts(pair(left, right, a="notes_refunds.md", b="notes_refunds_more.md")) == []


# --- days: when each memory's own thing happened, or one plan's two days --------------------

@pytest.mark.parametrize(("left", "right"), [
    ("Built on 1 Oct 2026 at the request of the user, after a question about the import.\n",
     "Built on 2 Oct 2026 at the request of the user, after a question about the import.\n"),
    ("Dibangun 1 Okt 2026 atas permintaan pengguna, setelah pengguna bertanya soal impor.\n",
     "Dibangun 2 Okt 2026 atas permintaan pengguna, setelah pengguna bertanya soal impor.\n"),
    ("Built on 2026-10-01 at the request of the user, after a question about the import.\n",
     "Built on 2026-10-02 at the request of the user, after a question about the import.\n"),
    ("Décidé en session le 02/10/2026 avec le fondateur, à ne pas redemander ensuite.\n",
     "Décidé en session le 03/10/2026 avec le fondateur, à ne pas redemander ensuite.\n"),
])
def test_two_memories_telling_when_their_own_thing_happened_do_not_conflict(
    left: str, right: str
) -> None:
    """Two features, each memory written after its day: two events, not one fact."""
    written = datetime(2026, 11, 2, 12, 0)
    memories = [memory("qg_gdb_import_sync.md", left, written=written),
                memory("qg_infographic.md", right, written=written)]
    memories += [memory(f"qg_note_{i}.md", f"Note {i} of the project.\n") for i in range(6)]
    assert find_conflicts(memories) == []


def test_one_plan_given_two_days_is_a_conflict() -> None:
    """The same sentence, days still ahead when the memories were written: one plan."""
    written = datetime(2026, 11, 2, 12, 0)
    memories = [
        memory("qg_release_plan.md", "The code freeze for 3.0 starts on 18 Jan 2027, fixes only.\n",
               written=written),
        memory("qg_schedule.md", "The code freeze for 3.0 starts on 11 Jan 2027, fixes only.\n",
               written=written),
    ]
    [found] = find_conflicts(memories)
    assert found.reason == ("qg_release_plan.md says '2027-1-18' where qg_schedule.md says "
                            "'2027-1-11'")


def test_a_date_written_with_the_month_s_name_is_one_value() -> None:
    assert [(t.skel, t.value) for t in tokens("built on 1 Okt 2026 for them")] == [
        ("built", "built"), ("on", "on"), ("<date>", "2026-10-1"), ("for", "for"),
        ("them", "them")]


def test_one_folder_written_from_its_parent_and_in_full_is_no_conflict() -> None:
    """The relative path is the tail of the absolute one: one place, two ways of writing it."""
    left = ('Start the server with `Start-Process $py -WorkingDirectory '
            '"C:\\Users\\me\\proj\\warehouse_v2\\test"` before the eval.\n')
    right = ('Start the server with `Start-Process $py -WorkingDirectory '
             '"warehouse_v2\\test"` before the eval.\n')
    assert find_conflicts(pair(left, right)) == []


def test_a_value_each_file_name_carries_names_a_thing_of_a_series_not_a_claim() -> None:
    """project_polity_v5_lot4 and project_polity_v6a_lot4 are two records of one series:
    "Polity v5 Lot 4 merged" and "Polity v6a Lot 4 merged" each name their own lot. Two
    memories named for no version that give two current versions disagree."""
    series = [
        memory("project_polity_v5_lot4_reaction.md",
               "Polity v5 Lot 4 merged to develop after review, squash commit on main.\n"),
        memory("project_polity_v6a_lot4_acceptance.md",
               "Polity v6a Lot 4 merged to develop after review, squash commit on main.\n",
               written=NEW),
    ]
    assert find_conflicts(series) == []
    current = [
        memory("project_polity_status.md",
               "The current Polity release is v5, deployed to the demo server.\n"),
        memory("project_polity_notes.md",
               "The current Polity release is v6a, deployed to the demo server.\n", written=NEW),
    ]
    (conflict,) = find_conflicts(current)
    assert "'v5'" in conflict.reason and "'v6a'" in conflict.reason
