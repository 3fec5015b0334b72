"""History and retention, function by function, on real files in ``tmp_path``: the order of
lines, ``--since`` moments, closed-gate lines written once per gate, trimming old lines, and
which run folders retention and prune may remove.

Times are explicit nanoseconds around one fixed instant; nothing waits for the clock.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from consolidator.config import StateSection
from consolidator.errors import UsageError
from consolidator.state import history, retention, runfolders, statedir, statefiles

NS = 1_000_000_000
DAY = 86400 * NS
NOW = datetime(2026, 11, 30, 3, 15, tzinfo=UTC)
NOW_NS = int(NOW.timestamp()) * NS


# --------------------------------------------------------------------------- helpers


def run_id_at(ns: int, suffix: str = "abcd") -> str:
    return datetime.fromtimestamp(ns // NS, UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + suffix


def entry(ns: int | None, *, run_id: str = "", status: str = "consolidated",
          gate: str | None = None, started_at: str | None = None) -> dict[str, Any]:
    """A history line as the runner writes it (``ns``: its ``started_ns``; ``None``: an
    older line without one)."""
    at = started_at or datetime.fromtimestamp((ns or NOW_NS) // NS, UTC).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    line: dict[str, Any] = {"run_id": run_id or run_id_at(ns or NOW_NS), "memory_dir": "/m",
                            "started_at": at, "trigger": "serve", "status": status,
                            "dry_run": False, "counts": {}}
    if ns is not None:
        line["started_ns"] = ns
    line["gates"] = [{"id": g, "name": g, "passed": False if g == gate else True, "reason": ""}
                     for g in ("G1", "G2", "G4")] if gate else []
    return line


def write_lines(state: Path, *entries: dict[str, Any]) -> Path:
    path = statedir.history(state)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        for e in entries:
            fh.write(json.dumps(e) + "\n")
    return path


def lines_of(state: Path) -> list[dict[str, Any]]:
    path = statedir.history(state)
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def make_run(state: Path, run_id: str, started_ns: int | None = None, *, closed: bool = True,
             archive: dict[str, bytes] | None = None, backup: bool = True) -> Path:
    """A run folder as a run leaves it: journal (meta, closed), a backup, an archive."""
    run = statedir.run_dir(state, run_id)
    run.mkdir(parents=True)
    records: list[dict[str, Any]] = [{"meta": {"run_id": run_id, "memory_dir": "/m",
                                               **({"started_ns": started_ns}
                                                  if started_ns else {})}}]
    if closed:
        records.append({"closed": "ok"})
    statedir.journal(run).write_text("".join(json.dumps(r) + "\n" for r in records))
    if backup:
        statedir.backup(run, 1, "project_a.md").parent.mkdir(parents=True)
        statedir.backup(run, 1, "project_a.md").write_bytes(b"old bytes\n")
    for rel, data in (archive or {}).items():
        statedir.archived(run, rel).parent.mkdir(parents=True, exist_ok=True)
        statedir.archived(run, rel).write_bytes(data)
    return run


# --------------------------------------------------------------------------- order and time


def test_lines_of_the_same_second_are_ordered_by_their_exact_start(tmp_path: Path) -> None:
    second = NOW_NS
    late = entry(second + 900_000_000, run_id=run_id_at(second, "0001"))
    early = entry(second + 100_000_000, run_id=run_id_at(second, "ffff"))
    write_lines(tmp_path / "a", late)
    write_lines(tmp_path / "b", early)
    assert [e["started_ns"] for e in history.read_all(tmp_path)] == [
        second + 100_000_000, second + 900_000_000]


def test_an_old_line_without_started_ns_falls_back_to_started_at_then_file_order() -> None:
    first = entry(None, run_id=run_id_at(NOW_NS, "ffff"))
    second = entry(None, run_id=run_id_at(NOW_NS, "0000"))
    later = entry(NOW_NS + 2 * NS)
    earlier = entry(NOW_NS - 5 * NS)
    ordered = history.in_order([later, first, second, earlier])
    assert ordered == [earlier, first, second, later]  # same second: as written
    assert history.entry_ns({"started_at": "2026-11-30T03:15:00Z"}) == NOW_NS
    assert history.entry_ns({"run_id": run_id_at(NOW_NS)}) == NOW_NS
    assert history.entry_ns({"started_at": "garbage"}) is None


def test_last_for_is_the_newest_start_and_last_recorded_the_last_line(tmp_path: Path) -> None:
    newer = entry(NOW_NS + 5 * NS, run_id="newer")
    older = entry(NOW_NS, run_id="older")  # a long run that started first, finished last
    write_lines(tmp_path, newer, older)
    assert history.last_for(tmp_path)["run_id"] == "newer"  # type: ignore[index]
    assert history.last_recorded(tmp_path)["run_id"] == "older"  # type: ignore[index]
    assert history.last_for(tmp_path / "none") is None


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-11-01", int(datetime(2026, 11, 1, tzinfo=UTC).timestamp()) * NS),
    ("2026-11-01T10:00:00Z", int(datetime(2026, 11, 1, 10, tzinfo=UTC).timestamp()) * NS),
    ("2026-11-01T10:00", int(datetime(2026, 11, 1, 10, tzinfo=UTC).timestamp()) * NS),
    ("20261101", int(datetime(2026, 11, 1, tzinfo=UTC).timestamp()) * NS),
    ("7d", NOW_NS - 7 * DAY),
    ("12h", NOW_NS - 12 * 3600 * NS),
    ("30m", NOW_NS - 30 * 60 * NS),
])
def test_since_is_a_date_a_time_or_an_age_back_from_now(text: str, expected: int) -> None:
    assert history.since_ns(text, NOW) == expected


def test_since_that_is_no_real_date_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="2026-13-45"):
        history.since_ns("2026-13-45", NOW)


# --------------------------------------------------------------------------- closed gates


def test_a_closed_gate_is_written_once_until_another_gate_closes_the_pass(
        tmp_path: Path) -> None:
    written = [retention.record_pass(tmp_path, entry(NOW_NS + i * NS, status="skipped", gate=g))
               for i, g in enumerate(["G4", "G4", "G4", "G1", "G1", "G4"])]
    assert written == [True, False, False, True, False, True]
    assert [history.closed_by(e) for e in lines_of(tmp_path)] == ["G4", "G1", "G4"]


def test_every_other_status_is_always_written(tmp_path: Path) -> None:
    for status in ("consolidated", "planned", "failed", "consolidated"):
        assert retention.record_pass(tmp_path, entry(NOW_NS, status=status))
    assert retention.record_pass(tmp_path, entry(NOW_NS, status="skipped", gate="G4"))
    assert retention.record_pass(tmp_path, entry(NOW_NS, status="failed"))
    assert retention.record_pass(tmp_path, entry(NOW_NS, status="skipped", gate="G4"))
    assert len(lines_of(tmp_path)) == 7


def test_appends_from_many_threads_are_whole_lines(tmp_path: Path) -> None:
    def append(n: int) -> None:
        for i in range(20):
            history.record(tmp_path, entry(NOW_NS + n * 100 + i, run_id=f"r{n}-{i}"))

    threads = [threading.Thread(target=append, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(lines_of(tmp_path)) == 80


# --------------------------------------------------------------------------- trimming


def test_trim_drops_only_lines_older_than_keep_days(tmp_path: Path) -> None:
    old = [entry(NOW_NS - 40 * DAY, run_id="old1"), entry(NOW_NS - 31 * DAY, run_id="old2")]
    young = [entry(NOW_NS - 29 * DAY, run_id="young"), entry(NOW_NS, run_id="now")]
    path = write_lines(tmp_path, *old, *young)
    with open(path, "a") as fh:
        fh.write("a torn line\n")
    assert retention.trim(tmp_path, 30, NOW_NS) == 2
    assert [e["run_id"] for e in lines_of_lenient(tmp_path)] == ["young", "now"]
    assert "a torn line" in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600


def lines_of_lenient(state: Path) -> list[dict[str, Any]]:
    out = []
    for line in statedir.history(state).read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def test_trim_reads_only_the_first_line_when_nothing_is_old(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_lines(tmp_path, entry(NOW_NS - DAY), entry(NOW_NS - 100 * DAY))
    before = path.read_bytes(), path.stat().st_ino
    monkeypatch.setattr(statefiles, "rewrite_locked", lambda *_a, **_k: pytest.fail("rewrote"))
    assert retention.trim(tmp_path, 30, NOW_NS) == 0
    assert (path.read_bytes(), path.stat().st_ino) == before
    assert retention.trim(tmp_path / "nothing", 30, NOW_NS) == 0


# --------------------------------------------------------------------------- run folders


def test_retention_removes_only_closed_runs_of_the_tools_own_files(tmp_path: Path) -> None:
    old = NOW_NS - 100 * DAY
    plain = make_run(tmp_path, run_id_at(old, "0001"), old)
    archived = make_run(tmp_path, run_id_at(old, "0002"), old, archive={"a.md": b"memory\n"})
    interrupted = make_run(tmp_path, run_id_at(old, "0003"), old, closed=False)
    proposed = make_run(tmp_path, run_id_at(old, "0004"), old)
    statefiles.replace(statedir.proposal(tmp_path), json.dumps(
        {"format": 1, "run_id": proposed.name,
         "actions": [{"number": 1, "status": "waiting"}]}).encode())
    displaced = make_run(tmp_path, run_id_at(old, "0005"), old)
    (displaced / "displaced" / "3").mkdir(parents=True)
    (displaced / "displaced" / "3" / "b.md").write_bytes(b"newer\n")
    empty_archive = make_run(tmp_path, run_id_at(old, "0006"), old)
    (empty_archive / "archive").mkdir()
    young = make_run(tmp_path, run_id_at(NOW_NS - DAY), NOW_NS - DAY)

    removed = retention.retire_runs(tmp_path, 30, 200, NOW_NS)

    assert removed == [plain.name, empty_archive.name]
    for kept in (archived, interrupted, proposed, displaced, young):
        assert kept.is_dir(), kept


def test_retention_keeps_the_newest_keep_runs_and_the_current_run(tmp_path: Path) -> None:
    runs = [make_run(tmp_path, run_id_at(NOW_NS - d * DAY), NOW_NS - d * DAY)
            for d in (5, 4, 3, 2, 1)]
    current = runs[0].name  # the pass just done is never removed, whatever its id says
    removed = retention.retire_runs(tmp_path, 30, 2, NOW_NS, current=current)
    assert removed == [runs[1].name, runs[2].name]
    assert [p.is_dir() for p in runs] == [True, False, False, True, True]


def test_runs_started_in_one_second_are_kept_newest_first_by_their_exact_start(
    tmp_path: Path,
) -> None:
    """Run ids of one second differ by a random suffix: the exact start in each journal,
    not the suffix, says which of them are the newest keep_runs."""
    second = (NOW_NS - DAY) // NS * NS
    suffixes = ["ffff", "0000", "aaaa", "1111"]  # in the order they started
    runs = [make_run(tmp_path, run_id_at(second, suffix), second + n * 1000)
            for n, suffix in enumerate(suffixes)]
    removed = retention.retire_runs(tmp_path, 30, 2, NOW_NS)
    assert sorted(removed) == sorted([runs[0].name, runs[1].name])
    assert [p.is_dir() for p in runs] == [False, False, True, True]


def test_retention_removes_nothing_when_the_proposal_cannot_be_read(tmp_path: Path) -> None:
    old = make_run(tmp_path, run_id_at(NOW_NS - 100 * DAY), NOW_NS - 100 * DAY)
    statedir.proposal(tmp_path).write_bytes(b"{not json")
    os.chmod(statedir.proposal(tmp_path), 0o600)
    assert retention.retire_runs(tmp_path, 30, 200, NOW_NS) == []
    assert old.is_dir()


def test_a_folder_that_is_a_link_or_misnamed_is_never_removed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "journal.jsonl").write_text('{"closed": "ok"}\n')
    statedir.runs(tmp_path / "s").mkdir(parents=True)
    link = statedir.run_dir(tmp_path / "s", run_id_at(NOW_NS - 100 * DAY))
    link.symlink_to(elsewhere)
    assert retention.retire_runs(tmp_path / "s", 30, 200, NOW_NS) == []
    assert not runfolders.remove_run(link, users_files=True)
    assert not runfolders.remove_run(elsewhere, users_files=True)
    assert (elsewhere / "journal.jsonl").exists()


def test_record_pass_runs_retention_after_a_real_pass_only(tmp_path: Path) -> None:
    keep = StateSection(keep_days=30, keep_runs=200)
    old_ns = NOW_NS - 100 * DAY
    old = make_run(tmp_path, run_id_at(old_ns), old_ns)
    write_lines(tmp_path, entry(old_ns, run_id=old.name))
    for status, dry in (("skipped", False), ("planned", True)):
        line = {**entry(NOW_NS, status=status, gate="G4" if status == "skipped" else None),
                "dry_run": dry}
        retention.record_pass(tmp_path, line, keep, NOW_NS)
    assert old.is_dir() and len(lines_of(tmp_path)) == 3
    retention.record_pass(tmp_path, entry(NOW_NS), keep, NOW_NS)
    assert not old.exists()
    assert [e["status"] for e in lines_of(tmp_path)] == ["skipped", "planned", "consolidated"]


def test_old_runs_says_why_each_old_run_stays(tmp_path: Path) -> None:
    old = NOW_NS - 100 * DAY
    archived = make_run(tmp_path, run_id_at(old, "0001"), old, archive={"x/a.md": b"12345"})
    interrupted = make_run(tmp_path, run_id_at(old, "0002"), old, closed=False)
    by_name = make_run(tmp_path, run_id_at(old + NS, "0003"))  # no started_ns: its id's time
    make_run(tmp_path, run_id_at(NOW_NS), NOW_NS)
    found = retention.old_runs(tmp_path, NOW_NS - 30 * DAY)
    assert [(r.run_id, r.kept is None) for r in found] == [
        (archived.name, True), (interrupted.name, False), (by_name.name, True)]
    assert found[0].files.users == (("archive", "x/a.md", 5),)
    journal = statedir.journal(archived).stat().st_size
    assert found[0].files.size == 5 + len(b"old bytes\n") + journal
    assert "interrupted" in (found[1].kept or "")
