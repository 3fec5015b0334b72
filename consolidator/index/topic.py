"""Topic memories: where index content that does not fit goes, instead of being deleted."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from consolidator.index.parse import classify
from consolidator.store.frontmatter import parse, parse_text
from consolidator.store.model import FileStat, Memory
from consolidator.store.names import TOPIC_PREFIX, clip, fold

PREFIX = TOPIC_PREFIX
OVERFLOW = "index overflow"  # lines moved out of an index over its limits
UNLISTED = "memories with no room in the index"  # pointers that never were in the index


@dataclass(frozen=True)
class TopicMemory:
    """A memory the tool creates to hold index lines; ``memory`` is how it will read."""

    file: str
    text: str
    mtime_ns: int
    sources: tuple[str, ...]
    memory: Memory
    reason: str = OVERFLOW
    before: FileStat | None = None  # an earlier topic memory this one extends
    title: str = ""  # its heading, as the index's pointer names it


def slug(title: str, limit: int = 40) -> str:
    """A safe file-name part from free text, in its own script (``参考資料``, ``setup_notes``):
    letters and digits of any language kept, everything else one ``_``; NFC, at most
    ``limit`` characters. Empty when the text has no letter or digit at all."""
    text = unicodedata.normalize("NFC", title).casefold()
    text = re.sub(r"[\W_]+", "_", text).strip("_")
    return text[:limit].strip("_")


def topic_file_name(title: str, taken: set[str], fallback: str = "notes") -> str:
    """``index_<slug>.md`` from a heading (else from ``fallback``, e.g. the memories' type),
    numbered when the name, compared without case and Unicode normalisation (as macOS and
    Windows file systems compare), is already taken."""
    base = TOPIC_PREFIX + (slug(title) or slug(fallback) or "notes")
    base = clip(base, "_99.md").removesuffix("_99.md")
    folded = {fold(t) for t in taken}
    name, n = f"{base}.md", 2
    while fold(name) in folded:
        name, n = f"{base}_{n}.md", n + 1
    return name


def topic_memory(
    file: str,
    title: str,
    body_lines: list[str],
    mtime_ns: int,
    types: Iterable[str],
    newline: str = "\n",
    reason: str = OVERFLOW,
    sources: Iterable[str] | None = None,
) -> TopicMemory:
    """Build the text of a topic memory holding ``body_lines`` moved out of MEMORY.md (or,
    for ``UNLISTED``, pointers to memories it has no room for)."""
    counts = Counter(types)
    mtype = counts.most_common(1)[0][0] if counts else "project"
    name = file[:-3]
    clean_title = re.sub(r"[\r\n\"\\]", " ", title).strip() or "index"
    head = [
        "---",
        f"name: {name}",
        f'description: "{_description(clean_title, reason)}"',
        f"type: {mtype}",
        "---",
        f"# {clean_title}",
        "",
    ]
    text = newline.join(head + body_lines) + newline
    data = text.encode("utf-8")
    stat = FileStat(file, len(data), mtime_ns, 0o644, hashlib.sha256(data).hexdigest())
    memory = Memory(stat, parse_text(text))
    if sources is None:
        sources = (s for line in body_lines for s in _targets(line))
    return TopicMemory(file, text, mtime_ns, tuple(dict.fromkeys(sources)), memory, reason,
                       title=clean_title)


def extended(old: Memory, lines: list[str], mtime_ns: int, sources: Iterable[str],
             title: str, reason: str = OVERFLOW) -> TopicMemory:
    """``old``, a topic memory an earlier run made, now holding ``lines`` (its own lines among
    them) after what opens its body. Rewritten losslessly: its frontmatter (any key a person
    added included) and the lines before its held lines stay byte for byte."""
    everything = old.body.splitlines()
    held = topic_body(old)
    head = everything[: len(everything) - len(held)]
    newline = old.doc.newline
    data = old.doc.with_body(newline.join(head + lines) + newline).to_bytes()
    stat = FileStat(old.file, len(data), mtime_ns, old.stat.mode,
                    hashlib.sha256(data).hexdigest())
    return TopicMemory(old.file, data.decode("utf-8", "surrogateescape"), mtime_ns,
                       tuple(dict.fromkeys(sources)), Memory(stat, parse(data)), reason,
                       before=old.stat, title=title)


def topic_body(memory: Memory) -> list[str]:
    """The lines a topic memory holds: its body without the title heading it opens with."""
    lines = memory.body.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].startswith("# "):
        lines.pop(0)
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _description(title: str, reason: str) -> str:
    if reason == OVERFLOW:
        return (f"{title}: index entries moved here from MEMORY.md, which was over the "
                "200 lines or 25 KB Claude Code loads")
    if reason == UNLISTED:
        return (f"{title}: pointers to memories MEMORY.md has no room for (it keeps within "
                "the 200 lines or 25 KB Claude Code loads)")
    return f"{title}: lines kept from MEMORY.md ({reason})"


def _targets(line: str) -> list[str]:
    return list(classify(line).targets)
