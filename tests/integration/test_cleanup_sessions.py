"""Claude Code deletes transcripts older than ``cleanupPeriodDays`` (30 by default). A session
whose transcript was deleted still happened: gate G6 counts the sessions an earlier scan saw
since the last consolidation, so a cleanup never reads as "no sessions"."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from consolidator.cli import main
from consolidator.state import statedir
from tests.conftest import SESSION_IDS, write_sessions

DAY = 86400


def g6(capsys: pytest.CaptureFixture[str], root: Path, state: Path) -> dict[str, object]:
    assert main(["run", "--json", "--memory-dir", str(root), "--state-dir", str(state)]) == 0
    (found,) = json.loads(capsys.readouterr().out)["roots"]
    return next(g for g in found["gates"] if g["id"] == "G6")


def test_sessions_whose_transcripts_were_cleaned_up_still_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "projects" / "-work-app"
    root = project / "memory"
    root.mkdir(parents=True)
    memory = root / "project_app.md"
    memory.write_text("---\nname: app\ndescription: the app\ntype: project\n---\nIt runs.\n",
                      encoding="utf-8")
    os.utime(memory, (time.time() - 30 * DAY, time.time() - 30 * DAY))
    state = tmp_path / "state"
    write_sessions(project, 3)
    first = g6(capsys, root, state)
    assert first["passed"] is False and "3 session(s)" in str(first["reason"])

    for sid in SESSION_IDS[:3]:  # the cleanup
        (project / f"{sid}.jsonl").unlink()
    for sid in SESSION_IDS[3:5]:  # two new sessions, over by now
        path = project / f"{sid}.jsonl"
        path.write_text('{"type": "user"}\n', encoding="utf-8")
        os.utime(path, (time.time() - 1800, time.time() - 1800))
    mark = statedir.scan_mark(statedir.root_state(state, root))
    os.utime(mark, (time.time() - 3600, time.time() - 3600))  # past the scan throttle

    second = g6(capsys, root, state)
    assert second["passed"] is True and "5 session(s)" in str(second["reason"])
