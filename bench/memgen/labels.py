"""The ground truth written to DEST/labels.json. File names are relative to DEST/memory."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1


def iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Labels:
    seed: int
    count: int
    now: str
    memory_dir: str = "memory"
    project_root: str = "project"
    schema_version: int = SCHEMA_VERSION
    sessions: dict[str, str] = field(default_factory=dict)  # transcript file -> mtime
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    duplicates: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    stale: dict[str, dict[str, str]] = field(default_factory=dict)
    old_valid: list[str] = field(default_factory=list)
    relative_dates: dict[str, list[str]] = field(default_factory=dict)
    malformed: dict[str, str] = field(default_factory=dict)
    index: dict[str, Any] = field(default_factory=lambda: {
        "file": "MEMORY.md", "pointers": 0, "dangling": [], "missing": []})
    variants: dict[str, Any] = field(default_factory=lambda: {
        "nested_type": 0, "extra_keys": 0, "name_differs": [], "subfolder": [],
        "crlf": [], "bom": []})
    stats: dict[str, Any] = field(default_factory=dict)

    def add_file(self, rel: str, mtime: int, mtype: str | None, lang: str, size: int) -> None:
        self.files[rel] = {"mtime": iso(mtime), "type": mtype, "lang": lang, "bytes": size}

    def mtime_of(self, rel: str) -> str:
        return str(self.files[rel]["mtime"])

    def write(self, path: Path) -> None:
        with path.open("w", encoding="utf-8") as fh:
            json.dump(asdict(self), fh, ensure_ascii=False, indent=1)
            fh.write("\n")

    @classmethod
    def read(cls, path: Path) -> Labels:
        with path.open(encoding="utf-8") as fh:
            return cls(**json.load(fh))
