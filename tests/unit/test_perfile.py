"""Per-memory detection work (consolidator.detect.perfile), serial and split over a forked helper.

The split must be invisible: the same findings in the same order, the same project paths looked
up, nothing printed twice, and any trouble with the helper ends in the serial result, never in
an exception. ``SPLIT_AT`` and ``PART`` are made small so that a root of twenty memories splits
(the helper's half then comes back in several parts).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from consolidator.config import Config
from consolidator.detect import perfile
from consolidator.detect.stale import ProjectPaths
from consolidator.phases.detect import plan
from consolidator.runner import RunOptions, context_for
from consolidator.store.model import Memory, Snapshot
from consolidator.store.scan import scan


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


needs_split = pytest.mark.skipif(
    sys.platform != "linux" or _usable_cores() < 2,
    reason="the forked helper is only used on Linux with at least two usable cores",
)

NOW = datetime(2026, 11, 30, 12, 0)
WRITTEN = datetime(2026, 2, 1, 12, 0)  # local time: "yesterday" is 2026-01-31
SERIAL_AT = 10**9  # a SPLIT_AT no root reaches

# Bodies cycled over the memories, so that every kind of finding lands in both halves.
BODIES: list[tuple[str, str]] = [
    ("yesterday", "We agreed on the schema yesterday.\nIt holds.\n"),
    ("tomorrow-zh", "明天 发布新版本。\n记得通知团队。\n"),
    ("deadline", "Release notes.\nMerge freeze until 2026-03-12 for the spring release.\n"),
    ("marker", "The v2 migration plan, step by step.\nStatus: DONE\n"),
    ("missing-path", "Auth lives in `src/legacy/auth.py`; the server is `src/server.ts`.\n"),
    ("secret", "Staging database.\npassword: correct horse battery staple\n"),
    ("aws", "CI uploads with AKIAIOSFODNN7EXAMPLE to the bucket.\n"),
    ("plain", "- Integration tests must hit a real Postgres database.\n- Never mock it.\n"),
    ("no-longer", "We no longer use Redis for sessions; see src/cache/redis.py.\n"),
    ("mixed", "Yesterday the pool in src/db/pool.ts was fixed; 昨天 也修了 src/gone/x.py。\n"),
]
# A last line of its own for each memory, so that memories with one body are not duplicates.
TOPICS = ("apricot", "bison", "cobalt", "dune", "ember", "fjord", "granite", "harbor", "iris",
          "juniper", "kelp", "lantern", "meadow", "nebula", "orchard", "pebble", "quartz",
          "reef", "saffron", "tundra", "umber", "violet")


def _write_memory(root: Path, rel: str, body: str, *, name: str, description: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n{body}",
        encoding="utf-8",
    )
    stamp = WRITTEN.timestamp()
    os.utime(path, (stamp, stamp))


def build_root(tmp_path: Path, count: int = 20) -> tuple[Path, Path]:
    """A memory folder of ``count`` memories (a few in a sub-folder) and a project folder."""
    project = tmp_path / "project"
    (project / "src" / "db").mkdir(parents=True)
    (project / "src" / "server.ts").write_text("// server\n")
    (project / "src" / "db" / "pool.ts").write_text("// pool\n")
    root = tmp_path / "memory"
    root.mkdir()
    for i in range(count):
        kind, body = BODIES[i % len(BODIES)]
        folder = "sub/" if i % 7 == 6 else ""
        description = f"memory {i} ({kind})"
        if i == 11:
            description += "; api_key: sk-proj-abcdefghijklmnopqrstuvwx"  # a secret in the head
        body += f"Filed under {TOPICS[i]} alone.\n"
        _write_memory(root, f"{folder}m{i:02}_{kind}.md", body, name=f"m{i:02}",
                      description=description)
    # A path named by the last memory only: the helper alone looks it up.
    _write_memory(root, "zz_last.md", "Only here: `src/only/last.py`.\n", name="zz-last",
                  description="the last memory")
    return root, project


def memories_of(root: Path) -> tuple[Memory, ...]:
    snapshot = scan(root)
    assert not snapshot.unparsed
    return snapshot.memories


def serial(memories: tuple[Memory, ...], project: Path | None,
           monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, perfile.Findings], ProjectPaths | None]:
    monkeypatch.setattr(perfile, "SPLIT_AT", SERIAL_AT)
    paths = ProjectPaths(project) if project is not None else None
    return perfile.study_all(memories, NOW, paths), paths


@pytest.fixture
def split(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Small SPLIT_AT and PART; returns the lengths ``_in_two`` was called with (a spy)."""
    assert perfile.can_split(), (
        f"this test process cannot split ({threading.active_count()} threads alive)"
    )
    calls: list[int] = []
    real = perfile._in_two

    def spy(memories: Any, now: datetime, project: ProjectPaths | None, check: Any) -> Any:
        calls.append(len(memories))
        return real(memories, now, project, check)

    monkeypatch.setattr(perfile, "SPLIT_AT", 4)
    monkeypatch.setattr(perfile, "PART", 3)
    monkeypatch.setattr(perfile, "_in_two", spy)
    return calls


# Module-level helpers, so that the worker can unpickle them by name (it sees this module as it
# was when it was forked, monkeypatched attributes included).
_REAL_STUDY_PART = perfile._study_part
_PART_LOG: Path | None = None


def _recording_study_part(start: int, stop: int) -> Any:
    assert _PART_LOG is not None
    with open(_PART_LOG, "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {start} {stop}\n")
    return _REAL_STUDY_PART(start, stop)


def _die_in_helper(start: int, stop: int) -> Any:
    os._exit(3)


def _fail_in_helper(start: int, stop: int) -> Any:
    raise OSError("the helper could not go on")


# --- the split gives what the serial study gives -----------------------------------------------


def test_the_serial_study_finds_every_kind_of_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sanity check of the fixture: the comparisons below compare real findings."""
    root, project = build_root(tmp_path)
    found, paths = serial(memories_of(root), project, monkeypatch)
    assert found["m00_yesterday.md"].relative[0].resolved == "2026-01-31"
    assert found["m01_tomorrow-zh.md"].relative[0].phrase == "明天"
    assert found["m01_tomorrow-zh.md"].relative[0].resolved == "2026-02-02"
    deadline = found["m02_deadline.md"].stale
    assert deadline is not None and deadline.kinds == ("deadline",) and deadline.archivable
    marker = found["m03_marker.md"].stale
    assert marker is not None and marker.kinds == ("marker",)
    missing = found["m04_missing-path.md"].stale
    assert missing is not None
    assert missing.reasons == ("references missing path src/legacy/auth.py",)
    assert found["m05_secret.md"].secrets == ("password",)
    assert found["sub/m06_aws.md"].secrets == found["m16_aws.md"].secrets == ("AWS access key",)
    assert "OpenAI key" in found["m11_tomorrow-zh.md"].secrets
    assert found["m07_plain.md"].stale is None and found["m07_plain.md"].relative == ()
    assert len(found["m07_plain.md"].lines) == 3
    assert paths is not None
    assert paths.looked_up["src/only/last.py"] is True
    assert paths.looked_up["src/server.ts"] is False


@needs_split
def test_a_split_study_gives_the_serial_findings_in_the_same_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: list[int]
) -> None:
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    with monkeypatch.context() as m:
        expected, _ = serial(memories, project, m)
    assert perfile.SPLIT_AT == 4
    got = perfile.study_all(memories, NOW, ProjectPaths(project))
    assert split == [len(memories)], "the work was split"
    assert list(got) == [m.file for m in memories]
    assert list(got.items()) == list(expected.items())


@needs_split
def test_a_split_study_without_a_project_gives_the_serial_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: list[int]
) -> None:
    root, _project = build_root(tmp_path)
    memories = memories_of(root)
    with monkeypatch.context() as m:
        expected, _ = serial(memories, None, m)
    got = perfile.study_all(memories, NOW, None)
    assert split == [len(memories)]
    assert list(got.items()) == list(expected.items())
    assert all(f.stale is None or "path" not in f.stale.kinds for f in got.values())


@needs_split
def test_the_helper_studies_the_second_half_in_parts_of_PART_memories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: list[int]
) -> None:
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    assert len(memories) == 21
    log = tmp_path / "parts.log"
    monkeypatch.setattr(sys.modules[__name__], "_PART_LOG", log)
    monkeypatch.setattr(perfile, "_study_part", _recording_study_part)
    perfile.study_all(memories, NOW, ProjectPaths(project))
    rows = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(int(start), int(stop)) for _pid, start, stop in rows] == [
        (10, 13), (13, 16), (16, 19), (19, 21)
    ]
    pids = {int(pid) for pid, _start, _stop in rows}
    assert len(pids) == 1 and os.getpid() not in pids, "one helper process did the second half"


@needs_split
def test_after_a_split_the_caller_holds_every_path_either_half_looked_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: list[int]
) -> None:
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    with monkeypatch.context() as m:
        _, serial_paths = serial(memories, project, m)
    assert serial_paths is not None
    paths = ProjectPaths(project)
    perfile.study_all(memories, NOW, paths)
    assert split == [len(memories)]
    assert paths.looked_up == serial_paths.looked_up
    assert list(paths.looked_up.items()) == list(serial_paths.looked_up.items())
    assert paths.looked_up["src/only/last.py"] is True  # looked up by the helper alone
    assert paths.looked_up["src/legacy/auth.py"] is True  # by both halves
    assert paths.looked_up["src/db/pool.ts"] is False


@needs_split
def test_a_split_keeps_the_callers_earlier_lookups(
    tmp_path: Path, split: list[int]
) -> None:
    root, project = build_root(tmp_path)
    paths = ProjectPaths(project)
    paths.looked_up["src/earlier/lookup.py"] = True
    perfile.study_all(memories_of(root), NOW, paths)
    assert split
    assert paths.looked_up["src/earlier/lookup.py"] is True
    assert "src/only/last.py" in paths.looked_up


@needs_split
def test_a_split_leaves_no_thread_behind_so_the_next_study_splits_too(
    tmp_path: Path, split: list[int]
) -> None:
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    first = perfile.study_all(memories, NOW, ProjectPaths(project))
    assert threading.active_count() == 1
    assert perfile.can_split()
    second = perfile.study_all(memories, NOW, ProjectPaths(project))
    assert split == [len(memories), len(memories)]
    assert first == second
    assert perfile._SHARED is None, "the shared memories are let go after the split"


class _Stop(BaseException):
    """Stands for stop.Stopped: a BaseException, which no fallback may swallow."""


def _stop_after(calls: int) -> Any:
    seen: list[int] = []

    def check() -> None:
        seen.append(1)
        if len(seen) > calls:
            raise _Stop

    return check


def test_a_stop_requested_during_a_serial_study_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, project = build_root(tmp_path)
    monkeypatch.setattr(perfile, "SPLIT_AT", SERIAL_AT)
    monkeypatch.setattr(perfile, "CHECK_EVERY", 2)
    with pytest.raises(_Stop):
        perfile.study_all(memories_of(root), NOW, ProjectPaths(project), _stop_after(3))


@needs_split
def test_a_stop_requested_during_a_split_study_ends_it_and_lets_the_helper_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: list[int]
) -> None:
    root, project = build_root(tmp_path)
    monkeypatch.setattr(perfile, "CHECK_EVERY", 2)
    with pytest.raises(_Stop):
        perfile.study_all(memories_of(root), NOW, ProjectPaths(project), _stop_after(2))
    assert split, "the study was split"
    assert threading.active_count() == 1, "the helper's pool was shut down"
    assert perfile._SHARED is None
    assert not multiprocessing.active_children()


# --- when not to split --------------------------------------------------------------------------


def _in_two_must_not_run(*_args: Any) -> Any:
    raise AssertionError("the work was split")


@contextmanager
def another_thread_alive() -> Iterator[None]:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def test_can_split_is_false_while_another_thread_is_alive() -> None:
    with another_thread_alive():
        assert perfile.can_split() is False
    if sys.platform == "linux" and _usable_cores() >= 2:
        assert perfile.can_split() is True, "once the thread is gone a split is safe again"


def test_can_split_is_false_with_one_usable_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    assert perfile.can_split() is False
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 3}, raising=False)
    assert perfile.can_split() is True


def test_can_split_counts_cpus_when_the_affinity_is_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert perfile.can_split() is False
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert perfile.can_split() is False
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert perfile.can_split() is True


def test_can_split_is_false_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert perfile.can_split() is False


def serial_answer_and_no_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split_at: int | None = 4,
) -> tuple[tuple[Memory, ...], Path, dict[str, perfile.Findings], ProjectPaths | None]:
    """The memories, their project, the serial findings and lookups; then SPLIT_AT is set to
    ``split_at`` (``None``: one more than there are memories) and a split would fail the
    test."""
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    with monkeypatch.context() as m:
        expected, serial_paths = serial(memories, project, m)
    monkeypatch.setattr(perfile, "SPLIT_AT", len(memories) + 1 if split_at is None else split_at)
    monkeypatch.setattr(perfile, "_in_two", _in_two_must_not_run)
    return memories, project, expected, serial_paths


def test_with_another_thread_alive_the_study_is_serial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memories, project, expected, serial_paths = serial_answer_and_no_split(tmp_path, monkeypatch)
    paths = ProjectPaths(project)
    with another_thread_alive():
        got = perfile.study_all(memories, NOW, paths)
    assert list(got.items()) == list(expected.items())
    assert serial_paths is not None and paths.looked_up == serial_paths.looked_up


def test_with_one_usable_core_the_study_is_serial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memories, project, expected, _ = serial_answer_and_no_split(tmp_path, monkeypatch)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    got = perfile.study_all(memories, NOW, ProjectPaths(project))
    assert list(got.items()) == list(expected.items())


def test_below_SPLIT_AT_the_study_is_serial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memories, project, expected, _ = serial_answer_and_no_split(
        tmp_path, monkeypatch, split_at=None)
    assert list(perfile.study_all(memories, NOW, ProjectPaths(project)).items()) == list(
        expected.items()
    )


def test_an_empty_root_has_no_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(perfile, "SPLIT_AT", 0)
    assert perfile.study_all((), NOW, None) == {}


# --- trouble with the helper ---------------------------------------------------------------------


@needs_split
@pytest.mark.parametrize("helper", [_die_in_helper, _fail_in_helper], ids=["exits", "oserror"])
def test_when_the_helper_fails_the_work_is_all_done_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: list[int], helper: Any
) -> None:
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    with monkeypatch.context() as m:
        expected, serial_paths = serial(memories, project, m)
    monkeypatch.setattr(perfile, "_study_part", helper)
    paths = ProjectPaths(project)
    got = perfile.study_all(memories, NOW, paths)
    assert split == [len(memories)], "a split was tried"
    assert list(got.items()) == list(expected.items())
    assert serial_paths is not None and paths.looked_up == serial_paths.looked_up
    assert perfile._SHARED is None
    assert threading.active_count() == 1


# --- nothing is printed twice ----------------------------------------------------------------


@needs_split
def test_text_buffered_on_stdout_and_stderr_before_a_split_is_written_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
    split: list[int],
) -> None:
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    # capfd's own sys.stdout writes through at once: put block-buffered streams on the
    # captured descriptors instead, as a real run's stdout to a pipe or a file is.
    out = open(os.dup(1), "w", encoding="utf-8")  # noqa: SIM115 - closed below
    err = open(os.dup(2), "w", encoding="utf-8")  # noqa: SIM115 - closed below
    try:
        assert not out.line_buffering and not err.line_buffering
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        out.write("pending-stdout-marker")
        err.write("pending-stderr-marker")
        perfile.study_all(memories, NOW, ProjectPaths(project))
        out.write("|after")
        err.write("|after")
    finally:
        out.close()
        err.close()
    assert split == [len(memories)]
    captured = capfd.readouterr()
    assert captured.out.count("pending-stdout-marker") == 1
    assert captured.out.endswith("pending-stdout-marker|after")
    assert captured.err.count("pending-stderr-marker") == 1
    assert captured.err.endswith("pending-stderr-marker|after")


@needs_split
def test_a_split_with_no_stdout_still_studies_every_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: list[int]
) -> None:
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    with monkeypatch.context() as m:
        expected, _ = serial(memories, project, m)
    monkeypatch.setattr(sys, "stdout", None)  # what Python sets when fd 1 is closed at start
    got = perfile.study_all(memories, NOW, ProjectPaths(project))
    assert list(got.items()) == list(expected.items())


# --- the whole plan ---------------------------------------------------------------------------


def plan_root(tmp_path: Path) -> tuple[Path, Path]:
    """``build_root`` plus duplicates, a conflict, links and an index, for the detect phase."""
    root, project = build_root(tmp_path)
    _write_memory(root, "dup_a.md", "- Run the migrations before the test suite starts.\n"
                  "- Lint first.\n", name="dup-a", description="migrations")
    _write_memory(root, "dup_b.md", "- run the migrations, before the test suite starts\n"
                  "- lint first\n", name="dup-b", description="migrations again")
    _write_memory(root, "conf_a.md", "The staging API timeout is 30 seconds.\nKeep it.\n",
                  name="conf-a", description="timeouts")
    _write_memory(root, "conf_b.md", "The staging API timeout is 45 seconds.\nKeep it.\n",
                  name="conf-b", description="timeouts")
    _write_memory(root, "links.md", "See [the dup](dup_a.md) and [[dup-b]]; written yesterday.\n",
                  name="links", description="links to others")
    (root / "MEMORY.md").write_text(
        "- [dup a](dup_a.md) - migrations\n- [links](links.md) - links\n", encoding="utf-8"
    )
    return root, project


def _plan(root: Path, project: Path, tmp_path: Path) -> tuple[Any, dict[str, bool], Snapshot]:
    opts = RunOptions(state_dir=tmp_path / "state", project_root=str(project))
    ctx = context_for(root, Config(), opts, NOW, "20261130T120000Z-test")
    snapshot = scan(root)
    paths = ProjectPaths(project)
    return plan(snapshot, ctx, paths), paths.looked_up, snapshot


@needs_split
def test_the_plan_is_the_same_with_and_without_the_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: list[int]
) -> None:
    root, project = plan_root(tmp_path)
    with monkeypatch.context() as m:
        m.setattr(perfile, "SPLIT_AT", SERIAL_AT)
        expected, expected_paths, snapshot = _plan(root, project, tmp_path)
    assert split == []
    got, got_paths, _ = _plan(root, project, tmp_path)
    assert split == [len(snapshot.memories)], "the plan's study was split"
    assert got == expected
    assert got_paths == expected_paths
    # The plan is not trivially equal: it holds what the per-memory study found.
    assert expected.duplicates and expected.conflicts and expected.stale
    assert any(a.op == "archive" for a in expected.actions)
    assert any(a.op == "rewrite" and "relative date" in a.reason for a in expected.actions)
    assert any("secret" in w for info in expected.memories for w in info.warnings)


# --- two detectors side by side --------------------------------------------------------------


def _helper_pid() -> int:
    return os.getpid()


def _fails_in_the_helper() -> str:
    if os.getpid() != _PARENT_PID:
        raise RuntimeError("the helper fails")
    return "done here"


_PARENT_PID = os.getpid()


def test_both_runs_the_first_task_in_a_forked_helper_on_a_large_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not perfile.can_split():
        pytest.skip("needs two usable cores and a single thread")
    helper, here = perfile.both(_helper_pid, os.getpid, perfile.SPLIT_AT)
    assert here == os.getpid()
    assert helper != os.getpid(), "the first task ran in another process"


def test_both_runs_everything_here_on_a_small_root() -> None:
    assert perfile.both(_helper_pid, os.getpid, perfile.SPLIT_AT - 1) == (os.getpid(),
                                                                          os.getpid())


def test_both_redoes_the_first_task_here_when_the_helper_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not perfile.can_split():
        pytest.skip("needs two usable cores and a single thread")
    monkeypatch.setattr(sys.modules[__name__], "_PARENT_PID", os.getpid())
    assert perfile.both(_fails_in_the_helper, lambda: 2, perfile.SPLIT_AT) == ("done here", 2)
