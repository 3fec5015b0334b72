"""Conflicts resolved by time (``consolidate.resolve_conflicts``): the older memory is brought
up to the newer value, and the line it held stays below, dated and marked superseded; nothing
is deleted. Which memory is newer is Claude Code's ``modified`` stamp before the mtime. Two
counts that differ are two facts, never a conflict. Off by default: conflicts are reported.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main

DAY = 86400


def put(root: Path, rel: str, body: str, *, days: float, modified: str = "") -> Path:
    path = root / rel
    stamp = f"modified: {modified}\n" if modified else ""
    path.write_text(f"---\nname: {path.stem}\ndescription: the dev database\ntype: project\n"
                    f"{stamp}---\n{body}", encoding="utf-8")
    when = time.time() - days * DAY
    os.utime(path, (when, when))
    return path


def config(tmp_path: Path, resolve: bool) -> str:
    path = tmp_path / "config.toml"
    path.write_text(f'[consolidate]\napply = "all"\nresolve_conflicts = {str(resolve).lower()}\n',
                    encoding="utf-8")
    return str(path)


def report(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
           resolve: bool = False) -> Any:
    assert main(["report", "--format", "json", "--memory-dir", str(root), "--state-dir",
                 str(tmp_path / "state"), "--config", config(tmp_path, resolve)]) == 0
    return json.loads(capsys.readouterr().out)["roots"][0]


def run(root: Path, tmp_path: Path, resolve: bool) -> None:
    assert main(["run", "--force", "--memory-dir", str(root), "--state-dir",
                 str(tmp_path / "state"), "--config", config(tmp_path, resolve)]) == 0



def test_the_newer_stamp_wins_and_the_older_line_stays_as_superseded(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # By mtime the first file is newer; Claude Code's stamps say the second one is.
    first = put(root, "project_db.md", "- The dev database listens on port 5432 locally.\n"
                "- Backups run nightly.\n", days=1, modified="2026-05-01T10:00:00.000Z")
    second = put(root, "project_db_port.md", "- The dev database listens on port 6432 "
                 "locally.\n", days=9, modified="2026-07-15T10:00:00.000Z")
    before = second.read_bytes()
    found = report(root, tmp_path, capsys, resolve=True)
    assert found["conflicts"][0]["newer"] == "project_db_port.md"
    run(root, tmp_path, resolve=True)
    body = first.read_text(encoding="utf-8").split("---\n", 2)[2]
    assert body == ("- The dev database listens on port 6432 locally.\n"
                    "- Superseded on 2026-07-15 by project_db_port.md: The dev database "
                    "listens on port 5432 locally.\n- Backups run nightly.\n")
    assert second.read_bytes() == before


def test_a_conflict_by_key_is_reported_and_never_resolved(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One tool given two versions in two differently worded lines: weaker evidence than one
    claim written twice, so even with resolve_conflicts on, nothing changes."""
    older = put(root, "project_perf.md", "1. **Astro 5 with islands** is close to required.\n",
                days=1, modified="2026-05-01T10:00:00.000Z")
    newer = put(root, "project_stack.md", "- Settled stack: Astro 6 + React 19 islands, built "
                "with npm.\n", days=9, modified="2026-07-15T10:00:00.000Z")
    before = older.read_bytes(), newer.read_bytes()
    found = report(root, tmp_path, capsys, resolve=True)
    assert [c["newer"] for c in found["conflicts"]] == ["project_stack.md"]
    assert not [a for a in found["actions"] if a["reason"].startswith("conflict")]
    run(root, tmp_path, resolve=True)
    assert (older.read_bytes(), newer.read_bytes()) == before


def test_off_by_default_the_conflict_is_reported_and_nothing_changes(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = put(root, "project_db.md", "- The dev database listens on port 5432 locally.\n",
                days=9)
    put(root, "project_db_port.md", "- The dev database listens on port 6432 locally.\n",
        days=1)
    before = first.read_bytes()
    found = report(root, tmp_path, capsys)
    assert len(found["conflicts"]) == 1
    assert not [a for a in found["actions"] if a["reason"].startswith("conflict")]
    assert first.read_bytes() == before


def test_two_counts_that_differ_never_conflict(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "project_suite_a.md", "- The parser suite has 42 tests in the parser package.\n",
        days=9)
    put(root, "project_suite_b.md", "- The parser suite has 57 tests in the parser package.\n",
        days=1)
    assert report(root, tmp_path, capsys, resolve=True)["conflicts"] == []


@pytest.mark.parametrize(("a", "b"), [
    ("- The billing-api repo (PRIVATE) holds the invoice service.\n",
     "- The billing-api repo (PUBLIC) holds the invoice service.\n"),
    ("- We build the app with Gradle 8.3 on CI.\n", "- We build the app with Gradle 9.1 on CI.\n"),
])
def test_a_visibility_or_a_tools_version_stated_twice_is_a_conflict(
    a: str, b: str, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "reference_one.md", a, days=9)
    put(root, "reference_two.md", b, days=1)
    (found,) = report(root, tmp_path, capsys)["conflicts"]
    assert found["newer"] == "reference_two.md"


def test_a_resolved_line_keeps_the_line_ends_of_a_crlf_file(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = root / "project_db.md"
    first.write_bytes(b"---\r\nname: project_db\r\ndescription: the dev database\r\ntype: project"
                      b"\r\n---\r\n- The dev database listens on port 5432 locally.\r\n"
                      b"- Backups run nightly.\r\n")
    old = time.time() - 9 * DAY
    os.utime(first, (old, old))
    put(root, "project_db_port.md", "- The dev database listens on port 6432 locally.\n",
        days=1)
    run(root, tmp_path, resolve=True)
    data = first.read_bytes()
    assert b"- The dev database listens on port 6432 locally.\r\n- Superseded on " in data
    assert data.count(b"\n") == data.count(b"\r\n")


@pytest.mark.parametrize("apart_s, resolved", [(0, False), (30, False), (3600, True)])
def test_two_memories_written_within_a_minute_have_no_newer_one_and_are_not_resolved(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], apart_s: int,
    resolved: bool
) -> None:
    """A checkout or a copy writes every file within seconds: the order it wrote them in
    says nothing of which statement is newer, so the conflict is reported and left."""
    first = put(root, "project_db.md", "- The dev database listens on port 5432 locally.\n",
                days=3)
    second = put(root, "project_db_port.md", "- The dev database listens on port 6432 "
                 "locally.\n", days=3 - apart_s / DAY)
    before = first.read_bytes(), second.read_bytes()
    (conflict,) = report(root, tmp_path, capsys, resolve=True)["conflicts"]
    assert conflict["same_age"] is not resolved
    assert main(["report", "--memory-dir", str(root), "--state-dir", str(tmp_path / "state"),
                 "--config", config(tmp_path, True)]) == 0
    text = capsys.readouterr().out
    assert ("neither is known to be newer" in text) is not resolved
    run(root, tmp_path, resolve=True)
    assert ((first.read_bytes(), second.read_bytes()) != before) is resolved


@pytest.mark.parametrize("first_day, second_day, newer", [
    ("2026-05-02", "2026-05-20", "project_db_port.md"),
    ("2026-05-20", "2026-05-02", "project_db.md"),
    ("2026-05-20", "2099-01-01", None),  # a day ahead of the writing is a plan, no record
    ("2026-05-20", "", None),
])
def test_of_two_memories_of_one_age_the_dates_in_their_text_tell_which_is_newer(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], first_day: str,
    second_day: str, newer: str | None
) -> None:
    """A checkout wrote both at once: the memory whose latest dated record is the later day
    is the newer, and the conflict is resolved toward it; where the text does not tell, it
    is reported with no newer side and left."""
    first = put(root, "project_db.md", "- The dev database listens on port 5432 locally.\n"
                f"- Moved to the new host on {first_day}.\n", days=3)
    second = put(root, "project_db_port.md", "- The dev database listens on port 6432 "
                 "locally.\n" + (f"- Checked on {second_day}.\n" if second_day else ""),
                 days=3)
    before = first.read_bytes(), second.read_bytes()
    (conflict,) = report(root, tmp_path, capsys, resolve=True)["conflicts"]
    assert conflict["same_age"] is True
    assert conflict["newer_by_text"] is (newer is not None)
    if newer is not None:
        assert conflict["newer"] == newer
    assert main(["report", "--memory-dir", str(root), "--state-dir", str(tmp_path / "state"),
                 "--config", config(tmp_path, True)]) == 0
    said = "newer by the dates in its text" if newer else "neither is known to be newer"
    assert said in capsys.readouterr().out
    run(root, tmp_path, resolve=True)
    after = first.read_bytes(), second.read_bytes()
    if newer is None:
        assert after == before
    else:
        older = first if newer == "project_db_port.md" else second
        day = second_day if newer == "project_db_port.md" else first_day
        assert f"- Superseded on {day} by {newer}: ".encode() in older.read_bytes()
        assert (root / newer).read_bytes() == before[0 if newer == "project_db.md" else 1]


LIVE_OLD = "Always use pnpm for installs, never npm.\n"
LIVE_NEW = "Always use npm for installs, never pnpm.\n"


@pytest.mark.parametrize(("held", "said"), [
    (f"The old README said:\n\n```\n{LIVE_OLD}```\n", LIVE_NEW),
    (f"Kept for the record:\n<!--\n{LIVE_OLD}-->\n", LIVE_NEW),
    (f"<!-- {LIVE_OLD.strip()} -->\n", LIVE_NEW),
    (LIVE_OLD, f"The old README said:\n\n```\n{LIVE_NEW}```\n"),
    (LIVE_OLD, f"Kept for the record:\n<!--\n{LIVE_NEW}-->\n"),
])
def test_a_line_in_code_or_a_comment_is_never_brought_up_nor_brings_one_up(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], held: str, said: str
) -> None:
    """A claim quoted in a code block or kept in an HTML comment is an example or a record,
    on either side: not a live claim to bring up to date, nor a value to bring one up to."""
    older = put(root, "project_pm.md", held, days=40)
    put(root, "project_pm_choice.md", said, days=1)
    before = older.read_bytes()
    found = report(root, tmp_path, capsys, resolve=True)
    assert not [a for a in found["actions"] if a["reason"].startswith("conflict")]
    run(root, tmp_path, resolve=True)
    assert older.read_bytes() == before
