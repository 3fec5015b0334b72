"""Planted signals: duplicate rewordings, conflicting claims, staleness evidence, relative
dates and malformed files. Each builder returns text plus the phrase to put in the labels."""

from __future__ import annotations

import random
import re
import unicodedata
from datetime import UTC, date, datetime, timedelta

from . import vocab_en as en
from .compose import Slots, Topic, capitalize

# Duplicates -----------------------------------------------------------------------------------

_CJK_PUNCT = {"，": ", ", "：": ": ", "；": "; ", "、": ", "}
_CJK = "\u3000-\u9fff\uff00-\uffef"
_CJK_LATIN_GAP = re.compile(f"(?<=[{_CJK}]) (?=[A-Za-z0-9`])|(?<=[A-Za-z0-9`]) (?=[{_CJK}])")


def _reword_en_line(rng: random.Random, line: str) -> str:
    out = line
    if out.startswith("- ") and rng.random() < 0.7:
        out = rng.choice(("* ", "+ ", "-  ")) + out[2:]
    roll = rng.random()
    if roll < 0.3:
        out = out.lower()
    elif roll < 0.45:
        out = out.upper() if len(out) < 60 else out[:1].lower() + out[1:]
    if rng.random() < 0.5 and out.endswith("."):
        out = out[:-1]
    if rng.random() < 0.4:
        out = out.replace("; ", " -- ").replace(", ", " , ", 1)
    if rng.random() < 0.4:
        words = out.split(" ")
        if len(words) > 3:
            k = rng.randrange(1, len(words))
            words[k] = " " + words[k]
        out = " ".join(words)
    if rng.random() < 0.2:
        out = out + "  "
    return out


def normalise(line: str) -> str:
    """What rewording does not change: words, lower-cased, without bullets and punctuation."""
    text = unicodedata.normalize("NFKC", line).lower()
    return " ".join(re.findall(r"\w+", re.sub(r"^\s*[-*+]\s+", "", text)))


def reword_en(rng: random.Random, lines: list[str]) -> list[str]:
    """Same words, different whitespace, case, punctuation and bullet style."""
    out = [_reword_en_line(rng, ln) if ln.strip() and rng.random() < 0.75 else ln for ln in lines]
    if out == lines:
        out[0] = out[0].lower().rstrip(".")
    return out


def _reword_cjk_line(rng: random.Random, line: str) -> str:
    out = line
    if out.startswith("- ") and rng.random() < 0.7:
        out = "* " + out[2:]
    if rng.random() < 0.6:
        for full, half in _CJK_PUNCT.items():
            out = out.replace(full, half)
    if rng.random() < 0.5:
        out = out.rstrip("。")
    if rng.random() < 0.4:  # drop the spaces between CJK and Latin text
        out = _CJK_LATIN_GAP.sub("", out)
    return out


def reword_cjk(rng: random.Random, lines: list[str]) -> list[str]:
    out = [_reword_cjk_line(rng, ln) if ln.strip() and rng.random() < 0.75 else ln for ln in lines]
    if out == lines:
        out[0] = out[0].rstrip("。").replace("，", ", ")
    return out


def reorder(rng: random.Random, lines: list[str]) -> list[str]:
    """The same lines in another order (blank lines and headings move too)."""
    out = list(lines)
    while out == lines and len(set(lines)) > 1:
        rng.shuffle(out)
    return out


def insert_lines(rng: random.Random, lines: list[str], extra: list[str]) -> list[str]:
    """`lines` plus `extra`, each inserted at a random position (the superset of a pair)."""
    out = list(lines)
    for line in extra:
        out.insert(rng.randint(1, len(out)), line)
    return out


# Conflicts ------------------------------------------------------------------------------------

CONFLICT_KINDS = ("package_manager", "port", "weekday", "always_never")


def conflict_claims(
    rng: random.Random, kind: str, slots: Slots
) -> tuple[list[str], list[str], str, str]:
    """Lines for side A, lines for side B, and the claim each side makes."""
    c = slots["c"]
    if kind == "package_manager":
        a, b = rng.choice(en.CONFLICT_PM)

        def pm(x: str) -> list[str]:
            return [f"Use {x} for every install in {c}; run `{x} install` after pulling main.",
                    f"CI of {c} calls `{x} run build` and fails when the lockfile is out of sync."]
        return pm(a), pm(b), a, b
    if kind == "port":
        what, pa, pb = rng.choice(en.CONFLICT_PORTS)

        def port(x: int) -> list[str]:
            return [(f"The {what} of {c} listens on port {x} on localhost; "
                    f"local clients connect to localhost:{x}.")]
        return port(pa), port(pb), str(pa), str(pb)
    if kind == "weekday":
        da, db = rng.choice(en.CONFLICT_DAYS)

        def day(x: str) -> list[str]:
            return [(f"The release train of {c} leaves every {x}; "
                    "the release branch is cut the evening before.")]
        return day(da), day(db), da, db
    rule = rng.choice(en.CONFLICT_RULES)
    sa, sb = ("Always", "Never") if rng.random() < 0.5 else ("Never", "Always")
    return ([rule.format_map({"AN": sa, "c": c}) + "."], [rule.format_map({"AN": sb, "c": c}) + "."],
            sa.lower(), sb.lower())


# Staleness ------------------------------------------------------------------------------------

STATUS_MARKERS = ("SUPERSEDED", "DONE", "RESOLVED", "OBSOLETE", "no longer")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")


def missing_path_line(rng: random.Random, topic: Topic, slots: Slots) -> tuple[str, str]:
    """A line naming a project path that generate.py never creates."""
    path = rng.choice((
        f"src/legacy/{topic.prefix}_old.py",
        f"src/{topic.prefix}/{topic.suffix}_v1.py",
        f"lib/{topic.prefix}/compat_{topic.suffix}.ts",
        f"src/{topic.prefix}/old_{topic.suffix}_handlers.py",
    ))
    line = rng.choice((
        f"The retry logic of {slots['c']} lives in `{path}`; change it there first.",
        f"{capitalize(slots['c'])} still imports its helpers from `{path}`.",
        f"Start reading at {path}, which wires {slots['c']} to {slots['db']}.",
    ))
    return line, path


def deadline_line(
    rng: random.Random, lang: str, topic: Topic, slots: Slots, deadline: date
) -> tuple[str, str]:
    """A line with a deadline that has passed. Returns (line, deadline phrase)."""
    y, m, d = deadline.year, deadline.month, deadline.day
    if lang == "zh":
        phrase = f"截止 {y}年{m}月{d}日"
        return f"{topic.cid} 的旧接口迁移{phrase}，之后旧接口直接下线。", phrase
    if lang == "ja":
        phrase = f"{y}年{m}月{d}日まで"
        return f"{topic.cid} の旧エンドポイントは{phrase}残し、その後は削除する。", phrase
    if rng.random() < 0.5:
        phrase = f"until {deadline.isoformat()}"
        return (f"Merge freeze on {slots['c']} {phrase}: only fixes for release blockers go in, "
                f"each approved by {slots['who']}."), phrase
    phrase = f"by {MONTHS[m - 1]} {d}, {y}"
    return f"Every client of {slots['c']} has to move off the v1 endpoints {phrase}.", phrase


def status_line(rng: random.Random, marker: str, slots: Slots) -> str:
    c = slots["c"]
    if marker == "SUPERSEDED":
        return f"Status: SUPERSEDED by the v3 plan for {c}."
    if marker == "DONE":
        return f"Status: DONE. The migration of {c} finished and its flag was removed."
    if marker == "RESOLVED":
        return f"RESOLVED: the pool exhaustion in {c} was fixed by capping the pool size."
    if marker == "OBSOLETE":
        return f"OBSOLETE: this describes the first design of {c}."
    return f"{capitalize(c)} no longer runs the nightly export; {slots['svc']} took it over."


# Relative dates -------------------------------------------------------------------------------

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def relative_line(rng: random.Random, lang: str, slots: Slots) -> tuple[str, str]:
    """A line with one relative date. Returns (line, the phrase as written)."""
    c, cid, who = slots["c"], slots["cid"], slots["who"]
    if lang == "zh":
        phrase = rng.choice(("昨天", "今天", "明天", "上周", "下周三", "下周一"))
        if phrase in ("昨天", "上周"):
            return f"{cid} 的表结构改动{phrase}已经合并，回填完成后可以删除旧字段。", phrase
        if phrase == "今天":
            return f"{who} 今天确认 {cid} 的发布按计划进行。", phrase
        return f"{phrase}起 CI 会检查 {cid} 的提交信息格式，不合格的提交会让流水线失败。", phrase
    if lang == "ja":
        if rng.random() < 0.5:
            return f"{cid} のスキーマ変更は昨日マージされたので、古い列は移行後に削除する。", "昨日"
        return f"{cid} の負荷試験は明日ステージングで行う。", "明日"
    kind = rng.choice(("yesterday", "today", "tomorrow", "last week", "next", "this", "ago"))
    if kind == "today":
        return f"{who} confirmed today that the rollout of {c} continues as planned.", kind
    if kind in ("yesterday", "last week", "ago"):
        phrase = f"{rng.randint(2, 6)} days ago" if kind == "ago" else kind
        return rng.choice((
            f"The schema change of {c} was agreed {phrase}, so the old column goes after the backfill.",
            f"We decided {phrase} to put {c} behind the gateway.",
        )), phrase
    phrase = "tomorrow" if kind == "tomorrow" else f"{kind} {rng.choice(WEEKDAYS)}"
    return rng.choice((
        f"{who} moved the demo of {c} to {phrase}.",
        f"The load test of {c} runs {phrase} against staging.",
    )), phrase


# Malformed files ------------------------------------------------------------------------------

MALFORMED_KINDS = ("no_frontmatter", "unclosed_frontmatter", "binary", "invalid_utf8")


def malformed_bytes(rng: random.Random, kind: str, body: list[str], topic: Topic) -> bytes:
    text_lines = [ln for ln in body if ln.strip() != "---"]
    if kind == "no_frontmatter":
        text = f"# Notes on the {topic.prefix} {topic.suffix}\n\n" + "\n".join(text_lines) + "\n"
        return text.encode("utf-8")
    if kind == "unclosed_frontmatter":
        head = f"---\nname: {topic.slug}\ndescription: {topic.cid} notes\ntype: project\n"
        return (head + "\n".join(text_lines) + "\n").encode("utf-8")
    if kind == "binary":
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(300, 3000))) + b"\x00\x00"
    head = f"---\nname: {topic.slug}\ndescription: {topic.cid} notes\ntype: project\n---\n"
    latin = f"Caf\xe9 cr\xe8me r\xe9sum\xe9: the {topic.cid} sends na\xefve retries.\n"
    return (head + "\n".join(text_lines[:3]) + "\n").encode("utf-8") + latin.encode("latin-1") \
        + b"\xff\xfe\xc3\x28\n"


def utc_date(epoch: float, days: float = 0.0) -> date:
    return (datetime.fromtimestamp(epoch, UTC) + timedelta(days=days)).date()
