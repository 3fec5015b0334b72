"""An account given as a pair after its name: "login: ana@example.org / hf0sx3eHylM8",
「계정: `k1m` / `4821`」, "Akun uji (DB dev): `admin` / `…`": the second value is the password,
when it is shaped like one (:func:`consolidator.detect.secrets.values.is_literal`). Each
account word is found with ``str.find`` and the pair read right after it: linear in the text.
"""

from __future__ import annotations

import re

from consolidator.detect.secrets import values as sv

__all__ = ["ACCOUNT_WORDS", "SERVICE_WORDS", "account_pairs"]

# An account given as "user / password" after an account's name: "login: ana@x.io / Hq9t…",
# 「계정: `k1m` / `1111`」. The second value is the password when it is one (see account_pairs).
ACCOUNT_WORDS = (
    "login", "log-in", "username", "user name", "user", "account", "credentials", "логин",
    "пользователь", "учётная запись", "учетная запись", "акаунт", "обліковий запис",
    "usuario", "usuário", "utilisateur", "benutzer", "konto", "użytkownik", "uzytkownik",
    "gebruiker", "kullanıcı", "hesap", "계정", "아이디", "アカウント", "账号", "賬號", "帳號",
    "akun", "pengguna", "tài khoản", "用户", "用戶", "登录", "登入", "登錄", "ユーザー",
    "ログイン", "사용자", "로그인",
)
# A service's account, its separator right after the name: "FTP=deploy7/`…`", "SSH: root /
# …" (not "postgres.<ref>:<pwd>@host:5432/db", a URL).
SERVICE_WORDS = ("ftp", "sftp", "ssh", "smtp", "imap", "mysql", "postgres", "postgresql",
                 "database")
# After the account's name, a few words of its label may come before the colon ("Akun uji
# (DB dev): `admin` / `…`", "login for staging: …", 「用户登录 (`/login`)：…」: a remark in
# brackets, any characters).
_PAIR = (r"[*_]{0,2}[ \t]{0,3}[:：=][ \t]{0,3}"
         r"(?P<q1>[`'\"]?)(?P<user>[^\s`'\"/]{2,80})(?P=q1)[ \t]{0,3}/[ \t]{0,3}"
         r"(?P<q2>[`'\"]?)(?P<pw>[^\s`'\"/]{4,80})(?P=q2)")
_ACCOUNT_PAIR = re.compile(
    r"(?:[ \t]?[^\n:：=/`*()（）]{1,32})?(?:[ \t]{0,3}[(（][^()（）\n]{0,40}[)）])?" + _PAIR)
_SERVICE_PAIR = re.compile(_PAIR)


def account_pairs(text: str, low: str) -> list[tuple[int, int]]:
    """The passwords of "user / password" pairs given after an account's name: each name
    found with ``str.find``, the pair read right after it (bounded: linear in the text)."""
    if "/" not in text:
        return []
    out = []
    for word in (*ACCOUNT_WORDS, *SERVICE_WORDS):
        pair = _SERVICE_PAIR if word in SERVICE_WORDS else _ACCOUNT_PAIR
        at = low.find(word)
        while at >= 0:
            end = at + len(word)
            # (an ASCII word a word of its own; a CJK one may run on into its label: 用户登录)
            alone = not word.isascii() or not (
                (at and low[at - 1].isalnum()) or low[end:end + 1].isalnum())
            match = pair.match(text, end) if alone else None
            if match is not None:
                value = sv.clean(match.group("pw"))
                if value and value != match.group("user") and sv.is_literal(
                        value, quoted=False, strict=True, password=True):
                    span = (match.start("pw"), match.start("pw") + len(value))
                    if span not in out:
                        out.append(span)
            at = low.find(word, end)
    out += [span for span in _mail_pairs(text) if span not in out]
    return sorted(out)


# An e-mail address and a password in one code span, or in two joined by a slash, with no
# account's name before them: "`ana@example.org / hf0sx3eH` 로 로그인", "using
# `ana@example.org` / `hf0sx3eH`" (a login, as the pair itself shows).
_MAIL_PAIR = re.compile(
    r"`[^\s`/@]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,24}(?:`[ \t]{1,3}/[ \t]{1,3}`"
    r"|[ \t]{1,3}/[ \t]{1,3})(?P<pw>[^\s`/]{4,80})`")


def _mail_pairs(text: str) -> list[tuple[int, int]]:
    """The passwords of "address / password" pairs in a code span."""
    if "@" not in text:
        return []
    out = []
    for match in _MAIL_PAIR.finditer(text):
        value = match.group("pw")
        if "@" not in value.rstrip("@!#$%&*") and sv.is_literal(
                value, quoted=False, strict=True, password=True):
            out.append(match.span("pw"))
    return out
