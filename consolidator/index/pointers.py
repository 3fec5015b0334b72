"""New pointer lines: written in the style of the index's own lines, placed where a person
would put them (under the heading for the memory's type, else under the index's list heading,
else under the heading whose pointers link files named like it, else after its last pointer;
in an index sorted under headings of its own categories, none of them the list, under a
heading of its type at the end), titled in words rather than a file slug.

The index is loaded into every session, so a new pointer never copies a secret into it: a
credential in the memory's name or description is masked in its title and hook the way
evidence is (``[REDACTED]``). Lines the user wrote are left as they are."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from consolidator.detect.secrets.scan import redact
from consolidator.index.parse import IndexLine, classify, link_path, link_title, split_pointer
from consolidator.index.value import parents
from consolidator.store.model import MEMORY_TYPES, Memory

ELLIPSIS = "…"
_TYPE_HEADINGS = {
    "user": ("user", "users", "about the user", "about me", "ユーザー", "用户", "用戶", "사용자"),
    "feedback": ("feedback", "feedbacks", "preferences", "rules", "フィードバック", "反馈",
                 "反饋", "피드백"),
    "project": ("project", "projects", "プロジェクト", "项目", "項目", "專案", "프로젝트"),
    "reference": ("reference", "references", "links", "リファレンス", "参考", "参照", "참고"),
}
_LIST_HEADING = re.compile(
    r"\b(?:index|memories|memory files|files|topics|entries|contents)\b|目次|索引|一覧|目录|目錄|목록",
    re.IGNORECASE,
)
_SLUG = re.compile(r"^[\w.-]+$")
_BULLET = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")


@dataclass(frozen=True)
class Style:
    """How the index writes its pointer lines."""

    bullet: str = "-"
    bold: bool = False
    separator: str = " — "


def style_of(lines: list[IndexLine]) -> Style:
    """The style most of the index's unindented pointer lines share."""
    bullets: Counter[str] = Counter()
    bold = 0
    separators: Counter[str] = Counter()
    pointers = [line for line in lines if line.kind == "pointer" and line.text[:1] not in " \t"]
    for line in pointers:
        match = _BULLET.match(line.text)
        mark = match.group(2) if match else "-"
        bullets["-" if mark[0].isdigit() else mark] += 1
        rest = line.text[match.end() if match else 0 :]
        bold += rest.startswith(("**[", "__["))
        _link, sep, hook = split_pointer(line.text)
        if sep and hook:
            separators[sep] += 1
    if not pointers:
        return Style()
    return Style(
        bullets.most_common(1)[0][0],
        bold * 2 > len(pointers),
        separators.most_common(1)[0][0] if separators else " — ",
    )


def shorten(text: str, limit: int) -> str:
    """Cut ``text`` at a word boundary so that it plus an ellipsis fits ``limit`` characters."""
    if len(text) <= limit:
        return text
    room = max(limit - len(ELLIPSIS), 0)
    cut = text[:room]
    # A word boundary in the later half, else past the first quarter: never inside a word,
    # a path or an address when a space allows it.
    space = cut.rfind(" ")
    if space >= room // 4 and not text[room:room + 1].isspace():
        cut = cut[:space]
    opened = _unclosed(cut)
    if opened is not None and opened >= room // 2:
        cut = cut[:opened]  # not inside a bracket it cannot close
    return cut.rstrip(" ,;:—–-(（[") + ELLIPSIS


def _unclosed(text: str) -> int | None:
    """Where the last bracket of ``text`` that is not closed opens, if one is not."""
    depth: list[int] = []
    for i, ch in enumerate(text):
        if ch in "([（【":
            depth.append(i)
        elif ch in ")]）】" and depth:
            depth.pop()
    return depth[-1] if depth else None


def _closed(hook: str) -> str:
    """``hook`` without a bracket it opens and never closes, marked cut: a description an
    unquoted ``#`` ended early ("… (on 09/10, PR #907)" reads "… (on 09/10, PR" in YAML)
    would put half a remark into the index."""
    opened = _unclosed(hook)
    if opened is None or opened == 0:
        return hook
    return hook[:opened].rstrip(" ,;:—–-") + ELLIPSIS


SPELLING_CHARS = 2000  # of a memory's body read for how it spells the words of its slug


def title_of(memory: Memory) -> str:
    """A memory's title in words: its name, a slug (``feedback_no-mocks``) read as words
    without the type prefix ("No mocks"), each word spelt as the memory's own text mostly
    spells it ("reference_ci_dashboard": "CI dashboard"), or else its description."""
    name = memory.name.strip()
    if _SLUG.match(name) and re.search(r"[_-]", name):
        words = _SLUG_WORD.findall(name.removesuffix(".md"))
        if len(words) > 1 and words[0].casefold() in MEMORY_TYPES:
            words = words[1:]
        text = f"{memory.description}\n{memory.body[:SPELLING_CHARS]}"
        lower = {word for word in words if word.islower()}
        # Prose first: code and log lines spell identifiers and tags ("NAV [TestMethod]"),
        # and are read only for a word prose never writes (`S3_BUCKET`).
        forms = _forms(_CODE.sub(" ", text), lower)
        forms.update({w: f for w, f in _forms(text, {w for w in lower if not forms[w]}).items()})
        name = " ".join(_spelt(word, forms) for word in words)
        name = name[:1].upper() + name[1:]
    return name or memory.description or memory.stem


_WORD_RUN = re.compile(r"[\w-]+")  # a word as a slug's word is found in text: whole, unjoined
# A slug's words: an ISO date stays whole ("live_2026-09-04_morning": "2026-09-04").
_SLUG_WORD = re.compile(r"\d{4}-\d{1,2}-\d{1,2}(?!\d)|[^_-]+")
_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.DOTALL)


# Letters a slug spells without their marks that Unicode does not decompose, and German's
# own spelling of umlauts without them ("pruefung" for "Prüfung").
_UNMARKED = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe",
                           "ı": "i", "ð": "d", "þ": "th"})
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})


def _unmarked(run: str) -> tuple[str, ...]:
    """How a slug may spell a word of the text: in lower case, without its accents
    ("popisná": "popisna", "źródła": "zrodla"), and with German umlauts as two letters."""
    low = run.lower()
    if low.isascii():
        return (low,)
    bare = "".join(ch for ch in unicodedata.normalize("NFKD", low.translate(_UMLAUTS))
                   if not unicodedata.combining(ch))
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", low)
                    if not unicodedata.combining(ch))
    return (low, plain.translate(_UNMARKED), bare.translate(_UNMARKED))


def _forms(text: str, words: set[str]) -> dict[str, Counter[str]]:
    """Each of ``words`` (in lower case) -> how often ``text`` writes it in each form, a form
    with accents counted for the word a slug spells without them."""
    forms: dict[str, Counter[str]] = {word: Counter() for word in words}
    for run in _WORD_RUN.findall(text):
        for key in dict.fromkeys(_unmarked(run)):
            found = forms.get(key)
            if found is not None:
                found[run] += 1
                break
    for word in words:
        if "." in word:  # "v1.2": a dot ends a run, so it is looked for whole
            forms[word].update(re.findall(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text,
                                          re.IGNORECASE))
    return forms


def _spelt(word: str, forms: dict[str, Counter[str]]) -> str:
    """``word`` as the text of ``forms`` mostly writes it when that is not in lower case
    ("CI", "GitHub"), else as the slug has it, with the accents the text gives it
    ("popisna": "popisná")."""
    if not forms.get(word):
        return word
    form, _ = forms[word].most_common(1)[0]
    if form.islower() or form[:1].isupper() and form[1:].islower():
        return form.lower()
    return form


# Letters of a script other than the Latin one a slug is written in: Greek, Cyrillic,
# Armenian, Hebrew, Arabic, the scripts of India and Thailand, Georgian, kana, Han, Hangul.
_SCRIPT = re.compile(r"[\u0370-\u03ff\u0400-\u052f\u0530-\u06ff\u0900-\u0e7f\u10a0-\u10ff"
                     r"\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# Where a description's head ends: a dash (an em dash anywhere, others between spaces), a
# colon, a semicolon or a full stop, full-width or followed by a space. Never a bracket or a
# comma: the head of a clause is no title.
_HEAD_END = re.compile(r"\s*—+\s*|\s+[-–]+\s+|\s*[：；。]\s*|[:;.]\s+")
HEAD_CHARS = 40  # a head longer than this is no title
WHOLE_CHARS = 60  # a description this short may be the title whole, with no hook


def other_script(lines: list[IndexLine]) -> bool:
    """Whether most titles of the index's pointers are written in a script other than Latin
    (Chinese, Japanese, Korean, Cyrillic, Greek, Arabic, ...)."""
    titles = [link_title(line.text) for line in lines if line.kind == "pointer"]
    titles = [title for title in titles if title]
    return sum(bool(_SCRIPT.search(t)) for t in titles) * 2 > len(titles) > 0


def titled_like(memory: Memory) -> tuple[str, str] | None:
    """(title, hook) in the script of an index titled in a script other than Latin for a
    memory whose title would read in Latin letters from its slug but whose description is written in the index's
    script: the description's head (up to its first dash, colon, semicolon or full stop,
    within 40 characters) is the title and the rest its hook, else a short description is
    the title whole. None when the title is already in that script, or the description has
    no such head (a slug's words read better than half a sentence)."""
    description = memory.description.strip()
    if _SCRIPT.search(title_of(memory)) or not _SCRIPT.search(description):
        return None
    end = _HEAD_END.search(description)
    options = [(description, "", WHOLE_CHARS)]
    if end is not None:
        options.insert(0, (description[: end.start()], description[end.end():], HEAD_CHARS))
    for head, hook, most in options:
        head = head.strip()
        if 2 <= len(head) <= most and _SCRIPT.search(head) and _unclosed(head) is None:
            return head, hook.strip()
    return None


def pointer_line(
    memory: Memory,
    limit: int,
    style: Style | None = None,
    title: str | None = None,
    hook: str | None = None,
) -> str:
    """A new pointer line to ``memory`` in ``style``, within ``limit`` characters, with any
    secret in its title or hook masked (before either is shortened, so no part of one stays)."""
    style = style or Style()
    target = f"({link_path(memory.file)})"
    wrap = "**" if style.bold else ""
    room = limit - len(target) - 4 - 2 * len(wrap) - (20 if memory.description else 0)
    title = shorten(redact(title or title_of(memory)).replace("[", "(").replace("]", ")"),
                    max(room, 10))
    head = f"{style.bullet} {wrap}[{title}]{target}{wrap}"
    hook = _closed(redact(memory.description if hook is None else hook))
    if not hook or hook.casefold() == title.casefold():
        return head
    sep = style.separator
    return head + sep + shorten(hook, max(limit - len(head) - len(sep), 1))


# A name of one particular thing: a word joined by "-", "_", "." or "/", or holding a digit
# ("ai-club", "web_app", "v2"). A heading with one beside the type word is about that thing
# ("## ai-club project"), not about the type.
_NAMED = re.compile(r"\w+[-_./]\w|\w*\d\w*[a-z]|[a-z]\w*\d")


def type_heading(lines: list[IndexLine], mtype: str) -> int | None:
    """The heading a memory of ``mtype`` belongs under, if the index has one: the one that
    names the type in the fewest other words ("## Projects" before "## Project memories"),
    never the document's title (a level-1 heading when sub-headings follow), nor one that
    also names a particular thing ("## ai-club プロジェクト")."""
    words = _TYPE_HEADINGS.get(mtype, (mtype,))
    levels = {line.level for line in lines if line.kind == "heading"}
    title_level = min(levels) if len(levels) > 1 else 0
    best: tuple[int, int] | None = None
    for i, line in enumerate(lines):
        if line.kind != "heading" or line.level == title_level:
            continue
        heading = line.heading_text.casefold()
        for w in words:
            # Words of a script written without spaces (参考資料) match inside the heading.
            hit = (re.search(rf"(?<!\w){re.escape(w)}(?!\w)", heading) if w.isascii()
                   else w in heading)
            if hit and not _NAMED.search(heading.replace(w, " ", 1)):
                extra = len(heading) - len(w)
                if best is None or extra < best[0]:
                    best = (extra, i)
    return best[1] if best else None


def _sections(lines: list[IndexLine]) -> dict[int, list[str]]:
    """Heading -> the memory files its pointer lines link (headings over pointers only)."""
    out: dict[int, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        if line.kind == "heading":
            current = i
        elif line.kind == "pointer" and current is not None and line.target:
            out.setdefault(current, []).append(line.target)
    return out


def list_heading(lines: list[IndexLine]) -> int | None:
    """The index's own list heading: one named like a list ("## Index", "## Memories",
    "## 目次") that holds pointers, else the heading over most of the pointer lines (more
    than all the others hold together). None when the pointers stand under several headings
    none of which is the list: those are the user's own categories, and a memory that none
    of them is shown to hold is not filed under one."""
    counts = {i: len(targets) for i, targets in _sections(lines).items()}
    named = [i for i in counts if _LIST_HEADING.search(lines[i].heading_text)]
    if named:
        return named[0]
    if counts:
        most = max(counts, key=lambda i: (counts[i], -i))
        if 2 * counts[most] > sum(counts.values()):
            return most
    return None


_PREFIX = re.compile(r"([^\W\d_]+)[_-]\w")  # the first word of a slug: `decision_`, `todo-`


def _prefix(file: str) -> str | None:
    match = _PREFIX.match(file.rsplit("/", 1)[-1])
    return match.group(1).casefold() if match else None


_NAME_WORDS = re.compile(r"[-_.\s]+")


def _name_words(file: str) -> list[str]:
    stem = file.rsplit("/", 1)[-1].removesuffix(".md").casefold()
    return [w for w in _NAME_WORDS.split(stem) if w]


def _namesake(file: str, sections: dict[int, list[str]]) -> int | None:
    """The one heading holding the pointer whose file shares the most first words with
    ``file``, two at least (a type word and a subject), where no other heading's file shares
    as many."""
    mine = _name_words(file)
    best, where = 1, set()
    for heading, targets in sections.items():
        for target in targets:
            theirs = _name_words(target)
            shared = next((n for n, (a, b) in enumerate(zip(mine, theirs, strict=False))
                           if a != b), min(len(mine), len(theirs)))
            if shared > best:
                best, where = shared, {heading}
            elif shared == best and best > 1:
                where.add(heading)
    return next(iter(where)) if len(where) == 1 else None


def sibling_heading(lines: list[IndexLine], file: str, mtype: str | None = None,
                    sections: dict[int, list[str]] | None = None) -> int | None:
    """The heading whose pointers link files named with the same first word as ``file``
    (``decision_x.md`` under the section holding ``decision_y.md``), else with the memory's
    type as their first word (``git_workflow.md``, a feedback memory, under the section
    holding ``feedback_tests.md``, whatever language its heading is in), when one heading
    has more of them than any other (``sections``: :func:`_sections` of ``lines``, if known)."""
    sections = _sections(lines) if sections is None else sections
    for word in (_prefix(file), mtype):
        if not word:
            continue
        counts = Counter({i: sum(1 for t in targets if _prefix(t) == word)
                          for i, targets in sections.items()})
        ranked = [(n, i) for i, n in counts.most_common(2) if n]
        if ranked and not (len(ranked) == 2 and ranked[0][0] == ranked[1][0]):
            return ranked[0][1]
    return None


def section_end(lines: list[IndexLine], start: int) -> int:
    """One past the last non-blank line of the section whose heading is at ``start``
    (a sub-heading ends it too)."""
    end = start + 1
    while end < len(lines) and lines[end].kind != "heading":
        end += 1
    while end > start + 1 and lines[end - 1].kind == "blank":
        end -= 1
    return end


def item_end(lines: list[IndexLine], at: int) -> int:
    """One past the list item at ``at``: with the lines indented under it (its details, as
    :func:`~consolidator.index.value.parents` reads them) and a paragraph's lazy continuation
    lines, so that nothing is put between an item and the rest of what it says."""
    under = parents(lines)
    inside = {at}
    end = at + 1
    for i in range(at + 1, len(lines)):
        kind = lines[i].kind
        if kind == "heading":
            break
        if under.get(i) in inside:
            inside.add(i)
            end = i + 1
        elif kind == "text" and i == end:  # unindented, right after: still the same item
            end = i + 1
        elif kind != "blank":
            break
    return end


def add_pointers(
    lines: list[IndexLine], memories: list[Memory], limit: int
) -> list[IndexLine]:
    """``lines`` with a pointer to each of ``memories`` where a person would put it: beside
    its namesake (the pointer whose file shares the most first words with its file, two at
    least: ``project_state_0903_evening.md`` beside ``project_state_0903_morning.md``, not
    under "Other projects"), else under the heading that names its type, the index's list
    heading, or the heading its siblings stand under (:func:`sibling_heading`)."""
    style = style_of(lines)
    fresh = not any(line.kind != "blank" for line in lines)
    by_place: dict[int | None, list[IndexLine]] = {}
    headings: dict[str, int] = {}  # type -> heading this call created (index in ``appended``)
    appended: list[IndexLine] = []
    last_pointer = max((i for i, l in enumerate(lines) if l.kind == "pointer"), default=None)
    listed = list_heading(lines)
    # Pointers under several headings, none the list: the user's categories. A memory none
    # of them is shown to hold goes under a heading of its type at the end.
    sections = _sections(lines)
    sorted_in = not fresh and listed is None and len(sections) > 1
    level = min((lines[i].level for i in sections), default=2)
    places: dict[str, int | None] = {}  # type -> where its new lines go
    script = other_script(lines)
    for memory in sorted(memories, key=lambda m: (m.type or "~", m.file)):
        own = titled_like(memory) if script else None
        line = classify(pointer_line(memory, limit, style, *(own or (None, None))))
        mtype = memory.type if memory.type in MEMORY_TYPES else "other"
        if mtype not in places:
            at = type_heading(lines, mtype)
            if at is None and not fresh:
                at = listed
            places[mtype] = None if at is None else section_end(lines, at)
        kin = None if fresh else _namesake(memory.file, sections)
        end = places[mtype] if kin is None else section_end(lines, kin)
        if end is None and not fresh:
            sibling = sibling_heading(lines, memory.file, memory.type, sections)
            end = None if sibling is None else section_end(lines, sibling)
        if end is not None:
            by_place.setdefault(end, []).append(line)
        elif last_pointer is not None and not fresh and not sorted_in:
            by_place.setdefault(item_end(lines, last_pointer), []).append(line)
        elif fresh or sorted_in:
            if mtype not in headings:
                if appended:
                    appended.append(IndexLine("", "blank"))
                appended.append(classify(f"{'#' * level} {mtype.capitalize()}"))
                headings[mtype] = len(appended)
            appended.append(line)
        else:
            appended.append(line)
    out: list[IndexLine] = []
    for i, line in enumerate(lines + [IndexLine("", "end")]):
        new = by_place.get(i, [])
        if new and out and out[-1].kind not in ("blank", "heading", "pointer") \
                and not _BULLET.match(out[-1].text):
            out.append(IndexLine("", "blank"))  # never glued to a paragraph
        out.extend(new)
        if line.kind != "end":
            out.append(line)
    if appended:
        if fresh:
            out = [line for line in out if line.kind != "blank"]
            if not out:
                out = [classify("# Memory index"), IndexLine("", "blank")]
            elif out[-1].kind != "blank":
                out.append(IndexLine("", "blank"))
        elif out and out[-1].kind != "blank" and (sorted_in or not _BULLET.match(out[-1].text)):
            out.append(IndexLine("", "blank"))  # (a heading of its own after a blank line)
        out.extend(appended)
    return out
