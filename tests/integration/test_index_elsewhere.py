"""A folder with no MEMORY.md may keep its index under another name ("INDICE.md", a note
with no frontmatter linking its memories): a run makes no second index, which would load
into every session what that index's owner may keep out of them, and moves no memory it
links. A note linking only a few of the memories is no index, and one is made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from consolidator.cli import main
from tests.integration.test_nested_index_links import put

RULE = "Deploys go through the release branch, never from a laptop.\n"


def memory(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {name} notes\ntype: project\n---\n{body}"


def run(root: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["run", "--force", "--json", "--memory-dir", str(root),
                 "--state-dir", str(state)]) == 0
    return json.loads(capsys.readouterr().out)["roots"][0]


@pytest.mark.parametrize(("linked", "archived"), [(3, 0), (3, 4), (1, 0)])
def test_an_index_under_another_name_is_never_duplicated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], linked: int, archived: int
) -> None:
    """(Memories kept in a folder of old notes are listed by no index: they do not count.)"""
    root = tmp_path / "memory"
    put(root / "deploys.md", memory("deploys", RULE + "Tag every release.\n"))
    put(root / "deploy_rule.md", memory("deploy_rule", RULE), 2)
    put(root / "history.md", memory("history", "The first version ran on one server.\n"))
    for n in range(archived):
        put(root / "archive" / f"old_{n}.md", memory(f"old_{n}", f"Old note {n}.\n"))
    files = ["deploy_rule.md", "deploys.md", "history.md"][:linked]
    own = ("# Notes from before\n\n> These stay out of live memory.\n\n"
           + "".join(f"- [{f[:-3]}]({f}) — old notes\n" for f in files))
    put(root / "INDICE.md", own)

    doc = run(root, tmp_path / "state", capsys)

    assert (root / "INDICE.md").read_text(encoding="utf-8") == own
    said = [n for n in doc["notes"] if "INDICE.md" in n]
    if linked == 3:
        assert not (root / "MEMORY.md").exists()
        assert (root / "deploy_rule.md").exists()  # the merge waits: its link could not follow
        assert any("there is no MEMORY.md, and INDICE.md links most of the memories" in n
                   for n in said)
    else:  # a note linking one memory in passing is no index, and holds nothing
        assert said == []
        assert "history.md" in (root / "MEMORY.md").read_text(encoding="utf-8")
        assert not (root / "deploy_rule.md").exists()  # merged into deploys.md
