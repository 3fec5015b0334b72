"""The hand-written hard-case corpus: well-formed labels, and the judgments a user must be
able to trust on it (no false archive, no lossy merge, nothing rewritten twice).

The precision and recall figures themselves are the benchmark's (bench/hardcases.py); the
suite holds only the lines that must never be crossed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import hardcases  # noqa: E402

SETS = sorted(p for p in hardcases.CORPUS.iterdir() if (p / "labels.json").is_file())


def labels_of(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((path / "labels.json").read_text(encoding="utf-8"))
    return data


def test_the_corpus_covers_every_kind_in_three_languages() -> None:
    names = {p.name for p in SETS}
    for kind in ("dates", "stale", "conflicts", "duplicates"):
        for language in ("en", "zh", "ja"):
            assert f"{kind}-{language}" in names
    assert any(name.startswith("secrets-") for name in names)


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_every_label_names_a_memory_of_its_set(path: Path) -> None:
    labels = labels_of(path)
    files = {p.relative_to(path / "memory").as_posix()
             for p in (path / "memory").rglob("*.md") if p.name.lower() != "memory.md"}
    assert set(labels["mtimes"]) == files, "every memory has its mtime, and only memories"
    named = set(labels.get("archive", [])) | set(labels.get("stale", []))
    named |= set(labels.get("relative", {})) | set(labels.get("secrets", []))
    for key in ("conflicts", "duplicates", "no_merge"):
        named |= {f for group in labels.get(key, []) for f in group}
    assert named <= files
    assert set(labels.get("archive", [])) <= set(labels.get("stale", []))
    for items in labels.get("relative", {}).values():
        for item in items:
            assert {"phrase", "line", "day"} <= set(item)


def test_no_false_archive_no_lossy_merge_and_nothing_rewritten_twice() -> None:
    score = hardcases.evaluate()
    assert score.tally("archive").false == []
    assert score.bad_merges == []
    assert score.second_pass == []


def test_the_plan_is_the_same_under_any_hash_seed(tmp_path: Path) -> None:
    import os
    import subprocess

    plans = []
    for seed in ("1", "2"):
        source = hardcases.CORPUS / "duplicates-en"
        root, _project = hardcases.copy_set(source, tmp_path / seed, labels_of(source))
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-m", "consolidator", "report", "--format", "json",
             "--memory-dir", str(root), "--state-dir", str(tmp_path / f"state-{seed}")],
            capture_output=True, text=True, env=env, check=True)
        found = json.loads(done.stdout)["roots"][0]
        plans.append({key: found[key] for key in ("similar", "conflicts", "duplicates",
                                                  "actions", "stale")})
    assert plans[0] == plans[1]
