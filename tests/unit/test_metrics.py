"""The Prometheus textfile (report.metrics.write_textfile), read back with a real parser
of the text format: every gauge with its HELP and TYPE, labels escaped, the file replaced
atomically, and the values a person watching the service relies on, from RunReports built
by hand and from real runs on the bundled example."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("prometheus_client")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from consolidator.config import Config  # noqa: E402
from consolidator.gates import GateResult, not_evaluated  # noqa: E402
from consolidator.plan import JUDGMENT, SAFE, Archive, Create, Merge, Plan, Rewrite, Waiting  # noqa: E402
from consolidator.report import metrics  # noqa: E402
from consolidator.report.outcome import RootReport, RunReport  # noqa: E402
from consolidator.runner import RunOptions, run_all  # noqa: E402
from consolidator.state import proposal, statedir

P = "dream_consolidator_"
NOW = datetime(2026, 11, 30, 3, 15, 0, 250000, tzinfo=UTC)
ROOT_GAUGES = (
    "last_pass_timestamp_seconds", "last_consolidation_timestamp_seconds",
    "last_pass_duration_seconds", "gate_open", "closed_gate_info", "pass_failed",
    "last_pass_status_info", "merges", "archives", "rewrites", "creates",
    "proposal_waiting_actions",
)
from tests.conftest import gate_results

COUNTS = ("merges", "archives", "rewrites", "creates")
HOSTILE = (
    'say "hi"',
    "back\\slash",
    "trailing\\",
    "line one\nline two",
    '\\"} 1\n' + P + 'roots{x="',
    "集成测试必须连接真实的数据库",
    "もう使わない 🦀",
    'all of them: "\\\n集',
    "\\n is not a newline",
)


# --------------------------------------------------------------------------- helpers


def gates(closed: str | None = None) -> tuple[GateResult, ...]:
    return gate_results(closed)


def busy_plan() -> Plan:
    """Applied: a merge of three files (two merged away), an archive, a memory rewritten, a
    topic created, the index rebuilt; not applied: a judgment left for review."""
    actions = (
        Merge(file="keep.md", sources=("keep.md", "a.md", "b.md"), data=b"", mtime_ns=0,
              reason="same lines"),
        Archive(file="old.md", kind=JUDGMENT, reason="stale"),
        Rewrite(file="demo.md", kind=JUDGMENT, data=b"", mtime_ns=0, reason="dates"),
        Create(file="topic.md", data=b"", mtime_ns=0, reason="index overflow"),
        Rewrite(file="MEMORY.md", kind=SAFE, data=b"", mtime_ns=0, reason="index rebuilt"),
        Archive(file="maybe.md", kind=JUDGMENT, reason="stale?"),
    )
    return Plan(actions=actions, applied=(True, True, True, True, True, False),
                proposal=Waiting("20261130T031500Z-3f9a", 1, (5,)))


def root_report(memory_dir: Path | str = "/home/dev/.claude/projects/p/memory",
                status: str = "consolidated", **changes: Any) -> RootReport:
    values: dict[str, Any] = dict(gates=gates(), plan=busy_plan(), duration_s=1.5, kind="auto")
    values.update(changes)
    return RootReport(Path(memory_dir), status, **values)


def write(tmp_path: Path, report: RunReport, state: Path | None = None) -> Path:
    out = tmp_path / "metrics" / "consolidator.prom"
    out.parent.mkdir(exist_ok=True)
    metrics.write_textfile(out, report, NOW, state or tmp_path / "state")
    return out


def families(path: Path) -> dict[str, Any]:
    found = {f.name: f for f in text_string_to_metric_families(path.read_text("utf-8"))}
    assert len(found) == len(ROOT_GAUGES) + 1
    return found


def samples(fams: dict[str, Any], name: str, **labels: str) -> list[Any]:
    return [s for s in fams[P + name].samples
            if all(s.labels.get(k) == v for k, v in labels.items())]


def value(fams: dict[str, Any], name: str, **labels: str) -> float:
    (sample,) = samples(fams, name, **labels)
    return float(sample.value)


def series(fams: dict[str, Any]) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    return [(s.name, tuple(sorted(s.labels.items()))) for f in fams.values() for s in f.samples]


@pytest.fixture
def umask_077() -> Iterator[None]:
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


# --------------------------------------------------------------------------- the format


def test_every_gauge_has_help_and_type_and_the_pass_values(tmp_path: Path) -> None:
    root = root_report()
    out = write(tmp_path, RunReport("r", False, (root,)))
    text = out.read_text("utf-8")
    fams = families(out)
    for name in (*ROOT_GAUGES, "roots"):
        family = fams[P + name]
        assert family.type == "gauge"
        assert family.documentation.strip()
        assert f"# HELP {P}{name} " in text and f"# TYPE {P}{name} gauge\n" in text
    assert text.endswith("\n")
    for name in ROOT_GAUGES:
        for sample in fams[P + name].samples:
            assert sample.labels["memory_dir"] == str(root.memory_dir)
            assert sample.labels["kind"] == "auto"
    assert value(fams, "last_pass_timestamp_seconds") == pytest.approx(NOW.timestamp())
    assert value(fams, "last_consolidation_timestamp_seconds") == 0  # no lock file: never
    assert value(fams, "last_pass_duration_seconds") == 1.5
    assert value(fams, "gate_open") == 1
    assert samples(fams, "closed_gate_info") == []
    assert value(fams, "pass_failed") == 0
    assert value(fams, "last_pass_status_info", status="consolidated") == 1
    assert len(fams[P + "last_pass_status_info"].samples) == 1
    # Counted as the history counts them: two sources merged away are archived too, and the
    # index's own rebuild is not a rewrite; the action left waiting is not applied.
    assert {n: value(fams, n) for n in COUNTS} == {
        "merges": 1, "archives": 3, "rewrites": 1, "creates": 1}
    assert value(fams, "proposal_waiting_actions") == 0  # nothing on disk for this root
    assert value(fams, "roots") == 1
    assert fams[P + "roots"].samples[0].labels == {}


def test_an_empty_pass_still_writes_every_header(tmp_path: Path) -> None:
    fams = families(write(tmp_path, RunReport("r", False, ())))
    assert value(fams, "roots") == 0
    assert series(fams) == [(P + "roots", ())]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_memory_dir_is_escaped_and_reads_back_the_same(
    tmp_path: Path, name: str
) -> None:
    hostile = root_report(f"/home/dev/{name}/memory", kind='k"\\\n')
    plain = root_report("/home/dev/plain/memory", kind="project")
    out = write(tmp_path, RunReport("r", False, (hostile, plain)))
    fams = families(out)
    for dirname, kind in ((str(hostile.memory_dir), 'k"\\\n'), (str(plain.memory_dir), "project")):
        assert value(fams, "gate_open", memory_dir=dirname, kind=kind) == 1
        assert value(fams, "merges", memory_dir=dirname, kind=kind) == 1
    assert value(fams, "roots") == 2
    # One sample per line: no raw newline or unescaped quote breaks a line in two.
    lines = out.read_text("utf-8").splitlines()
    data = [line for line in lines if not line.startswith("#")]
    assert len(data) == len(series(fams)) == 2 * (len(ROOT_GAUGES) - 1) + 1
    assert all(line.startswith(P) for line in data)


def test_every_hostile_name_in_one_file(tmp_path: Path) -> None:
    roots = tuple(root_report(f"/home/dev/{name}/memory") for name in HOSTILE)
    fams = families(write(tmp_path, RunReport("r", False, roots)))
    assert {s.labels["memory_dir"] for s in samples(fams, "gate_open")} == {
        str(r.memory_dir) for r in roots}
    assert value(fams, "roots") == len(HOSTILE)


def test_undecodable_bytes_in_a_path_become_replacement_characters(tmp_path: Path) -> None:
    odd = Path(os.fsdecode(b"/home/dev/caf\xe9/memory"))  # Latin-1 bytes, not UTF-8
    fams = families(write(tmp_path, RunReport("r", False, (root_report(odd),))))
    assert value(fams, "gate_open", memory_dir="/home/dev/caf\ufffd/memory") == 1


def test_escape_label_escapes_backslash_quote_and_newline_only() -> None:
    assert metrics.escape_label('a\\b"c\nd\te 集') == 'a\\\\b\\"c\\nd\te 集'


def test_a_root_named_twice_gives_one_series(tmp_path: Path) -> None:
    """node_exporter rejects a file with a series twice; the later report wins."""
    first = root_report(status="failed", error="boom")
    second = root_report(status="consolidated")
    fams = families(write(tmp_path, RunReport("r", False, (first, second))))
    found = series(fams)
    assert len(found) == len(set(found))
    assert value(fams, "pass_failed") == 0
    assert value(fams, "roots") == 1


# --------------------------------------------------------------------------- the write


def test_the_file_is_replaced_whole_with_mode_0644(tmp_path: Path, umask_077: None) -> None:
    out = tmp_path / "metrics" / "consolidator.prom"
    out.parent.mkdir()
    out.write_text("old content\n")
    os.chmod(out, 0o600)
    held = tmp_path / "held-open-by-a-reader"
    os.link(out, held)  # a reader with the old file open keeps reading it whole
    before = out.stat().st_ino
    metrics.write_textfile(out, RunReport("r", False, (root_report(),)), NOW, tmp_path / "s")
    assert out.stat().st_ino != before, "renamed over, not written in place"
    assert held.read_text() == "old content\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o644, "node_exporter must be able to read it"
    assert sorted(os.listdir(out.parent)) == ["consolidator.prom"], "no temp file left"
    assert value(families(out), "roots") == 1


def test_the_temp_file_is_fsynced_beside_the_target_and_never_a_prom_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")
                       if os.path.exists("/proc/self/fd") else str(fd)))
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        events.append(("replace", os.fspath(src)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    out = write(tmp_path, RunReport("r", False, (root_report(),)))
    kinds = [kind for kind, _ in events]
    assert kinds.index("fsync") < kinds.index("replace")
    temp = Path(dict((k, v) for k, v in events if k == "replace")["replace"])
    assert temp.parent == out.parent
    assert not temp.name.endswith(".prom") and temp.name.startswith(".")
    if os.path.exists("/proc/self/fd"):
        assert ("fsync", str(temp)) in events


def test_a_failed_write_propagates_and_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "metrics" / "consolidator.prom"
    out.parent.mkdir()
    out.write_text("old content\n")

    def full_disk(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        metrics.write_textfile(out, RunReport("r", False, (root_report(),)), NOW, tmp_path)
    assert out.read_text() == "old content\n"
    assert os.listdir(out.parent) == ["consolidator.prom"]


def test_a_missing_folder_is_an_oserror_for_the_caller(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        metrics.write_textfile(tmp_path / "nowhere" / "c.prom", RunReport("r", False, ()), NOW,
                               tmp_path)
    assert not (tmp_path / "nowhere").exists()


# --------------------------------------------------------------------------- one root's story


def test_a_failed_root(tmp_path: Path) -> None:
    failed = RootReport(Path("/home/dev/broken/memory"), "failed", not_evaluated(),
                        error="scan: permission denied", duration_s=0.25)
    ok = root_report("/home/dev/fine/memory")
    fams = families(write(tmp_path, RunReport("r", False, (failed, ok))))
    broken = {"memory_dir": "/home/dev/broken/memory"}
    assert value(fams, "pass_failed", **broken) == 1
    assert value(fams, "last_pass_status_info", status="failed", **broken) == 1
    assert value(fams, "last_pass_duration_seconds", **broken) == 0.25
    assert samples(fams, "closed_gate_info", **broken) == [], "no gate closed: it failed"
    assert all(value(fams, n, **broken) == 0 for n in COUNTS)
    assert value(fams, "pass_failed", memory_dir="/home/dev/fine/memory") == 0
    assert value(fams, "roots") == 2


@pytest.mark.parametrize(("gate", "name"), [("G4", "interval"), ("G1", "enabled"),
                                            ("G7", "lock")])
def test_a_skipped_root_names_its_closed_gate(tmp_path: Path, gate: str, name: str) -> None:
    skipped = RootReport(Path("/home/dev/p/memory"), "skipped", gates(closed=gate),
                         duration_s=0.001, lock_held=gate == "G7")
    fams = families(write(tmp_path, RunReport("r", False, (skipped,))))
    assert value(fams, "gate_open") == 0
    (info,) = samples(fams, "closed_gate_info")
    assert info.value == 1
    assert info.labels == {"memory_dir": "/home/dev/p/memory", "kind": "auto", "gate": gate,
                           "reason_kind": name}
    assert value(fams, "last_pass_status_info", status="skipped") == 1
    assert value(fams, "pass_failed") == 0
    assert all(value(fams, n) == 0 for n in COUNTS)


def test_a_report_with_every_gate_evaluated_names_each_closed_one(tmp_path: Path) -> None:
    closed = tuple(GateResult(g.id, g.name, False if g.id in ("G1", "G4") else True, "no")
                   for g in gates())
    fams = families(write(tmp_path, RunReport("r", True, (root_report(status="planned",
                                                                      gates=closed),))))
    assert {s.labels["gate"] for s in samples(fams, "closed_gate_info")} == {"G1", "G4"}
    assert value(fams, "gate_open") == 0


def test_gates_skipped_by_force_leave_the_gate_open(tmp_path: Path) -> None:
    forced = tuple(GateResult(g.id, g.name, None, "skipped by --force") for g in gates()[:6]) \
        + (GateResult("G7", "lock", True, "free"),)
    fams = families(write(tmp_path, RunReport("r", False, (root_report(gates=forced),))))
    assert value(fams, "gate_open") == 1
    assert samples(fams, "closed_gate_info") == []


def test_a_dry_run_applies_nothing(tmp_path: Path) -> None:
    planned = root_report(status="planned")
    assert planned.plan.done(), "the plan says what a real run would apply"
    fams = families(write(tmp_path, RunReport("r", True, (planned,))))
    assert all(value(fams, n) == 0 for n in COUNTS)
    assert value(fams, "last_pass_status_info", status="planned") == 1


def test_a_root_missing_something_never_fails_the_write(tmp_path: Path) -> None:
    def boom() -> Any:
        raise RuntimeError("plan unreadable")

    odd = (
        RootReport(Path("/home/dev/a/memory"), "consolidated", None,  # type: ignore[arg-type]
                   plan=None, duration_s=None, kind=None),  # type: ignore[arg-type]
        RootReport(Path("/home/dev/b/memory"), None, (object(), None),  # type: ignore[arg-type]
                   plan=SimpleNamespace(done=boom),  # type: ignore[arg-type]
                   duration_s=float("nan")),
        RootReport(None, "failed", ()),  # type: ignore[arg-type]
        SimpleNamespace(memory_dir="/home/dev/c/memory"),
        SimpleNamespace(memory_dir=Path("/home/dev/d/memory"), kind="auto",
                        status="consolidated", gates=(SimpleNamespace(passed=False),),
                        plan=busy_plan(), duration_s="slow"),
    )
    out = write(tmp_path, RunReport("r", False, odd))  # type: ignore[arg-type]
    fams = families(out)
    found = series(fams)
    assert len(found) == len(set(found))
    assert value(fams, "roots") == 5
    assert value(fams, "merges", memory_dir="/home/dev/a/memory") == 0
    assert value(fams, "last_pass_status_info", memory_dir="/home/dev/b/memory",
                 status="unknown") == 1
    assert value(fams, "pass_failed", memory_dir="") == 1
    assert value(fams, "last_pass_duration_seconds", memory_dir="/home/dev/d/memory") == 0
    assert value(fams, "merges", memory_dir="/home/dev/d/memory") == 1
    assert value(fams, "gate_open", memory_dir="/home/dev/d/memory") == 0
    for report in (RunReport("r", False, None), SimpleNamespace(), None):  # type: ignore[arg-type]
        (tmp_path / "metrics" / "consolidator.prom").unlink(missing_ok=True)
        assert value(families(write(tmp_path, report)), "roots") == 0  # type: ignore[arg-type]


# --------------------------------------------------------------------------- real runs


def real_run(root: Path, state: Path, *, dry_run: bool = False,
             now: datetime | None = None) -> tuple[RunReport, datetime]:
    moment = now or datetime.now(UTC)
    opts = RunOptions(state_dir=state, project_root=str(root.parent / "project"),
                      dry_run=dry_run, force=True, trigger="run")
    return run_all([root], Config(), opts, moment), moment


def test_a_real_run_on_the_example(example_copy: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    report, now = real_run(example_copy, state)
    (root,) = report.roots
    assert root.status == "consolidated", root.error
    out = tmp_path / "c.prom"
    metrics.write_textfile(out, report, now, state)
    fams = families(out)
    labels = {"memory_dir": str(example_copy), "kind": root.kind}
    done = [a for a in root.plan.done() if a.file != "MEMORY.md"]
    assert value(fams, "merges", **labels) == sum(a.op == "merge" for a in done) == 2
    assert value(fams, "archives", **labels) == sum(
        1 if a.op == "archive" else len(a.sources) - 1 for a in done if a.op in ("merge",
                                                                                 "archive"))
    assert value(fams, "rewrites", **labels) == sum(a.op == "rewrite" for a in done)
    assert value(fams, "creates", **labels) == sum(a.op == "create" for a in done)
    assert value(fams, "gate_open", **labels) == 1
    assert value(fams, "last_pass_status_info", status="consolidated", **labels) == 1
    assert value(fams, "last_pass_duration_seconds", **labels) == pytest.approx(root.duration_s)
    # The run's start is the last consolidation: .consolidate-lock's mtime.
    lock_mtime = (example_copy / ".consolidate-lock").stat().st_mtime_ns / 1e9
    assert value(fams, "last_consolidation_timestamp_seconds", **labels) == pytest.approx(
        lock_mtime, abs=1e-6)
    assert lock_mtime == pytest.approx(now.timestamp(), abs=1e-6)
    assert value(fams, "last_pass_timestamp_seconds", **labels) == pytest.approx(now.timestamp())


def test_waiting_actions_come_from_the_real_proposal(example_copy: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    report, now = real_run(example_copy, state)
    (root,) = report.roots
    rstate = statedir.root_state(state, example_copy)
    kept = proposal.load(rstate)
    assert kept is not None and root.plan.proposal is not None
    waiting = len(kept.waiting())
    assert waiting == root.plan.proposal.actions > 0
    out = tmp_path / "c.prom"
    metrics.write_textfile(out, report, now, state)
    assert value(families(out), "proposal_waiting_actions") == waiting

    # One judgment declined: one fewer waits.
    proposal.save(rstate, kept.settled({kept.waiting()[0].number: (statedir.DECLINED, "")}))
    metrics.write_textfile(out, report, now, state)
    assert value(families(out), "proposal_waiting_actions") == waiting - 1

    # A damaged proposal, one writable by others, one that is a link: 0, never an error.
    path = statedir.proposal(rstate)
    path.write_text('{"format": 1, "actions": [{"number": 1, "status": "waiting"')
    metrics.write_textfile(out, report, now, state)
    assert value(families(out), "proposal_waiting_actions") == 0
    proposal.save(rstate, kept)
    os.chmod(path, 0o666)
    metrics.write_textfile(out, report, now, state)
    assert value(families(out), "proposal_waiting_actions") == 0
    elsewhere = tmp_path / "planted.json"
    os.replace(path, elsewhere)
    os.chmod(elsewhere, 0o600)
    path.symlink_to(elsewhere)
    metrics.write_textfile(out, report, now, state)
    assert value(families(out), "proposal_waiting_actions") == 0


def test_a_real_dry_run_reports_nothing_applied(example_copy: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    report, now = real_run(example_copy, state, dry_run=True)
    (root,) = report.roots
    assert report.dry_run and root.status == "planned", root.error
    assert any(a.op == "merge" for a in root.plan.done()), "a real run would merge"
    out = tmp_path / "c.prom"
    metrics.write_textfile(out, report, now, state)
    fams = families(out)
    assert all(value(fams, n) == 0 for n in COUNTS)
    assert value(fams, "last_pass_status_info", status="planned") == 1
    assert value(fams, "last_consolidation_timestamp_seconds") == 0, "never consolidated"
    assert value(fams, "proposal_waiting_actions") == 0, "a dry run keeps no proposal"


def test_a_real_run_on_a_hostile_folder_name(example_copy: Path, tmp_path: Path) -> None:
    hostile = example_copy.parent / 'me"mo\\ry\n集'
    os.rename(example_copy, hostile)
    state = tmp_path / "state"
    report, now = real_run(hostile, state)
    out = tmp_path / "c.prom"
    metrics.write_textfile(out, report, now, state)
    fams = families(out)
    (root,) = report.roots
    assert value(fams, "pass_failed", memory_dir=str(hostile)) == (root.status == "failed")
    assert value(fams, "proposal_waiting_actions", memory_dir=str(hostile)) == (
        root.plan.proposal.actions if root.plan.proposal else 0)
    assert value(fams, "last_consolidation_timestamp_seconds", memory_dir=str(hostile)) > 0


def test_a_pass_over_some_roots_keeps_the_series_of_the_others(tmp_path: Path) -> None:
    """The SessionEnd hook's pass covers one project: every other root's series stays in
    the file as the last pass that saw it left it, so an alert on a stale root can fire."""
    first = RunReport("r1", False, (
        RootReport(Path("/home/dev/a/memory"), "consolidated", ()),
        RootReport(Path('/home/dev/"b"/memory'), "skipped", ()),
    ))
    write(tmp_path, first)
    second = RunReport("r2", False, (RootReport(Path("/home/dev/a/memory"), "skipped", ()),))
    fams = families(write(tmp_path, second))
    assert value(fams, "roots") == 2
    assert value(fams, "pass_failed", memory_dir='/home/dev/"b"/memory') == 0
    statuses = {s.labels["memory_dir"]: s.labels["status"]
                for s in fams["dream_consolidator_last_pass_status_info"].samples}
    assert statuses == {"/home/dev/a/memory": "skipped", '/home/dev/"b"/memory': "skipped"}
