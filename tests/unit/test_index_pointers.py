"""New pointer lines: where they go (the type's heading, the index's list heading, after the
last pointer, at the end), how they read (titled in words, in the index's own style) and how
long they are."""

from __future__ import annotations

import hashlib

import pytest

from consolidator.index.parse import classify, parse_index
from consolidator.index.pointers import Style, pointer_line, style_of, title_of
from consolidator.store import frontmatter
from consolidator.store.model import FileStat, Memory
from tests.unit.test_index_rebuild import BASE_NS, lines_of, make_memory, pointer_targets, rebuild

NEW = make_memory("project_new-thing.md", name="project_new-thing", description="A new thing")
NEW_LINE = "- [New thing](project_new-thing.md) — A new thing"


def above(out: list[str], file: str) -> str:
    """The line right above the first line of ``out`` that links ``file``."""
    return out[next(i for i, line in enumerate(out) if file in line) - 1]


def a_and_b() -> list[Memory]:
    return [make_memory("a.md"), make_memory("b.md")]


# --- titles ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("feedback_no-mocks", "No mocks"),
        ("feedback_no_mock", "No mock"),
        ("project_release-day", "Release day"),
        ("user_role", "Role"),
        ("reference-grafana_dashboards", "Grafana dashboards"),
        ("deploy_rules", "Deploy rules"),  # no type prefix: every word kept
        ("feedback", "feedback"),  # a lone type word is the whole name
        ("Deploy Rules", "Deploy Rules"),  # not a slug: as written
        ("サーバー設定", "サーバー設定"),
        ("a", "a"),
    ],
)
def test_a_memory_is_titled_by_its_name_in_words(name: str, title: str) -> None:
    assert title_of(make_memory("x.md", name=name)) == title


def test_a_memory_with_an_empty_name_is_titled_by_its_file_stem_in_words() -> None:
    memory = make_memory("project_release-day.md", name="", description="Thursday")

    assert title_of(memory) == "Release day"


# --- style -----------------------------------------------------------------------------------


def test_the_style_is_the_one_most_pointer_lines_share() -> None:
    lines = parse_index(
        "* **[A](a.md)**: a\n* **[B](b.md)**: b\n- [C](c.md) — c\n  - [D](d.md) — nested\n"
    )

    assert style_of(lines) == Style("*", True, ": ")


def test_an_index_with_no_pointers_gets_the_default_style() -> None:
    assert style_of(parse_index("# Index\nA fact.\n")) == Style("-", False, " — ")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        pytest.param("- [A](a.md) — a\n- [B](b.md) — b\n", NEW_LINE, id="dash"),
        pytest.param(
            "* [A](a.md) — a\n* [B](b.md) — b\n",
            "* [New thing](project_new-thing.md) — A new thing",
            id="star",
        ),
        pytest.param(
            "- **[A](a.md)** — a\n- **[B](b.md)** — b\n",
            "- **[New thing](project_new-thing.md)** — A new thing",
            id="bold",
        ),
        pytest.param(
            "- [A](a.md): a\n- [B](b.md): b\n",
            "- [New thing](project_new-thing.md): A new thing",
            id="colon",
        ),
        pytest.param(
            "* **[A](a.md)**; a\n* **[B](b.md)**; b\n",
            "* **[New thing](project_new-thing.md)**; A new thing",
            id="star-bold-semicolon",
        ),
        pytest.param(
            "1. [A](a.md): a\n2. [B](b.md): b\n",
            "3. [New thing](project_new-thing.md): A new thing",
            id="numbered",
        ),
    ],
)
def test_a_new_pointer_follows_the_style_of_the_existing_ones(text: str, line: str) -> None:
    plan = rebuild(text, [*a_and_b(), NEW])

    assert lines_of(plan.text) == lines_of(text) + [line]
    assert plan.added == ("project_new-thing.md",)


# --- length ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bold", [False, True])
def test_a_new_pointer_line_is_at_most_150_characters(bold: bool) -> None:
    memory = make_memory(
        "z.md", name="project_" + "very-long-" * 20, description="a long description " * 10
    )

    line = pointer_line(memory, 150, Style("-", bold, " — "))

    parsed = classify(line)
    assert parsed.kind == "pointer" and parsed.target == "z.md"
    assert len(line) <= 150
    assert line.endswith("…")


def test_a_new_pointer_in_a_full_index_is_at_most_150_characters() -> None:
    long = make_memory("z.md", name="project_" + "word-" * 40, description="d " * 100)

    plan = rebuild("- **[A](a.md)**: a\n", [make_memory("a.md"), long])

    [_, added] = lines_of(plan.text)
    assert classify(added).target == "z.md"
    assert len(added) <= 150
    assert added.startswith("- **[Word word")


# --- where a new pointer goes ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "memory"),
    [
        ("## Feedback", make_memory("feedback_x.md", mtype="feedback", description="x")),
        ("## フィードバック", make_memory("feedback_x.md", mtype="feedback", description="x")),
        ("## プロジェクト", make_memory("project_x.md", description="x")),
        ("## 项目", make_memory("project_x.md", description="x")),
        ("## 참고 자료", make_memory("reference_x.md", mtype="reference", description="x")),
        ("## 参照", make_memory("reference_x.md", mtype="reference", description="x")),
        ("## About the user", make_memory("user_x.md", mtype="user", description="x")),
        ("### References", make_memory("reference_x.md", mtype="reference", description="x")),
    ],
)
def test_a_new_pointer_goes_at_the_end_of_its_types_section(heading: str, memory: Memory) -> None:
    # Another heading holds more pointers; the type's own heading still wins.
    text = (
        f"# Memory\n\n## Index\n- [A](a.md) — a\n- [B](b.md) — b\n\n{heading}\n"
        "- [C](c.md) — c\n\n## Last\nA paragraph.\n"
    )
    memories = [*a_and_b(), make_memory("c.md"), memory]

    plan = rebuild(text, memories)

    out = lines_of(plan.text)
    assert out[: out.index(heading) + 2] == lines_of(text)[: out.index(heading) + 2]
    assert classify(out[out.index(heading) + 2]).target == memory.file
    assert out[out.index(heading) + 3 :] == ["", "## Last", "A paragraph."]


@pytest.mark.parametrize("heading", ["## 参考資料", "## 参考资料"])
def test_a_new_reference_pointer_goes_under_a_cjk_reference_heading(heading: str) -> None:
    text = (
        "# メモリ\n\n## フィードバック\n- [テスト](feedback_a.md) — 実DB\n- [型](feedback_b.md) — 型\n"
        f"\n{heading}\n- [既存](reference_g.md) — ダッシュボード\n"
        "\n## プロジェクト\n- [リリース](project_r.md) — 木曜\n"
    )
    memories = [
        make_memory("feedback_a.md", mtype="feedback"),
        make_memory("feedback_b.md", mtype="feedback"),
        make_memory("reference_g.md", mtype="reference"),
        make_memory("project_r.md"),
        make_memory("reference_n.md", name="reference_sentry", mtype="reference",
                    description="Sentry の場所"),
    ]

    plan = rebuild(text, memories)

    out = lines_of(plan.text)
    at = out.index(heading)
    assert out[at + 1 : at + 3] == [
        "- [既存](reference_g.md) — ダッシュボード",
        "- [Sentry の場所](reference_n.md)",  # titled in the index's script
    ]


def test_a_new_pointer_goes_under_the_index_heading_not_above_it() -> None:
    text = (
        "# Memory\n\nSome intro about this project.\n\n## Index\n- [A](a.md) — alpha\n"
        "- [B](b.md) — beta\n\n## Notes\nA paragraph.\n"
    )

    plan = rebuild(text, [*a_and_b(), NEW])

    assert lines_of(plan.text) == [
        "# Memory", "", "Some intro about this project.", "",
        "## Index", "- [A](a.md) — alpha", "- [B](b.md) — beta", NEW_LINE,
        "", "## Notes", "A paragraph.",
    ]


def test_a_list_heading_is_preferred_to_a_heading_with_more_pointers() -> None:
    text = (
        "## Memories\n- [A](a.md) — a\n\n## Misc\n- [B](b.md) — b\n- [C](c.md) — c\n"
        "- [D](d.md) — d\n"
    )
    memories = [make_memory(f"{x}.md") for x in "abcd"] + [NEW]

    plan = rebuild(text, memories)

    assert lines_of(plan.text)[:3] == ["## Memories", "- [A](a.md) — a", NEW_LINE]


def test_a_cjk_list_heading_is_the_index_heading() -> None:
    text = "## 目次\n- [A](a.md) — a\n\n## メモ\n- [B](b.md) — b\n- [C](c.md) — c\n\n本文。\n"
    memories = [make_memory(f"{x}.md") for x in "abc"] + [NEW]

    plan = rebuild(text, memories)

    assert lines_of(plan.text)[:3] == ["## 目次", "- [A](a.md) — a", NEW_LINE]


def test_with_no_list_heading_the_heading_over_most_pointers_is_used() -> None:
    text = (
        "## Stuff\n- [A](a.md) — a\n\n## More stuff\n- [B](b.md) — b\n- [C](c.md) — c\n"
        "\n## End\ntext\n"
    )
    memories = [make_memory(f"{x}.md") for x in "abc"] + [NEW]

    plan = rebuild(text, memories)

    assert lines_of(plan.text) == [
        "## Stuff", "- [A](a.md) — a", "",
        "## More stuff", "- [B](b.md) — b", "- [C](c.md) — c", NEW_LINE,
        "", "## End", "text",
    ]


CATEGORIES = ("# Pamięć projektu\n\n## Decyzje\n- [Nie WordPress](decision_wp.md) — dlaczego\n"
              "\n## Do zrobienia\n- [OAuth](todo_oauth.md) — logowanie\n"
              "\n## Обратная связь\n- [Tests](feedback_tests.md) — izolowane testy\n")
OLD = [make_memory("decision_wp.md"), make_memory("todo_oauth.md"),
       make_memory("feedback_tests.md", mtype="feedback")]


def test_in_an_index_of_its_own_categories_a_pointer_joins_the_files_named_like_it() -> None:
    # Each section holds one pointer: none is the list, and no heading names a type. A file
    # named with a section's first word (decision_, todo_), or with its type as a section's
    # files are named (a feedback memory beside feedback_ files), goes there.
    new = [make_memory("decision_host.md", description="host"),
           make_memory("todo_api.md", description="api"),
           make_memory("git_rules.md", description="rules", mtype="feedback")]

    out = lines_of(rebuild(CATEGORIES, OLD + new).text)

    assert "(decision_host.md)" in out[out.index("## Decyzje") + 2]
    assert "(todo_api.md)" in out[out.index("## Do zrobienia") + 2]
    assert "(git_rules.md)" in out[out.index("## Обратная связь") + 2]
    assert len(out) == len(lines_of(CATEGORIES)) + 3  # no heading added


def test_in_an_index_of_its_own_categories_an_unplaced_pointer_gets_its_types_heading() -> None:
    # Nothing shows which category holds a reference: it is not filed under the first one,
    # but under a heading of its type at the end.
    new = make_memory("reference_map.md", description="map", mtype="reference")

    out = lines_of(rebuild(CATEGORIES, [*OLD, new]).text)

    assert out[-3:-1] == ["", "## Reference"] and "(reference_map.md)" in out[-1]
    assert out[:len(lines_of(CATEGORIES))] == lines_of(CATEGORIES)


def test_with_pointers_under_no_heading_a_new_one_follows_the_last_pointer() -> None:
    text = "- [A](a.md) — a\n- [B](b.md) — b\n\nA closing paragraph.\n"

    plan = rebuild(text, [*a_and_b(), NEW])

    assert lines_of(plan.text) == [
        "- [A](a.md) — a", "- [B](b.md) — b", NEW_LINE, "", "A closing paragraph.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "# Memory\n\nA paragraph about things.\n",
        "# Memory\n\nA paragraph about things.",
        "A paragraph about things.\r\n",
    ],
    ids=["paragraph", "no-final-newline", "crlf"],
)
def test_a_pointer_appended_after_a_paragraph_gets_a_blank_line_first(text: str) -> None:
    newline = "\r\n" if "\r\n" in text else "\n"

    plan = rebuild(text, [NEW], newline=newline)

    assert lines_of(plan.text) == lines_of(text) + ["", NEW_LINE]
    assert plan.text.endswith(NEW_LINE + newline)
    if newline == "\r\n":
        assert "\n" not in plan.text.replace("\r\n", "")


def test_a_pointer_appended_after_a_list_item_needs_no_blank_line() -> None:
    text = "# Memory\n\n- pnpm, never npm\n"

    plan = rebuild(text, [NEW])

    assert lines_of(plan.text) == ["# Memory", "", "- pnpm, never npm", NEW_LINE]


@pytest.mark.parametrize("text", [None, "", "\n\n\n", "\r\n"])
def test_a_fresh_index_gets_a_title_and_a_heading_per_type(text: str | None) -> None:
    memories = [
        NEW,
        make_memory("feedback_x.md", name="feedback_no-mocks", mtype="feedback",
                    description="Tests hit a real database"),
        make_memory("user_r.md", name="user_role", mtype="user", description="Backend engineer"),
        make_memory("loose.md", mtype=None, description="Untyped"),
    ]

    plan = rebuild(text, memories)

    assert lines_of(plan.text) == [
        "# Memory index",
        "",
        "## Feedback",
        "- [No mocks](feedback_x.md) — Tests hit a real database",
        "",
        "## Project",
        NEW_LINE,
        "",
        "## User",
        "- [Role](user_r.md) — Backend engineer",
        "",
        "## Other",
        "- [loose](loose.md) — Untyped",
    ]
    assert set(plan.added) == {m.file for m in memories}


def test_a_memory_listed_in_a_topic_memory_the_index_points_to_needs_no_pointer() -> None:
    topic = (
        "---\nname: index_project\ndescription: moved lines\ntype: project\n---\n# Project\n\n"
        "- [B](b.md) — b\n"
    ).encode()
    topic_memory = Memory(
        FileStat("index_project.md", len(topic), BASE_NS, 0o644, hashlib.sha256(topic).hexdigest()),
        frontmatter.parse(topic),
    )
    text = "- [A](a.md) — a\n- [Project](index_project.md) — moved\n"

    plan = rebuild(text, [*a_and_b(), topic_memory])

    assert plan.changed is False
    assert plan.added == ()


@pytest.mark.parametrize("named", ["## ai-club 프로젝트", "## web_app project", "## Project v2"])
def test_a_heading_that_names_one_particular_project_is_not_the_project_heading(
        named: str) -> None:
    """"<name> project" is about that project: a new project memory goes under the index's
    own list heading, not there."""
    memories = [make_memory("a.md"), make_memory("project_new.md", description="a new one")]
    text = f"## Memories\n- [A](a.md) — a\n\n{named}\n- a note about it\n"

    out = lines_of(rebuild(text, memories).text)

    assert above(out, "project_new.md") == "- [A](a.md) — a"


def test_a_new_pointer_stands_beside_its_namesake_not_under_a_heading_of_its_type() -> None:
    """``project_state_0903_evening`` beside ``project_state_0903_morning``, not under
    "Other projects" (the heading that names its type)."""
    memories = [make_memory(f) for f in ("project_state_0903_morning.md", "project_bmw.md",
                                         "reference_symlink.md")]
    memories.append(make_memory("project_state_0903_evening.md", description="the evening"))
    text = ("# Index\n\n## Project state — current\n"
            "- [State morning](project_state_0903_morning.md) — the morning\n\n"
            "## Traps\n- [Symlink](reference_symlink.md) — writes follow the link\n\n"
            "## Other projects\n- [BMW](project_bmw.md) — the car list\n")

    out = lines_of(rebuild(text, memories).text)

    assert above(out, "project_state_0903_evening.md") == "- [State morning](project_state_0903_morning.md) — the morning"


def test_a_heading_that_is_only_the_type_takes_the_new_pointer() -> None:
    memories = [make_memory("a.md"), make_memory("project_new.md", description="a new one")]
    text = "## Memories\n- [A](a.md) — a\n\n## 프로젝트\n- a note\n"

    out = lines_of(rebuild(text, memories).text)

    assert above(out, "project_new.md") == "- a note"


def test_a_shortened_hook_ends_at_a_word_never_inside_an_address_or_a_bracket() -> None:
    from consolidator.index.pointers import shorten

    url = "see the settings in https://example.org/team/claude-global-config/settings for more"
    out = shorten(url, 50)
    assert out == "see the settings in…"
    bracket = "two roles share the queue (Brain=planner, Muscle=worker, both pinned) and a cache"
    out = shorten(bracket, 50)
    assert out == "two roles share the queue…"
    assert shorten("short enough", 50) == "short enough"
    assert shorten("a b c d e f g h i j k l m n", 10) == "a b c d e…"


@pytest.mark.parametrize(("text", "cut"), [
    ("A stack of design PRs whose base moved on main is rebuilt, not rebased, on the new main",
     "A stack of design PRs whose base moved on main…"),
    ("La regla de subida vale para facturas y hacer commit y push al repositorio del cliente",
     "La regla de subida vale para facturas y hacer commit y push…"),
])
def test_a_shortened_hook_never_ends_on_a_word_leading_into_the_rest(text: str, cut: str) -> None:
    """"… whose base moved is…" reads as a sentence broken off: the cut goes back past an
    article, a preposition, a conjunction or "is", in any language the tool reads."""
    from consolidator.index.pointers import shorten

    assert shorten(text, len(cut) + 6) == cut


@pytest.mark.parametrize(
    ("name", "body", "title"),
    [
        ("reference_ci_dashboard", "CI runs on every push; the CI page lists them.\n",
         "CI dashboard"),
        ("project_github-actions", "Deploys run on GitHub Actions.\n", "GitHub actions"),
        ("feedback_pnpm", "Use pnpm, never npm.\n", "Pnpm"),  # written in lower case
        ("project_release-day", "Release day is Thursday.\n", "Release day"),  # a sentence's
        # capital is no spelling
        ("project_api_keys", "Keys live in the vault; an api key is never logged.\n",
         "Api keys"),  # the text's own most common form
        # a date in the slug stays whole
        ("project_state_2026-09-03_evening", "What landed.\n", "State 2026-09-03 evening"),
        # prose spells the word; code (a file's extension, a log tag) only when prose never does
        ("reference_locked-dff-recovery", "Locked DFF models parse; files end in `.dff`, "
         "`x.dff`, `y.dff`.\n", "Locked DFF recovery"),
        ("project_tests-red-with-s3-env", "Fails when the `S3` variables are set.\n",
         "Tests red with S3 env"),
    ],
)
def test_the_words_of_a_slug_are_spelt_as_the_memory_spells_them(
    name: str, body: str, title: str
) -> None:
    assert title_of(make_memory("x.md", name=name, body=body)) == title


def test_a_description_an_unquoted_hash_cut_short_is_not_left_mid_remark() -> None:
    """YAML reads `… (on 09/10/2026, PR #907) …` unquoted as `… (on 09/10/2026, PR`: the
    new pointer ends before the bracket it cannot close, marked cut."""
    memory = make_memory(
        "audit-methode.md",
        description="Méthode d'audit v3, adoptée en session (09/10/2026, PR #907) pour tous")
    assert memory.description == "Méthode d'audit v3, adoptée en session (09/10/2026, PR"

    line = pointer_line(memory, 150)

    assert line.endswith("— Méthode d'audit v3, adoptée en session…")


NAMING = "feedback_naming_convention.md"


def _with_new_pointer(text: str, description: str) -> list[str]:
    """The lines of index ``text`` (pointing at a.md and b.md) once a pointer to an unlisted
    ``feedback_naming_convention`` memory of ``description`` is added."""
    memories = [make_memory("a.md"), make_memory("b.md"),
                make_memory(NAMING, name=NAMING[:-3], description=description)]
    return lines_of(rebuild(text, memories).text)


@pytest.mark.parametrize(
    ("description", "line"),
    [
        # The head up to a dash, a colon or a full stop is the title, the rest the hook.
        ("工具命名規範——禁止用縮寫", f"- [工具命名規範]({NAMING}) — 禁止用縮寫"),
        ("선조치 후보고 — 먼저 적용하고 보고", f"- [선조치 후보고]({NAMING}) — 먼저 적용하고 보고"),
        ("命名規則：動詞で始める", f"- [命名規則]({NAMING}) — 動詞で始める"),
        ("원본은 커밋하지 않는다. 사진은 다시 만든다",
         f"- [원본은 커밋하지 않는다]({NAMING}) — 사진은 다시 만든다"),
        # No such head: a short description is the title whole; a long one leaves the slug.
        ("啟動伺服器必須指定版本，不能用預設", f"- [啟動伺服器必須指定版本，不能用預設]({NAMING})"),
        ("需要查官方文件時，優先用瀏覽器抓頁面，不要先試搜尋，查完要附出處，沒出處就停下來問使用者，"
         "不可猜測，也不可引用沒有日期的二手資料", None),
        # A head that leaves a bracket open is no title: the short description is, whole.
        ("관세조사(audit 기업 — 70개 체계)", f"- [관세조사(audit 기업 — 70개 체계)]({NAMING})"),
        # An English description: the slug's words, as in an English index.
        ("Name tools with a verb first", None),
    ],
)
def test_in_an_east_asian_index_a_new_pointer_is_titled_in_the_index_s_script(
    description: str, line: str | None
) -> None:
    """An index whose titles are Chinese, Japanese or Korean gets no English island from a
    memory's slug ("[Naming convention]") when the memory's description says it in the
    index's script."""
    out = _with_new_pointer("# 索引\n- [部署流程](a.md) — 說明\n- [測試規則](b.md) — 說明\n",
                            description)

    new = next(text for text in out if NAMING in text)
    assert new == (line or f"- [Naming convention]({NAMING}) — {description}")


@pytest.mark.parametrize(("text", "description", "line"), [
    # English titles: the slug's words, whatever the description's script
    ("# Index\n- [Deploy](a.md) — 說明\n- [Tests](b.md) — 說明\n", "工具命名規範——禁止用縮寫",
     f"- [Naming convention]({NAMING}) — 工具命名規範——禁止用縮寫"),
    # Cyrillic titles: the description's head, in Cyrillic
    ("# Память\n- [Деплой](a.md) — как\n- [Тесты](b.md) — как\n",
     "Корзина вместо удаления — файлы не стирать",
     f"- [Корзина вместо удаления]({NAMING}) — файлы не стирать"),
])
def test_a_new_pointer_is_titled_in_the_script_of_the_index_s_titles(
    text: str, description: str, line: str
) -> None:
    assert line in _with_new_pointer(text, description)


@pytest.mark.parametrize(
    ("name", "description", "title"),
    [
        ("project_popisna_data", "Popisná data katalogu", "Popisná data"),
        ("reference_zrodla_danych", "Źródła danych do raportu", "Źródła danych"),
        ("project_etat_des_projets", "État des projets en cours", "État des projets"),
        ("feedback_praezise_statt_absolut", "Präzise statt absolut schreiben",
         "Präzise statt absolut"),
        ("feedback_nominas_cerradas", "Las nóminas de agosto están cerradas",
         "Nóminas cerradas"),
    ],
)
def test_a_slug_s_words_take_the_accents_the_memory_writes_them_with(
    name: str, description: str, title: str
) -> None:
    """A slug is written without accents ("popisna"); the title spells the word as the
    memory does ("Popisná"), German umlauts written as two letters included ("praezise")."""
    assert title_of(make_memory("x.md", name=name, description=description)) == title


@pytest.mark.parametrize(
    ("name", "description", "title"),
    [
        ("pj0001-medicao-e-decisao",
         "A medição é ligada como Information, e a decisão é do time; é o padrão",
         "Pj0001 medição e decisão"),
        ("notes_a_faire_a_paris", "Ce qu'il a à faire à Paris, à la main", "Notes a faire a paris"),
    ],
)
def test_a_slug_word_the_memory_also_writes_without_accents_keeps_the_slug_s_letters(
    name: str, description: str, title: str
) -> None:
    """"e" (and) and "é" (is) are two words: a memory that writes both gives no reason to read
    the slug's "e" as the other one, however often it writes it."""
    assert title_of(make_memory("x.md", name=name, description=description)) == title


SORTED_BY_SUBJECT = (
    "# Index\n\n## Build System\n"
    "- [Build cache](project_cache.md) — how the build system caches artifacts\n"
    "- [Compiler flags](feedback_flags.md) — flags every build uses\n\n"
    "## Mobile App\n- [Release train](project_train.md) — app store releases\n"
    "- [Crash triage](feedback_crash.md) — how app crashes are triaged\n\n"
    "## Docs\n- [Style](feedback_style.md) — how docs are written\n"
    "- [Site](reference_site.md) — where the docs site lives\n"
)


@pytest.mark.parametrize(
    ("description", "heading"),
    [
        ("The runner pool of the build system: how many runners each build gets",
         "## Build System"),
        ("Who answers the phone on Fridays", None),  # no section's subject: its type's heading
    ],
)
def test_in_an_index_sorted_by_subject_a_new_pointer_goes_to_the_section_of_its_subject(
    description: str, heading: str | None
) -> None:
    """Sections of the user's own categories, none named by the memory's type or file name:
    the pointer joins the section whose lines share its words, never a new "## Project"
    heading at the end, which sorts the index on a second axis."""
    files = ("project_cache.md", "feedback_flags.md", "project_train.md", "feedback_crash.md",
             "feedback_style.md", "reference_site.md")
    memories = [make_memory(f) for f in files]
    memories.append(make_memory("project_runner_layout.md", description=description))

    out = lines_of(rebuild(SORTED_BY_SUBJECT, memories).text)

    at = next(i for i, line in enumerate(out) if "project_runner_layout.md" in line)
    if heading is None:
        assert out[at - 1] == "## Project"
    else:
        assert out[at - 1] == "- [Compiler flags](feedback_flags.md) — flags every build uses"
        assert out[: at].count(heading) == 1 and "## Project" not in out


@pytest.mark.parametrize("heading", ["## Regeln", "## Règles", "## Reglas", "## Правила"])
def test_a_heading_naming_a_type_in_another_language_takes_its_memories(heading: str) -> None:
    memories = [make_memory("feedback_r1.md", mtype="feedback")]
    memories += [make_memory(f) for f in ("project_p1.md", "project_p2.md", "project_p3.md")]
    memories.append(make_memory("feedback_new.md", description="Lowercase commit subjects",
                                mtype="feedback"))
    text = (f"# Index\n\n{heading}\n- [Rule 1](feedback_r1.md) — rule 1\n\n## Projects\n"
            "- [Area 1](project_p1.md) — area 1\n- [Area 2](project_p2.md) — area 2\n"
            "- [Area 3](project_p3.md) — area 3\n")

    out = lines_of(rebuild(text, memories).text)

    assert above(out, "feedback_new.md") == "- [Rule 1](feedback_r1.md) — rule 1"


def test_the_biggest_heading_naming_one_type_is_no_list_for_another() -> None:
    """"## Rules" holding most pointers is the rules' list, not the index's: a reference
    memory does not go under it."""
    memories = [make_memory(f, mtype="feedback") for f in ("feedback_a.md", "feedback_b.md",
                                                           "feedback_c.md")]
    memories += [make_memory("project_p.md"),
                 make_memory("reference_ci.md", description="Where the CI is defined",
                             mtype="reference")]
    text = ("# Index\n\n## Rules\n- [A](feedback_a.md) — a\n- [B](feedback_b.md) — b\n"
            "- [C](feedback_c.md) — c\n\n## Work\n- [P](project_p.md) — p\n")

    out = lines_of(rebuild(text, memories).text)

    assert above(out, "reference_ci.md") == "## Reference"


@pytest.mark.parametrize("folder", ["archive", "old", "arxiu", "보관", "diary"])
def test_a_memory_in_a_folder_of_old_or_daily_notes_gets_no_pointer(folder: str) -> None:
    """A superseded rule kept in `archive/`, a session in `diary/`: a pointer would load it
    into every session."""
    memories = [make_memory("feedback_tone.md"),
                make_memory(f"{folder}/feedback_tone_2025.md", description="Long replies")]
    text = "# Index\n- [Tone](feedback_tone.md) — short replies\n"

    assert pointer_targets(rebuild(text, memories).text) == ["feedback_tone.md"]


def test_in_a_numbered_index_new_pointers_are_numbered_on_from_the_item_above() -> None:
    memories = [make_memory(f, mtype="feedback") for f in ("feedback_a.md", "feedback_b.md",
                                                           "feedback_c.md")]
    memories += [make_memory("project_p.md"), make_memory("reference_r.md", mtype="reference"),
                 make_memory("reference_s.md", mtype="reference")]
    text = ("# Index\n\n## Rules\n1. [A](feedback_a.md) — a\n2. [B](feedback_b.md) — b\n\n"
            "## Projects\n1) [P](project_p.md) — p\n")

    out = lines_of(rebuild(text, memories).text)

    assert above(out, "feedback_c.md") == "2. [B](feedback_b.md) — b"
    assert [line[:3] for line in out if "_c.md" in line or "reference_" in line] == [
        "3. ", "1. ", "2. "]


def test_a_description_written_over_several_lines_gives_a_pointer_on_one_line() -> None:
    """YAML folds a block description into text with newlines; a pointer holding one would
    break in two, its second half a stray line of the index."""
    folded = make_memory("project_folded.md", name="project_folded",
                         description='"first line\\nsecond  line"')  # (YAML's escape)

    out = lines_of(rebuild("- [A](a.md) — a\n", [make_memory("a.md"), folded]).text)

    assert out == ["- [A](a.md) — a", "- [Folded](project_folded.md) — first line second line"]
