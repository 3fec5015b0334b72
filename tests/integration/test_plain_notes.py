"""A file with no frontmatter (a note written by hand, a memory whose fields are bold labels)
is never changed, but where it says what a memory or another such note says, the report
names the pair with its matching lines: the same point kept in two places a session may read.
A dated note (a day's log), a note listing other notes and a pair with only one line alike
(a template's line atop each note) are not reported."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main

DAY = 86400
RULES = ("- Never push to main directly; open a pull request and wait for one review.\n"
         "- Run the migration dry run against the staging database before every release.\n"
         "- Keep secrets in the vault, never in the repository or the CI variables.\n")
REWORDED = ("# Working rules\n\n**Kind**: feedback\n\n"
            "- Direct pushes to main are never allowed: open a pull request, wait for a review.\n"
            "- Before every release, run the migration dry run against the staging database.\n"
            "- Secrets stay in the vault, never in the repository or in CI variables.\n")


def put(root: Path, rel: str, text: str, days: float = 10) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    when = time.time() - days * DAY
    os.utime(path, (when, when))
    return path


def memory(root: Path, rel: str, body: str) -> Path:
    return put(root, rel, f"---\nname: {Path(rel).stem}\ndescription: {Path(rel).stem}\n"
                          f"type: feedback\n---\n{body}")


def report(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(["report", "--format", "json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    return json.loads(capsys.readouterr().out)["roots"][0]



def test_a_note_with_no_frontmatter_restating_a_memory_is_reported_never_merged(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory(root, "feedback_rules.md", RULES)
    note = put(root, "working_rules.md", REWORDED)
    before = note.read_bytes()

    found = report(root, tmp_path, capsys)

    pairs = found["similar_unparsed"]
    assert [p["files"] for p in pairs] == [["feedback_rules.md", "working_rules.md"]]
    assert len(pairs[0]["lines"]) >= 2
    assert found["similar"] == []
    assert not [a for a in found["actions"] if "working_rules.md" in (a["file"], *a["sources"])]
    assert main(["report", "--memory-dir", str(root), "--state-dir", str(tmp_path / "s2")]) == 0
    assert "A file with no frontmatter that says what another says" in capsys.readouterr().out
    assert main(["run", "--force", "--apply", "all", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "s3")]) == 0
    assert note.read_bytes() == before


@pytest.mark.parametrize("rel, text", [
    ("2026-03-19.md", REWORDED),  # a day's log records what the memory holds as a rule
    # a memory whose frontmatter stands under a title: reported as such, not a note
    ("titled.md", "# Rules\n\n---\nname: titled\ndescription: d\ntype: feedback\n---\n"
                  + REWORDED),
    ("index_of_rules.md", REWORDED + "\nSee [a](a.md), [b](b.md) and [c](c.md).\n"),
    ("one_line.md", ("# Notes\n\n- Never push to main directly; open a pull request and "
                     "wait for one review.\n- The office plants are watered on Fridays.\n")),
])
def test_a_dated_note_a_list_of_notes_and_one_line_alike_are_not_reported(
    rel: str, text: str, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory(root, "feedback_rules.md", RULES)
    put(root, rel, text)
    assert report(root, tmp_path, capsys)["similar_unparsed"] == []


def test_a_template_header_atop_each_note_is_no_evidence(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Three notes open with the same two lines of a template, then say different things.
    header = ("> **Purpose**: record what the project decided and why, for the next session.\n"
              "> **How to update**: edit by hand, or run the sync command after each change.\n")
    for name, body in [("project.md", "The importer reads CSV files from the inbox folder.\n"),
                       ("user.md", "The user prefers short answers with code first.\n"),
                       ("lessons.md", "Never trust the cached schema after a migration.\n")]:
        put(root, name, f"# {name[:-3].title()}\n\n{header}\n{body}")
    assert report(root, tmp_path, capsys)["similar_unparsed"] == []


def test_past_forty_notes_none_is_compared_and_the_report_says_so(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory(root, "feedback_rules.md", RULES)
    put(root, "working_rules.md", REWORDED)
    for n in range(40):
        put(root, f"note_{n:02}.md", f"Note {n}: the weather was fine and nothing happened.\n")
    found = report(root, tmp_path, capsys)
    assert found["similar_unparsed"] == []
    assert "41 files with no frontmatter were not compared with the memories: more than 40 " \
        "(logs a tool keeps, as a rule)" in found["notes"]
