"""The one clock's duration forms, shared by ``history --since`` and ``prune --older-than``."""

from __future__ import annotations

import pytest

from consolidator import clock


@pytest.mark.parametrize(("text", "ns", "words"), [
    ("30", 30 * clock.DAY_NS, "30 days"),
    ("30d", 30 * clock.DAY_NS, "30 days"),
    ("1d", clock.DAY_NS, "1 day"),
    ("12h", 12 * clock.HOUR_NS, "12 hours"),
    ("2w", 14 * clock.DAY_NS, "2 weeks"),
    ("90m", 90 * clock.MINUTE_NS, "90 minutes"),
    ("0", 0, "0 days"),
])
def test_a_duration_is_a_number_of_days_or_a_number_with_its_unit(
    text: str, ns: int, words: str
) -> None:
    found = clock.duration(text)
    assert (found.ns, found.words) == (ns, words)


@pytest.mark.parametrize("text", ["", "d", "-3", "3x", "1.5d", "30 d", "2026-11-01", "3dd"])
def test_anything_else_is_no_duration(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        clock.duration(text)
