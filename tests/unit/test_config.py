from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from consolidator import config, paths
from consolidator.errors import ConfigError

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


def test_configured_globs_expand_to_each_matching_folder(tmp_path: Path) -> None:
    for project in ("-home-a", "-home-b"):
        (tmp_path / ".claude" / "projects" / project / "memory").mkdir(parents=True)
    (tmp_path / ".claude" / "projects" / "-home-c").mkdir()
    found = paths.roots(None, config.Config(), {"HOME": str(tmp_path)})
    assert [p.parent.name for p in found] == ["-home-a", "-home-b"]


def test_root_keys_are_unique_per_path() -> None:
    assert paths.root_key(Path("/a/b-c")) != paths.root_key(Path("/a/b/c"))
