"""No lock file where users commit: the tool's own lock lives in the state dir, and Claude
Code's ``.consolidate-lock`` is touched only in an auto-memory root, where Claude Code keeps
it. A subagent's memory inside a project's repository, and a team scope, get no file of the
tool's; their "last consolidated" is kept in the state dir and gate G4 reads it there."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from consolidator.cli import main

DAY = 86400


def memories(root: Path) -> None:
    root.mkdir(parents=True)
    for i in range(2):
        path = root / f"feedback_rule_{i}.md"
        path.write_text("---\nname: rule\ndescription: lint first\ntype: feedback\n---\n"
                        "Always run the linter before pushing.\n", encoding="utf-8")
        os.utime(path, (time.time() - 30 * DAY + i, time.time() - 30 * DAY + i))


def names(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir())


@pytest.mark.parametrize("where", [".claude/agent-memory/reviewer", "memory/team"])
def test_a_run_leaves_no_file_of_its_own_in_a_project_or_team_root(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project" / where
    memories(root)
    state = tmp_path / "state"
    assert main(["run", "--force", "--memory-dir", str(root), "--state-dir", str(state)]) == 0
    assert not [n for n in names(root) if n.startswith(".consolidate")]
    capsys.readouterr()
    # The run counts as the last consolidation all the same: G4 reads it from the state dir.
    assert main(["status", "--json", "--memory-dir", str(root), "--state-dir", str(state)]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["last_consolidated"] is not None
    g4 = next(g for g in row["gates"] if g["id"] == "G4")
    assert g4["passed"] is False


def test_an_auto_memory_root_keeps_claude_codes_lock_file(tmp_path: Path) -> None:
    root = tmp_path / "projects" / "-work-app" / "memory"
    memories(root)
    assert main(["run", "--force", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    assert ".consolidate-lock" in names(root)
    assert ".consolidate.flock" not in names(root)
