"""The project a memory directory belongs to, as it is now: what a memory's citations can be
checked against.

Which cited files exist, when git's history removed or moved one, whether a symbol a memory
names is still anywhere in the tree, and whether a branch it names was merged and is gone. Each answer is looked up once per run. A path people write
relative to a part of the project (``routes/web.php`` for ``server/routes/web.php``) is there
when a file of the tree ends with it; the tree is listed once, only when a path is not found
from the root, and not at all past ``MAX_FILES`` files (nothing is called missing then). A path
git ignores is never missing: it names a local file the project does not track. Read only: git is
run with fixed arguments (a cited path only after ``--``, a symbol only as a fixed string after
``-e``), never anything a memory names as a command, and only where the project is a git work
tree and ``git`` is installed; without it, a missing file is still found, with no history.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import subprocess
from pathlib import Path

GIT_TIMEOUT_S = 10.0
MAX_FILES = 200_000  # files listed to find a path cited from part of the tree; more: not listed
_NOT_LISTED = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__"})
MAX_SEARCHES = 64  # symbols searched for in the tree per run (each one is a `git grep`)
MAX_MERGES = 5000  # merge commits read for the branches they merged, newest first
# A merge commit's subject as git and the hosting services write it.
_MERGED = re.compile(r"Merge (?:remote-tracking )?branch '(?:origin/)?(?P<branch>[^']+)'"
                     r"|Merge pull request #\d+ from (?P<pr>\S+)")
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}


_TOO_MANY: dict[str, list[str]] = {}  # a tree too large to list (never changed)


class Project:
    """One project tree (see the module's doc)."""

    def __init__(self, root: Path, git: str | None = None) -> None:
        self.root = root
        found = git if git is not None else shutil.which("git")
        self._git = found if found and (root / ".git").exists() else None
        self.looked_up: dict[str, bool] = {}  # path as written -> missing
        self._history: dict[str, str | None] = {}
        self._symbols: dict[str, bool] = {}
        self._by_name: dict[str, list[str]] | None = None  # file name -> its paths in the tree
        self._refs: tuple[set[str], dict[str, str]] | None = None  # branch names; merged ones
        # Whether the memories' citations are about this tree at all (see
        # consolidator.detect.stale.evidence.weigh_citations): if not, none is called gone.
        self.cited_here = True

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
                and not os.path.lexists(self.root / normal) and not self._within(normal) \
                and not self._ignored(normal)
            self.looked_up[path] = known
        return known

    def _ignored(self, normal: str) -> bool:
        """Whether git ignores the path: a local file the project does not track (a
        gitignored deploy script), whose absence from this copy says nothing."""
        return self._run("check-ignore", "-q", "--", normal) is not None

    def _within(self, normal: str) -> bool:
        """Whether a file of the tree ends with ``normal`` (a path written from a part of
        the project); true when the tree is too large to list (no answer: not missing)."""
        if self._by_name is None:
            self._by_name = self._list()
        if self._by_name is _TOO_MANY:
            return True  # no answer: not called missing
        tail = "/" + normal
        name = posixpath.basename(normal)
        return any(p.endswith(tail) for p in self._by_name.get(name, ()))

    def _list(self) -> dict[str, list[str]]:
        """The tree's files by name (git's tracked files where git can tell, else a walk that
        skips what no memory's citation is about), or ``_TOO_MANY`` past ``MAX_FILES``."""
        listed = self._run("ls-files", "-z")
        names = listed.split("\0") if listed else self._walk()
        if names is None or len(names) > MAX_FILES:
            return _TOO_MANY
        out: dict[str, list[str]] = {}
        for rel in names:
            if rel:
                out.setdefault(posixpath.basename(rel), []).append(rel)
        return out

    def _walk(self) -> list[str] | None:
        found: list[str] = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in _NOT_LISTED]
            rel = os.path.relpath(folder, self.root)
            found += [f if rel == "." else f"{rel}/{f}".replace(os.sep, "/") for f in files]
            if len(found) > MAX_FILES:
                return None
        return found

    def known(self, path: str) -> bool:
        """Whether ``path`` is, or was, a path of this project: there now, or named by git's
        history (a deletion or a move)."""
        return not self.missing(path) or self.what_became_of(path) is not None

    def what_became_of(self, path: str) -> str | None:
        """What git's history says became of a missing path, in words ("removed in commit
        abc1234 on 2026-09-02", "moved to src/auth/tokens.py in commit …"), or ``None`` when
        there is no history to ask or it says nothing."""
        if path not in self._history:
            self._history[path] = self._last_change(path)
        return self._history[path]

    def holds_symbol(self, symbol: str) -> bool:
        """Whether ``symbol`` (an identifier a memory names) is a whole word in any file git
        tracks in the project; ``False`` without git (nothing is searched then). Past
        ``MAX_SEARCHES`` searches in one run the answer is ``True`` unsearched: a symbol not
        looked for is never evidence, and a large tree is not searched hundreds of times."""
        if symbol not in self._symbols:
            if len(self._symbols) >= MAX_SEARCHES:
                return True
            out = self._run("grep", "-q", "-I", "-w", "-F", "-e", symbol)
            self._symbols[symbol] = out is not None
        return self._symbols[symbol]

    def merged_branch(self, name: str) -> str | None:
        """What git says of a branch ``name`` that no ref names now: "merged in commit
        abc1234 on 2026-09-02", when a merge commit's subject names it (``Merge branch 'x'``,
        ``Merge pull request #12 from owner/x``); ``None`` otherwise, and without git. The
        refs and the merges are read once, with fixed arguments: a name a memory writes is
        only compared with them, never passed to git."""
        if self._refs is None:
            self._refs = self._read_refs()
        names, merged = self._refs
        return None if name in names else merged.get(name)

    def _read_refs(self) -> tuple[set[str], dict[str, str]]:
        names: set[str] = set()
        listed = self._run("for-each-ref", "--format=%(refname:short)", "refs/heads",
                           "refs/remotes", "refs/tags") or ""
        for ref in listed.split():
            names.add(ref)
            if "/" in ref:
                names.add(ref.split("/", 1)[1])  # origin/feature/x is feature/x too
        merged: dict[str, str] = {}
        log = self._run("log", "--merges", f"-n{MAX_MERGES}", "--format=%h %cs %s") or ""
        for line in log.splitlines():
            commit, day, subject = (line.split(" ", 2) + ["", ""])[:3]
            found = _MERGED.match(subject)
            if found:
                branch = found.group("branch") or found.group("pr").split("/", 1)[-1]
                merged.setdefault(branch, f"merged in commit {commit} on {day}")
        return names, merged

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
