"""``consolidator serve``: APScheduler 3.x in the foreground, calling the same pass as ``run``.

One job, ``coalesce=True`` and ``max_instances=1`` (a slow pass is never run twice at once,
and missed ticks collapse into one), with a misfire grace time of hours: a laptop that slept
through its ticks still runs once when it wakes. SIGTERM/SIGINT ask the pass in progress to
stop at its next step boundary (rolling the lock back), then shut the scheduler down; SIGHUP
reloads the config.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

import structlog
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from consolidator import clock
from consolidator.config import Config
from consolidator.errors import ConfigError, ConsolidatorError
from consolidator.stop import Stopped, StopToken

JOB_ID = "consolidate"
MISFIRE_GRACE_S = 6 * 3600

log = structlog.get_logger("consolidator.serve")


def trigger_for(cfg: Config) -> Any:
    """The APScheduler trigger of ``[schedule]``."""
    if cfg.schedule.interval_seconds:
        return IntervalTrigger(seconds=cfg.schedule.interval_seconds)
    assert cfg.schedule.cron is not None
    return CronTrigger.from_crontab(cfg.schedule.cron)


class Service:
    """The long-running service around one pass function."""

    def __init__(
        self,
        load_config: Callable[[], Config],
        one_pass: Callable[[Config, StopToken], object],
        configure: Callable[[Config], dict[str, object]] = lambda cfg: {},
    ) -> None:
        """``configure``: applies a config's ``[log]`` (at start and on every reload) and
        returns what the start and reload lines say of it (config file, roots, state dir)."""
        self.load_config = load_config
        self.one_pass = one_pass
        self.configure = configure
        self.cfg = load_config()
        self.stop = StopToken()
        self.busy = threading.Lock()
        self.failing: dict[str, int] = {}  # root -> ticks in a row it failed
        self.scheduler = BlockingScheduler(
            executors={"default": ThreadPoolExecutor(max_workers=1)},
            job_defaults={"coalesce": True, "max_instances": 1,
                          "misfire_grace_time": MISFIRE_GRACE_S},
        )

    def tick(self) -> None:
        """One pass over every root; an error is logged and the next tick tries again."""
        with self.busy:
            if self.stop.requested:
                return
            try:
                result = self.one_pass(self.cfg, self.stop)
                self._note_failures(result)
            except Stopped:
                log.info("pass stopped; lock rolled back")
            except (ConsolidatorError, OSError) as exc:
                log.error("pass failed; retrying on the next tick", error=str(exc))
            except Exception:
                log.exception("pass crashed; retrying on the next tick")

    def _note_failures(self, result: object) -> None:
        """A root that fails tick after tick says so at warning level, with the count, so a
        journal or a log filter on warnings shows it (each failure is also logged as an
        error by the runner). A root that cannot be used is the runner's to say, once per
        change of reason, for ``run`` as for ``serve``."""
        for root in getattr(result, "roots", ()):
            key = str(root.memory_dir)
            if root.status != "failed":
                if self.failing.pop(key, 0) > 1:
                    log.info("root recovered", root=key)
                continue
            count = self.failing.get(key, 0) + 1
            self.failing[key] = count
            if count > 1:
                log.warning("root keeps failing", root=key, ticks=count, error=root.error)

    def _on_stop(self, signum: int, _frame: object) -> None:
        log.info("stopping", signal=signum)
        self.stop.request(signum)
        # Not here: a signal handler runs between two bytecodes of the scheduler's own loop,
        # which may be walking its job store; a shutdown from another thread waits for it.
        threading.Thread(target=self.scheduler.shutdown, kwargs={"wait": False},
                         daemon=True).start()

    def _on_reload(self, _signum: int, _frame: object) -> None:
        try:
            cfg = self.load_config()
        except ConfigError as exc:
            log.error("config reload failed; keeping the old config", problems=exc.problems)
            return
        self.cfg = cfg
        self.scheduler.reschedule_job(JOB_ID, trigger=trigger_for(cfg))
        log.info("config reloaded", **self._described(cfg))

    def _described(self, cfg: Config) -> dict[str, object]:
        """What the start and reload lines say: the config file, the schedule, and what
        ``configure`` adds (the roots found, the state dir); its ``[log]`` applied first."""
        try:
            found = self.configure(cfg)
        except (ConsolidatorError, OSError) as exc:
            found = {"problem": str(exc)}
        return {"config": cfg.source, "schedule": cfg.schedule.cron
                or f"every {cfg.schedule.interval_seconds} s", **found}

    def serve(self) -> int:
        """Run until SIGTERM or SIGINT; return 0 once the pass in progress has unwound."""
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(signal.SIGINT, self._on_stop)
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, self._on_reload)
        self.scheduler.add_job(
            self.tick, trigger_for(self.cfg), id=JOB_ID, name="consolidate",
            next_run_time=clock.now(),
        )
        log.info("serving", **self._described(self.cfg))
        self.scheduler.start()
        with self.busy:  # wait for a pass in progress to finish or roll back
            pass
        log.info("stopped")
        return 0
