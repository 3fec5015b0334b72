"""Status markers ("SUPERSEDED", "Status: done", 【完了】) and the scope each one speaks for.

A status word is a *marker* only where people put a status: a ``status:`` key or label, a tag
in brackets, a word opening the text before a separator ("Superseded: ...", "DONE - ...") or
closing it after one ("... — RESOLVED", ``migration-v2-DONE``), "superseded by X" after a
separator. The same word inside a sentence names something else ("the new DB superseded the
old one", 旧DBを廃止統合, "replaces the v1 API") and is no marker at all.

Where the marker stands gives its scope. Frontmatter, name, description, the first line and
the lead paragraph speak for the whole memory: a word saying its text no longer holds there
(superseded, obsolete, 已废弃, ...) retires it; a word saying the work finished (done,
resolved, 完成, 完了, ...) retires it only as its status (a ``status:`` field, a ``Status:``
line, a tag in its name): in a title or a description it tells of an event ("v8 refactor —
completed 2026-06-22") whose results the memory may still hold (see :func:`retires`).
Elsewhere a marker speaks for one part, and only a
word saying that *text* no longer holds (superseded, obsolete, outdated, 已过时, 陳腐化) is worth
reporting: "DONE" in a task table or "RESOLVED" over an incident's sub-section is the memory's
own progress record, alive as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from consolidator.detect.scope import Line, bare, unquoted
from consolidator.detect.script import HANGUL
from consolidator.store.model import Memory

_PROGRESS_EN = r"done|resolved|completed|complete|closed|finished"
_RETIRE_EN = (r"superseded|obsolete|outdated|out of date|deprecated|archived|retired|abandoned"
              r"|cancell?ed|defunct|replaced|invalidated|invalid")
_PART_EN = r"superseded|obsolete|outdated|out of date|invalidated"
# The same statuses in other languages written with letters (Latin, Cyrillic, Hangul): a word
# saying the text no longer holds, and one saying the work finished.
_RETIRE_OTHER = (
    r"obsolète|obsolètes|remplacée?s?|périmée?s?|dépassée?s?|caduque?s?"
    r"|obsolet[oa]s?|reemplazad[oa]s?|sustituid[oa]s?|desactualizad[oa]s?|caducad[oa]s?"
    r"|substituíd[oa]s?|desatualizad[oa]s?|superad[oa]s?|superat[oa]|sostituit[oa]"
    r"|überholt|veraltet|abgelöst|obsolet|verouderd|vervangen|achterhaald"
    r"|устарел[оаи]?|неактуальн[оаы]?|заменен[оаы]?|заменён|застарілий|застаріло"
    r"|nieaktualn[ey]|przestarzał[eya]|zastąpion[eya]|geçersiz|eskimiş|usang|lỗi thời"
    r"|폐기됨|폐기|대체됨|무효"
    # cancelled
    r"|annulée?s?|cancelad[oa]s?|annullat[oa]|cancellat[oa]|abgesagt|storniert|geannuleerd"
    r"|отменен[оаы]?|отменён|anulowan[eya]|odwołan[eya]|zrušen[oaýé]?|iptal edildi"
    r"|dibatalkan|đã hủy|취소됨"
)
_PROGRESS_OTHER = (
    r"terminée?s?|achevée?s?|terminad[oa]s?|completad[oa]s?|resuelt[oa]s?|concluíd[oa]s?"
    r"|concluid[oa]s?|conclus[oa]|completat[oa]|risolt[oa]|erledigt|abgeschlossen|fertig"
    r"|afgerond|voltooid|завершен[оаы]?|завершён|выполнен[оаы]?|готово|zakończon[eya]"
    r"|ukończon[eya]|tamamlandı|selesai|hoàn thành|완료됨|완료|해결됨"
    # closed
    r"|fermée?s?|cerrad[oa]s?|fechad[oa]s?|chius[oa]|geschlossen|gesloten|закрыт[оаы]?"
    r"|zamknięt[eya]|uzavřen[oaýé]?|kapatıldı|kapandı|ditutup|đã đóng|종료됨"
)
_PART_OTHER = (
    r"obsolète|obsolètes|périmée?s?|obsolet[oa]s?|desactualizad[oa]s?|desatualizad[oa]s?"
    r"|superat[oa]|überholt|veraltet|verouderd|achterhaald|устарел[оаи]?|неактуальн[оаы]?"
    r"|nieaktualn[ey]|przestarzał[eya]|usang|lỗi thời|폐기됨"
)
_PROGRESS_CJK = (r"已完成|已完结|完成|已解决|已解決|已修复|已修復|已关闭|已關閉|已上线|已合并|已实现"
                 r"|已结束|完了済み|完了済|完了|解決済み|解決済|解決|対応済み|対応済|修正済み|修正済"
                 r"|実装済み|実装済|終了|クローズ済み|クローズ")
_RETIRE_CJK = (r"已废弃|已廢棄|废弃|廢棄|已弃用|已棄用|弃用|已过时|已過時|过时|過時|已作废|已作廢|作废"
               r"|作廢|已失效|失效|已取消|已淘汰|已归档|已歸檔|归档|廃止済み|廃止済|廃止|非推奨|無効"
               r"|失効|陳腐化|中止|アーカイブ済み|破棄済み|置き換え済み|置換済み|置換済")
_PART_CJK = (r"已过时|已過時|过时|過時|已作废|已作廢|作废|作廢|已失效|失效|陳腐化|失効|旧情報|古い情報"
             r"|置き換え済み|置換済み|置換済")

# What may follow a marker word: the end, a separator, a bracket, a date, or "by ..." / "in ...".
_AFTER = (r"(?=$|\s*[\])）】〕>,;:：，、。.!|/—–-]"
          r"|\s+(?:by|in|on|since|as of|at|via|per|and|por|par|durch|da|door|przez"
          r"|depuis|desde|seit|dal|sinds)\b"
          r"|\s*\d|\s*[✅✔☑])")
_AFTER_CJK = r"(?![予待中前後后率的度])"
_START, _END = 1, 2  # which of the patterns below open and close a text
_LABEL = (r"(?:状态|狀態|状況|状態|ステータス|進捗|进度|進度|(?<![^\W\d_])(?:status|state|estado"
          r"|statut|stato|état|etat|статус|состояние|상태|durum|stan|situação|situacao"
          r"|stav|trạng thái|tình trạng))")
_DATE = r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}/\d{1,2})"


def _patterns(en: str, cjk: str) -> tuple[re.Pattern[str], ...]:
    """The tag forms for one vocabulary, English and CJK, each a bounded linear pattern."""
    # (An English word joined to the next by a hyphen is part of a compound: "closed-loop".)
    words = rf"(?P<w>(?i:{en})(?!\w)(?!-\w){_AFTER}|(?:{cjk}){_AFTER_CJK})"
    return (
        # "Status: done", "**状态**：已完成"
        re.compile(rf"(?i:{_LABEL})\**\s{{0,3}}[:：=]\s{{0,3}}\**\s{{0,3}}{words}"),
        # "Superseded: ...", "DONE - ...", "完了：..."
        re.compile(rf"^{words}"),
        # "... — RESOLVED", "... (Done)", "... 完了 ✅"
        re.compile(rf"(?:^|[\s,;:：，、|/—–→-]){words}\s{{0,3}}[\])）】〕]?\s{{0,3}}"
                   rf"(?:\(?{_DATE}\)?)?\s{{0,3}}[✅✔☑️.!]{{0,3}}\s{{0,3}}$"),
        # "(superseded by X)", "[DONE]", "【完了】", "(2026-03-01 完了)"
        re.compile(rf"[\[(（【〔<]\s{{0,3}}(?:{_DATE}\s{{0,3}})?{words}"),
        # "..., superseded by X": a passive with its agent, right after a separator
        re.compile(r"(?:^|[,;:：|—–→(（\[-])\s{0,3}"
                   r"(?P<w>(?i:superseded|replaced|obsoleted) by)\b"),
    )


# After an opening "Replaced:", what the label names: the thing replaced and its successor
# ("X with Y", "X durch Y", "o X pelo Y"); after any opening label, a piece of code
# (``_CODE_NAMED``, read before code spans are taken out). The memory records that change and
# stays true; a status of its own stands alone or names its successor ("Superseded by [[x]]",
# "Status: veraltet").
_CHANGE_NAMED = re.compile(
    r"\**\s{0,3}[:：]\s{0,3}(?:[^.;:\n]{1,80}?\s(?:with|durch|door|pelo|pela|por|przez|par|con"
    r"|avec|mit)\s\S|[^.;:\n]{1,80}?\s?(?:→|->)\s?\S)", re.IGNORECASE)
_REPLACING = re.compile(r"(?i:replaced|superseded|abgelöst|ersetzt|vervangen|substituíd|substituid"
                        r"|zastąpion|reemplazad|sustituid|remplacé|sostituit|заменен|заменён)")
_CODE_NAMED = re.compile(r"[\W_]{0,6}\w+\**\s{0,3}[:：]\s{0,3}`")  # "Deprecated: `load()` …"
# A CJK word of finishing that opens a clause of time: "完成X后", "完了した後", "完成时".
_CJK_WHEN = re.compile(r"[^，,。；;、：:\n]{0,30}?(?:之后|以后|后|後|之時|之时|時|时|のあと|の後|あと)"
                       r"(?=[，,、\s]|$)")
_WHOLE = _patterns(f"{_PROGRESS_EN}|{_RETIRE_EN}|{_RETIRE_OTHER}|{_PROGRESS_OTHER}",
                  f"{_RETIRE_CJK}|{_PROGRESS_CJK}")
_PART = _patterns(f"{_PART_EN}|{_PART_OTHER}", _PART_CJK)
_STATUS_LINE = re.compile(rf"\**(?i:{_LABEL})\**\s{{0,3}}[:：=]")
# The cheap test before any pattern: substrings of every marker word and label, looked up in
# the case-folded text (a substring test per word is many times faster than one alternation).
_HINTS = (
    "done", "resolv", "complet", "closed", "finish", "supersed", "obsolet", "outdated",
    "out of date", "deprecat", "archiv", "retired", "abandon", "cancel", "defunct", "replaced",
    "invalid", "status", "state", "完", "解決", "解决", "废", "廢", "弃",
    "棄", "过时", "過時", "失效", "取消", "淘汰", "归档", "歸檔", "廃", "非推奨", "無効", "失効",
    "陳腐", "中止", "アーカイブ", "破棄", "置き換え", "置換", "終了", "クローズ", "済", "修复",
    "修復", "关闭", "關閉", "上线", "合并", "实现", "结束", "状态", "狀態", "状況", "状態",
    "ステータス", "進捗", "进度", "進度", "旧情報", "古い情報",
    # other languages' statuses (case-folded; a label alone makes no marker)
    "obsol", "remplac", "périm", "dépass",
    "caduc", "reemplaz", "sustitu", "desactualiz", "substitu", "desatualiz", "supera",
    "sostitu", "überholt", "veraltet", "abgelöst", "verouderd", "vervangen", "achterhaald",
    "устар", "неактуал", "замен", "застар", "nieaktualn", "przestarza", "zastąpion",
    "geçersiz", "eskimiş", "usang", "lỗi thời", "폐기", "대체됨", "무효", "termin",
    "achev", "resuelt", "conclu", "risolt", "erledigt", "abgeschlossen", "fertig",
    "afgerond", "voltooid", "заверш", "выполн", "готово", "zakończon", "ukończon",
    "tamamlandı", "selesai", "hoàn thành", "완료", "해결됨",
    "annul", "abgesagt", "storniert", "отмен", "anulowan", "odwołan", "zrušen", "iptal",
    "dibatalkan", "hủy", "취소", "ferm", "cerrad", "fechad", "chius", "geschlossen", "gesloten",
    "закрыт", "zamknięt", "uzavřen", "kapatıldı", "kapandı", "ditutup", "đã đóng", "종료",
)
# Frontmatter keys that retire a memory: a successor, or a flag set to true.
_TRUE = ("true", "yes", "1")
_SUCCESSOR_KEYS = ("superseded_by", "supersededby", "superseded-by", "replaced_by", "replacedby",
                   "replaced-by")
_FLAG_KEYS = ("deprecated", "obsolete", "archived", "superseded")
_NAME_SPLIT = re.compile(r"[-_\s.]+")
_NAME_RETIRE = frozenset(("superseded", "obsolete", "outdated", "deprecated", "archived",
                          "retired", "abandoned", "cancelled", "canceled", "defunct"))
_NAME_PROGRESS = frozenset(("DONE", "RESOLVED", "COMPLETED", "COMPLETE", "CLOSED", "FINISHED"))
_NAME_WORDS = frozenset(word.casefold() for word in _NAME_PROGRESS)
_LEAD_IN = re.compile(r"^[\W_]{0,6}")  # emoji, bullets, emphasis before the first word
_HANGUL = re.compile(f"[{HANGUL}]")


@dataclass(frozen=True, slots=True)
class Marker:
    """One status marker, where it stands and the line it stands in."""

    word: str
    where: str  # "frontmatter", "name", "description", "first line", "lead", "sub-heading", ...
    line: str
    whole: bool  # speaks for the memory as a whole


_SEPARATORS = frozenset(",;:：，、|/—–→-([（【")  # what sets a closing tag apart from its text
_OPENING, _CLOSING = "([（【〔<", ")]）】〕>"


def _closes_an_aside(text: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end`` closes a sentence in brackets ("(v1 抽离起 一直 silent
    失效)"): the sentence's verb, not a tag. A tag in brackets stands alone ("(已过时)") or after
    a separator ("(moved to v2 — superseded)")."""
    opened = max(text.rfind(mark, 0, start) for mark in _OPENING)
    if opened < 0 or text[end:].lstrip()[:1] not in set(_CLOSING):
        return False
    inside = text[opened + 1 : start].rstrip()
    return inside != "" and inside[-1] not in _SEPARATORS


def tag(text: str, patterns: tuple[re.Pattern[str], ...]) -> str | None:
    """The status word ``text`` carries as a tag (not inside a sentence), or ``None``."""
    code_named = _CODE_NAMED.match(text) is not None
    text = unquoted(text)
    core = text[_LEAD_IN.match(text).end():]  # type: ignore[union-attr]
    for i, pattern in enumerate(patterns):
        found = pattern.search(core if i == _START else text)
        if found is None:
            continue
        word = found.group("w")
        if i == _START and _CJK_WHEN.match(core, found.end("w")):
            continue  # 完成代码改动后，…: "after completing …", a clause of time, no status
        if i == _START and (code_named or _REPLACING.match(word)
                            and _CHANGE_NAMED.match(core, found.end("w"))):
            continue  # "Replaced: X with Y", "Deprecated: `x()` — use …": a change recorded
        if i == _END and _closes_an_aside(text, found.start("w"), found.end("w")):
            continue  # "(… has silently 失效 since v170)": the aside's verb, no tag
        # A lowercase English word opening or closing a text without a separator is prose
        # ("done with the docs", "the bug is fixed"); in capitals it is a tag ("DONE the docs").
        # So is a Korean word that would retire the memory closing a text (Korean spaces its
        # words and puts the verb last) without a separator before it: it is its clause's
        # verb ("이전 `a.json` 은 모두 폐기됨", the old files are all discarded), about what
        # the clause names. (A word of finished work there only ever makes a note.)
        caseless = word.upper() == word.lower()
        if i == _END and _HANGUL.match(word) and not _PROGRESS.fullmatch(word) \
                and text[: found.start("w")].rstrip()[-1:] not in _SEPARATORS:
            continue
        if i in (_START, _END) and not caseless and not word.isupper():
            if i == _START:
                rest = core[found.end():].lstrip()
                if not (rest == "" or rest[:1] in ":：-—–|([" or rest.lower().startswith("by ")):
                    continue
            elif text[: found.start("w")].rstrip()[-1:] not in _SEPARATORS:
                continue
        return word.strip()
    return None


def frontmatter_marker(memory: Memory) -> Marker | None:
    """A status the frontmatter gives the memory: ``status: superseded``, ``superseded_by: x``."""
    for key, value in memory.doc.fields.items():
        leaf = key.rsplit(".", 1)[-1].casefold()
        value = value.strip().strip("'\"")
        if leaf in ("status", "state"):
            word = tag(f"status: {value}", _WHOLE[:1])
            if word:
                return Marker(word, "frontmatter", f"{key}: {value}", True)
        elif leaf in _SUCCESSOR_KEYS and value.casefold() not in ("", "null", "none", "~", "false"):
            return Marker(leaf, "frontmatter", f"{key}: {value}", True)
        elif leaf in _FLAG_KEYS and value.casefold() in _TRUE:
            return Marker(leaf, "frontmatter", f"{key}: {value}", True)
    return None


# A status that sets the memory aside without retiring it: worth a person's look, never an
# archive (a paused plan may resume).
_PAUSED = frozenset(("paused", "inactive", "on hold", "on-hold", "stopped", "suspended",
                     "dormant", "abandoned", "cancelled", "canceled", "暂停", "已暂停", "停止",
                     "已停止", "中止", "休止", "停止中", "保留"))


def paused_status(memory: Memory) -> str | None:
    """``status: paused`` (or inactive, on hold, 暂停, 休止 …) in the frontmatter, as written."""
    for key, value in memory.doc.fields.items():
        leaf = key.rsplit(".", 1)[-1].casefold()
        value = value.strip().strip("'\"")
        if leaf in ("status", "state") and value.casefold() in _PAUSED:
            return f"{key}: {value}"
    return None


_PROGRESS = re.compile(rf"(?i:{_PROGRESS_EN}|{_PROGRESS_OTHER})|{_PROGRESS_CJK}")
_STATUS_PLACES = frozenset(("frontmatter", "name", "lead paragraph"))


# Words that leave something out of a status: "COMPLETE, except the registration", "done but
# for the docs", 「完了（残り: 登録）」, "superseded except the API section". What is left is
# alive, and so is the memory.
_LEFT_OPEN = re.compile(
    r"(?i:\b(?:except|excepting|but\s+for|apart\s+from|other\s+than|save\s+for|besides|"
    r"remaining|pending|outstanding|still\s+open|still\s+to|yet\s+to|excepto|salvo|"
    r"pendiente|sauf|hormis|au(?:ss|ß)er|tranne|eccetto|exceto|ausgenommen)\b)"
    r"|除了|除外|以外|残り|残件|未完|未対応|剩余|剩下|尚未|待办|제외|남은|미완")


def leaves_open(marker: Marker) -> bool:
    """Whether the line of a status says, after the word, that something is left out of it
    (undone, or still holding: "obsolete except the API section")."""
    at = marker.line.find(marker.word)
    return at >= 0 and _LEFT_OPEN.search(marker.line, at + len(marker.word)) is not None


def retires(marker: Marker) -> bool:
    """Whether a marker about the whole memory retires it: a word saying its text no longer
    holds, wherever it stands, unless the same line leaves something out of it ("except …");
    a word saying the work finished only as the memory's status
    (its frontmatter, a tag in its name, a ``Status:`` line), not in its title or description.
    On real memories "completed" in a title headed a feature's reference as often as a task
    with nothing left in it."""
    if leaves_open(marker):
        return False  # finished (or gone) but for what it names: that part is alive
    if _PROGRESS.fullmatch(marker.word) is None:
        return True
    if marker.where == "name":
        # A tag on a slug, a token of its own at either end (migration-v2-DONE,
        # 数据迁移-已完成), not a title ("v8 refactor (done)", "【完了】決済SDK移行",
        # "Refactor status — 24 batches 完成"): a title tells of an event in any script, as
        # the first line does.
        tokens = [t.casefold() for t in _NAME_SPLIT.split(marker.line) if t]
        return (marker.word.isupper() or marker.word.upper() == marker.word.lower()) \
            and not any(c.isspace() for c in marker.line) \
            and marker.word.casefold() in tokens[:1] + tokens[-1:]
    return marker.where in _STATUS_PLACES or _STATUS_LINE.match(bare(marker.line)) is not None


def _name(name: str) -> str | None:
    """A status tag in a memory's name: its last token (``migration-v2-DONE``), or its first
    in capitals (``DONE-migration-v2``); ``deprecated-apis`` names a subject, not a status."""
    tokens = [t for t in _NAME_SPLIT.split(name) if t]
    if tokens and (tokens[-1].casefold() in _NAME_RETIRE or tokens[-1] in _NAME_PROGRESS):
        return tokens[-1]
    if tokens and tokens[0].isupper() and tokens[0].casefold() in _NAME_RETIRE | _NAME_WORDS:
        return tokens[0]
    # Hyphens and underscores join a name's words; they are no separators before a tag.
    return tag(name.replace("-", " ").replace("_", " "), _WHOLE)


# A line opening with a word and its number: "Phase 1 ...", "Step 2: ...", "Sprint #3 ...".
_NUMBERED = re.compile(r"[^\w]*([^\W\d_]+)[ \t]?#?(\d+)\b")


def _numbered_items(head: list[Line]) -> bool:
    """Whether the first line is one of numbered items the lead paragraph lists ("Phase 1
    COMPLETE." above "Phase 2 COMPLETE." and "Phase 3 IN PROGRESS"): its status is that
    item's, not the memory's."""
    first = _NUMBERED.match(bare(head[0].text))
    if first is None:
        return False
    word, number = first.group(1).casefold(), first.group(2)
    return any(other.group(1).casefold() == word and other.group(2) != number
               for line in head[1:] if (other := _NUMBERED.match(bare(line.text))))


def whole_marker(memory: Memory, head: Iterable[Line]) -> Marker | None:
    """The first marker that speaks for the whole memory, or ``None``."""
    found = frontmatter_marker(memory)
    if found:
        return found
    word = _name(memory.name) if maybe(memory.name) else None
    if word:
        return Marker(word, "name", memory.name, True)
    if memory.description and maybe(memory.description):
        word = tag(memory.description, _WHOLE)
        if word:
            return Marker(word, "description", memory.description, True)
    head = [line for line in head if line.kind not in ("code", "quote", "table")]
    if head and maybe(head[0].text) and not _numbered_items(head):
        word = tag(bare(head[0].text), _WHOLE)
        if word:
            return Marker(word, "first line", head[0].text, True)
    # Further down the lead paragraph only a status line counts ("Status: superseded"), and
    # only when there is one: several are a list of items, each with its own status.
    labelled = [line for line in head[1:] if _STATUS_LINE.match(bare(line.text))]
    if len(labelled) == 1:
        word = tag(bare(labelled[0].text), _WHOLE[:1])
        if word:
            return Marker(word, "lead paragraph", labelled[0].text, True)
    return None


_PART_PLACES = {"heading": "sub-heading", "list": "list item"}  # where a status marks a part


def part_markers(lines: Iterable[Line], hints: tuple[str, ...] = _HINTS) -> list[Marker]:
    """Markers that speak for one part: a sub-section or list item whose text no longer holds.
    A status word inside a running sentence is not one (on real text it was a quoted message or
    a term of art as often as a status); nor are tables, code and quotations (a status column,
    output, dialogue).
    Call it when ``whole_marker`` found nothing: a head line then speaks for itself only.
    ``hints``: those of :func:`hints_in` the text the lines come from (no line holds others)."""
    out: list[Marker] = []
    sections: set[str] = set()  # one finding per section: its heading says it for the rest
    for line in lines:
        where = _PART_PLACES.get(line.kind)
        if where is None or line.section in sections or not maybe(line.text, hints):
            continue
        word = tag(bare(line.text), _PART)
        if word:
            out.append(Marker(word, where, line.text, False))
            if line.section:
                sections.add(line.section)
    return out


def maybe(text: str, hints: tuple[str, ...] = _HINTS) -> bool:
    """Whether ``text`` could hold a marker at all (the cheap test before outlining it).
    ``hints``: the hints to look for, when a text holding ``text`` is known to hold no others."""
    low = text.casefold()
    return any(hint in low for hint in hints)


def hints_in(text: str) -> tuple[str, ...]:
    """The hints ``text`` holds (case-folded), in order; any part of ``text`` holds none other
    (case-folding maps each character on its own), so its lines are tested for these alone."""
    low = text.casefold()
    return tuple(hint for hint in _HINTS if hint in low)
