"""What an index's headings name: a type of memory ("## Feedback", "## 参考"), in the
languages people write their indexes in, as :mod:`consolidator.index.placing` files a new
pointer under the heading for its memory's type."""

from __future__ import annotations

import re

from consolidator.index.parse import IndexLine

_TYPE_HEADINGS = {
    "user": ("user", "users", "about the user", "about me", "ユーザー", "用户", "用戶", "사용자",
             "utilisateur", "usuario", "usuari", "benutzer", "nutzer", "utente", "usuário",
             "gebruiker", "użytkownik", "uživatel", "пользователь", "kullanıcı", "pengguna",
             "người dùng"),
    # (not 規則, ルール, 규칙: found inside a heading, as these scripts must be, they name
    # rules of one thing as often: "本檔案維護規則", "작성 규칙", the rules of writing notes)
    "feedback": ("feedback", "feedbacks", "preferences", "rules", "フィードバック",
                 "反馈", "反饋", "피드백", "règles", "reglas", "regles",
                 "regeln", "regole", "regras", "regels", "zasady", "pravidla", "правила",
                 "kurallar", "aturan", "quy tắc", "préférences", "preferencias"),
    "project": ("project", "projects", "プロジェクト", "项目", "項目", "專案", "프로젝트",
                "projet", "projets", "proyecto", "proyectos", "projecte", "projectes", "projekt",
                "projekte", "progetto", "progetti", "projeto", "projetos", "projecten",
                "projekty", "проект", "проекты", "proje", "projeler", "proyek", "dự án"),
    "reference": ("reference", "references", "links", "リファレンス", "参考", "参照", "참고",
                  "référence", "références", "referencia", "referencias", "referència",
                  "referències", "referenz", "referenzen", "riferimenti", "referência",
                  "referências", "referenties", "ссылки", "справка", "referanslar",
                  "referensi", "tham khảo"),
}
# A name of one particular thing: a word joined by "-", "_", "." or "/", or holding a digit
# ("ai-club", "web_app", "v2"). A heading with one beside the type word is about that thing
# ("## ai-club project"), not about the type.
_NAMED = re.compile(r"\w+[-_./]\w|\w*\d\w*[a-z]|[a-z]\w*\d")


def type_heading(lines: list[IndexLine], mtype: str) -> int | None:
    """The heading a memory of ``mtype`` belongs under, if the index has one: the one that
    names the type in the fewest other words ("## Projects" before "## Project memories"),
    never the document's title (a level-1 heading when sub-headings follow), nor one that
    also names a particular thing ("## ai-club プロジェクト")."""
    words = _TYPE_HEADINGS.get(mtype, (mtype,))
    levels = {line.level for line in lines if line.kind == "heading"}
    title_level = min(levels) if len(levels) > 1 else 0
    best: tuple[int, int] | None = None
    for i, line in enumerate(lines):
        if line.kind != "heading" or line.level == title_level:
            continue
        heading = line.heading_text.casefold()
        for w in words:
            # Words of a script written without spaces (参考資料) match inside the heading.
            hit = (re.search(rf"(?<!\w){re.escape(w)}(?!\w)", heading) if w.isascii()
                   else w in heading)
            if hit and not _NAMED.search(heading.replace(w, " ", 1)):
                extra = len(heading) - len(w)
                if best is None or extra < best[0]:
                    best = (extra, i)
    return best[1] if best else None


def names_a_type(line: IndexLine) -> bool:
    """Whether a heading names a type of memory (see :func:`type_heading`)."""
    return any(type_heading([line], mtype) is not None for mtype in _TYPE_HEADINGS)
