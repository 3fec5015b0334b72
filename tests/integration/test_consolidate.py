"""`run --force` on real memory directories: each finding gets the right action on disk,
and nothing is ever lost.

Every run goes through ``consolidator.cli.main`` in-process, with its own state dir and
project root. Memories get mtimes days in the past: a memory touched within ``idle_minutes``
is never changed, so a fresh file would make every test vacuous.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import io
import json
import os
import re
import signal
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import consolidator.store.transaction as transaction_mod
from consolidator.cli import main
from consolidator.config import Config
from consolidator.detect.text import normal_line, normal_set
from consolidator.runner import RunOptions, run_all
from consolidator.state.statedir import root_key
from consolidator.stop import Stopped
from consolidator.store.frontmatter import parse
from tests.conftest import EXAMPLES, snapshot_tree

DAY = 86400
LOCKS = (".consolidate-lock", ".consolidate.flock")


# --- helpers ------------------------------------------------------------------------------


class World:
    """A memory root, a state dir and a project root under one temporary folder."""

    def __init__(self, base: Path) -> None:
        self.root = base / "memory"
        self.state = base / "state"
        self.project = base / "project"
        self.root.mkdir(parents=True)
        (self.project / "src" / "legacy").mkdir(parents=True)  # a cited file's folder
        (self.project / "src" / "server.ts").write_text("// the server\n")

    def put(
        self,
        rel: str,
        body: str,
        *,
        days: float = 10,
        name: str | None = None,
        description: str | None = None,
        mtype: str = "project",
    ) -> Path:
        """Write a memory with frontmatter, ``days`` old."""
        stem = Path(rel).stem
        text = (
            f"---\nname: {name or stem}\n"
            f"description: {description or 'Notes about ' + stem.replace('_', ' ')}\n"
            f"type: {mtype}\n---\n{body}"
        )
        return self.raw(rel, text.encode("utf-8"), days=days)

    def raw(self, rel: str, data: bytes, *, days: float = 10) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        age(path, days)
        return path

    def run(self, capsys: pytest.CaptureFixture[str], *extra: str, code: int = 0) -> dict[str, Any]:
        """``run --force --json`` on this root; returns the root's report plus ``run_id``."""
        argv = [
            "run", "--force", "--json", "--apply", "all",
            "--memory-dir", str(self.root),
            "--state-dir", str(self.state),
            "--project-root", str(self.project),
            *extra,
        ]
        assert main(argv) == code
        doc = json.loads(capsys.readouterr().out)
        (root,) = doc["roots"]
        return {**root, "run_id": doc["run_id"], "dry_run": doc["dry_run"]}

    def run_dir(self, run_id: str) -> Path:
        return self.state / root_key(self.root) / "runs" / run_id

    def archive(self, run_id: str) -> Path:
        return self.run_dir(run_id) / "archive"

    def tree(self) -> dict[str, tuple[bytes, int, int]]:
        return {k: v for k, v in snapshot_tree(self.root).items() if k not in LOCKS}


def text_of(items: Any) -> str:
    """Lines joined into a body, each ending in a newline."""
    return "".join(item + "\n" for item in items)


def age(path: Path, days: float) -> None:
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))


def mtime_ns(path: Path) -> int:
    return path.stat().st_mtime_ns


def body_of(path: Path) -> str:
    return parse(path.read_bytes()).body


def local_day(path: Path, shift: int = 0) -> str:
    """The local calendar date of ``path``'s mtime, moved by ``shift`` days."""
    return (datetime.fromtimestamp(path.stat().st_mtime).date() + timedelta(days=shift)).isoformat()


def ops(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a["op"], a["file"]) for a in report["actions"]]


def links_in(text: str) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", text)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


API_LINES = [
    "- The public API is versioned in the URL path.",
    "- Breaking changes need a new major version.",
    "- Every endpoint returns JSON errors with a code field.",
    "- Rate limits are 100 requests per minute per token.",
]
API_REWORDED = [
    "* every endpoint returns json errors with a CODE field",
    "*   the public API is versioned in the url path",
]


# --- merges -------------------------------------------------------------------------------


def test_a_contained_memory_merges_into_its_container_losing_no_line(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    container = world.put("project_api.md", text_of(API_LINES), days=20)
    contained = world.put(
        "project_api_notes.md", text_of(API_REWORDED), days=3,
        description="Short notes on versioning the public API",
    )
    container_body = body_of(container)
    source_bytes, source_mtime = contained.read_bytes(), mtime_ns(contained)

    report = world.run(capsys)

    assert report["status"] == "consolidated"
    assert report["duplicates"] == [{
        "files": ["project_api.md", "project_api_notes.md"], "keep": "project_api.md",
        "similarity": 0.5,
    }]
    assert ("merge", "project_api.md") in ops(report)
    merge = next(a for a in report["actions"] if a["op"] == "merge")
    assert merge["sources"] == ["project_api.md", "project_api_notes.md"]
    survivor = body_of(container)
    assert survivor.startswith(container_body), "the survivor's own text is kept as written"
    assert normal_set(source_bytes.decode().split("---\n", 2)[2]) <= normal_set(survivor)
    assert "Short notes on versioning the public API" in survivor
    assert mtime_ns(container) == source_mtime, "the survivor takes the newest source mtime"
    assert not contained.exists()
    archived = world.archive(report["run_id"]) / "project_api_notes.md"
    assert archived.read_bytes() == source_bytes
    assert mtime_ns(archived) == source_mtime


def test_equal_copies_merge_into_the_newest(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    body = text_of(API_LINES)
    reordered = text_of(line.upper().rstrip(".") for line in reversed(API_LINES))
    older = world.put("a_api.md", body, days=30)
    newer = world.put("z_api.md", reordered, days=2)
    newer_bytes, newer_mtime = newer.read_bytes(), mtime_ns(newer)
    older_bytes = older.read_bytes()

    report = world.run(capsys)

    assert report["duplicates"][0]["keep"] == "z_api.md"
    assert not older.exists()
    assert (world.archive(report["run_id"]) / "a_api.md").read_bytes() == older_bytes
    assert mtime_ns(newer) == newer_mtime
    assert body_of(newer).startswith(parse(newer_bytes).body)


def test_links_to_a_merged_away_memory_are_repointed_in_memories_and_the_index(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    other = world.put(
        "project_clients.md",
        "Client SDKs follow [the API notes](project_api_notes.md) and [[project_api_notes]].\n"
        "They are generated from the OpenAPI spec on every release ([spec][s]).\n\n"
        "[s]: project_api_notes.md#spec\n\n"
        "```markdown\n- [Example](project_api_notes.md) — a pointer as written\n```\n",
        days=40,
    )
    other_mtime = mtime_ns(other)
    world.raw("MEMORY.md", (
        "# Memory\n\n## Project\n"
        "- [API](project_api.md) — how the public API is versioned\n"
        "- [API notes](project_api_notes.md) — short notes on the API\n"
        "- [Clients](project_clients.md) — client SDKs\n"
    ).encode(), days=5)

    report = world.run(capsys)

    assert ("rewrite", "project_clients.md") in ops(report)
    text = body_of(other)
    assert "[the API notes](project_api.md)" in text
    assert "[[project_api]]" in text
    assert "[s]: project_api.md#spec" in text, "a reference definition follows too"
    assert "- [Example](project_api_notes.md) — a pointer as written" in text, \
        "a link in a code example is no link: it stays as written"
    assert text.count("project_api_notes") == 1
    assert mtime_ns(other) == other_mtime, "repointing a link does not make a memory fresh"
    index = (world.root / "MEMORY.md").read_text()
    assert "project_api_notes.md" not in links_in(index)
    assert links_in(index).count("project_api.md") >= 1
    assert "project_clients.md" in links_in(index)


@pytest.mark.parametrize("index", ["invalid utf-8", "symlink"])
def test_nothing_leaves_the_root_while_its_index_cannot_be_read(
    world: World, capsys: pytest.CaptureFixture[str], index: str
) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    pointers = ("- [API](project_api.md) — the API\n"
                "- [API notes](project_api_notes.md) — notes on it\n").encode()
    if index == "symlink":
        target = world.root.parent / "elsewhere.md"
        target.write_bytes(pointers)
        age(target, 10)
        (world.root / "MEMORY.md").symlink_to(target)
    else:
        world.raw("MEMORY.md", pointers + b"caf\xe9\n")
    before = world.tree()

    report = world.run(capsys)

    assert world.tree() == before, "the merge waits: the index's pointer could not follow it"
    assert report["status"] == "consolidated"
    assert report["skipped"] == []
    assert report["index"]["unreadable"], "the index's zero figures are no measurement"
    (held,) = [n for n in report["notes"] if "not proposed" in n]
    assert held.startswith("MEMORY.md cannot be read (")
    assert "1 change moving a memory out not proposed" in held
    assert held.endswith("replace the link with a copy of the file it points at and run again"
                         if index == "symlink" else "mend it and run again")
    assert main(["history", "--state-dir", str(world.state)]) == 0
    assert "1 held, neither applied nor proposed" in capsys.readouterr().out, \
        "the run's line in history does not read as if nothing was found"
    assert main(["proposals", "--json", "--state-dir", str(world.state),
                 "--memory-dir", str(world.root)]) == 0
    waiting = json.loads(capsys.readouterr().out)
    assert "project_api_notes.md" not in json.dumps(waiting), \
        "no proposal an apply would refuse while the index stays as it is"


def test_an_apply_names_an_index_that_became_a_symlink_as_unreadable_not_gone(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    index = world.raw("MEMORY.md", b"- [API](project_api.md) \xe2\x80\x94 the API\n"
                                   b"- [API notes](project_api_notes.md) \xe2\x80\x94 notes\n")
    world.put("user_role.md", "A data engineer who reviews every migration.\n", mtype="user")
    world.run(capsys, "--apply", "none")  # the merge and the index's new pointer wait
    target = world.root.parent / "elsewhere.md"
    index.rename(target)
    index.symlink_to(target)
    before = world.tree()

    code = main(["apply", "--memory-dir", str(world.root), "--state-dir", str(world.state)])

    out = capsys.readouterr().out
    assert code == 1, out  # nothing applied
    assert world.tree() == before
    assert "refused, MEMORY.md cannot be read now (symbolic link" in out, out
    assert "MEMORY.md is gone" not in out


def guard_as(path: Path, guard: str, world: World) -> None:
    """Guard ``path`` as its owner may: write-protect it, or give it a second name."""
    if guard == "write-protected":
        path.chmod(0o444)
    else:
        os.link(path, world.root.parent / "elsewhere.md")


@pytest.mark.parametrize("guard", ["write-protected", "hard link"])
def test_a_memory_its_owner_guards_is_left_as_it_is(
    world: World, capsys: pytest.CaptureFixture[str], guard: str
) -> None:
    """A rename needs only the folder's permission: the tool must not step over a file's
    own write protection, nor split a file another name shares."""
    world.put("project_api.md", text_of(API_LINES), days=20)
    notes = world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    world.raw("MEMORY.md", b"- [API](project_api.md) \xe2\x80\x94 the API\n"
                           b"- [API notes](project_api_notes.md) \xe2\x80\x94 notes on it\n")
    guard_as(notes, guard, world)
    before = world.tree()

    report = world.run(capsys)

    assert world.tree() == before
    assert any(s.startswith("project_api_notes.md: ") and "left alone" in s
               and ("write-protected" in s if guard == "write-protected" else "hard links" in s)
               for s in report["skipped"]), report["skipped"]


@pytest.mark.parametrize(("guarded", "guard"), [
    ("project_clients.md", "write-protected"), ("project_clients.md", "hard link"),
    ("MEMORY.md", "write-protected"), ("MEMORY.md", "hard link"),
])
def test_no_memory_moves_out_while_a_file_linking_to_it_is_one_its_owner_guards(
    world: World, capsys: pytest.CaptureFixture[str], guarded: str, guard: str
) -> None:
    """Its link could not follow: the merge waits (the file is never written either)."""
    world.put("project_api.md", text_of(API_LINES), days=20)
    notes = world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    world.put("project_clients.md", "Client SDKs follow [the notes](project_api_notes.md).\n",
              days=40)
    world.raw("MEMORY.md", b"# Memory\n- [API](project_api.md) \xe2\x80\x94 the API\n"
                           b"- [API notes](project_api_notes.md) \xe2\x80\x94 notes\n"
                           b"- [Clients](project_clients.md) \xe2\x80\x94 SDKs\n")
    guard_as(world.root / guarded, guard, world)
    before = world.tree()

    report = world.run(capsys)

    assert notes.exists() and world.tree() == before
    said = " ".join(report["notes"] + report["skipped"])
    assert guarded in said and ("write-protected" if guard == "write-protected"
                                else "2 hard links") in said, said


def test_an_apply_refuses_an_archive_a_memory_now_links_to(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_old_plan.md", "The old plan used sessions for auth.\n",
              description="SUPERSEDED - the old plan for auth", days=30)
    current = world.put("project_auth.md", "Auth uses tokens now.\n", days=30)
    world.run(capsys, "--apply", "none")  # the archive waits for review
    with current.open("a") as out:
        out.write("Why we moved: see [the old plan](project_old_plan.md).\n")
    age(current, 1)
    linking = current.read_bytes()

    code = main(["apply", "--memory-dir", str(world.root), "--state-dir", str(world.state),
                 "--only", "1"])

    out = capsys.readouterr().out
    assert code == 1, out  # nothing chosen applied
    assert (world.root / "project_old_plan.md").exists() and current.read_bytes() == linking
    assert "1: refused, project_auth.md now links to it" in out, out


def test_an_apply_archives_two_stale_memories_that_link_to_each_other_together(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """Neither stays behind to link to the other: both go, in one answer."""
    world.put("project_old_plan.md", "The old plan; see [the old API](project_old_api.md).\n",
              description="SUPERSEDED - the old plan for auth", days=30)
    world.put("project_old_api.md", "Sessions were kept in a cookie.\n",
              description="SUPERSEDED - the old API", days=30)
    world.run(capsys, "--apply", "none")

    code = main(["apply", "--memory-dir", str(world.root), "--state-dir", str(world.state)])

    out = capsys.readouterr().out
    assert code == 0, out
    assert not (world.root / "project_old_plan.md").exists()
    assert not (world.root / "project_old_api.md").exists()


def test_an_apply_refuses_a_merge_while_a_memory_linking_to_it_is_in_a_session_s_hands(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    clients = world.put("project_clients.md",
                        "Client SDKs follow [the notes](project_api_notes.md).\n", days=40)
    world.run(capsys, "--apply", "none")  # the merge waits for review
    age(clients, 1 / 24 / 60)  # a minute ago: a live session may be writing it
    before = {k: v for k, v in world.tree().items() if k != "MEMORY.md"}

    code = main(["apply", "--memory-dir", str(world.root), "--state-dir", str(world.state),
                 "--only", "1"])

    out = capsys.readouterr().out
    assert code == 1, out  # nothing chosen applied (the index a run made safely is written)
    assert {k: v for k, v in world.tree().items() if k != "MEMORY.md"} == before
    assert "project_clients.md links to project_api_notes.md and cannot be rewritten now" \
        in out, out


def test_a_run_is_not_undone_while_an_apply_of_its_proposal_stands(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """Even where the apply changed only files the run never touched: undone, the run would
    withdraw its proposal and leave the applied action standing with no run behind it."""
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)  # a safe merge
    old = world.put("project_old_plan.md", "The old plan used sessions for auth.\n",
                    description="SUPERSEDED - the old plan for auth", days=30)  # a judgment
    run_id = world.run(capsys, "--apply", "safe")["run_id"]
    assert main(["apply", run_id, "--memory-dir", str(world.root),
                 "--state-dir", str(world.state)]) == 0
    hint = capsys.readouterr().out.rsplit("consolidator undo ", 1)[1]
    apply_id = hint.split()[0]
    assert hint.split()[1:3] == ["--state-dir", str(world.state)], hint
    assert not old.exists()
    before = world.tree()

    code = main(["undo", run_id, "--state-dir", str(world.state)])

    err = capsys.readouterr().err
    assert code == 1 and world.tree() == before, err
    assert f"run {apply_id} applied its proposal since; undo it first" in err
    assert f"consolidator undo {apply_id} --state-dir {world.state}" in err, \
        "the command to paste finds the same state"
    assert main(["undo", apply_id, "--state-dir", str(world.state)]) == 0
    assert main(["undo", run_id, "--state-dir", str(world.state)]) == 0
    capsys.readouterr()
    assert old.exists() and (world.root / "project_api_notes.md").exists()


# The index before and after a run that merges project_api_notes.md into project_api.md and
# archives project_launch.md, by the way its pointers link: wiki links, reference definitions.
POINTER_FORMS = {
    "wiki": (
        "# Memory\n\n"
        "- [[project_api]] — how the public API is versioned\n"
        "- [[project_api_notes|API notes]] — short notes on the API\n"
        "- [[Old launch]] — the launch plan\n"
        "- [[user_role]] — who the user is\n",
        "# Memory\n\n"
        "- [[project_api]] — how the public API is versioned\n"
        "- [[project_api|API notes]] — short notes on the API\n"
        "- Old launch (project_launch.md archived) — the launch plan\n"
        "- [[user_role]] — who the user is\n",
    ),
    "reference": (
        "# Memory\n\n"
        "- [API][a] — how the public API is versioned\n"
        "- [API notes][n] — short notes on the API\n"
        "- [Launch][l] — the launch plan\n"
        "- [Role][r] — who the user is\n\n"
        "[a]: project_api.md\n[n]: project_api_notes.md\n[l]: project_launch.md\n"
        "[r]: user_role.md\n",
        "# Memory\n\n"
        "- [API][a] — how the public API is versioned\n"
        "- [API notes][n] — short notes on the API\n"
        "- [Launch][l] — the launch plan\n"
        "- [Role][r] — who the user is\n\n"
        "[a]: project_api.md\n[n]: project_api.md\nl: (project_launch.md archived)\n"
        "[r]: user_role.md\n",
    ),
}


@pytest.mark.parametrize("form", sorted(POINTER_FORMS))
def test_pointers_in_the_index_count_and_follow_merges_and_archives(
    world: World, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """Every memory has a pointer (none is added), the merged-away one's follows its
    survivor, and no link names a file that is gone (an archived one's turns into words)."""
    before, after = POINTER_FORMS[form]
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    world.put("project_launch.md", "The launch plan moved.\n", days=30, name="Old launch",
              description="The launch plan (SUPERSEDED)")
    world.put("user_role.md", "A data engineer.\n", days=30, mtype="user")
    world.raw("MEMORY.md", before.encode(), days=5)

    report = world.run(capsys)

    assert ("merge", "project_api.md") in ops(report)
    assert ("archive", "project_launch.md") in ops(report)
    assert report["index"]["added"] == []
    assert (world.root / "MEMORY.md").read_text() == after


def _stopped_after_the_merge(world: World) -> None:
    """A real run, stopped as a SIGTERM stops it, right after its merge archived the memory
    merged away and before the links that merge calls for."""
    opts = RunOptions(state_dir=world.state, project_root=str(world.project), dry_run=False,
                      force=True, trigger="run")
    records = 0

    def count() -> None:  # the journal's meta, the merge, its write and its archive
        nonlocal records
        records += 1
        if records == 6:
            opts.stop.request(signal.SIGTERM)

    opts = dataclasses.replace(opts, after_record=count)
    with pytest.raises(Stopped):
        run_all([world.root], Config(), opts, datetime.now(UTC))


def test_links_a_stopped_run_left_at_a_merged_away_memory_are_repointed_by_the_next(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run stopped by a signal between a merge and the links it calls for leaves the
    index and other memories pointing at the file it archived: the next run repoints them,
    as safe as the merge's own follow-through (not a judgment to unlink a missing file)."""
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    other = world.put("project_clients.md",
                      "Client SDKs follow [the API notes](project_api_notes.md).\n"
                      "They are generated from the OpenAPI spec on every release.\n", days=40)
    world.raw("MEMORY.md", b"# Memory\n\n- [API](project_api.md) \xe2\x80\x94 the public API\n"
                           b"- [API notes](project_api_notes.md) \xe2\x80\x94 notes on it\n"
                           b"- [Clients](project_clients.md) \xe2\x80\x94 client SDKs\n", days=5)
    _stopped_after_the_merge(world)
    capsys.readouterr()  # what the stopped run printed
    assert not (world.root / "project_api_notes.md").exists()
    assert "project_api_notes.md" in (world.root / "MEMORY.md").read_text(), "left dangling"
    rules = "- Run the linter before every commit.\n- Write the why in the body.\n"
    world.put("feedback_lint.md", rules, days=10, mtype="feedback")
    world.put("feedback_lint_copy.md", rules, days=4, mtype="feedback")  # merged first

    second = world.run(capsys, "--apply", "safe")

    assert ("merge", "feedback_lint_copy.md") in ops(second) or \
        ("merge", "feedback_lint.md") in ops(second), "this run's own journal is the newest"

    index = (world.root / "MEMORY.md").read_text()
    assert "project_api_notes.md" not in index and "[API notes](project_api.md)" in index
    assert "[the API notes](project_api.md)" in body_of(other)
    assert second["proposal"] is None, "nothing about those links waits for review"


def test_a_link_to_a_name_a_finished_run_merged_away_is_not_taken_for_its_survivor(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """The name of a memory merged away long ago may be the user's again, for another
    memory since removed: a link to it is a missing file, for review, not the old survivor."""
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    world.run(capsys, "--apply", "safe")
    world.raw("MEMORY.md", b"- [API](project_api.md) \xe2\x80\x94 the public API\n"
                           b"- [Billing](project_api_notes.md) \xe2\x80\x94 invoices\n", days=5)

    world.run(capsys, "--apply", "safe")

    assert "[Billing](project_api_notes.md)" in (world.root / "MEMORY.md").read_text()


def test_chinese_duplicates_merge_and_chinese_relative_dates_are_rewritten(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = [
        "- 提交信息用英文书写。",
        "- 使用 Conventional Commits 格式。",
        "- 每个提交只做一件事。",
    ]
    container = world.put("feedback_commits.md", text_of(rules), days=25,
                          mtype="feedback")
    contained = world.put("feedback_commits_zh.md", "* 每个提交 只做一件事\n* 提交信息用英文书写\n",
                          days=4, mtype="feedback")
    dated = world.put("project_ci.md", "明天起 CI 会检查每个拉取请求的提交信息格式。\n", days=9)
    dated_mtime, tomorrow = mtime_ns(dated), local_day(dated, 1)
    source_bytes = contained.read_bytes()

    report = world.run(capsys)

    assert report["duplicates"][0]["keep"] == "feedback_commits.md"
    assert not contained.exists()
    assert (world.archive(report["run_id"]) / "feedback_commits_zh.md").read_bytes() == source_bytes
    assert all(normal_line(line) in normal_set(body_of(container)) for line in rules)
    assert body_of(dated) == f"{tomorrow}起 CI 会检查每个拉取请求的提交信息格式。\n"
    assert mtime_ns(dated) == dated_mtime


def test_memories_alike_but_different_are_not_merged(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    a = world.put("project_api.md", text_of(API_LINES[:3]), days=20)
    b = world.put("project_api_v2.md",
                  text_of(API_LINES[:2]) + "- Errors are plain text.\n", days=3)
    before = world.tree()
    report = world.run(capsys)
    assert report["duplicates"] == []
    assert a.exists() and b.exists()
    after = world.tree()
    assert after["project_api.md"] == before["project_api.md"]
    assert after["project_api_v2.md"] == before["project_api_v2.md"]


# --- stale, conflicts, dates, files that are not memories ----------------------------------


def test_a_memory_with_a_status_marker_is_archived_and_dropped_from_the_index(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    old = world.put("project_migration_v2.md",
                    "Status: SUPERSEDED by the v3 migration plan.\nSplit orders into two tables.\n",
                    days=90)
    data, stamp = old.read_bytes(), mtime_ns(old)
    world.raw("MEMORY.md", b"# Memory\n- [v2 migration](project_migration_v2.md) - orders split\n")

    report = world.run(capsys)

    assert report["stale"][0]["file"] == "project_migration_v2.md"
    assert ("archive", "project_migration_v2.md") in ops(report)
    assert not old.exists()
    archived = world.archive(report["run_id"]) / "project_migration_v2.md"
    assert archived.read_bytes() == data and mtime_ns(archived) == stamp
    assert "project_migration_v2.md" in report["index"]["removed"]
    assert {"file": "project_migration_v2.md", "state": "archived"} in report["index"]["unlinked"]
    index = (world.root / "MEMORY.md").read_text()
    assert "](project_migration_v2.md)" not in index, "no link to an archived file"
    assert "(project_migration_v2.md archived)" in index, "its words stay in the index"


def test_a_memory_whose_deadline_passed_is_archived(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    passed = (datetime.now() - timedelta(days=40)).date().isoformat()
    freeze = world.put("project_freeze.md", f"Merge freeze until {passed} for the release.\n",
                       days=60)
    data = freeze.read_bytes()

    report = world.run(capsys)

    (stale,) = report["stale"]
    assert stale["file"] == "project_freeze.md"
    assert f"deadline passed: 'until {passed}'" in stale["reasons"][0]
    assert ("archive", "project_freeze.md") in ops(report)
    assert not freeze.exists()
    assert (world.archive(report["run_id"]) / "project_freeze.md").read_bytes() == data


def test_a_missing_path_is_reported_and_the_memory_left_untouched(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_auth.md",
              "Auth lives in `src/legacy/auth.py`; the server is src/server.ts.\n", days=120)
    before = world.tree()

    report = world.run(capsys)

    assert report["stale"] == [{
        "file": "project_auth.md", "age_days": 120,
        "reasons": ["cites `src/legacy/auth.py` — not in the project (about a part)"],
        "evidence": ["Auth lives in `src/legacy/auth.py`; the server is src/server.ts."],
        "whole_memory": False,
    }]
    assert [a for a in report["actions"] if a["file"] == "project_auth.md"] == []
    assert world.tree()["project_auth.md"] == before["project_auth.md"]


def test_conflicting_memories_are_reported_and_left_untouched(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_db_port.md", "The dev database listens on port 5432 on localhost.\n",
              days=38)
    world.put("reference_database.md",
              "The dev database listens on port 6432 on localhost.\nUse psql to connect.\n",
              days=8, mtype="reference")
    before = world.tree()

    report = world.run(capsys)

    (conflict,) = report["conflicts"]
    assert conflict["files"] == ["project_db_port.md", "reference_database.md"]
    assert conflict["newer"] == "reference_database.md"
    assert "'5432'" in conflict["reason"] and "'6432'" in conflict["reason"]
    assert report["duplicates"] == []
    touched = {a["file"] for a in report["actions"]} | {
        s for a in report["actions"] for s in a["sources"]
    }
    assert not touched & {"project_db_port.md", "reference_database.md"}
    after = world.tree()
    for file in ("project_db_port.md", "reference_database.md"):
        assert after[file] == before[file]


def test_relative_dates_are_rewritten_and_the_mtime_kept(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = world.put(
        "project_demo.md",
        "The client demo was moved to tomorrow; we agreed on it yesterday.\n"
        "Run `make demo-today` for the demo data.\n",
        days=6,
    )
    stamp = mtime_ns(demo)
    head_before = parse(demo.read_bytes()).head

    report = world.run(capsys)

    assert ("rewrite", "project_demo.md") in ops(report)
    assert body_of(demo) == (
        f"The client demo was moved to {local_day(demo, 1)}; "
        f"we agreed on it on {local_day(demo, -1)}.\n"
        "Run `make demo-today` for the demo data.\n"
    )
    assert parse(demo.read_bytes()).head == head_before
    assert mtime_ns(demo) == stamp


def test_files_without_frontmatter_are_left_byte_for_byte(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    log = world.raw("notes/2026-11-02-daily-log.md",
                    b"# Daily log\n\nyesterday we fixed the build\n- The public API is versioned "
                    b"in the URL path.\nStatus: DONE\n", days=28)
    readme = world.raw("README.md", text_of(["Copy of the API rules:", *API_LINES]).encode(),
                       days=28)
    other = world.raw("script.sh", b"echo yesterday\n", days=28)
    before = world.tree()

    report = world.run(capsys)

    assert {u["file"] for u in report["unparsed"]} == {"notes/2026-11-02-daily-log.md", "README.md"}
    after = world.tree()
    for path in (log, readme, other):
        rel = str(path.relative_to(world.root))
        assert after[rel] == before[rel]
    touched = {a["file"] for a in report["actions"]} | {
        s for a in report["actions"] for s in a["sources"]
    }
    assert not touched & {"notes/2026-11-02-daily-log.md", "README.md"}
    assert report["duplicates"] == [] and report["stale"] == []
    index_links = links_in((world.root / "MEMORY.md").read_text())
    assert "README.md" not in index_links and "notes/2026-11-02-daily-log.md" not in index_links


def test_frontmatter_with_a_second_colon_reads_cleanly_and_survives_merge_and_rewrite(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    head = (b"---\nname: deploy\ndescription: Deploy: always run migrations first\n"
            b"metadata:\n  type: feedback\n  originSessionId: 3f9a\n---\n")
    survivor = world.raw("feedback_deploy.md", head + text_of(API_LINES).encode(), days=20)
    world.put("feedback_deploy_notes.md", text_of(API_REWORDED), days=3,
              description="Deploy: notes on the API", mtype="feedback")
    rewritten = world.raw(
        "project_sync.md",
        b"---\nname: sync\ndescription: Sync: the weekly meeting\ntype: project\n---\n"
        b"We moved the sync to Thursday yesterday.\n", days=6)
    rewritten_head = parse(rewritten.read_bytes()).head

    report = world.run(capsys)

    assert ("merge", "feedback_deploy.md") in ops(report)
    assert ("rewrite", "project_sync.md") in ops(report)
    assert survivor.read_bytes().startswith(head)
    assert parse(rewritten.read_bytes()).head == rewritten_head
    assert "yesterday" not in body_of(rewritten)
    types = {m["file"]: m["type"] for m in report["memories"]}
    assert types["feedback_deploy.md"] == "feedback"
    warnings = [w for m in report["memories"] for w in m["warnings"]]
    assert not [w for w in warnings if "YAML" in w]


# --- hands off live files -----------------------------------------------------------------


def test_a_memory_touched_within_idle_minutes_is_left_alone_even_under_force(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=1 / 288)
    world.put("project_old.md", "Status: SUPERSEDED by the new plan.\n", days=2 / 1440)
    world.put("project_demo.md", "We agreed on the demo date yesterday.\n", days=10 / 1440)
    before = world.tree()

    report = world.run(capsys)

    assert report["status"] == "consolidated"
    after = world.tree()
    for file in ("project_api.md", "project_api_notes.md", "project_old.md", "project_demo.md"):
        assert after[file] == before[file], file
    assert not {a["op"] for a in report["actions"]} & {"merge", "archive", "rewrite"}
    note = next(n for n in report["notes"] if n.startswith("left alone"))
    assert "project_api_notes.md" in note and "project_old.md" in note
    assert "project_demo.md" in note and "project_api.md" not in note


def test_no_live_memory_is_left_linking_to_a_merged_away_file(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    live = world.put("project_live.md", "Versioning: [the notes](project_api_notes.md).\n",
                     days=1 / 1440)
    before = live.read_bytes()

    world.run(capsys)

    assert live.read_bytes() == before, "a live memory is never touched"
    for target in links_in(live.read_text()):
        assert (world.root / target).exists(), f"{target}: linked from a live memory, gone"


def _wrap(monkeypatch: pytest.MonkeyPatch, method: str, target: str, line: bytes) -> list[str]:
    """Make ``Transaction.<method>`` find ``target`` changed by a live session first."""
    original = getattr(transaction_mod.Transaction, method)
    hits: list[str] = []

    def wrapped(self: Any, stat: Any, *args: Any, **kwargs: Any) -> Any:
        if stat.rel == target and not hits:
            hits.append(stat.rel)
            with open(self.root / stat.rel, "ab") as fh:
                fh.write(line)
        return original(self, stat, *args, **kwargs)

    monkeypatch.setattr(transaction_mod.Transaction, method, wrapped)
    return hits


LIVE_LINE = b"A line a live session wrote meanwhile.\n"


def test_a_file_changed_between_scan_and_rewrite_is_skipped_and_keeps_the_new_line(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = world.put("project_demo.md", "We agreed on the demo date yesterday.\n", days=6)
    hits = _wrap(monkeypatch, "rewrite", "project_demo.md", LIVE_LINE)

    report = world.run(capsys)

    assert hits == ["project_demo.md"]
    assert report["status"] == "consolidated"
    text = demo.read_bytes()
    assert LIVE_LINE in text
    assert b"yesterday" in text, "a skipped file is not rewritten"
    history = _history(world, capsys)
    assert any("project_demo.md" in s and "changed" in s for s in history[-1]["skipped"])
    assert history[-1]["counts"]["skipped"] == 1


def test_the_run_report_names_a_file_skipped_because_it_changed(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    world.put("project_demo.md", "We agreed on the demo date yesterday.\n", days=6)
    _wrap(monkeypatch, "rewrite", "project_demo.md", LIVE_LINE)
    report = world.run(capsys)
    assert any("project_demo.md" in text and "changed" in text for text in _strings(report))


def _strings(value: Any) -> list[str]:
    """Every string anywhere in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_a_merge_whose_survivor_changed_keeps_every_source_live(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    survivor = world.put("project_api.md", text_of(API_LINES), days=20)
    source = world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    source_before = source.read_bytes()
    _wrap(monkeypatch, "rewrite", "project_api.md", LIVE_LINE)

    world.run(capsys)

    assert LIVE_LINE in survivor.read_bytes()
    assert source.read_bytes() == source_before, "no source is archived into a skipped survivor"
    assert not list((world.state / root_key(world.root)).glob("runs/*/archive/*"))


def test_a_source_that_changed_before_the_merge_archived_it_stays_live_and_uncounted(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    source = world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    _wrap(monkeypatch, "archive", "project_api_notes.md", LIVE_LINE)

    world.run(capsys)

    assert LIVE_LINE in source.read_bytes(), "the changed source stays live"
    counts = _history(world, capsys)[-1]["counts"]
    assert (counts["merges"], counts["merged_away"], counts["archives"]) == (1, 0, 0)


def test_a_file_changed_before_it_is_archived_stays_live(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old = world.put("project_old.md", "Status: SUPERSEDED by the new plan.\n", days=90)
    _wrap(monkeypatch, "archive", "project_old.md", LIVE_LINE)

    world.run(capsys)

    assert old.exists()
    assert LIVE_LINE in old.read_bytes()
    history = _history(world, capsys)
    assert any("project_old.md" in s for s in history[-1]["skipped"])


def _history(world: World, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    assert main(["history", "--json", "--state-dir", str(world.state)]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


# --- whole runs ---------------------------------------------------------------------------


def _busy_world(world: World) -> None:
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    world.put("project_clients.md", "SDKs follow [the notes](project_api_notes.md).\n", days=30)
    world.put("project_old.md", "Status: SUPERSEDED by the new plan.\n", days=90)
    world.put("project_demo.md", "We agreed on the demo date yesterday.\n", days=6)
    world.put("project_auth.md", "Auth lives in src/legacy/auth.py.\n", days=100)
    world.put("project_db_port.md", "The dev database listens on port 5432 here.\n", days=40)
    world.put("reference_db.md", "The dev database listens on port 6432 here.\n", days=7,
              mtype="reference")
    world.raw("notes/log.md", b"no frontmatter here, yesterday\n", days=9)
    world.raw("MEMORY.md", (
        "# Memory\n\n## Project\n"
        "- [API notes](project_api_notes.md) — short notes\n"
        "- [Gone](project_gone.md) — a memory that was deleted by hand\n"
        "- [Auth](project_auth.md) — " + "where the auth code lives and how sessions work " * 4
        + "\n"
    ).encode(), days=5)


def test_a_second_run_changes_nothing(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    _busy_world(world)
    first = world.run(capsys)
    assert {"merge", "archive", "rewrite"} <= {a["op"] for a in first["actions"]}
    after_first = world.tree()

    second = world.run(capsys)

    assert world.tree() == after_first
    assert second["actions"] == []
    assert second["index"]["changed"] is False
    assert not world.archive(second["run_id"]).exists()


def test_a_second_run_changes_nothing_after_a_relative_deadline_was_rewritten(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.put("project_freeze.md", "Merge freeze until tomorrow for the release.\n", days=10)
    world.run(capsys)
    after_first = world.tree()

    second = world.run(capsys)

    assert second["actions"] == []
    assert world.tree() == after_first


def test_a_dry_run_changes_nothing(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    _busy_world(world)
    before = snapshot_tree(world.root)

    report = world.run(capsys, "--dry-run")

    assert report["dry_run"] is True and report["status"] == "planned"
    assert {"merge", "archive", "rewrite"} <= {a["op"] for a in report["actions"]}
    assert snapshot_tree(world.root) == before
    assert not world.run_dir(report["run_id"]).exists()


# --- the bundled example ------------------------------------------------------------------


def _story_ages(memory_dir: Path) -> None:
    """The ages examples/set_ages.py gives the example (a checkout makes every file new)."""
    spec = importlib.util.spec_from_file_location("example_ages", EXAMPLES / "set_ages.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.set_memory_ages(memory_dir, time.time_ns())


def test_the_example_consolidates_as_its_readme_describes(
    example_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _story_ages(example_copy)
    root = example_copy
    before = snapshot_tree(root)
    heads = {
        rel: parse(data).head for rel, (data, _m, _mode) in before.items()
        if rel.endswith(".md") and rel != "MEMORY.md" and not rel.startswith("notes/")
    }
    state = tmp_path / "state"
    argv = ["run", "--force", "--json", "--apply", "all", "--memory-dir", str(root),
            "--state-dir", str(state), "--project-root", str(root.parent / "project")]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    (report,) = doc["roots"]
    archive = state / root_key(root) / "runs" / doc["run_id"] / "archive"
    after = snapshot_tree(root)

    # Duplicates: the reworded pair merges into the newer file; the contained one into its
    # container; both merged-away files lie byte for byte in the archive.
    dups = {d["keep"]: d["files"] for d in report["duplicates"]}
    assert dups == {
        "feedback_real_db_tests.md": ["feedback_real_db_tests.md", "feedback_no_mocks.md"],
        "project_deploy.md": ["project_deploy.md", "project_deploy_notes.md"],
    }
    for gone in ("feedback_no_mocks.md", "project_deploy_notes.md",
                 "project_release_freeze.md", "project_migration_v2.md"):
        assert gone not in after
        assert (archive / gone).read_bytes() == before[gone][0]
    deploy = body_of(root / "project_deploy.md")
    notes_body = parse(before["project_deploy_notes.md"][0]).body
    assert all(line in deploy for line in notes_body.splitlines() if line.strip())

    # The conflict is reported with the newer file, and neither file is touched.
    assert [(c["files"], c["newer"]) for c in report["conflicts"]] == [
        (["project_db_port.md", "reference_database.md"], "reference_database.md")
    ]
    for file in ("project_db_port.md", "reference_database.md"):
        assert after[file] == before[file]

    # Stale: the missing path is only reported; no existing path or link is flagged.
    stale = {s["file"]: s["reasons"] for s in report["stale"]}
    assert stale["project_auth_module.md"] == ["cites `src/legacy/auth.py` — not in the project (about a part)"]
    assert after["project_auth_module.md"] == before["project_auth_module.md"]
    assert set(stale) == {"project_auth_module.md", "project_migration_v2.md",
                          "project_release_freeze.md"}
    assert ("archive", "project_migration_v2.md") in ops(report)
    assert ("archive", "project_release_freeze.md") in ops(report)

    # A session note's relative dates rewritten from Claude Code's stamp (noon UTC on
    # Tuesday 2026-11-03; on a fresh clone its file's time is a copy's), mtime kept; a
    # rule's "明天起" (from tomorrow on) left as written: no date is given for its passage.
    demo = root / "project_demo.md"
    demo_text = body_of(demo)
    stamped = datetime(2026, 11, 3, 12, tzinfo=UTC).astimezone().date()
    assert "yesterday" not in demo_text
    assert f"we agreed on it on {stamped - timedelta(days=1)}.\n" in demo_text
    if stamped.isoformat() == "2026-11-03":  # a Tuesday, as in every zone from UTC-11 to +11
        assert demo_text.startswith("The client demo was moved to 2026-11-10; ")
    assert after["project_demo.md"][1] == before["project_demo.md"][1]
    assert after["feedback_commit_messages_zh.md"] == before["feedback_commit_messages_zh.md"]

    # Frontmatter of every memory left is byte for byte what it was; the daily log too.
    for rel, head in heads.items():
        if rel in after:
            assert parse(after[rel][0]).head == head, rel
    assert after["notes/2026-11-02-daily-log.md"] == before["notes/2026-11-02-daily-log.md"]

    # The index: drift repaired within the limits, nothing hand-written lost.
    index = (root / "MEMORY.md").read_text()
    targets = links_in(index)
    assert "project_old_payments.md" in report["index"]["removed"]
    assert "Old payments provider (project_old_payments.md missing) — how refunds worked" in index
    assert report["index"]["added"] == ["reference_ci_dashboard.md"]
    live = sorted(r for r in after if r.endswith(".md") and r != "MEMORY.md"
                  and not r.startswith("notes/"))
    assert sorted(set(targets)) == live, "every live memory has a pointer, and only they"
    assert "Staging URL is https://staging.acme-shop.example" in index
    old_lines = before["MEMORY.md"][0].decode().splitlines()
    checkout = next(line for line in old_lines if "project_checkout_flow.md" in line)
    assert len(checkout) > 150 and checkout in index.splitlines(), "within limits: kept as is"
    assert len(index.splitlines()) <= 200
    assert "[the test rules](feedback_real_db_tests.md)" in body_of(
        root / "project_checkout_flow.md")


# --- the property: nothing is ever lost -----------------------------------------------------

POOL = [
    "Integration tests must hit a real Postgres database.",
    "- integration tests must hit a real postgres database",
    "Never mock the database layer in tests.",
    "* never mock the database layer in tests",
    "The dev database listens on port 5432 on localhost.",
    "The dev database listens on port 6432 on localhost.",
    "Always use pnpm to install packages.",
    "Always use npm to install packages.",
    "Deploys happen every Wednesday afternoon.",
    "Deploys happen every Thursday afternoon.",
    "Status: SUPERSEDED by the v3 plan.",
    "Merge freeze until 2026-03-12 for the spring release.",
    "Auth lives in src/legacy/auth.py.",
    "集成测试必须连接真实的数据库。",
    "生产环境在每周三下午部署。",
    "**Why:** a mocked test passed while the migration failed.",
    "We no longer use Redis for sessions.",
    "",
]

memories_strategy = st.lists(
    st.tuples(
        st.lists(st.sampled_from(POOL), min_size=1, max_size=5),
        st.integers(min_value=1, max_value=400),
        st.sampled_from(["project", "feedback", "reference", "user"]),
    ),
    min_size=1,
    max_size=6,
)


def _lines_of(folder: Path) -> set[str]:
    out: set[str] = set()
    for path in folder.rglob("*.md"):
        if path.name != "MEMORY.md":
            out |= {line.strip() for line in path.read_text(encoding="utf-8").splitlines()}
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memories=memories_strategy)
def test_every_line_of_every_memory_survives_a_run(
    memories: list[tuple[list[str], int, str]]
) -> None:
    with tempfile.TemporaryDirectory() as base:
        world = World(Path(base))
        originals: dict[str, list[str]] = {}
        for i, (body_lines, days, mtype) in enumerate(memories):
            rel = f"{mtype}_{i}.md"
            world.put(rel, text_of(body_lines), days=days + i / 100,
                      mtype=mtype)
            originals[rel] = [line.strip() for line in body_lines if line.strip()]
        argv = ["run", "--force", "--json", "--apply", "all", "--memory-dir", str(world.root),
                "--state-dir", str(world.state), "--project-root", str(world.project)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(argv) == 0
        run_id = json.loads(out.getvalue())["run_id"]
        kept = _lines_of(world.root)
        archive = world.archive(run_id)
        if archive.exists():
            kept |= _lines_of(archive)
        for rel, body_lines in originals.items():
            for line in body_lines:
                assert line in kept, (rel, line)


def _api_notes_proposed(world: World, capsys: pytest.CaptureFixture[str],
                        index_text: str) -> tuple[Path, list[str], str]:
    """The API memory and its reworded notes under an index of ``index_text``, three days
    old, after a run under ``--apply none``: the index, the common options, the run id."""
    world.put("project_api.md", text_of(API_LINES), days=20)
    world.put("project_api_notes.md", text_of(API_REWORDED), days=3)
    index = world.root / "MEMORY.md"
    index.write_text(index_text)
    old = time.time() - 3 * 86400
    os.utime(index, (old, old))
    common = ["--memory-dir", str(world.root), "--state-dir", str(world.state),
              "--project-root", str(world.project)]
    assert main(["run", "--force", "--json", "--apply", "none", *common]) == 0
    return index, common, json.loads(capsys.readouterr().out)["run_id"]


def test_the_waiting_index_item_is_planned_again_after_an_apply_moved_an_unlisted_memory(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under ``apply = "none"`` the merge of a memory the index does not list leaves the
    index as it was, yet the index item waiting (its pointer to the merged-away file) is
    planned again on what the apply left: applying it then points at the survivor."""
    index, common, rid = _api_notes_proposed(world, capsys, "# Index\n")
    assert main(["apply", rid, "--only", "1", *common]) == 0
    out = capsys.readouterr().out
    assert "safe step" not in out, "nothing of the index was called for"
    assert index.read_text() == "# Index\n"
    assert main(["apply", *common]) == 0  # what waits: the index item, planned again
    capsys.readouterr()
    text = index.read_text()
    assert "project_api.md" in text and "project_api_notes.md" not in text


def test_a_merge_waiting_for_review_names_what_it_archives_and_its_apply_its_safe_steps(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    index, common, rid = _api_notes_proposed(
        world, capsys, "- [API](project_api.md) — the API\n"
                       "- [API notes](project_api_notes.md) — more on the API\n")
    assert main(["proposals", *common]) == 0
    listing = capsys.readouterr().out
    assert ("1. merge project_api_notes.md into project_api.md (it goes to the archive): "
            "contained") in listing

    assert main(["apply", rid, "--only", "1", *common]) == 0
    out = capsys.readouterr().out
    assert f"applied action 1 of run {rid}, then 1 safe step(s) they call for" in out
    assert not (world.root / "project_api_notes.md").exists()
    assert "project_api_notes.md" not in (world.root / "MEMORY.md").read_text()
