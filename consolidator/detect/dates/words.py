"""The words that tell a dated event from a rule, a habit, an example or a state of things.
(Not :mod:`consolidator.detect.words`, a memory's content words.)

English is looked up word by word in sets (much faster than one large case-insensitive
alternation per sentence); Chinese and Japanese, which have no spaces, by short regexes.
"""

from __future__ import annotations

import re

from consolidator.detect.script import HAN_BASIC, KANA, lazy

PAST, FUTURE, PRESENT = "past", "future", "present"

_KANA = re.compile(rf"[{KANA}]")
_WORDS = re.compile(r"[a-z][a-z0-9'’-]*")

# Rules, habits and examples: "if it does not fill, retry tomorrow", "never moves to Tuesday".
_RULE = frozenset({"if", "unless", "otherwise", "whenever", "always", "never",
                   "usually", "typically", "generally", "normally",
                   # a setting's value: "date (default: today)", "defaults to yesterday"
                   "default", "defaults"})
# "every"/"each" make a habit when they count times ("every night", "each release"), not when
# they count things ("every pull request is checked from tomorrow on").
_QUANTIFIERS = frozenset({"every", "each"})
# Words of a job that recurs: "the nightly cron job pulls the fixtures for tomorrow", "the
# daily report summarises yesterday" (each run's day, as "every night" makes it).
_HABITUAL = frozenset({"nightly", "daily", "hourly", "weekly"})
_TIMES = frozenset({
    "day", "days", "night", "nights", "morning", "mornings", "evening", "week", "weeks", "month",
    "months", "time", "times", "run", "runs", "release", "releases", "sprint", "hour", "hours",
    "minute", "weekday", "weekend", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "cycle", "session", "deploy", "build", "other",
})
_RULE_PHRASES = ("by default", "e.g.", "for example", "for instance", "such as", "i.e.")
# For a past day "asked if" means "whether": only habits and examples make it a rule.
_RULE_PAST = _RULE - {"if", "unless", "otherwise", "whenever"}
_RULE_EN_NOUNS = frozenset({"rule", "rules", "policy", "convention"})
# A sentence about "a hotfix" or "any file" in general ("a hotfix merged today is deployed
# tomorrow") states a rule; "a week ago", "a day ago" open a date instead.
_GENERIC = frozenset({"a", "an", "any"})
_NOT_GENERIC_NEXT = frozenset({"day", "week", "month", "few", "couple"})
# Chinese conditions govern their whole sentence; habits and examples only their clause
# ("每周三例行发布，明天的发布顺延" is one habit and one dated change).
_CONDITION_ZH = re.compile(r"如果|假如|假设|要是|若是|倘若|一旦|否则")
_HABIT_ZH = re.compile(
    r"每天|每日|每周|每次|每晚|每个(?:月|星期|周|工作日)|总是|始终|一律|永远|从不|从来|例如|比如|"
    r"譬如|默认|规则|举例|示例"
)
_RULE_JA = re.compile(
    r"もし|場合|たら|れば|なら|毎日|毎週|毎回|毎晩|毎朝|常に|必ず|いつも|決して|例えば|例：|例:|"
    r"デフォルト|ルール|ごとに|たびに"
)

_HANGUL = re.compile(r"[가-힣]")
# Korean rules, habits and examples: every day / week / time, always, if, by default, e.g.
_RULE_KO = re.compile(r"매일|매주|매달|매월|매년|매번|매회|항상|언제나|만약|만일|기본값|기본으로"
                      r"|규칙|예를 들어|예시|예:|예：|마다")

# "today" as "currently": "still", "in today's world", "today the gauge shows ~1900".
_NOW = frozenset({"still", "current", "currently", "nowadays", "anymore", "world", "era", "age"})
_NOW_PHRASES = ("these days", "any more", "at the moment", "as it stands")
_BEHAVIOUR = frozenset({
    "shows", "lists", "displays", "returns", "filters", "sorts", "groups", "counts", "resets",
    "runs", "fires", "triggers", "moves", "rolls", "handles", "supports", "means", "covers",
    "contains", "holds", "includes", "stays", "builds", "creates", "prepares", "generates",
    "sends", "checks", "starts", "opens", "closes", "posts", "pulls", "pushes", "syncs",
    "rotates", "renews", "refreshes", "recalculates", "computes", "uses", "works",
})
_DETERMINERS = frozenset({"a", "an", "the", "any", "every", "no", "each", "this", "that", "its",
                          "all", "some", "many", "most", "several", "these", "those", "our",
                          "your", "their", "my", "his", "her"})
_NOW_CJK = re.compile(r"如今|当今|时至|在今天|今日では|今日でも|今日に至|今では|現在では")

# Events: a past or planned action, or an event noun ("meeting today", "today's standup").
_EVENT = frozenset({
    "was", "were", "did", "had", "got", "went", "came", "said", "told", "made", "found", "saw",
    "took", "gave", "left", "lost", "ran", "sent", "wrote", "broke", "built", "began", "brought",
    "bought", "caught", "chose", "drove", "fell", "felt", "fought", "forgot", "held", "kept",
    "knew", "led", "meant", "met", "paid", "rose", "sold", "spent", "spoke", "stood", "stuck",
    "taught", "thought", "understood", "woke", "won", "hit", "shut", "quit", "split", "threw",
    "withdrew", "will", "won't", "shall", "gonna", "scheduled", "due", "todo", "to-do",
    "meeting", "call", "demo", "standup", "stand-up", "sync", "release", "launch", "deploy",
    "deployment", "interview", "appointment", "deadline", "workshop", "session", "lunch",
    "dinner", "check-in", "retro", "kickoff", "kick-off", "one-on-one", "let's",
})
_EVENT_PHRASES = ("going to", "plan to", "plans to", "planned to", "about to", "1:1")
_NOT_PAST_ED = frozenset({
    "need", "needed", "used", "based", "named", "called", "titled", "labeled", "labelled",
    "related", "red", "bed", "feed", "seed", "speed", "shed", "embed", "hundred", "indeed",
    "proceed", "exceed", "succeed", "breed", "weed", "deed", "greed", "bleed", "supposed",
    "advanced", "detailed", "limited", "unified", "tired", "interested", "required",
    "expected", "allowed", "enabled", "disabled", "scoped", "nested", "mixed",
})
_PASSIVE = frozenset({"is", "are", "be", "been", "being", "am", "get", "gets"})
_EVENT_ZH = re.compile(
    r"了|已|刚|(?<!未)完成|做完|结束|决定|发现|修复|确认|提交|合并|上线|发布|部署|开会|会议|讨论|约了|"
    r"(?<![重需主只摘概纲])要|将|计划|准备|打算|安排|预计|截止|之前|待办|TODO|评审|汇报|面试"
)
_EVENT_JA = lazy(
    rf"(?<![まあな])(?<=[ぁ-ゖ{HAN_BASIC}])た(?![ぁ-ゖ])|んだ|ました|でした|だった|済み|(?<!未)完了|予定|つもり|やる|行う|"
    r"実施|締切|期限|まで|会議|打ち合わせ|MTG|ミーティング|リリース|デプロイ|面談|レビュー会"
)


def words(text: str) -> list[str]:
    """The lower-case words of ``text``."""
    return _WORDS.findall(text.casefold())


def japanese(text: str) -> bool:
    """Whether ``text`` is Japanese (it has kana), as opposed to Chinese."""
    return _KANA.search(text) is not None


def habit(found: list[str]) -> bool:
    """Whether the English words ``found`` tell of something that recurs ("every morning",
    "each release", "the nightly job")."""
    return any(w in _QUANTIFIERS and n in _TIMES for w, n in zip(found, found[1:], strict=False)) \
        or not _HABITUAL.isdisjoint(found)


def rule(text: str, category: str, cjk: bool, clause: str = "") -> bool:
    """Whether the sentence ``text`` (whose ``clause`` holds the phrase) states a rule, a habit
    or an example."""
    if cjk:
        if japanese(text):
            return _RULE_JA.search(text) is not None
        if _HANGUL.search(text):
            return _RULE_KO.search(text) is not None
        return _CONDITION_ZH.search(text) is not None \
            or _HABIT_ZH.search(clause or text) is not None
    low = text.casefold()
    found = words(low)
    if habit(found) or any(map(low.__contains__, _RULE_PHRASES)):
        return True
    if category == PAST:
        return not _RULE_PAST.isdisjoint(found)
    generic = len(found) > 1 and found[0] in _GENERIC and found[1] not in _NOT_GENERIC_NEXT
    return generic or not _RULE.isdisjoint(found) or not _RULE_EN_NOUNS.isdisjoint(found)


def now(text: str, cjk: bool) -> bool:
    """Whether the sentence ``text`` tells how things are (currently, a behaviour)."""
    if cjk:
        return _NOW_CJK.search(text) is not None
    low = text.casefold()
    found = set(words(low))
    return not found.isdisjoint(_NOW) or not found.isdisjoint(_BEHAVIOUR) \
        or any(map(low.__contains__, _NOW_PHRASES))


def event(text: str, cjk: bool) -> bool:
    """Whether the sentence ``text`` tells of an event: a past or planned action, an event noun."""
    if cjk:
        return (_EVENT_JA() if japanese(text) else _EVENT_ZH).search(text) is not None
    low = text.casefold()
    if any(map(low.__contains__, _EVENT_PHRASES)):
        return True
    previous = ""
    for word in words(low):
        if word in _EVENT or word.endswith(("'ll", "’ll")):
            return True
        if len(word) > 3 and word.endswith("ed") and word not in _NOT_PAST_ED \
                and previous not in _PASSIVE and previous not in _DETERMINERS:
            return True  # a past tense: not a passive ("is created"), not "a failed run"
        previous = word
    return False
