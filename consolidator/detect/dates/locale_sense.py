"""What a sentence in a language with no sense rules of ours (relative.py reads English,
Chinese and Japanese sentences word by word) says around a relative day: that the day is a
rule's, a habit's, a thing's or a part of another day, and so names no day of its own.

Only words a language uses for nothing else are read in every text ("toujours", "jeśli",
"если", "her sabah"); a word that means something else in a neighbouring language (Italian
"se" is "if", Spanish "se" a pronoun; German "nie" is "never", Polish "nie" is "not") is read
only in a text written in its language.
"""

from __future__ import annotations

import re
from functools import lru_cache

from consolidator.detect.dates.locales import LocalePhrase, time_words

# "de ayer", "d'hier", "di ieri", "von gestern": the day qualifies a noun ("el máximo de
# ayer", the high of yesterday), as a possessive does; with no rule of ours reading another
# language's sentence for an event, it is left.
_OF = re.compile(r"(?<!\w)(?:de|del|d'|d’|di|da|do|dos|das|von|vom|van|z|ze)\s*$", re.IGNORECASE)

# A sentence about something that recurs ("jede Nacht holt der Cronjob die Spiele für
# morgen", "co noc … na jutro", "cada día", "her sabah", "setiap pagi", "mỗi sáng"): its
# "tomorrow" is each run's; "always" or "never" makes a rule of it. (English habits and
# rules are read by words.rule, with the rest of the English sense rules.)
_HABIT_OTHER = re.compile(
    r"(?<!\w)(?:(?:jede[nmrs]?|elke|iedere|co|każd\w+|každ\w+|cada|chaque|tous les|toutes les"
    r"|ogni|tutti i|tutte le|кажд\w+|todos os|todas as|todos los|todas las|her|setiap|tiap"
    r"|mỗi|hằng|hàng)\s+(?:nacht|nächte|tag|tage|morgen|abend|woche|monat|stunde|lauf|dag"
    r"|ochtend|avond|week|maand|uur|noc|dzień|dnia|rano|wieczór|tydzień|miesiąc|den|ráno"
    r"|večer|týden|měsíc|hodinu|día|días|noche|noches|mañana|mañanas|semana|mes|hora|jour"
    r"|jours|nuit|nuits|matin|matins|soir|soirs|semaine|semaines|heure|heures|giorno|giorni"
    r"|notte|notti|mattina|sera|settimana|mese|ora|день|ночь|утро|вечер|неделю|месяц|час|dia"
    r"|dias|noite|noites|manhã|manhãs|tarde|tardes|semanas|gün|sabah|akşam|gece|hafta|ay"
    r"|saat|hari|pagi|malam|minggu|bulan|jam|ngày|sáng|tối|đêm|tuần|tháng|giờ|run|runs)"
    r"|täglich\w*|nächtlich\w*|dagelijks\w*|codzienn\w+|denně|diariamente|quotidiennement"
    r"|quotidianamente|ежедневн\w+|her zaman|hiçbir zaman|toujours|jamais|siempre|nunca"
    r"|sempre|immer|niemals|altijd|nooit|zawsze|nigdy|vždy|vždycky|nikdy|alltid|aldrig|altid"
    r"|aldri|mereu|întotdeauna|niciodată|selalu|tidak pernah|luôn|không bao giờ|всегда"
    r"|никогда|завжди|ніколи"
    # a setting's value ("vale ayer por defecto", "par défaut")
    r"|por defecto|por padrão|par défaut|standardmäßig|standardwert\w*|domyślnie|výchozí"
    r"|по умолчанию|varsayılan|mặc định|predefinito|di default)"
    r"(?!\w)|매일|매주|매번|항상|언제나|마다", re.IGNORECASE)
# A condition governs what follows it in its sentence ("si l'envoi échoue, on réessaie
# demain"), not a day named before it ("revisar mañana y, si no basta, volver atrás").
_CONDITION_OTHER = re.compile(
    r"(?<!\w)(?:eğer|wenn|falls|sobald|indien|zodra|jeśli|jeżeli|pokud|jestli|jestliže|když"
    r"|hvis|dacă|qualora|jika|apabila|kalau|nếu|если|якщо)(?!\w)|만약|만일", re.IGNORECASE)
# Words of a condition or of "never" that mean something else in another language.
_RULE_OF_LANGUAGE = {
    # English phrases read here are only those English has no sense rules of ours for
    # ("this session": see session.py).
    "en": re.compile(r"(?<!\w)(?:if|unless|whenever)(?!\w)", re.IGNORECASE),
    "fr": re.compile(r"(?<!\w)(?:si|s'ils?|s’ils?)(?!\w)", re.IGNORECASE),
    "es": re.compile(r"(?<!\w)si(?!\w)", re.IGNORECASE),
    "it": re.compile(r"(?<!\w)(?:se|mai)(?!\w)", re.IGNORECASE),
    "pt": re.compile(r"(?<!\w)(?:se|caso)(?!\w)", re.IGNORECASE),
    "de": re.compile(r"(?<!\w)nie(?!\w)", re.IGNORECASE),
    "nl": re.compile(r"(?<!\w)als(?!\w)", re.IGNORECASE),
    "sv": re.compile(r"(?<!\w)om(?!\w)", re.IGNORECASE),
    "ro": re.compile(r"(?<!\w)daca(?!\w)", re.IGNORECASE),
    # Turkish writes "if" onto the verb: bozulursa, olursa, gelirse.
    "tr": re.compile(r"\w{2,}(?:[ıiuü]r|[ae]r|[ae]m[ae]z)s[ae](?!\w)", re.IGNORECASE),
}
_SENTENCE_END = re.compile(r"[.!?;。！？]\s")
SENTENCE_CHARS = 300  # how far back a condition is looked for: a long line costs no more
_WORD_BEFORE = re.compile(r"(\w+)\W{0,3}$")
# Korean: a part of the day after the word ("어제 저녁", yesterday evening), or a thing of that
# day ("어제 것", yesterday's one; "어제의"; "오늘 날짜", today's date: the date of whichever
# day a rule runs on), as English "yesterday's" qualifies a noun.
_KO_AFTER = re.compile(r"\s?(?:것|의|저녁|아침|오전|오후|밤|새벽|점심|날짜|일자)(?![가-힣])")


def states_a_rule(line: str, column: int, languages: frozenset[str]) -> bool:
    """Whether ``line`` (of a text written in ``languages``) states a habit or a rule for
    the day at ``column``: a habit, "always" or "never" anywhere in it, a condition before
    the day in its sentence."""
    if _habit(line):
        return True
    low = max(0, column - SENTENCE_CHARS)
    ends = [m.end() for m in _SENTENCE_END.finditer(line, low, column)]
    before = line[ends[-1] if ends else low : column]
    return _CONDITION_OTHER.search(before) is not None \
        or any(_RULE_OF_LANGUAGE[lang].search(before) for lang in languages
               if lang in _RULE_OF_LANGUAGE)


@lru_cache(maxsize=256)
def _habit(line: str) -> bool:
    """Whether ``line`` tells of a habit (once per line: a line may hold many phrases)."""
    return _HABIT_OTHER.search(line) is not None


def of_a_thing(text: str, phrase: LocalePhrase) -> bool:
    """Whether the day qualifies a noun before it ("el máximo de ayer", "d'hier")."""
    return _OF.search(text, max(0, phrase.start - 6), phrase.start) is not None


def part_of_day(text: str, phrase: LocalePhrase, others: list[LocalePhrase]) -> bool:
    """Whether a locale's word stands after another word of time ("heute morgen", "Montag
    morgen", "gestern morgen"): there it is a part of that day (German and Dutch "morgen" is
    "morning" as well as "tomorrow"), not a day of its own; or a part or thing of its day
    follows it (Korean "어제 저녁", "어제 것")."""
    if any(0 <= phrase.start - other.end <= 2 for other in others) \
            or _KO_AFTER.match(text, phrase.end):
        return True
    before = _WORD_BEFORE.search(text, max(0, phrase.start - 24), phrase.start)
    return before is not None and before.group(1).casefold() in time_words()


# A name in code built on a relative day: "isToday", "getTodayRecords", "today_count",
# "TOMORROW_KEY" (a day word joined to another word by a change of case or an underscore; the
# library's own "date.today()" is no such name, nor is emphasis, "_Today_", or a part of a
# path, a document's name or an address: "notes/today_tasks.md", ".../yesterday_news"; a
# private name is, "self._today").
_CODE_DAY = re.compile(r"(?<!\w)[A-Za-z0-9_]*(?:today|yesterday|tomorrow)[A-Za-z0-9_]*"
                       r"(?![\w/]|\.(?:md|txt|html?|pdf|csv|log|png|jpe?g|gif)\b)",
                       re.IGNORECASE)
_NAME_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
_CODE_SHIFT = {"today": 0, "yesterday": -1, "tomorrow": 1}
ADDRESS_MAX = 200  # characters read back for the "://" of an address a name stands in


def days_in_code(text: str) -> frozenset[int]:
    """The relative days (0 for today, -1, 1) that ``text`` names in code. Where a project's
    code is built on "today" (an app's view of the day it is used), its notes' word for that
    day, in any language ("today's records", 오늘 기록), names that view, not the day the
    note was written."""
    shifts: set[int] = set()
    for match in _CODE_DAY.finditer(text):
        token = match.group(0)
        low = max(0, match.start() - ADDRESS_MAX)  # an address starts this near at most
        word_start = max(low, max(text.rfind(c, low, match.start()) for c in " \t\n`(<[") + 1)
        if "://" in text[word_start:match.start()]:
            continue  # part of an address
        parts = [p.casefold() for p in _NAME_PART.findall(token)]
        if len(parts) > 1 or (token.startswith("_") and not token.endswith("_")):
            shifts.update(_CODE_SHIFT[p] for p in parts if p in _CODE_SHIFT)
    return frozenset(shifts)
