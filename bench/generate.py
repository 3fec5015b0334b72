"""Generate a labelled Claude Code memory directory for benchmarks and detector evaluation.

    python bench/generate.py DEST --count 10000 --seed 0

writes DEST/memory/ (the memory root, with MEMORY.md), DEST/<uuid>.jsonl session transcripts,
DEST/project/ (the project the memories talk about) and DEST/labels.json (the ground truth:
duplicates, conflicts, stale memories, relative dates, malformed files, index drift, mtimes).
As a module: ``from generate import generate`` (with bench/ on sys.path) or
``from bench.generate import generate``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from memgen.build import generate
from memgen.labels import Labels

__all__ = ["Labels", "generate", "main"]


def _parse_now(text: str) -> int:
    if text.isdigit():
        return int(text)
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dest", type=Path, help="output folder (created)")
    parser.add_argument("--count", type=int, default=10_000,
                        help="memory files to write, MEMORY.md not counted (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--now", type=_parse_now, default=None,
                        help="anchor time, epoch seconds or ISO 8601 (default: now)")
    parser.add_argument("--overwrite", action="store_true",
                        help="delete DEST first if it holds a previously generated directory")
    args = parser.parse_args(argv)
    dest: Path = args.dest
    if args.overwrite and (dest / "labels.json").is_file():
        shutil.rmtree(dest)
    try:
        labels = generate(dest, args.count, args.seed, args.now)
    except (FileExistsError, ValueError) as exc:
        print(f"generate.py: {exc}", file=sys.stderr)
        return 2
    stats = labels.stats
    print(f"{dest}: {stats['files']} memory files ({stats['total_bytes'] / 1e6:.1f} MB, "
          f"median {stats['median_bytes']} B) in {stats['seconds']} s; "
          f"{stats['duplicate_groups']} duplicate groups, {stats['conflict_pairs']} conflicts, "
          f"{stats['stale']} stale, {stats['relative_dates']} with relative dates, "
          f"{stats['malformed']} malformed, {stats['old_valid']} old but valid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
