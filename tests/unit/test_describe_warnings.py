"""Each memory's own warnings: what its frontmatter lacks, and nothing when it lacks nothing."""

from __future__ import annotations

import hashlib

import pytest

from consolidator.detect.describe import memory_warnings
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory


def memory(head: str) -> Memory:
    data = f"---\n{head}---\nDeploy with tags.\n".encode()
    stat = FileStat("deploys.md", len(data), 0, 0o644, hashlib.sha256(data).hexdigest())
    return Memory(stat, parse(data))


@pytest.mark.parametrize(("head", "warning"), [
    ('name: ""\ndescription: deploy notes\ntype: project\n',
     "no name in frontmatter (its file name, 'deploys', stands in)"),
    ("description: deploy notes\ntype: project\n",
     "no name in frontmatter (its file name, 'deploys', stands in)"),
    ("name: deploys\ntype: project\n", "no description in frontmatter"),
    ("name: deploys\ndescription: deploy notes\n", "no type in frontmatter"),
])
def test_what_the_frontmatter_lacks_is_said(head: str, warning: str) -> None:
    assert memory_warnings(memory(head), 0, set()) == [warning]


def test_a_whole_frontmatter_draws_no_warning() -> None:
    head = "name: deploys\ndescription: deploy notes\ntype: project\n"
    assert memory_warnings(memory(head), 0, set()) == []
