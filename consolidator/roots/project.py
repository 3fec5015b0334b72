"""The project a memory directory belongs to, as it is now: what a memory's citations can be
checked against.

Which cited files exist, when git's history removed or moved one, and whether a symbol a memory
names is still anywhere in the tree. Each answer is looked up once per run. Read only: git is
run with fixed arguments (a cited path only after ``--``, a symbol only as a fixed string after
``-e``), never anything a memory names as a command, and only where the project is a git work
tree and ``git`` is installed; without it, a missing file is still found, with no history.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
from pathlib import Path

GIT_TIMEOUT_S = 10.0
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}


class Project:
    """One project tree (see the module's doc)."""

    def __init__(self, root: Path, git: str | None = None) -> None:
        self.root = root
        found = git if git is not None else shutil.which("git")
        self._git = found if found and (root / ".git").exists() else None
        self.looked_up: dict[str, bool] = {}  # path as written -> missing
        self._history: dict[str, str | None] = {}
        self._symbols: dict[str, bool] = {}

    @property
    def has_history(self) -> bool:
        return self._git is not None

    def missing(self, path: str) -> bool:
        """Whether a relative path a memory cites names nothing in the project (a path out of
        the project, or absolute, is never called missing)."""
        known = self.looked_up.get(path)
        if known is None:
            normal = posixpath.normpath(path)
            known = not (normal.startswith("..") or os.path.isabs(normal)) \
                and not os.path.lexists(self.root / normal)
            self.looked_up[path] = known
        return known

    def what_became_of(self, path: str) -> str | None:
        """What git's history says became of a missing path, in words ("removed in commit
        abc1234 on 2026-09-02", "moved to src/auth/tokens.py in commit …"), or ``None`` when
        there is no history to ask or it says nothing."""
        if path not in self._history:
            self._history[path] = self._last_change(path)
        return self._history[path]

    def holds_symbol(self, symbol: str) -> bool:
        """Whether ``symbol`` (an identifier a memory names) is a whole word in any file git
        tracks in the project; ``False`` without git (nothing is searched then)."""
        if symbol not in self._symbols:
            out = self._run("grep", "-q", "-I", "-w", "-F", "-e", symbol)
            self._symbols[symbol] = out is not None
        return self._symbols[symbol]

    def _last_change(self, path: str) -> str | None:
        normal = posixpath.normpath(path)
        out = self._run("log", "-1", "--diff-filter=D", "--format=%h %cs", "--", normal)
        if not out or " " not in out.strip():
            return None
        commit, day = out.strip().split(" ", 1)
        # The commit that removed it, read whole: a move shows there as a rename.
        changes = self._run("show", "-M", "--name-status", "--format=", commit) or ""
        for line in changes.splitlines():
            parts = line.split("\t")
            if parts[0].startswith("R") and len(parts) == 3 and parts[1] == normal:
                return f"moved to {parts[2]} in commit {commit} on {day}"
        return f"removed in commit {commit} on {day}"

    def _run(self, *args: str) -> str | None:
        """git's output, or ``None`` when it fails, finds nothing or cannot run."""
        if self._git is None:
            return None
        try:
            done = subprocess.run(
                [self._git, "-C", str(self.root), "--no-pager", *args],
                capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False,
                env={**os.environ, **_GIT_ENV}, stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError):
            self._git = None  # no git after all: the rest of the run asks it nothing
            return None
        return done.stdout if done.returncode == 0 else None
