"""A memory that says it replaces another: the other is reported as superseded, with the
sentence, and never archived. Each class of sentence has its twin that says no such thing, in
several languages and word orders."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from consolidator.cli import main
from consolidator.detect.stale.replaced import find_replaced
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory

DAY = 86400


def mem(file: str, body: str, *, days: float = 1, description: str = "a note",
        modified: str = "") -> Memory:
    """A memory written ``days`` ago (by its mtime; ``modified``: Claude Code's stamp)."""
    stamp = f"modified: {modified}\n" if modified else ""
    data = (f"---\nname: {file.removesuffix('.md')}\ndescription: {description}\n"
            f"type: project\n{stamp}---\n{body}\n").encode()
    mtime = int((time.time() - days * DAY) * 1e9)
    return Memory(FileStat(file, len(data), mtime, 0o644, hashlib.sha256(data).hexdigest()),
                  parse(data))


def replaced(*memories: Memory) -> dict[str, list[str]]:
    return {file: [r.by for r in said] for file, said in find_replaced(list(memories)).items()}


OLD = mem("deploy_notes_v1.md", "Deploys run from the build VM.", days=90)


@pytest.mark.parametrize("body", [
    "This note supersedes [[deploy_notes_v1]]: deploys now run in CI.",
    "Replaces the old [deploy notes](deploy_notes_v1.md); deploys now run in CI.",
    "Esta nota sustituye a deploy_notes_v1: el despliegue va por CI.",
    "Cette note remplace `deploy_notes_v1.md` : le déploiement passe par la CI.",
    "Diese Notiz ersetzt [[deploy_notes_v1]]; Deploys laufen in der CI.",
    "本笔记取代 [[deploy_notes_v1]]：部署改由 CI 完成。",
    "このメモは `deploy_notes_v1.md` を置き換える。デプロイは CI で行う。",
    "이 메모는 [[deploy_notes_v1]]를 대체한다. 배포는 CI에서 한다.",
    "Catatan ini menggantikan [[deploy_notes_v1]]: deploy sekarang lewat CI.",
    "Ghi chú này thay thế [[deploy_notes_v1]]: triển khai giờ chạy trong CI.",
    "Bu not [[deploy_notes_v1]] notunun yerine geçer; dağıtım artık CI'da.",
    # a case named further on is not the replacing's: it tells of the old note
    "This note supersedes [[deploy_notes_v1]]: its steps were for Jenkins.",
    "Replaces [[deploy_notes_v1]], which was written for Heroku.",
])
def test_a_newer_memory_that_says_it_replaces_another_names_it(body: str) -> None:
    new = mem("deploy_notes_v2.md", body, days=2)
    assert replaced(OLD, new) == {"deploy_notes_v1.md": ["deploy_notes_v2.md"]}


def test_a_sentence_followed_into_its_next_line_still_names_the_memory_it_replaces() -> None:
    body = ("- For deploys, open the PR against `staging`. This SUPERSEDES\n"
            "  [[deploy_notes_v1]] — deploys now run in CI.")
    assert replaced(OLD, mem("deploy_notes_v2.md", body, days=2)) == {
        "deploy_notes_v1.md": ["deploy_notes_v2.md"]}


def test_the_description_may_say_it() -> None:
    new = mem("deploy_notes_v2.md", "Deploys run in CI.", days=2,
              description="Where deploys run now (replaces deploy_notes_v1)")
    assert replaced(OLD, new) == {"deploy_notes_v1.md": ["deploy_notes_v2.md"]}


@pytest.mark.parametrize("body", [
    # negated, or only a part
    "This does not replace [[deploy_notes_v1]]; it adds the CI steps.",
    "Lo que no sustituye a deploy_notes_v1: el arranque del VM.",
    "Cette note ne remplace pas [[deploy_notes_v1]].",
    "This partly replaces [[deploy_notes_v1]] (the build step only).",
    "For now this replaces [[deploy_notes_v1]].",
    "Esto sustituye temporalmente a deploy_notes_v1.",
    # an aside between the verb and the note qualifies the replacing
    "Isto substitui, nesta etapa, o [[deploy_notes_v1]].",
    # the other way round: the named memory is the newer one
    "This note is replaced by [[deploy_notes_v1]].",
    "本笔记被 [[deploy_notes_v1]] 取代。",
    "古い手順は `deploy_notes_v1.md` に置き換える。",
    # the verb governs something else; the reference only stands in the same line
    "The runner replaces the VM script; see [[deploy_notes_v1]] for the old steps.",
    "CI 替代了手动部署的成本，与 [[deploy_notes_v1]] 互补。",
    # a past "replaced" tells of code ("replaced the JSON response"), not of notes
    "We replaced the shell script; background in [[deploy_notes_v1]].",
    # code
    "```\nreplaces deploy_notes_v1\n```",
    # limited to a case, in the sentence's next line: the named memory still holds the rest
    "- For the staging worker, open the PR against `staging`. This SUPERSEDES\n"
    "  [[deploy_notes_v1]] for staging branches specifically — its CI fact still holds.",
    "- This supersedes [[deploy_notes_v1]] only for the nightly job.",
    "- Esta nota sustituye a deploy_notes_v1 solo para el entorno de pruebas.",
    # limited to a case named after the reference: a thing's name, or code
    "**This supersedes [[deploy_notes_v1]] for MasterVP** (its rule for the rest stands).",
    "Diese Notiz ersetzt [[deploy_notes_v1]] für `ios/`; der Rest gilt weiter.",
])
def test_sentences_that_do_not_say_a_memory_is_replaced_name_none(body: str) -> None:
    assert replaced(OLD, mem("deploy_notes_v2.md", body, days=2)) == {}


def test_a_memory_rewritten_after_it_was_said_to_be_replaced_is_not_named() -> None:
    """By Claude Code's ``modified`` stamp, not the file's time: the replaced memory was
    written again after the statement, so it may hold news."""
    old = mem("deploy_notes_v1.md", "Deploys run from the build VM, and again in CI.",
              days=90, modified="2026-11-20T10:00:00Z")
    new = mem("deploy_notes_v2.md", "Supersedes [[deploy_notes_v1]].", days=1,
              modified="2026-10-01T10:00:00Z")
    assert replaced(old, new) == {}
    stamped_later = mem("deploy_notes_v2.md", "Supersedes [[deploy_notes_v1]].", days=200,
                        modified="2026-11-25T10:00:00Z")
    assert replaced(old, stamped_later) == {"deploy_notes_v1.md": ["deploy_notes_v2.md"]}


def test_two_memories_that_each_say_they_replace_the_other_name_neither() -> None:
    a = mem("plan_a.md", "Supersedes [[plan_b]].", days=3)
    b = mem("plan_b.md", "Supersedes [[plan_a]].", days=3)
    assert replaced(a, b) == {}


def test_a_stem_that_is_an_ordinary_word_is_no_reference_unless_linked() -> None:
    old = mem("deploy.md", "Deploys run from the build VM.", days=90)
    assert replaced(old, mem("ci.md", "The CI job replaces deploy by hand.", days=1)) == {}
    assert replaced(old, mem("ci.md", "This replaces [[deploy]].", days=1)) == {
        "deploy.md": ["ci.md"]}


def put(root: Path, rel: str, body: str, days: float) -> Path:
    path = root / rel
    path.write_text(f"---\nname: {path.stem}\ndescription: {path.stem} notes\ntype: project\n"
                    f"---\n{body}\n", encoding="utf-8")
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))
    return path


def test_the_report_names_the_replaced_memory_and_a_run_archives_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    put(root, "pending_0917.md", "Open items as of 2026-09-17: the bank export.", days=80)
    put(root, "pending_0930.md", "Picks up where pending_0917 left off, and supersedes "
        "[[pending_0917]]: the bank export is done.", days=60)
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    state = str(tmp_path / "state")
    assert main(["report", "--format", "json", "--memory-dir", str(root),
                 "--state-dir", state]) == 0
    found = json.loads(capsys.readouterr().out)["roots"][0]
    (stale,) = [s for s in found["stale"] if s["file"] == "pending_0917.md"]
    assert stale["whole_memory"] is True
    assert "`pending_0930.md` says it replaces this memory" in stale["reasons"][0]
    assert stale["evidence"] == ["Picks up where pending_0917 left off, and supersedes "
                                 "[[pending_0917]]: the bank export is done."]
    assert main(["run", "--force", "--apply", "all", "--memory-dir", str(root),
                 "--state-dir", state]) == 0
    assert {p.name: p.read_bytes() for p in root.iterdir() if p.name.endswith(".md")
            and p.name != "MEMORY.md"} == before
