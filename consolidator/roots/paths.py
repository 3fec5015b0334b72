"""Where config, state, roots, transcripts and the project root are found."""

from __future__ import annotations

import dataclasses
import glob
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consolidator.config import Config
from consolidator.errors import UsageError
from consolidator.roots import stores
from consolidator.roots.layout import holds_memories, newest_transcript_cwd
from consolidator.roots.stores import Store
from consolidator.store.scan import find_index, listing

APP = "dream-consolidator"


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def config_path(cli_value: str | None, env: Mapping[str, str]) -> Path | None:
    """The config file to load, or ``None`` for the built-in defaults.

    ``--config`` > ``$CONSOLIDATOR_CONFIG`` > the user's config file if it exists.
    """
    if cli_value:
        return Path(cli_value).expanduser()
    if env.get("CONSOLIDATOR_CONFIG"):
        return Path(env["CONSOLIDATOR_CONFIG"]).expanduser()
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else _home(env) / ".config"
    candidate = base / APP / "config.toml"
    return candidate if candidate.is_file() else None


def state_dir(cli_value: str | None, cfg: Config, env: Mapping[str, str]) -> Path:
    """The state directory (journal, archive, throttle times, history).

    ``--state-dir`` > ``$CONSOLIDATOR_STATE_DIR`` > ``[state] dir`` > ``$STATE_DIRECTORY``
    (systemd) > ``$XDG_STATE_HOME/dream-consolidator`` > ``~/.local/state/dream-consolidator``.

    ``$STATE_DIRECTORY`` is passed over when it is the config's folder or lies inside it
    (``$XDG_CONFIG_HOME/dream-consolidator``, ``~/.config/dream-consolidator``): systemd
    before 254 gives a user unit's ``StateDirectory=`` under ``$XDG_CONFIG_HOME``, and the
    state (copies of memories, journals) must never share the config's folder. The XDG
    state dir is used instead. (systemd 254 and later may make that very folder a link to
    the config's folder, when it is missing and the config's exists; it is still used:
    deploy/README.md says to create it first, and how to undo such a link.)
    """
    if cli_value:
        return Path(cli_value).expanduser().absolute()
    if env.get("CONSOLIDATOR_STATE_DIR"):
        return Path(env["CONSOLIDATOR_STATE_DIR"]).expanduser().absolute()
    if cfg.state.dir:
        return Path(cfg.state.dir).expanduser().absolute()
    home = _home(env)
    # systemd may pass several, colon-separated; the first is ours.
    systemd = env.get("STATE_DIRECTORY", "").split(":")[0]
    if systemd:
        given = Path(systemd).absolute()
        config_homes = [home / ".config"]
        if env.get("XDG_CONFIG_HOME"):
            config_homes.insert(0, Path(env["XDG_CONFIG_HOME"]).absolute())
        if not any(is_within(given, base / APP) for base in config_homes):
            return given
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / APP
    return home / ".local" / "state" / APP


Warn = Callable[[str, str], None]  # (level, message): "warning" or "info"

_MAGIC = re.compile(r"[*?[]")


def is_glob(pattern: str) -> bool:
    """Whether a ``[memory] roots`` entry is a pattern (else a plain path)."""
    return _MAGIC.search(pattern) is not None


def roots(
    cli_dirs: list[str] | None, cfg: Config, env: Mapping[str, str], warn: Warn | None = None,
    *, checked: bool = True,
) -> list[Store]:
    """The memory roots, each with its kind: ``--memory-dir`` values, else the configured
    globs expanded, else every store Claude Code keeps (:func:`stores.discover`).

    A ``--memory-dir`` that does not exist or is not a folder is a :class:`UsageError`, and
    so is one that holds no memory file but is a place a user names by mistake (a project
    folder holding ``memory/``, a Claude Code home): the error names the folder meant.
    Another that holds no memory-shaped file (see :func:`holds_memories`) is used, as asked,
    with a warning. A configured glob that matches nothing gives no root, and neither does a
    match that holds no memory-shaped file (a home folder, a blog, a project's docs): the
    tool would otherwise write a ``MEMORY.md`` there. The same folder reached twice (a
    symlinked alias) is one root.

    ``checked=False`` (a running service, after its start checked them): a ``--memory-dir``
    that went away stays a root, for gate G2 to say so, rather than failing the pass.
    """
    if cli_dirs:
        found: list[Path] = []
        for raw in cli_dirs:
            path = Path(raw).expanduser()
            if not checked:
                found.append(path.absolute())
                continue
            if not path.exists():
                raise UsageError(f"--memory-dir {raw}: no such directory")
            if not path.is_dir():
                raise UsageError(f"--memory-dir {raw}: not a directory")
            if not holds_memories(path):
                hint = stores.meant(path, env)
                if hint is not None:
                    raise UsageError(f"--memory-dir {raw}: not a memory directory; {hint}")
                if warn is not None:
                    warn("warning", f"--memory-dir {raw}: holds no memory file (no MEMORY.md, "
                         "no top-level .md with name/description/type frontmatter); used as "
                         "asked")
            found.append(path.absolute())
        # A store Claude Code keeps is known best as discovery finds it (its sessions, its
        # project's settings); any other folder by where it lies.
        known = {os.path.realpath(s.path): s for s in stores.discover(env)} \
            if not cfg.memory.roots else {}
        off = stores.user_off(env)  # the user's settings, read once for every folder
        return [dataclasses.replace(known[at], path=p)
                if (at := os.path.realpath(p)) in known else stores.describe(p, env, off)
                for p in _unique(found)]
    if not cfg.memory.roots:
        return stores.discover(env, warn)
    matches: list[Path] = []
    home = str(_home(env))
    for pattern in cfg.memory.roots:
        expanded = home + pattern[1:] if pattern.startswith("~") else pattern
        for hit in sorted(glob.glob(expanded)):
            if not os.path.isdir(hit):
                continue
            if not holds_memories(Path(hit)):
                if warn is not None:
                    level = "info" if is_glob(pattern) else "warning"
                    warn(level, f"{hit}: not a memory directory (no MEMORY.md, no top-level .md "
                         "with name/description/type frontmatter), skipped; name it with "
                         "--memory-dir to use it anyway")
                continue
            matches.append(Path(hit).absolute())
    off = stores.user_off(env)  # the user's settings, read once for every folder
    return [stores.describe(p, env, off) for p in _unique(matches)]


def _unique(paths: list[Path]) -> list[Path]:
    """Each folder once, under the first name it was given (aliases compared by identity)."""
    seen: set[object] = set()
    out = []
    for p in paths:
        ident = _identity(p) or p
        if ident not in seen and p not in seen:
            seen.add(ident)
            seen.add(p)
            out.append(p)
    return out


def _identity(path: str | Path) -> tuple[int, int] | None:
    """``(device, inode)`` of what ``path`` names (links followed), or ``None``."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def real(path: Path) -> Path:
    """``path`` with every symlink and ``..`` resolved, as far as it exists."""
    return Path(os.path.realpath(path))


def is_within(path: Path, folder: Path, known: dict[tuple[str, str], Any] | None = None) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it, however either is spelled: real
    paths are compared, and so is each existing ancestor's device and inode (a bind mount
    or a hard-linked folder is the same folder).

    ``known``: what was looked up already, shared by calls that ask about many paths (the
    roots of one pass share most of their ancestors)."""
    known = {} if known is None else known

    def look(kind: str, name: str, find: Callable[[str], Any]) -> Any:
        key = (kind, name)
        if key not in known:
            known[key] = find(name)
        return known[key]

    target = look("real", os.fspath(folder), os.path.realpath)
    ident = look("id", os.fspath(folder), _identity)
    step = look("real", os.fspath(path), os.path.realpath)
    while True:
        if step == target:
            return True
        if ident is not None and look("id", step, _identity) == ident:
            return True
        parent = os.path.dirname(step)
        if parent == step:
            return False
        step = parent


def check_state_dir(state: Path, found: list[Path]) -> None:
    """Refuse a state dir inside a root (its archive would be read as memories and archived
    again) and a root inside the state dir (:class:`UsageError`, exit 2)."""
    known: dict[tuple[str, str], Any] = {}
    for root in found:
        if is_within(state, root, known):
            raise UsageError(f"state dir {state} is inside the memory dir {root}; "
                             "choose a state dir outside every memory dir")
        if is_within(root, state, known):
            raise UsageError(f"memory dir {root} is inside the state dir {state}; "
                             "a memory dir cannot live in the tool's own state")


def check_output(output: str, found: list[Path]) -> None:
    """Refuse an output file inside any root, or that is any root's memory or index file
    under another name (a symlink or hard link to it): :class:`UsageError`, exit 2."""
    path = Path(output).expanduser()
    for root in found:
        if is_within(path, root):
            raise UsageError(f"--output {output}: inside the memory dir {root}; "
                             "write the report outside every memory dir")
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return
    if st.st_nlink < 2:
        return  # a symlink to a memory file was caught above; only a hard link is left
    ident = (st.st_dev, st.st_ino)

    for root in found:
        names = [rel for rel, _problem, _st in listing(root)]
        index = find_index(root)
        if index is not None:
            names.append(index)
        if any(_identity(root / rel) == ident for rel in names):
            raise UsageError(f"--output {output}: is a file of the memory dir {root}")


def transcripts_dir(cli_value: str | None, cfg: Config, root: Path) -> Path:
    """Where the root's session transcripts lie: flag > config > the root's parent."""
    if cli_value:
        return Path(cli_value).expanduser().absolute()
    if cfg.memory.transcripts_dir:
        return Path(cfg.memory.transcripts_dir).expanduser().absolute()
    return root.parent


@dataclass(frozen=True)
class ProjectRoot:
    path: Path | None
    source: str  # "flag", "config", "transcript" or why there is none


def project_root(cli_value: str | None, cfg: Config, transcripts: Path) -> ProjectRoot:
    """The project folder that memories' paths are checked against, if one is known."""
    if cli_value:
        return ProjectRoot(Path(cli_value).expanduser().absolute(), "flag")
    if cfg.memory.project_root:
        return ProjectRoot(Path(cfg.memory.project_root).expanduser().absolute(), "config")
    cwd = newest_transcript_cwd(transcripts)
    if cwd is None:
        return ProjectRoot(None, "no project root: no transcript names a cwd")
    if not cwd.is_dir():
        return ProjectRoot(None, f"no project root: transcript cwd {cwd} does not exist")
    return ProjectRoot(cwd, "transcript")


