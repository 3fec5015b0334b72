"""Deadlines stated in memory text, with the day each one ends.

A deadline is a day the writer was looking forward to. A date counts only when all of these hold:

- a deadline word leads it ("until", "by", "due", "deadline", "expires", 截止, 到期, 期限, 締切,
  마감, 기한) or follows it (までに, まで but not までの "up to", 之前, 前, 까지), or it ends a range
  ("2026-03-01 to 2026-03-12", 3月1日至3月12日, 〜);
- it is after the day the memory was written: a day the writer had already passed is history
  (an event, an achievement, a measurement window, a resume point), not a deadline; only a
  rule in the memory's head that held until that day ("Merge freeze until 2026-03-12") is
  kept, since editing a file later moves its mtime past the days it names;
- it is not in code, a quotation, a block quote or a table, not in an example ("e.g.", 例如,
  例えば), not in a clause told in the past tense ("By May 2026 the script printed ...") and
  not on a line saying the thing renews itself ("until 20.06.2026, auto-renewal");
- a month alone ("by October 2026", 2026年10月までに) ends on the month's last day.

Relative phrases ("in 24 days") are never read here: a day the tool itself worked out is not a
day the writer wrote.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from consolidator.detect.dates.anchors import MONTH_NAMES
from consolidator.detect.dates.locales import MONTHS
from consolidator.detect.scope import Line, outline, unquoted

_MON = MONTH_NAMES

# Each date shape is its own pattern, run on one line at a time; every quantifier is bounded.
_SHAPES = (
    re.compile(r"(?<![\d/.])(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})(?![\d/])"),
    re.compile(r"(?:(?P<y>\d{4}) ?[年년] ?)?(?P<m>\d{1,2}) ?[月월] ?(?P<d>\d{1,2}) ?[日号號일]"),
    # Day first with dots, as much of Europe writes it: "30.09.2026", "30. 9. 2026".
    re.compile(r"(?<![\d.])(?P<d>\d{1,2})\. ?(?P<m>\d{1,2})\. ?(?P<y>\d{4})(?!\d|\.\d)"),
    re.compile(rf"\b(?P<mon>{_MON})\.? {{1,2}}(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])"
               rf"(?:,? (?P<y>\d{{4}})(?!\d))?", re.IGNORECASE),
    re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)? (?P<mon>{_MON})\b\.?"
               rf"(?:,? (?P<y>\d{{4}})(?!\d))?", re.IGNORECASE),
    # A month: "October 2026", "end of October", 2026年10月, 10月末.
    re.compile(rf"\b(?P<mon>{_MON})\.?,? (?P<y>\d{{4}})(?!\d)", re.IGNORECASE),
    re.compile(rf"(?<=end of )(?P<mon>{_MON})\b", re.IGNORECASE),
    re.compile(r"(?P<y>\d{4}) ?[年년] ?(?P<m>\d{1,2}) ?[月월](?! ?\d)(?:末|底| ?말)?"),
    re.compile(r"(?<!\d)(?P<m>\d{1,2}) ?(?:月(?:末|底)|월 ?말)"),
)
# The cheap tests before the shapes: a digit run shaped like a year or a CJK date, or a
# month's name among the words (a set lookup, far faster than an alternation over the text).
_ISO_HINT = re.compile(r"\d{4}[-/]\d")
_DOTTED_HINT = re.compile(r"\d\. ?\d{4}")
_WORD = re.compile(r"[a-z]{3,9}")
_MONTH_WORDS = frozenset([*MONTHS, *(m[:3] for m in MONTHS), "sept"])

# Leads in other languages: "bis", "spätestens", "avant le", "date limite", "antes del",
# "entro il", "até", "до", "срок", "en geç", "paling lambat", "hạn chót" (not Czech and Polish
# "do", which English writes before a date too: "we do 2026-09-30 planning"). Each says work
# is due by the day as often as that a state lasts until it: a passed one is reported, never
# a reason to archive.
_OTHER_LEADS = (
    r"bis(?: zum| spätestens)?|spätestens(?: am| bis)?|frist(?: bis| ist)?|fällig(?: am| bis)?"
    r"|avant(?: le)?|jusqu['’]a[ux]?|jusqu['’]à|date limite|échéance|au plus tard(?: le)?"
    r"|antes del?|hasta el|fecha límite|plazo(?: hasta)?|a más tardar(?: el)?"
    r"|entro(?: il)?|fino al|scadenza|non oltre(?: il)?"
    r"|até(?: o| a)?|antes de|prazo(?: final)?|data limite|uiterlijk|tot en met"
    r"|przed|termin|najpóźniej(?: do)?|nejpozději(?: do)?|lhůta"
    r"|до|не позднее|срок(?: подачи)?|дедлайн|son başvuru tarihi|son tarih|en geç"
    r"|sebelum|paling lambat|batas waktu|tenggat|hạn chót|trước ngày"
)
# A lead right before the date (the text before it must end with one of these).
_LEAD = re.compile(
    r"(?:\b(?:until|till|til|by|before|no later than|not later than"
    r"|due(?: on| by| date)?|deadline(?: is| of)?|expires?(?: on)?|expiring(?: on)?"
    r"|expiry(?: date)?|(?<!to )ends?(?: on)?|valid (?:until|till|through|thru|to))"
    r"|截止(?:日期|时间|日)?(?:为|是)?|到期(?:日|时间)?(?:为|是)?|期限(?:は|为|是)?"
    r"|締め?切り?日?(?:は)?|〆切(?:は)?|有效期?至|最晚|最迟|最遲"
    r"|마감(?:일|기한)?(?:은|는)?|기한(?:은|는)?|만료(?:일)?(?:은|는)?"
    rf"|(?<!\w)(?:{_OTHER_LEADS}))"
    r"\**[ ]?[:：—–]?\**[ ]?(?:the )?(?:end of )?$",
    re.IGNORECASE,
)
# A lead right after the date.
_TRAIL = re.compile(r" ?(?:までに|まで(?!の)|迄|之前(?!的)|以前(?!的)|前(?![后後的天])|截止|到期"
                    r"|が期限|が締め?切り?|(?:이?전)?까지(?!의)|마감"
                    r"|(?:['’]?[ey]?[ae]| tarihine) kadar)")  # Turkish "…'e kadar"
# Leads of work to be done by the day, rather than of a state that lasts until it.
_COMPLETION = re.compile(
    r"\b(?:by|before|no later than|not later than|due|deadline)\b|截止|期限|締め?切|〆切|最晚|最迟"
    rf"|最遲|までに|之前|以前|前$|前 |까지|마감|기한|kadar|(?<!\w)(?:{_OTHER_LEADS})(?!\w)",
    re.IGNORECASE,
)
# A temporary state in the clause makes any deadline a limit of validity ("frozen before").
_STATE = re.compile(
    r"\b(?:frozen|freeze|blocked|closed|paused|suspended|disabled|locked|read-only|embargo"
    r"|blackout|moratorium|on hold|not allowed|forbidden|prohibited|valid|available|trial"
    r"|discount|promo|offer|waived|only)\b|封版|冻结|凍結|禁止|暂停|停止|只允许|仅限|只读|有效|有効"
    r"|限定|無料|免费|试用|試用|休止|锁定|ロック|のみ|동결|금지|중지|중단|유효|한정|무료|할인|잠금",
    re.IGNORECASE,
)
_RANGE_WORDS = frozenset(("to", "through", "thru", "until", "till", "and", "-", "–", "—", "~",
                          "～", "〜", "至", "到", "から", "--"))
_EXAMPLE = re.compile(
    r"\be\.g\.|\bfor (?:example|instance)\b|\bexample\b|\bsuch as\b|\bsample\b|\bhypothetical"
    r"|例如|比如|举例|舉例|例：|例:|例えば|たとえば|例\)|例）|仮に|假设|假設|예를 들어|예시|예:",
    re.IGNORECASE,
)
# A clause told in the past tense, unless it also looks forward ("must be done by ...").
# The restrictions a standing rule names: only these keep a head deadline the writer had
# already passed (a later edit of the file moved its mtime past the day).
_RULE = re.compile(
    r"\b(?:freeze|frozen|embargo|blackout|moratorium|read-only)\b|封版|冻结|凍結|禁止|只读"
    r"|読み取り専用|동결|금지",
    re.IGNORECASE,
)
_PAST_CJK = re.compile(r"だった|でした|ました|ていた|曾经|曾|已经结束|结束了|过去"
                       r"|었다|았다|였다|했다|됐다|었음|았음|였음|했음|됐음")
_PAST = re.compile(
    r"\b(?:was|were|had|did|got|ended|closed|happened|occurred|shipped|launched|released"
    r"|printed|showed|shown|stayed|remained|went|came|finished|completed|started|began"
    r"|worked|ran|returned|reported|measured|observed|saw)\b",
    re.IGNORECASE,
)
_FORWARD = re.compile(
    r"\b(?:will|must|should|shall|need|needs|have to|has to|is due|are due|to be|going to"
    r"|planned|scheduled|expected)\b",
    re.IGNORECASE,
)
# A line saying the thing renews itself: its end date passes and it goes on ("certificate
# until 2026-06-20, auto-renewal"), no deadline either way.
_RENEWS = re.compile(
    r"\bauto[- ]?renew|\brenews? (?:itself |automatically)|\bautomatic(?:ally)? renew"
    r"|автопродлени|автоматическ\w{0,3} продлени|продлевается автоматически"
    r"|自动续|自動續|자동 ?갱신|自动延期"
    r"|renouvellement automatique|se renouvelle automatiquement|verlängert sich automatisch"
    r"|automatische verlängerung|renovação automática|renova automaticamente"
    r"|renovación automática|se renueva automáticamente|rinnovo automatico",
    re.IGNORECASE,
)
CLAUSE_CHARS = 300
MAX_DATES_PER_LINE = 24  # a line with more is a table or a log dump, not a deadline
_CLAUSE_END = re.compile(r"[.!?;] |[。；！？]")


@dataclass(frozen=True)
class Deadline:
    phrase: str  # the lead and the date, as written
    day: date  # the last day the deadline allows
    line: str = ""  # the line it stands in, stripped (the report's evidence)
    number: int = 0  # that line's index in the text's lines
    # True when the text holds only until the day ("frozen until", "valid until", a range,
    # まで): afterwards it is no longer true. False for work due by the day ("submit by",
    # "due", 截止, までに): afterwards the text is history, maybe still worth keeping.
    validity: bool = True


@dataclass(frozen=True, slots=True)
class _Date:
    start: int
    end: int
    day: date
    month_only: bool


def _month_number(name: str) -> int:
    low = name.casefold().rstrip(".")
    return next(i + 1 for i, month in enumerate(MONTHS) if month.startswith(low[:3]))


def _year_for(month: int, day: int, written: date) -> date | None:
    """A date given without a year: the first such date on or after the writing date."""
    for year in (written.year, written.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate >= written:
            return candidate
    return None


def _month_end(year: int | None, month: int, written: date) -> date:
    """The last day of a month; without a year, the first such month ending on or after
    the writing date."""
    year = year or written.year
    end = date(year, month, calendar.monthrange(year, month)[1])
    if end < written and year == written.year:
        end = date(year + 1, month, calendar.monthrange(year + 1, month)[1])
    return end


def _dates(line: str, written: date) -> list[_Date]:
    """Every date in one line, left to right, overlaps resolved in favour of the earliest and
    longest; dates that are not real days are dropped."""
    found: list[tuple[int, int, re.Match[str]]] = []
    for shape in _SHAPES:
        for match in shape.finditer(line):
            found.append((match.start(), -match.end(), match))
    out: list[_Date] = []
    last_end = -1
    for start, neg_end, match in sorted(found, key=lambda item: (item[0], item[1])):
        if start < last_end:
            continue
        g = match.groupdict()
        mon = g.get("mon")
        if mon and mon.casefold() == "may" and not mon[0].isupper():
            continue  # "may" the verb
        try:
            month = _month_number(mon) if mon else int(g["m"])
            year = int(g["y"]) if g.get("y") else None
            if g.get("d"):
                dom = int(g["d"])
                day = date(year, month, dom) if year else _year_for(month, dom, written)
                month_only = False
            else:
                day = _month_end(year, month, written)
                month_only = True
        except (ValueError, TypeError, StopIteration):
            continue
        if day is not None:
            out.append(_Date(start, -neg_end, day, month_only))
            last_end = -neg_end
    return out


def _clause(line: str, start: int, end: int) -> str:
    """The clause of ``line`` around ``start:end`` (between sentence ends, at most
    ``CLAUSE_CHARS`` either side, so a huge line costs no more than a short one)."""
    low = max(0, start - CLAUSE_CHARS)
    before = [m.end() for m in _CLAUSE_END.finditer(line, low, start)]
    after = _CLAUSE_END.search(line, end, end + CLAUSE_CHARS)
    stop = after.start() if after else min(len(line), end + CLAUSE_CHARS)
    return line[before[-1] if before else low : stop]


def _in_line(line: Line, written: date) -> list[Deadline]:
    """The deadlines one line states."""
    text = unquoted(line.text)
    if not might_date(text):
        return []
    dates = _dates(text, written)[:MAX_DATES_PER_LINE]
    if not dates or _EXAMPLE.search(text) or _RENEWS.search(text):
        return []
    out: list[Deadline] = []
    for i, found in enumerate(dates):
        lead = _LEAD.search(text, max(0, found.start - 40), found.start)
        start = lead.start() if lead else found.start
        end = found.end
        if not lead:
            trail = _TRAIL.match(text, found.end)
            if trail:
                end = trail.end()
            elif i and _range_ok(text, dates[i - 1], found):
                start = dates[i - 1].start
            else:
                continue
        day = found.day
        if found.month_only and lead and lead.group(0).lower().startswith("before"):
            day = day.replace(day=1) - timedelta(days=1)
        clause = _clause(text, start, end)
        if (_PAST.search(clause) and not _FORWARD.search(clause)) or _PAST_CJK.search(clause):
            continue
        # A range is a window of validity; a lead may say either, a state in the clause
        # ("frozen", 封版) settles it.
        validity = not _COMPLETION.search(text[start:end]) or _STATE.search(clause) is not None
        # A day the writer had already passed is history, unless the memory's own head
        # states a rule that held until it ("Merge freeze until 2026-03-12: fixes only"),
        # kept as it was while the file was touched again later.
        if day <= written and not (line.head and validity and _RULE.search(clause)):
            continue
        out.append(Deadline(line.text[start:end].strip(), day, line.text, line.number, validity))
    return out


def _range_ok(text: str, first: _Date, second: _Date) -> bool:
    """Whether ``first`` and ``second`` are the two ends of one range ("X to Y", "X〜Y",
    "between X and Y")."""
    gap = text[first.end : second.start].strip().casefold()
    if gap not in _RANGE_WORDS:
        return False
    if gap == "and":
        return text[max(0, first.start - 9) : first.start].casefold().strip().endswith("between")
    return True


def _example_section(section: str) -> bool:
    return bool(section) and bool(_EXAMPLE.search(section) or "例" in section)


def deadlines_in(lines: Iterable[Line], written: datetime) -> list[Deadline]:
    """The deadlines stated in outlined lines: prose, headings and list items only."""
    base = written.date()
    out: list[Deadline] = []
    for line in lines:
        if line.kind in ("code", "quote", "table") or _example_section(line.section):
            continue
        out += _in_line(line, base)
    return out


def might_date(text: str) -> bool:
    """Whether ``text`` could name a date at all (the cheap test before outlining it)."""
    if _ISO_HINT.search(text) or _DOTTED_HINT.search(text) or "月" in text or "年" in text \
            or "월" in text:
        return True
    return not _MONTH_WORDS.isdisjoint(_WORD.findall(text.casefold()))


def find_deadlines(text: str, written: datetime) -> list[Deadline]:
    """Deadlines and date-range ends stated in ``text`` (written at ``written``)."""
    if not might_date(text):  # most memories name no date: one quick scan
        return []
    return deadlines_in(outline(text), written)
