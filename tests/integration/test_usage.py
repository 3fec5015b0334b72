"""Which memories the sessions opened, counted from their transcripts into the state dir:
tool calls on a memory's file, relevant-memories attachments, memory-saved records,
subagents' transcripts; each transcript counted once; counts that outlive Claude Code's
transcript cleanup; a memory no recent session opened reported, never archived; no memory
body read, no transcript changed, and nothing kept by a dry run."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main
from consolidator.state import statedir, usage

DAY = 86400


def record(session: str, **fields: Any) -> str:
    return json.dumps({"sessionId": session, "cwd": "/home/dev/shop", "isSidechain": False,
                       "timestamp": "2026-12-01T10:00:00.000Z", **fields}) + "\n"


def read_call(session: str, path: Path) -> str:
    return record(session, type="assistant", message={"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": str(path)}}]})


def transcript(folder: Path, lines: list[str], name: str | None = None) -> Path:
    path = folder / (name or f"{uuid.uuid4()}.jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / "-home-dev-shop"
    memory = folder / "memory"
    memory.mkdir(parents=True)
    for name in ("feedback_tests", "project_deploy", "reference_ports"):
        path = memory / f"{name}.md"
        path.write_text(f"---\nname: {name}\ndescription: {name}\ntype: project\n---\n"
                        f"What {name} says.\n", encoding="utf-8")
        when = time.time() - 3 * DAY
        os.utime(path, (when, when))
    return folder


def state_of(tmp_path: Path, project: Path) -> Path:
    return statedir.root_state(tmp_path / "state", project / "memory")


def run(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        command: str = "run") -> Any:
    argv = [command, "--memory-dir", str(project / "memory"), "--state-dir",
            str(tmp_path / "state"), "--json" if command == "run" else "--format=json"]
    if command == "run":
        argv.insert(1, "--force")
    assert main(argv) == 0
    out = capsys.readouterr().out
    return json.loads(out)["roots"][0]


def test_read_calls_count_the_memories_they_open_and_no_body_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    root = tmp_path / "nowhere" / "memory"  # no memory file exists: only transcripts are read
    s1, s2 = "s1", "s2"
    first = transcript(folder, [read_call(s1, root / "feedback_tests.md"),
                                read_call(s1, root / "project_deploy.md"),
                                read_call(s1, root / "MEMORY.md")])
    second = transcript(folder, [read_call(s2, root / "feedback_tests.md"),
                                 record(s2, type="user", message={"role": "user",
                                                                  "content": "hi"})])
    for path, age in ((first, 100), (second, 50)):  # sessions are counted oldest first
        os.utime(path, (time.time() - age, time.time() - age))

    counted = usage.counted(usage.Usage(), [folder], root)

    assert counted.sessions == 2
    # per memory: sessions that opened it, and the last of them (by its ordinal)
    assert counted.opened == {"feedback_tests.md": [2, 2], "project_deploy.md": [1, 1]}
    assert counted.opened_in("reference_ports.md") == 0
    assert not root.exists()


def test_attachments_saved_records_and_subagents_count_too(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    root = tmp_path / "memory"
    transcript(folder, [record("s1", type="attachment", attachment={
        "type": "relevant_memories",
        "memories": [{"path": str(root / "reference_ports.md"), "mtimeMs": 1}]})])
    transcript(folder, [record("s2", type="system", subtype="memory_saved",
                               writtenPaths=[str(root / "project_deploy.md")])])
    transcript(folder / "s3" / "subagents", [read_call("s3", root / "feedback_tests.md")],
               "agent-1.jsonl")

    counted = usage.counted(usage.Usage(), [folder], root)

    assert counted.sessions == 3
    assert {f: counted.opened_in(f) for f in counted.opened} == {
        "reference_ports.md": 1, "project_deploy.md": 1, "feedback_tests.md": 1}


def bash_call(session: str, command: str) -> str:
    return record(session, type="assistant", message={"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": command}}]})


def test_a_shell_command_naming_a_memory_counts_by_absolute_or_home_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    folder = tmp_path / "sessions"
    root = home / ".claude" / "projects" / "-home-dev-shop" / "memory"
    transcript(folder, [bash_call("s1", f"head -20 '{root / 'feedback_tests.md'}' | cat")])
    transcript(folder, [bash_call("s2", "cat ~/.claude/projects/-home-dev-shop/memory/"
                                        "project_deploy.md && ls")])
    # A folder, a relative path and MEMORY.md open no memory.
    transcript(folder, [bash_call("s3", f"grep -rn port {root}/ ; cat ./reference_ports.md; "
                                        f"cat {root / 'MEMORY.md'}")])

    counted = usage.counted(usage.Usage(), [folder], root)

    assert counted.sessions == 3
    assert {f: counted.opened_in(f) for f in counted.opened} == {
        "feedback_tests.md": 1, "project_deploy.md": 1}


def test_each_transcript_counts_once_a_grown_one_adds_only_what_is_new_and_cleanup_keeps_counts(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "sessions"
    root = tmp_path / "memory"
    one = transcript(folder, [read_call("s1", root / "feedback_tests.md")])
    first = usage.counted(usage.Usage(), [folder], root)
    again = usage.counted(first, [folder], root)
    assert again.opened == first.opened and again.sessions == 1

    with open(one, "a", encoding="utf-8") as grown:
        grown.write(read_call("s1", root / "feedback_tests.md"))
        grown.write(read_call("s1", root / "project_deploy.md"))
    later = time.time() + 5
    os.utime(one, (later, later))
    grown_count = usage.counted(again, [folder], root)
    assert grown_count.sessions == 1
    assert grown_count.opened_in("feedback_tests.md") == 1
    assert grown_count.opened_in("project_deploy.md") == 1

    one.unlink()  # Claude Code's cleanupPeriodDays removed the transcript
    after_cleanup = usage.counted(grown_count, [folder], root)
    assert after_cleanup.opened == grown_count.opened and after_cleanup.sessions == 1


def test_a_run_keeps_the_counts_and_the_report_shows_them_a_dry_run_keeps_nothing(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = project / "memory"
    transcript(project, [read_call("s1", memory / "feedback_tests.md"),
                         read_call("s1", memory / "project_deploy.md")])
    transcripts_before = {p: p.read_bytes() for p in project.glob("*.jsonl")}

    found = run(project, tmp_path, capsys, "report")
    assert {m["file"]: m["opened_in_sessions"] for m in found["memories"]} == {
        "feedback_tests.md": 1, "project_deploy.md": 1, "reference_ports.md": 0}
    assert not statedir.usage(state_of(tmp_path, project)).exists(), "a dry run keeps nothing"

    run(project, tmp_path, capsys)

    kept = usage.load(state_of(tmp_path, project))
    assert kept.sessions == 1 and kept.opened_in("feedback_tests.md") == 1
    assert {p: p.read_bytes() for p in project.glob("*.jsonl")} == transcripts_before


def test_a_memory_no_recent_session_opened_is_reported_and_never_archived(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = project / "memory"
    for n in range(usage.UNUSED_AFTER):
        transcript(project, [read_call(f"s{n}", memory / "feedback_tests.md"),
                             read_call(f"s{n}", memory / "project_deploy.md")])

    found = run(project, tmp_path, capsys)

    warnings = {m["file"]: m["warnings"] for m in found["memories"]}
    assert (f"not opened in the last {usage.UNUSED_AFTER} sessions counted (a lower bound: "
            "never archived for that)") in warnings["reference_ports.md"]
    assert not any("not opened" in w for w in warnings["feedback_tests.md"])
    assert (memory / "reference_ports.md").exists()
    assert not [a for a in found["actions"] if a["op"] == "archive"]
