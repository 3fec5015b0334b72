"""The index never loses what Claude Code loads, through the CLI on real files.

A default run (``apply = "safe"``) moves only lines past Claude Code's window (line 200, byte
25,000, measured without frontmatter and HTML comments) and proposes the rest; ``apply`` of
that proposal (or ``apply = "all"``) fits the index with the title, the first section, the
feedback rules and the priority lines still loaded; a second run changes nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from consolidator.cli import main
from consolidator.index.parse import parse_index
from consolidator.index.window import measure
from tests.conftest import REPO
from tests.integration.test_consolidate import World

sys.path.insert(0, str(REPO / "bench"))
from index_window import window  # noqa: E402  (a reading of the window of its own)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def loaded_window(text: str) -> list[str]:
    """The lines Claude Code loads of an index (the benchmark's own reading of it)."""
    return window(text)


def topic_files(world: World) -> list[str]:
    return sorted(p.name for p in world.root.glob("index_*.md"))


def kept_index(world: World, count: int, head: tuple[str, ...] = ()) -> str:
    """A MEMORY.md of ``head`` and one pointer to each of ``count`` memories (written, three
    days old); its text."""
    lines = list(head)
    for i in range(count):
        world.put(f"project_k{i:03d}.md", f"- kept fact {i}\n")
        lines.append(f"- [Kept {i}](project_k{i:03d}.md) — kept {i}")
    text = "\n".join(lines) + "\n"
    world.raw("MEMORY.md", text.encode(), days=3)
    return text


def typed_index_with_a_session_log(world: World, days: int = 80) -> tuple[str, list[str]]:
    """``# title``, a priority line, then User / Feedback / Project / Reference sections of
    pointers, then ``## Session log`` with one ``### <date>`` heading and two lines per day:
    about 300 lines in all. Returns the text and its pinned lines."""
    lines = ["# Team memory", "", "🚨 NEVER push to main directly.", ""]
    pinned = ["# Team memory", "🚨 NEVER push to main directly."]
    for mtype, count in (("user", 4), ("feedback", 12), ("project", 14), ("reference", 10)):
        lines.append(f"## {mtype.capitalize()}")
        for i in range(count):
            file = f"{mtype}_item_{i:02d}.md"
            world.put(file, f"- {mtype} fact {i}: details live here.\n", mtype=mtype,
                      description=f"{mtype} item {i}")
            pointer = f"- [{mtype.capitalize()} {i}]({file}) — {mtype} item {i}"
            lines.append(pointer)
            if mtype == "feedback":
                pinned.append(pointer)
        lines.append("")
    lines.append("## Session log")
    for day in range(days):
        lines.append(f"### 2026-{8 + day // 28:02d}-{1 + day % 28:02d}")
        lines.append(f"- worked on the parser, step {day}")
        lines.append(f"- left the queue at {day} open tickets")
    text = "\n".join(lines) + "\n"
    world.raw("MEMORY.md", text.encode(), days=3)
    return text, pinned


def test_a_default_run_leaves_an_index_its_safe_move_would_leave_over_as_it_is(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # Past its 200 lines: moving the unloaded tail into a topic memory would put the pointer
    # past the window too and leave the index over (Claude Code's writes still failing).
    # Nothing moves; the report says why, and the fit waits for review.
    before, pinned = typed_index_with_a_session_log(world)
    assert len(before.splitlines()) > 280

    report = world.run(capsys, "--apply", "safe")

    assert (world.root / "MEMORY.md").read_text() == before
    assert topic_files(world) == []
    assert report["index"]["within_limits"] is False
    assert any("nothing moves without review" in why for why in report["index"]["why"])
    assert report["proposal"] and report["proposal"]["actions"] >= 2
    waiting = [a for a in report["actions"] if not a["applied"]]
    assert {a["kind"] for a in waiting} == {"judgment"}
    assert any(a["file"] == "MEMORY.md" for a in waiting)


def test_a_default_run_moves_an_unloaded_tail_where_the_index_then_fits(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # Over by bytes only: the last loaded line ends well before 25,000 bytes, the next one
    # crosses it. With the tail in a topic memory, its pointer fits in the window.
    lines = ["# Memory", "", "## Facts"]
    lines += [f"- fact {i:03d} ".ljust(240, "x") for i in range(100)]
    lines += ["", "## Archive notes"] + [f"- old note {i} ".ljust(600, "y") for i in range(20)]
    text = "\n".join(lines) + "\n"
    world.raw("MEMORY.md", text.encode(), days=3)
    window_before = loaded_window(text)
    assert len(text.splitlines()) < 200 and len(text.encode()) > 25000

    report = world.run(capsys, "--apply", "safe")

    after = (world.root / "MEMORY.md").read_text()
    assert report["index"]["within_limits"] is True
    assert loaded_window(after)[:len(window_before)] == window_before
    assert topic_files(world) == ["index_archive_notes.md"]
    moved = (world.root / "index_archive_notes.md").read_text()
    assert all(line in moved for line in text.splitlines() if line.startswith("- old note")
               and line not in window_before)


def test_applying_the_proposal_fits_the_index_with_every_pinned_line_still_loaded(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    before, pinned = typed_index_with_a_session_log(world)
    report = world.run(capsys, "--apply", "safe")

    assert main(["apply", report["run_id"], "--state-dir", str(world.state)]) == 0
    capsys.readouterr()

    after = (world.root / "MEMORY.md").read_text()
    window = loaded_window(after)
    assert len(after.splitlines()) <= 200 and len(after.encode()) <= 25000
    for line in pinned:
        assert line in window, line
    assert len(topic_files(world)) <= 3
    # Every line that left the index lives in a topic memory the index points to.
    topics = "".join((world.root / t).read_text() for t in topic_files(world))
    for line in before.splitlines():
        if line.strip() and line not in after.splitlines():
            assert line in topics, line
    assert "\n\n\n" not in after
    lines = after.splitlines()
    assert sum("(index_session_log.md)" in line for line in lines) == 1
    at = lines.index("## Session log")
    assert lines[at + 1].startswith("- [Session log](index_session_log.md)")
    assert not lines[-1].startswith("#"), "no heading is left empty"
    before_tree = world.tree()
    report = world.run(capsys, "--apply", "safe")
    assert world.tree() == before_tree and report["proposal"] is None


def test_apply_all_fits_in_one_run_keeping_title_priority_and_feedback_loaded(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    before, pinned = typed_index_with_a_session_log(world)

    report = world.run(capsys)  # --apply all

    after = (world.root / "MEMORY.md").read_text()
    assert report["index"]["within_limits"] is True
    for line in pinned:
        assert line in loaded_window(after), line
    assert topic_files(world) == ["index_session_log.md"]
    before_tree = world.tree()
    world.run(capsys)
    assert world.tree() == before_tree


def test_a_second_default_run_changes_nothing_and_proposes_the_same_fit(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    typed_index_with_a_session_log(world)
    first = world.run(capsys, "--apply", "safe")
    tree = world.tree()

    second = world.run(capsys, "--apply", "safe")

    assert world.tree() == tree
    assert [a for a in second["actions"] if a["applied"]] == []
    assert second["proposal"]["actions"] == first["proposal"]["actions"]


def test_frontmatter_and_html_comments_do_not_count_against_the_limits(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_a.md", "- a\n")
    comment = ["<!--", *[f"  maintainer note {i}" for i in range(30)], "-->"]
    lines = ["---", "title: memory index", "---", *comment, "# Memory", "",
             "- [A](project_a.md) — the a project",
             *[f"- plain fact number {i}" for i in range(190)]]
    text = "\n".join(lines) + "\n"
    assert len(lines) > 200
    world.raw("MEMORY.md", text.encode(), days=3)

    report = world.run(capsys, "--apply", "safe")

    assert report["index"]["within_limits"] is True
    assert report["index"]["changed"] is False
    assert (world.root / "MEMORY.md").read_text() == text
    assert report["proposal"] is None


def test_memories_a_users_own_list_links_get_no_pointer_and_no_hook_is_shortened(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = "⬅ READ THIS FIRST: " + "how the deploy is wired, and why staging lags a day " * 2
    lines = ["# Index", "", "## Project"]
    for i in range(150):
        world.put(f"project_live_{i:03d}.md", f"- live fact {i}\n")
        lines.append(f"- [Live {i}](project_live_{i:03d}.md) — {hook[:115]}")
    dormant = []
    for i in range(51):
        world.put(f"project_parked_{i:02d}.md", f"- parked fact {i}\n")
        dormant.append(f"- [Parked {i}](project_parked_{i:02d}.md) — parked")
    world.put("memory_archive_dormant.md", "\n".join(dormant) + "\n", mtype="reference")
    lines.append("- [Dormant memories](memory_archive_dormant.md) — parked, on purpose")
    text = "\n".join(lines) + "\n"
    assert 20000 < len(text.encode()) < 25000 - 2 * 601  # room for a pointer, and the next
    world.raw("MEMORY.md", text.encode(), days=3)
    world.put("project_brand_new.md", "- brand new fact\n")

    report = world.run(capsys, "--apply", "safe")

    after = (world.root / "MEMORY.md").read_text()
    assert report["index"]["added"] == ["project_brand_new.md"]
    assert len(after.encode()) <= 25000
    for line in lines:
        assert line in after.splitlines(), line  # every hook as the user wrote it
    assert not any("parked" in f for f in _targets(after) - _targets(text))


def test_more_unlisted_memories_than_fit_are_listed_in_one_topic_memory(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    text = kept_index(world, 180, ("# Index", "", "## Project"))
    for i in range(40):
        world.put(f"project_new_{i:02d}.md", f"- new fact {i}\n")

    report = world.run(capsys, "--apply", "safe")

    after = (world.root / "MEMORY.md").read_text()
    assert report["index"]["within_limits"] is True
    assert len(after.splitlines()) <= 200
    old = text.splitlines()
    assert after.splitlines()[:len(old)] == old  # old lines stay where they were
    [listing] = topic_files(world)
    listed = _targets((world.root / listing).read_text())
    added = set(report["index"]["added"])
    assert added | listed >= {f"project_new_{i:02d}.md" for i in range(40)}
    tree = world.tree()
    world.run(capsys, "--apply", "safe")
    assert world.tree() == tree


def long_blank_heavy_index(world: World) -> tuple[str, list[str]]:
    """About 550 lines and 40 KB: many sections of notes and pointers, runs of blank lines,
    rules (NEVER / CRITICAL / 절대) scattered through it, some far past line 200."""
    lines = ["# 프로젝트 메모리", "Read the rules before anything else.", ""]
    rules = []
    n = 0
    for section in range(12):
        lines += ["", "", f"## Area {section}", ""]
        for i in range(30):
            n += 1
            file = f"project_area{section:02d}_{i:02d}.md"
            world.put(file, f"- area {section} note {i}\n")
            lines.append(f"- [Area {section} item {i}]({file}) — "
                         + "작업 메모와 세부 사항 " * 3 + f"({n})")
            if i % 10 == 9:
                lines += ["", ""]
        if section in (1, 5, 9):
            rule = f"- CRITICAL: never run the area {section} migration twice"
            lines.append(rule)
            rules.append(rule)
        if section == 7:
            rule = "- 절대 운영 DB에 직접 쓰지 말 것"
            lines.append(rule)
            rules.append(rule)
    text = "\n".join(lines) + "\n"
    world.raw("MEMORY.md", text.encode(), days=3)
    return text, rules


def test_a_long_blank_heavy_index_keeps_its_window_by_default_and_its_rules_when_fitted(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    before, rules = long_blank_heavy_index(world)
    assert len(before.splitlines()) > 450 and len(before.encode()) > 40000

    world.run(capsys, "--apply", "safe")

    after = (world.root / "MEMORY.md").read_text()
    kept = [line for line in loaded_window(before) if line.strip()]
    now = [line for line in loaded_window(after) if line.strip()]
    assert now[:len(kept)] == kept  # only blank runs closed up; no loaded line moved
    assert len(topic_files(world)) <= 3

    report = world.run(capsys)  # --apply all

    after = (world.root / "MEMORY.md").read_text()
    window = loaded_window(after)
    for rule in rules:
        assert rule in window, rule
    assert "# 프로젝트 메모리" in window and "\n\n\n" not in after
    assert report["index"]["within_limits"] is True or report["index"]["why"]
    assert len(topic_files(world)) <= 3


def _targets(text: str) -> set[str]:
    return {t for line in parse_index(text) for t in line.targets}


@pytest.mark.parametrize(("kept", "listed"), [(197, True), (198, False)])
def test_a_nearly_full_index_keeps_room_for_claude_codes_next_pointer(
    world: World, capsys: pytest.CaptureFixture[str], kept: int, listed: bool
) -> None:
    # Since 2.1.210 a memory write that leaves MEMORY.md over its limits fails: a default
    # run never takes the last line Claude Code's next pointer needs.
    text = kept_index(world, kept)
    for i in range(3):
        world.put(f"project_new_{i}.md", f"- new fact {i}\n")

    report = world.run(capsys, "--apply", "safe")

    after = (world.root / "MEMORY.md").read_text()
    assert len(loaded_window(after)) <= 199 and after.startswith(text)
    if listed:  # a blank line and the pointer to their list: 199 lines
        assert report["index"]["dropped"] == [] and len(topic_files(world)) == 1
        # The list says what it is: no line of the index moved into it.
        (topic,) = topic_files(world)
        listing = (world.root / topic).read_text()
        assert "type: reference" in listing and "no room for" in listing
        assert "moved" not in listing and "was over" not in listing
        pointer = after.splitlines()[-1]
        assert f"({topic}) — 3 memories MEMORY.md has no room for" in pointer
        (create,) = [a for a in report["actions"] if a["op"] == "create"]
        assert create["reason"].startswith("memories with no room in the index")
        # A later memory joins the list; the report counts it alone, not the list's others.
        world.put("project_later.md", "- a later fact\n")
        assert main(["report", "--memory-dir", str(world.root), "--state-dir",
                     str(world.state), "--project-root", str(world.project)]) == 0
        assert "1 memory with no index pointer" in capsys.readouterr().out
    else:  # one pointer (199 lines), the others named
        (added,) = report["index"]["added"]
        dropped = report["index"]["dropped"]
        assert sorted([added, *dropped]) == [f"project_new_{i}.md" for i in range(3)]
        assert len(after.splitlines()) == 199 and topic_files(world) == []
        assert main(["report", "--memory-dir", str(world.root), "--state-dir",
                     str(world.state), "--project-root", str(world.project)]) == 0
        markdown = capsys.readouterr().out
        assert "could not be indexed, no room (a run leaves room for Claude Code's next " \
               "pointer; a fit of the index waiting for review may make room): " \
               f"`{dropped[0]}`" in markdown
        assert "2 memories with no index pointer (2 with no room, named under Index)" \
            in markdown


def test_a_full_index_is_called_full_in_the_report(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # 200 lines within the limits: Claude Code's next pointer line has no room.
    text = kept_index(world, 200)

    report = world.run(capsys, "--apply", "safe")
    assert report["index"]["within_limits"] is True and report["index"]["full"] is True
    assert (world.root / "MEMORY.md").read_text() == text  # nothing loaded moves on its own

    assert main(["report", "--memory-dir", str(world.root), "--state-dir",
                 str(world.state), "--project-root", str(world.project)]) == 0
    markdown = capsys.readouterr().out
    assert "but **full**: no room for one more pointer line, so Claude Code's next memory " \
           "write fails until a line moves out" in markdown
    assert "within limits, **full** (no room for Claude Code's next pointer line)" in markdown
    assert main(["history", "--memory-dir", str(world.root), "--state-dir",
                 str(world.state)]) == 0
    assert "index full (Claude Code's next memory write fails until a line moves out)" \
        in capsys.readouterr().out

    # One line fewer: room again, and no word of it.
    (world.root / "MEMORY.md").write_text("".join(text.splitlines(True)[:199]))
    world.put("project_k199.md", "- kept fact 199\n")
    assert world.run(capsys, "--apply", "safe")["index"]["full"] is False


@pytest.mark.parametrize(("room", "safe"), [(20, False), (2000, True)])
def test_a_merge_whose_repointed_links_would_take_the_index_room_waits_for_review(
    world: World, capsys: pytest.CaptureFixture[str], room: int, safe: bool
) -> None:
    # Merging a.md into a memory with a longer name repoints its index line at that name,
    # 49 bytes longer: with 20 bytes to spare beside Claude Code's next pointer (601 bytes),
    # the index would lose that room, so the merge waits for review; with 2,000 it is safe.
    survivor = "deploy_order_staging_first_then_production_rollout.md"
    line = "Deploys go through the staging cluster first; run smoke tests there.\n"
    world.put("a.md", line)
    world.put(survivor, line + "Production follows once staging is green for a day.\n")
    head = f"- [Deploy order](a.md) — deploy order\n- [Deploy]({survivor}) — deploy\n"
    notes = "".join(f"- note {i:03d} ".ljust(110, "x") + "\n" for i in range(190))
    text = head + notes
    pad = 25000 - 601 - room - len(text.encode())
    assert pad > 0
    text += "- " + "y" * (pad - 3) + "\n"
    assert len(text.encode()) == 25000 - 601 - room
    world.raw("MEMORY.md", text.encode(), days=3)

    report = world.run(capsys, "--apply", "safe")

    (merge,) = [a for a in report["actions"] if a["op"] == "merge"]
    assert (merge["kind"] == "safe") is safe
    assert (world.root / "a.md").exists() is not safe
    after = (world.root / "MEMORY.md").read_text()
    if safe:
        assert f"- [Deploy order]({survivor}) — deploy order" in after
    else:
        assert after == text and "would take the index to" in merge["reason"]
        assert any(n.startswith(f"merge into {survivor} waits for review") for n in
                   report["notes"])


def mixed_index(survivor: str) -> str:
    """An index whose lines end in CRLF (most) and LF, with 10 bytes to spare, measured as
    it is; its first two lines point at a.md and at ``survivor``."""
    text = (f"- [Deploy order](a.md) — deploy order\r\n- [Deploy]({survivor}) — deploy\r\n"
            + "".join(f"- note {i:03d} ".ljust(110, "x") + ("\r\n" if i % 2 else "\n")
                      for i in range(190)))
    pad = 25000 - 10 - measure(text + "- \r\n")[1]
    text += "- " + "y" * pad + "\r\n"
    assert measure(text) == (193, 24990)
    return text


def put_pair(world: World, survivor: str) -> None:
    line = "Deploys go through the staging cluster first; run smoke tests there.\n"
    world.put("a.md", line)
    world.put(survivor, line + "Production follows once staging is green for a day.\n")


def test_a_merge_in_a_mixed_ending_index_keeps_every_lines_ending(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # Repointed at a name of the same length, the index costs what it cost: the merge is
    # safe, and every line keeps the ending it had (no LF line becomes CRLF).
    put_pair(world, "z.md")
    text = mixed_index("z.md")
    world.raw("MEMORY.md", text.encode(), days=3)

    report = world.run(capsys, "--apply", "safe")

    (merge,) = [a for a in report["actions"] if a["op"] == "merge"]
    assert merge["kind"] == "safe" and not (world.root / "a.md").exists()
    after = (world.root / "MEMORY.md").read_bytes().decode()
    assert after == text.replace("(a.md)", "(z.md)", 1)
    assert measure(after) == measure(text)


def test_a_merge_is_measured_as_the_index_will_be_written(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same index, the survivor's name 11 bytes longer than a.md: the 10 bytes to spare
    # are not enough, so the merge waits for review and the index is left as it is.
    survivor = "z-deploy-123.md"
    put_pair(world, survivor)
    text = mixed_index(survivor)
    world.raw("MEMORY.md", text.encode(), days=3)

    report = world.run(capsys, "--apply", "safe")

    (merge,) = [a for a in report["actions"] if a["op"] == "merge"]
    assert merge["kind"] == "judgment" and (world.root / "a.md").exists()
    assert (world.root / "MEMORY.md").read_bytes() == text.encode()


def test_index_lines_moved_into_a_memory_stand_as_paragraphs_of_their_own(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """A memory ending in a list item gains the moved lines after a blank line, one paragraph
    each: right after the item, Markdown would read them as more of it."""
    world.put("project_release.md", "# Release\n\n- build with make\n- tag the release\n")
    lines = ["# Index", "", "Pointers and notes.", "", "## Notes"]
    lines += [f"- note {i}: the queue keeps order number {i}" for i in range(190)]
    lines += ["", "## Release", "- [Release](project_release.md) — how a release goes"]
    lines += [f"  - step {i} of the release, written out in full" for i in range(8)]
    world.raw("MEMORY.md", ("\n".join(lines) + "\n").encode())

    world.run(capsys)  # --apply all

    body = (world.root / "project_release.md").read_text()
    head, _sep, notes = body.partition("---\n# Release\n\n- build with make\n- tag the release\n\n")
    paragraphs = notes.removesuffix("\n").split("\n\n")
    assert len(paragraphs) > 1, body
    assert all(p.startswith("Index note (moved from MEMORY.md): - step ") and "\n" not in p
               for p in paragraphs), body
    before = world.tree()
    world.run(capsys)
    assert world.tree() == before


@pytest.mark.parametrize("name", ["index_source_추적_e2e_검증_완료", "index_migration-DONE"])
def test_a_topic_memory_named_after_a_finished_heading_is_never_judged_stale(
    world: World, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """A topic memory holds lines moved out of the index under their heading's name ("…
    검증 완료", "Migration DONE"): the status was the index's, and the next run must not
    archive what the last one moved."""
    world.put(f"{name}.md", "- the queue keeps its order under load\n", mtype="reference",
              name=name)
    world.raw("MEMORY.md", f"# Index\n\n- [Moved lines]({name}.md) — from the index\n".encode())

    report = world.run(capsys)  # --apply all

    assert report["stale"] == []
    assert (world.root / f"{name}.md").exists()


def test_applying_one_topic_of_a_fit_then_the_rest_fits_the_index_with_no_stray_topic(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fit waits as its topic memories and the index's rewrite, which needs them. An apply
    of one topic first moves nothing the fit links: the fit waits as it was, and applying
    the rest links every topic memory it made."""
    world.put("project_api.md", "- The public API is versioned in the URL path.\n", days=20)
    world.put("project_db.md", "- Migrations run with alembic upgrade head.\n", days=20)
    lines = ["# Index", "", "## API", "- [API](project_api.md) — api rules", "", "## DB",
             "- [DB](project_db.md) — db", "", "## Details"]
    lines += [f"- detail {i}: the deploy needs step {i} done before step {i + 1}"
              for i in range(8)]
    world.raw("MEMORY.md", ("\n".join(lines) + "\n").encode(), days=3)
    config = world.root.parent / "config.toml"
    config.write_text("[index]\nmax_lines = 12\n")
    report = world.run(capsys, "--apply", "safe", "--config", str(config))
    rid = report["run_id"]
    waiting = json.loads(proposals_json(world, capsys))[0]["actions"]
    assert [a["op"] for a in waiting][-1] == "rewrite" and waiting[0]["op"] == "create"
    common = ["--state-dir", str(world.state), "--config", str(config)]
    assert main(["apply", rid, "--only", "1", *common]) == 0
    left = json.loads(proposals_json(world, capsys))[0]["actions"]
    assert [a["number"] for a in left] == [a["number"] for a in waiting[1:]], \
        "the numbers a person reviewed still stand"
    assert main(["apply", rid, *common]) == 0
    capsys.readouterr()
    after = (world.root / "MEMORY.md").read_text()
    assert len(after.splitlines()) <= 12
    assert all(f"({topic})" in after for topic in topic_files(world))
    assert json.loads(proposals_json(world, capsys)) == []


def proposals_json(world: World, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["proposals", "--json", "--state-dir", str(world.state)]) == 0
    return capsys.readouterr().out
