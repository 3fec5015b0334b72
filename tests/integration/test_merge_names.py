"""A merge of equal copies keeps the name the index and other memories already use, not the
copy's (``_copy.md``, ``_2.md``), so the index keeps one pointer to one file."""

from __future__ import annotations

import os
import time
from pathlib import Path

from consolidator.cli import main

DAY = 86400
BODY = ("- Deploys go through the release branch, never from main.\n"
        "- Tag the release before the deploy job starts.\n")


def put(root: Path, rel: str, days: float) -> None:
    path = root / rel
    path.write_text(f"---\nname: deploy rules\ndescription: how we deploy\ntype: feedback\n---\n"
                    f"{BODY}", encoding="utf-8")
    when = time.time() - days * DAY
    os.utime(path, (when, when))


def test_the_linked_name_survives_a_merge_of_equal_copies(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    put(root, "feedback_deploy.md", days=30)
    put(root, "feedback_deploy_2.md", days=2)  # the newer copy, linked from nowhere
    (root / "MEMORY.md").write_text("# Memory\n\n- [Deploy rules](feedback_deploy.md) — how we "
                                    "deploy\n", encoding="utf-8")
    os.utime(root / "MEMORY.md", (time.time() - DAY, time.time() - DAY))
    assert main(["run", "--force", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    assert sorted(p.name for p in root.glob("*.md")) == ["MEMORY.md", "feedback_deploy.md"]
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert index.count("feedback_deploy.md") == 1 and "_2.md" not in index


def test_with_no_link_to_either_the_original_name_survives_its_newer_copy(
    tmp_path: Path,
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    put(root, "feedback_deploy.md", days=30)
    put(root, "feedback_deploy copy.md", days=2)  # newer, and named as a copy
    assert main(["run", "--force", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    assert sorted(p.name for p in root.glob("*.md")) == ["MEMORY.md", "feedback_deploy.md"]
