"""Relative days in languages the tool has no forms of its own for, read from dateparser's
locale data: found as whole words, in the language the memory is written in."""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidator.detect.dates import locales
from consolidator.detect.dates.locales import find_locale, written_in


def found(text: str) -> list[tuple[str, str, int]]:
    return [(text[p.start : p.end], p.unit, p.shift) for p in find_locale(text)]


@pytest.mark.parametrize(("text", "want"), [
    ("Ieri abbiamo rilasciato la versione e il test non è passato, domani si riprova.",
     [("Ieri", "day", -1), ("domani", "day", 1)]),
    ("Gestern haben wir das Release gemacht und die Tests sind nicht durchgelaufen.",
     [("Gestern", "day", -1)]),
    ("Vor 3 Tagen ist der Build gebrochen und wir haben ihn nicht repariert, das ist so.",
     [("Vor 3 Tagen", "day", -3)]),
    ("Hier, nous avons déployé la version et les tests sont passés pour une fois.",
     [("Hier", "day", -1)]),
    ("Ayer desplegamos la versión y los tests no pasaron por la mañana.",
     [("Ayer", "day", -1)]),
    ("Ontem fizemos o deploy da versão e os testes não passaram para a equipe.",
     [("Ontem", "day", -1)]),
    ("어제는 배포를 했고 3일 전에 테스트가 실패했다.", [("어제", "day", -1), ("3일 전", "day", -3)]),
    ("Вчера мы выкатили релиз, завтра проверим.", [("Вчера", "day", -1), ("завтра", "day", 1)]),
    ("Hôm qua đã deploy bản mới và ngày mai sẽ kiểm tra lại, nếu có lỗi thì báo.",
     [("Hôm qua", "day", -1), ("ngày mai", "day", 1)]),
])
def test_relative_days_of_other_languages_are_found(text: str,
                                                     want: list[tuple[str, str, int]]) -> None:
    assert found(text) == want


@pytest.mark.parametrize(("text", "want"), [
    # a vowel sign ends the word: परस is no prefix of परसों; a word for two days is no day
    ("हमने कल नया संस्करण जारी किया और परसों हम परीक्षण करेंगे।", [("परसों", "day", -2)]),
    ("हमने परस नाम की फ़ाइल बदली और रिपोर्ट भेजी।", []),
    # short vowels written or not: غدًا is the locale's غدا
    ("أطلقنا النسخة الجديدة أمس وسنختبرها غدًا مع الفريق.",
     [("أمس", "day", -1), ("غدًا", "day", 1)]),
])
def test_words_of_scripts_with_combining_marks_are_whole(
    text: str, want: list[tuple[str, str, int]]
) -> None:
    assert found(text) == want


@pytest.mark.parametrize("text", [
    "The hier column holds each node's level, and the more we add the slower it is.",
    "Die Tabelle liegt hier und wird nicht mehr gepflegt, das ist so gewollt.",
    "Il file hierarchy.py non è usato per il momento e non serve più.",
    "La ieridad no es una palabra, y tampoco lo es para nosotros.",
])
def test_a_word_of_another_language_or_inside_a_word_is_not_a_day(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(("text", "want"), [
    ("내일까지는 배포를 막아 둔다.", [("내일", "day", 1)]),
    ("마감은 어제였다.", [("어제", "day", -1)]),
    ("오늘의 작업은 배포 확인이다.", [("오늘", "day", 0)]),
    ("오늘날 대부분의 팀은 CI를 쓴다.", []),  # "nowadays": a longer word
    ("내일모레 회의가 있다.", []),
    ("내일배움카드 신청 안내를 추가했다.", []),
])
def test_korean_particles_written_on_a_day_are_a_closed_class(
    text: str, want: list[tuple[str, str, int]]
) -> None:
    assert found(text) == want


def test_the_language_is_told_by_its_commonest_words() -> None:
    assert written_in("Il test non è passato e la build è rossa per il modulo della cache.") \
        == {"it"}
    assert written_in("The build is red and the cache is stale for the whole module.") == {"en"}
    assert written_in("ok") == frozenset()


def test_without_dateparser_nothing_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locales, "_data_folder", lambda: None)
    for cached in (locales._files, locales._language_of, locales._by_first_word):
        cached.cache_clear()
    try:
        assert found("Вчера мы выкатили релиз.") == []
    finally:
        for cached in (locales._files, locales._language_of, locales._by_first_word):
            cached.cache_clear()


def test_only_the_locales_a_text_may_hold_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    real = locales._read

    def counting(path: Path) -> dict[str, object] | None:
        read.append(path.stem)
        return real(path)

    monkeypatch.setattr(locales, "_read", counting)
    for cached in (locales._files, locales._language_of, locales._by_first_word):
        cached.cache_clear()
    try:
        # English, Chinese and Japanese (the tool's own forms), emoji and dashes: none.
        assert found("Yesterday — 昨天我们发布了新版本，明日はテスト 🙂 and the build is green.") == []
        assert read == []
        assert found("Ieri abbiamo rilasciato la versione e il test non è passato.") == [
            ("Ieri", "day", -1)]
        assert read and all(code.split("-")[0] == "it" for code in read)
        assert found("Вчера мы выкатили релиз.") == [("Вчера", "day", -1)]
        assert len(read) > 100  # another script: every locale of one
    finally:
        for cached in (locales._files, locales._language_of, locales._by_first_word):
            cached.cache_clear()
