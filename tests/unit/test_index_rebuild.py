"""Planning MEMORY.md's rebuild: order and hand-written lines kept, pointers repaired, limits met
by moving (never deleting) what does not fit."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from consolidator.index.parse import classify, parse_index, retarget, split_pointer, unlink
from consolidator.index.rebuild import ALL, IndexPlan, Limits, measure, plan_index
from consolidator.store import frontmatter
from consolidator.store.model import FileStat, Memory

DAY_NS = 86_400 * 10**9
BASE_NS = 1_760_000_000 * 10**9
DEFAULT_LIMITS = Limits()


def make_memory(
    rel: str,
    *,
    name: str | None = None,
    description: str | None = None,
    mtype: str | None = "project",
    body: str = "Body text.\n",
    mtime_ns: int = BASE_NS,
) -> Memory:
    """A memory as the scan would hand it over: real frontmatter bytes, parsed."""
    head = ["---", f"name: {name if name is not None else rel.rsplit('/', 1)[-1][:-3]}"]
    if description is not None:
        head.append(f"description: {description}")
    if mtype is not None:
        head.append(f"type: {mtype}")
    head.append("---")
    data = ("\n".join(head) + "\n" + body).encode("utf-8")
    doc = frontmatter.parse(data)
    return Memory(FileStat(rel, len(data), mtime_ns, 0o644, hashlib.sha256(data).hexdigest()), doc)


def rebuild(
    text: str | None,
    memories: Iterable[Memory] = (),
    *,
    present: Iterable[str] = (),
    **kwargs: object,
) -> IndexPlan:
    """plan_index with ``present`` = the memories' files plus any extra files named."""
    memories = list(memories)
    files = {m.file for m in memories} | set(present)
    return plan_index(text, memories, present=files, **kwargs)  # type: ignore[arg-type]


def lines_of(text: str) -> list[str]:
    return [line.text for line in parse_index(text)]


def index_targets(text: str) -> set[str]:
    return {t for line in parse_index(text) for t in line.targets}


def pointer_targets(text: str) -> list[str]:
    return [line.target for line in parse_index(text) if line.target]


def is_subsequence(needles: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(item == candidate for candidate in it) for item in needles)


def assert_topics_are_sound(
    plan: IndexPlan, memories: Iterable[Memory], index_mtime_ns: int = 0
) -> None:
    """Every created topic memory parses, lists what it says, and is as old as what it lists."""
    mtimes = {m.file: m.stat.mtime_ns for m in memories}
    mtimes.update({t.file: t.mtime_ns for t in plan.creates})
    for topic in plan.creates:
        doc = frontmatter.parse(topic.text.encode("utf-8"))
        assert doc.fields["name"] == topic.file[:-3]
        assert doc.memory_type in ("user", "feedback", "project", "reference")
        assert doc.fields["description"]
        assert topic.memory.file == topic.file
        assert topic.memory.stat.mtime_ns == topic.mtime_ns
        listed = {t for line in parse_index(topic.text) for t in line.targets}
        assert set(topic.sources) <= listed
        stamps = [mtimes[s] for s in topic.sources if s in mtimes]
        assert topic.mtime_ns == (max(stamps) if stamps else index_mtime_ns)


def assert_measured(plan: IndexPlan, limits: Limits = DEFAULT_LIMITS) -> None:
    lines, size = measure(plan.text)
    assert (plan.lines, plan.bytes) == (lines, size)
    assert size <= len(plan.text.encode("utf-8"))  # as Claude Code counts: blank ends trimmed
    assert plan.within_limits == (lines <= limits.max_lines and size <= limits.max_bytes)


# --- an index that needs nothing ---------------------------------------------------------------

TIDY = [
    "# Memory index",
    "",
    "## Feedback",
    "- [No mocks](feedback_no_mock.md) — integration tests hit a real database",
    "- **[pnpm](feedback_pnpm.md)** — always pnpm",
    "",
    "## Project",
    "1. [Release day](project_release.md): Thursday",
    "| Service | Port |",
    "|---|---|",
    "| db | 6432 |",
    "The staging box is called `kestrel`.",
]


def tidy_memories() -> list[Memory]:
    return [
        make_memory("feedback_no_mock.md", mtype="feedback", description="Real DB in tests"),
        make_memory("feedback_pnpm.md", mtype="feedback", description="pnpm not npm"),
        make_memory("project_release.md", description="Release on Thursday"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "\n".join(TIDY) + "\n",
        "\r\n".join(TIDY) + "\r\n",
        "\n".join(TIDY),
        "\n".join(TIDY) + "\n\n\n",
    ],
    ids=["lf", "crlf", "no-final-newline", "trailing-blank-lines"],
)
def test_unchanged_index_is_reported_unchanged_and_kept_byte_for_byte(text: str) -> None:
    plan = rebuild(text, tidy_memories())

    assert plan.changed is False
    assert plan.text == text
    assert plan.within_limits
    assert (plan.added, plan.removed, plan.repointed, plan.dropped) == ((), (), (), ())
    assert (plan.moved, plan.creates, dict(plan.notes)) == ((), (), {})
    assert_measured(plan)


def test_missing_index_with_no_memories_stays_empty() -> None:
    plan = rebuild(None)

    assert plan.text == ""
    assert plan.changed is False
    assert (plan.lines, plan.bytes) == (0, 0)


def test_missing_index_gets_a_pointer_for_every_memory() -> None:
    plan = rebuild(None, tidy_memories())

    assert plan.changed
    assert set(plan.added) == {"feedback_no_mock.md", "feedback_pnpm.md", "project_release.md"}
    assert set(pointer_targets(plan.text)) == set(plan.added)


def test_changed_crlf_index_is_written_with_crlf() -> None:
    text = "\r\n".join(TIDY) + "\r\n"
    memories = tidy_memories() + [make_memory("project_new.md", description="New thing")]

    plan = rebuild(text, memories, newline="\r\n")

    assert plan.changed
    assert "\n" not in plan.text.replace("\r\n", "")
    assert plan.text.startswith("\r\n".join(TIDY[:7]) + "\r\n")


# --- order, headings and hand-written lines ---------------------------------------------------


def test_order_headings_and_hand_written_lines_are_kept_exactly() -> None:
    original = [
        "# Memory index",
        "Everything below is loaded into every session.",
        "",
        "### Rules of thumb",
        "- Always use pnpm, never npm",
        "- [No mocks](feedback_no_mock.md) — integration tests hit a real database",
        "- [Gone](gone.md) — a memory that was deleted by hand",
        "| Service | File |",
        "|---|---|",
        "| db | [release](project_release.md) |",
        "See [pnpm](feedback_pnpm.md) before touching the lockfile.",
        "#### 포트",
        "스테이징 데이터베이스 포트는 6432이다.",
        "",
        "## Project",
        "1. [Release day](project_release.md): Thursday",
    ]
    memories = tidy_memories() + [make_memory("project_new.md", description="Brand new")]

    plan = rebuild("\n".join(original) + "\n", memories)

    # Every line stays where it was; the dead pointer keeps its words, unlinked and marked;
    # the new memory's pointer goes at the end of its type's section.
    expected = [
        line.replace("[Gone](gone.md)", "Gone (gone.md missing)") for line in original
    ] + ["- [New](project_new.md) — Brand new"]
    assert lines_of(plan.text) == expected
    assert plan.removed == ("gone.md",)
    assert plan.unlinked == (("gone.md", "missing"),)
    assert plan.added == ("project_new.md",)
    assert not plan.over_limits


def test_links_to_missing_files_in_text_and_tables_are_hand_written_and_kept() -> None:
    text = "See [old](gone.md) for history.\n| a | [old](gone.md) |\n"

    plan = rebuild(text)

    assert plan.changed is False
    assert plan.text == text
    assert plan.removed == ()
    assert plan.linked_missing == ("gone.md",)  # reported, for the user to fix
    assert plan.missing == ()  # no pointer's file is missing


# An index that names its memories in headings ("### [Deploy](deploy.md)", a description
# under each): the heading's link is a link like any other.
HEADED = "# Memory\n\n### [Alpha](alpha.md)\nnotes on alpha\n\n### [Beta](beta.md)\nnotes\n"


def test_a_link_in_a_heading_to_a_merged_away_file_is_pointed_at_the_survivor() -> None:
    plan = rebuild(HEADED, [make_memory("ab.md")], redirects={"beta.md": "ab.md"})

    assert "### [Beta](ab.md)" in lines_of(plan.text)
    assert "beta.md" not in index_targets(plan.text)
    assert plan.repointed == (("beta.md", "ab.md"),)


@pytest.mark.parametrize(("redirects", "archived", "state"), [
    ({"beta.md": "alpha_longer.md"}, set(), "merged"),  # the survivor's name is longer
    ({}, {"beta.md"}, "archived"),  # "### Beta (beta.md archived)" is longer
])
def test_a_heading_never_grows(redirects: dict[str, str], archived: set[str],
                               state: str) -> None:
    # Every heading stays in the index, so bytes a heading gained would push the last lines
    # Claude Code loads out of its window: its link to the file the run moved becomes its
    # plain words instead, which are shorter, and no link points at the moved file.
    memories = [make_memory("alpha.md"), make_memory("alpha_longer.md")]

    plan = rebuild(HEADED, memories, redirects=redirects, archived=archived)

    assert "### Beta" in lines_of(plan.text)
    assert "beta.md" not in index_targets(plan.text)
    assert plan.unlinked == (("beta.md", state),) and plan.repointed == ()
    assert plan.linked_missing == ()


def test_a_heading_repoints_the_links_that_fit_and_takes_out_the_one_that_would_not() -> None:
    text = "# Memory\n\n### [Beta](beta.md) and [Gamma](gamma.md)\nnotes\n"
    memories = [make_memory("ab.md"), make_memory("alpha_longer_name.md")]

    plan = rebuild(text, memories, redirects={"beta.md": "ab.md",
                                              "gamma.md": "alpha_longer_name.md"})

    assert "### [Beta](ab.md) and Gamma" in lines_of(plan.text)
    assert plan.repointed == (("beta.md", "ab.md"),)
    assert plan.unlinked == (("gamma.md", "merged"),)


def test_a_heading_repoints_first_the_links_that_make_room() -> None:
    text = "# Memory\n\n### [A](a.md) [B](b.md) [C](cccccc.md)\nnotes\n"
    memories = [make_memory(f) for f in ("aaaaa.md", "bbb.md", "c.md")]

    plan = rebuild(text, memories, redirects={"a.md": "aaaaa.md", "b.md": "bbb.md",
                                              "cccccc.md": "c.md"})

    assert "### A [B](bbb.md) [C](c.md)" in lines_of(plan.text)


@pytest.mark.parametrize(("heading", "plain"), [
    ("### [[beta]] notes", "### beta notes"),  # a wiki link: its key
    ("### [[beta|The beta]]", "### The beta"),  # its alias
    ("### [](beta.md)", "### beta.md"),  # a link with no words: the file's name
    ("### [Beta](beta.md) and [Alpha](alpha.md)", "### Beta and [Alpha](alpha.md)"),
])
def test_a_heading_keeps_the_words_of_a_link_to_an_archived_file(heading: str,
                                                                  plain: str) -> None:
    text = f"# Memory\n\n{heading}\nnotes\n"

    plan = rebuild(text, [make_memory("alpha.md")], archived={"beta.md"},
                   named=[make_memory("alpha.md"), make_memory("beta.md")])

    assert plain in lines_of(plan.text)
    assert len(plain.encode()) < len(heading.encode())
    assert plan.unlinked == (("beta.md", "archived"),)


def test_a_link_in_a_heading_to_a_missing_file_is_reported_and_left() -> None:
    plan = rebuild(HEADED, [make_memory("alpha.md")])

    assert plan.text == HEADED
    assert plan.linked_missing == ("beta.md",)  # reported, for the user to fix


def test_memories_named_in_headings_get_no_second_pointer() -> None:
    plan = rebuild(HEADED, [make_memory("alpha.md"), make_memory("beta.md")], scope=ALL)

    assert plan.added == ()
    assert plan.text == HEADED


# --- pointers to missing files --------------------------------------------------------------


def test_pointer_to_missing_file_keeps_its_text_unlinked_and_is_named() -> None:
    text = (
        "## Project\n- [Release](project_release.md) — Thursday\n- [Old plan](old_plan.md) — Q3\n"
    )

    plan = rebuild(text, [make_memory("project_release.md", description="Release day")])

    assert plan.removed == ("old_plan.md",)
    assert plan.unlinked == (("old_plan.md", "missing"),)
    assert "](old_plan.md)" not in plan.text
    assert lines_of(plan.text) == [
        "## Project",
        "- [Release](project_release.md) — Thursday",
        "- Old plan (old_plan.md missing) — Q3",
    ]
    assert "old_plan.md" not in index_targets(plan.text)
    assert plan.changed


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("- **[Old](old.md)** — bold pointer", "- **Old (old.md missing)** — bold pointer"),
        ("* [Old](./old.md); star pointer", "* Old (old.md missing); star pointer"),
        (
            "3. [Old](old%20plan.md): numbered pointer",
            "3. Old (old plan.md missing): numbered pointer",
        ),
        (
            "- [Old](<sub/old plan.md>) — angle pointer",
            "- Old (sub/old plan.md missing) — angle pointer",
        ),
    ],
)
def test_pointer_of_every_shape_to_missing_file_keeps_its_text_unlinked(
    line: str, kept: str
) -> None:
    plan = rebuild(f"# Index\n{line}\n")

    assert lines_of(plan.text) == ["# Index", kept]
    assert index_targets(plan.text) == set()
    assert plan.removed == (classify(line).target,)
    assert plan.unlinked == ((classify(line).target, "missing"),)


def test_each_link_of_a_line_of_links_alone_is_a_pointer_checked_for_its_file() -> None:
    """"[A](a.md) · [B](b.md) · [C](c.md)": three pointers on one line. Each missing one is
    reported and unlinked, words kept; the live one stays a link."""
    text = ("# Index\n- [Parallel sessions](feedback_parallel.md) · [Profile](user_profile.md)"
            " · [Python env](feedback_python.md)\n- [Release](project_release.md) — see "
            "[old notes](old_notes.md)\n")
    live = [make_memory("feedback_parallel.md", description="parallel sessions"),
            make_memory("project_release.md", description="release day")]

    plan = rebuild(text, live, scope=ALL)

    assert lines_of(plan.text)[1] == ("- [Parallel sessions](feedback_parallel.md) · Profile "
                                      "(user_profile.md missing) · Python env "
                                      "(feedback_python.md missing)")
    assert sorted(plan.removed) == ["feedback_python.md", "user_profile.md"]
    # A link in a pointer's hook is the user's text: not a pointer, left as written.
    assert lines_of(plan.text)[2] == text.splitlines()[2]


@pytest.mark.parametrize("scope", ["safe", ALL])
def test_a_wiki_link_naming_no_memory_is_a_note_elsewhere_and_kept(scope: str) -> None:
    """A ``[[name]]`` is a name the notes app looks up in the whole vault, not a path: one no
    memory answers to (a note at the vault's root, a folder) is no memory gone. A Markdown link
    is a path, and a missing one is still unlinked."""
    text = ("# Index\n\n## Rules\n- Tasks and decisions go to both places:\n"
            "  - [[tasks.md]] (at the vault root) — the task list\n"
            "  - [[Decision/]] — the decision notes folder\n  - [[Decision]] — the same\n\n"
            "## Files\n- [Lab notes](project_lab.md) — current experiments\n"
            "- [Old plan](old_plan.md) — Q3\n")

    plan = rebuild(text, [make_memory("project_lab.md", description="current experiments")],
                   scope=scope)

    kept = lines_of(plan.text)
    assert "  - [[tasks.md]] (at the vault root) — the task list" in kept
    assert "  - [[Decision/]] — the decision notes folder" in kept
    assert "  - [[Decision]] — the same" in kept
    if scope == ALL:
        assert plan.removed == ("old_plan.md",)
        assert "- Old plan (old_plan.md missing) — Q3" in kept


def test_a_missing_pointer_whose_title_holds_brackets_is_unlinked_once() -> None:
    # "[[maybe_unused]]" is a C++ attribute in the title, not a link: kept as words, it must
    # not read as a wiki pointer to a missing file on the next run.
    text = "# Index\n- [[[maybe_unused]] is no evidence](feedback_unused.md) — count callers\n"

    plan = rebuild(text)
    again = rebuild(plan.text)

    assert lines_of(plan.text) == [
        "# Index",
        r"- \[\[maybe_unused]] is no evidence (feedback_unused.md missing) — count callers",
    ]
    assert again.changed is False


def test_pointer_to_present_file_that_is_not_a_memory_is_kept() -> None:
    text = "- [Daily log](daily_log.md) — notes without frontmatter\n"

    plan = rebuild(text, present={"daily_log.md"})

    assert plan.changed is False
    assert plan.removed == ()


def test_pointer_to_merged_away_file_is_repointed_at_the_survivor_and_named() -> None:
    text = (
        "## Feedback\n"
        "- [No mocks](feedback_no_mock.md) — real database\n"
        "- [Real DB](feedback_real_db.md) — no mocks in tests\n"
        "See [the old rule](feedback_real_db.md) for why.\n"
        "| rule | [db](feedback_real_db.md) |\n"
    )
    survivor = make_memory("feedback_no_mock.md", mtype="feedback", description="Real DB")

    plan = rebuild(text, [survivor], redirects={"feedback_real_db.md": "feedback_no_mock.md"})

    # The repointed pointer is a second one to the survivor; the survivor does not say its
    # hook ("no mocks in tests"), so it stays, repointed, like every other link.
    assert lines_of(plan.text) == [
        "## Feedback",
        "- [No mocks](feedback_no_mock.md) — real database",
        "- [Real DB](feedback_no_mock.md) — no mocks in tests",
        "See [the old rule](feedback_no_mock.md) for why.",
        "| rule | [db](feedback_no_mock.md) |",
    ]
    assert "feedback_real_db.md" not in index_targets(plan.text)
    assert set(plan.repointed) == {("feedback_real_db.md", "feedback_no_mock.md")}
    assert plan.removed == ()
    assert plan.unlinked == ()
    assert plan.added == ()
    assert dict(plan.notes) == {}


def test_second_pointer_after_a_merge_goes_when_the_survivor_already_says_its_hook() -> None:
    text = (
        "## Feedback\n"
        "- [No mocks](feedback_no_mock.md) — real database\n"
        "- [Real DB](feedback_real_db.md) — no mocks in tests\n"
        "See [the old rule](feedback_real_db.md) for why.\n"
    )
    survivor = make_memory(
        "feedback_no_mock.md", mtype="feedback", description="Real DB",
        body="No mocks in tests. They hid a broken migration.\n",
    )

    plan = rebuild(text, [survivor], redirects={"feedback_real_db.md": "feedback_no_mock.md"})

    assert lines_of(plan.text) == [
        "## Feedback",
        "- [No mocks](feedback_no_mock.md) — real database",
        "See [the old rule](feedback_no_mock.md) for why.",
    ]
    assert plan.removed == ("feedback_no_mock.md",)
    assert ("feedback_real_db.md", "feedback_no_mock.md") in plan.repointed
    assert dict(plan.notes) == {}


def test_a_pointer_that_was_already_a_second_one_is_not_removed() -> None:
    text = "- [A](a.md) — one hook\n- [A again](a.md) — Body text\n"

    plan = rebuild(text, [make_memory("a.md")])

    assert plan.changed is False
    assert plan.text == text


# --- [[name]] wiki links in the index ---------------------------------------------------


def test_a_wiki_pointer_line_points_to_the_memory_it_names_by_stem_or_name() -> None:
    policy = make_memory("feedback_testing.md", name="Testing policy", mtype="feedback")
    role = make_memory("user_role.md", mtype="user")
    names = {"Testing policy": policy, "feedback_testing": policy, "user_role": role}

    by_stem = classify("- [[user_role]] — who the user is", names)
    by_name = classify("- **[[Testing policy|Tests]]** — real database only", names)

    assert (by_stem.kind, by_stem.target) == ("pointer", "user_role.md")
    assert (by_name.kind, by_name.target) == ("pointer", "feedback_testing.md")
    assert split_pointer(by_name.text)[2] == "real database only"


def test_a_memory_with_a_wiki_pointer_in_the_index_gets_no_second_pointer() -> None:
    text = ("## Feedback\n- [[Testing policy]] — real database only\n"
            "## User\n- [[user_role]] — who the user is\n")
    memories = [make_memory("feedback_testing.md", name="Testing policy", mtype="feedback"),
                make_memory("user_role.md", mtype="user")]

    plan = rebuild(text, memories)

    assert plan.added == ()
    assert plan.changed is False
    assert plan.text == text


def test_a_wiki_pointer_to_a_merged_away_memory_is_repointed_at_the_survivor() -> None:
    text = ("- [[feedback_no_mock]] — real database\n"
            "- [[Real DB rule|Real DB]] — no mocks in tests\n"
            "See [[feedback_real_db]] for why.\n")
    survivor = make_memory("feedback_no_mock.md", mtype="feedback")
    merged = make_memory("feedback_real_db.md", name="Real DB rule", mtype="feedback")

    plan = rebuild(text, [survivor], redirects={"feedback_real_db.md": "feedback_no_mock.md"},
                   named=[survivor, merged])

    assert lines_of(plan.text) == [
        "- [[feedback_no_mock]] — real database",
        "- [[feedback_no_mock|Real DB]] — no mocks in tests",
        "See [[feedback_no_mock]] for why.",
    ]
    assert set(plan.repointed) == {("feedback_real_db.md", "feedback_no_mock.md")}
    assert plan.added == () and plan.unlinked == ()


def test_a_wiki_pointer_to_an_archived_memory_keeps_its_words_without_the_link() -> None:
    text = "- [[Old launch|Launch plan]] — the launch moved to March\n- [[user_role]] — role\n"
    role = make_memory("user_role.md", mtype="user")
    launch = make_memory("project_launch.md", name="Old launch")

    plan = rebuild(text, [role], archived={"project_launch.md"}, named=[role, launch])

    assert lines_of(plan.text) == [
        "- Launch plan (project_launch.md archived) — the launch moved to March",
        "- [[user_role]] — role",
    ]
    assert plan.unlinked == (("project_launch.md", "archived"),)
    assert plan.removed == ("project_launch.md",)


def test_redirect_to_a_survivor_with_spaces_uses_angle_brackets() -> None:
    plan = rebuild(
        "- [Old](old.md) — hook\n",
        [make_memory("new note.md")],
        redirects={"old.md": "new note.md"},
    )

    assert lines_of(plan.text) == ["- [Old](<new note.md>) — hook"]
    assert plan.repointed == (("old.md", "new note.md"),)


@pytest.mark.parametrize(
    ("line", "memory"),
    [
        pytest.param(
            "- [Deploy](deploy_rules.md) — how we ship",
            make_memory("ops/deploy.md", name="deploy_rules", description="other words"),
            id="name-is-the-old-file-stem",
        ),
        pytest.param(
            "- [Deploy rules](old.md) — how we ship",
            make_memory("ops.md", name="Deploy Rules", description="other words"),
            id="name-is-the-link-title",
        ),
        pytest.param(
            "- [X](deploy.md) — how we ship",
            make_memory("deploy_notes.md", name="zzz", description="other words"),
            id="new-stem-extends-old-stem",
        ),
        pytest.param(
            "- [X](deploy-2024.md) — how we ship",
            make_memory("deploy.md", name="zzz", description="other words"),
            id="old-stem-extends-new-stem",
        ),
        pytest.param(
            "- [feedback_checklist.md](feedback_checklist.md) — new module checklist",
            make_memory("memory/feedback_checklist.md", name="Checklist for a new module",
                        description="other words"),
            id="moved-into-a-folder-under-its-own-name",
        ),
        pytest.param(
            "- [X](yyy.md) — How we ship, safely",
            make_memory("zzz.md", name="qqq", description="how we ship safely"),
            id="description-is-the-hook",
        ),
    ],
)
def test_pointer_to_renamed_file_is_repointed_at_the_memory_that_matches(
    line: str, memory: Memory
) -> None:
    old = classify(line).target
    assert old is not None

    plan = rebuild(f"## Project\n{line}\n", [memory])

    assert lines_of(plan.text) == ["## Project", retarget(line, old, memory.file)]
    assert plan.repointed == ((old, memory.file),)
    assert plan.removed == ()
    assert plan.added == ()


def test_memory_that_already_has_a_pointer_is_not_taken_for_a_rename() -> None:
    text = "- [X](deploy.md) — how we ship\n- [Notes](deploy_notes.md) — notes\n"

    plan = rebuild(text, [make_memory("deploy_notes.md", name="zzz")])

    assert lines_of(plan.text) == [
        "- X (deploy.md missing) — how we ship",
        "- [Notes](deploy_notes.md) — notes",
    ]
    assert plan.removed == ("deploy.md",)
    assert plan.unlinked == (("deploy.md", "missing"),)
    assert plan.repointed == ()


def test_pointer_with_two_equally_likely_renames_is_dropped_and_both_are_added() -> None:
    memories = [make_memory("deploy_a.md", name="aaa"), make_memory("deploy_b.md", name="bbb")]

    plan = rebuild("- [X](deploy.md) — how we ship\n", memories)

    assert plan.removed == ("deploy.md",)
    assert plan.unlinked == (("deploy.md", "missing"),)
    assert lines_of(plan.text)[0] == "- X (deploy.md missing) — how we ship"
    assert plan.repointed == ()
    assert set(plan.added) == {"deploy_a.md", "deploy_b.md"}


def test_a_renamed_memory_is_claimed_by_only_one_dangling_pointer() -> None:
    text = "- [X](deploy.md) — one\n- [Y](deploy.md) — two\n"

    plan = rebuild(text, [make_memory("deploy_notes.md", name="zzz")])

    assert lines_of(plan.text) == ["- [X](deploy_notes.md) — one", "- Y (deploy.md missing) — two"]
    assert plan.repointed == (("deploy.md", "deploy_notes.md"),)
    assert plan.removed == ("deploy.md",)
    assert plan.unlinked == (("deploy.md", "missing"),)


# --- adding memories that have no pointer ----------------------------------------------------


def test_memory_without_pointer_is_added_at_the_end_of_its_type_section() -> None:
    text = "\n".join(TIDY) + "\n"
    new = make_memory("feedback_tabs.md", mtype="feedback", description="Tabs, not spaces")

    plan = rebuild(text, tidy_memories() + [new])

    assert plan.added == ("feedback_tabs.md",)
    assert (
        lines_of(plan.text)
        == TIDY[:5] + ["- [Tabs](feedback_tabs.md) — Tabs, not spaces"] + TIDY[5:]
    )


def test_memory_with_nested_metadata_type_is_added_under_that_type() -> None:
    data = (
        b"---\nname: user_role\ndescription: Backend engineer\nmetadata:\n  type: user\n---\nBody\n"
    )
    memory = Memory(
        FileStat("user_role.md", len(data), BASE_NS, 0o644, "x"), frontmatter.parse(data)
    )
    text = "## About the user\n- [Editor](user_editor.md) — vim\n\n## Project\n- [P](p.md)\n"

    plan = rebuild(text, [memory, make_memory("user_editor.md", mtype="user"), make_memory("p.md")])

    assert lines_of(plan.text)[:3] == [
        "## About the user",
        "- [Editor](user_editor.md) — vim",
        "- [Role](user_role.md) — Backend engineer",
    ]


def test_memory_whose_type_has_no_heading_in_an_index_sorted_by_type_gets_one() -> None:
    # No "## Reference" and no list heading ("## Index"...): the heading over the most
    # pointer lines ("## Feedback") is the feedback list, no place for a reference memory.
    text = "\n".join(TIDY) + "\n"
    new = make_memory("reference_grafana.md", mtype="reference", description="Dashboards")

    plan = rebuild(text, tidy_memories() + [new])

    assert plan.added == ("reference_grafana.md",)
    assert lines_of(plan.text) == (
        TIDY + ["", "## Reference", "- [Grafana](reference_grafana.md) — Dashboards"]
    )


def test_memory_whose_type_has_no_heading_goes_under_the_heading_with_most_pointers() -> None:
    # A heading naming no type that holds most pointers is where this index keeps its list.
    text = "\n".join(TIDY).replace("## Feedback", "## Notes") + "\n"
    new = make_memory("reference_grafana.md", mtype="reference", description="Dashboards")

    plan = rebuild(text, tidy_memories() + [new])

    assert lines_of(plan.text)[5] == "- [Grafana](reference_grafana.md) — Dashboards"


def test_memory_without_type_in_an_index_with_no_pointers_is_appended_after_a_blank() -> None:
    plan = rebuild("# Index\n", [make_memory("loose.md", mtype=None, description="Untyped")])

    assert lines_of(plan.text) == ["# Index", "", "- [loose](loose.md) — Untyped"]
    assert plan.added == ("loose.md",)


def test_added_memories_of_one_type_share_one_new_heading() -> None:
    memories = [
        make_memory("b.md", mtype="reference"),
        make_memory("a.md", mtype="reference"),
    ]

    plan = rebuild("", memories)

    assert lines_of(plan.text) == [
        "# Memory index", "", "## Reference", "- [a](a.md)", "- [b](b.md)"
    ]
    assert plan.added == ("a.md", "b.md")


def test_added_memory_in_a_folder_or_with_spaces_gets_a_working_link() -> None:
    memories = [make_memory("sub/deep note.md", description="Nested")]

    plan = rebuild("", memories)

    pointers = [line for line in parse_index(plan.text) if line.kind == "pointer"]
    assert [p.target for p in pointers] == ["sub/deep note.md"]


def test_added_pointer_line_with_long_description_fits_the_line_limit() -> None:
    memory = make_memory("p.md", description="word " * 60)

    plan = rebuild("", [memory])

    pointers = [line for line in parse_index(plan.text) if line.kind == "pointer"]
    assert [p.target for p in pointers] == ["p.md"]
    assert len(pointers[0].text) <= 150
    assert plan.notes == {}


@pytest.mark.parametrize(
    "line",
    [
        "See [the release rule](project_release.md) before tagging.",
        "| Release | [rule](project_release.md) |",
        "- Tag on Thursday, see [rule](project_release.md)",
    ],
    ids=["sentence", "table", "list-item-sentence"],
)
def test_memory_linked_only_from_a_sentence_or_table_counts_as_indexed(line: str) -> None:
    text = f"## Project\n{line}\n"

    plan = rebuild(text, [make_memory("project_release.md")])

    assert plan.added == ()
    assert plan.changed is False
    assert plan.text == text


# --- over-long pointer lines ----------------------------------------------------------------

LONG_HOOK = " ".join(f"step{i}" for i in range(120))  # cut, it frees a pointer's room


def over_the_byte_limit(text: str, over: int = 1) -> str:
    """``text`` followed by a ``## Notes`` section of plain facts, so that the whole is
    25,000 + ``over`` bytes in well under 200 lines: over the byte limit only."""
    head = text + "\n## Notes\n"
    facts: list[str] = []
    while True:
        need = 25_000 + over - len((head + "".join(f + "\n" for f in facts)).encode("utf-8"))
        if need <= 0:
            break
        label = f"Fact {len(facts)}: "
        facts.append(label + "x" * max(min(140, need - len(label) - 1), 1))
    out = head + "".join(f + "\n" for f in facts)
    assert len(out.encode("utf-8")) == 25_000 + over
    assert out.count("\n") < 200
    return out


@pytest.mark.parametrize(
    ("line", "memories", "present"),
    [
        pytest.param(f"- [Release](project_release.md) — {LONG_HOOK}",
                     [make_memory("project_release.md")], (), id="long-hook"),
        pytest.param(f"- **[Release](project_release.md)** — {LONG_HOOK}",
                     [make_memory("project_release.md")], (), id="bold"),
        pytest.param("- [선호](user_lang.md) — " + "사용자는 한국어로 답변을 선호하며 " * 10,
                     [make_memory("user_lang.md", mtype="user")], (), id="korean"),
        pytest.param(f"- [{' '.join(f'title{i}' for i in range(30))}](a.md) — short hook",
                     [make_memory("a.md", description="Alpha")], (), id="long-title"),
        pytest.param(f"- [Daily log](daily_log.md) — {LONG_HOOK}", [], ("daily_log.md",),
                     id="not-a-memory"),
    ],
)
def test_over_long_pointer_line_within_the_limits_is_kept_as_it_is(
    line: str, memories: list[Memory], present: tuple[str, ...]
) -> None:
    text = f"## Project\n{line}\n"
    assert len(line) > 150

    plan = rebuild(text, memories, present=present)

    assert plan.changed is False
    assert plan.text == text
    assert (plan.over_limits, dict(plan.notes), plan.moved, plan.creates) == (False, {}, (), ())


def test_over_long_pointer_line_is_shortened_and_the_hook_goes_into_notes() -> None:
    text = over_the_byte_limit(f"## Project\n- [Release](project_release.md) — {LONG_HOOK}\n")
    memory = make_memory("project_release.md", description="Release day")

    plan = rebuild(text, [memory])

    assert plan.over_limits and plan.within_limits
    heading, pointer = parse_index(plan.text)[:2]
    assert heading.text == "## Project"
    assert pointer.kind == "pointer" and pointer.target == "project_release.md"
    assert len(pointer.text) <= 150
    assert pointer.text.startswith("- [Release](project_release.md) — step0 step1")
    assert pointer.text.endswith("…")
    assert list(plan.notes) == ["project_release.md"]
    assert plan.notes["project_release.md"] == (
        "Index note (moved from MEMORY.md): " + LONG_HOOK,
    )
    assert plan.moved == ("long hook of project_release.md -> project_release.md",)
    assert plan.creates == ()
    # Only the hook was cut: every other line is still there, as it was.
    assert lines_of(plan.text)[2:] == lines_of(text)[2:]
    assert_measured(plan)


def test_over_long_hook_the_memory_already_says_is_not_noted() -> None:
    text = over_the_byte_limit(f"- [Release](project_release.md) — {LONG_HOOK}\n")
    memory = make_memory("project_release.md", body=f"Full steps: {LONG_HOOK.upper()}.\n")

    plan = rebuild(text, [memory])

    assert plan.over_limits and plan.within_limits
    assert len(lines_of(plan.text)[0]) <= 150
    assert plan.notes == {}
    assert plan.moved == ("long hook of project_release.md: already in the memory, cut",)


@pytest.mark.parametrize(
    "prefix",
    [
        "- **[Release](project_release.md)** — ",
        "1. [Release](project_release.md): ",
        "* [Release](project_release.md); ",
    ],
)
def test_over_long_pointer_of_any_shape_is_shortened_keeping_its_link(prefix: str) -> None:
    text = over_the_byte_limit(prefix + LONG_HOOK + "\n")

    plan = rebuild(text, [make_memory("project_release.md")])

    pointer = parse_index(plan.text)[0]
    assert pointer.kind == "pointer" and pointer.target == "project_release.md"
    assert len(pointer.text) <= 150
    assert pointer.text.startswith(prefix)
    assert any(LONG_HOOK in note for note in plan.notes["project_release.md"])
    assert plan.within_limits


def test_over_long_cjk_hook_is_shortened_by_characters() -> None:
    hook = "사용자는 한국어로 답변을 선호하며 " * 10
    text = over_the_byte_limit(f"- [선호](user_lang.md) — {hook}\n")

    plan = rebuild(text, [make_memory("user_lang.md", mtype="user")])

    pointer = parse_index(plan.text)[0]
    assert len(pointer.text) <= 150
    assert len(pointer.text.encode("utf-8")) > 150  # characters, not bytes, are counted
    assert pointer.target == "user_lang.md"
    assert any(hook.strip() in note for note in plan.notes["user_lang.md"])
    assert plan.within_limits


def test_pointer_line_of_exactly_150_characters_is_left_alone() -> None:
    head = "- [Release](project_release.md) — "
    line = head + "x" * (150 - len(head))
    assert len(line) == 150

    plan = rebuild(line + "\n", [make_memory("project_release.md")])

    assert plan.changed is False
    assert plan.notes == {}


def test_pointer_line_of_151_characters_is_kept_within_limits_and_shortened_over_them() -> None:
    head = "- [Release](project_release.md) — "
    hook = "a" * 50 + " " + "b" * (150 - len(head) - 50)
    line = head + hook
    assert len(line) == 151

    within = rebuild(line + "\n", [make_memory("project_release.md")])
    over = rebuild(over_the_byte_limit(line + "\n"), [make_memory("project_release.md")])

    assert within.changed is False and within.text == line + "\n"
    assert over.changed and over.over_limits and over.within_limits
    assert len(lines_of(over.text)[0]) <= 150
    assert any(hook in note for note in over.notes["project_release.md"])


def test_long_plain_fact_is_not_shortened() -> None:
    text = "Fact: " + LONG_HOOK + "\n"

    plan = rebuild(text)

    assert plan.changed is False
    assert plan.text == text


def test_over_long_hook_of_a_file_that_is_not_a_memory_is_kept_in_a_topic() -> None:
    line = f"- [Daily log](daily_log.md) — {LONG_HOOK}"
    text = over_the_byte_limit(line + "\n")

    plan = rebuild(text, present={"daily_log.md"}, index_mtime_ns=BASE_NS + 7)

    # The file is not a memory, so the cut hook cannot go into it: a topic memory the index
    # points to holds it.
    [topic] = plan.creates
    pointer = parse_index(plan.text)[0]
    assert pointer.target == "daily_log.md" and len(pointer.text) <= 150
    assert LONG_HOOK in topic.text
    assert topic.file in pointer_targets(plan.text)
    assert topic.file != "daily_log.md"
    assert plan.notes == {}
    assert plan.within_limits
    assert_topics_are_sound(plan, [], index_mtime_ns=BASE_NS + 7)


# --- the line limit --------------------------------------------------------------------------


def sectioned_index(sections: int, per_section: int) -> tuple[list[str], list[Memory]]:
    """``## Section k`` headings, each over pointer lines to its own memories."""
    lines: list[str] = []
    memories: list[Memory] = []
    for s in range(sections):
        lines.append(f"## Section {s}")
        for j in range(per_section):
            k = s * per_section + j
            lines.append(f"- [Memory {k}](m{k:03d}.md) — what memory {k} says")
            memories.append(make_memory(f"m{k:03d}.md", mtime_ns=BASE_NS + k * DAY_NS))
    return lines, memories


def test_index_of_exactly_200_lines_is_left_untouched() -> None:
    lines, memories = sectioned_index(4, 49)
    text = "\n".join(lines) + "\n"
    assert len(lines) == 200

    plan = rebuild(text, memories)

    assert plan.changed is False
    assert plan.text == text
    assert (plan.lines, plan.within_limits, plan.creates) == (200, True, ())


def test_index_of_201_lines_is_fitted_by_moving_the_bottom_section() -> None:
    lines, memories = sectioned_index(4, 49)
    lines.append("Releases happen on Thursday.")
    text = "\n".join(lines) + "\n"

    plan = rebuild(text, memories)

    assert plan.changed
    assert plan.within_limits and plan.lines <= 200
    assert_measured(plan)
    [topic] = plan.creates
    moved = lines[151:]
    assert lines_of(plan.text)[:151] == lines[:151]
    assert all(line in topic.text.splitlines() for line in moved)
    assert topic.file in pointer_targets(plan.text)
    assert topic.mtime_ns == BASE_NS + 195 * DAY_NS
    assert_topics_are_sound(plan, memories)
    assert plan.dropped == ()


def test_fitting_moves_whole_sections_bottom_first_until_the_index_fits() -> None:
    lines, memories = sectioned_index(6, 45)  # 276 lines

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.within_limits
    assert len(plan.creates) == 2
    assert [t.file for t in plan.creates] == ["index_section_5.md", "index_section_4.md"]
    kept = lines_of(plan.text)
    assert kept[: 4 * 46] == lines[: 4 * 46]
    assert "## Section 4" in kept and "## Section 5" in kept
    for topic in plan.creates:
        assert topic.file in pointer_targets(plan.text)
    by_file = {t.file: t for t in plan.creates}
    assert set(lines[5 * 46 + 1 :]) <= set(by_file["index_section_5.md"].text.splitlines())
    assert set(lines[4 * 46 + 1 : 5 * 46]) <= set(by_file["index_section_4.md"].text.splitlines())
    assert by_file["index_section_5.md"].mtime_ns == BASE_NS + 269 * DAY_NS
    assert by_file["index_section_4.md"].mtime_ns == BASE_NS + 224 * DAY_NS
    assert_topics_are_sound(plan, memories)
    assert_measured(plan)


def test_fitting_moves_the_least_used_sections_first() -> None:
    """Sessions were seen opening the memories of the bottom sections, not those of sections
    1 and 2: those two move instead (the first section is pinned); usage only orders what
    moves, it never keeps an index over its limits."""
    lines, memories = sectioned_index(6, 45)
    used = {f"m{k:03d}.md" for k in range(3 * 45, 6 * 45)}

    plan = rebuild("\n".join(lines) + "\n", memories, scope=ALL, used=used)

    assert plan.within_limits
    assert sorted(t.file for t in plan.creates) == ["index_section_1.md", "index_section_2.md"]
    kept = lines_of(plan.text)
    assert "## Section 5" in kept and "- [Memory 269](m269.md) — what memory 269 says" in kept
    assert_topics_are_sound(plan, memories)


def test_topic_memory_takes_the_newest_mtime_even_when_it_is_not_the_last_line() -> None:
    lines, memories = sectioned_index(5, 45)
    newest = make_memory("m200.md", mtime_ns=BASE_NS + 999 * DAY_NS)
    lines.insert(4 * 46 + 1, "- [Newest](m200.md) — newest of all")

    plan = rebuild("\n".join(lines) + "\n", memories + [newest])

    [topic] = plan.creates
    assert "m200.md" in topic.sources
    assert topic.mtime_ns == BASE_NS + 999 * DAY_NS


def test_topic_of_facts_only_takes_the_index_mtime() -> None:
    lines = ["# Facts"] + [f"Fact number {i}." for i in range(150)]
    lines += ["## More facts"] + [f"Another fact {i}." for i in range(100)]

    plan = rebuild("\n".join(lines) + "\n", index_mtime_ns=BASE_NS + 42)

    [topic] = plan.creates
    assert topic.sources == ()
    assert topic.mtime_ns == BASE_NS + 42
    assert_topics_are_sound(plan, [], index_mtime_ns=BASE_NS + 42)


def test_topic_file_name_does_not_reuse_a_present_file() -> None:
    lines, memories = sectioned_index(4, 49)
    lines.append("One line too many.")

    plan = rebuild("\n".join(lines) + "\n", memories, present={"index_section_3.md"})

    [topic] = plan.creates
    assert topic.file == "index_section_3_2.md"


def test_topic_memory_of_a_crlf_index_uses_crlf_and_still_parses() -> None:
    lines, memories = sectioned_index(4, 49)
    lines.append("One line too many.")

    plan = rebuild("\r\n".join(lines) + "\r\n", memories, newline="\r\n")

    [topic] = plan.creates
    assert "\r\n" in topic.text and "\n" not in topic.text.replace("\r\n", "")
    assert "\n" not in plan.text.replace("\r\n", "")
    assert_topics_are_sound(plan, memories)


def test_index_without_headings_and_300_pointers_moves_its_tail() -> None:
    memories = [make_memory(f"m{i:03d}.md", mtime_ns=BASE_NS + i) for i in range(300)]
    lines = [f"- [M{i}](m{i:03d}.md) — memory {i}" for i in range(300)]

    plan = rebuild("\n".join(lines) + "\n", memories)

    assert plan.within_limits and plan.lines <= 200
    [topic] = plan.creates
    kept = lines_of(plan.text)
    # The head stays as it was; a blank line, then the pointer to the rest.
    assert kept[:-2] == lines[: len(kept) - 2]
    assert kept[-2] == ""
    assert classify(kept[-1]).kind == "pointer" and classify(kept[-1]).target == topic.file
    moved = lines[len(kept) - 2 :]
    topic_lines = topic.text.splitlines()
    assert all(line in topic_lines for line in moved)
    assert topic.mtime_ns == BASE_NS + 299
    assert plan.added == () and plan.dropped == ()
    assert_topics_are_sound(plan, memories)
    assert_measured(plan)


def test_blank_lines_are_collapsed_first_when_that_is_enough() -> None:
    lines, memories = sectioned_index(4, 45)  # 184 lines
    spaced: list[str] = []
    for line in lines:
        spaced.append(line)
        if line.startswith("## "):
            spaced += ["", "", ""]
    spaced += [""] * 10
    assert len(spaced) > 200

    plan = rebuild("\n".join(spaced) + "\n", memories)

    assert plan.within_limits
    assert plan.creates == ()
    assert [line for line in lines_of(plan.text) if line] == lines


# --- the byte limit --------------------------------------------------------------------------


def facts_index(total_bytes: int) -> str:
    """Two sections of plain facts (no memories needed), exactly ``total_bytes`` long."""
    lines = ["# Notes"] + [f"Fact {i}: " + "x" * 120 for i in range(90)]
    lines += ["## More notes"] + [f"Fact b{i}: " + "y" * 120 for i in range(80)]
    short = total_bytes - len(("\n".join(lines) + "\n").encode("utf-8"))
    assert short > 0
    lines[-1] += "z" * short
    text = "\n".join(lines) + "\n"
    assert len(text.encode("utf-8")) == total_bytes
    return text


def test_index_of_exactly_25000_bytes_is_left_untouched() -> None:
    text = facts_index(25_000)

    plan = rebuild(text)

    assert plan.changed is False
    assert plan.text == text
    assert (plan.bytes, plan.within_limits) == (25_000, True)


def test_index_of_25001_bytes_is_fitted() -> None:
    text = facts_index(25_001)

    plan = rebuild(text)

    assert plan.changed
    assert plan.within_limits and plan.bytes <= 25_000
    assert_measured(plan)
    [topic] = plan.creates
    original = lines_of(text)
    more = original.index("## More notes")
    assert lines_of(plan.text)[: more + 1] == original[: more + 1]
    assert all(line in topic.text.splitlines() for line in original[more + 1 :])
    assert topic.file in pointer_targets(plan.text)


@pytest.mark.parametrize(
    ("heading", "fact"),
    [("# 메모", "한국어 사실 " + "가" * 95), ("# 备忘", "中文事实 " + "字" * 95)],
    ids=["korean", "chinese"],
)
def test_cjk_index_is_measured_in_utf8_bytes_not_characters(heading: str, fact: str) -> None:
    lines = [heading, "## 첫째"] + [f"{fact} {i}" for i in range(40)]
    lines += ["## 둘째"] + [f"{fact} {i}" for i in range(50)]
    text = "\n".join(lines) + "\n"
    assert len(text) < 25_000 < len(text.encode("utf-8"))
    assert len(lines) < 200

    plan = rebuild(text)

    assert plan.changed
    assert plan.within_limits and plan.bytes <= 25_000
    assert_measured(plan)
    assert plan.creates
    topic_lines = {line for topic in plan.creates for line in topic.text.splitlines()}
    for line in lines:
        assert line in lines_of(plan.text) or line in topic_lines
    for topic in plan.creates:
        frontmatter.parse(topic.text.encode("utf-8"))
        assert topic.file in pointer_targets(plan.text)
    # The topic is named after the section it holds, in that heading's own script.
    assert [t.file for t in plan.creates] == ["index_둘째.md"]


def test_custom_limits_are_honoured() -> None:
    lines, memories = sectioned_index(3, 5)
    limits = Limits(max_lines=10, max_bytes=10_000, max_line_chars=150)

    plan = rebuild("\n".join(lines) + "\n", memories, limits=limits)

    assert plan.within_limits and plan.lines <= 10
    assert_measured(plan, limits)


# --- known bugs ---------------------------------------------------------------------------


def test_shortening_a_hook_keeps_other_memories_it_links_reachable() -> None:
    memories = [make_memory("a.md", description="Alpha"), make_memory("b.md", description="Beta")]
    text = "- [A](a.md) — see also " + "word " * 30 + "and [B](b.md) for details\n"

    plan = rebuild(text, memories)

    assert "b.md" in index_targets(plan.text) or "b.md" in plan.added


def test_dropping_a_dangling_pointer_keeps_other_memories_it_links_reachable() -> None:
    text = "- [Old](gone.md) — superseded by [B](b.md)\n"

    plan = rebuild(text, [make_memory("b.md", description="Beta")])

    assert plan.removed == ("gone.md",)
    assert "b.md" in index_targets(plan.text) or "b.md" in plan.added


@pytest.mark.parametrize(("topic_line", "reached"), [
    ("- See `project_stack.md` — the whole stack", True),  # a moved "See x.md" line
    ("- [Stack](project_stack.md) — the whole stack", True),
    ("- The stack notes are kept elsewhere.", False),
])
def test_a_memory_a_topic_memory_names_by_path_needs_no_pointer_of_its_own(
    topic_line: str, reached: bool
) -> None:
    topic = make_memory("index_portal.md", description="lines moved from MEMORY.md",
                        body=f"{topic_line}\n")
    stack = make_memory("project_stack.md", description="The stack")

    plan = rebuild("- [Portal](index_portal.md) — moved lines\n", [topic, stack])

    assert plan.added == (() if reached else ("project_stack.md",))


@pytest.mark.parametrize(("line", "reached"), [
    ("- Alerts: details in `memory/project_alerts.md`", True),  # from the project's folder
    ("- Alerts: details in `.claude/memory/project_alerts.md`", True),
    ("- Alerts: details in `project_alerts.md`", True),
    ("- Alerts: details in `docs/project_alerts.md`", False),  # another folder's file
    ("- Alerts: details in `notmemory/project_alerts.md`", False),
])
def test_an_index_line_naming_a_memory_by_a_path_through_the_roots_folder_reaches_it(
    line: str, reached: bool
) -> None:
    alerts = make_memory("project_alerts.md", description="Alert routing")

    plan = rebuild(f"{line}\n", [alerts], root_name="memory")

    assert plan.added == (() if reached else ("project_alerts.md",))


def test_added_pointer_for_a_memory_with_a_very_long_name_still_links_to_it() -> None:
    plan = rebuild("", [make_memory("a.md", name="n" * 200)])

    assert plan.added == ("a.md",)
    assert "a.md" in pointer_targets(plan.text)


def test_cut_words_of_an_over_long_link_title_are_kept_in_notes() -> None:
    title = " ".join(f"title{i}" for i in range(30))
    text = over_the_byte_limit(f"- [{title}](a.md) — short hook\n")

    plan = rebuild(text, [make_memory("a.md", description="Alpha")])

    assert plan.over_limits and plan.within_limits
    assert len(lines_of(plan.text)[0]) <= 150
    kept = _words(lines_of(plan.text)[0]) | _words(" ".join(plan.notes.get("a.md", ())))
    assert _words(title) <= kept


def test_tail_topic_takes_the_newest_mtime_of_the_topic_memories_it_lists() -> None:
    memories = [make_memory(f"p{i:03d}.md", mtime_ns=BASE_NS + i) for i in range(250)]
    memories += [make_memory(f"s{i}.md", mtime_ns=BASE_NS + 9000 + i) for i in range(10)]
    lines = [f"- [P{i}](p{i:03d}.md)" for i in range(250)]
    lines += ["## Late"] + [f"- [S{i}](s{i}.md)" for i in range(10)]

    plan = rebuild("\n".join(lines) + "\n", memories)

    mtimes = {m.file: m.stat.mtime_ns for m in memories}
    mtimes.update({t.file: t.mtime_ns for t in plan.creates})
    assert len(plan.creates) == 2
    for topic in plan.creates:
        assert topic.mtime_ns == max(mtimes[s] for s in topic.sources)


# --- the whole rebuild, over random indexes ---------------------------------------------------

_WORDS = st.text(
    st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789가나다라마바사아자차中文字日本語"),
    min_size=1,
    max_size=9,
)
_PHRASE = st.lists(_WORDS, min_size=1, max_size=8).map(" ".join)
_LONG_PHRASE = st.lists(_WORDS, min_size=20, max_size=45).map(" ".join)
_TYPES = st.sampled_from(["user", "feedback", "project", "reference", None])


@st.composite
def memory_sets(draw: st.DrawFn) -> list[Memory]:
    count = draw(st.integers(0, 10))
    memories = []
    for i in range(count):
        stem = draw(st.sampled_from([f"mem_{i}", f"노트_{i}", f"note {i}", f"sub/m{i}"]))
        memories.append(
            make_memory(
                f"{stem}.md",
                name=f"memory_{i}",
                description=draw(st.one_of(st.none(), _PHRASE)),
                mtype=draw(_TYPES),
                body=draw(st.one_of(_PHRASE, _LONG_PHRASE)) + "\n",
                mtime_ns=BASE_NS + draw(st.integers(0, 10**6)) * 10**9,
            )
        )
    return memories


@st.composite
def index_lines(draw: st.DrawFn, files: list[str]) -> list[str]:
    """Random index lines of every kind; pointer hooks and titles hold no links."""
    from consolidator.index.parse import link_path

    targets = files + ["daily_log.md"]
    kinds = ["heading", "fact", "blank", "table", "sentence", "dangling", "cjk"]
    if targets:
        kinds += ["pointer", "pointer", "pointer", "long_pointer"]
    lines = []
    for _ in range(draw(st.integers(0, 70))):
        kind = draw(st.sampled_from(kinds))
        if kind == "heading":
            lines.append("#" * draw(st.integers(1, 4)) + " " + draw(_PHRASE))
        elif kind == "fact":
            lines.append("Fact " + draw(st.one_of(_PHRASE, _LONG_PHRASE)))
        elif kind == "cjk":
            lines.append("사실 " + "가나다라마바사中文字" * draw(st.integers(1, 30)))
        elif kind == "blank":
            lines.append("")
        elif kind == "table":
            lines.append(
                f"| {draw(_PHRASE)} | [t]({link_path(draw(st.sampled_from(targets + ['x.md'])))}) |"
            )
        elif kind == "sentence":
            target = link_path(draw(st.sampled_from(targets + ["x.md"])))
            lines.append(f"See [{draw(_WORDS)}]({target}) {draw(_PHRASE)}")
        elif kind == "dangling":
            lines.append(f"- [{draw(_WORDS)}](gone_{draw(st.integers(0, 3))}.md) — {draw(_PHRASE)}")
        else:
            marker = draw(st.sampled_from(["- ", "* ", "1. ", "- **"]))
            target = link_path(draw(st.sampled_from(targets)))
            link = f"{marker}[{draw(_WORDS)}]({target})" + ("**" if marker == "- **" else "")
            sep = draw(st.sampled_from([" — ", " – ", " - ", ": ", "; "]))
            hook = draw(_LONG_PHRASE if kind == "long_pointer" else _PHRASE)
            lines.append(link + sep + hook)
    return lines


def _words(text: str) -> set[str]:
    return set(re.sub(r"[\W_]+", " ", text.casefold()).split())


def _within_fixed_lines(lines: list[str], limits: Limits) -> list[str]:
    """``lines`` with headings and blank lines past a budget left out: an index made mostly of
    them is the case the small-index tests in test_index_shrink cover; here the property is
    about the lines between them. Room is kept for a fresh index's type headings and the
    pointers to topic memories."""
    budget = max(min((limits.max_lines - 13) // 3, limits.max_bytes // 1500), 1)
    out = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            if budget == 0:
                continue
            budget -= 1
        out.append(line)
    return out


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rebuild_keeps_every_line_somewhere_and_fits_the_limits(data: st.DataObject) -> None:
    memories = data.draw(memory_sets())
    live = {m.file: m for m in memories}
    limits = data.draw(
        st.one_of(
            st.just(Limits()),
            st.builds(Limits, max_lines=st.integers(24, 60), max_bytes=st.integers(2000, 6000)),
        )
    )
    lines = _within_fixed_lines(data.draw(index_lines(sorted(live))), limits)
    newline = data.draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines) + newline if lines else ""
    index_mtime = BASE_NS - DAY_NS
    redirects = data.draw(
        st.dictionaries(
            st.sampled_from([f"gone_{k}.md" for k in range(4)]),
            st.sampled_from(sorted(live)),
            max_size=2,
        )
        if live
        else st.just({})
    )
    present = set(live) | {"daily_log.md"}

    plan = plan_index(
        text,
        memories,
        present=present,
        redirects=redirects,
        index_mtime_ns=index_mtime,
        limits=limits,
        newline=newline,
    )

    for label, happened in [
        ("topic created", plan.creates),
        ("hook noted", plan.notes),
        ("pointer removed", plan.removed),
        ("pointer unlinked", plan.unlinked),
        ("pointer repointed", plan.repointed),
        ("memory added", plan.added),
        ("over the limits", plan.over_limits),
    ]:
        if happened:
            event(label)

    # The result fits, or says why not (pinned lines never move); a memory with no room is
    # named, never dropped silently.
    assert all(d.endswith(".md") for d in plan.dropped)  # file names, no remark
    assert plan.within_limits or plan.why
    assert_measured(plan, limits)
    if not plan.changed:
        assert plan.text == text
    result = lines_of(plan.text)
    topics = {t.file: t for t in plan.creates}

    # The lines the rebuild writes itself (pointers to added memories and to topic
    # memories) keep to the pointer-line limit; the user's own lines are not cut for length
    # unless the index is over its limits.
    new_files = set(plan.added) | set(topics)
    for line in parse_index(plan.text):
        if line.kind == "pointer" and line.target in new_files:
            assert len(line.text) <= limits.max_line_chars

    # Within its limits, every line whose links all still resolve is kept as it is, in order.
    original = parse_index(text)
    if not plan.over_limits:
        assert all(t.file.startswith("index_memories_not_listed") for t in plan.creates)
        assert dict(plan.notes) == {}
        untouched = [line.text for line in original if set(line.targets) <= present]
        assert is_subsequence(untouched, result)

    # No pointer line points at a file that is not there (a hand-written sentence or table
    # may still name one: it is not this run's to change).
    assert set(pointer_targets(plan.text)) <= present | set(topics)

    # Topic memories are valid memories, as old as what they list.
    assert_topics_are_sound(plan, memories, index_mtime_ns=index_mtime)
    topic_lines = {line for topic in plan.creates for line in topic.text.splitlines()}

    # Every original line is still in the index, moved verbatim, unlinked (its words kept),
    # live elsewhere, or (a cut hook) noted.
    everywhere = " ".join(
        [m.description + " " + m.body for m in memories] + [line.text for line in original]
    )
    for line in original:
        if line.kind == "blank":
            continue
        candidates = [line.text]
        if line.kind == "pointer" and line.target not in present:
            renamed = [new for old, new in plan.repointed if old == line.target]
            candidates = [retarget(line.text, line.target or "", new) for new in renamed]
            candidates.append(unlink(line.text, {line.target or ""}, "missing"))
        if any(c in result or c in topic_lines for c in candidates):
            continue
        if line.kind == "pointer" and line.target in plan.removed:
            # Its words are live already (a memory or another line says them).
            assert _words(split_pointer(line.text)[2] or line.text) <= _words(everywhere)
            continue

        # A shortened line, or a second pointer to one file after repointing: its hook
        # (or, for a cut title, the whole line) went into the memory it describes, or into
        # a topic memory when the file is not a memory.
        def kept(moved: str) -> bool:
            parsed = classify(moved)
            if parsed.kind != "pointer":
                return False
            hook = split_pointer(moved)[2] or moved
            if parsed.target not in live:
                return hook in topic_lines or moved in topic_lines
            memory = live[parsed.target]
            noted = any(hook in note or moved in note for note in plan.notes.get(memory.file, ()))
            known = _words(hook) <= _words(f"{memory.name} {memory.description} {memory.body}")
            return noted or known

        assert any(kept(c) for c in candidates), candidates

    # Every live memory is still reachable from the index (directly or through a topic).
    reachable = set(index_targets(plan.text))
    frontier = [t for t in reachable if t in topics]
    while frontier:
        for target in index_targets(topics[frontier.pop()].text):
            if target not in reachable:
                reachable.add(target)
                if target in topics:
                    frontier.append(target)
    # ... but for memories named in ``dropped``: only where not even a pointer to their list
    # has room, with the room a pointer line may take (4 bytes a character, a blank before),
    # and, in an index this run did not fit, room for Claude Code's next pointer after it.
    assert set(live) - set(plan.dropped) <= reachable
    if plan.dropped:
        count, used = measure(plan.text)
        room = 0 if plan.over_limits else 1
        pointer = 4 * limits.max_line_chars + len(newline)
        assert count + 2 + room > limits.max_lines \
            or used + pointer + len(newline) + room * pointer > limits.max_bytes
    assert set(topics) <= reachable
    assert set(plan.added) <= set(live)



@pytest.mark.parametrize("continued", [
    "  Continued: alpha runs on host 3, ask Bob first.",  # indented
    "Continued: alpha runs on host 3, ask Bob first.",  # a paragraph's lazy continuation
    "  - sub-item: the staging copy of alpha",  # a sub-item
    "\n  A detail of alpha after a blank line.",  # a detail, below a blank line
])
def test_a_new_pointer_never_goes_between_a_list_item_and_the_lines_that_continue_it(
        continued: str) -> None:
    text = f"Notes on the services.\n- [A](project_a.md) — alpha\n{continued}\n"
    memories = [make_memory("project_a.md"), make_memory("project_b.md", description="beta")]

    plan = rebuild(text, memories)

    assert plan.added == ("project_b.md",)
    result = lines_of(plan.text)
    assert result[:len(text.splitlines())] == text.splitlines()  # in order, nothing between
    assert result[-1] == "- [B](project_b.md) — beta"


def test_two_lines_with_one_link_to_a_moved_file_report_the_file_once() -> None:
    # The report lists each file the run repointed or unlinked, not each line it changed.
    text = ("# Memory\n\n- [Beta](beta.md) — notes\n- see [Beta](beta.md) again\n"
            "- [Gone](gone.md) — notes\n- also [Gone](gone.md)\n")
    memories = [make_memory("ab.md")]

    plan = rebuild(text, memories, redirects={"beta.md": "ab.md"}, archived={"gone.md"})

    assert plan.repointed == (("beta.md", "ab.md"),)
    assert plan.unlinked == (("gone.md", "archived"),)


@pytest.mark.parametrize(("redirects", "archived"), [
    ({"beta.md": "alpha_longer.md"}, set()),
    ({}, {"beta.md"}),
])
@pytest.mark.parametrize("heading", ["### ![Beta](beta.md)", "### ![[Beta]]"])
def test_an_image_link_in_a_heading_keeps_its_words_without_the_image_mark(
        redirects: dict[str, str], archived: set[str], heading: str) -> None:
    memories = [make_memory("alpha.md"), make_memory("alpha_longer.md")]
    before = [make_memory("beta.md", name="Beta"), *memories]

    plan = rebuild(f"# Memory\n\n{heading}\nnotes\n", memories, redirects=redirects,
                   archived=archived, named=before)

    assert "### Beta" in lines_of(plan.text)
    assert "beta.md" not in index_targets(plan.text)


@pytest.mark.parametrize(("line", "want"), [
    ("- ![Beta](beta.md) notes", "- Beta (beta.md archived) notes"),
    ("- see![Beta](beta.md)", "- see Beta (beta.md archived)"),  # never glued to a word
    ("- \\![Beta](beta.md)", "- \\!Beta (beta.md archived)"),  # an escaped "!" is text
    ("- \\\\![Beta](beta.md)", "- \\\\Beta (beta.md archived)"),  # an escaped "\\" is not
    ("- 见![图](beta.md)说明", "- 见图 (beta.md archived)说明"),  # Chinese needs no space
])
def test_an_archived_image_link_in_a_line_keeps_its_words_and_mark_without_the_image_mark(
        line: str, want: str) -> None:
    plan = rebuild(f"# Memory\n\n{line}\n", [make_memory("alpha.md")], archived={"beta.md"})

    assert want in lines_of(plan.text)


@pytest.mark.parametrize(("line", "reached"), [
    # A folder of daily logs named by the pattern of their names, in a table's row.
    ("| [memory/YYYY-MM-DD.md](./memory/) | daily progress | daily |",
     {"2026-02-23.md", "2026-02-24.md"}),
    ("- Topics live in `notes/<topic>.md`", {"notes/deploy.md"}),
    ("- **notes/*.md** — one note per topic", {"notes/deploy.md"}),
    # A convention for a kind of memory, or a word for memories in general, lists none.
    ("- Naming: `feedback_*.md` for corrections, `session-*.md` for sessions", set()),
    ("- Every memory is a `*.md` file with frontmatter", set()),
    ("- Each lives in `memory/<name>.md`", set()),
    ("- Daily logs: `{YYYY}-{MM}-{DD}.md`", {"2026-02-23.md", "2026-02-24.md"}),
    # A convention with more than one wildcard, or the end of a Windows path, lists none.
    ("- Notes: `notes/<area>-<topic>.md`", set()),
    ("- Backups: `C:\\logs\\YYYY-MM-DD.md`", set()),
    # Emphasis is no wildcard: a name in bold or italics names that memory alone.
    ("- **tasks.md** — current tasks", {"tasks.md"}),
    ("- *session-a.md* — the first session", {"session-a.md"}),
    ("- One note per topic: **notes/*.md**.", {"notes/deploy.md"}),
])
def test_a_pattern_of_file_names_in_the_index_reaches_the_memories_it_stands_for(
        line: str, reached: set[str]) -> None:
    files = ["2026-02-23.md", "2026-02-24.md", "session-a.md", "pre-session-a.md",
             "notes/deploy.md", "old-notes/x.md", "tasks.md", "old-tasks.md",
             "feedback_style.md"]
    text = f"# Memory\n\n| file | what | how often |\n|---|---|---|\n{line}\n" \
        if line.startswith("|") else f"# Memory\n\n{line}\n"

    plan = rebuild(text, [make_memory(f) for f in files], root_name="memory")

    assert set(plan.added) == set(files) - reached


@pytest.mark.parametrize("tail", [
    "*" * 100_000, "<a>" * 30_000, "a*" * 50_000, "**重点**x" * 5_000,
    "notes/" + "<a>" * 16 + "x.md", "notes/" + "*-" * 16 + "z.md",  # many wildcards
    " ".join(f"notes/*{n}.md" for n in range(5_000)),  # many patterns, one folder
])
def test_a_long_or_wild_line_is_read_in_linear_time(tail: str) -> None:
    # A pattern is looked for token by token, names at most one wildcard, and is matched
    # only against the memories of its own folder.
    memories = [make_memory("tasks.md"), make_memory("notes/" + "deploy-" * 10 + "x.md"),
                *(make_memory(f"notes/n{n}.md") for n in range(300))]
    started = time.perf_counter()
    rebuild(f"# Memory\n\n- see tasks.md {tail}\n", memories)
    assert time.perf_counter() - started < 5.0
