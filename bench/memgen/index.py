"""MEMORY.md: pointer lines grouped by type, with planted dangling pointers and gaps."""

from __future__ import annotations

import os
import random
from pathlib import Path

from .compose import Memory

SECTIONS = (("user", "User"), ("feedback", "Feedback"), ("project", "Project"),
            ("reference", "Reference"))


def hook(description: str, limit: int = 80) -> str:
    if len(description) <= limit:
        return description
    return description[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def pointer_line(rng: random.Random, title: str, rel: str, text: str) -> str:
    roll = rng.random()
    if roll < 0.03:
        return f"- **[{title}]({rel})** — {text}"
    if roll < 0.06:
        return f"- [{title}]({rel}); {text}"
    return f"- [{title}]({rel}) — {text}"


class IndexBuilder:
    """Collects one pointer line per indexed memory, then writes MEMORY.md."""

    def __init__(self, rng: random.Random, org: str) -> None:
        self.rng = rng
        self.org = org
        # (random sort key, line): sections list memories in no particular order.
        self.sections: dict[str, list[tuple[float, str]]] = {key: [] for key, _ in SECTIONS}
        self.pointers = 0

    def add(self, memory: Memory) -> None:
        line = pointer_line(self.rng, memory.title, memory.rel, hook(memory.description))
        self.sections[memory.type].append((self.rng.random(), line))
        self.pointers += 1

    def add_dangling(self, mtype: str, title: str, rel: str) -> None:
        """A pointer to a file that does not exist, at a random place in its section."""
        line = pointer_line(self.rng, title, rel, f"notes on {title.lower()}")
        self.sections[mtype].append((self.rng.random(), line))
        self.pointers += 1

    def write(self, path: Path, mtime: int) -> None:
        out = [(f"Index of {self.org} memories. One line per memory; the details live in the "
               "linked files."), "", f"# {self.org} memory", ""]
        for key, heading in SECTIONS:
            out.append(f"## {heading}")
            out.extend(line for _, line in sorted(self.sections[key]))
            if key == "project":
                out.append(f"- Staging URL is https://staging.{self.org}.example "
                           f'(basic auth in the 1Password vault "{self.org}")')
            out.append("")
        path.write_text("\n".join(out), encoding="utf-8")
        os.utime(path, (mtime, mtime))
