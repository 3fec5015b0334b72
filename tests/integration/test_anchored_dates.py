"""Relative dates are rewritten only where a date dates them: the date the text gives for the
passage (a heading, a dated label, the note's date line, a dated file name) or Claude Code's
``modified`` stamp; the mtime only for a record of one day. Each class in several languages,
with its twin that is left alone: a session log's "yesterday" under its dated heading is
rewritten; the same word in a routine, a rule memory or an undated passage of a long note is
not. Words for languages the tool has no forms of its own come from dateparser's locale data.

Every case goes through the command line (``report --format json``) on real files.
"""

from __future__ import annotations

import json
import os
import re
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from consolidator.cli import main

DAY = 86400


def put(root: Path, rel: str, body: str, *, kind: str = "project", days: float = 5,
        extra: str = "", description: str = "", name: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name or path.stem}\ndescription: {description or path.stem}\n"
                    f"type: {kind}\n{extra}"
                    f"---\n{body}", encoding="utf-8")
    when = time.time() - days * DAY
    os.utime(path, (when, when))


def rewrites(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """File -> the reason of its relative-date rewrite, as the report plans it."""
    assert main(["report", "--format", "json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    found: Any = json.loads(capsys.readouterr().out)["roots"][0]
    return {a["file"]: a["reason"] for a in found["actions"]
            if a["op"] == "rewrite" and a["reason"].startswith("relative date")}



LOGS = {
    "en": "# Session log\n\n## 2026-03-20\n\n- Yesterday we shipped the importer to staging.\n",
    "it": "# Diario\n\n## 2026-03-20\n\n- Ieri abbiamo rilasciato il nuovo importatore e non "
          "ci sono stati errori per la prima volta.\n",
    "ko": "# 작업 기록\n\n## 2026-03-20\n\n- 어제 배포를 마쳤고 오류는 없었다.\n",
    "ru": "# Журнал\n\n## 2026-03-20\n\n- Вчера выкатили новый импорт, ошибок не было.\n",
}


# The same logs dated as each language writes a date: a month's name in its own language,
# day-month-year with hyphens, Korean's 년/월/일.
NAMED_DAYS = {
    "en": "# Log\n\n## 20-Mar-2026\n\n- Yesterday we shipped the new importer with no errors.\n",
    "it": "# Diario\n\n## 20-mar-2026\n\n- Ieri abbiamo rilasciato il nuovo importatore e non "
          "ci sono stati errori per la prima volta.\n",
    "de": "# Protokoll\n\n## 20. März 2026\n\n- Gestern haben wir den neuen Import "
          "ausgeliefert und es gab keine Fehler.\n",
    "es": "# Diario\n\n## 20 de marzo de 2026\n\n- Ayer publicamos el nuevo importador y no "
          "hubo errores en la carga.\n",
    "fr": "# Journal\n\n## 20 mars 2026\n\n- Hier nous avons livré le nouvel import et il n'y a "
          "pas eu d'erreur.\n",
    "ko": "# 작업 기록\n\n## 2026년 3월 20일\n\n- 어제 배포를 마쳤고 오류는 없었다.\n",
    "ru": "# Журнал\n\n## 20 марта 2026\n\n- Вчера выкатили новый импорт, ошибок не было.\n",
}


@pytest.mark.parametrize("log", [*(("iso", lang) for lang in sorted(LOGS)),
                                 *(("named", lang) for lang in sorted(NAMED_DAYS))])
def test_a_session_logs_yesterday_counts_from_its_heading(
    log: tuple[str, str], root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its heading dated as ISO, or as the log's own language writes a date.
    dated, lang = log
    put(root, f"project_log_{lang}.md", (LOGS if dated == "iso" else NAMED_DAYS)[lang],
        days=200)
    found = rewrites(root, tmp_path, capsys)
    assert "-> 2026-03-19" in found[f"project_log_{lang}.md"]


ROUTINES = {
    "en": "Every morning at stand-up, ask him what he did yesterday and what blocks him.\n",
    "it": "Ogni mattina chiedi cosa ha fatto ieri e che cosa lo blocca per la giornata.\n",
    "ko": "매일 아침 스탠드업에서 어제 한 일과 막힌 점을 물어본다.\n",
    "ru": "Каждое утро на стендапе спрашивай, что он сделал вчера и что ему мешает.\n",
}


@pytest.mark.parametrize("lang", sorted(ROUTINES))
def test_a_routines_yesterday_in_a_rule_memory_is_left_alone(
    lang: str, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, f"feedback_standup_{lang}.md", ROUTINES[lang], kind="feedback")
    assert rewrites(root, tmp_path, capsys) == {}


def test_a_short_undated_project_note_is_a_record_of_its_day(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "project_demo.md", "The client demo moved; we agreed on it yesterday.\n")
    put(root, "project_demo_it.md", "La demo è stata spostata: ne abbiamo parlato ieri con il "
        "cliente e non ci sono stati problemi.\n")
    found = rewrites(root, tmp_path, capsys)
    assert set(found) == {"project_demo.md", "project_demo_it.md"}


@pytest.mark.parametrize("body", [
    "Release 2 went out on 2026-02-03.\n\nThe migration finished yesterday, with no downtime.\n",
    # Dated as French writes a date: its save time is no more the day of the rest.
    "## Stock : 115 800 (20 mars 2026)\n\n- Import stable.\n\n"
    "## Questions\n\n- On a revu le filtre hier avec le client, il reste trop strict.\n",
])
def test_an_undated_passage_of_a_note_that_dates_others_is_left_alone(
    body: str, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "project_release.md", body)
    assert rewrites(root, tmp_path, capsys) == {}


@pytest.mark.parametrize(("description", "body", "day"), [
    ("Project status as of 2026-04-11",
     "## Open questions\n\n1. Is the strict volume filter too strict? Check tomorrow.\n",
     "2026-04-12"),
    ("État du projet au 2026-04-11",
     "## Questions ouvertes\n\nOn a revu le filtre hier avec le client, il reste trop strict.\n",
     "2026-04-10"),
])
def test_a_note_whose_description_gives_its_day_is_dated_by_its_save_only_that_day(
    description: str, body: str, day: str, root: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str]
) -> None:
    # Its text is of the day the description names: saved on another day, the save time
    # would give the wrong day, so the phrase is left as written; saved that same day, the
    # two agree and date it.
    path = root / "project_status.md"
    path.write_text(f"---\nname: project_status\ndescription: {description}\ntype: project\n"
                    f"---\n{body}", encoding="utf-8")
    later = datetime(2026, 4, 20, 12).timestamp()
    os.utime(path, (later, later))
    assert rewrites(root, tmp_path, capsys) == {}
    same_day = datetime(2026, 4, 11, 12).timestamp()
    os.utime(path, (same_day, same_day))
    assert f"-> {day}" in rewrites(root, tmp_path, capsys)["project_status.md"]


@pytest.mark.parametrize("kind", ["feedback", "reference", "user"])
def test_a_rule_profile_or_reference_counts_from_its_modified_stamp_only(
    kind: str, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, f"{kind}_plain.md", "From tomorrow on, CI checks every commit message.\n",
        kind=kind)
    put(root, f"{kind}_stamped.md", "From tomorrow on, CI checks every pull request title.\n",
        kind=kind, extra="modified: 2026-06-10T09:00:00.000Z\n")
    found = rewrites(root, tmp_path, capsys)
    assert set(found) == {f"{kind}_stamped.md"}
    assert "-> 2026-06-11" in found[f"{kind}_stamped.md"]


def test_a_stamp_older_than_a_date_in_the_text_dates_nothing(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The text gives a day after Claude Code's stamp: lines were added after it (by hand, or
    # in a copy), so the stamp does not date the undated passage. Its twin gives none.
    stamp = "modified: 2026-06-10T09:00:00.000Z\n"
    put(root, "project_seed.md", "With the account activated yesterday, new rows land in the "
        "sales inbox.\n\nMeasured on 2026-06-20: 352 rows.\n", extra=stamp)
    put(root, "project_seed_twin.md", "With the account activated yesterday, new rows land in "
        "the sales inbox.\n\nMeasured on 2026-06-10: 352 rows.\n", extra=stamp)
    assert set(rewrites(root, tmp_path, capsys)) == {"project_seed_twin.md"}


def test_a_dated_file_name_dates_a_reference_too(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "notes/meeting_2026-04-07.md", "Demain on envoie le contrat signé au client, "
        "et nous avons fixé le prix avec lui.\n", kind="reference")
    found = rewrites(root, tmp_path, capsys)
    assert "-> 2026-04-08" in found["notes/meeting_2026-04-07.md"]


def test_a_word_of_another_language_in_an_english_memory_is_not_a_date(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "hier" is French for yesterday; in English (or German) text it is not.
    put(root, "project_terms.md", "The hier column holds the level of each node in the tree, "
        "and we added it to the schema.\n")
    put(root, "project_de.md", "Die Tabelle liegt hier und wird nicht mehr von uns gepflegt, "
        "das ist so gewollt.\n")
    assert rewrites(root, tmp_path, capsys) == {}


def test_an_inserted_date_in_another_language_takes_no_english_word(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another language's word for the day stays, the date glossing it: its grammar around
    a date ("il 19 marzo", "el 2026-08-26") is not ours to write, and no English word goes in."""
    put(root, "project_log.md", "## 2026-03-20\n\n- Ieri abbiamo chiuso il ticket e il test "
        "non è più rosso per la prima volta.\n", days=100)
    assert main(["run", "--force", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state"), "--config", str(all_config(tmp_path))]
                ) == 0
    text = (root / "project_log.md").read_text(encoding="utf-8")
    assert "- Ieri (2026-03-19) abbiamo chiuso il ticket" in text


def all_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text('[consolidate]\napply = "all"\n', encoding="utf-8")
    return path


def test_where_no_rule_of_ours_reads_the_sentence_today_and_instructions_are_left(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A dated log in Vietnamese: "yesterday" in its narrative is a day; "today's tasks" and
    # the "How to apply" instruction (read in a later session) are not.
    put(root, "notes/session_log_2026-06-16.md",
        "- Hôm qua đã sửa lỗi đồng bộ và không còn lỗi nào trong bản build.\n"
        "- Danh sách việc hôm nay của nhóm nằm trong bảng và được cập nhật.\n\n"
        "**How to apply:** Khi mở session mới, đọc file này để biết context hôm qua và "
        "các việc còn lại của nhóm.\n", days=100)
    reason = rewrites(root, tmp_path, capsys)["notes/session_log_2026-06-16.md"]
    assert reason == "relative date 'Hôm qua' -> 2026-06-15"


@pytest.mark.parametrize("text", [
    "- 오늘 배포를 마쳤고 오류는 없었다.\n",
    "Heute haben wir das Release gemacht und alle Tests sind grün geworden.\n",
])
def test_another_languages_today_counts_only_in_a_note_whose_name_is_dated(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    # Whatever "today" means there (the day, or "currently"), a note named for its day says
    # which day. Under a dated heading of an undated name it is left: it may be an app's
    # "today's quiz" or "currently" in a note that is added to.
    put(root, "notes/session_log_2026-06-16.md", text, days=100)
    found = rewrites(root, tmp_path, capsys)
    assert found["notes/session_log_2026-06-16.md"].endswith("-> 2026-06-16")
    twin = tmp_path / "twin"  # its own root: the two would be one memory said twice
    put(twin, "notes/session_log.md", f"## 2026-06-16\n\n{text}", days=100)
    assert rewrites(twin, tmp_path, capsys) == {}


def test_a_memory_whose_date_is_rewritten_is_still_reported_similar(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An edit in place changes one phrase; the pair is still two memories to look at.
    rule = "Ask the platform team in the ops channel before touching the shared cluster.\n"
    put(root, "reference_cluster.md", rule, kind="reference")
    put(root, "project_cluster.md", f"{rule}\n## 2026-03-20\n\n- Yesterday we rebuilt the "
        "shared cluster from its snapshot.\n", days=100)
    assert main(["report", "--format", "json", "--memory-dir", str(root),
                 "--state-dir", str(tmp_path / "state")]) == 0
    found: Any = json.loads(capsys.readouterr().out)["roots"][0]
    assert ("rewrite", "project_cluster.md") in [(a["op"], a["file"]) for a in found["actions"]]
    assert [sorted(s["files"]) for s in found["similar"]] == [
        ["project_cluster.md", "reference_cluster.md"]]


@pytest.mark.parametrize(("lang", "day", "left"), [
    ("ko", "- 어제 배포를 마쳤고 오류는 없었다.\n",
     "- 내일배움카드 신청 안내를 페이지에 추가했다.\n- 7일 후 문의 항목은 자동으로 익명화된다.\n"),
    ("ru", "- Вчера выкатили новый импорт, ошибок не было.\n",
     "- Логи запросов удаляются через 7 дней после записи.\n"),
    ("fr", "- Hier nous avons publié la nouvelle version et il n'y a pas eu d'erreur.\n",
     "- Les journaux sont effacés dans 7 jours après leur écriture, ce n'est pas un jour.\n"),
])
def test_a_word_that_starts_a_longer_word_and_in_n_days_are_left(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, day: str,
    left: str
) -> None:
    # In a log its file name dates: "yesterday" is a day; a programme's name that starts
    # with "tomorrow" (Korean spaces its words, a particle is written on: 내일까지) and
    # "in N days", as often how long something takes as a day, are left as written.
    put(root, f"notes/log_{lang}_2026-03-20.md", day + left, days=100)
    reason = rewrites(root, tmp_path, capsys)[f"notes/log_{lang}_2026-03-20.md"]
    assert reason.count("->") == 1 and "-> 2026-03-19" in reason


def test_a_korean_word_with_stacked_particles_is_still_a_day(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    put(root, "notes/log_2026-03-20.md", "- 어제까지는 배포가 막혀 있었고 오늘 풀렸다.\n", days=100)
    reason = rewrites(root, tmp_path, capsys)["notes/log_2026-03-20.md"]
    assert "'어제' -> 2026-03-19" in reason


# A status memory whose description dates it, its sections dated that same day, and an undated
# "next steps" section: in French, English and Spanish.
STATUS = {
    "fr": ("Avancement du projet au 2026-04-11",
           "## Stock en base (11 avril 2026)\n\n- 115 800 biens.\n\n## Prochaines étapes\n\n"
           "1. Observer le volume du filtre strict demain avant de l'élargir.\n"),
    "en": ("Project status as of 2026-04-11",
           "## Stock (11 April 2026)\n\n- 115,800 listings.\n\n## Next steps\n\n"
           "1. Watch the strict filter's volume tomorrow before widening it.\n"),
    "es": ("Estado del proyecto al 2026-04-11",
           "## Inventario (11 de abril de 2026)\n\n- 115.800 anuncios en la base, de los que la "
           "mitad son nuevos.\n\n## Próximos pasos\n\n1. Revisar mañana el volumen del filtro "
           "estricto y, si no es suficiente, volver a la configuración anterior.\n"),
}


@pytest.mark.parametrize("lang", sorted(STATUS))
def test_a_description_borne_out_by_the_sections_dates_an_undated_section(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    description, body = STATUS[lang]
    put(root, "project_status.md", body, description=description, days=30)
    # Twins, each left alone: a description date the text does not bear out (a section of
    # another day), one the text gives no date for, and one Claude Code stamped later.
    put(root, "project_other_day.md", body.replace("11", "9", 1), description=description,
        days=30)
    put(root, "project_bare.md", body.split("## ", 2)[-1].split("\n", 1)[1],
        description=description, days=30)
    put(root, "project_stamped.md", body, description=description, days=30,
        extra="modified: 2026-05-02T09:00:00.000Z\n")

    found = rewrites(root, tmp_path, capsys)

    assert set(found) == {"project_status.md"}
    assert "-> 2026-04-12" in found["project_status.md"]


def test_a_description_naming_an_event_a_range_or_a_rule_dates_nothing(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The day of an event the text gives in a sentence (a postmortem saved days later); a
    # description naming a week; the same status written as a rule memory: each "yesterday"
    # or "tomorrow" is left as written.
    put(root, "project_postmortem.md", "## Timeline\n\n- The outage began on 2026-04-11 at "
        "noon.\n\n## Findings\n\n- Root cause found yesterday: the pool was too small.\n",
        description="Postmortem of the outage on 2026-04-11", days=30)
    put(root, "project_week.md", "## Done (11 April 2026)\n\n- Imports.\n\n## Next\n\n"
        "- Watch the strict filter's volume tomorrow.\n",
        description="Status for 11-15 April 2026", days=30)
    put(root, "feedback_status.md", STATUS["en"][1], kind="feedback",
        description=STATUS["en"][0], days=30)

    assert rewrites(root, tmp_path, capsys) == {}


# A status note whose name is its title with its day, and an undated section of next steps:
# in Chinese, English and Korean.
TITLED = {
    "zh": ("部署状态（2026-05-10 收工）", "# 已部署\n\n- 三个修复已上线（2026-05-08 起测）。\n\n"
           "# 待办\n\n- 明天继续改切片逻辑。\n", "2026-05-11"),
    "en": ("Deploy status (2026-05-10 wrap-up)", "# Shipped\n\n- Three fixes are live, "
           "tested since 2026-05-08.\n\n# Still to do\n\n- Tomorrow we rework the slicing.\n",
           "2026-05-11"),
    "ko": ("배포 현황 (2026-05-10 기준)", "## 완료\n\n- 수정 세 건 배포 (2026-05-08 시작).\n\n"
           "## 남은 일\n\n- 어제 찾은 버그를 고친다.\n", "2026-05-09"),
    # A time after the title's date ends no range; a range of amounts ("$12-25k") is no
    # later date in the text.
    "en, a time": ("Current state (2026-05-10 ~04:00 UTC)", "# Shipped\n\n- Three fixes "
                   "are live, tested since 2026-05-08; ~$12-25k at risk.\n\n# Still to do"
                   "\n\n- Tomorrow we rework the slicing.\n", "2026-05-11"),
}
UNTITLED = re.compile(r"\s*[(（]2026-05-10[^)）]*[)）]")


@pytest.mark.parametrize("lang", sorted(TITLED))
@pytest.mark.parametrize("twin", ["titled", "untitled", "added", "rule", "described",
                                  "stamped"])
def test_a_note_titled_with_its_day_dates_its_undated_sections(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, twin: str
) -> None:
    title, body, day = TITLED[lang]
    # Twins, each left alone: the same text titled without the day; a later date in its
    # text (lines added since); a rule memory; a description naming another day. A stamp by Claude Code of another day counts
    # instead of the title (lines were saved that later day).
    put(root, "project_status.md", UNTITLED.sub("", body) if twin == "untitled" else
        body + "\n- 2026-05-20: reviewed.\n" if twin == "added" else body,
        name=UNTITLED.sub("", title) if twin == "untitled" else title,
        kind="feedback" if twin == "rule" else "project", days=30,
        description="Status as of 2026-05-12" if twin == "described" else "",
        extra="modified: 2026-05-14T09:00:00.000Z\n" if twin == "stamped" else "")

    found = rewrites(root, tmp_path, capsys)

    if twin == "stamped":
        day = day.replace("05-11", "05-15").replace("05-09", "05-13")
    if twin in ("titled", "stamped"):
        assert set(found) == {"project_status.md"}
        assert f"-> {day}" in found["project_status.md"]
    else:
        assert found == {}


@pytest.mark.parametrize("title", [
    "Moteur API (legacy — API coupée 2026-04-06)",  # the aside tells of an event
    "Sprint (2026-05-10 ~ 2026-05-14)",  # a range of days
    "Sprint review (2026-05-10..14)",
    "Migration (2026-05-10 after the review with the data team)",  # a sentence, not a label
])
def test_a_title_whose_aside_names_an_event_or_a_range_dates_nothing(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], title: str
) -> None:
    put(root, "project_status.md", "## Done\n\n- Tested since 2026-05-08.\n\n## Next\n\n"
        "- Tomorrow we rework the slicing.\n", name=title, days=30)

    assert rewrites(root, tmp_path, capsys) == {}


def _stamp(local: datetime) -> str:
    """Claude Code's `modified` line for a moment of this machine's local time."""
    return f"modified: {local.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.000Z')}\n"


@pytest.mark.parametrize(("opening", "saved", "day"), [
    ("End of day 2026-09-21.", datetime(2026, 9, 22, 1, 51), None),  # saved past midnight
    ("Fim do dia 21/09/2026.", datetime(2026, 9, 22, 1, 51), None),
    ("Started on 2026-09-18.", datetime(2026, 9, 22, 1, 51), "2026-09-23"),  # days before
    ("End of day 2026-09-21.", datetime(2026, 9, 21, 23, 40), "2026-09-22"),  # before midnight
])
def test_a_stamp_in_the_small_hours_after_the_texts_day_dates_no_undated_passage(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], opening: str,
    saved: datetime, day: str | None,
) -> None:
    put(root, "project_handoff.md", f"{opening} The deploy is half done.\n\n## Next\n\n"
        "- Commit the hooks first thing tomorrow.\n", days=30, extra=_stamp(saved))

    found = rewrites(root, tmp_path, capsys)

    if day is None:
        assert found == {}
    else:
        assert f"-> {day}" in found["project_handoff.md"]
