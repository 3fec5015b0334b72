"""Review of judgments, end to end on the bundled example: ``run`` applies the safe actions
and leaves the judgments in a proposal; ``proposals``, ``apply``, ``reject`` and ``undo``
answer it.

Every test works on private copies of ``examples/`` (memory dir, transcripts, project) with
the ages ``examples/set_ages.py`` gives them, counted from one instant per test so that two
copies carry the same mtimes to the nanosecond. The state dir always lies under tmp_path.

What the example plans under the default ``apply = "safe"`` (checked in the first test):
two safe merges (``feedback_no_mocks.md`` into ``feedback_real_db_tests.md``,
``project_deploy_notes.md`` into ``project_deploy.md``), a link repointed, the index rebuilt,
and four judgments that wait for review:

1. archive ``project_migration_v2.md`` (status marker SUPERSEDED)
2. archive ``project_release_freeze.md`` (its deadline passed)
3. rewrite ``project_demo.md`` (relative dates "next Tuesday", "yesterday")
4. rewrite ``MEMORY.md`` (the loaded pointer to the missing ``project_old_payments.md``
   unlinked, its words kept)

``feedback_commit_messages_zh.md`` says 「明天起」 (from tomorrow) with no date in its text, but
it is a rule (type feedback), not a record of one day: its mtime does not date it, and its
明天 is left as written.
"""

from __future__ import annotations

import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from consolidator import cli
from consolidator.state import statedir
from tests.conftest import EXAMPLES, REPO, age_tree, flock_held_elsewhere, snapshot_tree

NS = 1_000_000_000
DAY_NS = 86400 * NS
LOCK_FILES = (".consolidate-lock", ".consolidate.flock")

JUDGMENTS = [
    (1, "archive", "project_migration_v2.md"),
    (2, "archive", "project_release_freeze.md"),
    (3, "rewrite", "project_demo.md"),
    (4, "rewrite", "MEMORY.md"),
]
JUDGMENT_FILES = [file for _n, _op, file in JUDGMENTS]
RULE_ZH = "feedback_commit_messages_zh.md"  # a rule's undated 明天: left as written
MERGED_AWAY = {"feedback_no_mocks.md": "feedback_real_db_tests.md",
               "project_deploy_notes.md": "project_deploy.md"}

# --------------------------------------------------------------------------- the example


def story_ages() -> dict[str, int]:
    """``MEMORY_AGES`` of ``examples/set_ages.py``: each memory's age in days."""
    ages: dict[str, int] = runpy.run_path(str(EXAMPLES / "set_ages.py"),
                                          run_name="set_ages")["MEMORY_AGES"]
    return ages


def set_story_ages(examples: Path, now_ns: int) -> None:
    """What ``examples/set_ages.py`` does to a copy, counted from ``now_ns`` (so that two
    copies get the very same mtimes)."""
    runpy.run_path(str(EXAMPLES / "set_ages.py"),
                   run_name="set_ages")["set_memory_ages"](examples / "memory", now_ns)
    sessions = sorted(p for p in examples.glob("*.jsonl") if not p.name.startswith("agent-"))
    for i, path in enumerate(sessions):
        stamp = now_ns - (i + 1) * 3600 * 7 * NS
        os.utime(path, ns=(stamp, stamp))


@dataclass
class Ex:
    """One copy of the example and its state dir."""

    memory: Path
    state: Path

    @property
    def project(self) -> Path:
        return self.memory.parent / "project"

    def args(self) -> list[str]:
        return ["--memory-dir", str(self.memory), "--project-root", str(self.project),
                "--state-dir", str(self.state)]

    @property
    def proposal_path(self) -> Path:
        return statedir.proposal(statedir.root_state(self.state, self.memory))

    def proposal(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.proposal_path.read_bytes())
        return data


@pytest.fixture
def story_ns() -> int:
    return time.time_ns()


@pytest.fixture
def ex(example_copy: Path, story_ns: int, tmp_path: Path) -> Ex:
    """The conftest's private copy of examples/, with the ages of its story."""
    set_story_ages(example_copy.parent, story_ns)
    return Ex(example_copy, tmp_path / "state")


def another_copy(tmp_path: Path, story_ns: int, name: str) -> Ex:
    """A second fresh copy, made the way ``example_copy`` makes the first, same ages."""
    dest = tmp_path / name
    shutil.copytree(EXAMPLES, dest, symlinks=True, copy_function=shutil.copy2)
    age_tree(dest, days=10)
    set_story_ages(dest, story_ns)
    return Ex(dest / "memory", tmp_path / f"state-{name}")


# --------------------------------------------------------------------------- helpers


def cli_run(capsys: pytest.CaptureFixture[str], ex: Ex, *argv: str) -> tuple[int, str, str]:
    """``consolidator ARGV`` (with the copy's common options) in this process."""
    capsys.readouterr()
    code = cli.main([*argv, *ex.args()])
    out, err = capsys.readouterr()
    return code, out, err


def run_force(capsys: pytest.CaptureFixture[str], ex: Ex, *more: str) -> tuple[str, str]:
    """``run --force`` (exit 0 asserted): its stdout (the report, if any) and stderr (the
    log)."""
    code, out, err = cli_run(capsys, ex, "run", "--force", *more)
    assert code == 0, err
    return out, err


def run_id_of_proposal(ex: Ex) -> str:
    rid: str = ex.proposal()["run_id"]
    return rid


def proposed(capsys: pytest.CaptureFixture[str], ex: Ex) -> list[tuple[int, str, str]]:
    """What ``proposals --json`` lists as waiting: (number, op, file) per action."""
    code, out, err = cli_run(capsys, ex, "proposals", "--json")
    assert code == 0, err
    roots = json.loads(out)
    if not roots:
        return []
    assert len(roots) == 1
    return [(a["number"], a["op"], a["file"]) for a in roots[0]["actions"]]


def listed(text: str) -> list[tuple[int, str, str]]:
    """The numbered lines of ``proposals``' text: (number, op, file)."""
    return [(int(n), op, file)
            for n, op, file in re.findall(r"^\s+(\d+)\. (\w+) (\S+?): ", text, re.M)]


def files(root: Path) -> dict[str, tuple[bytes, int | None, int]]:
    """Every file under ``root`` but the lock files: bytes, mtime (None for the index,
    whose mtime is the time of the run that wrote it) and mode."""
    out: dict[str, tuple[bytes, int | None, int]] = {}
    for rel, (data, mtime, mode) in snapshot_tree(root).items():
        if rel in LOCK_FILES:
            continue
        out[rel] = (data, None if rel == "MEMORY.md" else mtime, mode)
    return out


def words(text: str) -> str:
    """A text's words, lower case, one space apart (a merge of "the same lines" may differ
    in case, bullets and punctuation)."""
    return " ".join(re.findall(r"\w+", text.lower()))


def without_locks(tree: dict[str, Any]) -> dict[str, Any]:
    return {rel: v for rel, v in tree.items() if rel not in LOCK_FILES}


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("consolidator: "), err
    assert "Traceback" not in err
    return lines[0]


def subprocess_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["HOME"] = str(tmp_path)
    for name in ("CONSOLIDATOR_CONFIG", "CONSOLIDATOR_STATE_DIR", "STATE_DIRECTORY"):
        env.pop(name, None)
    return env


def consolidator(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m consolidator ARGS`` as a real process, HOME in tmp_path."""
    return subprocess.run(
        [sys.executable, "-m", "consolidator", *args], cwd=REPO, env=subprocess_env(tmp_path),
        capture_output=True, text=True, timeout=120, check=False,
    )


@contextmanager
def claude_code_holds_the_lock(root: Path, state_dir: Path) -> Iterator[None]:
    """A live process whose PID sits in a fresh ``.consolidate-lock`` (Claude Code's own
    consolidation running)."""
    proc = subprocess.Popen(["sleep", "60"])
    try:
        (root / ".consolidate-lock").write_text(str(proc.pid))
        yield
    finally:
        proc.kill()
        proc.wait()


# --------------------------------------------------------------------------- 1. a default run


def test_a_default_run_applies_only_the_safe_actions_and_proposes_the_judgments(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_tree(ex.memory)
    _out, log = run_force(capsys, ex)

    after = snapshot_tree(ex.memory)
    for gone, survivor in MERGED_AWAY.items():
        assert gone not in after, f"{gone} was merged away"
        assert survivor in after
        survivor_words = words(after[survivor][0].decode("utf-8"))
        body = before[gone][0].decode("utf-8").split("---", 2)[2]
        for line in filter(None, (words(raw) for raw in body.splitlines())):
            assert line in survivor_words, f"{survivor} lost {line!r} of {gone}"
        archived = statedir.archived(statedir.run_dir(statedir.root_state(ex.state, ex.memory),
                                                      run_id_of_proposal(ex)), gone)
        assert archived.read_bytes() == before[gone][0], "moved to the archive byte for byte"
    for file in JUDGMENT_FILES:
        if file != "MEMORY.md":
            assert after[file] == before[file], f"{file} is a judgment: left byte for byte"
    assert after["MEMORY.md"][0] != before["MEMORY.md"][0], "the index is rebuilt (safe)"
    assert after[RULE_ZH] == before[RULE_ZH], "a rule's undated 明天 is no judgment either"

    wait_lines = [line for line in log.splitlines() if "wait for review" in line]
    assert len(wait_lines) == 1
    assert "4 change(s) wait for review: consolidator proposals" in wait_lines[0]
    assert json.loads(wait_lines[0]).get("phase") is None, "no phase leaks onto it"

    assert ex.proposal_path.is_file()
    assert ex.proposal_path.stat().st_mode & 0o777 == 0o600
    assert [(a["number"], a["op"], a["file"], a["kind"], a["status"])
            for a in ex.proposal()["actions"]] == [
        (n, op, file, "judgment", "waiting") for n, op, file in JUDGMENTS]


def test_proposals_lists_the_four_judgments_numbered_with_their_evidence(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    code, out, err = cli_run(capsys, ex, "proposals")
    assert (code, err) == (0, "")
    assert listed(out) == JUDGMENTS
    assert f"run {rid}" in out and "4 change(s) wait" in out
    assert "> Status: SUPERSEDED by the v3 migration plan." in out
    assert f"consolidator apply {rid}" in out and f"consolidator reject {rid}" in out

    code, out, _ = cli_run(capsys, ex, "proposals", "--json")
    (root,) = json.loads(out)
    assert root["memory_dir"] == str(ex.memory) and root["run_id"] == rid
    assert [(a["number"], a["op"], a["file"]) for a in root["actions"]] == JUDGMENTS
    for action in root["actions"]:
        assert action["kind"] == "judgment" and action["evidence"]
        assert "content" not in action and "before" not in action, "a listing, no payload"


def test_status_shows_how_many_changes_wait(ex: Ex, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli_run(capsys, ex, "status")
    assert code == 0 and "waiting for review" not in out
    run_force(capsys, ex)
    code, out, _ = cli_run(capsys, ex, "status")
    assert code == 0
    assert "waiting for review: 4 change(s)" in out
    code, out, _ = cli_run(capsys, ex, "status", "--json")
    assert code == 0
    assert [row["waiting"] for row in json.loads(out)] == [4]


def test_a_dry_run_counts_the_judgments_but_keeps_no_proposal(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = snapshot_tree(ex.memory)
    out, _ = run_force(capsys, ex, "--dry-run", "--json")
    report = json.loads(out)
    root = report["roots"][0]
    # Named by the dry run that made it (the format wants a run id); nothing is kept.
    assert report["dry_run"] is True
    assert root["proposal"] == {"run_id": report["run_id"], "actions": 4}
    assert snapshot_tree(ex.memory) == tree
    assert not ex.proposal_path.exists()
    assert proposed(capsys, ex) == []


# --------------------------------------------------------------------------- 2. apply == all


def test_applying_the_whole_proposal_gives_the_bytes_of_a_run_that_applies_all(
    ex: Ex, tmp_path: Path, story_ns: int, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    code, out, err = cli_run(capsys, ex, "apply", rid)
    assert code == 0, err
    assert f"applied actions 1, 2, 3, 4 of run {rid}, then 1 safe step(s) they call for" in out
    assert "; undo: consolidator undo " in out

    other = another_copy(tmp_path, story_ns, "all")
    run_force(capsys, other, "--apply", "all")
    assert not other.proposal_path.exists(), "nothing waits when all is applied"

    assert files(ex.memory) == files(other.memory)
    for archived in JUDGMENT_FILES[:2]:
        assert not (ex.memory / archived).exists()
    assert "明天起 CI" in (ex.memory / RULE_ZH).read_text("utf-8"), "a rule's 明天 stays"
    code, out, _ = cli_run(capsys, ex, "proposals")
    assert (code, out) == (0, "nothing waits for review\n")
    code, out, _ = cli_run(capsys, ex, "status", "--json")
    assert json.loads(out)[0]["waiting"] == 0


# --------------------------------------------------------------------------- 3. subsets


def test_apply_only_some_numbers_then_except_one_of_the_rest(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    before = snapshot_tree(ex.memory)

    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "1,3")
    assert code == 0, err
    assert f"applied actions 1, 3 of run {rid}" in out
    now = snapshot_tree(ex.memory)
    assert "project_migration_v2.md" not in now
    demo = "project_demo.md"
    assert now[demo][0] != before[demo][0]
    text = now[demo][0].decode("utf-8")
    assert "next Tuesday" not in text and "yesterday" not in text
    assert re.search(r"\b\d{4}-\d{2}-\d{2}\b", text), "rewritten as absolute dates"
    assert now[demo][1] == before[demo][1], "a rewrite keeps the memory's mtime"
    assert now["project_release_freeze.md"] == before["project_release_freeze.md"]
    assert now[RULE_ZH] == before[RULE_ZH], "the rule's undated 明天 is left as written"
    assert "明天起 CI" in now[RULE_ZH][0].decode("utf-8")
    index_before = now["MEMORY.md"][0]
    assert proposed(capsys, ex) == [JUDGMENTS[1], JUDGMENTS[3]], \
        "the numbers stay (the index's change planned again on the index the apply left)"

    code, out, err = cli_run(capsys, ex, "apply", rid, "--except", "2")
    assert code == 0, err
    assert f"applied action 4 of run {rid}" in out
    now = snapshot_tree(ex.memory)
    assert now["project_release_freeze.md"] == before["project_release_freeze.md"]
    assert now["MEMORY.md"][0] != index_before
    assert b"](project_old_payments.md)" not in now["MEMORY.md"][0], "the index's change applied"
    assert proposed(capsys, ex) == [JUDGMENTS[1]]
    assert [a["status"] for a in ex.proposal()["actions"]] == [
        "applied", "waiting", "applied", "applied"]


def test_apply_only_a_number_already_applied_is_refused_as_usage(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    assert cli_run(capsys, ex, "apply", rid, "--only", "1")[0] == 0
    tree, prop = snapshot_tree(ex.memory), ex.proposal_path.read_bytes()
    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "1")
    assert code == 2 and out == ""
    assert "action 1" in one_error_line(err) and "applied" in err
    assert snapshot_tree(ex.memory) == tree and ex.proposal_path.read_bytes() == prop


def test_apply_without_a_run_id_takes_the_one_waiting_proposal(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    code, out, err = cli_run(capsys, ex, "apply", "--only", "2")
    assert code == 0, err
    assert f"applied action 2 of run {rid}" in out
    assert not (ex.memory / "project_release_freeze.md").exists()
    code, out, err = cli_run(capsys, ex, "reject")
    assert code == 0, err
    assert f"declined actions 1, 3, 4 of run {rid}; not proposed again while their files" in out
    assert proposed(capsys, ex) == []


def test_apply_is_not_a_consolidation_the_lock_file_keeps_its_time(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    lock = ex.memory / ".consolidate-lock"
    old = time.time_ns() - 3 * DAY_NS
    os.utime(lock, ns=(old, old))
    before = (lock.read_bytes(), lock.stat().st_mtime_ns)
    assert cli_run(capsys, ex, "apply", run_id_of_proposal(ex))[0] == 0
    assert (lock.read_bytes(), lock.stat().st_mtime_ns) == before


def test_a_line_written_into_the_index_after_the_proposal_stays(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hand-written line added to the index since refuses only the index's own change
    (planned on the index as it was); the others apply, and the index rebuilt after the
    apply keeps the new line."""
    run_force(capsys, ex)
    index = ex.memory / "MEMORY.md"
    with index.open("ab") as handle:
        handle.write(b"- Deploys freeze on Fridays after 15:00.\n")
    code, out, err = cli_run(capsys, ex, "apply", run_id_of_proposal(ex))
    assert code == 0, err
    assert "applied actions 1, 2, 3 of" in out
    assert "4: refused, MEMORY.md changed since" in out
    assert b"- Deploys freeze on Fridays after 15:00." in index.read_bytes()
    assert b"](project_migration_v2.md)" not in index.read_bytes(), "no link to an archived file"


def test_the_proposal_of_an_older_run_is_gone_once_a_newer_run_replaced_it(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    first = run_id_of_proposal(ex)
    run_force(capsys, ex)
    second = run_id_of_proposal(ex)
    assert second != first
    refused(capsys, ex, 2, f"no proposal of run {first!r}", "apply", first)
    assert proposed(capsys, ex) == JUDGMENTS


# --------------------------------------------------------------------------- 4. files moved on


def test_an_action_whose_file_changed_since_the_proposal_is_refused_the_rest_apply(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    edited = ex.memory / "project_migration_v2.md"
    with edited.open("ab") as handle:
        handle.write(b"A line a live session added.\n")
    edited_bytes = edited.read_bytes()

    code, out, err = cli_run(capsys, ex, "apply", rid)
    assert code == 0, err
    assert f"applied actions 2, 3, 4 of run {rid}" in out
    assert "1: refused, project_migration_v2.md changed since" in out
    assert edited.read_bytes() == edited_bytes, "the edited file keeps its new bytes"
    assert not (ex.memory / "project_release_freeze.md").exists()
    assert [a["status"] for a in ex.proposal()["actions"]] == [
        "refused", "applied", "applied", "applied"]
    assert proposed(capsys, ex) == [], "a refused action no longer waits"


def test_a_memory_deleted_since_the_proposal_is_refused_the_rest_apply(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rewrite whose memory was deleted meanwhile is refused ("is gone"); the file is not
    re-created, and the other actions still apply."""
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    (ex.memory / "project_demo.md").unlink()
    code, out, err = cli_run(capsys, ex, "apply", rid)
    assert code == 0, err
    assert "3: refused, project_demo.md is gone" in out
    assert f"applied actions 1, 2, 4 of run {rid}" in out
    assert not (ex.memory / "project_demo.md").exists()


# --------------------------------------------------------------------------- 5. reject


def test_a_rejected_judgment_is_not_proposed_again_until_its_file_changes(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    code, out, err = cli_run(capsys, ex, "reject", rid, "--only", "1")
    assert code == 0, err
    assert f"declined action 1 of run {rid}; not proposed again while its files are " \
        "unchanged" in out
    assert proposed(capsys, ex) == JUDGMENTS[1:]
    assert (ex.memory / "project_migration_v2.md").exists()
    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "1")
    assert code == 2 and "action 1 of run" in one_error_line(err) and "declined" in err

    out, _ = run_force(capsys, ex, "--json")
    report = json.loads(out)["roots"][0]
    ops = [(a["op"], a["file"]) for a in report["actions"] if a["kind"] == "judgment"]
    assert ("archive", "project_migration_v2.md") not in ops
    assert report["proposal"]["actions"] == 3
    assert [(op, file) for _n, op, file in proposed(capsys, ex)] == [
        (op, file) for _n, op, file in JUDGMENTS[1:]]
    assert (ex.memory / "project_migration_v2.md").exists()

    # The memory changes (its mtime kept old, so no live session seems to hold it).
    path = ex.memory / "project_migration_v2.md"
    mtime = path.stat().st_mtime_ns
    with path.open("ab") as handle:
        handle.write(b"The v3 plan lives in the wiki.\n")
    os.utime(path, ns=(mtime, mtime))
    run_force(capsys, ex)
    assert ("archive", "project_migration_v2.md") in [
        (op, file) for _n, op, file in proposed(capsys, ex)], "a changed file is proposed again"


def test_declines_are_kept_in_declined_jsonl_and_an_earlier_builds_name_is_still_read(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    assert cli_run(capsys, ex, "reject", rid, "--only", "1")[0] == 0
    state = statedir.root_state(ex.state, ex.memory)
    kept = state / "declined.jsonl"
    assert kept.is_file() and not (state / "declined").exists()
    # The same line under the name one earlier build used is still a decline.
    kept.rename(state / "declined")
    run_force(capsys, ex)
    assert ("archive", "project_migration_v2.md") not in [
        (op, file) for _n, op, file in proposed(capsys, ex)]


def test_reject_of_everything_leaves_the_root_alone_and_nothing_waiting(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    tree = snapshot_tree(ex.memory)
    code, out, err = cli_run(capsys, ex, "reject", rid)
    assert code == 0, err
    assert f"declined actions 1, 2, 3, 4 of run {rid}" in out
    assert snapshot_tree(ex.memory) == tree
    assert proposed(capsys, ex) == []
    code, out, _ = cli_run(capsys, ex, "history", "--json")
    last = json.loads(out.splitlines()[-1])  # a person's answer is on the record
    assert (last["trigger"], last["status"], last["proposal"], last["declined"],
            last["changed"]) == ("reject", "declined", rid, [1, 2, 3, 4], False)
    out, _ = run_force(capsys, ex, "--json")
    assert json.loads(out)["roots"][0]["proposal"] is None, "every judgment was declined"


# --------------------------------------------------------------------------- 6. undo


def test_undo_of_an_apply_restores_every_byte_and_mtime_in_real_processes(
    ex: Ex, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    before = snapshot_tree(ex.memory)

    applied = consolidator(tmp_path, "apply", rid, *ex.args())
    assert applied.returncode == 0, applied.stderr
    found = re.search(r"undo: consolidator undo (\S+)", applied.stdout)
    assert found, applied.stdout
    apply_id = found.group(1)
    assert apply_id != rid
    assert snapshot_tree(ex.memory) != before
    assert not (ex.memory / "project_migration_v2.md").exists()

    undone = consolidator(tmp_path, "undo", apply_id, "--state-dir", str(ex.state))
    assert undone.returncode == 0, undone.stderr
    assert "restored" in undone.stdout
    assert snapshot_tree(ex.memory) == before


def test_the_apply_is_in_history_with_its_own_run_id(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    code, out, _ = cli_run(capsys, ex, "apply", rid, "--only", "2")
    assert code == 0
    apply_id = re.search(r"undo: consolidator undo (\S+)", out).group(1)  # type: ignore[union-attr]
    code, out, _ = cli_run(capsys, ex, "history", "--json")
    entries = [json.loads(line) for line in out.splitlines()]
    mine = [e for e in entries if e["run_id"] == apply_id]
    assert len(mine) == 1
    assert mine[0]["trigger"] == "apply" and mine[0]["dry_run"] is False
    assert mine[0]["counts"]["applied"] == 1


# --------------------------------------------------------------------------- 7. report == run


def _kinds(report: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    return [(a["op"], a["file"], a["kind"], a["applied"])
            for a in report["roots"][0]["actions"]]


def test_the_reports_plan_is_what_a_real_run_applies(
    ex: Ex, tmp_path: Path, story_ns: int, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = snapshot_tree(ex.memory)
    code, out, err = cli_run(capsys, ex, "report", "--format", "json")
    assert code == 0, err
    planned = json.loads(out)
    assert snapshot_tree(ex.memory) == tree, "report changes nothing"

    other = another_copy(tmp_path, story_ns, "run")
    out, _ = run_force(capsys, other, "--json")
    ran = json.loads(out)

    assert _kinds(planned) == _kinds(ran)
    assert [k for k in _kinds(ran) if k[2] == "judgment"] == [
        (op, file, "judgment", False) for _n, op, file in JUDGMENTS]
    assert all(applied for _op, _f, kind, applied in _kinds(ran) if kind == "safe")
    assert planned["roots"][0]["proposal"] == {"run_id": planned["run_id"], "actions": 4}
    assert ran["roots"][0]["proposal"] == {"run_id": ran["run_id"], "actions": 4}
    assert run_id_of_proposal(other) == ran["run_id"]


@pytest.mark.parametrize("mode", ["all", "none"])
def test_report_apply_overrides_which_actions_a_run_would_apply(
    ex: Ex, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli_run(capsys, ex, "report", "--format", "json", "--apply", mode)
    assert code == 0, err
    report = json.loads(out)
    root = report["roots"][0]
    flags = [a["applied"] for a in root["actions"] if a["op"] in ("merge", "archive")
             or a["file"] in JUDGMENT_FILES]
    assert flags and all(flag is (mode == "all") for flag in flags)
    if mode == "all":
        assert root["proposal"] is None
    else:
        assert root["proposal"]["run_id"] == report["run_id"]
        assert root["proposal"]["actions"] >= 6


# --------------------------------------------------------------------------- 8. apply none


def test_apply_none_changes_nothing_and_proposes_every_action_even_the_safe_merges(
    ex: Ex, tmp_path: Path, story_ns: int, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_tree(ex.memory)
    _, log = run_force(capsys, ex, "--apply", "none")
    after = snapshot_tree(ex.memory)
    assert without_locks(after) == without_locks(before), "not a byte, mtime or mode changed"
    assert after.get(".consolidate-lock", (b"",))[0] == b""
    assert "6 change(s) wait for review" in log

    waiting = proposed(capsys, ex)
    assert waiting == [
        (1, "merge", "feedback_real_db_tests.md"), (2, "merge", "project_deploy.md"),
        *[(n + 2, op, file) for n, op, file in JUDGMENTS]]
    kinds = [a["kind"] for a in ex.proposal()["actions"]]
    assert kinds == ["safe", "safe"] + ["judgment"] * 4

    code, out, err = cli_run(capsys, ex, "apply", run_id_of_proposal(ex))
    assert code == 0, err
    other = another_copy(tmp_path, story_ns, "all")
    run_force(capsys, other, "--apply", "all")
    assert files(ex.memory) == files(other.memory)


def test_an_apply_whose_every_choice_was_refused_changes_no_file(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under ``--apply none`` the index's own rebuild waits as an item (6): an apply of
    another item that was refused calls for no step at all, not even that rebuild."""
    run_force(capsys, ex, "--apply", "none")
    rid = run_id_of_proposal(ex)
    assert (6, "rewrite", "MEMORY.md") in proposed(capsys, ex)
    with (ex.memory / "project_demo.md").open("ab") as handle:
        handle.write(b"A line a live session added.\n")
    before = snapshot_tree(ex.memory)
    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "5")
    assert code == 1, err
    assert "5: refused, project_demo.md changed since" in out
    assert without_locks(snapshot_tree(ex.memory)) == without_locks(before)
    assert (6, "rewrite", "MEMORY.md") in proposed(capsys, ex)


def test_an_apply_adds_no_pointer_while_the_index_rebuild_waits_as_its_own_item(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    """Applying the date rewrite (5) rewrites that memory only: the pointer the waiting index
    item (6) would add is that item's, applied when it is chosen."""
    run_force(capsys, ex, "--apply", "none")
    rid = run_id_of_proposal(ex)
    index = (ex.memory / "MEMORY.md").read_bytes()
    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "5")
    assert code == 0, err
    assert (ex.memory / "MEMORY.md").read_bytes() == index
    assert [n for n, _op, file in proposed(capsys, ex) if file == "MEMORY.md"] == [6]
    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "6")
    assert code == 0, err
    assert (ex.memory / "MEMORY.md").read_bytes() != index


def test_an_index_left_alone_by_an_apply_keeps_its_waiting_item(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    """MEMORY.md made read-only after the run: the apply of the date rewrite leaves the
    index alone, and its waiting item (6) still waits as it was, not planned again."""
    run_force(capsys, ex, "--apply", "none")
    rid = run_id_of_proposal(ex)
    os.chmod(ex.memory / "MEMORY.md", 0o444)
    code, _out, err = cli_run(capsys, ex, "apply", rid, "--only", "5")
    assert code == 0, err
    assert [n for n, _op, file in proposed(capsys, ex) if file == "MEMORY.md"] == [6]


# --------------------------------------------------------------------------- 9. bad input


@pytest.fixture
def proposed_ex(ex: Ex, capsys: pytest.CaptureFixture[str]) -> Ex:
    """The example after a default run: four judgments wait."""
    run_force(capsys, ex)
    return ex


def _frozen(ex: Ex) -> tuple[dict[str, Any], bytes | None, dict[str, Any]]:
    """What a refused command must leave alone: the root, the proposal's bytes, the state."""
    prop = ex.proposal_path
    data = prop.read_bytes() if prop.exists() or prop.is_symlink() else None
    state = {rel: v for rel, v in snapshot_tree(ex.state).items()}
    return snapshot_tree(ex.memory), data, state


@pytest.mark.parametrize(("argv", "says"), [
    (["apply", "20990101T000000Z-dead"], "no proposal of run '20990101T000000Z-dead'"),
    (["apply", "../x"], "'../x' is not a run id"),
    (["apply", "RUN", "--only", "9"], "has no action 9 (it has 1-4)"),
    (["apply", "RUN", "--except", "9"], "has no action 9"),
    (["apply", "RUN", "--only", "1", "--except", "2"], "not allowed with argument --only"),
    (["apply", "RUN", "--only", "0"], "'0' is not a list of action numbers"),
    (["apply", "RUN", "--only", "x"], "'x' is not a list of action numbers"),
    (["apply", "RUN", "--only", "1,,-2"], "is not a list of action numbers"),
    (["apply", "--only", "1", "RUN", "extra"], "unrecognized arguments"),
    (["reject", "20990101T000000Z-dead"], "no proposal of run"),
    (["reject", "RUN", "--only", "6"], "has no action 6"),
    (["reject", "../../etc"], "is not a run id"),
])
def test_bad_input_is_one_line_exit_2_and_changes_nothing(
    proposed_ex: Ex, argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    argv = [rid if a == "RUN" else a for a in argv]
    refused(capsys, ex, 2, says, *argv)


def test_apply_of_a_fully_applied_run_is_exit_2_and_changes_nothing(
    proposed_ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    assert cli_run(capsys, ex, "apply", rid)[0] == 0
    frozen = _frozen(ex)
    for argv in (["apply", rid], ["reject", rid]):
        code, out, err = cli_run(capsys, ex, *argv)
        assert code == 2 and out == ""
        assert "nothing waits any more" in one_error_line(err)
        assert _frozen(ex) == frozen
    code, out, _ = cli_run(capsys, ex, "apply")
    assert (code, out) == (0, "nothing waits for review\n")
    assert _frozen(ex) == frozen


def refused(capsys: pytest.CaptureFixture[str], ex: Ex, code: int, says: str,
            *argv: str) -> None:
    """``argv`` exits ``code`` with one error line saying ``says``, prints nothing on
    stdout, and changes nothing: not the root, not the proposal, not the state dir."""
    frozen = _frozen(ex)
    got, out, err = cli_run(capsys, ex, *argv)
    assert got == code and out == "", argv
    assert says in one_error_line(err)
    assert _frozen(ex) == frozen


def _garbage(raw: bytes) -> bytes:
    return b"{not json at all"


def _truncated(raw: bytes) -> bytes:
    return raw[: len(raw) // 2]


def _empty(raw: bytes) -> bytes:
    return b""


def _wrong_format(raw: bytes) -> bytes:
    return raw.replace(b'"format": 1', b'"format": 2')


def _bad_action(raw: bytes) -> bytes:
    return raw.replace(b'"op": "archive"', b'"op": "shred"', 1)


def _bad_run_id(raw: bytes) -> bytes:
    data = json.loads(raw)
    data["run_id"] = "../../elsewhere"
    return json.dumps(data).encode()


def _renumbered(raw: bytes) -> bytes:
    data = json.loads(raw)
    data["actions"][0]["number"] = 7
    return json.dumps(data).encode()


@pytest.mark.parametrize("damage", [_garbage, _truncated, _empty, _wrong_format, _bad_action,
                                    _bad_run_id, _renumbered])
def test_a_damaged_proposal_is_refused_in_one_line_exit_1(
    proposed_ex: Ex, damage: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    ex.proposal_path.write_bytes(damage(ex.proposal_path.read_bytes()))
    frozen = _frozen(ex)
    for argv in (["apply", rid], ["apply"], ["reject", rid], ["proposals"]):
        code, out, err = cli_run(capsys, ex, *argv)
        assert code == 1 and out == "", argv
        line = one_error_line(err)
        assert "damaged" in line and str(ex.proposal_path) in line
        assert _frozen(ex) == frozen
    code, out, _ = cli_run(capsys, ex, "status", "--json")
    assert code == 0 and json.loads(out)[0]["waiting"] == 0


def test_a_proposal_with_a_wrong_typed_list_is_refused_as_damaged(
    proposed_ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    data = ex.proposal()
    data["actions"][0]["needs"] = 5
    ex.proposal_path.write_bytes(json.dumps(data).encode())
    refused(capsys, ex, 1, "damaged", "apply", rid)


def test_a_group_writable_proposal_is_not_trusted(
    proposed_ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    os.chmod(ex.proposal_path, 0o664)
    refused(capsys, ex, 1, "writable by others", "apply", rid)
    assert ex.proposal_path.stat().st_mode & 0o777 == 0o664


def test_a_proposal_that_is_a_symlink_to_another_file_is_not_followed(
    proposed_ex: Ex, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    foreign = tmp_path / "foreign-proposal.json"
    foreign.write_bytes(ex.proposal_path.read_bytes())
    os.chmod(foreign, 0o600)
    ex.proposal_path.unlink()
    ex.proposal_path.symlink_to(foreign)
    frozen = _frozen(ex)
    foreign_bytes = foreign.read_bytes()
    code, out, err = cli_run(capsys, ex, "apply", rid)
    assert code == 1 and out == ""
    assert "symbolic link" in one_error_line(err)
    assert _frozen(ex) == frozen
    assert ex.proposal_path.is_symlink() and foreign.read_bytes() == foreign_bytes


def test_apply_to_a_root_that_vanished_is_a_usage_error_naming_it(
    proposed_ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    moved = ex.memory.parent / "memory-moved-away"
    ex.memory.rename(moved)
    tree = snapshot_tree(moved)
    prop = ex.proposal_path.read_bytes()
    code, out, err = cli_run(capsys, ex, "apply", rid)
    assert code == 2 and out == ""
    line = one_error_line(err)
    assert str(ex.memory) in line and "no such directory" in line
    assert not ex.memory.exists(), "nothing re-creates the old path"
    assert snapshot_tree(moved) == tree and ex.proposal_path.read_bytes() == prop


def test_apply_to_a_root_replaced_by_an_empty_folder_refuses_every_action(
    proposed_ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    """The folder at the root's path is not the one the proposal saw: each action is refused
    ("is gone"), the apply fails (exit 1, one line), no memory and no index is created
    there, the old tree is untouched."""
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    moved = ex.memory.parent / "memory-moved-away"
    ex.memory.rename(moved)
    ex.memory.mkdir()
    tree = snapshot_tree(moved)
    code, out, err = cli_run(capsys, ex, "apply", rid)
    assert code == 1
    assert f"consolidator: {ex.memory}: every chosen action was refused" in err.splitlines()
    assert f"applied nothing of run {rid}" in out
    for n, _op, file in JUDGMENTS:
        assert f"{n}: refused, {file} is gone" in out
    assert set(os.listdir(ex.memory)) <= {".consolidate.flock"}, "no file created"
    assert snapshot_tree(moved) == tree


# --------------------------------------------------------------------------- 10. the lock


@pytest.mark.parametrize(("command", "says", "holder"), [
    ("apply", "nothing applied", flock_held_elsewhere),
    ("apply", "nothing applied", claude_code_holds_the_lock),
    ("reject", "nothing declined", flock_held_elsewhere),
], ids=["apply-consolidator", "apply-claude-code", "reject-consolidator"])
def test_an_answer_while_another_process_holds_the_lock_exits_75_and_changes_nothing(
    proposed_ex: Ex, command: str, says: str, holder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = proposed_ex
    rid = run_id_of_proposal(ex)
    with holder(ex.memory, ex.state):
        frozen = _frozen(ex)
        code, out, err = cli_run(capsys, ex, command, rid)
        assert _frozen(ex) == frozen
    assert code == 75 and out == ""
    assert says in one_error_line(err)
    assert proposed(capsys, ex) == JUDGMENTS, "the proposal still waits"
    assert cli_run(capsys, ex, command, rid)[0] == 0, "the lock free again, it goes through"


def test_apply_latest_applies_the_proposal_waiting_as_with_no_run_id(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    code, out, err = cli_run(capsys, ex, "apply", "latest", "--only", "1")
    assert code == 0, err
    assert rid in out and "consolidator undo " in out


def test_undo_of_a_run_an_apply_changed_since_names_the_apply_to_undo_first(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "1")
    assert code == 0, err
    apply_id = out.rsplit("consolidator undo ", 1)[1].split()[0]
    frozen = _frozen(ex)
    code, out, err = cli_run(capsys, ex, "undo", rid)
    assert code == 1 and out == ""
    line = one_error_line(err)
    assert f"run {apply_id} applied its proposal since; undo it first" in line
    assert "(use --force)" not in line
    assert _frozen(ex) == frozen
    code, out, err = cli_run(capsys, ex, "undo", rid, "--force")
    assert code == 1 and out == "", "--force puts back over edits, never over a later run"
    assert f"run {apply_id} applied its proposal since; undo it first" in one_error_line(err)
    assert _frozen(ex) == frozen
    assert cli_run(capsys, ex, "undo", apply_id)[0] == 0
    assert cli_run(capsys, ex, "undo", rid)[0] == 0


def test_undoing_an_apply_puts_its_actions_back_up_for_review(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "1,3")
    assert code == 0, err
    apply_id = out.rsplit("consolidator undo ", 1)[1].split()[0]
    assert [n for n, _op, _f in proposed(capsys, ex)] == [2, 4]
    code, out, err = cli_run(capsys, ex, "undo", apply_id)
    assert code == 0, err
    assert "actions 1, 3 of its proposal wait for review again" in out
    assert proposed(capsys, ex) == JUDGMENTS
    code, out, err = cli_run(capsys, ex, "apply", rid, "--only", "1")
    assert code == 0 and "applied action 1" in out, err


def test_undoing_the_run_withdraws_what_waited_of_its_proposal(
    ex: Ex, capsys: pytest.CaptureFixture[str]
) -> None:
    run_force(capsys, ex)
    rid = run_id_of_proposal(ex)
    before = snapshot_tree(ex.memory)

    code, out, err = cli_run(capsys, ex, "undo", rid)

    assert code == 0, err
    assert "actions 1, 2, 3, 4 of its proposal no longer wait for review" in out
    assert proposed(capsys, ex) == []
    restored = snapshot_tree(ex.memory)
    code, out, err = cli_run(capsys, ex, "apply", rid)
    assert code == 2 and "nothing waits any more" in err
    assert snapshot_tree(ex.memory) == restored
    assert restored != before


def test_a_date_rewrite_in_a_memory_a_safe_step_changed_is_proposed_on_the_new_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A memory whose link this run repoints (safe) and that says "yesterday" (a judgment):
    the run repoints the link, and the date rewrite waits on the bytes the run left, so
    applying it gives what `--apply all` gives."""
    from tests.integration.test_consolidate import World

    worlds = []
    for name in ("safe", "all"):
        world = World(tmp_path / name)
        rules = "- Run the integration tests against a real database.\n" \
                "- Never replace the database with mocks.\n"
        world.put("feedback_db.md", rules, days=12)
        world.put("feedback_db_copy.md", rules, days=11)
        world.put("project_checkout.md",
                  "We moved checkout to the new flow yesterday; see "
                  "[the rules](feedback_db_copy.md).\n", days=20)
        world.put("project_tests.md",
                  "The test plan follows [the rules](feedback_db.md).\n", days=20)
        worlds.append(world)
    safe, every = worlds
    for world, mode in ((safe, "safe"), (every, "all")):
        assert cli.main(["run", "--force", "--json", "--apply", mode, "--memory-dir",
                     str(world.root), "--state-dir", str(world.state)]) == 0
        capsys.readouterr()
    assert cli.main(["proposals", "--json", "--state-dir", str(safe.state)]) == 0
    (waiting,) = json.loads(capsys.readouterr().out)
    assert [(a["op"], a["file"]) for a in waiting["actions"]] == [
        ("rewrite", "project_checkout.md")]
    assert cli.main(["apply", waiting["run_id"], "--state-dir", str(safe.state)]) == 0
    capsys.readouterr()
    links = {f: body for f, (body, *_rest) in safe.tree().items() if f != "MEMORY.md"}
    assert links == {f: body for f, (body, *_rest) in every.tree().items() if f != "MEMORY.md"}
    assert b"(feedback_db.md)" in links["project_checkout.md"]  # the link, repointed
    assert b"yesterday" not in links["project_checkout.md"]  # and the date, once applied
