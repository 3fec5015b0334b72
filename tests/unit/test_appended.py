"""Lines appended to a memory (a merged memory's description, moved index lines, a note that
it supersedes another) land after the text as text: a code block or an HTML comment the body
leaves open is closed first, where Markdown would end it anyway, so what it holds reads as
before and nothing added is hidden."""

from __future__ import annotations

import pytest

from consolidator.decide.bodies import appended, closed


@pytest.mark.parametrize(("body", "closer"), [
    ("Setup:\n```bash\nmake install\n", "```"),
    ("Setup:\n~~~~\nmake install", "~~~~"),
    ("Body.\n<!-- a comment never closed\nstill hidden\n", "-->"),
])
def test_an_open_block_is_closed_before_the_lines_added(body: str, closer: str) -> None:
    out = appended(body, ["- Index note: deploys run in CI"], "\n")
    assert out.startswith(body.rstrip("\n") + "\n" + closer + "\n")
    assert out.endswith(f"{closer}\n- Index note: deploys run in CI\n")


@pytest.mark.parametrize("body", [
    "Setup:\n```bash\nmake install\n```\n",
    "Body.\n<!-- a comment -->\n",
    "Body.\n<!--\nhidden\n-->\n",
    "No code at all",
    # a fence in a list item is closed by the item's end, not the text's: left as it is
    "- Setup:\n  ```\n  make install\n- Next step\n",
])
def test_a_body_with_nothing_open_only_gains_its_line_end(body: str) -> None:
    assert closed(body, "\n") == (body if body.endswith("\n") else body + "\n")


def test_a_crlf_body_is_closed_with_its_own_line_end() -> None:
    assert closed("Setup:\r\n```\r\nmake\r\n", "\r\n") == "Setup:\r\n```\r\nmake\r\n```\r\n"
