"""Only an over-limit MEMORY.md shrinks, least valuable text first, and what leaves the index
is moved (into the memory it describes, or a topic memory the index points to), never lost.
An index within its limits keeps every line byte for byte. A second rebuild of the result
changes nothing."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable

import pytest

from consolidator.index.parse import classify, parse_index
from consolidator.index.rebuild import IndexPlan, Limits
from consolidator.index.said import says
from consolidator.index.shrink import NOTE_PREFIX
from consolidator.index.topic import topic_file_name
from consolidator.store import frontmatter
from consolidator.store.model import FileStat, Memory
from tests.unit.test_index_rebuild import (
    BASE_NS,
    DAY_NS,
    LONG_HOOK,
    assert_measured,
    assert_topics_are_sound,
    index_targets,
    lines_of,
    make_memory,
    over_the_byte_limit,
    pointer_targets,
    rebuild,
    sectioned_index,
)

TOPIC_HOOK = "lines moved from MEMORY.md: "


def with_notes(memory: Memory, notes: Iterable[str]) -> Memory:
    """``memory`` with the plan's notes appended to its body, as the index phase writes them."""
    notes = list(notes)
    data = memory.doc.to_bytes()
    if notes:
        newline = memory.doc.newline
        if not data.endswith((b"\n", b"\r")):
            data += newline.encode()
        data += (newline.join(notes) + newline).encode("utf-8")
    stat = FileStat(
        memory.file, len(data), memory.stat.mtime_ns, 0o644, hashlib.sha256(data).hexdigest()
    )
    return Memory(stat, frontmatter.parse(data))


def after(plan: IndexPlan, memories: Iterable[Memory]) -> list[Memory]:
    """The live memories once ``plan`` is written: notes applied, topic memories created."""
    return [with_notes(m, plan.notes.get(m.file, ())) for m in memories] + [
        t.memory for t in plan.creates
    ]


def assert_second_plan_changes_nothing(
    plan: IndexPlan, memories: Iterable[Memory], **kwargs: object
) -> None:
    again = rebuild(plan.text, after(plan, memories), **kwargs)

    assert again.changed is False
    assert again.text == plan.text
    assert again.over_limits is False and again.within_limits
    assert (again.added, again.removed, again.unlinked, again.repointed) == ((), (), (), ())
    assert (again.moved, again.creates, dict(again.notes)) == ((), (), {})


# --- within the limits: every line as it is ----------------------------------------------------

ROUGH = [
    "# Memory index",
    "",
    "",
    "",
    "## Project",
    f"- [Release](project_release.md) — {LONG_HOOK}",  # over 150 characters
    "- [Release again](project_release.md) — a second pointer, kept",
    "   ",
    "Trailing spaces stay.   ",
    "",
    "",
    "## Notes",
    "| a | b |",
]


@pytest.mark.parametrize(
    ("newline", "final"),
    [("\n", True), ("\r\n", True), ("\n", False), ("\r\n", False)],
    ids=["lf", "crlf", "lf-no-final-newline", "crlf-no-final-newline"],
)
def test_an_index_within_its_limits_is_kept_byte_for_byte(newline: str, final: bool) -> None:
    text = newline.join(ROUGH) + (newline if final else "")

    plan = rebuild(text, [make_memory("project_release.md")], newline=newline)

    assert plan.changed is False
    assert plan.text == text
    assert plan.over_limits is False and plan.within_limits
    assert (plan.moved, plan.creates, dict(plan.notes), plan.dropped) == ((), (), {}, ())


def test_a_change_within_the_limits_leaves_every_other_line_as_it_was() -> None:
    text = "\r\n".join([*ROUGH, "- [Old](old.md) — a deleted memory"]) + "\r\n"

    plan = rebuild(text, [make_memory("project_release.md")], newline="\r\n")

    assert plan.changed
    assert plan.text == "\r\n".join([*ROUGH, "- Old (old.md missing) — a deleted memory"]) + "\r\n"
    assert plan.over_limits is False


# --- dead links: unlinked, marked, kept --------------------------------------------------------


def test_a_pointer_to_a_missing_file_keeps_its_words_in_the_index() -> None:
    text = "## Project\n- [Old plan](old_plan.md) — the Q3 migration plan\n"

    plan = rebuild(text)

    assert "the Q3 migration plan" in plan.text
    assert "Old plan (old_plan.md missing)" in plan.text
    assert plan.unlinked == (("old_plan.md", "missing"),)
    assert "old_plan.md" not in index_targets(plan.text)


def test_links_to_an_archived_memory_are_unlinked_and_marked_in_every_kind_of_line() -> None:
    text = (
        "## Project\n"
        "- [Old plan](project_old.md) — the Q3 plan\n"
        "See [the old plan](project_old.md) for history.\n"
        "| Plan | [old](project_old.md) |\n"
        "- [Live](project_live.md) — still here, unlike [that](project_old.md)\n"
    )

    plan = rebuild(text, [make_memory("project_live.md")], archived={"project_old.md"})

    assert lines_of(plan.text) == [
        "## Project",
        "- Old plan (project_old.md archived) — the Q3 plan",
        "See the old plan (project_old.md archived) for history.",
        "| Plan | old (project_old.md archived) |",
        "- [Live](project_live.md) — still here, unlike that (project_old.md archived)",
    ]
    assert set(plan.unlinked) == {("project_old.md", "archived")}
    assert plan.removed == ("project_old.md",)
    assert "project_old.md" not in index_targets(plan.text)


def test_a_link_to_a_merged_away_memory_is_repointed_not_unlinked() -> None:
    plan = rebuild(
        "- [X](x.md) — h\n", [make_memory("y.md")], redirects={"x.md": "y.md"}, archived={"x.md"}
    )

    assert lines_of(plan.text) == ["- [X](y.md) — h"]
    assert plan.unlinked == ()


def test_a_pointer_in_a_code_example_of_the_index_is_never_repointed() -> None:
    text = ("- [X](x.md) — h\n\nA pointer line looks like this:\n\n"
            "````markdown\n```\n- [X](x.md) — h\n```\n````\n")

    plan = rebuild(text, [make_memory("y.md")], redirects={"x.md": "y.md"}, archived={"x.md"})

    assert lines_of(plan.text)[0] == "- [X](y.md) — h"
    assert "- [X](x.md) — h" in lines_of(plan.text), "a longer fence holds the shorter one"


def test_a_fence_never_closed_in_the_index_opens_nothing() -> None:
    plan = rebuild("- [A](a.md) — a\n  ```\n- [X](x.md) — h\n",
                   [make_memory("a.md"), make_memory("y.md")],
                   redirects={"x.md": "y.md"}, archived={"x.md"})

    assert lines_of(plan.text)[2] == "- [X](y.md) — h", "the pointer after it is a pointer"


@pytest.mark.parametrize(
    ("text", "memories", "kept"),
    [
        pytest.param(
            "- [Old](gone.md) — Real database in tests\n- [No mocks](feedback_no_mock.md) — x\n",
            [make_memory("feedback_no_mock.md", description="Real database in tests")],
            ["- [No mocks](feedback_no_mock.md) — x"],
            id="description-says-it",
        ),
        pytest.param(
            "- [Old](gone.md) — Use port 6432\n- [A](a.md) — a\n",
            [make_memory("a.md", body="Use port 6432.\n")],
            ["- [A](a.md) — a"],
            id="body-line-says-it",
        ),
        pytest.param(
            "- [Old](gone.md) — same words\nSame words.\n",
            [],
            ["Same words."],
            id="another-index-line-says-it",
        ),
        pytest.param(
            "- [Old words](gone.md)\n- [A](a.md) — Old words\n",
            [make_memory("a.md")],
            ["- [A](a.md) — Old words"],
            id="no-hook-title-said",
        ),
        pytest.param(
            "- [Old](gone.md) — port -5 s\n",
            [make_memory("a.md", body="Port +5 s\n")],
            ["- Old (gone.md missing) — port -5 s", "- [a](a.md)"],
            id="a-sign-is-a-word",
        ),
        pytest.param(
            "- [Old](gone.md) — same words\n- [Old](gone.md) — same words\n",
            [],
            ["- Old (gone.md missing) — same words"],
            id="twins-one-stays",
        ),
    ],
)
def test_a_dead_pointer_goes_only_when_its_words_are_live_elsewhere(
    text: str, memories: list[Memory], kept: list[str]
) -> None:
    plan = rebuild(text, memories)

    assert lines_of(plan.text) == kept
    assert "gone.md" in plan.removed


@pytest.mark.parametrize(
    ("hook", "body", "said"),
    [
        ("Deploy to **prod** first, never to staging directly.",
         "Deploy to staging first, never to prod directly.\n", False),
        ("Deploy to staging first, never to prod directly",
         "**Deploy to staging first**, never to\nprod directly.\n", True),
        ("clock skew tolerance is -5 s", "The clock skew tolerance is +5 s.\n", False),
        ("check `a != b` before merging", "Always check a == b before merging.\n", False),
        ("NODE_ENV != production on CI", "NODE_ENV = production on CI\n", False),
        ("~~at most 3 retries~~", "At most 3 retries.\n", False),
        ("use `snake_case` names", "Use `snake_case` names.\n", True),
        ("then run `git reset`", "Then run `git reset --hard` to drop local work.\n", False),
    ],
    ids=["same-words-other-order", "same-words-wrapped-and-marked", "sign", "operator",
         "not-equal", "struck", "code-marks", "a-longer-command"],
)
def test_a_hook_is_cut_as_already_said_only_when_its_memory_says_its_words_in_order(
    hook: str, body: str, said: bool
) -> None:
    # The hook's tail leaves the index: the long part the memory says, then the claim.
    text = over_the_byte_limit(f"## Project\n- [Deploys](project_deploy.md) — {LONG_HOOK} "
                               f"{hook}\n")
    memory = make_memory("project_deploy.md", description="Deploys",
                         body=f"{LONG_HOOK} {body}")

    plan = rebuild(text, [memory])

    moved = plan.notes.get("project_deploy.md", ())
    if said:
        assert moved == () and any("already in the memory, cut" in m for m in plan.moved)
    else:
        assert [n for n in moved if hook in n], "the claim moves into its memory, not away"


def test_text_is_said_from_a_sentence_s_start_or_after_the_word_it_followed() -> None:
    memory = make_memory("project_deploy.md", description="Deploys",
                         body="Never deploy on Fridays.\nDeploy on Mondays. Review first.\n"
                              "- Call `_save` directly.\nRun 4 workers per core.\n")

    assert not says(memory, "deploy on Fridays"), "the memory says the opposite"
    assert says(memory, "deploy on Fridays", before="We never ")
    assert not says(memory, "deploy on Fridays", before="It is fine to ")
    assert says(memory, "Deploy on Mondays")
    assert says(memory, "call `_save` directly") and not says(memory, "call save directly")
    assert not says(memory, "Run 4 workers."), "said only to a sentence's end"


def test_a_dead_pointer_whose_words_are_only_partly_live_stays() -> None:
    text = "- [Old](gone.md) — use port 6432 and pnpm\n"

    plan = rebuild(text, [make_memory("a.md", body="Use port 6432.\n")])

    assert lines_of(plan.text)[0] == "- Old (gone.md missing) — use port 6432 and pnpm"


# --- over the limits: what moves first ---------------------------------------------------------


def test_an_over_limit_index_collapses_blank_runs_first() -> None:
    lines, memories = sectioned_index(4, 48)  # 196 lines
    spaced = [lines[0], "", "", "", *lines[1:100], "", "", *lines[100:]]
    assert len(spaced) == 201

    plan = rebuild("\r\n".join(spaced) + "\r\n", memories, newline="\r\n")

    assert plan.over_limits and plan.within_limits
    assert lines_of(plan.text) == [lines[0], "", *lines[1:100], "", *lines[100:]]
    assert plan.creates == () and plan.moved == ()
    assert_second_plan_changes_nothing(plan, memories, newline="\r\n")


def test_hooks_are_not_shortened_when_only_the_line_count_is_over() -> None:
    lines, memories = sectioned_index(4, 50)  # 204 lines
    at = lines.index("- [Memory 60](m060.md) — what memory 60 says")
    lines[at] = f"- [Memory 60](m060.md) — {LONG_HOOK}"

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.within_limits
    assert lines[at] in lines_of(plan.text)
    assert plan.notes == {}


def test_a_stressed_line_keeps_its_long_hook_while_others_are_shortened() -> None:
    stressed = f"- [Release](project_release.md) — 🚨 {LONG_HOOK}"
    text = over_the_byte_limit(f"## Project\n{stressed}\n- [Other](o.md) — {LONG_HOOK}\n")
    memories = [make_memory("project_release.md"), make_memory("o.md")]

    plan = rebuild(text, memories)

    assert plan.within_limits
    out = lines_of(plan.text)
    assert out[1] == stressed
    assert len(out[2]) <= 150 and out[2].startswith("- [Other](o.md) — step0")
    assert list(plan.notes) == ["o.md"]
    assert_second_plan_changes_nothing(plan, memories)


def test_a_long_hook_goes_into_its_memory_and_a_second_plan_changes_nothing() -> None:
    text = over_the_byte_limit(f"## Project\n- [Release](project_release.md) — {LONG_HOOK}\n")
    memories = [make_memory("project_release.md", description="Release day")]

    plan = rebuild(text, memories)

    assert plan.notes == {"project_release.md": (NOTE_PREFIX + LONG_HOOK,)}
    assert_second_plan_changes_nothing(plan, memories)


def detailed_index() -> tuple[list[str], list[Memory], int]:
    """202 lines: four sections, with six detail lines indented under Memory 100's pointer
    (outside the first section, which is pinned)."""
    lines, memories = sectioned_index(4, 48)  # 196 lines
    at = lines.index("- [Memory 100](m100.md) — what memory 100 says") + 1
    lines[at:at] = [
        "  - build with make",
        "  - tag the release",
        "    then push the tag",
        "  - wait for CI",
        "  - deploy with the script",
        "  - announce in #releases",
    ]
    return lines, memories, at


def test_detail_lines_under_a_pointer_move_into_its_memory() -> None:
    lines, memories, at = detailed_index()

    plan = rebuild("\n".join(lines) + "\n", memories)

    # 202 lines to 199: the last detail lines go, and one line of room is left for Claude
    # Code's next pointer (its write fails when it leaves the index over its limits).
    assert plan.over_limits and plan.within_limits and plan.lines == 199
    assert not plan.full
    assert plan.creates == ()
    assert set(plan.notes) == {"m100.md"}
    assert sorted(plan.notes["m100.md"]) == sorted(
        NOTE_PREFIX + line.strip() for line in lines[at + 3 : at + 6]
    )
    assert plan.moved == ("detail line of m100.md -> m100.md",) * 3
    assert lines_of(plan.text) == lines[: at + 3] + lines[at + 6 :]
    assert_second_plan_changes_nothing(plan, memories)


def test_detail_lines_moved_into_a_memory_keep_their_order() -> None:
    lines, memories, at = detailed_index()

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.notes["m100.md"] == tuple(
        NOTE_PREFIX + line.strip() for line in lines[at + 3 : at + 6]
    )


def value_sections() -> tuple[list[str], list[Memory]]:
    memories = [make_memory("feedback_f.md", mtype="feedback")]
    lines = ["# Memory", "", "## Feedback", "- [F](feedback_f.md) — f"]
    for heading, mtype, count in [
        ("Users", "user", 60), ("Projects", "project", 60), ("Links", "reference", 60),
        ("More projects", "project", 30),
    ]:
        lines += ["", f"## {heading}"]
        for i in range(count):
            file = f"{mtype}_{heading[:2].lower()}{i}.md"
            memories.append(make_memory(file, mtype=mtype, mtime_ns=BASE_NS + i * DAY_NS))
            lines.append(f"- [{mtype} {i}]({file}) — {mtype} {i}")
    return lines, memories


def test_the_sections_past_the_window_move_before_a_loaded_section_of_less_value() -> None:
    """The last section (30 project pointers, 8 of them loaded) moves whole: the 60 loaded
    reference pointers of "Links", worth less, would give up far more of what sessions read
    today."""
    lines, memories = value_sections()  # 222 lines: the last 22 are past the window

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.over_limits and plan.within_limits
    assert plan.moved == ("section 'More projects': 30 lines -> index_more_projects.md "
                          "(index over its limits)",)
    out = lines_of(plan.text)
    assert out[: out.index("## More projects") + 1] == lines[: lines.index("## More projects") + 1]
    assert_topics_are_sound(plan, memories)
    assert_second_plan_changes_nothing(plan, memories)


def test_small_sections_past_the_window_share_a_topic_and_keep_every_line() -> None:
    """Twenty small sections after a long one of notes; the last four are past the window:
    they move first (two with topics of their own, the rest sharing "More of the index"),
    then single lines, least valuable first, not the hundred loaded notes whole. Every line
    is kept, in the index or a topic."""
    lines = ["# Memory", "", "## Start", "- Read this first.", "", "## Notes"]
    lines += [f"- Note {i}: the build of step {i} runs on the second runner." for i in range(100)]
    memories = []
    for section in range(20):
        lines += ["", f"## Area {section}"]
        for i in range(4):
            file = f"project_a{section}_{i}.md"
            memories.append(make_memory(file))
            lines.append(f"- [Area {section}.{i}]({file}) — what area {section}.{i} holds")

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.over_limits and plan.within_limits
    assert plan.moved[:2] == (
        "section 'Area 19': 4 lines -> index_area_19.md (index over its limits)",
        "section 'Area 18': 4 lines -> index_area_18.md (index over its limits)")
    assert "section 'Area 16': 4 lines -> a topic memory ('More of the index', index over " \
           "its limits)" in plan.moved
    assert "section 'Notes': 100 lines" not in " ".join(plan.moved)
    out = lines_of(plan.text)
    kept = set(out) | {line for t in plan.creates for line in t.text.splitlines()}
    assert set(lines) - {""} <= kept
    assert_topics_are_sound(plan, memories)
    assert_second_plan_changes_nothing(plan, memories)


def test_lines_moved_from_under_a_sub_heading_that_stays_keep_it_in_the_topic() -> None:
    """A sub-heading stays with the pinned rule under it; its other lines move, led in the
    topic memory by a copy of it, not under the sub-heading before."""
    memories = [make_memory(f"project_p{i:03d}.md") for i in range(170)]
    lines = ["# Memory", "", "## Start", "- Read this first.", "", "## Projects"]
    lines += [f"- [P{i}](project_p{i:03d}.md) — project {i}" for i in range(170)]
    lines += ["", "## Notes", "### Runs"] + [f"- Run {i} took {i} minutes." for i in range(20)]
    lines += ["### Sending", "- 🚨 NEVER send twice: delete the row first.",
              "- The job writes one row per day.", "- A second send is refused by the job."]

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.within_limits
    out = lines_of(plan.text)
    assert "### Sending" in out and "- 🚨 NEVER send twice: delete the row first." in out
    [topic] = plan.creates
    body = topic.text.splitlines()
    at = body.index("### Sending")
    assert body[at + 1:at + 3] == ["- The job writes one row per day.",
                                   "- A second send is refused by the job."]
    assert body.index("### Runs") < body.index("- Run 0 took 0 minutes.") < at
    assert_second_plan_changes_nothing(plan, memories)


def test_the_least_valuable_section_moves_first_into_a_topic_named_after_it() -> None:
    lines, memories = value_sections()  # 221 lines
    # Sessions were seen opening a memory of the last section: the window's edge does not
    # choose, value does.
    used = {"project_mo29.md"}

    plan = rebuild("\n".join(lines) + "\n", memories, used=used)

    assert plan.over_limits and plan.within_limits
    [topic] = plan.creates
    assert topic.file == "index_links.md"
    assert plan.moved == ("section 'Links': 60 lines -> index_links.md (index over its limits)",)
    out = lines_of(plan.text)
    at = out.index("## Links")
    assert out[at + 1].startswith(f"- [Links](index_links.md) — 60 {TOPIC_HOOK}reference 0, ")
    assert out[: at + 1] == lines[: at + 1]
    assert out[at + 2 :] == lines[at + 61 :]
    assert set(lines[at + 1 : at + 61]) <= set(topic.text.splitlines())
    assert topic.memory.type == "reference"
    assert topic.reason == "index overflow"
    assert topic.mtime_ns == BASE_NS + 59 * DAY_NS
    assert_topics_are_sound(plan, memories)
    assert_second_plan_changes_nothing(plan, memories)


def test_on_equal_value_the_bottom_section_moves_first() -> None:
    lines, memories = value_sections()
    lines += [f"- [x{i}](project_mo{i + 100}.md) — x" for i in range(40)]  # 261 lines
    memories += [make_memory(f"project_mo{i + 100}.md") for i in range(40)]

    plan = rebuild("\n".join(lines) + "\n", memories, used={"project_mo139.md"})

    # Links (reference pointers) first; then of the two project sections, the lower one.
    assert sorted(t.file for t in plan.creates) == ["index_links.md", "index_more_projects.md"]
    assert "index_projects.md" not in plan.text
    assert plan.within_limits
    assert_second_plan_changes_nothing(plan, memories)


def test_single_lines_move_by_value_into_more_of_the_index() -> None:
    memories = [make_memory(f"p{i:03d}.md") for i in range(190)]
    memories += [make_memory(f"r{i}.md", mtype="reference") for i in range(10)]
    memories += [make_memory(f"u{i}.md", mtype="user") for i in range(10)]
    lines = [f"- [U{i}](u{i}.md) — user {i}" for i in range(10)]
    lines += [f"- [P{i}](p{i:03d}.md) — project {i}" for i in range(190)]
    lines += [f"- [R{i}](r{i}.md) — reference {i}" for i in range(10)]
    lines.insert(50, "A note that points nowhere.")

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.within_limits
    [topic] = plan.creates
    assert topic.file == "index_more_of_the_index.md"
    moved = [line for line in lines if line not in lines_of(plan.text)]
    # 211 lines to 199 with a blank and a pointer (a line of room is left for Claude Code's
    # next pointer): 14 lines go, the note and the references first (least valuable), then
    # the lowest project pointers.
    assert moved == ["A note that points nowhere."] + [
        f"- [P{i}](p{i:03d}.md) — project {i}" for i in (187, 188, 189)
    ] + [f"- [R{i}](r{i}.md) — reference {i}" for i in range(10)]
    assert lines_of(plan.text)[-2:] == ["", f"- [More of the index]({topic.file}) — 14 {TOPIC_HOOK}"
                                            "A note that points nowhere, P187, P188, P189, R0, "
                                            "R1, R2, R3, R4…"]
    assert plan.lines == 199 and not plan.full
    assert_second_plan_changes_nothing(plan, memories)


def test_a_first_section_up_to_half_the_line_limit_is_pinned() -> None:
    memories = [make_memory(f"r{i}.md", mtype="reference") for i in range(120)]
    memories += [make_memory(f"u{i}.md", mtype="user") for i in range(100)]
    lines = ["# Memory", "## Links"] + [f"- [R{i}](r{i}.md) — r" for i in range(90)]
    lines += ["## People"] + [f"- [U{i}](u{i}.md) — u" for i in range(100)]
    lines += ["## More links"] + [f"- [R{i}](r{i}.md) — r" for i in range(90, 120)]

    plan = rebuild("\n".join(lines) + "\n", memories)

    # Reference pointers are worth less than user pointers, but the first 92 lines stay.
    assert lines_of(plan.text)[:93] == lines[:93]
    assert [t.file for t in plan.creates] == ["index_more_links.md"]
    assert plan.within_limits


# --- topic memories: names and contents --------------------------------------------------------


def cjk_index(heading: str) -> tuple[str, list[Memory]]:
    lines = ["# メモリ索引", "", "## フィードバック", "- [テスト](feedback_a.md) — 実DB", "", heading]
    lines += [f"- [参考{i}](reference_{i}.md) — 説明 {i}" for i in range(200)]
    memories = [make_memory("feedback_a.md", mtype="feedback")]
    memories += [
        make_memory(f"reference_{i}.md", mtype="reference", mtime_ns=BASE_NS + i)
        for i in range(200)
    ]
    return "\n".join(lines) + "\n", memories


def test_a_cjk_section_moves_into_a_topic_named_in_its_own_script() -> None:
    text, memories = cjk_index("## 参考資料")

    plan = rebuild(text, memories)

    [topic] = plan.creates
    assert topic.file == "index_参考資料.md"
    kept = lines_of(plan.text)
    assert kept[:-1] == [
        "# メモリ索引", "", "## フィードバック", "- [テスト](feedback_a.md) — 実DB", "",
        "## 参考資料",
    ]
    assert kept[-1].startswith(f"- [参考資料](index_参考資料.md) — 200 {TOPIC_HOOK}参考0, 参考1")
    doc = frontmatter.parse(topic.text.encode("utf-8"))
    assert doc.fields["name"] == "index_参考資料"
    assert doc.memory_type == "reference"
    assert "参考資料" in doc.fields["description"]
    assert topic.reason == "index overflow"
    assert topic.mtime_ns == BASE_NS + 199
    assert plan.moved == (
        "section '参考資料': 200 lines -> index_参考資料.md (index over its limits)",
    )
    assert_topics_are_sound(plan, memories)
    assert_second_plan_changes_nothing(plan, memories)


def test_a_decomposed_cjk_or_accented_heading_gives_an_nfc_topic_name() -> None:
    text, memories = cjk_index(unicodedata.normalize("NFD", "## Café ガイド"))

    plan = rebuild(text, memories)

    [topic] = plan.creates
    assert topic.file == "index_café_ガイド.md"
    assert unicodedata.is_normalized("NFC", topic.file)


@pytest.mark.parametrize(
    ("heading", "taken", "expected"),
    [
        ("## Foo", {"Index_Foo.md"}, "index_foo_2.md"),
        ("## Foo", {"INDEX_FOO.md", "index_foo_2.md"}, "index_foo_3.md"),
        ("## 参考資料", {"Index_参考資料.md"}, "index_参考資料_2.md"),
        ("## Café", {unicodedata.normalize("NFD", "index_café.md")}, "index_café_2.md"),
        ("## Foo", {"sub/index_foo.md"}, "index_foo.md"),  # another folder: no clash
    ],
)
def test_a_topic_name_taken_in_any_case_or_normalisation_is_numbered(
    heading: str, taken: set[str], expected: str
) -> None:
    text, memories = cjk_index(heading)

    plan = rebuild(text, memories, present=taken)

    assert [t.file for t in plan.creates] == [expected]
    assert expected in pointer_targets(plan.text)


def test_two_sections_with_one_heading_get_two_topic_names() -> None:
    lines, memories = sectioned_index(6, 45)
    lines = [line.replace("## Section 4", "## Section 5") for line in lines]

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert [t.file for t in plan.creates] == ["index_section_5.md", "index_section_5_2.md"]


@pytest.mark.parametrize(
    ("heading", "mtype", "expected"),
    [("## ★ ★", "reference", "index_reference.md"), ("## —", None, "index_notes.md")],
)
def test_a_heading_with_no_letters_names_its_topic_by_type_else_notes(
    heading: str, mtype: str | None, expected: str
) -> None:
    lines = ["# Facts", "", "## Keep", "fact", "", heading]
    memories = []
    for i in range(250):
        if mtype:
            memories.append(make_memory(f"x{i}.md", mtype=mtype))
            lines.append(f"- [X{i}](x{i}.md) — x")
        else:
            lines.append(f"Fact {i}.")

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert [t.file for t in plan.creates] == [expected]


def test_topic_file_name_helper_checks_case_and_normalisation() -> None:
    assert topic_file_name("Foo", {"Index_Foo.md"}) == "index_foo_2.md"
    assert topic_file_name("Foo", set()) == "index_foo.md"
    assert topic_file_name("!!!", set(), "project") == "index_project.md"
    assert topic_file_name("!!!", set(), "") == "index_notes.md"
    nfd = unicodedata.normalize("NFD", "Ünïcode")
    assert topic_file_name(nfd, set()) == unicodedata.normalize("NFC", "index_ünïcode.md")


# --- a second rebuild changes nothing ----------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    ["sections", "no-headings", "dead-and-new", "facts", "long-hooks"],
)
def test_a_second_plan_of_the_rebuilt_index_changes_nothing(case: str) -> None:
    memories: list[Memory]
    if case == "sections":
        lines, memories = sectioned_index(6, 45)
        lines.insert(105, "- 🚨 NEVER force-push to main")
        text = "\n".join(lines) + "\n"
    elif case == "no-headings":
        memories = [make_memory(f"m{i:03d}.md", mtime_ns=BASE_NS + i) for i in range(300)]
        text = "".join(f"- [M{i}](m{i:03d}.md) — memory {i}\n" for i in range(300))
    elif case == "dead-and-new":
        lines, memories = sectioned_index(5, 45)
        lines.insert(10, "- [Old](old.md) — a deleted memory")
        memories.append(make_memory("project_new-one.md", description="brand new"))
        text = "\n".join(lines) + "\n"
    elif case == "facts":
        memories = []
        text = "# Facts\n" + "".join(f"Fact number {i}: " + "x" * 150 + "\n" for i in range(190))
    else:
        memories = [make_memory(f"p{i}.md") for i in range(160)]
        text = "## Project\n" + "".join(f"- [P{i}](p{i}.md) — {LONG_HOOK}\n" for i in range(160))

    plan = rebuild(text, memories)

    assert plan.changed and plan.within_limits and plan.dropped == ()
    assert_measured(plan)
    assert_topics_are_sound(plan, memories)
    assert_second_plan_changes_nothing(plan, memories)


# --- known bugs --------------------------------------------------------------------------------


def test_an_index_of_many_small_dated_sections_fits_without_deleting_anything() -> None:
    lines = ["# Daily log"]
    for day in range(1, 121):
        lines += ["", f"### Day {day:03d}", f"Deployed build {day} to staging."]

    plan = rebuild("\n".join(lines) + "\n")

    assert plan.within_limits
    assert plan.dropped == ()
    assert {t.file for t in plan.creates} <= set(pointer_targets(plan.text))
    kept = set(lines_of(plan.text)) | {
        line for topic in plan.creates for line in topic.text.splitlines()
    }
    assert {line for line in lines if line} <= kept


def test_memories_stay_reachable_when_a_small_index_must_shrink_hard() -> None:
    memories = [
        make_memory("u.md", mtype="user"),
        make_memory("f.md", mtype="feedback"),
    ]

    plan = rebuild("", memories, limits=Limits(max_lines=6, max_bytes=2000))

    assert plan.within_limits
    reachable = set(index_targets(plan.text))
    for topic in plan.creates:
        if topic.file in reachable:
            reachable |= {t for line in parse_index(topic.text) for t in line.targets}
    assert {"u.md", "f.md"} <= reachable
    assert all(classify(line).kind != "pointer" or len(line) <= 150
               for line in lines_of(plan.text))


# --- list items and the lines indented under them -------------------------------------------------


def _project_pointers(count: int) -> tuple[list[Memory], list[str]]:
    memories = [make_memory(f"p{i:03d}.md") for i in range(count)]
    return memories, [f"- [P{i}](p{i:03d}.md) — project {i}" for i in range(count)]


def test_the_details_of_a_stressed_list_item_stay_with_it() -> None:
    """A numbered list of bold items with indented details: the details stay with their item
    (in the index, or moved with it) instead of moving alone into a topic with no item to
    explain them."""
    memories, pointers = _project_pointers(196)
    follow_ups = ["## Follow-ups",
                  "1. **Map the action fields again** (after the schema change)",
                  "   - the old mapping drops the owner field",
                  "   - check the three saved views",
                  "2. **Turn new automations on at once**",
                  "   - users forget the toggle"]
    text = "\n".join(["## Project", *pointers, "", *follow_ups]) + "\n"

    plan = rebuild(text, memories)

    assert plan.within_limits
    kept = lines_of(plan.text)
    for where in [kept] + [t.text.splitlines() for t in plan.creates]:
        for item, details in ((1, 2), (4, 1)):
            if follow_ups[item] in where:
                at = where.index(follow_ups[item])
                assert where[at:at + 1 + details] == follow_ups[item:item + 1 + details]
    assert_second_plan_changes_nothing(plan, memories)


def test_a_note_that_moves_takes_the_lines_under_it_along() -> None:
    """Two notes with details: the lowest goes whole, and the other is not split from its
    details to make up the count."""
    memories, pointers = _project_pointers(196)
    first = ["- build quirks", "  - the cache needs a warm start", "  - ports clash"]
    second = ["- review habits", "  - small diffs first", "  - tests before style"]
    text = "\n".join([*pointers[:100], *first, *pointers[100:], *second]) + "\n"

    plan = rebuild(text, memories)

    assert plan.within_limits
    kept = lines_of(plan.text)
    moved = [line for t in plan.creates for line in t.text.splitlines()]
    for group in (first, second):
        assert all(line in kept for line in group) or all(line in moved for line in group)
        if group[0] in moved:
            at = moved.index(group[0])
            assert moved[at:at + 3] == group
    assert_second_plan_changes_nothing(plan, memories)
