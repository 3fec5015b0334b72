"""Write a labelled memory directory, one item at a time (nothing but labels is kept)."""

from __future__ import annotations

import dataclasses
import os
import random
import time
from pathlib import Path

from . import plants
from . import vocab_cjk as cjk
from . import vocab_en as en
from .compose import (
    Deck,
    Memory,
    Slots,
    Topic,
    cjk_sentence,
    compose,
    en_sentence,
    random_topic,
    render,
    style,
)
from .index import IndexBuilder
from .labels import Labels, iso
from .plan import Item, plan
from .project import session_ids, write_project, write_transcripts

DAY = 86400
MIN_AGE_DAYS = 2 / 24  # every file is at least two hours old
TYPES = ("project", "feedback", "reference", "user")
TYPE_WEIGHTS = (0.50, 0.28, 0.17, 0.05)
LINK_TARGETS_KEPT = 2000


ASPECT_ALIASES: dict[str, tuple[str, ...]] = {
    "deploy": ("deploy", "deploys", "rollout", "release"),
    "testing": ("testing", "tests", "test_policy"),
    "database": ("database", "db", "schema", "sql"),
    "config": ("config", "settings", "env"),
    "observability": ("observability", "logging", "alerts", "metrics"),
    "errors": ("errors", "error_handling", "retries"),
    "performance": ("performance", "perf", "latency"),
    "security": ("security", "authz", "secrets"),
    "api": ("api", "endpoints", "http_api"),
    "ci": ("ci", "checks", "builds"),
    "style": ("style", "code_style", "conventions"),
    "queues": ("queues", "messaging", "events"),
}


class Namer:
    """Unique file stems in the styles of real directories (type prefix, topic words).
    Members of a planted group draw their names independently, like anything else."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def stem(self, mtype: str, topic: Topic, lang: str) -> str:
        p, s = topic.prefix, topic.suffix
        a = self.rng.choice(ASPECT_ALIASES[topic.aspect])
        base = self.rng.choice((f"{mtype}_{p}_{s}_{a}", f"{mtype}_{p}_{a}", f"{mtype}_{a}_{p}_{s}",
                                f"{mtype}_{p}_{s}_{a}_notes", f"{mtype}_{p}_{a}_rules"))
        if lang != "en" and self.rng.random() < 0.5:
            base += f"_{lang}"
        return self.reserve(base)

    def reserve(self, base: str) -> str:
        stem, k = base, 2
        while stem in self.used:
            stem, k = f"{base}_{k}", k + 1
        self.used.add(stem)
        return stem


class Generator:
    def __init__(self, dest: Path, count: int, seed: int, now: int) -> None:
        self.dest = dest
        self.root = dest / "memory"
        self.count = count
        self.now = now
        self.rng = random.Random(seed)
        self.org = self.rng.choice(en.PROJECT_NAMES)
        self.sessions = session_ids(self.rng, 6)
        self.namer = Namer(self.rng)
        self.index = IndexBuilder(self.rng, self.org)
        self.labels = Labels(seed=seed, count=count, now=iso(now))
        self.links: list[Memory] = []
        self.uid = self.rng.randint(1000, 5000)

    # -- helpers ---------------------------------------------------------------------------

    def age(self, lo_days: float = MIN_AGE_DAYS, hi_days: float = 300.0) -> int:
        return self.now - int(self.rng.uniform(max(lo_days, MIN_AGE_DAYS), hi_days) * DAY)

    def distinct_ages(self, k: int, gap_days: float) -> list[int]:
        """k mtimes in the last 300 days, at least gap_days/2 apart, in random order."""
        start = self.rng.uniform(MIN_AGE_DAYS, 300.0 - gap_days * k)
        ages = [start + i * gap_days + self.rng.uniform(0, gap_days / 2) for i in range(k)]
        self.rng.shuffle(ages)
        return [self.now - int(a * DAY) for a in ages]

    def pick_lang(self) -> str:
        roll = self.rng.random()
        return "zh" if roll < 0.05 else "ja" if roll < 0.08 else "en"

    def pick_type(self, choices: tuple[str, ...] = TYPES) -> str:
        weights = [TYPE_WEIGHTS[TYPES.index(t)] for t in choices]
        return self.rng.choices(choices, weights)[0]

    def next_uid(self) -> int:
        self.uid += self.rng.randint(1, 3)
        return self.uid

    def new(self, topic: Topic, lang: str, mtype: str, folder: str = "") -> tuple[Memory, Slots]:
        memory, slots = compose(self.rng, topic, lang, mtype, self.org, self.next_uid())
        self.rename(memory, topic, folder)
        return memory, slots

    def rename(self, memory: Memory, topic: Topic, folder: str = "") -> None:
        stem = self.namer.stem(memory.type, topic, memory.lang)
        memory.rel = f"{folder}{stem}.md"
        differs = self.rng.random() < 0.05
        memory.name = stem.split("_", 1)[1].replace("_", "-") if differs else stem

    def insert(self, memory: Memory, line: str, first: bool = False) -> None:
        pos = 0 if first else self.rng.randint(1, len(memory.lines))
        memory.lines.insert(pos, line)

    def write(self, rel: str, data: bytes, mtime: int, mtype: str | None, lang: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (mtime, mtime))
        self.labels.add_file(rel, mtime, mtype, lang, len(data))

    def emit(self, memory: Memory, clean: bool = False, indexed: bool = True,
             data: bytes | None = None) -> bytes:
        """Style, render and write `memory`; `data` overrides the bytes (exact copies)."""
        if data is None:
            style(self.rng, memory, self.sessions, clean)
            data = render(memory)
        self.write(memory.rel, data, memory.mtime, memory.type, memory.lang)
        variants = self.labels.variants
        variants["nested_type"] += memory.nested_type
        variants["extra_keys"] += bool(memory.extra)
        if memory.name != Path(memory.rel).stem:
            variants["name_differs"].append(memory.rel)
        if "/" in memory.rel:
            variants["subfolder"].append(memory.rel)
        for flag in ("crlf", "bom"):
            if getattr(memory, flag):
                variants[flag].append(memory.rel)
        if indexed:
            self.index.add(memory)
        else:
            self.labels.index["missing"].append(memory.rel)
        return data

    def extra_lines(self, topic: Topic, lang: str, slots: Slots, k: int,
                    existing: list[str]) -> list[str]:
        """k more lines on the topic, none of them (normalised) already in `existing`."""
        seen = {plants.normalise(line) for line in existing}
        deck = Deck(self.rng, topic.aspect)
        core = cjk.ZH_CORE if lang == "zh" else cjk.JA_CORE
        out: list[str] = []
        for _ in range(20 * k):
            if len(out) == k:
                break
            if lang == "en":
                line = en_sentence(self.rng, deck.draw(), slots)
            else:
                line = cjk_sentence(self.rng.choice(core), slots)
            if plants.normalise(line) not in seen:
                seen.add(plants.normalise(line))
                out.append(line)
        return out

    # -- items -----------------------------------------------------------------------------

    def clean(self, item: Item) -> None:
        topic, lang = random_topic(self.rng), self.pick_lang()
        folder = "topics/" if self.rng.random() < 0.02 else ""
        memory, _ = self.new(topic, lang, self.pick_type(), folder)
        if item.kind == "old_valid":
            memory.mtime = self.age(200, 300)
            self.labels.old_valid.append(memory.rel)
        else:
            memory.mtime = self.age(MIN_AGE_DAYS, 199)
        if self.links and self.rng.random() < 0.05:
            target = self.rng.choice(self.links)
            self.insert(memory, f"See also [{target.title}]({target.rel}) and [[{target.name}]].")
        self.emit(memory, clean=True, indexed=item.variant != "unindexed")
        if len(self.links) < LINK_TARGETS_KEPT and "/" not in memory.rel:
            self.links.append(memory)

    def duplicate(self, item: Item) -> None:
        topic, lang, kind = random_topic(self.rng), item.lang, item.variant
        first, slots = self.new(topic, lang, self.pick_type())
        if lang == "en" and not any(ln.startswith("- ") for ln in first.lines):
            bullets = ["- " + ln for ln in self.extra_lines(topic, lang, slots, 3, first.lines)]
            at = self.rng.randint(1, len(first.lines))
            first.lines[at:at] = [self.rng.choice(en.BULLET_INTROS), *bullets]
        reword = plants.reword_en if lang == "en" else plants.reword_cjk
        members: list[tuple[Memory, str]] = [(first, "original")]

        def derive(lines: list[str], role: str, description: str | None = None) -> None:
            other = dataclasses.replace(first, lines=lines, extra=[],
                                        description=description or first.description)
            self.rename(other, topic)
            members.append((other, role))

        if kind == "exact":
            derive(list(first.lines), "exact")
        elif kind == "reworded":
            derive(reword(self.rng, first.lines), "reworded",
                   reword(self.rng, [first.description])[0].strip())
        elif kind == "reordered":
            derive(plants.reorder(self.rng, first.lines), "reordered")
        else:
            members[0] = (first, "subset")
            extra = self.extra_lines(topic, lang, slots, self.rng.randint(2, 4), first.lines)
            derive(plants.insert_lines(self.rng, first.lines, extra), "superset")
        if item.size == 3:
            derive(plants.reorder(self.rng, reword(self.rng, first.lines)), "reworded+reordered")
        for (memory, _), mtime in zip(members, self.distinct_ages(len(members), 0.5)):
            memory.mtime = mtime
        data = self.emit(first)
        for memory, role in members[1:]:
            if role == "exact":  # the same bytes, frontmatter name included
                copy = dataclasses.replace(first, rel=memory.rel, mtime=memory.mtime)
                self.emit(copy, data=data)
            else:
                self.emit(memory)
        files = [m.rel for m, _ in members]
        if kind == "contained":
            keep = members[1][0].rel
        else:
            keep = max(members, key=lambda pair: pair[0].mtime)[0].rel
        self.labels.duplicates.append({
            "files": files, "kind": kind, "lang": lang, "keep": keep,
            "roles": {m.rel: role for m, role in members}})

    def conflict(self, item: Item) -> None:
        topic = random_topic(self.rng)
        first, slots = self.new(topic, "en", self.pick_type(("project", "feedback", "reference")))
        lines_a, lines_b, claim_a, claim_b = plants.conflict_claims(self.rng, item.variant, slots)
        base = list(first.lines)
        positions = sorted(self.rng.randint(1, len(base)) for _ in lines_a)
        side_a, side_b = list(base), list(base)
        for pos, la, lb in reversed(list(zip(positions, lines_a, lines_b))):
            side_a.insert(pos, la)
            side_b.insert(pos, lb)
        first.lines = side_a
        second = dataclasses.replace(first, lines=side_b, extra=[])
        self.rename(second, topic)
        first.mtime, second.mtime = self.distinct_ages(2, 1.5)
        self.emit(first)
        self.emit(second)
        newer = first if first.mtime > second.mtime else second
        self.labels.conflicts.append({
            "files": [first.rel, second.rel], "newer": newer.rel, "kind": item.variant,
            "claims": {first.rel: claim_a, second.rel: claim_b}})

    def stale(self, item: Item) -> None:
        topic, lang = random_topic(self.rng), item.lang
        memory, slots = self.new(topic, lang, self.pick_type(("project", "feedback", "reference")))
        memory.mtime = self.age()
        if item.variant == "missing_path":
            line, evidence = plants.missing_path_line(self.rng, topic, slots)
            self.insert(memory, line)
        elif item.variant == "deadline":
            age_days = self.rng.uniform(40, 300)
            memory.mtime = self.now - int(age_days * DAY)
            deadline = plants.utc_date(self.now, -self.rng.uniform(7, age_days - 7))
            line, evidence = plants.deadline_line(self.rng, lang, topic, slots, deadline)
            self.insert(memory, line)
        else:
            evidence = item.variant
            line = plants.status_line(self.rng, item.variant, slots)
            self.insert(memory, line, first=item.variant in ("SUPERSEDED", "DONE"))
        kind = item.variant if item.variant in ("missing_path", "deadline") else "status_marker"
        self.emit(memory)
        self.labels.stale[memory.rel] = {"kind": kind, "evidence": evidence}

    def relative(self, item: Item) -> None:
        topic, lang = random_topic(self.rng), item.lang
        memory, slots = self.new(topic, lang, self.pick_type(("project", "feedback")))
        memory.mtime = self.age()
        phrases: list[str] = []
        for _ in range(2 if lang == "en" and self.rng.random() < 0.3 else 1):
            line, phrase = plants.relative_line(self.rng, lang, slots)
            if phrase not in phrases:
                phrases.append(phrase)
                self.insert(memory, line)
        self.emit(memory)
        self.labels.relative_dates[memory.rel] = phrases

    def malformed(self, item: Item) -> None:
        topic = random_topic(self.rng)
        memory, _ = compose(self.rng, topic, "en", "project", self.org, self.next_uid())
        stem = self.namer.stem("project", topic, "en")
        if item.variant == "no_frontmatter" and self.rng.random() < 0.5:
            stem = self.namer.reserve(f"notes/{topic.prefix}-{topic.suffix}-log")
        rel = f"{stem}.md"
        data = plants.malformed_bytes(self.rng, item.variant, memory.lines, topic)
        self.write(rel, data, self.age(), None, "en")
        self.labels.malformed[rel] = item.variant

    # -- the whole directory ---------------------------------------------------------------

    def run(self) -> Labels:
        started = time.perf_counter()
        items = plan(self.count, self.rng)  # raises before anything is written
        self.root.mkdir(parents=True)
        project_files = write_project(self.dest / "project")
        handlers = {"clean": self.clean, "old_valid": self.clean, "duplicate": self.duplicate,
                    "conflict": self.conflict, "stale": self.stale, "relative": self.relative,
                    "malformed": self.malformed}
        for item in items:
            handlers[item.kind](item)
        for _ in range(max(1, round(0.003 * self.count))):
            topic, mtype = random_topic(self.rng), self.pick_type()
            rel = self.namer.reserve(f"{mtype}_{topic.prefix}_{topic.suffix}_retired") + ".md"
            self.index.add_dangling(mtype, f"{topic.prefix} {topic.suffix} (retired)", rel)
            self.labels.index["dangling"].append(rel)
        self.index.write(self.root / "MEMORY.md", self.now - 2 * 3600)
        self.labels.index["pointers"] = self.index.pointers
        cwd = (self.dest / "project").resolve()
        transcripts = write_transcripts(self.rng, self.dest, self.sessions, cwd, self.now)
        self.labels.sessions = {name: iso(t) for name, t in transcripts.items()}
        self.labels.stats = self.stats(len(project_files), time.perf_counter() - started)
        self.labels.write(self.dest / "labels.json")
        return self.labels

    def stats(self, project_files: int, seconds: float) -> dict[str, object]:
        sizes = sorted(int(f["bytes"]) for f in self.labels.files.values())
        return {
            "org": self.org,
            "files": len(sizes),
            "median_bytes": sizes[len(sizes) // 2],
            "max_bytes": sizes[-1],
            "total_bytes": sum(sizes),
            "duplicate_groups": len(self.labels.duplicates),
            "duplicate_files": sum(len(g["files"]) for g in self.labels.duplicates),
            "conflict_pairs": len(self.labels.conflicts),
            "stale": len(self.labels.stale),
            "relative_dates": len(self.labels.relative_dates),
            "malformed": len(self.labels.malformed),
            "old_valid": len(self.labels.old_valid),
            "project_files": project_files,
            "seconds": round(seconds, 2),
        }


def generate(dest: Path, count: int, seed: int = 0, now: int | None = None) -> Labels:
    """Write a labelled memory directory of `count` memory files under `dest` (which must not
    hold a previous one). `now` (epoch seconds, default: the current time) anchors every mtime,
    deadline and age; the same seed, count and now give the same bytes."""
    if (dest / "memory").exists() or (dest / "labels.json").exists():
        raise FileExistsError(f"{dest} already holds a generated directory")
    return Generator(dest, count, seed, int(time.time()) if now is None else now).run()
