"""`consolidator undo RUN_ID`: every byte and mtime back as before the run, or a refusal that
changes nothing; and `history --json` listing the run."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main
from consolidator.state.statedir import root_key
from tests.conftest import snapshot_tree

DAY = 86400
LOCKS = (".consolidate-lock", ".consolidate.flock")


def _put(root: Path, rel: str, text: str, days: float, mode: int | None = None) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mode is not None:
        os.chmod(path, mode)
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))
    return path


def _memory(name: str, body: str, description: str = "") -> str:
    description = description or f"Notes about {name}"
    return f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n{body}"


API = (
    "- The public API is versioned in the URL path.\n"
    "- Breaking changes need a new major version.\n"
    "- Every endpoint returns JSON errors with a code field.\n"
)


class Setup:
    """A root whose run merges, archives, rewrites, creates a topic memory and rebuilds the
    index; the state dir; and the run's id once it ran."""

    def __init__(
        self,
        base: Path,
        api_notes_hook: str = "errors with a code field",
        api_notes_description: str = "Error format of the public API, in short",
        api_detail: str = "",
        lead: str = "",
        tail: str = "",
    ) -> None:
        self.root = base / "memory"
        self.state = base / "state"
        self.project = base / "project"
        self.project.mkdir(parents=True)
        r = self.root
        _put(r, "project_api.md", _memory("project_api", API), 20)
        _put(r, "project_api_notes.md", _memory(
            "project_api_notes", "* every endpoint returns json errors with a CODE field\n",
            api_notes_description), 3,
            mode=0o600)
        _put(r, "project_clients.md", _memory(
            "project_clients", "SDKs follow [the notes](project_api_notes.md).\n"), 30)
        _put(r, "project_old.md", _memory("project_old", "Status: SUPERSEDED by v3.\n"), 90)
        _put(r, "project_demo.md", _memory("project_demo", "We fixed the demo date yesterday.\n"),
             6)
        _put(r, "notes/log.md", "no frontmatter, yesterday\n", 9)
        facts = "".join(f"- Fact {i}: the build cache for job {i} lives in /var/cache/ci/{i}\n"
                        for i in range(230))
        _put(r, "MEMORY.md",
             f"# Memory\n\n{lead}## Project\n"
             "- [API](project_api.md) — the public API\n"
             f"{api_detail}"
             f"- [API notes](project_api_notes.md) — {api_notes_hook}\n"
             "- [Old plan](project_old.md) — the v2 plan\n\n"
             "## Facts\n" + facts + tail, 5)
        self.run_id = ""

    def tree(self) -> dict[str, tuple[bytes, int, int]]:
        return {k: v for k, v in snapshot_tree(self.root).items() if k not in LOCKS}

    @property
    def run_dir(self) -> Path:
        return self.state / root_key(self.root) / "runs" / self.run_id

    def run(self, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
        code = main(["run", "--force", "--json", "--apply", "all", "--memory-dir", str(self.root),
                     "--state-dir", str(self.state), "--project-root", str(self.project)])
        assert code == 0
        doc = json.loads(capsys.readouterr().out)
        self.run_id = doc["run_id"]
        return doc["roots"][0]

    def undo(self, capsys: pytest.CaptureFixture[str], *extra: str,
             run_id: str | None = None) -> tuple[int, str, str]:
        code = main(["undo", run_id or self.run_id, "--state-dir", str(self.state), *extra])
        captured = capsys.readouterr()
        return code, captured.out, captured.err


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


@pytest.fixture
def ran(setup: Setup, capsys: pytest.CaptureFixture[str]) -> tuple[Setup, dict[str, Any],
                                                                   dict[str, Any]]:
    """The setup before its run (as a tree), and the run's report."""
    before = setup.tree()
    report = setup.run(capsys)
    return setup, before, report


def test_the_run_to_undo_merges_archives_rewrites_creates_and_rebuilds_the_index(
    ran: tuple[Setup, dict[str, Any], dict[str, Any]]
) -> None:
    setup, before, report = ran
    actions = {(a["op"], a["file"]) for a in report["actions"]}
    assert ("merge", "project_api.md") in actions
    assert ("archive", "project_old.md") in actions
    assert ("rewrite", "project_demo.md") in actions
    assert ("rewrite", "project_clients.md") in actions
    created = [f for op, f in actions if op == "create"]
    assert created and all(f.startswith("index_") for f in created)
    after = setup.tree()
    assert after["MEMORY.md"] != before["MEMORY.md"]
    assert len(after["MEMORY.md"][0].decode().splitlines()) <= 200
    assert "project_api_notes.md" not in after and "project_old.md" not in after


def test_undo_restores_every_file_byte_and_mtime_identical_and_removes_created_files(
    ran: tuple[Setup, dict[str, Any], dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    setup, before, report = ran
    created = [a["file"] for a in report["actions"] if a["op"] == "create"]

    code, out, _err = setup.undo(capsys)

    assert code == 0
    assert str(setup.root) in out and "restored" in out
    assert setup.tree() == before
    for file in created:
        assert not (setup.root / file).exists()
        assert (setup.run_dir / "undone" / file).exists(), "undo moves, never deletes"


def test_undo_restores_a_file_the_run_wrote_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The over-limit index moves the detail line under the survivor's pointer into it: moving
    # the unloaded tail alone leaves it over, as the rules past line 200 stay in the index.
    setup = Setup(tmp_path, api_detail="  - the v1 routes stay until every client moves\n",
                  lead="## Start here\n- Read the API notes first.\n\n",
                  tail="".join(f"- NEVER clear the cache of job {i}\n" for i in range(3)))
    before = setup.tree()
    report = setup.run(capsys)
    written = [a["file"] for a in report["actions"] if a["op"] in ("merge", "rewrite")]
    assert written.count("project_api.md") == 2, "the survivor is written twice"
    assert "the v1 routes stay" in (setup.root / "project_api.md").read_text()

    code, _out, err = setup.undo(capsys)

    assert code == 0, err
    assert setup.tree() == before


def test_undo_restores_the_mtime_of_a_survivor_whose_bytes_did_not_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The source's description is already covered by the survivor: the merge changes no
    # byte of the survivor, only its mtime (to the newer source's).
    setup = Setup(tmp_path, api_notes_description="the public API")
    before = setup.tree()
    setup.run(capsys)
    after = setup.tree()
    assert after["project_api.md"][0] == before["project_api.md"][0]
    assert after["project_api.md"][1] != before["project_api.md"][1]

    code, _out, err = setup.undo(capsys)

    assert code == 0, err
    assert setup.tree()["project_api.md"] == before["project_api.md"]


def test_undo_twice_is_harmless(
    ran: tuple[Setup, dict[str, Any], dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    setup, before, _report = ran
    assert setup.undo(capsys)[0] == 0
    code, _out, err = setup.undo(capsys)
    assert code == 0, err
    assert setup.tree() == before


def test_history_names_the_kind_of_root_an_undo_restored(
    ran: tuple[Setup, dict[str, Any], dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    setup, _before, _report = ran
    assert setup.undo(capsys)[0] == 0
    assert main(["history", "--state-dir", str(setup.state)]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [(line[1], line[3]) for line in lines] == [("run", "auto"), ("undo", "auto")]


def _edit_survivor(setup: Setup) -> str:
    path = setup.root / "project_api.md"
    path.write_bytes(path.read_bytes() + b"A line written after the run.\n")
    return "project_api.md"


def _edit_index(setup: Setup) -> str:
    path = setup.root / "MEMORY.md"
    path.write_bytes(path.read_bytes() + b"- a fact added after the run\n")
    return "MEMORY.md"


def _recreate_archived(setup: Setup) -> str:
    (setup.root / "project_old.md").write_text(_memory("project_old", "A brand new plan.\n"))
    return "project_old.md"


def _edit_created(setup: Setup) -> str:
    (created,) = [p for p in setup.root.glob("index_*.md")]
    created.write_bytes(created.read_bytes() + b"- another fact\n")
    return created.name


CHANGES = {
    "a rewritten memory": _edit_survivor,
    "the rebuilt index": _edit_index,
    "a new file where an archived memory was": _recreate_archived,
    "a created topic memory": _edit_created,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_file_changed_after_the_run_makes_undo_refuse_and_change_nothing(
    ran: tuple[Setup, dict[str, Any], dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
    change: str,
) -> None:
    setup, _before, _report = ran
    changed = CHANGES[change](setup)
    current = setup.tree()
    state_before = snapshot_tree(setup.state)

    code, out, err = setup.undo(capsys)

    assert code == 1
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "--force" in err and err.strip().endswith(": " + changed)
    assert setup.tree() == current
    assert snapshot_tree(setup.state) == state_before


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_forced_undo_restores_anyway_and_keeps_the_changed_bytes_aside(
    ran: tuple[Setup, dict[str, Any], dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
    change: str,
) -> None:
    setup, before, _report = ran
    changed = CHANGES[change](setup)
    changed_bytes = (setup.root / changed).read_bytes()

    code, out, err = setup.undo(capsys, "--force")

    assert code == 0, err
    assert changed in out
    assert setup.tree() == before
    displaced = [p.read_bytes() for p in (setup.run_dir / "displaced").rglob(Path(changed).name)]
    assert changed_bytes in displaced


def test_an_unknown_run_id_is_a_usage_error(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    before = setup.tree()
    setup.state.mkdir()
    code, _out, err = setup.undo(capsys, run_id="20200101T000000Z-dead")
    assert code == 2
    assert "20200101T000000Z-dead" in err and len(err.strip().splitlines()) == 1
    assert setup.tree() == before


def test_history_lists_the_run_with_its_counts(
    ran: tuple[Setup, dict[str, Any], dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    setup, _before, _report = ran
    assert main(["history", "--json", "--state-dir", str(setup.state)]) == 0
    entries = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line]
    (entry,) = [e for e in entries if e["run_id"] == setup.run_id]
    assert entry["memory_dir"] == str(setup.root)
    assert entry["trigger"] == "run"
    assert entry["status"] == "consolidated"
    assert entry["dry_run"] is False
    assert entry["started_at"].startswith(setup.run_id[:4] + "-")
    counts = entry["counts"]
    assert counts["merges"] == 1
    assert counts["archives"] == 2
    assert counts["rewrites"] >= 2
    assert counts["creates"] >= 1


def test_history_says_a_dry_run_changed_nothing_and_kept_no_proposal(
    example_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "dry-state"
    assert main(["run", "--dry-run", "--force", "--memory-dir", str(example_copy),
                 "--state-dir", str(state)]) == 0
    capsys.readouterr()
    assert main(["history", "--state-dir", str(state)]) == 0
    (line,) = capsys.readouterr().out.splitlines()[1:]
    assert "planned (dry)" in line
    assert ": nothing changed; would make " in line
    assert "for review (a dry run keeps no proposal)" in line
    assert "wait for review" not in line


def test_history_says_what_a_pass_proposed_not_that_it_still_waits(
    example_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A second forced pass replaces the first one's proposal: the first line must not claim
    # that its judgments still wait for review.
    state = tmp_path / "state"
    for _ in range(2):
        assert main(["run", "--force", "--memory-dir", str(example_copy),
                     "--state-dir", str(state)]) == 0
    capsys.readouterr()
    assert main(["history", "--state-dir", str(state)]) == 0
    first = capsys.readouterr().out.splitlines()[1]
    assert "proposed for review" in first
    assert "wait for review" not in first


def _xattrs(path: Path) -> dict[str, bytes]:
    return {k: os.getxattr(path, k) for k in os.listxattr(path)}


def test_a_rewrite_and_its_undo_keep_the_files_extended_attributes(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rename swaps in a new inode: tags a user set (a Finder label, a backup tool's mark)
    must move over to it, and come back with the undo."""
    if not hasattr(os, "listxattr"):
        pytest.skip("no extended attributes on this platform")
    rewritten = ("project_api.md", "project_demo.md", "project_clients.md", "MEMORY.md")
    try:
        for rel in rewritten:
            os.setxattr(setup.root / rel, "user.tag", rel.encode())
    except OSError as exc:
        pytest.skip(f"this file system keeps no user attributes: {exc}")
    before = setup.tree()

    report = setup.run(capsys)

    written = {a["file"] for a in report["actions"] if a["op"] in ("merge", "rewrite")}
    assert set(rewritten) - {"MEMORY.md"} <= written
    for rel in rewritten:
        assert _xattrs(setup.root / rel) == {"user.tag": rel.encode()}, rel
    code, _out, err = setup.undo(capsys)
    assert code == 0, err
    assert setup.tree() == before
    for rel in rewritten:
        assert _xattrs(setup.root / rel) == {"user.tag": rel.encode()}, rel


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="only root may give a file another owner")
def test_a_rewrite_run_as_root_keeps_the_files_owner(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = setup.root / "project_demo.md"
    os.chown(demo, 4321, 4322)

    report = setup.run(capsys)

    assert ("rewrite", "project_demo.md") in {(a["op"], a["file"]) for a in report["actions"]}
    st = demo.stat()
    assert (st.st_uid, st.st_gid) == (4321, 4322), "the user's file stays the user's"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="only root may give a folder a group it is not in")
def test_a_rewrite_in_a_setgid_folder_keeps_the_files_own_group(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new file in a setgid folder takes the folder's group: the replacement of a memory
    must keep the group the memory had."""
    demo = setup.root / "project_demo.md"
    group = demo.stat().st_gid
    os.chown(setup.root, -1, group + 4321)
    setup.root.chmod(0o2755)

    setup.run(capsys)

    assert demo.stat().st_gid == group
