"""The report quotes the sentence each judgment rests on, so a person can check it without
opening the file: stale findings and archives, relative-date rewrites (before and after),
conflicts and similar pairs, in the JSON and in the Markdown a person reads."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main

DAY = 86400


def put(root: Path, rel: str, description: str, body: str, days: float) -> Path:
    path = root / rel
    stem = path.stem
    path.write_text(f"---\nname: {stem}\ndescription: {description}\ntype: project\n---\n{body}",
                    encoding="utf-8")
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    memory = tmp_path / "memory"
    memory.mkdir()
    put(memory, "project_old_deploy.md", "How the old VM deploy worked",
        "SUPERSEDED by the container pipeline; kept for history.\n\n"
        "Deploys ran from the build VM with a shell script.\n", days=200)
    put(memory, "project_tracker.md", "Migration task tracker",
        "# Migration tracker\n\n### RESOLVED (settled by the load test)\n\n"
        "The queue keeps its order under load.\n\n| task | state |\n|---|---|\n"
        "| move queue | DONE |\n| move cache | open |\n", days=40)
    put(memory, "project_hotfix.md", "Hotfix for the login loop",
        "Yesterday we shipped the hotfix for the login loop.\n", days=12)
    put(memory, "project_db_port.md", "Dev database connection",
        "The dev database listens on port 5432 on localhost.\n", days=60)
    put(memory, "project_db_pooler.md", "Dev database through the pooler",
        "The dev database listens on port 6432 on localhost.\n", days=5)
    return memory


def report(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
           fmt: str = "json") -> Any:
    assert main(["report", "--format", fmt, "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    out = capsys.readouterr().out
    return json.loads(out)["roots"][0] if fmt == "json" else out


def test_a_whole_memory_status_is_archived_with_its_line_quoted(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = report(root, tmp_path, capsys)
    (stale,) = [s for s in found["stale"] if s["file"] == "project_old_deploy.md"]
    assert stale["whole_memory"] is True
    assert stale["evidence"] == ["SUPERSEDED by the container pipeline; kept for history."]
    (archive,) = [a for a in found["actions"] if a["op"] == "archive"]
    assert archive["file"] == "project_old_deploy.md"
    assert archive["evidence"] == stale["evidence"]


def test_status_words_in_a_sub_heading_and_a_table_archive_nothing(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = report(root, tmp_path, capsys)
    assert "project_tracker.md" not in {a["file"] for a in found["actions"]}
    for stale in found["stale"]:
        if stale["file"] == "project_tracker.md":
            assert stale["whole_memory"] is False


def test_a_rewrite_shows_its_line_before_and_after(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = report(root, tmp_path, capsys)
    (rewrite,) = [a for a in found["actions"] if a["op"] == "rewrite"]
    written = datetime.fromtimestamp((root / "project_hotfix.md").stat().st_mtime).date()
    day = (written - timedelta(days=1)).isoformat()
    assert rewrite["file"] == "project_hotfix.md"
    assert rewrite["evidence"] == [
        "Yesterday we shipped the hotfix for the login loop. -> "
        f"On {day} we shipped the hotfix for the login loop."
    ]


def test_a_conflict_quotes_both_lines(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = report(root, tmp_path, capsys)
    (conflict,) = found["conflicts"]
    assert conflict["files"] == ["project_db_pooler.md", "project_db_port.md"]
    assert conflict["newer"] == "project_db_pooler.md"
    assert conflict["evidence"] == ["The dev database listens on port 6432 on localhost.",
                                    "The dev database listens on port 5432 on localhost."]


def test_the_markdown_report_quotes_the_evidence_under_each_finding(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = report(root, tmp_path, capsys, fmt="markdown")
    assert "  > SUPERSEDED by the container pipeline; kept for history." in text
    assert "  > Yesterday we shipped the hotfix for the login loop. -> " in text
    assert "  > The dev database listens on port 6432 on localhost." in text


def test_a_secret_in_an_evidence_line_is_masked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    put(memory, "project_staging.md", "Staging login",
        "Yesterday we rotated the staging login; DB_PASSWORD=Xq7vT2pLm9 now.\n", days=3)
    found = report(memory, tmp_path, capsys)
    (rewrite,) = [a for a in found["actions"] if a["op"] == "rewrite"]
    assert "Xq7vT2pLm9" not in json.dumps(found["actions"])
    assert "[REDACTED]" in rewrite["evidence"][0]


@pytest.mark.parametrize(("folder", "judged"), [
    ("archive", False), ("_old", False), ("Archiv", False), ("notes", True),
])
def test_a_note_set_aside_in_a_folder_of_old_notes_pairs_with_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str, judged: bool
) -> None:
    """The old copy of a rule its owner keeps in `archive/`, and its older port: history,
    neither merged into the live rule nor set against it. The same files in a folder of
    live notes are a duplicate and a conflict."""
    memory = tmp_path / "memory"
    (memory / folder).mkdir(parents=True)
    rule = "- Integration tests must hit a real Postgres database.\n- Never mock it.\n"
    put(memory, "feedback_real_db.md", "Tests use a real database", rule, days=30)
    put(memory, f"{folder}/feedback_real_db.md", "Tests use a real database", rule, days=90)
    put(memory, "project_db_port.md", "Dev database connection",
        "The dev database listens on port 6432 on localhost.\n", days=20)
    put(memory, f"{folder}/project_db_port.md", "Dev database connection",
        "The dev database listens on port 5432 on localhost.\n", days=120)
    found = report(memory, tmp_path, capsys)
    paired = {f for a in found["actions"] if a["op"] == "merge" for f in a["sources"]}
    paired |= {f for c in found["conflicts"] for f in c["files"]}
    assert bool(paired) is judged
    assert all(a["op"] != "archive" for a in found["actions"] if not judged)


@pytest.mark.parametrize(("mine", "theirs", "paired"), [
    ("archive", "", False), ("", "archive/", False), ("notes", "", True), ("", "notes/", True)])
def test_a_set_aside_note_is_not_reported_as_the_team_s_memory_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mine: str, theirs: str, paired: bool
) -> None:
    memory = tmp_path / "memory"
    (memory / "team" / theirs).mkdir(parents=True)
    (memory / mine).mkdir(exist_ok=True)
    rule = "- Integration tests must hit a real Postgres database.\n- Never mock it.\n"
    put(memory, f"{mine}/feedback_real_db.md".lstrip("/"), "Tests use a real database", rule,
        days=90)
    put(memory, f"team/{theirs}feedback_real_db.md", "Tests use a real database", rule,
        days=30)
    put(memory, "project_db_port.md", "Dev database connection",
        "The dev database listens on port 6432 on localhost.\n", days=20)
    found = report(memory, tmp_path, capsys)
    assert bool(found["across_scopes"]) is paired
