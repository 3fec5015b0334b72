"""What each line of MEMORY.md is worth, so that an index over its limits gives up the least.

Lines a user stressed (🚨, ⚠️, IMPORTANT, NEVER, ALWAYS, 最上位, 必ず, a bold rule), feedback
rules and the index's first section are *pinned*: they stay in the loaded window. The others
carry a value; the lowest moves first: a line kept from a pointer whose file is gone, then
tables and hand-written notes, then pointers to reference, project and user memories.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache

from consolidator.index.parse import IndexLine

# Emphasis a writer adds to a rule they do not want missed: warning signs, shouted imperative
# words, and the CJK words for "top priority", "always", "never", "must", "forbidden".
_STRESS = re.compile(
    r"🚨|⚠|❗|‼|⛔|🛑|🔴"
    r"|\b(?:IMPORTANT|CRITICAL|NEVER|ALWAYS|MUST|DO NOT|DON'T|WARNING)\b"
    r"|最上位|最優先|必ず|絶対|厳守|禁止|必須|务必|務必|绝对|絕對|切勿|永远不要|严禁|嚴禁"
    r"|최상위|최우선|절대|반드시"
    # a bracketed or labelled "important" / "note" / "must read" marker: 【重要】, [重要], 重要：
    r"|[【\[［](?:重要|注意|必读|必読|警告|중요|주의)[】\]］]|(?:重要|注意|警告|중요)\s*[:：]"
)
# A line that opens in bold is a rule when the bold runs the whole line (a bolded statement,
# "**Deploys freeze on Fridays.**") or the line says never / always / must / do not. Bold
# alone is emphasis people also use for labels and run-in headings ("**Status:** done",
# "**Critical Filters** (only three):"), and those are not priority marks.
_BOLD_OPEN = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?(\*\*|__)(?!\[)([^\n]+?)\1(.*)$")
_RULE_WORD = re.compile(
    r"\b(?:never|always|must|do not|don'?t|important)\b"
    r"|必须|必須|必ず|不要|不得|不能|禁止|绝不|絶対|してはいけない|반드시|절대|하지 ?마",
    re.IGNORECASE)


_LABEL_REACH = 48  # characters after a bold label in which its rule word must stand


def _bold_rule(text: str) -> bool:
    match = _BOLD_OPEN.match(text)
    if match is None:
        return False
    inner, rest = match.group(2), match.group(3)
    label = inner.rstrip().endswith((":", "：")) or rest.lstrip().startswith((":", "："))
    if not label:
        whole = not rest.strip(" .!。！")
        return whole or bool(_RULE_WORD.search(text))
    # A bold label ("**Rule:** never …", "**Session 10:** …"): a rule only where the label
    # or the first words after it say never / always / must, not a word deep in a long note.
    return bool(_RULE_WORD.search(inner) or _RULE_WORD.search(rest[:_LABEL_REACH]))


_FEEDBACK_HEADING = re.compile(
    r"feedback|rules?\b|preferences?|conventions?|guidelines?|do(?:'s| and)|don'?ts"
    r"|ルール|規則|フィードバック|約束|规则|規則|反馈|反饋|约定|偏好|규칙|피드백",
    re.IGNORECASE,
)
GONE_MARKS = ("missing", "archived")
# The name cannot hold a bracket or a space: each "(" then scans only to the next one, so a
# line of "[x](" repeated is read once, not once per bracket.
_GONE = re.compile(r"\([^\s()]+\.md (?:" + "|".join(GONE_MARKS) + r")\)")

# Values of movable lines: the lowest moves out first.
GONE, NOTE, REFERENCE, OTHER, USER = 0, 1, 2, 3, 4
_POINTER_VALUE = {"reference": REFERENCE, "project": OTHER, "user": USER}
USED_BONUS = 1  # a pointer to a memory sessions were seen opening


@lru_cache(maxsize=1 << 16)
def stressed(text: str) -> bool:
    """A line its writer marked as important: a warning sign, a shouted rule word, or a
    line that opens with a bold rule (not a bold link, not a bold label)."""
    return bool(_STRESS.search(text) or _bold_rule(text))


def _gone_feedback(line: IndexLine, types: Mapping[str, str | None]) -> bool:
    """A rule whose feedback memory is missing: the line still links it, or keeps its words
    marked, and the file's name says feedback (``feedback_no_jargon.md``, as Claude Code
    names them). What the rule says did not go with the file. (:func:`worth` asks only of
    lines that say "feedback": most lines of a large index name no such file.)"""
    names = [t for t in line.targets if t not in types]
    if "(" in line.text:
        names += [m.group(0)[1:].split(" ", 1)[0] for m in _GONE.finditer(line.text)]
    return any(posixpath.basename(n).casefold().startswith("feedback") for n in names)


def gone_line(text: str) -> bool:
    """A line the rebuild kept from a pointer whose file is missing or archived."""
    return bool(_GONE.search(text))


def feedback_heading(heading: str) -> bool:
    return bool(_FEEDBACK_HEADING.search(heading))


@dataclass(frozen=True)
class Worth:
    """One line's standing: ``pinned`` lines stay; the others move by ``value``, lowest first."""

    pinned: bool
    value: int
    stressed: bool = False
    held: bool = False  # pinned only because the line it is indented under is


def parents(lines: list[IndexLine]) -> dict[int, int]:
    """Each indented line -> the line it hangs under: the nearest line above it, in the same
    section, indented less (a list item's details, a pointer's sub-points)."""
    out: dict[int, int] = {}
    stack: list[tuple[int, int]] = []  # (indent, position) of the open items above
    for i, line in enumerate(lines):
        if line.kind == "heading":
            stack = []
            continue
        if line.kind in ("blank", "hidden"):
            continue
        indent = len(line.text) - len(line.text.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if stack:
            out[i] = stack[-1][1]
        stack.append((indent, i))
    return out


def first_section_end(lines: list[IndexLine], limit: int) -> int:
    """One past the last line of the index's first section: its opening up to the second
    heading that follows some content. It is pinned only when it is at most ``limit`` lines
    (an index that is one long section has no first section worth pinning)."""
    seen_content = False
    for i, line in enumerate(lines):
        if line.kind == "heading" and seen_content:
            return i if i <= limit else 0
        if line.kind not in ("heading", "blank", "hidden"):
            seen_content = True
    return 0


def worth(
    lines: list[IndexLine], types: Mapping[str, str | None], first_limit: int,
    used: Collection[str] = (),
) -> list[Worth]:
    """Each line's worth. ``types``: memory file -> its type; ``used``: the memories sessions
    were seen opening (a pointer to one is worth more: an index that must shrink moves the
    least-used first)."""
    first_end = first_section_end(lines, first_limit)
    out: list[Worth] = []
    in_feedback = False
    for i, line in enumerate(lines):
        if line.kind == "heading":
            in_feedback = feedback_heading(line.heading_text)
            out.append(Worth(True, USER))
            continue
        if line.kind == "blank":
            out.append(Worth(False, GONE))
            continue
        if line.kind == "hidden":  # frontmatter, a comment: not content, never moved
            out.append(Worth(True, USER))
            continue
        is_stressed = line.kind != "code" and stressed(line.text) and not (
            gone_line(line.text) and not _STRESS.search(line.text))
        target_type = types.get(line.target) if line.target else None
        pinned = is_stressed or i < first_end or in_feedback or target_type == "feedback" \
            or ("eedback" in line.text or "EEDBACK" in line.text) and _gone_feedback(line, types)
        if gone_line(line.text):
            value = GONE
        elif line.kind == "pointer":
            value = _POINTER_VALUE.get(target_type or "", OTHER) + (
                USED_BONUS if line.target in used else 0)
        else:
            value = NOTE
        out.append(Worth(pinned, value, is_stressed))
    # A line indented under a pinned line belongs to it: the details of a stressed list item
    # stay with the item (they may still move into the memory a pinned pointer names).
    for child, parent in sorted(parents(lines).items()):
        if out[parent].pinned and not out[child].pinned:
            out[child] = Worth(True, out[child].value, False, held=True)
    return out
