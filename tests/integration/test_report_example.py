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
