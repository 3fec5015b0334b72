"""What each MEMORY.md line is worth when the index must shrink: lines a user stressed, feedback
rules and the first section are pinned; the rest move least valuable first."""

from __future__ import annotations

import pytest

from consolidator.index.parse import parse_index
from consolidator.index.value import (
    GONE,
    NOTE,
    OTHER,
    REFERENCE,
    USER,
    feedback_heading,
    first_section_end,
    gone_line,
    stressed,
    worth,
)
from tests.unit.test_index_rebuild import (
    assert_measured,
    assert_topics_are_sound,
    lines_of,
    make_memory,
    pointer_targets,
    rebuild,
    sectioned_index,
)

# --- stressed lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "🚨 Never push to main",
        "- ⚠️ the staging db is shared",
        "IMPORTANT: run migrations before deploy",
        "- NEVER commit .env files",
        "- ALWAYS use pnpm",
        "You MUST rebase, not merge",
        "- DO NOT touch the vendored code",
        "**Deploys freeze on Fridays.**",
        "- **Tests hit a real database**, never mocks",
        "- **Rule:** never push to main without a review",
        "- **Deploys:** always run the migrations first, then the app",
        "1. __Ask before deleting anything__",
        "- 最上位ルール: 本番DBに触れない",
        "- 必ず日本語で答える",
        "- 절대 main에 직접 푸시하지 않는다",
        "- 务必先运行测试",
    ],
)
def test_a_line_its_writer_stressed_counts_as_stressed(line: str) -> None:
    assert stressed(line)


@pytest.mark.parametrize(
    "line",
    [
        "- [No mocks](feedback_no_mock.md) — integration tests hit a real database",
        "- **[pnpm](feedback_pnpm.md)** — always use pnpm",  # a bold link, lower-case words
        "- __[pnpm](feedback_pnpm.md)__ — pnpm",
        "The staging box is called `kestrel`.",
        "- Important things live in the wiki",  # not shouted
        # a bold label, then a long note that says "never" in passing
        "- **Session 10 (2026-03-29):** moved the config of twelve agents to one file, fixed "
        "the dedup, and noted that press wires are never behind a paywall",
        "- **Newsletter**: the daily job writes one row per day; to send it again the row "
        "must be deleted first",
        "| Service | Port |",
        "",
    ],
)
def test_a_plain_line_or_a_bold_link_is_not_stressed(line: str) -> None:
    assert not stressed(line)


@pytest.mark.parametrize(
    ("heading", "rules"),
    [
        ("Feedback", True),
        ("Rules of thumb", True),
        ("Preferences", True),
        ("Coding conventions", True),
        ("ルール", True),
        ("フィードバック", True),
        ("规则", True),
        ("규칙", True),
        ("Project", False),
        ("Reference", False),
        ("参考資料", False),
    ],
)
def test_feedback_and_rule_headings_are_recognised(heading: str, rules: bool) -> None:
    assert feedback_heading(heading) is rules


def test_a_line_kept_from_a_dead_pointer_is_recognised_by_its_mark() -> None:
    assert gone_line("- Old plan (old_plan.md missing) — Q3")
    assert gone_line("See the old plan (project_old.md archived) for history.")
    assert not gone_line("- [Old plan](old_plan.md) — Q3")
    assert not gone_line("The file is missing")


# --- the first section -----------------------------------------------------------------------


def test_the_first_section_runs_to_the_first_heading_after_some_content() -> None:
    lines = parse_index(
        "# Memory index\n\n## Feedback\n- [A](a.md) — a\n\n## Project\n- [B](b.md) — b\n"
    )

    assert first_section_end(lines, 100) == 5


def test_a_first_section_longer_than_its_limit_is_not_pinned() -> None:
    lines = parse_index("# Index\n" + "fact\n" * 120 + "## More\nfact\n")

    assert first_section_end(lines, 100) == 0
    assert first_section_end(lines, 200) == 121


def test_an_index_of_one_section_has_no_first_section() -> None:
    assert first_section_end(parse_index("# Index\n" + "fact\n" * 5), 100) == 0


# --- worth ---------------------------------------------------------------------------------


def test_worth_pins_stressed_lines_feedback_and_the_first_section() -> None:
    lines = [
        "# Memory index",                                   # 0 heading
        "Loaded into every session.",                       # 1 first section
        "## Project",                                       # 2
        "- [Release](project_release.md) — Thursday",       # 3 project pointer
        "- [Grafana](reference_grafana.md) — dashboards",   # 4 reference pointer
        "- [Role](user_role.md) — backend engineer",        # 5 user pointer
        "- [Rule](feedback_rule.md) — a feedback pointer",  # 6 feedback pointer: pinned
        "The staging box is called kestrel.",               # 7 note
        "- 🚨 NEVER deploy on Fridays",                     # 8 stressed: pinned
        "- Old (old.md missing) — gone",                    # 9 kept from a dead pointer
        "",                                                 # 10 blank
        "## Rules of thumb",                                # 11 a feedback heading
        "- Keep commits small",                             # 12 under it: pinned
    ]
    types = {
        "project_release.md": "project",
        "reference_grafana.md": "reference",
        "user_role.md": "user",
        "feedback_rule.md": "feedback",
    }

    marks = worth(parse_index("\n".join(lines)), types, 100)

    assert [m.pinned for m in marks] == [
        True, True, True, False, False, False, True, False, True, False, False, True, True,
    ]
    assert marks[3].value == OTHER
    assert marks[4].value == REFERENCE
    assert marks[5].value == USER
    assert marks[7].value == NOTE
    assert marks[9].value == GONE
    assert marks[8].stressed and not marks[7].stressed
    assert GONE < NOTE < REFERENCE < OTHER < USER


@pytest.mark.parametrize(("line", "pinned"), [
    ("- No jargon (feedback_no_jargon.md missing) — keep the brand voice plain", True),
    ("- [No jargon](feedback_no_jargon.md) — keep the brand voice plain", True),  # still dead
    ("- Old wiki (reference_old_wiki.md missing) — the pages kept", False),
    ("- [Old wiki](reference_old_wiki.md) — the pages kept", False),
])
def test_a_rule_whose_feedback_memory_is_missing_stays_pinned(line: str, pinned: bool) -> None:
    """What a feedback rule says did not go with its file: a line kept from a pointer to a
    missing ``feedback_*`` file is still a rule."""
    marks = worth(parse_index(f"# M\n\nIntro.\n\n## Other\n{line}\n"), {}, 1)

    assert marks[-1].pinned is pinned


def test_a_dead_bold_pointer_is_not_taken_for_a_stressed_rule() -> None:
    memories = [make_memory(f"p{i:03d}.md") for i in range(200)]
    lines = ["- **[Old plan](old_plan.md)** — the Q3 plan, dropped"]
    lines += [f"- **[P{i}](p{i:03d}.md)** — project {i}" for i in range(200)]

    plan = rebuild("\n".join(lines) + "\n", memories)

    # In the plain style the same dead pointer is the first line to move (see below); in the
    # bold style it should be too, and every live pointer should stay.
    assert plan.within_limits
    assert "- **Old plan (old_plan.md missing)** — the Q3 plan, dropped" not in lines_of(plan.text)
    assert {f"p{i:03d}.md" for i in range(197)} <= set(pointer_targets(plan.text))


def test_a_dead_pointer_is_the_first_line_to_move_when_the_index_must_shrink() -> None:
    memories = [make_memory(f"p{i:03d}.md") for i in range(200)]
    lines = ["- [Old plan](old_plan.md) — the Q3 plan, dropped"]
    lines += [f"- [P{i}](p{i:03d}.md) — project {i}" for i in range(200)]

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.within_limits and plan.over_limits
    assert plan.unlinked == (("old_plan.md", "missing"),)
    [topic] = plan.creates
    assert "- Old plan (old_plan.md missing) — the Q3 plan, dropped" in topic.text.splitlines()
    assert lines_of(plan.text)[0] == "- [P0](p000.md) — project 0"


# --- pinned lines while an over-limit index shrinks ------------------------------------------


def test_stressed_lines_stay_in_the_index_while_it_shrinks_even_past_line_200() -> None:
    lines, memories = sectioned_index(6, 45)  # 276 lines
    lines.insert(105, "- 🚨 NEVER force-push to main")
    lines.insert(241, "⚠️ The prod database is shared with billing")  # inside Section 5
    lines.append("- 必ず日本語で答える")  # the last line, past line 200
    lines.append("**Deploys freeze on Fridays.**")
    text = "\n".join(lines) + "\n"

    plan = rebuild(text, memories)

    assert plan.over_limits and plan.within_limits and plan.lines <= 200
    out = lines_of(plan.text)
    assert out.index("- 🚨 NEVER force-push to main") == 105  # untouched above the cut
    for line in [
        "⚠️ The prod database is shared with billing",
        "- 必ず日本語で答える",
        "**Deploys freeze on Fridays.**",
    ]:
        assert line in out
    # The sections that moved kept their headings and point at their topic memories.
    assert [t.file for t in plan.creates] == ["index_section_5.md", "index_section_4.md"]
    assert out[: 4 * 46 + 1] == lines[: 4 * 46 + 1]
    stressed_lines = {line for line in lines if stressed(line)}
    assert not any(stressed_lines & set(t.text.splitlines()) for t in plan.creates)
    assert_topics_are_sound(plan, memories)
    assert_measured(plan)


def test_feedback_section_and_pointers_to_feedback_stay_while_other_sections_move() -> None:
    memories = [make_memory(f"feedback_{i}.md", mtype="feedback") for i in range(150)]
    memories += [make_memory(f"p{i}.md") for i in range(30)]
    memories += [make_memory(f"r{i}.md", mtype="reference") for i in range(30)]
    lines = ["# Memory", "", "## Project"] + [f"- [P{i}](p{i}.md) — p {i}" for i in range(30)]
    lines += ["", "## Feedback"]
    lines += [f"- [F{i}](feedback_{i}.md) — rule {i}" for i in range(150)]
    lines += ["", "## Links"] + [f"- [R{i}](r{i}.md) — r {i}" for i in range(30)]
    text = "\n".join(lines) + "\n"

    plan = rebuild(text, memories)

    assert plan.over_limits and plan.within_limits
    out = lines_of(plan.text)
    # The first section (## Project, under half the line limit) is pinned too; the
    # reference section, least valuable, moves.
    assert [t.file for t in plan.creates] == ["index_links.md"]
    assert all(line in out for line in lines[:185])
    hook = "30 lines moved from MEMORY.md: R0, R1, R2"
    assert out[-2] == "## Links" and out[-1].startswith(f"- [Links](index_links.md) — {hook}")


def test_pinned_lines_never_move_and_the_plan_says_the_index_stays_over() -> None:
    memories = [make_memory(f"feedback_{i}.md", mtype="feedback") for i in range(230)]
    lines = ["## Feedback"] + [
        f"- [F{i}](feedback_{i}.md) — rule {i}" + (" 🚨" if i % 10 == 0 else "")
        for i in range(230)
    ]

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert not plan.within_limits and plan.lines == 231
    assert lines_of(plan.text) == lines
    assert plan.creates == () and plan.dropped == ()
    assert plan.over == "31 line(s) over 200"
    assert plan.why and "never move" in plan.why[0]


def test_an_index_of_stressed_lines_only_keeps_every_line() -> None:
    lines = [f"🚨 Rule {i}: never do thing {i}" for i in range(250)]

    plan = rebuild("\n".join(lines) + "\n")

    assert plan.changed is False and plan.creates == ()
    assert not plan.within_limits and plan.dropped == ()
