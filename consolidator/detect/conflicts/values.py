"""Lines as a skeleton of words with value slots: what a conflict can disagree on.

A line such as ``The dev database listens on port 5432`` is its words plus one value, a
number. Two lines with one skeleton that differ only in their values say the same thing about
different values — a candidate conflict. Unlike the normal form, the tokens here keep what
makes a value: the sign of ``-5``, the ``^`` of ``^4.2.0``, the ``++`` of ``C++``, the
operator in ``a >= b``, a currency, a status emoji, a struck-through word.

Each token is a :class:`Tok`: its *skeleton* (a class such as ``<num>``, or the bare word),
its *value* (the token as written, case-folded) and its *kind*, which says how a difference
in it weighs: ``choice`` (a known alternative: weekday, package manager, always/never…),
``number``, ``date``, ``time``, ``name`` (a path, URL or address), ``mark`` (emoji),
``operator``, ``currency``, ``code`` (a short word with digits: a password or a code name),
``id`` (hashes, UUIDs, long numbers, long words with digits — names of things, never a
disagreement), or ``word``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from consolidator.detect.dates.anchors import explicit_dates, numeric_days
from consolidator.detect.script import HAN_KANA

_HAN_KANA = HAN_KANA

_EN_CHOICES = {
    "<weekday>": "monday tuesday wednesday thursday friday saturday sunday "
                 "mon tue tues wed thu thur thurs fri sat sun",
    "<month>": "january february march april june july august september october "
               "november december",
    "<pkg>": "npm pnpm yarn bun pip pip3 poetry uv pipenv conda",
    "<freq>": "always never sometimes",
    "<modal>": "must mustn should shouldn",
    # (on, off, yes and no are left out: nearly always a preposition or a determiner)
    "<bool>": "true false enabled disabled enable disable allowed forbidden",
    "<indent>": "tabs spaces",
    "<visibility>": "public private internal",
}
# The same alternatives in other languages, one word each: weekdays and "always"/"never"
# (never a word another language uses for something else: Italian "mai" is French "May";
# Portuguese "segunda", "quarta" are ordinals too. German "nie" is Polish "not": a Polish
# line with "nie" where the other has "zawsze" says the opposite as well).
_OTHER_CHOICES = {
    "<weekday>": "montag dienstag mittwoch donnerstag freitag samstag sonntag "
                 "lundi mardi mercredi jeudi vendredi samedi dimanche "
                 "lunes martes miércoles jueves viernes sábado domingo "
                 "lunedì martedì mercoledì giovedì venerdì sabato domenica "
                 "segunda-feira terça-feira quarta-feira quinta-feira sexta-feira "
                 "maandag dinsdag woensdag donderdag vrijdag zaterdag zondag "
                 "poniedziałek wtorek środa środę czwartek piątek sobota sobotę niedziela "
                 "niedzielę pondělí úterý středa středu čtvrtek pátek neděle neděli "
                 "понедельник вторник среда среду четверг пятница пятницу суббота субботу "
                 "воскресенье pazartesi salı çarşamba perşembe cuma cumartesi "
                 "måndag tisdag onsdag torsdag fredag lördag söndag",
    "<freq>": "immer nie niemals toujours jamais siempre nunca sempre altijd nooit zawsze nigdy "
              "vždy vždycky nikdy всегда никогда asla selalu alltid aldrig",
}
_CJK_CHOICES = {
    "<weekday>": ["周一", "周二", "周三", "周四", "周五", "周六", "周日", "周天",
                  "星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日",
                  "星期天", "礼拜一", "礼拜二", "礼拜三", "礼拜四", "礼拜五", "礼拜六",
                  "礼拜天", "月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日",
                  "日曜日", "月曜", "火曜", "水曜", "木曜", "金曜", "土曜", "日曜"],
    "<visibility>": ["公开", "私有", "公開", "非公開", "プライベート", "パブリック"],
    "<freq>": ["总是", "始终", "永远", "从来不", "从不", "绝不", "决不", "一律",
               "必ず", "常に", "いつも", "絶対に", "決して"],
    "<modal>": ["必须", "务必", "一定要", "不要", "不能", "不得", "禁止", "不许", "不准",
                "可以", "允许", "应该", "不应", "无需", "不需要", "需要",
                "してはいけない", "してもよい", "しない", "する", "しません", "します",
                "不要", "必要", "可能", "不可"],
    "<bool>": ["开启", "关闭", "启用", "禁用", "打开", "有効", "無効", "オン", "オフ"],
}
CHOICE: dict[str, str] = {w: c for choices in (_EN_CHOICES, _OTHER_CHOICES)
                          for c, ws in choices.items() for w in ws.split()} | {
    w: c for c, ws in _CJK_CHOICES.items() for w in ws
}
_CJK_WORDS = "|".join(sorted((w for ws in _CJK_CHOICES.values() for w in ws), key=len,
                             reverse=True))
_CJK_NUMERALS = frozenset("一二三四五六七八九十两")

# One alternative per kind of token, tried in order. Every part is linear: each repeated
# class is followed by a character it cannot contain, and the one part that may fail after a
# long scan (a path's first segment) is bounded, so no stretch of text is scanned again and
# again.
_TOKEN = re.compile(
    r"(?P<url>[a-z][a-z0-9+.-]{1,15}://[^\s<>()\[\]`'\"]+)"
    r"|(?P<date>\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}日?)?(?!\d)|\d{1,2}月\d{1,2}日"
    r"|\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)\d\d(?!\d))"
    r"|(?P<time>\d{1,2}:\d{2}(?::\d{2})?(?!\d))"
    r"|(?P<hex>[0-9a-fA-F]{7,}(?:-[0-9a-fA-F]{4,}){0,4}(?!\w))"
    r"|(?P<frac>\d{1,4}(?:/\d{1,4}){1,2}(?![\w/]))"
    r"|(?P<path>(?:[A-Za-z]:)?[\w.~@-]{0,128}(?:[/\\][\w.~@-]+)+/?)"
    r"|(?P<num>[+\-−±~^]?[$€£¥₩]?v?\d+(?:[.,]\d+)*(?:%|[a-zA-Z]{1,3}(?!\w))?)"
    rf"|(?P<cjkword>{_CJK_WORDS})"
    rf"|(?P<cjk>[{_HAN_KANA}])"
    # (a word's first character is no Han or kana: `cjk` above took that; each `-`, `.` or `'`
    # is followed by a word character, no digit; the large class stands once, as each one
    # costs compile time)
    rf"|(?P<word>[^\W\d_](?:(?:[-.'](?=[^\W\d]))?[^\W{_HAN_KANA}])*(?:\+\+|#(?!\w))?)"
    r"|(?P<op>==|!=|<=|>=|=>|->|<-|[<>=≠≤≥\u2190-\u21ff])"
    r"|(?P<cur>[$€£¥₩])"
    r"|(?P<mark>[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff])"
    r"|(?P<strike>~~)"
)
_KEY_NUMBER = re.compile(r"-[1-9]\d{2,}")  # no leading zero: UTC-0300 is an offset
_IP = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_DIGITS = re.compile(r"\d")
_SYMBOLS_IN_WORD = re.compile(r"[-_.'+#]")
_INSIGNIFICANT = re.compile(r"[-']")


class Tok(NamedTuple):
    """One token of a line: its skeleton, its value and the kind of value it is."""

    skel: str
    value: str
    kind: str


_FIXED = {"time": ("<time>", "time"), "op": ("<op>", "operator"),
          "cur": ("<cur>", "currency"), "mark": ("<mark>", "mark"), "hex": ("<id>", "id")}


def _word(text: str) -> Tok:
    """A Latin (or Hangul) word: a known alternative, an identifier, or a plain word."""
    known = CHOICE.get(text)
    if known is not None:
        return Tok(known, text, "choice")
    if _DIGITS.search(text):
        # A short word with digits may be a value (a password, "es2020") or a code naming a
        # thing ("s17", "ps4"); a long one is an identifier.
        return Tok("<id>", text, "code" if len(text) <= 12 else "id")
    return Tok(_SYMBOLS_IN_WORD.sub("", text), text, "word")


def _num(text: str) -> Tok:
    """A number, version, quantity or address."""
    bare = text.lstrip("+-−±~^$€£¥₩")
    if _IP.fullmatch(bare):
        return Tok("<addr>", text, "name")
    if bare.isdigit() and len(bare) >= 6:
        return Tok("<id>", text, "id")  # a long number names a thing (an order, an account)
    return Tok("<num>", text, "number")


_SEEN: dict[tuple[str | None, str], Tok] = {}  # words repeat: each is classified once


def _day_value(text: str) -> str:
    """A date's value, year first: ``2026-10-02`` and ``2026年10月2日`` as written; a day and a
    month before the year (``02/10/2026``) in the order that makes a date, and where both do
    (the 2nd of October, or February the 10th), the later of the two."""
    numbers = [int(d) for d in re.findall(r"\d+", text)]
    if len(numbers) != 3 or numbers[0] >= 1000:
        return "-".join(map(str, numbers))
    days = numeric_days(*numbers)
    if not days:
        return "-".join(map(str, numbers))
    later = max(days)
    return f"{later.year}-{later.month}-{later.day}"


def _classify(group: str | None, text: str) -> Tok:
    """The Tok for one matched token (``group`` is the alternative that matched it)."""
    if group in _FIXED:
        skel, kind = _FIXED[group]
        return Tok(skel, text, kind)
    if group == "word":
        return _word(text)
    if group == "num":
        return _num(text)
    if group == "frac":
        return Tok("<num>", text, "number")
    if group == "date":
        return Tok("<date>", _day_value(text), "date")
    if group == "path":
        return Tok("<path>", text.rstrip("/.,"), "name")
    if group == "url":
        return Tok("<url>", text.rstrip("/.,;:"), "name")
    if group == "cjkword":
        return Tok(CHOICE[text], text, "choice")
    if text in _CJK_NUMERALS:
        return Tok("<num>", text, "number")
    return Tok(text, text, "word")


# A day and a month's name next to each other ("1 Okt 2026", "Oct 1, 2026", "3. März"): the
# line may hold a date written with words, which explicit_dates reads.
_NAMED_DATE_HINT = re.compile(r"\d\.?[ \t]+[^\W\d_]{3}|[^\W\d_]{3}\.?[ \t]+\d")


def _named_dates(low: str) -> dict[int, tuple[int, str]]:
    """Where a date written with a month's name starts in ``low`` -> (its end, its value)."""
    if _NAMED_DATE_HINT.search(low) is None:
        return {}
    return {d.start: (d.end, f"{d.year or 0}-{d.month}-{d.day}") for d in explicit_dates(low)
            if not low[d.start:d.end].replace("-", "").isdigit()}


def tokens(line: str) -> list[Tok]:
    """The value tokens of one line, in order; struck-through tokens carry a ``~~`` value.
    A date written with a month's name ("1 Okt 2026") is one date, as an ISO one is."""
    out: list[Tok] = []
    struck = False
    word_end = -1  # where the last word token ended
    low = line.casefold()
    named = _named_dates(low)
    date_end = -1  # where the named date being read ends
    for match in _TOKEN.finditer(low):
        group, text = match.lastgroup, match.group()
        if match.start() < date_end:
            continue  # a part of the named date taken whole
        if match.start() in named:
            date_end, value = named[match.start()]
            out.append(Tok("<date>", value, "date"))
            word_end = -1
            continue
        if group == "strike":
            struck = not struck
            continue
        if group == "num" and match.start() == word_end and _KEY_NUMBER.fullmatch(text):
            # A key with its number ("TESSERA-1671", "PAY-212"): one name, not a word and a
            # negative number ("UTC-2" and "UTC-0300", offsets, stay numbers).
            out[-1] = Tok("<id>", out[-1].value + text, "id")
            continue
        word_end = match.end() if group == "word" else -1
        tok = _SEEN.get((group, text))
        if tok is None:
            if len(_SEEN) > 100_000:  # bounded: a large root has many distinct numbers
                _SEEN.clear()
            tok = _SEEN[(group, text)] = _classify(group, text)
        out.append(Tok(tok.skel, "~~" + tok.value, tok.kind) if struck else tok)
    return _without_concord(out) if any(t.value in _NEVER for t in out) else out


# "Never" in languages that say it twice, with a negation beside it ("никогда не
# использовать", "nigdy nie używaj", "ne jamais utiliser", "n'utilisez jamais"): that second
# negation says nothing more, so "never X" and "always X" line up there as they do in English.
_NEVER = frozenset(("никогда", "nigdy", "jamais", "nikdy", "nunca"))
_NEGATION = frozenset(("не", "nie", "ne", "non", "no", "n"))  # ("n": "n'" in a normal line)
_CONCORD = 2  # tokens before or after the "never" a negation of it may stand


def concord(words: Sequence[str]) -> set[int]:
    """The positions of ``words`` that only repeat a "never" beside them (see :data:`_NEVER`);
    ``words``: a line's words or token values, in order."""
    out: set[int] = set()
    for i, word in enumerate(words):
        if word in _NEVER:
            out.update(j for j in range(max(0, i - _CONCORD), min(len(words), i + _CONCORD + 1))
                       if j != i and words[j] in _NEGATION)
    return out


def _without_concord(out: list[Tok]) -> list[Tok]:
    """``out`` without the negation each "never" of it carries; an elided one ("n'utilisez
    jamais") leaves its verb."""
    values = [tok.value for tok in out]
    for i, value in enumerate(values):
        if value.startswith("n'") and len(value) > 2 and _NEVER.intersection(
                values[i + 1:i + 1 + _CONCORD]):
            out[i] = _classify("word", value[2:])
    drop = concord(values)
    return [tok for j, tok in enumerate(out) if j not in drop]


# "v4", "^v4.2": a version's mark (after a range's sign), not its value
_VERSION_MARK = re.compile(r"^([~^=<>]{0,2})[vV](?=\d)")


def _unmarked(value: str) -> str:
    """A number without its version's mark: "^4.2" for "^v4.2"."""
    return _VERSION_MARK.sub(r"\1", value)


def differs(x: Tok, y: Tok) -> bool:
    """Whether two tokens of one skeleton say different things (``re-read`` is ``reread``)."""
    if x.value == y.value:
        return False
    if x.kind == "number" and _unmarked(x.value) == _unmarked(y.value):
        return False  # "v4" and "4": one version, written with its mark or without
    if x.kind == "word" and not (x.value.startswith("~~") or y.value.startswith("~~")):
        return _INSIGNIFICANT.sub("", x.value) != _INSIGNIFICANT.sub("", y.value)
    return not _one_place(x.value, y.value)


def _one_place(a: str, b: str) -> bool:
    """Whether two paths name one place, one written from a folder the other names: the
    relative path is the tail of the absolute one, folder by folder (``warehouse_v2\\test``
    and ``C:\\Users\\me\\proj\\warehouse_v2\\test``)."""
    if not any(c in a for c in "/\\") or not any(c in b for c in "/\\"):
        return False
    short, long = sorted(([p for p in _folders(v.casefold()) if p != "."] for v in (a, b)),
                         key=len)
    return 1 < len(short) < len(long) and long[-len(short):] == short


def diff_kind(x: Tok, y: Tok) -> str:
    """How a difference between two tokens of one skeleton weighs (see the module doc)."""
    if x.value.startswith("~~") != y.value.startswith("~~"):
        return "struck"
    if x.kind == "number":
        # -5 and +5, ^4.2.0 and ~4.2.0, $5 and €5: the same digits under another symbol.
        same_digits = re.sub(r"\D", "", x.value) == re.sub(r"\D", "", y.value)
        return "sign" if same_digits else "number"
    if "id" in (x.kind, y.kind):
        return "id"
    if "code" in (x.kind, y.kind):
        return "code"
    if x.kind == "word":
        return "symbol"
    if x.skel in ("<path>", "<url>") and not _one_file(x.value, y.value):
        return "id"  # two files, not one file in two places: names of different things
    return x.kind


# Folder names that say nothing about what a path is for.
_ROOT_DIRS = frozenset(
    "src lib app apps var srv usr opt etc home data tmp mnt . .. ~ c: d:".split()
)


def _folders(path: str) -> list[str]:
    """A path's parts, by either separator."""
    return [p for p in re.split(r"[/\\]", path.rstrip("/\\")) if p]


def _one_file(a: str, b: str) -> bool:
    """Whether two paths can be one file in two places: the same file name, and a folder
    in common beyond the generic ones (``orders`` in ``/var/log/orders/app.log`` and
    ``/srv/orders/logs/app.log``; not ``src/cart/api.py`` and ``src/reporting/api.py``)."""
    parts_a, parts_b = _folders(a), _folders(b)
    if not parts_a or not parts_b or parts_a[-1] != parts_b[-1]:
        return False
    shared = (set(parts_a[:-1]) & set(parts_b[:-1])) - _ROOT_DIRS
    return bool(shared) or len(parts_a) == 1 or len(parts_b) == 1
