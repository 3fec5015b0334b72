"""Compose one memory (frontmatter fields + body lines) from a topic, and render it to bytes."""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime

from . import vocab_cjk as cjk
from . import vocab_en as en

LANGS = ("en", "zh", "ja")


@dataclass(frozen=True)
class Topic:
    """What a memory is about: one component (prefix + suffix) and one aspect."""

    prefix: str
    suffix: str
    aspect: str

    @property
    def comp(self) -> str:
        return f"the {self.prefix} {self.suffix}"

    @property
    def cid(self) -> str:
        return f"{self.prefix}-{self.suffix}"

    @property
    def path(self) -> str:
        return project_path(self.prefix, self.suffix)

    @property
    def test_path(self) -> str:
        return f"tests/test_{self.prefix}.py"

    @property
    def slug(self) -> str:
        return f"{self.prefix}_{self.suffix}_{self.aspect}"


def project_path(prefix: str, suffix: str) -> str:
    """The source file of a component, created under DEST/project by project.py."""
    return f"src/{prefix}/{suffix}.py"


def random_topic(rng: random.Random) -> Topic:
    return Topic(rng.choice(en.PREFIXES), rng.choice(en.SUFFIXES), rng.choice(en.ASPECTS))


class Slots(dict[str, str]):
    """Template values. Fixed ones are per component; the others (numbers, people, peers)
    are a hash of component, template and slot, so every memory that states a fact about a
    component states the same value: clean memories never contradict each other."""

    def __init__(self, fixed: dict[str, str], lang: str = "en") -> None:
        super().__init__(fixed)
        self.lang = lang
        self._template = ""
        self._seen: dict[str, int] = {}

    def fill(self, template: str) -> str:
        self._template, self._seen = template, {}
        return template.format_map(self)

    def _hash(self, key: str) -> int:
        k = self._seen.get(key, 0)
        self._seen[key] = k + 1
        return zlib.crc32(f"{self['cid']}|{self._template}|{key}|{k}".encode())

    def __missing__(self, key: str) -> str:
        h = self._hash(key)
        if key == "n1":
            return str(2 + h % 8)
        if key == "n2":
            return str(100 + 50 * (h % 98))
        if key == "n3":
            return str(200 + 50 * (h % 14))
        if key == "pct":
            return str(70 + h % 26)
        if key == "tenant":
            return f"tenant-{100 + h % 900}"
        if key == "svc":
            prefix, suffix = pick(en.PREFIXES, h), pick(en.SUFFIXES, h >> 8)
            return f"the {prefix} {suffix}" if self.lang == "en" else f"{prefix}-{suffix}"
        choices = _SLOT_CHOICES.get(key)
        if choices is None:
            raise KeyError(key)
        return pick(choices, h)


_SLOT_CHOICES: dict[str, tuple[str, ...]] = {
    "port": tuple(str(p) for p in en.PORTS), "who": en.PEOPLE, "team": en.TEAMS,
    "metric": en.METRICS, "role": en.ROLES,
}


def pick(choices: tuple[str, ...], h: int) -> str:
    return choices[h % len(choices)]


def new_slots(topic: Topic, org: str, lang: str = "en") -> Slots:
    comp = topic.comp
    h = zlib.crc32(topic.cid.encode())
    return Slots({
        "c": comp,
        "C": comp[0].upper() + comp[1:],
        "cid": topic.cid,
        "p": topic.path,
        "tp": topic.test_path,
        "org": org,
        "aspect": topic.aspect,
        "env": f"{topic.prefix.upper()}_{pick(en.ENV_NOUNS, h)}",
        "db": pick(en.DATABASES, h >> 3),
        "table": f"{topic.prefix}_{pick(en.TABLE_NOUNS, h >> 6)}",
        "queue": f"{topic.prefix}-{pick(en.TABLE_NOUNS, h >> 9)}",
        "pipeline": pick(en.PIPELINES, h >> 12),
        "flagtool": pick(en.FLAG_TOOLS, h >> 15),
    }, lang)


@dataclass
class Memory:
    """One memory file before rendering. `rel` is relative to the memory root."""

    rel: str
    name: str
    description: str
    type: str
    lang: str
    title: str
    lines: list[str]
    mtime: int = 0
    nested_type: bool = False
    extra: list[tuple[str, str]] = field(default_factory=list)
    quote_desc: bool = False
    blank_after_fence: bool = False
    final_newline: bool = True
    crlf: bool = False
    bom: bool = False


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def en_sentence(rng: random.Random, template: str, slots: Slots, decorate: bool = True) -> str:
    text = slots.fill(template)
    if decorate and rng.random() < 0.3 and not template.startswith("{C}"):
        text = slots.fill(rng.choice(en.LEADS)) + text
    if decorate and rng.random() < 0.35:
        text = text + slots.fill(rng.choice(en.TAILS))
    return capitalize(text) + "."


def cjk_sentence(template: str, slots: Slots) -> str:
    return slots.fill(template) + "。"


class Deck:
    """Templates drawn without repetition until the deck runs out; ~60% from the topic's own
    aspect, the rest from three others."""

    def __init__(self, rng: random.Random, aspect: str) -> None:
        self.rng = rng
        self.aspect = aspect
        self.cards: list[str] = []

    def _refill(self) -> None:
        own = list(en.CORE[self.aspect])
        self.rng.shuffle(own)
        others = [a for a in en.ASPECTS if a != self.aspect]
        mixed = [t for a in self.rng.sample(others, 3) for t in en.CORE[a]]
        self.rng.shuffle(mixed)
        # Interleave so that about 60% of lines come from the topic's own aspect.
        order: list[str] = []
        while own or mixed:
            order.extend(own[-3:])
            del own[-3:]
            order.extend(mixed[-2:])
            del mixed[-2:]
        self.cards = order[::-1]  # draw() pops from the end

    def draw(self) -> str:
        if not self.cards:
            self._refill()
        return self.cards.pop()


def line_count(rng: random.Random) -> int:
    """Body lines: median ~14 (a ~1.7 KB file), a long tail up to ~12 KB."""
    return max(3, min(95, int(rng.lognormvariate(2.65, 0.55))))


def en_body(rng: random.Random, topic: Topic, mtype: str, slots: Slots, n: int) -> list[str]:
    deck = Deck(rng, topic.aspect)
    lines: list[str] = []
    if mtype == "user":
        lines.append(en_sentence(rng, rng.choice(en.USER_INTROS), slots, decorate=False))
        for t in rng.sample(en.USER_LINES, rng.randint(2, 4)):
            lines.append(en_sentence(rng, t, slots, decorate=False))
    else:
        lines.append(en_sentence(rng, deck.draw(), slots, decorate=False))
    if mtype == "reference":
        for t in rng.sample(en.REFERENCE_LINES, rng.randint(3, 6)):
            lines.append(slots.fill(t))
    while len(lines) < n:
        roll = rng.random()
        if roll < 0.08 and n - len(lines) >= 4:
            lines.append(rng.choice(en.BULLET_INTROS))
            for _ in range(rng.randint(3, 5)):
                lines.append("- " + en_sentence(rng, deck.draw(), slots, decorate=False))
        elif roll < 0.11 and len(lines) > 2 and n - len(lines) >= 3:
            lines.append("")
            lines.append(rng.choice(("## Details", "## Background", "## Notes", "---")))
        elif roll < 0.33:
            lines.append(en_sentence(rng, deck.draw(), slots) + " "
                         + en_sentence(rng, deck.draw(), slots))
        else:
            lines.append(en_sentence(rng, deck.draw(), slots))
    if mtype in ("project", "feedback"):
        lines.append(f"{cjk.WHY_LABEL['en']} {slots.fill(rng.choice(en.REASONS))}.")
        lines.append(f"{cjk.HOW_LABEL['en']} {slots.fill(rng.choice(en.APPLY))}.")
    return lines


def cjk_body(rng: random.Random, lang: str, mtype: str, slots: Slots, n: int) -> list[str]:
    core = cjk.ZH_CORE if lang == "zh" else cjk.JA_CORE
    reasons = cjk.ZH_REASONS if lang == "zh" else cjk.JA_REASONS
    apply = cjk.ZH_APPLY if lang == "zh" else cjk.JA_APPLY
    picks = rng.sample(core, min(n, len(core)))
    while len(picks) < n:
        picks.append(rng.choice(core))
    lines = [cjk_sentence(t, slots) for t in picks]
    if mtype == "reference":
        for t in rng.sample(en.REFERENCE_LINES[:6], 3):
            lines.insert(1, slots.fill(t))
    if rng.random() < 0.2 and len(lines) > 4:
        bullets = ["- " + lines.pop() for _ in range(3)]
        lines.extend(bullets)
    if mtype in ("project", "feedback"):
        lines.append(f"{cjk.WHY_LABEL[lang]} {cjk_sentence(rng.choice(reasons), slots)}")
        lines.append(f"{cjk.HOW_LABEL[lang]} {cjk_sentence(rng.choice(apply), slots)}")
    return lines


def describe(first_line: str, limit: int = 100) -> str:
    """A one-line description: the first sentence, cut at a word boundary."""
    text = first_line.lstrip("- ").split("。")[0].rstrip(".")
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:")


ASPECT_ZH = {"deploy": "部署", "testing": "测试", "database": "数据库", "config": "配置",
             "observability": "监控", "errors": "错误处理", "performance": "性能",
             "security": "安全", "api": "接口", "ci": "CI", "style": "代码风格", "queues": "消息队列"}
ASPECT_JA = {"deploy": "デプロイ", "testing": "テスト", "database": "データベース", "config": "設定",
             "observability": "監視", "errors": "エラー処理", "performance": "性能",
             "security": "セキュリティ", "api": "API", "ci": "CI", "style": "コーディング規約",
             "queues": "キュー"}


def title_for(topic: Topic, lang: str) -> str:
    if lang == "zh":
        return f"{topic.cid} 的{ASPECT_ZH[topic.aspect]}规则"
    if lang == "ja":
        return f"{topic.cid} の{ASPECT_JA[topic.aspect]}ルール"
    return f"{capitalize(topic.prefix)} {topic.suffix} {topic.aspect}"


def ticket_line(rng: random.Random, lang: str, mtype: str, org: str, uid: int) -> str:
    """A line naming a ticket no other memory names, so that no two memories written
    independently can be duplicates or contain one another by accident."""
    key = f"{org.split('-')[0].upper()}-{uid}"
    if lang == "zh":
        return f"相关工单：{key}。"
    if lang == "ja":
        return f"関連チケット：{key}。"
    if mtype == "reference":
        return f"- Tracking issue: https://github.com/{org}/{org}/issues/{uid}"
    return rng.choice((f"Tracked in {key}.", f"Background in ticket {key}.",
                       f"Discussed in the review of pull request #{uid}."))


def compose(
    rng: random.Random,
    topic: Topic,
    lang: str,
    mtype: str,
    org: str,
    uid: int,
) -> tuple[Memory, Slots]:
    """A memory about `topic`, with a line unique to `uid`; rel and name are left empty
    (the builder names files)."""
    slots = new_slots(topic, org, lang)
    n = line_count(rng)
    if lang == "en":
        lines = en_body(rng, topic, mtype, slots, n)
    else:
        # CJK templates are fewer, so CJK memories stay short to keep topics apart.
        lines = cjk_body(rng, lang, mtype, slots, max(4, min(10, round(n * 0.6))))
    lines.insert(rng.randint(1, len(lines) - 1), ticket_line(rng, lang, mtype, org, uid))
    memory = Memory(
        rel="", name="", description=describe(lines[0]), type=mtype, lang=lang,
        title=title_for(topic, lang), lines=lines,
    )
    return memory, slots


def style(rng: random.Random, memory: Memory, sessions: list[str], clean: bool) -> None:
    """Frontmatter variety seen in real directories (nested type, extra keys, quoting, ...)."""
    memory.nested_type = rng.random() < 0.45
    if rng.random() < 0.15 and sessions:
        memory.extra.append(("originSessionId", rng.choice(sessions)))
    if rng.random() < 0.03:
        memory.extra.append(("node_type", "memory"))
    if rng.random() < 0.03 and memory.mtime:
        day = datetime.fromtimestamp(memory.mtime, UTC).date().isoformat()
        memory.extra.append(("last_updated", day))
    memory.quote_desc = rng.random() < 0.1
    memory.blank_after_fence = rng.random() < 0.2
    memory.final_newline = rng.random() >= 0.05
    if clean:
        memory.crlf = rng.random() < 0.01
        memory.bom = rng.random() < 0.003


_YAML_SPECIAL_START = tuple("-?:,[]{}#&*!|>'\"%@`")


def yaml_scalar(value: str, force_quote: bool = False) -> str:
    needs = (
        force_quote
        or not value
        or value.startswith(_YAML_SPECIAL_START)
        or ": " in value
        or " #" in value
        or value != value.strip()
        or value.lower() in ("yes", "no", "true", "false", "null", "on", "off", "~")
    )
    if not needs:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(memory: Memory) -> bytes:
    head = ["---", f"name: {memory.name}",
            f"description: {yaml_scalar(memory.description, memory.quote_desc)}"]
    if not memory.nested_type:
        head.append(f"type: {memory.type}")
    head.extend(f"{key}: {value}" for key, value in memory.extra)
    if memory.nested_type:
        head.extend(["metadata:", f"  type: {memory.type}"])
    head.append("---")
    text = "\n".join(head) + "\n"
    if memory.blank_after_fence:
        text += "\n"
    text += "\n".join(memory.lines)
    if memory.final_newline:
        text += "\n"
    if memory.crlf:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    return b"\xef\xbb\xbf" + data if memory.bom else data
