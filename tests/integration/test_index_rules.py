"""The MEMORY.md rebuild on real files, through `run --force`: an index within its limits is
left alone, an over-limit one gives up its least valuable lines, no text leaves the live
directory, no link points at a file the run moved away, and a second run changes nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main
from consolidator.index.parse import parse_index
from tests.integration.test_consolidate import World

LONG_HOOK = ("where the nightly export lands, NOT the reporting table (it also counts "
             "cancelled orders), and why the job runs at 02:10 rather than at midnight")


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _links(text: str) -> set[str]:
    return {t for line in parse_index(text) for t in line.targets}


def _ops(report: dict[str, Any]) -> set[tuple[str, str]]:
    """Each action of a run's report, as (operation, file)."""
    return {(a["op"], a["file"]) for a in report["actions"]}


def _second_run_changes_nothing(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    before = world.tree()
    report = world.run(capsys)
    assert [a for a in report["actions"]] == []
    assert world.tree() == before


def test_an_index_within_its_limits_keeps_every_line_byte_for_byte(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_export.md", "- The export runs nightly.\n")
    world.put("project_billing.md", "- Billing closes on the 3rd.\n")
    index = ("Read this first: one line per memory.\r\n"
             "## Index\r\n"
             f"- [Export](project_export.md) — {LONG_HOOK}\r\n"
             "- [Billing](project_billing.md): billing close   \r\n"
             "\r\n\r\n\r\n"
             "| Tool | Where |\r\n|---|---|\r\n| ci | `ci/` |")
    world.raw("MEMORY.md", index.encode(), days=3)

    report = world.run(capsys)

    assert report["index"]["changed"] is False and report["index"]["over_limits"] is False
    assert (world.root / "MEMORY.md").read_bytes() == index.encode()
    _second_run_changes_nothing(world, capsys)


def test_a_new_pointer_goes_under_the_index_heading_in_the_index_style(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_export.md", "- The export runs nightly.\n")
    world.put("project_queue_retries.md", "- Retries back off.\n",
              name="project_queue-retries", description="How the queue retries failed jobs")
    world.raw("MEMORY.md", (b"# Notes\n"
                            b"A paragraph of intro text.\n"
                            b"## Index\n"
                            b"* **[Export](project_export.md)**: nightly export\n"
                            b"\n"
                            b"## Later\n"
                            b"- a plain note\n"), days=3)

    world.run(capsys)

    lines = (world.root / "MEMORY.md").read_text().splitlines()
    assert lines[:5] == [
        "# Notes", "A paragraph of intro text.", "## Index",
        "* **[Export](project_export.md)**: nightly export",
        "* **[Queue retries](project_queue_retries.md)**: How the queue retries failed jobs",
    ]
    assert lines[5:] == ["", "## Later", "- a plain note"]
    _second_run_changes_nothing(world, capsys)


def test_a_pointer_to_a_missing_file_keeps_its_words_live(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_export.md", "- The export runs nightly.\n")
    world.raw("MEMORY.md", ("## Index\n"
                            "- [Export](project_export.md) — nightly export\n"
                            "- [Vendor](vendor_contacts.md) — the vendor's escalation number "
                            "is in the shared vault\n").encode(), days=3)

    report = world.run(capsys)

    text = (world.root / "MEMORY.md").read_text()
    assert "- Vendor (vendor_contacts.md missing) — the vendor's escalation number is in the " \
           "shared vault" in text
    assert "vendor_contacts.md" not in _links(text)
    assert {"file": "vendor_contacts.md", "state": "missing"} in report["index"]["unlinked"]
    _second_run_changes_nothing(world, capsys)


def test_a_link_in_the_indexs_own_text_to_a_missing_file_is_reported_and_left(
    world: World, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    world.put("project_export.md", "- The export runs nightly.\n")
    index = ("## Index\n- [Export](project_export.md) — nightly export\n\n"
             "Why we moved off the old vendor: see [the vendor note](vendor_history.md).\n")
    world.raw("MEMORY.md", index.encode(), days=3)

    report = world.run(capsys)

    assert (world.root / "MEMORY.md").read_text() == index
    assert report["index"]["linked_missing"] == ["vendor_history.md"]
    assert report["index"]["unlinked"] == []
    out = tmp_path / "report.md"
    assert main(["report", "--memory-dir", str(world.root), "--state-dir", str(world.state),
                 "--project-root", str(world.project), "--output", str(out)]) == 0
    assert ("links in the index's own text to missing files, left as written for you to fix: "
            "`vendor_history.md`") in out.read_text()


def test_a_pointer_to_a_symlink_or_an_oversized_memory_is_kept_as_written(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """Existing is existing: a memory the scan does not read (a symbolic link, a file over the
    size cap) and a folder's own index keep their pointer and hook; the report says why
    each was not scanned."""
    world.put("project_export.md", "- The export runs nightly.\n")
    shared = world.root.parent / "shared_notes.md"
    shared.write_text("---\nname: shared\ndescription: kept elsewhere\ntype: user\n---\nx\n")
    (world.root / "user_shared.md").symlink_to(shared)
    huge = "---\nname: huge\ndescription: a big log\ntype: project\n---\n" + "y" * (2 << 20)
    world.raw("project_huge.md", huge.encode())
    nested = world.raw("vendors/MEMORY.md", b"- [Acme](acme.md) - the Acme contract\n")
    index = ("## Index\n"
             "- [Export](project_export.md) — nightly export\n"
             "- [Shared](user_shared.md) — the notes kept in the shared folder\n"
             "- [Huge](project_huge.md) — the full build log of the March outage\n"
             "- [Vendors](vendors/MEMORY.md) — the vendor notes' own index\n")
    world.raw("MEMORY.md", index.encode(), days=3)

    report = world.run(capsys)

    assert (world.root / "MEMORY.md").read_text() == index
    assert report["index"]["unlinked"] == [] and report["index"]["linked_missing"] == []
    assert {u["file"] for u in report["unparsed"]} >= {"user_shared.md", "project_huge.md",
                                                        "vendors/MEMORY.md"}
    assert nested.read_bytes() == b"- [Acme](acme.md) - the Acme contract\n"
    _second_run_changes_nothing(world, capsys)


def _over_limit_index(world: World, loose: int = 40, refs: int = 60) -> tuple[str, str]:
    """An index of ~260 lines: a first section, a feedback section, a long plain section and
    a CJK-headed reference section, with a stressed rule at line 105 and one past line 200."""
    world.put("feedback_tests.md", "- Tests hit a real database.\n", mtype="feedback")
    for i in range(120):
        world.put(f"project_p{i:03d}.md", f"- Fact number {i} about the build.\n")
    for i in range(refs):
        world.put(f"reference_r{i:02d}.md", f"- 参考メモ {i}\n", mtype="reference")
    early = "- 🚨 NEVER invent features that the source does not have"
    late = "- **Always run the migrations before the seed script**"
    lines = ["# Memory", "Start here: the rules that matter most.", "",
             "## Feedback", "- [Tests](feedback_tests.md) — tests hit a real database", "",
             "## Project"]
    lines += [f"- [P{i}](project_p{i:03d}.md) — fact number {i} about the build"
              for i in range(120)]
    lines.insert(105, early)
    lines += ["", "## 参考資料"]
    lines += [f"- [R{i}](reference_r{i:02d}.md) — 参考メモ {i} の置き場所" for i in range(refs)]
    lines += ["", "## Odds and ends"] + [f"- loose note {i}" for i in range(loose)]
    lines.insert(215, late)
    world.raw("MEMORY.md", ("\n".join(lines) + "\n").encode(), days=3)
    return early, late


def test_an_over_limit_index_keeps_its_priority_lines_and_fits(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    early, late = _over_limit_index(world)
    before = (world.root / "MEMORY.md").read_text().splitlines()
    assert len(before) > 200

    report = world.run(capsys)

    text = (world.root / "MEMORY.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= 200 and len(text.encode()) <= 25000
    assert report["index"]["over_limits"] is True and report["index"]["within_limits"] is True
    for rule in (early, late, "- [Tests](feedback_tests.md) — tests hit a real database",
                 "Start here: the rules that matter most."):
        assert rule in lines, rule
    # Every line that left the index is in a topic memory the index points to.
    topics = {a["file"] for a in report["actions"] if a["op"] == "create"}
    assert topics and topics <= _links(text)
    moved_text = "".join((world.root / t).read_text() for t in topics)
    for line in before:
        if line.strip() and line not in lines and not line.startswith("#"):
            assert line in moved_text, line
    _second_run_changes_nothing(world, capsys)


def test_a_cjk_section_moves_into_a_topic_named_in_its_own_script(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    _over_limit_index(world, loose=0, refs=99)

    report: dict[str, Any] = world.run(capsys)

    created = [a["file"] for a in report["actions"] if a["op"] == "create"]
    assert created == ["index_参考資料.md"]
    assert "- [参考資料](index_参考資料.md)" in (world.root / "MEMORY.md").read_text()
    for file in created:
        assert "section" not in file and not file[len("index_"):-3].isdigit()
        head = (world.root / file).read_text().split("---")[1]
        assert f"name: {file[:-3]}" in head and "description:" in head and "type:" in head


def _occupy(world: World, name: str, kind: str) -> None:
    path = world.root / name
    if kind == "folder":
        path.mkdir()
        (path / "keep.txt").write_text("the user's folder\n")
    elif kind == "symlink":
        target = world.root.parent / "elsewhere.md"
        target.write_text("---\nname: elsewhere\ndescription: x\ntype: user\n---\nx\n")
        path.symlink_to(target)
    elif kind == "dangling symlink":
        path.symlink_to(world.root.parent / "nowhere.md")
    else:
        world.raw(name, b"z" * (2 << 20))


@pytest.mark.parametrize("kind", ["folder", "symlink", "dangling symlink", "big file"])
def test_a_topic_name_already_taken_is_never_used_and_undo_leaves_the_occupant_alone(
    world: World, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    _over_limit_index(world, loose=0, refs=99)
    _occupy(world, "index_参考資料.md", kind)
    occupant = os.lstat(world.root / "index_参考資料.md")

    report: dict[str, Any] = world.run(capsys)

    assert report["status"] == "consolidated" and report["skipped"] == []
    created = [a["file"] for a in report["actions"] if a["op"] == "create"]
    assert created == ["index_参考資料_2.md"]
    assert "(index_参考資料_2.md)" in (world.root / "MEMORY.md").read_text()

    assert main(["undo", report["run_id"], "--force", "--state-dir", str(world.state)]) == 0
    after = os.lstat(world.root / "index_参考資料.md")
    assert (after.st_ino, after.st_mode, after.st_size) == \
        (occupant.st_ino, occupant.st_mode, occupant.st_size)
    assert not os.path.lexists(world.root / "index_参考資料_2.md")


def _api_and_its_copy(world: World) -> None:
    """Two memories, the newer one a part of the older: a merge into ``project_api.md``."""
    world.put("project_api.md", "- The API is versioned in the path.\n- Errors carry a code.\n",
              days=20)
    world.put("project_api_short.md", "- The API is versioned in the path.\n", days=3)


def test_a_merge_and_an_archive_leave_no_link_to_a_file_that_moved(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    _api_and_its_copy(world)
    world.put("project_old_plan.md", "Status: SUPERSEDED by the v3 plan.\n", days=90)
    world.put("project_clients.md", "SDKs follow [the short notes](project_api_short.md).\n")
    world.raw("MEMORY.md", ("## Project\n"
                            "- [API](project_api.md) — the public API\n"
                            "- [API short](project_api_short.md) — versioned in the path\n"
                            "- [Old plan](project_old_plan.md) — the v2 plan\n"
                            "- [Clients](project_clients.md) — SDK rules\n").encode(), days=3)

    report = world.run(capsys)

    assert ("merge", "project_api.md") in _ops(report)
    assert ("archive", "project_old_plan.md") in _ops(report)
    gone = {"project_api_short.md", "project_old_plan.md"}
    for path in world.root.glob("*.md"):
        assert not gone & _links(path.read_text()), path.name
    index = (world.root / "MEMORY.md").read_text()
    assert "Old plan (project_old_plan.md archived) — the v2 plan" in index
    assert "[the short notes](project_api.md)" in (world.root / "project_clients.md").read_text()
    _second_run_changes_nothing(world, capsys)


def test_a_merge_leaves_no_heading_linking_the_file_it_moved(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # An index that names each memory in a heading, with its description below.
    _api_and_its_copy(world)
    world.raw("MEMORY.md", ("# Memory\n\n### [API](project_api.md)\nthe public API\n\n"
                            "### [API short](project_api_short.md)\nversioned in the path\n\n"
                            "### [Clients](project_clients.md)\nSDK rules\n").encode(), days=3)

    report = world.run(capsys)

    assert ("merge", "project_api.md") in _ops(report)
    index = (world.root / "MEMORY.md").read_text()
    assert "### [API short](project_api.md)" in index
    assert _links(index) == {"project_api.md", "project_clients.md"}
    assert report["index"]["linked_missing"] == ["project_clients.md"]
    _second_run_changes_nothing(world, capsys)


def test_a_heading_linking_an_archived_file_keeps_its_words_and_loses_its_link(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # "### Old plan (project_old_plan.md archived)" would be longer than the heading, and every
    # heading stays in the window: the link becomes its words alone.
    world.put("project_old_plan.md", "Status: SUPERSEDED by the v3 plan.\n", days=90)
    world.put("project_clients.md", "SDK rules.\n")
    world.raw("MEMORY.md", ("# Memory\n\n### [Old plan](project_old_plan.md)\nthe v2 plan\n\n"
                            "### [Clients](project_clients.md)\nSDK rules\n").encode(), days=3)

    report = world.run(capsys)

    assert ("archive", "project_old_plan.md") in _ops(report)
    index = (world.root / "MEMORY.md").read_text()
    assert "### Old plan\nthe v2 plan" in index
    assert _links(index) == {"project_clients.md"}
    assert {"file": "project_old_plan.md", "state": "archived"} in report["index"]["unlinked"]
    assert report["index"]["linked_missing"] == []
    _second_run_changes_nothing(world, capsys)


def test_a_stale_memory_another_memory_links_to_is_reported_not_archived(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_old_plan.md", "Status: SUPERSEDED by the v3 plan.\n", days=90)
    world.put("project_history.md", "How we got here: see [the v2 plan](project_old_plan.md).\n")

    report = world.run(capsys)

    assert (world.root / "project_old_plan.md").exists()
    assert not [a for a in report["actions"] if a["op"] == "archive"]
    (stale,) = [s for s in report["stale"] if s["file"] == "project_old_plan.md"]
    assert any("project_history.md link to it" in r for r in stale["reasons"])
