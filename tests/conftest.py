"""Shared fixtures. Every test runs with HOME and XDG folders inside its tmp_path, so nothing
can reach the user's real config, state or Claude Code directories."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    for name in (
        "CONSOLIDATOR_CONFIG", "CONSOLIDATOR_STATE_DIR", "STATE_DIRECTORY",
        "CONSOLIDATOR_DISABLE", "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
        "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def example_copy(tmp_path: Path) -> Path:
    """A private copy of examples/ (memory dir, transcripts, project); returns the memory dir."""
    dest = tmp_path / "examples"
    shutil.copytree(EXAMPLES, dest, symlinks=True)
    age_tree(dest, days=10)
    return dest / "memory"


def age_tree(root: Path, days: float) -> None:
    """Set every file's mtime under ``root`` to ``days`` ago (a checkout makes them all new)."""
    import time

    stamp = time.time() - days * 86400
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            os.utime(Path(dirpath) / name, (stamp, stamp))


def snapshot_tree(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under ``root``: bytes, mtime_ns and mode, for before/after comparisons."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            st = path.lstat()
            out[str(path.relative_to(root))] = (path.read_bytes(), st.st_mtime_ns, st.st_mode)
    return out
