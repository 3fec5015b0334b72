"""The Markdown report a person reads (consolidator.report.markdown.markdown), on RunReports built by
hand: the summary first, each action and each finding once, the memories last."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from consolidator.detect.dates.freshness import age_warning, freshness_text
from consolidator.detect.findings import Conflict, Duplicate, LlmUsage, MemoryInfo, Similar, Stale
from consolidator.gates import GateResult
from consolidator.index.rebuild import IndexPlan
from consolidator.plan import JUDGMENT, SAFE, Action, Archive, Create, Merge, Plan, Rewrite, Waiting
from consolidator.report.json import root_dict
from consolidator.report.markdown import markdown as to_markdown
from consolidator.report.outcome import RootReport, RunReport
from consolidator.store.model import IndexFile, Snapshot, Unparsed
from tests.conftest import gate_results

SECRET = "Zk4mW9qT2xLp"  # made up
OTHER_SECRET = "Hv8rQ3nB6yTw"  # made up

UNREAD = "Files with no frontmatter to read (left untouched)"


def gates(closed: str | None = None) -> tuple[GateResult, ...]:
    return gate_results(closed)


def memory(file: str, days: int, *warnings: str, mtype: str | None = "project") -> MemoryInfo:
    note = age_warning(days)
    return MemoryInfo(file=file, name=file.removesuffix(".md"), type=mtype,
                      mtime_ns=1_780_000_000 * 10**9, age_days=days,
                      freshness=freshness_text(days),
                      warnings=((note,) if note else ()) + warnings)


def merge(keep: str, *others: str, kind: str = SAFE) -> Merge:
    return Merge(file=keep, sources=(keep, *others), kind=kind, data=b"", mtime_ns=0,
                 reason="same lines (similarity 1.00)")


def index_rebuilt() -> Rewrite:
    return Rewrite(file="MEMORY.md", kind=SAFE, data=b"", mtime_ns=0, reason="index rebuilt")


ARCHIVE = Archive(file="old_freeze.md", kind=JUDGMENT,
                  reason="stale: deadline passed: 'until 2026-03-12'",
                  evidence=("Merge freeze until 2026-03-12 for the spring release.",))
DATES = Rewrite(file="demo.md", kind=JUDGMENT, data=b"", mtime_ns=0,
                reason="relative date 'yesterday' -> 2026-11-25",
                evidence=("We agreed on it yesterday. -> We agreed on it 2026-11-25.",))
LINKS = Rewrite(file="checkout.md", kind=SAFE, data=b"", mtime_ns=0,
                reason="links repointed: no_mocks.md -> real_db.md",
                evidence=("See [rules](no_mocks.md). -> See [rules](real_db.md).",))


def full_plan(**changes: Any) -> Plan:
    """A plan with a bit of everything: a merged and an unmerged duplicate, an archived and a
    reported stale memory, a conflict, a similar pair, safe and judgment actions."""
    actions: tuple[Action, ...] = (merge("real_db.md", "no_mocks.md"), ARCHIVE, DATES, LINKS,
                                   index_rebuilt())
    values: dict[str, Any] = dict(
        memories=(
            memory("real_db.md", 12),
            memory("no_mocks.md", 40),
            memory("old_freeze.md", 270),
            memory("demo.md", 6),
            memory("checkout.md", 16),
            memory("auth.md", 120, "no description in frontmatter"),
            memory("tea.md", 0, "no type in frontmatter", mtype=None),
            memory("hot_a.md", 3),
            memory("hot_b.md", 3),
            memory("port.md", 38),
            memory("database.md", 8),
        ),
        duplicates=(Duplicate(("real_db.md", "no_mocks.md"), "real_db.md", 1.0),
                    Duplicate(("hot_a.md", "hot_b.md"), "hot_a.md", 0.8)),
        conflicts=(Conflict(("port.md", "database.md"), "database.md", 0.9,
                            "port.md says '5432' where database.md says '6432'",
                            ("The dev database listens on port 5432.",
                             "The dev database listens on port 6432.")),),
        similar=(Similar(("checkout.md", "auth.md"), 0.5,
                         (("Sessions live in Redis.", "Sessions are kept in Redis."),)),),
        stale=(Stale("old_freeze.md", 270, ("deadline passed: 'until 2026-03-12'",),
                     ("Merge freeze until 2026-03-12 for the spring release.",), True),
               Stale("auth.md", 120, ("references missing path src/legacy/auth.py",),
                     ("Login is implemented in src/legacy/auth.py.",), False)),
        actions=actions,
        applied=(True, False, False, True, True),
        proposal=Waiting(None, 2, (1, 2)),
        index=IndexPlan(text="- [Real DB](real_db.md)\n", changed=True, lines=1, bytes=24,
                        within_limits=True, added=("tea.md",),
                        repointed=(("no_mocks.md", "real_db.md"),)),
        notes=("left alone, changed within 15 min: hot_b.md",),
    )
    values.update(changes)
    return Plan(**values)


def run_of(*roots: RootReport, dry_run: bool = True) -> RunReport:
    return RunReport(run_id="20261130T031500Z-test", dry_run=dry_run, roots=roots)


def root_of(plan: Plan, status: str = "planned", **rest: Any) -> RootReport:
    values: dict[str, Any] = dict(memory_dir=Path("/tmp/memory"), status=status,
                                  gates=gates(), plan=plan)
    values.update(rest)
    return RootReport(**values)


def snapshot(*unparsed: Unparsed, index: str = "- [No mocks](no_mocks.md)\n") -> Snapshot:
    return Snapshot(root=Path("/tmp/memory"), memories=(), unparsed=unparsed,
                    index=IndexFile(index, None))


def headings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("#")]


def section(text: str, title: str) -> str:
    """The text under the heading ``title`` up to the next heading of the same or a higher
    level."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("#").strip() == title)
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith("#")
                and len(lines[i]) - len(lines[i].lstrip("#")) <= level), len(lines))
    return "\n".join(lines[start + 1 : end])


def item_lines(text: str) -> list[str]:
    """The list items of the report (bullets and numbered), not the lines quoted under them."""
    return [line for line in text.splitlines() if re.match(r"(- |\d+\. )", line)]


# --- order -------------------------------------------------------------------------------------


def test_a_report_nothing_records_names_no_run_id() -> None:
    report = dataclasses.replace(run_of(root_of(full_plan(), snapshot=snapshot())), recorded=False)
    text = to_markdown(report)
    assert text.startswith("# Dream Consolidator report\n\n_dry run: nothing was changed or recorded_\n")
    assert "20261130T031500Z-test" not in text



def test_each_root_starts_with_its_summary_and_ends_with_its_memories() -> None:
    text = to_markdown(run_of(root_of(full_plan(), snapshot=snapshot())))
    assert headings(text) == [
        "# Dream Consolidator report `20261130T031500Z-test`",
        "## /tmp/memory (auto)",
        "### Summary",
        "### What a run would apply",
        "### What would wait for review",
        "### Findings that did not become an action",
        "#### Conflicts",
        "#### Similar, not merged",
        "#### Stale, not archived",
        "#### Duplicates, not merged",
        "### Index",
        "### Gates",
        "### Notes",
        "### Memories",
    ]


def test_the_summary_counts_changes_waiting_judgments_and_findings_by_kind() -> None:
    summary = section(to_markdown(run_of(root_of(full_plan()))), "Summary")
    assert "- Status: **planned**\n" in summary + "\n"
    assert "- A run would apply: 1 merge, links updated in 1 memory, index rebuilt" in summary
    assert ("- Would wait for review: 2 judgments (1 archive, 1 relative-date rewrite); "
            "this plan keeps none: a run without --dry-run keeps them as its proposal, then "
            "`consolidator proposals` lists them and `consolidator apply` applies them") in summary
    found = next(line for line in summary.splitlines() if line.startswith("- Found: "))
    assert found == (
        "- Found: 2 duplicates (1 became an action), 1 conflict, 1 similar pair, "
        "2 stale memories (1 became an action), 1 relative date (all in rewrites), "
        "1 memory with no index pointer, 2 memories with warnings"
    )


def test_nothing_waiting_is_said_as_none() -> None:
    plan = full_plan(actions=(index_rebuilt(),), applied=(True,), proposal=None)
    text = to_markdown(run_of(root_of(plan)))
    assert "- Would wait for review: none" in section(text, "Summary")
    assert section(text, "What would wait for review").strip() == "none"


def test_a_closed_gate_is_named_on_the_status_line() -> None:
    text = to_markdown(run_of(root_of(full_plan(), gates=gates(closed="G4"))))
    status = section(text, "Summary").splitlines()[1]
    assert status == ("- Status: **planned**; gate G4 interval is closed (interval says no): "
                      "a `run` without --force would skip this root now")


# --- each action and finding once ---------------------------------------------------------------


def test_each_action_appears_exactly_once() -> None:
    plan = full_plan()
    text = to_markdown(run_of(root_of(plan, snapshot=snapshot())))
    items = item_lines(text)
    for action in plan.actions:
        shown = [line for line in items if f"**{action.op}** " in line
                 and f"`{action.file}`" in line]
        assert len(shown) == 1, (action.op, action.file, shown)
    for action in plan.actions:
        for line in action.evidence:
            assert text.count(f"> {line}") == 1, line


def test_applied_and_waiting_actions_go_to_their_own_sections_numbered_as_the_proposal() -> None:
    text = to_markdown(run_of(root_of(full_plan())))
    applied = section(text, "What a run would apply")
    waiting = section(text, "What would wait for review")
    assert "**merge** `no_mocks.md` into `real_db.md` (safe)" in applied
    assert "**rewrite** `MEMORY.md` (safe): index rebuilt" in applied
    assert "old_freeze.md" not in applied and "demo.md" not in applied
    numbered = [line for line in waiting.splitlines() if re.match(r"\d+\. ", line)]
    assert numbered == [
        "1. **archive** `old_freeze.md` (judgment): stale: deadline passed: 'until 2026-03-12'",
        "2. **rewrite** `demo.md` (judgment): relative date 'yesterday' -> 2026-11-25",
    ]
    assert "   > Merge freeze until 2026-03-12 for the spring release." in waiting
    assert "   > We agreed on it yesterday. -> We agreed on it 2026-11-25." in waiting


def test_under_apply_none_the_proposal_holds_safe_actions_and_the_index_waits_for_a_later_run(
) -> None:
    plan = full_plan(actions=(merge("real_db.md", "no_mocks.md"), ARCHIVE, DATES,
                              index_rebuilt()),
                     applied=(False,) * 4, proposal=Waiting(None, 3, (0, 1, 2)))
    text = to_markdown(run_of(root_of(plan)))
    waiting = section(text, "What would wait for review")
    assert [line.split(" (")[0] for line in item_lines(waiting)] == [
        "1. **merge** `no_mocks.md` into `real_db.md`",
        "2. **archive** `old_freeze.md`",
        "3. **rewrite** `demo.md`",
    ]
    assert "- Would wait for review: 3 changes: 1 safe (1 merge) and 2 judgments" in text
    assert section(text, "What a run would apply").strip() == "nothing"
    left = section(text, "Planned, not applied")
    assert item_lines(left) == ["- **rewrite** `MEMORY.md` (safe): index rebuilt"]
    assert "- Not applied, not proposed: index rebuilt" in section(text, "Summary")


def test_an_action_left_out_of_the_proposal_is_not_numbered() -> None:
    other = Rewrite(file="notes.md", kind=JUDGMENT, data=b"", mtime_ns=0,
                    reason="relative date 'today' -> 2026-11-30")
    plan = full_plan(actions=(ARCHIVE, other, DATES), applied=(False, False, False),
                     proposal=Waiting("20261130T031500Z-test", 2, (0, 2)),
                     notes=("rewrite notes.md not proposed: notes.md changed since; the next "
                            "run looks again",))
    text = to_markdown(run_of(root_of(plan), dry_run=False))
    waiting = [line.split(" (")[0] for line in item_lines(section(text, "Waiting for review"))]
    assert waiting == ["1. **archive** `old_freeze.md`", "2. **rewrite** `demo.md`"]
    assert item_lines(section(text, "Not applied")) == [
        "- **rewrite** `notes.md` (judgment): relative date 'today' -> 2026-11-30"]


def test_a_merged_duplicate_is_shown_only_as_its_merge() -> None:
    text = to_markdown(run_of(root_of(full_plan())))
    findings = section(text, "Findings that did not become an action")
    assert "no_mocks.md" not in findings and "real_db.md" not in findings
    assert item_lines(section(text, "Duplicates, not merged")) == [
        "- `hot_b.md` duplicates `hot_a.md` (line similarity 0.80); not merged in this run"]
    about_the_pair = [line for line in item_lines(text) if "no_mocks.md" in line
                      and "real_db.md" in line and "repoint" not in line]  # links, index
    assert about_the_pair == [
        "- **merge** `no_mocks.md` into `real_db.md` (safe): same lines (similarity 1.00)"]


def test_an_archived_stale_memory_is_shown_only_as_its_archive() -> None:
    text = to_markdown(run_of(root_of(full_plan())))
    assert "old_freeze.md" not in section(text, "Findings that did not become an action")
    assert sum("old_freeze.md" in line for line in item_lines(text)) == 1
    stale = section(text, "Stale, not archived")
    assert item_lines(stale) == [
        "- `auth.md` (120 days old; about a part of it): references missing path "
        "src/legacy/auth.py"]
    assert "  > Login is implemented in src/legacy/auth.py." in stale


def test_a_pair_superseded_by_an_action_is_not_a_conflict_any_more() -> None:
    supersede = Archive(file="port.md", kind=JUDGMENT, successor="database.md",
                        reason="superseded by database.md: the pooler moved the port")
    plan = full_plan(actions=(supersede,), applied=(False,), proposal=Waiting(None, 1, (0,)))
    text = to_markdown(run_of(root_of(plan)))
    assert "#### Conflicts" not in text
    assert "1 conflict (1 became an action)" in section(text, "Summary")


def test_findings_with_no_action_are_each_shown_with_their_evidence() -> None:
    text = to_markdown(run_of(root_of(full_plan())))
    conflicts = section(text, "Conflicts")
    assert item_lines(conflicts) == [
        "- `port.md` vs `database.md`: port.md says '5432' where database.md says '6432' "
        "(newer: `database.md`)"]
    assert "  > The dev database listens on port 5432.\n  > The dev database listens on port " \
        "6432." in conflicts
    similar = section(text, "Similar, not merged")
    assert "  > Sessions live in Redis.  ~  Sessions are kept in Redis." in similar


def test_a_pair_that_may_make_one_point_says_so_in_both_reports() -> None:
    # Its only evidence is a line of each sharing words no other memory uses: the report says
    # what the evidence is, not a similarity it did not measure.
    maybe = Similar(("staging.md", "status.md"), 0.08,
                    (("The staging box runs on Hetzner in Falkenstein.",
                      "Restored the Falkenstein snapshot after the Hetzner outage."),), rare=5)
    plan = full_plan(similar=(maybe,))
    similar = section(to_markdown(run_of(root_of(plan))), "Similar, not merged")
    assert item_lines(similar) == [
        "- `staging.md` ~ `status.md` (may say the same thing: a line of each shares 5 words no "
        "other memory uses)"]
    assert "  > The staging box runs on Hetzner in Falkenstein.  ~  Restored the" in similar
    (entry,) = root_dict(root_of(plan))["similar"]
    assert entry["basis"] == "rare words" and entry["files"] == ["staging.md", "status.md"]
    alike = root_dict(root_of(full_plan()))["similar"]
    assert [e["basis"] for e in alike] == ["lines"]


def test_a_part_finding_says_its_scope_once() -> None:
    part = Stale("notes.md", 120, ("cites `src/old.py` — not in the project (about a part)",
                                   "status marker 'done' in a list item (about a part): `x`"),
                 ("See src/old.py.",), False)
    stale = section(to_markdown(run_of(root_of(full_plan(stale=(part,))))),
                    "Stale, not archived")
    (item,) = item_lines(stale)
    assert item.count("about a part") == 1
    assert item == ("- `notes.md` (120 days old; about a part of it): cites `src/old.py` — not "
                    "in the project; status marker 'done' in a list item: `x`")


def test_no_findings_left_is_said_as_none() -> None:
    plan = full_plan(duplicates=(), conflicts=(), similar=(), stale=())
    text = to_markdown(run_of(root_of(plan)))
    assert section(text, "Findings that did not become an action").strip() == "none"


def test_unparsed_files_are_findings_left_untouched() -> None:
    root = root_of(full_plan(), snapshot=snapshot(Unparsed("notes/log.md", "no frontmatter")))
    text = to_markdown(run_of(root))
    assert item_lines(section(text, UNREAD)) == [
        "- `notes/log.md`: no frontmatter"]
    assert "1 unparsed file (left alone)" in section(text, "Summary")


# --- memories -----------------------------------------------------------------------------------


def test_without_verbose_only_memories_with_a_warning_besides_their_age_are_listed() -> None:
    text = to_markdown(run_of(root_of(full_plan())))
    assert text.rstrip("\n").endswith(
        "9 more memories with no warning of their own (frontmatter, name, secret, use) "
        "besides their age; findings about them are listed above: the same report with "
        "`--verbose` lists them")
    memories = section(text, "Memories")
    rows = [line for line in memories.splitlines() if line.startswith("| `")]
    assert rows == [
        "| `auth.md` | project | 120 days ago | no description in frontmatter |",
        "| `tea.md` | – | today | no type in frontmatter |",
    ]


def test_with_verbose_every_memory_is_listed_and_its_age_is_said_once() -> None:
    text = to_markdown(run_of(root_of(full_plan())), verbose=True)
    memories = section(text, "Memories")
    rows = [line for line in memories.splitlines() if line.startswith("| `")]
    assert len(rows) == len(full_plan().memories)
    assert "| `old_freeze.md` | project | 270 days ago |  |" in rows
    assert "more memories" not in text
    assert "days old" not in memories, "the age column says it; the age note is not repeated"


def test_claude_codes_age_note_is_never_repeated_anywhere() -> None:
    for verbose in (False, True):
        text = to_markdown(run_of(root_of(full_plan())), verbose=verbose)
        assert "This memory is" not in text


def test_a_root_whose_memories_all_have_no_warnings_says_how_to_list_them() -> None:
    plan = full_plan(memories=(memory("a.md", 3), memory("b.md", 1)))
    text = to_markdown(run_of(root_of(plan)))
    assert section(text, "Memories").strip() == (
        "2 memories with no warning of their own (frontmatter, name, secret, use) "
        "besides their age; findings about them are listed above: the same report with "
        "`--verbose` lists them")
    assert "| file |" not in text


# --- dry run and real run -----------------------------------------------------------------------


def test_a_dry_run_says_what_a_run_would_do() -> None:
    text = to_markdown(run_of(root_of(full_plan())))
    assert "_dry run: nothing was changed_" in text
    assert "- A run would apply: " in text and "- Would wait for review: " in text
    assert "- Applied:" not in text and "Waiting for review" not in text


def test_a_real_run_says_what_it_applied_and_names_its_proposal() -> None:
    plan = full_plan(proposal=Waiting("20261130T031500Z-test", 2, (1, 2)))
    text = to_markdown(run_of(root_of(plan, status="consolidated"), dry_run=False))
    summary = section(text, "Summary")
    assert "_changes applied_" in text
    assert "- Status: **consolidated**" in summary
    assert "- Applied: 1 merge, links updated in 1 memory, index rebuilt" in summary
    assert ("- Waiting for review: 2 judgments (1 archive, 1 relative-date rewrite) in "
            "proposal `20261130T031500Z-test`: `consolidator proposals` lists them, "
            "`consolidator apply 20261130T031500Z-test` applies them") in summary
    assert "### Applied" in text and "### Waiting for review" in text
    assert "`consolidator reject 20261130T031500Z-test [--only N,M]`" in text
    assert "would" not in summary


# --- roots that did not get far -----------------------------------------------------------------


def test_a_skipped_root_shows_its_summary_and_gates_only() -> None:
    root = RootReport(Path("/tmp/memory"), "skipped", gates(closed="G6"))
    text = to_markdown(run_of(root, dry_run=False))
    assert headings(text)[1:] == ["## /tmp/memory (auto)", "### Summary", "### Gates"]
    assert "- Status: **skipped**; gate G6 sessions is closed (sessions says no)" in text
    assert "force would skip" not in text
    assert text.count("| G") == 7
    assert "None" not in text


def test_a_failed_root_renders_its_error_and_every_section() -> None:
    root = RootReport(Path("/tmp/memory"), "failed", gates(),
                      error=f"scan: cannot read a.md (password: {SECRET})")
    text = to_markdown(run_of(root, dry_run=False))
    summary = section(text, "Summary")
    assert "- Status: **failed**" in summary
    assert "- Error: scan: cannot read a.md (password: [REDACTED])" in summary
    assert "- Applied: nothing" in summary and "- Found: nothing" in summary
    assert section(text, "Index").strip() == "not planned"
    assert section(text, "Memories").strip() == "none read"
    assert SECRET not in text and "None" not in text


def test_several_roots_each_get_their_own_sections() -> None:
    first = root_of(full_plan())
    second = RootReport(Path("/tmp/other"), "skipped", gates(closed="G1"))
    text = to_markdown(run_of(first, second))
    assert [h for h in headings(text) if h.startswith("## ")] == ["## Overall",
                                                                   "## /tmp/memory (auto)",
                                                                   "## /tmp/other (auto)"]
    assert text.index("### Memories") < text.index("## /tmp/other (auto)")


# --- secrets ------------------------------------------------------------------------------------


def secret_plan() -> Plan:
    """A secret in every new section: actions waiting and applied, findings, notes, memories."""
    return full_plan(
        actions=(
            Rewrite(file="staging.md", kind=JUDGMENT, data=b"", mtime_ns=0,
                    reason=f"relative date 'yesterday' -> 2026-11-25 (password: {SECRET})",
                    evidence=(f"Yesterday we set password: {SECRET} -> 2026-11-25 we set "
                              f"password: {SECRET}",)),
            Create(file="index_topic.md", kind=SAFE, data=b"", mtime_ns=0,
                   reason=f"index overflow: password: {SECRET}", sources=("a.md",)),
        ),
        applied=(False, True),
        proposal=Waiting(None, 1, (0,)),
        conflicts=(Conflict(("db.md", "db_new.md"), "db_new.md", 0.9,
                            f"db.md says '{SECRET}' where db_new.md says '{OTHER_SECRET}'",
                            (f"The password: {SECRET}", f"The password: {OTHER_SECRET}")),),
        similar=(Similar(("x.md", "y.md"), 0.5, ((f"password: {SECRET}", "same"),)),),
        stale=(Stale("auth.md", 120, (f"status marker in: password: {SECRET}",),
                     (f"DONE: rotated, password: {SECRET}",), False),),
        memories=(memory("db.md", 30, f"holds password: {SECRET}", mtype="project"),),
        notes=(f"a note quoting password: {SECRET}",),
    )


@pytest.mark.parametrize("verbose", [False, True])
def test_secrets_are_masked_in_every_new_section(verbose: bool) -> None:
    root = root_of(secret_plan(), snapshot=snapshot(Unparsed("bad.md", f"password: {SECRET}")),
                   skipped=(f"z.md: changed, password: {SECRET}",))
    text = to_markdown(run_of(root), verbose=verbose)
    assert SECRET not in text and OTHER_SECRET not in text
    for title in ("Summary", "What a run would apply", "What would wait for review",
                  "Conflicts", "Similar, not merged", "Stale, not archived",
                  UNREAD, "Notes", "Memories"):
        assert section(text, title).strip(), title
    assert "1. **rewrite** `staging.md` (judgment): relative date 'yesterday' -> 2026-11-25 " \
        "(password: [REDACTED])" in text
    assert "`db.md` vs `db_new.md`: db.md says '[REDACTED]' where db_new.md says " \
        "'[REDACTED]'" in text
    assert "| `db.md` | project | 30 days ago | holds password: [REDACTED] |" in text


def test_the_model_line_appears_only_when_a_model_was_used() -> None:
    plain = to_markdown(run_of(root_of(full_plan())))
    assert "- Model:" not in plain
    used = to_markdown(run_of(root_of(full_plan(), llm=LlmUsage("anthropic", 3, 1200, 300))))
    assert "- Model: anthropic, 3 calls, 1200 input and 300 output tokens" in used


# ------------------------------------------------------------------ a pass over several roots


def test_a_pass_over_several_roots_opens_with_an_overall_summary() -> None:
    over = IndexPlan(text="", changed=False, lines=260, bytes=31000, within_limits=False,
                     over="60 lines and 6,000 bytes over")
    one = root_of(full_plan(), memory_dir=Path("/p/one/memory"))
    two = root_of(full_plan(index=over), memory_dir=Path("/p/two/memory"))
    skipped = root_of(Plan(), status="skipped", gates=gates("G4"),
                      memory_dir=Path("/p/three/memory"))
    text = to_markdown(run_of(one, two, skipped))
    top = text.split("## /p/one/memory")[0]
    assert "## Overall" in top and "- 3 roots: 2 planned, 1 skipped" in top
    assert "- A run would apply: 2 merges," in top
    assert "- Waiting for review: 4 changes" in top
    assert "**Over Claude Code's index limits** in 1 root: `/p/two/memory` (60 lines and " \
           "6,000 bytes over). Claude Code's own memory writes fail there" in top
    assert "## Overall" not in to_markdown(run_of(one))


def test_topic_memories_a_rebuild_created_are_one_line_with_their_count() -> None:
    topics = tuple(Create(file=f"topic_{n}.md", kind=SAFE, data=b"", mtime_ns=0,
                          reason="index overflow: lines past what Claude Code loads")
                   for n in ("a", "b", "c"))
    plan = full_plan(actions=topics + (index_rebuilt(),), applied=(True,) * 4,
                     proposal=None)
    text = to_markdown(run_of(root_of(plan)))
    assert "- **create** 3 topic memories (safe): index lines moved out of `topic_a.md`, " \
           "`topic_b.md`, `topic_c.md`" in text
    assert "**create** `topic_b.md`" not in text
