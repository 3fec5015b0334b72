"""The plan's typed actions: their JSON round trip, what a damaged one is refused as, the
state a written file will have, the dry executor's picture of the root, and the pure decide.
"""

from __future__ import annotations

import builtins
import dataclasses
import hashlib
import json
import os
import runpy
import socket
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from consolidator.config import Config
from consolidator.decide import Found, decide
from consolidator.execute import Executor, imagine
from consolidator.phases import consolidate, index
from consolidator.phases.context import Work
from consolidator.phases.detect import find
from consolidator.plan import (
    JUDGMENT,
    SAFE,
    Action,
    Archive,
    BadAction,
    Create,
    Merge,
    Rewrite,
    Written,
    action_from_json,
    declined_key,
)
from consolidator.runner import RunOptions, context_for
from consolidator.state import proposal as proposals
from consolidator.state import statedir
from consolidator.store.frontmatter import BOM
from consolidator.store.model import FileStat, Snapshot
from consolidator.store.scan import scan
from tests.conftest import EXAMPLES, snapshot_tree

NS = 1_000_000_000
DAY_NS = 86400 * NS
RUN_ID = "20261130T120000Z-unit"


def stat(rel: str, data: bytes, mtime_ns: int = 1_780_000_000_123_456_789,
         mode: int = 0o100644) -> FileStat:
    return FileStat(rel, len(data), mtime_ns, mode, hashlib.sha256(data).hexdigest())


CJK = "---\nname: 提交信息\ndescription: 中文提交信息 / 日本語 / 한국어\ntype: feedback\n---\n" \
      "明天起 CI 会检查提交信息。昨日のデプロイ。어제 배포.\n"
CRLF = "---\r\nname: crlf\r\ndescription: windows lines\r\ntype: user\r\n---\r\nLine one\r\n" \
       "Line two, no final newline"
WITH_BOM = BOM + "---\nname: bom\ndescription: starts with a BOM\ntype: project\n---\nbody\n" \
    .encode("utf-8")
NOT_UTF8 = b"---\nname: raw\ntype: user\n---\nbytes \xff\xfe\xc3 that are not UTF-8\n"


def every_action() -> list[Action]:
    """One of each action type, with every field set, over awkward content."""
    cjk, crlf = CJK.encode("utf-8"), CRLF.encode("utf-8")
    return [
        Merge(file="keep.md", sources=("keep.md", "gone.md"), kind=SAFE, data=cjk,
              mtime_ns=1_780_000_000_000_000_001, reason="same lines (similarity 1.00)",
              evidence=("a line", "另一行"),
              before=(stat("keep.md", b"old keep"), stat("gone.md", b"old gone", mode=0o100600))),
        Merge(file="m.md", sources=("m.md", "n.md"), kind=JUDGMENT, data=NOT_UTF8,
              mtime_ns=5, reason="merged by the model: 'x'", before=(stat("m.md", b"m"),)),
        Rewrite(file="crlf.md", kind=JUDGMENT, data=crlf, mtime_ns=1_700_000_000_000_000_000,
                reason="relative date 'yesterday' -> 2026-11-28",
                evidence=("written yesterday -> written 2026-11-28",),
                before=(stat("crlf.md", crlf + b"x"),)),
        Rewrite(file="MEMORY.md", kind=SAFE, data=WITH_BOM, mtime_ns=0, reason="index rebuilt",
                before=(stat("MEMORY.md", b"- [a](a.md)\n"),), needs=("topic_x.md", "a.md")),
        Create(file="topic_x.md", kind=SAFE, data=b"", mtime_ns=1, reason="index overflow",
               sources=("a.md", "b.md"), mode=0o100600),
        Create(file="MEMORY.md", kind=SAFE, data=WITH_BOM, mtime_ns=2, reason="index rebuilt"),
        Archive(file="sub/dir/old.md", kind=JUDGMENT, reason="stale: SUPERSEDED",
                evidence=("Status: SUPERSEDED",), before=(stat("sub/dir/old.md", b"old"),)),
        Archive(file="old.md", kind=JUDGMENT, reason="superseded by new.md", successor="new.md",
                needs=("new.md",), before=(stat("old.md", b"o"),)),
    ]


# --------------------------------------------------------------------------- round trip


@pytest.mark.parametrize("action", every_action(), ids=lambda a: f"{a.op}-{a.file}")
def test_every_action_comes_back_from_its_json_unchanged(action: Action) -> None:
    text = json.dumps(action.to_json(), ensure_ascii=True)  # as the proposal stores it
    back = action_from_json(json.loads(text))
    assert type(back) is type(action)
    assert back == action
    if isinstance(action, Written):
        assert isinstance(back, Written) and back.data == action.data  # every byte


def test_the_json_of_an_action_names_its_op_and_kind_and_lists_not_tuples() -> None:
    merge = every_action()[0]
    data = merge.to_json()
    assert data["op"] == "merge" and data["kind"] == "safe"
    assert data["sources"] == ["keep.md", "gone.md"]
    assert data["content"] == CJK
    assert data["before"][1] == {"file": "gone.md", "size": 8, "mtime_ns": merge.before[1].mtime_ns,
                                 "mode": 0o100600, "sha256": merge.before[1].sha256}
    assert "needs" not in data, "empty needs are left out"
    assert every_action()[3].to_json()["needs"] == ["topic_x.md", "a.md"]


@pytest.mark.parametrize("action", every_action(), ids=lambda a: f"{a.op}-{a.file}")
def test_a_report_leaves_out_the_payload(action: Action) -> None:
    data = action.to_json(payload=False)
    assert "content" not in data and "before" not in data
    assert data["op"] == action.op and data["file"] == action.file
    json.dumps(data, ensure_ascii=False)  # plain JSON


def test_a_proposal_file_keeps_every_byte_of_every_action(tmp_path: Path) -> None:
    """Through the proposal's own storage (ASCII JSON in a private file): CJK, CRLF, a BOM
    and bytes that are not UTF-8 all come back."""
    actions = every_action()
    made = proposals.Proposal(RUN_ID, "/abs/memory", "2026-11-30T12:00:00Z",
                              tuple(proposals.Item(n, a) for n, a in enumerate(actions, 1)))
    proposals.save(tmp_path, made)
    assert statedir.proposal(tmp_path).stat().st_mode & 0o777 == 0o600
    loaded = proposals.load(tmp_path)
    assert loaded == made


# --------------------------------------------------------------------------- refused JSON


def _archive(**changes: Any) -> dict[str, Any]:
    data = every_action()[6].to_json()
    data.update(changes)
    return data


def _rewrite(**changes: Any) -> dict[str, Any]:
    data = every_action()[2].to_json()
    data.update(changes)
    return data


def _create(**changes: Any) -> dict[str, Any]:
    data = every_action()[4].to_json()
    data.update(changes)
    return data


def _without(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != key}


def _bad_stat(**changes: Any) -> dict[str, Any]:
    data = _rewrite()
    data["before"] = [{**data["before"][0], **changes}]
    return data


REFUSED: dict[str, Any] = {
    "not a mapping": [1, 2],
    "no op": _without(_archive(), "op"),
    "unknown op": _archive(op="shred"),
    "op not text": _archive(op=["archive"]),
    "no file": _without(_archive(), "file"),
    "no reason": _without(_archive(), "reason"),
    "unknown kind": _archive(kind="maybe"),
    "kind not text": _archive(kind=1),
    "no content": _without(_rewrite(), "content"),
    "content not text": _rewrite(content=[104, 105]),
    "no mtime": _without(_rewrite(), "mtime_ns"),
    "a source not text": _archive(sources=["a.md", 3]),
    "evidence not text": _archive(evidence=[None]),
    "before not a list of states": _rewrite(before="crlf.md"),
    "a state without sha": _bad_stat(sha256=None),
    "a state's size a bool": _bad_stat(size=True),
    "a state's mtime text": _bad_stat(mtime_ns="1"),
    "a state's mode a float": _bad_stat(mode=420.0),
    "a state without file": {**_rewrite(), "before": [{"size": 1, "mtime_ns": 1, "mode": 1,
                                                       "sha256": "x"}]},
}


@pytest.mark.parametrize("data", REFUSED.values(), ids=REFUSED.keys())
def test_malformed_json_is_refused_as_bad_action(data: Any) -> None:
    with pytest.raises(BadAction):
        action_from_json(data)


# Wrong types found by the checks after construction: refused as BadAction all the same.
REFUSED_AS_TYPE_ERROR: dict[str, Any] = {
    "file not text": _archive(file=3),
    "reason not text": _archive(reason=None),
    "successor not text": _archive(successor=7),
    "mtime a bool": _rewrite(mtime_ns=True),
    "mtime a float": _rewrite(mtime_ns=1.5),
    "mode a bool": _create(mode=True),
}


@pytest.mark.parametrize("data", REFUSED_AS_TYPE_ERROR.values(), ids=REFUSED_AS_TYPE_ERROR.keys())
def test_wrong_typed_scalars_are_refused_as_bad_action(data: Any) -> None:
    with pytest.raises(BadAction):
        action_from_json(data)


# Lists that are not lists.
NOT_LISTS: dict[str, Any] = {
    "sources a string": _archive(sources="gone.md"),
    "evidence a string": _archive(evidence="a line"),
    "needs a number": _archive(needs=5),
    "needs a mapping": _archive(needs={"a.md": 1}),
}


@pytest.mark.parametrize("data", NOT_LISTS.values(), ids=NOT_LISTS.keys())
def test_sources_evidence_and_needs_must_be_lists(data: Any) -> None:
    with pytest.raises(BadAction):
        action_from_json(data)


def test_bad_action_is_a_value_error_with_one_line() -> None:
    with pytest.raises(ValueError) as caught:
        action_from_json(_archive(op="shred"))
    assert isinstance(caught.value, BadAction)
    assert "\n" not in str(caught.value)


def test_unknown_keys_are_ignored_and_a_missing_kind_is_refused() -> None:
    """What ``to_json`` writes is read back; extra keys (a proposal's ``number``, ``status``)
    do not matter; an action that does not say its kind is not read as safe."""
    data = _archive(number=3, status="waiting", note="")
    assert action_from_json(data) == every_action()[6]
    with pytest.raises(BadAction):
        action_from_json(_without(_archive(), "kind"))


# --------------------------------------------------------------------------- Written.after


def test_after_of_a_rewrite_is_its_new_bytes_with_the_old_mode() -> None:
    data = CRLF.encode("utf-8")
    action = Rewrite(file="crlf.md", data=data, mtime_ns=123, reason="r",
                     before=(stat("crlf.md", b"older", mode=0o100600),
                             stat("other.md", b"x", mode=0o100777)))
    assert action.after() == FileStat("crlf.md", len(data), 123, 0o100600,
                                      hashlib.sha256(data).hexdigest())


def test_after_of_a_merge_takes_the_survivors_mode_not_a_sources() -> None:
    merge = every_action()[0]
    assert isinstance(merge, Merge)
    after = merge.after()
    assert after.rel == "keep.md" and after.mode == 0o100644
    assert (after.size, after.mtime_ns) == (len(CJK.encode("utf-8")), merge.mtime_ns)
    assert after.sha256 == hashlib.sha256(CJK.encode("utf-8")).hexdigest()


def test_after_of_a_create_takes_its_mode_or_0644() -> None:
    with_mode = Create(file="t.md", data=b"abc", mtime_ns=7, reason="r", mode=0o100600)
    assert with_mode.after() == FileStat("t.md", 3, 7, 0o100600,
                                         hashlib.sha256(b"abc").hexdigest())
    plain = Create(file="t.md", data=b"", mtime_ns=0, reason="r")
    assert plain.after() == FileStat("t.md", 0, 0, 0o644, hashlib.sha256(b"").hexdigest())


def test_after_of_a_rewrite_with_no_recorded_state_defaults_to_0644() -> None:
    action = Rewrite(file="a.md", data=WITH_BOM, mtime_ns=9, reason="r")
    assert action.after().mode == 0o644 and action.after().size == len(WITH_BOM)


# --------------------------------------------------------------------------- the example


def story_copy(tmp_path: Path, now_ns: int) -> Path:
    """A copy of examples/ with the ages of ``examples/set_ages.py``; its memory dir."""
    import shutil

    dest = tmp_path / "examples"
    shutil.copytree(EXAMPLES, dest, symlinks=True, copy_function=shutil.copy2)
    runpy.run_path(str(EXAMPLES / "set_ages.py"),
                   run_name="set_ages")["set_memory_ages"](dest / "memory", now_ns)
    return dest / "memory"


@pytest.fixture
def now() -> datetime:
    return datetime.fromtimestamp(time.time(), UTC)


@pytest.fixture
def root(tmp_path: Path, now: datetime) -> Path:
    return story_copy(tmp_path, int(now.timestamp()) * NS)


def ctx_for(root: Path, tmp_path: Path, now: datetime, *, dry_run: bool) -> Any:
    opts = RunOptions(state_dir=tmp_path / "state", project_root=str(root.parent / "project"),
                      dry_run=dry_run, trigger="run")
    return context_for(root, Config(), opts, now, RUN_ID)


def _memories(snapshot: Snapshot) -> dict[str, Any]:
    return {m.file: (m.stat, m.doc) for m in snapshot.memories}


def _whole(snapshot: Snapshot) -> tuple[Any, ...]:
    return (_memories(snapshot), sorted(snapshot.unparsed, key=lambda u: u.rel),
            snapshot.index, snapshot.names)


def test_the_example_plans_every_kind_of_action(root: Path, tmp_path: Path,
                                                now: datetime) -> None:
    """The fixture the next tests rest on: merges, archives and rewrites, safe and judgment."""
    ctx = ctx_for(root, tmp_path, now, dry_run=True)
    plan = decide(find(scan(root), ctx), ctx.cfg, now)
    assert {(a.op, a.kind) for a in plan.actions} == {
        ("merge", SAFE), ("archive", JUDGMENT), ("rewrite", JUDGMENT)}


def test_a_dry_executor_changes_nothing_and_imagines_what_a_real_one_leaves(
    root: Path, tmp_path: Path, now: datetime
) -> None:
    ctx = ctx_for(root, tmp_path, now, dry_run=True)
    snapshot = scan(root)
    actions = decide(find(snapshot, ctx), ctx.cfg, now).actions
    tree = snapshot_tree(root)

    def no_transaction() -> Any:
        raise AssertionError("a dry run opened a transaction")

    dry = Executor(root, dry_run=True, transaction=no_transaction)
    applied = dry.apply(actions, [True] * len(actions))
    assert applied == [True] * len(actions) and dry.skipped == []
    assert snapshot_tree(root) == tree, "a dry run writes nothing"
    assert not (tmp_path / "state").exists()
    imagined = dry.after(snapshot, actions, applied)
    assert _whole(imagined) == _whole(imagine(snapshot, actions))

    work = Work(ctx_for(root, tmp_path, now, dry_run=False), mode="all")
    try:
        real = work.executor.apply(actions, [True] * len(actions))
    finally:
        if work.session is not None and work.session.tx is not None:
            work.session.tx.close()
    assert real == applied and work.skipped == []
    assert snapshot_tree(root) != tree
    assert _whole(imagined) == _whole(scan(root))


def test_the_dry_phases_imagine_the_root_a_real_run_of_all_actions_leaves(
    root: Path, tmp_path: Path, now: datetime
) -> None:
    """Consolidate and index (links repointed, the index rebuilt) in a dry run, then for
    real on the same root: the imagined snapshot is what a scan then reads."""
    results = []
    for dry_run in (True, False):
        ctx = ctx_for(root, tmp_path, now, dry_run=dry_run)
        work = Work(ctx, mode="all")
        work.snapshot = scan(root)
        work.plan = decide(find(work.snapshot, ctx), ctx.cfg, now)
        tree = snapshot_tree(root)
        try:
            consolidate.run(work)
            index.run(work)
        finally:
            if work.session is not None and work.session.tx is not None:
                work.session.tx.close()
        if dry_run:
            assert snapshot_tree(root) == tree
        results.append((work.plan.actions, work.plan.applied, work.after))
    (dry_actions, dry_applied, imagined), (real_actions, real_applied, _after) = results
    assert [(a.op, a.file) for a in dry_actions] == [(a.op, a.file) for a in real_actions]
    assert dry_applied == real_applied
    assert any(a.file == "MEMORY.md" for a in dry_actions), "the index is rebuilt"
    assert imagined is not None
    assert _whole(imagined) == _whole(scan(root))


# --------------------------------------------------------------------------- decide is pure


def _refuse(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("decide touched the outside world")


@pytest.fixture
def found(root: Path, tmp_path: Path, now: datetime) -> tuple[Found, Config]:
    ctx = ctx_for(root, tmp_path, now, dry_run=True)
    return find(scan(root), ctx), ctx.cfg


def test_decide_touches_no_file_socket_or_process(
    found: tuple[Found, Config], now: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, cfg = found
    expected = decide(result, cfg, now)
    assert expected.actions
    with monkeypatch.context() as m:
        for target, name in ((builtins, "open"), (os, "open"), (os, "stat"), (os, "lstat"),
                             (os, "listdir"), (os, "scandir"), (socket, "socket"),
                             (subprocess, "Popen"), (time, "time"), (time, "time_ns")):
            m.setattr(target, name, _refuse)
        with pytest.raises(AssertionError, match="outside world"):
            os.stat(".")  # the trap is set
        got = decide(result, cfg, now)
        again = decide(result, cfg, now)
    assert got == expected
    assert again == expected, "the same answer every time"


def test_decide_leaves_out_a_declined_judgment_while_its_files_are_unchanged(
    found: tuple[Found, Config], now: datetime
) -> None:
    result, cfg = found
    plan = decide(result, cfg, now)
    judgment = next(a for a in plan.actions if a.kind == JUDGMENT)
    declined = dataclasses.replace(result, declined=frozenset({declined_key(judgment)}))
    without = decide(declined, cfg, now)
    assert [a for a in plan.actions if a != judgment] == list(without.actions)
    assert f"{judgment.op} {judgment.file}: declined before, not proposed while it is " \
           "unchanged" in without.notes

    # The same key with another hash (the file changed since): proposed again.
    op, file, states = declined_key(judgment)
    changed = (op, file, tuple((rel, "0" * 64) for rel, _sha in states))
    again = decide(dataclasses.replace(result, declined=frozenset({changed})), cfg, now)
    assert again.actions == plan.actions


def test_a_declined_safe_action_is_still_planned(
    found: tuple[Found, Config], now: datetime
) -> None:
    """Only judgments are declined; a safe merge is mechanical and lossless."""
    result, cfg = found
    plan = decide(result, cfg, now)
    merge = next(a for a in plan.actions if a.kind == SAFE)
    again = decide(dataclasses.replace(result, declined=frozenset({declined_key(merge)})),
                   cfg, now)
    assert again.actions == plan.actions
