"""The project a memory directory belongs to, as it is now: what a memory's citations can be
checked against.

Which cited files exist, when git's history removed or moved one, whether a symbol a memory
names is still anywhere in the tree, whether a branch it names was merged and is gone, and
which package scripts and make targets the project's files define.
Each answer is looked up once per run, and each is one of three: yes, no, or unknown — what
cannot be told (a tree too large to list, a git that fails or times out, a search past its
budget) is never evidence against a memory.

A path people write relative to a part of the project (``routes/web.php`` for
``server/routes/web.php``) is there when a file of the tree ends with it; the tree is listed
once, only when a path is not found from the root, and not past ``MAX_FILES`` files or
``WALK_SECONDS`` of walking (every such path is unknown then). A path git ignores names a
local file the project does not track: unknown, never gone.

Read only: git is run with fixed arguments (a cited path only after ``--``, a symbol only as a
fixed string after ``-e``), never anything a memory names as a command or an option, and only
where the project is a git work tree and ``git`` is installed; without it, a missing file is
still found, with no history.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

Status = Literal["there", "gone", "unknown"]

GIT_TIMEOUT_S = 10.0
MAX_FILES = 200_000  # files listed to find a path cited from part of the tree; more: unknown
WALK_SECONDS = 2.0  # a walk of a tree without git (a home folder, say) stops after this
_NOT_LISTED = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__"})
MAX_SEARCHES = 64  # symbols searched for in the tree per run (each one is a `git grep`)
MAX_HISTORY = 64  # paths git's history is asked about per run (each one is a `git log`)
MAX_MERGES = 5000  # merge commits read for the branches they merged, newest first
# A merge commit's subject as git and the hosting services write it.
_MERGED = re.compile(r"Merge (?:remote-tracking )?branch '(?:origin/)?(?P<branch>[^']+)'"
                     r"|Merge pull request #\d+ from (?P<pr>\S+)")
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
_NOT_FOUND = 1  # the exit status of `git grep` that found nothing, of `check-ignore` that
# ignores nothing; any other failure is unknown

# The files that say what a command runner can run, by runner (see ``Project.runnable``).
RUNNER_FILES = {"npm": frozenset({"package.json"}),
                "make": frozenset({"Makefile", "makefile", "GNUmakefile"})}
MAX_RUNNER_FILES = 200  # such files read per runner; more (or one too large): unknown
MAX_RUNNER_BYTES = 1_000_000
# A Makefile rule's targets ("build test: deps"), not a variable (":=", "::=", "?=").
_RULE = re.compile(r"([^\s:#=][^:#=]*?)[ \t]*::?(?![=:])")
# What makes a Makefile's targets more than its rule lines say.
_MADE_TARGETS = re.compile(r"^-?s?include\s|^[^\t#]*[%$][^:=]*::?(?!=)", re.MULTILINE)

_TOO_MANY: dict[str, list[str]] = {}  # a tree too large (or slow) to list (never changed)


class Project:
    """One project tree (see the module's doc)."""

    def __init__(self, root: Path, git: str | None = None) -> None:
        self.root = root
        found = git if git is not None else shutil.which("git")
        self._git = found if found and (root / ".git").exists() else None
        self._failed = False  # git failed or timed out once: its answers are unknown since
        self.looked_up: dict[str, Status] = {}  # path as written -> what was found
        self._history: dict[str, str | None] = {}
        self._symbols: dict[str, bool] = {}
        self._by_name: dict[str, list[str]] | None = None  # file name -> its paths in the tree
        self._folders: set[str] | None = None  # every folder of the listed tree
        self._ls_files: list[str] | None = None  # what `git ls-files` lists ([]: nothing)
        self._tracked: set[str] | None = None  # the same, as a set
        self._refs: tuple[set[str], dict[str, str]] | None = None  # branch names; merged ones
        self._runnable: dict[str, tuple[frozenset[str], tuple[str, ...]] | None] = {}
        # Whether the memories' citations are about this tree at all (see
        # consolidator.detect.stale.evidence.weigh_citations): if not, none is called gone.
        self.cited_here = True
        # A memory's body -> the paths it cites, each with its line and that line's other
        # words: read once a run, by the weighing and then by each memory's check.
        self.cited: dict[str, list[tuple[str, str, str]]] = {}

    @property
    def has_history(self) -> bool:
        return self._git is not None

    def status(self, path: str) -> Status:
        """Whether a relative path a memory cites is there, gone, or cannot be told (a path
        out of the project or absolute is unknown: it is not this project's to judge)."""
        found = self.looked_up.get(path)
        if found is None:
            self.look_up([path])
            found = self.looked_up[path]
        return found

    def missing(self, path: str) -> bool:
        return self.status(path) == "gone"

    def look_up(self, paths: Iterable[str]) -> None:
        """Find the :meth:`status` of many cited paths at once: git is asked once which of
        those not found are ignored (``check-ignore``, the paths on its standard input)."""
        pending: dict[str, str] = {}
        for path in paths:
            if path in self.looked_up:
                continue
            normal = posixpath.normpath(path)
            found = self._found(normal)
            if found is None:
                pending[path] = normal
            else:
                self.looked_up[path] = found
        if not pending:
            return
        ignored = self._ignored(sorted(set(pending.values())))
        for path, normal in pending.items():
            # ignored: a local file the project does not track; None: git could not tell
            self.looked_up[path] = "gone" if ignored is not None and normal not in ignored \
                else "unknown"

    def _found(self, normal: str) -> Status | None:
        """What the tree says of a path: there, unknown, or ``None`` (not found in it)."""
        if normal.startswith("..") or os.path.isabs(normal):
            return "unknown"
        if os.path.lexists(self.root / normal):
            return "there"
        within = self._within(normal)
        if within is not False:
            return "there" if within else "unknown"
        return None

    def _ignored(self, normals: list[str]) -> set[str] | None:
        """Which of these paths git ignores (none without git), or ``None`` when git fails."""
        if self._git is None:
            return None if self._failed else set()
        done = self._call("check-ignore", "--stdin", "-z", stdin="\0".join(normals) + "\0")
        if done is None or done[0] not in (0, _NOT_FOUND):
            return None
        return set(done[1].split("\0")) - {""}

    def _within(self, normal: str) -> bool | None:
        """Whether a file of the tree ends with ``normal`` (a path written from a part of
        the project); ``None`` when the tree could not be listed."""
        if "/" not in normal:
            return False  # a bare name would match any file of that name
        if self._by_name is None:
            self._by_name = self._list()
        if self._by_name is _TOO_MANY:
            return None
        tail = "/" + normal
        return any(p.endswith(tail) for p in self._by_name.get(posixpath.basename(normal), ()))

    def folder_there(self, path: str) -> bool | None:
        """Whether the folder a cited path names is in the tree, from the root or as the end
        of a folder in it (as :meth:`_within` reads a path); ``None`` when the tree could not
        be listed."""
        if os.path.isabs(path) or ".." in path.split("/"):
            return None  # out of the project, or a folder named only to step out of it
        folder = posixpath.dirname(posixpath.normpath(path))
        if not folder or os.path.isdir(self.root / folder):
            return True
        if self._folders is None:
            if self._by_name is None:
                self._by_name = self._list()
            if self._by_name is _TOO_MANY:
                return None
            self._folders = set()
            for paths in self._by_name.values():
                for rel in paths:
                    folder_of = posixpath.dirname(rel)
                    while folder_of and folder_of not in self._folders:
                        self._folders.add(folder_of)  # and each folder above it, once
                        folder_of = posixpath.dirname(folder_of)
        tail = "/" + folder
        return any(("/" + known).endswith(tail) for known in self._folders)

    def named_elsewhere(self, path: str) -> str | None:
        """The one file of the tree named as a cited file that is not there, under the cited
        folder or in one of its name: where it moved (``a/steer.ino`` to ``a/steer/steer.ino``,
        ``old/auth/x.py`` to ``src/auth/x.py``); else ``None`` (none, several, one elsewhere:
        ``docs/config.yaml`` for ``deploy/config.yaml``; a tree that could not be listed)."""
        if self._by_name is None:
            self._by_name = self._list()
        normal = posixpath.normpath(path)
        found = () if self._by_name is _TOO_MANY else self._by_name.get(
            posixpath.basename(normal), ())
        folder, theirs = posixpath.dirname(normal), posixpath.dirname(found[0]) if found else ""
        near = f"/{folder}/" in f"/{theirs}/" or posixpath.basename(theirs) == \
            posixpath.basename(folder)
        return found[0] if len(found) == 1 and folder and near else None

    def tracked(self, path: str) -> bool:
        """Whether git tracks the file at exactly ``path`` from the root (false without
        git): a file whose content a search of the tree reads."""
        if self._tracked is None:
            self._tracked = set(self._git_files() or ())
        return posixpath.normpath(path) in self._tracked

    def _git_files(self) -> list[str] | None:
        """The files git tracks (asked once a run), or ``None`` without git."""
        if self._ls_files is None:
            listed = self._run("ls-files", "-z")
            self._ls_files = [rel for rel in listed.split("\0") if rel] if listed else []
        return self._ls_files or None

    def _list(self) -> dict[str, list[str]]:
        """The tree's files by name (git's tracked files where git can tell, else a walk that
        skips what no memory's citation is about), or ``_TOO_MANY``."""
        names = self._git_files() or self._walk()
        if names is None or len(names) > MAX_FILES:
            return _TOO_MANY
        out: dict[str, list[str]] = {}
        for rel in names:
            if rel:
                out.setdefault(posixpath.basename(rel), []).append(rel)
        return out

    def _walk(self) -> list[str] | None:
        """Every file under the root, or ``None`` past ``MAX_FILES`` or ``WALK_SECONDS``."""
        found: list[str] = []
        until = time.monotonic() + WALK_SECONDS
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in _NOT_LISTED]
            rel = os.path.relpath(folder, self.root)
            found += [f if rel == "." else f"{rel}/{f}".replace(os.sep, "/") for f in files]
            if len(found) > MAX_FILES or time.monotonic() > until:
                return None
        return found

    def what_became_of(self, path: str) -> str | None:
        """What git's history says became of a missing path, in words ("removed in commit
        abc1234 on 2026-09-02", "moved to src/auth/tokens.py in commit …"), or ``None`` when
        there is no history to ask, it says nothing, or ``MAX_HISTORY`` paths were asked
        about already in this run."""
        if path not in self._history:
            if len(self._history) >= MAX_HISTORY:
                return None
            self._history[path] = self._last_change(path)
        return self._history[path]

    def holds_symbol(self, symbol: str) -> bool | None:
        """Whether ``symbol`` (an identifier a memory names) is a whole word in a file of the
        project git tracks or does not ignore: ``False`` without git (nothing can be seen
        there), ``None`` when git is there but cannot tell: it fails, or ``MAX_SEARCHES``
        searches were made in this run already (a symbol not looked for is never evidence,
        and a large tree is not searched hundreds of times)."""
        if symbol not in self._symbols:
            if self._git is None:
                return None if self._failed else False
            if len(self._symbols) >= MAX_SEARCHES:
                return None
            found = self._call("grep", "-q", "-I", "-w", "-F", "--untracked", "-e", symbol)
            if found is None or found[0] not in (0, _NOT_FOUND):
                return None
            self._symbols[symbol] = found[0] == 0
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

    def runnable(self, runner: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
        """What ``runner`` can run in the project, and the files that say so: ``"npm"`` the
        scripts of every package.json (npm, pnpm, yarn and bun read the same ones), ``"make"``
        the targets of every Makefile. ``None`` when it cannot be told: the project has no
        such file (a command of another project), one cannot be read or parsed, there are
        more than ``MAX_RUNNER_FILES``, or a Makefile makes targets its rule lines do not
        name (an include, a pattern, a variable). Read once a run; nothing is run."""
        if runner not in self._runnable:
            self._runnable[runner] = self._read_runnable(runner)
        return self._runnable[runner]

    def _read_runnable(self, runner: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
        names = RUNNER_FILES[runner]
        if self._by_name is None:
            self._by_name = self._list()  # the same listing a path cited from a part uses
        if self._by_name is _TOO_MANY:
            return None
        found = {rel for name in names for rel in self._by_name.get(name, ())
                 if "node_modules" not in rel.split("/")}
        found |= {name for name in names if (self.root / name).is_file()}  # even untracked
        if not found or len(found) > MAX_RUNNER_FILES:
            return None
        runnable: set[str] = set()
        for rel in sorted(found):
            path = self.root / rel
            try:
                if path.is_symlink() or path.stat().st_size > MAX_RUNNER_BYTES:
                    return None
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
            names_in = _scripts(text) if runner == "npm" else _targets(text)
            if names_in is None:
                return None
            runnable |= names_in
        return frozenset(runnable), tuple(sorted(found))

    def _read_refs(self) -> tuple[set[str], dict[str, str]]:
        names: set[str] = set()
        listed = self._run("for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes",
                           "refs/tags")
        if listed is None:
            return names, {}  # no refs to tell a deleted branch from a live one: none is
        for ref in listed.split():
            for prefix in ("refs/heads/", "refs/tags/"):
                if ref.startswith(prefix):
                    names.add(ref[len(prefix):])
            if ref.startswith("refs/remotes/"):
                remote_ref = ref[len("refs/remotes/"):]
                names.add(remote_ref)
                names.add(remote_ref.split("/", 1)[-1])  # origin/feature/x is feature/x too
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
        done = self._call(*args)
        return done[1] if done is not None and done[0] == 0 else None

    def _call(self, *args: str, stdin: str | None = None) -> tuple[int, str] | None:
        """git's exit status and output, or ``None`` when it cannot run or times out (the
        rest of the run asks it nothing, and what only it could tell is unknown). ``stdin``:
        what git reads (paths a memory names go there, never among the arguments)."""
        if self._git is None:
            return None
        try:
            done = subprocess.run(
                [self._git, "-C", str(self.root), "--no-pager", *args],
                capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False,
                env={**os.environ, **_GIT_ENV}, input=stdin,
                stdin=subprocess.DEVNULL if stdin is None else None,
            )
        except (OSError, subprocess.SubprocessError):
            self._git = None
            self._failed = True
            return None
        if done.returncode > _NOT_FOUND:  # a fatal error (128): a broken or refused repo
            self._failed = True
        return done.returncode, done.stdout


def _scripts(text: str) -> set[str] | None:
    """The script names of a package.json, or ``None`` when it is no JSON object."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    scripts = data.get("scripts", {})
    return set(scripts) if isinstance(scripts, dict) else None


def _targets(text: str) -> set[str] | None:
    """The targets a Makefile's rule lines name, or ``None`` when it makes others too."""
    text = text.replace("\\\n", " ")
    if _MADE_TARGETS.search(text):
        return None
    out: set[str] = set()
    for line in text.splitlines():
        if line[:1] in ("\t", " ", "#", ""):
            continue  # a recipe, a comment or a blank line
        rule = _RULE.match(line)
        if rule:
            out.update(rule.group(1).split())
    return out
