"""A merge holds a line only where the survivor says it live, as the absorbed memory says it:
not in code or a comment, not under a label that turns it round, not with its steps in
another order or an identifier in another case. Each refusal has its twin that merges."""

from __future__ import annotations

import hashlib
from datetime import datetime

import pytest

from consolidator.detect.overlap.duplicates import find_duplicates
from consolidator.detect.text import exact_line
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory

OLD = datetime(2026, 4, 7, 12, 0)
NEW = datetime(2026, 9, 30, 12, 0)
RULE = "Always deploy on Fridays.\nTag every release.\n"


def memory(file: str, body: str, written: datetime = OLD) -> Memory:
    raw = f"---\nname: {file[:-3]}\ndescription: deploy rules\ntype: feedback\n---\n{body}".encode()
    stat = FileStat(rel=file, size=len(raw), mtime_ns=int(written.timestamp() * 1e9),
                    mode=0o644, sha256=hashlib.sha256(raw).hexdigest())
    return Memory(stat, parse(raw))


def merged(inner: str, outer: str) -> bool:
    return bool(find_duplicates([memory("b.md", inner, NEW), memory("a.md", outer)]))


@pytest.mark.parametrize("outer", [
    "Deploy notes.\n<!--\nAlways deploy on Fridays.\nTag every release.\n-->\nUse tags.\n",
    "Old config, do not use:\n```\nalways deploy on fridays\ntag every release\n```\nUse tags.\n",
    "Use tags.\n\nIdeas we rejected:\n- Always deploy on Fridays.\n- Tag every release.\n",
    "# Deploys\n\nUse tags.\n\n## Rejected\n\n- Always deploy on Fridays.\n- Tag every release.\n",
    "部署说明。\n\n我们否决的做法：\n- Always deploy on Fridays.\n- Tag every release.\n",
])
def test_a_line_held_only_in_code_a_comment_or_under_another_label_is_not_held(
        outer: str) -> None:
    assert not merged(RULE, outer)


@pytest.mark.parametrize("outer", [
    "Always deploy on Fridays.\nTag every release.\nUse tags.\n",
    "# Deploy rules\n\n- Always deploy on Fridays.\n- Tag every release.\n- Use tags.\n",
    "Use tags.\n\n- Always deploy on Fridays.\n- Tag every release.\n",
])
def test_the_same_lines_said_live_are_held(outer: str) -> None:
    assert merged(RULE, outer)


def test_a_label_both_memories_give_leads_the_lines_alike() -> None:
    inner = "Release rules:\n- Always deploy on Fridays.\n- Tag every release.\n"
    outer = "Use tags.\n\nRelease rules:\n- Always deploy on Fridays.\n- Tag every release.\n"
    assert merged(inner, outer)


def test_numbered_steps_are_held_only_in_their_order() -> None:
    steps = "1. Run the migrations.\n2. Deploy the app.\n"
    assert not merged(steps, "1. Deploy the app.\n2. Run the migrations.\n3. Smoke test.\n")
    assert merged(steps, "1. Run the migrations.\n2. Deploy the app.\n3. Smoke test.\n")
    # Equal lines, another order: two memories, not one.
    assert not merged(steps, "1. Deploy the app.\n2. Run the migrations.\n")
    # Bullets claim no order.
    assert merged("- Run the migrations.\n- Deploy the app.\n",
                  "- Deploy the app.\n- Run the migrations.\n- Smoke test.\n")


def test_an_identifier_keeps_its_case_and_a_plain_word_does_not() -> None:
    assert not merged("Set node_env=production before the build.\n",
                      "Set NODE_ENV=production before the build.\nUse tags.\n")
    assert exact_line("Set nodeEnv first") != exact_line("set nodeenv first")
    assert exact_line("ALWAYS deploy on Fridays") == exact_line("always deploy on fridays")


def test_the_same_lines_under_swapped_labels_are_two_memories() -> None:
    """Each line must stand under the label its memory gives it, not under any label the
    memory holds: "Decided: A / Rejected: B" is not "Decided: B / Rejected: A"."""
    one = "Decided:\n- Always deploy on Fridays.\nRejected:\n- Use Redis for sessions.\n"
    other = "Decided:\n- Use Redis for sessions.\nRejected:\n- Always deploy on Fridays.\n"
    assert not merged(one, other)
    assert not merged(one, other + "Also: tag every release.\n")
    assert merged(one, one + "\nTag every release.\n")
