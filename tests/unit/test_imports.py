"""The package's import graph: no cycles (a deferred import that hides one counts too), and
every module imports on its own in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "consolidator"


def module_names() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules ``name`` imports anywhere in its file (a function-local import
    included), but not under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(sub) for sub in ast.walk(node))
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
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_package_has_no_import_cycle_not_even_behind_a_deferred_import() -> None:
    modules = module_names()
    known = set(modules)
    graph = {name: imports_of(name, path, known) for name, path in modules.items()}
    # A package imports its own submodules only through its __init__; that is no cycle.
    graph = {name: {m for m in deps if not m.startswith(name + ".")}
             for name, deps in graph.items()}

    assert cycles(graph) == []


@pytest.mark.slow  # a fresh interpreter per module: CI runs it with the slow tests
def test_every_module_imports_on_its_own_in_a_fresh_interpreter() -> None:
    failed = []
    for name in module_names():
        if name.endswith("__main__"):
            continue
        proc = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True,
                              text=True, timeout=60, cwd=REPO)
        if proc.returncode != 0:
            failed.append(f"{name}: {proc.stderr.strip().splitlines()[-1:]}")
    assert failed == []


# The layers, lowest first: a module imports only from its own layer or a lower one. A module
# belongs to the layer of the longest name below that is it or holds it (the package itself
# holds nothing: every module has a layer of its own).
LAYERS: tuple[tuple[str, ...], ...] = (
    # leaves every layer may use
    ("consolidator", "consolidator.clock", "consolidator.errors", "consolidator.stop",
     "consolidator.cli.codes", "consolidator.cli.pipes"),
    # settings, where the state dir keeps what, what a terminal shows
    ("consolidator.config", "consolidator.state.statedir", "consolidator.report.progress"),
    # the store: memory files, journaled writes, undo (under the root's lock)
    ("consolidator.store", "consolidator.state.lock"),
    # Claude Code's layout, the state dir, one root's fixed facts
    ("consolidator.roots", "consolidator.state", "consolidator.context"),
    # judgments: detectors, the index's plan, the model, actions and the plan, proposals
    ("consolidator.detect", "consolidator.index", "consolidator.llm", "consolidator.plan",
     "consolidator.decide", "consolidator.state.proposal"),
    # one root's run: gates, session, executor, phases and rounds, review, reports
    ("consolidator.gates", "consolidator.session", "consolidator.execute",
     "consolidator.phases", "consolidator.pipeline", "consolidator.review",
     "consolidator.runner", "consolidator.report", "consolidator.state.runs"),
    # how it is driven: logging, the service
    ("consolidator.log", "consolidator.scheduler"),
    # the command line
    ("consolidator.cli", "consolidator.__main__"),
)


def layer_of(name: str) -> int:
    best, layer = -1, -1
    for number, names in enumerate(LAYERS):
        for prefix in names:
            holds = prefix != "consolidator" and name.startswith(prefix + ".")
            if (name == prefix or holds) and len(prefix) > best:
                best, layer = len(prefix), number
    return layer


def test_every_module_imports_only_from_its_own_layer_or_a_lower_one() -> None:
    modules = module_names()
    known = set(modules)
    assert [name for name in modules if layer_of(name) < 0] == [], "a module with no layer"
    upward = [f"{name} (layer {layer_of(name)}) imports {dep} (layer {layer_of(dep)})"
              for name, path in modules.items()
              for dep in sorted(imports_of(name, path, known))
              if layer_of(dep) > layer_of(name)]
    assert upward == []
