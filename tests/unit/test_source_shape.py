"""The package reads as its style asks: no module over 400 lines, no line over 100
characters (counted as characters: a line of CJK text may still look wider), so each module
is one subject a reader can hold."""

from __future__ import annotations

from pathlib import Path

import consolidator

PACKAGE = Path(consolidator.__file__).parent
MAX_LINES = 400
MAX_WIDTH = 100


def test_every_module_is_short_and_narrow() -> None:
    long, wide = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        name = path.relative_to(PACKAGE.parent).as_posix()
        if len(lines) > MAX_LINES:
            long.append(f"{name}: {len(lines)} lines")
        wide += [f"{name}:{n}" for n, line in enumerate(lines, 1) if len(line) > MAX_WIDTH]
    assert long == [] and wide == []
