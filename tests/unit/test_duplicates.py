"""Duplicates and similar memories on text as people write it.

A merge the tool calls safe must be lossless, so memories that differ in any symbol, sign or
number never merge; the same rule in other words, or a short memory and a more detailed one,
are reported as similar with the lines that match; two things written from one template are
neither.
"""

from __future__ import annotations

import hashlib
import time
from datetime import datetime

import pytest

from consolidator.detect.findings import Similar
from consolidator.detect.overlap.claims import Claims
from consolidator.detect.overlap.duplicates import Together, find_duplicates
from consolidator.detect.overlap.similar import find_similar
from consolidator.detect.text import CODE_MARK, exact_line, exact_set
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory

OLD = datetime(2026, 4, 7, 12, 0)
NEW = datetime(2026, 9, 30, 12, 0)


def memory(file: str, body: str, *, written: datetime = OLD, description: str = "",
           name: str = "", mtype: str = "feedback") -> Memory:
    """A Memory as the scan hands it over, with a fixed mtime."""
    name = name or file.removesuffix(".md")
    data = f"---\nname: {name}\ndescription: {description or name}\ntype: {mtype}\n---\n{body}"
    raw = data.encode()
    stat = FileStat(rel=file, size=len(raw), mtime_ns=int(written.timestamp() * 1e9),
                    mode=0o644, sha256=hashlib.sha256(raw).hexdigest())
    return Memory(stat, parse(raw))


# --- the exact form: what a merge must keep -----------------------------------------------------

SYMBOL_TWINS = [
    ("Retry after -5 seconds.", "Retry after +5 seconds."),
    ("Fail when a > b.", "Fail when a < b."),
    ("Check that x == y.", "Check that x != y."),
    ("The plugin is written in C++.", "The plugin is written in C#."),
    ("The plan costs $20 a month.", "The plan costs €20 a month."),
    ("Cron runs in UTC+2.", "Cron runs in UTC-2."),
    ("~~Use the staging VPN.~~", "Use the staging VPN."),
    ("✅ nightly backfill", "❌ nightly backfill"),
    ("Pin react-aria to ^4.2.0.", "Pin react-aria to ~4.2.0."),
    ("Set A_B in the env file.", "Set A-B in the env file."),
    ("Charge 1,000 per seat.", "Charge 1.000 per seat."),
    ("印花税：卖出单边 0.3%", "印花税：卖出单边 0.03%"),
    ("条件は `score >= 7.0`", "条件は `score > 7.0`"),
]


@pytest.mark.parametrize(("left", "right"), SYMBOL_TWINS)
def test_lines_that_differ_in_a_symbol_keep_different_exact_forms(left: str, right: str) -> None:
    assert exact_line(left) != exact_line(right)


@pytest.mark.parametrize(("left", "right"), [
    ("- Integration tests must hit a real Postgres database.",
     "*   integration TESTS must hit a real postgres database"),
    ("- Run the migrations before the test suite starts.",
     "1. Run the migrations, before the test suite starts!"),
    ("## Use **pnpm** only", "use pnpm only."),
    ("- 测试中不要模拟数据库层。", "* 测试中，不要模拟数据库层！"),
    ("- 集成测试必须连接真实的数据库。", "* 集成测试必须连接 真实的 数据库"),
    ("- テストでデータベース層をモックしない。", "* テストで、データベース層をモックしない！"),
    ("✅ nightly backfill", "✅\ufe0f nightly backfill"),
    ("Keep a; b", "keep a -- b"),
])
def test_lines_that_differ_only_in_form_share_an_exact_form(left: str, right: str) -> None:
    assert exact_line(left) == exact_line(right)


def test_case_counts_inside_code_and_code_blocks_are_kept_as_written() -> None:
    assert exact_line("Set `DEBUG=True` first") != exact_line("set `debug=true` first")
    assert exact_line("Set DEBUG first") == exact_line("set debug first")
    body = "```yaml\nretries:\n  max: 3\n```\n"
    assert CODE_MARK + "  max: 3" in exact_set(body)
    assert "max: 3" not in exact_set(body) and CODE_MARK + "max: 3" not in exact_set(body)


@pytest.mark.parametrize(("left", "right"), SYMBOL_TWINS)
def test_memories_that_differ_in_one_symbol_never_merge(left: str, right: str) -> None:
    rest = "Ask in the team channel before changing it.\nThe owner is the platform team.\n"
    a = memory("a.md", f"{left}\n{rest}")
    b = memory("b.md", f"{right}\n{rest}", written=NEW)
    assert find_duplicates([a, b]) == []


def test_a_memory_differing_in_a_symbol_is_not_absorbed_by_a_longer_one() -> None:
    short = memory("short.md", "- Retry after -5 seconds.\n- Log every retry.\n")
    long = memory("long.md", "- Retry after +5 seconds.\n- Log every retry.\n- Give up after 3.\n",
                  written=NEW)
    assert find_duplicates([short, long]) == []


@pytest.mark.parametrize(("one", "other"), [
    (["- Commit messages are written in English.", "- No emoji in commit messages or PR titles."],
     ["* commit messages are written in English", "* No emoji in commit messages or PR titles!"]),
    (["- 用中文回复，尽量简洁。", "- 代码、命令、提交信息里都不用 emoji。"],
     ["* 用中文回复，尽量简洁", "* 代码、命令、提交信息里都不用 emoji！"]),
    (["- TypeScript の型定義では `interface` ではなく `type` を使う。"],
     ["* TypeScript の型定義では `interface` ではなく `type` を使う"]),
])
def test_a_memory_contained_up_to_form_merges_into_its_container(
    one: list[str], other: list[str]
) -> None:
    contained = memory("feedback_style.md", "\n".join(one) + "\n", written=NEW)
    container = memory("user_profile.md", "# User\n" + "\n".join([*other, "- Prefers Go."]) + "\n")
    (cluster,) = find_duplicates([contained, container])
    assert cluster.keep == "user_profile.md"
    assert cluster.kind == "contained"


# --- similar: the same rule in other words -----------------------------------------------------

REWORDED = {
    "english": (
        ("feedback_concurrent_sessions.md",
         "Several sessions work in this repo at once; re-read shared files before overwriting them",
         "Several Claude sessions usually run in this repo at the same time.\n\n"
         "- Before overwriting a shared file (the plan doc, the board), read it again from disk. "
         "Never write it back from what you read at the start of the session.\n"
         "- Merge your change into the current contents instead of replacing the file.\n\n"
         "**Why:** a stale copy of the plan doc was written back and wiped another session's "
         "edits.\n"),
        ("feedback_reread_before_write.md",
         "Parallel sessions edit the same files; read a shared file again right before writing it",
         "Up to four sessions can be editing this project in parallel.\n\n"
         "1. Read a shared file again from disk right before you write it; do not trust the "
         "copy you loaded when the session started.\n"
         "2. Put your edit on top of what is in the file now, rather than overwriting it.\n\n"
         "Reason: the plan doc was once written back from a stale copy and another session's "
         "edits were lost.\n"),
    ),
    "chinese": (
        ("feedback_parallel_sessions.md", "同时开着几个会话；覆盖共享文件之前先重新读一遍",
         "这个仓库经常同时开着好几个会话。\n\n"
         "- 覆盖共享文件（计划文档、看板）之前，先从磁盘重新读一遍，不要拿会话开始时读到的内容直接写回去。\n"
         "- 把自己的改动合进当前内容里，而不是整个文件替换掉。\n\n"
         "**Why:** 有一次用旧副本覆盖了计划文档，另一个会话的修改全丢了。\n"),
        ("feedback_reread.md", "多个会话会同时改同一批文件，写共享文件之前必须重新读取",
         "最多四个会话可能在同时修改同一批文件。\n\n"
         "1. 写共享文件之前，必须从磁盘重新读取一次，不要相信会话开始时读到的副本。\n"
         "2. 在文件当前的内容上做修改，不要用自己的版本整个覆盖。\n\n"
         "原因：计划文档曾经被旧副本覆盖，另一个会话的修改因此丢失。\n"),
    ),
    "japanese": (
        ("feedback_run_e2e.md", "e2e シナリオは手動確認に回さず自分で実行してスクリーンショットまで確認する",
         "e2e のシナリオは「実機が要るので手動で確認」と書いて終わりにしない。自分で実行し、"
         "スクリーンショットの確認まで済ませる。\n\n"
         "**Why:** ユーザーから「手作業にせず自分でやること」と言われた。デスクトップセッションがあれば "
         "SSH 越しでも実行できる。\n"),
        ("feedback_no_manual.md", "e2e シナリオは人手の確認として残さず、自分で実行して画面まで確かめる",
         "e2e シナリオを「あとで人が実機で確認」として残すのは禁止。自分で実行して動作を確かめる。\n\n"
         "- 実行後に保存されたスクリーンショットを開いて、画面まで自分の目で確認する。\n"
         "- SSH 越しでもデスクトップセッションがあれば実行できる。\n\n"
         "理由：ユーザーに「手作業にしないで自分でやって」と言われている。\n"),
    ),
    "korean": (
        ("feedback_parallel_sessions.md", "여러 세션이 동시에 같은 파일을 고치니 공유 파일은 쓰기 직전에 다시 읽는다",
         "이 저장소는 여러 세션이 동시에 작업하는 경우가 많다.\n\n"
         "- 공유 파일(계획 문서, 보드)을 덮어쓰기 전에 디스크에서 다시 읽는다. 세션 시작 때 읽은 내용을 "
         "그대로 쓰지 않는다.\n"
         "- 내 변경은 지금 파일 내용 위에 합치고, 파일 전체를 바꾸지 않는다.\n\n"
         "**Why:** 예전 사본으로 계획 문서를 덮어써서 다른 세션의 수정이 모두 사라진 적이 있다.\n"),
        ("feedback_reread.md", "공유 파일을 쓰기 전에는 반드시 디스크에서 다시 읽기",
         "최대 네 개의 세션이 같은 파일을 동시에 수정할 수 있다.\n\n"
         "1. 공유 파일을 쓰기 전에 반드시 디스크에서 다시 읽는다. 세션 시작 때 읽은 사본을 믿지 않는다.\n"
         "2. 지금 파일 내용 위에 수정을 더하고, 내 버전으로 전체를 덮어쓰지 않는다.\n\n"
         "이유: 계획 문서가 예전 사본으로 덮어써져 다른 세션의 수정이 사라진 적이 있다.\n"),
    ),
}
UNRELATED = memory("project_billing.md", "Invoices store money as integer cents plus a currency.\n"
                   "The billing job runs at 02:00 and retries three times.\n")


@pytest.mark.parametrize("language", sorted(REWORDED))
def test_the_same_rule_in_other_words_is_similar_with_its_matching_lines(language: str) -> None:
    (file_a, about_a, body_a), (file_b, about_b, body_b) = REWORDED[language]
    a = memory(file_a, body_a, description=about_a)
    b = memory(file_b, body_b, description=about_b, written=NEW)
    found = find_similar([a, b, UNRELATED], set())
    assert [s.files for s in found] == [tuple(sorted((file_a, file_b)))]
    (similar,) = found
    assert isinstance(similar, Similar)
    assert similar.lines, "the matching lines are shown"
    for left, right in similar.lines:
        assert left in a.body + b.body and right in a.body + b.body


@pytest.mark.parametrize("language", sorted(REWORDED))
def test_two_rules_about_other_things_in_one_format_are_not_similar(language: str) -> None:
    (file_a, about_a, body_a), _ = REWORDED[language]
    other = {
        "english": "Deploys need two approvals from the release team.\n\n- Tag the release "
                   "before deploying it.\n\n**Why:** an untagged deploy could not be rolled "
                   "back.\n",
        "chinese": "发布需要发布组两个人审批。\n\n- 发布之前先打标签。\n\n**Why:** 没打标签的发布无法回滚。\n",
        "japanese": "デプロイにはリリース担当の承認が二人分必要。\n\n- デプロイ前にタグを打つ。\n\n"
                    "**Why:** タグのないデプロイは戻せなかった。\n",
        "korean": "배포에는 릴리스 팀 두 명의 승인이 필요하다.\n\n- 배포 전에 태그를 붙인다.\n\n"
                  "**Why:** 태그 없는 배포는 되돌릴 수 없었다.\n",
    }[language]
    a = memory(file_a, body_a, description=about_a)
    b = memory("feedback_release_rules.md", other, written=NEW)
    assert find_similar([a, b, UNRELATED], set()) == []


# --- similar: a short memory and a more detailed one -------------------------------------------


def test_a_more_detailed_memory_is_similar_to_the_short_one() -> None:
    short = memory("reference_release.md", "# Release pipeline\n\n"
                   "- CI builds the image on every merge to `main` and pushes it to the registry.\n"
                   "- Argo CD syncs the `staging` app automatically from the new tag.\n"
                   "- Promotion to production is manual: bump the tag in `deploy-prod`.\n"
                   "- Rollback: revert the tag bump PR.\n")
    detail = memory("project_release_detail.md",
                    "See [reference_release](reference_release.md).\n\n"
                    "## Build\n- CI builds the image on each merge to `main` and pushes it to "
                    "the registry, tagged with the commit SHA.\n"
                    "- The build also runs the migration dry-run.\n"
                    "## Staging\n- Argo CD syncs the `staging` app on its own from the new "
                    "tag, within minutes.\n"
                    "## Production\n- Promotion to production is manual: bump the tag in "
                    "`deploy-prod` and open a PR.\n- Canary at 10%, then 50%, then 100%.\n"
                    "## Rollback\n- Revert the tag bump PR; Argo CD rolls back in minutes.\n",
                    written=NEW, description="More detail than reference_release")
    (found,) = find_similar([short, detail, UNRELATED], set())
    assert found.files == ("project_release_detail.md", "reference_release.md")
    assert len(found.lines) >= 2


# --- not similar: one template, two things -----------------------------------------------------


@pytest.mark.parametrize(("one", "other"), [
    ("# Notion: Tasks\n\n- Database ID: `8c1e4f2a9b7d4e03a6f5c2b1d0e9f874`\n"
     "- Properties: Name (title), Status (select), Owner (person), Due (date)\n"
     "- Written by the sync job; do not edit rows by hand.\n",
     "# Notion: Meeting notes\n\n- Database ID: `3f0a7b6c5d4e4a21b9c8d7e6f5a4b3c2`\n"
     "- Properties: Name (title), Status (select), Owner (person), Due (date)\n"
     "- Filled in by hand after each meeting.\n"),
    ("# Berlin lab\n\n- VLAN: 110\n- Gateway: 10.20.0.1\n- DHCP range: 10.20.0.100 - 10.20.0.200\n"
     "- Switch: sw-ber-01, port 24 is the uplink\n",
     "# Porto lab\n\n- VLAN: 240\n- Gateway: 10.40.0.1\n- DHCP range: 10.40.0.100 - 10.40.0.200\n"
     "- Switch: sw-por-01, port 48 is the uplink\n"),
    ("# PS#4 S17 セッションメモ — 2026-04-20\n\n## 変更したファイル\n"
     "- `memory/project_20260420_ps4_s17.md`（本ファイル新規）\n## 次回の候補（S18 以降）\n"
     "1. 告知案を 3 本作る\n",
     "# PS#4 S18 セッションメモ — 2026-04-20\n\n## 変更したファイル\n"
     "- `memory/project_20260420_ps4_s18.md`（本ファイル新規）\n## 次回の候補（S19 以降）\n"
     "1. 判断結果を確認する\n"),
])
def test_one_template_filled_in_for_two_things_is_not_similar(one: str, other: str) -> None:
    a = memory("reference_one.md", one)
    b = memory("reference_other.md", other, written=NEW)
    assert find_similar([a, b, UNRELATED], set()) == []


def test_rules_for_two_services_from_one_template_are_not_similar() -> None:
    def rules(service: str) -> str:
        return (f"{service} のテストデータはファクトリ関数で作り、JSON のスナップショットは共有しない。\n"
                f"{service} のヘルスチェックは /healthz を叩き、6 秒以内に応答する。\n"
                f"{service} のドキュメントはコードと同じリポジトリに置く。\n"
                f"**理由：** {service} のログに request_id がなく、調査に時間がかかった。\n")
    a = memory("project_invoices_client.md", rules("invoices-client"))
    b = memory("project_mailer_adapter.md", rules("mailer-adapter"), written=NEW)
    assert find_similar([a, b, UNRELATED], set()) == []


def test_memories_sharing_most_lines_are_still_reported_with_those_lines() -> None:
    lines = ["- The public API is versioned in the URL path.",
             "- A breaking change needs a new major version.",
             "- Every endpoint returns JSON errors with a code field."]
    a = memory("a.md", "\n".join([*lines, "- Old versions live for 12 months."]) + "\n")
    b = memory("b.md", "\n".join([*lines, "- Deprecations are announced in the changelog."]) + "\n",
               written=NEW)
    (found,) = find_similar([a, b], set())
    assert found.files == ("a.md", "b.md")
    assert {left for left, _ in found.lines} == set(lines)


def test_pairs_already_reported_are_skipped() -> None:
    (file_a, about_a, body_a), (file_b, about_b, body_b) = REWORDED["english"]
    a = memory(file_a, body_a, description=about_a)
    b = memory(file_b, body_b, description=about_b)
    assert find_similar([a, b], {frozenset((file_a, file_b))}) == []


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_megabyte_of_adversarial_text_keeps_the_exact_form_linear() -> None:
    for chunk in ("a -- ", ", 测", "** ", "`x", " —a", "ａ，"):
        text = chunk * (1_000_000 // len(chunk))
        started = time.perf_counter()
        exact_line(text)
        exact_set(text.replace(" ", "\n", 1000))
        assert time.perf_counter() - started < 10


# --- many copies of one memory -------------------------------------------------------------------


def test_the_pairs_of_a_cluster_are_answered_without_listing_them() -> None:
    copies = [memory(f"copy_{i}.md", "Run the whole suite before every push to main.\n")
              for i in range(6)]
    other = memory("other.md", "Deploys go out on Thursdays after the freeze lifts.\n")
    (cluster,) = find_duplicates([*copies, other])
    together = Together([cluster])
    assert frozenset(("copy_0.md", "copy_5.md")) in together
    assert frozenset(("copy_0.md", "other.md")) not in together
    assert frozenset(("copy_0.md",)) not in together
    assert find_similar([*copies, other], together) == []


def test_thousands_of_identical_memories_cost_memory_in_proportion() -> None:
    """2,000 copies used to hold every pair of them (about 2 million sets, 700 MB); the
    peak now grows with the number of memories. Measured with tracemalloc, not timed."""
    import tracemalloc

    def peak(count: int) -> int:
        copies = [memory(f"copy_{i}.md", "Run the whole suite before every push to main.\n")
                  for i in range(count)]
        tracemalloc.start()
        try:
            clusters = find_duplicates(copies)
            together = Together(clusters)
            find_similar(copies, together)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(250), peak(2000)
    assert large < 16 * small  # 8x the memories; N² would be 64x


def test_memories_of_different_types_are_never_duplicates_but_are_reported_similar() -> None:
    """A body shared by a reference and a project memory (a stub, a pasted template) says
    nothing about their being one memory: reported, never merged."""
    body = "Ask the platform team in the ops channel before touching the shared cluster.\n"
    ref = memory("reference_cluster.md", body, mtype="reference")
    proj = memory("project_cluster.md", body, mtype="project")
    longer = memory("project_more.md", body + "The cluster is rebuilt every Sunday night.\n",
                    mtype="feedback")

    assert find_duplicates([ref, proj, longer, UNRELATED]) == []
    similar = {s.files for s in find_similar([ref, proj, longer, UNRELATED], set())}
    assert ("project_cluster.md", "reference_cluster.md") in similar


# --- a point restated in another memory ----------------------------------------------------------

def _filler(topic: str, n: int) -> str:
    return "".join(f"- The {topic} service {i} keeps its own {topic} queue number {i}.\n"
                   for i in range(n))


def _others() -> list[Memory]:
    """Six memories about other things: what makes a pair's shared words rare."""
    return [memory(f"project_other_{i}.md", _filler(f"topic{i}", 4), mtype="project")
            for i in range(6)]


def test_a_rule_restated_by_one_line_of_a_status_memory_is_reported_with_the_lines() -> None:
    rule = memory("feedback_queue.md", "Email goes out through `Mail::queue()`, never "
                  "`Mail::send()` inside the request: a slow SMTP server blocks the signup "
                  "form.\n")
    status = memory("project_status.md", "# Status\n" + _filler("billing", 6)
                    + "- Signup sends email through `Mail::send()` inside the request, so a "
                    "slow SMTP server blocks the signup form: move it to `Mail::queue()`.\n"
                    + _filler("search", 6), mtype="project")
    other = _others()
    found = find_similar([rule, status, *other], Together([]))
    (pair,) = [s for s in found if set(s.files) == {"feedback_queue.md", "project_status.md"}]
    assert any("Mail::queue()" in a and "Mail::queue()" in b for a, b in pair.lines)


def test_memories_alike_as_wholes_are_not_marked_as_one_point_restated() -> None:
    body = "Ask the platform team in the ops channel before touching the shared cluster.\n"
    found = find_similar([memory("reference_cluster.md", body, mtype="reference"),
                          memory("project_cluster.md", body, mtype="project"), UNRELATED],
                         set())
    assert [s.restated for s in found] == [False]


def test_see_also_lines_that_name_the_same_memories_restate_nothing() -> None:
    a = memory("feedback_branches.md", "One branch per task, named after the ticket.\n"
               "See also [[feedback-commit-style]] and [[feedback-verify-before-commit]].\n")
    b = memory("feedback_reviews.md", "Every pull request gets one reviewer from the team.\n"
               "See also [[feedback-verify-before-commit]] and [[feedback-commit-style]].\n")
    assert find_similar([a, b], Together([])) == []


def test_lines_that_point_at_the_same_file_restate_nothing() -> None:
    # A line that points at a file says nothing of its own: two memories pointing at the same
    # release notes for different reasons restate no point.
    a = memory("project_state.md", "The player is stable on the web build.\n"
               "See `.agent/notes/pending_release.md` for build and deploy commands.\n")
    b = memory("user_profile.md", "Works on Windows with Git Bash.\n"
               "Build and deploy commands in `.agent/notes/pending_release.md` use Windows "
               "paths.\n", mtype="user")
    other = _others()
    assert find_similar([a, b, *other], Together([])) == []


def test_lines_naming_the_same_folder_in_either_slash_restate_nothing() -> None:
    # A folder's path (a Windows one too, with backslashes) in code points somewhere: two
    # memories on other subjects naming the same install folder make no point together.
    a = memory("reference_browser_cli.md", "The browser CLI drives a portable Chrome build.\n"
               "- **Path**: `F:\\tools\\portable\\chrome-win64\\chrome.exe`\n",
               mtype="reference")
    b = memory("reference_folders.md", "The user's project folders, one a line.\n"
               "- **Portable chrome-win64** — `f:/tools/portable/chrome-win64`\n",
               mtype="reference")
    assert find_similar([a, b, *_others()], Together([])) == []


def test_a_bold_label_heading_a_list_restates_nothing() -> None:
    # "**Label (what it is about):**" heads the list below it: it names a topic, as a
    # heading does, and makes no point for a sentence of another memory to repeat.
    a = memory("project_overview.md", "# Overview\n- The site builder targets small bakeries "
               "and florists in Haifa.\n- Merchant stores collect their own customer payments "
               "through the PayPlus checkout pages.\n- Domains are bought through Namecheap "
               "under the agency account.\n- Launch waits for the Hebrew copy review.\n",
               mtype="project")
    b = memory("project_partners.md", "# Partners\n- **Merchant stores (collecting customer "
               "payments through PayPlus checkout pages):**\n  - Tranzila charges a monthly "
               "fee with setup.\n  - Meshulam needs a signed contract first.\n  - Grow was "
               "dropped after the sandbox kept timing out.\n", mtype="project")
    assert find_similar([a, b, *_others()], Together([])) == []


def test_two_headings_alike_restate_nothing() -> None:
    # A heading names a topic: two notes with the same section heading make no point twice.
    a = memory("project_ws_debug.md", "## Hypotheses ruled out for the websocket reconnect bug\n"
               "- The proxy timeout was raised and the drop still happened.\n")
    b = memory("reference_ios_socket.md", "## Hypotheses ruled out for the websocket reconnect "
               "bug (do not retry)\n- Safari keeps a dead socket open after the phone sleeps.\n",
               mtype="reference")
    other = _others()
    assert find_similar([a, b, *other], Together([])) == []


def test_a_short_rule_restated_in_other_words_is_reported_with_the_share_restated() -> None:
    # Two claims of four content words or more, one made again in other words by a line of
    # the other memory: the pair is reported, half of the claims restated.
    rule = memory("feedback_queue_mail.md", "Signup mail always uses the queue.\n"
                  "Invoices render server side with the billing fonts embedded.\n")
    debt = memory("project_tech_debt.md", "# Tech debt\n" + _filler("billing", 5)
                  + "- Signup mail must always go through the queue, not inline.\n"
                  + _filler("search", 5), mtype="project")
    found = find_similar([rule, debt, *_others()], Together([]))
    assert [s.files for s in found] == [("feedback_queue_mail.md", "project_tech_debt.md")]
    assert found[0].similarity == 0.5
    # One point made again, not two memories alike: no model is asked to merge them.
    assert found[0].restated


def test_a_related_pair_names_only_words_no_third_memory_uses_and_skips_busy_files() -> None:
    from consolidator.detect.overlap.similar import related_pairs
    a = memory("feedback_ledger.md", "Ledger webhook retries reuse the idempotency header "
               "from the first attempt; Stripe dedupes on it.\n")
    b = memory("feedback_hooks.md", "When the payment hook is sent again, send the same "
               "idempotency header as the first try, or Stripe books it twice.\n")
    others = [memory(f"project_{n}.md", f"The {n} service keeps its first queue in the "
                     f"header table.\n", mtype="project") for n in ("search", "mail", "auth")]
    ((pair, evidence),) = related_pairs([a, b, *others], set(), set(), 3)
    assert pair == ("feedback_hooks.md", "feedback_ledger.md")
    named = evidence.split(": ", 1)[1].split(", ")
    assert "idempotency" in named and "first" not in named and "header" not in named
    assert related_pairs([a, b, *others], set(), {"feedback_hooks.md"}, 3) == []


# --- a line of each sharing words no other memory uses ------------------------------------------

STAGING = ("# Staging\n- The staging box runs on Hetzner in Falkenstein; its nightly snapshot is "
           "kept for seven days.\n- Log in as the deploy user only.\n")


def _status(middle: str) -> Memory:
    return memory("project_status.md", "# Status\n" + _filler("billing", 4) + middle
                  + _filler("search", 4), mtype="project")


def test_a_line_of_each_sharing_rare_words_is_reported_as_maybe_one_point() -> None:
    # The same fact in other words in a status memory: too few words alike for a restated
    # point, but a line of each shares five words no other memory uses.
    staging = memory("reference_staging.md", STAGING, mtype="reference")
    status = _status("- Restored yesterday's Falkenstein snapshot after the Hetzner outage; "
                     "staging is back on the nightly schedule.\n")
    (pair,) = find_similar([staging, status, *_others()], Together([]))
    assert pair.files == ("project_status.md", "reference_staging.md")
    assert pair.rare == 5 and not pair.restated
    ((mine, theirs),) = pair.lines
    assert mine.startswith("- Restored yesterday's") and theirs.startswith("- The staging box")


def test_two_notes_of_one_dated_series_sharing_their_closing_line_are_no_evidence() -> None:
    # Each day's note ends on the series' own line, worded for the day: the words they share
    # are the form's, not one point made twice.
    day_one = ("- Wrote the CSV importer for supplier price lists.\n- Parsing errors now go "
               "to a quarantine table with the row number.\n- Benchmarked 40k rows in 9 s.\n")
    day_two = ("- Fixed the PDF exporter's page breaks in long invoices.\n- Fonts are embedded "
               "so printing shops see the same glyphs.\n- Signed off the layout with Marta.\n")
    a = memory("session_2026_03_22.md", day_one + "**How to apply:** open this "
               "note when the next session starts, for the state of Falkenstein staging and "
               "the open tasks.\n", mtype="project")
    b = memory("session_2026_03_23.md", day_two + "**How to apply:** open this "
               "note when the next session starts, for what the review of each Falkenstein "
               "module concluded.\n", mtype="project")
    assert find_similar([a, b, *_others()], Together([])) == []
    # The same two notes under names of no series: the rare words are evidence again.
    c = memory("importer_notes.md", a.body, mtype="project")
    assert [s.rare > 0 for s in find_similar([c, b, *_others()], Together([]))] == [True]


def test_two_dated_notes_of_a_log_restating_its_steps_are_no_evidence() -> None:
    # A log of sessions, one note per session named by its date: each restates the log's own
    # steps in its words. Under names of no date, the same two notes are a point made twice.
    first = ("Signup mail always uses the queue.\n"
             "Invoices render server side with the billing fonts embedded.\n")
    second = ("# Session\n" + _filler("billing", 5)
              + "- Signup mail must always go through the queue, not inline.\n"
              + _filler("search", 5))
    dated = [memory("2026-07-15-0613-voice-notes.md", first, mtype="project"),
             memory("2026-07-15-0701-daily-mood.md", second, mtype="project")]
    named = [memory("voice_notes.md", first, mtype="project"),
             memory("daily_mood.md", second, mtype="project")]
    # A dated decision and a note of a later day restating it are no one day's log.
    days = [memory("2026-03-01-adr-mail.md", first, mtype="project"),
            memory("2026-08-10-incident-review.md", second, mtype="project")]
    assert find_similar([*dated, *_others()], Together([])) == []
    for pair in (named, days):
        assert [s.restated for s in find_similar([*pair, *_others()], Together([]))] == [True]


@pytest.mark.parametrize("names", [
    ("importer-weekly-report.md", "exporter-weekly-report.md"),  # one kind, per subject
    ("importer_status_log.md", "exporter_status_log.md"),
])
def test_two_notes_of_one_kind_each_on_its_subject_sharing_their_form_are_no_evidence(
    names: tuple[str, str]
) -> None:
    # Named as one kind of note with only the subject in front changed, as a report per
    # subject is: their shared closing line is the kind's form.
    day_one = ("- Wrote the CSV importer for supplier price lists.\n- Parsing errors now go "
               "to a quarantine table with the row number.\n- Benchmarked 40k rows in 9 s.\n")
    day_two = ("- Fixed the PDF exporter's page breaks in long invoices.\n- Fonts are embedded "
               "so printing shops see the same glyphs.\n- Signed off the layout with Marta.\n")
    close = ("**How to apply:** open this note when the next session starts, for the state of "
             "Falkenstein staging and the open tasks.\n")
    a = memory(names[0], day_one + close, mtype="project")
    b = memory(names[1], day_two + close.replace("the state of Falkenstein staging and the "
                                                 "open tasks", "what the review of each "
                                                 "Falkenstein module concluded"),
               mtype="project")
    assert find_similar([a, b, *_others()], Together([])) == []
    # Named apart (a different kind, or the subject not in front), the words are evidence.
    for other in ("importer-weekly-notes.md", "weekly-report-importer.md"):
        c = memory(other, a.body, mtype="project")
        assert [s.rare > 0 for s in find_similar([c, b, *_others()], Together([]))] == [True]


def test_rare_words_spread_over_several_lines_are_no_evidence() -> None:
    staging = memory("reference_staging.md", STAGING, mtype="reference")
    status = _status("- The Hetzner invoice is paid.\n- Falkenstein had an outage.\n"
                     "- Staging snapshot restored.\n")
    assert find_similar([staging, status, *_others()], Together([])) == []


# --- links: pointing to a memory is not saying what it says --------------------------------------

def test_memories_that_only_link_to_the_same_memories_are_not_similar() -> None:
    """A design memory whose see-also line names the memories a short stub names too (the stub
    says where the design went): they share the linked names' words and nothing else."""
    design = memory("project_command_redesign.md", "# Command redesign\n"
                    + _filler("parser", 5)
                    + "- See also [[project_factor_state_machine]] "
                    "[[project_factor_command_semantics]] [[project_release_cadence]].\n",
                    mtype="project")
    stub = memory("project_factor_state_machine.md",
                  "The full design moved to the design documents folder.\n"
                  "Related: [[project_factor_command_semantics]] [[project_release_cadence]] "
                  "[[project_command_redesign]]\n", mtype="project")
    assert find_similar([design, stub, *_others()], Together([])) == []


def test_a_point_restated_around_a_link_is_still_similar() -> None:
    rule = memory("feedback_queue.md", "Email goes out through `Mail::queue()`, never "
                  "`Mail::send()` inside the request: a slow SMTP server blocks the signup "
                  "form (see [[project_status]]).\n")
    status = memory("project_status.md", "# Status\n" + _filler("billing", 6)
                    + "- Signup sends email through `Mail::send()` inside the request, so a "
                    "slow SMTP server blocks the signup form: move it to `Mail::queue()` as "
                    "[the rule](feedback_queue.md) says.\n" + _filler("search", 6),
                    mtype="project")
    found = find_similar([rule, status, *_others()], Together([]))
    assert [set(s.files) for s in found] == [{"feedback_queue.md", "project_status.md"}]


@pytest.mark.parametrize("shared", [
    "the image model 3f0a9c2e-41b7-4d2a-9e11-a7c05b2d8f14",  # an id of hex groups
    "the file `web/layout/faq_page.py`",  # a path, in code
    "the file web/layout/faq_page.py",  # a path written out
])
def test_two_memories_naming_one_file_or_id_do_not_say_one_point(shared: str) -> None:
    """A path's or an id's parts are rare words two lines share, not a point they make."""
    a = memory("project_sleep.md", f"- The sleep channel renders its covers with {shared}, "
               "slow and calm.\n" + _filler("billing", 3), mtype="project")
    b = memory("project_wild.md", f"- The wildlife channel posts every clip through {shared} "
               "at noon.\n" + _filler("search", 3), mtype="project")
    assert find_similar([a, b, *_others()], Together([])) == []


def test_a_line_leading_into_a_list_makes_no_point_of_its_own() -> None:
    """"Before touching any code, state out loud:" heads what follows it; a line that shares
    its words ("Read this before touching any Atlas code.") restates nothing."""
    a = memory("release_protocol.md", "- Before touching any Atlas code, state out loud to "
               "the user:\n  - the branch\n  - the ticket\n" + _filler("billing", 3),
               mtype="feedback")
    b = memory("project_atlas_status.md", "- Read this before touching any Atlas code at "
               "all.\n" + _filler("search", 3), mtype="project")
    assert find_similar([a, b, *_others()], Together([])) == []


@pytest.mark.parametrize("name", ["`/ambiance`", "web/ambiance"])
def test_two_notes_opening_with_one_label_naming_two_things_restate_nothing(name: str) -> None:
    """Two features written to one form: each opens "Page: <its page>, a card of its own in
    the tools hub, …". The label names two things; the rest of the line is the form."""
    ambiance = memory(
        "feature_ambiance.md",
        "# Ambiance generator (`src/components/AmbianceGenerator.jsx`)\n\n"
        f"**Page:** {name}, a card of its own in the tools hub, beside the character, menu "
        "and pocket generators.\n\nThe second generator built on the all-in-database model "
        "that [[feature_pocket]] introduced. Weather, scenery and street events are drawn "
        "from weighted rows of one Supabase table.\n", mtype="project")
    pocket = memory(
        "feature_pocket.md",
        "# Pocket generator (`src/components/PocketGenerator.jsx`)\n\n**Page:** `/pocket`, a "
        "card of its own in the tools hub (`ToolsHub.jsx`), beside the character and menu "
        "generators.\n\nUnlike the character generator, the pocket lives wholly in "
        "Supabase: canon and community rows in one table, each row weighted.\n",
        mtype="project")

    found = find_similar([ambiance, pocket, *_others()], Together([]))

    assert not [s for s in found if set(s.files) == {"feature_ambiance.md", "feature_pocket.md"}]


def test_the_same_label_naming_the_same_thing_still_restates_a_point() -> None:
    line = ("**Page:** `/pocket`, a card of its own in the tools hub beside the character and "
            "menu generators.\n")
    spec = memory("feature_pocket.md", f"# Pocket generator\n\n{line}", mtype="project")
    status = memory("project_status.md", "# Status\n" + _filler("billing", 6) + line
                    + _filler("search", 6), mtype="project")

    found = find_similar([spec, status, *_others()], Together([]))

    assert [s for s in found if set(s.files) == {"feature_pocket.md", "project_status.md"}]


# --- a bare list of names, and a line of links, make no point ---------------------------------

@pytest.mark.parametrize(("listed", "restated"), [
    ("- traction, impact, bending, nick-break, hardness\n", False),
    ("- `traction`, `impact`, `bending`, `nick-break`, `hardness`\n", False),
    ("- 20 desires, 565 quotes, 42 angles, 75 hooks, 9 offers\n", False),
    ("- Tests implemented: traction, impact, bending, nick-break and hardness, each with its "
     "own report template.\n", True),
])
def test_a_bare_list_of_names_restates_nothing_a_labelled_claim_still_does(
    listed: str, restated: bool,
) -> None:
    """Two memories listing the same names (the tests one implements, the reference files
    of the same tests in the other) say what the names are for in their headings, not in the
    list: no point made twice. A sentence saying something of them still is one."""
    a = memory("project_general.md", "# Lab reports\n## Implemented\n"
               "- Tests implemented: traction, impact, bending, nick-break and hardness, each "
               "with its own report template.\n" + _filler("billing", 5), mtype="project")
    b = memory("reference_sources.md", "# Reference reports\n## Where the scans are\n"
               + listed + _filler("search", 5), mtype="reference")
    found = find_similar([a, b, *_others()], Together([]))
    assert bool(found) is restated


def test_a_line_of_links_alone_is_no_claim() -> None:
    """"See [[a]], [[b]]." names memories and says nothing: it is no claim to match."""
    note = memory("project_ticket.md", "Do not test procedure 612 on the shared server.\n"
                  "See [[project-test-env-safety]], [[feedback-ask-dont-decide]].\n")
    claims = Claims({note.file: note}, lambda found: float(len(found)))
    assert [text for text, *_ in claims.of(note.file)] == [
        "Do not test procedure 612 on the shared server."]


@pytest.mark.parametrize("first", [0, 1])
def test_lines_filled_in_alike_are_no_swap_whatever_the_order_they_are_read_in(
        first: int) -> None:
    # One memory holds a form filled in twice (ports 5432 and 6432), the other once (5432):
    # they fill it in alike, whichever of the first memory's lines is read last. (The lines
    # are read from a set, in an order that changed with the hash seed.)
    from consolidator.detect.overlap.similar import _Words

    lines = ["the dev database listens on port 5432", "the dev database listens on port 6432"]
    if first:
        lines.reverse()
    a = memory("a.md", "\n".join(f"- {line}" for line in lines) + "\n")
    b = memory("b.md", f"- {lines[first]}\n")
    words = _Words({"a.md": a, "b.md": b}, {"a.md": tuple(lines),  # type: ignore[dict-item]
                                            "b.md": (lines[first],)}, {})
    assert words._swaps("a.md", "b.md") == 0
