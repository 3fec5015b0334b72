"""Benchmark: a cold `consolidator report` on a real-sized memory directory vs `--help`.

Generates (or reuses, with --dir) a 130-memory directory with bench/generate.py, then times
fresh processes of `python -m consolidator --help` and `python -m consolidator report
--memory-dir DIR/memory` (best of N each; CONSOLIDATOR_STATE_DIR points at a temporary
folder so nothing touches the home directory) and prints their ratio; target <= 4. Also
prints the import-only time of the modules a report loads (best of N fresh processes that
import them and do nothing else), so the rest of the report's time is its work.

Every process runs with compiled bytecode, as an installed tool does: PYTHONDONTWRITEBYTECODE
is dropped and the bytecode goes to a temporary PYTHONPYCACHEPREFIX, written by a first,
untimed process of each command.

    python bench/report_speed.py [--count 130] [--seed 0] [--repeat 7] [--dir /tmp/g130]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
TARGET = 4.0

# Lists, in a process that has just run a report, the consolidator modules it loaded.
LOADED = """
import contextlib, io, sys
from consolidator.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["report", "--memory-dir", sys.argv[1]])
print("\\n".join(sorted(m for m in sys.modules if m == "consolidator"
                        or m.startswith("consolidator."))))
"""


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timing_env(base: Path) -> dict[str, str]:
    """The environment of the timed processes: the state dir and the bytecode cache under
    ``base``, bytecode written (an installed tool's modules are compiled once, at install or
    first use; timing their compilation on every start would measure the machine's
    PYTHONDONTWRITEBYTECODE, not the tool)."""
    env = {**os.environ, "CONSOLIDATOR_STATE_DIR": str(base / "state"),
           "PYTHONPYCACHEPREFIX": str(base / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def best(cmd: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """The best wall time and the best CPU time (user + system) of ``repeat`` fresh processes;
    the CPU time moves less when other work shares the machine."""
    walls, cpus = [], []
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)  # untimed: writes the bytecode the timed runs read
    for _ in range(repeat):
        cpu = _children_cpu()
        start = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
    return min(walls), min(cpus)


def generated(dest: Path, count: int, seed: int) -> Path:
    """DEST/memory, generating DEST first unless it already holds a generated directory."""
    memory = dest / "memory"
    if not memory.is_dir():
        subprocess.run([sys.executable, str(_HERE / "generate.py"), str(dest),
                        "--count", str(count), "--seed", str(seed)],
                       stdout=subprocess.DEVNULL, check=True)
    return memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=130, help="memories to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=7, help="fresh processes per timing")
    parser.add_argument("--dir", type=Path, default=None,
                        help="generate into (or reuse) this folder instead of a temporary one")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="report-speed-"))
    try:
        memory = generated(args.dir or base / "gen", args.count, args.seed)
        env = timing_env(base)
        exe = [sys.executable, "-m", "consolidator"]
        memories = sum(1 for p in memory.glob("*.md") if p.name.lower() != "memory.md")
        modules = subprocess.run([sys.executable, "-c", LOADED, str(memory)], env=env,
                                 capture_output=True, text=True, check=True).stdout.split()
        help_s, help_cpu = best([*exe, "--help"], env, args.repeat)
        report_s, report_cpu = best([*exe, "report", "--memory-dir", str(memory)], env,
                                    args.repeat)
        imports = "import " + ", ".join(modules)
        import_s, import_cpu = best([sys.executable, "-c", imports], env, args.repeat)
        print(f"memory dir: {memory} ({memories} memories); best of {args.repeat} fresh processes, "
              f"wall (CPU)")
        print(f"consolidator --help  : {help_s:.3f} s ({help_cpu:.3f} s)")
        print(f"consolidator report  : {report_s:.3f} s ({report_cpu:.3f} s)")
        print(f"ratio report/help    : {report_s / help_s:.2f} ({report_cpu / help_cpu:.2f})  "
              f"(target <= {TARGET:g}: {'met' if report_s / help_s <= TARGET else 'not met'})")
        print(f"importing the {len(modules)} modules a report loads: {import_s:.3f} s "
              f"({import_cpu:.3f} s) = {import_s / help_s:.2f} x --help; the report's work: "
              f"{max(report_s - import_s, 0.0):.3f} s ({max(report_cpu - import_cpu, 0.0):.3f} s)")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
