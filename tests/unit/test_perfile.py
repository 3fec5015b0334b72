"""Per-memory detection work (consolidator.detect.perfile): every kind of evidence, in the
order given, and a stop requested while it reads."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from consolidator.detect import perfile
from consolidator.roots.project import Project
from consolidator.store.model import Memory
from consolidator.store.scan import scan

NOW = datetime(2026, 11, 30, 12, 0)
WRITTEN = datetime(2026, 2, 1, 12, 0)  # local time: "yesterday" is 2026-01-31

# Bodies cycled over the memories, so that every kind of finding lands in both halves.
BODIES: list[tuple[str, str]] = [
    ("yesterday", "We agreed on the schema yesterday.\nIt holds.\n"),
    ("tomorrow-zh", "明天 发布新版本。\n记得通知团队。\n"),
    ("deadline", "Release notes.\nMerge freeze until 2026-03-12 for the spring release.\n"),
    ("marker", "The v2 migration plan, step by step.\nStatus: DONE\n"),
    ("missing-path", "Auth lives in `src/legacy/auth.py`; the server is `src/server.ts`.\n"),
    ("secret", "Staging database.\npassword: correct horse battery staple\n"),
    ("aws", "CI uploads with AKIAIOSFODNN7EXAMPLE to the bucket.\n"),
    ("plain", "- Integration tests must hit a real Postgres database.\n- Never mock it.\n"),
    ("no-longer", "We no longer use Redis for sessions; see src/cache/redis.py.\n"),
    ("mixed", "Yesterday the pool in src/db/pool.ts was fixed; 昨天 也修了 src/gone/x.py。\n"),
]
# A last line of its own for each memory, so that memories with one body are not duplicates.
TOPICS = ("apricot", "bison", "cobalt", "dune", "ember", "fjord", "granite", "harbor", "iris",
          "juniper", "kelp", "lantern", "meadow", "nebula", "orchard", "pebble", "quartz",
          "reef", "saffron", "tundra", "umber", "violet")


def _write_memory(root: Path, rel: str, body: str, *, name: str, description: str,
                  order: int) -> None:
    """The ``order``-th memory saved, two minutes after the one before it (from WRITTEN, the
    same day): saved one by one, as Claude Code saves them, not copied at one go."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n{body}",
        encoding="utf-8",
    )
    stamp = WRITTEN.timestamp() + 120 * order
    os.utime(path, (stamp, stamp))


def build_root(tmp_path: Path, count: int = 20) -> tuple[Path, Path]:
    """A memory folder of ``count`` memories (a few in a sub-folder) and a project folder."""
    project = tmp_path / "project"
    (project / "src" / "db").mkdir(parents=True)
    (project / "src" / "legacy").mkdir()  # the folder of the file cited as gone
    (project / "src" / "server.ts").write_text("// server\n")
    (project / "src" / "db" / "pool.ts").write_text("// pool\n")
    root = tmp_path / "memory"
    root.mkdir()
    for i in range(count):
        kind, body = BODIES[i % len(BODIES)]
        folder = "sub/" if i % 7 == 6 else ""
        description = f"memory {i} ({kind})"
        if i == 11:
            description += "; api_key: sk-proj-abcdefghijklmnopqrstuvwx"  # a secret in the head
        body += f"Filed under {TOPICS[i]} alone.\n"
        _write_memory(root, f"{folder}m{i:02}_{kind}.md", body, name=f"m{i:02}",
                      description=description, order=i)
    # A path named by the last memory only: the helper alone looks it up.
    _write_memory(root, "zz_last.md", "Only here: `src/only/last.py`.\n", name="zz-last",
                  description="the last memory", order=count)
    return root, project


def memories_of(root: Path) -> tuple[Memory, ...]:
    snapshot = scan(root)
    assert not snapshot.unparsed
    return snapshot.memories


def serial(memories: tuple[Memory, ...], project: Path | None
           ) -> tuple[dict[str, perfile.Findings], Project | None]:
    paths = Project(project) if project is not None else None
    return perfile.study_all(memories, NOW, paths), paths


# --- what it finds ------------------------------------------------------------------------


def test_the_study_finds_every_kind_of_evidence_in_the_order_given(tmp_path: Path) -> None:
    root, project = build_root(tmp_path)
    memories = memories_of(root)
    found, paths = serial(memories, project)
    assert list(found) == [m.file for m in memories]
    assert found["m00_yesterday.md"].relative[0].resolved == "2026-01-31"
    assert found["m01_tomorrow-zh.md"].relative[0].phrase == "明天"
    assert found["m01_tomorrow-zh.md"].relative[0].resolved == "2026-02-02"
    deadline = found["m02_deadline.md"].stale
    assert deadline is not None and deadline.kinds == ("deadline",) and deadline.archivable
    marker = found["m03_marker.md"].stale
    assert marker is not None and marker.kinds == ("marker",)
    missing = found["m04_missing-path.md"].stale
    assert missing is not None
    assert missing.reasons == ("cites `src/legacy/auth.py` — not in the project (about a part)",)
    assert found["m05_secret.md"].secrets == ("password",)
    assert found["sub/m06_aws.md"].secrets == found["m16_aws.md"].secrets == ("AWS access key",)
    assert "OpenAI key" in found["m11_tomorrow-zh.md"].secrets
    assert found["m07_plain.md"].stale is None and found["m07_plain.md"].relative == ()
    assert len(found["m07_plain.md"].lines) == 3
    assert paths is not None
    assert paths.looked_up["src/only/last.py"] == "gone"
    assert paths.looked_up["src/server.ts"] == "there"


class _Stop(BaseException):
    """Stands for stop.Stopped: a BaseException, which no fallback may swallow."""


def _stop_after(calls: int) -> Any:
    seen: list[int] = []

    def check() -> None:
        seen.append(1)
        if len(seen) > calls:
            raise _Stop

    return check


def test_a_stop_requested_during_a_serial_study_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, project = build_root(tmp_path)
    monkeypatch.setattr(perfile, "CHECK_EVERY", 2)
    with pytest.raises(_Stop):
        perfile.study_all(memories_of(root), NOW, Project(project), _stop_after(3))



def test_an_empty_root_has_no_findings() -> None:
    assert perfile.study_all((), NOW, None) == {}


@pytest.mark.parametrize(("rel", "judged"), [
    ("archive/sessions/2026-06-12-review.md", False),
    ("_archived/old-plan.md", False),
    ("notes/2026-06-12-review.md", True),
    ("2026-06-12-review.md", True),
])
def test_a_note_in_a_folder_of_old_notes_is_not_judged_stale_again(
    tmp_path: Path, rel: str, judged: bool
) -> None:
    """"status: archived" on a note its owner keeps in `archive/` says where it is: moving
    it out again would change nothing a session loads. The same note anywhere else is
    retired by it."""
    root = tmp_path / "memory"
    path = root / rel
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: review\ndescription: a session's digest\ntype: project\n"
                    "status: archived\n---\nWhat the session changed.\n", encoding="utf-8")
    stamp = WRITTEN.timestamp()
    os.utime(path, (stamp, stamp))
    found = perfile.study_all(scan(root).memories, NOW, None)[rel]
    assert (found.stale is not None) is judged
