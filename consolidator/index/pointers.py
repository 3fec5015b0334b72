"""New pointer lines: written in the style of the index's own lines and titled in words
rather than a file slug, in the index's script (where a line goes is
:mod:`consolidator.index.placing`).

The index is loaded into every session, so a new pointer never copies a secret into it: a
credential in the memory's name or description is masked in its title and hook the way
evidence is (``[REDACTED]``). Lines the user wrote are left as they are."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from consolidator.detect.secrets.scan import redact
from consolidator.detect.words import FUNCTION_WORDS
from consolidator.index.parse import IndexLine, link_path, link_title, split_pointer
from consolidator.store.model import MEMORY_TYPES, Memory

ELLIPSIS = "…"
_SLUG = re.compile(r"^[\w.-]+$")
BULLET = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")
_WIKI_POINTER = re.compile(r"\[\[[^\[\]|\n]+(\|[^\[\]\n]*)?\]\]\W*$")  # a link part that is one
# A file a wiki key names plainly: at the folder's root, nothing a wiki link reads otherwise.
_WIKI_KEY = re.compile(r"[^\[\]|#/\n]+\.md")


@dataclass(frozen=True)
class Style:
    """How the index writes its pointer lines."""

    bullet: str = "-"
    bold: bool = False
    separator: str = " — "
    wiki: str = ""  # "key" or "alias": pointers are wiki links, ``[[key]]`` or ``[[key|title]]``


def style_of(lines: list[IndexLine]) -> Style:
    """The style most of the index's unindented pointer lines share."""
    bullets: Counter[str] = Counter()
    bold = 0
    separators: Counter[str] = Counter()
    wikis: Counter[str] = Counter()
    pointers = [line for line in lines if line.kind == "pointer" and line.text[:1] not in " \t"]
    for line in pointers:
        match = BULLET.match(line.text)
        mark = match.group(2) if match else "-"
        bullets["1" + mark[-1] if mark[0].isdigit() else mark] += 1  # "1." or "1)": numbered
        rest = line.text[match.end() if match else 0 :]
        bold += rest.startswith(("**[", "__["))
        link, sep, hook = split_pointer(line.text)
        if sep and hook:
            separators[sep] += 1
        wiki = _WIKI_POINTER.search(link)
        if wiki is not None:
            wikis["alias" if wiki.group(1) else "key"] += 1
    if not pointers:
        return Style()
    form, count = wikis.most_common(1)[0] if wikis else ("", 0)
    return Style(
        bullets.most_common(1)[0][0],
        bold * 2 > len(pointers),
        separators.most_common(1)[0][0] if separators else " — ",
        form if count * 2 > len(pointers) else "",
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
    # Never end on a word that leads into the rest ("… whose base moved is…"): an article, a
    # preposition, a conjunction or a form of "to be", in any language the tool reads.
    for _ in range(3):
        space = cut.rstrip().rfind(" ")
        if space < room // 2 or cut[space + 1:].strip(" ,;:").casefold() not in _DANGLING:
            break
        cut = cut[:space]
    opened = _unclosed(cut)
    if opened is not None and opened >= room // 2:
        cut = cut[:opened]  # not inside a bracket it cannot close
    return cut.rstrip(" ,;:—–-(（[") + ELLIPSIS


_DANGLING = frozenset().union(*FUNCTION_WORDS.values(), (
    "a", "an", "or", "but", "in", "on", "at", "by", "as", "its", "their", "his", "her", "our",
    "your", "which", "who", "whose", "when", "where", "than", "into", "onto", "via", "per"))


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
    ("popisna": "popisná"). A word the text also writes as the slug does keeps the slug's
    letters: with accents it is another word ("e" and "é", "a" and "à", "si" and "sí")."""
    if not forms.get(word):
        return word
    written = forms[word]
    if word.isascii() and any(f.isascii() for f in written):
        written = Counter({f: n for f, n in written.items() if f.isascii()})
    form, _ = written.most_common(1)[0]
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
    memory whose title would read in Latin letters from its slug but whose description is
    written in the index's script: the description's head (up to its first dash, colon,
    semicolon or full stop, within 40 characters) is the title and the rest its hook, else a
    short description is the title whole. None when the title is already in that script, or
    the description has no such head (a slug's words read better than half a sentence)."""
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
    wrap = "**" if style.bold else ""
    link, hook = pointer_parts(memory, limit - 4 - 2 * len(wrap), title, hook)
    if style.wiki and _WIKI_KEY.fullmatch(memory.file):
        # as the index's own pointers link theirs: by the file's stem, titled or not
        key = memory.file.removesuffix(".md")
        link = f"[[{key}|{link_title(link)}]]" if style.wiki == "alias" else f"[[{key}]]"
    head = f"{style.bullet} {wrap}{link}{wrap}"
    if not hook:
        return head
    sep = style.separator
    return head + sep + shorten(hook, max(limit - len(head) - len(sep), 1))


def pointer_parts(memory: Memory, room: int, title: str | None = None, hook: str | None = None,
                  ) -> tuple[str, str]:
    """A new pointer's link, its title cut to fit ``room`` characters with 20 left for a
    hook, and its whole hook (none when it says no more than the title), any secret in
    either masked before either is shortened, so that no part of one stays."""
    target = f"({link_path(memory.file)})"
    room -= len(target) + (20 if memory.description else 0)
    # (on one line: a description YAML folds over lines would break the pointer in two)
    title = " ".join(redact(title or title_of(memory)).split())
    title = shorten(title.replace("[", "(").replace("]", ")"), max(room, 10))
    hook = _closed(" ".join(redact(memory.description if hook is None else hook).split()))
    if hook.casefold() == title.casefold():
        hook = ""
    return f"[{title}]{target}", hook
