"""What the state dir knows: status, history, undo, prune."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from consolidator import clock, runner
from consolidator.cli.codes import EXIT_FAILED, EXIT_LOCKED, EXIT_OK
from consolidator.cli.common import NO_ROOT, load_config, roots_and_state, setup_logging, warner
from consolidator.cli.review import waiting_count
from consolidator.detect.dates.freshness import iso
from consolidator.errors import ConsolidatorError, LockHeld, UsageError
from consolidator.gates import evaluate
from consolidator.report.summary import command, summary_of
from consolidator.roots import paths, stores
from consolidator.runner import new_run_id
from consolidator.session import Session
from consolidator.state import history as past  # `history` is the command below
from consolidator.state import lock, retention, runfolders, statedir
from consolidator.state.lock import own_lock
from consolidator.state.runs import (
    LATEST,
    applied_from,
    later_runs,
    latest,
    reopened,
    root_of,
    to_undo,
    withdrawn,
)
from consolidator.store.undo import undo_run


def undo(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Undo a run on every root it changed (``--memory-dir``: only those), or ``latest``:
    a root's newest run with something to undo. A run that changed nothing says so."""
    cfg = load_config(args, env)
    state = paths.state_dir(args.state_dir, cfg, env)
    named = paths.roots(args.memory_dir, cfg, env) if args.memory_dir else None
    wanted = {str(s.path) for s in named} if named is not None else None
    failed = locked = False
    if args.run_id == LATEST:
        run_dirs, none = latest(state, [s.path for s in named] if named is not None else None)
        for root_name, why in none:
            print(f"{root_name}: nothing to undo ({why})")
        if not run_dirs and not none:
            print("nothing to undo")
    else:
        found = to_undo(state, args.run_id, wanted)
        run_dirs = found.folders
        for root_name, why in found.unchanged:
            print(f"{root_name}: run {args.run_id} {why}; nothing to undo")
        for root_name, why in found.gone:
            print(f"consolidator: {root_name}: run {args.run_id} cannot be undone: {why}",
                  file=sys.stderr)
            failed = True
    now = clock.now()
    for run_dir in run_dirs:
        where = str(run_dir)
        run_id = run_dir.name
        try:
            root = root_of(run_dir)
            where = str(root)
            if wanted is not None and where not in wanted:
                continue
            applied = applied_from(statedir.state_of_run(run_dir), run_id)
            later = later_runs(run_dir) if args.force else []
            if applied or later:  # --force puts back over edits made outside the tool,
                # never over a later run's: undoing that run after this one would put its
                # bytes back; nor under an apply of this run's proposal
                what = ("applied its proposal" if applied else "changed the same files")
                last = (applied or later)[-1]
                print(f"consolidator: {root}: run {run_id} not undone: run {last} {what} "
                      f"since; undo it first ({command(f'undo {last}')}; runs undo newest "
                      "first)", file=sys.stderr)
                failed = True
                continue
            done = undo_run(root, run_dir, force=args.force,
                            when=now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                            stale_minutes=cfg.gates.lock_stale_minutes)
        except LockHeld as exc:
            print(f"consolidator: {exc}; run {run_id} not undone", file=sys.stderr)
            locked = True
            continue
        except (ConsolidatorError, OSError) as exc:
            if args.debug:
                raise
            text = " ".join(str(exc).split())
            later = later_runs(run_dir, getattr(exc, "files", []))
            if later:
                text = text.replace(" (use --force)", "") + (
                    f"; run {later[-1]} changed them since: undo it first "
                    f"({command(f'undo {later[-1]}')}; runs undo newest first)")
            if args.run_id == LATEST:  # which run that was
                text = f"run {run_id}: {text.removeprefix(where + ': ')}"
            print(f"consolidator: {text if text.startswith(where) else where + ': ' + text}",
                  file=sys.stderr)
            failed = True
            continue
        if args.run_id == LATEST:  # said once it is done: a held lock undoes nothing
            print(f"{root}: undoing run {run_id}")
        result = done.result
        if result is None:
            print(f"{root}: run {run_id} was already undone")
            continue
        Session(root, statedir.state_of_run(run_dir), run_id, now, "undo",
                kind=stores.describe(root, env).kind).record(
            "undone", {"restored": len(result.restored)}, conflicts=result.conflicts)
        print(f"{root}: restored {len(result.restored)} file(s)"
              + (f"; over changes in {', '.join(result.conflicts)}" if result.conflicts else ""))
        gone = withdrawn(statedir.state_of_run(run_dir), run_id)
        if gone:
            print(f"  {_actions(gone)} of its proposal no longer "
                  f"{'waits' if len(gone) == 1 else 'wait'} for review: the run that judged "
                  f"{'it' if len(gone) == 1 else 'them'} was undone")
        back = reopened(statedir.state_of_run(run_dir), run_id)
        if back:
            print(f"  {_actions(back)} of its proposal {'waits' if len(back) == 1 else 'wait'} "
                  f"for review again ({command('proposals')})")
        for rel, kept in sorted(result.displaced.items()):
            print(f"  the newer bytes of {rel} are kept in {kept}")
    if failed:
        return EXIT_FAILED
    return EXIT_LOCKED if locked else EXIT_OK


def _actions(numbers: list[int]) -> str:
    """``action 3`` or ``actions 1, 3``."""
    return ("action " if len(numbers) == 1 else "actions ") + ", ".join(map(str, numbers))


def history(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Past passes, oldest first (the newest last): every root's, or ``--memory-dir`` /
    ``--root`` ones'; ``--since`` a date, time or age; ``--limit N`` the newest N."""


    cfg = load_config(args, env)
    if args.limit is not None and args.limit < 0:
        raise UsageError(f"--limit {args.limit}: a number of runs, 0 or more")
    since = past.since_ns(args.since, clock.now()) if args.since else None
    entries = past.read_all(paths.state_dir(args.state_dir, cfg, env))
    # An apply or an undo records no kind of root: it is the kind its runs recorded.
    kinds = {e["memory_dir"]: e["kind"] for e in entries
             if isinstance(e.get("memory_dir"), str) and e.get("kind")}
    if args.memory_dir:
        wanted = {str(s.path) for s in paths.roots(args.memory_dir, cfg, env)}
        entries = [e for e in entries if e.get("memory_dir") in wanted]
    if args.root:
        named = _path_names(args.root)
        entries = [e for e in entries if isinstance(e.get("memory_dir"), str)
                   and _path_names(e["memory_dir"]) & named]
    if since is not None:
        entries = [e for e in entries if (past.entry_ns(e) or 0) >= since]
    if args.limit is not None:
        entries = entries[len(entries) - args.limit:] if args.limit else []
    if args.json:
        for entry in entries:
            print(json.dumps(entry, ensure_ascii=False))
        return EXIT_OK
    print(f"{'run_id':<22} {'trigger':<7} {'status':<13} {'kind':<13} memory_dir: changes")
    for e in entries:
        kind = e.get("kind") or kinds.get(e.get("memory_dir")) or "-"
        status = f"{e.get('status', '')}{' (dry)' if e.get('dry_run') else ''}"
        print(f"{e.get('run_id', ''):<22} {e.get('trigger', ''):<7} {status:<13} {kind:<13} "
              f"{e.get('memory_dir') or ''}: {changes(e)}")
    return EXIT_OK


def changes(entry: dict[str, Any]) -> str:
    """What one history line did, in words: a pass's changes, an apply's or undo's counts."""
    counts = entry.get("counts")
    counts = counts if isinstance(counts, dict) else {}
    trigger = entry.get("trigger")
    if trigger == "apply":
        return (f"applied {counts.get('applied', 0)} of proposal {entry.get('proposal', '?')}"
                + (f", refused {counts['refused']}" if counts.get("refused") else "")
                + (f", then {counts['follow_ups']} safe step(s)" if counts.get("follow_ups")
                   else ""))
    if trigger == "undo":
        return f"restored {counts.get('restored', 0)} file(s)"
    if trigger == "reject":
        return (f"declined {counts.get('declined', 0)} of proposal {entry.get('proposal', '?')} "
                "(not proposed again while their files are unchanged)")
    if entry.get("status") == "skipped":
        gate = next((g for g in entry.get("gates") or () if isinstance(g, dict)
                     and g.get("passed") is False), None)
        if gate is None:
            return "skipped"
        reason = str(gate.get("reason"))
        own = f"{entry.get('memory_dir')}: "  # the line names its root already
        return f"{gate.get('id')} {reason.removeprefix(own)}"
    if entry.get("status") == "failed":
        return str(entry.get("error") or "failed")
    if trigger == "prune":
        users = counts.get("users_files", counts.get("archived", 0))
        return (f"removed {counts.get('runs', 0)} run folder(s), {counts.get('bytes', 0)} bytes"
                + (f", holding {users} file(s) moved out of a root (archived, or put aside "
                   "by undo)" if users else ""))
    return summary_of(counts, dry=bool(entry.get("dry_run")), past=True)


def _path_names(text: str) -> set[str]:
    """A memory dir as given and as an absolute path (``~`` expanded, ``..`` resolved,
    links not followed): ``--root`` matches a history line by either."""
    return {text, os.path.abspath(os.path.expanduser(text))}


def prune(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Remove the run folders (archives included) of runs that started more than
    ``--older-than`` ago (a duration: ``30``, ``30d``, ``12h``, ``2w``), per root, saying
    what goes; ``--dry-run`` only says it. An interrupted run and the run of a proposal
    waiting for review stay."""
    cfg = load_config(args, env)
    setup_logging(cfg, args, quiet=True, env=env)
    state_dir = paths.state_dir(args.state_dir, cfg, env)
    now = clock.now()
    now_ns = clock.epoch_ns(now)
    before = now_ns - args.older_than.ns
    folders: list[tuple[Path, str | None]] = []
    if args.memory_dir:
        for raw in args.memory_dir:
            root = Path(raw).expanduser().absolute()  # as a run keys its root's state
            state = statedir.root_state(state_dir, root)
            if not root.is_dir() and not state.is_dir():
                raise UsageError(f"--memory-dir {raw}: no such directory")
            folders.append((state, str(root)))
    else:
        folders = [(s, past.memory_dir_of(s)) for s in statedir.root_folders(state_dir)]
    said = failed = False
    for state, memory_dir in folders:
        with own_lock(Path(memory_dir) if memory_dir else None, state) as held:
            if not held and not args.dry_run:
                print(f"consolidator: {memory_dir}: a run or an undo holds the lock; "
                      "nothing pruned there", file=sys.stderr)
                failed = True
                continue
            spoke, broke = _prune_root(args, env, state, memory_dir, before, now)
            said, failed = said or spoke, failed or broke
    if not said:
        print(f"nothing older than {args.older_than.words}")
    return EXIT_FAILED if failed else EXIT_OK


def _kept_roots(state_dir: Path, env: Mapping[str, str], found: set[Path]) -> list[stores.Store]:
    """The memory dirs the state dir keeps state for that still exist and are not among
    ``found``, oldest key first."""
    out = []
    for folder in statedir.root_folders(state_dir):
        name = past.memory_dir_of(folder)
        if name is not None and Path(name) not in found and os.path.isdir(name):
            out.append(stores.describe(Path(name), env))
    return out


def status(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Each root's gates, last consolidation, last run and waiting changes: the
    ``--memory-dir`` roots, else those configured or found and every other one the state dir
    keeps state for (a root a run was given by ``--memory-dir``)."""
    cfg = load_config(args, env)
    setup_logging(cfg, args, quiet=True, env=env)
    held: list[tuple[str, str]] = []
    roots, state_dir = roots_and_state(args, cfg, env, lambda *said: held.append(said))
    if not args.memory_dir:
        roots += _kept_roots(state_dir, env, {s.path for s in roots})
    warn = warner()
    for level, message in held:
        if roots and message.startswith(NO_ROOT):
            continue  # the state dir knew some
        warn(level, message)
    opts = runner.RunOptions(state_dir=state_dir, transcripts_dir=args.transcripts_dir,
                             project_root=args.project_root, env=env, trigger="status")
    now = clock.now()
    rows: list[dict[str, Any]] = []
    for store in roots:
        ctx = runner.context_for(store, cfg, opts, now, "status")
        gates, _ok = evaluate(ctx, all_of_them=True)
        last = lock.last_consolidated_ns(ctx.root, ctx.now_ns, ctx.state)
        rows.append({
            "memory_dir": str(ctx.root),
            "kind": ctx.kind,
            "gates": [{"id": g.id, "name": g.name, "passed": g.passed, "reason": g.reason}
                      for g in gates],
            "last_consolidated": iso(last) if last else None,
            "last_run": past.last_for(ctx.state),
            "waiting": waiting_count(ctx.state),
        })
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    for row in rows:
        print(f"{row['memory_dir']} ({row['kind']})")
        print(f"  last consolidated: {row['last_consolidated'] or 'never'}")
        last_run = row["last_run"]
        # History keeps one line per streak of passes a gate closed: the gates below are now.
        print("  last recorded run: "
              + (f"{last_run['run_id']} {last_run['status']}"
                 f"{' (dry run: nothing changed)' if last_run.get('dry_run') else ''}"
                 if last_run else "none"))
        if row["waiting"]:
            print(f"  waiting for review: {row['waiting']} change(s) ({command('proposals')})")
        for g in row["gates"]:
            mark = {True: "pass", False: "FAIL", None: "-"}[g["passed"]]
            print(f"  {g['id']} {g['name']:<14} {mark:<5} {g['reason']}")
    return EXIT_OK


def _prune_root(args: argparse.Namespace, env: Mapping[str, str], state: Path,
                memory_dir: str | None, before: int, now: datetime) -> tuple[bool, bool]:
    """Prune one root's old runs (the caller holds its lock); returns (said anything,
    failed)."""
    runs = retention.old_runs(state, before)
    if not runs:
        return False, False
    failed = False
    verb = "would remove" if args.dry_run else "removed"
    label = {statedir.ARCHIVE: "archived", statedir.UNDONE: "taken out by undo",
             statedir.DISPLACED: "set aside by undo --force"}
    print(memory_dir or f"{state} (memory dir unknown)")
    gone: list[retention.OldRun] = []
    for run in runs:
        if run.kept is not None:
            print(f"  kept run {run.run_id}: {run.kept}")
            continue
        if not args.dry_run:
            try:
                if not runfolders.remove_run(run.path, users_files=True):
                    continue
            except OSError as exc:
                print(f"consolidator: {run.path}: not removed: {exc}", file=sys.stderr)
                failed = True
                continue
        gone.append(run)
        print(f"  {verb} run {run.run_id} ({run.files.size} bytes)")
        for kind, rel, size in run.files.users:
            shown = rel.split("/", 1)[-1] if kind == statedir.DISPLACED else rel  # no step
            print(f"    {label.get(kind, kind)} {shown} ({size} bytes)")
    total = sum(r.files.size for r in gone)
    print(f"  {verb} {len(gone)} run(s), {total} bytes in all")
    if gone and not args.dry_run:
        Session(Path(memory_dir) if memory_dir else None, state, new_run_id(now), now, "prune",
                kind=stores.describe(Path(memory_dir), env).kind if memory_dir else None).record(
            "pruned", {"runs": len(gone), "bytes": total,
                       "users_files": sum(len(r.files.users) for r in gone)},
            removed=[r.run_id for r in gone], older_than_days=_days(args.older_than))
    return True, failed


def _days(age: clock.Duration) -> int | float:
    """A prune's ``--older-than`` in days, as its history line keeps it (whole when whole)."""
    whole, rest = divmod(age.ns, clock.DAY_NS)
    return whole if not rest else round(age.ns / clock.DAY_NS, 6)
