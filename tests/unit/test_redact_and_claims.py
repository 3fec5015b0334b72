"""What stands between memory text and the API: ``redact`` (credentials never leave the
machine) and ``claims`` (a model's merge must keep every load-bearing part of its sources).

A false positive costs a warning in the report and an offline decision for that memory (a
merge whose source holds a redaction is refused); a false negative sends a credential to a
third party. So:

- prose that merely *mentions* a credential word ("password policy", "rotate the token") is
  not flagged;
- a ``label: value`` or ``label=value`` shape with a credential word as the label is flagged
  when its value is a value: a literal, not a pointer to one, a placeholder or prose
  ("Token: see 1Password"). The name-versus-value cases live in test_secrets.py.
"""

from __future__ import annotations

import pytest

from consolidator.llm.claims import claim_tokens, missing_claims
from consolidator.llm.redact import PLACEHOLDER, find, redact

PEM_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
PEM = (f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n"
       "VxKsbjm9TqJ0gbgTQbZwKzT1ycbJbD5sL0xhWq4Y3z6wJ4C8UPj3ugpZ8VkRNsoY\n"
       "-----END RSA PRIVATE KEY-----")

# (kind reported by find, text holding the secret, the secret, text that must survive)
SECRETS = {
    "pem private key": ("private key", f"Deploy key:\n{PEM}\nUse it from the bastion only.",
                        PEM_BODY, "Use it from the bastion only."),
    "openssh private key without its end line": (
        "private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5v",
        "b3BlbnNzaC1rZXktdjEAAAAABG5v", ""),
    "anthropic key": ("Anthropic key",
                      "The eval job uses sk-ant-api03-Zq7Xb2Lm9Kp4Vt8Rw1Ny6Hc3Jd5Fg0Sa here.",
                      "Zq7Xb2Lm9Kp4Vt8Rw1Ny6Hc3Jd5Fg0Sa", "The eval job uses"),
    "openai project key": ("OpenAI key", "OPENAI_API_KEY=sk-proj-Ab3De5Gh7Jk9Mn2Pq4St6Vw8Yz1B",
                           "Ab3De5Gh7Jk9Mn2Pq4St6Vw8Yz1B", "OPENAI_API_KEY="),
    "openai legacy key": ("OpenAI key", "fallback key sk-" + "aB3dE5gH7jK9" * 4,
                          "aB3dE5gH7jK9" * 4, "fallback key"),
    "aws access key": ("AWS access key", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
                       "AKIAIOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID="),
    "aws temporary access key": ("AWS access key", "key ASIAY34FZKBOKMUTVV7A for the job",
                                 "ASIAY34FZKBOKMUTVV7A", "for the job"),
    "aws secret key": ("AWS secret key",
                       "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                       "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = "),
    "aws secret key in an env line": (
        "AWS secret key", 'export AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "export AWS_SECRET_ACCESS_KEY="),
    "github classic token": ("GitHub token", "GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                             "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "GITHUB_TOKEN="),
    "github fine-grained token": ("GitHub token", "pat github_pat_" + "A1b2C3d4" * 6,
                                  "A1b2C3d4" * 6, "pat "),
    "slack bot token": ("Slack token", "Slack bot: xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
                        "xoxb-123456789012", "Slack bot: "),
    "password in a url": ("password in URL",
                          "Mirror: https://deployer:hunter2@git.example.com/infra.git",
                          "hunter2", "https://deployer:"),
    "password in a database url": ("password in URL", "postgres://app:s3cr3t@db:5432/app",
                                   "s3cr3t", "@db:5432/app"),
    "password line": ("password", "password: hunter2", "hunter2", "password: "),
    "password line in another case": ("password", "Password = hunter2", "hunter2", "Password = "),
    "api key line": ("password", "api-key: abc123def456", "abc123def456", "api-key: "),
    "client secret line": ("password", "client_secret=xyz789abc;", "xyz789abc", ";"),
}


@pytest.mark.parametrize("kind, text, secret, kept", SECRETS.values(), ids=SECRETS.keys())
def test_each_kind_of_secret_is_found_and_redacted(
    kind: str, text: str, secret: str, kept: str
) -> None:
    assert kind in find(text)
    redacted = redact(text)
    assert secret not in redacted
    assert PLACEHOLDER in redacted
    assert kept in redacted, "only the secret goes, not the text around it"


def test_redacting_every_secret_in_one_memory_leaves_none_and_finds_none() -> None:
    text = "\n".join(t for _kind, t, _s, _k in SECRETS.values())
    redacted = redact(text)
    assert all(secret not in redacted for _kind, _t, secret, _k in SECRETS.values())
    assert redact(redacted) == redacted, "redaction is idempotent"


ORDINARY = [
    "The password policy is documented in docs/security.md.",
    "Rotate the token every 90 days; the secret store handles it.",
    "Our API key rotation policy is quarterly.",
    "secret santa list is in notes/party.md",
    "Password:",  # a label with nothing after it (a heading in a checklist)
    "password: `",
    "sk-learn is installed in the analysis venv",
    "The release commit is 3f9a1c2e4b5d6f708192a3b4c5d6e7f809a1b2c3.",
    "Run 550e8400-e29b-41d4-a716-446655440000 failed on the canary.",
    "Docs live at https://example.com:8080/docs and git@github.com:org/repo.git.",
    "Email alice@example.com about the outage.",
    "The tasks-runner-for-nightly-builds-and-tests job retries twice.",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_that_mentions_credentials_is_not_flagged(text: str) -> None:
    assert find(text) == []
    assert redact(text) == text


@pytest.mark.parametrize("text", ["Token: see 1Password", "password: ask the on-call lead"])
def test_a_credential_label_followed_by_prose_is_not_a_secret(text: str) -> None:
    # Issue 12: a secret is a value; a label that points elsewhere holds none.
    assert find(text) == []
    assert redact(text) == text


MISSED = {
    "env var with a prefix": ("DB_PASSWORD=hunter2", "hunter2"),
    "env var glued to the word": ("PGPASSWORD=hunter2 psql -h db", "hunter2"),
    "prefixed api key": ("STRIPE_API_KEY=sk_live_51HabcdefGhijklmnop", "sk_live_51HabcdefGhijklmnop"),
    "json key": ('config: {"user": "app", "password": "hunter2"}', "hunter2"),
    "passphrase with spaces": ("password: correct horse battery staple", "horse battery staple"),
    "bearer token": ("curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig'",
                     "eyJhbGciOiJIUzI1NiJ9"),
}


@pytest.mark.parametrize("text, secret", MISSED.values(), ids=MISSED.keys())
def test_common_credential_shapes_are_redacted_too(text: str, secret: str) -> None:
    assert find(text)
    assert secret not in redact(text)


# --- claims -------------------------------------------------------------------------------

SOURCES = [
    ("- The API gateway listens on port 8443 behind the load balancer.\n"
     "- Config lives in src/gateway/settings.py; set max_retries there.\n"
     "- The code freeze starts on 2026-03-05.\n"),
    ("- Ask Alice before touching useQueryClient.\n"
     "- Run `make ci` before every push.\n"),
]
MERGED = (
    "- Run `make ci` before every push.\n"
    "- The code freeze starts on 2026-03-05.\n"
    "- Ask Alice before touching useQueryClient.\n"
    "- Config lives in src/gateway/settings.py; set max_retries there.\n"
    "- The API gateway listens on port 8443 behind the load balancer.\n"
)


def test_a_faithful_reordering_of_the_sources_loses_no_claim() -> None:
    assert missing_claims(SOURCES, MERGED) == []


def test_a_faithful_merge_may_change_case_and_bullets() -> None:
    reworded = MERGED.replace("- ", "* ").replace("Ask Alice", "ask alice")
    assert missing_claims(SOURCES, reworded) == []


@pytest.mark.parametrize("dropped, edit", [
    ("8443", lambda t: t.replace(" on port 8443", "")),
    ("8443", lambda t: t.replace("8443", "8080")),
    ("src/gateway/settings.py", lambda t: t.replace("src/gateway/settings.py", "the settings")),
    ("max_retries", lambda t: t.replace("set max_retries there", "set the retries there")),
    ("useQueryClient", lambda t: t.replace("useQueryClient", "the query hook")),
    ("2026-03-05", lambda t: t.replace("2026-03-05", "early March")),
    ("Alice", lambda t: t.replace("Ask Alice", "Ask the lead")),
    ("make ci", lambda t: t.replace("`make ci`", "the checks")),
], ids=["number", "changed number", "path", "snake identifier", "camel identifier", "date",
        "name", "code"])
def test_a_merge_that_drops_a_claim_is_caught(dropped: str, edit: object) -> None:
    merged = edit(MERGED)  # type: ignore[operator]
    assert merged != MERGED
    assert dropped in missing_claims(SOURCES, merged)


def test_claim_tokens_are_the_load_bearing_parts_of_a_line() -> None:
    found = claim_tokens("Deploy on 2026-03-05 from src/deploy/run.sh with max_retries, "
                         "HTTP_TIMEOUT and `make ci`, as Alice said.")
    assert {"2026-03-05", "src/deploy/run.sh", "max_retries", "HTTP_TIMEOUT", "make ci",
            "Alice"} <= found


@pytest.mark.parametrize("sources, merged, lost", [
    (["Retry 3 times before failing.\nThe timeout is 30 seconds.\n"],
     "The timeout is 30 seconds. Retry before failing.\n", "3"),
    (["The dev database listens on port 5432.\n"],
     "The dev database listens on port 15432.\n", "5432"),
], ids=["dropped number inside another", "changed number containing the old"])
def test_a_number_counts_as_kept_only_when_it_stands_on_its_own(
    sources: list[str], merged: str, lost: str
) -> None:
    assert lost in missing_claims(sources, merged)
