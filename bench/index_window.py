"""The index rebuild against Claude Code's window: what a default run, and a run that applies
everything, do to the lines every session loads.

    python bench/index_window.py [--real DIR] [--split test|study|all] [--json] [--verbose]

Cases: the index hard cases of bench/hardcases/index-*, the cases bench/index_cases.py
writes (one per class of damage, in several languages), and, with --real, real public
memory directories kept outside the repository (DIR/sources.tsv lists them: split, repo,
path, commit, folder; bench/real_indexes.tsv keeps those sources without their text).

Each case is copied twice, every file aged 30 days (so nothing counts as being written by a
live session), and consolidated in-process with --force: once with ``apply = "safe"`` (then
once more, to see that a second run changes nothing; then ``consolidator apply`` of the
proposal that run left, and a run after it) and once with ``apply = "all"`` (then once
more). Measured per case, with a reading of the window written here, independently of
the code under test (first 200 lines and 25,000 bytes of the index, frontmatter and block
HTML comments left out):

- runs that ended in an error: a failed run changes nothing, so every other measure would
  read 0 for it;
- loaded lines changed by a default run: non-blank lines of the window before that are not,
  word for word, in the window after (a line moved out, shortened or reworded; a link
  repointed at the survivor of a merge, which the contract makes safe, is not counted);
- pinned lines out of the window after ``apply = "all"``, and after applying the default
  run's proposal (a pointer unlinked with its words kept, as a judgment may, still counts
  as there): the title, the intro and first
  section, feedback rules and lines marked as priority (their labels for the written cases;
  for real text a plain reading: the first heading and the lines under it when another
  heading follows, lines under a feedback or rules heading, pointers to a feedback memory,
  lines with a warning sign or a shouted NEVER / ALWAYS / CRITICAL / IMPORTANT / MUST);
- topic memories created or extended per run (target: at most 3);
- hooks changed in an index that was within its limits (default run);
- default runs that left no room for Claude Code's next pointer line (150 characters of up
  to 4 bytes) in an index that had it (since 2.1.210 that write would fail);
- indexes still over after ``apply = "all"`` without a reason in the report;
- files a second run changes, per mode; runs of blank lines gained; topic memories the
  index (or another topic memory) does not point to exactly once.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
# The checkout's package, after any on PYTHONPATH: PYTHONPATH=<another checkout> measures
# that one's code with these cases.
if str(BENCH.parent) not in sys.path:
    sys.path.append(str(BENCH.parent))

import index_cases  # noqa: E402

from consolidator import log  # noqa: E402
from consolidator.cli import main as cli_main  # noqa: E402
from consolidator.config import Config  # noqa: E402
from consolidator.runner import RunOptions, context_for, new_run_id, run_root  # noqa: E402

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
AGE_S = 30 * 86400
MAX_LINES, MAX_BYTES = 200, 25000
NEXT_POINTER = 4 * 150 + 1  # the bytes Claude Code's next pointer line may take
_PRIORITY = re.compile(r"🚨|⚠|❗|‼|⛔|\b(?:NEVER|ALWAYS|CRITICAL|IMPORTANT|MUST)\b|절대|必ず|严禁")
_RULES_HEADING = re.compile(r"feedback|rules|フィードバック|피드백|反馈|規則|规则", re.I)
_TARGET = re.compile(r"\]\([^)\s]*\)|\s\([^\s()]+\.md (?:missing|archived)\)|[\[\]]")


def _said(line: str) -> str:
    """A line without its links' targets (a link repointed at the survivor of a merge, which
    the contract makes safe, does not change what the line says; anything else does)."""
    return re.sub(r"\]\([^)\s]*\)", "]()", line)


def _words(line: str) -> str:
    """What a line says, without its links' targets: a link repointed at a merge's survivor
    (a safe consequence of the merge), or unlinked with its words kept, is not a change to
    what the line says."""
    return " ".join(_TARGET.sub("", line).split())


@dataclass
class Result:
    case: str
    group: str
    lines: int
    bytes: int
    loaded_changed: list[str] = field(default_factory=list)
    pinned_out: list[str] = field(default_factory=list)
    topics_safe: int = 0
    topics_all: int = 0
    hooks_changed: list[str] = field(default_factory=list)
    over_without_reason: bool = False
    second_run_safe: list[str] = field(default_factory=list)
    second_run_all: list[str] = field(default_factory=list)
    blank_runs_gained: int = 0
    topics_not_pointed_once: list[str] = field(default_factory=list)
    pinned_out_after_apply: list[str] = field(default_factory=list)
    room_taken: bool = False
    full_after_fit: bool = False  # fitted under apply=all to no room for the next pointer
    moved_still_over: bool = False  # a default run moved lines and left the index over
    failed: list[str] = field(default_factory=list)  # runs that ended in an error
    within_after_all: bool = True
    seconds: float = 0.0


def content(text: str) -> list[str]:
    """The lines of an index Claude Code counts (an independent reading): no frontmatter, no
    block HTML comment, no leading blank line."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            lines = lines[end + 1:]
    kept, comment = [], False
    for line in lines:
        stripped = line.strip()
        if comment or stripped.startswith("<!--"):
            comment = "-->" not in stripped
            continue
        kept.append(line)
    while kept and not kept[0].strip():
        kept.pop(0)
    return kept


def window(text: str) -> list[str]:
    """The lines Claude Code loads of an index (an independent reading)."""
    out: list[str] = []
    used = 0
    for line in content(text):
        used += len(line.encode()) + 1
        if len(out) >= MAX_LINES or used > MAX_BYTES:
            break
        out.append(line)
    return out


def room_for_a_pointer(text: str) -> bool:
    """Whether Claude Code could add one more pointer line, whatever it says (150 characters
    of up to 4 bytes), without leaving the index over its limits."""
    lines = content(text)
    return (len(lines) + 1 <= MAX_LINES
            and sum(len(line.encode()) + 1 for line in lines) + NEXT_POINTER <= MAX_BYTES)


def plain_pinned(text: str) -> list[str]:
    """Lines any reader would keep loaded: the first heading and the lines under it up to
    the next heading (an intro, when another heading follows), lines under a feedback or
    rules heading, pointers to a feedback memory, lines marked as priority."""
    lines = text.splitlines()
    headings = [i for i, line in enumerate(lines) if line.lstrip().startswith("# ")
                or line.lstrip().startswith("##")]
    intro_end = headings[1] if len(headings) > 1 else (headings[0] + 1 if headings else 0)
    out: list[str] = []
    heading = ""
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:  # code, not a rule a reader keeps in view
            continue
        if line.lstrip().startswith("#"):
            heading = line
            if i == (headings[0] if headings else -1):
                out.append(line)
            continue
        if not line.strip():
            continue
        if (i < intro_end or _RULES_HEADING.search(heading) or _PRIORITY.search(line)
                or re.search(r"\]\(<?(?:\./)?feedback[^)]*\.md", line)):
            out.append(line)
    return out


def stub_missing(root: Path) -> None:
    """A real index collected without its memories: a small memory for each file its lines
    link to (typed by the file's prefix), so the run sees a whole directory, not an index
    whose every pointer dangles. A folder that kept its memories is left as it is."""
    if any(p.name != "MEMORY.md" for p in root.rglob("*.md")):
        return
    text = index_text(root)
    for raw in re.findall(r"\]\(<?([^)>\s#]+\.md)>?(?:#[^)]*)?\)", text):
        rel = raw.removeprefix("./")
        if rel.startswith(("/", "../")) or "://" in rel or rel.endswith("MEMORY.md"):
            continue
        path = root / rel
        if path.exists():
            continue
        stem = Path(rel).stem
        mtype = next((t for t in ("feedback", "user", "reference") if stem.startswith(t)),
                     "project")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: {stem}\ndescription: notes on {stem.replace('_', ' ')}\n"
                        f"type: {mtype}\n---\nA stand-in for the memory {rel}.\n",
                        encoding="utf-8")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.name.startswith(".")}


def age(root: Path) -> None:
    stamp = time.time() - AGE_S
    for path in root.rglob("*"):
        os.utime(path, (stamp, stamp), follow_symlinks=False)


def consolidate(root: Path, state: Path, mode: str) -> Any:
    opts = RunOptions(state_dir=state, dry_run=False, force=True, trigger="run", apply=mode,
                      env={})
    now = datetime.now(UTC)
    return run_root(context_for(root, Config(), opts, now, new_run_id(now)))


def apply_proposal(root: Path, state: Path, run_id: str) -> None:
    """``consolidator apply RUN_ID``: every waiting judgment of the default run, applied."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli_main(["apply", run_id, "--memory-dir", str(root), "--state-dir", str(state)])


def index_text(root: Path) -> str:
    for name in ("MEMORY.md", "memory.md"):
        if (root / name).exists():
            return (root / name).read_text(encoding="utf-8", errors="replace")
    return ""


def changes(first: dict[str, bytes], second: dict[str, bytes]) -> list[str]:
    return sorted({f for f in first.keys() | second.keys() if first.get(f) != second.get(f)})


def measure(case: str, group: str, source: Path, pinned: list[str] | None) -> Result:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        roots = {}
        for mode in ("safe", "all"):
            shutil.copytree(source, base / mode / "memory", symlinks=True)
            if group.startswith("real"):
                stub_missing(base / mode / "memory")
            age(base / mode / "memory")
            roots[mode] = base / mode / "memory"
        before = index_text(roots["safe"])
        lines, size = len(window(before)), len(before.encode())
        result = Result(case, group, len(before.splitlines()), size)
        loaded_before = [_said(line) for line in window(before) if line.strip()]
        pinned = pinned if pinned is not None else plain_pinned(before)
        within_before = (len(before.splitlines()) <= MAX_LINES and size <= MAX_BYTES)
        for mode, root in roots.items():
            state = base / mode / "state"
            names_before = set(tree(root))
            report = consolidate(root, state, mode)
            if report.status == "failed":
                result.failed.append(f"{mode}: {report.error}")
            made = [a for a, ok in zip(report.plan.actions, report.plan.applied, strict=False)
                    if ok and a.file.rsplit("/", 1)[-1].startswith("index_")]
            after = index_text(root)
            loaded_after = Counter(_said(line) for line in window(after) if line.strip())
            words_after = {_words(line) for line in window(after) if line.strip()}
            if mode == "safe":
                result.topics_safe = len(made)
                left = Counter(loaded_before) - loaded_after
                result.loaded_changed = sorted(left)
                if within_before:
                    result.hooks_changed = sorted(left)
                result.room_taken = room_for_a_pointer(before) and not room_for_a_pointer(after)
                index = report.plan.index
                result.moved_still_over = bool(made and index and not index.within_limits)
            else:
                result.topics_all = len(made)
                result.pinned_out = [p for p in pinned if p.strip() and not p.startswith("<!--")
                                     and _words(p) not in words_after]
                index = report.plan.index
                result.within_after_all = bool(index and index.within_limits)
                result.over_without_reason = bool(index and not index.within_limits
                                                  and not index.why)
                result.full_after_fit = bool(index and index.over_limits and index.within_limits
                                             and not room_for_a_pointer(after)
                                             and not index.why)
                result.blank_runs_gained = max(after.count("\n\n\n") - before.count("\n\n\n"), 0)
                topics = {a.file for a in made}
                listed = " ".join((root / t).read_text(encoding="utf-8") for t in topics
                                  if (root / t).exists())
                result.topics_not_pointed_once = sorted(
                    t for t in topics
                    if after.count(f"({t})") + listed.count(f"({t})") != 1)
            first = tree(root)
            again = consolidate(root, state, mode)
            if again.status == "failed":
                result.failed.append(f"{mode}, second run: {again.error}")
            second = changes(first, tree(root))
            setattr(result, f"second_run_{mode}", second)
            del names_before
            if mode == "safe" and again.plan.proposal is not None:
                apply_proposal(root, state, again.plan.proposal.run_id or "")
                fitted = index_text(root)
                words_fitted = {_words(line) for line in window(fitted) if line.strip()}
                result.pinned_out_after_apply = [
                    p for p in pinned if p.strip() and not p.startswith("<!--")
                    and _words(p) not in words_fitted]
                topics = [p.name for p in root.glob("index_*.md")]
                listed = " ".join((root / t).read_text(encoding="utf-8") for t in topics)
                result.topics_not_pointed_once += sorted(
                    f"{t} (after apply)" for t in topics
                    if fitted.count(f"({t})") + listed.count(f"({t})") != 1)
                first = tree(root)
                consolidate(root, state, mode)
                result.second_run_safe += [f"{f} (after apply)"
                                           for f in changes(first, tree(root))]
        del lines
    result.seconds = round(time.monotonic() - started, 2)
    return result


def written_cases(work: Path) -> list[tuple[str, str, Path, list[str] | None]]:
    out: list[tuple[str, str, Path, list[str] | None]] = []
    labels = index_cases.write_all(work / "written")
    for name, label in labels.items():
        out.append((name, "written", work / "written" / name / "memory", label["pinned"]))
    for path in sorted((BENCH / "hardcases").glob("index-*/*/labels.json")):
        spec = json.loads(path.read_text(encoding="utf-8")).get("index", {})
        text = (path.parent / "memory" / spec.get("file", "MEMORY.md")).read_text("utf-8")
        pinned = [line for line in text.splitlines()
                  if any(part in line for part in spec.get("priority", []) + spec.get("keep", []))]
        out.append((path.parent.relative_to(BENCH / "hardcases").as_posix(), "hardcases",
                    path.parent / "memory", pinned))
    return out


def real_cases(folder: Path, split: str) -> list[tuple[str, str, Path, list[str] | None]]:
    out: list[tuple[str, str, Path, list[str] | None]] = []
    with (folder / "sources.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if split != "all" and row["split"] != split:
                continue
            path = folder / row["folder"]
            if (path / "MEMORY.md").exists():
                out.append((Path(row["folder"]).name, f"real-{row['split']}", path, None))
    return out


TARGETS = [
    ("runs that ended in an error", lambda r: len(r.failed), 0),
    ("loaded lines changed by a default run", lambda r: len(r.loaded_changed), 0),
    ("pinned lines out of the window under apply=all", lambda r: len(r.pinned_out), 0),
    ("pinned lines out of the window after applying the proposal",
     lambda r: len(r.pinned_out_after_apply), 0),
    ("runs creating more than 3 topic memories", lambda r: (r.topics_safe > 3) + (r.topics_all > 3), 0),
    ("hooks changed in an index within its limits", lambda r: len(r.hooks_changed), 0),
    ("default runs that took the room of Claude Code's next pointer",
     lambda r: int(r.room_taken), 0),
    ("default runs that moved lines and left the index over its limits",
     lambda r: int(r.moved_still_over), 0),
    ("over after apply=all with no reason given", lambda r: int(r.over_without_reason), 0),
    ("fits under apply=all that left no room for Claude Code's next pointer, no reason given",
     lambda r: int(r.full_after_fit), 0),
    ("files a second run changed", lambda r: len(r.second_run_safe) + len(r.second_run_all), 0),
    ("runs of blank lines gained", lambda r: r.blank_runs_gained, 0),
    ("topic memories not pointed to exactly once", lambda r: len(r.topics_not_pointed_once), 0),
]


def table(results: list[Result]) -> list[str]:
    groups = sorted({r.group for r in results})
    out = ["| measure | " + " | ".join(groups) + " | target |",
           "|---|" + "---|" * len(groups) + "---|"]
    out.append("| cases | " + " | ".join(str(sum(1 for r in results if r.group == g))
                                         for g in groups) + " | |")
    over = [sum(1 for r in results if r.group == g and (r.lines > MAX_LINES
                                                       or r.bytes > MAX_BYTES)) for g in groups]
    out.append("| indexes over the limits before | " + " | ".join(map(str, over)) + " | |")
    for name, value, target in TARGETS:
        cells = [str(sum(value(r) for r in results if r.group == g)) for g in groups]
        out.append(f"| {name} | " + " | ".join(cells) + f" | {target} |")
    still = [sum(1 for r in results if r.group == g and not r.within_after_all) for g in groups]
    out.append("| over after apply=all (reason given) | " + " | ".join(map(str, still)) + " | |")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, help="folder of real directories (sources.tsv)")
    parser.add_argument("--split", default="test", choices=("test", "study", "all"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    log.configure(level="error", fmt="json")
    with tempfile.TemporaryDirectory() as tmp:
        cases = written_cases(Path(tmp))
        if args.real:
            cases += real_cases(args.real, args.split)
        results = [measure(*case) for case in cases]
    if args.json:
        print(json.dumps([asdict(r) for r in results], ensure_ascii=False, indent=1))
        return 0
    print("\n".join(table(results)))
    if args.verbose:
        for r in results:
            bad = {k: v for k, v in asdict(r).items() if v and k in (
                "failed", "loaded_changed", "pinned_out", "hooks_changed", "second_run_safe",
                "second_run_all", "topics_not_pointed_once", "pinned_out_after_apply")}
            print(f"\n{r.group}/{r.case}: {r.lines} lines, {r.bytes} bytes; topics "
                  f"{r.topics_safe}/{r.topics_all}; within after all: {r.within_after_all}"
                  + (f"; blank runs gained: {r.blank_runs_gained}" if r.blank_runs_gained
                     else ""))
            for key, value in bad.items():
                print(f"  {key}: {value[:5]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
