"""Scanning a root the way Claude Code reads it, without following links or blocking on
anything that is not a regular file."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest

from consolidator.store import scan as scan_mod
from consolidator.store.frontmatter import BOM
from consolidator.store.model import Memory, Snapshot, Unparsed
from consolidator.store.scan import MAX_DEPTH, MAX_FILE_BYTES, read_index, scan

MEMORY = b"---\nname: {name}\ndescription: about {name}\ntype: user\n---\nBody of {name}.\n"
SYMLINK_REASON = "symbolic link, not followed"


def memory_bytes(name: str) -> bytes:
    return MEMORY.replace(b"{name}", name.encode())


def write(path: Path, data: bytes, *, mode: int | None = None, mtime_ns: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mode is not None:
        os.chmod(path, mode)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def memories(snapshot: Snapshot) -> dict[str, Memory]:
    return snapshot.by_file()


def unparsed(snapshot: Snapshot) -> dict[str, Unparsed]:
    return {u.rel: u for u in snapshot.unparsed}



def test_scan_reads_memories_recursively_with_posix_relative_names(root: Path) -> None:
    write(root / "top.md", memory_bytes("top"))
    write(root / "sub" / "mid.md", memory_bytes("mid"))
    write(root / "sub" / "deeper" / "low.md", memory_bytes("low"))

    snapshot = scan(root)

    assert set(memories(snapshot)) == {"top.md", "sub/mid.md", "sub/deeper/low.md"}
    assert memories(snapshot)["sub/deeper/low.md"].name == "low"
    assert snapshot.unparsed == ()
    assert snapshot.root == root


def test_scan_reads_no_file_named_memory_md_as_a_memory_and_lists_a_folders_own(
    root: Path,
) -> None:
    write(root / "MEMORY.md", b"- [top](top.md)\n")
    write(root / "sub" / "MEMORY.md", memory_bytes("looks_like_a_memory"))
    write(root / "sub" / "deeper" / "MEMORY.md", b"# nested index\n")
    write(root / "top.md", memory_bytes("top"))

    snapshot = scan(root)

    assert set(memories(snapshot)) == {"top.md"}
    # A folder's own index is there (a pointer to it is no dead link), said to be an index,
    # and read like a note without frontmatter (its text is checked for secrets).
    nested = unparsed(snapshot)
    assert set(nested) == {"sub/MEMORY.md", "sub/deeper/MEMORY.md"}
    assert all(u.error == scan_mod.NESTED_INDEX and u.stat is not None
               for u in nested.values())
    assert {"sub/MEMORY.md", "sub/deeper/MEMORY.md"} <= snapshot.existing_files()


def test_scan_skips_dot_folders(root: Path) -> None:
    write(root / ".git" / "notes.md", memory_bytes("git"))
    write(root / ".archive" / "old.md", memory_bytes("old"))
    write(root / "sub" / ".hidden" / "x.md", memory_bytes("x"))
    write(root / "kept.md", memory_bytes("kept"))

    snapshot = scan(root)

    assert set(memories(snapshot)) == {"kept.md"}
    assert snapshot.unparsed == ()


def test_scan_ignores_files_that_are_not_markdown(root: Path) -> None:
    write(root / "notes.txt", memory_bytes("txt"))
    write(root / "data.json", b"{}")
    write(root / ".consolidate-lock", b"1234")
    write(root / "real.md", memory_bytes("real"))

    snapshot = scan(root)

    assert set(memories(snapshot)) == {"real.md"}
    assert snapshot.existing_files() == {"real.md"}


def test_scan_reports_files_without_frontmatter_with_their_stat(root: Path) -> None:
    data = b"# Daily log\n\n- shipped the fix\n"
    write(root / "2026-11-02.md", data)

    snapshot = scan(root)

    problem = unparsed(snapshot)["2026-11-02.md"]
    assert problem.error == "no frontmatter"
    assert problem.stat is not None
    assert problem.stat.sha256 == hashlib.sha256(data).hexdigest()
    assert "2026-11-02.md" in snapshot.existing_files()


def test_scan_records_each_memorys_sha256_size_mtime_and_mode(root: Path) -> None:
    a = memory_bytes("alpha")
    b = "---\nname: 베타\ntype: feedback\n---\n本文\n".encode()
    write(root / "a.md", a, mode=0o640, mtime_ns=1_700_000_000_123_456_789)
    write(root / "sub" / "b.md", b, mode=0o600, mtime_ns=1_600_000_000_000_000_001)

    found = memories(scan(root))

    stat_a, stat_b = found["a.md"].stat, found["sub/b.md"].stat
    assert (stat_a.rel, stat_a.size, stat_a.mtime_ns, stat_a.mode) == (
        "a.md",
        len(a),
        1_700_000_000_123_456_789,
        0o640,
    )
    assert stat_a.sha256 == hashlib.sha256(a).hexdigest()
    assert (stat_b.rel, stat_b.size, stat_b.mtime_ns, stat_b.mode) == (
        "sub/b.md",
        len(b),
        1_600_000_000_000_000_001,
        0o600,
    )
    assert stat_b.sha256 == hashlib.sha256(b).hexdigest()
    assert found["sub/b.md"].doc.to_bytes() == b


def test_scan_does_not_change_any_file(root: Path) -> None:
    from tests.conftest import snapshot_tree

    write(root / "a.md", memory_bytes("a"), mtime_ns=1_000_000_000_000_000_000)
    write(root / "b.md", b"not a memory", mtime_ns=1_000_000_000_000_000_000)
    write(root / "MEMORY.md", b"- [a](a.md)\n", mtime_ns=1_000_000_000_000_000_000)
    before = snapshot_tree(root)

    scan(root)

    assert snapshot_tree(root) == before


# --- symlinks: reported, never followed --------------------------------------------------


def test_symlink_to_a_file_inside_the_root_is_reported_not_followed(root: Path) -> None:
    write(root / "real.md", memory_bytes("real"))
    (root / "alias.md").symlink_to(root / "real.md")

    snapshot = scan(root)

    assert unparsed(snapshot)["alias.md"].error == SYMLINK_REASON
    assert unparsed(snapshot)["alias.md"].stat is None
    assert set(memories(snapshot)) == {"real.md"}


def test_symlink_to_a_file_outside_the_root_is_reported_not_followed(
    root: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "outside" / "secret.md", memory_bytes("secret"))
    (root / "leak.md").symlink_to(outside)
    (root / "sub").mkdir()
    (root / "sub" / "relative.md").symlink_to(Path("..") / ".." / "outside" / "secret.md")

    snapshot = scan(root)

    assert memories(snapshot) == {}
    assert unparsed(snapshot)["leak.md"].error == SYMLINK_REASON
    assert unparsed(snapshot)["sub/relative.md"].error == SYMLINK_REASON


def test_symlink_loop_is_reported_not_followed(root: Path) -> None:
    (root / "loop.md").symlink_to("loop.md")
    (root / "ping.md").symlink_to("pong.md")
    (root / "pong.md").symlink_to("ping.md")
    (root / "dangling.md").symlink_to("missing.md")

    snapshot = scan(root)

    assert {rel: u.error for rel, u in unparsed(snapshot).items()} == {
        "loop.md": SYMLINK_REASON,
        "ping.md": SYMLINK_REASON,
        "pong.md": SYMLINK_REASON,
        "dangling.md": SYMLINK_REASON,
    }


def test_symlinked_folder_is_not_followed(root: Path, tmp_path: Path) -> None:
    write(tmp_path / "elsewhere" / "far.md", memory_bytes("far"))
    (root / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (root / "self").symlink_to(root, target_is_directory=True)  # a folder loop
    write(root / "home.md", memory_bytes("home"))

    snapshot = scan(root)

    assert set(memories(snapshot)) == {"home.md"}
    assert all(not rel.startswith(("linked/", "self/")) for rel in unparsed(snapshot))


# --- special files and unreadable content -------------------------------------------------


@pytest.mark.parametrize("name", ["pipe.md", "sub/MEMORY.md"])  # a folder's own index too
def test_fifo_is_reported_and_does_not_block(root: Path, name: str) -> None:
    (root / name).parent.mkdir(exist_ok=True)
    os.mkfifo(root / name)
    write(root / "fine.md", memory_bytes("fine"))
    result: list[Snapshot] = []

    worker = threading.Thread(target=lambda: result.append(scan(root)), daemon=True)
    worker.start()
    worker.join(timeout=5)
    if worker.is_alive():  # unblock the reader so the test run can end
        fd = os.open(root / name, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("scan blocked on a FIFO")

    snapshot = result[0]
    assert unparsed(snapshot)[name].error == "not a regular file"
    assert set(memories(snapshot)) == {"fine.md"}


def test_fifo_named_memory_md_is_an_index_error_and_does_not_block(root: Path) -> None:
    os.mkfifo(root / "MEMORY.md")
    result: list[object] = []

    worker = threading.Thread(target=lambda: result.append(read_index(root)), daemon=True)
    worker.start()
    worker.join(timeout=5)
    if worker.is_alive():
        fd = os.open(root / "MEMORY.md", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("read_index blocked on a FIFO")

    index = result[0]
    assert index.text is None  # type: ignore[attr-defined]
    assert index.error == "not a regular file"  # type: ignore[attr-defined]


def test_file_over_one_mib_is_reported_and_not_read(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = root / "huge.md"
    with open(big, "wb") as fh:
        fh.write(memory_bytes("huge"))
        fh.truncate(MAX_FILE_BYTES + 1)
    write(root / "small.md", memory_bytes("small"))
    read_sizes: list[int] = []
    real_read = os.read

    def counting_read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if os.fstat(fd).st_size > MAX_FILE_BYTES:
            read_sizes.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting_read)

    snapshot = scan(root)

    problem = unparsed(snapshot)["huge.md"]
    assert "larger than 1024 KiB" in problem.error
    assert problem.stat is None
    assert read_sizes == []
    assert set(memories(snapshot)) == {"small.md"}


def test_file_of_exactly_one_mib_is_still_read(root: Path) -> None:
    head = memory_bytes("edge")
    write(root / "edge.md", head + b"x" * (MAX_FILE_BYTES - len(head)))

    found = memories(scan(root))

    assert found["edge.md"].stat.size == MAX_FILE_BYTES


def test_invalid_utf8_is_reported_with_its_stat(root: Path) -> None:
    data = b"---\nname: latin1 \xe9t\xe9\ntype: user\n---\n"
    write(root / "latin1.md", data)

    problem = unparsed(scan(root))["latin1.md"]

    assert problem.error.startswith("invalid UTF-8")
    assert problem.stat is not None and problem.stat.size == len(data)


def test_binary_junk_is_reported(root: Path) -> None:
    write(root / "junk.md", bytes(range(256)) * 4)
    write(root / "nul.md", memory_bytes("nul") + b"\x00")

    problems = unparsed(scan(root))

    assert problems["junk.md"].error == "binary file (NUL bytes)"
    assert problems["nul.md"].error == "binary file (NUL bytes)"


def test_empty_md_file_is_reported(root: Path) -> None:
    write(root / "empty.md", b"")

    assert unparsed(scan(root))["empty.md"].error == "no frontmatter"


def test_folders_nested_deeper_than_the_limit_are_reported_not_read(root: Path) -> None:
    deep = root.joinpath(*["d"] * (MAX_DEPTH - 1))
    write(deep / "deepest_read.md", memory_bytes("deepest_read"))
    write(deep / "d" / "too_deep.md", memory_bytes("too_deep"))

    snapshot = scan(root)

    assert "/".join(["d"] * (MAX_DEPTH - 1)) + "/deepest_read.md" in memories(snapshot)
    too_deep = "/".join(["d"] * MAX_DEPTH)
    assert "not read" in unparsed(snapshot)[too_deep].error
    assert all("too_deep" not in rel for rel in memories(snapshot))


def test_one_bad_file_does_not_stop_the_scan(root: Path) -> None:
    write(root / "a.md", memory_bytes("a"))
    write(root / "b.md", b"\xff\xfe")
    (root / "c.md").symlink_to("a.md")
    os.mkfifo(root / "d.md")
    write(root / "e.md", memory_bytes("e"))

    snapshot = scan(root)

    assert set(memories(snapshot)) == {"a.md", "e.md"}
    assert set(unparsed(snapshot)) == {"b.md", "c.md", "d.md"}


def test_read_memory_does_not_follow_a_file_swapped_for_a_symlink_after_the_walk(
    root: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "outside.md", memory_bytes("outside"))
    (root / "swapped.md").symlink_to(outside)

    result = scan_mod.read_memory(root, "swapped.md")

    assert isinstance(result, Unparsed)
    assert result.stat is None


# --- the index --------------------------------------------------------------------------


def test_read_index_of_a_root_without_memory_md_is_empty_not_an_error(root: Path) -> None:
    index = read_index(root)

    assert (index.text, index.stat, index.error, index.bom) == (None, None, None, False)


def test_read_index_reads_text_and_stat(root: Path) -> None:
    data = "# Memory\n- [역할](user_role.md) — 데이터 엔지니어\r\n".encode()
    write(root / "MEMORY.md", data, mode=0o600, mtime_ns=1_700_000_000_000_000_007)

    index = read_index(root)

    assert index.text == data.decode()
    assert index.error is None and not index.bom
    assert index.stat is not None
    assert (index.stat.rel, index.stat.size, index.stat.mtime_ns, index.stat.mode) == (
        "MEMORY.md",
        len(data),
        1_700_000_000_000_000_007,
        0o600,
    )
    assert index.stat.sha256 == hashlib.sha256(data).hexdigest()


def test_read_index_strips_and_remembers_a_bom(root: Path) -> None:
    write(root / "MEMORY.md", BOM + b"- [a](a.md)\n")

    index = read_index(root)

    assert index.bom
    assert index.text == "- [a](a.md)\n"
    assert index.stat is not None and index.stat.size == len(BOM) + 12


def test_read_index_reports_invalid_utf8(root: Path) -> None:
    write(root / "MEMORY.md", b"- [a](a.md) \xe9\n")

    index = read_index(root)

    assert index.text is None
    assert index.error == "invalid UTF-8 at byte 12"
    assert index.stat is not None


def test_read_index_reports_the_invalid_utf8_offset_in_the_file_when_there_is_a_bom(
    root: Path,
) -> None:
    write(root / "MEMORY.md", BOM + b"ab\xff\n")

    assert read_index(root).error == "invalid UTF-8 at byte 5"


def test_read_index_reports_nul_bytes(root: Path) -> None:
    write(root / "MEMORY.md", b"- [a](a.md)\x00\n")

    index = read_index(root)

    assert index.text is None
    assert index.error == "binary file (NUL bytes)"


def test_read_index_does_not_follow_a_symlinked_memory_md(root: Path, tmp_path: Path) -> None:
    write(tmp_path / "other" / "MEMORY.md", b"- [x](x.md)\n")
    (root / "MEMORY.md").symlink_to(tmp_path / "other" / "MEMORY.md")

    index = read_index(root)

    assert index.text is None and index.stat is None
    assert index.error


def test_read_index_reports_a_dangling_symlink_instead_of_treating_it_as_missing(
    root: Path,
) -> None:
    (root / "MEMORY.md").symlink_to("nowhere.md")

    index = read_index(root)

    assert index.text is None
    assert index.error


def test_read_index_says_a_symlinked_memory_md_is_not_followed(root: Path, tmp_path: Path) -> None:
    write(tmp_path / "other" / "MEMORY.md", b"- [x](x.md)\n")
    (root / "MEMORY.md").symlink_to(tmp_path / "other" / "MEMORY.md")

    assert read_index(root).error == SYMLINK_REASON


def test_scan_reads_the_index_alongside_the_memories(root: Path) -> None:
    write(root / "MEMORY.md", b"- [a](a.md)\n")
    write(root / "a.md", memory_bytes("a"))

    snapshot = scan(root)

    assert snapshot.index.text == "- [a](a.md)\n"
