from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from consolidator import config
from consolidator.errors import ConfigError
from consolidator.roots import layout, paths
from consolidator.state import statedir

REPO = Path(__file__).resolve().parents[2]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_config_equals_the_built_in_defaults() -> None:
    assert config.load(REPO / "config.toml") == config.Config()


def test_every_shipped_key_carries_a_comment() -> None:
    lines = (REPO / "config.toml").read_text().splitlines()
    for i, line in enumerate(lines):
        if line and not line.startswith(("#", "[")) and "=" in line:
            assert lines[i - 1].startswith("#"), f"no comment above {line!r}"
    assert sum(1 for line in lines if line.startswith("# ") and " = " in line) >= 4


def test_every_default_key_is_in_the_shipped_config() -> None:
    import re

    text = (REPO / "config.toml").read_text()
    data = tomllib.loads(re.sub(r"(?m)^# (\w+ = )", r"\1", text))
    for section, cls in config._SECTIONS.items():
        for field in cls.__dataclass_fields__:
            assert field in data[section], f"{section}.{field} missing from config.toml"


def test_unknown_key_is_rejected_with_a_suggestion(tmp_path: Path) -> None:
    path = _write(tmp_path, "[gates]\nmin_sesions = 3\n")
    with pytest.raises(ConfigError) as err:
        config.load(path)
    assert err.value.problems == ["gates.min_sesions: unknown key (did you mean 'min_sessions'?)"]


def test_every_problem_is_reported_at_once_with_its_key_path(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '[gates]\nidle_minutes = "soon"\nenabled = 1\n[index]\nmax_lines = 5\n'
        '[memory]\nroots = ["~/a/[b"]\n[llm]\nbackend = "openai"\n[logs]\nlevel = "info"\n',
    )
    with pytest.raises(ConfigError) as err:
        config.load(path)
    problems = "\n".join(err.value.problems)
    for key in ("gates.idle_minutes", "gates.enabled", "index.max_lines", "memory.roots[0]",
                "llm.backend", "logs: unknown section (did you mean 'log'?)"):
        assert key in problems
    assert len(err.value.problems) == 6


def test_cron_and_interval_together_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, '[schedule]\ncron = "* * * * *"\ninterval_seconds = 60\n')
    with pytest.raises(ConfigError, match="either cron or interval_seconds"):
        config.load(path)


def test_a_bad_cron_expression_names_its_key(tmp_path: Path) -> None:
    path = _write(tmp_path, '[schedule]\ncron = "61 * * * *"\n')
    with pytest.raises(ConfigError, match="schedule.cron"):
        config.load(path)


def test_interval_alone_replaces_the_default_cron(tmp_path: Path) -> None:
    cfg = config.load(_write(tmp_path, "[schedule]\ninterval_seconds = 30\n"))
    assert cfg.schedule.cron is None and cfg.schedule.interval_seconds == 30


def test_invalid_toml_is_one_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        config.load(_write(tmp_path, "[gates\n"))


def test_missing_explicit_config_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        config.load(tmp_path / "nope.toml")


def test_config_lookup_prefers_flag_then_environment_then_user_file(tmp_path: Path) -> None:
    user = tmp_path / "xdg" / "dream-consolidator" / "config.toml"
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert paths.config_path(None, env) is None
    user.parent.mkdir(parents=True)
    user.write_text("")
    assert paths.config_path(None, env) == user
    assert paths.config_path(None, {**env, "CONSOLIDATOR_CONFIG": "/x.toml"}) == Path("/x.toml")
    assert paths.config_path("/y.toml", {**env, "CONSOLIDATOR_CONFIG": "/x.toml"}) == Path("/y.toml")


def test_state_dir_lookup_follows_the_documented_order(tmp_path: Path) -> None:
    cfg = config.Config(state=config.StateSection(dir=str(tmp_path / "cfg")))
    env = {"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "xdg"),
           "STATE_DIRECTORY": str(tmp_path / "systemd"),
           "CONSOLIDATOR_STATE_DIR": str(tmp_path / "envdir")}
    assert paths.state_dir(str(tmp_path / "flag"), cfg, env) == tmp_path / "flag"
    assert paths.state_dir(None, cfg, env) == tmp_path / "envdir"
    del env["CONSOLIDATOR_STATE_DIR"]
    assert paths.state_dir(None, cfg, env) == tmp_path / "cfg"
    assert paths.state_dir(None, config.Config(), env) == tmp_path / "systemd"
    del env["STATE_DIRECTORY"]
    assert paths.state_dir(None, config.Config(), env) == tmp_path / "xdg" / "dream-consolidator"
    del env["XDG_STATE_HOME"]
    assert paths.state_dir(None, config.Config(), env) == (
        tmp_path / ".local" / "state" / "dream-consolidator"
    )


def test_configured_globs_expand_to_each_matching_memory_folder(tmp_path: Path) -> None:
    projects = tmp_path / ".claude" / "projects"
    (projects / "-home-a" / "memory").mkdir(parents=True)
    (projects / "-home-a" / "memory" / "MEMORY.md").write_text("# index\n")
    (projects / "-home-b" / "memory").mkdir(parents=True)
    (projects / "-home-b" / "memory" / "user_role.md").write_text(
        "---\nname: role\ndescription: who the user is\ntype: user\n---\nA tester.\n")
    (projects / "-home-c").mkdir()
    (projects / "-home-d" / "memory").mkdir(parents=True)  # empty: not a root
    found = paths.roots(None, config.Config(), {"HOME": str(tmp_path)})
    assert [s.path.parent.name for s in found] == ["-home-a", "-home-b"]
    assert {s.kind for s in found} == {"auto"}


MEMORY_SHAPED = {
    "flat": "---\nname: a\ndescription: b\ntype: user\n---\nx\n",
    "two of three": "---\nname: a\ndescription: b\n---\nx\n",
    "nested type, CRLF, BOM": "\ufeff---\r\nname: a\r\nmetadata:\r\n  type: user\r\n---\r\n",
    "extra keys first": "---\noriginSessionId: 1\nnode_type: memory\nName: a\ntype: x\n---\n",
}
NOT_MEMORY_SHAPED = {
    "blog post": "---\ntitle: Hello\ndate: 2024-01-01\ndescription: a post\n---\nText.\n",
    "no frontmatter": "# Notes\nname: this is the body\ndescription: also body\n",
    "keys after the fence": "---\ntitle: t\n---\nname: a\ndescription: b\n",
    "nested type only": "---\nmetadata:\n  type: user\n---\n",
}


@pytest.mark.parametrize("case", sorted(MEMORY_SHAPED))
def test_a_folder_with_a_memory_shaped_file_is_a_memory_dir(tmp_path: Path, case: str) -> None:
    (tmp_path / "x.md").write_text(MEMORY_SHAPED[case], encoding="utf-8", newline="")
    assert layout.holds_memories(tmp_path)


@pytest.mark.parametrize("case", sorted(NOT_MEMORY_SHAPED))
def test_a_folder_without_one_is_not(tmp_path: Path, case: str) -> None:
    (tmp_path / "x.md").write_text(NOT_MEMORY_SHAPED[case], encoding="utf-8")
    assert not layout.holds_memories(tmp_path)


@pytest.mark.parametrize("name", ["MEMORY.md", "memory.md"])
def test_an_index_alone_makes_a_memory_dir_without_reading_a_file(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / name).write_text("# index\n")
    (tmp_path / "a.md").write_text("no frontmatter\n")
    monkeypatch.setattr(layout, "_memory_head", lambda path: pytest.fail(f"read {path}"))
    assert layout.holds_memories(tmp_path)


def test_the_shape_check_reads_a_few_file_heads_and_stops_at_the_first_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(200):
        (tmp_path / f"note_{i:03d}.md").write_text("# a note\n" * 5000)
    read: list[str] = []
    real = layout._memory_head
    monkeypatch.setattr(layout, "_memory_head", lambda p: read.append(p.name) or real(p))
    assert not layout.holds_memories(tmp_path)
    assert len(read) == layout.SHAPE_FILES
    (tmp_path / "a_memory.md").write_text(MEMORY_SHAPED["flat"])
    read.clear()
    assert layout.holds_memories(tmp_path)
    assert read == ["a_memory.md"]


def test_a_memory_file_that_is_a_symlink_does_not_count(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text(MEMORY_SHAPED["flat"])
    root = tmp_path / "root"
    root.mkdir()
    (root / "x.md").symlink_to(tmp_path / "real.md")
    assert not layout.holds_memories(root)


def test_a_folder_reached_twice_through_a_symlink_is_one_root(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("# index\n")
    (tmp_path / "alias").symlink_to(root)
    found = paths.roots([str(root), str(tmp_path / "alias")], config.Config(), {})
    assert [s.path for s in found] == [root]


def test_is_within_sees_through_dot_dot_and_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(root)
    assert paths.is_within(tmp_path / "other" / ".." / "memory" / "x", root)
    assert paths.is_within(tmp_path / "alias" / "sub" / "new" / "file", root)
    assert paths.is_within(root, tmp_path / "alias")
    assert not paths.is_within(tmp_path / "memory-2" / "x", root)
    assert not paths.is_within(tmp_path, root)


# --------------------------------------------------------------------------- values that fail later


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[schedule]\ninterval_seconds = 9223372036854775807\n", "schedule.interval_seconds"),
        ("[schedule]\ninterval_seconds = 31536001\n", "schedule.interval_seconds"),
        ("[gates]\nidle_minutes = 9223372036854775807\n", "gates.idle_minutes"),
        ("[gates]\nmin_hours = 8761\n", "gates.min_hours"),
        ("[gates]\nscan_interval_minutes = 525601\n", "gates.scan_interval_minutes"),
        ("[gates]\nlock_stale_minutes = 9999999999\n", "gates.lock_stale_minutes"),
        ("[llm]\ntimeout_seconds = 9223372036854775807\n", "llm.timeout_seconds"),
        ("[index]\nmax_bytes = 9223372036854775807\n", "index.max_bytes"),
    ],
)
def test_numbers_past_their_sane_bound_are_rejected(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        config.load(_write(tmp_path, text))
    (problem,) = err.value.problems
    assert problem.startswith(f"{key}: must be at most"), problem


def test_a_year_is_the_longest_interval(tmp_path: Path) -> None:
    cfg = config.load(_write(tmp_path, "[schedule]\ninterval_seconds = 31536000\n"))
    assert cfg.schedule.interval_seconds == 365 * 24 * 3600
    with pytest.raises(ConfigError, match=r"at most 31536000 s \(one year\)"):
        config.load(_write(tmp_path, "[schedule]\ninterval_seconds = 31536001\n"))


@pytest.mark.parametrize("key", [
    ("state", "dir"), ("memory", "transcripts_dir"), ("memory", "project_root"),
    ("llm", "base_url"), ("llm", "model"),
])
def test_a_nul_byte_in_any_string_is_rejected(tmp_path: Path, key: tuple[str, str]) -> None:
    section, name = key
    with pytest.raises(ConfigError) as err:
        config.load(_write(tmp_path, f'[{section}]\n{name} = "a\\u0000b"\n'))
    assert err.value.problems == [f"{section}.{name}: NUL byte in 'a\\x00b'"]


def test_a_nul_byte_in_a_root_glob_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"memory.roots\[1\]: NUL byte"):
        config.load(_write(tmp_path, '[memory]\nroots = ["~/m", "~/a\\u0000"]\n'))


@pytest.mark.parametrize("expr", ["0 0 30 2 *", "0 0 31 4 *", "0 0 31 11 *", "0 0 31 2,4 *"])
def test_a_cron_expression_that_never_fires_is_rejected(tmp_path: Path, expr: str) -> None:
    with pytest.raises(ConfigError) as err:
        config.load(_write(tmp_path, f'[schedule]\ncron = "{expr}"\n'))
    (problem,) = err.value.problems
    assert problem.startswith("schedule.cron:") and "never fires" in problem


@pytest.mark.parametrize("expr", ["*/10 * * * *", "0 0 29 2 *", "0 3 31 * *", "0 0 1 1 0"])
def test_a_cron_expression_that_fires_even_rarely_is_accepted(tmp_path: Path, expr: str) -> None:
    assert config.load(_write(tmp_path, f'[schedule]\ncron = "{expr}"\n')).schedule.cron == expr


@pytest.mark.parametrize("expr", ["*/0 * * * *", "0 0 0 * *", "a b c d e"])
def test_a_cron_expression_apscheduler_rejects_is_one_problem(tmp_path: Path, expr: str) -> None:
    with pytest.raises(ConfigError) as err:
        config.load(_write(tmp_path, f'[schedule]\ncron = "{expr}"\n'))
    (problem,) = err.value.problems
    assert problem.startswith("schedule.cron: invalid crontab expression"), problem


def test_root_keys_are_unique_per_path() -> None:
    assert statedir.root_key(Path("/a/b-c")) != statedir.root_key(Path("/a/b/c"))


def test_a_folder_has_one_root_key_under_every_name_and_old_keys_still_match(
    tmp_path: Path,
) -> None:
    real = tmp_path / "mem"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    names = [real, tmp_path / "alias", tmp_path / "alias" / ".." / "mem"]
    assert len({statedir.root_key(n) for n in names}) == 1
    state = tmp_path / "st"
    for name in names:
        assert statedir.kept_for(state / statedir.root_key(real), str(name))
    earlier = state / statedir.text_key(str(tmp_path / "alias"))  # an earlier build's name
    assert statedir.kept_for(earlier, str(tmp_path / "alias"))
    assert not statedir.kept_for(earlier, str(real))
