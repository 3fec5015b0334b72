"""The only code that changes files: atomic writes, archive moves and path checks."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import consolidator.store.recheck as recheck
from consolidator.errors import FileChanged, UnsafePath
from consolidator.store.dirfd import RootDir
from consolidator.store.model import FileStat
from consolidator.store.move import move_file
from consolidator.store.names import is_side_name_of, side_name
from consolidator.store.recheck import check_unchanged, safe_path
from consolidator.store.scan import file_stat, read_regular
from consolidator.store.transaction import Transaction
from consolidator.store.write import atomic_write, check_new_name

OLD = b"---\nname: old\ntype: user\n---\nold body\n"
NEW = b"---\nname: new\ntype: user\n---\nnew body\n"
PAST_NS = 1_600_000_000_123_456_789
PLANNED_NS = 1_700_000_000_987_654_321



def make(path: Path, data: bytes = OLD, *, mode: int = 0o644, mtime_ns: int = PAST_NS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.chmod(path, mode)
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def scanned(path: Path, rel: str | None = None) -> FileStat:
    """The file as the scan would record it."""
    data, st = read_regular(path)
    return file_stat(rel or path.name, data, st)


def entries(folder: Path) -> set[str]:
    return set(os.listdir(folder))


# --- atomic_write -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644, 0o444])
def test_atomic_write_keeps_the_files_mode(root: Path, mode: int) -> None:
    path = make(root / "a.md", mode=mode)

    atomic_write(path, NEW)

    assert path.read_bytes() == NEW
    assert path.stat().st_mode & 0o7777 == mode


def test_atomic_write_uses_an_explicit_mode_when_given(root: Path) -> None:
    path = make(root / "a.md", mode=0o644)

    atomic_write(path, NEW, mode=0o600)

    assert path.stat().st_mode & 0o7777 == 0o600


def test_atomic_write_creates_a_new_file_as_0644_whatever_the_umask(root: Path) -> None:
    old_umask = os.umask(0o077)
    try:
        atomic_write(root / "new.md", NEW)
    finally:
        os.umask(old_umask)

    assert (root / "new.md").stat().st_mode & 0o7777 == 0o644


def test_atomic_write_sets_mtime_ns_exactly(root: Path) -> None:
    path = make(root / "a.md")

    atomic_write(path, NEW, mtime_ns=PLANNED_NS)

    assert path.stat().st_mtime_ns == PLANNED_NS
    assert path.read_bytes() == NEW


def test_atomic_write_leaves_no_temp_file_behind_on_success(root: Path) -> None:
    path = make(root / "a.md")
    make(root / "b.md")

    atomic_write(path, NEW, expected=scanned(path))
    atomic_write(root / "c.md", NEW, exclusive=True)

    assert entries(root) == {"a.md", "b.md", "c.md"}


def test_atomic_write_replaces_the_file_when_the_disk_still_matches_the_scan(root: Path) -> None:
    path = make(root / "a.md", mode=0o640)
    expected = scanned(path)

    atomic_write(path, NEW, mtime_ns=PLANNED_NS, expected=expected)

    after = scanned(path)
    assert path.read_bytes() == NEW
    assert (after.mode, after.mtime_ns) == (0o640, PLANNED_NS)


def test_atomic_write_raises_file_changed_when_a_session_wrote_the_file_after_the_scan(
    root: Path,
) -> None:
    path = make(root / "a.md")
    expected = scanned(path)
    live = b"---\nname: old\ntype: user\n---\nwritten by a live session\n"
    path.write_bytes(live)

    with pytest.raises(FileChanged):
        atomic_write(path, NEW, mtime_ns=PLANNED_NS, expected=expected)

    assert path.read_bytes() == live
    assert entries(root) == {"a.md"}


def test_atomic_write_notices_same_size_same_mtime_but_different_bytes(root: Path) -> None:
    path = make(root / "a.md")
    expected = scanned(path)
    sneaky = OLD.replace(b"old body", b"OLD BODY")
    path.write_bytes(sneaky)
    os.utime(path, ns=(PAST_NS, PAST_NS))

    with pytest.raises(FileChanged):
        atomic_write(path, NEW, expected=expected)

    assert path.read_bytes() == sneaky
    assert path.stat().st_mtime_ns == PAST_NS
    assert entries(root) == {"a.md"}


def test_atomic_write_notices_a_touched_file_with_unchanged_bytes(root: Path) -> None:
    path = make(root / "a.md")
    expected = scanned(path)
    os.utime(path, ns=(PAST_NS + 1, PAST_NS + 1))

    with pytest.raises(FileChanged):
        atomic_write(path, NEW, expected=expected)

    assert path.read_bytes() == OLD


def test_atomic_write_does_not_recreate_a_file_removed_since_the_scan(
    root: Path, tmp_path: Path
) -> None:
    path = make(root / "a.md")
    expected = scanned(path)
    path.rename(tmp_path / "moved-away")

    with pytest.raises(FileChanged, match="removed"):
        atomic_write(path, NEW, expected=expected)

    assert entries(root) == set()


def test_atomic_write_leaves_no_temp_file_when_the_rename_fails(root: Path) -> None:
    (root / "folder.md").mkdir()  # a rename onto a folder fails for real

    with pytest.raises(OSError):
        atomic_write(root / "folder.md", NEW, mode=0o644)

    assert entries(root) == {"folder.md"}
    assert entries(root / "folder.md") == set()


def test_atomic_write_leaves_no_temp_file_when_interrupted(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make(root / "a.md")

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "rename", interrupted)
    monkeypatch.setattr(os, "replace", interrupted)

    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, NEW)

    assert entries(root) == {"a.md"}
    assert path.read_bytes() == OLD


def test_exclusive_atomic_write_refuses_to_overwrite_an_existing_file(root: Path) -> None:
    path = make(root / "topic.md", mode=0o600)

    with pytest.raises(FileExistsError):
        atomic_write(path, NEW, exclusive=True)

    assert path.read_bytes() == OLD
    assert path.stat().st_mtime_ns == PAST_NS
    assert path.stat().st_mode & 0o7777 == 0o600
    assert entries(root) == {"topic.md"}


def test_exclusive_atomic_write_refuses_even_a_dangling_symlink(root: Path) -> None:
    (root / "topic.md").symlink_to("nowhere.md")

    with pytest.raises(FileExistsError):
        atomic_write(root / "topic.md", NEW, exclusive=True, mode=0o644)

    assert (root / "topic.md").is_symlink()
    assert entries(root) == {"topic.md"}


def test_exclusive_atomic_write_creates_a_missing_file_with_its_mtime(root: Path) -> None:
    atomic_write(root / "topic.md", NEW, exclusive=True, mtime_ns=PLANNED_NS)

    assert (root / "topic.md").read_bytes() == NEW
    assert (root / "topic.md").stat().st_mtime_ns == PLANNED_NS
    assert (root / "topic.md").stat().st_nlink == 1


def test_atomic_write_temp_files_never_end_in_md(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    real_rename, real_link = os.rename, os.link

    def spy(real: Callable[..., None]) -> Callable[..., None]:
        def call(src: str, dst: str, *args: object, **kwargs: object) -> None:
            seen.append(os.fspath(src))
            seen.extend(entries(root))
            real(src, dst, *args, **kwargs)
        return call

    monkeypatch.setattr(os, "rename", spy(real_rename))
    monkeypatch.setattr(os, "link", spy(real_link))
    path = make(root / "a.md")

    atomic_write(path, NEW)
    atomic_write(root / "b.md", NEW, exclusive=True)

    temps = [Path(name).name for name in seen if Path(name).name not in ("a.md", "b.md")]
    assert len(temps) >= 2
    assert all(not name.endswith(".md") for name in temps), temps


def test_check_unchanged_accepts_the_file_as_scanned(root: Path) -> None:
    path = make(root / "a.md")

    check_unchanged(path, scanned(path))


# --- move_file ----------------------------------------------------------------------------


def test_move_file_moves_bytes_mtime_and_mode_exactly(root: Path, tmp_path: Path) -> None:
    source = make(root / "sub" / "gone.md", mode=0o640)
    expected = scanned(source, "sub/gone.md")
    dest = tmp_path / "state" / "archive" / "run1" / "sub" / "gone.md"

    move_file(source, dest, expected)

    assert not os.path.lexists(source)
    assert dest.read_bytes() == OLD
    assert dest.stat().st_mtime_ns == PAST_NS
    assert dest.stat().st_mode & 0o7777 == 0o640


def test_move_file_refuses_when_the_destination_exists(root: Path, tmp_path: Path) -> None:
    source = make(root / "a.md")
    dest = make(tmp_path / "archive" / "a.md", NEW, mtime_ns=PLANNED_NS)

    with pytest.raises(FileExistsError):
        move_file(source, dest, scanned(source))

    assert source.read_bytes() == OLD
    assert source.stat().st_mtime_ns == PAST_NS
    assert dest.read_bytes() == NEW
    assert dest.stat().st_mtime_ns == PLANNED_NS


def test_move_file_refuses_when_the_destination_is_a_dangling_symlink(
    root: Path, tmp_path: Path
) -> None:
    source = make(root / "a.md")
    (tmp_path / "archive").mkdir()
    dest = tmp_path / "archive" / "a.md"
    dest.symlink_to("nowhere.md")

    with pytest.raises(FileExistsError):
        move_file(source, dest, scanned(source))

    assert source.read_bytes() == OLD
    assert dest.is_symlink()


def test_move_file_raises_file_changed_and_leaves_the_source_when_it_changed_since_the_scan(
    root: Path, tmp_path: Path
) -> None:
    source = make(root / "a.md")
    expected = scanned(source)
    live = OLD + b"a line a live session added\n"
    source.write_bytes(live)
    dest = tmp_path / "archive" / "a.md"

    with pytest.raises(FileChanged):
        move_file(source, dest, expected)

    assert source.read_bytes() == live
    assert not os.path.lexists(dest)


def test_move_file_raises_file_changed_when_the_source_is_gone(root: Path, tmp_path: Path) -> None:
    source = make(root / "a.md")
    expected = scanned(source)
    source.unlink()

    with pytest.raises(FileChanged):
        move_file(source, tmp_path / "archive" / "a.md", expected)

    assert not os.path.lexists(tmp_path / "archive" / "a.md")


def test_move_file_across_devices_copies_bytes_mtime_and_mode_then_removes_the_source(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = make(root / "a.md", mode=0o600)
    expected = scanned(source)
    dest = tmp_path / "archive" / "a.md"
    real_rename = os.rename

    def rename_across_devices(src: str, dst: str, *, src_dir_fd: int | None = None,
                              dst_dir_fd: int | None = None) -> None:
        folders = {os.fstat(fd).st_ino for fd in (src_dir_fd, dst_dir_fd) if fd is not None}
        if Path(src).name == "a.md" and len(folders) > 1:  # from the root into the archive
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    monkeypatch.setattr(os, "rename", rename_across_devices)

    move_file(source, dest, expected)

    assert not os.path.lexists(source)
    assert dest.read_bytes() == OLD
    assert dest.stat().st_mtime_ns == PAST_NS
    assert dest.stat().st_mode & 0o7777 == 0o600
    assert entries(dest.parent) == {"a.md"}


# --- safe_path ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel",
    ["../escape.md", "sub/../../escape.md", "..", "sub/..", "/etc/passwd", "/abs/a.md", "", "."],
)
def test_safe_path_refuses_paths_that_leave_the_root(root: Path, rel: str) -> None:
    (root / "sub").mkdir()

    with pytest.raises(UnsafePath):
        safe_path(root, rel)


def test_safe_path_refuses_a_path_through_a_symlinked_folder(root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (root / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "real" / "deeper").mkdir(parents=True)
    (root / "real" / "hop").symlink_to(root / "real" / "deeper", target_is_directory=True)

    with pytest.raises(UnsafePath, match="symbolic link"):
        safe_path(root, "linked/a.md")
    with pytest.raises(UnsafePath, match="symbolic link"):
        safe_path(root, "real/hop/a.md")


def test_safe_path_accepts_plain_paths_inside_the_root(root: Path) -> None:
    (root / "sub").mkdir()

    assert safe_path(root, "a.md") == root / "a.md"
    assert safe_path(root, "sub/b.md") == root / "sub" / "b.md"
    assert safe_path(root, "new/folder/c.md") == root / "new" / "folder" / "c.md"
    assert safe_path(root, "사용자.md") == root / "사용자.md"


# --- names the store makes beside a file ---------------------------------------------------


@pytest.mark.parametrize("name", ["a.md", "m" * 252 + ".md", "메" * 84 + ".md", "x" * 255])
@pytest.mark.parametrize("suffix", [".tmp", ".partial", ".kept"])
def test_side_names_fit_255_bytes_and_never_end_in_md(name: str, suffix: str) -> None:
    side = side_name(name, "abcdefgh", suffix)

    assert len(os.fsencode(side)) <= 255
    assert side.startswith(".") and side.endswith(".abcdefgh" + suffix)
    side.encode("utf-8")  # a multi-byte character is never cut in half
    assert is_side_name_of(side, name, suffix)
    assert not is_side_name_of(side, "b.md", suffix)
    assert len(os.fsencode(side_name(name, "", suffix))) <= 255


def test_a_short_name_keeps_its_whole_name_in_its_side_names() -> None:
    assert side_name("a.md", "k3j9x0q2", ".tmp") == ".a.md.k3j9x0q2.tmp"
    assert side_name("a.md", "", ".partial") == ".a.md.partial"
    assert not is_side_name_of(".a.md.NOTATAG!.tmp", "a.md", ".tmp")
    assert not is_side_name_of(".a.md.tmp", "a.md", ".tmp")


def test_a_write_to_a_255_byte_name_leaves_only_that_name(root: Path) -> None:
    name = "m" * 252 + ".md"
    path = make(root / name)

    atomic_write(path, NEW, expected=scanned(path))
    atomic_write(root / ("n" * 252 + ".md"), NEW, exclusive=True)

    assert path.read_bytes() == NEW
    assert entries(root) == {name, "n" * 252 + ".md"}


# --- the root held open ---------------------------------------------------------------------


def test_a_root_replaced_by_a_link_after_it_was_opened_is_refused(
    root: Path, tmp_path: Path
) -> None:
    make(root / "a.md")
    copy = tmp_path / "copy"
    copy.mkdir()
    make(copy / "a.md")
    with RootDir(root) as held:
        root.rename(tmp_path / "moved")
        root.symlink_to(copy, target_is_directory=True)

        with pytest.raises(UnsafePath, match="moved or replaced"):
            held.check()
        with pytest.raises(UnsafePath):
            atomic_write(root / "a.md", NEW, root=held)

    assert (copy / "a.md").read_bytes() == OLD
    assert (tmp_path / "moved" / "a.md").read_bytes() == OLD


def test_a_root_moved_away_is_refused(root: Path, tmp_path: Path) -> None:
    with RootDir(root) as held:
        root.rename(tmp_path / "moved")

        with pytest.raises(UnsafePath, match="moved away"):
            held.check()


def test_a_root_that_is_a_link_older_than_the_run_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    make(real / "a.md")
    link = tmp_path / "memory"
    link.symlink_to(real, target_is_directory=True)

    with RootDir(link, since_ns=time.time_ns() + 10**9) as held:
        atomic_write(link / "a.md", NEW, expected=scanned(link / "a.md"), root=held)

    assert (real / "a.md").read_bytes() == NEW


def test_a_root_that_became_a_link_after_the_run_started_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    started = time.time_ns() - 10**9
    link = tmp_path / "memory"
    link.symlink_to(real, target_is_directory=True)

    with pytest.raises(UnsafePath, match="after the run started"):
        RootDir(link, since_ns=started)


def test_a_write_through_a_linked_folder_is_refused_when_walked_from_the_root(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    make(outside / "a.md")
    (root / "linked").symlink_to(outside, target_is_directory=True)

    with RootDir(root) as held:
        with pytest.raises(UnsafePath, match="symbolic link"):
            atomic_write(root / "linked" / "a.md", NEW, root=held)
        with pytest.raises(UnsafePath, match="not inside"):
            atomic_write(outside / "a.md", NEW, root=held)
        with pytest.raises(UnsafePath, match="symbolic link"):
            check_new_name(root, "linked/new.md", at=held)

    assert (outside / "a.md").read_bytes() == OLD
    assert entries(outside) == {"a.md"}


def test_a_transaction_refuses_every_step_once_closed(root: Path, tmp_path: Path) -> None:
    path = make(root / "a.md")
    with Transaction(root, tmp_path / "state" / "runs" / "r1", {"run_id": "r1"}) as tx:
        pass

    with pytest.raises(UnsafePath):
        tx.rewrite(scanned(path), NEW, PLANNED_NS, "after close")
    assert path.read_bytes() == OLD


# --- what a live session does meanwhile -------------------------------------------------------


def test_a_file_made_while_a_missing_one_is_written_is_kept(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``expected`` a missing file is created by link(): a file a session made in
    the meantime is never replaced."""
    path = root / "a.md"
    real_link = os.link

    def session_first(*args: Any, **kwargs: Any) -> None:
        path.write_bytes(b"made by a live session\n")
        real_link(*args, **kwargs)

    monkeypatch.setattr(os, "link", session_first)

    with pytest.raises(FileChanged, match="created"):
        atomic_write(path, NEW)

    assert path.read_bytes() == b"made by a live session\n"
    assert entries(root) == {"a.md"}


@pytest.mark.skipif(not hasattr(fcntl, "F_SETLEASE"), reason="no file leases here")
def test_a_file_another_program_holds_open_for_writing_is_left_alone(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make(root / "a.md")
    expected = scanned(path)
    monkeypatch.setattr(recheck, "WRITER_WAIT_S", 0.05)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import os, sys, time; fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND); "
         "print('open', flush=True); time.sleep(30)", str(path)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(FileChanged, match="open for writing"):
            atomic_write(path, NEW, expected=expected)
        with pytest.raises(FileChanged, match="open for writing"):
            move_file(path, tmp_path / "archive" / "a.md", expected)
    finally:
        holder.kill()
        holder.wait()

    assert path.read_bytes() == OLD
    assert entries(root) == {"a.md"}
    assert not (tmp_path / "archive" / "a.md").exists()


def test_an_attribute_the_file_system_refuses_is_named_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewrite goes ahead (the bytes are what matters), and the log says what was left."""
    import structlog

    if not hasattr(os, "listxattr"):
        pytest.skip("no extended attributes on this platform")
    path = tmp_path / "m.md"
    path.write_bytes(b"old\n")
    try:
        os.setxattr(path, "user.tag", b"label")
    except OSError as exc:
        pytest.skip(f"this file system keeps no user attributes: {exc}")

    def refuse(*_args: Any) -> None:
        raise OSError(errno.ENOTSUP, "Operation not supported")

    monkeypatch.setattr(os, "setxattr", refuse)
    with structlog.testing.capture_logs() as logs:
        atomic_write(path, b"new\n")

    assert path.read_bytes() == b"new\n"
    (warned,) = [e for e in logs if e["log_level"] == "warning"]
    assert warned["event"].startswith("m.md: extended attribute(s) not kept")
    assert "user.tag (Operation not supported)" in warned["event"]
