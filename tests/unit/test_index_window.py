"""Claude Code's window over MEMORY.md, and the safe move of what lies past it."""

from __future__ import annotations

from consolidator.index.parse import parse_index
from consolidator.index.rebuild import plan_index
from consolidator.index.sections import top_sections
from consolidator.index.shrink import MAX_TOPICS, Fitter
from consolidator.index.value import stressed
from consolidator.index.window import (
    HIDDEN,
    Limits,
    hide,
    line_endings,
    loaded,
    measure,
    newline_of,
    over_by,
    trimmed,
)
from consolidator.plan import Create, Rewrite
from consolidator.state.proposal import Item, Proposal
from consolidator.state.statedir import DECLINED
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory
from tests.unit.test_index_rebuild import make_memory


def test_frontmatter_and_block_comments_are_hidden_and_cost_nothing() -> None:
    text = ("---\ntitle: x\n---\n<!-- one line -->\n<!--\nmany\nlines\n-->\n# Index\n"
            "- [A](a.md) — a\n<!-- not closed here\n")
    lines = hide(parse_index(text))

    assert [line.kind == HIDDEN for line in lines] == [True] * 8 + [False] * 3
    assert measure(text) == (3, len("# Index\n- [A](a.md) — a\n<!-- not closed here\n".encode()))


def test_a_comment_that_ends_inside_a_line_of_text_is_content() -> None:
    lines = hide(parse_index("<!-- note --> and then words\n# Index\n"))

    assert [line.kind for line in lines] == ["text", "heading"]


def test_the_window_is_the_first_200_counted_lines_within_25000_bytes() -> None:
    text = "---\na: b\n---\n\n" + "".join(f"line {i}\n" for i in range(250))
    lines = hide(parse_index(text))

    window = loaded(lines, Limits())

    shown = [line.text for line, seen in zip(lines, window, strict=True) if seen]
    assert shown == [f"line {i}" for i in range(200)]
    wide = hide(parse_index("x" * 20000 + "\n" + "y" * 6000 + "\nz\n"))
    assert loaded(wide, Limits()) == [True, False, False]


def test_over_by_says_which_limit_and_how_far() -> None:
    assert over_by(210, 100, Limits()) == "10 line(s) over 200"
    assert over_by(10, 25100, Limits()) == "100 byte(s) over 25000"
    assert over_by(10, 100, Limits()) == ""


def test_top_sections_take_their_sub_sections_and_leave_out_a_lone_title() -> None:
    lines = parse_index("# Title\nintro\n## A\n- a\n## Log\n### 2026-01-01\n- x\n### 2026-01-02\n"
                        "- y\n")

    assert top_sections(lines) == [(2, 4), (4, 9)]


def test_a_bold_label_or_date_is_not_a_priority_mark_a_bold_rule_is() -> None:
    assert not stressed("- **Status:** done")
    assert not stressed("**2026-11-02** shipped the importer")
    assert not stressed("- **Fix**: the parser")
    assert stressed("- **Never push to main**")
    assert stressed("- NEVER push to main")


def _log_index(days: int) -> tuple[str, list]:
    memories = [make_memory(f"feedback_{i}.md", mtype="feedback") for i in range(5)]
    lines = ["# Memory", "🚨 NEVER push to main", "## Feedback"]
    lines += [f"- [F{i}](feedback_{i}.md) — rule {i}" for i in range(5)]
    lines += ["## Session log"]
    for day in range(days):
        lines += [f"### 2026-10-{1 + day % 28:02d}", f"- did thing {day}", f"- left {day}"]
    return "\n".join(lines) + "\n", memories


def unloaded_moved(text: str, memories: list[Memory] | None = None) -> Fitter:
    """The safe scope's move of the lines Claude Code does not load, made on ``text`` whether
    or not the index then fits (a plan makes it only where it does)."""
    lines = hide(parse_index(text))
    live = {m.file: m for m in memories or []}
    newline = newline_of(text)
    fitter = Fitter(list(lines), live, None, Limits(), newline, taken=set(live), mtime_ns=0)
    fitter.move_unloaded(loaded(lines, Limits(), newline, line_endings(text)))
    return fitter


def lines_after(fitter: Fitter) -> list[str]:
    return [line.text for line in fitter.lines]


def test_a_safe_plan_moves_nothing_where_the_index_would_stay_over() -> None:
    # 290 lines: the pointer to the moved tail would stand past line 200 too.
    text, memories = _log_index(90)

    plan = plan_index(text, memories, present={m.file for m in memories}, scope="safe")

    assert plan.changed is False and plan.creates == () and plan.moved == ()
    assert any("nothing moves without review" in why for why in plan.why)


def test_the_safe_scope_moves_only_unloaded_lines_as_one_topic_per_section() -> None:
    text, memories = _log_index(90)
    before = text.splitlines()

    moved = unloaded_moved(text, memories)

    after = lines_after(moved)
    assert after[:200] == before[:200]
    [topic] = moved.creates
    assert topic.file == "index_session_log.md"
    assert [line for line in before[200:]] == topic.text.splitlines()[7:]
    assert after[200].startswith("- [Session log](index_session_log.md)")
    assert moved.over() == (1, 0)


def test_a_blank_line_between_two_moved_lines_moves_with_them() -> None:
    """A table after a list item stays a table in the topic memory: moved glued to the item,
    Markdown would read its rows as more of that item. Runs of blank lines close up."""
    lines = ["# Memory"] + [f"- fact {i}" for i in range(198)]
    lines += ["## Journal", "- entry 1", "- entry 2", "", "", "| key | value |", "|---|---|",
              "| port | 5432 |", "- entry 3"]
    text = "\n".join(lines) + "\n"

    [topic] = unloaded_moved(text).creates

    assert "- entry 2\n\n| key | value |\n|---|---|\n| port | 5432 |\n- entry 3" in topic.text
    assert "- entry 1\n- entry 2\n" in topic.text


def test_the_safe_scope_leaves_an_index_within_its_limits_alone() -> None:
    text, memories = _log_index(20)

    plan = plan_index(text, memories, present={m.file for m in memories}, scope="safe")

    assert plan.changed is False and plan.creates == ()


def test_the_safe_scope_leaves_a_lone_unloaded_line_no_pointer_would_shorten() -> None:
    lines = ["# Memory"] + [f"- fact {i}" for i in range(199)]
    lines += ["## Later", "- a short note past the window"]
    text = "\n".join(lines) + "\n"

    plan = plan_index(text, [], present=set(), scope="safe")

    assert plan.creates == ()  # a topic of one line frees no line and no byte
    assert plan.text.splitlines()[:200] == lines[:200]
    assert "- a short note past the window" in plan.text.splitlines()


def test_lone_unloaded_lines_of_several_sections_share_one_topic_that_frees_lines() -> None:
    lines = ["# Memory"] + [f"- fact {i}" for i in range(198)]
    for section in range(6):
        lines += [f"## Part {section}", f"- note {section}"]
    text = "\n".join(lines) + "\n"

    moved = unloaded_moved(text)

    [topic] = moved.creates  # no topic of one line each: one for all of them
    assert topic.file == "index_more_of_the_index.md"
    assert lines_after(moved)[:200] == lines[:200]
    assert len(moved.lines) == 201  # only "## Part 0" is loaded: it stays, with the pointer
    assert all(f"- note {s}" in topic.text for s in range(6))


def test_lone_sections_around_a_long_one_share_one_topic_with_it() -> None:
    # One-line sections before and after a long one: a topic for the long one alone would
    # sit between the lines the shared topic takes, so all share one.
    lines = ["# Memory"] + [f"- fact {i}" for i in range(198)]
    lines += ["## Part A", "- note a", "## Part C"] + [f"- long note {i}" for i in range(30)]
    lines += ["## Part D", "- note d"]
    text = "\n".join(lines) + "\n"

    fitter = unloaded_moved(text)

    assert lines_after(fitter)[:200] == lines[:200]
    moved = "".join(t.text for t in fitter.creates)
    assert all(note in moved for note in ("- note a", "- note d", "- long note 29"))
    kept = lines_after(fitter)
    assert not any(line.startswith(("- note", "- long note")) for line in kept)


def test_the_safe_scope_moves_a_lone_unloaded_line_longer_than_its_pointer() -> None:
    long_note = "- " + " ".join(["a long note past the window"] * 40)
    lines = ["# Memory"] + [f"- fact {i}" for i in range(199)] + ["## Later", long_note]
    text = "\n".join(lines) + "\n"

    moved = unloaded_moved(text)

    [topic] = moved.creates
    assert long_note in topic.text.splitlines()
    assert long_note not in lines_after(moved)


def test_the_whole_fit_moves_the_log_into_the_topic_an_earlier_safe_run_made() -> None:
    # (An earlier version's default run moved the unloaded tail on its own.)
    text, memories = _log_index(90)
    present = {m.file for m in memories}
    safe = unloaded_moved(text, memories)
    live = memories + [t.memory for t in safe.creates]

    full = plan_index("\n".join(lines_after(safe)) + "\n", live,
                      present=present | {t.file for t in safe.creates})

    assert full.within_limits
    [topic] = full.creates
    assert topic.file == "index_session_log.md" and topic.before is not None
    body = topic.text.splitlines()
    assert body.count("# Session log") == 1
    assert body[7:] == text.splitlines()[9:]  # the whole log, in order, once
    index = full.text.splitlines()
    assert "🚨 NEVER push to main" in index[:200]
    at = index.index("## Session log")
    assert index[at + 1].startswith("- [Session log](index_session_log.md)")
    assert sum("(index_session_log.md)" in line for line in index) == 1


def test_more_sections_past_the_window_than_topics_share_the_last_topic() -> None:
    lines = ["# Memory"] + [f"- fact {i}" for i in range(198)]
    for section in range(6):
        lines += [f"## Part {section}"] + [f"- note {section}.{i}" for i in range(5)]
    text = "\n".join(lines) + "\n"

    moved = unloaded_moved(text)

    assert len(moved.creates) == MAX_TOPICS
    assert "index_more_of_the_index.md" in {t.file for t in moved.creates}
    assert lines_after(moved)[:199] == lines[:199]
    assert any("span 6 sections" in why for why in moved.why)


def test_the_fit_moves_the_smallest_enough_section_not_the_largest() -> None:
    memories = [make_memory(f"project_{i:03d}.md") for i in range(240)]
    lines = ["# Memory", "first section line", "## Big"]
    lines += [f"- [P{i}](project_{i:03d}.md) — p" for i in range(180)]
    lines += ["## Small"] + [f"- [P{i}](project_{i:03d}.md) — p" for i in range(180, 240)]
    text = "\n".join(lines) + "\n"

    plan = plan_index(text, memories, present={m.file for m in memories})

    assert plan.within_limits
    assert [t.file for t in plan.creates] == ["index_small.md"]


def test_fitter_replace_measures_the_new_lines() -> None:
    fitter = Fitter(parse_index("a\nb\n"), {}, None, Limits(max_lines=1), "\n", set(), 0)
    assert not fitter.fits()

    fitter.replace(parse_index("a\n"))

    assert fitter.fits()


def _item(number: int, action: Create | Rewrite, status: str = "waiting") -> Item:
    return Item(number, action, status)


def test_choosing_the_index_change_takes_the_topic_memory_it_needs_along() -> None:
    create = Create(file="index_log.md", reason="index overflow", kind="judgment", data=b"x",
                    mtime_ns=0)
    rewrite = Rewrite(file="MEMORY.md", reason="index", kind="judgment", data=b"y", mtime_ns=0,
                      needs=("index_log.md",))
    proposal = Proposal("20261201T000000Z-abcd", "/m", "now",
                        (_item(1, create), _item(2, rewrite)))

    assert [i.number for i in proposal.pick([2])] == [1, 2]
    declined = Proposal("20261201T000000Z-abcd", "/m", "now",
                        (_item(1, create, DECLINED), _item(2, rewrite)))
    assert declined.blocked(declined.items[1]) is not None
    assert declined.blocked(declined.items[0]) is None


def test_extending_an_earlier_topic_keeps_its_frontmatter_and_opening_byte_for_byte() -> None:
    text, memories = _log_index(90)
    present = {m.file for m in memories}
    safe = unloaded_moved(text, memories)
    [made] = safe.creates
    edited = made.text.replace("type: project\n", "type: project\nowner: dana\n").replace(
        "# Session log\n", "# Session log\nKept by hand: read the newest day first.\n")
    data = edited.encode()
    topic = Memory(FileStat(made.file, len(data), made.mtime_ns, 0o644, "x"), parse(data))

    full = plan_index("\n".join(lines_after(safe)) + "\n", memories + [topic],
                      present=present | {made.file})

    [grown] = full.creates
    assert grown.text.startswith(edited.split("Kept by hand")[0])  # frontmatter, title
    assert "owner: dana\n" in grown.text
    assert grown.text.count("Kept by hand: read the newest day first.\n") == 1
    assert grown.text.count("- did thing 89") == 1


def _notes(count: int, width: int) -> list[str]:
    return [f"- note {i:03d} ".ljust(width, "x") for i in range(count)]


def test_each_line_is_measured_with_its_own_ending() -> None:
    # 199 lines of 124 characters, one of them ending in CRLF: 24,876 bytes, all loaded.
    # Measured as if every line ended in CRLF it would be 25,074: over, its tail unloaded.
    lines = _notes(199, 124)
    text = "\n".join(lines[:10]) + "\r\n" + "\n".join(lines[10:]) + "\n"
    assert len(text.encode()) == 24876 and newline_of(text) == "\n"
    assert measure(text) == (199, 24876)

    for scope in ("safe", "all"):
        plan = plan_index(text, [], present=set(), limits=Limits(), scope=scope,
                          newline=newline_of(text))

        assert not plan.changed and plan.text == text and plan.creates == ()
        assert not plan.over_limits


def test_a_last_line_with_no_ending_costs_no_newline() -> None:
    # 200 lines, exactly 25,000 bytes because the last line has no line ending: all loaded.
    lines = _notes(199, 124) + ["- the last note ".ljust(125, "y")]
    text = "\n".join(lines)
    assert len(text.encode()) == 25000
    assert measure(text) == (200, 25000)
    assert all(loaded(parse_index(text), Limits(), "\n", line_endings(text)))

    for scope in ("safe", "all"):
        plan = plan_index(text, [], present=set(), limits=Limits(), scope=scope)

        assert plan.creates == () and plan.text == text and not plan.over_limits


def test_a_rewrite_keeps_the_line_ending_most_lines_have() -> None:
    assert newline_of("a\nb\r\nc\n") == "\n"
    assert newline_of("a\r\nb\r\nc\n") == "\r\n"
    assert newline_of("a\r\nb\n") == "\r\n"  # a tie
    assert newline_of("") == newline_of(None) == "\n"
    assert line_endings("a\r\nb\nc") == [2, 1, 0]
    assert line_endings("a\nb\n") == [1, 1]


def test_trimmed_counts_the_blank_lines_before_and_after_what_claude_code_counts() -> None:
    assert trimmed(parse_index("\n\na\n\nb\n\n")) == (3, 3)  # the blank between is counted
    assert trimmed(hide(parse_index("---\nk: v\n---\n\n  \na\n")), "\r\n") == (2, 6)
    assert trimmed(parse_index("\n\n")) == (2, 2)  # nothing counted: every blank trimmed
    assert trimmed([]) == (0, 0)
