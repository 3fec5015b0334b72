"""No code path creates a second index, or any name an existing file already has on a
case-insensitive or normalising file system (macOS, Windows).

The store's create step is driven through a real :class:`Transaction` on a real root and
state dir, and whole runs through ``consolidator.cli.main``. This file system is
case-sensitive, so both spellings can sit side by side: the tests check the store refuses
the second one before anything is journaled or written.
"""

from __future__ import annotations

import json
import os
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main
from consolidator.store.journal import load
from consolidator.store.names import MAX_NAME_BYTES
from consolidator.store.transaction import Transaction
from tests.conftest import snapshot_tree

DAY = 86400
NOW_NS = 1_700_000_000_000_000_000
DATA = b"---\nname: new\ndescription: a new memory\ntype: project\n---\nNew.\n"
LOCKS = (".consolidate-lock", ".consolidate.flock")
CAFE_NFC = unicodedata.normalize("NFC", "café.md")
CAFE_NFD = unicodedata.normalize("NFD", "café.md")


def memory_text(stem: str, body: str) -> bytes:
    return (f"---\nname: {stem}\ndescription: Notes about {stem.replace('_', ' ')}\n"
            f"type: project\n---\n{body}").encode()


def put(root: Path, rel: str, data: bytes, days: float = 10) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))
    return path



@pytest.fixture
def tx(root: Path, tmp_path: Path) -> Transaction:
    return Transaction(root, tmp_path / "state" / "runs" / "r1", {"run_id": "r1"})


def intents(tx: Transaction) -> list[tuple[str, str]]:
    return [(e.op, e.file) for e in load(tx.run_dir).intents]


# --- the store's create step ----------------------------------------------------------------


def test_creating_memory_md_beside_memory_md_raises_and_writes_nothing(
    root: Path, tx: Transaction
) -> None:
    put(root, "memory.md", b"- [a](a.md)\n")
    before = snapshot_tree(root)

    with pytest.raises(FileExistsError, match=r"MEMORY\.md not created: memory\.md already"):
        tx.create("MEMORY.md", b"# Memory\n", NOW_NS, "index rebuilt", 0o644)

    assert snapshot_tree(root) == before
    assert sorted(os.listdir(root)) == ["memory.md"], "no temp file left either"
    assert intents(tx) == [], "nothing journaled"


def test_creating_a_topic_beside_its_case_variant_names_the_existing_file(
    root: Path, tx: Transaction
) -> None:
    put(root, "Index_A.md", DATA)
    before = snapshot_tree(root)

    with pytest.raises(FileExistsError) as caught:
        tx.create("index_a.md", DATA, NOW_NS, "index overflow")

    assert "Index_A.md" in str(caught.value)
    assert "case-insensitive" in str(caught.value)
    assert snapshot_tree(root) == before
    assert intents(tx) == []


@pytest.mark.parametrize(("existing", "new"), [(CAFE_NFD, CAFE_NFC), (CAFE_NFC, CAFE_NFD)])
def test_creating_a_name_beside_its_other_unicode_normalisation_raises(
    root: Path, tx: Transaction, existing: str, new: str
) -> None:
    put(root, existing, DATA)

    with pytest.raises(FileExistsError):
        tx.create(new, DATA, NOW_NS, "index overflow")

    assert os.listdir(root) == [existing]
    assert intents(tx) == []


def test_creating_in_a_folder_whose_name_differs_only_in_case_raises_and_makes_no_folder(
    root: Path, tx: Transaction
) -> None:
    put(root, "notes/a.md", DATA)

    with pytest.raises(FileExistsError, match=r"notes already exists"):
        tx.create("Notes/b.md", DATA, NOW_NS, "index overflow")

    assert sorted(os.listdir(root)) == ["notes"]
    assert os.listdir(root / "notes") == ["a.md"]
    assert intents(tx) == []


def test_creating_a_file_in_an_existing_folder_and_in_a_new_one_still_works(
    root: Path, tx: Transaction
) -> None:
    put(root, "notes/a.md", DATA)
    put(root, "memory.md", b"- [a](notes/a.md)\n")

    tx.create("notes/b.md", DATA, NOW_NS, "index overflow", 0o600)
    tx.create("topics/deep/c.md", DATA, NOW_NS, "index overflow")
    tx.create("index_memory.md", DATA, NOW_NS, "index overflow")

    assert (root / "notes" / "b.md").read_bytes() == DATA
    assert (root / "notes" / "b.md").stat().st_mode & 0o777 == 0o600
    assert (root / "notes" / "b.md").stat().st_mtime_ns == NOW_NS
    assert (root / "topics" / "deep" / "c.md").read_bytes() == DATA
    assert intents(tx) == [("create", "notes/b.md"), ("create", "topics/deep/c.md"),
                           ("create", "index_memory.md")]


def test_creating_an_existing_name_still_raises_and_keeps_the_file(
    root: Path, tx: Transaction
) -> None:
    put(root, "a.md", b"old\n")

    with pytest.raises(FileExistsError, match=r"a\.md already exists"):
        tx.create("a.md", DATA, NOW_NS, "index overflow")

    assert (root / "a.md").read_bytes() == b"old\n"
    assert intents(tx) == []


def test_a_name_of_exactly_255_bytes_is_created(root: Path, tx: Transaction) -> None:
    name = "가" * ((MAX_NAME_BYTES - 3) // 3) + ".md"  # 84 * 3 + 3 = 255 bytes
    assert len(name.encode()) == MAX_NAME_BYTES

    tx.create(name, DATA, NOW_NS, "index overflow")

    assert (root / name).read_bytes() == DATA
    assert os.listdir(root) == [name], "its temp file was not too long, and is gone"


def test_a_name_over_255_bytes_is_refused_before_anything_is_journaled(
    root: Path, tx: Transaction
) -> None:
    name = "가" * 85 + ".md"  # 258 bytes

    with pytest.raises(OSError, match="over 255 bytes"):
        tx.create(name, DATA, NOW_NS, "index overflow")

    assert os.listdir(root) == []
    assert intents(tx) == []


# --- whole runs -------------------------------------------------------------------------------


def run(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    (tmp_path / "project").mkdir(exist_ok=True)
    argv = ["run", "--force", "--json", "--apply", "all", "--memory-dir", str(root),
            "--state-dir", str(tmp_path / "state"), "--project-root", str(tmp_path / "project")]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    (report,) = doc["roots"]
    return dict(report)


def names(root: Path) -> set[str]:
    return {n for n in os.listdir(root) if n not in LOCKS}


def test_a_run_rebuilds_a_lowercase_index_in_place_and_creates_no_memory_md(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "memory.md", b"# Memory\n- [Old](project_old.md) \xe2\x80\x94 gone long ago\n")
    put(root, "project_api.md", memory_text("project_api", "The API is versioned.\n"))

    report = run(root, tmp_path, capsys)

    assert report["status"] == "consolidated"
    assert names(root) == {"memory.md", "project_api.md"}
    assert "project_api.md" in (root / "memory.md").read_text()
    assert "memory.md" not in {u["file"] for u in report["unparsed"]}
    assert report["index"]["added"] == ["project_api.md"]
    assert [(a["op"], a["file"]) for a in report["actions"]] == [("rewrite", "memory.md")]


def test_a_run_with_a_symlinked_index_variant_leaves_it_and_creates_no_memory_md(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = put(tmp_path, "elsewhere.md", b"- [x](x.md)\n")
    (root / "memory.md").symlink_to(outside)
    put(root, "project_api.md", memory_text("project_api", "The API is versioned.\n"))

    report = run(root, tmp_path, capsys)

    assert names(root) == {"memory.md", "project_api.md"}
    assert (root / "memory.md").is_symlink()
    assert outside.read_bytes() == b"- [x](x.md)\n"
    assert "memory.md" not in {u["file"] for u in report["unparsed"]}


def test_a_run_never_creates_memory_md_beside_a_folder_named_memory_md(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "memory.md/project_api.md",
        memory_text("project_api", "The API is versioned.\n"))

    report = run(root, tmp_path, capsys)

    assert names(root) == {"memory.md"}
    assert os.listdir(root / "memory.md") == ["project_api.md"]
    assert any("memory.md already exists" in s for s in report["skipped"]), report["skipped"]
