"""Quality of the offline backend's judgments on the hand-written hard-case corpus.

    python bench/hardcases.py [--verbose] [--set NAME ...] [--json]

Each set in bench/hardcases/ (see its README.txt) is copied to a temporary folder, its mtimes
set from its labels, and planned in-process at the labels' fixed "now" (a dry run, as
`consolidator report` plans it). The plan is scored against the labels per kind: archives,
stale findings, relative-date rewrites (and whether the day is right), conflicts, duplicates
(found as duplicates or as similar), merges of memories that must not merge, and secret
warnings. Then each copy is consolidated for real (`apply = "all"`) and planned again: the
second pass must rewrite nothing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
CORPUS = BENCH / "hardcases"
if str(BENCH.parent) not in sys.path:
    sys.path.insert(0, str(BENCH.parent))

from consolidator import log  # noqa: E402
from consolidator.config import Config  # noqa: E402
from consolidator.detect.dates import find_relative  # noqa: E402
from consolidator.plan import Plan  # noqa: E402
from consolidator.runner import RunOptions, context_for, new_run_id, run_root  # noqa: E402
from consolidator.store.model import Snapshot  # noqa: E402
from consolidator.store.scan import scan  # noqa: E402

DEFAULT_NOW = "2026-12-01T12:00:00Z"
SECRET_WARNING = "holds what looks like a secret"

# kind -> (measure, target, higher is better)
TARGETS: dict[str, tuple[str, float]] = {
    "archive precision": ("precision", 1.0),
    "stale precision": ("precision", 0.85),
    "stale recall": ("recall", 0.8),
    "relative-date precision": ("precision", 0.98),
    "relative-date recall": ("recall", 0.7),
    "relative-date day right": ("ratio", 0.95),
    "conflict precision": ("precision", 0.9),
    "conflict recall": ("recall", 0.8),
    "duplicate recall": ("recall", 0.8),
    "secret precision": ("precision", 0.9),
}


@dataclass
class Tally:
    """Found against expected for one kind, with the cases behind each miss."""

    hits: int = 0
    false: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def precision(self) -> float:
        found = self.hits + len(self.false)
        return self.hits / found if found else 1.0

    def recall(self) -> float:
        wanted = self.hits + len(self.missed)
        return self.hits / wanted if wanted else 1.0


@dataclass
class Score:
    """Every kind's tally over the sets scored so far."""

    tallies: dict[str, Tally] = field(default_factory=dict)
    days: list[tuple[bool, str]] = field(default_factory=list)  # (right, case) per true rewrite
    bad_merges: list[str] = field(default_factory=list)
    second_pass: list[str] = field(default_factory=list)
    sets: int = 0
    memories: int = 0

    def tally(self, kind: str) -> Tally:
        return self.tallies.setdefault(kind, Tally())


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def pairs(groups: Iterable[Iterable[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for g in groups for p in itertools.combinations(sorted(g), 2)}


def score_set(where: str, labels: dict[str, Any], found: set[Any], wanted: set[Any],
              tally: Tally) -> None:
    tally.hits += len(found & wanted)
    tally.false += [f"{where}: {_show(x)}" for x in sorted(found - wanted, key=_show)]
    tally.missed += [f"{where}: {_show(x)}" for x in sorted(wanted - found, key=_show)]


def _show(item: Any) -> str:
    return " ~ ".join(sorted(item)) if isinstance(item, frozenset) else str(item)


def plan_root(root: Path, project: Path | None, state: Path, now: datetime,
              real: bool = False) -> Plan:
    """One root planned in-process at ``now`` (and applied, with ``real``)."""
    cfg = Config()
    opts = RunOptions(state_dir=state, project_root=str(project) if project else None,
                      dry_run=not real, force=real, trigger="run" if real else "report",
                      env={})
    report = run_root(context_for(root, cfg, opts, now, new_run_id(now)))
    if report.status == "failed":
        raise SystemExit(f"{root}: {report.error}")
    return report.plan


def copy_set(source: Path, dest: Path, labels: dict[str, Any]) -> tuple[Path, Path | None]:
    shutil.copytree(source / "memory", dest / "memory")
    project = None
    if (source / "project").is_dir():
        project = dest / "project"
        shutil.copytree(source / "project", project)
    for file, moment in labels.get("mtimes", {}).items():
        stamp = parse_time(moment).timestamp()
        os.utime(dest / "memory" / file, (stamp, stamp))
    return dest / "memory", project


def relative_dates(snapshot: Snapshot, where: str, labels: dict[str, Any], score: Score) -> None:
    """Every phrase the date detector would rewrite, against the labelled genuine ones."""
    tally = score.tally("relative-date")
    wanted = labels.get("relative", {})
    for memory in snapshot.memories:
        written = datetime.fromtimestamp(memory.stat.mtime_ns / 1e9)
        open_labels = list(wanted.get(memory.file, []))
        for found in find_relative(memory.body, written, memory.file):
            case = f"{where}/{memory.file}: {found.phrase!r} -> {found.resolved} in: {found.line.strip()}"
            match = next((lab for lab in open_labels
                          if lab["phrase"].casefold() == found.phrase.casefold()
                          and lab["line"] in found.line), None)
            if match is None:
                tally.false.append(case)
                continue
            open_labels.remove(match)
            tally.hits += 1
            score.days.append((match["day"] in found.resolved, f"{case} (want {match['day']})"))
        tally.missed += [f"{where}/{memory.file}: {lab['phrase']!r} in: {lab['line']}"
                         for lab in open_labels]
    known = {m.file for m in snapshot.memories}
    for file, items in wanted.items():
        if file not in known:
            tally.missed += [f"{where}/{file}: {lab['phrase']!r} (file not read)" for lab in items]


def evaluate_set(path: Path, score: Score, work: Path) -> None:
    labels = json.loads((path / "labels.json").read_text(encoding="utf-8"))
    where = path.name
    now = parse_time(labels.get("now", DEFAULT_NOW))
    root, project = copy_set(path, work / where, labels)
    snapshot = scan(root)
    plan = plan_root(root, project, work / f"{where}-state", now)
    score.sets += 1
    score.memories += len(snapshot.memories)

    archived = {a.file for a in plan.actions if a.op == "archive"}
    score_set(where, labels, archived, set(labels.get("archive", [])), score.tally("archive"))
    stale = {s.file for s in plan.stale}
    score_set(where, labels, stale, set(labels.get("stale", [])), score.tally("stale"))
    conflicts = {frozenset(c.files) for c in plan.conflicts}
    score_set(where, labels, conflicts, pairs(labels.get("conflicts", [])),
              score.tally("conflict"))
    alike = pairs(d.files for d in plan.duplicates) | {frozenset(s.files) for s in plan.similar}
    score_set(where, labels, alike, pairs(labels.get("duplicates", [])), score.tally("duplicate"))
    secrets = {m.file for m in plan.memories if any(SECRET_WARNING in w for w in m.warnings)}
    score_set(where, labels, secrets, set(labels.get("secrets", [])), score.tally("secret"))
    forbidden = pairs(labels.get("no_merge", []))
    for action in plan.actions:
        if action.op == "merge":
            merged = pairs([action.sources])
            score.bad_merges += [f"{where}: {_show(p)}" for p in merged & forbidden]
    relative_dates(snapshot, where, labels, score)

    # Consolidate for real, then plan again: nothing is rewritten the second time.
    plan_root(root, project, work / f"{where}-state", now, real=True)
    again = plan_root(root, project, work / f"{where}-state2", now)
    score.second_pass += [f"{where}/{a.file}: {a.reason}" for a in again.actions
                          if a.op == "rewrite" and "relative date" in a.reason]


def evaluate(names: list[str] | None = None) -> Score:
    """Score every set (or the named ones) of the corpus."""
    score = Score()
    sets = sorted(p for p in CORPUS.iterdir() if (p / "labels.json").is_file())
    if names:
        sets = [p for p in sets if p.name in names]
    with tempfile.TemporaryDirectory(prefix="hardcases-") as tmp:
        for path in sets:
            evaluate_set(path, score, Path(tmp))
    return score


def rows(score: Score) -> list[tuple[str, str, str, str]]:
    """(measure, result, target, met) for each figure."""
    out = []
    days_right = sum(right for right, _ in score.days)
    for name, (measure, target) in TARGETS.items():
        kind = name.rsplit(" ", 1)[0] if measure != "ratio" else "relative-date"
        tally = score.tally(kind)
        if measure == "ratio":
            value, detail = (days_right / len(score.days) if score.days else 1.0,
                             f"{days_right}/{len(score.days)}")
        elif measure == "precision":
            value, detail = tally.precision(), f"{tally.hits}/{tally.hits + len(tally.false)}"
        else:
            value, detail = tally.recall(), f"{tally.hits}/{tally.hits + len(tally.missed)}"
        out.append((name, f"{value:.3f} ({detail})", f">= {target}",
                    "met" if value >= target else "**missed**"))
    archive = score.tally("archive")
    out.append(("false archives", str(len(archive.false)), "0",
                "met" if not archive.false else "**missed**"))
    out.append(("merges of memories that must not merge", str(len(score.bad_merges)), "0",
                "met" if not score.bad_merges else "**missed**"))
    out.append(("relative dates rewritten on a second pass", str(len(score.second_pass)), "0",
                "met" if not score.second_pass else "**missed**"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every false and missed case")
    parser.add_argument("--set", action="append", dest="sets", help="only this set (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    log.configure("console", "warning")
    score = evaluate(args.sets)
    table = rows(score)
    if args.json:
        print(json.dumps({name: result for name, result, _t, _m in table}, indent=2))
        return
    print(f"Hard-case corpus: {score.sets} sets, {score.memories} memories (offline backend)\n")
    print("| measure | result | target | |\n|---|---|---|---|")
    for name, result, target, met in table:
        print(f"| {name} | {result} | {target} | {met} |")
    if args.verbose:
        for kind, tally in sorted(score.tallies.items()):
            for label, cases in (("false", tally.false), ("missed", tally.missed)):
                if cases:
                    print(f"\n{kind}, {label}:")
                    print("\n".join(f"  {c}" for c in cases))
        wrong_days = [case for right, case in score.days if not right]
        for label, cases in (("relative-date, wrong day", wrong_days),
                             ("merges that must not happen", score.bad_merges),
                             ("rewritten on a second pass", score.second_pass)):
            if cases:
                print(f"\n{label}:")
                print("\n".join(f"  {c}" for c in cases))


if __name__ == "__main__":
    main()
