"""Quality of the offline backend's judgments on the hand-written hard-case corpus.

    python bench/hardcases.py [--verbose] [--set NAME ...] [--json]

Each set in bench/hardcases/ (see its README.txt) is copied to a temporary folder, its mtimes
set from its labels, and planned in-process at the labels' fixed "now" (a dry run, as
`consolidator report` plans it). The plan is scored against the labels per kind: archives,
stale findings, relative-date rewrites (and whether the day is right), conflicts, duplicates
(found as duplicates or as similar), merges of memories that must not merge, and secret
warnings. Then each copy is consolidated for real (`apply = "all"`) and planned again: the
second pass must rewrite nothing.

Sets with an "index" label (index-*/, see README.txt) are also scored on the MEMORY.md
rebuild, from the files on disk before and after that real run: lines of an index within its
limits that changed, lines the user marked as important (or that belong to the first section
or the feedback rules) pushed out of the part Claude Code loads, index text that left the live
directory, links to files the run archived or merged away, indexes still over 200 lines or
25,000 bytes, memories the index does not reach, a second index file beside a lowercase
``memory.md``, and files a second real run changes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

BENCH = Path(__file__).resolve().parent
CORPUS = BENCH / "hardcases"
# The checkout's package, after any on PYTHONPATH: PYTHONPATH=<another checkout> measures
# that one's code with these cases.
if str(BENCH.parent) not in sys.path:
    sys.path.append(str(BENCH.parent))

from consolidator import log  # noqa: E402
from consolidator.config import Config  # noqa: E402
from consolidator.detect.conflicts.hooks import drift_line  # noqa: E402
from consolidator.detect.dates.relative import relative_in  # noqa: E402
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
    "hook-drift precision": ("precision", 0.9),
    "hook-drift recall": ("recall", 0.8),
}

# The index rebuild: measure -> the IndexResult field that lists each case (target: none).
INDEX_TARGETS: dict[str, str] = {
    "index lines changed in an index within its limits": "hooks_changed",
    "important lines out of the loaded window": "priority_moved",
    "first-section and feedback lines out of the loaded window": "kept_moved",
    "index lines whose text left the live directory": "text_lost",
    "links to archived or merged-away files": "dangling",
    "indexes over 200 lines or 25,000 bytes after the run": "over_limits",
    "memories the index does not reach": "unreached",
    "second index files beside memory.md": "extra_index",
    "files changed by a second run": "second_run",
}
MAX_LINES, MAX_BYTES = 200, 25000


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
class IndexResult:
    """The MEMORY.md rebuild of one root: its size before and after, and each case behind
    every measure of INDEX_TARGETS (an empty list is a measure met)."""

    where: str
    before: tuple[int, int]  # (lines, bytes) of the original index
    after: tuple[int, int]
    hooks_changed: list[str] = field(default_factory=list)
    priority_moved: list[str] = field(default_factory=list)
    kept_moved: list[str] = field(default_factory=list)
    text_lost: list[str] = field(default_factory=list)
    dangling: list[str] = field(default_factory=list)
    over_limits: list[str] = field(default_factory=list)
    unreached: list[str] = field(default_factory=list)
    extra_index: list[str] = field(default_factory=list)
    second_run: list[str] = field(default_factory=list)

    def cases(self, measure: str) -> list[str]:
        found: list[str] = getattr(self, INDEX_TARGETS[measure])
        return found


@dataclass
class Score:
    """Every kind's tally over the sets scored so far."""

    tallies: dict[str, Tally] = field(default_factory=dict)
    days: list[tuple[bool, str]] = field(default_factory=list)  # (right, case) per true rewrite
    bad_merges: list[str] = field(default_factory=list)
    second_pass: list[str] = field(default_factory=list)
    index: list[IndexResult] = field(default_factory=list)
    sets: int = 0
    memories: int = 0

    def tally(self, kind: str) -> Tally:
        return self.tallies.setdefault(kind, Tally())


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


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
                      apply="all",  # every judgment applied: each one is measured
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
    stamps = dict(labels.get("mtimes", {}))
    index = labels.get("index", {})
    if "mtime" in index:
        stamps[index.get("file", "MEMORY.md")] = index["mtime"]
    for file, moment in stamps.items():
        stamp = parse_time(moment).timestamp()
        os.utime(dest / "memory" / file, (stamp, stamp))
    return dest / "memory", project


def corpus_sets() -> list[Path]:
    """Every set: a folder holding labels.json, right under the corpus or one level down (a
    set of several roots, e.g. index-en/within and index-en/over)."""
    found = [p.parent for p in CORPUS.glob("*/labels.json")]
    found += [p.parent for p in CORPUS.glob("*/*/labels.json")]
    return sorted(found)


def set_name(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def relative_dates(snapshot: Snapshot, where: str, labels: dict[str, Any], score: Score) -> None:
    """Every phrase the date detector would rewrite, against the labelled genuine ones."""
    tally = score.tally("relative-date")
    wanted = labels.get("relative", {})
    for memory in snapshot.memories:
        open_labels = list(wanted.get(memory.file, []))
        for found in relative_in(memory):
            case = f"{where}/{memory.file}: {found.phrase!r} -> {found.resolved} in: {found.line.strip()}"
            match = next((lab for lab in open_labels
                          # (a phrase glossed by its date is rewritten with the gloss)
                          if found.phrase.casefold().startswith(lab["phrase"].casefold())
                          and (len(found.phrase) == len(lab["phrase"])
                               or found.phrase[len(lab["phrase"])] in " \t(（")
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


# ---------------------------------------------------------------------------------------------
# The MEMORY.md rebuild, judged from the files on disk (no import from consolidator.index, so
# the yardstick does not move with the code it measures).

MD_LINK = re.compile(r"\[((?:[^\[\]\\]|\\.)*)\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
WIKI_LINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:[|#][^\[\]\n]*)?\]\]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
                  r"\uff66-\uff9f]+")
_FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)",
                          re.DOTALL)
_NAME = re.compile(r"^name:[ \t]*(.+?)[ \t]*$", re.MULTILINE)


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (posix relative path -> bytes), but the lock files."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.startswith(".consolidate")}


def text_of(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def index_lines(text: str) -> list[str]:
    """The lines of an index as Claude Code counts them: the text without its final newline."""
    body = text.removesuffix("\n")
    return [line.rstrip("\r") for line in body.split("\n")] if body else []


def loaded_window(text: str) -> list[str]:
    """The lines Claude Code loads: the first 200, then those ending within 25,000 bytes."""
    out, used = [], 0
    for raw in text.removesuffix("\n").split("\n")[:MAX_LINES] if text else []:
        used += len(raw.encode("utf-8")) + 1
        if used > MAX_BYTES:
            break
        out.append(raw.rstrip("\r"))
    return out


def link_target(raw: str, folder: str) -> str | None:
    """The root-relative .md file a Markdown link written in ``folder`` names, if any."""
    target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    target = unquote(target.split("#", 1)[0].strip().replace("\\", "/"))
    if not target.lower().endswith(".md") or "://" in target or target.startswith("/"):
        return None
    parts: list[str] = []
    for part in (folder.split("/") if folder else []) + target.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def links_in(text: str, folder: str = "") -> list[str]:
    return [t for m in MD_LINK.finditer(text) if (t := link_target(m.group(2), folder))]


def words(text: str) -> set[str]:
    """The words of ``text`` with every link reduced to its title: Latin words casefolded,
    CJK runs as character pairs (so a cut inside a sentence still shows)."""
    text = MD_LINK.sub(lambda m: m.group(1), text)
    text = WIKI_LINK.sub(lambda m: m.group(1), text).casefold()
    out: set[str] = set()
    for token in re.findall(r"[^\W_]+", text):
        rest = _CJK.split(token)
        out.update(r for r in rest if r)
        for run in _CJK.findall(token):
            out.update({run} if len(run) == 1 else {run[i:i + 2] for i in range(len(run) - 1)})
    return out


def memory_names(tree: dict[str, bytes]) -> dict[str, str]:
    """Frontmatter name and file stem -> file, for every memory (the [[name]] links)."""
    out: dict[str, str] = {}
    for file, data in tree.items():
        if not file.endswith(".md"):
            continue
        out.setdefault(file.rsplit("/", 1)[-1][:-3], file)
        head = _FRONTMATTER.match(text_of(data))
        name = _NAME.search(head.group(1)) if head else None
        if name:
            out.setdefault(name.group(1).strip("'\""), file)
    return out


def is_index(file: str) -> bool:
    return "/" not in file and file.casefold() == "memory.md"


def has_frontmatter(data: bytes) -> bool:
    return _FRONTMATTER.match(text_of(data)) is not None


def judge_index(where: str, labels: dict[str, Any], before: dict[str, bytes],
                after: dict[str, bytes], redirects: dict[str, str]) -> IndexResult:
    """Every measure of the rebuild but the second run, from the root's files before and
    after the real run."""
    spec = labels["index"]
    name = spec.get("file", "MEMORY.md")
    old_text = text_of(before.get(name, b""))
    new_name = name if name in after else next((f for f in after if is_index(f)), name)
    new_text = text_of(after.get(new_name, b""))
    old_lines, new_lines = index_lines(old_text), index_lines(new_text)
    window = loaded_window(new_text)
    res = IndexResult(where, (len(old_lines), len(old_text.encode("utf-8"))),
                      (len(new_lines), len(new_text.encode("utf-8"))))
    md_before = {f for f in before if f.endswith(".md")}
    md_after = {f for f in after if f.endswith(".md")}
    gone = md_before - md_after
    missing = {t for line in old_lines for t in links_in(line) if t not in md_before}

    # Within its limits, every line that does not link to a missing or moved-away file stays
    # as it is, in order.
    if spec.get("within_limits"):
        at, skipped = 0, False
        for line in old_lines:
            # An indented line right under a skipped entry is that entry's hook.
            if skipped and line[:1].isspace() and line.strip():
                continue
            skipped = bool(set(links_in(line)) & (gone | missing))
            if skipped or not line.strip():
                continue
            try:
                at = new_lines.index(line, at) + 1
            except ValueError:
                res.hooks_changed.append(f"{where}: {line}")

    def original(part: str) -> str:
        return next((line for line in old_lines if part in line), part)

    for part in spec.get("priority", []):
        line = original(part)
        if line not in window:
            res.priority_moved.append(f"{where}: {line}")
    for part in spec.get("keep", []):
        line = original(part)
        link = MD_LINK.search(line)
        head = line[:link.end()] if link else ""
        if not any(w == line or (head and w.startswith(head))
                   or (w.endswith(("…", "...")) and len(w) > 20
                       and line.startswith(w.rstrip("….").rstrip()))
                   for w in window):
            res.kept_moved.append(f"{where}: {line}")

    # The live memories the index reaches (through the topic memories it points to).
    created = md_after - md_before
    changed = {f for f in md_after if before.get(f) != after[f]}
    topics = created | {f for f in md_after if f.rsplit("/", 1)[-1].startswith("index_")}
    reached: set[str] = set()
    frontier = [t for t in links_in(new_text) if t in md_after]
    while frontier:
        file = frontier.pop()
        if file in reached:
            continue
        reached.add(file)
        if file in topics:
            folder = file.rsplit("/", 1)[0] if "/" in file else ""
            frontier += [t for t in links_in(text_of(after[file]), folder) if t in md_after]
    live = {f for f in md_after if not is_index(f) and has_frontmatter(after[f])}
    res.unreached = [f"{where}: {f}" for f in sorted(live - reached)]

    # Index text that left the live directory: each original line's words must still be in
    # the new index, the memory it linked to (or the survivor of a merge), or in a memory the
    # run wrote or created that the index reaches; an identical line anywhere live also counts.
    live_lines = {line.strip() for f in md_after for line in text_of(after[f]).splitlines()}
    kept_words = words(new_text)
    for f in (reached & (created | changed)) - {new_name}:
        kept_words |= words(text_of(after[f]))
    for line in old_lines:
        wanted = words(line)
        if not wanted or line.strip() in live_lines:
            continue
        own: set[str] = set()
        for target in links_in(line):
            target = target if target in md_after else redirects.get(target, "")
            if target in md_after:
                own |= words(text_of(after[target]))
        lost = wanted - kept_words - own
        if lost:
            res.text_lost.append(f"{where}: {line}  [lost: {' '.join(sorted(lost)[:6])}]")

    # Links (Markdown or [[name]]) from any live file to a file the run moved away.
    names_before, names_after = memory_names(before), memory_names(after)
    for file in sorted(md_after):
        text = text_of(after[file])
        folder = file.rsplit("/", 1)[0] if "/" in file else ""
        for target in links_in(text, folder):
            if target in gone:
                res.dangling.append(f"{where}/{file} -> {target}")
        for match in WIKI_LINK.finditer(text):
            ref = match.group(1).strip()
            if names_before.get(ref) in gone and ref not in names_after:
                res.dangling.append(f"{where}/{file} -> [[{ref}]] ({names_before[ref]})")

    lines, size = res.after
    if lines > MAX_LINES or size > MAX_BYTES:
        res.over_limits.append(f"{where}/{new_name}: {lines} lines, {size} bytes")
    indexes = sorted(f for f in after if is_index(f))
    if len(indexes) > 1:
        res.extra_index.append(f"{where}: {', '.join(indexes)}")
    return res


def tree_changes(where: str, first: dict[str, bytes], second: dict[str, bytes]) -> list[str]:
    out = [f"{where}/{f}: created" for f in sorted(set(second) - set(first))]
    out += [f"{where}/{f}: removed" for f in sorted(set(first) - set(second))]
    out += [f"{where}/{f}: rewritten" for f in sorted(set(first) & set(second))
            if first[f] != second[f]]
    return out


def evaluate_set(path: Path, score: Score, work: Path) -> None:
    labels = json.loads((path / "labels.json").read_text(encoding="utf-8"))
    where = set_name(path)
    now = parse_time(labels.get("now", DEFAULT_NOW))
    root, project = copy_set(path, work / where, labels)
    before = read_tree(root)
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
    drifted = {m.file for m in plan.memories
               if any(drift_line(w) is not None for w in m.warnings)}
    score_set(where, labels, drifted, set(labels.get("hook_drift", [])),
              score.tally("hook-drift"))
    forbidden = pairs(labels.get("no_merge", []))
    for action in plan.actions:
        if action.op == "merge":
            merged = pairs([action.sources])
            score.bad_merges += [f"{where}: {_show(p)}" for p in merged & forbidden]
    relative_dates(snapshot, where, labels, score)

    # Consolidate for real, then plan again: nothing is rewritten the second time.
    done = plan_root(root, project, work / f"{where}-state", now, real=True)
    after = read_tree(root)
    again = plan_root(root, project, work / f"{where}-state2", now)
    score.second_pass += [f"{where}/{a.file}: {a.reason}" for a in again.actions
                          if a.op == "rewrite" and "relative date" in a.reason]

    if "index" in labels:
        redirects = {s: a.file for a in done.actions if a.op == "merge"
                     for s in a.sources if s != a.file}
        result = judge_index(where, labels, before, after, redirects)
        # A second real run, with the same state, must leave every byte as it is.
        plan_root(root, project, work / f"{where}-state", now, real=True)
        result.second_run = tree_changes(where, after, read_tree(root))
        indexes = sorted(f for f in read_tree(root) if is_index(f))
        if len(indexes) > 1 and not result.extra_index:
            result.extra_index.append(f"{where}: {', '.join(indexes)}")
        score.index.append(result)


def evaluate(names: list[str] | None = None) -> Score:
    """Score every set (or the named ones) of the corpus."""
    score = Score()
    sets = corpus_sets()
    if names:
        sets = [p for p in sets if set_name(p) in names or set_name(p).split("/")[0] in names]
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
    if score.index:
        for measure in INDEX_TARGETS:
            cases = [c for r in score.index for c in r.cases(measure)]
            roots = sum(1 for r in score.index if r.cases(measure))
            out.append((measure, f"{len(cases)} ({roots}/{len(score.index)} roots)", "0",
                        "met" if not cases else "**missed**"))
    return out


def index_rows(score: Score) -> list[tuple[str, ...]]:
    """One row per root with an index label: its size before and after, and each count."""
    out = []
    for r in score.index:
        size = f"{r.before[0]} lines {r.before[1]} B -> {r.after[0]} lines {r.after[1]} B"
        out.append((r.where, size, *(str(len(r.cases(m))) for m in INDEX_TARGETS)))
    return out


def print_cases(tallies: dict[str, Tally], prefix: str = "") -> None:
    """Every false and missed case of each kind, under a heading per kind and list."""
    for kind, tally in sorted(tallies.items()):
        for label, cases in (("false", tally.false), ("missed", tally.missed)):
            if cases:
                print(f"\n{prefix}{kind}, {label}:")
                print("\n".join(f"  {c}" for c in cases))


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
        figures: dict[str, Any] = {name: result for name, result, _t, _m in table}
        figures["index per root"] = {
            r.where: {"before": r.before, "after": r.after,
                      **{m: len(r.cases(m)) for m in INDEX_TARGETS}} for r in score.index}
        print(json.dumps(figures, indent=2, ensure_ascii=False))
        return
    print(f"Hard-case corpus: {score.sets} sets, {score.memories} memories (offline backend)\n")
    print("| measure | result | target | |\n|---|---|---|---|")
    for name, result, target, met in table:
        print(f"| {name} | {result} | {target} | {met} |")
    if score.index:
        short = ["changed", "important", "kept", "text lost", "dangling", "over",
                 "unreached", "2nd index", "2nd run"]
        print("\nIndex rebuild per root (counts of each measure above, in order):\n")
        print("| root | index | " + " | ".join(short) + " |")
        print("|---|---|" + "---|" * len(short))
        for row in index_rows(score):
            print("| " + " | ".join(row) + " |")
    if args.verbose:
        print_cases(score.tallies)
        wrong_days = [case for right, case in score.days if not right]
        for measure in INDEX_TARGETS:
            cases = [c for r in score.index for c in r.cases(measure)]
            if cases:
                print(f"\n{measure}:")
                print("\n".join(f"  {c}" for c in cases))
        for label, cases in (("relative-date, wrong day", wrong_days),
                             ("merges that must not happen", score.bad_merges),
                             ("rewritten on a second pass", score.second_pass)):
            if cases:
                print(f"\n{label}:")
                print("\n".join(f"  {c}" for c in cases))


if __name__ == "__main__":
    main()
