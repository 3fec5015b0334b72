"""The pure detectors: memories in, findings out, nothing written.

Every memory here is built from bytes through the real frontmatter reader, with a fixed
mtime, so that dates resolve the same on every machine and in every time zone.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

import pytest

from consolidator.detect.conflicts.find import find_conflicts
from consolidator.detect.dates.deadlines import find_deadlines
from consolidator.detect.dates.relative import find_relative, rewrite_relative
from consolidator.detect.links import name_table, repoint
from consolidator.detect.overlap.duplicates import find_duplicates
from consolidator.detect.stale.citations import mentioned_paths
from consolidator.detect.stale.evidence import find_stale, study_stale
from consolidator.detect.text import normal_line, normal_set
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory

# A Wednesday, local time: "yesterday" is 2026-11-17, "next Tuesday" 2026-11-24.
WRITTEN = datetime(2026, 11, 18, 10, 0)
NOW = datetime(2026, 11, 30, 12, 0)


def memory(
    file: str,
    body: str,
    *,
    name: str | None = None,
    description: str = "a memory",
    written: datetime = datetime(2026, 2, 1, 12, 0),
    mtype: str = "project",
) -> Memory:
    """A Memory as the scan would hand it over: parsed bytes and a FileStat."""
    name = name if name is not None else Path(file).stem
    data = (
        f"---\nname: {name}\ndescription: {description}\ntype: {mtype}\n---\n{body}"
    ).encode()
    stat = FileStat(
        rel=file,
        size=len(data),
        mtime_ns=int(written.timestamp() * 1_000_000_000),
        mode=0o644,
        sha256=hashlib.sha256(data).hexdigest(),
    )
    return Memory(stat, parse(data))


def lines(*items: str) -> str:
    return "".join(item + "\n" for item in items)


OLD = datetime(2026, 1, 5, 9, 0)
MID = datetime(2026, 3, 5, 9, 0)
NEW = datetime(2026, 6, 5, 9, 0)

# --- duplicates ---------------------------------------------------------------------------

# Three lines that say one thing, per language; and a reworded form of each line that differs
# only by whitespace, letter case, punctuation and bullet style.
LANGUAGES: dict[str, tuple[list[str], list[str]]] = {
    "english": (
        [
            "- Integration tests must hit a real Postgres database.",
            "- Never mock the database layer in tests.",
            "- Run the migrations before the test suite starts.",
        ],
        [
            "*   integration TESTS must hit a real postgres database",
            "* never Mock the database   layer in tests!",
            "1. Run the migrations, before the test suite starts",
        ],
    ),
    "chinese": (
        [
            "- 集成测试必须连接真实的数据库。",
            "- 测试中不要模拟数据库层。",
            "- 测试开始前先运行数据库迁移。",
        ],
        [
            "* 集成测试必须连接 真实的 数据库",
            "* 测试中，不要模拟数据库层！",
            "1. 测试开始前  先运行数据库迁移",
        ],
    ),
    "japanese": (
        [
            "- 統合テストは本物のデータベースを使うこと。",
            "- テストでデータベース層をモックしない。",
            "- テストの前にマイグレーションを実行する。",
        ],
        [
            "* 統合テストは 本物のデータベースを 使うこと",
            "* テストで、データベース層をモックしない！",
            "1. テストの前に マイグレーションを実行する",
        ],
    ),
    "korean": (
        [
            "- 통합 테스트는 실제 데이터베이스를 사용해야 한다.",
            "- 테스트에서 데이터베이스 계층을 모킹하지 않는다.",
            "- 테스트 전에 마이그레이션을 실행한다.",
        ],
        [
            "*   통합 테스트는 실제 데이터베이스를 사용해야 한다",
            "* 테스트에서, 데이터베이스 계층을 모킹하지 않는다!",
            "1. 테스트 전에  마이그레이션을 실행한다",
        ],
    ),
}
# A line that says something else, per language.
OTHER_LINE = {
    "english": "- Seed data lives in fixtures/seed.sql.",
    "chinese": "- 种子数据放在夹具目录里。",
    "japanese": "- シードデータはフィクスチャに置く。",
    "korean": "- 시드 데이터는 픽스처 폴더에 둔다.",
}
BY_LANGUAGE = pytest.mark.parametrize("language", sorted(LANGUAGES))


def test_reworded_lines_share_one_normal_form() -> None:
    for original, reworded in LANGUAGES.values():
        for a, b in zip(original, reworded, strict=True):
            assert normal_line(a) == normal_line(b), (a, b)


@BY_LANGUAGE
def test_exact_copies_are_duplicates_and_the_newest_survives(language: str) -> None:
    original, _ = LANGUAGES[language]
    older = memory("a_rules.md", lines(*original), written=OLD)
    newer = memory("z_rules.md", lines(*original), written=NEW)
    (cluster,) = find_duplicates([older, newer])
    assert cluster.keep == "z_rules.md"
    assert cluster.files == ("z_rules.md", "a_rules.md")
    assert cluster.similarity == 1.0


@BY_LANGUAGE
def test_copies_reworded_by_whitespace_case_punctuation_and_bullets_are_duplicates(
    language: str,
) -> None:
    original, reworded = LANGUAGES[language]
    first = memory("first.md", lines(*original), written=NEW)
    second = memory("second.md", lines(*reworded), written=OLD)
    (cluster,) = find_duplicates([first, second])
    assert set(cluster.files) == {"first.md", "second.md"}
    assert cluster.keep == "first.md"


@BY_LANGUAGE
def test_reordered_copies_are_duplicates(language: str) -> None:
    original, reworded = LANGUAGES[language]
    first = memory("first.md", lines(*original), written=OLD)
    second = memory("second.md", lines(*reversed(reworded)), written=NEW)
    (cluster,) = find_duplicates([first, second])
    assert cluster.keep == "second.md"
    assert cluster.files == ("second.md", "first.md")


@BY_LANGUAGE
def test_a_memory_contained_in_another_is_a_duplicate_and_the_container_survives(
    language: str,
) -> None:
    original, reworded = LANGUAGES[language]
    # The container is the older file: holding everything beats being newer.
    container = memory("container.md", lines(*original, OTHER_LINE[language]), written=OLD)
    contained = memory("contained.md", lines(reworded[2], reworded[0]), written=NEW)
    (cluster,) = find_duplicates([contained, container])
    assert cluster.keep == "container.md"
    assert cluster.files == ("container.md", "contained.md")
    assert cluster.kind == "contained"
    assert normal_set(contained.body) <= normal_set(container.body)


@BY_LANGUAGE
def test_memories_alike_but_saying_different_things_are_not_duplicates(language: str) -> None:
    original, reworded = LANGUAGES[language]
    one = memory("one.md", lines(*original), written=OLD)
    other = memory("other.md", lines(reworded[0], reworded[1], OTHER_LINE[language]), written=NEW)
    assert find_duplicates([one, other]) == []


def test_equal_line_sets_keep_the_newest_whatever_the_file_names() -> None:
    original, reworded = LANGUAGES["english"]
    a = memory("a.md", lines(*original), written=MID)
    b = memory("b.md", lines(*reworded), written=NEW)
    c = memory("c.md", lines(*reversed(original)), written=OLD)
    (cluster,) = find_duplicates([a, b, c])
    assert cluster.keep == "b.md"
    assert set(cluster.files) == {"a.md", "b.md", "c.md"}
    assert cluster.kind == "same lines"


def test_nested_containment_collapses_into_the_largest_memory() -> None:
    original, reworded = LANGUAGES["english"]
    small = memory("small.md", lines(original[0], original[1]), written=NEW)
    middle = memory("middle.md", lines(*reworded), written=MID)
    large = memory("large.md", lines(*original, OTHER_LINE["english"]), written=OLD)
    (cluster,) = find_duplicates([small, middle, large])
    assert cluster.keep == "large.md"
    assert set(cluster.files) == {"small.md", "middle.md", "large.md"}


def test_a_one_word_difference_is_not_a_duplicate() -> None:
    a = memory("a.md", lines("Always use pnpm to install packages.", "Run lint first."))
    b = memory("b.md", lines("Always use npm to install packages.", "Run lint first."))
    assert find_duplicates([a, b]) == []


def test_unrelated_memories_are_not_duplicates() -> None:
    a = memory("a.md", lines(*LANGUAGES["english"][0]))
    b = memory("b.md", lines(*LANGUAGES["chinese"][0]))
    c = memory("c.md", lines("The staging server runs Ubuntu 24.04 behind nginx."))
    assert find_duplicates([a, b, c]) == []


# --- conflicts ----------------------------------------------------------------------------

CONFLICTS = {
    "package manager": (
        "Always use pnpm to install packages in this repo.",
        "Always use npm to install packages in this repo.",
        ("pnpm", "npm"),
    ),
    "port": (
        "The dev database listens on port 5432 on localhost.",
        "The dev database listens on port 6432 on localhost.",
        ("5432", "6432"),
    ),
    "weekday": (
        "Production deploys happen every Wednesday afternoon.",
        "Production deploys happen every Thursday afternoon.",
        ("wednesday", "thursday"),
    ),
    "always or never": (
        "Always squash commits before merging a pull request.",
        "Never squash commits before merging a pull request.",
        ("always", "never"),
    ),
    "weekday in German": (
        "Produktions-Deploys finden jeden Mittwoch am Nachmittag statt.",
        "Produktions-Deploys finden jeden Donnerstag am Nachmittag statt.",
        ("mittwoch", "donnerstag"),
    ),
    "weekday in Russian": (
        "Новые видео выходят каждый вторник в 18:00.",
        "Новые видео выходят каждый четверг в 18:00.",
        ("вторник", "четверг"),
    ),
    "always or never in French": (
        "Toujours lancer les tests d'intégration avant un merge sur main.",
        "Jamais lancer les tests d'intégration avant un merge sur main.",
        ("toujours", "jamais"),
    ),
    # "Never" said with a second negation beside it, as these languages say it.
    "never with its negation in Russian": (
        "Всегда использовать pnpm для установки зависимостей в этом репозитории.",
        "Никогда не использовать pnpm для установки зависимостей в этом репозитории.",
        ("всегда", "никогда"),
    ),
    "never with its negation in Polish": (
        "Zawsze uruchamiaj migracje przed wdrożeniem na produkcję.",
        "Nigdy nie uruchamiaj migracje przed wdrożeniem na produkcję.",
        ("zawsze", "nigdy"),
    ),
    "never with its negation in French": (
        "Il faut toujours relancer le cache après un déploiement du site.",
        "Il ne faut jamais relancer le cache après un déploiement du site.",
        ("toujours", "jamais"),
    ),
    "never with an elided negation in French": (
        "Relancez toujours le cache après un déploiement du site.",
        "Ne relancez jamais le cache après un déploiement du site.",
        ("toujours", "jamais"),
    ),
}


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Никогда не использовать pnpm для установки зависимостей.",
         "Не использовать pnpm для установки зависимостей."),  # no "always": one rule
        ("Всегда проверять логи после деплоя на сервер.",
         "Не проверять логи после деплоя на сервер."),  # a plain "not" stays a word
    ],
    ids=["never-and-not", "always-and-not"],
)
def test_a_negation_without_a_never_beside_it_is_kept(left: str, right: str) -> None:
    a = memory("a.md", lines(left), written=OLD)
    b = memory("b.md", lines(right), written=NEW)
    assert all("'всегда'" not in c.reason for c in find_conflicts([a, b]))


@pytest.mark.parametrize("kind", sorted(CONFLICTS))
@pytest.mark.parametrize("older_first", [True, False], ids=["older-a", "older-b"])
def test_memories_that_disagree_on_one_value_are_a_conflict_naming_the_newer(
    kind: str, older_first: bool
) -> None:
    left, right, (value_a, value_b) = CONFLICTS[kind]
    a = memory("a.md", lines("Notes from the team sync.", left),
               written=OLD if older_first else NEW)
    b = memory("b.md", lines(right, "Ask in #dev if unsure."),
               written=NEW if older_first else OLD)
    (conflict,) = find_conflicts([a, b])
    assert conflict.files == ("a.md", "b.md")
    assert conflict.newer == ("b.md" if older_first else "a.md")
    assert repr(value_a) in conflict.reason and repr(value_b) in conflict.reason
    assert conflict.reason.index(repr(value_a)) < conflict.reason.index(repr(value_b))


def test_a_value_changed_twice_in_one_line_is_named_once() -> None:
    a = memory("a.md", lines("Install with pnpm, then run pnpm build for the web app."),
               written=OLD)
    b = memory("b.md", lines("Install with npm, then run npm build for the web app."),
               written=NEW)
    (conflict,) = find_conflicts([a, b])
    assert conflict.reason == "a.md says 'pnpm' where b.md says 'npm'"


def test_conflicting_memories_are_not_duplicates() -> None:
    left, right, _ = CONFLICTS["port"]
    a = memory("a.md", lines(left), written=OLD)
    b = memory("b.md", lines(right), written=NEW)
    assert find_duplicates([a, b]) == []
    assert len(find_conflicts([a, b])) == 1


def test_a_conflict_in_chinese_is_found() -> None:
    a = memory("a.md", lines("生产环境在每周三下午部署。"), written=OLD)
    b = memory("b.md", lines("生产环境在每周四下午部署。"), written=NEW)
    (conflict,) = find_conflicts([a, b])
    assert conflict.newer == "b.md"


def test_unrelated_memories_do_not_conflict() -> None:
    a = memory("a.md", lines("The staging server runs Ubuntu 24.04 behind nginx."))
    b = memory("b.md", lines("Invoices store money as integer cents plus a currency."))
    c = memory("c.md", lines("Always use pnpm to install packages in this repo."))
    d = memory("d.md", lines("The dev database listens on port 5432 on localhost."))
    assert find_conflicts([a, b, c, d]) == []


def test_duplicates_do_not_conflict() -> None:
    original, reworded = LANGUAGES["english"]
    a = memory("a.md", lines(*original), written=OLD)
    b = memory("b.md", lines(*reversed(reworded)), written=NEW)
    assert find_conflicts([a, b]) == []


def test_a_pair_already_found_as_duplicates_is_not_also_a_conflict() -> None:
    contained = memory("a.md", lines("Always use pnpm to install packages.", "Lint first."),
                       written=OLD)
    container = memory(
        "b.md",
        lines("Never use npm to install packages.", "Always use pnpm to install packages.",
              "Lint first."),
        written=NEW,
    )
    clusters = find_duplicates([contained, container])
    assert [c.keep for c in clusters] == ["b.md"]
    # b.md states both values itself (pnpm yes, npm no): a list, not a disagreement with a.md.
    assert find_conflicts([contained, container]) == []
    left, right, _ = CONFLICTS["package manager"]
    a = memory("a.md", lines(left, "Lint first."), written=OLD)
    b = memory("b.md", lines(right, "Lint first."), written=NEW)
    assert find_conflicts([a, b]), "the pair does disagree"
    assert find_conflicts([a, b], skip={frozenset(("a.md", "b.md"))}) == []


# --- stale: paths -------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src" / "db").mkdir(parents=True)
    (root / "src" / "server.ts").write_text("// server\n")
    (root / "src" / "db" / "pool.ts").write_text("// pool\n")
    (root / "src" / "legacy").mkdir()  # the folder of the files cited as gone is there
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    return root


def test_a_missing_path_in_backticks_is_stale_evidence_but_not_archivable(project: Path) -> None:
    m = memory("auth.md", lines("Auth lives in `src/legacy/auth.py`."))
    finding = find_stale(m, NOW, project)
    assert finding is not None
    assert finding.reasons == ("cites `src/legacy/auth.py` — not in the project (about a part)",)
    assert finding.kinds == ("path",)
    assert finding.archivable is False


def test_a_missing_plain_path_is_stale_evidence(project: Path) -> None:
    m = memory("auth.md", lines("String helpers are in src/legacy/util.py."))
    finding = find_stale(m, NOW, project)
    assert finding is not None
    assert "cites `src/legacy/util.py` — not in the project (about a part)" in finding.reasons
    assert finding.evidence == ("String helpers are in src/legacy/util.py.",)


def test_a_path_in_a_line_saying_it_was_moved_is_not_stale(project: Path) -> None:
    m = memory("auth.md", lines("Helpers moved out of src/legacy/util.py last spring."))
    assert find_stale(m, NOW, project) is None


def test_existing_paths_are_not_flagged(project: Path) -> None:
    m = memory("ok.md", lines(
        "The server is `src/server.ts`; the pool is src/db/pool.ts.",
        "CI is defined in .github/workflows/ci.yml.",
    ))
    assert find_stale(m, NOW, project) is None


@pytest.mark.parametrize("body", [
    lines(  # URLs, folders, bare names, wiki links, links to memories, absolute paths
        "Docs at https://example.com/src/legacy/auth.py and www.example.com/a/b.html.",
        "The old code was under src/legacy/ and auth.py held it all.",
        "See [[notes/old-plan.md]] and [[reference_database]].",
        "Rules: [the test rules](feedback_no_mocks.md), [deploy](project/deploy_notes.md).",
        "Home is /home/dev/acme-shop/src/app.py on the laptop.",
    ),
    lines(  # what only looks like a path: placeholders, a git range, a host, a build's
        # output, the tail of a path with a space in it
        "Runs land in results/YYYY-MM-DD_gpu/README.md and js/modules/xxx.js is the shape.",
        "Logs: results/.../README.md; compare with `git log origin/main..HEAD`.",
        "The API: support.example.com/api/v2/search.json; the bundle is dist/App.app/a.icns.",
        "The transcript is `/Volumes/Work Disk/clips/final.txt` on the laptop.",
        "The library lives in ~/Library/Application Support/Tool/state.json.",
    ),
], ids=["links-and-absolute-paths", "only-looks-like-a-path"])
def test_what_is_no_project_path_is_not_checked(project: Path, body: str) -> None:
    m = memory("refs.md", body)
    assert mentioned_paths(m.body) == []
    assert find_stale(m, NOW, project) is None


def test_paths_listed_one_after_another_are_each_checked() -> None:
    body = lines("Files: src/a.py src/b.py and `git add src/c.py src/d.py`.",
                 "Built into ./dist/app.js; the home copy is ~/work/tool/run.py.")
    assert mentioned_paths(body) == ["src/a.py", "src/b.py", "src/c.py", "src/d.py"]


def test_without_a_project_root_the_path_check_is_skipped() -> None:
    m = memory("auth.md", lines("Auth lives in `src/legacy/auth.py`."))
    assert find_stale(m, NOW, None) is None


# --- stale: deadlines ---------------------------------------------------------------------

DEADLINES = {
    "until ISO": ("Merge freeze until 2026-03-12 for the spring release.", "2026-03-12"),
    "by month name": ("Ship the partner API by March 5, 2026.", "2026-03-05"),
    "date range": ("Code freeze 2026-03-01 to 2026-03-12, hotfixes only.", "2026-03-12"),
    "chinese": ("截止 2026年3月5日 提交季度报告。", "2026-03-05"),
    "japanese without a year": ("3月5日まで新機能の追加は禁止。", "2026-03-05"),
    "korean until, a state": ("2026년 3월 12일까지 배포 동결, 핫픽스만 허용.", "2026-03-12"),
    "korean due": ("보고서 마감: 2026년 3월 5일.", "2026-03-05"),
}


@pytest.mark.parametrize("kind", sorted(DEADLINES))
def test_a_passed_deadline_makes_a_memory_stale_and_a_passed_limit_archivable(kind: str) -> None:
    text, day = DEADLINES[kind]
    m = memory("freeze.md", lines("Release notes.", text), written=datetime(2026, 2, 1, 12))
    (deadline,) = find_deadlines(m.body, datetime(2026, 2, 1, 12))
    assert deadline.day.isoformat() == day
    finding = find_stale(m, NOW, None)
    assert finding is not None
    assert finding.kinds == ("deadline",)
    # Work due by a day ("ship by", 截止) makes the memory history, not wrong: reported only.
    assert finding.archivable is (kind not in ("by month name", "chinese", "korean due"))
    assert day in finding.reasons[0]


@pytest.mark.parametrize("kind", sorted(DEADLINES))
def test_a_deadline_still_ahead_is_not_stale(kind: str) -> None:
    text, _ = DEADLINES[kind]
    m = memory("freeze.md", lines(text), written=datetime(2026, 2, 1, 12))
    assert find_stale(m, datetime(2026, 3, 1, 12), None) is None


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("신청서는 2026-03-05까지 제출해야 한다.", "2026-03-05"),  # work due: 까지 alone
        ("3월 5일 전까지 끝낸다.", "2026-03-05"),
        ("2026년 3월 말까지 검토.", "2026-03-31"),
    ],
)
def test_a_korean_deadline_is_read_as_work_due_unless_a_state_holds_until_it(
    text: str, day: str
) -> None:
    (deadline,) = find_deadlines(text, datetime(2026, 2, 1, 12))
    assert (deadline.day.isoformat(), deadline.validity) == (day, False)


@pytest.mark.parametrize("text", [
    "Der Antrag muss bis 05.03.2026 eingereicht werden.",
    "Le dossier doit être déposé avant le 2026-03-05.",
    "Dossier de subvention — date limite : 2026-03-05.",
    "La solicitud debe presentarse antes del 2026-03-05.",
    "La domanda va presentata entro il 2026-03-05.",
    "O formulário deve ser enviado até 2026-03-05.",
    "Форму нужно подать до 2026-03-05.",
    "Form en geç 2026-03-05 tarihine kadar gönderilmeli.",
])
def test_a_deadline_in_another_language_is_work_due_reported_never_archived(text: str) -> None:
    (deadline,) = find_deadlines(text, datetime(2026, 2, 1, 12))
    assert (deadline.day.isoformat(), deadline.validity) == ("2026-03-05", False)
    finding = find_stale(memory("grant.md", lines(text), written=datetime(2026, 2, 1, 12)),
                         NOW, None)
    assert finding is not None and finding.kinds == ("deadline",) and not finding.archivable


@pytest.mark.parametrize(("renews", "twin"), [
    ("TLS certificate valid until 2026-03-05, auto-renew on.",
     "TLS certificate valid until 2026-03-05."),
    ("Сертификат до 05.03.2026, автопродление.", "Сертификат до 05.03.2026."),
    ("域名到期 2026-03-05（已开自动续费）。", "域名到期 2026-03-05。"),
    ("Abonnement bis 05.03.2026, verlängert sich automatisch.", "Abonnement bis 05.03.2026."),
])
def test_an_end_date_of_something_that_renews_itself_is_no_deadline(
    renews: str, twin: str
) -> None:
    assert find_deadlines(renews, datetime(2026, 2, 1, 12)) == []
    (deadline,) = find_deadlines(twin, datetime(2026, 2, 1, 12))
    assert deadline.day.isoformat() == "2026-03-05"


def test_english_do_before_a_date_is_no_deadline() -> None:
    assert find_deadlines("We do 2026-03-05 planning with the team.",
                          datetime(2026, 2, 1, 12)) == []


@pytest.mark.parametrize(
    "text",
    ["신청서는 2026-03-05까지 제출했다.",  # told in the past
     "예: 2026-03-05까지 제출.",  # an example
     "3일 전 회의에서 정했다.",  # days ago, no date
     "2026-03-05에 배포."],  # a day, no deadline word
)
def test_korean_past_examples_and_plain_days_are_not_deadlines(text: str) -> None:
    assert find_deadlines(text, datetime(2026, 2, 1, 12)) == []


def test_a_far_future_deadline_is_not_stale() -> None:
    m = memory("freeze.md", lines("Support contract runs until 2099-01-31."))
    assert find_stale(m, NOW, None) is None


# --- stale: status markers ----------------------------------------------------------------

MARKERS = ("SUPERSEDED", "DONE", "RESOLVED", "OBSOLETE")


@pytest.mark.parametrize("marker", MARKERS)
@pytest.mark.parametrize("place", ["name", "description", "first line", "status line"])
def test_a_status_marker_in_the_head_of_a_memory_makes_it_archivable(
    marker: str, place: str
) -> None:
    body = ["The v2 migration plan, step by step.", "Step one: copy the tables."]
    name, description = "migration-v2", "the v2 migration plan"
    if place == "name":
        name = f"migration-v2-{marker}"
    elif place == "description":
        description = f"{marker} - the v2 migration plan"
    elif place == "first line":
        body[0] = f"{marker}: the v2 migration plan, step by step."
    else:
        body.append(f"Status: {marker}")
    m = memory("migration.md", lines(*body), name=name, description=description)
    finding, note = study_stale(m, NOW, None)
    # Finished work retires a memory only as its status (its name's tag, a Status: line); in
    # a title or a description it tells of an event whose results may still hold: a note,
    # no stale finding.
    if marker in ("DONE", "RESOLVED") and place in ("description", "first line"):
        assert finding is None and note is not None and marker in note
        return
    assert finding is not None and note is None
    assert finding.kinds == ("marker",)
    assert finding.archivable
    assert marker in finding.reasons[0]
    assert finding.reasons[0].startswith("status marker")


@pytest.mark.parametrize("marker", ["SUPERSEDED", "OBSOLETE"])
def test_a_retiring_marker_in_a_sub_heading_is_reported_but_not_archivable(marker: str) -> None:
    m = memory("bugs.md", lines(
        "Known flaky tests and what to do about them.",
        "",
        f"## Checkout timeout retry ({marker})",
        "Keep the retry for now.",
    ))
    finding = find_stale(m, NOW, None)
    assert finding is not None
    assert finding.kinds == ("marker",)
    assert finding.archivable is False
    assert "about a part" in finding.reasons[0]
    assert finding.evidence == (f"## Checkout timeout retry ({marker})",)


@pytest.mark.parametrize("line", ["Status: done", "**Status:** Resolved", "Status: superseded"])
def test_a_status_line_in_any_letter_case_makes_a_memory_archivable(line: str) -> None:
    m = memory("plan.md", lines("The v2 migration plan.", line))
    finding = find_stale(m, NOW, None)
    assert finding is not None and finding.archivable is True


@pytest.mark.parametrize("marker", MARKERS)
def test_a_status_word_inside_a_sentence_is_no_marker(marker: str) -> None:
    m = memory("bugs.md", lines(
        "Known flaky tests and what to do about them.",
        f"The checkout timeout was {marker} in PR 412; keep the retry for now.",
    ))
    assert find_stale(m, NOW, None) is None


@pytest.mark.parametrize(("description", "retired"), [
    # Korean spaces its words and puts the verb last: a status word closing a clause with a
    # subject of its own is that clause's verb, about the files it names.
    ("평가 파일은 `new.json` (3455 rows) — 이전 `full.json` / `dense.json` 은 모두 폐기됨",
     False),
    ("평가 파일 메모 — 폐기됨", True),  # a tag after a separator
    ("평가 파일 메모 (폐기됨)", True),
])
def test_a_korean_status_word_closing_a_clause_is_its_verb(description: str,
                                                           retired: bool) -> None:
    m = memory("eval_file.md", lines("The shared evaluation file and where it lives."),
               name="eval-file", description=description)
    finding = find_stale(m, NOW, None)
    assert (finding is not None and finding.archivable) is retired


@pytest.mark.parametrize("where", ["first line", "name and description", "body"])
def test_no_longer_as_a_current_fact_is_no_evidence(where: str) -> None:
    body = ["Caching notes.", "Sessions are stored in Postgres."]
    name, description = "caching", "how we cache"
    if where == "first line":
        body[0] = "We no longer use Redis for sessions."
    elif where == "name and description":
        description = "Redis is no longer used"
    else:
        body.append("The old cache is still there but no longer used by checkout.")
    m = memory("cache.md", lines(*body), name=name, description=description)
    assert find_stale(m, NOW, None) is None


@pytest.mark.parametrize("line", [
    "The advice to flush Redis by hand is no longer valid.",
    'Git warns "CRLF will be replaced by LF" on every commit; set core.autocrlf.',
    "The old endpoint is deprecated upstream, so we pin the client to 2.x.",
])
def test_a_status_word_in_a_running_sentence_is_no_evidence(line: str) -> None:
    """On real directories such a word was a quoted message, a term of art or a note that
    one sentence changed as often as a status: words alone are not evidence of staleness."""
    m = memory("cache.md", lines("Cache notes.", line))
    assert find_stale(m, NOW, None) is None


def test_an_old_memory_without_evidence_is_not_stale(project: Path) -> None:
    m = memory("role.md", lines("Senior backend engineer; wants concise answers."),
               written=datetime(2019, 1, 1, 12))
    assert find_stale(m, NOW, project) is None


# --- relative dates -----------------------------------------------------------------------

RELATIVE = {
    "yesterday": "2026-11-17",
    "today": "2026-11-18",
    "tomorrow": "2026-11-19",
    "last week": "the week of 2026-11-09",
    "next Tuesday": "2026-11-24",
    "this Friday": "2026-11-20",
    "3 days ago": "2026-11-15",
    "昨天": "2026-11-17",
    "今天": "2026-11-18",
    "明天": "2026-11-19",
    "上周": "2026-11-09",
    "下周三": "2026-11-25",
    "昨日": "2026-11-17",
    "明日": "2026-11-19",
}


@pytest.mark.parametrize("phrase", list(RELATIVE))
def test_relative_dates_resolve_from_the_memory_mtime(phrase: str) -> None:
    text = f"Noted: the demo {phrase} went well."
    (found,) = find_relative(text, WRITTEN)
    assert found.phrase == phrase
    assert RELATIVE[phrase] in found.resolved
    assert text[found.start : found.end] == phrase
    rewritten = rewrite_relative(text, [found])
    assert phrase not in rewritten
    assert rewritten == text.replace(phrase, found.replacement or found.resolved)


def test_relative_dates_depend_on_the_written_date_not_on_today() -> None:
    (found,) = find_relative("We agreed on it yesterday.", datetime(2025, 1, 1, 9, 0))
    assert found.resolved == "2024-12-31"


def test_every_relative_date_in_a_text_is_rewritten() -> None:
    text = "The client demo was moved to next Tuesday; we agreed on it yesterday."
    found = find_relative(text, WRITTEN)
    assert [f.phrase for f in found] == ["next Tuesday", "yesterday"]
    assert rewrite_relative(text, found) == (
        "The client demo was moved to 2026-11-24; we agreed on it on 2026-11-17."
    )


def test_relative_dates_inside_code_spans_and_urls_are_left_alone() -> None:
    text = "Run `make yesterday` and see https://example.com/today/report for details."
    assert find_relative(text, WRITTEN) == []


def test_words_that_only_contain_a_relative_date_are_not_relative_dates() -> None:
    assert find_relative("Holidays are in todays_report and yesterdays.csv.", WRITTEN) == []


# --- links --------------------------------------------------------------------------------


def _link_world() -> tuple[Memory, Memory]:
    old = memory("old.md", lines("x"), name="old-name")
    new = memory("new.md", lines("x"), name="new-name")
    return old, new


def test_file_links_to_a_merged_away_memory_are_repointed() -> None:
    old, new = _link_world()
    other = memory("other.md", lines("See [the old notes](old.md) and [new](new.md)."))
    body, changed = repoint(other.body, other.file, {"old.md": "new.md"},
                            name_table([old, new, other]))
    assert body == lines("See [the old notes](new.md) and [new](new.md).")
    assert changed == ["old.md"]


def test_wiki_links_by_name_or_by_stem_are_repointed() -> None:
    old, new = _link_world()
    other = memory("other.md", lines("See [[old-name]], [[old]] and [[old-name|the plan]]."))
    body, changed = repoint(other.body, other.file, {"old.md": "new.md"},
                            name_table([old, new, other]))
    assert body == lines("See [[new-name]], [[new]] and [[new-name|the plan]].")
    assert changed == ["old.md", "old.md", "old.md"]


def test_a_wiki_link_is_repointed_by_a_key_that_reads_back_as_the_survivor() -> None:
    old = memory("dotnet.md", lines("x"), name="Dotnet notes")
    new = memory("csharp.md", lines("x"), name="C# tips")  # "#" would start an anchor
    c = memory("c.md", lines("y"), name="C")
    odd = memory("a#b.md", lines("x"), name="A | B")  # neither name nor stem can be a key
    table = name_table([old, new, c, odd])

    body, _ = repoint(lines("See [[Dotnet notes]] and [[dotnet|the DTO notes]]."), "c.md",
                      {"dotnet.md": "csharp.md"}, table)
    other, _ = repoint(lines("See [[Dotnet notes|the DTO notes]]."), "notes/x.md",
                       {"dotnet.md": "a#b.md"}, table)

    assert body == lines("See [[csharp]] and [[csharp|the DTO notes]].")
    assert other == lines("See [the DTO notes](../a%23b.md)."), "a Markdown link instead"


def test_a_wiki_link_is_never_repointed_by_a_key_two_memories_share() -> None:
    old = memory("old-deploy.md", lines("x"), name="old deploy")
    new = memory("deploy.md", lines("x"), name="deploy notes")
    other = memory("notes/deploy.md", lines("y"), name="deploy")  # "deploy" names two
    table = name_table([old, new, other])

    body, _ = repoint(lines("See [[old-deploy]]."), "c.md", {"old-deploy.md": "deploy.md"},
                      table)

    assert body == lines("See [[deploy notes]].")
    body, _ = repoint(lines("See [[old-deploy]]."), "c.md", {"old-deploy.md": "deploy.md"},
                      name_table([old, new, other,
                                  memory("x.md", lines("z"), name="deploy notes")]))
    assert body == lines("See [old-deploy](deploy.md)."), "no key left: a Markdown link"


def test_links_to_other_memories_and_urls_stay_as_they_are() -> None:
    old, new = _link_world()
    text = lines("See [x](keep.md), [[keep]], [web](https://example.com/old.md) and `old.md`.")
    keep = memory("keep.md", lines("y"))
    body, changed = repoint(text, "other.md", {"old.md": "new.md"}, name_table([old, new, keep]))
    assert body == text and changed == []


def test_a_link_from_a_sub_folder_memory_is_repointed_relative_to_it() -> None:
    old = memory("notes/old.md", lines("x"))
    new = memory("new.md", lines("x"))
    body, _ = repoint(lines("See [o](old.md)."), "notes/daily.md", {"notes/old.md": "new.md"},
                      name_table([old, new]))
    assert body == lines("See [o](../new.md).")


def test_a_parent_folder_link_to_a_merged_away_memory_is_repointed() -> None:
    old, new = _link_world()
    body, _changed = repoint(lines("See [o](../old.md)."), "notes/daily.md",
                            {"old.md": "new.md"}, name_table([old, new]))
    assert body == lines("See [o](../new.md).")


def test_a_repointed_link_keeps_its_anchor_and_title() -> None:
    old, new = _link_world()
    body, _ = repoint(lines('See [o](old.md#why "Why").'), "other.md", {"old.md": "new.md"},
                      name_table([old, new]))
    assert body == lines('See [o](new.md#why "Why").')
