"""Undo and crash recovery under attack: a live session writing during the undo, missing and
forged backups, hand-edited and torn journals, run ids that look like patterns, names taken by
folders and links, and names at the file system's limit.

Runs are made through the store's own Transaction (the writer a real run uses), so a run of
hundreds of changes takes a second; undo and recovery go through the command line.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main
from consolidator.state.statedir import JOURNAL, root_key
from consolidator.state.statedir import archived as archive_path
from consolidator.state.statedir import backup as backup_path
from consolidator.store import undo as undo_module
from consolidator.store.journal import is_closed, load
from consolidator.store.recheck import current_stat
from consolidator.store.recover import clear_files, temp_prefix
from consolidator.store.transaction import Transaction
from tests.conftest import snapshot_tree

DAY = 86400
LOCKS = (".consolidate-lock", ".consolidate.flock")
RUN_ID = "20260101T000000Z-beef"
Tree = dict[str, tuple[bytes, int, int]]


def _memory(i: int, extra: str = "") -> str:
    return (f"---\nname: note_{i}\ndescription: Note number {i}\ntype: project\n---\n"
            f"The build cache for job {i} lives in /var/cache/ci/{i}.\n{extra}")


class Run:
    """A root, its state dir, and one journaled run over it: ``writes`` memories rewritten
    (a line added), ``archives`` moved into the archive, ``creates`` topic files created, in
    that order. ``close``: how the journal ends (None: the run was killed)."""

    def __init__(self, base: Path, writes: int = 3, archives: int = 2, creates: int = 2,
                 close: str | None = "ok", names: list[str] | None = None) -> None:
        self.base = base
        self.root = base / "memory"
        self.state = base / "state"
        self.project = base / "project"
        self.root.mkdir(parents=True)
        self.project.mkdir()
        old = time.time() - 10 * DAY
        count = writes + archives
        self.names = names or [f"project_note_{i:05d}.md" for i in range(count)]
        for i, name in enumerate(self.names):
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_memory(i), encoding="utf-8")
            os.utime(path, (old, old))
        self.before = self.tree()
        self.run_dir = self.state / root_key(self.root) / "runs" / RUN_ID
        tx = Transaction(self.root, self.run_dir, {
            "run_id": RUN_ID, "memory_dir": str(self.root), "started_at": "2026-01-01T00:00:00",
            "started_ns": time.time_ns(), "lock_before_ns": None})
        self.written = self.names[:writes]
        self.archived = self.names[writes:count]
        self.created = [f"index_topic_{i:05d}.md" for i in range(creates)]
        for name in self.written:
            stat = current_stat(self.root / name, name)
            assert stat is not None
            tx.rewrite(stat, (self.root / name).read_bytes() + b"A line the run added.\n",
                       stat.mtime_ns, "test")
        for name in self.archived:
            stat = current_stat(self.root / name, name)
            assert stat is not None
            tx.archive(stat, "test")
        for name in self.created:
            tx.create(name, f"- topic {name}\n".encode(), int(old * 1e9), "test")
        if close is not None:
            tx.journal.close(close)
        self.after = self.tree()

    def tree(self) -> Tree:
        return {k: v for k, v in snapshot_tree(self.root).items() if k not in LOCKS}

    def undo(self, capsys: pytest.CaptureFixture[str], *extra: str,
             run_id: str = RUN_ID) -> tuple[int, str, str]:
        code = main(["undo", run_id, "--state-dir", str(self.state), *extra])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    def run(self, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
        """A real ``run --force``: recovery first, then the phases."""
        code = main(["run", "--force", "--json", "--memory-dir", str(self.root),
                     "--state-dir", str(self.state), "--project-root", str(self.project)])
        captured = capsys.readouterr()
        return code, json.loads(captured.out)["roots"][0], captured.err

    @property
    def journal(self) -> Path:
        return self.run_dir / JOURNAL

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.journal.read_text("utf-8").splitlines()]

    def write_lines(self, records: list[Any]) -> None:
        self.journal.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")


def _one_line(err: str) -> str:
    """The one line a command printed on stderr (a run's JSON log lines aside)."""
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if not line.startswith("{")]
    assert len(lines) == 1, err
    return lines[0]


# --------------------------------------------------------------------- 1. live writes

APPENDER = r"""
import os, sys, time
targets = open(sys.argv[1], encoding="utf-8").read().splitlines()
stop, wait_for = sys.argv[2], sys.argv[3]

def seen(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns

first = seen(wait_for) if wait_for != "-" else None
print("ready", flush=True)
while wait_for != "-" and seen(wait_for) == first and not os.path.exists(stop):
    time.sleep(0.0005)
n = 0
while not os.path.exists(stop):
    with open(targets[n % len(targets)], "a", encoding="utf-8") as fh:
        fh.write(f"live line {n}\n")
    n += 1
    time.sleep(0.002)
print(n, flush=True)
"""


def _all_lines(*folders: Path) -> set[str]:
    out: set[str] = set()
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                out |= set(path.read_text("utf-8", "replace").splitlines())
    return out


def _undo_with_appender(run: Run, capsys: pytest.CaptureFixture[str], targets: list[str],
                        wait_for: str | None, *extra: str) -> tuple[int, str, str, int]:
    """Undo while another process appends a numbered line every 2 ms to ``targets`` in turn
    (from the start, or once ``wait_for`` changes: the undo's first step). Returns the undo's
    exit code, stdout, stderr, and how many lines the appender wrote."""
    listing = run.base / "targets.txt"
    listing.write_text("\n".join(str(run.root / t) for t in targets), encoding="utf-8")
    stop = run.base / "stop"
    child = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(listing), str(stop),
         str(run.root / wait_for) if wait_for else "-"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        code, out, err = run.undo(capsys, *extra)
        time.sleep(0.05)  # a few more lines after the undo, over what it left
    finally:
        stop.touch()
        written = int(child.communicate(timeout=30)[0].strip() or 0)
    return code, out, err, written


def _lost(run: Run, written: int) -> list[str]:
    have = _all_lines(run.root, run.state)
    return [f"live line {n}" for n in range(written) if f"live line {n}" not in have]


def _live_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str,
                 writes: int, archives: int, creates: int) -> None:
    run = Run(tmp_path, writes=writes, archives=archives, creates=creates)
    # The undo goes newest step first: its first step moves the last created file away;
    # the targets are among the run's first steps, which it reaches last. A forced undo
    # also meets files the session creates where archived memories go back.
    force = ("--force",) if mode.startswith("force") else ()
    targets = run.written[:8] + (run.archived[:2] if force else [])
    wait_for = run.created[-1] if mode.endswith("during") else None

    code, out, err, written = _undo_with_appender(run, capsys, targets, wait_for, *force)

    print(f"\n{mode}: {writes + archives + creates} changes, undo exit {code}, "
          f"{written} lines appended, {len(_lost(run, written))} lost")
    assert written > 0
    assert _lost(run, written) == []
    now = run.tree()
    others = sorted(set(now) | set(run.before) | set(run.after) - set(targets))
    if force:
        assert code == 0, err
        assert {k: now.get(k) for k in others if k not in targets} == \
            {k: run.before.get(k) for k in others if k not in targets}
        for name in targets:  # the old bytes came back; the session's later lines follow
            old = run.before[name][0]
            assert now[name][0].startswith(old), name
        assert "displaced" in out and "kept in" in out
        assert load(run.run_dir).undone
    else:
        # A file written meanwhile is never overwritten: the undo refuses (at the start, or
        # half-way, when everything it did is put back) and the root is as it was.
        assert code == 1, out
        line = _one_line(err)
        assert "not undone" in line and "--force" in line
        assert {k: now.get(k) for k in others if k not in targets} == \
            {k: run.after.get(k) for k in others if k not in targets}
        for name in targets:
            if name in run.after:
                assert now[name][0].startswith(run.after[name][0]), name
        assert not load(run.run_dir).undone


@pytest.mark.parametrize("mode", ["refuse-before", "refuse-during", "force-before",
                                  "force-during"])
def test_lines_a_live_session_appends_during_an_undo_are_never_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    _live_writes(tmp_path, capsys, mode, writes=70, archives=25, creates=25)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["refuse-during", "force-during"])
def test_lines_a_live_session_appends_during_the_undo_of_a_1501_change_run_are_never_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    _live_writes(tmp_path, capsys, mode, writes=901, archives=300, creates=300)


@pytest.mark.parametrize("which", [RUN_ID, "latest"])
def test_undo_waits_for_no_one_it_refuses_while_another_process_holds_the_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str
) -> None:
    run = Run(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, filelock; lock = filelock.FileLock(sys.argv[1]); "
         "lock.acquire(); print('held', flush=True); sys.stdin.read()",
         str(run.state / root_key(run.root) / "root.flock")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        code, out, err = run.undo(capsys, run_id=which)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    assert code == 75, out + err
    assert out == "", "nothing said to be undone"
    assert "lock" in _one_line(err) and f"run {RUN_ID} not undone" in _one_line(err)
    assert run.tree() == run.after
    assert not load(run.run_dir).undone


def test_undo_refuses_while_claude_codes_lock_is_held_by_a_live_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = Run(tmp_path)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (run.root / ".consolidate-lock").write_text(str(sleeper.pid))
        code, _out, err = run.undo(capsys)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert code == 75
    assert f"PID {sleeper.pid}" in _one_line(err)
    assert run.tree() == run.after


# --------------------------------------------------------------------- 2. all or nothing


@pytest.mark.parametrize("force", [False, True])
def test_a_missing_backup_stops_the_undo_before_anything_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], force: bool
) -> None:
    run = Run(tmp_path)
    # The first step's backup: the undo reaches it last, after every other file.
    backup_path(run.run_dir, 1, run.written[0]).unlink()
    (run.state / root_key(run.root) / "root.flock").touch()  # the lock file an undo takes
    state_before = snapshot_tree(run.state)

    code, out, err = run.undo(capsys, *(["--force"] if force else []))

    assert code == 1, out
    line = _one_line(err)
    assert f"backup of {run.written[0]} (step 1) is missing" in line
    assert run.tree() == run.after
    assert snapshot_tree(run.state) == state_before
    assert not load(run.run_dir).undone


def _fail_on_call(monkeypatch: pytest.MonkeyPatch, name: str, call: int) -> None:
    """The ``call``-th use of ``name`` by undo fails as a full disk would; the others work."""
    real = getattr(undo_module, name)
    calls = [0]

    def failing(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == call:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(undo_module, name, failing)


@pytest.mark.parametrize("name, call", [("atomic_write", 3), ("take_out", 2),
                                        ("place_back", 1), ("place_back", 3)])
def test_a_step_failing_half_way_puts_back_every_step_the_undo_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    name: str, call: int
) -> None:
    run = Run(tmp_path, writes=4, archives=3, creates=3)
    _fail_on_call(monkeypatch, name, call)

    code, out, err = run.undo(capsys)

    assert code == 1, out
    line = _one_line(err)
    assert "No space left on device" in line and "put back" in line
    assert run.tree() == run.after, "bytes and mtimes as before the undo"
    assert not load(run.run_dir).undone
    assert not [p for p in (run.run_dir / "undone").rglob("*") if p.is_file()]

    monkeypatch.undo()
    code, _out, err = run.undo(capsys)
    assert code == 0, err
    assert run.tree() == run.before


# --------------------------------------------------------------------- 3. trusting backups


def _truncate_backup(run: Run) -> str:
    path = backup_path(run.run_dir, 1, run.written[0])
    path.write_bytes(path.read_bytes()[:20])
    return "backup of project_note_00000.md (step 1) does not match"


def _foreign_backup(run: Run) -> str:
    path = backup_path(run.run_dir, 2, run.written[1])
    data = path.read_bytes()
    path.write_bytes(data.replace(b"Note number", b"Evil number"))
    return "backup of project_note_00001.md (step 2) does not match"


def _backup_is_a_link(run: Run) -> str:
    outside = run.base / "outside.md"
    path = backup_path(run.run_dir, 1, run.written[0])
    outside.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(outside)
    return "backup of project_note_00000.md (step 1) lies outside the run's folder"


def _backup_folder_is_a_link(run: Run) -> str:
    # Identical bytes, but kept outside the run's folder: not the run's own copy.
    outside = run.base / "elsewhere"
    (run.run_dir / "backup").rename(outside)
    (run.run_dir / "backup").symlink_to(outside)
    return "lies outside the run's folder"


def _archived_copy_truncated(run: Run) -> str:
    path = archive_path(run.run_dir, run.archived[0])
    path.write_bytes(path.read_bytes()[:10])
    return f"archived copy of {run.archived[0]} (step 4) does not match"


def _step_climbs_out(run: Run) -> str:
    outside = run.base / "outside"
    outside.mkdir()
    (outside / run.written[0]).write_text("foreign bytes\n")
    records = run.lines()
    for record in records:
        if record.get("step") == 1:
            record["step"] = "../../../../../outside"
    run.write_lines(records)
    return "line 2: 'step' is not a positive whole number"


def _file_climbs_out(run: Run) -> str:
    records = run.lines()
    for record in records:
        if record.get("step") == 1:
            record["file"] = "../../../../outside.md"
    run.write_lines(records)
    return "line 2: 'file' is not a relative path inside the memory dir"


ATTACKS = {
    "truncated backup": _truncate_backup,
    "foreign backup": _foreign_backup,
    "backup is a symlink": _backup_is_a_link,
    "backup folder outside the run": _backup_folder_is_a_link,
    "truncated archived copy": _archived_copy_truncated,
    "step ../../outside": _step_climbs_out,
    "file ../outside": _file_climbs_out,
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_recovery_refuses_a_run_whose_backups_or_journal_paths_cannot_be_trusted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], attack: str
) -> None:
    run = Run(tmp_path, close=None)  # killed: the next run rolls it back
    why = ATTACKS[attack](run)

    code, report, err = run.run(capsys)

    assert code == 1
    assert report["status"] == "failed"
    assert why in report["error"] and "\n" not in report["error"]
    assert why in _one_line(err)
    assert run.tree() == run.after, "nothing written into the memory dir"
    assert not is_closed(run.run_dir), "not marked rolled back"


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_undo_refuses_a_run_whose_backups_or_journal_paths_cannot_be_trusted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], attack: str
) -> None:
    run = Run(tmp_path)
    why = ATTACKS[attack](run)
    for extra in ([], ["--force"]):
        code, out, err = run.undo(capsys, *extra)
        assert code == 1, out
        assert why in _one_line(err)
        assert run.tree() == run.after


def test_a_backup_that_was_never_needed_does_not_block_recovery(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A session wrote the file between the run's check and its backup: the run's write then
    found the file changed and never happened (no done record). Its odd backup is unused."""
    run = Run(tmp_path, writes=2, archives=0, creates=0, close=None)
    records = [r for r in run.lines() if not (r.get("phase") == "done" and r["step"] == 2)]
    run.write_lines(records)
    name = run.written[1]
    live = _memory(1, "A line a live session wrote.\n").encode()
    (run.root / name).write_bytes(live)
    backup_path(run.run_dir, 2, name).write_bytes(live)

    code, report, err = run.run(capsys)

    assert code == 0, err
    assert any(n.startswith(f"interrupted run {RUN_ID} rolled back") for n in report["notes"])
    assert (run.root / name).read_bytes() == live
    assert (run.root / run.written[0]).read_bytes() == run.before[run.written[0]][0]


# --------------------------------------------------------------------- 4. torn and odd journals


def test_a_torn_last_line_is_a_step_that_never_happened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = Run(tmp_path, close=None)
    record = json.dumps({"step": 99, "phase": "intent", "op": "write", "file": "日本語.md",
                         "before": None, "reason": "メモ"}, ensure_ascii=False).encode()
    cut = record.index("日".encode()) + 1  # in the middle of a three-byte character
    with open(run.journal, "ab") as fh:
        fh.write(record[:cut])

    assert main(["report", "--memory-dir", str(run.root), "--state-dir", str(run.state)]) == 0
    assert "interrupted run" in capsys.readouterr().out

    code, report, err = run.run(capsys)

    assert code == 0, err
    assert any(n.startswith(f"interrupted run {RUN_ID} rolled back: 7 file(s) restored")
               for n in report["notes"]), report["notes"]
    assert is_closed(run.run_dir)
    journal = load(run.run_dir)  # the torn line, now ended, is still read as nothing
    assert journal.closed == "rolled back" and len(journal.intents) == 7
    assert main(["history", "--state-dir", str(run.state)]) == 0
    capsys.readouterr()


def test_a_close_mark_appended_to_a_torn_line_by_an_older_version_is_read(
    tmp_path: Path
) -> None:
    run = Run(tmp_path, close=None)
    with open(run.journal, "ab") as fh:
        fh.write(b'{"step": 9, "phase": "inte' + b'{"closed": "rolled back"}\n')
    assert is_closed(run.run_dir)
    assert load(run.run_dir).closed == "rolled back"


ODD: dict[str, str | None] = {
    "not an object": "[1, 2, 3]",
    "a string": '"hello"',
    "step as text": None,
    "missing key": None,
    "before not an object": None,
    "unknown record": '{"something": "else"}',
    "torn line in the middle": '{"step": 2, "phase": "int',
    "bad sha": None,
}


def _damage(run: Run, kind: str) -> int:
    """Spoil step 2's intent line the ``kind`` way; return the line's number."""
    text = ODD[kind]
    lines = run.journal.read_text("utf-8").splitlines()
    number = 1 + next(i for i, line in enumerate(lines)
                      if json.loads(line).get("step") == 2)
    record = json.loads(lines[number - 1])
    assert record["phase"] == "intent"
    if text is None:
        if kind == "step as text":
            record["step"] = "2"
        elif kind == "missing key":
            del record["op"]
        elif kind == "before not an object":
            record["before"] = "yes"
        else:
            record["after_sha256"] = "0" * 10
        text = json.dumps(record)
    lines[number - 1] = text
    run.journal.write_text("\n".join(lines) + "\n", "utf-8")
    return number


@pytest.mark.parametrize("kind", list(ODD))
def test_a_damaged_journal_fails_its_root_with_one_line_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    run = Run(tmp_path, close=None)
    number = _damage(run, kind)
    where = f"damaged journal {run.journal}, line {number}"

    assert main(["report", "--memory-dir", str(run.root), "--state-dir", str(run.state)]) == 0
    capsys.readouterr()
    for _ in range(2):  # and again: the next run says the same, nothing more
        code, report, err = run.run(capsys)
        assert code == 1
        assert report["status"] == "failed" and where in report["error"]
        assert where in _one_line(err)
        assert run.tree() == run.after
    code, _out, err = run.undo(capsys)
    assert code == 1 and where in _one_line(err)
    assert run.tree() == run.after


def test_damage_in_a_finished_runs_journal_only_stops_undoing_that_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = Run(tmp_path)  # closed: recovery has nothing to do with it
    number = _damage(run, "not an object")
    code, report, err = run.run(capsys)
    assert code == 0, err
    assert report["status"] == "consolidated"
    code, _out, err = run.undo(capsys)
    assert code == 1
    assert f"damaged journal {run.journal}, line {number}" in _one_line(err)


# --------------------------------------------------------------------- 5. temp files


def test_recovery_clears_temp_files_beside_long_and_nested_names_and_nothing_else(
    tmp_path: Path
) -> None:
    long_name = "p" * 240 + ".md"
    run = Run(tmp_path, writes=2, archives=0, creates=0, close=None,
              names=[long_name, "sub/project_note.md"])
    ours = [run.root / (temp_prefix(long_name) + "abcd1234.tmp"),
            run.root / "sub" / ".project_note.md.x1y2z3w4.tmp"]
    theirs = [run.root / ".project_note.md.abcd1234.tmp",  # beside no journaled file
              run.root / "sub" / ".project_note.md.toolong12.tmp",
              run.root / "sub" / ".other.md.abcd1234.tmp"]
    for path in ours + theirs:
        path.write_text("x")
    assert len(ours[0].name.encode()) <= 255

    removed = clear_files(run.root, {e.file for e in load(run.run_dir).intents})

    assert sorted(removed) == sorted(str(p.relative_to(run.root)) for p in ours)
    assert all(p.exists() for p in theirs)
    assert not any(p.exists() for p in ours)


# --------------------------------------------------------------------- 6. run ids


@pytest.mark.parametrize("pattern", ["*", "2026*", "?" * 21, "[0-9]*", "../runs/x", "",
                                     RUN_ID[:-1] + "?", ".", "..", "-rf"])
def test_a_run_id_is_matched_exactly_never_as_a_pattern(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pattern: str
) -> None:
    first = Run(tmp_path / "a")
    second = Run(tmp_path / "b")
    # Both roots' runs in one state dir, as one pass over two roots leaves them.
    (second.state / root_key(second.root)).rename(first.state / root_key(second.root))

    code, out, err = first.undo(capsys, "--force", run_id=pattern)

    assert code == 2, out
    _one_line(err)
    assert first.tree() == first.after and second.tree() == second.after

    code, out, err = first.undo(capsys, run_id=RUN_ID)
    assert code == 0, err
    assert first.tree() == first.before and second.tree() == second.before


# --------------------------------------------------------------------- 7. creates


def _journal_a_create_that_failed(run: Run, rel: str, done: bool = False) -> None:
    """What a run journals when the create it intended fails (the name was taken)."""
    records = run.lines()
    closing = records.pop()
    step = max(r.get("step", 0) for r in records) + 1
    records.append({"step": step, "phase": "intent", "op": "create", "file": rel,
                    "before": None, "after_sha256": "ab" * 32, "reason": "index overflow",
                    "after_mtime_ns": None})
    if done:
        records.append({"step": step, "phase": "done", "op": "create", "file": rel})
    records.append(closing)
    run.write_lines(records)


def _folder(run: Run, rel: str) -> None:
    (run.root / rel).mkdir()
    (run.root / rel / "inside.md").write_text(_memory(7))


def _link(run: Run, rel: str) -> None:
    (run.root / rel).symlink_to(run.root / run.written[0])


def _big_file(run: Run, rel: str) -> None:
    (run.root / rel).write_bytes(b"x" * (2 << 20))


@pytest.mark.parametrize("taken_by", [_folder, _link, _big_file])
@pytest.mark.parametrize("done", [False, True])
def test_undo_never_moves_what_a_create_that_failed_found_at_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], taken_by: Any, done: bool
) -> None:
    run = Run(tmp_path, archives=0, creates=1)
    taken_by(run, "index_project.md")
    _journal_a_create_that_failed(run, "index_project.md", done=done)
    taken = run.root / "index_project.md"
    found = (os.readlink(taken) if taken.is_symlink() else
             snapshot_tree(taken) if taken.is_dir() else taken.read_bytes())

    code, out, err = run.undo(capsys, "--force")

    assert code == 0, err
    if taken_by is _big_file and done:  # a regular file changed since a create that happened
        assert "index_project.md" in out and "displaced" in out
        return
    assert "index_project.md" not in out
    assert {k: v for k, v in run.tree().items() if not k.startswith("index_project.md")} \
        == run.before
    assert found == (os.readlink(taken) if taken.is_symlink() else
                     snapshot_tree(taken) if taken.is_dir() else taken.read_bytes())


def test_recovery_leaves_a_folder_where_a_killed_run_meant_to_create_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = Run(tmp_path, archives=0, creates=0, close=None)
    _folder(run, "index_project.md")
    records = run.lines()
    records.append({"step": 9, "phase": "intent", "op": "create", "file": "index_project.md",
                    "before": None, "after_sha256": "ab" * 32, "reason": "index overflow"})
    run.write_lines(records)

    code, report, err = run.run(capsys)

    assert code == 0, err
    assert (run.root / "index_project.md" / "inside.md").read_text() == _memory(7)
    assert not (run.run_dir / "undone").exists()


# --------------------------------------------------------------------- 8. long names


def test_names_derived_for_displaced_and_undone_files_fit_in_255_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_name = "長" * 83 + ".md"  # 252 bytes
    assert len(long_name.encode()) == 252
    run = Run(tmp_path, writes=1, archives=0, creates=0, names=[long_name])
    edits = []
    for n in range(3):  # edited after the run, then undone by force: again and again
        data = (run.root / long_name).read_bytes() + f"Edit {n}.\n".encode()
        (run.root / long_name).write_bytes(data)
        edits.append(data)
        code, out, err = run.undo(capsys, "--force")
        assert code == 0, err
        assert "kept in" in out
        assert (run.root / long_name).read_bytes() == run.before[long_name][0]
    kept = [p for p in (run.run_dir / "displaced").rglob("*") if p.is_file()]
    assert sorted(p.read_bytes() for p in kept) == sorted(edits)
    assert all(len(p.name.encode()) <= 255 for p in kept)
