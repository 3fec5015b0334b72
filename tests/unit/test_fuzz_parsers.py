"""Fuzzing the parsers: arbitrary bytes and near-valid frontmatter into ``frontmatter.parse``,
arbitrary and near-valid index text into ``parse_index`` and ``plan_index``.

Nothing but ParseError may escape ``parse``; whatever parses gives back its exact bytes; an
edit the document accepts reads back as written and leaves everything else alone. The index
readers never raise, never lose a line of the text, and the rebuilt index fits its limits.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from consolidator.index.parse import parse_index
from consolidator.index.rebuild import Limits, measure, plan_index
from consolidator.store.frontmatter import BOM, Document, ParseError, parse
from consolidator.store.model import FileStat, Memory

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
BASE_NS = 1_760_000_000 * 10**9

TEXT = st.text(st.characters(codec="utf-8"), max_size=200)
LINE = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=60)


# --------------------------------------------------------------------------- frontmatter


def parses_to_itself(data: bytes) -> Document | None:
    """``parse(data)``, checking that only ParseError escapes and that the bytes round-trip."""
    try:
        doc = parse(data)
    except ParseError as exc:
        event(f"ParseError: {str(exc)[:24]}")
        return None
    event(f"parsed by the {doc.reader} reader")
    assert doc.to_bytes() == data
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in doc.fields.items())
    assert doc.newline in ("\n", "\r\n")
    doc.memory_type, doc.nested  # noqa: B018 - the properties must not raise either
    return doc


@pytest.mark.parametrize("data", [b"---\nmetadata:\n  type: \n---\nx\n",
                                  b"---\nname: \n  name: \n---\n\n"])
def test_an_empty_nested_value_with_a_trailing_space_is_read_not_a_crash(data: bytes) -> None:
    """Found by this fuzzing: ``_plain_or_quoted`` indexed the empty value (IndexError, and
    report and run died with a traceback)."""
    doc = parse(data)

    assert doc.to_bytes() == data


@FUZZ
@given(st.binary(max_size=4096))
def test_parse_of_arbitrary_bytes_raises_only_parse_error_and_round_trips(data: bytes) -> None:
    parses_to_itself(data)


@FUZZ
@given(st.binary(max_size=2048))
def test_parse_of_arbitrary_bytes_after_a_fence_raises_only_parse_error_and_round_trips(
    tail: bytes,
) -> None:
    parses_to_itself(b"---\n" + tail)


_FENCES = st.sampled_from(["---", "--- ", "---\t", "----", "...", "--", " ---", "---x", ""])
_EOLS = st.sampled_from(["\n", "\r\n", "\r", ""])
_KEYS = st.sampled_from(["name", "description", "type", "metadata", "  type", "\ttype",
                         "originSessionId", "node_type", "modified", "- item", "? key",
                         "<<", "a.b", "キー", "", "name ", " name", "x-y_z", "1"])
_USUAL_KEYS = st.sampled_from(["name", "description", "type", "metadata", "  type",
                               "originSessionId", "last_updated"])
_USUAL_VALUES = st.one_of(st.sampled_from(["user", "feedback", "project", "reference",
                                          "'quoted'", '"double"']),
                          st.text(st.characters(codec="utf-8", exclude_categories=["Cc"],
                                                exclude_characters=":#"),
                                  min_size=1, max_size=30))
_VALUES = st.one_of(
    st.sampled_from([
        "", " ", "feedback", "project", "'quoted'", '"double"', "'it''s'", '"esc \\" q"',
        "&a anchor", "*a", "&a [*a]", "[1, 2", "{a: 1}", "{a: [*a]}", "|", ">-", "!!binary aGk=",
        "!!python/object:os.system", "~", "null", "yes", "0o17", "2026-11-30", "12:30:00",
        "C:\\Users\\me\\proj", "use pnpm: always", "a # comment", "#", "---", "...", "%YAML 1.2",
        "@at", "`tick`", "\ttab", "✓ unicode", "한국어", "日本語のテキスト", "\x7f", "\x1b[31m",
    ]),
    LINE,
)


@st.composite
def frontmatter_bytes(draw: st.DrawFn, bent: bool) -> bytes:
    """Frontmatter the way agents write it (``bent=False``: fences in place, usual keys,
    plain, quoted or odd values), or bent: odd fences, keys, values and indents, YAML
    anchors and tags, mixed line ends, and a few random byte edits."""
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [draw(_FENCES) if bent and draw(st.booleans()) else "---"]
    for _ in range(draw(st.integers(0, 8))):
        key = draw(_KEYS if bent else _USUAL_KEYS)
        value = draw(st.one_of(_VALUES, _USUAL_VALUES) if bent else _USUAL_VALUES)
        forms = [f"{key}: {value}", f"{key}:{value}", f"{key}", f"{key}: {value} ",
                 f"  {key}: {value}"]
        lines.append(draw(st.sampled_from(forms)) if bent else f"{key}: {value}")
    if not bent or draw(st.booleans()):
        lines.append(draw(_FENCES) if bent and draw(st.booleans()) else "---")
    lines.append(draw(TEXT))
    text = "".join(line + (draw(_EOLS) if bent and draw(st.booleans()) else eol)
                   for line in lines)
    data = (BOM if draw(st.booleans()) else b"") + text.encode("utf-8")
    for _ in range(draw(st.integers(0, 3)) if bent else 0):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        edit = draw(st.sampled_from(["flip", "insert", "delete"]))
        byte = bytes([draw(st.integers(0, 255))])
        if edit == "flip":
            data = data[:at] + byte + data[at + 1:]
        elif edit == "insert":
            data = data[:at] + byte + data[at:]
        else:
            data = data[:at] + data[at + 1:]
    return data


def near_frontmatter() -> st.SearchStrategy[bytes]:
    return st.one_of(frontmatter_bytes(bent=False), frontmatter_bytes(bent=True))


@FUZZ
@given(near_frontmatter())
def test_parse_of_near_valid_frontmatter_raises_only_parse_error_and_round_trips(
    data: bytes,
) -> None:
    parses_to_itself(data)


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
@FUZZ
@given(near_frontmatter(), st.sampled_from(["name", "description", "type", "brand_new"]),
       st.text(st.characters(codec="utf-8"), max_size=40))
def test_an_accepted_edit_of_near_valid_frontmatter_reads_back_and_keeps_the_rest(
    data: bytes, key: str, value: str
) -> None:
    doc = parses_to_itself(data)
    assume(doc is not None)
    assert doc is not None
    try:
        edited = doc.with_field(key, value)
    except ParseError:
        return
    again = parses_to_itself(edited.to_bytes())
    assert again is not None
    assert again.fields.get(key) == value
    assert {k: v for k, v in again.fields.items() if k != key} == \
        {k: v for k, v in doc.fields.items() if k != key}
    assert again.body == doc.body and again.bom == doc.bom


# --------------------------------------------------------------------------- index


def make_memory(rel: str, body: str, mtime_ns: int = BASE_NS) -> Memory:
    data = f"---\nname: {rel[:-3]}\ndescription: about {rel}\ntype: project\n---\n{body}".encode()
    return Memory(FileStat(rel, len(data), mtime_ns, 0o644, hashlib.sha256(data).hexdigest()),
                  parse(data))


MEMORY_FILES = ["alpha.md", "beta.md", "gamma_notes.md", "sub/delta.md", "with space.md",
                "노트.md"]
_TARGETS = st.sampled_from(MEMORY_FILES + ["gone.md", "../up.md", "/abs.md", "x.txt",
                                           "<with space.md>", "alpha.md#anchor", "%2e%2e/x.md",
                                           "http://e.com/a.md", "", "a)b.md", "sub/../alpha.md"])


@st.composite
def near_index_line(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["pointer", "pointer", "heading", "text", "table", "blank",
                                 "arbitrary", "long"]))
    if kind == "pointer":
        marker = draw(st.sampled_from(["- ", "* ", "1. ", "- **", "+ ", "-", "  - "]))
        sep = draw(st.sampled_from([" — ", " - ", ": ", "; ", " | ", "", " -- "]))
        return f"{marker}[{draw(LINE)}]({draw(_TARGETS)}){sep}{draw(LINE)}"
    if kind == "heading":
        return draw(st.sampled_from(["#", "##", "###", "####### "])) + " " + draw(LINE)
    if kind == "table":
        return f"| [{draw(LINE)}]({draw(_TARGETS)}) | {draw(LINE)} |"
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t", "\r"]))
    if kind == "long":
        return "- [x](alpha.md) — " + "長い説明 " * draw(st.integers(20, 80))
    if kind == "text":
        return f"{draw(LINE)} [see]({draw(_TARGETS)}) [[{draw(LINE)}]] {draw(LINE)}"
    return draw(LINE)


@st.composite
def index_text(draw: st.DrawFn, nul: bool = True) -> str:
    """Arbitrary text, or lines shaped like an index's. ``nul=False``: no NUL, as the scan
    hands the rebuild no index holding one (it is left alone as binary)."""
    if draw(st.booleans()):
        text = draw(st.text(st.characters(codec="utf-8"), max_size=3000))
    else:
        eol = draw(st.sampled_from(["\n", "\r\n"]))
        lines = draw(st.lists(near_index_line(), max_size=120))
        text = eol.join(lines) + (eol if draw(st.booleans()) else "")
    return text if nul else text.replace("\x00", "")


@FUZZ
@given(index_text())
def test_parse_index_of_any_text_never_raises_and_keeps_every_line(text: str) -> None:
    lines = parse_index(text)

    body = text.removesuffix("\n")
    expected = [line.rstrip("\r") for line in body.split("\n")] if text else []
    assert [line.text for line in lines] == expected
    for line in lines:
        assert line.kind in ("heading", "pointer", "table", "blank", "text")
        assert all(not t.startswith(("/", "../")) and t.endswith(".md") for t in line.targets)


@FUZZ
@given(
    text=index_text(nul=False),
    files=st.lists(st.sampled_from(MEMORY_FILES), unique=True),
    extra=st.lists(st.sampled_from(["daily.md", "gone.md", "notes/log.md"]), unique=True),
    redirect=st.booleans(),
    limits=st.one_of(st.just(Limits()),
                     st.builds(Limits, max_lines=st.integers(10, 60),
                               max_bytes=st.integers(500, 6000),
                               max_line_chars=st.integers(40, 150))),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_plan_index_of_any_text_never_raises_and_fits_its_limits(
    text: str, files: list[str], extra: list[str], redirect: bool, limits: Limits,
    newline: str,
) -> None:
    memories = [make_memory(f, f"Body of {f}.\n", BASE_NS + i * 10**9)
                for i, f in enumerate(files)]
    redirects = {"gone.md": files[0]} if redirect and files else {}

    plan = plan_index(text, memories, present=set(files) | set(extra), redirects=redirects,
                      index_mtime_ns=BASE_NS, limits=limits, newline=newline)

    assert (plan.lines, plan.bytes) == measure(plan.text)
    # Pinned lines never move: an index that cannot fit without them says why.
    assert plan.within_limits or plan.why
    assert plan.within_limits == (plan.lines <= limits.max_lines
                                  and plan.bytes <= limits.max_bytes)
    if not plan.changed:
        assert plan.text == text
    for topic in plan.creates:
        assert topic.file.startswith("index_") and "/" not in topic.file
        assert topic.file not in set(files) | set(extra)
        assert parses_to_itself(topic.text.encode("utf-8")) is not None
    for file in plan.notes:
        assert file in files

    # No pointer is left dangling: a dead one is unlinked (its words kept) or repointed.
    present = set(files) | set(extra)
    topics = {topic.file for topic in plan.creates}
    result = parse_index(plan.text)
    assert {line.target for line in result if line.target} <= present | topics
    for file, why in plan.unlinked:
        assert why in ("missing", "archived") and file not in present
    # Within its limits the index only changes the lines whose links do not resolve or are
    # redirected (and gains pointers): every other line stays as it was, in order, and
    # nothing moves out. (Blank lines count only when nothing changed: a blank index is
    # a fresh one.)
    if not plan.over_limits:
        # Only the list of memories a full index had no room for may be created.
        assert all(t.file.startswith("index_memories_not_listed") for t in plan.creates)
        assert dict(plan.notes) == {}
        assert all(d.endswith(".md") for d in plan.dropped)  # file names, no remark
        assert all("no room in the index" in m for m in plan.moved)
        resolved = present - set(redirects)
        untouched = [line.text for line in parse_index(text)
                     if line.kind != "blank" and set(line.targets) <= resolved]
        it = iter(line.text for line in result)
        assert all(any(kept == line for line in it) for kept in untouched)
