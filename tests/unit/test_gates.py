"""The seven gates, each at its boundaries, on real files in ``tmp_path``.

Time is never waited for: each context carries an explicit ``now`` (a whole second, so
``now_ns`` is exact) and every file's mtime is set relative to it; the command-line tests
freeze the clock with freezegun or put mtimes far from the boundaries.
"""

from __future__ import annotations

import builtins
import dataclasses
import io
import json
import os
import signal
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from freezegun import freeze_time

from consolidator import cli
from consolidator.config import Config, GatesSection
from consolidator.gates import GATE_NAMES, checks, evaluate
from consolidator.runner import RunOptions, context_for, run_root
from consolidator.state import statedir
from tests.conftest import SESSION_IDS

if TYPE_CHECKING:
    from consolidator.context import RootContext

NS = 1_000_000_000
MIN = 60 * NS
HOUR = 60 * MIN
DAY = 24 * HOUR
NOW = datetime(2026, 11, 30, 3, 15, tzinfo=UTC)
NOW_NS = int(NOW.timestamp()) * NS  # a whole second: exact
OLD = NOW_NS - 10 * DAY


skip_if_root = pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: file permissions do not restrict root",
)


# --------------------------------------------------------------------------- helpers


def set_mtime(path: Path, ns: int) -> None:
    os.utime(path, ns=(ns, ns), follow_symlinks=False)


def write_memory(root: Path, rel: str, mtime_ns: int = OLD) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    stem = Path(rel).stem
    path.write_text(
        f"---\nname: {stem}\ndescription: the {stem} memory\ntype: project\n---\n"
        f"The {stem} fact.\n",
        encoding="utf-8",
    )
    set_mtime(path, mtime_ns)
    return path


def write_session(folder: Path, name: str, mtime_ns: int) -> Path:
    path = folder / name
    path.write_text('{"type": "user", "cwd": "/nonexistent/project"}\n', encoding="utf-8")
    set_mtime(path, mtime_ns)
    return path


def write_lock(root: Path, mtime_ns: int, body: bytes = b"") -> Path:
    path = root / ".consolidate-lock"
    path.write_bytes(body)
    set_mtime(path, mtime_ns)
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """``<tmp>/project/memory`` with two old memories and an old index; no transcripts."""
    memory = tmp_path / "project" / "memory"
    memory.mkdir(parents=True)
    write_memory(memory, "user_role.md")
    write_memory(memory, "feedback_tests.md")
    index = memory / "MEMORY.md"
    index.write_text("- [Role](user_role.md) — who\n- [Tests](feedback_tests.md) — how\n")
    set_mtime(index, OLD)
    return memory


def gates_cfg(**changes: Any) -> Config:
    return dataclasses.replace(Config(), gates=dataclasses.replace(GatesSection(), **changes))


def make_ctx(
    root: Path,
    *,
    cfg: Config | None = None,
    now: datetime = NOW,
    env: dict[str, str] | None = None,
    force: bool = False,
    dry_run: bool = True,
    trigger: str = "run",
    transcripts_dir: Path | None = None,
) -> RootContext:
    opts = RunOptions(
        state_dir=root.parent.parent / "state",
        transcripts_dir=str(transcripts_dir) if transcripts_dir else None,
        dry_run=dry_run,
        force=force,
        trigger=trigger,
        env=env or {},
    )
    return context_for(root, cfg or Config(), opts, now, "20261130T031500Z-test")


def by_id(results: Any) -> dict[str, Any]:
    return {g.id: g for g in results}


@pytest.fixture(autouse=True)
def keep_signal_handlers() -> Iterator[None]:
    """``cli.main(["run", ...])`` installs SIGTERM/SIGINT handlers; put pytest's back."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


# --------------------------------------------------------------------------- G1 enabled


def test_enabled_gate_passes_by_default(root: Path) -> None:
    assert checks.enabled(make_ctx(root)) == (True, "enabled")


def test_enabled_gate_fails_when_config_disables_it(root: Path) -> None:
    passed, reason = checks.enabled(make_ctx(root, cfg=gates_cfg(enabled=False)))
    assert passed is False
    assert "enabled" in reason and "false" in reason


@pytest.mark.parametrize("var", ["CONSOLIDATOR_DISABLE", "CLAUDE_CODE_DISABLE_AUTO_MEMORY"])
def test_enabled_gate_fails_when_the_environment_disables_it(root: Path, var: str) -> None:
    passed, reason = checks.enabled(make_ctx(root, env={var: "1"}))
    assert passed is False
    assert var in reason


@pytest.mark.parametrize("value", ["0", ""])
def test_enabled_gate_ignores_a_disable_variable_that_is_not_set_to_one(
    root: Path, value: str
) -> None:
    env = {"CONSOLIDATOR_DISABLE": value, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": value}
    assert checks.enabled(make_ctx(root, env=env))[0] is True


def test_run_command_passes_its_environment_to_the_enabled_gate(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {**os.environ, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
    code = cli.main(
        ["run", "--json", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st")], env=env
    )
    assert code == 0
    (report,) = json.loads(capsys.readouterr().out)["roots"]
    assert report["status"] == "skipped"
    assert report["gates"][0]["passed"] is False
    assert "CLAUDE_CODE_DISABLE_AUTO_MEMORY" in report["gates"][0]["reason"]


# --------------------------------------------------------------------------- G2 memory-dir


def test_memory_dir_gate_passes_for_a_folder_with_a_memory(root: Path) -> None:
    assert checks.memory_dir(make_ctx(root))[0] is True


def test_memory_dir_gate_fails_for_a_root_that_vanished(root: Path, tmp_path: Path) -> None:
    ctx = make_ctx(root)
    gone = tmp_path / "project" / "gone"
    root.rename(gone)
    passed, reason = checks.memory_dir(ctx)
    assert passed is False
    assert str(root) in reason


def test_memory_dir_gate_fails_for_a_root_that_is_a_file(tmp_path: Path) -> None:
    path = tmp_path / "project" / "memory"
    path.parent.mkdir()
    path.write_text("not a folder")
    assert checks.memory_dir(make_ctx(path))[0] is False


@skip_if_root
def test_memory_dir_gate_fails_for_a_root_that_is_not_writable(root: Path) -> None:
    root.chmod(0o555)
    try:
        passed, reason = checks.memory_dir(make_ctx(root))
    finally:
        root.chmod(0o755)
    assert passed is False
    assert "writable" in reason


@skip_if_root
def test_memory_dir_gate_fails_for_a_root_that_is_not_readable(root: Path) -> None:
    root.chmod(0o311)
    try:
        passed, _reason = checks.memory_dir(make_ctx(root))
    finally:
        root.chmod(0o755)
    assert passed is False


def test_memory_dir_gate_fails_for_an_empty_root(tmp_path: Path) -> None:
    empty = tmp_path / "project" / "memory"
    empty.mkdir(parents=True)
    passed, reason = checks.memory_dir(make_ctx(empty))
    assert passed is False
    assert "no memory" in reason


def test_memory_dir_gate_fails_for_a_root_holding_only_the_index(tmp_path: Path) -> None:
    only_index = tmp_path / "project" / "memory"
    only_index.mkdir(parents=True)
    (only_index / "MEMORY.md").write_text("- [Gone](gone.md) — nothing here\n")
    (only_index / "notes.txt").write_text("not a memory")
    assert checks.memory_dir(make_ctx(only_index))[0] is False


def test_memory_dir_gate_finds_a_memory_in_a_sub_folder(tmp_path: Path) -> None:
    nested = tmp_path / "project" / "memory"
    write_memory(nested, "notes/daily.md")
    assert checks.memory_dir(make_ctx(nested))[0] is True


# --------------------------------------------------------------------------- G3 idle


def test_idle_gate_passes_when_nothing_changed_recently(root: Path) -> None:
    write_session(root.parent, SESSION_IDS[0] + ".jsonl", NOW_NS - HOUR)
    assert checks.idle(make_ctx(root))[0] is True


def test_idle_gate_fails_for_a_session_transcript_changed_within_idle_minutes(root: Path) -> None:
    name = SESSION_IDS[0] + ".jsonl"
    write_session(root.parent, name, NOW_NS - 15 * MIN + NS)
    passed, reason = checks.idle(make_ctx(root))
    assert passed is False
    assert name in reason


def test_idle_gate_passes_for_a_session_transcript_changed_just_outside_idle_minutes(
    root: Path,
) -> None:
    write_session(root.parent, SESSION_IDS[0] + ".jsonl", NOW_NS - 15 * MIN - NS)
    assert checks.idle(make_ctx(root))[0] is True


def test_idle_gate_fails_for_a_memory_changed_within_idle_minutes(root: Path) -> None:
    set_mtime(root / "user_role.md", NOW_NS - 15 * MIN + NS)
    passed, reason = checks.idle(make_ctx(root))
    assert passed is False
    assert "user_role.md" in reason


def test_idle_gate_fails_for_a_memory_in_a_sub_folder_changed_within_idle_minutes(
    root: Path,
) -> None:
    write_memory(root, "notes/today.md", NOW_NS - MIN)
    assert checks.idle(make_ctx(root))[0] is False


def test_idle_gate_passes_for_a_memory_changed_just_outside_idle_minutes(root: Path) -> None:
    set_mtime(root / "user_role.md", NOW_NS - 15 * MIN - NS)
    assert checks.idle(make_ctx(root))[0] is True


def test_idle_gate_uses_the_configured_idle_minutes(root: Path) -> None:
    set_mtime(root / "user_role.md", NOW_NS - 30 * MIN)
    assert checks.idle(make_ctx(root))[0] is True
    assert checks.idle(make_ctx(root, cfg=gates_cfg(idle_minutes=45)))[0] is False


@pytest.mark.parametrize("name", ["MEMORY.md", "memory.md", "Memory.md"])
def test_an_index_changed_within_idle_minutes_is_busy_but_does_not_close_the_idle_gate(
    root: Path, name: str
) -> None:
    # G3 looks at sessions and memories, not the index (CONTRACT.md); the run leaves a busy
    # index alone, in any case of its name, and so moves no memory out.
    (root / "MEMORY.md").rename(root / name)
    set_mtime(root / name, NOW_NS - 15 * MIN + NS)
    assert checks.idle(make_ctx(root))[0] is True
    busy = checks.busy_index(make_ctx(root))
    assert busy is not None and name in busy


def test_idle_gate_passes_for_an_index_changed_just_outside_idle_minutes(root: Path) -> None:
    set_mtime(root / "MEMORY.md", NOW_NS - 15 * MIN - NS)
    assert checks.idle(make_ctx(root))[0] is True
    assert checks.busy_index(make_ctx(root)) is None


def test_the_index_the_last_consolidation_wrote_is_not_busy(root: Path) -> None:
    # A run writes the index with its start time, which is also the lock's mtime.
    write_lock(root, NOW_NS - MIN)
    set_mtime(root / "MEMORY.md", NOW_NS - MIN)
    assert checks.busy_index(make_ctx(root)) is None
    set_mtime(root / "MEMORY.md", NOW_NS - MIN + 1)  # a session's edit a nanosecond later
    assert checks.busy_index(make_ctx(root)) is not None


def test_the_index_a_failed_run_of_ours_wrote_is_not_busy(root: Path) -> None:
    # The lock was rolled back, but the run's journal names its start time.
    started = NOW_NS - 2 * MIN
    ctx = make_ctx(root)
    run_id = datetime.fromtimestamp(started // NS, UTC).strftime("%Y%m%dT%H%M%SZ") + "-beef"
    run_dir = ctx.state / "runs" / run_id
    run_dir.mkdir(parents=True)
    (run_dir / "journal.jsonl").write_text(
        json.dumps({"meta": {"run_id": run_id, "started_ns": started}}) + "\n")
    set_mtime(root / "MEMORY.md", started)
    assert checks.busy_index(ctx) is None
    set_mtime(root / "MEMORY.md", started + 1000)
    assert checks.busy_index(ctx) is not None


def test_idle_gate_ignores_an_index_that_is_a_symlink(root: Path, tmp_path: Path) -> None:
    # A linked index is never written (the index phase leaves it alone), so it cannot be hot.
    (root / "MEMORY.md").unlink()
    (tmp_path / "elsewhere.md").write_text("# elsewhere\n")
    (root / "MEMORY.md").symlink_to(tmp_path / "elsewhere.md")
    set_mtime(root / "MEMORY.md", NOW_NS - NS)
    assert checks.idle(make_ctx(root))[0] is True
    assert checks.busy_index(make_ctx(root)) is None


def test_idle_gate_ignores_a_fresh_subagent_transcript(root: Path) -> None:
    write_session(root.parent, "agent-a1b2c3d4.jsonl", NOW_NS - NS)
    assert checks.idle(make_ctx(root))[0] is True


def test_idle_gate_sees_a_busy_session_past_a_fresh_subagent_and_a_dangling_link(
    root: Path,
) -> None:
    write_session(root.parent, "agent-a1b2c3d4.jsonl", NOW_NS - NS)
    (root.parent / (SESSION_IDS[1] + ".jsonl")).symlink_to(root.parent / "gone.jsonl")
    write_session(root.parent, SESSION_IDS[0] + ".jsonl", NOW_NS - MIN)
    passed, reason = checks.idle(make_ctx(root))
    assert passed is False
    assert SESSION_IDS[0] in reason


# --------------------------------------------------------------------------- G4 interval


def test_interval_gate_passes_when_never_consolidated(root: Path) -> None:
    passed, reason = checks.interval(make_ctx(root))
    assert passed is True
    assert "never" in reason


@pytest.mark.parametrize("min_hours", [24, 1])
def test_interval_gate_passes_exactly_min_hours_after_the_last_consolidation(
    root: Path, min_hours: int
) -> None:
    write_lock(root, NOW_NS - min_hours * HOUR)
    assert checks.interval(make_ctx(root, cfg=gates_cfg(min_hours=min_hours)))[0] is True


@pytest.mark.parametrize("min_hours", [24, 1])
def test_interval_gate_fails_one_second_before_min_hours(root: Path, min_hours: int) -> None:
    write_lock(root, NOW_NS - min_hours * HOUR + NS)
    passed, reason = checks.interval(make_ctx(root, cfg=gates_cfg(min_hours=min_hours)))
    assert passed is False
    assert f"{min_hours} h" in reason


def test_interval_gate_passes_exactly_min_hours_after_at_a_now_with_microseconds(
    root: Path,
) -> None:
    now = NOW.replace(microsecond=997794)
    exact_now_ns = (now - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(
        microseconds=1
    ) * 1000
    write_lock(root, exact_now_ns - 24 * HOUR)
    assert checks.interval(make_ctx(root, now=now))[0] is True
    write_lock(root, exact_now_ns - 24 * HOUR + 1)  # one nanosecond short
    assert checks.interval(make_ctx(root, now=now))[0] is False


def test_interval_gate_ignores_a_lock_file_mtime_in_the_future(root: Path) -> None:
    write_lock(root, NOW_NS + DAY)
    assert checks.interval(make_ctx(root))[0] is True


def test_interval_gate_reads_the_lock_mtime_not_its_body(root: Path) -> None:
    write_lock(root, NOW_NS - HOUR, body=b"12345")
    assert checks.interval(make_ctx(root))[0] is False


def test_interval_gate_names_a_consolidation_under_way_rather_than_one_just_done(
    root: Path,
) -> None:
    # A live run stamps the lock as it starts: a second pass must not read that as done.
    write_lock(root, NOW_NS - 5 * NS, body=str(os.getppid()).encode())
    passed, reason = checks.interval(make_ctx(root))
    assert passed is False
    assert reason.startswith("a consolidation is under way (the lock is held by PID "), reason


# --------------------------------------------------------------------------- G5 scan-throttle


def scan_file(root: Path) -> Path:
    return make_ctx(root).state / statedir.SCAN_MARK


def record_scan_at(root: Path, ns: int) -> None:
    path = scan_file(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    set_mtime(path, ns)


def test_scan_throttle_gate_passes_when_no_scan_was_recorded(root: Path) -> None:
    passed, reason = checks.scan_throttle(make_ctx(root))
    assert passed is True
    # says why a forced or dry run left none, so a reader after `run --force` is not puzzled
    assert reason == ("no session count recorded yet (every `run` that reaches G6 records "
                      "one; `report` and --force do not)")


def test_scan_throttle_gate_passes_exactly_scan_interval_minutes_after_the_last_scan(
    root: Path,
) -> None:
    record_scan_at(root, NOW_NS - 10 * MIN)
    assert checks.scan_throttle(make_ctx(root))[0] is True


def test_scan_throttle_gate_fails_one_second_before_scan_interval_minutes(root: Path) -> None:
    record_scan_at(root, NOW_NS - 10 * MIN + NS)
    passed, reason = checks.scan_throttle(make_ctx(root))
    assert passed is False
    assert "10 min" in reason


def test_scan_throttle_gate_uses_the_configured_interval(root: Path) -> None:
    record_scan_at(root, NOW_NS - 10 * MIN)
    assert checks.scan_throttle(make_ctx(root, cfg=gates_cfg(scan_interval_minutes=30)))[0] is False


def test_a_run_that_reaches_the_sessions_gate_records_the_scan_in_the_state_dir(
    root: Path,
) -> None:
    report = run_root(make_ctx(root, dry_run=False))
    assert by_id(report.gates)["G6"].passed is False  # no transcripts: G6 is reached, fails
    assert scan_file(root).stat().st_mtime_ns == NOW_NS
    assert not (root / statedir.SCAN_MARK).exists()


def test_a_recorded_scan_throttles_the_next_run_until_scan_interval_minutes_pass(
    root: Path,
) -> None:
    run_root(make_ctx(root, dry_run=False))
    early = run_root(make_ctx(root, dry_run=False, now=NOW + timedelta(minutes=10, seconds=-1)))
    assert by_id(early.gates)["G5"].passed is False
    assert by_id(early.gates)["G6"].reason == "not evaluated"
    assert scan_file(root).stat().st_mtime_ns == NOW_NS  # a throttled run records nothing
    later = run_root(make_ctx(root, dry_run=False, now=NOW + timedelta(minutes=10)))
    assert by_id(later.gates)["G5"].passed is True
    assert scan_file(root).stat().st_mtime_ns == NOW_NS + 10 * MIN


@pytest.mark.parametrize(
    "kind", ["forced run", "run closed before G6", "report", "status"]
)
def test_the_scan_is_not_recorded_by(root: Path, kind: str) -> None:
    if kind == "forced run":
        run_root(make_ctx(root, force=True, dry_run=True))
    elif kind == "run closed before G6":
        write_lock(root, NOW_NS - HOUR)
        report = run_root(make_ctx(root, dry_run=False))
        assert by_id(report.gates)["G4"].passed is False
    elif kind == "report":
        run_root(make_ctx(root, trigger="report"))
    else:
        evaluate(make_ctx(root, trigger="status"), all_of_them=True)
    assert not scan_file(root).exists()


def test_a_dry_run_records_the_scan_as_any_run_reaching_g6_does(root: Path) -> None:
    report = run_root(make_ctx(root, dry_run=True))
    assert by_id(report.gates)["G6"].passed is not None
    assert scan_file(root).stat().st_mtime_ns == NOW_NS


def test_the_scan_time_survives_between_one_shot_command_runs(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in (root / "user_role.md", root / "feedback_tests.md", root / "MEMORY.md"):
        os.utime(path, (0, 10**9))  # far outside idle_minutes of the real clock
    argv = ["run", "--json", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st")]
    assert cli.main(argv) == 0
    first = json.loads(capsys.readouterr().out)["roots"][0]
    assert by_id_dicts(first)["G6"]["passed"] is False
    assert cli.main(argv) == 0
    second = json.loads(capsys.readouterr().out)["roots"][0]
    assert by_id_dicts(second)["G5"]["passed"] is False
    assert by_id_dicts(second)["G6"]["reason"] == "not evaluated"


def by_id_dicts(root_report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["id"]: g for g in root_report["gates"]}


# --------------------------------------------------------------------------- G6 sessions


def test_sessions_gate_passes_with_min_sessions_transcripts_and_no_consolidation(
    root: Path,
) -> None:
    for sid in SESSION_IDS[:5]:
        write_session(root.parent, sid + ".jsonl", NOW_NS - HOUR)
    passed, reason = checks.sessions(make_ctx(root))
    assert passed is True
    assert reason.startswith("5 session(s)")


def test_sessions_gate_fails_with_one_session_too_few(root: Path) -> None:
    for sid in SESSION_IDS[:4]:
        write_session(root.parent, sid + ".jsonl", NOW_NS - HOUR)
    passed, reason = checks.sessions(make_ctx(root))
    assert passed is False
    assert "needs 5" in reason


def test_sessions_gate_counts_only_sessions_strictly_after_the_last_consolidation(
    root: Path,
) -> None:
    last = NOW_NS - 2 * DAY
    write_lock(root, last)
    for sid in SESSION_IDS[:4]:
        write_session(root.parent, sid + ".jsonl", last + 1)
    equal = write_session(root.parent, SESSION_IDS[4] + ".jsonl", last)
    write_session(root.parent, SESSION_IDS[5] + ".jsonl", last - DAY)
    passed, reason = checks.sessions(make_ctx(root))
    assert passed is False
    assert reason.startswith("4 session(s) since the last consolidation")
    set_mtime(equal, last + 1)
    assert checks.sessions(make_ctx(root))[0] is True


def test_sessions_gate_excludes_agent_transcripts_and_other_names(root: Path) -> None:
    folder = root.parent
    for sid in SESSION_IDS[:4]:
        write_session(folder, sid + ".jsonl", NOW_NS - HOUR)
    for name in (
        "agent-a1b2c3d4.jsonl",
        f"agent-{SESSION_IDS[5]}.jsonl",
        "notes.jsonl",
        f"{SESSION_IDS[5]}.json",
        f"{SESSION_IDS[5]}.jsonl.bak",
        f"{SESSION_IDS[5][:-1]}.jsonl",
    ):
        write_session(folder, name, NOW_NS - HOUR)
    (folder / f"{SESSION_IDS[4]}.jsonl").mkdir()  # a folder is not a transcript
    passed, reason = checks.sessions(make_ctx(root))
    assert passed is False
    assert reason.startswith("4 session(s)")


def test_sessions_gate_uses_the_configured_min_sessions(root: Path) -> None:
    write_session(root.parent, SESSION_IDS[0] + ".jsonl", NOW_NS - HOUR)
    assert checks.sessions(make_ctx(root, cfg=gates_cfg(min_sessions=1)))[0] is True
    assert checks.sessions(make_ctx(root, cfg=gates_cfg(min_sessions=2)))[0] is False


def test_sessions_gate_counts_every_session_when_the_lock_mtime_is_in_the_future(
    root: Path,
) -> None:
    write_lock(root, NOW_NS + DAY)
    for sid in SESSION_IDS[:5]:
        write_session(root.parent, sid + ".jsonl", NOW_NS - HOUR)
    assert checks.sessions(make_ctx(root))[0] is True


def test_sessions_gate_fails_for_a_missing_transcripts_folder_with_that_reason(
    root: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "no-transcripts"
    passed, reason = checks.sessions(make_ctx(root, transcripts_dir=missing))
    assert passed is False
    assert "unreadable" in reason and str(missing) in reason


@skip_if_root
def test_sessions_gate_fails_for_an_unreadable_transcripts_folder_with_that_reason(
    root: Path,
) -> None:
    for sid in SESSION_IDS[:5]:
        write_session(root.parent, sid + ".jsonl", NOW_NS - HOUR)
    folder = root.parent
    folder.chmod(0o311)
    try:
        passed, reason = checks.sessions(make_ctx(root))
    finally:
        folder.chmod(0o755)
    assert passed is False
    assert "unreadable" in reason


# --------------------------------------------------------------------------- order, --force, report


def test_gates_stop_at_the_first_failure_and_later_gates_are_not_evaluated(root: Path) -> None:
    report = run_root(make_ctx(root, cfg=gates_cfg(enabled=False), dry_run=False))
    assert report.status == "skipped"
    assert [g.id for g in report.gates] == [gid for gid, _ in GATE_NAMES]
    assert report.gates[0].passed is False
    for gate in report.gates[1:]:
        assert (gate.passed, gate.reason) == (None, "not evaluated")


def test_a_closed_interval_gate_leaves_the_earlier_gates_passed_and_the_later_unevaluated(
    root: Path,
) -> None:
    write_lock(root, NOW_NS - HOUR)
    report = run_root(make_ctx(root, dry_run=False))
    assert [g.id for g in report.gates] == [gid for gid, _ in GATE_NAMES]  # numbered order
    gates = by_id(report.gates)
    assert [gates[g].passed for g in ("G1", "G2", "G4")] == [True, True, False]
    for gid in ("G3", "G5", "G6", "G7"):  # after G4 in evaluation order: G3 costs the most
        assert (gates[gid].passed, gates[gid].reason) == (None, "not evaluated")


def test_force_skips_gates_one_to_six_with_passed_null(root: Path) -> None:
    write_lock(root, NOW_NS - HOUR)  # G4 would be closed
    ctx = make_ctx(root, cfg=gates_cfg(enabled=False), env={"CONSOLIDATOR_DISABLE": "1"},
                   force=True)
    results, ok = evaluate(ctx, all_of_them=False)
    assert ok is True
    assert [(g.id, g.passed, g.reason) for g in results] == [
        (gid, None, "skipped by --force") for gid, _ in GATE_NAMES[:6]
    ] + [("G7", None, "not evaluated")]  # the runner takes the lock itself


def test_force_skips_the_idle_gate_even_for_an_index_changed_within_idle_minutes(
    root: Path,
) -> None:
    write_session(root.parent, SESSION_IDS[0] + ".jsonl", NOW_NS - NS)
    set_mtime(root / "user_role.md", NOW_NS - NS)  # the memory is left alone by the run
    set_mtime(root / "MEMORY.md", NOW_NS - NS)  # ... and so is the index
    results, ok = evaluate(make_ctx(root, force=True), all_of_them=False)
    assert ok is True
    gates = by_id(results)
    assert [(gates[g].passed, gates[g].reason) for g, _ in GATE_NAMES[:6]] == [
        (None, "skipped by --force")] * 6


def test_a_forced_run_leaves_an_index_changed_within_idle_minutes_alone(root: Path) -> None:
    index = root / "MEMORY.md"
    index.write_text("- [Role](user_role.md) — who (a session is editing this)\n"
                     "- [Gone](gone.md) — a file no longer there\n")
    set_mtime(index, NOW_NS - 30 * NS)
    before = index.read_bytes()
    report = run_root(make_ctx(root, force=True, dry_run=False))
    assert report.status == "consolidated"
    assert index.read_bytes() == before
    (note,) = [n for n in report.plan.notes if n.startswith("MEMORY.md left alone: ")]
    assert "changed 30 s ago, within 15 min: a live session may be writing it" in note
    assert note.endswith("; it points at missing files: gone.md")  # said, not mended
    # The report gives the index as it stands, and why it was left so.
    index = report.plan.index
    assert (index.lines, index.bytes, index.changed, index.missing) == (2, len(before), False,
                                                                          ("gone.md",))
    assert "a live session may be writing it" in index.why[0]


def test_files_dated_ahead_of_the_clock_are_left_alone_and_said_to_be(root: Path) -> None:
    """A clock set wrong, or a copy that kept another machine's times: a file dated ahead is
    left alone as one just changed, and the report says it is dated ahead, not "0 s ago"."""
    index = root / "MEMORY.md"
    index.write_text("- [Role](user_role.md) — who\n")
    set_mtime(index, NOW_NS + 3 * HOUR)
    set_mtime(root / "user_role.md", NOW_NS + 3 * HOUR)
    before = index.read_bytes(), (root / "user_role.md").read_bytes()
    report = run_root(make_ctx(root, force=True, dry_run=False))
    assert (index.read_bytes(), (root / "user_role.md").read_bytes()) == before
    (note,) = [n for n in report.plan.notes if n.startswith("MEMORY.md left alone: ")]
    assert "index MEMORY.md is dated 3.0 h ahead of this clock" in note
    (hot,) = [n for n in report.plan.notes if n.startswith("left alone, changed within")]
    assert "user_role.md (1 of them dated ahead of this clock" in hot


def test_force_never_skips_the_lock_gate(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["run", "--force", "--json", "--memory-dir", str(root),
                     "--state-dir", str(tmp_path / "st")])
    assert code == 0
    gates = json.loads(capsys.readouterr().out)["roots"][0]["gates"]
    assert [(g["passed"], g["reason"]) for g in gates[:6]] == [(None, "skipped by --force")] * 6
    assert gates[6]["id"] == "G7" and gates[6]["passed"] is True


def test_the_report_evaluates_all_seven_gates_even_after_a_failure(root: Path) -> None:
    write_lock(root, NOW_NS - HOUR)
    report = run_root(make_ctx(root, cfg=gates_cfg(enabled=False), trigger="report"))
    assert [g.id for g in report.gates] == [gid for gid, _ in GATE_NAMES]
    assert all(g.passed is not None for g in report.gates)
    gates = by_id(report.gates)
    assert gates["G1"].passed is False and gates["G4"].passed is False
    assert gates["G2"].passed is True and gates["G7"].passed is True
    assert report.status == "planned"


# --------------------------------------------------------------------------- a closed gate is cheap


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path opened through ``open``, ``io.open`` or ``os.open`` while the test runs."""
    seen: list[str] = []
    real_open, real_io_open, real_os_open = builtins.open, io.open, os.open

    def note(file: Any) -> None:
        if isinstance(file, (str, bytes, os.PathLike)):
            seen.append(os.fsdecode(os.fspath(file)))

    def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        note(file)
        return real_open(file, *args, **kwargs)

    def fake_io_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        note(file)
        return real_io_open(file, *args, **kwargs)

    def fake_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        note(path)
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(io, "open", fake_io_open)
    monkeypatch.setattr(os, "open", fake_os_open)
    return seen


def _md_under(paths: list[str], root: Path) -> list[str]:
    return [
        p for p in paths
        if p.endswith(".md") and (not os.path.isabs(p) or Path(p).is_relative_to(root))
    ]


def test_a_run_with_a_closed_gate_opens_no_memory_file(
    root: Path, tmp_path: Path, opened: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with freeze_time(datetime.fromtimestamp(NOW_NS // NS, UTC)):
        write_lock(root, NOW_NS - HOUR)  # G4 closed
        code = cli.main(["run", "--json", "--memory-dir", str(root),
                         "--state-dir", str(tmp_path / "st")])
    assert code == 0
    gates = by_id_dicts(json.loads(capsys.readouterr().out)["roots"][0])
    assert gates["G4"]["passed"] is False
    assert any(p.endswith(".consolidate-lock") for p in opened)  # the recorder works
    assert _md_under(opened, root) == []


def test_the_idle_gate_opens_no_index_or_memory_file(
    root: Path, opened: list[str]
) -> None:
    set_mtime(root / "MEMORY.md", NOW_NS - NS)
    set_mtime(root / "user_role.md", NOW_NS - NS)
    report = run_root(make_ctx(root, dry_run=False))
    assert by_id(report.gates)["G3"].passed is False
    assert _md_under(opened, root) == []


def test_a_forced_run_does_open_the_memory_files_so_the_recorder_sees_them(
    root: Path, tmp_path: Path, opened: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["run", "--force", "--dry-run", "--memory-dir", str(root),
                     "--state-dir", str(tmp_path / "st")])
    capsys.readouterr()
    assert code == 0
    assert {Path(p).name for p in _md_under(opened, root)} >= {"user_role.md", "feedback_tests.md"}


def test_status_reads_no_memory_body(
    root: Path, tmp_path: Path, opened: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["status", "--memory-dir", str(root), "--state-dir", str(tmp_path / "st")])
    out = capsys.readouterr().out
    assert code == 0 and "G7" in out
    assert _md_under(opened, root) == []

