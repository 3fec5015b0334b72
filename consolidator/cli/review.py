"""Review before apply: proposals, apply, reject."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from consolidator import clock, review, runner
from consolidator.cli.codes import EXIT_FAILED, EXIT_LOCKED, EXIT_OK
from consolidator.cli.common import (
    journal_hook,
    load_config,
    roots_and_state,
    setup_logging,
    write_out,
)
from consolidator.errors import ConsolidatorError, LockHeld, UsageError
from consolidator.report.json import Mask
from consolidator.report.summary import command, options
from consolidator.roots import paths, stores
from consolidator.session import Session
from consolidator.state import proposal, statedir
from consolidator.state.lock import own_lock


def review_scope(args: argparse.Namespace, cfg: Any,
                 env: Mapping[str, str]) -> tuple[list[Path] | None, Path]:
    """Which proposals a review command looks at: those of the ``--memory-dir`` roots, else
    every one kept in the state dir (a root need not be configured or found to have one)."""
    if getattr(args, "all_roots", False) and args.memory_dir:
        raise UsageError("--all-roots and --memory-dir: choose one (--memory-dir names the "
                         "memory dirs, --all-roots takes every one)")
    if args.memory_dir:
        found, state = roots_and_state(args, cfg, env)
        return [s.path for s in found], state
    return None, paths.state_dir(args.state_dir, cfg, env)


def waiting_count(state: Path) -> int:
    """How many actions of the root's proposal wait (a damaged proposal counts none)."""
    try:
        found = proposal.load(state)
    except ConsolidatorError:
        return 0
    return len(found.waiting()) if found is not None else 0


def proposals(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    cfg = load_config(args, env)
    roots, state = review_scope(args, cfg, env)
    found = review.waiting(state, roots)
    if args.json:
        write_out(lambda out: out.write(json.dumps(
            [{"memory_dir": str(root), "run_id": p.run_id, "created_at": p.created_at,
              "actions": [{"number": i.number, **i.action.to_json(payload=False)}
                          for i in p.waiting()]}
             for root, p in found], ensure_ascii=False, indent=2) + "\n"))
        return EXIT_OK
    if not found:
        print("nothing waits for review")
        return EXIT_OK
    write_out(lambda out: out.write(proposals_text(found, options())))
    return EXIT_OK


def proposals_text(found: list[tuple[Path, Any]], options: str = "") -> str:
    """``proposals``' listing: per root, its numbered actions with their evidence, and the
    commands that apply or decline them, naming the root (one run id may span several)."""
    lines = []
    for root, p in found:
        items = p.waiting()
        mask = Mask(t for i in items for t in (i.action.reason, *i.action.evidence))
        lines += [f"{root}", f"  run {p.run_id} ({p.created_at}): {len(items)} change(s) wait"]
        for item in items:
            action = item.action
            lines.append(f"  {item.number:>3}. {_what(action)}: {mask(action.reason)}")
            lines += [f"       > {mask(line)}" for line in action.evidence[:6]]
            if len(action.evidence) > 6:
                lines.append(f"       > ... {len(action.evidence) - 6} more line(s)")
        named = f"{p.run_id} --memory-dir {shlex.quote(str(root))}{options}"
        lines += [f"  apply: consolidator apply {named} [--only N,M | --except N]",
                  f"  decline: consolidator reject {named} [--only N,M]", ""]
    return "\n".join(lines)


def _what(action: Any) -> str:
    """An action's op and files: a merge names what it folds in and archives."""
    folded = [f for f in getattr(action, "sources", ()) if f != action.file]
    if action.op == "merge" and folded:
        return (f"merge {', '.join(folded)} into {action.file} "
                f"({'it goes' if len(folded) == 1 else 'they go'} to the archive)")
    return f"{action.op} {action.file}"


def apply(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    cfg = load_config(args, env)
    setup_logging(cfg, args, quiet=True, env=env)
    roots, state = review_scope(args, cfg, env)
    numbered = bool(args.only or args.without)
    targets = review.target(state, roots, args.run_id, numbered, args.all_roots)
    if not targets:
        print("nothing waits for review")
        return EXIT_OK
    now = clock.now()
    run_id = runner.new_run_id(now)
    opts = runner.RunOptions(state_dir=state, transcripts_dir=args.transcripts_dir,
                             project_root=args.project_root, dry_run=False, trigger="apply",
                             env=env, debug=args.debug, after_record=journal_hook(env))
    failed = locked = False
    for root, found in targets:
        try:
            done = review.apply(root, found, cfg, opts, now, run_id, args.only,
                                args.without or ())
        except LockHeld as exc:
            print(f"consolidator: {exc}; nothing applied", file=sys.stderr)
            locked = True
            continue
        except UsageError:
            raise
        except (ConsolidatorError, OSError) as exc:
            if args.debug:
                raise
            text = " ".join(str(exc).split())
            print(f"consolidator: {root}: {text}", file=sys.stderr)
            failed = True
            continue
        print(f"{root}: applied {listed(done.applied)} of run {found.run_id}"
              + (f", then {done.follow_ups} safe step(s) they call for (links repointed"
                 + (")" if done.links_only else ", the index rebuilt)") if done.follow_ups
                 else "")
              + (f"; undo: {command(f'undo {run_id}')}" if done.applied or done.follow_ups
                 else ""))
        for number, why in sorted(done.refused.items()):
            print(f"  {number}: refused, {why}")
        if done.all_refused:
            print(f"consolidator: {root}: every chosen action was refused", file=sys.stderr)
            failed = True
    if failed:
        return EXIT_FAILED
    return EXIT_LOCKED if locked else EXIT_OK


def listed(numbers: list[int]) -> str:
    if not numbers:
        return "nothing"
    return ("action " if len(numbers) == 1 else "actions ") + ", ".join(map(str, numbers))


def reject(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    cfg = load_config(args, env)
    roots, state = review_scope(args, cfg, env)
    targets = review.target(state, roots, args.run_id, bool(args.only), args.all_roots)
    if not targets:
        print("nothing waits for review")
        return EXIT_OK
    now = clock.now()
    locked = False
    for root, found in targets:
        rstate = statedir.root_state(state, root)
        with own_lock(root, rstate) as free:
            if not free:  # a run or an apply may be writing this very proposal
                print(f"consolidator: {root}: another consolidator run holds the lock; "
                      "nothing declined", file=sys.stderr)
                locked = True
                continue
            current = proposal.load(rstate)  # again, under the lock
            if current is None or current.run_id != found.run_id:
                raise UsageError(f"run {found.run_id}: its proposal was replaced meanwhile")
            done = review.reject(rstate, root, current, args.only)
            # A person's answer, kept in history as an apply is (it changes no file).
            Session(root, rstate, runner.new_run_id(now), now, "reject",
                    kind=stores.describe(root, env).kind).record(
                "declined", {"declined": len(done.declined)}, proposal=found.run_id,
                declined=done.declined, changed=False)
        its = "their" if len(done.declined) > 1 else "its"
        print(f"{root}: declined {listed(done.declined)} of run {found.run_id}; "
              f"not proposed again while {its} files are unchanged")
    return EXIT_LOCKED if locked else EXIT_OK
