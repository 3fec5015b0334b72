"""A folder's own MEMORY.md is never changed here, so a link in it could not follow a memory
that moves: the merge or archive that would move out a memory it links to is left out, and
the report says why. Without such a link the same merge goes ahead."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from consolidator.cli import main

RULE = "Deploys go through the release branch, never from a laptop.\n"


def put(path: Path, text: str, days: float = 3) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    when = time.time() - days * 86400
    os.utime(path, (when, when))


def memory(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: deploy rules\ntype: feedback\n---\n{body}"


@pytest.mark.parametrize(("nested", "link"), [
    (True, "[The deploy rule](../deploy_rule.md)"),
    (True, "[[deploy_rule]]"),
    (False, ""),
])
def test_a_memory_a_folders_own_index_links_to_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], nested: bool, link: str
) -> None:
    root = tmp_path / "memory"
    put(root / "MEMORY.md", "# Memory\n\n- [Deploys](deploys.md) — deploy rules\n", 3)
    put(root / "deploys.md", memory("deploys", RULE + "Tag every release.\n"), 3)
    put(root / "deploy_rule.md", memory("deploy_rule", RULE), 2)
    if nested:
        put(root / "ops" / "MEMORY.md", f"- {link}\n", 2)
    index_before = (root / "ops" / "MEMORY.md").read_bytes() if nested else b""

    assert main(["run", "--force", "--json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    doc = json.loads(capsys.readouterr().out)["roots"][0]

    assert (root / "deploy_rule.md").exists() == nested
    if nested:
        assert any("ops/MEMORY.md links to deploy_rule.md" in n for n in doc["notes"])
        assert (root / "ops" / "MEMORY.md").read_bytes() == index_before


@pytest.mark.parametrize("own_index", [True, False])
def test_a_memory_its_folders_own_index_lists_gets_no_second_pointer_at_the_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], own_index: bool
) -> None:
    """A sub-folder with its own MEMORY.md (each agent's folder under agent-memory/, or a
    user's index of that folder) lists its memories there: the root's index gets no second
    pointer to them. A memory that index does not list, and its twin in a folder with no
    index of its own, get one."""
    root = tmp_path / "memory"
    put(root / "MEMORY.md", "# Memory\n\n- [Deploys](deploys.md) — deploy rules\n", 3)
    put(root / "deploys.md", memory("deploys", RULE), 3)
    put(root / "reviewer" / "style.md", memory("style", "Review for naming first.\n"), 3)
    put(root / "reviewer" / "extra.md", memory("extra", "Flag any TODO left in a diff.\n"), 3)
    if own_index:
        put(root / "reviewer" / "MEMORY.md", "- [Style](style.md) — what to review first\n", 3)

    assert main(["run", "--force", "--json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    doc = json.loads(capsys.readouterr().out)["roots"][0]

    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "](reviewer/extra.md)" in index
    assert ("](reviewer/style.md)" in index) != own_index
    assert sorted(doc["index"]["added"]) == (
        ["reviewer/extra.md"] if own_index else ["reviewer/extra.md", "reviewer/style.md"])
