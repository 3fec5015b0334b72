"""A team scope (``<auto memory>/team/``) is synced to every member of the team: a deletion
does not propagate and the next pull restores the file, and any rewrite reaches everyone. So
nothing in it is merged or archived, and every change, the index included, waits for review
with "shared with your team" in the proposal."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from consolidator.cli import main

DAY = 86400


def put(root: Path, rel: str, body: str, days: float, kind: str = "project") -> None:
    path = root / rel
    path.write_text(f"---\nname: {path.stem}\ndescription: {path.stem}\ntype: {kind}\n---\n"
                    f"{body}", encoding="utf-8")
    when = time.time() - days * DAY
    os.utime(path, (when, when))


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file()}


@pytest.fixture
def team(tmp_path: Path) -> Path:
    root = tmp_path / "projects" / "-work-app" / "memory" / "team"
    root.mkdir(parents=True)
    rule = "- Release branches are cut on Mondays.\n- Tag before the deploy job starts.\n"
    put(root, "feedback_release.md", rule, days=30, kind="feedback")
    put(root, "feedback_release_copy.md", rule, days=3, kind="feedback")
    put(root, "project_freeze.md", "Status: DONE\n\nThe code freeze for 1.0 is over.\n",
        days=40)
    put(root, "project_demo.md", "The demo moved; we agreed on it yesterday.\n", days=5)
    (root / "MEMORY.md").write_text("# Team memory\n\n- [Release](feedback_release.md) — rules\n"
                                    "- [Gone](project_gone.md) — a file no longer here\n",
                                    encoding="utf-8")
    os.utime(root / "MEMORY.md", (time.time() - DAY, time.time() - DAY))
    return root


def test_a_default_run_changes_nothing_in_team_and_proposes_each_change(
    team: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree(team)
    state = tmp_path / "state"
    assert main(["run", "--force", "--memory-dir", str(team), "--state-dir", str(state)]) == 0
    assert tree(team) == before
    capsys.readouterr()
    assert main(["proposals", "--json", "--memory-dir", str(team),
                 "--state-dir", str(state)]) == 0
    out = capsys.readouterr().out
    assert "shared with your team" in out
    waiting = json.loads(out)
    ops = sorted((a["op"], a["file"]) for p in waiting for a in p["actions"])
    assert ("rewrite", "project_demo.md") in ops
    assert not [op for op, _f in ops if op in ("merge", "archive")]


def test_even_apply_all_never_merges_or_archives_a_team_file(
    team: Path, tmp_path: Path
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[consolidate]\napply = "all"\n', encoding="utf-8")
    names = sorted(p.name for p in team.glob("*.md"))
    assert main(["run", "--force", "--config", str(config), "--memory-dir", str(team),
                 "--state-dir", str(tmp_path / "state")]) == 0
    assert sorted(p.name for p in team.glob("*.md")) == names


def report_json(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                *flags: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(["report", "--format", "json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state"), *flags]) == 0
    found: dict[str, object] = json.loads(capsys.readouterr().out)["roots"][0]
    return found


def index_steps(found: dict[str, object]) -> list[tuple[str, str, bool]]:
    actions: list[dict[str, object]] = found["actions"]  # type: ignore[assignment]
    return [(str(a["kind"]), str(a["reason"]), bool(a["applied"])) for a in actions
            if a["file"] == "MEMORY.md"]


def test_the_team_index_rebuild_is_one_judgment_that_says_what_it_does(
    team: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = report_json(team, tmp_path, capsys)
    [(kind, reason, applied)] = index_steps(found)
    assert kind == "judgment" and not applied
    assert "shared with your team" in reason
    assert found["proposal"] is not None


def test_under_apply_none_an_ordinary_index_rebuild_is_proposed_once_as_safe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    put(root, "project_build.md", "The build runs on two cores and takes four minutes.\n", 9)
    (root / "MEMORY.md").write_text("# Memory index\n", encoding="utf-8")
    when = time.time() - 9 * DAY  # an index a session edited just now is left alone
    os.utime(root / "MEMORY.md", (when, when))
    assert index_steps(report_json(root, tmp_path, capsys, "--apply", "none")) == [
        ("safe", "index rebuilt", False)]
    capsys.readouterr()
    assert main(["report", "--memory-dir", str(root), "--state-dir", str(tmp_path / "state"),
                 "--apply", "none"]) == 0
    text = capsys.readouterr().out
    assert "- Would wait for review: 1 change, all safe (index rebuilt)" in text
    assert "Not applied, not proposed" not in text
