"""A memory's citations checked against the project as it is now, in a real git repository
the test makes: a cited file git removed is reported with its commit; one that moved while
what the line says of it (a symbol) is still in the project is no evidence; most of a
memory's citations gone is about the whole memory (an archive proposed, never applied by
default); a cited file still there keeps a memory marked DONE from being archived on that
word alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

DAY = 86400
GIT_ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.test",
           "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.test",
           "GIT_CONFIG_NOSYSTEM": "1"}


def git(project: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(project), "-c", "commit.gpgsign=false", *args],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT_ENV})
    return done.stdout.strip()


def put_file(project: Path, rel: str, text: str) -> None:
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def put_memory(root: Path, rel: str, body: str, days: float = 30) -> None:
    path = root / rel
    path.write_text(f"---\nname: {path.stem}\ndescription: {path.stem}\ntype: project\n---\n"
                    f"{body}", encoding="utf-8")
    when = time.time() - days * DAY
    os.utime(path, (when, when))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    put_file(repo, "src/auth/legacy.py", "def verify_token(raw):\n    return raw\n")
    put_file(repo, "src/auth/session.py", "SESSION_TTL = 3600\n")
    put_file(repo, "src/jobs/export.py", "def export_all():\n    pass\n")
    put_file(repo, "src/app/main.py", "def main():\n    pass\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    return repo



def report(root: Path, project: Path, tmp_path: Path,
           capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(["report", "--format", "json", "--memory-dir", str(root), "--project-root",
                 str(project), "--state-dir", str(tmp_path / "state")]) == 0
    return json.loads(capsys.readouterr().out)["roots"][0]


def stale_of(found: Any, file: str) -> Any:
    return next((s for s in found["stale"] if s["file"] == file), None)


def test_a_cited_file_git_removed_is_reported_with_its_commit(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(project, "rm", "-q", "src/jobs/export.py")
    git(project, "commit", "-q", "-m", "drop the export job")
    commit, day = git(project, "log", "-1", "--format=%h %cs").split()
    put_memory(root, "project_export.md",
               "The nightly export runs from src/jobs/export.py at 02:00.\n"
               "Its output lands in the reports bucket.\n")

    stale = stale_of(report(root, project, tmp_path, capsys), "project_export.md")

    assert stale["reasons"] == [f"cites `src/jobs/export.py` — not in the project; removed in "
                                f"commit {commit} on {day} (about a part)"]
    assert stale["evidence"] == ["The nightly export runs from src/jobs/export.py at 02:00."]
    assert stale["whole_memory"] is False


def test_a_cited_file_that_moved_with_its_symbol_still_there_is_no_evidence(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(project, "mv", "src/auth/legacy.py", "src/auth/tokens.py")
    git(project, "commit", "-q", "-m", "rename")
    put_memory(root, "project_tokens.md",
               "Tokens are checked by `verify_token()` in src/auth/legacy.py.\n")
    put_memory(root, "project_tokens_gone.md",
               "Tokens are checked by `check_token()` in src/auth/legacy.py.\n")

    found = report(root, project, tmp_path, capsys)

    assert stale_of(found, "project_tokens.md") is None
    gone = stale_of(found, "project_tokens_gone.md")
    assert "moved to src/auth/tokens.py in commit" in gone["reasons"][0]


def test_most_citations_gone_is_about_the_whole_memory_one_gone_about_a_part(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(project, "rm", "-q", "src/auth/legacy.py", "src/auth/session.py")
    git(project, "commit", "-q", "-m", "new auth")
    put_memory(root, "project_old_auth.md",
               "# Auth\n\nLogin goes through src/auth/legacy.py.\n"
               "Sessions expire as set in src/auth/session.py.\n"
               "The entry point is src/app/main.py.\n")
    put_memory(root, "project_app.md",
               "# App\n\nThe entry point is src/app/main.py.\n"
               "Exports run from src/jobs/export.py.\nSessions live in src/auth/session.py.\n")

    found = report(root, project, tmp_path, capsys)

    whole = stale_of(found, "project_old_auth.md")
    assert whole["whole_memory"] is True
    assert whole["reasons"][-1] == "2 of the 3 project files it cites are gone"
    archives = [a for a in found["actions"] if a["op"] == "archive"]
    assert [(a["file"], a["kind"]) for a in archives] == [("project_old_auth.md", "judgment")]
    part = stale_of(found, "project_app.md")
    assert part["whole_memory"] is False
    assert part["reasons"][0].startswith("cites `src/auth/session.py` — not in the project; "
                                         "removed in commit")


def test_cited_files_that_git_never_held_are_no_evidence(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The twin of the test above: the same shape of memory, but its gone files were never in
    # the project's history (a sibling project's, an output, a file still to come).
    put_memory(root, "project_sibling.md",
               "# Driver\n\nThe recorder lives in include/driver/recorder.hpp.\n"
               "Its settings are read by src/driver/settings.py.\n"
               "The entry point is src/app/main.py.\n")

    found = report(root, project, tmp_path, capsys)

    assert stale_of(found, "project_sibling.md") is None
    assert not [a for a in found["actions"] if a["op"] == "archive"]


def test_without_git_most_citations_gone_are_reported_never_archived(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    put_file(plain, "src/app/main.py", "x\n")
    put_file(plain, "src/auth/__init__.py", "")
    put_memory(root, "project_old.md",
               "Login goes through src/auth/legacy.py.\n"
               "Sessions expire as set in src/auth/session.py.\n"
               "The entry point is src/app/main.py.\n")

    found = report(root, plain, tmp_path, capsys)

    stale = stale_of(found, "project_old.md")
    assert stale["whole_memory"] is False
    assert stale["reasons"][-1] == ("2 of the 3 project files it cites are gone (no git "
                                    "history to tell whether they were removed: reported, "
                                    "not archived)")
    assert not [a for a in found["actions"] if a["op"] == "archive"]


def test_a_cited_file_still_there_vetoes_an_archive_on_a_status_word(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put_memory(root, "project_entry.md",
               "# Entry point — OBSOLETE\n\nThe app starts in src/app/main.py; keep it thin.\n")
    put_memory(root, "project_retired.md",
               "# Old dashboard — OBSOLETE\n\nNothing cited here.\n")

    found = report(root, project, tmp_path, capsys)

    kept = stale_of(found, "project_entry.md")
    assert kept["whole_memory"] is False
    assert kept["reasons"][-1] == ("not archived: it cites 1 project file(s) still there "
                                   "(`src/app/main.py`)")
    archived = {a["file"] for a in found["actions"] if a["op"] == "archive"}
    assert archived == {"project_retired.md"}


def test_without_git_a_file_missing_from_a_folder_that_is_there_is_reported_without_history(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without history, a folder missing too fits another tree's file, or one never copied
    # here, as well as a removal: no evidence. A file missing from a folder that is there
    # (even one written from a part of the tree) is reported.
    plain = tmp_path / "plain"
    put_file(plain, "src/app/main.py", "x\n")
    put_file(plain, "server/routes/web.php", "<?php\n")
    put_memory(root, "project_cli.md", "The CLI lives in src/app/cli.py.\n")
    put_memory(root, "project_part.md", "Admin routes are in routes/admin.php.\n")
    put_memory(root, "project_gone_folder.md", "The installer is built by installer/build.ps1.\n")

    found = report(root, plain, tmp_path, capsys)

    assert stale_of(found, "project_cli.md")["reasons"] == [
        "cites `src/app/cli.py` — not in the project (about a part)"]
    assert stale_of(found, "project_part.md")["reasons"] == [
        "cites `routes/admin.php` — not in the project (about a part)"]
    assert stale_of(found, "project_gone_folder.md") is None


def test_without_git_a_file_whose_name_is_in_one_other_place_moved_there(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An Arduino sketch moved into a folder of its own name: the memory's knowledge moved
    # with it. Two files of that name elsewhere tell nothing of where it went: reported.
    plain = tmp_path / "plain"
    put_file(plain, "firmware/steering/steer/steer.ino", "void setup() {}\n")
    put_file(plain, "firmware/steering/notes.txt", "x\n")
    put_file(plain, "tools/a/build.sh", "x\n")
    put_file(plain, "tools/b/build.sh", "x\n")
    put_file(plain, "deploy/staging/notes.txt", "x\n")
    put_file(plain, "docs/config.yaml", "x\n")
    put_memory(root, "project_steering.md", "The steering loop is firmware/steering/steer.ino.\n")
    put_memory(root, "project_build.md", "Releases are made by tools/build.sh.\n")
    # ... nor does one file of that name in an unrelated folder.
    put_memory(root, "project_staging.md", "Staging reads deploy/staging/config.yaml.\n")

    found = report(root, plain, tmp_path, capsys)

    assert stale_of(found, "project_steering.md") is None
    assert stale_of(found, "project_build.md")["reasons"] == [
        "cites `tools/build.sh` — not in the project (about a part)"]
    assert stale_of(found, "project_staging.md")["reasons"] == [
        "cites `deploy/staging/config.yaml` — not in the project (about a part)"]


def test_a_path_written_from_a_part_of_the_project_is_there(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # People write paths from the part of a project they work in: `auth/session.py` for
    # src/auth/session.py is the same file, not a missing one.
    put_memory(root, "project_auth.md", "Sessions: `auth/session.py` holds the TTL.\n")
    plain = tmp_path / "plain"
    put_file(plain, "server/routes/web.php", "<?php\n")
    put_memory(root, "project_routes.md", "Routes are in routes/web.php.\n")

    assert stale_of(report(root, project, tmp_path, capsys), "project_auth.md") is None
    assert stale_of(report(root, plain, tmp_path, capsys), "project_routes.md") is None


def test_citations_about_another_tree_are_not_called_gone(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Most paths the memories cite never were in this project (a sibling project's files,
    # a home folder): what they say is about another tree, and nothing is called gone.
    put_memory(root, "project_site.md", "The site: css/styles.css, js/script.js and "
               "subjects/index.json.\n")
    put_memory(root, "project_tools.md", "Backups: scripts/backup.ps1 and scripts/restore.ps1; "
               "the app is src/app/main.py.\n")

    found = report(root, project, tmp_path, capsys)

    assert found["stale"] == []
    assert any("most paths the memories cite are not in" in note for note in found["notes"])
    assert not [a for a in found["actions"] if a["op"] == "archive"]


def test_a_cited_file_git_ignores_is_never_called_gone(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A gitignored local script is not in a fresh copy of the project; its absence says
    # nothing about whether the memory still holds.
    put_file(project, ".gitignore", "scripts/deploy.sh\n")
    git(project, "add", ".gitignore")
    git(project, "commit", "-q", "-m", "ignore the local deploy wrapper")
    put_memory(root, "project_deploy.md", "Build and install with `bash scripts/deploy.sh`; it "
               "closes the terminal, so ask first.\n")

    assert stale_of(report(root, project, tmp_path, capsys), "project_deploy.md") is None


def test_a_symbol_beside_a_file_that_is_there_but_found_nowhere_is_reported(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put_file(project, "src/auth/legacy.py", "def check_token(raw):\n    return raw\n")
    git(project, "commit", "-q", "-am", "rename the token check")
    put_memory(root, "project_tokens.md", "Tokens are checked by `verify_token()` in "
               "`src/auth/legacy.py`.\nSessions last an hour.\n")
    put_memory(root, "project_sessions.md", "The TTL is `SESSION_TTL` in "
               "`src/auth/session.py`.\n")

    found = report(root, project, tmp_path, capsys)

    stale = stale_of(found, "project_tokens.md")
    assert stale["reasons"] == ["names `verify_token` beside `src/auth/legacy.py` — found "
                                "nowhere in the project (about a part)"]
    assert stale["whole_memory"] is False
    assert stale_of(found, "project_sessions.md") is None


def _merged_branch(project: Path, name: str, delete: bool, message: str = "") -> str:
    git(project, "checkout", "-q", "-b", name)
    put_file(project, "src/jobs/export.py", "def export_all():\n    return 1\n")
    git(project, "commit", "-q", "-am", "export returns a count")
    git(project, "checkout", "-q", "-")
    git(project, "merge", "-q", "--no-ff", *(["-m", message] if message else ["--no-edit"]), name)
    if delete:
        git(project, "branch", "-q", "-d", name)
    return git(project, "log", "-1", "--format=%h %cs")


@pytest.mark.parametrize("message", ["", "Merge pull request #12 from dev/feature/export-count"])
def test_a_branch_merged_and_deleted_is_reported_with_its_merge(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], message: str
) -> None:
    commit, day = _merged_branch(project, "feature/export-count", True, message).split()
    put_memory(root, "project_export.md", "Export work goes on in `feature/export-count`.\n"
               "The export runs nightly.\n")
    put_memory(root, "project_history.md", "`feature/export-count` was merged last month.\n")

    found = report(root, project, tmp_path, capsys)

    stale = stale_of(found, "project_export.md")
    assert stale["reasons"] == [f"names branch `feature/export-count` — merged in commit "
                                f"{commit} on {day}; no branch has that name now (about a "
                                "part)"]
    assert stale_of(found, "project_history.md") is None
    assert not [a for a in found["actions"] if a["op"] == "archive"]


@pytest.mark.parametrize(("branch", "delete", "line"), [
    ("feature/export-count", False, "Export work goes on in `feature/export-count`.\n"),
    ("test", True, "Run `test` before each push.\n"),  # a plain word in code is no branch
], ids=["still-a-branch", "plain-word"])
def test_a_name_in_code_that_is_no_gone_branch_is_no_evidence(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    branch: str, delete: bool, line: str
) -> None:
    _merged_branch(project, branch, delete=delete)
    put_memory(root, "project_notes.md", line)

    assert stale_of(report(root, project, tmp_path, capsys), "project_notes.md") is None


def test_symbol_searches_stop_at_their_cap_and_an_unsearched_symbol_is_no_evidence(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from consolidator.roots import project as project_module

    monkeypatch.setattr(project_module, "MAX_SEARCHES", 1)
    tree = project_module.Project(project)
    assert tree.holds_symbol("verify_token") is True  # searched: it is there
    assert tree.holds_symbol("no_such_function_anywhere") is None  # past the cap: unknown


def test_a_tree_too_large_to_list_tells_nothing_gone_and_nothing_there(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    from consolidator.roots import project as project_module

    monkeypatch.setattr(project_module, "MAX_FILES", 0)  # every tree is too large to list
    put_memory(root, "project_lib.md", "Status: DONE\n\nThe parsers are `lib/a.py` and "
               "`lib/b.py`.\n")

    stale = stale_of(report(root, project, tmp_path, capsys), "project_lib.md")

    assert stale is not None, "the status word is still reported"
    assert not [r for r in stale["reasons"] if "not in the project" in r or "still there" in r]


def test_cited_files_git_removed_keep_the_directory_about_this_project(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every cited path is gone now, but git's history held each: the memories are about this
    # project, and what they cite is reported gone.
    git(project, "rm", "-q", "src/auth/legacy.py", "src/auth/session.py", "src/jobs/export.py")
    git(project, "commit", "-q", "-m", "drop auth and export")
    put_memory(root, "project_auth.md", "Auth: src/auth/legacy.py and src/auth/session.py.\n")
    put_memory(root, "project_jobs.md", "Jobs: src/jobs/export.py; the entry is "
               "src/app/main.py.\n")

    found = report(root, project, tmp_path, capsys)

    assert not any("most paths the memories cite" in note for note in found["notes"])
    assert stale_of(found, "project_auth.md")["whole_memory"] is True


def test_a_symbol_is_no_evidence_where_the_line_says_it_went_or_git_cannot_see_the_file(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put_file(project, "src/new_module.py", "def parse_config():\n    pass\n")  # not committed
    put_file(project, ".gitignore", "local/\n")
    put_file(project, "local/deploy.sh", "deploy_all() { :; }\n")
    put_memory(root, "project_notes.md",
               "`verify_token()` was removed from `src/auth/legacy.py` last month.\n"
               "Config is read by `parse_settings()` in `src/new_module.py`.\n"
               "Deploys go through `deploy_everything` in `local/deploy.sh`.\n")

    assert stale_of(report(root, project, tmp_path, capsys), "project_notes.md") is None


def test_a_git_that_fails_tells_nothing(root: Path, project: Path, tmp_path: Path) -> None:
    from consolidator.detect.stale.evidence import find_stale
    from consolidator.roots.project import Project
    from consolidator.store.scan import scan

    broken = tmp_path / "git"
    broken.write_text("#!/bin/sh\necho 'fatal: detected dubious ownership' >&2\nexit 128\n")
    broken.chmod(0o755)
    put_memory(root, "project_cli.md", "The CLI: `run_cli()` in `src/app/main.py`; the old "
               "one was `src/app/cli.py`.\n")
    (memory,) = scan(root).memories
    tree = Project(project, git=str(broken))

    assert find_stale(memory, datetime.now(UTC), tree) is None
    assert tree.status("src/app/cli.py") == "unknown"



def test_paths_a_line_says_were_removed_do_not_count_against_the_project(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    for rel in ("src/app.py", "config/settings.toml", "src/text.py", "src/jobs/notify.py"):
        put_file(plain, rel, "x\n")
    put_memory(root, "project_cleanup.md", "- Deleted src/old/cron.py and src/utils/strings.py.\n"
               "- Removed src/jobs/digest.py; its work moved to src/text.py.\n")
    put_memory(root, "reference_code_map.md", "- Entry point: `src/app.py`\n- Nightly export: "
               "`src/jobs/export.py`\n- Settings: `config/settings.toml`\n")

    found = report(root, plain, tmp_path, capsys)

    assert stale_of(found, "reference_code_map.md")["reasons"] == [
        "cites `src/jobs/export.py` — not in the project (about a part)"]
    assert stale_of(found, "project_cleanup.md") is None


def test_git_is_asked_once_which_of_many_missing_paths_it_ignores(
    root: Path, project: Path, tmp_path: Path
) -> None:
    from consolidator.detect.stale.citations import weigh_citations
    from consolidator.roots.project import Project
    from consolidator.store.scan import scan

    calls = tmp_path / "calls.log"
    wrapper = tmp_path / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {calls}\nexec {shutil.which("git")} "$@"\n')
    wrapper.chmod(0o755)
    put_file(project, ".gitignore", "local/\n")
    cited = " ".join(f"src/gone/m{i}.py" for i in range(12))
    put_memory(root, "project_many.md", f"Modules: {cited}; the script is local/run.sh.\n")
    tree = Project(project, git=str(wrapper))

    assert weigh_citations(scan(root).memories, tree) is False  # none of them is there
    assert tree.status("local/run.sh") == "unknown"  # ignored: a local file
    assert tree.status("src/gone/m3.py") == "gone"
    assert calls.read_text().count("check-ignore") == 1


def _commands_project(project: Path, makefile: str) -> None:
    put_file(project, "package.json", json.dumps({"scripts": {"build": "vite build",
                                                              "test": "vitest"}}))
    put_file(project, "apps/web/package.json", json.dumps({"scripts": {"e2e": "playwright"}}))
    put_file(project, "Makefile", makefile)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "scripts")


def test_a_command_whose_script_or_target_is_gone_is_reported_its_twin_is_not(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _commands_project(project, ".PHONY: release\nrelease: build\n\t./ship.sh\n")
    put_memory(root, "project_deploy.md",
               "Staging goes out with `npm run deploy:staging` after review.\n"
               "```bash\nmake publish\n```\n")
    put_memory(root, "project_build.md",
               "Build with `npm run build`, end-to-end with `pnpm --filter web run e2e`, "
               "ship with `make release`.\n")

    found = report(root, project, tmp_path, capsys)

    stale = stale_of(found, "project_deploy.md")
    assert stale["reasons"] == [
        "runs `npm run deploy:staging` — no script `deploy:staging` in apps/web/package.json, "
        "package.json (about a part)",
        "runs `make publish` — no target `publish` in Makefile (about a part)",
    ]
    assert stale["evidence"] == ["Staging goes out with `npm run deploy:staging` after review.",
                                 "make publish"]
    assert stale["whole_memory"] is False
    assert stale_of(found, "project_build.md") is None
    assert not [a for a in found["actions"] if a["op"] == "archive"]


@pytest.mark.parametrize(("makefile", "line"), [
    ("include rules.mk\nall:\n\techo\n", "Ship with `make publish`.\n"),  # targets elsewhere
    ("%.pdf: %.md\n\tpandoc $< -o $@\n", "Render with `make guide`.\n"),  # a pattern rule
    ("all:\n\techo\n", "The old `make publish` step was removed.\n"),  # the line says it went
    ("all:\n\techo\n", "Ship with `yarn run publish` or `npm run env`.\n"),  # may run binaries
], ids=["include", "pattern", "gone-on-purpose", "binaries"])
def test_a_command_that_cannot_be_told_gone_is_no_evidence(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    makefile: str, line: str
) -> None:
    _commands_project(project, makefile)
    put_memory(root, "project_ship.md", line)

    assert stale_of(report(root, project, tmp_path, capsys), "project_ship.md") is None


def test_a_command_of_a_runner_the_project_has_no_file_for_is_no_evidence(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put_memory(root, "project_other.md", "In the site repo, `npm run deploy` and "
               "`make docs` publish it.\n")  # this project has no package.json, no Makefile

    assert stale_of(report(root, project, tmp_path, capsys), "project_other.md") is None


def test_a_package_json_that_cannot_be_parsed_tells_nothing(
    root: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put_file(project, "package.json", '{"scripts": {"build": "vite build",}}')  # a stray comma
    put_memory(root, "project_deploy.md", "Deploy with `npm run deploy`.\n")

    assert stale_of(report(root, project, tmp_path, capsys), "project_deploy.md") is None
