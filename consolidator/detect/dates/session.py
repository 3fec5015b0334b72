""""This session" in a memory's text: the day the passage was written, in any language.

Claude Code writes a memory at the end of a session's work, and a passage that says what was
done "in this session" (本セッション, in questa sessione, 本次会话, 이번 세션) names the day of that
writing as surely as "today" does, with none of the senses "today" has besides ("today's
quiz", "currently"). Such a phrase is dated as a relative day of shift 0 by the anchors the
other phrases use (a date its passage gives, the day the description names, the writing time
of a record of one day), and keeps its words: the date glosses it, "in this session
(2026-09-30)". A session named in a rule's instructions ("stop: this session has no root")
is left as every relative day there is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from consolidator.detect.dates.locales import LocalePhrase

# "this" and "session" (or "conversation", the same span of work in Claude Code's words) in
# each language, as it is written before the noun or after it (Czech "v této relaci").
_THIS_BEFORE = (
    r"this|the current|diese[rmns]?|cette|questa|quest'|esta|essa|nesta|nessa|este|"
    r"эт(?:а|ой|у|ом)|текущ(?:ая|ей|ую)|tej|ta|této|tato|bu|本次|这次|這次|此次|本轮|本輪|"
    # Korean spaces its words and writes particles onto them: "이" after a syllable is the
    # subject particle of the word before ("모델이 대화를"), not "this".
    r"本|今回の|この|(?<![\uac00-\ud7af])(?:이번|금번|이)"
)
_SESSION = (
    r"session|conversation|sitzung|sessione|conversazione|sesión|conversación|"
    r"sessão|conversa|сесси[июяей]|сессия|sesji|sesja|relaci|oturum(?:da|u)?|"
    r"会话|會話|对话|對話|セッション|会話|세션|대화"
)
_AFTER = r"(?:phiên|cuộc trò chuyện)\s+này|sesi\s+ini|percakapan\s+ini"
# Letters of the scripts that space their words: a phrase stands apart from them. Chinese,
# Japanese and Korean write particles onto it (本セッションで, 이번 세션에서).
_SPACED = r"A-Za-z0-9_\u00C0-\u024F\u0400-\u04FF"
# A web application's session, not the writer's: "this session cookie", "esta sesión expira".
_OF_AN_APP = (r"\s+(?:cookies?|tokens?|ids?|keys?|storage|state|data|variables?|objects?|"
              r"stores?|timeouts?|expir\w*|lifetime|expira\w*|expire\w*|scade\w*|läuft)")
_PHRASE = re.compile(
    rf"(?<![{_SPACED}'])(?:(?:{_THIS_BEFORE})\s*(?:{_SESSION})|{_AFTER})(?![{_SPACED}-])"
    rf"(?!{_OF_AN_APP}(?![{_SPACED}]))", re.IGNORECASE)


# The language a phrase is written in, by its noun, where a rule of that language's words
# may read its sentence (locale_sense: Italian "se", Spanish "si"); "this session" and the
# nouns of other scripts are read as English ("if"), which is what mixed notes write.
_LANGUAGE_OF = (("sessione", "it"), ("conversazione", "it"), ("sesión", "es"),
                ("conversación", "es"), ("sessão", "pt"), ("conversa", "pt"),
                ("sitzung", "de"), ("cette", "fr"), ("sesj", "pl"), ("sesji", "pl"),
                ("oturum", "tr"))


def session_phrases(text: str) -> Iterator[LocalePhrase]:
    """Each "this session" of ``text``, as a relative day of shift 0."""
    for match in _PHRASE.finditer(text):
        low = match.group().casefold()
        language = next((code for word, code in _LANGUAGE_OF if word in low), "en")
        yield LocalePhrase(match.start(), match.end(), "day", 0, session=language)
