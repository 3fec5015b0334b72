"""The installed command as a subprocess: exit codes, one-line errors, outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "consolidator", *args],
        capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})},
    )


def test_help_lists_the_commands_and_exit_codes() -> None:
    proc = _run("--help")
    assert proc.returncode == 0
    assert "report" in proc.stdout and "75" in proc.stdout


def test_report_markdown_on_the_example(tmp_path: Path, example_copy: Path) -> None:
    proc = _run("report", "--memory-dir", str(example_copy), "--state-dir", str(tmp_path / "s"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Dream Consolidator report")
    assert "project_old_payments.md" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_report_json_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    proc = _run("report", "--format", "json", "--output", str(out),
                "--memory-dir", str(EXAMPLES / "memory"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["roots"][0]["status"] == "planned"


def test_missing_memory_dir_is_a_one_line_usage_error(tmp_path: Path) -> None:
    proc = _run("report", "--memory-dir", str(tmp_path / "nope"))
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no such directory" in proc.stderr


def test_a_file_as_memory_dir_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    proc = _run("report", "--memory-dir", str(tmp_path / "f"))
    assert proc.returncode == 2 and "not a directory" in proc.stderr


def test_unknown_command_is_a_usage_error() -> None:
    proc = _run("frobnicate")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv", [["run", "--forc"], ["report", "--form", "json"],
                                  ["--memory", "x", "report"]])
def test_an_option_named_by_a_prefix_is_a_usage_error_and_does_nothing(
    tmp_path: Path, argv: list[str]
) -> None:
    proc = _run(*argv, "--state-dir", str(tmp_path / "st"), env={"HOME": str(tmp_path)})
    assert proc.returncode == 2
    assert "consolidator: error: " in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "st").exists()


def test_config_check_lists_every_problem_with_its_key_path(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[gates]\nidle_minute = 5\nmin_hours = "x"\n')
    proc = _run("config", "check", "--config", str(cfg))
    assert proc.returncode == 2
    assert "gates.idle_minute: unknown key (did you mean 'idle_minutes'?)" in proc.stderr
    assert "gates.min_hours: expected int" in proc.stderr


def test_config_check_accepts_the_shipped_config() -> None:
    proc = _run("config", "check", "--config", str(EXAMPLES.parent / "config.toml"))
    assert proc.returncode == 0 and proc.stdout.splitlines()[0].endswith(": ok")
    assert "memory dir" in proc.stdout  # then the roots it finds (none here)


MISSING = {  # the config's line -> the key path the error names
    "memory dir": ('[memory]\nroots = ["{tmp}/gone/memory"]\n', "memory.roots[0]", "gone/memory"),
    "transcripts": ('[memory]\ntranscripts_dir = "{tmp}/gone"\n', "memory.transcripts_dir",
                    "gone"),
    "state dir": ('[state]\ndir = "{tmp}/gone/state"\n', "state.dir", "gone/state"),
    "metrics folder": ('[metrics]\ntextfile = "{tmp}/gone/textfile/c.prom"\n', "metrics.textfile",
                       "gone/textfile"),
}


@pytest.mark.parametrize("case", sorted(MISSING))
def test_config_check_fails_for_a_configured_folder_that_does_not_exist(
    tmp_path: Path, case: str
) -> None:
    text, key, folder = MISSING[case]
    cfg = tmp_path / "c.toml"
    cfg.write_text(text.format(tmp=tmp_path))
    proc = _run("config", "check", "--config", str(cfg))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stdout == "", "no ok"
    assert f"config error in {cfg}" in proc.stderr
    assert f"{key}: " in proc.stderr and str(tmp_path / folder) in proc.stderr
    assert "does not exist" in proc.stderr and "Traceback" not in proc.stderr

    (tmp_path / folder).mkdir(parents=True)
    if case == "memory dir":
        (tmp_path / folder / "a.md").write_text("---\nname: a\ndescription: d\ntype: user\n---\nA.\n")
    fixed = _run("config", "check", "--config", str(cfg))
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stdout.splitlines()[0] == f"{cfg}: ok"


def test_config_check_fails_for_a_state_dir_flag_that_does_not_exist(tmp_path: Path) -> None:
    proc = _run("config", "check", "--state-dir", str(tmp_path / "gone"))
    assert proc.returncode == 2
    assert f"--state-dir: {tmp_path / 'gone'} does not exist" in proc.stderr


def test_config_check_fails_for_a_textfile_that_is_a_folder(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[metrics]\ntextfile = "{tmp_path}"\n')
    proc = _run("config", "check", "--config", str(cfg))
    assert proc.returncode == 2 and "metrics.textfile" in proc.stderr


def test_config_from_the_environment_is_used(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[nope]\n")
    proc = _run("config", "check", env={"CONSOLIDATOR_CONFIG": str(cfg)})
    assert proc.returncode == 2 and "nope: unknown section" in proc.stderr


def test_config_check_names_the_command_line_as_the_source_of_a_flags_folder(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "no-state"
    proc = _run("config", "check", "--state-dir", str(missing))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "config error in the command line:" in proc.stderr
    assert f"--state-dir: {missing} does not exist" in proc.stderr
    assert "built-in defaults" not in proc.stderr


def test_report_llm_with_the_offline_backend_says_no_model_was_asked(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "feedback_x.md").write_text(
        "---\nname: x\ndescription: a rule\ntype: feedback\n---\nAlways run the linter.\n")
    config = tmp_path / "config.toml"
    config.write_text('[llm]\nbackend = "offline"\n')
    proc = _run("report", "--llm", "--memory-dir", str(root), "--config", str(config),
                "--state-dir", str(tmp_path / "state"))
    assert proc.returncode == 0, proc.stderr
    assert '--llm: llm.backend is "offline", so no model was asked' in proc.stdout


def test_status_lists_the_roots_the_state_dir_keeps_state_for(tmp_path: Path) -> None:
    # A run given --memory-dir keeps that root's state; status with the same state dir shows
    # it without being told again (as history, proposals and undo do).
    home = tmp_path / "home"
    home.mkdir()
    root = tmp_path / "memory"
    root.mkdir()
    (root / "feedback_x.md").write_text(
        "---\nname: x\ndescription: a rule\ntype: feedback\n---\nAlways run the linter.\n")
    state = tmp_path / "state"
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    ran = _run("run", "--force", "--memory-dir", str(root), "--state-dir", str(state), env=env)
    assert ran.returncode == 0, ran.stderr
    proc = _run("status", "--state-dir", str(state), env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith(f"{root} (")
    assert "no memory directory found" not in proc.stderr
