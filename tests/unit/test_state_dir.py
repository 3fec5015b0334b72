"""paths.state_dir: every step of the lookup order, and the fallback that keeps the state out
of the config's folder when systemd before 254 hands a user unit ``~/.config/…``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from consolidator import config
from consolidator.roots import paths

APP = "dream-consolidator"
DEFAULTS = config.Config()


def _cfg(folder: Path) -> config.Config:
    return config.Config(state=config.StateSection(dir=str(folder)))


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), **extra}


# --- each step, and that it wins over every later one ---------------------------------------


def test_the_flag_wins_over_everything(tmp_path: Path) -> None:
    env = _env(tmp_path, CONSOLIDATOR_STATE_DIR=str(tmp_path / "envdir"),
               STATE_DIRECTORY=str(tmp_path / "systemd"), XDG_STATE_HOME=str(tmp_path / "xdg"))
    got = paths.state_dir(str(tmp_path / "flag"), _cfg(tmp_path / "cfg"), env)
    assert got == tmp_path / "flag"


def test_the_flag_expands_tilde_and_is_made_absolute(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.state_dir("~/st", DEFAULTS, _env(tmp_path)) == tmp_path / "st"
    monkeypatch.chdir(tmp_path)
    assert paths.state_dir("rel", DEFAULTS, _env(tmp_path)) == tmp_path / "rel"


def test_the_environment_variable_wins_over_config_systemd_and_xdg(tmp_path: Path) -> None:
    env = _env(tmp_path, CONSOLIDATOR_STATE_DIR=str(tmp_path / "envdir"),
               STATE_DIRECTORY=str(tmp_path / "systemd"), XDG_STATE_HOME=str(tmp_path / "xdg"))
    assert paths.state_dir(None, _cfg(tmp_path / "cfg"), env) == tmp_path / "envdir"


def test_the_config_wins_over_systemd_and_xdg(tmp_path: Path) -> None:
    env = _env(tmp_path, STATE_DIRECTORY=str(tmp_path / "systemd"),
               XDG_STATE_HOME=str(tmp_path / "xdg"))
    assert paths.state_dir(None, _cfg(tmp_path / "cfg"), env) == tmp_path / "cfg"


def test_systemds_state_directory_wins_over_xdg(tmp_path: Path) -> None:
    env = _env(tmp_path, STATE_DIRECTORY=str(tmp_path / "var" / "lib" / APP),
               XDG_STATE_HOME=str(tmp_path / "xdg"))
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / "var" / "lib" / APP


def test_of_several_state_directories_the_first_is_used(tmp_path: Path) -> None:
    env = _env(tmp_path, STATE_DIRECTORY=f"{tmp_path / 'one'}:{tmp_path / 'two'}")
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / "one"


def test_an_empty_state_directory_is_no_state_directory(tmp_path: Path) -> None:
    env = _env(tmp_path, STATE_DIRECTORY="", XDG_STATE_HOME=str(tmp_path / "xdg"))
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / "xdg" / APP


def test_systemd_254s_user_state_directory_is_used_as_given(tmp_path: Path) -> None:
    state = tmp_path / ".local" / "state" / APP  # what StateDirectory= gives on 254 and later
    state.mkdir(parents=True)
    (tmp_path / ".config" / APP).mkdir(parents=True)
    env = _env(tmp_path, STATE_DIRECTORY=str(state))
    assert paths.state_dir(None, DEFAULTS, env) == state


def test_xdg_state_home_comes_next(tmp_path: Path) -> None:
    env = _env(tmp_path, XDG_STATE_HOME=str(tmp_path / "xdg"))
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / "xdg" / APP


def test_the_last_resort_is_local_state_in_home(tmp_path: Path) -> None:
    assert paths.state_dir(None, DEFAULTS, _env(tmp_path)) == tmp_path / ".local" / "state" / APP


def test_empty_variables_count_as_unset(tmp_path: Path) -> None:
    env = _env(tmp_path, CONSOLIDATOR_STATE_DIR="", STATE_DIRECTORY="", XDG_STATE_HOME="")
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / ".local" / "state" / APP


# --- the fallback: systemd before 254 gives a user unit ~/.config/dream-consolidator ---------


def test_systemd_before_254s_config_folder_falls_back_to_local_state(tmp_path: Path) -> None:
    given = tmp_path / ".config" / APP  # StateDirectory= of a user unit on systemd < 254
    given.mkdir(parents=True)
    (given / "config.toml").write_text("")
    env = _env(tmp_path, STATE_DIRECTORY=str(given))
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / ".local" / "state" / APP


def test_the_fallback_honours_xdg_state_home(tmp_path: Path) -> None:
    given = tmp_path / ".config" / APP
    given.mkdir(parents=True)
    env = _env(tmp_path, STATE_DIRECTORY=str(given), XDG_STATE_HOME=str(tmp_path / "xdg"))
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / "xdg" / APP


def test_the_fallback_applies_to_a_folder_inside_the_config_folder(tmp_path: Path) -> None:
    given = tmp_path / ".config" / APP / "state"
    env = _env(tmp_path, STATE_DIRECTORY=str(given))
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / ".local" / "state" / APP


def test_the_fallback_applies_under_xdg_config_home(tmp_path: Path) -> None:
    config_home = tmp_path / "cfghome"
    given = config_home / APP  # systemd < 254 uses the manager's $XDG_CONFIG_HOME
    given.mkdir(parents=True)
    env = _env(tmp_path, STATE_DIRECTORY=str(given), XDG_CONFIG_HOME=str(config_home))
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / ".local" / "state" / APP


def test_home_dot_config_is_checked_even_when_xdg_config_home_points_elsewhere(
    tmp_path: Path,
) -> None:
    given = tmp_path / ".config" / APP
    env = _env(tmp_path, STATE_DIRECTORY=str(given), XDG_CONFIG_HOME=str(tmp_path / "other"))
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / ".local" / "state" / APP


def test_the_fallback_sees_through_a_symlinked_config_home(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "config"
    (dotfiles / APP).mkdir(parents=True)
    os.symlink(dotfiles, tmp_path / ".config")
    env = _env(tmp_path, STATE_DIRECTORY=str(dotfiles / APP))  # the same folder, resolved
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / ".local" / "state" / APP


def test_the_fallback_checks_only_the_first_state_directory(tmp_path: Path) -> None:
    env = _env(tmp_path, STATE_DIRECTORY=f"{tmp_path / '.config' / APP}:{tmp_path / 'ok'}")
    assert paths.state_dir(None, DEFAULTS, env) == tmp_path / ".local" / "state" / APP


def test_another_folder_under_config_is_not_the_config_folder(tmp_path: Path) -> None:
    # Only the tool's own config folder is avoided, not the whole of ~/.config, and not a
    # sibling whose name merely starts the same.
    for name in ("other-app", APP + "-state"):
        given = tmp_path / ".config" / name
        env = _env(tmp_path, STATE_DIRECTORY=str(given))
        assert paths.state_dir(None, DEFAULTS, env) == given


@pytest.mark.parametrize("how", ["flag", "env", "config"])
def test_an_explicit_choice_of_the_config_folder_is_kept(tmp_path: Path, how: str) -> None:
    # The fallback only corrects what systemd picked; a folder the user names is theirs.
    chosen = tmp_path / ".config" / APP
    env = _env(tmp_path, STATE_DIRECTORY=str(chosen))
    if how == "flag":
        got = paths.state_dir(str(chosen), DEFAULTS, env)
    elif how == "env":
        got = paths.state_dir(None, DEFAULTS, {**env, "CONSOLIDATOR_STATE_DIR": str(chosen)})
    else:
        got = paths.state_dir(None, _cfg(chosen), env)
    assert got == chosen


def test_systemd_254s_compatibility_link_is_followed_not_refused(tmp_path: Path) -> None:
    # systemd 254+ links a missing ~/.local/state/<name> to an existing ~/.config/<name>.
    # The fallback is that same path: it is returned as it is (deploy/README.md tells how
    # to replace the link by a folder); state_dir neither fails nor invents another place.
    config_folder = tmp_path / ".config" / APP
    config_folder.mkdir(parents=True)
    link = tmp_path / ".local" / "state" / APP
    link.parent.mkdir(parents=True)
    os.symlink(os.path.relpath(config_folder, link.parent), link)
    env = _env(tmp_path, STATE_DIRECTORY=str(link))
    assert paths.state_dir(None, DEFAULTS, env) == link
