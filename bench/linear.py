"""Does every detector and parser stay linear on hostile text?

    python bench/linear.py [--sizes 64,256] [--runs 2] [--only NAME ...]
                           [--stages memory,pair,index,links,redact,claims] [--report-mib 1]

Each *input* is a short unit repeated to a size (one line, or one per line where the name
says so): credential words with no value after them, link openings, runs of spaces,
punctuation, emphasis and backticks, digits that look like dates, CJK text, paths, headings
padded with spaces. Each *stage* reads that text the way a run does:

  memory    a dry-run plan of a root with a memory whose body is the text: scan, the
            per-memory study (normal forms, relative dates, stale evidence, secrets),
            duplicates, conflicts, similar memories, link repointing, the index rebuild,
            then both reports (JSON and Markdown, secrets masked)
  pair      the same plan and reports of a root with two memories that are the text with
            one line each of their own (so duplicates, similar memories and conflicts compare
            them)
  index     the same plan and reports of a root whose MEMORY.md is the text (the rebuild
            reads, values, shrinks and rewrites it)
  links     the link parsing alone: MEMORY.md's lines classified, links repointed in a
            memory body, unlinked and retargeted in the index
  redact    the secret scan and redaction that run before any text is sent to a model
  claims    the check of a model's merged text against its sources (the text is both)

The table gives the best time of ``--runs`` at each size and the ratio of the largest to the
smallest: linear work grows with the size (about 4x from 64 KB to 256 KB), quadratic work
with its square (16x). Then, unless ``--report-mib 0``, one whole ``consolidator report`` in a
fresh process (as a user runs it) over a root holding a memory of that many MiB of each
input, with its wall time.

tests/unit/test_linear.py runs the same inputs and stages with a loose bound.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
# The checkout's package, after any on PYTHONPATH: PYTHONPATH=<another checkout> measures
# that one's code with these cases.
if str(BENCH.parent) not in sys.path:
    sys.path.append(str(BENCH.parent))

from consolidator import log  # noqa: E402
from consolidator.config import Config  # noqa: E402
from consolidator.detect.links import repoint  # noqa: E402
from consolidator.index.parse import parse_index, retarget, unlink  # noqa: E402
from consolidator.llm.claims import missing_claims  # noqa: E402
from consolidator.llm.redact import find, redact  # noqa: E402
from consolidator.report.json import to_json  # noqa: E402
from consolidator.report.markdown import markdown  # noqa: E402
from consolidator.runner import RunOptions, run_all  # noqa: E402

KB = 1024
OLD = 1_700_000_000  # every file's mtime: long idle, so nothing is held back as "hot"


def _repeat(unit: str, head: str = "", tail: str = "") -> Callable[[int], str]:
    def make(size: int) -> str:
        room = max(size - len(head) - len(tail), 0)
        return head + (unit * (room // len(unit) + 1))[:room] + tail
    return make


# name -> the text of that many characters
INPUTS: dict[str, Callable[[int], str]] = {
    "credential words": _repeat("token password pwd secret api_key "),
    "token": _repeat("token "),
    "password": _repeat("password "),
    "pwd": _repeat("pwd "),
    "secret": _repeat("secret "),
    "api_key": _repeat("api_key "),
    "credential lines": _repeat("password is\ntoken\n"),
    "links [x](": _repeat("[x]("),
    "angle links [x](<": _repeat("[x](<"),
    "wiki links [[x#": _repeat("[[x#"),
    "reference definitions [x]: ": _repeat("[x]: a.md \"t "),
    "reference labels [\\]": _repeat("[\\]"),
    "escaped brackets": _repeat("\\["),
    "bracket after three backslashes": _repeat("\\\\\\[see [[c](a.md)](x.md) "),
    "dead link in stray brackets": _repeat("[x [[y](x.md)](x.md) "),
    "spaces": _repeat(" ", "# a", "b"),
    "tabs and spaces": _repeat(" \t", "- status: a", "b"),
    "punctuation": _repeat(".-:;,!?"),
    "emphasis **": _repeat("**"),
    "stars in a path": _repeat("*", head="see x.md notes/", tail=".md"),
    "patterns of paths": _repeat("notes/<a>*{b}x.md YYYY-*.md **n/*.md**. "),
    "days and month names": _repeat("## 3 mars 4. März 5 de mayo 12 sept. 1 1 yesterday "),
    "backticks": _repeat("`"),
    "code spans of every length": _repeat("`` ` [x](a.md) ```` "),
    "fences ```": _repeat("```\n[x](a.md)\n~~~~\n"),
    "dates-like digits": _repeat("2026-01-"),
    "numbers 1:": _repeat("1:"),
    "CJK": _repeat("密码パスワード明天截止已完成"),
    "paths a/": _repeat("a/"),
    "paths ~/": _repeat("~/"),
    "urls": _repeat("http://a/"),
    "heading hashes": _repeat(" #", "# a"),
    "one long word": _repeat("a", tail=" 1"),
    "plus signs": _repeat("+", tail=" a/b.py"),
    "dashed words sk-": _repeat("sk-", tail="://x"),
    "capitals joined by plus signs": _repeat("A+", tail=" 1"),
    "names and versions": _repeat("Astro 5 `astro@6` ", tail="\nastro"),
    "pins a.b/c.d": _repeat("a.b/c.d", tail="@1"),
    "versions in a fenced block": _repeat("Astro 5\n", head="```\n", tail="\n```"),
    "stack lines with dates": _repeat("- Astro 5 + React 6 on June 5\n"),
    "counts and labels": _repeat("Phase 4 3 more agents 8편 Atlas 10 "),
    "replacing words and names": _repeat("supersedes [[other]] and other.md, replaces `big.md` "),
    "a hook of counts": _repeat("Phase 4 3 more agents 8편 Atlas 10 ", head="- [Big](big.md) — "),
    "negations": _repeat("Do not cancel the big node, never agents 3 "),
    "comment openers <!--": _repeat("<!-- a\nb --> c\n<!--\n"),
    "labels over lists": _repeat("Decided:\n- Always deploy on Fridays.\n1. Step one\n"),
    "table cells of days": _repeat("| API | fixed yesterday by Bob |\n", head="# 2026-05-20\n"),
    "indented blocks": _repeat("\n    deploy broke yesterday\n"),
}


def _root(base: Path, body: str = "", index: str = "", twin: bool = False) -> Path:
    """A root with a memory of ``body``, another memory (``twin``: ``body`` again with a line of
    its own, which the first memory gets too), and a MEMORY.md ending in ``index``."""
    root = base / "memory"
    root.mkdir()
    mine, other = (f"{body}\n- The dev database port is 5432.", f"{body}\n- The dev database port"
                   " is 6432.") if twin else (body, "The user likes tea.")
    (root / "big.md").write_text(
        f"---\nname: big\ndescription: a large memory\ntype: project\n---\n{mine}\n",
        encoding="utf-8")
    (root / "other.md").write_text(
        f"---\nname: other\ndescription: another memory\ntype: user\n---\n{other}\n",
        encoding="utf-8")
    # A count in the hook: the memory's text is read for counts that differ (hooks.py).
    (root / "MEMORY.md").write_text(f"- [Big](big.md) — big, 3 agents\n{index}\n",
                                    encoding="utf-8")
    for path in root.iterdir():
        os.utime(path, (OLD, OLD))
    return root


def _plan(body: str = "", index: str = "", twin: bool = False) -> None:
    """A dry-run plan over a root made of ``body`` and ``index``, and both of its reports."""
    base = Path(tempfile.mkdtemp(prefix="linear-"))
    try:
        root = _root(base, body, index, twin)
        opts = RunOptions(state_dir=base / "state", dry_run=True)
        result = run_all([root], Config(), opts, datetime.now(UTC))
        to_json(result)
        markdown(result)
    finally:
        shutil.rmtree(base)


def memory(text: str) -> None:
    _plan(body=text)


def pair(text: str) -> None:
    _plan(body=text, twin=True)


def index(text: str) -> None:
    _plan(index=text)


def links(text: str) -> None:
    parse_index(text)
    repoint(text, "a.md", {"x.md": "y.md"}, {})
    unlink(text, {"x.md"}, "archived")
    retarget(text, "x.md", "y.md")


def redaction(text: str) -> None:
    find(text)
    redact(text)


def claims(text: str) -> None:
    missing_claims([text], text)


STAGES: dict[str, Callable[[str], None]] = {
    "memory": memory, "pair": pair, "index": index, "links": links, "redact": redaction,
    "claims": claims,
}


def best_time(stage: Callable[[str], None], text: str, runs: int) -> float:
    """The best of ``runs`` timings of ``stage`` on ``text``, in seconds."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        stage(text)
        best = min(best, time.perf_counter() - started)
    return best


def whole_report(unit_input: str, mib: float) -> float:
    """Seconds for ``consolidator report`` in a fresh process over a root holding one memory
    of ``mib`` MiB of ``unit_input`` (within the scan's 1 MiB cap)."""
    base = Path(tempfile.mkdtemp(prefix="linear-report-"))
    try:
        head = "---\nname: big\ndescription: a large memory\ntype: project\n---\n"
        size = int(mib * KB * KB) - len(head.encode()) - 64
        body = INPUTS[unit_input](size)
        while len((head + body).encode()) > mib * KB * KB - 2:
            body = body[: len(body) - 4096]
        root = _root(base)
        (root / "big.md").write_text(head + body + "\n", encoding="utf-8")
        os.utime(root / "big.md", (OLD, OLD))
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "consolidator", "report", "--memory-dir", str(root),
             "--state-dir", str(base / "state"), "--format", "json"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            cwd=BENCH.parent)
        return time.perf_counter() - started
    finally:
        shutil.rmtree(base)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="64,256", help="sizes in KB, comma-separated")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, help="inputs to run (names)")
    parser.add_argument("--stages", default=",".join(STAGES), help="stages, comma-separated")
    parser.add_argument("--report-mib", type=float, default=1.0,
                        help="memory size of the whole-report check (0: skip it)")
    args = parser.parse_args(argv)
    sizes = [int(s) * KB for s in args.sizes.split(",")]
    log.configure("console", "error")
    names = args.only or list(INPUTS)
    print(f"| input | stage | {' | '.join(f'{s // KB} KB' for s in sizes)} | ratio |")
    print("|---|---|" + "---|" * len(sizes) + "---|")
    for name in names:
        for stage_name in args.stages.split(","):
            stage = STAGES[stage_name]
            times = [best_time(stage, INPUTS[name](size), args.runs) for size in sizes]
            ratio = times[-1] / max(times[0], 1e-6)
            cells = " | ".join(f"{t * 1000:.1f} ms" for t in times)
            print(f"| {name} | {stage_name} | {cells} | {ratio:.1f}x |", flush=True)
    if args.report_mib > 0:
        print(f"\nWhole `consolidator report` over a root with one {args.report_mib:g} MiB "
              "memory (fresh process):\n")
        print("| input | seconds |\n|---|---|")
        for name in names:
            print(f"| {name} | {whole_report(name, args.report_mib):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
