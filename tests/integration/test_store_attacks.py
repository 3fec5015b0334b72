"""Attacks on the only code that changes files (issue 14), each on real files.

* Swap: a folder of the root, or the root itself, swapped for a symbolic link between the
  path check and the write (at a fixed moment, and by a process flipping it as fast as it
  can). Nothing outside the root is ever written, created or moved into the archive.
* Window: a line a live session appends in the instant between the last re-check and the
  rename (or the unlink of a cross-device archive move), or through a handle it opened just
  before. The line stays live and the step is reported as skipped; a process appending
  while many rewrites and archives run never loses a line.
* Long names: a memory named with 255 bytes (the most a file system allows) is rewritten,
  archived (on the same and on another file system) and created like any other.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from consolidator import cli
from consolidator.errors import FileChanged, UnsafePath
from consolidator.state.statedir import archived as archive_path
from consolidator.store.journal import Journal
from consolidator.store.model import FileStat
from consolidator.store.move import move_file
from consolidator.store.scan import ReadProblem, file_stat, read_regular
from consolidator.store.transaction import Transaction
from consolidator.store.write import atomic_write

PAST_NS = 1_600_000_000_123_456_789
PLANNED_NS = 1_700_000_000_987_654_321
OLD = b"---\nname: a\ndescription: notes\ntype: project\n---\nThe first line.\n"
NEW = b"---\nname: a\ndescription: notes\ntype: project\n---\nThe rewritten line.\n"
LINE = b"A line a live session appended.\n"
LONG = "m" * 252 + ".md"  # 255 bytes: the longest legal name
LONG_WIDE = "메" * 84 + ".md"  # 255 bytes in 87 characters


# --------------------------------------------------------------------------- helpers


def put(path: Path, data: bytes = OLD, mtime_ns: int = PAST_NS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def scanned(root: Path, rel: str) -> FileStat:
    """The file as the scan would record it."""
    data, st = read_regular(root / rel)
    return file_stat(rel, data, st)


def snapshot(folder: Path) -> dict[str, tuple[Any, ...]]:
    """Everything under ``folder`` (links not followed): kind, bytes or target, mtime."""
    out: dict[str, tuple[Any, ...]] = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(dirpath) / name
            st = path.lstat()
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir",)
            else:
                out[rel] = ("file", path.read_bytes(), st.st_mtime_ns)
    return out


def leftovers(folder: Path) -> list[str]:
    """Temp and partial files anywhere under ``folder``."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.name.endswith((".tmp", ".partial")))


def tx_for(root: Path, run_dir: Path, started_ns: int | None = None) -> Transaction:
    meta: dict[str, Any] = {"run_id": run_dir.name}
    if started_ns is not None:
        meta["started_ns"] = started_ns
    return Transaction(root, run_dir, meta)


def close(tx: Transaction | None) -> None:
    closer = getattr(tx, "close", None)
    if closer is not None:
        closer()


def other_file_system(base: Path) -> Path | None:
    """A writable folder on another file system than ``base`` (tmpfs at /dev/shm), if any."""
    shm = Path("/dev/shm")
    try:
        if shm.is_dir() and os.access(shm, os.W_OK) and shm.stat().st_dev != base.stat().st_dev:
            return Path(tempfile.mkdtemp(prefix="consolidator-test-", dir=shm))
    except OSError:
        pass
    return None


def _fd_folder(dir_fd: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/self/fd/{dir_fd}"))
    except OSError:
        pass
    try:
        import fcntl

        getpath = getattr(fcntl, "F_GETPATH", None)
        if getpath is not None:
            raw = fcntl.fcntl(dir_fd, getpath, b"\0" * 1024)
            return Path(os.fsdecode(raw.split(b"\0", 1)[0]))
    except OSError:
        pass
    return None


def _where(name: Any, dir_fd: int | None) -> Path:
    """The absolute path a call names, whether given as a path or relative to a folder fd."""
    path = Path(os.fsdecode(os.fspath(name)))
    if dir_fd is None or path.is_absolute():
        return Path(os.path.abspath(path))
    folder = _fd_folder(dir_fd)
    if folder is None:
        pytest.skip("no way to name a folder descriptor on this system")
    return folder / path


@pytest.fixture
def cross_device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A state folder on another file system: a real one when there is one, else a folder
    whose renames in and out fail with EXDEV as they would."""
    real = other_file_system(tmp_path)
    if real is not None:
        yield real
        shutil.rmtree(real, ignore_errors=True)
        return
    fake = tmp_path / "other-fs"
    fake.mkdir()
    rename = os.rename

    def across(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        a = _where(src, kwargs.get("src_dir_fd"))
        b = _where(dst, kwargs.get("dst_dir_fd"))
        if (fake in a.parents) != (fake in b.parents):
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        rename(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "rename", across)
    monkeypatch.setattr(os, "replace", across)
    yield fake


# --------------------------------------------------------------------------- 1. swaps


def swap_for_link(folder: Path, target: Path) -> Path:
    """Move ``folder`` aside and put a symbolic link to ``target`` in its place."""
    moved = folder.with_name(folder.name + ".moved")
    folder.rename(moved)
    folder.symlink_to(target, target_is_directory=True)
    return moved


def swap_at_first_intent(monkeypatch: pytest.MonkeyPatch, folder: Path, target: Path
                         ) -> list[Path]:
    """Swap ``folder`` for a link to ``target`` when the first step is journaled: after the
    step's path was checked, before its change is made."""
    original = Journal.intent
    moved: list[Path] = []

    def intent(self: Journal, *args: Any, **kwargs: Any) -> None:
        if not moved:
            moved.append(swap_for_link(folder, target))
        original(self, *args, **kwargs)

    monkeypatch.setattr(Journal, "intent", intent)
    return moved


@pytest.mark.parametrize("op", ["rewrite", "archive", "create"])
@pytest.mark.parametrize("swapped", ["folder", "root"])
def test_a_folder_or_the_root_swapped_for_a_link_after_the_check_gets_no_write_outside(
    swapped: str, op: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link leads to an exact copy (bytes and mtimes), so only the path walk can tell:
    nothing outside changes, nothing of it is archived; the step is refused or lands in the
    real folder."""
    root = tmp_path / "memory"
    put(root / "team" / "a.md")
    put(root / "top.md")
    outside = tmp_path / "outside"
    folder = root / "team" if swapped == "folder" else root
    shutil.copytree(folder, outside)
    before_outside = snapshot(outside)
    run_dir = tmp_path / "state" / "runs" / "r1"
    tx = tx_for(root, run_dir)
    stat = scanned(root, "team/a.md")
    moved = swap_at_first_intent(monkeypatch, folder, outside)

    refused = False
    try:
        if op == "rewrite":
            tx.rewrite(stat, NEW, PLANNED_NS, "attack")
        elif op == "archive":
            tx.archive(stat, "attack")
        else:
            tx.create("team/b.md", NEW, PLANNED_NS, "attack")
    except UnsafePath:
        refused = True
    finally:
        close(tx)

    assert moved, "the swap never happened"
    assert snapshot(outside) == before_outside, "a write went outside the root"
    real = moved[0] if swapped == "folder" else moved[0] / "team"
    if refused:
        assert (real / "a.md").read_bytes() == OLD
        assert not (real / "b.md").exists()
        assert not archive_path(run_dir, "team/a.md").exists()
    elif op == "rewrite":
        assert (real / "a.md").read_bytes() == NEW
    elif op == "archive":
        assert archive_path(run_dir, "team/a.md").read_bytes() == OLD
    else:
        assert (real / "b.md").read_bytes() == NEW
    assert leftovers(tmp_path) == []


def _memory(name: str, body: str) -> bytes:
    head = f"---\nname: {name}\ndescription: Notes about {name}\ntype: project\n---\n"
    return (head + body).encode()


API = ("- The public API is versioned in the URL path.\n"
       "- Breaking changes need a new major version.\n"
       "- Every endpoint returns JSON errors with a code field.\n")


def _run_root(base: Path) -> Path:
    """A root whose run merges (the survivor is rewritten, the copy archived)."""
    root = base / "memory"
    stamp = time.time_ns() - 20 * 86400 * 10**9
    put(root / "project_api.md", _memory("project_api", API + "- Pagination uses cursors.\n"),
        stamp)
    put(root / "project_api_copy.md", _memory("project_api_copy", API), stamp + 10**9)
    put(root / "MEMORY.md", b"# Memory\n\n- [API](project_api.md) - the public API\n", stamp)
    (base / "project").mkdir()
    return root


def test_a_whole_run_whose_root_is_swapped_for_a_link_writes_and_archives_nothing_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The root turns into a link to a copy of itself once the run starts changing it: the
    run fails, the copy is untouched, and nothing of it lands in the archive."""
    root = _run_root(tmp_path)
    outside = tmp_path / "outside"
    shutil.copytree(root, outside)
    before_outside = snapshot(outside)
    moved = swap_at_first_intent(monkeypatch, root, outside)
    state = tmp_path / "state"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(["run", "--force", "--memory-dir", str(root), "--state-dir", str(state),
                         "--project-root", str(tmp_path / "project"), "--json"])

    assert moved, "the run never changed anything"
    assert snapshot(outside) == before_outside, "the run wrote outside the root"
    report = json.loads(out.getvalue())["roots"][0]
    assert code == 1 and report["status"] == "failed", out.getvalue()
    archived = [p for p in state.rglob("*") if "archive" in p.parts and p.is_file()]
    assert archived == []


ATTACKER = r"""
import os, sys, time
folder, target, stop = sys.argv[1:4]
moved = folder + ".moved"
flips = 0
while not os.path.exists(stop):
    try:
        os.rename(folder, moved)
        os.symlink(target, folder)
        time.sleep(0.0003)
        os.unlink(folder)
        os.rename(moved, folder)
        flips += 1
    except OSError:
        pass
    time.sleep(0.0003)
if os.path.islink(folder):
    os.unlink(folder)
if os.path.isdir(moved) and not os.path.lexists(folder):
    os.rename(moved, folder)
print(flips)
"""


@pytest.mark.parametrize("swapped", ["folder", "root"])
def test_a_process_flipping_a_folder_or_the_root_to_a_link_never_gets_a_write_outside(
    swapped: str, tmp_path: Path
) -> None:
    """A second process swaps the folder (or the root) for a link to an exact copy and back,
    as fast as it can, while rewrites run one after another: not one lands outside."""
    started_ns = time.time_ns()
    root = tmp_path / "memory"
    put(root / "team" / "a.md")
    other = OLD.replace(b"first", b"other")
    outside = tmp_path / "outside"
    folder = root / "team" if swapped == "folder" else root
    template = tmp_path / "template"
    shutil.copytree(folder, template)
    shutil.copytree(template, outside)
    before_outside = snapshot(outside)
    stop = tmp_path / "stop"
    attacker = subprocess.Popen([sys.executable, "-c", ATTACKER, str(folder), str(outside),
                                 str(stop)], stdout=subprocess.PIPE, text=True)
    tries, escapes, refused = 0, 0, 0
    try:
        time.sleep(0.05)
        until = time.monotonic() + 0.5
        while tries < 40 or (time.monotonic() < until and tries < 400):
            i = tries
            tries += 1
            stat = None
            while stat is None:  # read the file as a scan would, through whatever is there
                try:
                    stat = scanned(root, "team/a.md")
                except (ReadProblem, OSError):
                    time.sleep(0.0001)
            data = other if hashlib.sha256(OLD).hexdigest() == stat.sha256 else OLD
            tx = None
            try:
                tx = tx_for(root, tmp_path / "state" / "runs" / f"r{i}", started_ns)
                tx.rewrite(stat, data, PAST_NS, "attack")
            except (FileChanged, UnsafePath, OSError):
                refused += 1
            finally:
                close(tx)
            if snapshot(outside) != before_outside:
                escapes += 1
                shutil.rmtree(outside)
                shutil.copytree(template, outside)
    finally:
        stop.touch()
        flips = int(attacker.communicate(timeout=30)[0].strip() or 0)
    print(f"\n{swapped} flipped {flips} times: {escapes} of {tries} rewrites went outside, "
          f"{refused} refused")
    assert flips > 0
    assert escapes == 0


# --------------------------------------------------------------------------- 2. the window


Predicate = Callable[[str, Path, Path | None], bool]


def in_the_window(monkeypatch: pytest.MonkeyPatch, target: Path, fires: Predicate,
                  *, late: bool = False) -> list[str]:
    """A live session appends ``LINE`` to ``target`` at the first rename, replace or unlink
    ``fires`` picks: just before it (by path), or (``late``) through a handle opened just
    before it and written just after it."""
    hits: list[str] = []

    def wrap(op: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            src = _where(args[0], kwargs.get("src_dir_fd", kwargs.get("dir_fd")))
            dst = (_where(args[1], kwargs.get("dst_dir_fd")) if op != "unlink" else None)
            if hits or not fires(op, src, dst):
                return real(*args, **kwargs)
            hits.append(op)
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if not late:
                    os.write(fd, LINE)
                result = real(*args, **kwargs)
                if late:
                    os.write(fd, LINE)
            finally:
                os.close(fd)
            return result
        return call

    for op in ("rename", "replace", "unlink"):
        monkeypatch.setattr(os, op, wrap(op, getattr(os, op)))
    return hits


def replaces(target: Path) -> Predicate:
    return lambda op, src, dst: op != "unlink" and dst == target


def moves_away(target: Path) -> Predicate:
    return lambda op, src, dst: src == target


def removes(target: Path) -> Predicate:
    """The source's name taken away in its own folder: an unlink, or a rename beside it."""
    return lambda op, src, dst: src == target and (dst is None or dst.parent == target.parent)


@pytest.mark.parametrize("late", [False, True], ids=["before", "after"])
def test_a_line_appended_at_the_rename_of_a_rewrite_stays_live(
    late: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = put(tmp_path / "memory" / "a.md")
    expected = scanned(path.parent, "a.md")
    hits = in_the_window(monkeypatch, path, replaces(path), late=late)

    with pytest.raises(FileChanged):
        atomic_write(path, NEW, mtime_ns=PLANNED_NS, expected=expected)

    assert hits
    assert path.read_bytes() == OLD + LINE
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("late", [False, True], ids=["before", "after"])
def test_a_line_appended_at_the_move_of_an_archive_stays_live(
    late: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = put(tmp_path / "memory" / "a.md")
    expected = scanned(path.parent, "a.md")
    dest = tmp_path / "state" / "archive" / "a.md"
    dest.parent.mkdir(parents=True)
    hits = in_the_window(monkeypatch, path, moves_away(path), late=late)

    with pytest.raises(FileChanged):
        move_file(path, dest, expected)

    assert hits
    assert path.read_bytes() == OLD + LINE
    assert not dest.exists()


@pytest.mark.parametrize("late", [False, True], ids=["before", "after"])
def test_a_line_appended_before_the_source_of_a_cross_device_archive_goes_stays_live(
    late: bool, tmp_path: Path, cross_device: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = put(tmp_path / "memory" / "a.md")
    expected = scanned(path.parent, "a.md")
    dest = cross_device / "archive" / "a.md"
    dest.parent.mkdir(parents=True)
    hits = in_the_window(monkeypatch, path, removes(path), late=late)

    with pytest.raises(FileChanged):
        move_file(path, dest, expected)

    assert hits
    assert path.read_bytes() == OLD + LINE
    assert not dest.exists()
    assert leftovers(tmp_path) == [] and leftovers(cross_device) == []


def test_a_line_appended_when_an_archived_file_is_gone_goes_into_a_new_live_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's append (O_APPEND|O_CREAT) made a new file at the name the archive just
    emptied, and a line also reached the moved file: both lines stay live, none is clobbered.
    """
    path = put(tmp_path / "memory" / "a.md")
    expected = scanned(path.parent, "a.md")
    dest = tmp_path / "state" / "archive" / "a.md"
    dest.parent.mkdir(parents=True)
    second = b"A second line, in a new file at the old name.\n"
    rename = os.rename
    hits: list[int] = []

    def racing(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        a = _where(src, kwargs.get("src_dir_fd"))
        if hits or a != path:
            rename(src, dst, *args, **kwargs)
            return
        hits.append(1)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        rename(src, dst, *args, **kwargs)
        os.write(fd, LINE)  # through a handle opened before the move
        os.close(fd)
        with open(path, "ab") as fh:  # by name, after it: a new file
            fh.write(second)

    monkeypatch.setattr(os, "rename", racing)

    with pytest.raises(FileChanged):
        move_file(path, dest, expected)

    assert hits
    live = path.read_bytes()
    assert LINE in live and second in live and live.startswith(OLD), live


APPENDER = r"""
import os, random, sys, time
path, stop = sys.argv[1:3]
rng = random.Random(7)
n = 0
while not os.path.exists(stop):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, b"appended line %d\n" % n)
    os.close(fd)
    n += 1
    gap = rng.random()
    if gap < 0.5:
        time.sleep(gap * 0.004)
print(n)
"""


class Appender:
    """A process appending numbered lines to one file, with gaps from none to 2 ms."""

    def __init__(self, path: Path, stop: Path) -> None:
        self.path, self.stop = path, stop
        self.proc = subprocess.Popen([sys.executable, "-c", APPENDER, str(path), str(stop)],
                                     stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        while b"appended line" not in path.read_bytes():  # started: the race is on
            assert time.monotonic() < deadline, "the appender never started"
            time.sleep(0.001)

    def finish(self) -> list[bytes]:
        self.stop.touch()
        count = int(self.proc.communicate(timeout=30)[0].strip())
        return [b"appended line %d\n" % i for i in range(count)]


def _lines(data: bytes) -> set[bytes]:
    return {line + b"\n" for line in data.split(b"\n") if line}


def _scan_retry(folder: Path, name: str) -> tuple[FileStat, bytes] | None:
    try:
        data, st = read_regular(folder / name)
    except ReadProblem:
        return None
    return file_stat(name, data, st), data


def test_a_process_appending_during_many_rewrites_loses_no_line(tmp_path: Path) -> None:
    """Each rewrite keeps every line it read and changes the first; an append that lands
    after the read must make the rewrite skip, never vanish."""
    folder = tmp_path / "memory"
    path = put(folder / "a.md", b"header\n")
    appender = Appender(path, tmp_path / "stop")
    tries, done, skipped = 0, 0, 0
    deadline = time.monotonic() + 4
    try:
        while tries < 300 or (done < 5 and time.monotonic() < deadline):
            i = tries
            tries += 1
            found = _scan_retry(folder, "a.md")
            if found is None:
                time.sleep(0.0005)
                continue
            stat, data = found
            body = data.split(b"\n", 1)[1] if b"\n" in data else b""
            try:
                atomic_write(path, b"header %d\n" % i + body, expected=stat)
                done += 1
            except FileChanged:
                skipped += 1
    finally:
        written = appender.finish()
    live = _lines(path.read_bytes())
    lost = [line for line in written if line not in live]
    print(f"\nrewrites: {done} done, {skipped} skipped; {len(written)} lines appended, "
          f"{len(lost)} lost")
    assert len(written) > 50 and done > 0  # the race really ran (fewer under load)
    assert lost == []


@pytest.mark.parametrize("where", ["same", "other"])
def test_a_process_appending_during_many_archives_loses_no_line(
    where: str, tmp_path: Path, cross_device: Path
) -> None:
    """Each archive moves the file out; the appender makes a new one. A line is live, or in
    the bytes an archive moved as they were read: an archive holds nothing else."""
    folder = tmp_path / "memory"
    path = put(folder / "a.md", b"first\n")
    archive = (tmp_path / "state" if where == "same" else cross_device) / "archive"
    appender = Appender(path, tmp_path / "stop")
    tries, moved, skipped = 200, [], 0
    try:
        for i in range(tries):
            found = _scan_retry(folder, "a.md")
            if found is None:
                time.sleep(0.0005)
                continue
            stat, data = found
            dest = archive / str(i) / "a.md"
            dest.parent.mkdir(parents=True)
            try:
                move_file(path, dest, stat)
                moved.append((dest, data))
            except (FileChanged, FileNotFoundError):
                skipped += 1
    finally:
        written = appender.finish()
    live = _lines(path.read_bytes()) if path.exists() else set()
    archived: set[bytes] = set()
    for dest, data in moved:
        assert dest.read_bytes() == data, f"{dest}: the archive holds more than was read"
        archived |= _lines(data)
    lost = [line for line in written if line not in live and line not in archived]
    print(f"\narchives ({where} file system): {len(moved)} done, {skipped} skipped; "
          f"{len(written)} lines appended, {len(lost)} lost")
    assert len(written) > 50 and len(moved) > 5  # the race really ran (fewer under load)
    assert lost == []
    assert leftovers(tmp_path) == [] and leftovers(archive) == []


# --------------------------------------------------------------------------- 3. long names


@pytest.mark.parametrize("name", [LONG, LONG_WIDE], ids=["ascii", "korean"])
@pytest.mark.parametrize("where", ["same", "other"])
def test_a_255_byte_name_is_rewritten_archived_and_created(
    name: str, where: str, tmp_path: Path, cross_device: Path
) -> None:
    assert len(os.fsencode(name)) == 255
    root = tmp_path / "memory"
    put(root / name)
    put(root / "sub" / name)
    state = tmp_path / "state" if where == "same" else cross_device
    run_dir = state / "runs" / "r1"
    tx = tx_for(root, run_dir)
    try:
        tx.rewrite(scanned(root, name), NEW, PLANNED_NS, "long name")
        tx.archive(scanned(root, f"sub/{name}"), "long name")
        tx.create(f"new/{name}", NEW, PLANNED_NS, "long name")
    finally:
        close(tx)

    assert (root / name).read_bytes() == NEW
    assert (root / name).stat().st_mtime_ns == PLANNED_NS
    assert not (root / "sub" / name).exists()
    assert archive_path(run_dir, f"sub/{name}").read_bytes() == OLD
    assert archive_path(run_dir, f"sub/{name}").stat().st_mtime_ns == PAST_NS
    assert (root / "new" / name).read_bytes() == NEW
    assert leftovers(tmp_path) == [] and leftovers(state) == []


def test_a_255_byte_name_moves_across_file_systems_directly(
    tmp_path: Path, cross_device: Path
) -> None:
    path = put(tmp_path / "memory" / LONG)
    dest = cross_device / "archive" / LONG

    move_file(path, dest, scanned(path.parent, LONG))

    assert dest.read_bytes() == OLD
    assert not path.exists()
    assert leftovers(cross_device) == []
