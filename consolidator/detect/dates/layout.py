"""Where in a memory's text a relative date may stand: prose and cells, not code, quotes or names.

A phrase counts only in the writer's own prose. Code (fenced blocks, inline code), quotations
and dialogue (quoted text, blockquotes, screenplay and chat lines), headings, link targets and
link texts, wiki links, URLs and HTML tags hold someone else's words, a name or an example; the
relative dates in them are not the writer's dates. A table's cell is read as a line of its own
(see :func:`table_cell`), except in a row that gives a date of its own.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from consolidator.detect.script import HAN
from consolidator.store.codespans import LIST_ITEM

INDEX_NOTE = "Index note (moved from MEMORY.md):"

_FENCE = re.compile(r"[ \t]{0,12}(`{3,}|~{3,})")
_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]|$)")
# Screenplay and chat lines: 【角色】台词, "BOB: ...", "张三：（冷笑）...", "User: ...".
_DIALOGUE = re.compile(
    r"[ \t]*(?:[-*+][ \t]+)?(?:"
    r"【[^】\n]{1,16}】"
    r"|[A-Z][A-Z'. -]{1,24}:[ \t]+[(（]"
    rf"|[{HAN}·]{{1,6}}[ \t]?[：:][ \t]?[（(]"
    r"|(?:\*\*)?(?:User|Assistant|Human|Claude|AI|Bot|用户|助手|ユーザー|アシスタント)(?:\*\*)?"
    r"[ \t]?[:：]"
    r")"
)
# All-caps words that open a note, not a speaker's line.
_NOT_SPEAKERS = frozenset({
    "TODO", "NOTE", "NOTES", "UPDATE", "FIX", "FIXED", "WARNING", "IMPORTANT", "STATUS", "DONE",
    "BUG", "WIP", "NB", "PS", "FYI", "TLDR", "TL;DR", "WHY", "HOW", "CONTEXT", "DECISION",
    "RESULT", "ISSUE", "CAUSE", "ACTION", "NEXT", "PLAN", "GOAL", "RULE", "NEVER", "ALWAYS",
    "CAUTION", "DEADLINE", "DATE", "Q", "A",
})
# Spans inside a prose line that are not the writer's own words: code, links, quotations.
_SPANS = re.compile(
    r"``[^\n]*?``|`[^`\n]*`"
    r"|!?\[\[[^\]\n]{0,200}\]\]"
    r"|!?\[[^\]\n]{0,200}\]\([^)\n]{0,300}\)"
    r"|<[A-Za-z/!][^<>\n]{0,120}>"
    r"|\b(?:https?|ftp|file)://[^\s)>\]]+|\bwww\.[^\s)>\]]+"
    r"|\"[^\"\n]*\"|“[^”\n]*”|‘[^’\n]*’|(?<!\w)'[^'\n]{1,300}'(?!\w)"
    # German, Polish and Czech quotes open low („…“, „…”, ‚…‘); guillemets either way round
    r"|„[^“”\"\n]*[“”\"]|‚[^‘’\n]*[‘’]|«[^»\n]*»|»[^«\n]*«|‹[^›\n]*›|›[^‹\n]*‹"
    r"|「[^」\n]*」|『[^』\n]*』|《[^》\n]*》|〈[^〉\n]*〉|〔[^〕\n]*〕"
)


def _is_dialogue(line: str) -> bool:
    """Whether ``line`` is a line of a script or a chat, spoken by someone named on it."""
    match = _DIALOGUE.match(line)
    if match is None:
        return False
    speaker = match.group(0).strip(" \t-*+:：").upper()
    return speaker not in _NOT_SPEAKERS


def line_kind(line: str) -> str:
    """The kind of one line outside code fences: heading, table, quote, note, dialogue, text."""
    stripped = line.strip()
    if not stripped:
        return "blank"
    if _HEADING.match(line):
        return "heading"
    if stripped[0] in "|｜" or stripped.count("|") >= 2 and _pipes_outside_code(stripped):
        return "table"
    if stripped[0] == ">":
        return "quote"
    if stripped.startswith(INDEX_NOTE) or INDEX_NOTE in stripped[:40]:
        return "note"
    if _is_dialogue(line):
        return "dialogue"
    return "text"


_CODE_SPAN = re.compile(r"``[^\n]*?``|`[^`\n]*`")


def _pipes_outside_code(line: str) -> int:
    """The pipes of ``line`` outside inline code: a sentence whose only pipes are a quoted
    shell pipeline's (`` `crontab -l | grep -v job | crontab -` ``) is no table row."""
    return line.count("|") - sum(m.group(0).count("|") for m in _CODE_SPAN.finditer(line))


def table_cell(line: str, start: int, end: int) -> tuple[int, int]:
    """Where the cell of a table row holding columns ``start``-``end`` begins and ends. A
    cell ("| API | fixed yesterday by a hotfix |") is the writer's words, read as a line."""
    left = max(line.rfind("|", 0, start), line.rfind("｜", 0, start)) + 1
    ends = [at for at in (line.find("|", end), line.find("｜", end)) if at >= 0]
    return left, min(ends, default=len(line))


_INDENTED = re.compile(r"(?: {4}|\t| {0,3}\t)")


def _indented_code(line: str, kinds: list[str], lines: list[str]) -> bool:
    """Whether ``line`` (the next after ``kinds``) is a line of an indented code block: four
    spaces or a tab in, after a blank line or another such line, outside any list (a list
    item's own lines are indented as much: they stay prose) and no list item itself."""
    if not _INDENTED.match(line) or not line.strip() or LIST_ITEM.match(line):
        return False
    at = len(kinds)
    if at and kinds[-1] == "code" and _INDENTED.match(lines[at - 1]):
        return True  # an indented block goes on
    if at and kinds[-1] != "blank":
        return False  # an indented line cannot break into a paragraph
    before = next((i for i in range(at - 1, -1, -1) if kinds[i] != "blank"), -1)
    if before >= 0 and kinds[before] == "code" and _INDENTED.match(lines[before]):
        return True  # a blank line inside an indented block: the block goes on
    return before < 0 or not (LIST_ITEM.match(lines[before]) or lines[before][:1] in " \t")


class Layout:
    """A text split into lines, each with its kind (code-fence state taken into account)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        position = text.find("\n")
        while position >= 0:
            self.starts.append(position + 1)
            position = text.find("\n", position + 1)
        self.lines = [text[s : (self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(text))]
                      .rstrip("\r") for i, s in enumerate(self.starts)]
        self.kinds = self._kinds()
        self._spans: dict[int, list[tuple[int, int]]] = {}

    def _kinds(self) -> list[str]:
        """Every line's kind; lines in a fenced block (or an unclosed one) are code, and so
        are those of an indented block (see :func:`_indented_code`)."""
        kinds: list[str] = []
        fence = ""
        for line in self.lines:
            opener = _FENCE.match(line)
            if not fence and _indented_code(line, kinds, self.lines):
                kinds.append("code")
            elif fence:
                kinds.append("code")
                closer = opener.group(1) if opener else ""
                if closer[:1] == fence[0] and len(closer) >= len(fence) \
                        and not line[opener.end() if opener else 0 :].strip():
                    fence = ""  # a closing fence: as long as the opening one, nothing after
            elif opener:
                fence = opener.group(1)
                kinds.append("code")
            else:
                kinds.append(line_kind(line))
        return kinds

    def line_of(self, offset: int) -> int:
        """The index of the line holding ``offset``."""
        return bisect_right(self.starts, offset) - 1

    def prose(self) -> list[bool]:
        """Per line: whether it is prose or a heading (its dates may date what follows)."""
        return [k in ("text", "heading", "blank", "dialogue") for k in self.kinds]

    def masked(self, index: int, start: int, end: int) -> bool:
        """Whether columns ``start``-``end`` of line ``index`` fall in code, a link or quotes."""
        spans = self._spans.get(index)
        if spans is None:
            spans = [(m.start(), m.end()) for m in _SPANS.finditer(self.lines[index])]
            self._spans[index] = spans
        # The spans are sorted and do not overlap: only the last one opening before ``end``
        # can hold the phrase.
        last = bisect_right(spans, (end, -1)) - 1
        return last >= 0 and spans[last][1] > start


# The label Claude Code's memories put before a rule's instructions ("**How to apply:** ...").
_HOW_TO_APPLY = re.compile(r"[ \t]*(?:[-*+][ \t]+)?[*_]{0,2}how to apply[*_]{0,2}[ \t]*[:：]",
                           re.IGNORECASE)
# A bold label opening a line or a list item ("**Done in this session:** ...").
ANY_LABEL = re.compile(r"[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)[^*_\n]{1,40}(?:\*\*|__)")


def how_to_apply(lines: list[str]) -> set[int]:
    """The lines of every "How to apply:" paragraph: instructions for sessions to come, where
    "yesterday" is whichever day a session reads it on (it runs to a blank line or the next
    bold label)."""
    out: set[int] = set()
    inside = False
    for at, line in enumerate(lines):
        if _HOW_TO_APPLY.match(line):
            inside = True
        elif not line.strip() or ANY_LABEL.match(line):
            inside = False
        if inside:
            out.add(at)
    return out
