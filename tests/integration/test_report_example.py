"""`report` on the bundled example: a correct plan, and not one byte changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from consolidator.cli import main
from tests.conftest import EXAMPLES, snapshot_tree


def _report(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = main(["report", "--format", "json", *args])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_report_on_the_example_changes_no_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = snapshot_tree(EXAMPLES)
    _report(capsys, "--memory-dir", str(EXAMPLES / "memory"), "--state-dir", str(tmp_path / "s"))
    main(["report", "--memory-dir", str(EXAMPLES / "memory"), "--state-dir", str(tmp_path / "s")])
    assert snapshot_tree(EXAMPLES) == before
    assert not (tmp_path / "s").exists(), "report must record nothing"


def test_report_json_has_the_documented_shape(
    capsys: pytest.CaptureFixture[str], example_copy: Path
) -> None:
    doc = _report(capsys, "--memory-dir", str(example_copy))
    assert doc["schema_version"] == 1 and doc["dry_run"] is True
    assert doc["run_id"][:8].isdigit() and doc["run_id"][15] == "Z"
    (root,) = doc["roots"]
    assert root["memory_dir"] == str(example_copy)
    assert root["status"] == "planned"
    assert [g["id"] for g in root["gates"]] == [f"G{i}" for i in range(1, 8)]
    for key in ("memories", "duplicates", "conflicts", "stale", "unparsed", "actions"):
        assert isinstance(root[key], list)
    assert set(root["index"]) >= {"lines", "bytes", "within_limits", "added", "removed", "dropped"}
    assert root["llm"] == {"backend": "offline", "calls": 0, "input_tokens": 0, "output_tokens": 0}


def test_report_finds_the_planted_index_drift(
    capsys: pytest.CaptureFixture[str], example_copy: Path
) -> None:
    (root,) = _report(capsys, "--memory-dir", str(example_copy), "--apply", "all")["roots"]
    assert sorted(root["index"]["removed"]) == [
        "project_migration_v2.md", "project_old_payments.md", "project_release_freeze.md"
    ]
    assert sorted((u["file"], u["state"]) for u in root["index"]["unlinked"]) == [
        ("project_migration_v2.md", "archived"), ("project_old_payments.md", "missing"),
        ("project_release_freeze.md", "archived"),
    ]
    assert root["index"]["added"] == ["reference_ci_dashboard.md"]
    assert root["index"]["within_limits"] is True and root["index"]["over_limits"] is False
    assert root["unparsed"] == [{"file": "notes/2026-11-02-daily-log.md", "error": "no frontmatter"}]
    assert not any(a["reason"].startswith("index detail") for a in root["actions"]), (
        "an index within its limits keeps its long hooks")
    nested = next(m for m in root["memories"] if m["file"] == "reference_ci_dashboard.md")
    assert nested["type"] == "reference"
    assert len(root["memories"]) == 20


def test_old_memories_carry_claude_codes_age_warning(
    capsys: pytest.CaptureFixture[str], example_copy: Path
) -> None:
    import os
    import time

    old = example_copy / "user_role.md"
    ten_days_ago = time.time() - 10 * 86400 - 60
    os.utime(old, (ten_days_ago, ten_days_ago))
    os.utime(example_copy / "feedback_pnpm.md")
    yesterday = example_copy / "user_tooling.md"
    os.utime(yesterday, (time.time() - 86400 - 60,) * 2)
    memories = {m["file"]: m for m in _report(capsys, "--memory-dir", str(example_copy))["roots"][0]["memories"]}
    assert memories["user_role.md"]["age_days"] == 10
    assert memories["user_role.md"]["freshness"] == "10 days ago"
    assert memories["user_role.md"]["warnings"][0].startswith(
        "This memory is 10 days old. Memories are point-in-time observations, not live state"
    )
    assert memories["user_tooling.md"]["freshness"] == "yesterday"
    assert memories["user_tooling.md"]["warnings"] == []
    assert memories["feedback_pnpm.md"]["freshness"] == "today"


def test_malformed_memories_are_listed_not_fatal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "good.md").write_text("---\nname: good\ndescription: d\ntype: user\n---\nbody\n")
    (root / "junk.md").write_bytes(b"\x00\x01\x02binary")
    (root / "latin1.md").write_bytes("---\nname: caf\xe9\n---\n".encode("latin-1"))
    (root / "open.md").write_text("---\nname: x\n")
    (root / "huge.md").write_bytes(b"---\nname: h\n---\n" + b"x" * (1024 * 1024 + 1))
    before = snapshot_tree(root)
    doc = _report(capsys, "--memory-dir", str(root))
    errors = {u["file"]: u["error"] for u in doc["roots"][0]["unparsed"]}
    assert errors == {
        "huge.md": "larger than 1024 KiB (1048593 bytes)",
        "junk.md": "binary file (NUL bytes)",
        "latin1.md": "invalid UTF-8 at byte 13",
        "open.md": "frontmatter has no closing '---'",
    }
    assert snapshot_tree(root) == before


def test_report_output_file_may_not_be_inside_a_root(
    capsys: pytest.CaptureFixture[str], example_copy: Path
) -> None:
    code = main(["report", "--memory-dir", str(example_copy), "--output", str(example_copy / "r.md")])
    assert code == 2
    assert not (example_copy / "r.md").exists()
    assert "inside the memory dir" in capsys.readouterr().err


def _markdown(capsys: pytest.CaptureFixture[str], example_copy: Path, *args: str) -> str:
    code = main(["report", "--memory-dir", str(example_copy),
                 "--project-root", str(example_copy.parent / "project"), *args])
    out = capsys.readouterr().out
    assert code == 0
    return out


def _headings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("#")]


def _section(text: str, title: str) -> str:
    """The text under ``### title`` (its ``####`` parts included) up to the next ``###``."""
    start = text.index(f"\n### {title}\n") + len(title) + 6
    ends = [i for i in (text.find("\n### ", start), text.find("\n## ", start)) if i >= 0]
    return text[start : min(ends, default=len(text))]


def test_the_markdown_report_of_the_example_reads_summary_first_memories_last(
    capsys: pytest.CaptureFixture[str], example_copy: Path
) -> None:
    text = _markdown(capsys, example_copy)
    assert _headings(text) == [
        _headings(text)[0],
        f"## {example_copy} (auto)",
        "### Summary",
        "### What a run would apply",
        "### What would wait for review",
        "### Findings that did not become an action",
        "#### Conflicts",
        "#### Stale, not archived",
        "#### Files with no frontmatter to read (left untouched)",
        "### Index",
        "### Gates",
        "### Memories",
    ]
    # `report` records nothing, so its header names no run id `history` could look up
    assert _headings(text)[0] == "# Dream Consolidator report"
    assert "_dry run: nothing was changed or recorded_" in text
    summary = _section(text, "Summary")
    assert "- Status: **planned**" in summary
    assert "- A run would apply: 2 merges, links updated in 1 memory, index rebuilt" in summary
    assert ("- Would wait for review: 4 judgments (2 archives, 1 relative-date rewrite, "
            "index lines Claude Code loads changed)") in summary
    assert "`consolidator proposals`" in summary and "`consolidator apply`" in summary
    assert ("- Found: 2 duplicates (2 became actions), 1 conflict, 3 stale memories "
            "(2 became actions)") in summary
    assert "1 unparsed file (left alone)" in summary
    # Unlinking it is a judgment waiting for review; found it is, whatever the mode.
    assert "1 index pointer to a missing file" in summary
    assert _section(text, "Memories").strip() == (
        "20 memories with no warning of their own (frontmatter, name, secret, use) "
        "besides their age; findings about them are listed above: the same report with "
        "`--verbose` lists them")


def test_the_example_shows_each_action_and_finding_once(
    capsys: pytest.CaptureFixture[str], example_copy: Path
) -> None:
    text = _markdown(capsys, example_copy)
    applied = _section(text, "What a run would apply")
    waiting = _section(text, "What would wait for review")
    findings = _section(text, "Findings that did not become an action")  # with its ####
    assert "- **merge** `feedback_no_mocks.md` into `feedback_real_db_tests.md` (safe)" in applied
    assert "- **merge** `project_deploy_notes.md` into `project_deploy.md` (safe)" in applied
    numbered = [line.split(" (")[0] for line in waiting.splitlines() if line[:1].isdigit()]
    assert numbered == [
        "1. **archive** `project_migration_v2.md`",
        "2. **archive** `project_release_freeze.md`",
        "3. **rewrite** `project_demo.md`",
        "4. **rewrite** `MEMORY.md`",
    ]
    # Merged duplicates and archived stale memories are their actions, not findings too.
    for name in ("feedback_no_mocks.md", "project_deploy_notes.md", "project_migration_v2.md",
                 "project_release_freeze.md"):
        assert name not in findings, name
    assert "- `project_db_port.md` vs `reference_database.md`" in findings
    assert "- `project_auth_module.md` (10 days old; about a part of it)" in findings
    assert "- `notes/2026-11-02-daily-log.md`: no frontmatter" in findings
    assert text.count("> Status: SUPERSEDED by the v3 migration plan.") == 1


def test_the_example_with_verbose_lists_every_memory_with_its_age_once(
    capsys: pytest.CaptureFixture[str], example_copy: Path
) -> None:
    text = _markdown(capsys, example_copy, "--verbose")
    memories = _section(text, "Memories")
    rows = [line for line in memories.splitlines() if line.startswith("| `")]
    assert len(rows) == 20
    assert "| `user_role.md` | user | 10 days ago |  |" in rows
    assert "This memory is" not in text
    assert text.rstrip("\n").endswith(rows[-1]), "the memories come last"


@pytest.mark.parametrize("apply, applied, waiting", [
    ("all", "2 merges, 2 archives, 1 relative-date rewrite, links updated in 1 memory, "
            "index lines Claude Code loads changed", "none"),
    ("none", "nothing", "6 changes: 2 safe (2 merges) and 4 judgments (2 archives, "
                        "1 relative-date rewrite, index lines Claude Code loads changed)"),
])
def test_the_example_summary_follows_the_apply_setting(
    capsys: pytest.CaptureFixture[str], example_copy: Path, apply: str, applied: str,
    waiting: str
) -> None:
    summary = _section(_markdown(capsys, example_copy, "--apply", apply), "Summary")
    assert f"- A run would apply: {applied}\n" in summary
    assert f"- Would wait for review: {waiting}" in summary
