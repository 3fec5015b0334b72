"""A pass's changes in a few words, for the log line that ends a root and for ``history``:
what it changed, or in a dry run would change."""

from __future__ import annotations

import shlex
from collections.abc import MutableMapping
from typing import Any

# The counts that change files, each with its word.
_options = ""  # --config and --state-dir as this command was given them (see ``command``)


def use_options(config: object, state_dir: object) -> None:
    """Set the options every command this process prints carries: ``--config`` and
    ``--state-dir`` as this one was given them (shell-quoted), so a printed command pasted
    back finds the same state."""
    global _options
    given = [(flag, value) for flag, value in (("--config", config),
                                               ("--state-dir", state_dir)) if value]
    _options = "".join(f" {flag} {shlex.quote(str(value))}" for flag, value in given)


def options() -> str:
    """The options set by :func:`use_options` (each with its leading space)."""
    return _options


def command(words: str) -> str:
    """A command to print for a person to run next: ``consolidator undo RUN`` with the
    options this one was given."""
    return f"consolidator {words}{_options}"


CHANGES = {"merges": "merged", "archives": "archived", "rewrites": "rewritten",
           "creates": "created"}


def summary_of(counts: MutableMapping[str, Any], dry: bool = False, past: bool = False) -> str:
    """What a pass changed (or, ``dry``, would change), in words: a memory folded into a
    survivor by a merge is said with the merge, not as an archive (those are judgments).
    ``past``: said later, in history, where a proposal is one the pass made, not one that
    still waits (a later pass replaces it, an apply or an undo ends it)."""
    folded = counts.get("merged_away", 0)
    said = {**counts, "archives": max(0, counts.get("archives", 0) - folded)}
    parts = [f"{said[k]} {word}" for k, word in CHANGES.items() if said.get(k)]
    if folded and parts and parts[0].endswith("merged"):
        parts[0] += f" ({folded} {'memory' if folded == 1 else 'memories'} folded in)"
    added, removed = counts.get("index_added", 0), counts.get("index_removed", 0)
    if added or removed:
        parts.append(f"index +{added}/-{removed} pointers")
    elif counts.get("index_rebuilt"):  # lines moved, shortened or repointed: still a change
        parts.append("index rebuilt")
    if counts.get("index_over"):
        parts.append("index still over what Claude Code loads (its own memory writes fail "
                     "until it fits)")
    elif counts.get("index_full"):
        parts.append("index full (Claude Code's next memory write fails until a line moves "
                     "out)")
    if counts.get("index_dropped"):
        n = counts["index_dropped"]
        parts.append(f"{n} {'memory' if n == 1 else 'memories'} with no room in the index")
    if counts.get("proposed"):
        n = counts["proposed"]
        parts.append(f"{n} for review (a dry run keeps no proposal)" if dry
                     else f"{n} proposed for review" if past
                     else f"{n} wait for review ({command('proposals')})")
    if counts.get("held"):
        parts.append(f"{counts['held']} held, neither applied nor proposed (the report's notes "
                     "say why)")
    if counts.get("skipped"):
        parts.append(f"{counts['skipped']} left alone (see why below)")
    if dry and parts:
        return "nothing changed; would make " + ", ".join(parts)
    return ", ".join(parts) or "nothing to change"
