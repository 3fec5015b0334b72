"""``config check``: the config, every problem with its key path, then the roots it finds."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path

from consolidator.cli.codes import EXIT_OK
from consolidator.cli.common import load_config, warner


def check(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    import glob

    from consolidator import paths

    path = paths.config_path(args.config, env)
    cfg = load_config(args, env)
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
