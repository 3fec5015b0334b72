"""Conflicts by key: one named tool given two versions by two memories, worded differently;
and the numbers beside names that count, order or name parts, which never conflict."""

from __future__ import annotations

from consolidator.detect.conflicts.versions import find_version_conflicts
from tests.unit.test_detect import MID, NEW, OLD, lines, memory


def pairs(*memories: object) -> list[tuple[str, str]]:
    return [c.files for c in find_version_conflicts(memories)]  # type: ignore[arg-type]


def test_one_tool_given_two_versions_in_other_words_is_a_conflict_naming_the_newer() -> None:
    old = memory("project_perf.md", lines(
        "# Performance", "1. **Astro 5 with islands** is close to required for a perfect score."),
        written=OLD)
    new = memory("project_stack.md", lines(
        "- Settled stack: Astro 6 + React 19 + Tailwind 4, built with npm."), written=NEW)

    (found,) = find_version_conflicts([old, new])

    assert found.files == ("project_perf.md", "project_stack.md")
    assert found.newer == "project_stack.md"
    assert found.reason == "project_perf.md says Astro 5 where project_stack.md says Astro 6"
    assert found.evidence == (
        "1. **Astro 5 with islands** is close to required for a perfect score.",
        "- Settled stack: Astro 6 + React 19 + Tailwind 4, built with npm.")


def test_a_package_pinned_in_code_is_a_key_too() -> None:
    a = memory("project_web.md", "The site builds with `astro@5.2.1` today.\n", written=OLD)
    b = memory("project_deploy.md", "Deploy installs `astro@6.0.3` first.\n", written=MID)

    (found,) = find_version_conflicts([a, b])

    assert found.reason == ("project_deploy.md says astro 6.0.3 where project_web.md says "
                            "astro 5.2.1")
    assert found.newer == "project_deploy.md"


def test_numbers_that_count_order_or_name_parts_never_conflict() -> None:
    # A heading that numbers a name makes it a part (Phase, Top); a word the prose also writes
    # in lower case is a word, not a name (Fase, at the start of a sentence).
    phases = [memory("plan_a.md", lines("## Phase 1", "- Phase 1 ships the importer.")),
              memory("plan_b.md", lines("- Phase 2 waits for the new schema."))]
    ranked = [memory("videos.md", lines("### Top 15", "- the list")),
              memory("channels.md", lines("- Top 5 channels by views are tracked weekly."))]
    words = [memory("kanban.md", lines("- Fase 1 concluída; a próxima fase começa em março.")),
             memory("updates.md", lines("- Fase 6: publicar a versão estável."))]
    assert pairs(*phases) == []
    assert pairs(*ranked) == []
    assert pairs(*words) == []


def test_a_minimum_a_refinement_a_move_or_a_third_value_is_no_disagreement() -> None:
    minimum = [memory("setup.md", "Needs Python 3.8+ with tkinter.\n"),
               memory("check.md", "Runs on Python 3.12 here.\n")]
    written_out = [memory("setup.md", "Needs Python 3.8 or later.\n"),
                   memory("check.md", "Runs on Python 3.12 here.\n")]
    ranged = [memory("setup.md", "Pin `django>=4.2` and `astro@^5.2` in the manifests.\n"),
              memory("check.md", "We deploy `django==5.1` and `astro@6.0.1`.\n")]
    refined = [memory("setup.md", "The service runs Python 3.\n"),
               memory("check.md", "Tests run on Python 3.11.\n")]
    moved = [memory("upgrade.md", "Moved from Next 14 to Next 15 last sprint.\n"),
             memory("app.md", "The app is built on Next 14.\n")]
    counted = [memory("a.md", "The API needs Node 16.\n"),
               memory("b.md", "The web app needs Node 18.\n"),
               memory("c.md", "The worker needs Node 20.\n")]
    for case in (minimum, written_out, ranged, refined, moved, counted):
        assert pairs(*case) == [], case


def test_names_with_digits_code_blocks_and_a_memorys_own_number_are_no_versions() -> None:
    glued = [memory("storage.md", "Backups go to S3 and the app runs on EC2.\n"),
             memory("other.md", "Logs go to S4 nowhere.\n")]
    fenced = [memory("run.md", lines("```", "Astro 5 build", "```")),
              memory("stack.md", "We run Astro 6.\n")]
    own = [memory("v8_refactor.md", "The V8 engine work: Engine 8 is the target.\n"),
           memory("engine.md", "Engine 9 ships next.\n")]
    assert pairs(*glued) == []
    assert pairs(*fenced) == []
    assert pairs(*own) == []


def test_two_things_filled_into_one_template_are_no_disagreement() -> None:
    def server(file: str, ram: int, cpu: int, ubuntu: str) -> object:
        return memory(file, lines("| | |", "|---|---|", f"| RAM | {ram} GB |",
                                  f"| CPU | {cpu} cores |", f"| OS | Ubuntu {ubuntu} |"))

    assert pairs(server("build.md", 64, 16, "24.04"), server("db.md", 256, 32, "22.04")) == []
