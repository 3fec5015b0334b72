"""Benchmark: the layout's targets, counted from the source and from one real run.

    python bench/layout.py

Prints, each with its target:
  - modules in the package root (<= 16);
  - import cycles among the package's modules, a deferred import included (0);
  - function-local imports outside ``if TYPE_CHECKING:`` (<= 10), each named;
  - the places that build a history line (1);
  - the modules of the run (not the command line, not the report's wording) that branch on
    a dry run (<= 2);
  - scans of the memory root per round of a real ``run --force`` on a copy of the bundled
    example (<= 1 each).
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "consolidator"
sys.path.insert(0, str(REPO))

DRY_NAMES = {"dry_run", "dry"}


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _typing_only(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(sub) for sub in ast.walk(node))
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules ``name`` imports anywhere in its file (a function-local import
    included), but not under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    typing_only = _typing_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in known and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (an iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    out.append(sorted(group))
    return out


def local_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _typing_only(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Import, ast.ImportFrom)) and id(sub) not in skip:
                    out.append(f"{path.relative_to(REPO)}:{sub.lineno} {ast.unparse(sub)}")
    return out


def _mentions_dry(node: ast.AST) -> bool:
    return any((isinstance(n, ast.Name) and n.id in DRY_NAMES)
               or (isinstance(n, ast.Attribute) and n.attr in DRY_NAMES)
               for n in ast.walk(node))


def dry_branches(path: Path) -> int:
    """Branches (``if``, a conditional expression, ``while``) on a dry run's flag."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)) and _mentions_dry(node.test):
            count += 1
    return count


def history_builders(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(REPO)}:{n.lineno}" for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "entry"]


def scans_per_round() -> Counter[str]:
    """Scans of the root per round in a real ``run --force`` of the bundled example."""
    from consolidator import phases
    from consolidator.cli import main
    from consolidator.store import scan as scan_module

    counts: Counter[str] = Counter()
    current = ["gates"]
    original = scan_module.scan

    def counting(root: Path, *args: object, **kwargs: object) -> object:
        if root.name == "memory":
            counts[current[0]] += 1
        return original(root, *args, **kwargs)  # type: ignore[arg-type]

    def entering(name: str, step: object) -> object:
        def run(work: object) -> None:
            current[0] = name
            step(work)  # type: ignore[operator]
        return run

    patched = [m for m in list(sys.modules.values())
               if getattr(m, "scan", None) is original and m is not scan_module]
    base = Path(tempfile.mkdtemp(prefix="layout-"))
    try:
        shutil.copytree(REPO / "examples", base / "examples")
        subprocess.run([sys.executable, str(base / "examples" / "set_ages.py")], check=True,
                       capture_output=True)
        saved = phases.PHASES
        phases.PHASES = tuple((n, entering(n, f)) for n, f in saved)  # type: ignore[misc]
        for module in patched:
            module.scan = counting  # type: ignore[attr-defined]
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["run", "--force", "--memory-dir", str(base / "examples" / "memory"),
                  "--project-root", str(base / "examples" / "project"),
                  "--state-dir", str(base / "state")])
        phases.PHASES = saved  # type: ignore[misc]
    finally:
        for module in patched:
            module.scan = original  # type: ignore[attr-defined]
        shutil.rmtree(base, ignore_errors=True)
    return counts


def dry_run_modules(found: dict[str, Path]) -> dict[str, int]:
    """The modules of the run that branch on a dry run, with how often. The command line
    reads its own options (which output, prune's --dry-run) and the report words what a
    finished run did: neither is a branch of the run."""
    return {str(p.relative_to(REPO)): n for p in found.values()
            if (n := dry_branches(p)) and not {"cli", "report"} & set(p.parts)}


def main() -> None:
    argparse.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    found = modules()
    known = set(found)
    root = list(PACKAGE.glob("*.py"))
    graph = {name: imports(name, path, known) for name, path in found.items()}
    graph = {n: {m for m in deps if not m.startswith(n + ".")} for n, deps in graph.items()}
    loops = cycles(graph)
    local = [line for path in found.values() for line in local_imports(path)]
    builders = [b for path in found.values() for b in history_builders(path)]
    dry = dry_run_modules(found)
    print(f"modules in the package root : {len(root)}  (target <= 16)")
    print(f"import cycles               : {len(loops)}  (target 0) {loops or ''}")
    print(f"function-local imports      : {len(local)}  (target <= 10)")
    for line in local:
        print(f"    {line}")
    print(f"places building a history line: {len(builders)}  (target 1) {builders}")
    print(f"modules of the run branching on a dry run: {len(dry)}  (target <= 2) {dry}")
    # Import what a run loads before patching its scans.
    import consolidator.pipeline  # noqa: F401
    import consolidator.review  # noqa: F401
    counts = scans_per_round()
    print(f"scans per round, real run --force on the example: {dict(counts)}  "
          f"(target <= 1 each)")


if __name__ == "__main__":
    main()
