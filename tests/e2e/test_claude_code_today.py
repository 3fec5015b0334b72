"""A home as Claude Code keeps it today, through a real `consolidator run` subprocess.

Three projects, a team scope that Claude Code syncs to every member, subagent memories inside
a project's git repository, and frontmatter Claude Code writes itself (a description with a
second ": "; type and ``modified`` stamp under ``metadata:``). After a run over every store
found: nothing in ``team/`` changed or removed (its changes wait as judgments, named as shared
with the team), no lock file of any kind inside the project's repository (``git status``
clean), no YAML warning for frontmatter Claude Code wrote, and a stamp under ``metadata:``
taken as the memory's age.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import age_tree, snapshot_tree
from tests.e2e.test_stores import Home, build_home, consolidator, memory_text, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

STALE = "Status: SUPERSEDED by the v2 rollout notes.\nThe old rollout used a cron job."
NESTED_STAMP = "2026-10-01T09:00:00.000Z"


def claude_code_memory(name: str, description: str, body: str, type_: str = "project") -> str:
    """Frontmatter as Claude Code writes it: the description as a plain scalar, whatever it
    holds (here a second ": "), and a ``modified`` stamp."""
    return (f"---\nname: {name}\ndescription: {description}\ntype: {type_}\n"
            f"modified: 2026-11-20T09:00:00Z\n---\n{body}\n")


def git(repo: Path, *argv: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", "-C", str(repo), *argv], capture_output=True, text=True,
                          check=True, env=env).stdout


def today(base: Path, home: Path) -> Home:
    """:func:`build_home`, a third project, and the team scope given work to tempt a run: a
    duplicate, a stale memory, and frontmatter with a second ": "."""
    sim = build_home(base, home)
    team = sim.team_a
    write(team / "project_deploy_copy.md", memory_text("deploy", (team / "project_deploy_team.md")
                                                       .read_text().split("---\n", 2)[2]))
    write(team / "project_rollout_v1.md", memory_text("rollout", STALE))
    write(team / "reference_oncall.md", claude_code_memory(
        "oncall", "On-call: who answers pages and when", "Pages go to the platform rota."))
    write(sim.auto_a / "feedback_commits.md", claude_code_memory(
        "commits", "Commits: imperative mood, no trailing period",
        "Write commit subjects in the imperative mood.", "feedback"))
    write(sim.agent_project / "review_scope.md", claude_code_memory(
        "review scope", "Scope: only the diff, never the whole file",
        "Review the diff only.", "feedback"))
    third = base / "work" / "delta"
    (third / ".claude").mkdir(parents=True)
    from consolidator.roots.stores import sanitize
    from tests.e2e.test_stores import write_transcript
    delta_memory = sim.claude / "projects" / sanitize(third) / "memory"
    write_transcript(delta_memory.parent, "7f9a1c2e-0000-4000-8000-00000000d317", third)
    write(delta_memory / "project_stack.md", claude_code_memory(
        "stack", "Stack: FastAPI on Postgres", "The service is FastAPI on Postgres 16."))
    # The form many directories hold: type and stamp under ``metadata:``.
    write(delta_memory / "project_queue.md", (
        "---\nname: queue\ndescription: Jobs go through the Redis queue\nmetadata:\n"
        "  node_type: memory\n  type: project\n  originSessionId: 7f9a1c2e-0000-4000-8000-"
        f"00000000d317\n  modified: {NESTED_STAMP}\n---\nBackground jobs use the Redis queue.\n"))
    age_tree(base, days=10)
    age_tree(sim.claude, days=10)
    # Subagent memory of scope "local" is the user's own, kept out of version control.
    write(sim.alpha / ".gitignore", ".claude/agent-memory-local/\n")
    git(sim.alpha, "init", "-q")
    git(sim.alpha, "add", "-A")
    git(sim.alpha, "commit", "-q", "-m", "project with its subagents' memories")
    return sim


def test_a_run_over_todays_home_leaves_team_and_repository_untouched_and_warns_of_no_yaml(
    tmp_path: Path, isolated_home: Path
) -> None:
    sim = today(tmp_path, isolated_home)
    team_before = snapshot_tree(sim.team_a)
    env = {**os.environ, "HOME": str(isolated_home)}
    env.pop("CLAUDE_CONFIG_DIR", None)

    proc = consolidator("run", "--force", "--json", "--state-dir", str(tmp_path / "state"),
                        env=env)

    assert proc.returncode == 0, proc.stderr.decode()
    report = json.loads(proc.stdout)
    roots = {r["memory_dir"]: r for r in report["roots"]}
    assert str(sim.team_a) in roots and str(sim.agent_project) in roots
    assert snapshot_tree(sim.team_a) == team_before, "team/ syncs to every member: hands off"
    team = roots[str(sim.team_a)]
    assert not [a for a in team["actions"] if a["op"] in ("merge", "archive")]
    assert git(sim.alpha, "status", "--porcelain", "--untracked-files=all") == ""
    for root in (sim.agent_project, sim.agent_local, sim.team_a):
        assert not [p.name for p in root.iterdir() if p.name.startswith(".consolidate")], root
    logs = proc.stdout.decode() + proc.stderr.decode()
    assert "not valid YAML" not in logs
    # The stamp under ``metadata:`` is the memory's age, not the mtime ten days back.
    (queue,) = [m for r in report["roots"] for m in r["memories"]
                if m["file"] == "project_queue.md"]
    stamped = datetime.fromisoformat(NESTED_STAMP.replace("Z", "+00:00"))
    assert queue["age_days"] == (datetime.now(UTC) - stamped).days

    # What the team scope and the project's subagent memory would change waits as a judgment
    # that says where it lands.
    proposals = consolidator("proposals", "--json", "--state-dir", str(tmp_path / "state"),
                             env=env)
    assert proposals.returncode == 0, proposals.stderr.decode()
    waiting = {p["memory_dir"]: p for p in json.loads(proposals.stdout)}
    for root, where in ((sim.team_a, "shared with your team"),
                        (sim.agent_project, "in the project's repository")):
        for action in waiting.get(str(root), {}).get("actions", []):
            assert where in action["reason"], action
    assert waiting.get(str(sim.agent_project), {}).get("actions"), "its index waits for a yes"
