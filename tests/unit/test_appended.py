"""Lines appended to a memory (a merged memory's description, moved index lines, a note that
it supersedes another) land after the text as a block of their own: a code block or an HTML
comment the body leaves open is closed first, where Markdown would end it anyway, so what it
holds reads as before and nothing added is hidden; and a blank line keeps them out of the
list or paragraph before them."""

from __future__ import annotations

import pytest

from consolidator.decide.bodies import appended, closed

NOTE = "- Index note: deploys run in CI"


@pytest.mark.parametrize(("body", "closer"), [
    ("Setup:\n```bash\nmake install\n", "```"),
    ("Setup:\n~~~~\nmake install", "~~~~"),
    ("Body.\n<!-- a comment never closed\nstill hidden\n", "-->"),
    ("Intro paragraph.\n\n  ```bash\n  make deploy\n", "```"),  # indented, not in a list
])
def test_an_open_block_is_closed_before_the_lines_added(body: str, closer: str) -> None:
    out = appended(body, [NOTE], "\n")
    assert out == body.rstrip("\n") + f"\n{closer}\n\n{NOTE}\n"


@pytest.mark.parametrize("body", [
    "Setup:\n```bash\nmake install\n```\n",
    "Body.\n<!-- a comment -->\n",
    "Body.\n<!--\nhidden\n-->\n",
    "No code at all",
    "Decided:\n- Always deploy on Fridays.\nRejected:\n- Redis for sessions.\n",
    # a fence in a list item is closed by the item's end, not the text's: left as it is
    "- Setup:\n  ```\n  make install\n- Next step\n",
    # a fence inside a comment is the comment's text
    "Intro.\n\n<!--\n```\nold\n-->\n",
])
def test_a_body_with_nothing_open_gains_a_blank_line_before_the_block(body: str) -> None:
    assert closed(body, "\n") == body.rstrip("\n") + "\n\n"
    assert appended(body, [NOTE], "\n").endswith(f"\n\n{NOTE}\n")


def test_a_body_ending_in_a_blank_line_gains_nothing() -> None:
    assert closed("Body.\n\n", "\n") == "Body.\n\n"
    assert closed("", "\n") == ""


def test_a_crlf_body_is_closed_with_its_own_line_end() -> None:
    assert closed("Setup:\r\n```\r\nmake\r\n", "\r\n") == "Setup:\r\n```\r\nmake\r\n```\r\n\r\n"
