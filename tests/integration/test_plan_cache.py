"""The dry-run plan cache (``consolidator/plan_cache.py``), driven through
``consolidator.cli.main`` in-process on real memory directories in ``tmp_path``.

A dry run (``report``, ``run --dry-run``) keeps its plan in ``<state>/<root>/plan-cache.pickle``
when the state dir already exists, and the next dry run reuses it while nothing the plan came
from has changed: the memories' listing and ``lstat`` (ctime too), ``MEMORY.md``, the config, the
project root and the project paths the memories name, the tool's code, and the clock (a new
UTC day, a hot memory cooling down). Ages are brought up to date on every reuse. A real run and
a model backend never use it. A damaged or foreign cache file is ignored, then replaced.

Whether a report planned afresh is seen by counting calls to detect's ``plan`` (the fixture
``planned``). The clock is frozen with freezegun wherever time matters; mtimes are set
relative to it, while ctimes are the kernel's own.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import shutil
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from freezegun import freeze_time

from consolidator import plan_cache
from consolidator.cli import main
from consolidator.config import Config
from consolidator.context import epoch_ns
from consolidator.gates import evaluate
from consolidator.llm.base import Offline
from consolidator.statedir import PLAN_CACHE, root_key
from consolidator.phases import detect as detect_phase
from consolidator.phases import scan as scan_phase
from consolidator.plan import Plan
from consolidator.runner import RunOptions, context_for
from consolidator.store import scan as store_scan
from tests.conftest import SESSION_IDS, snapshot_tree
from tests.llm_server import MessagesAPI, decide

NOW = datetime(2026, 6, 15, 10, 0, tzinfo=UTC)  # a whole second: now_ns is exact
AGE_NOTE = "This memory is {} days old. Memories are point-in-time observations"
NO_KEY_NOTE = "llm.backend is anthropic but ANTHROPIC_API_KEY is not set; decided offline"
API_KEY = "sk-test-not-real-7f3a9c2e"


# --------------------------------------------------------------------------- helpers


def set_mtime(path: Path, moment: datetime) -> None:
    ns = epoch_ns(moment)
    os.utime(path, ns=(ns, ns), follow_symlinks=False)


def without_run_id(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "run_id"}


def by_file(root_doc: dict[str, Any], key: str = "memories") -> dict[str, dict[str, Any]]:
    return {item["file"]: item for item in root_doc[key]}


def next_ctime_tick() -> None:
    """Let the kernel's coarse clock move on, so the next write gets a new ctime (an edit
    within the same clock tick as the previous one cannot be told apart by any stat)."""
    time.sleep(0.02)


class Setup:
    """One root with its state dir (created: a dry run writes the cache only there), an
    empty transcripts folder, a project folder and a config file, all under ``base``."""

    def __init__(self, base: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.base = base
        self.capsys = capsys
        self.root = base / "memory"
        self.state = base / "state"
        self.project = base / "project"
        self.transcripts = base / "transcripts"
        self.config = base / "config.toml"
        for folder in (self.root, self.state, self.project, self.transcripts):
            folder.mkdir(parents=True, exist_ok=True)
        self.config.write_text('[log]\nformat = "json"\n[consolidate]\napply = "all"\n',
                               encoding="utf-8")

    @property
    def cache(self) -> Path:
        return self.state / root_key(self.root) / PLAN_CACHE

    def put(self, rel: str, body: str, *, age: timedelta = timedelta(days=10),
            description: str | None = "a memory", kind: str = "project") -> Path:
        """A memory written ``age`` before the (frozen) clock."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        stem = Path(rel).stem
        head = f"---\nname: {stem}\n"
        if description is not None:
            head += f"description: {description}\n"
        path.write_text(f"{head}type: {kind}\n---\n{body}", encoding="utf-8")
        set_mtime(path, datetime.now(UTC) - age)
        return path

    def index(self, *files: str) -> Path:
        path = self.root / "MEMORY.md"
        path.write_text("# Memory\n\n" + "".join(f"- [{Path(f).stem}]({f}) — notes\n"
                                                 for f in files), encoding="utf-8")
        set_mtime(path, datetime.now(UTC) - timedelta(days=5))
        return path

    def args(self, config: Path | None = None, project: Path | None = None,
             project_flag: bool = True) -> list[str]:
        """The common options; without ``project_flag`` the project root comes from the
        newest transcript."""
        out = ["--config", str(config or self.config), "--memory-dir", str(self.root),
               "--state-dir", str(self.state)]
        if project_flag:
            out += ["--project-root", str(project or self.project)]
        return out + ["--transcripts-dir", str(self.transcripts)]

    def report(self, *extra: str, config: Path | None = None,
               project: Path | None = None) -> dict[str, Any]:
        """``report --format json``; returns the one root's part of the report."""
        return dict(self.report_doc(*extra, config=config, project=project)["roots"][0])

    def report_doc(self, *extra: str, config: Path | None = None,
                   project: Path | None = None, args: list[str] | None = None,
                   ) -> dict[str, Any]:
        code = main(["report", "--format", "json",
                     *(args if args is not None else self.args(config, project)), *extra])
        captured = self.capsys.readouterr()
        assert code == 0, captured.err
        doc: dict[str, Any] = json.loads(captured.out)
        assert all(r["status"] == "planned" for r in doc["roots"]), doc["roots"]
        return doc


@pytest.fixture
def setup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Setup:
    return Setup(tmp_path / "world", capsys)


@pytest.fixture
def clock() -> Iterator[Any]:
    """The clock frozen at NOW; ``clock.move_to(...)`` moves it."""
    with freeze_time(NOW) as frozen:
        yield frozen


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The root of every plan made by detect (a reused plan adds nothing)."""
    calls: list[Path] = []
    real = detect_phase.find

    def counting(snapshot: Any, ctx: Any, *args: Any) -> Any:
        calls.append(ctx.root)
        return real(snapshot, ctx, *args)

    monkeypatch.setattr(detect_phase, "find", counting)
    return calls


def forbid_planning(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, scanning or planning fails the test."""

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("planned afresh although the cached plan should be reused")

    monkeypatch.setattr(detect_phase, "find", refuse)
    monkeypatch.setattr(scan_phase, "scan", refuse)


def small_root(setup: Setup) -> None:
    """A few memories with something for every kind of finding."""
    setup.put("user_role.md", "The user is a backend engineer who mostly writes Go.\n",
              kind="user")
    setup.put("feedback_review.md", "Status: open\nReviews need two approvals.\n",
              age=timedelta(days=4), kind="feedback")
    setup.put("project_auth.md", "The auth flow lives in src/legacy/auth.py for now.\n",
              age=timedelta(days=30))
    setup.put("project_migration.md", "# Migration to v2\nStatus: DONE\nAll tables moved.\n",
              age=timedelta(days=40))
    setup.index("user_role.md", "feedback_review.md", "project_auth.md",
                "project_migration.md")


# --------------------------------------------------------------------------- reuse


def test_a_second_report_reads_like_the_first_and_keeps_a_private_cache(
    capsys: pytest.CaptureFixture[str], example_copy: Path, tmp_path: Path,
    planned: list[Path],
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    argv = ["--memory-dir", str(example_copy), "--state-dir", str(state),
            "--project-root", str(example_copy.parent / "project")]
    before = snapshot_tree(example_copy)
    with freeze_time(datetime.now(UTC).replace(microsecond=0)):
        outputs = []
        for fmt in ("json", "markdown", "json", "markdown"):
            assert main(["report", "--format", fmt, *argv]) == 0
            outputs.append(capsys.readouterr().out)
    first, second = json.loads(outputs[0]), json.loads(outputs[2])
    assert len(planned) == 1, "only the first report plans"
    assert first["run_id"] != second["run_id"]
    assert without_run_id(first) == without_run_id(second)
    assert len(first["roots"][0]["memories"]) == 20
    assert first["roots"][0]["stale"] and first["roots"][0]["actions"]
    assert first["roots"][0]["unparsed"] == second["roots"][0]["unparsed"] != []
    markdown = [text.split("\n", 1)[1] for text in (outputs[1], outputs[3])]  # past the run id
    assert markdown[0] == markdown[1]
    assert "```diff" in markdown[1], "the index diff needs MEMORY.md's text, kept in the cache"
    cache = state / root_key(example_copy) / PLAN_CACHE
    assert cache.is_file()
    assert cache.stat().st_mode & 0o777 == 0o600
    assert cache.parent.stat().st_mode & 0o777 == 0o700
    assert sorted(p.name for p in cache.parent.iterdir()) == [PLAN_CACHE]
    assert snapshot_tree(example_copy) == before, "a report writes nothing under the root"


def test_a_reused_plan_needs_neither_scan_nor_detect(
    setup: Setup, clock: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    small_root(setup)
    first = setup.report()
    assert setup.cache.is_file()
    forbid_planning(monkeypatch)
    second = setup.report()
    assert second == first


def test_a_report_without_a_state_dir_records_nothing_and_plans_every_time(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    shutil.rmtree(setup.state)
    first = setup.report()
    second = setup.report()
    assert first == second
    assert len(planned) == 2, "no cache without a state dir"
    assert not setup.state.exists(), "a report records nothing where there is no state dir"


def test_a_dry_run_reuses_the_plan_and_records_the_same_counts(
    setup: Setup, clock: Any, planned: list[Path], capsys: pytest.CaptureFixture[str],
) -> None:
    small_root(setup)
    docs = []
    for _ in range(2):
        assert main(["run", "--dry-run", "--force", "--json", *setup.args()]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    assert len(planned) == 1, "the second dry run reuses the first one's plan"
    assert without_run_id(docs[0]) == without_run_id(docs[1])
    assert docs[0]["dry_run"] is True
    history = [json.loads(line) for line in
               (setup.cache.parent / "history.jsonl").read_text().splitlines()]
    assert [h["dry_run"] for h in history] == [True, True]
    assert history[0]["counts"] == history[1]["counts"]
    assert history[0]["counts"]["memories"] == 4
    # and a report reuses what the dry run left
    assert len(setup.report()["memories"]) == 4
    assert len(planned) == 1


def test_each_root_has_its_own_cache_and_only_a_changed_root_is_planned_again(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    other = setup.base / "other" / "memory"
    other.mkdir(parents=True)
    shutil.copy2(setup.root / "user_role.md", other / "user_role.md")
    # Two roots: each finds its project in its own transcripts (--project-root names one).
    argv = [*setup.args(project_flag=False), "--memory-dir", str(other)]
    first = setup.report_doc(args=argv)
    assert planned == [setup.root, other]
    assert (setup.state / root_key(other) / PLAN_CACHE).is_file()
    assert setup.cache.is_file()
    setup.put("project_new.md", "A new fact about the build.\n", age=timedelta(days=2))
    second = setup.report_doc(args=argv)
    assert planned == [setup.root, other, setup.root]
    assert second["roots"][1] == first["roots"][1]
    assert "project_new.md" in by_file(second["roots"][0])


# --------------------------------------------------------------------------- every change is seen


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    assert "feedback_review.md" not in by_file(setup.report(), "stale")
    path = setup.root / "feedback_review.md"
    st = path.stat()
    next_ctime_tick()
    path.write_bytes(path.read_bytes().replace(b"Status: open", b"Status: DONE"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert path.stat().st_ctime_ns != st.st_ctime_ns

    after = setup.report()
    assert len(planned) == 2
    stale = by_file(after, "stale")["feedback_review.md"]
    assert any("status marker" in r for r in stale["reasons"])
    assert ("archive", "feedback_review.md") in {(a["op"], a["file"]) for a in after["actions"]}


def test_a_new_memory_is_seen(setup: Setup, clock: Any, planned: list[Path]) -> None:
    small_root(setup)
    setup.report()
    setup.put("reference_grafana.md", "Dashboards live in the ops Grafana folder.\n",
              kind="reference")
    after = setup.report()
    assert len(planned) == 2
    assert "reference_grafana.md" in by_file(after)
    assert after["index"]["added"] == ["reference_grafana.md"]


def test_a_memory_in_a_new_subfolder_is_seen(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    setup.report()
    setup.put("notes/project_sub.md", "Sub-folder memories count too.\n")
    after = setup.report()
    assert len(planned) == 2
    assert "notes/project_sub.md" in by_file(after)


def test_a_memory_moved_away_is_seen(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    assert "user_role.md" in by_file(setup.report())
    (setup.root / "user_role.md").rename(setup.base / "user_role.md")
    after = setup.report()
    assert len(planned) == 2
    assert "user_role.md" not in by_file(after)
    assert "user_role.md" in after["index"]["removed"]


def test_a_changed_index_is_seen(setup: Setup, clock: Any, planned: list[Path]) -> None:
    small_root(setup)
    setup.index("user_role.md", "feedback_review.md", "project_migration.md")
    assert setup.report()["index"]["added"] == ["project_auth.md"]
    next_ctime_tick()
    setup.index("user_role.md", "feedback_review.md", "project_auth.md",
                "project_migration.md")
    after = setup.report()
    assert len(planned) == 2
    assert after["index"]["added"] == []


def test_an_index_removed_is_seen(setup: Setup, clock: Any, planned: list[Path]) -> None:
    small_root(setup)
    assert setup.report()["index"]["added"] == []
    (setup.root / "MEMORY.md").unlink()
    after = setup.report()
    assert len(planned) == 2
    assert sorted(after["index"]["added"]) == sorted(set(by_file(after)) - {
        "project_migration.md"}), "every memory but the archived one"


def test_a_chmod_of_a_memory_is_seen(setup: Setup, clock: Any, planned: list[Path]) -> None:
    small_root(setup)
    setup.report()
    os.chmod(setup.root / "user_role.md", 0o600)
    setup.report()
    assert len(planned) == 2
    setup.report()
    assert len(planned) == 2, "and the new plan is reused in turn"
    if os.geteuid() != 0:  # root reads a mode-000 file all the same
        os.chmod(setup.root / "user_role.md", 0)
        after = setup.report()
        assert len(planned) == 3
        assert "user_role.md" in by_file(after, "unparsed")


def test_a_different_config_or_an_edited_one_is_seen(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    archived = {a["file"] for a in setup.report()["actions"] if a["op"] == "archive"}
    assert "project_migration.md" in archived
    keep = setup.base / "keep.toml"
    keep.write_text("[consolidate]\narchive_status_markers = false\n", encoding="utf-8")
    after = setup.report(config=keep)
    assert len(planned) == 2
    assert "project_migration.md" not in {a["file"] for a in after["actions"]
                                          if a["op"] == "archive"}
    assert "project_migration.md" in by_file(after, "stale"), "still reported, not archived"
    setup.report(config=keep)
    assert len(planned) == 2
    keep.write_text("[consolidate]\narchive_status_markers = true\n", encoding="utf-8")
    again = setup.report(config=keep)
    assert len(planned) == 3, "the same config path with another value"
    assert "project_migration.md" in {a["file"] for a in again["actions"]
                                      if a["op"] == "archive"}


def test_a_project_file_a_memory_names_appearing_or_vanishing_is_seen(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    reason = "references missing path src/legacy/auth.py"
    assert reason in by_file(setup.report(), "stale")["project_auth.md"]["reasons"]
    (setup.project / "README.txt").write_text("unrelated\n")
    setup.report()
    assert len(planned) == 1, "a project file no memory names changes nothing"

    named = setup.project / "src" / "legacy" / "auth.py"
    named.parent.mkdir(parents=True)
    named.write_text("# the auth flow\n")
    after = setup.report()
    assert len(planned) == 2
    assert "project_auth.md" not in by_file(after, "stale")
    setup.report()
    assert len(planned) == 2

    named.unlink()
    again = setup.report()
    assert len(planned) == 3
    assert reason in by_file(again, "stale")["project_auth.md"]["reasons"]


def test_another_project_root_is_seen(setup: Setup, clock: Any, planned: list[Path]) -> None:
    small_root(setup)
    other = setup.base / "other-project"
    (other / "src" / "legacy").mkdir(parents=True)
    (other / "src" / "legacy" / "auth.py").write_text("")
    assert "project_auth.md" in by_file(setup.report(), "stale")
    assert "project_auth.md" not in by_file(setup.report(project=other), "stale")
    assert len(planned) == 2


def test_a_newer_transcript_naming_another_project_is_seen(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    """Without --project-root, the project is the cwd of the newest session transcript."""
    small_root(setup)
    other = setup.base / "other-project"
    (other / "src" / "legacy").mkdir(parents=True)
    (other / "src" / "legacy" / "auth.py").write_text("")

    def transcript(sid: str, cwd: Path, age: timedelta) -> None:
        path = setup.transcripts / f"{sid}.jsonl"
        path.write_text(json.dumps({"type": "user", "cwd": str(cwd)}) + "\n")
        set_mtime(path, datetime.now(UTC) - age)

    transcript(SESSION_IDS[0], setup.project, timedelta(hours=5))
    argv = setup.args(project_flag=False)
    first = setup.report_doc(args=argv)["roots"][0]
    assert "project_auth.md" in by_file(first, "stale")
    transcript(SESSION_IDS[1], other, timedelta(hours=2))
    after = setup.report_doc(args=argv)["roots"][0]
    assert len(planned) == 2
    assert "project_auth.md" not in by_file(after, "stale")


def test_a_change_to_the_tools_own_code_or_version_is_seen(
    setup: Setup, clock: Any, planned: list[Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    package = setup.base / "package"
    package.mkdir()
    (package / "module.py").write_text("X = 1\n")
    (package / "data.txt").write_text("not code\n")
    monkeypatch.setattr(plan_cache, "PACKAGE", package)
    small_root(setup)
    setup.report()
    setup.report()
    assert len(planned) == 1
    (package / "data.txt").write_text("not code, longer now\n")
    setup.report()
    assert len(planned) == 1, "only the package's .py files count"
    (package / "module.py").write_text("X = 12\n")
    setup.report()
    assert len(planned) == 2
    monkeypatch.setattr(plan_cache, "__version__", "999.0")
    setup.report()
    assert len(planned) == 3


# --------------------------------------------------------------------------- time


def test_a_report_the_next_utc_day_plans_afresh_and_sees_the_passed_deadline(
    setup: Setup, planned: list[Path],
) -> None:
    with freeze_time(datetime(2026, 6, 15, 23, 30, tzinfo=UTC)) as frozen:
        setup.put("project_freeze.md", "Code freeze until 2026-06-15 for the release.\n",
                  age=timedelta(days=3))
        assert "project_freeze.md" not in by_file(setup.report(), "stale")
        frozen.move_to(datetime(2026, 6, 15, 23, 59, 59, 999999, tzinfo=UTC))
        assert "project_freeze.md" not in by_file(setup.report(), "stale")
        assert len(planned) == 1, "reused until midnight"
        frozen.move_to(datetime(2026, 6, 16, 0, 0, tzinfo=UTC))
        after = setup.report()
    assert len(planned) == 2
    reasons = by_file(after, "stale")["project_freeze.md"]["reasons"]
    (reason,) = reasons
    assert reason.startswith("deadline passed: 'until 2026-06-15' (2026-06-15)"), reasons
    assert ("archive", "project_freeze.md") in {(a["op"], a["file"]) for a in after["actions"]}


def test_a_reused_plan_brings_every_age_up_to_now(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    setup.put("user_yesterday.md", "The user prefers short answers.\n",
              age=timedelta(days=1, hours=23), kind="user")
    setup.put("project_nine.md", "The API gateway listens on port 8443.\n",
              age=timedelta(days=9, hours=22), description=None)
    setup.put("project_today.md", "The build uses Bazel now.\n", age=timedelta(hours=2))
    setup.put("project_done.md", "# Old payments\nStatus: DONE\nMoved to the new ledger.\n",
              age=timedelta(days=4, hours=21))
    before = setup.report()
    memories = by_file(before)
    assert (memories["user_yesterday.md"]["age_days"],
            memories["user_yesterday.md"]["freshness"]) == (1, "yesterday")
    assert memories["user_yesterday.md"]["warnings"] == []
    assert memories["project_nine.md"]["warnings"][0].startswith(AGE_NOTE.format(9))
    assert by_file(before, "stale")["project_done.md"]["age_days"] == 4

    clock.move_to(NOW + timedelta(hours=3))
    after = setup.report()
    assert len(planned) == 1, "same day, nothing changed: reused"
    memories = by_file(after)
    crossed = memories["user_yesterday.md"]
    assert (crossed["age_days"], crossed["freshness"]) == (2, "2 days ago")
    assert len(crossed["warnings"]) == 1
    assert crossed["warnings"][0].startswith(AGE_NOTE.format(2))
    nine = memories["project_nine.md"]
    assert (nine["age_days"], nine["freshness"]) == (10, "10 days ago")
    assert nine["warnings"][0].startswith(AGE_NOTE.format(10))
    assert nine["warnings"][1:] == ["no description in frontmatter"], "one age note, first"
    assert (memories["project_today.md"]["age_days"],
            memories["project_today.md"]["freshness"]) == (0, "today")
    assert by_file(after, "stale")["project_done.md"]["age_days"] == 5
    assert [m["mtime"] for m in after["memories"]] == [m["mtime"] for m in before["memories"]]

    setup.cache.unlink()
    fresh = setup.report()
    assert len(planned) == 2
    assert fresh == after, "a reused plan reads exactly like a fresh one made now"


def test_a_clock_set_back_plans_afresh(setup: Setup, clock: Any, planned: list[Path]) -> None:
    small_root(setup)
    setup.report()
    clock.move_to(NOW - timedelta(hours=1))
    setup.report()
    assert len(planned) == 2, "a plan is not reused before the moment it was made"


def test_a_plan_with_a_hot_memory_expires_when_the_memory_cools_down(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    setup.put("project_hot.md", "A session is writing this right now.\n",
              age=timedelta(minutes=5))
    hot_note = "left alone, changed within 15 min: project_hot.md"
    first = setup.report()
    assert hot_note in first["notes"]
    assert {g["id"]: g["passed"] for g in first["gates"]}["G3"] is False
    cached = plan_cache._read(setup.cache)
    assert cached is not None
    mtime_ns = (setup.root / "project_hot.md").stat().st_mtime_ns
    assert mtime_ns + 15 * 60 * 10**9 <= cached.valid_until_ns <= mtime_ns + 15 * 60 * 10**9 + 1

    clock.move_to(NOW + timedelta(minutes=9, seconds=59))
    assert hot_note in setup.report()["notes"]
    assert len(planned) == 1, "still hot: reused"

    clock.move_to(NOW + timedelta(minutes=10, seconds=1))
    cool = setup.report()
    assert len(planned) == 2
    assert hot_note not in cool["notes"]
    assert {g["id"]: g["passed"] for g in cool["gates"]}["G3"] is True


def test_a_hot_memory_is_cool_exactly_idle_minutes_after_its_mtime(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    setup.put("project_hot.md", "A session is writing this right now.\n",
              age=timedelta(minutes=5))
    hot_note = "left alone, changed within 15 min: project_hot.md"
    assert hot_note in setup.report()["notes"]
    clock.move_to(NOW + timedelta(minutes=10))  # exactly mtime + idle_minutes
    after = setup.report()
    assert {g["id"]: g["passed"] for g in after["gates"]}["G3"] is True, "G3 sees it cool"
    assert hot_note not in after["notes"], "the reused plan still calls it hot"


@pytest.fixture
def local_zone() -> Iterator[Any]:
    """Set the process's local time zone (``TZ``); the old one is put back afterwards."""
    saved = os.environ.get("TZ")

    def use(zone: str) -> None:
        os.environ["TZ"] = zone
        time.tzset()

    yield use
    if saved is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = saved
    time.tzset()


def test_a_plan_made_in_another_time_zone_is_not_reused(
    setup: Setup, planned: list[Path], local_zone: Any,
) -> None:
    # No freezegun here: its datetime.fromtimestamp ignores TZ. Noon UTC five days ago is
    # the next day in Kiritimati (UTC+14), so "yesterday" resolves to another date there.
    noon = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    written = noon - timedelta(days=5)
    path = setup.put("project_standup.md", "The standup moved to 10:00 yesterday.\n")
    set_mtime(path, written)

    def rewrite(root_doc: dict[str, Any]) -> str:
        return str(next(a["reason"] for a in root_doc["actions"] if a["op"] == "rewrite"))

    local_zone("UTC")
    day_before = (written - timedelta(days=1)).date().isoformat()
    assert rewrite(setup.report()) == f"relative date 'yesterday' -> {day_before}"
    local_zone("KIT-14")  # POSIX form: UTC+14, no tzdata needed
    assert rewrite(setup.report()) == f"relative date 'yesterday' -> {written.date()}"


# --------------------------------------------------------------------------- a damaged cache


class _MakesFolder:
    """A pickle that runs code when loaded: it makes a folder."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return os.mkdir, (self.path,)


def _good_then(setup: Setup, damage: Any) -> dict[str, Any]:
    """Report once (a good cache), damage the cache, return the first report."""
    small_root(setup)
    first = setup.report()
    damage(setup.cache)
    return first


def _write(path: Path, data: bytes, mode: int = 0o600) -> None:
    path.write_bytes(data)
    os.chmod(path, mode)


def _cached(path: Path) -> plan_cache.Cached:
    with open(path, "rb") as src:
        cached = pickle.load(src)
    assert isinstance(cached, plan_cache.Cached)
    return cached


DAMAGES: dict[str, Any] = {
    "garbage bytes": lambda p: _write(p, b"this is not a pickle at all\n" * 20),
    "empty": lambda p: _write(p, b""),
    "truncated": lambda p: _write(p, p.read_bytes()[: p.stat().st_size // 2]),
    "last byte cut": lambda p: _write(p, p.read_bytes()[:-1]),
    "a foreign pickle": lambda p: _write(p, pickle.dumps({"format": 1, "key": "x"})),
    "another format": lambda p: _write(p, pickle.dumps(
        dataclasses.replace(_cached(p), format=plan_cache.FORMAT + 1))),
    "another key": lambda p: _write(p, pickle.dumps(
        dataclasses.replace(_cached(p), key="0" * 40))),
    "group-writable": lambda p: os.chmod(p, 0o620),
    "world-writable": lambda p: os.chmod(p, 0o602),
}


@pytest.mark.parametrize("damage", list(DAMAGES), ids=list(DAMAGES))
def test_a_damaged_or_foreign_cache_is_ignored_then_replaced(
    setup: Setup, clock: Any, planned: list[Path], damage: str,
) -> None:
    first = _good_then(setup, DAMAGES[damage])
    second = setup.report()
    assert len(planned) == 2, "the damaged cache was not used"
    assert second == first
    assert setup.cache.stat().st_mode & 0o777 == 0o600
    assert _cached(setup.cache).format == plan_cache.FORMAT
    assert setup.report() == first
    assert len(planned) == 2, "the replacement is a good cache"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="only root can give a file to another user")
def test_a_cache_owned_by_another_user_is_ignored_then_replaced(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    first = _good_then(setup, lambda p: os.chown(p, 65534, 65534))
    assert setup.report() == first
    assert len(planned) == 2
    assert setup.cache.stat().st_uid == os.getuid()
    setup.report()
    assert len(planned) == 2


def test_a_pickle_others_could_have_written_is_never_loaded(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    marker = setup.base / "code-ran"
    evil = pickle.dumps(_MakesFolder(str(marker)))
    first = _good_then(setup, lambda p: _write(p, evil, 0o666))
    assert setup.report() == first
    assert not marker.exists(), "a group- or world-writable cache must not be unpickled"
    assert len(planned) == 2
    # the check is what guards it: the same bytes, private to this user, are loaded
    _write(setup.cache, evil, 0o600)
    assert setup.report() == first
    assert marker.is_dir()
    assert len(planned) == 3, "what it unpickled is no Cached: planned afresh all the same"


def test_a_folder_where_the_cache_goes_is_left_alone(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    first = _good_then(setup, lambda p: (p.unlink(), p.mkdir()))
    assert setup.report() == first
    assert setup.report() == first
    assert len(planned) == 3
    assert setup.cache.is_dir()
    assert sorted(p.name for p in setup.cache.parent.iterdir()) == [PLAN_CACHE], \
        "no temp file left behind"


def _frame_length(length: int) -> Any:
    def damage(path: Path) -> None:
        good = path.read_bytes()
        assert good[2:3] == b"\x95", "protocol 5 starts with a FRAME"
        _write(path, good[:3] + length.to_bytes(8, "little") + good[11:])
    return damage


def _renamed_field(path: Path) -> None:
    good = path.read_bytes()
    assert b"\x8c\x06format" in good
    _write(path, good.replace(b"\x8c\x06format", b"\x8c\x06formaX", 1))


CRASHES = [
    pytest.param(_frame_length(2**63 + 5), id="frame length past sys.maxsize"),
    pytest.param(_frame_length(2**62), id="frame length beyond memory"),
    pytest.param(_renamed_field, id="a field of Cached renamed"),
]


@pytest.mark.parametrize("damage", CRASHES)
def test_a_cache_damaged_anywhere_never_crashes_a_report(
    setup: Setup, clock: Any, planned: list[Path], damage: Any,
) -> None:
    first = _good_then(setup, damage)
    assert setup.report() == first
    assert len(planned) == 2
    assert _cached(setup.cache).format == plan_cache.FORMAT


# --------------------------------------------------------------------------- who may use it


def test_a_real_run_never_reads_or_writes_the_cache(
    setup: Setup, clock: Any, planned: list[Path], capsys: pytest.CaptureFixture[str],
) -> None:
    small_root(setup)
    setup.report()
    cache_before = setup.cache.read_bytes()
    stat_before = setup.cache.stat()
    assert main(["run", "--force", "--json", *setup.args()]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["roots"][0]["status"] == "consolidated"
    assert len(planned) == 2, "a real run plans afresh although the cache is valid"
    assert setup.cache.read_bytes() == cache_before
    assert setup.cache.stat().st_mtime_ns == stat_before.st_mtime_ns
    assert setup.cache.stat().st_ino == stat_before.st_ino, "not replaced by the run"
    assert not (setup.root / "project_migration.md").exists(), "the run archived it"

    after = setup.report()
    assert len(planned) == 3, "the run changed the root: the old plan is not reused"
    assert "project_migration.md" not in by_file(after)

    setup.cache.unlink()
    assert main(["run", "--force", "--json", *setup.args()]) == 0
    capsys.readouterr()
    assert not setup.cache.exists(), "a real run writes no cache"


def test_report_with_the_anthropic_backend_neither_reads_nor_writes_the_cache(
    setup: Setup, clock: Any, planned: list[Path], monkeypatch: pytest.MonkeyPatch,
    messages_api: MessagesAPI,
) -> None:
    shared = ["- The billing service deploys from the main branch only.",
              "- Every deploy needs a green staging run first.",
              "- Rollbacks use the previous container image tag.",
              "- Deploy windows are announced in the ops channel."]
    setup.put("deploy_rules.md", "\n".join([*shared, "- Migrations run first."]) + "\n",
              age=timedelta(days=20))
    setup.put("deploy_notes.md", "\n".join([*shared, "- Flags default to off."]) + "\n",
              age=timedelta(days=5))
    setup.config.write_text(
        '[llm]\nbackend = "anthropic"\nmodel = "claude-haiku-4-5"\ntimeout_seconds = 1\n'
        '[log]\nformat = "json"\n', encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", messages_api.url)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
        monkeypatch.setenv(name.lower(), "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    messages_api.always(decide("keep_both", reason="they say different things"))

    offline = setup.report()  # no --llm: the offline backend, cached
    assert offline["llm"]["backend"] == "offline" and setup.cache.is_file()
    cache_bytes, cache_stat = setup.cache.read_bytes(), setup.cache.stat()

    with_model = setup.report("--llm")
    assert len(planned) == 2, "the offline plan was not reused for the model"
    assert with_model["llm"]["backend"] == "anthropic"
    assert with_model["llm"]["calls"] >= 1 and len(messages_api.messages) >= 1
    assert setup.cache.read_bytes() == cache_bytes
    assert (setup.cache.stat().st_mtime_ns, setup.cache.stat().st_ino) == (
        cache_stat.st_mtime_ns, cache_stat.st_ino), "the model's plan is not kept"

    setup.cache.unlink()
    calls = len(messages_api.messages)
    setup.report("--llm")
    assert len(planned) == 3 and len(messages_api.messages) > calls, "asked again"
    assert not setup.cache.exists()

    setup.report()
    setup.report()
    assert len(planned) == 4, "offline again: planned once, then reused"


def test_the_offline_fallback_note_is_not_doubled_in_a_reused_plan(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    setup.config.write_text('[llm]\nbackend = "anthropic"\n', encoding="utf-8")
    first = setup.report("--llm")  # no ANTHROPIC_API_KEY: decided offline, and cached
    second = setup.report("--llm")
    assert len(planned) == 1
    assert first["notes"].count(NO_KEY_NOTE) == 1
    assert second == first


def _context(tmp_path: Path, **kwargs: Any) -> Any:
    root = tmp_path / "memory"
    if not root.exists():
        root.mkdir()
        (root / "a.md").write_text("---\nname: a\ndescription: d\ntype: user\n---\nbody\n")
        set_mtime(root / "a.md", NOW - timedelta(days=3))
    opts = RunOptions(state_dir=tmp_path / "state", **kwargs)
    return context_for(root, Config(), opts, NOW, "20260615T100000Z-0000")


def test_the_key_is_none_for_a_real_run_or_a_model_backend(tmp_path: Path) -> None:
    model = SimpleNamespace(usage=SimpleNamespace(backend="anthropic"))
    assert plan_cache.key(_context(tmp_path, llm=model)) is None
    assert plan_cache.key(_context(tmp_path, dry_run=False)) is None
    assert plan_cache.key(_context(tmp_path, dry_run=False, llm=Offline())) is None
    offline = plan_cache.key(_context(tmp_path, llm=Offline()))
    assert isinstance(offline, str) and len(offline) == 40
    assert plan_cache.key(_context(tmp_path)) == offline, "no backend is the offline one"
    ctx = _context(tmp_path, llm=model)
    (tmp_path / "state").mkdir()
    assert plan_cache.load(ctx, None) is None
    plan_cache.save(ctx, None, store_scan.scan(ctx.root), Plan(), {})
    assert not ctx.state.exists(), "nothing is saved without a key"


# --------------------------------------------------------------------------- one listing


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots listed (``store.scan.listing`` calls), in order."""
    calls: list[Path] = []
    real = store_scan.listing

    def counting(root: Path) -> Any:
        calls.append(root)
        return real(root)

    monkeypatch.setattr(store_scan, "listing", counting)
    return calls


def test_the_listing_is_made_once_per_context_and_shared_by_gates_and_key(
    tmp_path: Path, listings: list[Path],
) -> None:
    calls = listings
    ctx = _context(tmp_path)
    results, _ok = evaluate(ctx, all_of_them=True)
    assert {r.id: r.passed for r in results}["G3"] is True, "the idle gate looked"
    assert len(calls) == 1
    assert plan_cache.key(ctx) == plan_cache.key(ctx)
    assert ctx.listing() is ctx.listing()
    assert [rel for rel, _problem, _st in ctx.listing()] == ["a.md"]
    assert len(calls) == 1, "gates and key share one listing"
    plan_cache.key(_context(tmp_path))
    assert len(calls) == 2, "a new context lists afresh"


def test_one_report_lists_each_root_once(
    setup: Setup, clock: Any, listings: list[Path],
) -> None:
    calls = listings
    small_root(setup)
    setup.report()
    assert calls == [setup.root]
    setup.report()
    assert calls == [setup.root, setup.root], "a reused plan costs one listing too"


# --------------------------------------------------------------------------- what a plan says


def test_the_reason_a_path_check_was_skipped_is_current(
    setup: Setup, clock: Any, planned: list[Path],
) -> None:
    small_root(setup)
    argv = setup.args(project_flag=False)
    first = setup.report_doc(args=argv)["roots"][0]
    assert any("no transcript names a cwd" in n for n in first["notes"])
    gone = setup.base / "deleted-project"
    path = setup.transcripts / f"{SESSION_IDS[0]}.jsonl"
    path.write_text(json.dumps({"type": "user", "cwd": str(gone)}) + "\n")
    set_mtime(path, NOW - timedelta(hours=2))
    after = setup.report_doc(args=argv)["roots"][0]
    assert any(f"transcript cwd {gone} does not exist" in n for n in after["notes"]), \
        after["notes"]
