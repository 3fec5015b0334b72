"""An index line that counts something otherwise than its memory: the report and a run show
the warning on that memory, quoting both, and even `--apply all` changes neither file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from consolidator.cli import main
from tests.conftest import snapshot_tree

INDEX = "# Memory\n\n- [Agent team](project_team.md) — Atlas 10 agents on the rented VPS\n"
MEMORY = ("---\nname: project_team\ndescription: Atlas runs 9 agents on the rented VPS\n"
          "type: project\n---\nThe agents share one VPS; each has its own cron cycle.\n")
WARNING = ('MEMORY.md line 3 says "Atlas 10 agents on the rented VPS", and the memory\'s '
           'description "Atlas runs 9 agents on the rented VPS", without 10: one of them is '
           "out of date")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text(INDEX, encoding="utf-8")
    (folder / "project_team.md").write_text(MEMORY, encoding="utf-8")
    return folder


def test_the_report_warns_on_the_memory_in_json_and_in_markdown(
        root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = str(tmp_path / "state")
    assert main(["report", "--memory-dir", str(root), "--state-dir", state,
                 "--format", "json"]) == 0
    (found,) = json.loads(capsys.readouterr().out)["roots"]
    assert main(["report", "--memory-dir", str(root), "--state-dir", state]) == 0
    markdown = capsys.readouterr().out

    (team,) = found["memories"]
    assert WARNING in team["warnings"]
    findings = markdown.split("### Findings that did not become an action")[1]
    assert "#### Index lines that count otherwise than their memory" in findings
    assert f"- `project_team.md`: {WARNING}" in findings


def test_a_run_that_applies_everything_changes_neither_the_index_nor_the_memory(
        root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot_tree(root)

    assert main(["run", "--force", "--apply", "all", "--json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0

    (found,) = json.loads(capsys.readouterr().out)["roots"]
    assert WARNING in found["memories"][0]["warnings"]
    after = snapshot_tree(root)
    after.pop(".consolidate-lock")  # the lock marker Claude Code shares, left as it does
    assert after == before
