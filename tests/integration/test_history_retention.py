"""History and retention through the real command line: the order of runs started within one
second, a closed gate written once per change, ``history --limit/--since/--root``, what a
real pass removes under ``[state] keep_days``/``keep_runs`` and what it keeps, and
``prune``.

Every command runs in-process through ``consolidator.cli.main`` with its own config, state
dir and memory dirs under ``tmp_path``. Memories are 60 days old, so no run leaves them
alone for being fresh; a run "long ago" runs under freezegun. Run folders and history lines
that are older than the test are written by hand, as a run writes them.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from consolidator.cli import main
from consolidator.state import statedir, statefiles
from tests.conftest import snapshot_tree

NS = 1_000_000_000
DAY = 86400 * NS


class World:
    """Memory dirs, a state dir, a project and a config under one temporary folder."""

    def __init__(self, base: Path, capsys: pytest.CaptureFixture[str],
                 names: tuple[str, ...] = ("memory",), state_toml: str = "") -> None:
        self.base = base
        self.capsys = capsys
        self.roots = [base / name for name in names]
        for root in self.roots:
            root.mkdir(parents=True)
        self.root = self.roots[0]
        self.state = base / "state"
        self.project = base / "project"
        self.project.mkdir()
        self.config = base / "config.toml"
        self.config.write_text(f"[state]\n{state_toml}")

    def rstate(self, root: Path | None = None) -> Path:
        return statedir.root_state(self.state, root or self.root)

    def put(self, rel: str, body: str, *, root: Path | None = None, days: float = 60) -> Path:
        path = (root or self.root) / rel
        stem = path.stem
        path.write_text(f"---\nname: {stem}\ndescription: notes about {stem}\n"
                        f"type: project\n---\n{body}", encoding="utf-8")
        stamp = time.time() - days * 86400
        os.utime(path, (stamp, stamp))
        return path

    def cli(self, *argv: str, root: Path | None = None,
            env: Mapping[str, str] | None = None) -> tuple[int, str, str]:
        """``consolidator ARGV`` on one root (the first by default), in this process."""
        self.capsys.readouterr()
        code = main([*argv, "--config", str(self.config),
                     "--memory-dir", str(root or self.root), "--state-dir", str(self.state),
                     "--project-root", str(self.project)], env)
        out, err = self.capsys.readouterr()
        return code, out, err

    def history(self, *argv: str) -> list[dict[str, Any]]:
        """``history --json ARGV`` over the whole state dir."""
        self.capsys.readouterr()
        code = main(["history", "--json", "--config", str(self.config),
                     "--state-dir", str(self.state), *argv])
        out, err = self.capsys.readouterr()
        assert code == 0, err
        return [json.loads(line) for line in out.splitlines()]

    def lines(self, root: Path | None = None) -> list[dict[str, Any]]:
        """The root's history file, line by line, as written."""
        path = statedir.history(self.rstate(root))
        return [json.loads(line) for line in path.read_text().splitlines()]

    def write_lines(self, *entries: dict[str, Any], root: Path | None = None) -> None:
        path = statedir.history(self.rstate(root))
        statefiles.private_dir(path.parent)
        with open(path, "a", encoding="utf-8") as fh:
            for e in entries:
                fh.write(json.dumps(e) + "\n")

    def line(self, ns: int, root: Path | None = None, **more: Any) -> dict[str, Any]:
        """A history line of a consolidation that started at ``ns``."""
        return {"run_id": run_id_at(ns), "memory_dir": str(root or self.root),
                "started_at": at(ns), "started_ns": ns, "trigger": "serve",
                "status": "consolidated", "dry_run": False, "counts": {}, **more}

    def make_run(self, started_ns: int, *, closed: bool = True, suffix: str = "abcd",
                 archive: dict[str, bytes] | None = None, damaged: bool = False) -> Path:
        """A run folder as a run leaves it: journal (meta, then closed), a backup and, if
        asked, an archive; ``damaged``: a journal with a line no run writes."""
        run_id = run_id_at(started_ns, suffix)
        run = statedir.run_dir(self.rstate(), run_id)
        statefiles.private_dir(run)
        meta = {"meta": {"run_id": run_id, "memory_dir": str(self.root),
                         "started_at": at(started_ns), "started_ns": started_ns}}
        records = [json.dumps(meta)]
        if damaged:
            records += ["not a journal record", json.dumps({"action": {"op": "archive"}})]
        if closed:
            records.append(json.dumps({"closed": "ok"}))
        statedir.journal(run).write_text("".join(r + "\n" for r in records))
        backup = statedir.backup(run, 1, "project_a.md")
        backup.parent.mkdir(parents=True)
        backup.write_bytes(b"the bytes before\n")
        for rel, data in (archive or {}).items():
            statedir.archived(run, rel).parent.mkdir(parents=True, exist_ok=True)
            statedir.archived(run, rel).write_bytes(data)
        return run

    def propose(self, run_id: str) -> None:
        """Leave a proposal of ``run_id`` waiting for review."""
        statefiles.replace(statedir.proposal(self.rstate()), json.dumps(
            {"format": 1, "run_id": run_id, "memory_dir": str(self.root),
             "created_at": "2026-01-01T00:00:00Z",
             "actions": [{"number": 1, "status": "waiting"}]}).encode())

    def settle(self, status: str) -> None:
        """Mark every action of the root's proposal ``status`` (applied, refused...)."""
        path = statedir.proposal(self.rstate())
        data = json.loads(path.read_text())
        data["actions"] = [{**a, "status": status} for a in data["actions"]]
        statefiles.replace(path, json.dumps(data).encode())


def run_id_at(ns: int, suffix: str = "abcd") -> str:
    return datetime.fromtimestamp(ns // NS, UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + suffix


def at(ns: int) -> str:
    return datetime.fromtimestamp(ns // NS, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def closed(entry: dict[str, Any]) -> str | None:
    return next((g["id"] for g in entry.get("gates", []) if g["passed"] is False), None)


def two_memories(world: World, root: Path | None = None) -> None:
    world.put("project_api.md", "The API listens on port 8080.\n", root=root)
    world.put("project_db.md", "The database is Postgres 16.\n", root=root)


# --------------------------------------------------------------------------- order


def test_runs_started_in_the_same_second_are_listed_in_the_order_they_started(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path, capsys, names=("alpha", "beta"))
    alpha, beta = world.roots
    two_memories(world, alpha)
    two_memories(world, beta)
    second = datetime.now(UTC).replace(microsecond=0)

    with freeze_time(second + timedelta(milliseconds=700)):  # beta: written first, started later
        assert world.cli("run", "--force", root=beta)[0] == 0
    with freeze_time(second + timedelta(milliseconds=200)):  # alpha: written next, started earlier
        assert world.cli("run", "--force", root=alpha)[0] == 0

    listed = world.history()
    assert [e["memory_dir"] for e in listed] == [str(alpha), str(beta)]
    assert listed[0]["started_at"] == listed[1]["started_at"]
    assert listed[1]["started_ns"] - listed[0]["started_ns"] == 500_000_000
    assert main(["history", "--state-dir", str(world.state)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in table[1:]] == [e["run_id"] for e in listed]


def test_an_old_line_without_started_ns_is_placed_by_its_started_at(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path, capsys)
    base = (int(time.time()) - 3600) * NS
    world.write_lines(world.line(base + 2 * NS, run_id="new"),
                      {**world.line(base + NS, run_id="old"), "started_ns": None},
                      world.line(base, run_id="first"))
    assert [e["run_id"] for e in world.history()] == ["first", "old", "new"]


# --------------------------------------------------------------------------- closed gates


def test_a_closed_gate_is_recorded_once_per_change_of_gate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path, capsys)
    two_memories(world)
    assert world.cli("run", "--force")[0] == 0  # consolidated just now: G4 shuts

    for _ in range(3):
        code, out, _err = world.cli("run", "--json")
        assert code == 0
        (root,) = json.loads(out)["roots"]
        assert (root["status"], closed(root)) == ("skipped", "G4")  # each pass still says so
    assert [(e["status"], closed(e)) for e in world.lines()] == [
        ("consolidated", None), ("skipped", "G4")]

    disabled = {**os.environ, "CONSOLIDATOR_DISABLE": "1"}
    assert world.cli("run", env=disabled)[0] == 0
    assert world.cli("run", env=disabled)[0] == 0
    assert world.cli("run")[0] == 0
    assert world.cli("run")[0] == 0

    assert [(e["status"], closed(e)) for e in world.lines()] == [
        ("consolidated", None), ("skipped", "G4"), ("skipped", "G1"), ("skipped", "G4")]
    code, out, _err = world.cli("status")
    assert code == 0
    assert re.search(r"G4 interval\s+FAIL", out), out  # status evaluates the gates itself


def test_a_forced_run_after_closed_gates_is_recorded_and_the_gate_again_after_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path, capsys)
    two_memories(world)
    assert world.cli("run", "--force")[0] == 0
    assert world.cli("run")[0] == 0
    assert world.cli("run", "--force", "--dry-run")[0] == 0
    assert world.cli("run")[0] == 0
    assert [(e["status"], closed(e)) for e in world.lines()] == [
        ("consolidated", None), ("skipped", "G4"), ("planned", None), ("skipped", "G4")]


# --------------------------------------------------------------------------- filters


def test_history_limit_since_and_root_choose_the_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(tmp_path, capsys, names=("alpha", "beta"))
    alpha, beta = world.roots
    now = time.time_ns()
    hour = 3600 * NS
    world.write_lines(world.line(now - 10 * DAY, alpha, run_id="a-10d"),
                      world.line(now - 2 * DAY, alpha, run_id="a-2d"),
                      world.line(now - hour, alpha, run_id="a-1h"), root=alpha)
    world.write_lines(world.line(now - 3 * DAY, beta, run_id="b-3d"),
                      world.line(now - hour // 2, beta, run_id="b-30m"), root=beta)

    def ids(*argv: str) -> list[str]:
        return [e["run_id"] for e in world.history(*argv)]

    assert ids() == ["a-10d", "b-3d", "a-2d", "a-1h", "b-30m"]
    assert ids("--limit", "2") == ["a-1h", "b-30m"]  # the newest two, the newest last
    assert ids("--limit", "0") == []
    assert ids("--since", "4d") == ["b-3d", "a-2d", "a-1h", "b-30m"]
    assert ids("--since", "90m") == ["a-1h", "b-30m"]
    day = datetime.fromtimestamp((now - 5 * DAY) // NS, UTC)
    assert ids("--since", day.strftime("%Y-%m-%d")) == ["b-3d", "a-2d", "a-1h", "b-30m"]
    moment = datetime.fromtimestamp((now - 2 * hour) // NS, UTC)
    assert ids("--since", moment.strftime("%Y-%m-%dT%H:%M:%SZ")) == ["a-1h", "b-30m"]
    assert ids("--root", str(alpha)) == ["a-10d", "a-2d", "a-1h"]
    monkeypatch.chdir(tmp_path)
    assert ids("--root", "alpha/") == ["a-10d", "a-2d", "a-1h"]
    assert ids("--root", "./beta/../beta", "--limit", "1") == ["b-30m"]
    assert ids("--root", "alpha", "--since", "3d", "--limit", "5") == ["a-2d", "a-1h"]

    for bad in (["--since", "yesterday"], ["--limit", "-1"], ["--since", "2026-02-30"]):
        code = main(["history", "--state-dir", str(world.state), *bad])
        assert code == 2, bad
        assert capsys.readouterr().err.startswith("consolidator: error:")


# --------------------------------------------------------------------------- retention


def test_a_real_pass_drops_old_history_and_old_runs_but_keeps_archives(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path, capsys, state_toml="keep_days = 30\nkeep_runs = 200\n")
    two_memories(world)
    now = time.time_ns()
    world.write_lines(world.line(now - 100 * DAY, run_id="old-1"),
                      world.line(now - 40 * DAY, run_id="old-2"),
                      world.line(now - DAY, run_id="young"))
    old_plain = world.make_run(now - 100 * DAY, suffix="0001")
    old_archive = world.make_run(now - 100 * DAY, suffix="0002",
                                 archive={"project_gone.md": b"an archived memory\n"})
    young = world.make_run(now - DAY)

    # Neither a closed gate (G6: no sessions) nor a dry run removes anything.
    code, out, _err = world.cli("run", "--json")
    assert code == 0 and closed(json.loads(out)["roots"][0]) == "G6"
    assert world.cli("run", "--force", "--dry-run")[0] == 0
    assert old_plain.is_dir()
    assert [e["run_id"] for e in world.lines()][:3] == ["old-1", "old-2", "young"]

    code, out, err = world.cli("run", "--force", "--json")
    assert code == 0, err
    run_id = json.loads(out)["run_id"]

    assert [e["run_id"] for e in world.lines()][0] == "young"
    assert [e["status"] for e in world.lines()] == [
        "consolidated", "skipped", "planned", "consolidated"]
    assert not old_plain.exists()
    assert (old_archive / "archive" / "project_gone.md").read_bytes() == b"an archived memory\n"
    assert young.is_dir()
    assert statedir.run_dir(world.rstate(), run_id).is_dir()  # this pass's own run


def test_retention_keeps_interrupted_runs_and_the_proposals_run_beyond_keep_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path, capsys, state_toml="keep_days = 30\nkeep_runs = 2\n")
    two_memories(world)
    now = time.time_ns()
    interrupted = world.make_run(now - 100 * DAY, closed=False, damaged=True)
    r1, r2, r3, r4 = (world.make_run(now - d * DAY) for d in (4, 3, 2, 1))
    world.propose(r1.name)

    # Recovery finds the interrupted run's journal damaged: the pass fails, and is real.
    code, _out, err = world.cli("run", "--force")
    assert code == 1 and "damaged journal" in err

    assert [e["status"] for e in world.lines()] == ["failed"]
    assert interrupted.is_dir()  # needed for recovery
    assert r1.is_dir()  # its proposal waits for review
    assert not r2.exists()  # beyond the newest two
    assert r3.is_dir() and r4.is_dir()
    assert json.loads(statedir.proposal(world.rstate()).read_text())["run_id"] == r1.name


def test_a_proposal_nothing_of_which_waits_keeps_no_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Applied, declined, refused or withdrawn by an undo: the run is no longer the one whose
    # proposal waits, and prune says nothing of one.
    world = World(tmp_path, capsys)
    two_memories(world)
    old = world.make_run(time.time_ns() - 50 * DAY)
    world.propose(old.name)
    world.settle("refused")

    code, out, err = world.cli("prune", "--older-than", "30", "--dry-run")

    assert (code, err) == (0, ""), err
    assert f"  would remove run {old.name} (" in out
    assert "its proposal" not in out


# --------------------------------------------------------------------------- prune


def test_prune_lists_what_it_would_remove_then_removes_it_and_undo_cannot_find_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path, capsys)
    body = "Integration tests hit a real database, never mocks.\n"
    world.put("feedback_real_db.md", body, days=60)
    world.put("feedback_no_mocks.md", body, days=61)
    with freeze_time(datetime.now(UTC) - timedelta(days=40)):
        code, out, err = world.cli("run", "--force", "--apply", "all", "--json")
    assert code == 0, err
    run_id = json.loads(out)["run_id"]
    run = statedir.run_dir(world.rstate(), run_id)
    archived = sorted(p.name for p in (run / "archive").iterdir())
    assert archived  # the duplicate merged away lies in the run's archive
    now = time.time_ns()
    interrupted = world.make_run(now - 50 * DAY, closed=False, suffix="0001")
    proposed = world.make_run(now - 50 * DAY, suffix="0002")
    world.propose(proposed.name)
    young = world.make_run(now - DAY, suffix="0003")
    state_before = snapshot_tree(world.state)
    memories_before = snapshot_tree(world.root)

    code, out, err = world.cli("prune", "--older-than", "30", "--dry-run")

    assert (code, err) == (0, "")
    assert out.splitlines()[0] == str(world.root)
    assert f"  would remove run {run_id} (" in out
    for name in archived:
        assert re.search(rf"^    archived {re.escape(name)} \(\d+ bytes\)$", out, re.M), out
    assert f"kept run {interrupted.name}: interrupted" in out
    assert f"kept run {proposed.name}: its proposal" in out
    assert young.name not in out
    assert re.search(r"would remove 1 run\(s\), \d+ bytes in all", out)
    assert snapshot_tree(world.state) == state_before

    code, out, err = world.cli("prune", "--older-than", "30")

    assert (code, err) == (0, "")
    assert f"  removed run {run_id} (" in out
    assert all(f"archived {name} (" in out for name in archived)
    assert not run.exists()
    assert interrupted.is_dir() and proposed.is_dir() and young.is_dir()
    assert snapshot_tree(world.root) == memories_before  # prune never touches a memory dir
    last = world.lines()[-1]
    assert (last["trigger"], last["status"], last["removed"]) == ("prune", "pruned", [run_id])
    assert last["counts"]["users_files"] == len(archived)
    code, out, _err = world.cli("history", "--limit", "1")
    assert f"removed 1 run folder(s), {last['counts']['bytes']} bytes, holding " \
        f"{len(archived)} file(s) moved out of a root" in out

    code, _out, err = world.cli("undo", run_id)
    assert code == 2 and f"no run '{run_id}'" in err

    code, out, _err = world.cli("prune", "--older-than", "1000")
    assert (code, out) == (0, "nothing older than 1000 days\n")


def test_prune_of_every_root_in_the_state_dir_without_memory_dir(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path, capsys)
    old = world.make_run(time.time_ns() - 10 * DAY, archive={"project_x.md": b"x\n"})
    capsys.readouterr()
    code = main(["prune", "--older-than", "5", "--state-dir", str(world.state),
                 "--config", str(world.config)])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith(f"{world.root}\n  removed run {old.name} (")
    assert "    archived project_x.md (2 bytes)" in out
    assert not old.exists()


def test_prune_leaves_a_root_alone_while_a_run_or_an_undo_holds_its_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Removing run folders never races the undo that may be moving files into them."""
    from consolidator import cli
    from tests.conftest import flock_held_elsewhere

    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("# index\n")
    state = tmp_path / "state" / statedir.root_key(root)
    run = statedir.run_dir(state, "20200101T000000Z-abcd")
    statedir.archived(run, "old.md").parent.mkdir(parents=True)
    statedir.archived(run, "old.md").write_bytes(b"an archived memory\n")
    statedir.journal(run).write_text(json.dumps({"meta": {"memory_dir": str(root)}}) + "\n"
                                     + json.dumps({"closed": "ok"}) + "\n")
    with flock_held_elsewhere(root, tmp_path / "state"):
        code = cli.main(["prune", "--older-than", "1", "--memory-dir", str(root),
                         "--state-dir", str(tmp_path / "state")])
    assert code == 1 and "holds the lock" in capsys.readouterr().err
    assert statedir.archived(run, "old.md").read_bytes() == b"an archived memory\n"
