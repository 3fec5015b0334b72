"""Claude Code's own ``modified`` stamp (every memory write since 2.1.214) is a memory's age
for every judgment: its freshness, the day its relative dates count from, and which copy is
newest. A file's mtime is what a copy, a checkout or a sync left; the stamp is what Claude
Code wrote. A merge keeps the newest stamp of what it merges, as written."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main
from consolidator.store.frontmatter import parse

DAY = 86400


def stamp(days_ago: float) -> str:
    moment = datetime.now(UTC) - timedelta(days=days_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def noon_stamp_day_before(written: datetime) -> str:
    """The local day before the one a ``%Y-%m-%dT12:00:00Z`` stamp of ``written`` falls on."""
    noon = datetime(written.year, written.month, written.day, 12, tzinfo=UTC)
    return (noon.astimezone().date() - timedelta(days=1)).isoformat()


def put(root: Path, rel: str, body: str, *, mtime_days: float,
        modified: str | None = None, description: str | None = None,
        nested: bool = False) -> Path:
    """A memory; ``nested`` writes its type and stamp under ``metadata:``, as Claude Code
    writes them in many directories."""
    path = root / rel
    extra = f"modified: {modified}\n" if modified is not None else ""
    fields = f"type: project\n{extra}"
    if nested:
        fields = "metadata:\n" + "".join(f"  {line}\n" for line in fields.splitlines())
    path.write_text(f"---\nname: {path.stem}\ndescription: {description or path.stem}\n"
                    f"{fields}---\n{body}", encoding="utf-8")
    when = time.time() - mtime_days * DAY
    os.utime(path, (when, when))
    return path



def report(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(["report", "--format", "json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    return json.loads(capsys.readouterr().out)["roots"][0]


def ages(found: Any) -> dict[str, int]:
    return {m["file"]: m["age_days"] for m in found["memories"]}


def test_a_stamp_older_than_the_mtime_is_the_age(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "project_synced.md", "Synced from another machine today.\n", mtime_days=0.1,
        modified=stamp(40.2))
    put(root, "project_plain.md", "No stamp: the mtime is its age.\n", mtime_days=7.2)
    put(root, "project_odd.md", "A stamp that is no time: the mtime stands.\n",
        mtime_days=3.2, modified="last week")

    assert ages(report(root, tmp_path, capsys)) == {
        "project_synced.md": 40, "project_plain.md": 7, "project_odd.md": 3}


def test_a_stamp_newer_than_the_mtime_is_the_age(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkout gives an old tree old mtimes; the stamp still says it was written lately."""
    put(root, "project_checked_out.md", "Checked out with an old mtime.\n", mtime_days=90.2,
        modified=stamp(2.2))

    found = report(root, tmp_path, capsys)

    assert ages(found) == {"project_checked_out.md": 2}
    assert not [s for s in found["stale"] if s["file"] == "project_checked_out.md"]


def test_a_relative_date_counts_from_the_stamp(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = datetime.now(UTC) - timedelta(days=12)
    put(root, "project_hotfix.md", "Yesterday we shipped the hotfix for the login loop.\n",
        mtime_days=0.5, modified=written.strftime("%Y-%m-%dT12:00:00Z"))

    found = report(root, tmp_path, capsys)

    (rewrite,) = [a for a in found["actions"] if a["op"] == "rewrite"]
    day_before = noon_stamp_day_before(written)
    assert day_before in rewrite["reason"], rewrite["reason"]


@pytest.mark.parametrize("copied", [True, False])
def test_files_written_at_one_go_date_no_relative_day_and_a_stamp_still_does(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], copied: bool
) -> None:
    """A checkout, a copy or a restore gives every file of a folder one time: that time is
    no day a memory was written, so a session note's "yesterday" is left as written. A
    memory Claude Code stamped is dated by its stamp. Its twin, the same folder saved file
    by file over days, dates the note by its file's time."""
    for n in range(5):
        put(root, f"project_topic{n}.md", f"Topic {n} notes: owner team {n}.\n",
            mtime_days=0.05 if copied else 3.5 + 2 * n)
    put(root, "project_shipped.md", "Yesterday we shipped the hotfix for the login loop.\n",
        mtime_days=0.05 if copied else 1.5)
    written = datetime.now(UTC) - timedelta(days=12)
    put(root, "project_stamped.md", "We moved the logger yesterday.\n", mtime_days=0.05,
        modified=written.strftime("%Y-%m-%dT12:00:00Z"))

    found = report(root, tmp_path, capsys)

    rewritten = {a["file"]: a["reason"] for a in found["actions"] if a["op"] == "rewrite"}
    assert noon_stamp_day_before(written) in rewritten.pop("project_stamped.md")
    if copied:
        assert rewritten == {}
    else:
        saved = datetime.now(UTC) - timedelta(days=1.5)
        assert (saved - timedelta(days=1)).astimezone().date().isoformat() in \
            rewritten.pop("project_shipped.md")
        assert rewritten == {}


@pytest.mark.parametrize("modified", ["2099-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
                                      "0001-01-01T00:00:00Z"])
def test_a_stamp_no_write_can_have_made_dates_nothing_and_the_mtime_stands(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], modified: str
) -> None:
    """A stamp ahead of the clock, or one a hand typed, is no time of a write: the mtime is
    the memory's age and the day its relative dates count from, and nothing fails."""
    put(root, "project_logger.md", "We moved the logger yesterday, and deploy tomorrow.\n",
        mtime_days=3.5, modified=modified)

    found = report(root, tmp_path, capsys)

    assert ages(found) == {"project_logger.md": 3}
    (rewrite,) = [a for a in found["actions"] if a["op"] == "rewrite"]
    written = datetime.now(UTC) - timedelta(days=3.5)
    assert (written - timedelta(days=1)).astimezone().date().isoformat() in rewrite["reason"]


def test_the_newest_copy_by_its_stamp_survives_a_merge(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "Run the integration tests against the real database, never a mock.\n"
    put(root, "feedback_db_tests.md", body, mtime_days=1.2, modified=stamp(30))
    put(root, "feedback_real_database.md", body, mtime_days=20.2, modified=stamp(2))

    assert main(["run", "--force", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    capsys.readouterr()

    left = sorted(p.name for p in root.glob("*.md") if p.name != "MEMORY.md")
    assert left == ["feedback_real_database.md"], "the newer stamp wins, not the newer mtime"


def test_a_merge_keeps_the_newest_stamp_as_written(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The survivor is the memory that holds every line of the other; the other was written
    later, so the merged memory carries its stamp, byte for byte; nothing else of the
    survivor's frontmatter changes."""
    newer = "2026-11-30T08:15:42.123Z"
    shared = "The staging deploy runs from the release branch only.\n"
    put(root, "project_deploy.md",
        shared + "Rollbacks go through the same pipeline, never by hand.\n",
        mtime_days=5.2, modified="2026-10-01T09:00:00.000Z")
    put(root, "project_deploy_note.md", shared, mtime_days=5.2, modified=newer)

    assert main(["run", "--force", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    capsys.readouterr()

    assert not (root / "project_deploy_note.md").exists()
    data = (root / "project_deploy.md").read_bytes()
    assert f"\nmodified: {newer}\n".encode() in data
    doc = parse(data)
    assert {k: v for k, v in doc.fields.items() if k != "modified"} == {
        "name": "project_deploy", "description": "project_deploy", "type": "project"}


def test_a_stamp_under_metadata_is_the_age_and_dates_relative_days(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = datetime.now(UTC) - timedelta(days=12)
    put(root, "project_hotfix.md", "Yesterday we shipped the hotfix for the login loop.\n",
        mtime_days=0.5, modified=written.strftime("%Y-%m-%dT12:00:00Z"), nested=True)

    found = report(root, tmp_path, capsys)

    assert ages(found)["project_hotfix.md"] in (11, 12)  # noon of the day, 12 days back
    (rewrite,) = [a for a in found["actions"] if a["op"] == "rewrite"]
    assert noon_stamp_day_before(written) in rewrite["reason"]


@pytest.mark.parametrize("own", ["2026-10-01T09:00:00.000Z", None],
                         ids=["older-stamp-under-metadata", "no-stamp"])
def test_a_merge_writes_the_newest_stamp_under_metadata_where_the_type_is(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], own: str | None
) -> None:
    """The survivor keeps its type under ``metadata:``: the newer stamp of the memory merged
    into it goes there, in place of its own older one or as a new line of that block."""
    newer = "2026-11-30T08:15:42.123Z"
    shared = "The staging deploy runs from the release branch only.\n"
    put(root, "project_deploy.md",
        shared + "Rollbacks go through the same pipeline, never by hand.\n",
        mtime_days=5.2, modified=own, nested=True)
    put(root, "project_deploy_note.md", shared, mtime_days=5.2, modified=newer)

    assert main(["run", "--force", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    capsys.readouterr()

    data = (root / "project_deploy.md").read_bytes()
    assert f"\nmetadata:\n  type: project\n  modified: {newer}\n---\n".encode() in data
    assert parse(data).fields["metadata.modified"] == newer


def test_a_key_conflict_names_the_memory_claude_code_wrote_last_as_the_newer(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One tool given two versions, in other words: the stamp, not the mtime a sync left,
    says which statement is the newer one; two counts beside one word never conflict."""
    put(root, "project_perf.md", "Astro 5 with islands is close to required for speed.\n",
        mtime_days=0.5, modified=stamp(30.2))
    put(root, "project_stack.md", "Settled stack: Astro 6 + React 19 islands, built with "
        "npm.\n", mtime_days=20.2, modified=stamp(3.2))
    put(root, "project_videos.md", "## Top 15\n\nThe list is refreshed weekly.\n",
        mtime_days=9.2)
    put(root, "project_channels.md", "Top 5 channels by views are tracked.\n",
        mtime_days=9.2)

    found = report(root, tmp_path, capsys)

    assert found["conflicts"] == [{
        "files": ["project_perf.md", "project_stack.md"], "newer": "project_stack.md",
        "same_age": False, "newer_by_text": False, "similarity": 0.0,
        "reason": "project_perf.md says Astro 5 where project_stack.md says Astro 6",
        "evidence": ["Astro 5 with islands is close to required for speed.",
                     "Settled stack: Astro 6 + React 19 islands, built with npm."]}]
