"""Hostile use of the command line, each as a subprocess: a live index under ``--force``,
``report --output`` aimed at a memory file, a state dir and a root inside each other, folders
that are not memory directories, one root's crash, and config values that only fail later.

Every root is ``<tmp>/projects/<name>/memory`` with its transcripts beside it, as Claude Code
lays them out; HOME is isolated by tests/conftest.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from consolidator.state.statedir import root_key
from tests.conftest import SESSION_IDS, write_sessions

OLD_S = 10 * 86400


def make_root(base: Path, name: str = "p", sessions: int = 5, index: bool = True) -> Path:
    """``base/projects/<name>/memory``: two old memories that say the same thing (so a run
    has a merge to make), an old index and ``sessions`` hour-old sessions."""
    project = base / "projects" / name
    root = project / "memory"
    root.mkdir(parents=True)
    old = time.time() - OLD_S
    for i in range(2):
        path = root / f"feedback_{name}_{i}.md"
        path.write_text(
            f"---\nname: {name}_rule_{i}\ndescription: {name} rule\ntype: feedback\n---\n"
            f"In {name}, always run the linter before pushing.\n",
            encoding="utf-8",
        )
        os.utime(path, (old + i, old + i))
    if index:
        path = root / "MEMORY.md"
        path.write_text(f"# {name}\n- [Rule](feedback_{name}_0.md) — lint first\n",
                        encoding="utf-8")
        os.utime(path, (old, old))
    write_sessions(project, sessions)
    return root


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "consolidator", *args],
        capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})},
        check=False,
    )


def tree(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder`` with its bytes and mtime."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.name == ".consolidate.flock":
            continue  # the tool's own lock file: empty, and meant to stay
        if path.is_file() and not path.is_symlink():
            out[str(path.relative_to(folder))] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def gates(root_report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["id"]: g for g in root_report["gates"]}


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# --------------------------------------------------------------------------- 1. a live index


@pytest.mark.parametrize("name", ["MEMORY.md", "memory.md"])
@pytest.mark.parametrize("force", [True, False], ids=["forced", "gated"])
def test_a_run_leaves_an_index_edited_seconds_ago_alone_and_moves_nothing_out(
    tmp_path: Path, name: str, force: bool
) -> None:
    root = make_root(tmp_path, index=False)
    index = root / name
    index.write_text("# p\n- [Rule](feedback_p_0.md) — a session wrote this just now\n")
    before = tree(root)

    proc = cli("run", *(["--force"] if force else []), "--json", "--memory-dir", str(root),
               "--state-dir", str(tmp_path / "st"))

    assert proc.returncode == 0, proc.stderr
    (report,) = json.loads(proc.stdout)["roots"]
    assert report["status"] == "consolidated"  # G3 looks at sessions and memories only
    assert gates(report)["G3"]["passed"] is not False
    after = {k: v for k, v in tree(root).items() if k != ".consolidate-lock"}
    assert after == before  # nothing merged, the index not rewritten
    (held,) = report["skipped"]
    assert f"index {name} changed " in held and "a live session may be writing it" in held
    assert any(n.startswith(f"{name} left alone: ") for n in report["notes"])
    assert report["proposal"]["actions"] == 1, "the merge waits for the next run"


def test_the_tools_own_index_rewrite_does_not_close_the_idle_gate(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    index = root / "MEMORY.md"  # points at neither memory: the run adds the survivor's pointer
    index.write_text("# p\n- lint first\n", encoding="utf-8")
    os.utime(index, (time.time() - OLD_S, time.time() - OLD_S))
    first = cli("run", "--force", "--json", "--memory-dir", str(root),
                "--state-dir", str(tmp_path / "st"))
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["roots"][0]["status"] == "consolidated"
    assert (root / "MEMORY.md").stat().st_mtime > time.time() - 60  # rewritten just now

    again = cli("report", "--format", "json", "--memory-dir", str(root),
                "--state-dir", str(tmp_path / "st"))

    assert again.returncode == 0, again.stderr
    g3 = gates(json.loads(again.stdout)["roots"][0])["G3"]
    assert g3["passed"] is True, g3


# --------------------------------------------------------------------------- 2. report --output


def _output_cases(tmp_path: Path, root: Path) -> dict[str, tuple[list[str], str]]:
    """case -> (--memory-dir values, --output value)."""
    alias = tmp_path / "alias"
    alias.symlink_to(root, target_is_directory=True)
    link_out = tmp_path / "report-link.md"
    link_out.symlink_to(root / "feedback_p_0.md")
    hard = tmp_path / "report-hard.md"
    os.link(root / "MEMORY.md", hard)
    return {
        "dot-dot": ([str(root)], str(root / ".." / "memory" / "MEMORY.md")),
        "dot-dot-from-a-sibling": ([str(root)],
                                   str(root.parent / "other" / ".." / "memory" / "x.json")),
        "symlinked-alias-of-the-root": ([str(root)], str(alias / "MEMORY.md")),
        "root-given-through-an-alias": ([str(alias)], str(root / "MEMORY.md")),
        "the-root-itself": ([str(alias)], str(root)),
        "symlink-to-a-memory": ([str(root)], str(link_out)),
        "hard-link-to-the-index": ([str(root)], str(hard)),
    }


@pytest.mark.parametrize("case", [
    "dot-dot", "dot-dot-from-a-sibling", "symlinked-alias-of-the-root",
    "root-given-through-an-alias", "the-root-itself", "symlink-to-a-memory",
    "hard-link-to-the-index",
])
def test_report_output_into_a_root_is_refused_before_any_work(tmp_path: Path, case: str) -> None:
    root = make_root(tmp_path)
    (root.parent / "other").mkdir()
    dirs, output = _output_cases(tmp_path, root)[case]
    before = tree(root)
    state = tmp_path / "st"

    proc = cli("report", "--format", "json", "--output", output,
               *[arg for d in dirs for arg in ("--memory-dir", d)], "--state-dir", str(state))

    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    line = one_error_line(proc.stderr)
    assert "--output" in line and "memory dir" in line, line
    assert tree(root) == before
    assert proc.stdout == ""
    assert not state.exists()  # refused before any work


def test_report_output_beside_the_root_is_written(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    out = root.parent / "report.json"
    out.write_text("an older, longer report " * 100)
    proc = cli("report", "--format", "json", "--output", str(out), "--memory-dir", str(root),
               "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["roots"][0]["memory_dir"] == str(root)


# --------------------------------------------------------------------------- 3. state dir, roots


@pytest.mark.parametrize("how", ["flag", "environment", "config", "alias"])
def test_a_state_dir_inside_a_root_is_refused(tmp_path: Path, how: str) -> None:
    root = make_root(tmp_path)
    inside = root / "state"
    args = ["run", "--force", "--memory-dir", str(root)]
    env: dict[str, str] = {}
    if how == "flag":
        args += ["--state-dir", str(inside)]
    elif how == "environment":
        env["CONSOLIDATOR_STATE_DIR"] = str(inside)
    elif how == "config":
        config = tmp_path / "config.toml"
        config.write_text(f'[state]\ndir = "{inside}"\n')
        args += ["--config", str(config)]
    else:
        alias = tmp_path / "alias"
        alias.symlink_to(root, target_is_directory=True)
        args += ["--state-dir", str(alias / "state")]
    before = tree(root)

    proc = cli(*args, env=env)

    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "state dir" in one_error_line(proc.stderr)
    assert tree(root) == before
    assert not inside.exists()


@pytest.mark.parametrize("command", [["run", "--force"], ["report"], ["status"], ["serve"]])
def test_a_root_inside_the_state_dir_is_refused(tmp_path: Path, command: list[str]) -> None:
    state = tmp_path / "st"
    root = make_root(state)  # st/projects/p/memory
    before = tree(state)

    proc = cli(*command, "--memory-dir", str(root), "--state-dir", str(state))

    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "inside the state dir" in one_error_line(proc.stderr)
    assert tree(state) == before


def test_a_configured_folder_that_is_not_a_memory_directory_is_not_a_root(
    tmp_path: Path, isolated_home: Path
) -> None:
    # $HOME, and a blog: Markdown with frontmatter, but none of it memory-shaped.
    blog = isolated_home / "blog"
    blog.mkdir()
    (blog / "post.md").write_text("---\ntitle: Hello\ndate: 2024-01-01\n---\nFirst post.\n")
    (isolated_home / "notes.md").write_text("# just notes\n")
    for sid in SESSION_IDS:
        (isolated_home / f"{sid}.jsonl").write_text("{}\n")
        old = time.time() - 3600
        os.utime(isolated_home / f"{sid}.jsonl", (old, old))
    real = make_root(tmp_path)
    config = tmp_path / "config.toml"
    config.write_text(f'[memory]\nroots = ["~", "~/blog", "{real}"]\n')
    home_before, blog_before = tree(isolated_home), tree(blog)

    proc = cli("run", "--force", "--json", "--config", str(config),
               "--state-dir", str(tmp_path / "st"))

    assert proc.returncode == 0, proc.stderr
    roots = [r["memory_dir"] for r in json.loads(proc.stdout)["roots"]]
    assert roots == [str(real)]
    assert not (isolated_home / "MEMORY.md").exists()
    assert tree(isolated_home) == home_before and tree(blog) == blog_before
    assert "Traceback" not in proc.stderr


def test_a_folder_named_by_memory_dir_that_is_not_a_memory_directory_is_used_with_a_warning(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("---\ntitle: Guide\n---\nRead me.\n")
    proc = cli("report", "--memory-dir", str(docs), "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    line = one_error_line(proc.stderr)
    assert "warning" in line and "holds no memory file" in line and str(docs) in line
    assert proc.stdout.startswith("# Dream Consolidator report")


def test_an_empty_folder_named_by_memory_dir_only_warns(tmp_path: Path) -> None:
    empty = tmp_path / "projects" / "p" / "memory"
    empty.mkdir(parents=True)
    proc = cli("report", "--memory-dir", str(empty), "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert "holds no memory file" in one_error_line(proc.stderr)
    forced = cli("run", "--force", "--json", "--memory-dir", str(empty),
                 "--state-dir", str(tmp_path / "st"))
    assert forced.returncode == 0, forced.stderr
    assert [p.name for p in empty.iterdir() if not p.name.startswith(".consolidate")] == []


def test_a_memory_dir_that_has_only_nested_memory_frontmatter_is_a_root(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "p"
    root = project / "memory"
    root.mkdir(parents=True)
    (root / "user_role.md").write_text(
        "\ufeff---\r\nname: role\r\nmetadata:\r\n  type: user\r\n---\r\nA data scientist.\r\n")
    config = tmp_path / "config.toml"
    config.write_text(f'[memory]\nroots = ["{tmp_path}/projects/*/memory"]\n')
    proc = cli("report", "--format", "json", "--config", str(config),
               "--state-dir", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert [r["memory_dir"] for r in json.loads(proc.stdout)["roots"]] == [str(root)]


# --------------------------------------------------------------------------- 4. one root fails


def _damage_journal(state: Path, root: Path) -> Path:
    """An interrupted run of ``root`` whose journal has garbage in the middle."""
    run_dir = state / root_key(root) / "runs" / "20260101T000000Z-dead"
    run_dir.mkdir(parents=True)
    meta = {"meta": {"run_id": "20260101T000000Z-dead", "memory_dir": str(root),
                     "started_at": "2026-01-01T00:00:00+00:00", "started_ns": 0,
                     "lock_before_ns": None}}
    intent = {"phase": "intent", "step": 1, "op": "rewrite", "file": "feedback_broken_0.md"}
    (run_dir / "journal.jsonl").write_bytes(
        (json.dumps(meta) + "\n").encode() + b"\x00\xffgarbage{{{\n"
        + (json.dumps(intent) + "\n").encode())
    return run_dir


def test_a_root_with_a_damaged_journal_fails_alone_and_the_others_run(tmp_path: Path) -> None:
    broken = make_root(tmp_path, "broken")
    healthy = make_root(tmp_path, "healthy")
    state = tmp_path / "st"
    _damage_journal(state, broken)
    broken_before = tree(broken)

    proc = cli("run", "--force", "--json", "--memory-dir", str(broken),
               "--memory-dir", str(healthy), "--state-dir", str(state))

    assert proc.returncode == 1, proc.stderr
    report = {r["memory_dir"]: r for r in json.loads(proc.stdout)["roots"]}
    assert report[str(broken)]["status"] == "failed"
    assert "\n" not in report[str(broken)]["error"]
    assert report[str(healthy)]["status"] == "consolidated"
    assert "Traceback" not in proc.stderr
    failed_lines = [line for line in proc.stderr.splitlines()
                    if line.startswith(f"consolidator: {broken}:")]
    assert len(failed_lines) == 1, proc.stderr
    assert tree(broken) == broken_before
    assert not (broken / ".consolidate-lock").exists()  # rolled back: there was none
    history = cli("history", "--json", "--state-dir", str(state))
    runs = [json.loads(line) for line in history.stdout.splitlines()]
    assert {(e["memory_dir"], e["status"]) for e in runs} == {
        (str(broken), "failed"), (str(healthy), "consolidated")}


# --------------------------------------------------------------------------- 5. config values

LATE_FAILURES = {
    "huge interval": ("[schedule]\ninterval_seconds = 9223372036854775807\n",
                      "schedule.interval_seconds"),
    "NUL in the state dir": ('[state]\ndir = "/tmp/a\\u0000b"\n', "state.dir"),
    "NUL in the transcripts dir": ('[memory]\ntranscripts_dir = "x\\u0000"\n',
                                   "memory.transcripts_dir"),
    "cron that never fires": ('[schedule]\ncron = "0 0 30 2 *"\n', "schedule.cron"),
    "cron on the 31st of november": ('[schedule]\ncron = "0 0 31 11 *"\n', "schedule.cron"),
    "huge idle minutes": ("[gates]\nidle_minutes = 9223372036854775807\n", "gates.idle_minutes"),
}


# `run` in the default suite; `config check` and `serve` read the config the same way, in the
# slow set (CI runs it).
@pytest.mark.parametrize("command", [
    pytest.param(["config", "check"], marks=pytest.mark.slow), ["run"],
    pytest.param(["serve"], marks=pytest.mark.slow)])
@pytest.mark.parametrize("case", sorted(LATE_FAILURES))
def test_config_values_that_would_fail_later_are_config_errors(
    tmp_path: Path, case: str, command: list[str]
) -> None:
    text, key = LATE_FAILURES[case]
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    root = make_root(tmp_path)

    proc = cli(*command, "--config", str(config), "--memory-dir", str(root),
               "--state-dir", str(tmp_path / "st"))

    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert key in proc.stderr, proc.stderr
    assert proc.stdout == ""
    assert not (tmp_path / "st").exists()


def test_a_cron_that_fires_rarely_but_surely_is_accepted(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[schedule]\ncron = "0 0 29 2 *"\n')  # leap days only
    proc = cli("config", "check", "--config", str(config))
    assert proc.returncode == 0, proc.stderr
