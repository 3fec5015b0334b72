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


@pytest.mark.parametrize(("layout", "own_listed"), [
    ("linked", True),  # the root's index links the sub-folder's, which lists style.md
    ("agents", True),  # every sub-folder of agent-memory/ is one agent's store
    ("unlinked", False),  # nothing Claude Code loads reaches the sub-folder's index
    ("none", False),  # no index in the sub-folder
])
def test_a_memory_a_sub_folders_index_lists_gets_no_second_pointer_where_that_one_is_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str, own_listed: bool
) -> None:
    """A sub-folder with its own MEMORY.md lists its memories there. Where the root's index
    links that one, or the sub-folders are agents' stores, the root's index gets no second
    pointer to them; otherwise Claude Code, which loads only the root's, would never reach
    them, and they get one. A memory that index does not list gets one either way. The run
    applies a merge first, so the index is planned on the folder as read again."""
    root = tmp_path / ("agent-memory" if layout == "agents" else "memory")
    link = ("- [Reviewer's notes](reviewer/MEMORY.md) — its own index\n"
            if layout == "linked" else "")
    put(root / "MEMORY.md", f"# Memory\n\n- [Deploys](deploys.md) — deploy rules\n{link}", 3)
    put(root / "deploys.md", memory("deploys", RULE + "Tag every release.\n"), 3)
    put(root / "deploy_rule.md", memory("deploy_rule", RULE), 2)  # merged into deploys.md
    put(root / "reviewer" / "style.md", memory("style", "Review for naming first.\n"), 3)
    put(root / "reviewer" / "extra.md", memory("extra", "Flag any TODO left in a diff.\n"), 3)
    if layout != "none":
        put(root / "reviewer" / "MEMORY.md", "- [Style](style.md) — what to review first\n", 3)

    assert main(["run", "--force", "--json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    doc = json.loads(capsys.readouterr().out)["roots"][0]

    assert not (root / "deploy_rule.md").exists()  # the merge applied
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "](reviewer/extra.md)" in index
    assert ("](reviewer/style.md)" in index) != own_listed
    assert sorted(doc["index"]["added"]) == (
        ["reviewer/extra.md"] if own_listed else ["reviewer/extra.md", "reviewer/style.md"])


def test_an_apply_refuses_to_move_out_what_a_folders_own_index_now_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run proposes archiving a superseded memory; before the answer, a folder's own
    index starts linking it. The apply refuses that item, as a run would have held it back,
    and the memory and that index stay as they are."""
    root = tmp_path / "memory"
    state = str(tmp_path / "state")
    put(root / "MEMORY.md", "# Memory\n\n- [Old](old.md) — old plan\n"
        "- [Deploys](deploys.md) — deploy rules\n", 3)
    put(root / "deploys.md", memory("deploys", RULE), 3)
    put(root / "old.md", "---\nname: old\ndescription: old plan\ntype: project\n---\n"
        "Status: SUPERSEDED by the v3 migration plan.\nMigrate the orders table.\n", 100)
    assert main(["run", "--force", "--json", "--memory-dir", str(root),
                 "--state-dir", state]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert ("archive", "old.md") in {(a["op"], a["file"]) for a in doc["roots"][0]["actions"]}
    put(root / "ops" / "MEMORY.md", "- [Old plan](../old.md) — kept for ops\n", 2)
    before = (root / "old.md").read_bytes()

    main(["apply", doc["run_id"], "--state-dir", state])
    out = capsys.readouterr().out

    assert (root / "old.md").read_bytes() == before
    assert "ops/MEMORY.md links to old.md" in out


def test_in_a_folder_of_agents_stores_only_each_agents_own_index_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under agent-memory/, each agent's own index (one level down) lists its memories; an
    index further down that no index links lists nothing Claude Code reaches, and its
    memory gets a pointer at the top."""
    root = tmp_path / "agent-memory"
    put(root / "MEMORY.md", "# Memory\n\n- [Deploys](deploys.md) — deploy rules\n", 3)
    put(root / "deploys.md", memory("deploys", RULE), 3)
    put(root / "reviewer" / "style.md", memory("style", "Review for naming first.\n"), 3)
    put(root / "reviewer" / "MEMORY.md", "- [Style](style.md) — what to review first\n", 3)
    put(root / "reviewer" / "sub" / "deep.md", memory("deep", "Check the migrations.\n"), 3)
    put(root / "reviewer" / "sub" / "MEMORY.md", "- [Deep](deep.md) — migrations\n", 3)

    assert main(["run", "--force", "--json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    doc = json.loads(capsys.readouterr().out)["roots"][0]

    assert doc["index"]["added"] == ["reviewer/sub/deep.md"]
