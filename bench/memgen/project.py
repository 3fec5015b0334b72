"""The fake project checkout (DEST/project) and the session transcripts beside the memory root."""

from __future__ import annotations

import json
import os
import random
import uuid
from datetime import UTC, datetime
from pathlib import Path

from . import vocab_en as en
from .compose import project_path

ROOT_FILES: dict[str, str] = {
    "docker-compose.yml": "services:\n  db:\n    image: postgres:16\n",
    "package.json": '{"name": "app", "private": true}\n',
    "pyproject.toml": '[project]\nname = "app"\n',
    ".github/workflows/ci.yml": "on: [push]\njobs: {}\n",
    "README.md": "# app\n",
}


def write_project(root: Path) -> list[str]:
    """Create every path that clean memories mention; return them, relative to `root`."""
    paths = list(ROOT_FILES)
    contents = dict(ROOT_FILES)
    for prefix in en.PREFIXES:
        for suffix in en.SUFFIXES:
            rel = project_path(prefix, suffix)
            contents[rel] = f'"""The {prefix} {suffix}."""\n'
            paths.append(rel)
        rel = f"tests/test_{prefix}.py"
        contents[rel] = f'"""Tests of the {prefix} components."""\n'
        paths.append(rel)
    for rel in paths:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(contents[rel], encoding="utf-8")
    return paths


def session_ids(rng: random.Random, n: int) -> list[str]:
    return [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(n)]


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def write_transcripts(
    rng: random.Random, dest: Path, sessions: list[str], cwd: Path, now: int
) -> dict[str, int]:
    """One <uuid>.jsonl per session plus one subagent transcript; return file -> mtime."""
    mtimes: dict[str, int] = {}
    agent = f"agent-{rng.getrandbits(32):08x}"
    for sid in [*sessions, agent]:
        end = now - rng.randint(2 * 3600, 20 * 86400)
        sidechain = sid == agent
        lines, parent = [], None
        for k in range(rng.randint(4, 10)):
            msg_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            role = "user" if k % 2 == 0 else "assistant"
            comp = f"the {rng.choice(en.PREFIXES)} {rng.choice(en.SUFFIXES)}"
            text = (f"Can you look at {comp}?" if role == "user"
                    else f"I read the code of {comp} and the tests pass.")
            lines.append(json.dumps({
                "parentUuid": parent, "isSidechain": sidechain, "userType": "external",
                "cwd": str(cwd), "sessionId": sessions[0] if sidechain else sid,
                "version": "2.0.14", "gitBranch": "main", "type": role,
                "message": {"role": role, "content": text}, "uuid": msg_id,
                "timestamp": _iso(end - 60 * (10 - k)),
            }))
            parent = msg_id
        path = dest / f"{sid}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(path, (end, end))
        mtimes[path.name] = end
    return mtimes
