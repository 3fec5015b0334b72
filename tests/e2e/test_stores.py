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
from consolidator.roots.stores import sanitize
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


# --------------------------------------------------------------------------- 2. where the home is


def test_claude_config_dir_moves_the_home(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # ~/.claude holds a store of its own, which CLAUDE_CONFIG_DIR makes someone else's
    decoy = isolated_home / ".claude" / "projects" / "-decoy" / "memory"
    write(decoy / "MEMORY.md", "# decoy\n")
    write(decoy / "decoy.md", memory_text("decoy", "Never found."))
    write_transcript(decoy.parent, SESSION_IDS[5], tmp_path)
    write(isolated_home / ".claude" / "agent-memory" / "decoy-agent" / "MEMORY.md", "# decoy\n")
    claude = tmp_path / "config-dir"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    sim = build_home(tmp_path / "sim", isolated_home, claude)

    ran = main(capsys, "report", "--format", "json", "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    found = {r["memory_dir"]: r["kind"] for r in ran.json()["roots"]}
    assert found == sim.expected()
    assert not any(path.startswith(str(isolated_home / ".claude")) for path in found)

    # the environment handed to main() is the one read, not the process's
    without = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    check = main(capsys, "config", "check", env=without)
    assert check.code == 0, check.err
    assert check.out.splitlines()[1:] == [
        "2 memory dir(s) found:", f"  {decoy} (auto)",
        f"  {isolated_home / '.claude' / 'agent-memory' / 'decoy-agent'} (agent-user)"]


def with_user_memory_dir(sim: Home, value: str) -> Path:
    """A shared auto memory folder at ``~/mem`` (a memory and a team scope), named in the
    user's settings as ``value``."""
    mem = sim.home / "mem"
    write(mem / "project_shared.md", memory_text("shared", "Every project shares this folder."))
    write(mem / "team" / "reference_wiki.md", memory_text("wiki", "The wiki is at wiki.example."))
    age_tree(mem, days=10)
    write_json(sim.claude / "settings.json", {"autoMemoryDirectory": value})
    return mem


def test_auto_memory_directory_in_user_settings_is_honoured_with_its_tilde(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    claude = tmp_path / "config-dir"  # the second config dir variant
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    sim = build_home(tmp_path / "sim", isolated_home, claude)
    mem = with_user_memory_dir(sim, "~/mem")

    ran = main(capsys, "report", "--format", "json", "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    roots = by_dir(ran.json())
    assert {path: r["kind"] for path, r in roots.items()} == {
        str(mem): "auto", str(mem / "team"): "team",
        str(sim.agent_user): "agent-user", str(sim.agent_project): "agent-project",
        str(sim.agent_local): "agent-local",
    }
    # one store for every project: the sessions of all three count
    assert gate(roots[str(mem)], "G6")["reason"].startswith("3 session(s)")
    assert gate(roots[str(mem / "team")], "G6")["reason"].startswith("3 session(s)")


def test_auto_memory_directory_in_local_settings_wins_over_the_users(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    claude = tmp_path / "config-dir"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    sim = build_home(tmp_path / "sim", isolated_home, claude)
    mem = with_user_memory_dir(sim, "~/mem")
    local = tmp_path / "alpha-local-memory"
    write(local / "project_local.md", memory_text("local", "Alpha keeps its memory here."))
    age_tree(local, days=10)
    write_json(sim.alpha / ".claude" / "settings.local.json",
               {"autoMemoryDirectory": str(local)})

    ran = main(capsys, "report", "--format", "json", "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    roots = by_dir(ran.json())
    assert roots[str(local)]["kind"] == "auto"
    assert gate(roots[str(local)], "G6")["reason"].startswith("1 session(s)")  # alpha's only
    assert gate(roots[str(mem)], "G6")["reason"].startswith("2 session(s)")  # beta's, gamma's
    assert str(sim.auto_a) not in roots and str(sim.hostile) not in roots


@pytest.mark.parametrize("value", ["~", "~/", "~/.", "~/..", "mem", "./mem", "", "/"])
@pytest.mark.parametrize("where", ["user", "local"])
def test_a_bare_tilde_or_relative_auto_memory_directory_is_ignored(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str,
        where: str) -> None:
    # memories at ~ and at ./mem (the process's cwd) would be found if the value were used
    write(sim.home / "MEMORY.md", "# the home folder is never a memory dir\n")
    write(sim.home / "mem" / "MEMORY.md", "# not named by an absolute path\n")
    settings = (sim.claude / "settings.json" if where == "user"
                else sim.alpha / ".claude" / "settings.local.json")
    write_json(settings, {"autoMemoryDirectory": value})

    ran = main(capsys, "report", "--format", "json", "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    assert {r["memory_dir"]: r["kind"] for r in ran.json()["roots"]} == sim.expected()


# --------------------------------------------------------------------------- 3. auto memory off


def test_auto_memory_off_in_user_settings_closes_g1_for_every_root(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = write_json(sim.claude / "settings.json", {"autoMemoryEnabled": False})

    ran = main(capsys, "report", "--format", "json", "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    roots = by_dir(ran.json())
    assert set(roots) == set(sim.expected())
    for root in roots.values():
        g1 = gate(root, "G1")
        assert g1["passed"] is False, root["memory_dir"]
        assert str(settings) in g1["reason"] and "autoMemoryEnabled" in g1["reason"]


@pytest.mark.parametrize("name", ["settings.json", "settings.local.json"])
def test_auto_memory_off_in_a_projects_settings_closes_g1_for_its_roots_only(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    settings = sim.alpha / ".claude" / name
    current = json.loads(settings.read_text()) if settings.exists() else {}
    write_json(settings, {**current, "autoMemoryEnabled": False})

    ran = main(capsys, "report", "--format", "json", "--state-dir", str(tmp_path / "st"))
    status = main(capsys, "status", "--json", "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0 and status.code == 0, ran.err + status.err
    assert set(by_dir(ran.json())) == set(sim.expected())
    for rows in (ran.json()["roots"], status.json()):
        for root in rows:
            g1 = gate(root, "G1")
            if root["memory_dir"] in sim.alpha_roots():
                assert g1["passed"] is False, root["memory_dir"]
                assert str(settings) in g1["reason"]
            else:
                assert g1 == {"id": "G1", "name": "enabled", "passed": True,
                              "reason": "enabled"}, root["memory_dir"]


def test_a_run_leaves_every_root_alone_when_auto_memory_is_off(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_json(sim.claude / "settings.json", {"autoMemoryEnabled": False})
    config = write_config(tmp_path / "config.toml", "[gates]\nmin_sessions = 0\n")
    before = snapshot_tree(sim.claude), snapshot_tree(sim.alpha)

    ran = main(capsys, "run", "--json", "--config", str(config),
               "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    assert {(r["status"], closed(r)) for r in ran.json()["roots"]} == {("skipped", "G1")}
    assert (snapshot_tree(sim.claude), snapshot_tree(sim.alpha)) == before


def test_auto_memory_off_in_user_settings_closes_g1_for_a_configured_root_too(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_json(sim.claude / "settings.json", {"autoMemoryEnabled": False})
    config = write_config(tmp_path / "config.toml",
                          f'[memory]\nroots = ["{sim.claude}/projects/*/memory"]\n')

    ran = main(capsys, "report", "--format", "json", "--config", str(config),
               "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    roots = by_dir(ran.json())
    assert set(roots) == {str(sim.auto_a), str(sim.auto_b)}
    assert all(gate(r, "G1")["passed"] is False for r in roots.values())


# --------------------------------------------------------------------------- 4, 5. scopes, logs


def test_a_private_team_duplicate_is_reported_never_merged_and_indexes_stay_apart(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the team scope holds more memories than the index limit allows: only its own index
    # pays for them
    for i in range(12):
        write(sim.team_a / f"reference_service_{i:02d}.md",
              memory_text(f"service {i:02d}", f"Service {i:02d} runs in region r{i}, owned by "
                          f"squad {chr(65 + i)} since release {100 + i}.", "reference"))
    age_tree(sim.team_a, days=10)
    config = write_config(tmp_path / "config.toml", "[index]\nmax_lines = 10\n")
    private, team = sim.auto_a / "project_deploy.md", sim.team_a / "project_deploy_team.md"
    kept = {p: p.read_bytes() for p in (private, team)}
    private_index_before = (sim.auto_a / "MEMORY.md").read_text(encoding="utf-8")
    team_pointer = "- [Team deploy](team/project_deploy_team.md) - the team's deploy notes"
    assert team_pointer in private_index_before.splitlines()
    state = str(tmp_path / "st")

    report = main(capsys, "report", "--format", "json", "--config", str(config),
                  "--state-dir", state)
    ran = main(capsys, "run", "--force", "--apply", "all", "--json", "--config", str(config),
               "--state-dir", state)

    assert report.code == 0 and ran.code == 0, report.err + ran.err
    for doc in (report.json(), ran.json()):
        roots = by_dir(doc)
        across = roots[str(sim.auto_a)]["across_scopes"]
        assert [(sorted(d["files"]), d["similarity"]) for d in across] == [
            (["project_deploy.md", "team/project_deploy_team.md"], 1.0)]
        assert all(r["across_scopes"] == [] for p, r in roots.items() if p != str(sim.auto_a))
        assert roots[str(sim.auto_a)]["duplicates"] == []
        assert roots[str(sim.team_a)]["duplicates"] == []
    roots = by_dir(ran.json())
    assert roots[str(sim.auto_a)]["status"] == roots[str(sim.team_a)]["status"] == "consolidated"
    for path, data in kept.items():
        assert path.read_bytes() == data, f"{path} changed"
    for root in (roots[str(sim.auto_a)], roots[str(sim.team_a)]):
        assert not [a for a in root["actions"] if a["op"] in ("merge", "archive")]
        assert root["index"]["within_limits"] is True
        assert root["index"]["unlinked"] == [] and root["index"]["removed"] == []
        assert not [f for f in root["index"]["added"] if "/" in f or f.startswith(".")]

    private_index = (sim.auto_a / "MEMORY.md").read_text(encoding="utf-8")
    team_index = (sim.team_a / "MEMORY.md").read_text(encoding="utf-8")
    for text in (private_index, team_index):
        assert len(text.splitlines()) <= 10 and len(text.encode()) <= 25000
    # the private index keeps its pointer to the team file as written, and gains no other
    assert team_pointer in private_index.splitlines()
    assert [line for line in private_index.splitlines() if "team/" in line] == [team_pointer]
    assert "(missing)" not in private_index and "archived" not in private_index
    assert "project_deploy.md" in private_index
    # the team index never points out of its scope
    assert "project_deploy.md)" not in team_index and "../" not in team_index
    assert "user_prefers_tabs" not in team_index and "project_build" not in team_index
    assert not any(p.name == "MEMORY.md" for p in sim.auto_a.glob("*/*/MEMORY.md"))


def test_daily_logs_are_never_memories_read_changed_or_indexed(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sim.logs}
    config = write_config(tmp_path / "config.toml", "[gates]\nmin_sessions = 0\n")

    report = main(capsys, "report", "--format", "json", "--state-dir", str(tmp_path / "st"))
    ran = main(capsys, "run", "--force", "--apply", "all", "--json", "--config", str(config),
               "--state-dir", str(tmp_path / "st"))

    assert report.code == 0 and ran.code == 0, report.err + ran.err
    for doc in (report.json(), ran.json()):
        for root in doc["roots"]:
            files = [m["file"] for m in root["memories"]] + [u["file"] for u in root["unparsed"]]
            assert not [f for f in files if f.startswith("logs/") or "2026-11-2" in f], root
            assert not [f for f in root["index"]["added"] if "2026-11-2" in f]
            assert not [a for a in root["actions"]
                        if "2026-11-2" in a["file"] or any("logs/" in s for s in a["sources"])]
        assert str(sim.auto_a / "logs") not in by_dir(doc)
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sim.logs} == before
    assert sorted(p.name for p in (sim.auto_a / "logs").rglob("*")) == [
        "11", "2026", "2026-11-20.md", "2026-11-21.md"]
    for index in sim.auto_a.rglob("MEMORY.md"):
        text = index.read_text(encoding="utf-8")
        assert "2026-11-2" not in text and "logs/" not in text, index


# --------------------------------------------------------------------------- 6. wrong --memory-dir


def everything(sim: Home, tmp_path: Path) -> dict[str, Any]:
    return {**snapshot_tree(sim.home), **snapshot_tree(tmp_path)}


@pytest.mark.parametrize("command", [["report"], ["run", "--force"]])
def test_a_project_folder_as_memory_dir_is_refused_naming_its_memory_folder(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        command: list[str]) -> None:
    before = everything(sim, tmp_path)

    ran = main(capsys, *command, "--memory-dir", str(sim.alpha_sessions),
               "--state-dir", str(tmp_path / "st"))

    assert ran.code == 2
    assert ran.out == ""
    assert len(ran.err.splitlines()) == 1
    assert f"did you mean {sim.auto_a}" in ran.err
    assert everything(sim, tmp_path) == before
    assert not (sim.alpha_sessions / "MEMORY.md").exists()
    assert not (tmp_path / "st").exists()


@pytest.mark.parametrize("which", ["claude", "projects"])
@pytest.mark.parametrize("command", [["report"], ["run", "--force"], ["status"]])
def test_the_claude_home_or_its_projects_folder_as_memory_dir_is_refused_with_a_hint(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str,
        command: list[str]) -> None:
    folder = sim.claude if which == "claude" else sim.claude / "projects"
    before = everything(sim, tmp_path)

    ran = main(capsys, *command, "--memory-dir", str(folder), "--state-dir", str(tmp_path / "st"))

    assert ran.code == 2
    assert len(ran.err.splitlines()) == 1
    assert "not a memory directory" in ran.err and "projects, not memories" in ran.err
    assert str(sim.claude / "projects" / "<project>" / "memory") in ran.err
    assert everything(sim, tmp_path) == before
    assert not (folder / "MEMORY.md").exists()


def test_a_wrong_memory_dir_is_refused_by_a_real_subprocess(sim: Home, tmp_path: Path) -> None:
    before = everything(sim, tmp_path)
    proc = consolidator("run", "--force", "--memory-dir", str(sim.alpha_sessions),
                        "--state-dir", str(tmp_path / "st"))

    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == (
        f"consolidator: error: --memory-dir {sim.alpha_sessions}: not a memory directory; "
        f"did you mean {sim.auto_a}?")
    assert everything(sim, tmp_path) == before


def test_an_empty_folder_named_as_memory_dir_is_used_with_a_warning(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()

    ran = main(capsys, "report", "--format", "json", "--memory-dir", str(empty),
               "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    assert "holds no memory file" in ran.err and "used as asked" in ran.err
    assert [r["memory_dir"] for r in ran.json()["roots"]] == [str(empty)]
    assert list(empty.iterdir()) == []


# --------------------------------------------------------------------------- 7. --project-root


@pytest.mark.parametrize("command", [["report"], ["run", "--force"], ["status"]])
def test_project_root_with_every_store_found_is_refused(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        command: list[str]) -> None:
    before = everything(sim, tmp_path)

    ran = main(capsys, *command, "--project-root", str(sim.alpha),
               "--state-dir", str(tmp_path / "st"))

    assert ran.code == 2
    assert len(ran.err.splitlines()) == 1
    assert "--project-root belongs to one memory dir" in ran.err
    assert f"{len(sim.expected())} are selected" in ran.err
    assert everything(sim, tmp_path) == before


def test_project_root_with_two_memory_dirs_is_refused(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran = main(capsys, "report", "--project-root", str(sim.alpha),
               "--memory-dir", str(sim.auto_a), "--memory-dir", str(sim.team_a),
               "--state-dir", str(tmp_path / "st"))

    assert ran.code == 2
    assert "--project-root belongs to one memory dir, and 2 are selected" in ran.err


def test_project_root_with_one_memory_dir_is_fine(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran = main(capsys, "report", "--format", "json", "--project-root", str(sim.alpha),
               "--memory-dir", str(sim.team_a), "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    roots = ran.json()["roots"]
    assert [(r["memory_dir"], r["kind"]) for r in roots] == [(str(sim.team_a), "team")]


def test_project_root_with_the_same_folder_named_twice_is_one_root(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran = main(capsys, "report", "--format", "json", "--project-root", str(sim.alpha),
               "--memory-dir", str(sim.auto_a), "--memory-dir", str(sim.auto_a / "."),
               "--state-dir", str(tmp_path / "st"))

    assert ran.code == 0, ran.err
    assert [r["memory_dir"] for r in ran.json()["roots"]] == [str(sim.auto_a)]


# --------------------------------------------------------------------------- 8. the SessionEnd hook


@dataclass
class Ended:
    """A session of alpha that ended seconds ago, having written a memory."""

    transcript: Path
    fresh: Path
    config: Path
    state: Path

    def event(self, **changes: Any) -> bytes:
        data = {"session_id": ENDED, "transcript_path": str(self.transcript),
                "cwd": str(self.transcript.parent), "hook_event_name": "SessionEnd",
                "reason": "exit", **changes}
        return json.dumps(data).encode()

    def argv(self, *more: str) -> list[str]:
        return ["hook", "session-end", *more, "--config", str(self.config),
                "--state-dir", str(self.state)]


def end_session(sim: Home, tmp_path: Path) -> Ended:
    transcript = write_transcript(sim.alpha_sessions, ENDED, sim.alpha, age_s=5)
    fresh = write(sim.auto_a / "project_fresh.md",
                  memory_text("fresh", "The queue drains every night at midnight."))
    stamp = time.time() - 4
    os.utime(fresh, (stamp, stamp))
    assert not (sim.auto_a / ".consolidate-lock").exists()
    config = write_config(tmp_path / "config.toml", "[gates]\nmin_sessions = 1\n")
    return Ended(transcript, fresh, config, tmp_path / "st")


def history_of(state: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    ran = main(capsys, "history", "--json", "--state-dir", str(state))
    assert ran.code == 0, ran.err
    return ran.lines()


def hook_env(sim: Home) -> dict[str, str]:
    env = dict(os.environ)
    env["HOME"] = str(sim.home)
    env.pop("CLAUDE_CONFIG_DIR", None)
    return env


def test_the_session_end_hook_consolidates_the_ended_sessions_project_only(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ended = end_session(sim, tmp_path)
    others = {p: snapshot_tree(p) for p in (sim.auto_b, sim.agent_user)}

    proc = consolidator(*ended.argv("--wait"), stdin=ended.event(), env=hook_env(sim))

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b""
    # By hand (--wait), it says what it did on stderr: one closing line per root (JSON off a
    # terminal).
    done = [json.loads(line) for line in proc.stderr.splitlines()]
    assert {e["root"] for e in done if e["event"] in ("root done", "root skipped")} == {
        str(sim.auto_a), str(sim.team_a), str(sim.agent_project), str(sim.agent_local)}
    entries = history_of(ended.state, capsys)
    assert {e["memory_dir"]: e["kind"] for e in entries} == {
        str(sim.auto_a): "auto", str(sim.team_a): "team",
        str(sim.agent_project): "agent-project", str(sim.agent_local): "agent-local"}
    for entry in entries:
        assert (entry["trigger"], entry["status"]) == ("hook", "consolidated"), entry
        g3 = gate(entry, "G3")
        assert g3["passed"] is True and ENDED in g3["reason"] and "ended" in g3["reason"]
    # what the ended session wrote seconds ago is settled: the index now points at it
    assert "(project_fresh.md)" in (sim.auto_a / "MEMORY.md").read_text(encoding="utf-8")
    assert {p: snapshot_tree(p) for p in others} == others


def test_the_hook_closes_g3_when_another_session_of_the_project_is_live(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ended = end_session(sim, tmp_path)
    write_transcript(sim.alpha_sessions, OTHER, sim.alpha, age_s=3)
    before = snapshot_tree(sim.auto_a)

    ran = main(capsys, *ended.argv("--wait"), stdin=ended.event(), monkeypatch=monkeypatch)

    assert ran.code == 0, ran.err
    entries = history_of(ended.state, capsys)
    assert {e["memory_dir"] for e in entries} == sim.alpha_roots()
    for entry in entries:
        assert (entry["trigger"], entry["status"], closed(entry)) == ("hook", "skipped", "G3")
        assert f"session {OTHER}.jsonl changed" in gate(entry, "G3")["reason"]
    assert snapshot_tree(sim.auto_a) == before


def test_the_hook_for_a_session_whose_project_keeps_no_memory_runs_nothing(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ended = end_session(sim, tmp_path)
    gamma = sim.empty_memory.parent
    transcript = write_transcript(gamma, ENDED, tmp_path / "work" / "gamma", age_s=2)

    ran = main(capsys, *ended.argv("--wait"), stdin=ended.event(transcript_path=str(transcript)),
               monkeypatch=monkeypatch)

    assert (ran.code, ran.out, ran.err) == (0, "", "")
    assert history_of(ended.state, capsys) == []


def test_the_hook_with_no_memory_store_anywhere_prints_nothing_on_stdout(
        tmp_path: Path) -> None:
    """With no Claude Code store under HOME at all, discovery warns: on stderr, never on
    stdout, and the background hook says nothing."""
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    event = json.dumps({"session_id": ENDED, "transcript_path": str(tmp_path / "t.jsonl"),
                        "cwd": str(tmp_path), "hook_event_name": "SessionEnd"}).encode()
    argv = ["hook", "session-end", "--state-dir", str(tmp_path / "st")]

    quiet = consolidator(*argv, stdin=event, env=env)
    by_hand = consolidator(*argv, "--wait", stdin=event, env=env)

    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
    assert (by_hand.returncode, by_hand.stdout) == (0, b"")
    assert b"no memory directory found" in by_hand.stderr


def test_the_hook_returns_at_once_and_the_pass_lands_in_the_background(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ended = end_session(sim, tmp_path)

    started = time.monotonic()
    proc = consolidator(*ended.argv(), stdin=ended.event(), env=hook_env(sim))
    took = time.monotonic() - started

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"" and proc.stderr == b""
    assert took < 2.0, f"the hook held Claude Code up for {took:.2f} s"
    entries = wait_for_history(ended.state, capsys, len(sim.alpha_roots()))
    assert {e["memory_dir"] for e in entries} == sim.alpha_roots()
    assert {e["status"] for e in entries} == {"consolidated"}
    assert all(ENDED in gate(e, "G3")["reason"] for e in entries)
    assert "(project_fresh.md)" in (sim.auto_a / "MEMORY.md").read_text(encoding="utf-8")


def test_the_background_pass_of_the_hook_is_recorded_as_the_hooks(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ended = end_session(sim, tmp_path)
    proc = consolidator(*ended.argv(), stdin=ended.event(), env=hook_env(sim))
    assert proc.returncode == 0, proc.stderr
    entries = wait_for_history(ended.state, capsys, len(sim.alpha_roots()))

    assert {e["trigger"] for e in entries} == {"hook"}


def test_the_background_pass_of_the_hook_honours_auto_memory_off(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_json(sim.claude / "settings.json", {"autoMemoryEnabled": False})
    ended = end_session(sim, tmp_path)
    before = snapshot_tree(sim.auto_a)
    proc = consolidator(*ended.argv(), stdin=ended.event(), env=hook_env(sim))
    assert proc.returncode == 0, proc.stderr
    entries = wait_for_history(ended.state, capsys, len(sim.alpha_roots()))

    assert {(e["status"], closed(e)) for e in entries} == {("skipped", "G1")}
    assert snapshot_tree(sim.auto_a) == before


def test_the_hook_with_wait_honours_auto_memory_off(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    settings = write_json(sim.claude / "settings.json", {"autoMemoryEnabled": False})
    ended = end_session(sim, tmp_path)
    before = snapshot_tree(sim.auto_a)

    ran = main(capsys, *ended.argv("--wait"), stdin=ended.event(), monkeypatch=monkeypatch)

    assert ran.code == 0, ran.err
    entries = history_of(ended.state, capsys)
    assert {e["memory_dir"] for e in entries} == sim.alpha_roots()
    assert {(e["status"], closed(e)) for e in entries} == {("skipped", "G1")}
    assert all(str(settings) in gate(e, "G1")["reason"] for e in entries)
    assert snapshot_tree(sim.auto_a) == before


def wait_for_history(state: Path, capsys: pytest.CaptureFixture[str], count: int,
                     seconds: float = 20) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        entries = history_of(state, capsys)
        if len(entries) >= count:
            time.sleep(0.2)  # let the pass finish its last root
            return history_of(state, capsys)
        time.sleep(0.1)
    return entries


BAD_EVENTS: dict[str, Any] = {
    "not JSON": b"session ended\n",
    "not an object": b"[1, 2]",
    "empty": b"",
    "another event": {"hook_event_name": "Stop"},
    "bad session id": {"session_id": "../../etc/passwd"},
    "no session id": {"session_id": None},
    "relative transcript": {"transcript_path": "projects/x/session.jsonl"},
    "no transcript": {"transcript_path": None},
    "no keys": b"{}",
}


@pytest.mark.parametrize("case", sorted(BAD_EVENTS))
def test_bad_hook_input_is_a_one_line_usage_error_and_runs_nothing(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    ended = end_session(sim, tmp_path)
    bad = BAD_EVENTS[case]
    stdin = bad if isinstance(bad, bytes) else ended.event(**bad)
    before = everything(sim, tmp_path)

    for wait in (["--wait"], []):
        ran = main(capsys, *ended.argv(*wait), stdin=stdin, monkeypatch=monkeypatch)

        assert ran.code == 2, case
        assert ran.out == ""
        assert len(ran.err.splitlines()) == 1 and ran.err.startswith("consolidator: error: hook"), \
            ran.err
    assert everything(sim, tmp_path) == before
    assert not ended.state.exists()


def test_bad_hook_input_to_a_real_subprocess_is_refused(sim: Home, tmp_path: Path) -> None:
    ended = end_session(sim, tmp_path)

    proc = consolidator(*ended.argv(), stdin=ended.event(hook_event_name="PreToolUse"),
                        env=hook_env(sim))

    assert proc.returncode == 2
    assert proc.stderr.decode() == ("consolidator: error: hook input: event 'PreToolUse', "
                                    "not SessionEnd\n")
    assert not ended.state.exists()


def test_hook_input_without_its_keys_names_them(sim: Home, tmp_path: Path) -> None:
    ended = end_session(sim, tmp_path)

    proc = consolidator(*ended.argv(), stdin=b"{}", env=hook_env(sim))

    assert proc.returncode == 2
    assert proc.stderr.decode() == ("consolidator: error: hook input: no session_id and no "
                                    "transcript_path; Claude Code's SessionEnd event carries "
                                    "both\n")


# --------------------------------------------------------------------------- 9. deploy/


def test_the_claude_code_settings_snippet_runs_the_session_end_hook() -> None:
    snippet = REPO / "deploy" / "claude-code" / "settings.json"
    if not snippet.is_file():
        pytest.skip("deploy/claude-code/settings.json is not there yet")
    data = json.loads(snippet.read_text(encoding="utf-8"))

    assert isinstance(data, dict) and isinstance(data.get("hooks"), dict)
    groups = data["hooks"]["SessionEnd"]
    assert isinstance(groups, list) and groups
    commands = [hook["command"] for group in groups for hook in group["hooks"]
                if hook.get("type", "command") == "command"]
    assert any("consolidator hook session-end" in c for c in commands), commands
    assert not any("--wait" in c for c in commands), "the hook would hold Claude Code up"


# --------------------------------------------------------------------------- the hook and the model


SHARED_LINES = ["- The billing service deploys from the main branch only.",
                "- Every deploy needs a green staging run first.",
                "- Rollbacks use the previous container image tag.",
                "- Deploy windows are announced in the ops channel."]


def with_model(sim: Home, ended: Ended, monkeypatch: pytest.MonkeyPatch, api: Any) -> None:
    """Two similar memories in alpha's auto memory, and the anthropic backend configured
    against the stand-in Messages API: a pass with the model asks it about them."""
    from tests.llm_server import decide

    write(sim.auto_a / "project_deploy_rules.md",
          memory_text("deploy rules", "\n".join([*SHARED_LINES, "- Migrations run first."])))
    write(sim.auto_a / "project_deploy_notes.md",
          memory_text("deploy notes", "\n".join([*SHARED_LINES, "- Flags default to off."])))
    for name, days in (("project_deploy_rules.md", 20), ("project_deploy_notes.md", 5)):
        stamp = time.time() - days * DAY
        os.utime(sim.auto_a / name, (stamp, stamp))
    ended.config.write_text('[gates]\nmin_sessions = 1\n[llm]\nbackend = "anthropic"\n'
                            'timeout_seconds = 2\n', encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real-7f3a9c2e")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
        monkeypatch.setenv(name.lower(), "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    api.always(decide("keep_both", reason="they say different things"))


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_the_pass_the_hook_starts_in_the_background_asks_the_configured_model(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, messages_api: Any) -> None:
    ended = end_session(sim, tmp_path)
    with_model(sim, ended, monkeypatch, messages_api)

    # what hooks.run_argv starts, run here
    ran = main(capsys, "run", "--ended-session", ENDED, "--transcripts-dir",
               str(sim.alpha_sessions), "--memory-dir", str(sim.auto_a),
               "--config", str(ended.config), "--state-dir", str(ended.state))

    assert ran.code == 0, ran.err
    assert len(messages_api.messages) >= 1
    [entry] = history_of(ended.state, capsys)
    assert entry["status"] == "consolidated" and entry["counts"]["llm_calls"] >= 1


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_the_hook_with_wait_asks_the_configured_model_like_the_background_pass(
        sim: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, messages_api: Any) -> None:
    ended = end_session(sim, tmp_path)
    with_model(sim, ended, monkeypatch, messages_api)

    ran = main(capsys, *ended.argv("--wait"), stdin=ended.event(), monkeypatch=monkeypatch)

    assert ran.code == 0, ran.err
    auto = next(e for e in history_of(ended.state, capsys) if e["memory_dir"] == str(sim.auto_a))
    assert auto["status"] == "consolidated"
    assert len(messages_api.messages) >= 1 and auto["counts"]["llm_calls"] >= 1


@pytest.mark.parametrize("wait", [True, False], ids=["wait", "background"])
def test_the_hook_sees_a_live_session_of_another_project_sharing_the_store(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], wait: bool) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    sim = build_home(tmp_path / "sim", isolated_home)
    mem = with_user_memory_dir(sim, "~/mem")
    ended = end_session(sim, tmp_path)
    # beta is at work right now, writing into the shared folder
    write_transcript(sim.beta_sessions, OTHER, sim.beta, age_s=2)
    write(mem / "project_beta_live.md", memory_text("beta live", "Beta is writing this now."))
    before = snapshot_tree(mem)

    if wait:
        ran = main(capsys, *ended.argv("--wait"), stdin=ended.event(), monkeypatch=monkeypatch)
        assert ran.code == 0, ran.err
        entries = history_of(ended.state, capsys)
    else:
        proc = consolidator(*ended.argv(), stdin=ended.event(), env=hook_env(sim))
        assert proc.returncode == 0, proc.stderr
        entries = wait_for_history(ended.state, capsys, 4)

    shared = {e["memory_dir"]: e for e in entries if e["memory_dir"] in (str(mem),
                                                                        str(mem / "team"))}
    assert set(shared) == {str(mem), str(mem / "team")}
    for entry in shared.values():
        assert (entry["status"], closed(entry)) == ("skipped", "G3"), gate(entry, "G3")
    assert snapshot_tree(mem) == before
