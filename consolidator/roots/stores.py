"""Every memory store Claude Code keeps, found and told apart.

Claude Code keeps five kinds of memory directory, each with its own ``MEMORY.md`` loaded
under the same 200-line / 25 KB limits:

- ``auto``: ``<claude>/projects/<sanitized project path>/memory/``, where ``<claude>`` is
  ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``; an ``autoMemoryDirectory`` in the user's settings
  (``<claude>/settings.json``) or a project's local settings
  (``<project>/.claude/settings.local.json``) moves it. A project's shared settings
  (``.claude/settings.json``, in its repository) are never trusted with a path: a repository
  could point it anywhere.
- ``team``: ``<auto memory>/team/``, synced to every member of the team: its own scope.
- ``agent-user``: ``<claude>/agent-memory/<agent>/``, a subagent's memory across projects.
- ``agent-project``: ``<project>/.claude/agent-memory/<agent>/`` (checked into git).
- ``agent-local``: ``<project>/.claude/agent-memory-local/<agent>/``.

Each store counts the sessions of its own project (a user-scope agent memory: of every
project) and is switched off with auto memory (``autoMemoryEnabled: false`` in the user's or
the project's settings). Projects are found from the session folders under
``<claude>/projects``: the ``cwd`` their newest transcript names.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from consolidator.roots.layout import holds_memories, newest_transcript_cwd

KINDS = ("auto", "team", "agent-user", "agent-project", "agent-local")
TEAM = "team"  # the team scope's folder inside an auto memory directory
AGENT_DIRS = {"agent-memory": "agent-project", "agent-memory-local": "agent-local"}
SETTINGS_BYTES = 1 << 20

Warn = Callable[[str, str], None]  # (level, message)


@dataclass(frozen=True)
class Store:
    """One memory directory and what kind of store it is.

    ``sessions``: the folders whose session transcripts count for its gates.
    ``project``: the project folder it belongs to, when known.
    ``off``: why Claude Code's auto memory is switched off for it (gate G1), if it is.
    """

    path: Path
    kind: str = "auto"
    sessions: tuple[Path, ...] = ()
    project: Path | None = None
    off: str | None = None


def home_of(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def claude_home(env: Mapping[str, str]) -> Path:
    """``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    named = env.get("CLAUDE_CONFIG_DIR")
    if named:
        if named == "~" or named.startswith("~/"):
            named = str(home_of(env)) + named[1:]
        return Path(named).absolute()
    return home_of(env) / ".claude"


MAX_NAME = 200  # Claude Code cuts a longer folder name and adds a hash of the path


def sanitize(path: Path | str) -> str:
    """A project path as Claude Code names its folder: every character outside
    ``[A-Za-z0-9]`` becomes ``-`` (one per UTF-16 code unit, as JavaScript counts them); a
    name longer than 200 is cut there and gets ``-`` and a hash of the path (the hash of
    Claude Code's Node.js build; :func:`project_folder` also finds the other builds')."""
    text = str(path)
    units = len(text.encode("utf-16-le")) // 2
    name = re.sub(r"[^A-Za-z0-9]", lambda m: "-" * (len(m[0].encode("utf-16-le")) // 2), text)
    assert len(name) == units
    if len(name) <= MAX_NAME:
        return name
    return f"{name[:MAX_NAME]}-{_base36(abs(_djb2(text)))}"


def _djb2(text: str) -> int:
    value = 0
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        value = (value * 31 + int.from_bytes(data[i:i + 2], "little")) & 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if not number:
            return out


PROJECT_DIR_ENV = "CLAUDE_CODE_PROJECT_DIR_NAME"  # names a project's folder (2.1.234)


def project_folder(claude: Path, project: Path, named: str | None = None) -> Path:
    """The folder under ``<claude>/projects`` that holds ``project``'s sessions: the one
    ``named`` (Claude Code's ``CLAUDE_CODE_PROJECT_DIR_NAME``, a plain folder name) when
    set, else the project path sanitized. A long path's name ends in a hash that depends on
    the Claude Code build: the one folder whose name starts with the cut name is taken then."""
    if named and named not in (".", "..") and "/" not in named and "\\" not in named:
        return claude / "projects" / named
    name = sanitize(project)
    exact = claude / "projects" / name
    if len(name) <= MAX_NAME or exact.is_dir():
        return exact
    prefix = name[:MAX_NAME] + "-"
    hits = [d for d in _dirs(claude / "projects") if d.name.startswith(prefix)]
    return hits[0] if len(hits) == 1 else exact


def read_settings(path: Path, warn: Warn | None = None) -> dict[str, Any]:
    """A Claude Code settings file as a mapping; a missing one is empty, and one that is not
    a JSON object is empty with a warning (Claude Code would not read it either)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(SETTINGS_BYTES + 1)
    except OSError:
        return {}
    try:
        if len(raw) > SETTINGS_BYTES:
            raise ValueError("larger than 1 MiB")
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        if warn is not None:
            warn("warning", f"{path}: not read ({str(exc).splitlines()[0]})")
        return {}
    return data


def memory_dir_setting(value: object, home: Path) -> Path | None:
    """An ``autoMemoryDirectory`` value as Claude Code takes it: ``~/`` expanded, absolute,
    never the home folder itself or a path too short to be a memory folder."""
    if not isinstance(value, str) or not value or "\0" in value:
        return None
    if value.startswith(("~/", "~\\")):
        rest = posixpath.normpath(value[2:] or ".")
        if rest in (".", "..") or rest.startswith("../"):
            return None
        value = str(home / rest)
    normal = posixpath.normpath(value).rstrip("/")
    if not posixpath.isabs(normal) or len(normal) < 3 or normal.startswith("//") \
            or normal == posixpath.normpath(str(home)):
        return None
    return Path(normal)


def _off(settings: Iterable[tuple[Path, Mapping[str, Any]]]) -> str | None:
    for path, data in settings:
        if data.get("autoMemoryEnabled") is False:
            return f"auto memory is off: autoMemoryEnabled is false in {path}"
    return None


def _dirs(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as entries:
            return sorted(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _is_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _store_at(path: Path) -> Path | None:
    """The folder of a store at ``path`` (a symbolic link to one is followed, as Claude Code
    follows it, and the store is known by its real path), if it holds memories: an empty
    folder Claude Code made is not a store yet."""
    real = Path(os.path.realpath(path)) if path.is_symlink() else path
    return real if _is_dir(real) and holds_memories(real) else None


def _stores_in(folder: Path) -> list[Path]:
    """The stores among ``folder``'s sub-folders (and links to folders), by name."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries
                           if e.is_dir(follow_symlinks=False) or e.is_symlink())
    except OSError:
        return []
    return [p for name in names if (p := _store_at(folder / name)) is not None]


def discover(env: Mapping[str, str], warn: Warn | None = None) -> list[Store]:
    """Every store Claude Code keeps for this user, each once, in a stable order."""
    claude = claude_home(env)
    home = home_of(env)
    user_file = claude / "settings.json"
    user = read_settings(user_file, warn)
    off_everywhere = _off([(user_file, user)])
    user_dir = memory_dir_setting(user.get("autoMemoryDirectory"), home)
    folders = _dirs(claude / "projects")
    found: list[Store] = []
    for folder in folders:
        cwd = newest_transcript_cwd(folder)
        local_file = cwd / ".claude" / "settings.local.json" if cwd else None
        shared_file = cwd / ".claude" / "settings.json" if cwd else None
        local = read_settings(local_file, warn) if local_file else {}
        shared = read_settings(shared_file, warn) if shared_file else {}
        off = off_everywhere or _off([(p, d) for p, d in ((local_file, local),
                                                           (shared_file, shared)) if p])
        auto = memory_dir_setting(local.get("autoMemoryDirectory"), home) or user_dir \
            or folder / "memory"
        for path, kind in ((auto, "auto"), (auto / TEAM, "team")):
            real = _store_at(path)
            if real is not None:
                found.append(Store(real, kind, (folder,), cwd, off))
        if cwd is None:
            continue
        for sub, kind in AGENT_DIRS.items():
            found += [Store(d, kind, (folder,), cwd, off)
                      for d in _stores_in(cwd / ".claude" / sub)]
    found += [Store(d, "agent-user", tuple(folders), None, off_everywhere)
              for d in _stores_in(claude / "agent-memory")]
    return _merged(found)


def _merged(stores: list[Store]) -> list[Store]:
    """One store per folder: an ``autoMemoryDirectory`` shared by several projects counts
    the sessions of all of them, and is off only when auto memory is off for every one of
    them (the others still write there)."""
    out: dict[str, Store] = {}
    for store in stores:
        key = os.path.realpath(store.path)
        if key in out:
            seen = out[key]
            sessions = tuple(dict.fromkeys(seen.sessions + store.sessions))
            out[key] = replace(seen, sessions=sessions,
                               project=seen.project if seen.project == store.project else None,
                               off=seen.off if seen.off and store.off else None)
        else:
            out[key] = store
    return list(out.values())


def user_off(env: Mapping[str, str]) -> str | None:
    """Why the user's own settings switch auto memory off everywhere, if they do."""
    user_file = claude_home(env) / "settings.json"
    return _off([(user_file, read_settings(user_file))])


def describe(path: Path, env: Mapping[str, str], off: str | None | bool = False) -> Store:
    """What kind of store a folder named by the user (``--memory-dir``, a configured glob)
    is, told by where it lies; a folder in no known place is taken as an auto memory
    directory whose sessions lie beside it, as Claude Code keeps them.

    ``off``: :func:`user_off`, when the caller read it already for many folders (``False``:
    read it here)."""
    claude = claude_home(env)
    if off is False:
        off = user_off(env)
    assert off is None or isinstance(off, str)
    parent = path.parent
    if parent.name in AGENT_DIRS and parent.parent.name == ".claude" \
            and parent.parent != claude and parent != claude / "agent-memory":
        project = parent.parent.parent
        settings = [parent.parent / "settings.local.json", parent.parent / "settings.json"]
        folder = project_folder(claude, project, env.get(PROJECT_DIR_ENV))
        return Store(path, AGENT_DIRS[parent.name], (folder,),
                     project, off or _off([(p, read_settings(p)) for p in settings]))
    if parent == claude / "agent-memory" or (parent.name == "agent-memory"
                                            and parent.parent == claude):
        return Store(path, "agent-user", tuple(_dirs(claude / "projects")), off=off)
    if path.name == TEAM:
        return Store(path, "team", (parent.parent,), off=off)
    return Store(path, "auto", (parent,), off=off)


def meant(path: Path, env: Mapping[str, str]) -> str | None:
    """For a folder named as a memory dir that holds no memory: the hint naming the memory
    dir the user probably meant, when ``path`` is a project folder holding ``memory/``, a
    Claude Code home or its ``projects`` folder, or any folder above stores Claude Code keeps
    (a home, a project's ``.claude``); else ``None``. A second ``MEMORY.md`` there would be
    one Claude Code never reads, and a pass over it would mix the scopes of the stores
    below."""
    claude = claude_home(env)
    real = os.path.realpath(path)
    if _is_dir(path / "memory"):
        return f"did you mean {path / 'memory'}?"
    if path.name in ("agent-memory", *AGENT_DIRS) and any(_store_at(d) for d in _dirs(path)):
        return ("it holds one memory dir per subagent: name one, like "
                f"{path / '<agent>'}, or leave out --memory-dir to consolidate every store "
                "found")
    if real in (os.path.realpath(claude), os.path.realpath(claude / "projects")) or (
            _is_dir(path / "projects") and (path / "settings.json").exists()) or any(
            _is_dir(d / "memory") for d in _dirs(path)[:50]):
        like = path / "projects" if _is_dir(path / "projects") else path
        return ("it holds Claude Code's projects, not memories: name one, like "
                f"{like / '<project>' / 'memory'}, or leave out --memory-dir to consolidate "
                "every store found")
    inside = [s.path for s in discover(env)
              if os.path.realpath(s.path).startswith(real.rstrip("/") + "/")]
    if inside:
        more = f" and {len(inside) - 1} more" if len(inside) > 1 else ""
        return (f"it holds memory dirs Claude Code keeps ({inside[0]}{more}), each its own "
                "scope: name one, or leave out --memory-dir to consolidate every store found")
    return None
