"""The index rebuild's steps, each on its own: fixing links, adding pointers, shrinking, and
the plan they add up to."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from consolidator.index.parse import IndexLine, classify, parse_index
from consolidator.index.rebuild import (
    Fitted,
    add_missing,
    assemble,
    plan_index,
    render,
    shrink,
)
from consolidator.index.relink import (
    Relinked,
    Targets,
    dead_links,
    drop_repeats,
    relink_lines,
    repoint,
    unlink_dead,
)
from consolidator.index.shrink import Fitter
from consolidator.index.window import Limits
from consolidator.store.model import Memory
from tests.unit.test_index_rebuild import make_memory

DROP = IndexLine("", "drop")


def texts(lines: Iterable[IndexLine]) -> list[str]:
    return [line.text for line in lines]


def live_of(*memories: Memory) -> dict[str, Memory]:
    return {m.file: m for m in memories}


def fitter(lines: list[IndexLine], memories: dict[str, Memory], limits: Limits) -> Fitter:
    return Fitter(lines, memories, None, limits, "\n", taken=set(), mtime_ns=0)


# --- step 1: repoint --------------------------------------------------------------------------


def test_repoint_points_every_link_to_a_merged_away_file_at_its_survivor() -> None:
    lines = parse_index("- [Old](old.md) — hook\nSee [old](old.md) and [new](new.md).\n")
    live = live_of(make_memory("new.md"))

    out, repointed = repoint(lines, Targets(live, {"new.md"}, {"old.md": "new.md"}, set()))

    assert texts(out) == ["- [Old](new.md) — hook", "See [old](new.md) and [new](new.md)."]
    assert out[0].kind == "pointer" and out[0].target == "new.md"
    assert repointed == [("old.md", "new.md"), ("old.md", "new.md")]


def test_repoint_finds_the_memory_a_pointer_to_a_renamed_file_means() -> None:
    lines = parse_index("- [Deploy rules](gone.md) — how we ship\n")
    live = live_of(make_memory("ops.md", name="Deploy Rules", description="other words"))

    out, repointed = repoint(lines, Targets(live, {"ops.md"}, {}, set()))

    assert texts(out) == ["- [Deploy rules](ops.md) — how we ship"]
    assert repointed == [("gone.md", "ops.md")]


def test_repoint_takes_no_memory_that_is_linked_already_nor_an_archived_target() -> None:
    lines = parse_index(
        "- [X](deploy.md) — a\n- [N](deploy_notes.md) — b\n- [Y](deploy.md) — c\n")
    live = live_of(make_memory("deploy_notes.md", name="zzz"))

    linked, repointed = repoint(lines, Targets(live, {"deploy_notes.md"}, {}, set()))
    archived, _ = repoint(lines[:1], Targets(live_of(make_memory("deploy_x.md")), set(), {},
                                             {"deploy.md"}))

    assert texts(linked) == texts(lines)
    assert repointed == []
    assert texts(archived) == texts(lines[:1])


def test_repoint_leaves_lines_without_moved_links_as_they_are() -> None:
    lines = parse_index("# Memory\n\n- [A](a.md) — hook\n")

    out, repointed = repoint(lines, Targets(live_of(make_memory("a.md")), {"a.md"}, {}, set()))

    assert out == lines
    assert repointed == []


# --- step 1: dead links -----------------------------------------------------------------------


def test_dead_links_are_a_pointers_own_missing_file_and_any_archived_link() -> None:
    lines = parse_index(
        "- [A](a.md) — hook\n"          # 0: present
        "- [B](b.md) — see [c](c.md)\n"  # 1: its own file is missing, c only mentioned
        "See [c](c.md) and [d](d.md).\n"  # 2: a sentence: only the archived d is dead
        "- [D](d.md)\n"                   # 3: archived
    )

    dead = dead_links(lines, {"a.md"}, {"d.md"})

    assert dead == {1: {"b.md"}, 2: {"d.md"}, 3: {"d.md"}}


# --- step 1: second pointers after a merge ---------------------------------------------------


def test_a_second_pointer_made_by_a_merge_is_marked_to_drop_when_the_memory_says_it() -> None:
    original = parse_index("- [A](a.md) — first\n- [B](b.md) — second words\n")
    merged = [original[0], classify("- [B](a.md) — second words")]
    says_it = live_of(make_memory("a.md", body="Second words. And more.\n"))
    silent = live_of(make_memory("a.md", body="Something else.\n"))

    out, removed = drop_repeats(merged, original, says_it, {})
    kept, kept_removed = drop_repeats(merged, original, silent, {})

    assert out == [merged[0], DROP]
    assert removed == ["a.md"]
    assert kept == merged
    assert kept_removed == []


def test_a_second_pointer_the_user_wrote_or_a_dead_one_is_never_a_repeat() -> None:
    lines = parse_index("- [A](a.md) — Body text\n- [A again](a.md) — Body text\n")
    live = live_of(make_memory("a.md"))

    unchanged, removed = drop_repeats(lines, lines, live, {})
    merged = [lines[0], classify("- [X](a.md) — Body text")]
    dead_first, dead_removed = drop_repeats(merged, lines, live, {0: {"a.md"}})

    assert (unchanged, removed) == (lines, [])
    assert (dead_first, dead_removed) == (merged, [])


# --- step 1: dead links to plain text ---------------------------------------------------------


def test_unlink_dead_keeps_a_dead_pointers_words_marked_and_names_the_file() -> None:
    lines = parse_index("- [Gone](gone.md) — unique words here\nSee [old](old.md).\n")
    dead = {0: {"gone.md"}, 1: {"old.md"}}

    out, removed, unlinked = unlink_dead(lines, lines, {}, dead, {"old.md"})

    assert texts(out) == ["- Gone (gone.md missing) — unique words here",
                          "See old (old.md archived)."]
    assert all(line.targets == () for line in out)
    assert removed == ["gone.md"]
    assert unlinked == [("gone.md", "missing"), ("old.md", "archived")]


def test_unlink_dead_marks_to_drop_a_dead_pointer_whose_words_are_live_elsewhere() -> None:
    lines = parse_index("- [Gone](gone.md) — tabs not spaces\n")
    live = live_of(make_memory("style.md", body="Tabs, not spaces.\n"))

    out, removed, unlinked = unlink_dead(lines, lines, live, {0: {"gone.md"}}, set())

    assert out == [DROP]
    assert removed == ["gone.md"]
    assert unlinked == []


def test_unlink_dead_with_nothing_dead_changes_nothing() -> None:
    lines = parse_index("- [A](a.md) — hook\n")

    assert unlink_dead(lines, lines, {}, {}, set()) == (lines, [], [])


def test_relink_lines_runs_the_link_steps_and_leaves_out_what_they_dropped() -> None:
    original = parse_index(
        "- [A](a.md) — first\n"
        "- [B](b.md) — second words\n"
        "- [Gone](gone.md) — lost words\n"
        "- [C](c.md) — third\n"
    )
    live = live_of(make_memory("a.md", body="Second words.\n"), make_memory("c.md"))

    relinked = relink_lines(original, Targets(live, {"a.md", "c.md"}, {"b.md": "a.md"}, set()))

    assert relinked == Relinked(
        lines=(original[0], classify("- Gone (gone.md missing) — lost words"), original[3]),
        removed=("a.md", "gone.md"),
        repointed=(("b.md", "a.md"),),
        unlinked=(("gone.md", "missing"),),
        origin=(0, 2, 3),
        missing=("gone.md",),  # b.md is merged away by this run: not missing before it
    )


def test_the_safe_scope_repoints_a_second_pointer_to_a_survivor_and_keeps_it() -> None:
    # Dropping it would take a line Claude Code loads out of the index: a judgment.
    original = parse_index("- [A](a.md) — first\n- [B](b.md) — second words\n")
    live = live_of(make_memory("a.md", body="Second words.\n"))

    safe = relink_lines(original, Targets(live, {"a.md"}, {"b.md": "a.md"}, set(), guess=False))
    judged = relink_lines(original, Targets(live, {"a.md"}, {"b.md": "a.md"}, set()))

    assert [line.text for line in safe.lines] == ["- [A](a.md) — first",
                                                   "- [B](a.md) — second words"]
    assert safe.removed == ()
    assert [line.text for line in judged.lines] == ["- [A](a.md) — first"]


# --- step 2: pointers for memories that have none ---------------------------------------------


def test_add_missing_adds_a_pointer_for_each_memory_the_index_does_not_reach() -> None:
    lines = parse_index("## Project\n- [A](a.md) — hook\n")
    live = live_of(make_memory("a.md"), make_memory("c.md"), make_memory("b.md"))

    out, added, left = add_missing(lines, live, Limits())

    assert added == ["b.md", "c.md"] and left == []
    assert [line.target for line in out if line.target] == ["a.md", "b.md", "c.md"]


def test_add_missing_counts_a_memory_a_listed_topic_memory_lists_as_reached() -> None:
    topic = make_memory("index_notes.md", body="- [B](b.md) — listed here\n")
    lines = parse_index("- [Notes](index_notes.md) — more\n")
    live = live_of(topic, make_memory("b.md"))

    out, added, left = add_missing(lines, live, Limits())

    assert (out, added, left) == (lines, [], [])


def test_add_missing_counts_a_memory_a_users_own_list_memory_links_as_reached() -> None:
    dormant = make_memory("memory_archive_dormant.md",
                          body="- [B](b.md) — parked\n- see [[c]] too\n")
    lines = parse_index("- [Dormant](memory_archive_dormant.md) — parked memories\n")
    live = live_of(dormant, make_memory("b.md"), make_memory("c.md"), make_memory("d.md"))

    out, added, left = add_missing(lines, live, Limits())

    assert added == ["d.md"] and left == []


def test_a_memory_only_mentioned_in_passing_by_another_still_gets_a_pointer() -> None:
    """A status note that says "(see [[rule]])" in a sentence lists nothing: the rule would
    stay out of the index, which is all a session loads."""
    status = make_memory("project_status.md",
                         body="Deploys are green again (see [[feedback_approval_gate]]).\n"
                              "The eval runs nightly; [[feedback_run_eval]] says when.\n")
    lines = parse_index("- [Status](project_status.md) — where things stand\n")
    live = live_of(status, make_memory("feedback_approval_gate.md"),
                   make_memory("feedback_run_eval.md"))

    out, added, left = add_missing(lines, live, Limits())

    assert added == ["feedback_approval_gate.md", "feedback_run_eval.md"] and left == []


def test_add_missing_counts_a_memory_a_line_names_by_its_path_as_reached() -> None:
    # Archived memories listed as paths in code, not links: a pointer of ours would list
    # them a second time, in a section that says they are current.
    lines = parse_index("## Rules\n- [A](a.md) — must read\n\n## Archived (history only)\n"
                        "- `_archived/old-plan.md` — replaced in August\n"
                        "- ./_archived/survey.md (kept for reference)\n")
    live = live_of(make_memory("a.md"), make_memory("_archived/old-plan.md"),
                   make_memory("_archived/survey.md"), make_memory("b.md"))

    out, added, left = add_missing(lines, live, Limits())

    assert added == ["b.md"] and left == []
    assert sum("_archived/" in line.text for line in out) == 2


def test_add_missing_adds_pointers_only_while_the_index_stays_within_its_limits() -> None:
    lines = parse_index("## Project\n- [A](a.md) — hook\n")
    live = live_of(make_memory("a.md"), *(make_memory(f"m{i}.md") for i in range(5)))

    out, added, left = add_missing(lines, live, Limits(max_lines=5))

    assert len(out) <= 4  # one line stays free for the pointer to the rest
    assert len(added) + len(left) == 5 and left


@pytest.mark.parametrize(("max_lines", "bytes_left", "added"), [
    # Lines: 2 now, a pointer makes 3; Claude Code's next pointer needs a fourth.
    (4, 25000, True),
    (3, 25000, False),
    # Bytes: the new pointer's 12, and 601 for the next pointer line, which may take 4 bytes
    # a character whatever it says, and its newline.
    (200, 12 + 601, True),
    (200, 12 + 600, False),
])
def test_a_new_pointer_leaves_room_for_the_pointer_claude_code_writes_next(
    max_lines: int, bytes_left: int, added: bool
) -> None:
    # Since 2.1.210 a memory write that leaves MEMORY.md over its limits fails: an index
    # filled to the last line or byte would break the next session's first memory write.
    lines = parse_index("## Project\n- [A](a.md) — a hook of some words\n")
    used = sum(len(line.text.encode()) + 1 for line in lines)
    live = live_of(make_memory("a.md"), make_memory("b.md", name="B", description="b"))

    out, got, left = add_missing(lines, live, Limits(max_lines, used + bytes_left))

    assert got == (["b.md"] if added else [])
    assert [m.file for m in left] == ([] if added else ["b.md"])
    assert texts(out)[2:] == (["- [B](b.md)"] if added else [])  # 12 bytes with its newline


@pytest.mark.parametrize(("kept", "listed"), [(197, True), (198, False)])
def test_the_pointer_to_the_list_of_the_rest_leaves_room_for_claude_codes_next_one_too(
    kept: int, listed: bool
) -> None:
    # 197 lines: a blank line and the list's pointer make 199, one left for Claude Code.
    # 198: the list's pointer would fill the index to its last line: one pointer goes in
    # (199 lines, feedback and user memories, then the newest, first), the rest are named.
    old = [make_memory(f"k{i:03d}.md") for i in range(kept)]
    new = [make_memory(f"new_{i}.md") for i in range(5)]
    text = "".join(f"- [K{i}](k{i:03d}.md) — kept\n" for i in range(kept))

    plan = plan_index(text, old + new, present={m.file for m in old + new}, limits=Limits())

    assert plan.within_limits and not plan.over_limits
    assert text.splitlines() == plan.text.splitlines()[:kept]  # every line kept, in order
    if listed:
        assert plan.dropped == () and len(plan.creates) == 1
        assert len(plan.text.splitlines()) == 199
    else:
        assert plan.creates == () and len(plan.added) == 1
        assert sorted([*plan.dropped, *plan.added]) == [m.file for m in new]
        assert plan.text.splitlines()[:kept] == text.splitlines()
        assert len(plan.text.splitlines()) == 199


def test_blank_lines_at_the_end_do_not_hide_what_the_list_pointer_costs() -> None:
    # 197 lines and two blank lines Claude Code does not count: a pointer after them would
    # make them count. One is kept, then the list's pointer: 199 lines, room for one more.
    old = [make_memory(f"k{i:03d}.md") for i in range(197)]
    new = [make_memory(f"new_{i}.md") for i in range(4)]
    text = "".join(f"- [K{i}](k{i:03d}.md) — kept\n" for i in range(197)) + "\n\n"

    plan = plan_index(text, old + new, present={m.file for m in old + new}, limits=Limits())

    assert plan.dropped == () and len(plan.creates) == 1
    assert plan.lines == 199 and not plan.full


def test_the_list_pointer_goes_after_the_last_counted_line_not_after_a_closing_comment() -> None:
    # Blank lines and a comment at the end count for nothing; a pointer after them would make
    # the blank lines count. It goes after the last line Claude Code counts instead.
    old = [make_memory(f"k{i:03d}.md") for i in range(196)]
    new = [make_memory(f"new_{i}.md") for i in range(6)]
    text = "".join(f"- [K{i}](k{i:03d}.md) — kept\n" for i in range(196)) \
        + "\n" * 5 + "<!-- end of index -->\n"

    plan = plan_index(text, old + new, present={m.file for m in old + new}, limits=Limits())

    assert plan.lines <= 199 and not plan.full and plan.within_limits
    assert sorted([*plan.added, *plan.listed, *plan.dropped]) == [m.file for m in new]
    assert plan.text.endswith("<!-- end of index -->\n")
    tail = plan.text.splitlines()
    assert tail[-7].startswith("- [Memories not listed in the index]")  # before the blanks


def test_the_list_an_earlier_run_made_takes_more_memories_at_no_cost_to_the_index() -> None:
    # 199 lines, the last one the pointer to the list an earlier run made: no room for any
    # new line, and none is needed: the list takes the new memories.
    listing = make_memory("index_memories_not_listed_in_the_index.md",
                          body="# Memories not listed in the index\n\n- [Old](old.md)\n")
    old = [make_memory(f"k{i:03d}.md") for i in range(197)] + [make_memory("old.md")]
    new = [make_memory(f"new_{i}.md") for i in range(3)]
    text = "".join(f"- [K{i}](k{i:03d}.md) — kept\n" for i in range(197)) \
        + "\n- [Memories not listed in the index](index_memories_not_listed_in_the_index.md)\n"
    everything = [listing, *old, *new]

    plan = plan_index(text, everything, present={m.file for m in everything}, limits=Limits())

    assert plan.text == text and plan.dropped == ()
    (topic,) = plan.creates
    assert topic.file == listing.file and topic.before == listing.stat  # extended
    assert all(f"({m.file})" in topic.text for m in [*new, make_memory("old.md")])
    assert topic.reason == "memories with no room in the index"


def test_a_fitted_index_gives_a_memory_a_pointer_of_its_own_rather_than_a_list_of_one() -> None:
    # Over its byte limit by long hooks: the fit shortens them and makes room for the list's
    # pointer; a memory's own pointer, shorter, takes that room instead.
    hook = ("notes on this part of the system, with the details of how it was set up, why, "
            "and what to check first when it breaks again next time")
    memories = [make_memory(f"topic_{i:03d}.md") for i in range(150)]
    text = "# Memory\n\n## Projects\n\n" + "".join(
        f"- [Topic {i}](topic_{i:03d}.md) — {hook} ({i})\n" for i in range(150))
    alone = make_memory("deploy.md", description="how we deploy to production")
    everything = [*memories, alone]

    plan = plan_index(text, everything, present={m.file for m in everything}, limits=Limits())

    assert plan.over_limits and plan.within_limits
    assert plan.added == ("deploy.md",) and plan.dropped == ()
    assert not any(t.reason == "memories with no room in the index" for t in plan.creates)


@pytest.mark.parametrize("around", [
    ("---\nkind: index\n---\n\n", ""),  # a blank line after the frontmatter
    ("\n\n\n", ""),  # blank lines at the top
    ("<!-- notes -->\n\n", ""),  # after a block comment
    ("", "\n\n"),  # blank lines at the end
])
def test_blank_lines_claude_code_trims_never_make_an_index_over(
    around: tuple[str, str]
) -> None:
    # 200 content lines: at the limit, within it, whatever blank lines stand around them.
    memories = [make_memory(f"k{i:03d}.md") for i in range(200)]
    lines = "".join(f"- [K{i}](k{i:03d}.md) — kept\n" for i in range(200))
    text = around[0] + lines + around[1]

    plan = plan_index(text, memories, present={m.file for m in memories}, limits=Limits())

    assert not plan.over_limits and plan.within_limits and plan.lines == 200
    assert plan.text == text and plan.creates == ()


def test_an_index_over_its_limits_gets_no_new_pointer() -> None:
    lines = parse_index("".join(f"- [A{i}](a{i}.md) — hook\n" for i in range(6)))
    live = live_of(*(make_memory(f"a{i}.md") for i in range(6)), make_memory("new.md"))

    out, added, left = add_missing(lines, live, Limits(max_lines=4))

    assert (out, added, [m.file for m in left]) == (lines, [], ["new.md"])


# --- step 3: shrinking ------------------------------------------------------------------------


def test_shrink_leaves_an_index_within_its_limits_alone() -> None:
    lines = parse_index("- [A](a.md) — hook\n")

    fitted = shrink(lines, live_of(make_memory("a.md")), editable=None, limits=Limits(),
                    newline="\n", taken=set(), mtime_ns=0)

    assert fitted == Fitted(lines=tuple(lines))


def test_shrink_moves_what_does_not_fit_into_a_topic_memory_and_says_it_was_over() -> None:
    memories = [make_memory(f"m{i}.md") for i in range(6)]
    lines = parse_index("".join(f"- [M{i}](m{i}.md) — fact {i}\n" for i in range(6)))
    taken = {"index_more_of_the_index.md"}

    fitted = shrink(lines, live_of(*memories), editable=None, limits=Limits(max_lines=4),
                    newline="\n", taken=taken, mtime_ns=0)

    assert fitted.over_limits is True
    assert len(fitted.lines) <= 4
    assert fitted.dropped == ()
    assert fitted.moved
    assert [t.file for t in fitted.creates] == ["index_more_of_the_index_2.md"]
    assert taken == {"index_more_of_the_index.md"}  # the caller's set is not written to


def test_a_limit_too_small_for_the_pinned_lines_keeps_every_line_and_says_why() -> None:
    lines = parse_index("# Rules\n- NEVER push to main\n- ALWAYS run the tests\n")
    fit = fitter(list(lines), {}, Limits(max_lines=1))

    fit.fit()

    assert fit.lines == lines
    assert fit.why and "pinned" in fit.why[0]


# --- step 5: the plan -------------------------------------------------------------------------


def test_render_keeps_an_unchanged_index_byte_for_byte() -> None:
    text = "# Index\r\n- [A](a.md) — hook"
    lines = parse_index(text)

    assert render(text, lines, lines, "\n") == (False, text)
    assert render(None, [], [], "\n") == (False, "")


def test_render_writes_changed_lines_with_the_index_newline() -> None:
    original = parse_index("# Index\r\n- [A](a.md)\r\n")
    changed = [original[0], classify("- [A](b.md)")]

    assert render("", original, changed, "\r\n") == (True, "# Index\r\n- [A](b.md)\r\n")
    assert render("x\n", parse_index("x\n"), [], "\n") == (True, "")


def test_render_keeps_each_kept_lines_own_ending_in_a_mixed_index() -> None:
    text = "# Index\r\n- [A](a.md)\n- [B](b.md)\r\n"
    original = parse_index(text)
    changed = [original[0], classify("- [A](c.md)"), original[2], classify("- [N](n.md)")]

    # Kept lines keep their endings; a changed or new line takes the index's newline.
    assert render(text, original, changed, "\r\n") == (
        True, "# Index\r\n- [A](c.md)\r\n- [B](b.md)\r\n- [N](n.md)\r\n")
    assert render(text, original, [original[2], original[1]], "\r\n") == (
        True, "- [B](b.md)\r\n- [A](a.md)\n")


def test_render_gives_up_kept_endings_that_would_take_the_next_pointers_room() -> None:
    # Mostly LF, one long CRLF line: kept, its CR would cost a byte the one ending would not,
    # in an index with no room left for Claude Code's next pointer.
    limits = Limits(max_lines=200, max_bytes=700)
    text = "- [A](a.md)\n- [B](b.md)\n" + "- " + "x" * 80 + "\r\n"
    original = parse_index(text)
    lines = [*original, classify("- [N](n.md)")]

    assert render(text, original, lines, "\n", limits)[1] == text.replace("\r", "") + \
        "- [N](n.md)\n"
    assert render(text, original, lines, "\n")[1] == text + "- [N](n.md)\n"


def test_assemble_measures_the_text_and_carries_what_each_step_did() -> None:
    original = parse_index("- [Old](old.md) — hook\n")
    relinked = Relinked(lines=(classify("- [Old](new.md) — hook"),),
                        repointed=(("old.md", "new.md"),))
    fitted = Fitted(lines=relinked.lines, moved=("a move",), notes={"new.md": ("note",)})

    plan = assemble("- [Old](old.md) — hook\n", original, relinked, ["x.md"], fitted,
                    Limits(max_lines=1, max_bytes=10), "\n")

    assert plan.text == "- [Old](new.md) — hook\n"
    assert plan.changed is True
    assert (plan.lines, plan.bytes) == (1, len(plan.text.encode()))
    assert plan.within_limits is False  # over the byte limit it was given
    assert plan.added == ("x.md",)
    assert plan.repointed == (("old.md", "new.md"),)
    assert plan.moved == ("a move",)
    assert dict(plan.notes) == {"new.md": ("note",)}


def test_plan_index_is_the_steps_in_order() -> None:
    text = "## Project\n- [Old](old.md) — hook\n- [Gone](gone.md) — lost words\n"
    memories = [make_memory("new.md"), make_memory("other.md")]
    live = live_of(*memories)
    present = set(live)
    limits = Limits()

    plan = plan_index(text, memories, present=present, redirects={"old.md": "new.md"})

    original = parse_index(text)
    relinked = relink_lines(original, Targets(live, present, {"old.md": "new.md"}, set()))
    lines, added, left = add_missing(relinked.lines, live, limits)
    fitted = shrink(lines, live, editable=None, limits=limits, newline="\n",
                    taken=present | {"MEMORY.md"}, mtime_ns=0, unlisted=left)
    assert plan == assemble(text, original, relinked, added, fitted, limits, "\n")
    assert plan.added == ("other.md",)
    assert plan.unlinked == (("gone.md", "missing"),)


def test_single_lines_moved_from_sections_that_stay_are_led_by_their_headings() -> None:
    """Lines moved one by one into "More of the index" keep the headings they stood under,
    as copies where the heading stays: a setting stays a setting of its own section there."""
    text = ("# Memory\n\n## Live trading config\n- 🚨 NEVER trade with real money on a test.\n"
            "- Max two trades at once.\n- Margin 25 percent.\n\n## Railway database\n"
            "- 🚨 NEVER drop a table by hand.\n- The database lives on Railway.\n")
    fit = fitter(parse_index(text), {}, Limits(max_lines=7))

    assert fit._lines(fit.marks())

    assert [line.text for line in fit.leftovers] == [
        "## Live trading config", "- Max two trades at once.", "- Margin 25 percent.",
        "## Railway database", "- The database lives on Railway."]
