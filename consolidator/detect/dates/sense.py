"""Whether a relative-date word in prose names a day, judged from its line and sentence.

"yesterday", "tomorrow" and "next week" name a day, unless they stand in code-like text
(``due >= today+7``, ``期限=今日``, ``today-panel``), in a UI label or a list of options
("Today / Yesterday"), in a name ("a session titled Tomorrow Review", 明日香), or in a general
rule or an example ("if it does not fill, try again tomorrow", "never moves to next Tuesday").
"today" and "this week" also mean *currently* ("the parser handles none of these today",
"in today's world"): they count only with evidence of an event on that day — a past or a
planned action, an event noun, a label opening the line, a scheduling word ("due today").
Possessives ("tomorrow's partitions", 「今日の」) need that evidence too. When unsure: no.
"""

from __future__ import annotations

import re

from consolidator.detect.dates import words as date_words
from consolidator.detect.dates.words import FUTURE, PAST, PRESENT
from consolidator.detect.script import HAN, KATAKANA, lazy

__all__ = ["FUTURE", "PAST", "PRESENT", "names_a_day"]

WINDOW = 200  # characters each side of a phrase that are looked at: a long line costs no more
_IDEOGRAPH = re.compile(rf"[{HAN}々]")
# A sentence ends at a full stop; a semicolon only joins clauses ("if it fails; retry").
_SENTENCE_END = re.compile(r"[.!?](?=[\s*_)\]」』\"”]|$)|[。！？]")
_ZH_CLAUSE_END = re.compile(r"[。！？；;，,]")
_CLAUSE_END = re.compile(r"[.!?](?=[\s*_)\]」』\"”]|$)|[。！？;；]|\s[—–]\s")
_LEAD = re.compile(r"[ \t]*(?:(?:[-*+•]|\d{1,3}[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?[*_~ \t]*")

# Characters next to the phrase that make it code, a path or an identifier.
_GLUED_BEFORE = set("_./\\@$#=<>+%&|^~[{")
_GLUED_AFTER = set("_/\\@$#=<>+%&|^[{")
_SPACED_BEFORE = set("=<>!+/%^&|[{≥≤≠＝／｜")
_SPACED_AFTER = set("=<>!+/%^&|]}≥≤≠＝／｜")
_FLAG = re.compile(r"--?[A-Za-z][\w-]*=?$")

_UI_NOUN_EN = re.compile(
    r"[*_]*[ \t]+(?:tab|button|view|filter|panel|column|checkbox|label|option|preset|page|screen|"
    r"widget|card|bucket|toggle|menu|chip|badge|dropdown|pill|timeline)s?\b",
    re.IGNORECASE,
)
_UI_NOUN_CJK = re.compile(
    r"[ \t]?(?:按钮|按键|选项|标签|页面|页(?=的|[^\u3400-\u9fff]|$)|视图|面板|筛选|栏目|卡片|"
    r"列表|模块|板块|入口|[Tt]ab(?![A-Za-z])|ボタン|タブ|(?<![レタ])ビュー|画面|ページ|フィルタ|パネル|"
    r"カード|リスト|欄)"
)
# What may follow 今日/明日/昨日 and still be the day (not the start of a longer word).
_CJK_DAY_SUFFIX = re.compile(
    r"(?:中|以降|以内|朝|夜|夕方|昼|晩|午前|午後|上午|下午|晚上|早上|中午|凌晨|夜里|傍晚)"
)
_JA_VERB_AFTER = lazy(rf"[{HAN}々]{{1,3}}(?![はがをにでともへやかのさ])[ぁ-ゖ]")
_CJK_NOUN = lazy(rf"[{KATAKANA}{HAN}ー]{{1,12}}")
_ACQUIRED = set("性形养习获")
_CJK_WEEK_BAD_NEXT = set("期年边围长末转岁报刊")

_PRONOUNS = frozenset({
    "i", "we", "you", "he", "she", "they", "it", "the", "a", "an", "our", "my", "their", "his",
    "her", "this", "that", "claude", "at", "in", "on", "after", "before", "by", "and", "or",
})

_SCHEDULE_BEFORE = frozenset({
    "is", "was", "are", "were", "due", "until", "till", "by", "for", "later", "earlier", "from",
    "since", "starting", "before", "after",
})
_SCHEDULE_AFTER = frozenset({"at", "by", "morning", "afternoon", "evening", "night", "noon"})
# "the next week", "a last month", "every next Tuesday": spans and habits ("for next week" is
# a date, "for the next week" is a span).
_DURATION_BEFORE = frozenset({
    "the", "a", "per", "each", "every", "past", "first", "whole", "entire", "all",
})
# A verb of output or speech and a colon: what follows is quoted, even without quote marks.
_INTRODUCED = re.compile(
    r"\b(?:printed|prints|printing|outputs?|says|said|replied|answered|asked|wrote|logged|"
    r"returned|returns|responded|showed|shows|displayed|displays|reads|read|message|error)"
    r"\s?[:：]"
    r"|(?:输出|显示|打印|返回|提示|报错|回复|回答|说|表示|写道|原话|出力|表示され|返っ|言っ|返信|"
    r"メッセージ|エラー)[^\n:：]{0,4}[:：]",
    re.IGNORECASE,
)
_MENTION_AFTER = frozenset({"means", "meant", "refers", "stands", "denotes", "meaning"})
_TERM_WORDS = frozenset({"word", "words", "term", "terms", "keyword", "keywords", "phrase",
                        "phrases"})
_MENTION_BEFORE = _TERM_WORDS | {"like", "says", "say"}
_WORDS_BEFORE = re.compile(r"[A-Za-z']+")
_DEADLINE_BEFORE = frozenset({"until", "till", "by", "before", "through", "due", "deadline",
                              "expires", "expire", "ends"})
_DEADLINE_BEFORE_CJK = ("截止", "截至", "到期", "期限", "締切", "締め切り")
_DEADLINE_AFTER_CJK = re.compile(r"[ \t]?(?:之前|以前|前|为止|截止|まで)")
_START_BEFORE = frozenset({"from", "starting", "effective"})
_ONWARD = re.compile(r"[ \t,]*(?:on|onwards?)\b", re.IGNORECASE)
_START_AFTER_CJK = re.compile(r"[ \t]?(?:起|开始|以后|から|以降)")
_WORD_BEFORE = re.compile(r"([A-Za-z']+)[*_ \t]*$")
# Code in a sentence: a span in backticks, or an identifier joined by underscores
# (`reached_today`, status_changed). Its words name code, and tell of no event.
_CODE_WORDS = re.compile(r"`[^`\n]*`|\w+(?:_\w+)+")


def _prose(text: str) -> str:
    """``text`` with its code (spans and identifiers) blanked out."""
    return _CODE_WORDS.sub(" ", text) if "`" in text or "_" in text else text
_WORD_AFTER = re.compile(r"[*_ \t]*([A-Za-z']+)")


def is_cjk(phrase: str) -> bool:
    """Whether a phrase is written in Chinese or Japanese."""
    return not phrase[:1].isascii()


_ASIDE = re.compile(r"[(（][^()（）\n]*[)）]")


def without_asides(line: str, start: int, end: int) -> str:
    """``line`` with each parenthesis that does not hold columns ``start``-``end`` blanked
    (the columns kept): an aside says nothing of the sentence around it, so its words make no
    rule of it ("pushed today (on by default, off with --no-push)")."""
    return _ASIDE.sub(lambda m: m.group() if m.start() < end and start < m.end()
                      else " " * len(m.group()), line)


def sentence(line: str, start: int, end: int, bounds: re.Pattern[str] = _SENTENCE_END) -> str:
    """The sentence of ``line`` that holds columns ``start``-``end`` (or the clause, with
    ``bounds=_CLAUSE_END``)."""
    left = 0
    for match in bounds.finditer(line, 0, start):
        left = match.end()
    after = bounds.search(line, end)
    return line[left : after.start() if after else len(line)]


def code_like(line: str, start: int, end: int) -> bool:
    """Whether the phrase at ``start``-``end`` is glued to code, a path or an identifier."""
    before, after = line[:start], line[end:]
    if before and before[-1] in _GLUED_BEFORE:
        return True
    if before[-1:] in (":", "-") and len(before) > 1 and before[-2].isascii() \
            and before[-2].isalnum():
        return True  # since:yesterday, non-today
    if after and after[0] in _GLUED_AFTER:
        return True
    if after[:1] in (".", "-", ":") and after[1:2].isascii() and after[1:2].isalnum():
        return True  # yesterday.md, today-panel, today:3
    if after[:2] == "()":
        return True  # today()
    spaced_before = before.rstrip(" \t*_~")
    lead = _LEAD.match(before)
    if spaced_before and spaced_before[-1] in _SPACED_BEFORE \
            and (lead is None or lead.end() < len(spaced_before)):
        return True  # an operator before it, not a list bullet
    spaced_after = after.lstrip(" \t*_~")
    if spaced_after and spaced_after[0] in _SPACED_AFTER:
        return True
    words = before.split()
    return bool(words) and _FLAG.match(words[-1]) is not None


def ui_label(line: str, start: int, end: int) -> bool:
    """Whether the phrase is a UI label or a name: alone on its line, or naming a tab/button."""
    lead = _LEAD.match(line)
    content = line[lead.end() if lead else 0 :].strip()
    phrase = line[start:end]
    rest = content.replace(phrase, "", 1).strip(" \t*_~:：-—()（）0-9")
    if not rest:
        # "- [ ] Today", "**昨天**" name an option; "Yesterday:" over a standup's items is a day.
        header = content.rstrip(" \t*_").endswith((":", "：")) and lead is not None \
            and lead.end() == len(line) - len(line.lstrip(" \t*_"))
        return not header
    after = line[end:]
    noun = _UI_NOUN_CJK if is_cjk(phrase) else _UI_NOUN_EN
    return noun.match(after) is not None


def name_like(line: str, start: int, end: int) -> bool:
    """Whether the phrase is part of a name: capitalised mid-sentence ("the song Yesterday"),
    in a Title Case run ("Tomorrow Review"), or a longer CJK word (明日香, 今日头条, 上周期)."""
    phrase = line[start:end]
    if is_cjk(phrase):
        return _cjk_compound(line, start, end)
    if not phrase[0].isupper() or phrase.isupper():
        return False
    before = line[:start].rstrip(" \t*_~\"'“‘([（")
    lead = _LEAD.match(line)
    at_start = not before or (lead is not None and lead.end() >= start) \
        or before[-1] in ".!?:;—–-\n>)"
    if not at_start:
        return True
    after = _WORD_AFTER.match(line, end)
    if after and after.group(1)[0].isupper() and after.group(1).casefold() not in _PRONOUNS:
        return True  # "Tomorrow Review", "Yesterday Once More"
    return False


def _cjk_compound(line: str, start: int, end: int) -> bool:
    """Whether a CJK day word runs on into a longer word."""
    phrase, after = line[start:end], line[end:]
    nxt = after[:1]
    if phrase[-1] in "周週" or phrase.endswith(("星期", "礼拜")):
        return nxt in _CJK_WEEK_BAD_NEXT
    if phrase == "后天":
        return nxt in _ACQUIRED  # 后天性, 后天形成: "acquired", not "the day after tomorrow"
    if phrase in ("今日", "明日", "昨日", "本日"):
        if _CJK_DAY_SUFFIX.match(after):
            return False
        if not nxt or _IDEOGRAPH.match(nxt) is None:
            return False
        # Japanese runs a day word straight into a verb (昨日直した, 明日確認する); a name or
        # a noun goes on with a particle or an honorific (明日香さん, 明日方舟は, 今日頭条、).
        return not (date_words.japanese(line) and _JA_VERB_AFTER().match(after))
    return False


def _word_before(line: str, start: int) -> str:
    """The word right before column ``start`` (through spaces and emphasis), lower case."""
    word = _WORD_BEFORE.search(line[max(0, start - 40) : start])
    return word.group(1).casefold() if word else ""


def _duration(line: str, start: int, phrase: str) -> bool:
    """Whether "next week" / "last month" is a span ("over the next week"), not a date."""
    low = phrase.casefold()
    if not low.startswith(("last ", "next ", "this ")):
        return False
    return _word_before(line, start) in _DURATION_BEFORE


def _possessive(line: str, end: int, phrase: str) -> bool:
    """Whether the phrase is a possessive: "tomorrow's", 今天的, 今日の."""
    after = line[end : end + 2]
    if is_cjk(phrase):
        return after[:1] in ("的", "の")
    return after in ("'s", "’s")


# A term after the day: an acronym ending a list item ("yesterday VA / developing VA").
_TERM_AFTER = re.compile(r"[ \t]+[A-Z][A-Z0-9]{1,7}[ \t]*(?:[/,;|)\]]|$)")


def _qualifies(line: str, start: int, end: int) -> bool:
    """Whether an English phrase qualifies a noun as a possessive does, "the high of
    yesterday", "the yesterday close", "(yesterday VA / developing VA)" (not "as of today",
    which dates a state)."""
    before = _word_before(line, start)
    return before == "the" or _TERM_AFTER.match(line, end) is not None \
        or (before == "of" and not line[max(0, start - 10):start]
            .casefold().rstrip(" *_").endswith("as of"))


def _names_a_thing(line: str, end: int, cjk: bool) -> bool:
    """Whether a possessive's noun is a UI element: "today's filter tab", 今日のタスクビュー."""
    after = line[end + (1 if cjk else 2) : end + 30]
    if cjk:
        run = _CJK_NOUN().match(after)
        return run is not None and _UI_NOUN_CJK.search(run.group(0)) is not None
    return any(_UI_NOUN_EN.match(" " + word) for word in after.split()[:3])


def _scheduled(line: str, start: int, end: int) -> bool:
    """Whether "today" is the day of something: "is today", "due today", "today at 3pm"."""
    if _word_before(line, start) in _SCHEDULE_BEFORE:
        return True
    if line[max(0, start - 10) : start].casefold().rstrip(" *_").endswith("as of"):
        return True
    after = _WORD_AFTER.match(line, end)
    return after is not None and after.group(1).casefold() in _SCHEDULE_AFTER


def _opens_line(line: str, start: int, end: int) -> bool:
    """Whether the phrase opens its line as a label: "Today: ...", "**Today (Wed 08-19):**"."""
    lead = _LEAD.match(line)
    if lead is None or lead.end() != start:
        return False
    after = line[end:].lstrip(" \t*_")
    return after[:1] in (":", "：", "(", "（", "—", "–", "-", ",", "，", "、")


def _window(line: str, start: int, end: int, before: str = "",
            after: str = "") -> tuple[str, int, int]:
    """The text around a phrase: at most ``WINDOW`` characters each side, reaching into the
    wrapped lines ``before`` and ``after`` when the line is short (marked "… " when cut at
    the left); and the phrase's columns in it. Never copies more than the window."""
    left = line[max(0, start - WINDOW) : start]
    if len(left) < WINDOW and start <= WINDOW:
        left = before[max(0, len(before) - (WINDOW - len(left))) :] + left
    right = line[end : end + WINDOW]
    if len(right) < WINDOW and end + WINDOW >= len(line):
        right += after[: WINDOW - len(right)]
    cut = start > WINDOW or len(before) + start > WINDOW
    mark = "… " if cut else ""
    text = mark + left + line[start:end] + right
    return text, len(mark) + len(left), len(mark) + len(left) + end - start


def quoted_after_colon(line: str, start: int) -> bool:
    """Whether the phrase stands in output or speech introduced by a colon ("The CLI printed:
    Last login: yesterday", "用户回复：明天再说")."""
    return _INTRODUCED.search(line[max(0, start - 120) : start]) is not None


def mentioned(line: str, start: int, end: int) -> bool:
    """Whether the word is mentioned, not used: "tomorrow means ...", "terms like today"."""
    after = _WORD_AFTER.match(line, end)
    if after is not None and after.group(1).casefold() in _MENTION_AFTER:
        return True
    if _word_before(line, start) in _MENTION_BEFORE:
        return True
    recent = _WORDS_BEFORE.findall(line[max(0, start - 40) : start])[-3:]
    return any(word.casefold() in _TERM_WORDS for word in recent)  # "the words today and tomorrow"


def _deadline(line: str, start: int, end: int, cjk: bool) -> bool:
    """Whether the phrase is a deadline ("until tomorrow", 下周三之前, 明日までに).

    Left as written: the stale check trusts only deadlines the writer dated, so rewriting
    one would turn a day the tool worked out into a deadline it then finds passed.
    """
    if cjk:
        return _DEADLINE_AFTER_CJK.match(line, end) is not None \
            or line[max(0, start - 4) : start].rstrip(" ：:").endswith(_DEADLINE_BEFORE_CJK)
    return _word_before(line, start) in _DEADLINE_BEFORE


def _start_date(line: str, start: int, end: int, cjk: bool) -> bool:
    """Whether the phrase starts a change ("from tomorrow on", 明天起, 明日から): a dated
    change, even when what changes is a rule."""
    if _possessive(line, end, line[start:end]):
        return False  # "from today's closing price": a thing of that day, not a start
    if cjk:
        return _START_AFTER_CJK.match(line, end) is not None
    return _word_before(line, start) in _START_BEFORE


def names_a_day(line: str, start: int, end: int, category: str, before: str = "",
                after: str = "") -> bool:
    """Whether the phrase at ``start``-``end`` of a prose ``line`` names a day.

    ``before`` and ``after``: the lines a hard-wrapped sentence continues from and onto
    (joined with spaces), read for the sentence only.
    """
    local, lstart, lend = _window(line, start, end)
    if code_like(local, lstart, lend) or ui_label(local, lstart, lend):
        return False
    opens = _opens_line(local, lstart, lend)
    whole, start, end = _window(line, start, end, before, after)
    phrase = whole[start:end]
    cjk = is_cjk(phrase)
    if name_like(whole, start, end) or quoted_after_colon(whole, start) \
            or (not cjk and (mentioned(whole, start, end) or _duration(whole, start, phrase))):
        return False
    if _deadline(whole, start, end, cjk):
        return False
    text = sentence(whole, start, end)
    # "from yesterday" starts a change ("from tomorrow on, deploys need approval") unless the
    # sentence recurs and nothing but "from" says so: "every morning we read the error list
    # from yesterday".
    starts = _start_date(whole, start, end, cjk)
    if starts and not cjk and _word_before(whole, start) == "from" \
            and not _ONWARD.match(whole, end) and date_words.habit(date_words.words(text)):
        starts = False
    bare = without_asides(whole, start, end)
    if not starts and date_words.rule(sentence(bare, start, end), category, cjk,
                                      sentence(bare, start, end, _ZH_CLAUSE_END)):
        return False
    near = whole[max(0, start - 3) : end + 3] if cjk else text
    if _possessive(whole, end, phrase) or (not cjk and _qualifies(whole, start, end)):
        if _names_a_thing(whole, end, cjk):
            return False
        if cjk and _CJK_DAY_SUFFIX.match(whole, end + 1):
            return not date_words.now(near, cjk)  # 明日の午後, 今天的晚上: a time of that day
        return date_words.event(_prose(text.replace(phrase, " ", 1)), cjk) \
            and not date_words.now(near, cjk)
    if category != PRESENT:
        return True
    clause = near if cjk else sentence(whole, start, end, _CLAUSE_END)
    if date_words.now(clause, cjk):
        return False
    if cjk:
        return True
    return opens or _scheduled(whole, start, end) or date_words.event(_prose(clause), cjk)
