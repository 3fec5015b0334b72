"""The package's import graph (read as bench/layout.py reads it): no cycles (a deferred import
that hides one counts too), the layers in order, and every module imports on its own in a fresh
interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from layout import cycles, dry_run_modules, imports, modules  # noqa: E402 - the benchmark counts the same graph

PACKAGE = REPO / "consolidator"


def test_the_package_has_no_import_cycle_not_even_behind_a_deferred_import() -> None:
    found = modules()
    known = set(found)
    graph = {name: imports(name, path, known) for name, path in found.items()}
    # A package imports its own submodules only through its __init__; that is no cycle.
    graph = {name: {m for m in deps if not m.startswith(name + ".")}
             for name, deps in graph.items()}

    assert cycles(graph) == []


@pytest.mark.slow  # a fresh interpreter per module: CI runs it with the slow tests
def test_every_module_imports_on_its_own_in_a_fresh_interpreter() -> None:
    failed = []
    for name in modules():
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
    # settings, where the state dir keeps what and how it writes, what a terminal shows
    ("consolidator.config", "consolidator.state.statedir", "consolidator.state.statefiles",
     "consolidator.report.progress"),
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
    found = modules()
    known = set(found)
    assert [name for name in found if layer_of(name) < 0] == [], "a module with no layer"
    upward = [f"{name} (layer {layer_of(name)}) imports {dep} (layer {layer_of(dep)})"
              for name, path in found.items()
              for dep in sorted(imports(name, path, known))
              if layer_of(dep) > layer_of(name)]
    assert upward == []


def test_only_the_session_and_the_executor_ask_whether_a_run_is_dry() -> None:
    # Everything else reads what they decided: a dry run differs in one place, not many.
    assert set(dry_run_modules(modules())) == {"consolidator/session.py",
                                               "consolidator/execute.py"}
