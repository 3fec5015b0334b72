"""The fixed facts of one root's run: light enough for the gates to import.
(Not :mod:`consolidator.phases.context`, what a run carries from phase to phase.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from consolidator.clock import MINUTE_NS, epoch_ns
from consolidator.config import Config
from consolidator.roots.paths import ProjectRoot, project_root
from consolidator.state import statedir
from consolidator.stop import StopToken
from consolidator.store.scan import listing

# Stores whose changes reach other people without the user's say: the team scope (synced to
# every member) and a subagent memory of the project (inside its repository, committed).
REVIEWED_KINDS = {"team": "shared with your team: every change reaches each member",
                  "agent-project": "in the project's repository: a change shows in its "
                                   "git status"}

if TYPE_CHECKING:
    from consolidator.llm.base import Backend
    from consolidator.store.scan import Listed


@dataclass(frozen=True)
class RootContext:
    """The fixed facts of one root's run."""

    root: Path
    cfg: Config
    state: Path  # this root's folder in the state dir
    transcripts: Path
    project_flag: str | None  # --project-root, if given
    now: datetime
    run_id: str
    dry_run: bool = True
    force: bool = False
    trigger: str = "report"
    env: Mapping[str, str] = field(default_factory=dict)
    stop: StopToken = field(default_factory=StopToken, compare=False)
    llm: Backend | None = field(default=None, compare=False)  # the run's backend
    apply: str | None = None  # --apply: which actions this run applies (None: the config's)
    kind: str = "auto"  # the kind of store (see consolidator.roots.stores)
    sessions: tuple[Path, ...] = ()  # folders whose transcripts count (default: transcripts)
    off: str | None = None  # why Claude Code's auto memory is off for this store
    ended: str | None = None  # the session that just ended (Claude Code's SessionEnd hook)
    settled: bool = False  # that session was the only one at work: see :func:`settled_by`
    after_record: Callable[[], None] | None = field(default=None, compare=False)  # journal hook
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def listing(self) -> list[Listed]:
        """The root's memory files with their ``lstat``, listed once per run (the gates
        share it; no file is opened)."""
        if "listing" not in self.memo:
            self.memo["listing"] = listing(self.root)
        found: list[Listed] = self.memo["listing"]
        return found

    @property
    def session_folders(self) -> tuple[Path, ...]:
        return self.sessions or (self.transcripts,)

    @property
    def project(self) -> ProjectRoot:
        """The project root, found once per run (lazily: it may read a transcript, which
        gates never do)."""
        if "project" not in self.memo:
            self.memo["project"] = project_root(self.project_flag, self.cfg, self.transcripts)
        found: ProjectRoot = self.memo["project"]
        return found

    @property
    def mode(self) -> str:
        """Which actions this run applies itself: ``safe``, ``all`` or ``none``. Nothing in
        a team scope or a project's repository is safe: the one is synced to every member,
        the other committed by the user, so their changes wait for review."""
        mode = self.apply or self.cfg.consolidate.apply
        return "none" if mode == "safe" and self.kind in REVIEWED_KINDS else mode

    @property
    def now_ns(self) -> int:
        return epoch_ns(self.now)

    @property
    def idle_after_ns(self) -> int:
        """The start of the idle window: a change after it may be a live session's."""
        return self.now_ns - self.cfg.gates.idle_minutes * MINUTE_NS

    @property
    def hot_after_ns(self) -> int:
        """Memories with a later mtime may be in a live session's hands: never touched
        (none, once the only session at work has ended)."""
        return self.now_ns if self.settled else self.idle_after_ns

    @property
    def run_dir(self) -> Path:
        return statedir.run_dir(self.state, self.run_id)


