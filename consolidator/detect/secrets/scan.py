"""Secrets in memory text: found, reported, and replaced before the text goes anywhere.

Credentials never leave the machine: nothing goes to an API, into MEMORY.md or into a report
with a secret in it. A secret is a *value*: a key in a known format (`sk-ant-…`, `AKIA…`,
`ghp_…`, a PEM block, a JWT), a password in a URL, a bearer or basic credential, or a literal
assigned to a credential's name (`DB_PASSWORD=hunter2`, "the password is `hunter2`"). Names,
references, placeholders and settings are not (`os.environ["BOT_TOKEN"]`,
`MAX_OUTPUT_TOKENS=25000`, `API_KEY=${API_KEY}`, "token: <your token here>"); see
:mod:`consolidator.detect.secrets.credentials`.

What :func:`find` reports is exactly what :func:`redact` replaces, so a warning always means
that something will be redacted, and nothing is redacted without a warning.

Every pattern starts at a literal prefix that cannot repeat inside its own match (a
look-behind keeps a match from starting inside a run), and every quantifier is bounded: the
scan is linear, also on adversarial text.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from typing import NamedTuple

from consolidator.detect.secrets import credentials
from consolidator.detect.secrets import values as sv

PLACEHOLDER = "[REDACTED]"
LABELLED = "password"  # the kind of a literal assigned to a password's name
# ... and to another credential's, by the family of its name (`API_TOKEN=…`: a token)
_LABELLED_KINDS = {"password": LABELLED, "passphrase": LABELLED, "pin": "PIN",
                   "token": "token", "secret": "secret", "key": "key"}


class Hit(NamedTuple):
    """One secret: its kind and the span of ``text`` that holds it."""

    kind: str
    start: int
    end: int


_Judge = Callable[[str], bool]


def _any(value: str) -> bool:
    """A format distinctive enough on its own; only a mask or a filler is refused."""
    return not sv.is_masked(value)


def _with_digit(value: str) -> bool:
    """A token format whose real values always hold digits (`xoxb-123…`)."""
    return _any(value) and any(c.isdigit() for c in value)


def _random_run(value: str) -> bool:
    """A bare `sk-` key: one long run of letters and digits mixed (not `sk-some-skill-name`)."""
    return _any(value) and any(sv.looks_random(run) for run in _ALNUM_RUN.findall(value))


def _mixed(value: str) -> bool:
    """A long value of mixed letters and digits (`wJalrXUtnFEMI/K7MDENG/…`), not a filler."""
    return _any(value) and sv.strong(value)


def _jwt(value: str) -> bool:
    """A JWT, unless it is a public client key (:func:`_public_jwt`)."""
    return _any(value) and not _public_jwt(value)


def _public_jwt_at(text: str, start: int) -> bool:
    """Whether a public client key's JWT starts at ``start`` (a label's value, read only up
    to the JWT's first dot)."""
    token = _JWT_TOKEN.match(text, start)
    return token is not None and _public_jwt(token.group(0))


_JWT_TOKEN = re.compile(r"eyJ[\w-]{0,4096}\.eyJ[\w-]{0,4096}\.[\w-]{0,4096}")


def _public_jwt(value: str) -> bool:
    """Whether ``value`` is a JWT whose payload gives it the role ``anon``: a public client
    key (Supabase's anon key is meant to be shipped in web pages; its service key, role
    ``service_role``, is a secret)."""
    parts = value.split(".")
    if len(parts) != 3 or not parts[0].startswith("eyJ") or not parts[1].startswith("eyJ"):
        return False
    try:
        payload = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
        # (read as JSON only when it names a role: nesting thousands deep is no payload)
        claims = json.loads(payload) if b'"role"' in payload else None
    except (binascii.Error, ValueError, RecursionError):
        return False  # not readable: judged by its shape
    return isinstance(claims, dict) and claims.get("role") == "anon"


_ALNUM_RUN = re.compile(r"[A-Za-z0-9]{20,256}")
_START = r"(?<![A-Za-z0-9_\-])"  # a token starts here, not inside a longer one

# (kind, lower-case hints the text must hold, pattern, judge of the matched value, group of the
# secret in the match: 0 for all of it)
_FORMATS: tuple[tuple[str, tuple[str, ...], re.Pattern[str], _Judge, int], ...] = (
    ("Anthropic key", ("sk-ant-",), re.compile(_START + r"sk-ant-[A-Za-z0-9_\-]{16,256}"),
     _any, 0),
    ("OpenAI key", ("sk-proj-", "sk-svcacct-", "sk-admin-"), re.compile(
        _START + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,256}"), _any, 0),
    ("OpenAI key", ("sk-",), re.compile(
        _START + r"sk-(?!ant-|proj-|svcacct-|admin-)[A-Za-z0-9_\-]{20,256}"), _random_run, 0),
    ("AWS access key", ("akia", "asia"), re.compile(
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"), _any, 0),
    ("AWS secret key", ("aws",), re.compile(
        r"(?i)(?<![a-z])aws[ _-]?(?:secret(?:[ _-]?access)?[ _-]?key|session[ _-]?token)"
        r"[\"'`*]{0,3}[ \t]{0,3}(?:[:=]|is\b|was\b)[ \t]{0,3}[\"'`]?"
        r"([A-Za-z0-9/+=]{40,1024})(?![A-Za-z0-9/+=])"), _mixed, 1),
    ("GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), re.compile(
        _START + r"(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{40,255})"), _any, 0),
    ("GitLab token", ("glpat-",), re.compile(_START + r"glpat-[A-Za-z0-9_\-]{20,64}"),
     _any, 0),
    ("npm token", ("npm_",), re.compile(_START + r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
     _any, 0),
    ("Slack token", ("xox",), re.compile(_START + r"xox[abposr]-[A-Za-z0-9\-]{10,255}"),
     _with_digit, 0),
    ("Slack webhook", ("hooks.slack.com",), re.compile(
        r"hooks\.slack\.com/services/T[A-Z0-9]{6,12}/B[A-Z0-9]{6,12}/[A-Za-z0-9]{16,64}"),
     _mixed, 0),
    ("Stripe key", ("k_live_", "k_test_"), re.compile(
        _START + r"[rs]k_(?:live|test)_[A-Za-z0-9]{10,255}"), _any, 0),
    ("Telegram bot token", (":aa",), re.compile(  # the bot's id, then its secret
        r"(?<![A-Za-z0-9_:\-])\d{8,10}:AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])"), _any, 0),
    ("Google API key", ("aiza",), re.compile(
        _START + r"AIza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])"), _any, 0),
    ("JWT", ("eyj",), re.compile(
        _START + r"eyJ[A-Za-z0-9_\-]{8,4096}\.eyJ[A-Za-z0-9_\-]{8,4096}\.[A-Za-z0-9_\-]{0,4096}"),
     _jwt, 0),
)
_FORMAT_HINTS = tuple(dict.fromkeys(hint for _kind, hints, *_rest in _FORMATS for hint in hints))
_PEM_HEAD = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(r"[A-Za-z0-9+/=]{20}")
# `scheme://user:password@host`: neither part holds a `:` (it must be escaped), the password
# runs to the last `@` before the path (people do write `root:Kumar@249@db`).
_URL_PASSWORD = re.compile(r"(?<=://)([^/\s:@]{0,128}):([^/\s:]{1,256})(?=@)")
_BEARER = re.compile(r"(?i)(?<![a-z0-9_\-])bearer[ \t]{1,8}([A-Za-z0-9._~+/=\-]{16,4096})")
_BASIC = re.compile(
    r"(?i)(?<![a-z0-9_\-])basic[ \t]{1,8}([A-Za-z0-9+/]{8,4096}={0,2})(?![A-Za-z0-9+/=])")
# The order find() reports kinds in: formats first, then what is judged by its label.
KINDS = tuple(dict.fromkeys(("private key", *(kind for kind, *_rest in _FORMATS),
                             "password in URL", "bearer token", "basic auth",
                             *_LABELLED_KINDS.values())))
_GENERIC = frozenset({"password in URL", "bearer token", "basic auth",
                      *_LABELLED_KINDS.values()})
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def hits(text: str) -> list[Hit]:
    """Every secret in ``text``, in order; a label's hit inside a format's is left out."""
    low = text.lower()
    if len(low) != len(text):  # a few non-ASCII letters change length in lower case
        low = text.translate(_ASCII_LOWER)
    found = _private_keys(text, low)
    # Most texts hold no format's hint: one pass over them all first (cheaper than an
    # alternation of them, and than a pass per format).
    if any(map(low.__contains__, _FORMAT_HINTS)):  # at C speed, unlike a generator
        for kind, hints, pattern, judge, group in _FORMATS:
            if any(map(low.__contains__, hints)):
                found += [Hit(kind, m.start(group), m.end(group))
                          for m in pattern.finditer(text) if judge(m.group(group))]
    if "://" in text:
        found += [Hit("password in URL", m.start(2), m.end(2))
                  for m in _URL_PASSWORD.finditer(text) if _url_password(m.group(1), m.group(2))]
    if "bearer" in low:
        found += [Hit("bearer token", m.start(1), m.end(1)) for m in _BEARER.finditer(text)
                  if _bearer(m.group(1))]
    if "basic" in low:
        found += [Hit("basic auth", m.start(1), m.end(1)) for m in _BASIC.finditer(text)
                  if _basic(m.group(1))]
    found += [Hit(_LABELLED_KINDS.get(family, LABELLED), start, end)
              for start, end, family in credentials.labelled(text, low)
              if not _public_jwt_at(text, start)]
    return _without_overlaps(found)


def _without_overlaps(found: list[Hit]) -> list[Hit]:
    """``found`` in order, without a generic hit that overlaps a format's (reported once)."""
    found.sort(key=lambda h: (h.start, h.kind in _GENERIC))
    kept: list[Hit] = []
    for hit in found:
        if kept and hit.start < kept[-1].end and hit.kind in _GENERIC:
            continue
        kept.append(hit)
    return kept


def _private_keys(text: str, low: str) -> list[Hit]:
    """PEM and PGP private key blocks that hold key material (not a header quoted alone)."""
    found = []
    start = low.find("-----begin")
    while start >= 0:
        head = _PEM_HEAD.match(text, start)
        if head is None:
            start = low.find("-----begin", start + 10)
            continue
        end = text.find("-----END", head.end())
        if end < 0:
            end = len(text)  # a block cut short still holds its key
        else:
            close = text.find("-----", end + 8, end + 80)
            end = close + 5 if close >= 0 else end + 8
        if _PEM_BODY.search(text, head.end(), end):
            found.append(Hit("private key", start, end))
        start = low.find("-----begin", end)
    return found


def _url_password(user: str, password: str) -> bool:
    """A password in a URL that is a value, not `user:password@`, `${PASS}` or `app:app@`."""
    return password != user and sv.is_literal(password, quoted=False, strict=False,
                                              password=True)


def _bearer(token: str) -> bool:
    """A bearer credential, not `Bearer <token>` or "bearer authentication"."""
    return sv.looks_random(token) and not sv.is_reference(token)


def _basic(encoded: str) -> bool:
    """`Basic <base64 of user:password>` whose password is a value."""
    try:
        decoded = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon) and decoded.isprintable() and _url_password(user, password)


def find(text: str) -> list[str]:
    """The kinds of secret ``text`` seems to hold (empty if none), in the order of KINDS."""
    kinds = {hit.kind for hit in hits(text)}
    return [kind for kind in KINDS if kind in kinds]


def redact(text: str) -> str:
    """``text`` with every secret :func:`find` reports replaced by ``[REDACTED]``."""
    found = hits(text)
    if not found:
        return text
    out = []
    at = 0
    for hit in found:
        if hit.start < at:  # overlaps what was just replaced
            at = max(at, hit.end)
            continue
        out += [text[at:hit.start], PLACEHOLDER]
        at = hit.end
    out.append(text[at:])
    return "".join(out)


def secret_values(text: str) -> list[str]:
    """The secret strings themselves (for scrubbing text that quotes them, like evidence)."""
    values = [text[hit.start:hit.end].strip("\"'") for hit in hits(text)]
    return [value for value in values if value]


def scrub(text: str, sources: list[str]) -> str:
    """``text`` redacted, and with every secret found in ``sources`` replaced too (in any case)."""
    text = redact(text)
    for source in sources:
        for value in secret_values(source):
            for word in {value, *value.split()}:
                if len(word) >= 4:
                    text = re.sub(re.escape(word), PLACEHOLDER, text, flags=re.IGNORECASE)
    return text
