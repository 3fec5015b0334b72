"""``serve``: the long-running service, an APScheduler job that makes the same pass as
``run`` on a schedule (imported only for this command: the scheduler is the heavy part)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING

from consolidator import clock, runner
from consolidator.cli.common import (
    journal_hook,
    load_config,
    roots_and_state,
    setup_logging,
    warn_keyless,
    warner,
    writable_state,
    write_metrics,
)
from consolidator.llm import make_backend
from consolidator.scheduler import Service
from consolidator.stop import StopToken

if TYPE_CHECKING:
    from consolidator.config import Config
    from consolidator.report.outcome import RunReport


def serve(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    cfg = load_config(args, env)
    setup_logging(cfg, args, env=env)  # stderr, as every command's log
    warn = warner()
    _found, state = roots_and_state(args, cfg, env, warn)  # a bad --memory-dir: exit 2 now
    writable_state(state)
    hook = journal_hook(env)

    def configure(current: Config) -> dict[str, object]:
        setup_logging(current, args, env=env)  # [log] of this config
        warn_keyless(current, env)
        found, state = roots_and_state(args, current, env, warn, checked=False)
        return {"roots": [f"{s.path} ({s.kind})" for s in found], "state_dir": str(state)}

    def one_pass(current: Config, stop: StopToken) -> RunReport:
        roots, state = roots_and_state(args, current, env, warn, checked=False)
        opts = runner.RunOptions(
            state_dir=state,
            transcripts_dir=args.transcripts_dir,
            project_root=args.project_root,
            dry_run=False,
            trigger="serve",
            env=env,
            stop=stop,
            llm=make_backend(current.llm, env, enabled=True),
            debug=args.debug,
            after_record=hook,
        )
        result = runner.run_all(roots, current, opts, clock.now())
        write_metrics(current, result, state)
        return result

    return Service(lambda: load_config(args, env), one_pass, configure).serve()
