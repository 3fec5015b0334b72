"""How many of each planted kind a directory of `count` memory files gets, in random order."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .plants import CONFLICT_KINDS, MALFORMED_KINDS, STATUS_MARKERS

DUPLICATE_KINDS = ("exact", "reworded", "reordered", "contained")


@dataclass(frozen=True)
class Item:
    """One unit of generation: a clean memory, or a planted file or group of files."""

    kind: str  # clean | old_valid | duplicate | conflict | stale | relative | malformed
    variant: str = ""
    lang: str = "en"
    size: int = 1  # files written


CLEAN = Item("clean")
UNINDEXED = Item("clean", "unindexed")


def planted_items(count: int, rng: random.Random) -> list[Item]:
    def quota(rate: float, minimum: int = 1) -> int:
        return max(minimum, round(rate * count))

    items: list[Item] = []
    for kind in DUPLICATE_KINDS:
        for _ in range(quota(0.003)):
            size = 3 if kind != "contained" and rng.random() < 0.15 else 2
            items.append(Item("duplicate", kind, "en", size))
    for lang, rate in (("zh", 0.0016), ("ja", 0.0012)):
        for i in range(quota(rate)):
            items.append(Item("duplicate", DUPLICATE_KINDS[i % 4], lang, 2))
    for kind in CONFLICT_KINDS:
        items.extend(Item("conflict", kind, "en", 2) for _ in range(quota(0.002)))
    items.extend(Item("stale", "missing_path") for _ in range(quota(0.007)))
    langs = ("en", "zh", "ja", "en")
    items.extend(Item("stale", "deadline", langs[i % 4]) for i in range(quota(0.006, 3)))
    n_status = quota(0.006, len(STATUS_MARKERS))
    items.extend(Item("stale", STATUS_MARKERS[i % len(STATUS_MARKERS)]) for i in range(n_status))
    for lang, rate in (("en", 0.01), ("zh", 0.002), ("ja", 0.0015)):
        items.extend(Item("relative", "", lang) for _ in range(quota(rate)))
    for kind in MALFORMED_KINDS:
        items.extend(Item("malformed", kind) for _ in range(quota(0.001)))
    items.extend(Item("old_valid") for _ in range(quota(0.015)))
    return items


def plan(count: int, rng: random.Random) -> list[Item]:
    """All items in generation order; their sizes add up to exactly `count` files."""
    items = planted_items(count, rng)
    planted = sum(item.size for item in items)
    if planted * 2 > count:
        raise ValueError(f"count {count} is too small for one of each planted kind "
                         f"(needs at least {planted * 2})")
    n_clean = count - planted
    n_unindexed = max(1, round(0.01 * count))
    clean = [UNINDEXED] * n_unindexed + [CLEAN] * (n_clean - n_unindexed)
    items.extend(clean)
    rng.shuffle(items)
    return items
