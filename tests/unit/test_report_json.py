"""The JSON report written piece by piece (consolidator.report.json.write_json and its helpers).

Whatever the data, the text must parse back to what ``json.dumps`` of the same data parses
to; the layout must stay readable: top-level keys indented by two spaces, each item of a deep
list (one memory, one gate, one action) on a line of its own, and a final newline.
"""

from __future__ import annotations

import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consolidator.config import Config
from consolidator.detect.findings import LlmUsage, MemoryInfo, Stale
from consolidator.gates import GateResult
from consolidator.index.rebuild import IndexPlan
from consolidator.plan import Archive, Merge, Plan
from consolidator.report import json as report
from consolidator.report.outcome import RootReport, RunReport
from consolidator.runner import RunOptions, context_for, run_root

HOSTILE = (
    '}, {"file": ',
    '"}, {"file": "x.md"}, {"file": ',
    '\\"}, {\\"file\\": ',
    "}, {",
    '"',
    "\\",
    "\\\\\"",
    "line one\nline two\r\n\ttabbed",
    "naïve café",
    "集成测试必须连接真实的数据库",
    "もう使わない",
    "\u2028\u2029",
    "\x00\x1f",
    "🦀",
    "",
)


def pretty(document: Any) -> str:
    out = io.StringIO()
    report._pretty(document, 0, "", out.write)
    return out.getvalue()


def same_as_json_dumps(text: str, document: Any) -> None:
    assert json.loads(text) == json.loads(json.dumps(document))


# --- hand-made cases ---------------------------------------------------------------------------


def record(file: str, **rest: Any) -> dict[str, Any]:
    return {"file": file, **rest}


CASES: dict[str, Any] = {
    "empty dict": {},
    "empty list": [],
    "a scalar": "}, {\"file\": ",
    "null": None,
    "empty containers at every depth": {"a": [], "b": {}, "c": [[], {}, [[]], [{}]],
                                        "d": [{"x": [{"y": []}, {"y": {}}]}]},
    "hostile strings as values and keys": {
        "roots": [{text or "empty": text for text in HOSTILE}],
        **{text: [text, {text: text}] for text in HOSTILE},
    },
    "deep list of records with hostile values": {
        "roots": [{"memories": [record(text, name=text, warnings=[text, text]) for text in HOSTILE]}]
    },
    "deep list of records with the same first key nested inside": {
        "roots": [{"memories": [
            record("a.md", sources=[record("x", n=1), record("y", n=2)]),
            record("b.md", sources=[record("}, {\"file\": ")]),
            record("c.md", inner={"file": [record("d"), record("e")]}),
        ]}]
    },
    "records whose first keys differ": {
        "roots": [{"items": [record("a"), {"name": "b"}, record("c"), {}, record("d")]}]
    },
    "records with an empty dict among them": {
        "roots": [{"items": [record("a"), {}, record("b")]}]
    },
    "a deep list of scalars and mixed items": {
        "roots": [{"items": [1, "two", None, True, 2.5, [3, [4]], {"five": 5}, [], {}]}]
    },
    "a deep list of one record": {"roots": [{"memories": [record("only.md", x='"')]}]},
    "dicts past the fourth level": {
        "a": {"b": {"c": {"d": {"e": {"f": [record("x"), record("y")]}}}}}
    },
    "lists at every depth": [[[[[[record("a"), record("b")]]]]]],
    "numbers": {"ints": [0, -1, 10**30], "floats": [0.1, -0.0, 1e300, 3.0],
                "bools": [True, False], "none": None},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pretty_json_parses_to_what_json_dumps_gives(name: str) -> None:
    same_as_json_dumps(pretty(CASES[name]), CASES[name])


def test_a_deep_list_keeps_every_item_in_order_one_a_line() -> None:
    items = [record(f"m{i}.md", note=HOSTILE[i % len(HOSTILE)]) for i in range(23)]
    document = {"roots": [{"memories": items}]}
    text = pretty(document)
    same_as_json_dumps(text, document)
    lines = [line for line in text.split("\n") if line.startswith("      " + "  {")]
    assert [json.loads(line.strip().rstrip(",")) for line in lines] == items


# --- arbitrary data (hypothesis) ---------------------------------------------------------------

TEXT = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12))
SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(), TEXT,
    st.floats(allow_nan=False, allow_infinity=False),
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(TEXT, inner, max_size=5),
        # Records that share their first key, as memories, gates and actions do.
        st.lists(st.builds(lambda first, rest: {"file": first, **rest}, inner,
                           st.dictionaries(TEXT, inner, max_size=3)), max_size=6),
    ),
    max_leaves=30,
)
# Deep lists sit at the report's depth: document -> roots -> a root -> its lists.
DOCUMENT = st.one_of(
    VALUE,
    st.builds(lambda top, roots: {**top, "roots": roots},
              st.dictionaries(TEXT, VALUE, max_size=4),
              st.lists(st.dictionaries(TEXT, VALUE, max_size=6), max_size=3)),
)


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENT)
def test_pretty_json_of_arbitrary_data_parses_to_what_json_dumps_gives(document: Any) -> None:
    same_as_json_dumps(pretty(document), document)


@pytest.mark.parametrize("key", [1, True, None, 2.5])
def test_pretty_json_of_a_dict_with_a_non_string_key_parses(key: Any) -> None:
    document = {key: "a"}
    same_as_json_dumps(pretty(document), document)


# --- reports -----------------------------------------------------------------------------------


def document_of(run: RunReport) -> dict[str, Any]:
    """What write_json encodes, built independently of it."""
    return {
        "schema_version": report.SCHEMA_VERSION,
        "run_id": run.run_id,
        "dry_run": run.dry_run,
        "roots": [report.root_dict(r) for r in run.roots],
    }


def made_up_report(count: int) -> RunReport:
    """A RunReport built by hand, full of text that looks like the JSON around it."""
    memories = tuple(
        MemoryInfo(
            file=f"m{i:03}" + HOSTILE[i % len(HOSTILE)] + ".md",
            name=HOSTILE[(i + 1) % len(HOSTILE)],
            type="project" if i % 3 else None,
            mtime_ns=1_780_000_000 * 10**9 + i,
            age_days=i,
            freshness=f"{i} days ago",
            warnings=tuple(HOSTILE[: i % 4]),
        )
        for i in range(count)
    )
    plan = Plan(
        memories=memories,
        stale=(Stale('old}, {"file": .md', 40, ("deadline passed: '明天'", "\\")),),
        actions=(
            Archive(file="a.md", reason='stale: status marker "DONE"', kind="judgment"),
            Merge(file="b.md", reason="same lines", sources=("b.md", 'c}, {"op": .md'),
                  data=b"", mtime_ns=0),
        ),
        index=IndexPlan(text="- [a](a.md)\n", lines=1, bytes=12, within_limits=True,
                        changed=True, added=("a.md",), removed=('x"y.md',),
                        repointed=(("c.md", "b.md"),)),
        notes=("similar but not mergeable offline: 集成 ~ テスト (0.50)",),
        applied=(False, True),
    )
    gates = tuple(GateResult(f"G{i}", f"gate {i}", (None, True, False)[i % 3],
                             HOSTILE[i % len(HOSTILE)]) for i in range(1, 8))
    roots = (
        RootReport(memory_dir=Path('/tmp/mem "quoted"/记忆'), status="planned", gates=gates,
                   plan=plan, llm=LlmUsage()),
        RootReport(memory_dir=Path("/tmp/empty"), status="failed", gates=(),
                   error='boom: }, {"file": ', skipped=("z.md",)),
    )
    return RunReport(run_id="20261130T031500Z-test", dry_run=True, roots=roots)


def test_index_plan_fields_used_here_exist() -> None:
    """made_up_report builds an IndexPlan by keyword: fail loudly if its fields change."""
    assert made_up_report(1).roots[0].plan.index is not None


def test_to_json_of_a_made_up_report_parses_to_the_report_document() -> None:
    run = made_up_report(25)
    text = report.to_json(run)
    same_as_json_dumps(text, document_of(run))
    assert json.loads(text)["roots"][0]["memories"][7]["file"] == "m007" + HOSTILE[7] + ".md"


def test_to_json_ends_with_one_newline_and_matches_write_json(tmp_path: Path) -> None:
    run = made_up_report(5)
    text = report.to_json(run)
    assert text.endswith("}\n") and not text.endswith("\n\n")
    path = tmp_path / "report.json"
    with open(path, "w", encoding="utf-8") as out:
        report.write_json(run, out)
    assert path.read_text(encoding="utf-8") == text
    assert json.loads(path.read_bytes()) == json.loads(text)


def test_non_ascii_text_is_written_as_is_not_escaped() -> None:
    text = report.to_json(made_up_report(len(HOSTILE) + 1))
    assert "集成测试必须连接真实的数据库" in text
    assert "naïve café" in text
    assert "🦀" in text


def test_top_level_keys_are_indented_by_two_spaces() -> None:
    text = report.to_json(made_up_report(3))
    lines = text.split("\n")
    assert lines[0] == "{" and lines[-2:] == ["}", ""]
    top = [line for line in lines if line.startswith('  "')]
    assert [line.split(":")[0].strip() for line in top] == [
        '"schema_version"', '"run_id"', '"dry_run"', '"roots"'
    ]
    assert top[0] == '  "schema_version": 1,'
    assert top[1] == '  "run_id": "20261130T031500Z-test",'
    assert top[2] == '  "dry_run": true,'
    assert top[3] == '  "roots": ['


def test_each_memory_gate_and_action_is_on_a_line_of_its_own() -> None:
    run = made_up_report(11)
    text = report.to_json(run)
    document = document_of(run)
    (root, failed) = document["roots"]
    item_lines = {
        line.strip().rstrip(",") for line in text.split("\n") if line.startswith(" " * 8 + "{")
    }
    parsed = [json.loads(line) for line in item_lines]
    for key in ("memories", "gates", "actions", "stale"):
        assert root[key], key
        for item in root[key]:
            assert item in parsed, (key, item)
    # One line per item: the deep lists' items and nothing else start a line at that depth.
    expected_count = sum(len(root[key]) for key in ("memories", "gates", "actions", "stale"))
    starts = [line for line in text.split("\n") if line.startswith(" " * 8 + "{")]
    assert len(starts) == expected_count
    assert failed["error"] == 'boom: }, {"file": '


def test_the_json_report_of_a_real_run_on_hostile_file_names(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    (root / "sub").mkdir(parents=True)
    names = ['a}, {"file": b.md', 'quote"d.md', "back\\slash.md", "集成测试.md",
             "sub/メモ.md", "plain.md"]
    for i, name in enumerate(names):
        if i % 2:  # a description that looks like the JSON around it, and stale evidence
            head = f"name: n{i}\ndescription: '}}, {{\"file\": {i}'"
            body = f"We met yesterday about {name}.\nStatus: DONE\n"
        else:
            head, body = f"name: n{i}\ndescription: d{i}", f"Note {i}: {name}\n"
        (root / name).write_text(f"---\n{head}\ntype: project\n---\n{body}", encoding="utf-8")
    (root / 'unparsed "x".md').write_text("no frontmatter\n", encoding="utf-8")
    (root / "MEMORY.md").write_text("- [plain](plain.md) - plain\n", encoding="utf-8")
    opts = RunOptions(state_dir=tmp_path / "state", project_root=str(tmp_path))
    ctx = context_for(root, Config(), opts, datetime(2026, 11, 30, 12), "20261130T120000Z-test")
    run = RunReport(run_id=ctx.run_id, dry_run=True, roots=(run_root(ctx),))
    text = report.to_json(run)
    same_as_json_dumps(text, document_of(run))
    (parsed,) = json.loads(text)["roots"]
    assert sorted(m["file"] for m in parsed["memories"]) == sorted(names)
    assert parsed["unparsed"] == [{"file": 'unparsed "x".md', "error": "no frontmatter"}]
    memory_lines = [line for line in text.split("\n") if line.startswith(" " * 8 + '{"file": ')]
    assert len(memory_lines) >= len(names)
