"""Finding Claude Code's memory stores: folder names, settings, kinds by location, hints for a
folder named by mistake, and discovery over a small simulated home."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from consolidator.roots.stores import (
    Store,
    claude_home,
    describe,
    discover,
    meant,
    memory_dir_setting,
    read_settings,
    sanitize,
)
from tests.conftest import SESSION_IDS

HOME = Path("/home/ada")


# --------------------------------------------------------------------------- helpers


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def memory(folder: Path, name: str = "fact") -> Path:
    return write(folder / f"{name}.md",
                 f"---\nname: {name}\ndescription: the {name}\ntype: project\n---\nThe {name}.\n")


def session(folder: Path, cwd: Path, sid: str = SESSION_IDS[0], mtime: float | None = None) -> Path:
    path = write(folder / f"{sid}.jsonl", json.dumps({"type": "user", "cwd": str(cwd)}) + "\n")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


class Warnings(list[tuple[str, str]]):
    def __call__(self, level: str, message: str) -> None:
        self.append((level, message))


def project(base: Path, claude: Path, name: str, sid: str = SESSION_IDS[0]) -> tuple[Path, Path]:
    """A project folder with ``.claude/`` and its session folder naming it."""
    folder = base / name
    (folder / ".claude").mkdir(parents=True)
    sessions = claude / "projects" / sanitize(folder)
    session(sessions, folder, sid)
    return folder, sessions


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".claude"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def env(tmp_path: Path, claude: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home")}


# --------------------------------------------------------------------------- sanitize


@pytest.mark.parametrize(("path", "folder"), [
    ("/Users/ada/code/app", "-Users-ada-code-app"),
    ("/home/ada/my_app.v2", "-home-ada-my-app-v2"),
    ("/srv/a b/c-d", "-srv-a-b-c-d"),
    ("/tmp/文档/x", "-tmp----x"),
    ("/tmp/café", "-tmp-caf-"),
    ("C:\\Users\\ada\\app", "C--Users-ada-app"),
    ("/ABC/xyz/019", "-ABC-xyz-019"),
    ("", ""),
])
def test_sanitize_turns_every_character_outside_letters_and_digits_into_a_dash(
        path: str, folder: str) -> None:
    assert sanitize(path) == folder
    if path:
        assert sanitize(Path(path)) == sanitize(str(Path(path)))


def test_sanitize_counts_a_character_outside_the_bmp_as_claude_code_does() -> None:
    assert sanitize("/tmp/\U0001f600") == "-tmp---"


def test_sanitize_cuts_a_long_path_as_claude_code_does() -> None:
    long = "/work/" + "/".join(["segment"] * 40)
    full = long.replace("/", "-")
    assert len(full) > 200

    name = sanitize(long)

    assert name.startswith(full[:200] + "-") and name != full


# --------------------------------------------------------------------------- autoMemoryDirectory


@pytest.mark.parametrize(("value", "expected"), [
    ("~/mem", HOME / "mem"),
    ("~/mem/", HOME / "mem"),
    ("~/a/./b/../mem", HOME / "a" / "mem"),
    ("~\\mem", HOME / "mem"),
    ("/srv/memory", Path("/srv/memory")),
    ("/srv/memory/", Path("/srv/memory")),
    ("/srv/x/../memory", Path("/srv/memory")),
    ("/ab", Path("/ab")),
])
def test_a_usable_auto_memory_directory(value: str, expected: Path) -> None:
    assert memory_dir_setting(value, HOME) == expected


@pytest.mark.parametrize("value", [
    "~", "~/", "~/.", "~/..", "~/../other", "~/a/../..", "~ada/mem",
    "mem", "./mem", "../mem", "memory/", "",
    "/", "/a", "//server/share", "/x/../..",
    "/srv/mem\0ory",
    None, 7, 1.5, True, ["/srv/memory"], {"path": "/srv/memory"},
])
def test_an_unusable_auto_memory_directory_is_none(value: object) -> None:
    assert memory_dir_setting(value, HOME) is None


# --------------------------------------------------------------------------- claude_home


def test_claude_home_is_claude_config_dir_or_dot_claude(tmp_path: Path) -> None:
    assert claude_home({"HOME": "/home/ada"}) == Path("/home/ada/.claude")
    assert claude_home({"HOME": "/home/ada", "CLAUDE_CONFIG_DIR": ""}) == \
        Path("/home/ada/.claude")
    assert claude_home({"HOME": "/home/ada", "CLAUDE_CONFIG_DIR": "/etc/cc"}) == Path("/etc/cc")
    relative = claude_home({"HOME": "/home/ada", "CLAUDE_CONFIG_DIR": "cfg"})
    assert relative.is_absolute() and relative.name == "cfg"


# --------------------------------------------------------------------------- settings files


def test_a_missing_settings_file_is_empty_without_a_warning(tmp_path: Path) -> None:
    warnings = Warnings()
    assert read_settings(tmp_path / "settings.json", warnings) == {}
    assert warnings == []


@pytest.mark.parametrize(("raw", "why"), [
    (b"{not json", "not read"),
    (b"[1, 2]", "not a JSON object"),
    (b'"a string"', "not a JSON object"),
    (b"null", "not a JSON object"),
    (b"\xff\xfe{}", "not read"),
    (b"", "not read"),
    (b'{"a": "' + b"x" * (1 << 20) + b'"}', "larger than 1 MiB"),
])
def test_a_garbage_settings_file_is_empty_with_one_warning_naming_it(
        tmp_path: Path, raw: bytes, why: str) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(raw)
    warnings = Warnings()

    assert read_settings(path, warnings) == {}

    assert len(warnings) == 1
    level, message = warnings[0]
    assert level == "warning" and message.startswith(f"{path}: not read") and why in message
    assert "\n" not in message


def test_an_unreadable_settings_file_is_empty(tmp_path: Path) -> None:
    (tmp_path / "settings.json").mkdir()  # unreadable even for root
    assert read_settings(tmp_path / "settings.json", Warnings()) == {}


def test_discovery_goes_on_past_garbage_settings_with_warnings(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    write(claude / "settings.json", "{oops")
    alpha, sessions = project(tmp_path, claude, "alpha")
    write(alpha / ".claude" / "settings.json", "[]")
    write(alpha / ".claude" / "settings.local.json", '{"autoMemoryDirectory": ')
    memory(sessions / "memory")
    warnings = Warnings()

    found = discover(env, warnings)

    assert found == [Store(sessions / "memory", "auto", (sessions,), alpha, None)]
    named = sorted(message.split(": not read")[0] for _level, message in warnings)
    assert named == sorted(str(p) for p in (claude / "settings.json",
                                            alpha / ".claude" / "settings.json",
                                            alpha / ".claude" / "settings.local.json"))
    assert {level for level, _ in warnings} == {"warning"}


# --------------------------------------------------------------------------- describe


def test_describe_tells_each_kind_by_where_it_lies(tmp_path: Path, claude: Path,
                                                   env: dict[str, str]) -> None:
    (claude / "projects" / "-a").mkdir(parents=True)
    (claude / "projects" / "-b").mkdir()
    proj = tmp_path / "work" / "app"
    slug = claude / "projects" / sanitize(proj)
    auto = claude / "projects" / "-a" / "memory"

    assert describe(auto, env) == Store(auto, "auto", (auto.parent,))
    assert describe(auto / "team", env) == Store(auto / "team", "team", (auto.parent,))
    assert describe(claude / "agent-memory" / "planner", env) == Store(
        claude / "agent-memory" / "planner", "agent-user",
        (claude / "projects" / "-a", claude / "projects" / "-b"))
    shared = proj / ".claude" / "agent-memory" / "reviewer"
    assert describe(shared, env) == Store(shared, "agent-project", (slug,), proj)
    local = proj / ".claude" / "agent-memory-local" / "tester"
    assert describe(local, env) == Store(local, "agent-local", (slug,), proj)
    elsewhere = tmp_path / "notes" / "memory"
    assert describe(elsewhere, env) == Store(elsewhere, "auto", (elsewhere.parent,))


def test_a_project_folder_named_by_claude_code_is_where_its_sessions_are(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    proj = tmp_path / "work" / "app"
    shared = proj / ".claude" / "agent-memory" / "reviewer"
    named = {**env, "CLAUDE_CODE_PROJECT_DIR_NAME": "my-app"}
    assert describe(shared, named) == Store(shared, "agent-project",
                                            (claude / "projects" / "my-app",), proj)
    # A value that is not one folder name is not a folder of Claude Code's.
    odd = {**env, "CLAUDE_CODE_PROJECT_DIR_NAME": "../elsewhere"}
    assert describe(shared, odd).sessions == (claude / "projects" / sanitize(proj),)


def test_describe_with_a_config_dir_not_named_dot_claude(tmp_path: Path) -> None:
    config = tmp_path / "cc-config"
    (config / "projects" / "-p").mkdir(parents=True)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(config)}

    user = describe(config / "agent-memory" / "planner", env)
    assert (user.kind, user.sessions) == ("agent-user", (config / "projects" / "-p",))
    # ~/.claude is no longer the config dir: its agent-memory is the home project's
    other = describe(tmp_path / "home" / ".claude" / "agent-memory" / "x", env)
    assert (other.kind, other.project) == ("agent-project", tmp_path / "home")
    assert other.sessions == (config / "projects" / sanitize(tmp_path / "home"),)


def test_describe_is_by_location_only(tmp_path: Path, env: dict[str, str]) -> None:
    # nothing needs to exist, and nothing is created
    for path in (tmp_path / "x" / ".claude" / "agent-memory" / "a", tmp_path / "m" / "team"):
        describe(path, env)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]


# --------------------------------------------------------------------------- meant


def test_meant_names_the_memory_folder_of_a_project_folder(
        claude: Path, env: dict[str, str]) -> None:
    folder = claude / "projects" / "-work-app"
    (folder / "memory").mkdir(parents=True)
    assert meant(folder, env) == f"did you mean {folder / 'memory'}?"


@pytest.mark.parametrize("which", ["claude", "projects"])
def test_meant_for_the_claude_home_or_its_projects(
        claude: Path, env: dict[str, str], which: str) -> None:
    (claude / "projects").mkdir()
    hint = meant(claude if which == "claude" else claude / "projects", env)
    assert hint is not None
    assert "it holds Claude Code's projects, not memories" in hint
    assert str(claude / "projects" / "<project>" / "memory") in hint
    assert "leave out --memory-dir" in hint


def test_meant_for_another_config_dir_and_a_folder_of_projects(
        tmp_path: Path, env: dict[str, str]) -> None:
    other = tmp_path / "old-claude"
    (other / "projects").mkdir(parents=True)
    write(other / "settings.json", "{}")
    hint = meant(other, env)
    assert hint is not None and str(other / "projects" / "<project>" / "memory") in hint

    folders = tmp_path / "copies"
    (folders / "-work-app" / "memory").mkdir(parents=True)
    hint = meant(folders, env)
    assert hint is not None and str(folders / "<project>" / "memory") in hint


def test_meant_is_none_for_an_ordinary_folder(tmp_path: Path, env: dict[str, str]) -> None:
    plain = tmp_path / "plain"
    (plain / "docs").mkdir(parents=True)
    assert meant(plain, env) is None
    assert meant(tmp_path / "missing", env) is None


def test_meant_does_not_follow_a_symlinked_memory_folder(
        tmp_path: Path, env: dict[str, str]) -> None:
    target = tmp_path / "real-memory"
    target.mkdir()
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "memory").symlink_to(target)
    assert meant(folder, env) is None


# --------------------------------------------------------------------------- discover


def test_discover_finds_each_kind_once_in_a_stable_order(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    alpha, a_sessions = project(tmp_path, claude, "alpha")
    beta, b_sessions = project(tmp_path, claude, "beta", SESSION_IDS[1])
    write(a_sessions / "memory" / "MEMORY.md", "# index\n")
    memory(a_sessions / "memory" / "team")
    memory(b_sessions / "memory")
    memory(claude / "agent-memory" / "planner")
    memory(alpha / ".claude" / "agent-memory" / "reviewer")
    memory(beta / ".claude" / "agent-memory-local" / "tester")
    (claude / "agent-memory" / "empty").mkdir()
    (alpha / ".claude" / "agent-memory" / "nothing").mkdir()
    write(beta / ".claude" / "agent-memory" / "notes-only" / "todo.md", "no frontmatter\n")

    found = discover(env)

    assert found == discover(env)
    assert [(s.path, s.kind, s.sessions, s.project) for s in found] == [
        (a_sessions / "memory", "auto", (a_sessions,), alpha),
        (a_sessions / "memory" / "team", "team", (a_sessions,), alpha),
        (alpha / ".claude" / "agent-memory" / "reviewer", "agent-project", (a_sessions,), alpha),
        (b_sessions / "memory", "auto", (b_sessions,), beta),
        (beta / ".claude" / "agent-memory-local" / "tester", "agent-local", (b_sessions,), beta),
        (claude / "agent-memory" / "planner", "agent-user", (a_sessions, b_sessions), None),
    ]
    assert all(s.off is None for s in found)


def test_discover_with_nothing_there_finds_nothing(tmp_path: Path) -> None:
    assert discover({"HOME": str(tmp_path / "nobody")}) == []


def test_discover_takes_the_project_from_the_newest_session(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    old, new = tmp_path / "old-place", tmp_path / "new-place"
    for folder in (old, new):
        (folder / ".claude").mkdir(parents=True)
    sessions = claude / "projects" / "-renamed"
    session(sessions, old, SESSION_IDS[0], mtime=1_000_000)
    session(sessions, new, SESSION_IDS[1], mtime=2_000_000)
    # a subagent transcript, newer still, is no session
    write(sessions / "agent-0a1b2c3d.jsonl", json.dumps({"cwd": str(old)}) + "\n")
    memory(sessions / "memory")
    memory(new / ".claude" / "agent-memory" / "a")
    memory(old / ".claude" / "agent-memory" / "b")

    found = discover(env)

    assert [(s.path, s.project) for s in found] == [
        (sessions / "memory", new), (new / ".claude" / "agent-memory" / "a", new)]


def test_a_session_folder_without_transcripts_still_has_its_auto_memory(
        claude: Path, env: dict[str, str]) -> None:
    sessions = claude / "projects" / "-gone"
    memory(sessions / "memory")
    assert discover(env) == [Store(sessions / "memory", "auto", (sessions,), None, None)]


def test_a_shared_auto_memory_directory_is_one_store_counting_every_projects_sessions(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    mem = tmp_path / "home" / "mem"
    memory(mem)
    memory(mem / "team", "shared")
    write(claude / "settings.json", json.dumps({"autoMemoryDirectory": "~/mem"}))
    alpha, a_sessions = project(tmp_path, claude, "alpha")
    beta, b_sessions = project(tmp_path, claude, "beta", SESSION_IDS[1])
    memory(a_sessions / "memory", "ignored")  # moved away from: not a store any more

    found = discover(env)

    assert found == [Store(mem, "auto", (a_sessions, b_sessions), None, None),
                     Store(mem / "team", "team", (a_sessions, b_sessions), None, None)]


def test_projects_sharing_a_local_auto_memory_directory_share_one_store(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    mem = tmp_path / "shared-memory"
    memory(mem)
    alpha, a_sessions = project(tmp_path, claude, "alpha")
    beta, b_sessions = project(tmp_path, claude, "beta", SESSION_IDS[1])
    gamma, g_sessions = project(tmp_path, claude, "gamma", SESSION_IDS[2])
    memory(g_sessions / "memory")
    for folder, value in ((alpha, str(mem)), (beta, str(mem) + "/")):
        write(folder / ".claude" / "settings.local.json",
              json.dumps({"autoMemoryDirectory": value}))
    (tmp_path / "alias").symlink_to(mem)
    write(gamma / ".claude" / "settings.local.json", "{}")

    found = discover(env)

    assert found == [Store(mem, "auto", (a_sessions, b_sessions), None, None),
                     Store(g_sessions / "memory", "auto", (g_sessions,), gamma, None)]


def test_a_projects_shared_settings_never_move_its_memory(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    hostile = tmp_path / "elsewhere"
    memory(hostile)
    alpha, sessions = project(tmp_path, claude, "alpha")
    write(alpha / ".claude" / "settings.json", json.dumps({"autoMemoryDirectory": str(hostile)}))
    memory(sessions / "memory")

    assert [s.path for s in discover(env)] == [sessions / "memory"]


def test_auto_memory_off_in_user_settings_switches_off_every_store(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    settings = write(claude / "settings.json", json.dumps({"autoMemoryEnabled": False}))
    alpha, sessions = project(tmp_path, claude, "alpha")
    memory(sessions / "memory")
    memory(claude / "agent-memory" / "planner")
    memory(alpha / ".claude" / "agent-memory-local" / "t")

    found = discover(env)

    assert len(found) == 3
    assert {s.off for s in found} == {
        f"auto memory is off: autoMemoryEnabled is false in {settings}"}


@pytest.mark.parametrize("name", ["settings.json", "settings.local.json"])
def test_auto_memory_off_in_a_projects_settings_switches_off_its_stores_only(
        tmp_path: Path, claude: Path, env: dict[str, str], name: str) -> None:
    alpha, a_sessions = project(tmp_path, claude, "alpha")
    beta, b_sessions = project(tmp_path, claude, "beta", SESSION_IDS[1])
    settings = write(alpha / ".claude" / name, json.dumps({"autoMemoryEnabled": False}))
    memory(a_sessions / "memory")
    memory(a_sessions / "memory" / "team", "t")
    memory(alpha / ".claude" / "agent-memory" / "r")
    memory(b_sessions / "memory")
    memory(claude / "agent-memory" / "planner")

    off = {s.path: s.off for s in discover(env)}

    reason = f"auto memory is off: autoMemoryEnabled is false in {settings}"
    assert off == {
        a_sessions / "memory": reason, a_sessions / "memory" / "team": reason,
        alpha / ".claude" / "agent-memory" / "r": reason,
        b_sessions / "memory": None, claude / "agent-memory" / "planner": None,
    }


@pytest.mark.parametrize("value", [True, "false", 0, None])
def test_only_a_json_false_switches_auto_memory_off(
        tmp_path: Path, claude: Path, env: dict[str, str], value: object) -> None:
    write(claude / "settings.json", json.dumps({"autoMemoryEnabled": value}))
    _alpha, sessions = project(tmp_path, claude, "alpha")
    memory(sessions / "memory")
    assert [s.off for s in discover(env)] == [None]


def test_a_shared_store_is_switched_off_the_same_whichever_project_sorts_first(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    memory(tmp_path / "home" / "mem")
    write(claude / "settings.json", json.dumps({"autoMemoryDirectory": "~/mem"}))
    first, _ = project(tmp_path, claude, "aaa")
    last, _ = project(tmp_path, claude, "zzz", SESSION_IDS[1])

    verdicts = []
    for off, on in ((first, last), (last, first)):
        write(off / ".claude" / "settings.json", json.dumps({"autoMemoryEnabled": False}))
        write(on / ".claude" / "settings.json", "{}")
        [store] = discover(env)
        verdicts.append(store.off is None)

    assert verdicts[0] == verdicts[1]


def test_a_symlinked_store_is_followed_and_known_by_its_real_path(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    """Claude Code follows a linked memory folder; so does discovery, and the store is one
    root however many links reach it (the first kind found names it)."""
    real = tmp_path / "real"
    memory(real)
    alpha, sessions = project(tmp_path, claude, "alpha")
    (sessions / "memory").symlink_to(real)
    (claude / "agent-memory").mkdir()
    (claude / "agent-memory" / "linked").symlink_to(real)

    found = discover(env)

    assert [(s.path, s.kind) for s in found] == [(real, "auto")]


def test_an_auto_memory_directory_holding_nothing_yet_is_no_store(
        tmp_path: Path, claude: Path, env: dict[str, str]) -> None:
    empty = tmp_path / "home" / "mem"
    empty.mkdir()
    write(empty / "readme.txt", "not memory\n")
    write(claude / "settings.json", json.dumps({"autoMemoryDirectory": "~/mem"}))
    _alpha, sessions = project(tmp_path, claude, "alpha")
    memory(sessions / "memory")  # the folder it moved from: ignored

    assert discover(env) == []
