"""Credentials never leave the machine: found, reported, and replaced before any API call."""

from __future__ import annotations

import re

PLACEHOLDER = "[REDACTED]"

# The credential word comes first in the pattern (a fast scan); `DB_PASSWORD`, `PGPASSWORD`
# and `STRIPE_API_KEY` match at their credential word, and the name's head stays as it is.
_CREDENTIAL_NAME = (
    r"(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|token)[\w.-]*"
)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
        re.DOTALL)),
    ("Anthropic key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{16,}")),
    ("OpenAI key", re.compile(r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,}")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("AWS secret key", re.compile(
        r"(?i)(aws_secret_access_key|aws_session_token)(\s*[=:]\s*)[\"']?[A-Za-z0-9/+=]{20,}")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    ("password in URL", re.compile(r"(?<=://)([^/\s:@]+):([^/\s@]+)(?=@)")),
    ("bearer token", re.compile(r"(?i)\b(bearer)(\s+)([A-Za-z0-9._~+/=\-]{8,})")),
    # `password: correct horse battery staple` (to the end of the line), `"password": "x"`.
    ("password", re.compile(
        rf"(?im)({_CREDENTIAL_NAME}[\"']?)(\s*:\s*)(?![\s`]*$)(\"[^\"\n]*\"|'[^'\n]*'|[^\n]+)")),
    # `DB_PASSWORD=hunter2; next`: an assignment's value ends at a space, comma or semicolon.
    ("password", re.compile(
        rf"(?im)({_CREDENTIAL_NAME}[\"']?)(\s*=\s*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;]+)")),
)


_CREDENTIAL_WORDS = ("password", "passwd", "pwd", "secret", "api_key", "api-key", "apikey",
                     "access_key", "access-key", "accesskey", "token")
# What each kind cannot do without (a substring search in C): most text has none of them.
_HINTS: dict[str, tuple[str, ...]] = {
    "private key": ("private key",),
    "Anthropic key": ("sk-ant-",),
    "OpenAI key": ("sk-",),
    "AWS access key": ("akia", "asia"),
    "AWS secret key": ("aws_secret", "aws_session"),
    "GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "Slack token": ("xox",),
    "password in URL": ("://",),
    "bearer token": ("bearer",),
    "password": _CREDENTIAL_WORDS,
}


def find(text: str) -> list[str]:
    """The kinds of secret ``text`` seems to hold (empty if none)."""
    low = text.casefold()
    found = []
    for kind, pattern in _PATTERNS:
        if kind in found or not any(hint in low for hint in _HINTS[kind]):
            continue
        if _search(kind, pattern, text, low):
            found.append(kind)
    return found


def _search(kind: str, pattern: re.Pattern[str], text: str, low: str) -> bool:
    if kind != "password":
        return pattern.search(text) is not None
    # The credential word starts the pattern: try it only where such a word stands.
    if len(low) != len(text):
        return pattern.search(text) is not None
    for word in _CREDENTIAL_WORDS:
        start = low.find(word)
        while start >= 0:
            if pattern.match(text, start):
                return True
            start = low.find(word, start + 1)
    return False


def redact(text: str) -> str:
    """``text`` with every credential replaced by ``[REDACTED]``."""
    for kind, pattern in _PATTERNS:
        if kind == "password in URL":
            text = pattern.sub(lambda m: f"{m.group(1)}:{PLACEHOLDER}", text)
        elif kind in ("password", "AWS secret key", "bearer token"):
            text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{PLACEHOLDER}", text)
        else:
            text = pattern.sub(PLACEHOLDER, text)
    return text


def secret_values(text: str) -> list[str]:
    """The secret strings themselves (for scrubbing text that quotes them, like evidence)."""
    values = []
    for _kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            values.append(match.group(match.lastindex or 0) if match.lastindex else match.group(0))
    return [v.strip("\"'") for v in values if v.strip("\"'")]


def scrub(text: str, sources: list[str]) -> str:
    """``text`` redacted, and with every secret found in ``sources`` replaced too (in any case)."""
    text = redact(text)
    for source in sources:
        for value in secret_values(source):
            for word in {value, *value.split()}:
                if len(word) >= 4:
                    text = re.sub(re.escape(word), PLACEHOLDER, text, flags=re.IGNORECASE)
    return text
