"""Credentials never leave the machine: found, reported, and replaced before any API call."""

from __future__ import annotations

import re

PLACEHOLDER = "[REDACTED]"

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
    ("password", re.compile(
        r"(?im)\b(password|passwd|pwd|secret|api[_-]?key|token|client[_-]?secret)"
        r"(\s*[:=]\s*)(?![\s`]*$)([^\s,;]+)")),
)


def find(text: str) -> list[str]:
    """The kinds of secret ``text`` seems to hold (empty if none)."""
    return [kind for kind, pattern in _PATTERNS if pattern.search(text)]


def redact(text: str) -> str:
    """``text`` with every credential replaced by ``[REDACTED]``."""
    for kind, pattern in _PATTERNS:
        if kind == "password in URL":
            text = pattern.sub(lambda m: f"{m.group(1)}:{PLACEHOLDER}", text)
        elif kind in ("password", "AWS secret key"):
            text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{PLACEHOLDER}", text)
        else:
            text = pattern.sub(PLACEHOLDER, text)
    return text
