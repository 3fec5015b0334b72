"""Time `consolidator report` against merely parsing the same memories with python-frontmatter.

    python bench/report_vs_frontmatter.py [--count 10000] [--dir PATH]

Generates (or reuses) a labelled directory under bench/out/, then runs, each as a fresh
subprocess, alternating, best of 3:
  (a) consolidator report --format json --output TMP --memory-dir DIR --state-dir FRESH_TMP
  (b) python -c "<frontmatter.load every *.md under DIR except MEMORY.md>"
and prints both times and the ratio report/parse.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from memgen.build import generate

PARSE_SCRIPT = """\
import sys
from pathlib import Path

import frontmatter

parsed = failed = 0
for path in Path(sys.argv[1]).rglob("*.md"):
    if path.name == "MEMORY.md":
        continue
    try:
        frontmatter.load(path)
        parsed += 1
    except Exception:
        failed += 1
print(parsed, failed)
"""


@dataclass
class Timing:
    label: str
    command: list[str]
    seconds: list[float] = field(default_factory=list)
    detail: str = ""

    @property
    def best(self) -> float:
        return min(self.seconds)


def consolidator_command() -> list[str]:
    """The `consolidator` script of this interpreter's environment, else `python -m`."""
    script = Path(sys.executable).parent / "consolidator"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "consolidator"]


def memory_dir_for(dest: Path, count: int, seed: int) -> Path:
    """Reuse `dest` if it holds a generated directory of this size (or is a memory dir
    itself, with MEMORY.md); generate one there if it does not exist or is empty."""
    labels = dest / "labels.json"
    if labels.is_file():
        with labels.open(encoding="utf-8") as fh:
            meta = json.load(fh)
        if (meta.get("count"), meta.get("seed")) != (count, seed):
            raise SystemExit(f"{dest} holds count={meta.get('count')} seed={meta.get('seed')}, "
                             f"not count={count} seed={seed}; pick another --dir or delete it")
        print(f"reusing {dest} (generated {meta.get('now')})")
        return dest / str(meta.get("memory_dir", "memory"))
    if (dest / "MEMORY.md").is_file():
        print(f"using the memory directory {dest} as it is")
        return dest
    if dest.exists() and any(dest.iterdir()):
        raise SystemExit(f"{dest} exists and is not a generated directory")
    print(f"generating {count} memories into {dest} ...", flush=True)
    result = generate(dest, count, seed)
    print(f"  done in {result.stats['seconds']} s")
    return dest / result.memory_dir


def run_report(memory_dir: Path, timing: Timing) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        output, state = Path(tmp) / "report.json", Path(tmp) / "state"
        state.mkdir()
        command = [*timing.command, "report", "--format", "json", "--output", str(output),
                   "--memory-dir", str(memory_dir), "--state-dir", str(state)]
        started = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        timing.seconds.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise SystemExit(f"consolidator report exited {proc.returncode}:\n{proc.stderr}")
        with output.open(encoding="utf-8") as fh:
            root = json.load(fh)["roots"][0]
        timing.detail = (f"{len(root.get('memories', []))} memories, "
                         f"{len(root.get('unparsed', []))} unparsed")


def run_parse(memory_dir: Path, timing: Timing) -> None:
    started = time.perf_counter()
    proc = subprocess.run([*timing.command, str(memory_dir)], capture_output=True, text=True,
                          check=False)
    timing.seconds.append(time.perf_counter() - started)
    if proc.returncode != 0:
        raise SystemExit(f"frontmatter parse exited {proc.returncode}:\n{proc.stderr}")
    parsed, failed = proc.stdout.split()
    timing.detail = f"{parsed} parsed, {failed} failed"


def print_table(report: Timing, parse: Timing) -> None:
    print()
    print(f"{'run':<24}{'best (s)':>10}   all runs (s)       detail")
    for t in (report, parse):
        runs = " ".join(f"{s:.3f}" for s in t.seconds)
        print(f"{t.label:<24}{t.best:>10.3f}   {runs:<18} {t.detail}")
    print(f"{'ratio report/parse':<24}{report.best / parse.best:>10.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="memories (default 10000)")
    parser.add_argument("--dir", type=Path, default=None,
                        help="generated directory to use or create "
                             "(default bench/out/memories-COUNT-seedSEED)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=3, help="runs of each, best kept (default 3)")
    args = parser.parse_args(argv)
    dest = args.dir or BENCH / "out" / f"memories-{args.count}-seed{args.seed}"
    memory_dir = memory_dir_for(dest.resolve(), args.count, args.seed)
    files = sum(1 for p in memory_dir.rglob("*.md") if p.name != "MEMORY.md")
    size = sum(p.stat().st_size for p in memory_dir.rglob("*") if p.is_file())
    print(f"memory dir: {memory_dir} ({files} memory files, {size / 1e6:.1f} MB)")

    report = Timing("consolidator report", consolidator_command())
    parse = Timing("frontmatter.load all", [sys.executable, "-c", PARSE_SCRIPT])
    for i in range(args.runs):
        print(f"round {i + 1}/{args.runs} ...", flush=True)
        run_report(memory_dir, report)
        run_parse(memory_dir, parse)
    print_table(report, parse)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
