"""RunReport -> the JSON report (schema_version 1); the Markdown is in
:mod:`consolidator.report.markdown`.

No secret is printed: every text a report quotes from memories or the index (names, warnings,
reasons, evidence, the lines that moved, the index's diff, notes) goes through :class:`Mask`,
which replaces what the secret scan finds with the mask evidence uses, ``[REDACTED]``, and
also each value found as a secret anywhere in the root's text (a conflict's reason names the
two values without the labels that make them secrets). File names are never masked.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from consolidator.detect.dates.freshness import iso
from consolidator.detect.findings import Similar
from consolidator.detect.secrets.scan import PLACEHOLDER, redact, secret_values
from consolidator.plan import Archive, Plan
from consolidator.report.outcome import RootReport, RunReport

SCHEMA_VERSION = 1
MIN_MASKED = 4  # a secret shorter than this is not looked for elsewhere (it would mask words)


class Mask:
    """Masks the secrets in the text a report prints about one root."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._done: dict[str, str] = {}
        known: set[str] = set()
        for text in texts:
            if text not in self._done:
                self._done[text] = redact(text)
                for value in secret_values(text) if self._done[text] != text else ():
                    known.update(w for w in (value, *value.split()) if len(w) >= MIN_MASKED)
        self._known = re.compile(
            "|".join(re.escape(w) for w in sorted(known, key=len, reverse=True)),
            re.IGNORECASE) if known else None
        if self._known is not None:
            self._done.clear()  # masked again with the known values

    def __call__(self, text: str) -> str:
        done = self._done.get(text)
        if done is None:
            done = redact(text)
            if self._known is not None:
                done = self._known.sub(PLACEHOLDER, done)
            self._done[text] = done
        return done

    def all(self, texts: Iterable[str]) -> list[str]:
        return [self(text) for text in texts]


def _texts(root: RootReport) -> Iterable[str]:
    """Every text of ``root`` that a report may print and that may quote a memory."""
    plan = root.plan
    for m in plan.memories:
        yield m.name
        yield from m.warnings
    for c in plan.conflicts:
        yield c.reason
        yield from c.evidence
    for s in (*plan.similar, *plan.plain_similar):
        for pair in s.lines:
            yield from pair
    for st in plan.stale:
        yield from st.reasons
        yield from st.evidence
    for a in plan.actions:
        yield a.reason
        yield from a.evidence
    yield from plan.notes
    yield from root.skipped
    if root.error:
        yield root.error
    if root.snapshot is not None:
        yield from (u.error for u in root.snapshot.unparsed)
        yield from (root.snapshot.index.text or "").splitlines()
    if plan.index is not None:
        yield from plan.index.moved
        yield from plan.index.dropped
        yield from plan.index.text.splitlines()


def mask_for(root: RootReport) -> Mask:
    """The mask for everything a report prints about ``root``."""
    return Mask(_texts(root))


def root_dict(root: RootReport, mask: Mask | None = None) -> dict[str, Any]:
    plan = root.plan
    snapshot = root.snapshot
    index = plan.index
    mask = mask or mask_for(root)
    return {
        "memory_dir": str(root.memory_dir),
        "kind": root.kind,
        "status": root.status,
        **({"error": mask(root.error)} if root.error else {}),
        "gates": [
            {"id": g.id, "name": g.name, "passed": g.passed, "reason": g.reason}
            for g in root.gates
        ],
        "memories": [
            {
                "file": m.file,
                "name": mask(m.name),
                "type": m.type,
                "mtime": iso(m.mtime_ns),
                "age_days": m.age_days,
                "freshness": m.freshness,
                "warnings": mask.all(m.warnings),
                "opened_in_sessions": m.opened_in,
            }
            for m in plan.memories
        ],
        "duplicates": [
            {"files": list(d.files), "keep": d.keep, "similarity": round(d.similarity, 3)}
            for d in plan.duplicates
        ],
        "across_scopes": [
            {"files": list(d.files), "similarity": round(d.similarity, 3)}
            for d in plan.across
        ],
        "conflicts": [
            {
                "files": list(c.files),
                "newer": c.newer,
                "same_age": c.same_age,
                "newer_by_text": c.newer_by_text,
                "similarity": round(c.similarity, 3),
                "reason": mask(c.reason),
                "evidence": mask.all(c.evidence),
            }
            for c in plan.conflicts
        ],
        "similar": [_similar(s, mask) for s in plan.similar],
        # a pair with a file that has no frontmatter: reported, never merged
        "similar_unparsed": [_similar(s, mask) for s in plan.plain_similar],
        "stale": [
            {"file": s.file, "age_days": s.age_days, "reasons": mask.all(s.reasons),
             "evidence": mask.all(s.evidence), "whole_memory": s.archivable or s.whole}
            for s in plan.stale
        ],
        "unparsed": [
            {"file": u.rel, "error": mask(u.error),
             **({"secrets": list(u.secrets)} if u.secrets else {})}
            for u in (snapshot.unparsed if snapshot else ())
        ],
        "actions": [
            {"op": a.op, "file": a.file, "sources": list(a.sources), "reason": mask(a.reason),
             "kind": a.kind, "applied": applied, "evidence": mask.all(a.evidence),
             **({"successor": a.successor} if isinstance(a, Archive) and a.successor else {})}
            for a, applied in zip(plan.actions, applied_flags(plan), strict=True)
        ],
        "proposal": {"run_id": plan.proposal.run_id, "actions": plan.proposal.actions}
        if plan.proposal else None,
        "index": {
            "lines": index.lines if index else 0,
            "bytes": index.bytes if index else 0,
            "within_limits": index.within_limits if index else True,
            "full": index.full if index else False,
            "changed": index.changed if index else False,
            "added": list(index.added) if index else [],
            "removed": list(index.removed) if index else [],
            "unlinked": [{"file": f, "state": state} for f, state in index.unlinked]
            if index else [],
            "linked_missing": list(index.linked_missing) if index else [],
            "secrets": list(snapshot.index.secrets) if snapshot else [],
            "over_limits": index.over_limits if index else False,
            "repointed": [list(pair) for pair in index.repointed] if index else [],
            "moved": mask.all(index.moved) if index else [],
            "dropped": mask.all(index.dropped) if index else [],
            "before": {"lines": index.before[0], "bytes": index.before[1]} if index else None,
            "over": index.over if index else "",
            "why": mask.all(index.why) if index else [],
            # Not planned, as it could not be read: its figures above are no measurement.
            **({"unreadable": snapshot.index.error}
               if snapshot is not None and snapshot.index.error is not None else {}),
        },
        "skipped": mask.all(root.skipped),
        "notes": mask.all(plan.notes),
        "llm": {
            "backend": root.llm.backend,
            "calls": root.llm.calls,
            "input_tokens": root.llm.input_tokens,
            "output_tokens": root.llm.output_tokens,
        },
    }


def _similar(pair: Similar, mask: Mask) -> dict[str, Any]:
    return {"files": list(pair.files), "similarity": round(pair.similarity, 3),
            "lines": [mask.all(lines) for lines in pair.lines],
            # "lines": most lines in common, or the same point in other words; "rare words":
            # only a line of each sharing words no other memory uses (it may be one point)
            "basis": "rare words" if pair.rare else "lines"}


def applied_flags(plan: Plan) -> tuple[bool, ...]:
    return plan.applied + (False,) * (len(plan.actions) - len(plan.applied))


def to_json(report: RunReport) -> str:
    out = io.StringIO()
    write_json(report, out)
    return out.getvalue()


def write_json(report: RunReport, out: TextIO) -> None:
    """The JSON report, written piece by piece: a large root's report is never one string."""
    document = {
        "schema_version": SCHEMA_VERSION,
        "run_id": report.run_id,
        "dry_run": report.dry_run,
        "roots": [root_dict(r) for r in report.roots],
    }
    _pretty(document, 0, "", out.write)
    out.write("\n")


_compact = json.JSONEncoder(ensure_ascii=False).encode  # the C encoder: no indent


def _pretty(value: Any, depth: int, indent: str, write: Callable[[str], Any]) -> None:
    """JSON a person can read and a large report can afford.

    The outer levels are indented; each item of a list deeper down (one memory, one gate, one
    action) is one compact line. Indenting everything would need the slow pure-Python encoder,
    and one memory per line reads as well.
    """
    if not value or not isinstance(value, dict | list):
        write(_compact(value))
        return
    inner = indent + "  "
    if isinstance(value, dict):
        if depth > 3:
            write(_compact(value))
            return
        for n, (key, item) in enumerate(value.items()):
            name = key if isinstance(key, str) else _compact(key)  # as json.dumps names it
            write(("{\n" if n == 0 else ",\n") + inner + _compact(name) + ": ")
            _pretty(item, depth + 1, inner, write)
        write("\n" + indent + "}")
        return
    separator = ",\n" + inner
    write("[\n" + inner)
    if depth >= 3:
        write(separator.join(_compact(item) for item in value))
    else:
        for n, item in enumerate(value):
            if n:
                write(separator)
            _pretty(item, depth + 1, inner, write)
    write("\n" + indent + "]")
