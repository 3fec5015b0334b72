"""Benchmark: a pass over 100 roots whose gates are all closed (at G4) vs `consolidator --help`.

Each root has 300 session transcripts and 100 memories; its `.consolidate-lock` says it was
consolidated an hour ago, so G4 (interval) closes every root. The pass must read no memory
body and cost about what starting the command costs. Prints both times (best of N, each a
fresh process) and the ratio; target <= 1.5.

    python bench/closed_gates.py [--roots 100] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from report_speed import timing_env

MEMORY = "---\nname: m{i}\ndescription: memory {i}\ntype: project\n---\nBody of memory {i}.\n"


def build(base: Path, roots: int, sessions: int, memories: int) -> None:
    hour_ago = time.time() - 3600
    day_ago = time.time() - 86400
    for r in range(roots):
        project = base / "projects" / f"-home-dev-p{r}"
        memory = project / "memory"
        memory.mkdir(parents=True)
        for i in range(memories):
            path = memory / f"m{i}.md"
            path.write_text(MEMORY.format(i=i))
            os.utime(path, (day_ago, day_ago))
        for _ in range(sessions):
            path = project / f"{uuid.uuid4()}.jsonl"
            path.write_text('{"cwd": "/home/dev"}\n')
            os.utime(path, (day_ago, day_ago))
        lock = memory / ".consolidate-lock"
        lock.write_text("")
        os.utime(lock, (hour_ago, hour_ago))


def best(cmd: list[str], env: dict[str, str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        times.append(time.perf_counter() - start)
    return min(times)


def _in_process(argv: list[str], env: dict[str, str], repeat: int) -> float:
    """Best time of one pass in an already-running interpreter, as `serve` pays it."""
    code = (
        "import io, sys, time, contextlib\n"
        "from consolidator.cli import main\n"
        f"argv = {argv!r}\n"
        "main(argv)\n"
        "best = 1e9\n"
        f"for _ in range({repeat}):\n"
        "    t = time.perf_counter()\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        main(argv)\n"
        "    best = min(best, time.perf_counter() - t)\n"
        "print(best)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


FLOOR = """
import os, sys
newest = 0
for project in os.scandir(sys.argv[1]):
    for folder in (project.path, os.path.join(project.path, "memory")):
        for entry in os.scandir(folder):
            newest = max(newest, entry.stat(follow_symlinks=False).st_mtime_ns)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roots", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--memories", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="closed-gates-"))
    try:
        build(base, args.roots, args.sessions, args.memories)
        config = base / "config.toml"
        config.write_text(f'[memory]\nroots = ["{base}/projects/*/memory"]\n')
        env = timing_env(base)
        exe = [sys.executable, "-m", "consolidator"]
        run_cmd = [*exe, "run", "--config", str(config)]
        check = subprocess.run(run_cmd, env=env, capture_output=True, text=True, check=False)
        skipped = sum(json.loads(line).get("closed", {}).get("G4 interval", 0)
                      for line in check.stderr.splitlines() if '"event": "pass"' in line)
        help_s = best([*exe, "--help"], env, args.repeat)
        run_s = best(run_cmd, env, args.repeat)
        print(f"roots: {args.roots} x ({args.sessions} transcripts, {args.memories} memories); "
              f"closed at G4: {skipped}")
        print(f"consolidator --help : {help_s:.3f} s")
        print(f"consolidator run    : {run_s:.3f} s")
        print(f"ratio run/help      : {run_s / help_s:.2f}  (target <= 1.5)")
        floor_s = best([sys.executable, "-c", FLOOR, str(base / "projects")], env, args.repeat)
        print(f"for comparison, a bare interpreter stat-ing the files G3 (evaluated after G4) "
              f"would see: {floor_s:.3f} s = {floor_s / help_s:.2f} x --help")
        warm = _in_process(run_cmd[3:], env, args.repeat)
        print(f"one pass inside a running service (imports paid): {warm:.3f} s "
              f"= {warm / help_s:.2f} x --help")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
