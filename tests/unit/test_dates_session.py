""""This session" names the day its passage was written, in any language (issue 25).

A memory that records work done "in this session" is dated by the date its passage gives,
as any relative day is; the phrase keeps its words and the date glosses it. A rule's session
is whichever session reads it: a feedback, user or reference memory, a condition, a habit or
"always" leaves it as written, and so does a web application's session.
"""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from consolidator.decide.follow import rebased
from consolidator.detect.dates.relative import find_relative, relative_in, rewrite_relative
from consolidator.detect.dates.undated import copied_together, long_sessions
from consolidator.plan import JUDGMENT, Rewrite
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory
from consolidator.store.scan import scan

WRITTEN = datetime(2026, 7, 22, 9, 0)  # saved the morning after the day the text names


def glossed(body: str, undated: bool = False) -> list[str]:
    return [f.replacement for f in find_relative(body, WRITTEN, "status.md", undated)]


@pytest.mark.parametrize("body, phrase", [
    ("Status on 2026-07-21:\n\nFixed three bugs in this session.\n", "this session"),
    ("2026-07-21 の状況:\n\n本セッションで計測バグを3件修正した。\n", "本セッション"),
    ("2026-07-21 状态:\n\n本次会话修复了三个问题。\n", "本次会话"),
    ("## 2026-07-21\n\n本次 session 完成了迁移。\n", "本次 session"),
    ("Stato al 2026-07-21:\n\nIn questa sessione abbiamo corretto tre bug.\n", "questa sessione"),
    ("2026-07-21 상태:\n\n이번 세션에서 버그 세 개를 고쳤다.\n", "이번 세션"),
    ("Статус на 2026-07-21:\n\nВ этой сессии исправлены три ошибки.\n", "этой сессии"),
    ("Stand 2026-07-21:\n\nIn dieser Sitzung wurden drei Fehler behoben.\n", "dieser Sitzung"),
    ("État au 2026-07-21 :\n\nCette session a corrigé trois bogues.\n", "Cette session"),
    ("Estado al 2026-07-21:\n\nEn esta sesión se corrigieron tres errores.\n", "esta sesión"),
    ("Trạng thái 2026-07-21:\n\nĐã sửa ba lỗi trong phiên này.\n", "phiên này"),
], ids=["en", "ja", "zh", "zh-mixed", "it", "ko", "ru", "de", "fr", "es", "vi"])
def test_this_session_is_glossed_with_the_day_its_passage_gives(body: str, phrase: str) -> None:
    assert glossed(body) == [f"{phrase} (2026-07-21)"]


@pytest.mark.parametrize("body", [
    "Status on 2026-07-21:\n\nIf a command needs sudo in this session, stop and ask.\n",
    "Status on 2026-07-21:\n\nAlways ask before pushing in this session.\n",
    "Stato al 2026-07-21:\n\nSe il push fallisce in questa sessione, chiedi all'utente.\n",
    "2026-07-21 상태:\n\n항상 이번 세션 시작 전에 테스트를 돌린다.\n",
    "Status on 2026-07-21:\n\nThe login flow keeps this session cookie for a day.\n",
    "Estado al 2026-07-21:\n\nEl token de esta sesión expira en una hora.\n",
    "Status on 2026-07-21:\n\nOld sessions are pruned; these sessions stay.\n",
], ids=["en-if", "en-always", "it-se", "ko-always", "en-cookie", "es-expira", "plural"])
def test_a_rules_or_an_applications_session_is_left_as_written(body: str) -> None:
    assert glossed(body) == []


def test_a_korean_particle_before_a_noun_is_no_this() -> None:
    """"모델이 대화 언어를 따라간다": "이" is the subject particle of "모델", and "대화" the
    conversation's language, not "this conversation"; "이 대화에서" standing alone is."""
    body = "2026-07-21 상태:\n\n모델이 대화 언어를 따라가고, 이 대화에서 두 개를 고쳤다.\n"
    assert glossed(body) == ["이 대화 (2026-07-21)"]


def test_with_no_date_for_its_passage_this_session_is_left_as_written() -> None:
    assert glossed("Fixed three bugs in this session.\n", undated=False) == []
    assert glossed("Fixed three bugs in this session.\n", undated=True) == [
        "this session (2026-07-22)"]


def memory(mtype: str, body: str) -> Memory:
    data = f"---\nname: status\ndescription: status\ntype: {mtype}\n---\n{body}".encode()
    stat = FileStat(rel="status.md", size=len(data), mode=0o644,
                    mtime_ns=int(WRITTEN.timestamp() * 1_000_000_000),
                    sha256=hashlib.sha256(data).hexdigest())
    return Memory(stat, parse(data))


@pytest.mark.parametrize("mtype, found", [("project", 1), ("feedback", 0), ("user", 0),
                                          ("reference", 0)])
def test_only_a_record_of_work_dates_its_session(mtype: str, found: int) -> None:
    """A project memory records work; a feedback memory is a rule, a user memory a profile
    and a reference memory a definition, whose session is whichever reads them."""
    body = "Status on 2026-07-21:\n\nFixed three bugs in this session.\n"
    assert len(relative_in(memory(mtype, body))) == found


@pytest.mark.parametrize("body", [
    "Status on 2026-07-21:\n\nFixed three bugs in this session.\n",
    "2026-07-21 の状況:\n\n本セッションで計測バグを3件修正した。\n",
    "Stato al 2026-07-21:\n\nIn questa sessione abbiamo corretto tre bug.\n",
])
def test_a_glossed_session_is_not_glossed_again(body: str) -> None:
    once = rewrite_relative(body, find_relative(body, WRITTEN, "status.md", False))
    assert once != body
    assert find_relative(once, WRITTEN, "status.md", False) == []


def stamped(file: str, body: str, modified: str, session: str = "s-1",
            saved: datetime = WRITTEN) -> Memory:
    """A memory of ``session``: its ``modified`` stamp (none if empty), saved at ``saved``."""
    stamp = f"modified: {modified}\n" if modified else ""
    data = (f"---\nname: {file[:-3]}\ndescription: status\ntype: project\n"
            f"originSessionId: {session}\n{stamp}---\n{body}").encode()
    stat = FileStat(rel=file, size=len(data), mode=0o644,
                    mtime_ns=int(saved.timestamp() * 1_000_000_000),
                    sha256=hashlib.sha256(data).hexdigest())
    return Memory(stat, parse(data))


def test_a_session_over_several_days_dates_neither_this_session_nor_an_undated_line() -> None:
    """The memories one session wrote carry stamps on two days: "this session" names no one
    day, and the day a memory was last saved is not the day its undated lines were written.
    The same memory in a session of one day is dated by its stamp."""
    body = "Built the sortition chamber from scratch this session.\nDeployed it yesterday.\n"
    lot = stamped("project_lot2.md", body, "2026-08-16T10:00:00Z")
    earlier = stamped("project_lot1.md", "Lot 1 merged.\n", "2026-08-14T18:00:00Z")
    other = stamped("project_other.md", "Lot 1 merged.\n", "2026-08-14T18:00:00Z", "s-2")

    long = long_sessions([lot, earlier, other])

    assert long == {"project_lot2.md", "project_lot1.md"}
    assert relative_in(lot, long_session=True) == []
    assert [f.phrase for f in relative_in(lot)] == ["this session", "yesterday"]
    assert long_sessions([lot, other]) == frozenset()


def test_without_stamps_the_files_times_tell_a_session_of_several_days() -> None:
    body = "Built the chamber this session.\n"
    one = stamped("project_a.md", body, "", saved=datetime(2026, 7, 8, 12, 0))
    other = stamped("project_b.md", "Lot 1 merged.\n", "", saved=datetime(2026, 7, 5, 12, 0))
    same_day = stamped("project_c.md", "Lot 1 merged.\n", "", "s-2",
                       saved=datetime(2026, 7, 8, 9, 0))
    assert long_sessions([one, other]) == {"project_a.md", "project_b.md"}
    assert long_sessions([one, same_day]) == frozenset()


def test_a_folder_written_at_one_go_has_file_times_that_date_nothing() -> None:
    """A checkout or a copy writes a folder's files within seconds of each other: five or
    more memories, each saved within a minute of the next, have a copy's times, which date
    no undated line; a date the text gives still dates its passage. A memory Claude Code
    stamped keeps its stamp (and counts in the run: a checkout writes it too); one saved
    apart from the run keeps its time."""
    at = datetime(2026, 7, 8, 12, 0)
    run = [stamped(f"project_{n}.md", "Lot merged.\n", "", f"s-{n}",
                   saved=at + timedelta(seconds=20 * n)) for n in range(5)]
    apart = stamped("project_apart.md", "Deployed it yesterday.\n", "", "s-9",
                    saved=at + timedelta(seconds=20 * 4 + 61))
    stamp = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    stamped_one = stamped("project_stamped.md", "Deployed it yesterday.\n",
                          stamp.strftime("%Y-%m-%dT%H:%M:%SZ"), "s-8", saved=at)
    headed = stamped("project_headed.md", "## 2026-07-02\nDeployed it this session.\n", "",
                     "s-7", saved=at)

    assert copied_together([*run, apart, stamped_one]) == {m.file for m in run}
    assert copied_together([*run[:4], apart]) == frozenset()  # four: a session may save so
    assert copied_together([*run[:4], stamped_one]) == {m.file for m in run[:4]}
    assert relative_in(apart, copied=True) == []
    assert [f.resolved for f in relative_in(apart)] == ["2026-07-07"]
    day_before = stamp.astimezone().date() - timedelta(days=1)
    assert [f.resolved for f in relative_in(stamped_one)] == [day_before.isoformat()]
    assert [f.resolved for f in relative_in(headed, copied=True)] == ["2026-07-02"]


@pytest.mark.parametrize("copied", [True, False])
def test_a_date_rewrite_judged_again_reads_the_whole_folder(
    tmp_path: Path, copied: bool
) -> None:
    """A proposed date rewrite that this run's own steps moved on is judged again on the
    folder as it is now: files written at one go still date nothing, as when it was first
    judged; its twin, saved file by file, is dated by its file's time."""
    root = tmp_path / "memory"
    root.mkdir()
    saved = datetime(2026, 7, 8, 12, 0).timestamp()
    for n in range(6):
        body = "Deployed it yesterday.\n" if n == 0 else f"Lot {n} merged.\n"
        path = root / f"project_{n}.md"
        path.write_text(f"---\nname: p{n}\ndescription: lot {n}\ntype: project\n---\n{body}",
                        encoding="utf-8")
        when = saved + (0 if copied else -2 * 86400 * n)
        os.utime(path, (when, when))
    action = Rewrite(file="project_0.md", kind=JUDGMENT, data=b"", mtime_ns=0,
                     reason="relative date 'yesterday' -> 2026-07-07")

    fresh = rebased(action, scan(root), hot_after_ns=int(saved * 1e9) + 10**12)

    assert (fresh is None) == copied
    if not copied:
        assert fresh is not None and "2026-07-07" in fresh.reason
