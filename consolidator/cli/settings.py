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
from consolidator.roots import paths


def config(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    return show(args, env) if args.config_command == "show" else check(args, env)


def check(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    path = paths.config_path(args.config, env)
    cfg = load_config(args, env)
    if cfg.llm.backend == "anthropic" and not env.get("ANTHROPIC_API_KEY"):
        print(f"consolidator: config error in {path or 'built-in defaults'}:\n"
              "  llm.backend: \"anthropic\" needs ANTHROPIC_API_KEY in the environment (without "
              "it every run falls back to the offline backend)", file=sys.stderr)
        return EXIT_USAGE
    print(f"{path or 'built-in defaults'}: ok")
    home = str(Path(env.get("HOME") or os.path.expanduser("~")))
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


def _state_dir(args: argparse.Namespace, cfg: object, env: Mapping[str, str]) -> tuple[str, str]:
    state = paths.state_dir(args.state_dir, cfg, env)  # type: ignore[arg-type]
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
