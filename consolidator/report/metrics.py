"""A Prometheus textfile for people who watch the service: what the last pass did, per root.

``[metrics] textfile = PATH`` names the file; it is written whole after each pass of ``run``
and of each ``serve`` tick, for node_exporter's textfile collector
(``--collector.textfile.directory``: give the file a ``.prom`` name in that folder). Every
gauge is named ``dream_consolidator_*`` and labelled with the root's ``memory_dir`` and
``kind``; ``dream_consolidator_roots`` (unlabelled) counts the roots of the pass.

Each value comes from the pass's report, except two read per root from disk (cheaply): the
last consolidation's time (``.consolidate-lock``'s mtime, as gate G4 reads it; 0 if never)
and the number of actions waiting in the root's proposal (a damaged one counts 0). A root
whose report lacks something gets its default values: one odd root never costs the file.

Alert when a root has gone unconsolidated for three days::

    time() - dream_consolidator_last_consolidation_timestamp_seconds > 3 * 86400

(add ``and dream_consolidator_last_consolidation_timestamp_seconds > 0`` to leave out roots
never consolidated yet). Two more worth having: ``dream_consolidator_pass_failed == 1``, and
``time() - dream_consolidator_last_pass_timestamp_seconds > 3600`` (the service stopped
writing).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from consolidator.clock import NS, epoch_ns
from consolidator.state import history, statedir, statefiles
from consolidator.state.lock import last_consolidated_ns

if TYPE_CHECKING:
    from consolidator.report.outcome import RootReport, RunReport

PREFIX = "dream_consolidator_"
MODE = 0o644
ROOT_LABELS = ("memory_dir", "kind")

T = TypeVar("T")

# name (without the prefix) -> help; every one is a gauge, in the order written.
ROOT_METRICS: tuple[tuple[str, str], ...] = (
    ("last_pass_timestamp_seconds", "When the last pass looked at the root (Unix time)."),
    ("last_consolidation_timestamp_seconds",
     "When the root was last consolidated (mtime of .consolidate-lock, Unix time; 0 if never)."),
    ("last_pass_duration_seconds", "How long the last pass took on the root."),
    ("gate_open", "1 if no gate held the last pass back (a gate skipped by --force does not), "
                  "else 0."),
    ("closed_gate_info", "1 for each gate that closed in the last pass (gate id, gate name)."),
    ("pass_failed", "1 if the last pass failed on the root, else 0."),
    ("last_pass_status_info",
     "1 for the status of the last pass (planned, consolidated, skipped, failed, stopped)."),
    ("merges", "Merges the last pass applied (0 for a dry run)."),
    ("archives", "Memories the last pass moved to the archive, merged-away ones included "
                 "(0 for a dry run)."),
    ("rewrites", "Memories the last pass rewrote, the index's rebuild not counted "
                 "(0 for a dry run)."),
    ("creates", "Files the last pass created, the index not counted (0 for a dry run)."),
    ("proposal_waiting_actions", "Actions waiting for review in the root's proposal."),
)
ROOTS_HELP = "Memory directories with series in this file (this pass and earlier ones)."


@dataclass
class _Root:
    """One root's samples: metric -> [(extra labels, value)]."""

    labels: tuple[str, str]
    samples: dict[str, list[tuple[tuple[tuple[str, str], ...], float]]] = field(
        default_factory=dict)

    def put(self, name: str, value: float, **extra: str) -> None:
        self.samples.setdefault(name, []).append((tuple(extra.items()), value))


def write_textfile(path: Path, report: RunReport, now: datetime, state_dir: Path) -> None:
    """Write (atomically: temp file in the same folder, fsync, rename; mode 0644) the metrics
    of the pass ``report`` for node_exporter's textfile collector.

    ``now``: the pass's time; ``state_dir``: where the roots' state lies (their proposals).
    Nothing in a root's report stops the write; an ``OSError`` writing the file propagates.
    """
    try:
        previous = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        previous = ""
    text = render(report, now, state_dir, previous)
    statefiles.write_whole(Path(path), text.encode("utf-8"), MODE)


# A sample of one root: its metric name, then its root labels (as this module writes them).
_ROOT_SAMPLE = re.compile(r'^' + re.escape(PREFIX) + r'(\w+)(\{memory_dir="(?:[^"\\]|\\.)*",'
                          r'kind="(?:[^"\\]|\\.)*")')


def _earlier(previous: str, now: set[str]) -> dict[str, list[str]]:
    """The samples of roots this pass did not cover, by metric name, from the file as the
    last pass left it: a pass over one project (the SessionEnd hook's) keeps every other
    root's series, so an alert on a stale root can still fire."""
    kept: dict[str, list[str]] = {}
    for line in previous.splitlines():
        found = _ROOT_SAMPLE.match(line)
        if found is not None and found[2] not in now:
            kept.setdefault(found[1], []).append(line)
    return kept


def render(report: RunReport, now: datetime, state_dir: Path, previous: str = "") -> str:
    """The textfile's content (the text exposition format, version 0.0.4)."""
    now_ns = _safe(lambda: epoch_ns(now), 0)
    dry_run = bool(getattr(report, "dry_run", False))
    roots: dict[tuple[str, str], _Root] = {}
    given: tuple[Any, ...] = _safe(lambda: tuple(getattr(report, "roots", None) or ()), ())
    for root in given:
        one = _collect(root, now_ns, dry_run, state_dir)
        roots[one.labels] = one  # one series per label set: a root named twice keeps its last
    current = {_labels(tuple(zip(ROOT_LABELS, one.labels, strict=True)))[:-1]
               for one in roots.values()}
    kept = _earlier(previous, current)
    lines: list[str] = []
    for name, text in ROOT_METRICS:
        _header(lines, name, text)
        for one in roots.values():
            for extra, value in one.samples.get(name, ()):
                labels = tuple(zip(ROOT_LABELS, one.labels, strict=True)) + extra
                lines.append(f"{PREFIX}{name}{_labels(labels)} {_number(value)}")
        lines += kept.get(name, [])
    others = {m[2] for samples in kept.values() for line in samples
              if (m := _ROOT_SAMPLE.match(line)) is not None}
    _header(lines, "roots", ROOTS_HELP)
    lines.append(f"{PREFIX}roots {len(roots) + len(others)}")
    return "\n".join(lines) + "\n"


def _collect(root: RootReport, now_ns: int, dry_run: bool, state_dir: Path) -> _Root:
    memory_dir = getattr(root, "memory_dir", None)
    kind = getattr(root, "kind", None)
    one = _Root((_label_text(memory_dir), _label_text(kind)))
    status = _safe(lambda: str(getattr(root, "status", None) or "unknown"), "unknown")
    closed: list[tuple[str, str]] = _safe(lambda: _closed_gates(root), [])
    counts = {"merges": 0, "archives": 0, "rewrites": 0, "creates": 0}
    if not dry_run:
        counts = _safe(lambda: _applied(root), counts)
    one.put("last_pass_timestamp_seconds", now_ns / NS)
    one.put("last_consolidation_timestamp_seconds",
            _safe(lambda: _last_consolidated(memory_dir, now_ns, state_dir), 0.0))
    one.put("last_pass_duration_seconds",
            _safe(lambda: float(getattr(root, "duration_s", 0.0) or 0.0), 0.0))
    one.put("gate_open", 0 if closed or status == "skipped" else 1)
    for gate_id, gate_name in closed:
        one.put("closed_gate_info", 1, gate=gate_id, reason_kind=gate_name)
    one.put("pass_failed", 1 if status == "failed" else 0)
    one.put("last_pass_status_info", 1, status=status)
    for name, value in counts.items():
        one.put(name, value)
    one.put("proposal_waiting_actions", _safe(lambda: _waiting(memory_dir, state_dir), 0))
    return one


def _closed_gates(root: RootReport) -> list[tuple[str, str]]:
    """(id, name) of each gate that closed (``passed`` is False; None: not evaluated)."""
    out = []
    for gate in getattr(root, "gates", None) or ():
        if getattr(gate, "passed", None) is False:
            out.append((_label_text(getattr(gate, "id", "")),
                        _label_text(getattr(gate, "name", ""))))
    return out


def _applied(root: RootReport) -> dict[str, int]:
    """What the pass applied, as the history counts it (:func:`history.counts`): merged-away
    sources are archives too, and the index's own rebuild is not counted."""
    counted = history.changes(root.plan, getattr(root, "kept", ()))
    return {key: counted[key] for key in ("merges", "archives", "rewrites", "creates")}


def _last_consolidated(memory_dir: Any, now_ns: int, state_dir: Path) -> float:
    if memory_dir is None:
        return 0.0
    root = Path(memory_dir)
    ns = last_consolidated_ns(root, now_ns, statedir.root_state(state_dir, root))
    return 0.0 if ns is None else ns / NS


def _waiting(memory_dir: Any, state_dir: Path) -> int:
    """Actions waiting in the root's proposal; 0 for none, or one damaged or not to trust."""
    if memory_dir is None:
        return 0
    state = statedir.root_state(state_dir, Path(memory_dir))
    if not os.path.lexists(statedir.proposal(state)):
        return 0  # the common case, without loading what reads a proposal
    from consolidator.state import proposal

    try:
        found = proposal.load(state)
    except Exception:  # noqa: BLE001 - a damaged proposal counts 0, never fails the file
        return 0
    return 0 if found is None else len(found.waiting())


def _safe(get: Callable[[], T], default: T) -> T:
    try:
        return get()
    except Exception:  # noqa: BLE001 - one odd root (or field) never costs the file
        return default


# ------------------------------------------------------------------- the text format


def _header(lines: list[str], name: str, text: str) -> None:
    lines.append(f"# HELP {PREFIX}{name} {_escape_help(text)}")
    lines.append(f"# TYPE {PREFIX}{name} gauge")


def _label_text(value: Any) -> str:
    """A label value as valid UTF-8: a path's undecodable bytes become U+FFFD."""
    if value is None:
        return ""
    text = _safe(lambda: str(value), "")
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "replace")
    return raw.decode("utf-8", "replace")


def escape_label(value: str) -> str:
    """A label value escaped for the text format: backslash, double quote and newline."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _labels(pairs: Iterable[tuple[str, str]]) -> str:
    return "{" + ",".join(f'{key}="{escape_label(value)}"' for key, value in pairs) + "}"


def _number(value: float) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))
