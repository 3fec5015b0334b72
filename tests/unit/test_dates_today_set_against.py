"""Another language's "today", set against another day, and rules in asides (issue 25).

Our sense rules read English, Chinese and Japanese sentences word by word; in any other
language "today" may mean the day or "currently", so it is left as written unless the note's
name is dated. In a record of work whose text dates the passage, a "today" its sentence sets
against another day ("the listing from 25.08 — the validator today sees 427 addresses")
names that passage's day in either sense: the date glosses it. With no other day in its
sentence, in a rule, or where only the save time would date it, it is left.

A parenthesis is an aside: "(on by default, off with --no-install)" makes no rule of the
sentence around it, in any language, while the same words outside it still do.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

import pytest

from consolidator.detect.dates.relative import find_relative, relative_in, rewrite_relative
from consolidator.store.frontmatter import parse
from consolidator.store.model import FileStat, Memory

WRITTEN = datetime(2026, 10, 2, 9, 0)  # saved two days after the day the text names


def memory(mtype: str, body: str, name: str = "notes.md") -> Memory:
    data = f"---\nname: notes\ndescription: notes\ntype: {mtype}\n---\n{body}".encode()
    stat = FileStat(rel=name, size=len(data), mode=0o644,
                    mtime_ns=int(WRITTEN.timestamp() * 1_000_000_000),
                    sha256=hashlib.sha256(data).hexdigest())
    return Memory(stat, parse(data))


def glossed(body: str, mtype: str = "project") -> list[str]:
    return [f.replacement for f in relative_in(memory(mtype, body))]


@pytest.mark.parametrize("body, phrase", [
    ("Что видно в панелях на 30.09.2026:\n\nКарта от 25.08.2026 пуста, а валидатор сегодня "
     "видит 427 адресов.\n", "сегодня"),
    ("Estado al 2026-09-30:\n\nEl mapa del 2026-08-25 estaba vacío; hoy el validador ve "
     "427 direcciones.\n", "hoy"),
    ("**Stato al 30/09/2026:** la mappa del 25/08/2026 era vuota, oggi il validatore vede "
     "427 indirizzi.\n", "oggi"),
    ("## 2026-09-30\n\nLa carte du 2026-08-25 était vide ; aujourd'hui le validateur voit "
     "427 adresses.\n", "aujourd'hui"),
], ids=["ru-heading-line", "es-heading-line", "it-label", "fr-heading"])
def test_today_set_against_another_day_is_glossed_with_its_passages_day(
        body: str, phrase: str) -> None:
    assert glossed(body) == [f"{phrase} (2026-09-30)"]


@pytest.mark.parametrize("body", [
    # "today" as "currently", set against no other day
    "Estado al 2026-09-30:\n\nAntes decía smooth=True; hoy es smooth=False.\n",
    "Что видно на 30.09.2026:\n\nВалидатор сегодня видит 427 адресов без ошибок.\n",
    # nothing but the save time dates the passage
    "Карта от 25.08.2026 пуста, а валидатор сегодня видит 427 адресов.\n",
], ids=["es-currently", "ru-no-other-day", "ru-undated-passage"])
def test_today_is_left_where_its_sentence_sets_it_against_no_day_or_nothing_dates_it(
        body: str) -> None:
    assert glossed(body) == []


@pytest.mark.parametrize("mtype", ["feedback", "user", "reference"])
def test_only_a_record_of_work_dates_such_a_today(mtype: str) -> None:
    body = ("Что видно на 30.09.2026:\n\nКарта от 25.08.2026 пуста, а валидатор сегодня "
            "видит 427 адресов.\n")
    assert glossed(body, mtype) == []


def test_a_glossed_today_is_not_glossed_again() -> None:
    body = ("Что видно на 30.09.2026:\n\nКарта от 25.08.2026 пуста, а валидатор сегодня "
            "видит 427 адресов.\n")
    first = memory("project", body)
    once = rewrite_relative(first.body, relative_in(first))
    assert "сегодня (2026-09-30) видит" in once
    assert relative_in(memory("project", once)) == []


@pytest.mark.parametrize("body, phrase", [
    ("Stato al 2026-09-30:\n\nIn questa sessione ho fatto i push (attivi di default, "
     "disattivabili con --no-push).\n", "questa sessione"),
    ("Status on 2026-09-30:\n\nPushed the fix yesterday (we always push on Fridays).\n",
     "yesterday"),
    ("Estado al 2026-09-30:\n\nAyer se publicó la versión (siempre con la etiqueta "
     "estable).\n", "Ayer"),
], ids=["it-default", "en-always", "es-siempre"])
def test_a_rule_in_an_aside_leaves_the_sentence_a_record(body: str, phrase: str) -> None:
    found = relative_in(memory("project", body))
    assert [f.phrase for f in found] == [phrase]


@pytest.mark.parametrize("body", [
    "Stato al 2026-09-30:\n\nIn questa sessione i push sono attivi di default.\n",
    "Status on 2026-09-30:\n\nWe always push the fix yesterday's build needed.\n",
    "Estado al 2026-09-30:\n\nSiempre se publica lo de ayer (con la etiqueta estable).\n",
], ids=["it-default", "en-always", "es-siempre"])
def test_the_same_rule_outside_an_aside_still_leaves_the_day(body: str) -> None:
    assert relative_in(memory("project", body)) == []


def test_an_aside_that_holds_the_day_is_read_with_it() -> None:
    body = "Status on 2026-09-30:\n\nDeploys are manual (always ask before pushing today).\n"
    assert find_relative(body, WRITTEN, "notes.md", undated=False) == []


@pytest.mark.parametrize("body", [
    "Los tests cubren:\n- Filtrado por fecha (hoy vs ayer)\n- Las líneas rotas se ignoran\n",
    "Тесты покрывают:\n- Фильтр по дате: сегодня / вчера\n- Битые строки пропускаются\n",
    "Die Tests prüfen:\n- Der Datumsfilter: heute oder gestern\n- Die kaputten Zeilen\n",
])
def test_another_language_s_two_days_side_by_side_are_terms_not_days(body: str) -> None:
    """"hoy vs ayer" names two kinds of record a filter tells apart; dated one and not the
    other ("hoy vs ayer (2026-09-30)") it would read as an event. Both stay as written."""
    assert glossed(body) == []


def test_another_language_s_yesterday_alone_in_a_day_s_note_is_dated() -> None:
    assert glossed("Los tests cubren:\n- El filtro por fecha falló ayer en CI\n") == [
        "ayer (2026-10-01)"]
