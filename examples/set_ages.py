"""Give the example files the ages of their story (a git checkout makes every file new).

Run from anywhere: ``python examples/set_ages.py``. It only changes modification times.
Ages are days before now; the transcripts are recent sessions, the memories older.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DAY_NS = 86400 * 10**9

MEMORY_AGES = {
    "user_role.md": 60,
    "user_tooling.md": 45,
    "feedback_no_mocks.md": 40,
    "feedback_real_db_tests.md": 12,
    "feedback_pnpm.md": 30,
    "feedback_commit_messages_zh.md": 9,
    "feedback_small_prs.md": 20,
    "feedback_error_handling.md": 25,
    "feedback_money_as_cents.md": 50,
    "project_deploy.md": 14,
    "project_deploy_notes.md": 35,
    "project_db_port.md": 38,
    "project_auth_module.md": 120,
    "project_release_freeze.md": 270,
    "project_migration_v2.md": 90,
    "project_demo.md": 6,
    "project_checkout_flow.md": 16,
    "reference_database.md": 8,
    "reference_ci_dashboard.md": 22,
    "reference_grafana.md": 33,
    "notes/2026-11-02-daily-log.md": 28,
    "MEMORY.md": 5,
}


def stamp_ns(days: int, now_ns: int) -> int:
    """The mtime (in nanoseconds) of a file ``days`` old at ``now_ns``, an hour past the day."""
    return now_ns - days * DAY_NS - 3600 * 10**9


def set_memory_ages(memory: Path, now_ns: int) -> None:
    """Give each file of ``memory`` its age at ``now_ns`` (tests pass one instant to two
    copies, so both get the very same mtimes)."""
    for rel, days in MEMORY_AGES.items():
        path = memory / rel
        if path.exists():
            stamp = stamp_ns(days, now_ns)
            os.utime(path, ns=(stamp, stamp))


def main() -> None:
    now_ns = time.time_ns()
    set_memory_ages(HERE / "memory", now_ns)
    sessions = sorted(p for p in HERE.glob("*.jsonl") if not p.name.startswith("agent-"))
    for i, path in enumerate(sessions):
        stamp = now_ns - (i + 1) * 3600 * 7 * 10**9
        os.utime(path, ns=(stamp, stamp))
    print(f"set the ages of the {len(MEMORY_AGES)} files in memory/ (memories, the index and "
          f"a note without frontmatter) and of {len(sessions)} session transcripts")


if __name__ == "__main__":
    main()
