"""Conflicts by key: one named tool given two versions by two memories, worded differently;
and the numbers beside names that count, order, date or name parts, or that hold in two
places at once, which never conflict."""

from __future__ import annotations

import pytest

from consolidator.detect.conflicts.versions import find_version_conflicts
from tests.unit.test_detect import MID, NEW, OLD, lines, memory


def pairs(*memories: object) -> list[tuple[str, str]]:
    return [c.files for c in find_version_conflicts(memories)]  # type: ignore[arg-type]


def test_one_tool_given_two_versions_in_other_words_is_a_conflict_naming_the_newer() -> None:
    old = memory("project_perf.md", lines(
        "# Performance", "1. **Astro 5 with islands** is close to required for a perfect score."),
        written=OLD)
    new = memory("project_stack.md", lines(
        "- Settled stack: Astro 6 + React 19 islands + Tailwind 4, built with npm."),
        written=NEW)

    (found,) = find_version_conflicts([old, new])

    assert found.files == ("project_perf.md", "project_stack.md")
    assert found.newer == "project_stack.md"
    assert found.keyed
    assert found.reason == "project_perf.md says Astro 5 where project_stack.md says Astro 6"
    assert found.evidence == (
        "1. **Astro 5 with islands** is close to required for a perfect score.",
        "- Settled stack: Astro 6 + React 19 islands + Tailwind 4, built with npm.")


def test_a_stack_may_hold_a_remark_between_its_names() -> None:
    old = memory("project_perf.md", "1. **Astro 5 with islands** is close to required.\n",
                 written=OLD)
    new = memory("project_stack.md", "- Settled: Astro 6 (SSR) + React 19 islands.\n",
                 written=NEW)

    assert pairs(old, new) == [("project_perf.md", "project_stack.md")]


def test_a_package_pinned_in_code_and_a_dotted_version_are_keys_too() -> None:
    pinned = [memory("project_web.md", "The site builds with `astro@5.2.1`.\n", written=OLD),
              memory("project_ci.md", "CI builds the site with `astro@6.0.3`.\n", written=MID)]
    dotted = [memory("setup.md", "The API image runs Python 3.11 with Django 5.0 in production."
                     "\n", written=OLD),
              memory("deploy.md", "Production runs Python 3.12 since the upgrade.\n",
                     written=NEW)]

    (found,) = find_version_conflicts(pinned)
    assert found.reason == ("project_ci.md says astro 6.0.3 where project_web.md says "
                            "astro 5.2.1")
    assert found.newer == "project_ci.md"
    assert pairs(*dotted) == [("deploy.md", "setup.md")]


# Pairs (or more) of memories that never conflict, each a file name and a body, by what
# keeps them apart.
NEVER = {
    # A heading that numbers a name makes it a part.
    "phases a heading numbers": [("plan_a.md", "## Phase 1\n- Phase 1 ships the importer.\n"),
                                 ("plan_b.md", "- Phase 2 ships the importer's retries.\n")],
    "a ranking a heading numbers": [("videos.md", "### Top 15\n- the list of channels\n"),
                                    ("channels.md", "- Top 5 channels by views are tracked.\n")],
    # A word the prose also writes in lower case is a word (here at a sentence's start).
    "a word, not a name": [("kanban.md", "- Fase 1 concluída; a próxima fase começa em março.\n"),
                           ("updates.md", "- Fase 6 concluída com a versão estável.\n")],
    # A whole number counts only for a name listed in a stack or pinned.
    "counters": [("sprint_a.md", "Sprint 12 ends on Friday with the demo.\n"),
                 ("sprint_b.md", "Sprint 13 ends on Friday with the review.\n")],
    "German nouns": [("buch_a.md", "Kapitel 3 beschreibt den Import der Daten.\n"),
                     ("buch_b.md", "Kapitel 4 beschreibt den Export der Daten.\n")],
    "a month's days": [("release.md", "Release 1.4 went out on June 5 after the review.\n"),
                       ("retro.md", "The review retro is set for June 12 this year.\n")],
    # Two lines sharing no word but the name: two places, each with its version.
    "one tool in two places": [("local.md", "Python 3.12 locally, from pyenv.\n"),
                               ("server.md", "Python 3.10 on the prod server, from the "
                                             "distribution.\n")],
    "a minimum": [("setup.md", "Scripts need Python 3.8+ with tkinter.\n"),
                  ("check.md", "Scripts run on Python 3.12 with tkinter.\n")],
    "a minimum written out": [("setup.md", "Scripts need Python 3.8 or later.\n"),
                              ("check.md", "Scripts run on Python 3.12 here.\n")],
    "ranges pin nothing": [("setup.md", "Pin `django>=4.2` and `astro@^5.2` in the manifests.\n"),
                           ("check.md", "The manifests pin `django==5.1` and `astro@6.0.1`.\n")],
    "a refinement": [("setup.md", "The service runs Python 3.\n"),
                     ("check.md", "The service tests run on Python 3.11.\n")],
    "a move noted": [("upgrade.md", "Moved the app from Next 14.2 to Next 15.1 last sprint.\n"),
                     ("app.md", "The app is built on Next 14.2 today.\n")],
    "a move noted without the name": [
        ("pitfalls.md", "- Gradle 8.9 + AGP 9.0.0 failed: it needs a newer Gradle.\n"
                        "- Fix: went back down to 8.7.3, which the cached Gradle builds.\n"),
        ("status.md", "- Skeleton: Gradle 8.9 + AGP 8.7.3 + Kotlin 2.0 build fine.\n")],
    "a third value": [("a.md", "The API service needs Node 16.20.\n"),
                      ("b.md", "The web service needs Node 18.19.\n"),
                      ("c.md", "The worker service needs Node 20.11.\n")],
    "names with digits": [("storage.md", "Backups go to S3 and the app runs on EC2.\n"),
                          ("other.md", "Logs of the app go to S4 nowhere.\n")],
    "a code block": [("run.md", "```\nAstro 5.1 build of the site\n```\n"),
                     ("stack.md", "We build the site with Astro 6.0.\n")],
    # A dotted number names no tool unless the directory lists the name in a stack or pins it.
    "sections": [("a.md", "See Section 4.2 for the schema rules.\n"),
                 ("b.md", "See Section 4.3 for the schema rules.\n")],
    "one tool on two hosts": [("build.md", "The build host runs Ubuntu 22.04 with Docker.\n"),
                              ("db.md", "The db host runs Ubuntu 24.04 with Docker.\n")],
    "a memory's own number": [("widget_2.4_notes.md", "Notes: Widget 2.4 ships the export.\n"),
                              ("widget.md", "Widget 2.5 ships the export next.\n")],
    # A factor ("2.3×") is how many times one figure is another, no version.
    "factors": [("result.md", "- Profit factor: BTC 1.239 / XAU 1.083 out of sample.\n"),
                ("fix.md", "- Drawdown shrank (BTC 7.5×, XAU 2.3×) out of sample.\n")],
    "factors written apart": [
        ("result.md", "- Profit factor: BTC 1.239 / XAU 1.083 out of sample.\n"),
        ("fix.md", "- Drawdown shrank (BTC 7.5 ×, XAU 2.3 ×) out of sample.\n")],
    # A record and one of its points are two numbers on one line, not a stack: no joiner.
    "a record and its point": [
        ("bridge.md", "The spec's KDR 14 neuer Punkt 5 covers the font bridge of the chart.\n"),
        ("chrome.md", "The contract of the chart (KDR 15) was fixed before the code.\n")],
}


@pytest.mark.parametrize("case", sorted(NEVER))
def test_numbers_that_count_order_date_or_name_parts_never_conflict(case: str) -> None:
    assert pairs(*(memory(file, body) for file, body in NEVER[case])) == []


def test_two_things_filled_into_one_template_are_no_disagreement() -> None:
    def server(file: str, ram: int, cpu: int, ubuntu: str) -> object:
        return memory(file, lines("| | |", "|---|---|", f"| RAM | {ram} GB |",
                                  f"| CPU | {cpu} cores |", f"| OS | Ubuntu {ubuntu} |"))

    assert pairs(server("build.md", 64, 16, "24.04"), server("db.md", 256, 32, "22.04")) == []
