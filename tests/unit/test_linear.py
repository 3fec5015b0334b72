"""Every reader of a memory's text stays linear on hostile input (issue 14).

The inputs and stages are bench/linear.py's: a unit repeated to a size (credential words with
no value after them, ``[x](``, runs of spaces and punctuation, ``**``, backticks, digits like
dates, CJK, paths, URLs, headings padded with spaces) read by a dry-run plan of a root holding
it as a memory (every detector, the index rebuild and both reports), as two memories that
detect compares, or as its MEMORY.md (the rebuild reads, values and shrinks it), by the link
parsing of MEMORY.md and memory bodies, by the secret scan and redaction, and by the check of
a model's merged text. From 64 KB to 256 KB linear work grows about 4x and quadratic work
16x: the bound here is loose (``RATIO``) and applies only when the 64 KB run is long enough
to time (``NOISE_FLOOR``), so a busy machine does not fail it. ``python bench/linear.py``
prints the exact table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import linear  # noqa: E402

KB = 1024
STAGES = ("memory", "pair", "index", "links", "redact", "claims")
RATIO = 12.0
NOISE_FLOOR = 0.004  # seconds at 64 KB below which a ratio measures the timer, not the work
# Seconds at 256 KB past which a stage has run away (a guard against a hang, not a speed
# target: the ratio above is what tells linear from quadratic, and bench/linear.py reports
# the times; on a slow or busy machine the slowest stage takes 3 to 6 s).
CEILING = 30.0


def _timed(stage: str, text: str, runs: int) -> float:
    return linear.best_time(linear.STAGES[stage], text, runs)


@pytest.mark.slow  # 20 s in all: CI runs it after the other slow tests, alone
@pytest.mark.alone
@pytest.mark.parametrize("name", list(linear.INPUTS))
def test_each_reader_of_memory_text_takes_time_linear_in_its_size(name: str) -> None:
    small_text, large_text = linear.INPUTS[name](64 * KB), linear.INPUTS[name](256 * KB)
    for stage in STAGES:
        small, large = _timed(stage, small_text, 1), _timed(stage, large_text, 1)
        if small > NOISE_FLOOR and large > RATIO * small:  # measure again before judging
            small, large = _timed(stage, small_text, 3), _timed(stage, large_text, 3)
        assert large < CEILING, f"{stage}: {large:.2f} s at 256 KB"
        if small > NOISE_FLOOR:
            assert large <= RATIO * small, (
                f"{stage}: {small * 1000:.1f} ms at 64 KB, {large * 1000:.1f} ms at 256 KB")


@pytest.mark.parametrize("text", [
    "# a" + " " * 20_000 + "b",  # a heading padded with spaces (was cubic)
    "[x](<" * 20_000,
    "[x](" * 20_000,
    "[" + "\\[" * 20_000,
], ids=["heading", "angle links", "links", "escaped brackets"])
def test_an_index_line_of_hostile_text_is_read_at_once(text: str) -> None:
    started = time.perf_counter()
    linear.links(text)
    assert time.perf_counter() - started < 1.0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["credential words", "links [x](", "angle links [x](<",
                                  "urls", "paths a/", "CJK"])
def test_a_whole_report_over_a_memory_of_one_mebibyte_takes_seconds(name: str) -> None:
    assert linear.whole_report(name, 1.0) < 10.0


@pytest.mark.slow
@pytest.mark.alone
def test_relative_days_of_another_language_on_long_lines_are_read_in_linear_time() -> None:
    """A line holding hundreds of "ayer": what a day's sentence says is read in a window
    around it, not the whole line again for every phrase (was quadratic: 1 s at 16 KB)."""
    from datetime import datetime

    from consolidator.detect.dates.relative import find_relative

    unit = "el servidor de la empresa falló ayer y la base de datos "

    def timed(units: int) -> float:
        best = float("inf")
        for _ in range(2):
            start = time.perf_counter()
            find_relative(unit * units + "\n", datetime(2026, 11, 18, 10))
            best = min(best, time.perf_counter() - start)
        return best

    small, large = timed(70), timed(280)  # 4 KB and 16 KB, one line
    if small > NOISE_FLOOR:
        assert large <= 8 * small, f"{small * 1000:.1f} ms, then {large * 1000:.1f} ms"
