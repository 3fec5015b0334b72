"""A paragraph's bold lead that gives a date in words of its own ("**Zone model — re-verified
2026-06-29 (final review).** …") dates its paragraph, and the list right under it, as a label
does. A blank line, an undated lead, or a lead of two dates (a span) dates nothing."""

from __future__ import annotations

from datetime import datetime

import pytest

from consolidator.detect.dates.relative import find_relative

WRITTEN = datetime(2026, 10, 1, 12, 0)


def days(body: str) -> list[tuple[str, str]]:
    return [(f.phrase, f.resolved) for f in find_relative(body, WRITTEN, "", False)]


@pytest.mark.parametrize("body", [
    "**Zone model — re-verified 2026-06-29 (final review).** The demo moved to tomorrow.\n",
    "**Zone model — re-verified 2026-06-29 (final review).** View 0026 is live.\n"
    "- Each van is one zone.\n- No-login mode skips the check: a win for tomorrow.\n",
    "Context (2026-06-29): the zone model was checked again.\n- The demo moved to tomorrow.\n",
    "**2026-06-29 22:41 — ALL SECTIONS TRAINED.** The last sweep runs tomorrow.\n",
])
def test_a_dated_lead_dates_its_paragraph_and_the_list_under_it(body: str) -> None:
    assert days(body) == [("tomorrow", "2026-06-30")]


@pytest.mark.parametrize("body", [
    # A blank line ends the paragraph.
    "**Zone model — re-verified 2026-06-29.** View 0026 is live.\n\n- The demo moved to "
    "tomorrow.\n",
    # A lead giving no date, or a span of two.
    "**Zone model.** View 0026 is live.\n- The demo moved to tomorrow.\n",
    "**Zone model from 2026-06-01 to 2026-06-29.** View 0026.\n- The demo moved to tomorrow.\n",
    # A list item's own date is that item's: the next item is of no day the text gives.
    "- 2026-06-29: shipped the zone model.\n- The demo moved to tomorrow.\n",
])
def test_what_a_lead_does_not_date_is_left(body: str) -> None:
    assert days(body) == []
