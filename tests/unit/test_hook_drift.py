"""The index against its memories: an index line whose hook counts something otherwise than
the memory it points to is a warning on that memory, quoting both. Numbers that count nothing
(dates, times, ranges, versions, shares, money, identifiers, years, durations), one value
written two ways, a memory that still gives the index's figure, counts of different things
and counts whose surrounding words share nothing never are."""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidator.detect.conflicts.hooks import hook_drift
from consolidator.store.model import IndexFile, Memory, Snapshot
from tests.unit.test_detect import lines, memory


def drift(index: str, *memories: Memory) -> dict[str, list[str]]:
    return hook_drift(Snapshot(Path("."), memories, (), IndexFile(index, None)))


def warned(hook: str, description: str, body: str = "Body.\n") -> bool:
    note = memory("note.md", body, description=description)
    return bool(drift(f"- [Note](note.md) — {hook}\n", note))


def test_a_hook_that_counts_other_agents_than_the_description_is_a_warning_quoting_both() -> None:
    team = memory("project_team.md", "The agents run on one VPS.\n",
                  description="Atlas runs 9 agents on the rented VPS")
    index = lines("# Memory", "- [Agent team](project_team.md) — Atlas 10 agents on the VPS")

    assert drift(index, team) == {"project_team.md": [
        'MEMORY.md line 2 says "Atlas 10 agents on the VPS", and the memory\'s description '
        '"Atlas runs 9 agents on the rented VPS", without 10: one of them is out of date']}


@pytest.mark.parametrize(("hook", "description"), [
    ("인터뷰 쇼츠 — 8편 구성 확정", "인터뷰 영상을 6편 숏폼으로 나누는 작업"),  # a counter on the number
    ("重构进度：共39个模块", "重构进度：共28个模块，全部迁移"),  # 个 takes the noun after it
    ("エージェントは10体で稼働", "エージェントは9体で稼働中"),
    ("Тарифы сайта: 14 планов", "Тарифы сайта: 12 планов с ценами"),
    ("Le bot compte 10 agents", "Le bot compte 9 agents actifs"),
    ("Das Team hat 10 Agenten im Einsatz", "Das Team hat 9 Agenten"),
    ("el equipo tiene 10 agentes", "el equipo tiene 9 agentes"),
    ("CI adds 3 more checks on the PR", "CI now adds 5 more checks on the PR"),  # past "more"
    ("Atlas **10** agents", "Atlas runs **9** agents"),  # emphasis around the number
    ("Atlas １０ agents", "Atlas 9 agents"),  # full-width digits
    ("Beta: 1,200 users signed up", "Beta: 1 500 users signed up"),  # grouped thousands
])
def test_what_a_number_counts_is_read_beside_it_in_any_language(
        hook: str, description: str) -> None:
    assert warned(hook, description)


def test_the_body_counts_where_it_gives_the_word_one_value() -> None:
    one = "The gateway fronts 14 services in the cluster.\n"
    two = lines("The gateway fronted 14 services at first.", "Now the gateway fronts 16 services.")
    index = "- [Infra](infra.md) — gateway in front of 12 services\n"

    (warning,) = drift(index, memory("infra.md", one, description="The cluster"))["infra.md"]
    assert 'the memory\'s text "The gateway fronts 14 services in the cluster."' in warning
    assert drift(index, memory("infra.md", two, description="The cluster")) == {}


@pytest.mark.parametrize(("hook", "description", "body"), [
    # The memory still gives the index's figure: the story of a change, not a stale hook.
    ("8 clips planned for the cut", "the cut has 6 clips now (down from 8)", ""),
    ("8 clips planned for the cut", "the cut has 6 clips", "The first plan had 8 clips.\n"),
    ("10 agents (9 active) on the VPS", "9 agents on the VPS", ""),  # the hook gives both
    ("Atlas with 9 agents", "Atlas with 9 agents", ""),  # they agree
    # One value, written two ways.
    ("1,200 users in the beta", "the beta has 1200 users", ""),
    ("8 553 nodes in the graph", "graph of 8553 nodes", ""),
    ("build takes 30,9 seconds in CI", "CI build takes 30.9 seconds", ""),
    ("Node 20 on the API servers", "API servers on Node 20.11", ""),  # a version refined
    # Numbers that count nothing.
    ("final cut due 4/29 for the show", "final cut due 5/2 for the show", ""),
    ("drift of 13-25 mm on the rig", "drift of 4-5 mm on the rig", ""),
    ("release 2.1.0 of the app shipped", "release 2.4.1 of the app shipped", ""),
    ("coverage 40 % on the parser", "coverage 55 % on the parser", ""),
    ("a 5x speedup of the parser", "a 3x speedup of the parser", ""),
    ("2025 plans for the shop", "2026 plans for the shop", ""),
    ("shop build at 09:30 daily", "shop build at 07:30 daily", ""),
    ("shop launch on 5 May", "shop launch moved to 12 May", ""),
    ("Релиз магазина 5 мая", "Релиз магазина 12 мая", ""),
    ("商店 3月 上线", "商店 5月 上线", ""),
    ("shop backups kept 30 days", "shop logs kept 7 days", ""),
    ("shop build takes 25 minutes", "shop unit tests take 3 minutes", ""),
    ("shop client retries 5 times", "shop cron runs 2 times a day", ""),
    ("shop ads budget 5000 USD", "shop hosting budget 1200 USD", ""),
    ("shop plan 9900원 a month", "shop plan 99000원 a year", ""),
    ("shop DB is 40 GiB", "shop backups capped at 100 GiB", ""),
    ("shop PR 412 merged", "shop follow-up PR 430 merged", ""),
    ("shop answers in 3 bis 5 Tagen", "shop answers in 10 bis 15 Tagen", ""),
    ("shop rated 4 sur 5", "shop rated 8 sur 10", ""),
    ("about 1,200 shop users", "1,187 shop users", ""),
    ("~40 shop tests", "43 shop tests", ""),
    # Different things counted, or nothing around the counts in common.
    ("shop: 10 agents", "shop: 12 cycles", ""),
    ("12 committers on the shop", "340 commits on the shop", ""),
    ("4 servers for the shop", "12 serverless functions for the shop", ""),
    ("2 agents offline since Monday", "Atlas runs 9 agents on the VPS", ""),
    ("see https://example.com/shop/pull/412 for 3 fixes",
     "https://example.com/shop/pull/430 adds 5 fixes", ""),
    ("3个服务已迁移到新集群", "新集群上 12个用例通过", ""),  # a counter of anything: its noun decides
    ("新集群 3个服务", "新集群 5个服务器", ""),  # ... all of it, not its first characters
    ("本番 3つのサービス", "本番 5つのサーバー", ""),
    ("운영 3개의 서버", "운영 5개의 노드", ""),
    ("3 new tests for the parser", "the parser suite has 40 tests", ""),  # a part, by its word
    ("shop runs 3 nodes per region", "shop runs 6 nodes in all", ""),  # a rate against a total
    ("shop API: 50 calls a day", "shop API: 1500 calls in total", ""),
    ("迁移耗时 3个月", "迁移耗时 5个月", ""),  # time on a counter of anything
    ("移行に 3ヶ月", "移行に 5ヶ月", ""),
    ("이전에 3개월", "이전에 5개월", ""),
    ("shop plan 5 евро", "shop plan 7 евро", ""),  # money
    ("shop holds up to 40 orders", "shop holds 55 orders", ""),  # a bound
    ("shop holds at least 40 orders", "shop holds 55 orders", ""),
])
def test_numbers_that_name_different_things_agree_or_count_nothing_are_no_drift(
        hook: str, description: str, body: str) -> None:
    assert not warned(hook, description, body or "Body.\n")


def test_lines_that_are_no_pointers_or_point_at_no_memory_are_left_alone() -> None:
    note = memory("note.md", "Body.\n", description="Atlas runs 9 agents")
    index = lines("Atlas 10 agents, said in a sentence with a [link](note.md).",
                  "- [Gone](gone.md) — Atlas 10 agents",
                  "| [Note](note.md) | Atlas 10 agents |")

    assert drift(index, note) == {}
    assert drift("", note) == {}


def test_each_disagreeing_line_is_its_own_warning_under_the_index_name_the_root_has() -> None:
    note = memory("note.md", "Body.\n", description="Atlas runs 9 agents")
    index = lines("- [Note](note.md) — Atlas 10 agents", "- [Again](note.md) — Atlas 11 agents")
    snapshot = Snapshot(Path("."), (note,), (), IndexFile(index, None, name="memory.md"))

    warnings = hook_drift(snapshot)["note.md"]

    assert [w.split(" says ")[0] for w in warnings] == ["memory.md line 1", "memory.md line 2"]


@pytest.mark.parametrize("hook", ["9" * 100_000 + " agents", "1 " * 50_000,
                                  "1 agents " * 20_000 + "2 agents", "1," * 50_000 + "2 agents"])
def test_hostile_hooks_and_bodies_finish_and_warn_of_nothing_they_do_not_hold(hook: str) -> None:
    body = "2 agents " * 20_000 + "\n"
    note = memory("note.md", body, description="2 agents " * 2_000)
    index = f"- [Note](note.md) — {hook}\n" * 3

    assert drift(index, note) == {}  # bench/linear.py measures how the time grows


def test_a_topic_memory_the_rebuild_wrote_draws_no_warning_from_its_own_pointer() -> None:
    topic = memory("index_more_of_the_index.md", "# More of the index\n- a line\n",
                   description="More of the index: index entries moved here from MEMORY.md, "
                               "which was over the 200 lines or 25 KB Claude Code loads")
    index = ("- [More of the index](index_more_of_the_index.md) — 5 lines moved from "
             "MEMORY.md: the old notes\n")

    assert drift(index, topic) == {}


def test_a_hook_saying_to_do_what_the_memory_now_says_not_to_is_a_warning_quoting_both() -> None:
    plan = memory("project_migration.md",
                  lines("Decision (revised the same day): Do NOT cancel the Hetzner node.",
                        "Keep it as the main host; add a relay later."),
                  description="Where the node runs")
    index = "- [Migration](project_migration.md) — cancel the Hetzner node by May, move to Asia\n"

    assert drift(index, plan) == {"project_migration.md": [
        'MEMORY.md line 1 says "cancel the Hetzner node", and the memory "Do NOT cancel the '
        'Hetzner node": one of them is out of date']}


@pytest.mark.parametrize(("hook", "body"), [
    # the memory tells of the change: it writes the phrase without a negation too
    ("cancel the Hetzner node by May", "We planned to cancel the Hetzner node. Do not cancel "
     "the Hetzner node now."),
    # the hook negates it as well
    ("never cancel the Hetzner node", "Do not cancel the Hetzner node."),
    # a bare "not" negates a noun as often as a verb
    ("production data backups run nightly", "This is not production data, only fixtures."),
    # a phrase of stop words, or of one word, is no claim
    ("have to ask first", "You do not have to ask first."),
    ("deploy on Fridays", "Never deploy."),
    # the phrase stops at punctuation: "deploy on Fridays" is not what is negated
    ("deploy on Fridays after the freeze", "Never deploy on weekends, Fridays are fine."),
])
def test_a_negated_phrase_is_drift_only_where_the_hook_says_it_plainly_and_the_memory_never_does(
        hook: str, body: str) -> None:
    assert not warned(hook, "The node", body)
