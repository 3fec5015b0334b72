"""``config check`` (the config, every problem with its key path, then the roots it finds)
and ``config show`` (the effective config, each value with where it came from)."""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path

from consolidator.cli.codes import EXIT_OK, EXIT_USAGE
from consolidator.cli.common import load_config, warner
from consolidator.config import Config
from consolidator.errors import ConfigError
from consolidator.roots import paths


def config(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    return show(args, env) if args.config_command == "show" else check(args, env)


_NO_KEY = ("llm.backend: \"anthropic\" needs ANTHROPIC_API_KEY in the environment (without "
           "it every run falls back to the offline backend)")


def check(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    path = paths.config_path(args.config, env)
    keyless = not env.get("ANTHROPIC_API_KEY")
    try:
        cfg = load_config(args, env)
    except ConfigError as exc:  # every problem at once: the missing key too
        if keyless and _backend_named(path) == "anthropic":
            exc.problems.append(_NO_KEY)
        raise
    home = str(Path(env.get("HOME") or os.path.expanduser("~")))
    problems = [_NO_KEY] if cfg.llm.backend == "anthropic" and keyless else []
    problems += missing_folders(args, cfg, env, home)
    if problems:  # each names its key: the config's, or the flag or variable that set it
        sources = sorted({"the command line" if p.startswith("--") else "the environment"
                          if p.startswith("$") else str(path or "built-in defaults")
                          for p in problems})
        print(f"consolidator: config error in {' and '.join(sources)}:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{path or 'built-in defaults'}: ok")
    for pattern in () if args.memory_dir else cfg.memory.roots:
        expanded = home + pattern[1:] if pattern.startswith("~") else pattern
        if not glob.glob(expanded):
            print(f"warning: memory.roots pattern {pattern!r} matches nothing")
    found = paths.roots(args.memory_dir, cfg, env, warner())
    where = "configured" if cfg.memory.roots and not args.memory_dir else "found"
    print(f"{len(found)} memory dir(s) {where}:" if found else
          "no memory dir found (Claude Code keeps none yet, or memory.roots matches none)")
    for store in found:
        print(f"  {store.path} ({store.kind})" + (f": {store.off}" if store.off else ""))
    return EXIT_OK


def _backend_named(path: Path | None) -> object:
    """The ``[llm] backend`` a config file names as written, when it can be read as TOML."""
    try:
        given = tomllib.loads(path.read_text(encoding="utf-8")) if path else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    llm = given.get("llm")
    return llm.get("backend") if isinstance(llm, dict) else None


def missing_folders(args: argparse.Namespace, cfg: Config, env: Mapping[str, str],
                    home: str) -> list[str]:
    """Every folder the config (or the command line) names that a pass would need and does
    not find, each with its key path: a memory dir given as a plain path (a glob that
    matches nothing is no root, only a warning), the transcripts and project folders, the
    state dir chosen by hand, and the metrics textfile's folder. Systemd's sandbox cannot
    create them, so a run under it would fail or skip every tick."""
    def expand(value: str) -> Path:
        return Path(home + value[1:] if value.startswith("~") else value)

    problems = []
    for i, pattern in enumerate(() if args.memory_dir else cfg.memory.roots):
        if not paths.is_glob(pattern):
            problems += _folder(f"memory.roots[{i}]", expand(pattern))
    for key in ("transcripts_dir", "project_root"):
        value = getattr(cfg.memory, key)
        if value and not (key == "transcripts_dir" and args.transcripts_dir) \
                and not (key == "project_root" and args.project_root):
            problems += _folder(f"memory.{key}", expand(value))
    state, origin = _state_dir(args, cfg, env)
    if origin in ("--state-dir", "$CONSOLIDATOR_STATE_DIR", "[state] dir"):
        key = "state.dir" if origin == "[state] dir" else origin
        problems += _folder(key, Path(state), writable=True,
                            hint=f" (create it: mkdir -p -m 700 {state})")
    if cfg.metrics.textfile:
        textfile = expand(cfg.metrics.textfile)
        if textfile.is_dir():
            problems.append(f"metrics.textfile: {textfile} is a folder, not a file")
        else:
            problems += _folder("metrics.textfile", textfile.parent, writable=True,
                                what="the textfile's folder ")
    return problems


def _folder(key: str, folder: Path, *, writable: bool = False, what: str = "",
            hint: str = "") -> list[str]:
    """The problem with ``folder`` (it does not exist, is no folder, cannot be written), or
    none."""
    if not folder.exists():
        return [f"{key}: {what}{folder} does not exist{hint}"]
    if not folder.is_dir():
        return [f"{key}: {what}{folder} is not a folder"]
    if writable and not os.access(folder, os.W_OK | os.X_OK):
        return [f"{key}: {what}{folder} is not writable"]
    return []


def show(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Every key of the effective config as TOML, each with where its value came from: the
    config file, or the built-in default; then the state dir and how it was chosen."""


    path = paths.config_path(args.config, env)
    cfg = load_config(args, env)
    given: dict[str, object] = {}
    if path is not None:
        given = tomllib.loads(path.read_text(encoding="utf-8"))
    print(f"# config: {path or 'none (built-in defaults)'}"
          + (f" ({_config_source(args, env)})" if path else ""))
    for section in dataclasses.fields(cfg):
        if section.name == "source":
            continue
        print(f"\n[{section.name}]")
        values = getattr(cfg, section.name)
        set_here = given.get(section.name, {})
        for key in dataclasses.fields(values):
            value = getattr(values, key.name)
            origin = "config file" if isinstance(set_here, dict) and key.name in set_here \
                else "default"
            text = json.dumps(list(value) if isinstance(value, tuple) else value,
                              ensure_ascii=False)
            line = f"{key.name} = {text}" if value is not None else f"# {key.name} = (unset)"
            print(f"{line:<52} # {origin}")
    state, origin = _state_dir(args, cfg, env)
    print(f"\n# state dir: {state} ({origin})")
    return EXIT_OK


def _config_source(args: argparse.Namespace, env: Mapping[str, str]) -> str:
    if args.config:
        return "--config"
    if env.get("CONSOLIDATOR_CONFIG"):
        return "$CONSOLIDATOR_CONFIG"
    return "the user's config file"


def _state_dir(args: argparse.Namespace, cfg: Config, env: Mapping[str, str]) -> tuple[str, str]:
    state = paths.state_dir(args.state_dir, cfg, env)
    for origin, given in (("--state-dir", args.state_dir),
                          ("$CONSOLIDATOR_STATE_DIR", env.get("CONSOLIDATOR_STATE_DIR")),
                          ("[state] dir", getattr(getattr(cfg, "state"), "dir")),
                          ("$STATE_DIRECTORY (systemd)", env.get("STATE_DIRECTORY")),
                          ("$XDG_STATE_HOME", env.get("XDG_STATE_HOME"))):
        if given:
            if origin.startswith("$STATE_DIRECTORY") and str(state) != given.split(":")[0]:
                return str(state), ("the XDG state dir: $STATE_DIRECTORY is the config's "
                                    "folder")
            return str(state), origin
    return str(state), "default"
