"""Files the tool creates in a root take the root's own mode: a private root stays private."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from consolidator.cli import main


def _memory(root: Path, name: str, mode: int) -> None:
    path = root / f"{name}.md"
    path.write_text(f"---\nname: {name}\ndescription: about {name}\ntype: project\n---\n"
                    f"The {name} service listens on its own port.\n")
    os.chmod(path, mode)
    old = time.time() - 3 * 86400
    os.utime(path, (old, old))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_index_in_a_private_root_is_private(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("alpha", "beta", "gamma"):
        _memory(root, name, 0o600)
    assert main(["run", "--force", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    assert _mode(root / "MEMORY.md") == 0o600


def test_topic_memories_take_the_mode_of_the_index(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    for i in range(30):
        _memory(root, f"m{i:02d}", 0o640)
    index = root / "MEMORY.md"
    index.write_text("# Index\n")
    os.chmod(index, 0o640)
    os.utime(index, (time.time() - 3 * 86400,) * 2)  # not a session's fresh edit
    config = tmp_path / "config.toml"
    config.write_text("[index]\nmax_lines = 12\n")
    assert main(["run", "--force", "--config", str(config), "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    topics = sorted(root.glob("index_*.md"))
    assert topics, "the index overflowed into a topic memory"
    assert {_mode(p) for p in topics} == {0o640}
    assert _mode(index) == 0o640
