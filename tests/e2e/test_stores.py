"""Every store Claude Code keeps, found with its kind, through the real command line.

Each test builds a simulated Claude Code home under ``tmp_path`` (:func:`build_home`): two
projects, each a folder with a ``.claude/`` and a session transcript naming it as its cwd;
the first has a team scope, daily logs, and project and local subagent memories; a user
subagent memory; an empty memory folder that is no store yet; and a hostile
``autoMemoryDirectory`` in the first project's shared settings, which must be ignored. Every
file is ten days old, so no gate is hot unless a test makes it so.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from consolidator import cli
from consolidator.stores import sanitize
from tests.conftest import REPO, SESSION_IDS, age_tree, snapshot_tree

DAY = 86400.0
ENDED = SESSION_IDS[3]  # the session the SessionEnd hook says just ended
OTHER = SESSION_IDS[4]  # another session of the same project


# --------------------------------------------------------------------------- the home


def memory_text(name: str, body: str, type_: str = "project", description: str = "") -> str:
    return (f"---\nname: {name}\ndescription: {description or name + ' fact'}\n"
            f"type: {type_}\n---\n{body}\n")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_transcript(folder: Path, sid: str, cwd: Path, age_s: float | None = None) -> Path:
    path = write(folder / f"{sid}.jsonl",
                 json.dumps({"type": "user", "sessionId": sid, "cwd": str(cwd)}) + "\n")
    if age_s is not None:
        stamp = time.time() - age_s
        os.utime(path, (stamp, stamp))
    return path


def write_json(path: Path, data: Any) -> Path:
    return write(path, json.dumps(data))


# The duplicate pair across scopes: the private and the team copy have the same body and type.
DEPLOY_BODY = ("Deploys go through the release train: tag the commit, wait for the canary, "
               "then promote to production with the deploy bot.")


@dataclass
class Home:
    """The simulated Claude Code home and every folder a test looks at."""

    home: Path
    claude: Path
    alpha: Path  # first project folder (team scope, logs, subagent memories)
    beta: Path  # second project folder
    alpha_sessions: Path  # <claude>/projects/<sanitized alpha>
    beta_sessions: Path
    auto_a: Path
    team_a: Path
    auto_b: Path
    agent_user: Path
    agent_project: Path
    agent_local: Path
    hostile: Path  # named by alpha's shared settings: never a store
    empty_memory: Path  # a memory folder Claude Code made, holding nothing yet
    logs: list[Path] = field(default_factory=list)

    def expected(self) -> dict[str, str]:
        return {
            str(self.auto_a): "auto",
            str(self.team_a): "team",
            str(self.auto_b): "auto",
            str(self.agent_user): "agent-user",
            str(self.agent_project): "agent-project",
            str(self.agent_local): "agent-local",
        }

    def alpha_roots(self) -> set[str]:
        return {str(self.auto_a), str(self.team_a), str(self.agent_project),
                str(self.agent_local)}


def build_home(base: Path, home: Path, claude: Path | None = None) -> Home:
    """The simulated home; ``claude``: the Claude Code config folder (``<home>/.claude``)."""
    claude = claude or home / ".claude"
    work = base / "work"
    alpha, beta, gamma = work / "alpha", work / "beta-project", work / "gamma"
    for project in (alpha, beta, gamma):
        (project / ".claude").mkdir(parents=True)
    alpha_sessions = claude / "projects" / sanitize(alpha)
    beta_sessions = claude / "projects" / sanitize(beta)
    gamma_sessions = claude / "projects" / sanitize(gamma)
    for folder, project, sid in ((alpha_sessions, alpha, SESSION_IDS[0]),
                                 (beta_sessions, beta, SESSION_IDS[1]),
                                 (gamma_sessions, gamma, SESSION_IDS[2])):
        write_transcript(folder, sid, project)
    # A subagent's transcript is not a session: it never names the project.
    write(alpha_sessions / "agent-1234abcd.jsonl", json.dumps({"cwd": "/elsewhere"}) + "\n")

    auto_a = alpha_sessions / "memory"
    write(auto_a / "MEMORY.md",
          "# Memory\n\n"
          "- [Build](project_build.md) - how the build runs\n"
          "- [Team deploy](team/project_deploy_team.md) - the team's deploy notes\n")
    write(auto_a / "project_build.md",
          memory_text("build", "The build uses make with ninja as the backend."))
    write(auto_a / "user_prefers_tabs.md",
          memory_text("prefers tabs", "The user indents with tabs, never spaces.", "user"))
    write(auto_a / "project_deploy.md", memory_text("deploy", DEPLOY_BODY))
    team_a = auto_a / "team"
    write(team_a / "MEMORY.md", "# Team memory\n\n- [Deploy](project_deploy_team.md) - deploys\n")
    write(team_a / "project_deploy_team.md", memory_text("deploy", DEPLOY_BODY))
    write(team_a / "reference_dashboards.md",
          memory_text("dashboards", "Dashboards live in Grafana under the Platform folder.",
                      "reference"))
    logs = [
        write(auto_a / "logs" / "2026" / "11" / "2026-11-20.md",
              "# 2026-11-20\n\n- 09:14 looked into the flaky login test\n"),
        # a log with memory-shaped frontmatter is still a log, not a memory
        write(auto_a / "logs" / "2026" / "11" / "2026-11-21.md",
              memory_text("day log", "Worked on the importer all day.")),
    ]

    auto_b = beta_sessions / "memory"
    write(auto_b / "project_ports.md", memory_text("ports", "The API listens on port 8080."))
    write(auto_b / "feedback_short.md",
          memory_text("short answers", "Keep answers short.", "feedback"))

    empty_memory = gamma_sessions / "memory"
    empty_memory.mkdir()
    write(empty_memory / "notes.txt", "not a memory\n")

    agent_user = claude / "agent-memory" / "planner"
    write(agent_user / "MEMORY.md", "# Planner\n\n- [Plans](plans.md) - how plans are laid\n")
    write(agent_user / "plans.md", memory_text("plans", "Plans are laid out as checklists."))
    (claude / "agent-memory" / "idle-agent").mkdir()  # an agent that remembered nothing yet

    agent_project = alpha / ".claude" / "agent-memory" / "reviewer"
    # no MEMORY.md: found by a memory-shaped file alone
    write(agent_project / "review_rules.md",
          memory_text("review rules", "Reviews block on missing tests."))
    (alpha / ".claude" / "agent-memory" / "empty-agent").mkdir()
    agent_local = alpha / ".claude" / "agent-memory-local" / "tester"
    write(agent_local / "MEMORY.md", "# Tester\n\n- [Flaky](flaky.md) - flaky tests\n")
    write(agent_local / "flaky.md", memory_text("flaky", "The login test is flaky on CI."))

    hostile = base / "hostile"
    write(hostile / "MEMORY.md", "# not yours\n")
    write(hostile / "secret.md", memory_text("secret", "A repository may not point here."))
    write_json(alpha / ".claude" / "settings.json", {"autoMemoryDirectory": str(hostile)})

    age_tree(base, days=10)
    if not claude.is_relative_to(base):
        age_tree(claude, days=10)
    return Home(home, claude, alpha, beta, alpha_sessions, beta_sessions, auto_a, team_a,
                auto_b, agent_user, agent_project, agent_local, hostile, empty_memory, logs)


@pytest.fixture
def sim(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """The simulated home at ``~/.claude`` (no ``CLAUDE_CONFIG_DIR``)."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CONSOLIDATOR_FAULT_AFTER_STEP", raising=False)
    return build_home(tmp_path, isolated_home)


# --------------------------------------------------------------------------- helpers


@dataclass
class Ran:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


def main(capsys: pytest.CaptureFixture[str], *argv: str,
         env: dict[str, str] | None = None, stdin: bytes | None = None,
         monkeypatch: pytest.MonkeyPatch | None = None) -> Ran:
    """``consolidator`` in-process; its output captured."""
    capsys.readouterr()
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = cli.main(list(argv), env=env)
    out, err = capsys.readouterr()
    return Ran(code, out, err)


def consolidator(*argv: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
                 timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """``python -m consolidator`` as a real subprocess."""
    return subprocess.run([sys.executable, "-m", "consolidator", *argv], input=stdin,
                          capture_output=True, timeout=timeout, check=False, cwd=REPO,
                          env=dict(os.environ) if env is None else env)


def by_dir(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["memory_dir"]: r for r in report["roots"]}


def gate(entry: dict[str, Any], gid: str) -> dict[str, Any]:
    return next(g for g in entry["gates"] if g["id"] == gid)


def closed(entry: dict[str, Any]) -> str | None:
    return next((g["id"] for g in entry["gates"] if g["passed"] is False), None)


def write_config(path: Path, text: str) -> Path:
    return write(path, text)


def md_files(base: Path) -> set[str]:
    return {str(p) for p in base.rglob("*.md")}


# --------------------------------------------------------------------------- 1. discovery


def test_report_finds_every_store_with_its_kind_and_nothing_else(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran = main(capsys, "report", "--format", "json", "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    found = {r["memory_dir"]: r["kind"] for r in ran.json()["roots"]}
    assert found == sim.expected()
    for wrong in (sim.hostile, sim.empty_memory, sim.auto_a / "logs", sim.alpha_sessions,
                  sim.agent_project.parent / "empty-agent",
                  sim.claude / "agent-memory" / "idle-agent"):
        assert str(wrong) not in found


def test_status_json_has_each_roots_kind(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran = main(capsys, "status", "--json", "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    assert {r["memory_dir"]: r["kind"] for r in ran.json()} == sim.expected()


def test_history_lines_after_a_forced_run_have_each_roots_kind(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = str(tmp_path / "st")
    ran = main(capsys, "run", "--force", "--state-dir", state)
    assert ran.code == 0, ran.err

    hist = main(capsys, "history", "--json", "--state-dir", state)

    assert hist.code == 0, hist.err
    entries = hist.lines()
    assert {e["memory_dir"]: e["kind"] for e in entries} == sim.expected()
    assert len(entries) == len(sim.expected())
    assert {e["trigger"] for e in entries} == {"run"}


def test_config_check_lists_the_roots_found_with_their_kinds(
        sim: Home, capsys: pytest.CaptureFixture[str]) -> None:
    ran = main(capsys, "config", "check")

    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    assert lines[0] == "built-in defaults: ok"
    assert lines[1] == f"{len(sim.expected())} memory dir(s) found:"
    assert sorted(lines[2:]) == sorted(f"  {path} ({kind})"
                                       for path, kind in sim.expected().items())
    assert str(sim.hostile) not in ran.out


def test_config_check_warns_for_a_configured_pattern_that_matches_nothing(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path / "config.toml",
                          f'[memory]\nroots = ["~/nowhere/*/memory", "{sim.auto_b}"]\n')

    ran = main(capsys, "config", "check", "--config", str(config))

    assert ran.code == 0, ran.err
    assert "warning: memory.roots pattern '~/nowhere/*/memory' matches nothing" in ran.out
    assert f"pattern '{sim.auto_b}'" not in ran.out
    assert "1 memory dir(s) configured:" in ran.out
    assert f"  {sim.auto_b} (auto)" in ran.out.splitlines()


def test_a_real_subprocess_finds_the_same_stores(sim: Home, tmp_path: Path) -> None:
    proc = consolidator("report", "--format", "json", "--state-dir", str(tmp_path / "st"))

    assert proc.returncode == 0, proc.stderr
    found = {r["memory_dir"]: r["kind"] for r in json.loads(proc.stdout)["roots"]}
    assert found == sim.expected()
