"""Shared fixtures. Every test runs with HOME and XDG folders inside its tmp_path, so nothing
can reach the user's real config, state or Claude Code directories."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import freezegun
import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

# The tool reads days in this machine's time zone; the days these tests expect are days in
# UTC, so the suite (and every process it starts) runs in UTC wherever it runs.
os.environ["TZ"] = "UTC"
time.tzset()
# A frozen clock is the tests' clock, never pytest's own: `pytest --durations` and the
# timings in the summary keep measuring real time.
freezegun.configure(extend_ignore_list=["_pytest"])
# Hypothesis keeps no example database, and its cache lives in the system's temporary
# folder: a run writes nothing into the checkout.
settings.register_profile("no-database", database=None)
settings.load_profile("no-database")
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "consolidator-tests-hypothesis")

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SESSION_IDS = [
    "3f2b9c1e-8a4d-4e6f-9b1a-2c7d5e8f0a13",
    "5b0c3e1a-7d42-4f8b-a6c9-1e2f3d4c5b6a",
    "72ad4c0f-b8e1-4f39-a6d7-5c2e9b1f08d3",
    "9d7e6f5a-4b3c-4d2e-8f1a-0b9c8d7e6f54",
    "c41a8e27-6f3b-4d95-b0e2-7a5c9d183f6e",
    "e8f21b9d-3c6a-4a7e-9d52-61b0f4e8c2a7",
]


@pytest.fixture(autouse=True)
def keep_signal_handlers() -> Iterator[None]:
    """Whatever a test runs in-process, pytest gets its own SIGTERM/SIGINT handlers back."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


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


HOLD_FLOCK = (
    "import sys, filelock\n"
    "lock = filelock.FileLock(sys.argv[1])\n"
    "lock.acquire()\n"
    "print('held', flush=True)\n"
    "sys.stdin.readline()\n"
    "lock.release()\n"
)


@contextmanager
def flock_held_elsewhere(root: Path, state_dir: Path) -> Iterator[subprocess.Popen[str]]:
    """A second process holding ``filelock`` on ``root``'s lock file (``root.flock`` in its
    folder of ``state_dir``) until the block ends (another consolidator run in progress)."""
    from consolidator.state import statedir

    folder = statedir.root_state(state_dir, root)
    folder.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_FLOCK, str(folder / "root.flock")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)


@pytest.fixture
def messages_api() -> Iterator[Any]:
    """A running stand-in Messages API on 127.0.0.1 (see tests/llm_server.py); stopped
    after the test."""
    from tests.llm_server import MessagesAPI

    with MessagesAPI() as api:
        yield api


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty memory folder, ``<tmp>/memory``."""
    folder = tmp_path / "memory"
    folder.mkdir()
    return folder


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


def write_sessions(project: Path, count: int) -> None:
    """``count`` session transcripts in ``project``'s transcripts folder, an hour old, each
    naming ``project`` as its working folder."""
    hour_ago = time.time() - 3600
    for sid in SESSION_IDS[:count]:
        path = project / f"{sid}.jsonl"
        path.write_text(json.dumps({"type": "user", "cwd": str(project)}) + "\n")
        os.utime(path, (hour_ago, hour_ago))


def gate_results(closed: str | None = None) -> tuple[Any, ...]:
    """All seven gates as a report holds them, passed; ``closed``: the id of the one that
    failed (those after it are not evaluated)."""
    from consolidator.gates import GATE_NAMES, GateResult

    out = []
    for gate_id, name in GATE_NAMES:
        if closed is None:
            out.append(GateResult(gate_id, name, True, "ok"))
        elif gate_id == closed:
            out.append(GateResult(gate_id, name, False, f"{name} says no"))
        else:
            out.append(GateResult(gate_id, name, None, "not evaluated"))
    return tuple(out)


def make_unwritable(folder: Path) -> None:
    """Take away the right to write in ``folder``, as a sandbox's read-only mount does: its
    mode for a user; the immutable attribute for root, whom modes do not stop (skips the
    test where neither works)."""
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):
        chattr = shutil.which("chattr")
        done = chattr and subprocess.run([chattr, "+i", str(folder)], capture_output=True,
                                         check=False).returncode == 0
        if not done or os.access(folder, os.W_OK):
            make_writable(folder)
            pytest.skip("cannot make a folder unwritable here (root without chattr +i)")


def make_writable(folder: Path) -> None:
    """Undo :func:`make_unwritable`."""
    chattr = shutil.which("chattr")
    if chattr and os.geteuid() == 0:
        subprocess.run([chattr, "-i", str(folder)], capture_output=True, check=False)
    folder.chmod(0o755)


@pytest.fixture
def unwritable() -> Iterator[Any]:
    """:func:`make_unwritable`, with every folder made writable again at the end (tmp_path
    must be removable)."""
    made: list[Path] = []

    def make(folder: Path) -> None:
        made.append(folder)
        make_unwritable(folder)

    yield make
    for folder in made:
        if folder.exists():
            make_writable(folder)
