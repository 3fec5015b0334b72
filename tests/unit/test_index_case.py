"""One index per root, whatever its case: ``memory.md`` is read as the index and never also as a
memory, and names are compared as a case-insensitive, normalising file system compares them.

No case-insensitive file system can be mounted here, so the tests put both spellings side by
side on the case-sensitive one and check that the store treats them as one name.
"""

from __future__ import annotations

import os
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

import pytest

from consolidator.config import Config
from consolidator.context import RootContext
from consolidator.gates import checks
from consolidator.runner import RunOptions, context_for
from consolidator.store.model import INDEX_NAME, Snapshot
from consolidator.store.names import (
    MAX_NAME_BYTES,
    clip,
    collides,
    fits,
    fold,
    same,
    too_long,
)
from consolidator.store.scan import find_index, listing, read_index, scan, walk

MEMORY = "---\nname: {name}\ndescription: about {name}\ntype: user\n---\nBody of {name}.\n"
INDEX = b"# Memory\n- [a](a.md) \xe2\x80\x94 the a memory\n"
SYMLINK_REASON = "symbolic link, not followed"
NS = 1_000_000_000
NOW = datetime(2026, 11, 30, 3, 15, tzinfo=UTC)
NOW_NS = int(NOW.timestamp()) * NS
OLD = NOW_NS - 10 * 86400 * NS

CAFE_NFC = unicodedata.normalize("NFC", "café.md")
CAFE_NFD = unicodedata.normalize("NFD", "café.md")


def write(path: Path, data: bytes, mtime_ns: int = OLD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def memory(root: Path, rel: str, mtime_ns: int = OLD) -> Path:
    return write(root / rel, MEMORY.replace("{name}", Path(rel).stem).encode(), mtime_ns)


def files_of(snapshot: Snapshot) -> set[str]:
    """Every file the scan took for a memory or reported as unparsed."""
    return {m.file for m in snapshot.memories} | {u.rel for u in snapshot.unparsed}


def walked(root: Path) -> set[str]:
    return {rel for rel, _entry, _problem in walk(root)}


def listed(root: Path) -> set[str]:
    return {rel for rel, _problem, _st in listing(root)}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project" / "memory"
    folder.mkdir(parents=True)
    return folder


# --- names: how a case-insensitive, normalising file system compares them ----------------


def test_fold_ignores_case() -> None:
    assert fold("MEMORY.md") == fold("memory.md") == fold("Memory.MD") == "memory.md"


def test_fold_makes_nfd_and_nfc_spellings_equal() -> None:
    assert CAFE_NFC != CAFE_NFD
    assert fold(CAFE_NFC) == fold(CAFE_NFD) == fold("CAFÉ.md")


def test_fold_keeps_names_that_really_differ_apart() -> None:
    assert fold("memory.md") != fold("memories.md")
    assert fold("cafe.md") != fold(CAFE_NFC)
    assert not same("index_a.md", "index_b.md")
    assert same("index_a.md", "Index_A.md")


def test_collides_returns_the_existing_name_it_hits() -> None:
    assert collides("MEMORY.md", ["a.md", "memory.md"]) == "memory.md"
    assert collides("index_a.md", ["Index_A.md"]) == "Index_A.md"
    assert collides(CAFE_NFC, [CAFE_NFD]) == CAFE_NFD
    assert collides(CAFE_NFD, [CAFE_NFC]) == CAFE_NFC


def test_collides_prefers_the_exact_name_when_both_spellings_exist() -> None:
    assert collides("sub", ["Sub", "sub"]) == "sub"


def test_collides_is_none_for_a_free_name() -> None:
    assert collides("new.md", ["a.md", "memory.md", CAFE_NFC]) is None
    assert collides("new.md", []) is None


def test_name_length_is_counted_in_utf8_bytes_not_characters() -> None:
    assert fits("a" * MAX_NAME_BYTES)
    assert not fits("a" * (MAX_NAME_BYTES + 1))
    assert fits("가" * 85)  # 255 bytes
    assert not fits("가" * 86)  # 86 characters, 258 bytes
    assert not fits("")


def test_too_long_names_the_component_over_the_limit() -> None:
    long = "설" * 90
    assert too_long(f"sub/{long}.md") == f"{long}.md"
    assert too_long("sub/short.md") is None


def test_clip_cuts_the_stem_on_a_character_boundary_and_keeps_the_suffix() -> None:
    name = clip("日本" * 100, ".md")
    assert name.endswith(".md")
    assert len(name.encode()) <= MAX_NAME_BYTES
    assert len(name.encode()) > MAX_NAME_BYTES - 3  # as much as fits, no more
    assert name[:-3] == ("日本" * 100)[: len(name) - 3]
    assert clip("short", ".md") == "short.md"
    with pytest.raises(ValueError):
        clip("x", ".md", limit=2)


# --- which file is the index ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["memory.md", "Memory.md", "MEMORY.MD"])
def test_a_case_variant_alone_is_read_as_the_index(root: Path, name: str) -> None:
    write(root / name, INDEX)
    memory(root, "a.md")

    snapshot = scan(root)

    assert snapshot.index.name == name
    assert snapshot.index.text == INDEX.decode()
    assert snapshot.index.stat is not None and snapshot.index.stat.rel == name
    assert snapshot.index.error is None


@pytest.mark.parametrize("name", ["memory.md", "Memory.md"])
def test_a_case_variant_read_as_the_index_is_not_also_a_memory(root: Path, name: str) -> None:
    # frontmatter, so it would parse as a memory if the walk listed it
    write(root / name, b"---\nname: idx\ntype: user\n---\n- [a](a.md)\n")
    memory(root, "a.md")

    snapshot = scan(root)

    assert files_of(snapshot) == {"a.md"}
    assert name not in snapshot.existing_files()
    assert walked(root) == listed(root) == {"a.md"}


def test_memory_md_is_the_index_when_a_case_variant_exists_too(root: Path) -> None:
    write(root / "MEMORY.md", INDEX)
    memory(root, "memory.md")

    snapshot = scan(root)

    assert snapshot.index.name == INDEX_NAME
    assert snapshot.index.text == INDEX.decode()
    assert set(snapshot.by_file()) == {"memory.md"}, "the variant is an ordinary file"
    assert walked(root) == {"memory.md"}


def test_of_several_variants_the_first_in_sorted_order_is_the_index(root: Path) -> None:
    write(root / "memory.md", b"- [b](b.md)\n")
    memory(root, "Memory.md")
    write(root / "mEmOrY.md", b"notes without frontmatter\n")

    snapshot = scan(root)

    assert min(["memory.md", "Memory.md", "mEmOrY.md"]) == "Memory.md"  # code-point order
    assert snapshot.index.name == "Memory.md"
    assert snapshot.index.text is not None and snapshot.index.text.startswith("---\nname: Memory")
    assert set(snapshot.by_file()) == set()
    assert {u.rel for u in snapshot.unparsed} == {"memory.md", "mEmOrY.md"}
    assert walked(root) == listed(root) == {"memory.md", "mEmOrY.md"}


def test_a_root_without_any_index_reads_as_missing_named_memory_md(root: Path) -> None:
    memory(root, "memories.md")

    index = read_index(root)

    assert (index.text, index.stat, index.error, index.name) == (None, None, None, INDEX_NAME)
    assert find_index(root) is None


def test_a_case_variant_in_a_sub_folder_is_an_ordinary_memory(root: Path) -> None:
    write(root / "sub" / "MEMORY.md", b"# a nested index\n")
    memory(root, "sub/memory.md")
    memory(root, "deeper/Memory.md")

    snapshot = scan(root)

    assert snapshot.index.stat is None
    assert set(snapshot.by_file()) == {"sub/memory.md", "deeper/Memory.md"}
    # (the folder's own MEMORY.md is walked as there, with the reason it is no memory)
    assert walked(root) == {"sub/memory.md", "deeper/Memory.md", "sub/MEMORY.md"}


def test_a_folder_named_like_the_index_is_not_the_index_and_its_memories_are_read(
    root: Path,
) -> None:
    memory(root, "memory.md/a.md")

    snapshot = scan(root)

    assert find_index(root) is None
    assert snapshot.index.name == INDEX_NAME and snapshot.index.stat is None
    assert set(snapshot.by_file()) == {"memory.md/a.md"}


def test_a_symlinked_case_variant_is_the_index_reported_not_followed(
    root: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "elsewhere.md", INDEX)
    (root / "memory.md").symlink_to(outside)
    memory(root, "a.md")

    snapshot = scan(root)

    assert snapshot.index.name == "memory.md"
    assert snapshot.index.error == SYMLINK_REASON
    assert snapshot.index.text is None and snapshot.index.stat is None
    assert files_of(snapshot) == {"a.md"}, "the index is reported once, as the index"
    assert walked(root) == {"a.md"}


def test_a_symlinked_memory_md_is_reported_as_the_index_only(root: Path) -> None:
    (root / "MEMORY.md").symlink_to("nowhere.md")
    memory(root, "memory.md")

    snapshot = scan(root)

    assert snapshot.index.name == INDEX_NAME
    assert snapshot.index.error == SYMLINK_REASON
    assert files_of(snapshot) == {"memory.md"}


def test_a_case_variant_index_with_invalid_utf8_keeps_its_name_and_stat(root: Path) -> None:
    write(root / "memory.md", b"- [a](a.md) \xe9\n")

    index = read_index(root)

    assert index.name == "memory.md"
    assert index.error == "invalid UTF-8 at byte 12"
    assert index.stat is not None and index.stat.rel == "memory.md"


def test_walk_skips_the_index_it_is_told_even_when_another_variant_would_be_picked(
    root: Path,
) -> None:
    write(root / "Memory.md", INDEX)
    write(root / "memory.md", INDEX)

    assert {rel for rel, _e, _p in walk(root, "memory.md")} == {"Memory.md"}
    assert walked(root) == {"memory.md"}


# --- the gates see the same root --------------------------------------------------------


def _ctx(root: Path) -> RootContext:
    opts = RunOptions(state_dir=root.parent.parent / "state", dry_run=True, force=False,
                      trigger="run", env={})
    return context_for(root, Config(), opts, NOW, "20261130T031500Z-test")


def test_memory_dir_gate_does_not_count_a_lowercase_index_as_a_memory(root: Path) -> None:
    write(root / "memory.md", b"---\nname: idx\ntype: user\n---\n- [a](a.md)\n")

    assert checks.memory_dir(_ctx(root)) == (False, "holds no memory file")


def test_a_lowercase_index_written_just_now_is_busy(root: Path) -> None:
    """The index is a file a live session writes too, whatever its case."""
    memory(root, "a.md")
    write(root / "memory.md", INDEX, mtime_ns=NOW_NS - NS)

    busy = checks.busy_index(_ctx(root))

    assert busy is not None and "memory.md" in busy, busy
