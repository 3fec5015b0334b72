"""Where config, state, roots, transcripts and the project root are found."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from consolidator.config import Config
from consolidator.errors import UsageError

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
    """The state directory (journal, archive, throttle times, history)."""
    if cli_value:
        return Path(cli_value).expanduser().absolute()
    if env.get("CONSOLIDATOR_STATE_DIR"):
        return Path(env["CONSOLIDATOR_STATE_DIR"]).expanduser().absolute()
    if cfg.state.dir:
        return Path(cfg.state.dir).expanduser().absolute()
    if env.get("STATE_DIRECTORY"):
        # systemd may pass several, colon-separated; the first is ours.
        return Path(env["STATE_DIRECTORY"].split(":")[0]).absolute()
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / APP
    return _home(env) / ".local" / "state" / APP


def root_key(root: Path) -> str:
    """A folder name for one root's state: readable, and unique per absolute path."""
    text = str(root)
    readable = re.sub(r"[^A-Za-z0-9]", "-", text).strip("-")[-80:]
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{readable}-{digest}"


def roots(cli_dirs: list[str] | None, cfg: Config, env: Mapping[str, str]) -> list[Path]:
    """The memory roots: ``--memory-dir`` values, else the configured globs expanded.

    A ``--memory-dir`` that does not exist or is not a folder is a :class:`UsageError`;
    a configured glob that matches nothing gives no root.
    """
    if cli_dirs:
        found: list[Path] = []
        for raw in cli_dirs:
            path = Path(raw).expanduser()
            if not path.exists():
                raise UsageError(f"--memory-dir {raw}: no such directory")
            if not path.is_dir():
                raise UsageError(f"--memory-dir {raw}: not a directory")
            found.append(path.absolute())
        return _unique(found)
    matches: list[Path] = []
    home = str(_home(env))
    for pattern in cfg.memory.roots:
        expanded = home + pattern[1:] if pattern.startswith("~") else pattern
        for hit in sorted(glob.glob(expanded)):
            if os.path.isdir(hit):
                matches.append(Path(hit).absolute())
    return _unique(matches)


def _unique(paths: list[Path]) -> list[Path]:
    seen: set[Path] = set()
    out = []
    for p in paths:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


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


_SESSION_RE = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$", re.IGNORECASE
)


def is_session_transcript(name: str) -> bool:
    """True for a UUID-named ``*.jsonl`` (subagent ``agent-*.jsonl`` files are not sessions)."""
    return len(name) == 42 and name.endswith(".jsonl") and bool(_SESSION_RE.match(name))


def newest_transcript_cwd(transcripts: Path, max_bytes: int = 256 * 1024) -> Path | None:
    """The ``cwd`` named in the newest session transcript (reads at most its first lines)."""
    try:
        entries = [
            e for e in os.scandir(transcripts) if is_session_transcript(e.name) and e.is_file()
        ]
    except OSError:
        return None
    for entry in sorted(entries, key=lambda e: e.stat().st_mtime_ns, reverse=True)[:5]:
        try:
            with open(entry.path, "rb") as fh:
                head = fh.read(max_bytes)
        except OSError:
            continue
        for line in head.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("cwd"), str) and record["cwd"]:
                return Path(record["cwd"])
    return None
