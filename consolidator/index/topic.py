"""Topic memories: where index content that does not fit goes, instead of being deleted."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from consolidator.store.frontmatter import parse_text
from consolidator.store.model import FileStat, Memory

PREFIX = "index_"


@dataclass(frozen=True)
class TopicMemory:
    """A memory the tool creates to hold index lines; ``memory`` is how it will read."""

    file: str
    text: str
    mtime_ns: int
    sources: tuple[str, ...]
    memory: Memory


def slug(title: str, limit: int = 40) -> str:
    """A safe file-name part from free text (frontmatter or heading text never becomes a path)."""
    text = re.sub(r"[^a-z0-9]+", "_", title.casefold()).strip("_")[:limit].strip("_")
    return text or "section"


def topic_file_name(title: str, taken: set[str]) -> str:
    """``index_<slug>.md``, numbered when that name is already taken."""
    base = PREFIX + slug(title)
    name, n = f"{base}.md", 2
    while name in taken:
        name, n = f"{base}-{n}.md", n + 1
    return name


def topic_memory(
    file: str,
    title: str,
    body_lines: list[str],
    mtime_ns: int,
    types: Iterable[str],
    newline: str = "\n",
) -> TopicMemory:
    """Build the text of a topic memory holding ``body_lines`` moved out of MEMORY.md."""
    counts = Counter(types)
    mtype = counts.most_common(1)[0][0] if counts else "project"
    name = file[:-3]
    clean_title = re.sub(r"[\r\n\"\\]", " ", title).strip() or "index"
    head = [
        "---",
        f"name: {name}",
        (
            f'description: "MEMORY.md entries for {clean_title}, moved here to keep the index '
            'within its limits"'
        ),
        f"type: {mtype}",
        "---",
        f"# {clean_title}",
        "",
    ]
    text = newline.join(head + body_lines) + newline
    data = text.encode("utf-8")
    stat = FileStat(file, len(data), mtime_ns, 0o644, hashlib.sha256(data).hexdigest())
    memory = Memory(stat, parse_text(text))
    sources = tuple(dict.fromkeys(s for line in body_lines for s in _targets(line)))
    return TopicMemory(file, text, mtime_ns, sources, memory)


def _targets(line: str) -> list[str]:
    from consolidator.index.parse import classify

    return list(classify(line).targets)
