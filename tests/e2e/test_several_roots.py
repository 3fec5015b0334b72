"""Review and undo after a discovery run over several roots, through ``cli.main``.

One pass over several memory dirs gives each the same run id and a proposal of its own. A
run id alone then names every root's proposal, so ``apply RUN_ID`` and ``reject RUN_ID``
refuse until ``--memory-dir`` or ``--all-roots`` says which; ``proposals`` prints the command
that names the root. ``undo latest`` needs ``--memory-dir`` once several roots have history.

Every test runs on copies of ``examples/`` under ``tmp_path`` (two projects found by a
configured glob), with a state dir of its own.
"""

from __future__ import annotations

import json
import shlex
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from consolidator import cli
from consolidator.state import statedir
from tests.conftest import EXAMPLES, age_tree, snapshot_tree
from tests.e2e.test_review import JUDGMENTS, set_story_ages

LOCK_FILES = (".consolidate-lock", ".consolidate.flock")


@dataclass
class Projects:
    """Two projects' memory dirs found by one configured glob, and one state dir."""

    base: Path
    config: Path
    state: Path
    roots: tuple[Path, Path]

    def common(self) -> list[str]:
        return ["--config", str(self.config), "--state-dir", str(self.state)]

    def proposal(self, root: Path) -> dict[str, Any] | None:
        path = statedir.proposal(statedir.root_state(self.state, root))
        if not path.exists():
            return None
        data: dict[str, Any] = json.loads(path.read_bytes())
        return data

    def frozen(self) -> tuple[dict[str, Any], ...]:
        """Both roots (lock files aside) and the state dir, bytes, mtimes and modes."""
        trees = tuple({k: v for k, v in snapshot_tree(r).items() if k not in LOCK_FILES}
                      for r in self.roots)
        return (*trees, snapshot_tree(self.state))

    def memories(self, root: Path) -> dict[str, Any]:
        return {k: v for k, v in snapshot_tree(root).items() if k not in LOCK_FILES}


@pytest.fixture
def projects(tmp_path: Path) -> Projects:
    story_ns = time.time_ns()
    roots = []
    for name in ("shop", "blog"):
        dest = tmp_path / "projects" / name
        shutil.copytree(EXAMPLES, dest, symlinks=True, copy_function=shutil.copy2)
        age_tree(dest, days=10)
        set_story_ages(dest, story_ns)
        roots.append(dest / "memory")
    config = tmp_path / "config.toml"
    config.write_text(f'[memory]\nroots = ["{tmp_path}/projects/*/memory"]\n')
    blog, shop = sorted(roots)
    return Projects(tmp_path, config, tmp_path / "state", (blog, shop))


def cli_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("consolidator: ") and "Traceback" not in err
    return lines[0]


def refused(capsys: pytest.CaptureFixture[str], p: Projects, *argv: str) -> str:
    """``argv`` exits 2 with one error line (returned), prints nothing on stdout and changes
    nothing: neither root, nor the state dir."""
    frozen = p.frozen()
    code, out, err = cli_run(capsys, *argv, *p.common())
    assert (code, out) == (2, ""), argv
    line = one_error_line(err)
    assert p.frozen() == frozen
    return line


def discovery_run(capsys: pytest.CaptureFixture[str], p: Projects) -> str:
    """``run --force`` over every configured root; returns its run id."""
    code, out, err = cli_run(capsys, "run", "--force", "--json", *p.common())
    assert code == 0, err
    doc = json.loads(out)
    assert sorted(r["memory_dir"] for r in doc["roots"]) == [str(r) for r in p.roots]
    run_id: str = doc["run_id"]
    return run_id


def history(capsys: pytest.CaptureFixture[str], p: Projects) -> list[dict[str, Any]]:
    code, out, err = cli_run(capsys, "history", "--json", *p.common())
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


# --------------------------------------------------------------------------- proposals


def test_proposals_prints_an_apply_command_that_names_its_root(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = discovery_run(capsys, projects)
    code, out, err = cli_run(capsys, "proposals", *projects.common())
    assert (code, err) == (0, "")
    for root in projects.roots:
        assert f"consolidator apply {rid} --memory-dir {shlex.quote(str(root))}" in out
        assert f"consolidator reject {rid} --memory-dir {shlex.quote(str(root))}" in out


# --------------------------------------------------------------------------- apply, reject


@pytest.mark.parametrize("command", ["apply", "reject"])
def test_a_run_id_that_spans_several_roots_is_refused_and_changes_nothing(
    projects: Projects, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = discovery_run(capsys, projects)
    line = refused(capsys, projects, command, rid)
    assert all(str(root) in line for root in projects.roots), line
    assert "--memory-dir" in line and "--all-roots" in line


def test_apply_with_memory_dir_applies_only_that_roots_proposal(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = discovery_run(capsys, projects)
    blog, shop = projects.roots
    untouched = projects.memories(shop)
    shop_proposal = projects.proposal(shop)
    code, out, err = cli_run(capsys, "apply", rid, "--memory-dir", str(blog), *projects.common())
    assert code == 0, err
    assert f"{blog}: applied actions 1, 2, 3, 4 of run {rid}" in out
    assert str(shop) not in out
    assert not (blog / "project_migration_v2.md").exists()
    assert projects.memories(shop) == untouched
    assert projects.proposal(shop) == shop_proposal, "the other root's proposal still waits"


def test_apply_with_all_roots_applies_every_roots_proposal_of_the_run(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = discovery_run(capsys, projects)
    code, out, err = cli_run(capsys, "apply", rid, "--all-roots", *projects.common())
    assert code == 0, err
    for root in projects.roots:
        assert f"{root}: applied actions 1, 2, 3, 4 of run {rid}" in out
        assert not (root / "project_migration_v2.md").exists()


def test_reject_with_memory_dir_declines_only_that_roots_proposal(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = discovery_run(capsys, projects)
    blog, shop = projects.roots
    code, out, err = cli_run(capsys, "reject", rid, "--memory-dir", str(shop),
                             *projects.common())
    assert code == 0, err
    assert f"{shop}: declined actions 1, 2, 3, 4 of run {rid}" in out
    code, out, _ = cli_run(capsys, "proposals", "--json", *projects.common())
    assert [r["memory_dir"] for r in json.loads(out)] == [str(blog)]


def test_all_roots_with_memory_dir_is_a_usage_error(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = discovery_run(capsys, projects)
    line = refused(capsys, projects, "apply", rid, "--all-roots", "--memory-dir",
                   str(projects.roots[0]))
    assert "--all-roots" in line


# --------------------------------------------------------------------------- every action refused


def test_an_apply_whose_every_action_was_refused_exits_1_and_is_recorded_as_refused(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = discovery_run(capsys, projects)
    blog, _shop = projects.roots
    for _n, _op, file in JUDGMENTS:
        with (blog / file).open("ab") as handle:
            handle.write(b"\nA line a live session added.\n")
    code, out, err = cli_run(capsys, "apply", rid, "--memory-dir", str(blog),
                             *projects.common())
    assert code == 1, (out, err)
    assert f"{blog}: applied nothing of run {rid}" in out
    for n, _op, file in JUDGMENTS:
        assert f"{n}: refused, {file} changed since" in out
    assert "every chosen action was refused" in one_error_line(err)
    last = history(capsys, projects)[-1]
    assert (last["trigger"], last["status"], last["memory_dir"]) == ("apply", "refused",
                                                                      str(blog))
    assert last["counts"]["applied"] == 0 and last["counts"]["refused"] == 4
    code, out, _ = cli_run(capsys, "history", *projects.common())
    assert code == 0
    row = out.splitlines()[-1]
    assert " refused " in row and "applied 0 of proposal" in row


# --------------------------------------------------------------------------- undo


def test_undo_of_a_run_that_changed_nothing_says_so_and_exits_0(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    discovery_run(capsys, projects)
    again = discovery_run(capsys, projects)  # the roots are consolidated: nothing changes
    assert again in {e["run_id"] for e in history(capsys, projects)}
    frozen = projects.frozen()
    code, out, err = cli_run(capsys, "undo", again, *projects.common())
    assert (code, err) == (0, "")
    for root in projects.roots:
        assert f"{root}: run {again} changed nothing; nothing to undo" in out
    assert projects.frozen() == frozen


def test_undo_of_a_dry_run_says_there_is_nothing_to_undo(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli_run(capsys, "run", "--force", "--dry-run", "--json", *projects.common())
    assert code == 0, err
    dry = json.loads(out)["run_id"]
    code, out, err = cli_run(capsys, "undo", dry, *projects.common())
    assert (code, err) == (0, "")
    assert out.count("nothing to undo") == 2 and "dry run" in out


def test_undo_of_an_unknown_run_is_still_a_usage_error(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    discovery_run(capsys, projects)
    line = refused(capsys, projects, "undo", "20990101T000000Z-dead")
    assert "no run '20990101T000000Z-dead'" in line


def test_undo_latest_needs_memory_dir_when_several_roots_have_history(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    discovery_run(capsys, projects)
    line = refused(capsys, projects, "undo", "latest")
    assert "--memory-dir" in line and all(str(r) in line for r in projects.roots), line


def test_undo_latest_undoes_the_newest_run_that_changed_the_root(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    blog, shop = projects.roots
    before = projects.memories(blog)
    first = discovery_run(capsys, projects)
    discovery_run(capsys, projects)  # changes nothing: not what `latest` means
    shop_after = projects.memories(shop)
    code, out, err = cli_run(capsys, "undo", "latest", "--memory-dir", str(blog),
                             *projects.common())
    assert code == 0, err
    assert f"{blog}: undoing run {first}" in out and f"{blog}: restored " in out
    assert projects.memories(blog) == before
    assert projects.memories(shop) == shop_after, "the other root keeps its run"
    code, out, err = cli_run(capsys, "undo", "latest", "--memory-dir", str(blog),
                             *projects.common())
    assert (code, err) == (0, "")
    assert f"{blog}: nothing to undo" in out


def test_undo_latest_on_the_only_root_with_history_needs_no_memory_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root, symlinks=True, copy_function=shutil.copy2)
    age_tree(root, days=10)
    set_story_ages(root, time.time_ns())
    memory = root / "memory"
    state = tmp_path / "state"
    before = {k: v for k, v in snapshot_tree(memory).items() if k not in LOCK_FILES}
    code, out, err = cli_run(capsys, "run", "--force", "--json", "--memory-dir", str(memory),
                             "--state-dir", str(state))
    assert code == 0, err
    rid = json.loads(out)["run_id"]
    code, out, err = cli_run(capsys, "undo", "latest", "--state-dir", str(state))
    assert code == 0, err
    assert f"{memory}: undoing run {rid}" in out
    assert {k: v for k, v in snapshot_tree(memory).items() if k not in LOCK_FILES} == before


def test_undo_of_a_pruned_run_says_its_folder_was_removed(
    projects: Projects, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli_run(capsys, "run", "--force", "--json", "--apply", "all",
                             *projects.common())
    assert code == 0, err
    rid = json.loads(out)["run_id"]
    code, out, err = cli_run(capsys, "prune", "--older-than", "0", *projects.common())
    assert code == 0 and out.count(f"removed run {rid}") == 2, (out, err)
    line = refused(capsys, projects, "undo", rid)
    assert f"no run {rid!r}" in line and "removed by consolidator prune" in line
    blog = projects.roots[0]
    code, out, err = cli_run(capsys, "undo", "latest", "--memory-dir", str(blog),
                             *projects.common())
    assert (code, err) == (0, "")
    assert out.strip() == (f"{blog}: nothing to undo (its newest run that changed it, {rid}, "
                           "cannot be undone: its run folder was removed by consolidator "
                           "prune or [state] keep_runs)")


@pytest.mark.parametrize(("run_id", "says"), [
    ("nope", "a run id looks like "),
    ("20261205T033504Z-7647", "consolidator history lists the runs recorded"),
])
def test_undo_of_an_unknown_run_id_says_what_one_looks_like(
    projects: Projects, capsys: pytest.CaptureFixture[str], run_id: str, says: str
) -> None:
    discovery_run(capsys, projects)
    line = refused(capsys, projects, "undo", run_id)
    assert f"no run {run_id!r}" in line and says in line
