"""The judgments on real public memory directories, scored against labels, per split.

    python bench/real_judgments.py DIR [--split study|test|heldout|all] [--verbose] [--json]

DIR holds the directories' text, kept outside the repository: DIR/<split>/<folder>/ (MEMORY.md
and the memory files as they are in their repository). This folder keeps only where each came
from (real_judgments.tsv: split, repo, path, commit, folder, language, as-of day) and the
labels (real_judgments_labels.tsv: split, folder, file, line, kind, verdict, detail; no text).
The split was made by repository (sha256 of owner/name: even is study, odd is test) before any
text was read; rules are tuned on study only, and the figures reported are test's. A third
split, heldout, was collected later from repositories in neither half and labelled by readers
who had not seen the tool, before it was run on them: it is scored, never read for tuning.

Each folder is copied to a temporary root, every file's mtime set to its as-of day (the day by
which all of it was written) and planned in-process one day later, as `consolidator report`
plans it. Where DIR/trees/<folder>.tsv lists the repository's files (one path a line, as the
index of public repositories lists them: every file any stored version held), the memories'
citations are checked against a project of empty files at those paths (so a symbol a memory
names is never found in them: findings resting only on that are not counted); otherwise there
is no project and citations are not checked. Scored per kind:

  archives        archive actions against files labelled `archive` (precision, false ones)
  stale           files with a stale finding or an archive, against files labelled `stale` or
                  `archive`; again with the project made a git repository whose one commit
                  holds every listed file, as a checkout would be (there a cited path git
                  never held is no evidence)
  relative dates  each phrase the tool would rewrite, matched by line to the labels: genuine
                  (`rewrite`), right day (where the label gives one; `?` = only the file's
                  own time dates it, which the benchmark cannot know), recall over every
                  `rewrite` label and over those the text dates
  conflicts       pairs of files reported as conflicting against labelled pairs
  duplicates      pairs reported as duplicates or similar against labelled pairs (and, apart,
                  the precision of the similar pairs whose only evidence is a line of each
                  sharing words no other memory uses)
  citations       cited project paths checked and found gone (each with its memory, for a
                  person to judge: the tree lists every path the repository ever held, so a
                  path found gone was, as a rule, never a path of this repository)
  index hooks     index lines a memory's warning says count something otherwise than the
                  memory, against index lines labelled `stale` or `conflict` (most such
                  labels rest on what a memory's body says in other words: recall is low)
(Other labels on files that are no memories are left out, and counted: the index's dates and
duplicates (the index rebuild's business, measured by index_window.py; a default run changes no
line of it) and Markdown files without a memory's frontmatter, which the tool never judges. A
pair within one file is not a pair of memories either.)
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from hardcases import Tally, plan_root, print_cases  # noqa: E402

from consolidator import (
    clock,  # noqa: E402
    log,  # noqa: E402
)
from consolidator.detect.conflicts.hooks import drift_line  # noqa: E402
from consolidator.detect.dates.relative import find_relative, relative_in  # noqa: E402
from consolidator.detect.stale.citations import mentioned_paths  # noqa: E402
from consolidator.store.scan import scan  # noqa: E402

SOURCES = BENCH / "real_judgments.tsv"
LABELS = BENCH / "real_judgments_labels.tsv"
NO_DATE = date(2026, 6, 1)
KINDS = ("archive", "stale", "stale, about the whole memory", "stale, project under git",
         "relative-date", "conflict", "duplicate", "index hook")


@dataclass(frozen=True)
class Source:
    split: str
    repo: str
    path: str
    commit: str
    folder: str
    lang: str
    asof: date


@dataclass(frozen=True)
class Label:
    file: str
    line: int
    kind: str
    verdict: str
    detail: str


@dataclass
class Score:
    tallies: dict[str, Tally] = field(default_factory=dict)
    days: list[tuple[bool, str]] = field(default_factory=list)
    unverifiable: list[str] = field(default_factory=list)  # genuine, dated by the file's time
    dated_recall: Tally = field(default_factory=Tally)  # recall over labels the text dates
    conservative: list[str] = field(default_factory=list)  # missed, found were mtime allowed
    leave: Tally = field(default_factory=Tally)  # phrases labelled leave: hits left alone
    by_lang: dict[str, Tally] = field(default_factory=dict)  # relative dates per language
    cited: Tally = field(default_factory=Tally)  # cited paths: hits there, false ones gone
    maybe: Tally = field(default_factory=Tally)  # similar pairs that may say the same thing
    not_memories: int = 0  # labels on files that are no memories (the index, no frontmatter)
    folders: int = 0
    memories: int = 0
    langs: set[str] = field(default_factory=set)

    def tally(self, kind: str) -> Tally:
        return self.tallies.setdefault(kind, Tally())


def _rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return [r for r in csv.reader(f, delimiter="\t") if r and not r[0].startswith("#")]


def read_sources(path: Path = SOURCES) -> list[Source]:
    out = []
    for row in _rows(path):
        if row[0] == "split":
            continue
        split, repo, where, commit, folder, lang, asof = row[:7]
        try:
            day = date.fromisoformat(asof)
        except ValueError:  # a directory with no date in it: any day will do
            day = NO_DATE
        out.append(Source(split, repo, where, commit, folder, lang, day))
    return out


def read_labels(path: Path = LABELS) -> dict[str, list[Label]]:
    """Labels by folder."""
    out: dict[str, list[Label]] = defaultdict(list)
    for row in _rows(path):
        if row[0] == "split":
            continue
        _split, folder, file, line, kind, verdict, *rest = row
        out[folder].append(Label(file, int(line), kind, verdict, rest[0] if rest else ""))
    return out


def _pair(file: str, detail: str) -> frozenset[str]:
    other = detail.split("|", 1)[0].rsplit(":", 1)[0]
    return frozenset((file, other))


def _memory_pairs(labels: list[Label], kind: str) -> set[frozenset[str]]:
    """The labelled pairs of two memories (the index is not a memory: what its hooks say is
    the rebuild's business, measured by index_window.py)."""
    return {p for lab in labels if lab.kind == kind
            and "MEMORY.md" not in (p := _pair(lab.file, lab.detail)) and len(p) == 2}


def _day_right(resolved: str, day: str) -> bool:
    """Whether ``resolved`` (a day, "the week of <Monday>" or a month) says the labelled day."""
    if day in resolved:
        return True
    for token in resolved.replace("の週", " ").replace("那周", " ").split():
        try:
            monday = date.fromisoformat(token)
        except ValueError:
            continue
        wanted = date.fromisoformat(day)
        return monday <= wanted < monday + timedelta(days=7)
    return len(resolved) == 7 and day.startswith(resolved)


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _dated_line(line: str, day: str) -> bool:
    """Whether ``line`` already writes the labelled ``day`` (2026-03-26, 3/26, 03-26, 3月26日,
    Mar 26): the phrase needs no rewrite, the text gives its day."""
    when = date.fromisoformat(day)
    m, d = when.month, when.day
    forms = [day, f"{m}/{d}", f"{m:02d}/{d:02d}", f"{m:02d}-{d:02d}", f"{m}月{d}日",
             f"{m}月{d}号", f"{m}.{d}.", f"{d}.{m}.", f"{_MONTHS[m - 1]} {d}"]
    low = line.casefold()
    return any(re.search(rf"(?<![\d]){re.escape(f)}(?![\d])", low) for f in forms)


def _line_numbers(text: str) -> dict[str, list[int]]:
    """Each line's text (right-stripped) -> its 1-based line numbers in the file."""
    out: dict[str, list[int]] = defaultdict(list)
    for number, line in enumerate(text.splitlines(), 1):
        out[line.rstrip()].append(number)
    return out


def score_dates(root: Path, where: str, lang: str, labels: list[Label], score: Score) -> None:
    tally = score.tally("relative-date")
    per_lang = score.by_lang.setdefault(lang, Tally())
    texts = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
             .splitlines() for p in root.rglob("*.md")}
    wanted = []
    for lab in labels:
        if lab.kind != "date":
            continue
        lines = texts.get(lab.file, [])
        line = lines[lab.line - 1] if 0 < lab.line <= len(lines) else ""
        if lab.verdict == "rewrite" and lab.detail not in ("", "?") \
                and _dated_line(line, lab.detail):
            lab = Label(lab.file, lab.line, lab.kind, "leave", "dated")  # noqa: PLW2901
        wanted.append(lab)
    open_labels = list(wanted)
    loose: set[tuple[str, int]] = set()  # (file, line) of phrases found if any mtime dated them
    for memory in scan(root).memories:
        numbers = _line_numbers("\n".join(texts.get(memory.file, [])))
        loose.update((memory.file, n) for found in find_relative(
            memory.body, clock.local(memory.written_ns), memory.file, undated=True)
            for n in numbers.get(found.line.rstrip(), []))
        for found in relative_in(memory):
            lines = set(numbers.get(found.line.rstrip(), []))
            case = f"{where}/{memory.file}:{min(lines) if lines else '?'} {found.phrase!r} -> " \
                   f"{found.resolved}"
            mine = [lab for lab in open_labels if lab.file == memory.file and lab.line in lines]
            match = next((lab for lab in mine if lab.verdict == "rewrite"), None) \
                or (mine[0] if mine else None)
            if match is not None:
                open_labels.remove(match)
            if match is None or match.verdict != "rewrite":
                why = f" (labelled leave: {match.detail})" if match else " (not labelled)"
                tally.false.append(case + why)
                per_lang.false.append(case)
                continue
            tally.hits += 1
            per_lang.hits += 1
            if match.detail in ("", "?"):
                score.unverifiable.append(case)
            else:
                score.days.append((_day_right(found.resolved, match.detail),
                                   f"{case} (want {match.detail})"))
    for lab in wanted:
        if lab.verdict == "leave":
            if lab in open_labels:
                score.leave.hits += 1
            else:
                score.leave.false.append(f"{where}/{lab.file}:{lab.line} ({lab.detail})")
        if lab.verdict != "rewrite":
            continue
        dated = lab.detail not in ("", "?")
        case = f"{where}/{lab.file}:{lab.line} (day {lab.detail or '?'})"
        if lab in open_labels:
            if (lab.file, lab.line) in loose:
                score.conservative.append(case)
            tally.missed.append(case)
            per_lang.missed.append(case)
            if dated:
                score.dated_recall.missed.append(case)
        elif dated:
            score.dated_recall.hits += 1


def project_tree(listing: Path, dest: Path) -> Path | None:
    """A project of empty files at the paths ``listing`` names (``None`` without a listing, or
    with one its first line marks ``incomplete``: a path it leaves out is not gone): what a
    cited path is checked against. Other lines starting with '#' are comments; a path is the
    first tab-separated field."""
    if not listing.is_file():
        return None
    with listing.open(encoding="utf-8") as f:
        if "\tincomplete" in f.readline():
            return None
    dest.mkdir(parents=True)
    for row in _rows(listing):
        path = Path(row[0])
        if path.is_absolute() or ".." in path.parts:
            continue
        target = dest / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
        except OSError:  # a path once a file and once a folder in the listed history
            continue
    return dest


def stale_found(plan: Any, whole: bool = False) -> set[str]:
    """The files with a stale finding (``whole``: one about the memory as a whole), leaving
    out findings that rest only on a symbol found nowhere in the project: the benchmark's
    project holds empty files, so no symbol is ever found in them (a checkout's files would
    be searched)."""
    return {s.file for s in plan.stale
            if (s.archivable or not whole)
            and any("— found nowhere in the project" not in reason for reason in s.reasons)}


def stale_by_kind(plan: Any) -> dict[str, set[str]]:
    """The files with a stale finding, by each class of evidence the finding holds (a
    diagnostic: which class misleads)."""
    out: dict[str, set[str]] = defaultdict(set)
    for s in plan.stale:
        for reason in s.reasons:
            kind = next((k for k, start in _EVIDENCE if reason.startswith(start)), None)
            if kind:
                out[kind].add(s.file)
    return out


# How each class of evidence's reason starts (``consolidator.detect.stale``).
_EVIDENCE = (("marker", "status marker"),
             ("marker", "set aside"), ("deadline", "deadline passed"), ("path", "cites `"),
             ("branch", "names branch"), ("command", "runs `"))


def commit_all(project: Path) -> bool:
    """Make ``project`` a git repository whose one commit holds every listed file (what a
    checkout shows: a cited path git never held is no evidence). False without git."""
    git = ["git", "-C", str(project), "-c", "user.name=bench", "-c", "user.email=bench@local",
           "-c", "commit.gpgsign=false"]
    try:
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "listed files"]):
            subprocess.run([*git, *args], check=True, capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def score_citations(root: Path, project: Path, where: str, plan: Any, score: Score) -> None:
    """Cited paths the memories hold, there or gone (what the plan's stale findings say)."""
    gone: dict[str, set[str]] = defaultdict(set)
    for finding in plan.stale:
        for reason in finding.reasons:
            found = re.match(r"cites `([^`]+)` — not in the project", reason)
            if found:
                gone[finding.file].add(found.group(1))
    for memory in scan(root).memories:
        for path in mentioned_paths(memory.body):
            if path in gone[memory.file]:
                score.cited.false.append(f"{where}/{memory.file}: {path}")
            elif (project / path).exists():
                score.cited.hits += 1


def _score(tally: Tally, where: str, found: set[Any], wanted: set[Any]) -> None:
    show = lambda x: " ~ ".join(sorted(x)) if isinstance(x, frozenset) else str(x)  # noqa: E731
    tally.hits += len(found & wanted)
    tally.false += [f"{where}: {show(x)}" for x in sorted(found - wanted, key=show)]
    tally.missed += [f"{where}: {show(x)}" for x in sorted(wanted - found, key=show)]


def plan_index_name(root: Path) -> str:
    """The index's file name as the root has it (MEMORY.md, or a case variant)."""
    return next((p.name for p in root.iterdir() if p.name.casefold() == "memory.md"),
                "MEMORY.md")


def evaluate_folder(text_root: Path, source: Source, labels: list[Label], score: Score,
                    work: Path) -> None:
    where = f"{source.split}/{source.folder}"
    root = work / source.folder / "memory"
    shutil.copytree(text_root / source.split / source.folder, root)
    stamp = datetime(source.asof.year, source.asof.month, source.asof.day, 12,
                     tzinfo=UTC).timestamp()
    for path in root.rglob("*"):
        os.utime(path, (stamp, stamp))
    now = datetime.fromtimestamp(stamp, UTC) + timedelta(days=1)
    project = project_tree(text_root / "trees" / f"{source.folder}.tsv",
                           work / source.folder / "project")
    plan = plan_root(root, project, work / f"{source.folder}-state", now)
    if project is not None:
        score_citations(root, project, where, plan, score)
    memories = {m.file for m in plan.memories}
    index = plan_index_name(root)
    drifted = {line for m in plan.memories for w in m.warnings
               if (line := drift_line(w)) is not None and w.startswith(f"{index} ")}
    _score(score.tally("index hook"), where, {f"{index}:{n}" for n in drifted},
           {f"{index}:{lab.line}" for lab in labels if lab.file == index
            and lab.kind in ("stale", "conflict") and lab.verdict in ("stale", "conflict")})
    labels = [lab for lab in labels
              if not (lab.file == index and lab.kind in ("stale", "conflict"))]
    judged = [lab for lab in labels if lab.file in memories and (
        lab.kind not in ("conflict", "duplicate") or _pair(lab.file, lab.detail) <= memories)]
    score.not_memories += len(labels) - len(judged)
    labels = judged
    score.folders += 1
    score.memories += len(plan.memories)
    score.langs.add(source.lang)

    archive = {lab.file for lab in labels if lab.kind == "archive" and lab.verdict == "archive"}
    stale = archive | {lab.file for lab in labels if lab.kind == "stale"
                       and lab.verdict == "stale"}
    archived = {a.file for a in plan.actions if a.op == "archive" and not a.successor}
    _score(score.tally("archive"), where, archived, archive)
    _score(score.tally("stale"), where, stale_found(plan) | archived, stale)
    _score(score.tally("stale, about the whole memory"), where,
           stale_found(plan, whole=True) | archived, stale)
    for evidence, files in stale_by_kind(plan).items():
        _score(score.tally(f"stale, evidence {evidence}"), where, files, stale)
    if project is not None and commit_all(project):  # as a checkout under git would show it
        again = plan_root(root, project, work / f"{source.folder}-state-git", now)
        gone = {a.file for a in again.actions if a.op == "archive" and not a.successor}
        _score(score.tally("stale, project under git"), where, stale_found(again) | gone, stale)
    _score(score.tally("conflict"), where, {frozenset(c.files) for c in plan.conflicts},
           _memory_pairs(labels, "conflict"))
    alike = {frozenset(d.files[i:i + 2]) for d in plan.duplicates
             for i in range(len(d.files) - 1)} | {frozenset(s.files) for s in plan.similar}
    _score(score.tally("duplicate"), where, alike, _memory_pairs(labels, "duplicate"))
    maybe = {frozenset(s.files) for s in plan.similar if s.rare}
    _score(score.maybe, where, maybe, _memory_pairs(labels, "duplicate"))
    score_dates(root, where, source.lang, labels, score)


def evaluate(text_root: Path, split: str) -> dict[str, Score]:
    sources = [s for s in read_sources() if split in ("all", s.split)]
    labels = read_labels()
    scores: dict[str, Score] = {}
    with tempfile.TemporaryDirectory(prefix="real-judgments-") as tmp:
        for source in sources:
            if not (text_root / source.split / source.folder).is_dir():
                print(f"missing: {source.split}/{source.folder}", file=sys.stderr)
                continue
            evaluate_folder(text_root, source, labels.get(source.folder, []),
                            scores.setdefault(source.split, Score()), Path(tmp))
    return scores


def _ratio(n: int, d: int) -> str:
    return f"{n / d:.2f} ({n}/{d})" if d else "- (0/0)"


def figures(score: Score) -> dict[str, str]:
    """Each measure of one split, as printed."""
    out = {"folders": str(score.folders), "memories": str(score.memories),
           "languages": ", ".join(sorted(score.langs)),
           "labels left out: on files that are no memories": str(score.not_memories)}
    for kind in KINDS:
        tally = score.tally(kind)
        out[f"{kind} precision"] = _ratio(tally.hits, tally.hits + len(tally.false))
        out[f"{kind} recall"] = _ratio(tally.hits, tally.hits + len(tally.missed))
    for kind in sorted(k for k in score.tallies if k.startswith("stale, evidence ")):
        tally = score.tally(kind)
        out[f"{kind} precision"] = _ratio(tally.hits, tally.hits + len(tally.false))
    out["false archives"] = str(len(score.tally("archive").false))
    maybe = score.maybe
    out["duplicate: of which pairs that may say the same thing (a line of each sharing rare "
        "words): precision"] = _ratio(maybe.hits, maybe.hits + len(maybe.false))
    right = sum(ok for ok, _ in score.days)
    out["relative-date right day (labels with a day)"] = _ratio(right, len(score.days))
    out["relative-date genuine, day from the file's time"] = str(len(score.unverifiable))
    dated = score.dated_recall
    out["relative-date recall, days the text gives"] = _ratio(dated.hits,
                                                              dated.hits + len(dated.missed))
    out["relative-date phrases labelled leave, left as written"] = _ratio(
        score.leave.hits, score.leave.hits + len(score.leave.false))
    out["relative-date missed, left for want of a date (recall lost by being conservative)"] = \
        str(len(score.conservative))
    cited = score.cited
    if cited.hits or cited.false:
        out["cited project paths checked: there, reported gone"] = \
            f"{cited.hits}, {len(cited.false)}"
    for lang, tally in sorted(score.by_lang.items()):
        out[f"relative-date recall [{lang}]"] = _ratio(tally.hits, tally.hits + len(tally.missed))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("dir", type=Path, help="the folder holding <split>/<folder>/ text")
    parser.add_argument("--split", choices=("study", "test", "heldout", "all"), default="study")
    parser.add_argument("--verbose", action="store_true", help="every false and missed case")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    log.configure("console", "warning")
    scores = evaluate(args.dir, args.split)
    table = {split: figures(score) for split, score in sorted(scores.items())}
    if args.json:
        print(json.dumps(table, indent=2, ensure_ascii=False))
        return
    splits = sorted(table)
    print("| measure | " + " | ".join(splits) + " |\n|---|" + "---|" * len(splits))
    # Every split's measures, in the order they first come: a split may lack some (a language
    # it has no phrase of, citations where no tree was listed).
    measures = dict.fromkeys(m for split in splits for m in table[split])
    for measure in measures:
        print(f"| {measure} | " + " | ".join(table[s].get(measure, "-") for s in splits) + " |")
    if args.verbose:
        for split, score in sorted(scores.items()):
            print_cases(score.tallies, f"[{split}] ")
            if score.cited.false:
                print(f"\n[{split}] cited paths reported gone:")
                print("\n".join(f"  {c}" for c in score.cited.false))
            if score.conservative:
                print(f"\n[{split}] relative-date, left for want of a date:")
                print("\n".join(f"  {c}" for c in score.conservative))
            wrong = [c for ok, c in score.days if not ok]
            if wrong:
                print(f"\n[{split}] relative-date, wrong day:")
                print("\n".join(f"  {c}" for c in wrong))


if __name__ == "__main__":
    main()
