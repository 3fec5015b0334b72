"""Candidate pairs for conflicts: lines of two memories that share a skeleton.

A line's *skeleton* is its words with each value replaced by its class: numbers and words with
digits (a run of them is one slot), known alternatives (weekdays, package managers,
always/never, 必须/不要, 有効/無効…) and paths. Lines that differ only in values share a
skeleton, or its first part when one line goes on with a remark. Lines without a value pair
by the line itself, but only where one side is written with a symbol the normal form drops
(C++/C#, -5/+5, ~~struck~~, ✅/❌). Everything is keyed from the normal-form lines the
detectors share, with one pass over the raw lines that hold symbols or paths: linear in the
size of the root. The pairs are judged in :mod:`consolidator.detect.conflicts.find`.
"""

from __future__ import annotations

import re

from consolidator.detect.conflicts.values import CHOICE, concord
from consolidator.detect.text import exact_line, normal_line
from consolidator.store.model import Memory

MIN_LINE_TOKENS = 3  # a claim that stands on its own
MIN_KEY_TOKENS = 2  # "VLAN: 110": too short to stand as a claim alone, but it lines up
MAX_LINE_TOKENS = 80
MAX_POSTINGS = 12  # a skeleton shared by more lines than this is boilerplate

Candidate = tuple[tuple[str, str], tuple[str, str]]  # (file, normal line) of each side

# Text with one of these may differ from other text only by a symbol (C++/C#, ==/!=, -5/+5,
# ^4.2/~4.2, ~~struck~~, ✅/❌): its lines without a value are candidates too. Checked with
# plain substring searches first, which cost far less than a regex over every body.
_SYMBOL_CHARS = re.compile(r"[+<>=!~^$€£¥₩]")
_ENV_NAME = re.compile(r"[A-Z0-9]_[A-Z]")  # APP_FEATURE_FLAGS (against APP-FEATURE-FLAGS)
_EMOJI = re.compile(r"[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]")
_MINUS_DIGIT = re.compile(r"-\d")


def _has_symbols(text: str) -> bool:
    """Whether ``text`` holds a symbol that the normal form drops but a claim may hang on."""
    if _SYMBOL_CHARS.search(text) is not None:
        return True
    if "_" in text and _ENV_NAME.search(text) is not None:
        return True
    if not text.isascii() and _EMOJI.search(text) is not None:
        return True
    at = text.find("#")
    while at != -1:  # C#, F#: a hash right after a letter
        if at > 0 and text[at - 1].isalnum():
            return True
        at = text.find("#", at + 1)
    for match in _MINUS_DIGIT.finditer(text):  # a minus sign, not a range (2-3) or a date
        at = match.start()
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "-_."):
            return True
    return False


_VALUE = "<v>"


def skeleton(normal: str) -> str | None:
    """A normal line's skeleton: each value (numbers, words with digits, known alternatives
    such as weekdays) replaced by its class, a run of numbers by one slot. None for a line
    too short or too long to be one claim, or with no value in it."""
    toks = normal.split(" ")
    if not MIN_KEY_TOKENS <= len(toks) <= MAX_LINE_TOKENS:
        return None
    repeated = concord(toks)  # "никогда не": one "never", as English says it
    if repeated:
        toks = [t for i, t in enumerate(toks) if i not in repeated]
        normal = " ".join(toks)
    choices = not CHOICE.keys().isdisjoint(toks)
    if _PATH_WORD in toks:
        choices = True  # a path stood in for by its placeholder word: a value like the others
    digits = _DIGIT.search(normal) is not None
    if not normal.isascii():
        # CJK words such as 必须, 周三 or 水曜日 span characters that the normal form splits
        # (it writes them "必 须"), and CJK numerals are values too.
        cjk = _CJK_WORDS.search(normal) is not None
        if not digits and not choices and not cjk:
            return None
        key = _NUMBERS.sub(_VALUE, normal) if digits else normal
        if cjk:
            key = _CJK_WORDS.sub(_cjk_class, key)
        return " ".join(_CLASSES.get(t, t) for t in key.split(" ")) if choices else key
    if not digits and not choices:
        return None  # words only, none a known alternative: the usual case, at C speed
    key = _NUMBERS.sub(_VALUE, normal) if digits else normal
    if choices:
        key = " ".join(_CLASSES.get(t, t) for t in key.split(" "))
    return key


_DIGIT = re.compile(r"\d")
_CLASSES = {**CHOICE, "zzpathzz": "<path>"}


def _cjk_class(match: re.Match[str]) -> str:
    """The class of a CJK value word found in a normal line (its characters space-separated)."""
    return CHOICE.get(match.group().replace(" ", "")) or _VALUE


_CJK_WORDS = re.compile(
    "|".join(" ".join(w) for w in sorted((w for w in CHOICE if not w.isascii()), key=len,
                                         reverse=True))
    + "|[一二三四五六七八九十两]"
)
# A run of tokens with digits in them (2026 03 15, v18, 1 5): one value slot. Each run starts
# at a token's start, so no stretch of letters is scanned twice.
_NUMBERS = re.compile(r"(?<!\S)[a-z]*\d[a-z0-9]*(?: [a-z]*\d[a-z0-9]*)*(?!\S)")
_PREFIX_AFTER = frozenset(("<v>", "<pkg>", "<weekday>", "<month>", "<bool>", "<path>"))
_CLAIM_WORDS = 6  # tokens that "always", "never", "must" are taken to govern


def _prefixes(key: str) -> list[str]:
    """Parts of a skeleton, each up to the end of a claim, when the line goes on after it:
    up to one of its first values (at least four tokens) for a value that ends a claim ("dev
    db localhost <v>" of "Dev DB: localhost:5432 (moved to pgbouncer)"), the next few words
    for one that starts it ("<freq> squash migrations before merging a"). So a claim followed
    by a remark still meets the same claim without one, or with another remark."""
    parts = key.split(" ")
    out: list[str] = []
    for i, part in enumerate(parts):
        if part[:1] != "<":
            continue
        end = max(i + 1, 4) if part in _PREFIX_AFTER else i + 1 + _CLAIM_WORDS
        if end >= len(parts) or len(out) == _MAX_PREFIXES:
            break
        out.append(_PREFIXED + " ".join(parts[:end]))
    return out


_MAX_PREFIXES = 3
_UNSEEN = ("",)  # no skeleton worked out yet
_PREFIXED = "\x00"  # marks a key made of a skeleton's first part


# A path, a URL or a Windows path in a line as written: a value the normal form splits into
# words. Linear: it starts only where a run of path characters starts, and the parts around
# each separator are runs of path characters. A line with more paths than a claim has tokens
# is no claim: at most MAX_LINE_TOKENS of them are put in place (each costs a pass over the
# line), so a line made of paths costs time linear in its length.
_PATH = re.compile(r"(?:https?://|[A-Za-z]:\\|(?<![\w.~@-]))[\w.~@-]{0,128}(?:[/\\][\w.~@-]+)+/?")
_PATH_HINT = re.compile(r"[\w.~-][/\\][\w.~-]")
_PATH_WORD = "zzpathzz"  # stands in for a path while a line is normalised


def _pathed(by_file: dict[str, Memory]) -> dict[str, list[tuple[str, str]]]:
    """Per memory, the skeleton keys of its lines that name a path (with the path as a value
    slot) and each line's own normal form."""
    out: dict[str, list[tuple[str, str]]] = {}
    for file, memory in by_file.items():
        body = memory.body
        if "/" not in body and "\\" not in body:
            continue
        for raw in body.splitlines():
            if ("/" not in raw and "\\" not in raw) or _PATH_HINT.search(raw) is None:
                continue
            normal = keyed = normal_line(raw)
            for count, match in enumerate(_PATH.finditer(raw)):
                if count == MAX_LINE_TOKENS:
                    keyed = normal  # one slot a path and still too many: no claim, no key
                    break
                # The path's own normal form, found again in the line's: one slot for it.
                words = normal_line(match.group())
                if words:
                    keyed = keyed.replace(words, _PATH_WORD, 1)
            key = skeleton(keyed) if keyed != normal else None
            if key is not None and "<path>" in key:
                out.setdefault(file, []).append((key, normal))
    return out


def candidates(by_file: dict[str, Memory], sets: dict[str, frozenset[str]]) -> list[Candidate]:
    """Pairs of (file, normal line) from two memories that share a skeleton: lines with a
    value by their skeleton (or by its part up to the first value); lines without one by the
    line itself, where one side is written with symbols the normal form drops. A memory with
    one skeleton on several lines lists several things under it and takes no part in that
    skeleton's pairs."""
    symbolic = _symbolic(by_file)

    def differ(a: tuple[str, str], b: tuple[str, str]) -> bool:
        """Whether two entries with one normal line may still differ in a symbol."""
        entry = symbolic.get(a[1])
        if entry is None:
            return False
        holders, forms = entry
        return len(forms) > 1 or a[0] not in holders or b[0] not in holders

    out: list[Candidate] = []
    first: dict[str, tuple[str, str]] = {}
    shared: dict[str, list[tuple[str, str]]] = {}
    pathed = _pathed(by_file)
    # A line's skeleton and its parts, worked out once for every memory that holds the line.
    skeletons: dict[str, tuple[str, ...] | None] = {}
    for file in by_file:
        mine: dict[str, str] = {}
        listed: set[str] = set()
        for keyed, normal in pathed.get(file, ()):
            for part in (keyed, *_prefixes(keyed)):
                if part in mine and mine[part] != normal:
                    listed.add(part)
                else:
                    mine[part] = normal
        for line in sets.get(file, ()):
            parts = skeletons.get(line, _UNSEEN)
            if parts is _UNSEEN:
                key = skeleton(line)
                parts = skeletons[line] = None if key is None else (key, *_prefixes(key))
            if parts is None:
                found = symbolic.get(line)
                if found is not None and len(found[0]) <= MAX_POSTINGS:
                    # Each pair once: from the side that is not a holder, or the later holder.
                    out += [((other, line), (file, line)) for other in found[0]
                            if other != file and (file not in found[0] or other < file)
                            and differ((other, line), (file, line))]
                continue
            for part in parts:
                if part in mine and mine[part] != line:
                    listed.add(part)
                else:
                    mine[part] = line
        for key, line in mine.items():
            if key in listed:
                continue
            entry = (file, line)
            held = first.setdefault(key, entry)
            if held is entry:
                continue
            postings = shared.get(key)
            if postings is None:
                shared[key] = [held, entry]
            elif len(postings) <= MAX_POSTINGS:
                postings.append(entry)
    for key, entries in shared.items():
        if len(entries) > MAX_POSTINGS:
            continue
        head = key.count(" ") + 1 if key.startswith(_PREFIXED) else 0
        for i, a in enumerate(entries):
            for b in entries[i + 1 :]:
                same = _same_claim(a[1], b[1], head) if head else a[1] == b[1]
                if not same or differ(a, b) or differ(b, a):
                    out.append((a, b))
    return out




def _same_claim(a: str, b: str, head: int) -> bool:
    """Whether two normal lines that share a skeleton's first ``head`` tokens say the same in
    them: one restates the other and goes on, or both go on differently after equal values."""
    if a.startswith(b) or b.startswith(a):
        return True
    return a.isascii() and b.isascii() and _head(a, head) == _head(b, head)


def _head(normal: str, count: int) -> str:
    """The first ``count`` skeleton tokens of a normal line, as the line has them (a run of
    tokens with digits is one skeleton token, as in :func:`_key`)."""
    toks = normal.split(" ")
    seen = 0
    before = False
    for i, tok in enumerate(toks):
        value = _DIGIT.search(tok) is not None
        if not (value and before):
            seen += 1
            if seen > count:
                return " ".join(toks[:i])
        before = value
    return normal


def _symbolic(by_file: dict[str, Memory]) -> dict[str, tuple[list[str], set[str]]]:
    """Lines written with symbols, by normal form: the memories that hold them and each way
    they are written (exact forms). Only these are worth reading for a pair of lines with one
    normal form."""
    out: dict[str, tuple[list[str], set[str]]] = {}
    for file, memory in by_file.items():
        if not _has_symbols(memory.body):
            continue
        for raw in memory.body.splitlines():
            if _has_symbols(raw):
                normal = normal_line(raw)
                if normal.count(" ") + 1 >= MIN_LINE_TOKENS:
                    holders, forms = out.setdefault(normal, ([], set()))
                    if file not in holders and len(holders) <= MAX_POSTINGS:
                        holders.append(file)
                        forms.add(exact_line(raw))
    return out
