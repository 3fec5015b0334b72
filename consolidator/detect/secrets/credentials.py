"""Credentials assigned to a name: `DB_PASSWORD=hunter2`, `password: hunter2`, "the password
is `hunter2`", "password — hunter2", `| password | hunter2 |`, `PIN: 4821`,
「パスワード：hunter2」, `{"token": "…"}`.

Found by the value, never by the name alone: `os.environ["CHAT_BOT_TOKEN"]`,
`MAX_OUTPUT_TOKENS=25000`, `IS_TOKEN0 = True`, `token_type: bearer`, "password reset flow" and
"token: <your token here>" hold no secret (see :mod:`secret_values` for how a value is judged).

The scan is anchored on the credential word: each occurrence (found with ``str.find``, a fast
scan in C) is checked for a separator right after it (`=`, `:`, "is", a dash, the next cell
of a Markdown table row, は, 是), the name is
read backwards at most ``NAME_MAX`` characters, and the value forwards at most ``VALUE_MAX``.
So the work per occurrence is bounded and the scan is linear in the text, even on text made
of nothing but credential words. No line is cut short: a secret is found wherever it stands.

Some shapes need more than a separator and a value:

- "the password is swordfish", "password — swordfish", `| password | swordfish |`: after "is",
  a dash or a table cell a plain word is a password only when it ends the clause (or the cell)
  and is no adjective or participle ("the password is required", "password — rotated"); a
  table's header row names columns and a heading's dash parts a title, never a value;
- "pw" is a word of its own (`DB_PW`, not `pwd` or `PW_HASH`) and weak evidence, as
  Playwright goes by it too: after a separator only a made-up shape counts, and with none
  ("pw ntp-goldrush-26") one word of letters with digits or inner symbols;
- a PIN is digits only (`PIN: 4821`), and "pin" is a word of its own (not `spinner`,
  `pinned`), never the verb before code ("pin `numpy==1.26`");
- a passphrase's value may be a few plain words (`passphrase: purple monkey dishwasher`);
- a key's value with no separator at all ("token 3f9a…", "signing key wJalr…", "the deploy
  token Zx81…Q7 expires"): only a long random value counts — 32 hex digits or more, or a
  base64 run of 24 characters or more that mixes upper case, lower case and digits the way
  random text does (`handleTokenRefresh2` does not).
"""

from __future__ import annotations

import re

from consolidator.detect.script import CJK_TEXT_AND_SYMBOLS, lazy
from consolidator.detect.secrets import values as sv
from consolidator.detect.secrets.accounts import account_pairs

NAME_MAX = 80
VALUE_MAX = 300

ASCII_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "pin")
PASSWORDS = ("password", "passphrase", "pin")  # the families whose value may be digits only
# Words that name a credential in Chinese, Japanese and Korean, and the password in other
# scripts, with their family (in lower case: they are looked up in the text's lower case).
CJK_WORDS: dict[str, str] = {
    "パスワード": "password", "暗証番号": "password", "密码": "password", "密碼": "password",
    "口令": "password", "비밀번호": "password", "トークン": "token", "令牌": "token",
    "토큰": "token", "シークレット": "secret", "시크릿": "secret", "秘密鍵": "key",
    "密钥": "key", "密鑰": "key", "秘钥": "key", "キー": "key",
    # The password in other scripts and languages (a word of its own: see _word).
    "пароль": "password", "hasło": "password", "contraseña": "password", "şifre": "password",
    "mật khẩu": "password",
}
# The password in languages written in ASCII letters (matched in lower case, as words).
OTHER_WORDS = ("passwort", "senha", "wachtwoord", "haslo", "contrasena", "mot de passe",
               "kata sandi", "salasana", "heslo", "passord", "losenord", "adgangskode")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-$")
# What may close a name before its separator (a quote, Markdown bold, a subscript), then the
# separator. `==` is a comparison and `!=` never matches: neither assigns anything. A name
# followed by inline code ("log in with password `hunter2`") has an empty separator.
_AFTER = re.compile(
    r"([\"'`*\]]{0,3})([ \t]{0,3})"
    r"(:=|=>|==|[:=：]|(?i:is|was)\b|は|是|为|為|는|은|(?<=[ \t])(?=`)"
    r"|[—–]|(?<=[ \t])--?(?=[ \t])|(?<=[ \t])\|(?=[ \t]))([ \t]?)")
_DASHES = frozenset({"—", "–", "-", "--"})
# A Markdown table's separator row (`|---|:--:|`): the row above it is a header.
_TABLE_RULE = re.compile(r"[ \t]{0,3}\|?[ \t]{0,3}:?-{3,}")
# A key is a credential only with a qualifier before it: `api_key`, `apiKey`, "access key",
# `SECRET_KEY`, 「APIキー」; `publicKey`, `monkey` and a bare `key:` are not.
_KEY_QUALIFIER = re.compile(
    r"(?:api|access|secret|private|signing|encryption|master|auth|client|app|license|"
    r"subscription|role|admin|アクセス|シークレット)[ _.-]?\Z")
# The part before a credential word that makes the name a setting about credentials:
# `MAX_TOKEN`, `is_token`, `next_token` (a page cursor), `eos_token` (a model's vocabulary).
_SETTING_PARTS = frozenset({
    "is", "has", "use", "show", "enable", "enabled", "require", "requires", "max", "min",
    "num", "count", "total", "len", "length", "limit", "budget",
    "next", "prev", "page", "cursor", "continuation", "sync", "resume", "eos", "bos", "pad",
    "unk", "sep", "cls", "mask", "special", "input", "output", "prompt", "completion",
    "context", "cache", "reasoning", "thinking", "stop", "start", "end",
    # an error's code, not a credential: `invalid_token=…` maps the code to its cause
    "invalid", "expired", "missing", "revoked", "bad", "wrong", "unknown", "malformed",
    "unauthorized",
})
_QUOTES = {'"': '"', "'": "'", "`": "`", "「": "」", "『": "』", "“": "”", "‘": "’"}
# What ends a phrase; a word ends there too, or at a space or a closing mark (two patterns, so
# that the large CJK class is compiled once).
_PHRASE_END = lazy(rf"[|]|[{CJK_TEXT_AND_SYMBOLS}]")
_WORD_END_ASCII = re.compile(r"[\s,;)}\]\"'`]")
_SPACE = re.compile(r"\s")
# `api_key: str = "..."`, `token: Optional[str] = None`: a type, then the value.
_ANNOTATION = re.compile(
    r"(?:str|bytes|int|String|string|SecretStr|Optional\[str\])(?:[ \t]{0,3}\|[ \t]{0,3}None)?"
    r"[ \t]{0,3}=[ \t]{0,3}")


# Words joined by slashes: a list of services or providers, never a credential.
_NAME_LIST = re.compile(r"[A-Za-z][A-Za-z.]{0,40}(?:[/、][A-Za-z][A-Za-z.]{0,40}){1,12}")


def labelled(text: str, low: str) -> list[tuple[int, int, str]]:
    """The spans of values assigned to a credential's name in ``text``, each with the family
    its name is of ("password", "passphrase", "pin", "token", "secret", "key"; an account's
    "user / password" pair: "password").

    ``low`` is ``text`` with ASCII letters in lower case (the same length).
    """
    words: list[tuple[str, str]] = [(w, "") for w in ASCII_WORDS if w in low]
    words += [(w, "password") for w in OTHER_WORDS if w in low]
    if not text.isascii():
        words += [(w, family) for w, family in CJK_WORDS.items() if w in low]
    found: list[tuple[int, str, str]] = []
    for word, family in words:
        start = low.find(word)
        while start >= 0:
            found.append((start, word, family))
            start = low.find(word, start + len(word))
    found.sort()
    spans: list[tuple[int, int, str]] = []
    judged = 0  # the end of the last word judged as a value: a name inside it is no name
    for start, word, family in found:
        if start < judged:
            continue
        span, end = _at(text, low, start, word, family)
        judged = max(judged, end)
        if span is not None:
            spans.append((*span, _word(text, low, start, word, family)[1]))
    taken = {(start, end) for start, end, _ in spans}
    return spans + [(*span, "password") for span in account_pairs(text, low)
                    if span not in taken]


Judged = tuple[tuple[int, int] | None, int]  # the secret's span, and where the value ended


def _at(text: str, low: str, start: int, word: str, family: str) -> Judged:
    """The secret's span if the credential word at ``start`` has one assigned, and the end of
    the value judged (0 if there was none to judge)."""
    cjk = bool(family)
    end, family, weak = _word(text, low, start, word, family)
    if end < 0:
        if word == "key" and _plain_key(text, low, start):
            return _bare(text, start, start + 3, word)
        return None, 0
    after = _AFTER.match(text, end)
    if after is None and not cjk and family in ("token", "secret", "key"):
        return _bare(text, start, end, word)
    if weak and _USER_BEFORE.search(text, max(0, start - 80), start):
        weak = False  # "user `ana` / pass `Tr0ub4dor3`": the account's password, not the verb
        if after is None or not after.group(3):
            return _made_up(text, end)
    if after is None and (word == "pw" or (cjk and family == "password")):
        # "pw ntp-goldrush-26"; "密码 Kx8vQ2mTz（需保密）", "пароль Kx8vQ2mTz": in a script
        # other than the value's, the word and the value need no separator between them
        return _made_up(text, end)
    if after is None or after.group(3) == "==":
        return None, 0
    name = word if cjk else _credential_name(text, start, end, word)
    if name is None:
        return None, 0
    sep = after.group(3)
    if not sep and word == "pw":
        return _made_up(text, end)  # "plaintext pw `irongym2026`": a made-up value in code
    if not sep and (weak or family == "pin"):
        return None, 0  # "pass `uuid` in the array", "pin `numpy`": the verb, before code
    if weak and word == "pass" and (sep in _DASHES or sep == "|"):
        return None, 0  # "1/10 PASS — BTC31USDT", "| PASS | case 7 |": a test's verdict
    if sep == "|" and _header_row(text, after.end()):
        return None, 0  # `| password | owner |` over `|---|---|`: the columns' names
    if sep in _DASHES and text[text.rfind("\n", 0, start) + 1:start].lstrip().startswith("#"):
        return None, 0  # "## Password - rotation": a heading's title, not a value
    spaced = bool(after.group(2) or after.group(4))
    # Only `name: value` and an unspaced `NAME=value` (an env line, a URL's query) take a
    # plain word as the value; "is", a dash, a table cell, `=>`, `:=` and code's spaced `=`
    # need a made-up shape, or (for a password) a word that closes its clause.
    strict = weak or sep not in ("=", ":", "：") or (sep == "=" and spaced)
    password = family in PASSWORDS and not weak
    said = sep.lower() in ("is", "was") or sep in _DASHES or sep == "|"
    span, judged = _value(text, after.end(), strict=strict, password=password,
                          phrase=sep in (":", "：", "|") or sep in _DASHES,
                          words=3 if family == "passphrase" else 4)
    if span is None and password and family != "pin" and said:
        span = _said(text, after.end())  # "the password is swordfish."
    if span is None and not weak and (glossed := _GLOSSED.match(text, after.end())) \
            and (sv.looks_generated(glossed.group(1)) or _HEX_RUN.fullmatch(glossed.group(1))):
        span = glossed.span(1)  # "TOKEN: credencial `3f9a…`": a word saying what, then it
    if span is not None and family == "pin" and not text[span[0]:span[1]].isdigit():
        return None, judged  # a PIN is digits: "pin: 3.11", "pin: latest" are versions
    if span is not None and _same(text[span[0]:span[1]], name):
        return None, judged  # `token=token`, `_stoken=_stoken`: a variable passed on
    if span is not None and ((weak and word == "pass" and sv.is_condition(text[span[0]:span[1]]))
                             or (sep in _DASHES and sv.is_code_place(text[span[0]:span[1]]))):
        # "PASS = AUC≥0.93": the bar a test's verdict is given; "reset token - `x.php:65`":
        # a finding's title and the line it is about
        return None, judged
    return span, judged


# A plain word after "the password is" (or a dash, or a table cell), at the end of its
# clause or cell.
_SAID = re.compile(r"[ \t]{0,3}([a-z]{4,32})(?=[ \t]{0,3}(?:$|[\n.,;!?)\]\"'`|]))")
# Words that say what a password is like, not what it is.
_ADJECTIVES = frozenset("""
correct incorrect wrong right weak strong long short secure insecure simple complex hard easy
unique common different good great fine okay bad poor safe unsafe temporary permanent new old
stale known unknown same blank empty mine yours ours theirs enough valid invalid visible
reset unset lost gone broken leaked compromised sensitive trivial obvious mandatory optional
personal global local static generic dynamic present absent current outdated there here
like unlike alike also too such
""".split())
_ADJECTIVE_ENDS = ("ed", "ing", "ly", "ful", "less", "able", "ible", "ive", "ous")


def _header_row(text: str, at: int) -> bool:
    """Whether the table row holding ``at`` is a header: the next line is a separator row."""
    end = text.find("\n", at)
    return end >= 0 and _TABLE_RULE.match(text, end + 1) is not None


def _said(text: str, at: int) -> tuple[int, int] | None:
    """The span of a plain word that closes "the password is …", if it can be the password
    itself rather than what the password is like."""
    match = _SAID.match(text, at)
    if match is None:
        return None
    word = match.group(1)
    if (word in sv.STOPWORDS or word in sv.NON_VALUES or word in sv.FAMILY
            or word in _ADJECTIVES or word.endswith(_ADJECTIVE_ENDS) or sv.is_placeholder(word)):
        return None
    return match.span(1)


# One word saying what a value is, then the value in code: "TOKEN: credencial `3f9a…`".
# A user name given right before a bare "pass": "user `ana` / pass …", "login: ana, pass …".
_USER_BEFORE = re.compile(r"(?<!\w)(?:user(?:name)?|login|usuario|utilisateur|benutzer)[ \t]?"
                          r"[:=]?[ \t]?`?[^\s`/,;]{1,64}`?[ \t]?[/,;][ \t]?$", re.IGNORECASE)
_GLOSSED = re.compile(r"[ \t]{0,3}[^\W\d_]{2,24}[ \t]{1,3}`([A-Za-z0-9+/_\-]{16,512}={0,2})`")
_HEX_RUN = re.compile(r"(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{16,128}", re.IGNORECASE)
# A random value right after a key's name: "token 3f9a…", "key wJalr…" (and, for a bare
# "key", also after a separator: "key: 3f9a…").
_BARE = re.compile(r"(?:[\"'`*\]]{0,3}[ \t]{0,3}[:=：][ \t]{0,3}|[ \t]{1,3})([\"'`]?)"
                   r"([A-Za-z0-9+/_\-]{20,512}={0,2})(?![A-Za-z0-9+/=_\-])")
# What a key is when it is no secret: "public key", "cache key", "sort key", "primary key".
_NOT_SECRET_KEYS = frozenset({
    "public", "pub", "host", "cache", "sort", "primary", "foreign", "partition", "row", "hash",
    "idempotency", "lookup", "map", "registry", "object", "dedup", "dedupe", "composite",
    "unique", "index", "shard", "routing", "gpg", "pgp", "ssh", "fingerprint", "license",
    "product", "the", "a", "this", "that", "which", "each", "every", "any", "same", "next",
})


def _plain_key(text: str, low: str, start: int) -> bool:
    """Whether a bare "key" at ``start`` stands alone as a word (not `monkey`, `publicKey`)
    after a word that does not make it a name for something else ("cache key")."""
    if start and (text[start - 1].isalnum() or text[start - 1] in "_-."):
        return False
    before = low[max(0, start - 24):start].split()
    return not before or before[-1].strip("*_`'\"(") not in _NOT_SECRET_KEYS


def _bare(text: str, start: int, end: int, word: str) -> Judged:
    """The span of a random value right after the credential word at ``start:end`` (with no
    separator between them), and where that value ends."""
    match = _BARE.match(text, end)
    if match is None or (word != "key" and _credential_name(text, start, end, word) is None):
        return None, 0
    close = match.group(1)
    if close and not text.startswith(close, match.end()):
        return None, match.end()  # an opening quote with nothing closing it
    value = match.group(2)
    if not sv.looks_generated(value):
        return None, match.end()
    return match.span(2), match.end()


# A value right after "pw" (or another script's word for a password) with no separator: one
# word of the characters passwords are made of, before a space or punctuation of either script.
_MADE_UP = re.compile(r"[ \t]{1,3}([\"'`]?)([A-Za-z0-9!#$%&*+.?@^_~-]{6,64})\1"
                      r"(?=$|[\s,;)\]（），。；、])")


def _made_up(text: str, end: int) -> Judged:
    """The span of a made-up value right after the abbreviation "pw" with no separator
    ("pw ntp-goldrush-26"): letters with digits or inner symbols, as :func:`values.strong`
    says; a plain word after it ("pw reset", Playwright's "pw test") is none."""
    match = _MADE_UP.match(text, end)
    if match is None:
        return None, 0
    value = sv.clean(match.group(2))
    if not value or not sv.strong(value) or not sv.is_literal(
            value, quoted=False, strict=True, password=True):
        return None, match.end()
    return (match.start(2), match.start(2) + len(value)), match.end()


def _same(value: str, name: str) -> bool:
    """Whether ``value`` is the name itself (keyword arguments: `password=password`)."""
    return value.lower().lstrip("_$-") == name.lower().lstrip("_$-")


def _word(text: str, low: str, start: int, word: str, family: str) -> tuple[int, str, bool]:
    """Where the credential word at ``start`` ends (-1: it is not one), its family, and
    whether the name alone is weak evidence (a bare "pass", as in "First pass: grep")."""
    if word in ("キー", "key") and _KEY_QUALIFIER.search(low, max(0, start - 14), start) is None:
        return -1, "key", False
    if family:
        end = start + len(word)
        if word[:1].isascii() and word[:1].isalpha() and (
                (start and low[start - 1].isalnum()) or low[end : end + 1].isalnum()):
            return -1, family, False  # inside another word ("resenha")
        if not word.isascii() and word[:1].isalpha() and not sv.has_cjk(word) and (
                (start and text[start - 1].isalpha()) or text[end : end + 1].isalpha()):
            return -1, family, False
        return end, family, False
    if word == "pw":
        before, after = (text[start - 1] if start else " "), text[start + 2:start + 3]
        if before.isalnum() or after.isalnum() or after == "_":
            return -1, "password", False  # pwd (its own word), PW_HASH, npw; DB_PW is one
        return start + 2, "password", True  # weak: Playwright is "pw" too
    if word == "pin":
        around = (text[start - 1] if start else " ") + text[start + 3:start + 4]
        if any(c.isalnum() for c in around):
            return -1, "pin", False  # spinner, pinned, PINs, opinion
        return start + 3, "pin", False
    if word == "pass":
        for longer in ("password", "passwd", "passphrase"):
            if low.startswith(longer, start):
                return start + len(longer), longer.replace("passwd", "password"), False
        before = text[start - 1] if start else " "
        if before in "_-.$" or (before.islower() and text[start].isupper()):
            return start + 4, "password", False  # DB_PASS, smtpPass
        if before.isalnum():
            return -1, "password", False  # bypass, compass, DBPASS
        return start + 4, "password", True
    return start + len(word), "password" if word == "pwd" else word, False


def _credential_name(text: str, start: int, end: int, word: str) -> str | None:
    """The name ending in the credential word at ``start:end``, if it names a credential
    rather than a setting about one (`MAX_TOKEN`, `is_token`, `next_token`)."""
    begin = start
    while begin > 0 and text[begin - 1] in _NAME_CHARS:
        begin -= 1
        if start - begin > NAME_MAX:
            return None  # no name is that long: a run of identifier characters
    head = sv.parts(text[begin:start])
    if word == "key" and head:
        head = head[:-1]  # the qualifier itself (api, access, secret, …)
    if _SETTING_PARTS.intersection(head[-2:]):
        return None
    return text[begin:end]


def _value(text: str, at: int, *, strict: bool, phrase: bool, password: bool,
           words: int = 4) -> Judged:
    """The secret's span in the value that starts at ``at`` (None if it holds none), and the
    end of the word or quotation judged (``words``: the fewest words a passphrase has)."""
    line_end = text.find("\n", at, at + VALUE_MAX)
    limit = min(len(text), at + VALUE_MAX) if line_end < 0 else line_end
    i = at
    while i < limit and text[i] in " \t*":
        i += 1
    if i >= limit:
        return None, i
    if phrase:
        annotated = _ANNOTATION.match(text, i, limit)
        if annotated is not None:  # `api_key: str = "..."` is code: judged strictly
            return _value(text, annotated.end(), strict=True, phrase=False, password=password,
                          words=words)
    close = _QUOTES.get(text[i])
    if close is not None:
        j = text.find(close, i + 1, limit)
        if j < 0:
            return None, i + 1
        return _offset(sv.secret_span(text[i + 1:j], quoted=True, strict=strict,
                                      password=password, phrase=False, words=words), i + 1), j
    end = limit
    if not phrase:
        word_end = _WORD_END_ASCII.search(text, i, limit)
        end = word_end.start() if word_end else limit
    stop = _PHRASE_END().search(text, i, end)
    raw = text[i:stop.start() if stop else end].rstrip()
    first = _SPACE.search(raw)
    judged = i + (first.start() if first else len(raw))
    if raw and _NAME_LIST.fullmatch(raw.split(None, 1)[0].rstrip("/、,.;:)）")):
        return None, judged  # "API Key: GLM/Pexels/OpenAI": which services, not a value
    if phrase and raw.endswith((",", ";")) and first is None:
        strict = True  # `password: hunter,` is a line of code: a variable, unless made-up
    return _offset(sv.secret_span(raw, quoted=False, strict=strict, password=password,
                                  phrase=phrase, words=words), i), judged


def _offset(span: tuple[int, int] | None, by: int) -> tuple[int, int] | None:
    """``span`` moved ``by`` characters (None stays None)."""
    return None if span is None else (span[0] + by, span[1] + by)
