"""Every benchmark and the quality evaluation in one run, printed as one table.

    python bench/all.py [--quick] [--runs 3] [--seed 0] [--output FILE] [--no-profile]

Speed (each ratio measured side by side in this run, every command a fresh process):
  - a cold `report` at 10,000 memories (fresh state dir) against python-frontmatter merely
    parsing the same files;
  - cold `report` at 1,000, 10,000 and 100,000 memories: growth per 10x, and peak memory;
  - `run --force` at 10,000 (on a copy);
  - a pass over 100 roots whose gates are closed at G4, against `consolidator --help`.
Quality of the judgments on the hand-written hard-case corpus, offline backend
(bench/hardcases.py); information preservation over ten runs on the generated 1,000-memory
set (bench/quality.py).
Then a profile of the cold report at 10,000: time per phase and the costliest functions.

--quick skips the 100,000-memory directory (generating it takes about 20 s, its report
about a minute; it runs once, not --runs times). Generated directories are kept in
bench/out/ and reused.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import os
import platform
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import closed_gates
import hardcases
import layout
import quality
import report_speed
from report_vs_frontmatter import PARSE_SCRIPT, consolidator_command, memory_dir_for


@dataclass
class Sample:
    seconds: float
    peak_mb: float


@dataclass
class Row:
    measure: str
    result: str
    target: str = ""
    met: bool | None = None

    def cells(self) -> list[str]:
        verdict = {True: "met", False: "**missed**", None: ""}[self.met]
        return [self.measure, self.result, self.target, verdict]


def measure(command: list[str]) -> Sample:
    """Wall time and peak resident memory of one fresh process."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        assert proc.stderr is not None
        raise SystemExit(f"{' '.join(command)} failed:\n{proc.stderr.read().decode()}")
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return Sample(seconds, usage.ru_maxrss * scale / 1e6)


def best(samples: list[Sample]) -> Sample:
    return Sample(min(s.seconds for s in samples), max(s.peak_mb for s in samples))


def report_command(memory_dir: Path, state: Path, output: Path) -> list[str]:
    return [*consolidator_command(), "report", "--format", "json", "--output", str(output),
            "--memory-dir", str(memory_dir), "--state-dir", str(state)]


def cold_report(memory_dir: Path, work: Path) -> Sample:
    state = Path(tempfile.mkdtemp(prefix="state-", dir=work))
    return measure(report_command(memory_dir, state, work / "report.json"))


def generated(count: int, seed: int) -> Path:
    return memory_dir_for((BENCH / "out" / f"memories-{count}-seed{seed}").resolve(), count, seed)


def ratio_row(measure_text: str, ours: float, theirs: float, target: float,
              against: str) -> Row:
    value = ours / theirs
    return Row(measure_text, f"{ours:.2f} s vs {theirs:.2f} s ({against}) = {value:.2f}x",
               f"<= {target}x", value <= target)


def speed(args: argparse.Namespace, work: Path) -> list[Row]:
    rows: list[Row] = []
    ten_k = generated(10_000, args.seed)
    parse = [sys.executable, "-c", PARSE_SCRIPT, str(ten_k)]
    cold: list[Sample] = []
    parsed: list[Sample] = []
    for i in range(args.runs):
        print(f"10k: round {i + 1}/{args.runs}: cold report, frontmatter ...", flush=True)
        state = Path(tempfile.mkdtemp(prefix="state-", dir=work))
        output = work / "report.json"
        cold.append(measure(report_command(ten_k, state, output)))
        parsed.append(measure(parse))
    c, p = best(cold), best(parsed)
    rows.append(ratio_row("cold `report`, 10k memories, vs python-frontmatter parsing them",
                          c.seconds, p.seconds, 5, "frontmatter"))

    sizes = [1_000, 10_000] + ([] if args.quick else [100_000])
    times: dict[int, Sample] = {10_000: c}
    for count in sizes:
        if count in times:
            continue
        print(f"{count}: cold report ...", flush=True)
        directory = generated(count, args.seed)
        runs = args.runs if count < 100_000 else 1
        times[count] = best([cold_report(directory, work) for _ in range(runs)])
    for small, big in itertools.pairwise(sizes):
        grown = times[big].seconds / times[small].seconds
        rows.append(Row(f"growth of a cold `report`, {small:,} -> {big:,} memories",
                        f"{times[small].seconds:.2f} s -> {times[big].seconds:.2f} s = "
                        f"{grown:.1f}x", "<= 12x", grown <= 12))
    limits = {10_000: 400.0, 100_000: 1000.0}
    for count in sizes:
        peak = times[count].peak_mb
        target = limits.get(count)
        rows.append(Row(f"peak memory of a cold `report`, {count:,} memories", f"{peak:.0f} MB",
                        f"<= {target:.0f} MB" if target else "",
                        peak <= target if target else None))

    print("10k: run --force on a copy ...", flush=True)
    copy = work / "run-copy"
    shutil.copytree(ten_k.parent, copy, symlinks=True)
    forced = measure([*consolidator_command(), "run", "--force", "--memory-dir",
                      str(copy / ten_k.name), "--project-root", str(copy / "project"),
                      "--state-dir", str(work / "run-state")])
    rows.append(Row("`run --force`, 10k memories (plan, merge, archive, rewrite, index)",
                    f"{forced.seconds:.2f} s, peak {forced.peak_mb:.0f} MB"))
    shutil.rmtree(copy, ignore_errors=True)

    print("closed gates: 100 roots ...", flush=True)
    rows.extend(closed_gate_rows(work, args.runs))
    print("real size: a cold report on 130 memories ...", flush=True)
    rows.append(real_size_row(work, args.seed, max(args.runs, 5)))
    return rows


def real_size_row(work: Path, seed: int, repeat: int) -> Row:
    """A cold ``report`` on a directory the size of the largest real ones, vs ``--help``."""
    memory = report_speed.generated(work / "real-size", 130, seed)
    env = report_speed.timing_env(work / "real-size")
    exe = consolidator_command()
    help_s, _cpu = report_speed.best([*exe, "--help"], env, repeat)
    report_s, _cpu = report_speed.best([*exe, "report", "--memory-dir", str(memory)], env,
                                       repeat)
    return ratio_row("cold `report`, 130 memories (the largest real directories), vs "
                     "`consolidator --help`", report_s, help_s, report_speed.TARGET, "--help")


def layout_rows() -> list[Row]:
    """The layout's targets (see bench/layout.py), counted from the source."""
    found = layout.modules()
    known = set(found)
    graph = {name: layout.imports(name, path, known) for name, path in found.items()}
    graph = {n: {m for m in deps if not m.startswith(n + ".")} for n, deps in graph.items()}
    local = sum(len(layout.local_imports(path)) for path in found.values())
    builders = sum(len(layout.history_builders(path)) for path in found.values())
    dry = sum(1 for path in found.values()
              if layout.dry_branches(path) and not {"cli", "report"} & set(path.parts))
    root = len(list(layout.PACKAGE.glob("*.py")))
    counts = [("modules in the package root", root, 16),
              ("import cycles", len(layout.cycles(graph)), 0),
              ("function-local imports", local, 10),
              ("places building a history line", builders, 1),
              ("modules of the run branching on a dry run", dry, 2)]
    return [Row(name, str(value), f"<= {bound}", value <= bound) for name, value, bound in counts]


def closed_gate_rows(work: Path, repeat: int) -> list[Row]:
    base = work / "closed"
    closed_gates.build(base, 100, 300, 100)
    config = base / "config.toml"
    config.write_text(f'[memory]\nroots = ["{base}/projects/*/memory"]\n', encoding="utf-8")
    env = report_speed.timing_env(base)
    exe = consolidator_command()
    help_s = closed_gates.best([*exe, "--help"], env, repeat)
    run_s = closed_gates.best([*exe, "run", "--config", str(config)], env, repeat)
    floor_s = closed_gates.best([sys.executable, "-c", closed_gates.FLOOR,
                                 str(base / "projects")], env, repeat)
    shutil.rmtree(base, ignore_errors=True)
    return [
        ratio_row("a pass over 100 roots closed at G4, vs `consolidator --help`", run_s, help_s,
                  1.5, "--help"),
        Row("  of which the floor: stat of the 40,000 files G3 (idle) must see",
            f"{floor_s:.2f} s = {floor_s / help_s:.2f}x --help"),
    ]


def quality_rows(seed: int) -> list[Row]:
    print("quality: the hard-case corpus ...", flush=True)
    from consolidator import log

    log.configure("console", "warning")  # the corpus is planned in this process: no run logs
    rows = [Row(name, result, target, met == "met")
            for name, result, target, met in hardcases.rows(hardcases.evaluate())]
    print("quality: 1,000 generated memories, report then 10 runs ...", flush=True)
    found = quality.evaluate(1000, seed, 10)
    for key, value in found.items():
        if not key.startswith(("original lines kept", "false merges")):
            continue
        name, _, target = key.partition(" (target ")
        rows.append(Row(f"{name} (generated set)", value, target.rstrip(")"),
                        _meets(value, target.rstrip(")"))))
    return rows


def _meets(value: str, target: str) -> bool | None:
    if not target:
        return None
    number = float(value.split("%")[0].split("/")[0].split()[0])
    bound = float(target.lstrip("<>= ").rstrip("%"))
    if target.startswith(">="):
        return number >= bound
    if target.startswith("<="):
        return number <= bound
    return number == bound


def profile(seed: int, work: Path) -> str:
    """Time per phase and the costliest functions of one cold report at 10k, in process."""
    from consolidator import phases
    from consolidator.cli import main

    spent: dict[str, float] = {}

    def timed(name: str, phase: Callable[..., None]) -> Callable[..., None]:
        def run(work_: object) -> None:
            started = time.perf_counter()
            phase(work_)
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - started
        return run

    original = phases.PHASES
    phases.PHASES = tuple((name, timed(name, fn)) for name, fn in original)
    state = Path(tempfile.mkdtemp(prefix="state-", dir=work))
    profiler = cProfile.Profile()
    try:
        profiler.enable()
        main(["report", "--format", "json", "--output", str(work / "profiled.json"),
              "--memory-dir", str(generated(10_000, seed)), "--state-dir", str(state)])
        profiler.disable()
    finally:
        phases.PHASES = original
    out = io.StringIO()
    out.write("time per phase (profiled, so slower than above): "
              + ", ".join(f"{k} {v:.2f} s" for k, v in spent.items()) + "\n\n")
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(12)
    return out.getvalue()


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh
                          if line.startswith("model name")), model)
    except OSError:
        pass
    return (f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, "
            f"{platform.system()}")


def table(rows: list[Row]) -> str:
    lines = ["| measure | result | target | |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip 100,000 memories")
    parser.add_argument("--runs", type=int, default=3, help="rounds of each timing, best kept")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, help="also write the table (Markdown) here")
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="bench-all-"))
    try:
        rows = speed(args, work) + quality_rows(args.seed) + layout_rows()
        profiled = "" if args.no_profile else profile(args.seed, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = (f"Measured on {machine()}; `python bench/all.py"
            f"{' --quick' if args.quick else ''}` took {time.perf_counter() - started:.0f} s.\n\n"
            + table(rows) + "\n")
    print()
    print(text)
    if profiled:
        print(profiled)
    if args.output:
        args.output.write_text(text + ("\n```\n" + profiled + "```\n" if profiled else ""),
                               encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
