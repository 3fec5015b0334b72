"""A memory's citations checked against its project as it is now (see
:class:`consolidator.roots.project.Project`): the evidence about the world a memory can be
stale by.

Only relative paths with a folder and a file extension are checked (``src/legacy/auth.py``,
not folders, URLs, wiki links, links to other memories or bare names), and not what only
looks like one (see :func:`mentioned_paths`). They are checked only where they are about this
project: where most paths the memories cite are not, and never were, in its tree, the
memories speak of another one (a sibling project, a home folder) and nothing is called gone
(see :func:`weigh_citations`). A cited file that is gone is reported with what git says
became of it; one whose line names a symbol the project still holds has moved, and its
knowledge with it: no finding. A line saying the file was removed, renamed or is yet to be
created is no evidence at all. A symbol named beside a cited file that is there, found
nowhere in the project, a branch named in code that git merged and no ref names now, and a
command in code that runs a package script or a make target no file of the project defines
now, are each about a part. One gone citation is about a part; most of a memory's citations
gone (two or more, over half of those checked) is about the whole memory. Where the project has git
history, a gone path counts only where that history says what became of it (removed, moved):
a path it never held is no evidence of change. Without git history, a gone path counts only
where its folder is still in the project (a folder gone too fits another tree, or one never
copied here, as well as a removal) and no other file of the tree has its name (one that does
is where it moved); such paths are reported, each about a part, and never archived.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from consolidator.roots.project import Project
from consolidator.store.codespans import fence_kinds
from consolidator.store.links import LINK_RE, WIKI_RE
from consolidator.store.model import Memory

MAX_PART_REASONS = 3  # per class of evidence: enough to judge, not a copy of the memory
WEIGHED = 4  # distinct cited paths a directory needs before it is asked whether they are ours
HISTORY_SAMPLE = 16  # gone paths git's history is asked about to tell whether they were ours


class Add(Protocol):
    """Where a reason goes (``_Evidence.add`` of ``consolidator.detect.stale.evidence``)."""

    def __call__(self, reason: str, kind: str, line: str, whole: bool = False) -> None: ...


# Linear: a path starts only where a run of path characters starts (a start inside the run
# would find the same path), and a URL's scheme is at most 32 characters.
_PATH = re.compile(
    r"(?<![\w/.:@~\\+-])((?:\.{1,2}/)?(?:[\w@.+-]+/)+[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,7})"
    r"(?![\w/])"
)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{0,31}://\S+|\bwww\.\S+", re.IGNORECASE)


# A line about a file that is gone on purpose, or not there yet: no evidence against it.
_GONE_ON_PURPOSE = re.compile(
    r"(?i:\b(?:delet|remov|drop|renam|mov|retir|replac|deprecat|migrat|archiv|rewr[io]t|split"
    r"|merg|consolidat|creat|add|introduc|plann|todo|new file|no longer|gone|former|old"
    r"|legacy)\w{0,4}\b)"
    r"|删除|删掉|移除|已删|重命名|改名|迁移|移到|合并|新建|新增|待创建|计划|旧"
    r"|削除|廃止|移動|移行|リネーム|統合|新規|作成予定|追加予定|予定"
)


# What a path of the project is not: a placeholder (`results/YYYY-MM-DD_run/README.md`,
# `js/modules/xxx.js`, `a/.../b.py`), a git range (`origin/main..HEAD`) or a host name without
# its scheme (`docs.example.com/api/search.json`, a first part with a dot inside it).
_PLACEHOLDER = re.compile(r"(?:^|/)(?:\.\.\.|…)(?:/|$)|YYYY|yyyy|xxx|XXX|\.\.[^/.]")
_HOST = re.compile(r"[^./][^/]*\.[^/]*/")
# What a build or an install writes, which a project's files never list.
_GENERATED = frozenset({"dist", "build", "out", "target", "node_modules", ".venv", "venv",
                        "__pycache__", ".next", "coverage", ".git"})
_ABSOLUTE = re.compile(r"[/~\\]|[A-Za-z]:[/\\]")  # how an absolute path starts
_NAMES_A_FILE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")  # ... and a file's name ends


def _project_path(text: str, start: int, path: str) -> bool:
    """Whether ``path`` (at ``start`` in ``text``) can be a project path: not one of the shapes
    above, not under a generated folder, and not the tail of a path with a space in it
    (``/Volumes/My Disk/work/notes.txt``: the word before it, one space back, starts an
    absolute path and names no file)."""
    if _PLACEHOLDER.search(path) or _HOST.match(path):
        return False
    if path.removeprefix("./").split("/", 1)[0] in _GENERATED:
        return False
    if start >= 2 and text[start - 1] == " " and text[start - 2] not in " \t":
        word = text[text.rfind(" ", 0, start - 1) + 1 : start - 1].lstrip("`'\"(")
        return not (_ABSOLUTE.match(word) and not _NAMES_A_FILE.search(word))
    return True


def mentioned_paths(body: str) -> list[str]:
    """Relative project paths a memory names (links, wiki links, URLs and what only looks
    like a path excluded)."""
    if "/" not in body:  # every path checked has a folder in it
        return []
    # Each pattern only where its fixed part stands: a plain search costs far less than a
    # regex over the body ("](" in a link, "[[" in a wiki link, "://" or "www." in a URL).
    text = LINK_RE.sub(" ", body) if "](" in body else body
    if "[[" in text:
        text = WIKI_RE.sub(" ", text)
    if "://" in text or "www." in text.lower():
        text = _URL.sub(" ", text)
    found = []
    for match in _PATH.finditer(text):
        path = match.group(1)
        if path.lower().endswith(".md") and "/" not in path.rstrip("/"):
            continue
        if _project_path(text, match.start(1), path):
            found.append(path)
    return list(dict.fromkeys(found))


def weigh_citations(memories: Iterable[Memory], project: Project) -> bool:
    """Whether the memories' citations are about ``project``: at least half of the distinct
    paths they cite are, or were, in it, or they cite fewer than ``WEIGHED`` (too few to
    tell). A path on a line saying it was removed, moved or is yet to come says nothing either
    way and is left out. A path that is there, or cannot be told, counts for the project; of
    the paths that are gone, git's history is asked about at most ``HISTORY_SAMPLE`` (a path
    it removed or moved was this project's), and the share of those it knows stands for all
    of them. Recorded on the project: where they are not about it, no cited path is called
    gone."""
    cited = sorted({path for memory in memories if "/" in memory.body
                    for path, _line, words in _cited_lines(memory.body, project)
                    if not _GONE_ON_PURPOSE.search(words)})
    project.look_up(cited)  # git asked once for all of them
    gone = [path for path in cited if project.missing(path)]
    known = len(cited) - len(gone)
    if len(cited) >= WEIGHED and 2 * known < len(cited) and project.has_history:
        sample = gone[:HISTORY_SAMPLE]
        removed = sum(1 for path in sample if project.what_became_of(path) is not None)
        known += round(removed * len(gone) / len(sample))
    project.cited_here = len(cited) < WEIGHED or 2 * known >= len(cited)
    return project.cited_here


# A symbol a line names beside a path: an identifier in backticks (`verify_token()`, `Cache`).
_SYMBOL = re.compile(r"`([A-Za-z_][A-Za-z0-9_]{2,}(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\(\))?`")


def check(memory: Memory, project: Project, add: Add) -> list[tuple[str, str]]:
    """Check the project files the memory cites: each gone one is evidence (given to
    ``add``), with what git says became of it; returns the cited files still there, each with
    its line (one that cannot be told is neither: it counts only against calling most of them
    gone)."""
    if "/" not in memory.body:
        return []
    present: list[tuple[str, str]] = []
    gone: list[tuple[str, str, str | None]] = []  # (path, line, what git says became of it)
    untold = 0
    for path, line, words in _cited_lines(memory.body, project):
        status = project.status(path)
        if status != "gone":
            if status == "there":
                present.append((path, line))
            else:
                untold += 1
            continue
        if not project.cited_here or _GONE_ON_PURPOSE.search(words):
            continue
        symbols = [m.group(1) for m in _SYMBOL.finditer(words)]
        if any(project.holds_symbol(symbol) is not False for symbol in symbols):
            continue  # the file moved, what the line says of it still in the project (or
            # that cannot be told)
        became = project.what_became_of(path)
        if became is None and project.has_history:
            # A path git's history never held (or was not asked about) is no evidence that
            # anything changed: a sibling project's file, an output, a file still to come.
            untold += 1
            continue
        if not project.has_history and (project.folder_there(path) is not True
                                        or project.named_elsewhere(path) is not None):
            # Without history, a file gone with its folder is as likely another tree's, or
            # one never copied here, as one removed; and one whose name the tree holds in
            # one other place moved there: only a file missing from a folder that is there,
            # its name nowhere else, counts.
            untold += 1
            continue
        gone.append((path, line, became))
    checked = len(gone) + len(present) + untold
    most = len(gone) >= 2 and 2 * len(gone) > checked
    # Most of them gone is about the whole memory only where git's history says what became
    # of each; without git it is reported, never archived.
    whole = most and project.has_history
    for path, line, became in gone[: len(gone) if most else MAX_PART_REASONS]:
        scope = "" if whole else " (about a part)"
        add(f"cites `{path}` — not in the project{'; ' + became if became else ''}"
            f"{scope}", "path", line, whole=whole)
    if most:
        add(f"{len(gone)} of the {checked} project files it cites are gone"
            + ("" if whole else " (no git history to tell whether they were removed: "
               "reported, not archived)"), "path", gone[0][1], whole=whole)
    return present


def _cited_lines(body: str, project: Project) -> list[tuple[str, str, str]]:
    """Each path the memory cites, with the line it stands in and what that line says
    besides the paths it names (read once a run: kept on the project)."""
    found = project.cited.get(body)
    if found is None:
        found = project.cited[body] = _read_cited_lines(body)
    return found


def _read_cited_lines(body: str) -> list[tuple[str, str, str]]:
    cited = mentioned_paths(body)
    lines = body.splitlines()
    out = []
    for path in cited:
        line = next((text.strip() for text in lines if path in text), path)
        out.append((path, line, _without(line, cited)))
    return out


def _without(line: str, paths: list[str]) -> str:
    """``line`` with every path in ``paths`` blanked out (a path's own words, `legacy` in
    `src/auth/legacy.py`, say nothing of what became of another)."""
    for path in paths:
        if path in line:
            line = line.replace(path, " ")
    return line


def symbols(present: list[tuple[str, str]], project: Project, add: Add) -> None:
    """A symbol named beside a cited file git tracks at that path (`` `verify_token()` in
    `src/auth/session.py` ``) that git finds in no file of the project: what the line says of
    the file no longer holds. About a part; only where git can search the tree, and only
    where the memories' citations are about this project."""
    if not project.has_history or not project.cited_here:
        return
    seen: set[str] = set()
    cited = [path for path, _line in present]
    for path, line in present:
        rest = _without(line, cited)
        if not project.tracked(path) or _GONE_ON_PURPOSE.search(rest):
            continue
        for symbol in dict.fromkeys(m.group(1) for m in _SYMBOL.finditer(rest)):
            parts = [part for part in symbol.split(".") if len(part) >= 3]
            if symbol in seen or not parts \
                    or any(project.holds_symbol(part) is not False for part in parts):
                continue
            seen.add(symbol)
            add(f"names `{symbol}` beside `{path}` — found nowhere in the project "
                      "(about a part)", "symbol", line)
            if len(seen) >= MAX_PART_REASONS:
                return


# A name in code a branch may have: one with a separator (`feature/login`, `release-2.4`,
# `fix_auth`); a plain word (`test`, `master`) is far more often just a word.
_CODE_NAME = re.compile(r"`([A-Za-z0-9][\w.-]*[/_-][\w./-]*)`")


def branches(memory: Memory, project: Project, add: Add) -> None:
    """A branch a memory names in code that git merged and no ref names now: "names branch
    `feature/login` — merged in commit abc1234 on 2026-09-02; no branch has that name now".
    About a part (work on it is done, what the memory says of it may still hold); never where
    the line itself says it was merged or deleted."""
    if not project.has_history or "`" not in memory.body:
        return
    reasons = 0
    for line in memory.body.splitlines():
        if "`" not in line:
            continue
        for name in dict.fromkeys(m.group(1) for m in _CODE_NAME.finditer(line)):
            if len(name) > 100:
                continue
            became = project.merged_branch(name)
            if became is None or _GONE_ON_PURPOSE.search(line.replace(name, " ")):
                continue
            add(f"names branch `{name}` — {became}; no branch has that name now "
                      "(about a part)", "branch", line.strip())
            reasons += 1
            if reasons >= MAX_PART_REASONS:
                return


# A command in code that runs something a project file names: `npm run build:docs`,
# `pnpm --filter web run e2e`, `make release` (the first name after `run` or `make`). yarn and
# bun also run binaries by name, and npm runs `env` with no script: neither is looked for.
_INLINE_CODE = re.compile(r"`([^`\n]{1,300})`")
_COMMAND = re.compile(
    r"(?:^|&&|\|\||[;|(]|\$ )\s*(?:(?P<npm>(?:npm|pnpm)\b[^;|&`]{0,60}?\srun)|(?P<make>make))"
    r"\s+(?P<name>[A-Za-z0-9_][\w:.@/+-]*)(?=\s|$|[;|&)])"
)
_NPM_BUILTIN = frozenset({"env"})


def _commands(body: str) -> list[tuple[str, str, str, str]]:
    """Each command in the memory's code (inline code and fenced blocks) that runs a
    package script or a make target: (runner, name, the command as written, its line)."""
    out = []
    lines = body.splitlines()
    for line, code in zip(lines, fence_kinds(lines), strict=True):
        if code == "fence":
            continue
        stripped = line.strip()
        pieces = [stripped] if code else _INLINE_CODE.findall(line)
        for piece in pieces:
            for match in _COMMAND.finditer(piece.strip()):
                runner = "npm" if match.group("npm") else "make"
                name = match.group("name")
                if runner == "npm" and name in _NPM_BUILTIN:
                    continue
                command = match.group(0).strip(" ;|&($")
                out.append((runner, name, command, stripped))
    return out


def commands(memory: Memory, project: Project, add: Add) -> None:
    """A command in code that runs a package script or a make target the project's
    package.json files or Makefiles do not define now: "runs `npm run deploy:staging` — no
    script `deploy:staging` in package.json". About a part; only where the project has such
    files and they can be read whole (see ``Project.runnable``), never where the line says
    the command went, and never by running anything."""
    if "`" not in memory.body or not project.cited_here:
        return
    seen: set[tuple[str, str]] = set()
    reasons = 0
    for runner, name, command, line in _commands(memory.body):
        if (runner, name) in seen:
            continue
        seen.add((runner, name))
        known = project.runnable(runner)
        if known is None or name in known[0] \
                or _GONE_ON_PURPOSE.search(line.replace(command, " ")):
            continue
        files = known[1]
        shown = ", ".join(files[:3]) + (", …" if len(files) > 3 else "")
        what = "script" if runner == "npm" else "target"
        add(f"runs `{command}` — no {what} `{name}` in {shown} (about a part)", "command",
            line)
        reasons += 1
        if reasons >= MAX_PART_REASONS:
            return
