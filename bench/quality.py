"""Quality of the offline backend on a labelled generated directory, and plan-time growth.

    python bench/quality.py [--count 1000] [--seed 0] [--runs 10] [--growth]

Generates a labelled directory (bench/generate.py), plans it with `consolidator report`,
consolidates a copy with `consolidator run --force` ten times in a row, and prints:
duplicate precision/recall/F1 (pairs), survivors chosen right, conflict recall and
precision, merges that joined conflicting memories, stale recall with the right evidence,
old-but-valid memories archived, relative dates rewritten, and information preservation
(every original body line in a live memory, the archive, or the journal's backups).
--growth also times the plan at 1,000 and 10,000 memories.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from memgen.build import generate  # noqa: E402

CLI = [sys.executable, "-m", "consolidator"]


def consolidator(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, check=False)


def pairs(groups: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for g in groups for p in itertools.combinations(sorted(g), 2)}


def ratio(num: int, den: int) -> float:
    return num / den if den else 1.0


def plan(dest: Path, state: Path) -> tuple[dict[str, Any], float]:
    start = time.perf_counter()
    proc = consolidator("report", "--format", "json", "--memory-dir", str(dest / "memory"),
                        "--project-root", str(dest / "project"), "--state-dir", str(state))
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    root: dict[str, Any] = json.loads(proc.stdout)["roots"][0]
    return root, elapsed


def body_lines(path: Path) -> set[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    if text.startswith("---"):
        end = text.find("\n---", 3)
        text = text[end + 4 :] if end >= 0 else text
    return {line.strip() for line in text.splitlines() if line.strip() and line.strip() != "---"}


def preservation(original: Path, root: Path, state: Path) -> tuple[int, int]:
    """(original body lines, lines still found live, archived or in a journal backup)."""
    kept: set[str] = set()
    for path in [*root.rglob("*.md"), *state.rglob("*.md")]:
        kept |= body_lines(path)
    total = found = 0
    for path in original.rglob("*.md"):
        if path.name == "MEMORY.md":
            continue
        for line in body_lines(path):
            total += 1
            found += line in kept
    return total, found


def evaluate(count: int, seed: int, runs: int) -> dict[str, str]:
    work = Path(tempfile.mkdtemp(prefix="quality-"))
    try:
        dest = work / "dir"
        generate(dest, count, seed=seed)
        labels = json.loads((dest / "labels.json").read_text(encoding="utf-8"))
        original = work / "original"
        shutil.copytree(dest / "memory", original)
        state = work / "state"
        root, _plan_s = plan(dest, state)

        true_dups = pairs([g["files"] for g in labels["duplicates"]])
        found_dups = pairs([d["files"] for d in root["duplicates"]])
        hit = len(true_dups & found_dups)
        precision, recall = ratio(hit, len(found_dups)), ratio(hit, len(true_dups))
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        keep_label = {frozenset(g["files"]): g["keep"] for g in labels["duplicates"]}
        keep_found = {frozenset(d["files"]): d["keep"] for d in root["duplicates"]}
        right_keep = sum(1 for k, v in keep_label.items() if keep_found.get(k) == v)

        true_conf = {frozenset(c["files"]) for c in labels["conflicts"]}
        found_conf = {frozenset(c["files"]) for c in root["conflicts"]}
        merges = [set(a["sources"]) for a in root["actions"] if a["op"] == "merge"]
        false_merges = sum(1 for pair in true_conf for m in merges if pair <= m)
        group_of = {f: frozenset(g["files"]) for g in labels["duplicates"] for f in g["files"]}
        stray_merges = sum(1 for m in merges if any(group_of.get(f) != group_of.get(next(iter(m)))
                                                    for f in m))

        kinds = {"deadline": "deadline", "status_marker": "marker", "missing_path": "path"}
        stale_found = {s["file"]: " ".join(s["reasons"]) for s in root["stale"]}
        evidence_words = {"deadline": "deadline", "marker": "marker", "path": "missing path"}
        stale_hits = sum(
            1 for f, lab in labels["stale"].items()
            if f in stale_found and (evidence_words[kinds[lab["kind"]]] in stale_found[f]
                                     or (lab["kind"] == "status_marker" and "says" in stale_found[f]))
        )
        archived = {a["file"] for a in root["actions"] if a["op"] == "archive"}
        old_archived = sum(1 for f in labels["old_valid"] if f in archived)

        rewrites = " ".join(a["reason"] for a in root["actions"] if a["op"] == "rewrite")
        phrases = [(f, p) for f, ps in labels["relative_dates"].items() for p in ps]
        rewritten = sum(1 for f, p in phrases if f"{p!r}" in rewrites or f"'{p}'" in rewrites)

        for _ in range(runs):
            proc = consolidator("run", "--force", "--memory-dir", str(dest / "memory"),
                                "--project-root", str(dest / "project"),
                                "--state-dir", str(state))
            if proc.returncode != 0:
                raise SystemExit(proc.stderr)
        total, kept = preservation(original, dest / "memory", state)
        return {
            "memories": str(count),
            "duplicate precision": f"{precision:.3f}",
            "duplicate recall": f"{recall:.3f}",
            "duplicate F1 (target >= 0.95)": f"{f1:.3f}",
            "survivor chosen right": f"{right_keep}/{len(keep_label)}",
            "conflict recall (target >= 0.9)": f"{ratio(len(true_conf & found_conf), len(true_conf)):.3f}",
            "conflict precision": f"{ratio(len(true_conf & found_conf), len(found_conf)):.3f}",
            "false merges of conflicting memories (target 0)": str(false_merges),
            "merges outside a labelled duplicate group": str(stray_merges),
            "stale recall with evidence (target >= 0.9)": f"{ratio(stale_hits, len(labels['stale'])):.3f}",
            "old-but-valid memories archived (target 0)": str(old_archived),
            "relative dates rewritten (target >= 0.95)": f"{ratio(rewritten, len(phrases)):.3f}",
            f"original lines kept after {runs} runs (target 100%)": f"{100 * ratio(kept, total):.2f}% of {total}",
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def growth(seed: int) -> dict[str, str]:
    times = {}
    for count in (1000, 10000):
        work = Path(tempfile.mkdtemp(prefix="growth-"))
        try:
            generate(work / "dir", count, seed=seed)
            _root, times[count] = plan(work / "dir", work / "state")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return {
        "plan time, 1,000 memories": f"{times[1000]:.2f} s",
        "plan time, 10,000 memories": f"{times[10000]:.2f} s",
        "growth for 10x the memories (target <= 12x)": f"{times[10000] / times[1000]:.1f}x",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--growth", action="store_true")
    args = parser.parse_args()
    rows = evaluate(args.count, args.seed, args.runs)
    if args.growth:
        rows.update(growth(args.seed))
    width = max(len(k) for k in rows)
    for key, value in rows.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
