"""Hard cases for the index rebuild, one builder per class of damage an index can suffer.

Each builder writes a memory root (``DEST/memory``: MEMORY.md and the memories it points to)
and returns the labels the benchmark needs: the lines that must stay loaded (title, intro,
first section, feedback rules, priority lines) and the class it stands for. The text is
written for this benchmark, in several languages; no line comes from a real directory.

    python bench/index_cases.py DEST      # writes every case under DEST/<name>/
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Case = Callable[[Path], dict[str, Any]]

# Per language: (title, priority line, feedback rule prefix, log words, note words)
LANGS: dict[str, dict[str, str]] = {
    "en": {"title": "# Project memory", "rule": "🚨 NEVER push to main directly.",
           "feedback": "Feedback", "log": "Session log", "did": "worked on the importer",
           "left": "open tickets left", "note": "background note", "area": "Area"},
    "ja": {"title": "# プロジェクトの記憶", "rule": "🚨 main へ直接プッシュしない（必ずPR経由）",
           "feedback": "フィードバック", "log": "作業ログ", "did": "取り込み処理を修正",
           "left": "件の未解決チケット", "note": "背景メモ", "area": "領域"},
    "ko": {"title": "# 프로젝트 메모리", "rule": "🚨 절대 main 브랜치에 직접 푸시하지 말 것",
           "feedback": "피드백", "log": "작업 로그", "did": "가져오기 모듈 수정",
           "left": "건의 미해결 티켓", "note": "배경 메모", "area": "영역"},
    "de": {"title": "# Projektgedächtnis", "rule": "⚠️ NIEMALS direkt auf main pushen.",
           "feedback": "Feedback", "log": "Sitzungsprotokoll", "did": "am Importer gearbeitet",
           "left": "offene Tickets", "note": "Hintergrundnotiz", "area": "Bereich"},
    "zh": {"title": "# 项目记忆", "rule": "🚨 严禁直接推送到 main 分支",
           "feedback": "反馈", "log": "工作日志", "did": "修复了导入模块",
           "left": "个未解决的工单", "note": "背景说明", "area": "领域"},
}


def _memory(root: Path, file: str, mtype: str, description: str, body: str) -> None:
    path = root / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {Path(file).stem}\ndescription: {description}\n"
                    f"type: {mtype}\n---\n{body}", encoding="utf-8")


def _index(root: Path, lines: list[str]) -> str:
    text = "\n".join(lines) + "\n"
    (root / "MEMORY.md").write_text(text, encoding="utf-8")
    return text


def _day_log(words: dict[str, str], days: int, left: bool) -> list[str]:
    """A session log of one sub-heading per day, each with what was done (and, with
    ``left``, what was left open)."""
    out = [f"## {words['log']}"]
    for day in range(days):
        out.append(f"### 2026-{9 + day // 30:02d}-{1 + day % 30:02d}")
        out.append(f"- {words['did']} ({day})")
        if left:
            out.append(f"- {day} {words['left']}")
    return out


def typed_with_log(lang: str, days: int = 85) -> Case:
    """Typed sections of pointers, then a session log of one sub-heading per day."""
    words = LANGS[lang]

    def build(root: Path) -> dict[str, Any]:
        lines = [words["title"], "", words["rule"], ""]
        pinned = [words["title"], words["rule"]]
        for mtype, count in (("user", 3), ("feedback", 12), ("project", 14),
                             ("reference", 9)):
            lines.append(f"## {words['feedback'] if mtype == 'feedback' else mtype.title()}")
            for i in range(count):
                file = f"{mtype}_{lang}_{i:02d}.md"
                _memory(root, file, mtype, f"{mtype} {i} ({lang})", f"- {words['note']} {i}\n")
                line = f"- [{mtype.title()} {i}]({file}) — {words['note']} {i}"
                lines.append(line)
                if mtype == "feedback":
                    pinned.append(line)
            lines.append("")
        _index(root, lines + _day_log(words, days, left=True))
        return {"class": "typed index with a per-day log", "pinned": pinned}

    return build


def long_blank_heavy(lang: str) -> Case:
    """A long index, about 550 lines, blank runs everywhere, rules scattered through it."""
    words = LANGS[lang]

    def build(root: Path) -> dict[str, Any]:
        lines = [words["title"], f"{words['note']}: start here.", "", ""]
        pinned = [words["title"], f"{words['note']}: start here."]
        for section in range(13):
            lines += ["", "", f"## {words['area']} {section}", ""]
            for i in range(30):
                file = f"project_{lang}_{section:02d}_{i:02d}.md"
                _memory(root, file, "project", f"{words['area']} {section}/{i}",
                        f"- {words['note']} {section}.{i}\n")
                lines.append(f"- [{words['area']} {section}.{i}]({file}) — "
                             + f"{words['note']} {section}.{i} " * 4)
                if i % 8 == 7:
                    lines += ["", "", ""]
            if section % 4 == 1:
                rule = f"- CRITICAL ({section}): {words['rule']}"
                lines.append(rule)
                pinned.append(rule)
        _index(root, lines)
        return {"class": "long, blank-heavy index with scattered rules", "pinned": pinned}

    return build


def within_with_dormant_list(lang: str) -> Case:
    """An index within its limits (about 23 KB) whose user keeps a list memory of dormant
    memories, plus a few memories nothing lists."""
    words = LANGS[lang]

    def build(root: Path) -> dict[str, Any]:
        lines = [words["title"], "", "## Project"]
        hook = f"⬅ {words['note']}: " + f"{words['did']}, {words['left']} " * 3
        for i in range(140):
            file = f"project_{lang}_live_{i:03d}.md"
            _memory(root, file, "project", f"live {i}", f"- {words['note']} {i}\n")
            line = f"- [Live {i}]({file}) — {hook}"
            lines.append(line[:148] if line.isascii() else line[:72])
        dormant = []
        for i in range(51):
            file = f"project_{lang}_parked_{i:02d}.md"
            _memory(root, file, "project", f"parked {i}", f"- {words['note']} {i}\n")
            dormant.append(f"- [Parked {i}]({file})")
        _memory(root, "memory_archive_dormant.md", "reference", "dormant memories, on purpose",
                "\n".join(dormant) + "\n")
        lines.append("- [Dormant](memory_archive_dormant.md) — parked on purpose")
        for i in range(3):
            _memory(root, f"project_{lang}_new_{i}.md", "project", f"new {i}", "- new\n")
        text = _index(root, lines)
        return {"class": "index within its limits, a user's own list memory",
                "pinned": [words["title"]], "within": len(text.encode()) <= 25000}

    return build


def pointer_heavy(lang: str, count: int = 249) -> Case:
    """A flat index of pointers in a few sections, just over the line limit."""
    words = LANGS[lang]

    def build(root: Path) -> dict[str, Any]:
        lines = [words["title"], ""]
        for section, mtype in enumerate(("project", "reference", "project", "reference",
                                         "project")):
            lines += [f"## {words['area']} {section}"]
            for i in range(count // 5):
                file = f"{mtype}_{lang}_{section}_{i:02d}.md"
                _memory(root, file, mtype, f"{words['note']} {section}.{i}", "- x\n")
                lines.append(f"- [{words['area']} {section}.{i}]({file}) — {words['note']}")
        _index(root, lines)
        return {"class": "pointer-heavy index just over 200 lines",
                "pinned": [words["title"]]}

    return build


def frontmatter_and_comments(lang: str) -> Case:
    """An index whose frontmatter and HTML comments push its raw line count past 200 while
    its loaded content stays within the limits."""
    words = LANGS[lang]

    def build(root: Path) -> dict[str, Any]:
        _memory(root, "project_a.md", "project", "a", "- a\n")
        lines = ["---", "kind: index", "---", "<!--", *[f" {words['note']} {i}"
                                                         for i in range(40)], "-->",
                 words["title"], "", "- [A](project_a.md) — a",
                 *[f"- {words['note']} {i}" for i in range(185)]]
        _index(root, lines)
        return {"class": "frontmatter and comments excluded from the count",
                "pinned": [words["title"]], "within": True}

    return build


def nearly_full(lang: str, by_bytes: bool) -> Case:
    """An index within its limits with room for two or three more lines, or about 900
    bytes, and several memories it does not point to: the room Claude Code's own next
    pointer needs must stay free."""
    words = LANGS[lang]

    def build(root: Path) -> dict[str, Any]:
        lines = [words["title"], "", "## Project"]
        hook = f"{words['did']}, {words['left']}" * (3 if by_bytes else 1)
        used = sum(len(line.encode()) + 1 for line in lines)
        for i in range(1000):
            file = f"project_{lang}_full_{i:03d}.md"
            line = f"- [{words['area']} {i}]({file}) — {hook}"
            if len(lines) >= 197 or used + len(line.encode()) + 1 > 25000 - 900:
                break
            _memory(root, file, "project", f"{words['note']} {i}", f"- {words['note']} {i}\n")
            lines.append(line)
            used += len(line.encode()) + 1
        for i in range(6):
            _memory(root, f"project_{lang}_unlisted_{i}.md", "project", f"new {i}", "- new\n")
        _index(root, lines)
        return {"class": "index nearly full, memories it does not point to",
                "pinned": [words["title"]], "within": True}

    return build


def tables(lang: str, days: int = 70) -> Case:
    """Typed sections whose pointers are table rows (a header, a separator row, the link in
    the second column), memories no row lists yet, and a per-day log running past the
    window: new pointers join the tables as rows, the loaded rows stay as they are."""
    words = LANGS[lang]

    def build(root: Path) -> dict[str, Any]:
        lines = [words["title"], "", words["rule"], ""]
        pinned = [words["title"], words["rule"]]
        for mtype, count in (("feedback", 8), ("project", 10), ("reference", 6)):
            lines += [f"## {words['feedback'] if mtype == 'feedback' else mtype.title()}", "",
                      "| # | Memory | Type | Note |", "|---|---|:-:|---|"]
            for i in range(count + 2):
                file = f"{mtype}_{lang}_table_{i:02d}.md"
                _memory(root, file, mtype, f"{words['note']} {i} ({lang})",
                        f"- {words['note']} {i}\n")
                if i >= count:
                    continue  # a memory no row lists yet
                line = f"| {i + 1} | [{mtype.title()} {i}]({file}) | {mtype} | {words['note']} {i} |"
                lines.append(line)
                if mtype == "feedback":
                    pinned.append(line)
            lines.append("")
        _index(root, lines + _day_log(words, days, left=False))
        return {"class": "index of tables of pointers", "pinned": pinned}

    return build


CASES: dict[str, Case] = {
    **{f"typed-log-{lang}": typed_with_log(lang) for lang in ("en", "ja", "de")},
    **{f"long-blank-{lang}": long_blank_heavy(lang) for lang in ("en", "ko", "zh")},
    **{f"dormant-{lang}": within_with_dormant_list(lang) for lang in ("en", "ja")},
    **{f"pointers-{lang}": pointer_heavy(lang) for lang in ("en", "ko")},
    **{f"tables-{lang}": tables(lang) for lang in ("en", "ko")},
    "comments-en": frontmatter_and_comments("en"),
    "nearly-full-lines-en": nearly_full("en", by_bytes=False),
    "nearly-full-bytes-ja": nearly_full("ja", by_bytes=True),
}


def write_all(dest: Path) -> dict[str, dict[str, Any]]:
    """Every case under ``dest/<name>/memory``, its labels in ``dest/<name>/labels.json``."""
    out = {}
    for name, build in CASES.items():
        root = dest / name / "memory"
        root.mkdir(parents=True)
        labels = build(root)
        (dest / name / "labels.json").write_text(json.dumps(labels, ensure_ascii=False,
                                                            indent=1), encoding="utf-8")
        out[name] = labels
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    write_all(parser.parse_args().dest)


if __name__ == "__main__":
    main()
