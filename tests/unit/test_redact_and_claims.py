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

The table of credential formats (issue 14) makes its values at run time from a seeded random
generator, with every vendor prefix split in two: no file here holds a key-shaped string.
"""

from __future__ import annotations

import base64
import random
import string

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
    "api key line": ("key", "api-key: abc123def456", "abc123def456", "api-key: "),
    "client secret line": ("secret", "client_secret=xyz789abc;", "xyz789abc", ";"),
    # A credential's value is named by the family of its name, not all "password".
    "token line": ("token", "DEPLOY_TOKEN=Zk29dkq0aLm3Qp", "Zk29dkq0aLm3Qp", "DEPLOY_TOKEN="),
    "token named in Japanese": ("token", "トークン: Zk29dkq0aLm3Qp", "Zk29dkq0aLm3Qp", "トークン: "),
    "pin line": ("PIN", "PIN: 4821", "4821", "PIN: "),
    "passphrase line": ("password", "passphrase: purple monkey dishwasher", "monkey",
                        "passphrase: "),
    "account pair": ("password", "login: ana@example.org / Hq9tZ2kLm", "Hq9tZ2kLm", "login: "),
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


# --- every credential format, table-driven (issue 14) -------------------------------------

_RNG = random.Random(14)
_ALNUM = string.ascii_letters + string.digits


def _made(length: int, alphabet: str = _ALNUM) -> str:
    """Made-up characters: a value no service ever issued."""
    return "".join(_RNG.choice(alphabet) for _ in range(length))


def _p(*parts: str) -> str:
    """A prefix assembled at run time, so that no file holds it next to a value."""
    return "".join(parts)


def _b64(length: int) -> str:
    return _made(length, _ALNUM + "+/")


def _pem(label: str) -> tuple[str, str]:
    body = _b64(64)
    return (f"-----BEGIN {label}-----\n{body}\n{_b64(64)}\n-----END {label}-----", body)


def _basic_header() -> tuple[str, str]:
    encoded = base64.b64encode(f"deploy:{_made(14)}".encode()).decode()
    return f"Authorization: Basic {encoded}", encoded


_DIGITS = string.digits
_HEX = "0123456789abcdef"
_PGP, _PGP_BODY = _pem("PGP PRIVATE KEY BLOCK")
_RSA, _RSA_BODY = _pem("RSA PRIVATE KEY")
_SSH, _SSH_BODY = _pem("OPENSSH PRIVATE KEY")
_BASIC, _BASIC_VALUE = _basic_header()

# (case, text around the secret with {} where it stands, the secret)
FORMATS_TABLE: list[tuple[str, str, str]] = [
    ("PGP private key block", "Signing key:\n{}\nKeep it offline.", _PGP),
    ("RSA private key block", "Deploy key:\n{}\nUse it from the bastion only.", _RSA),
    ("SSH private key block", "Bastion key:\n{}\nRotate it in May.", _SSH),
    ("AWS access key id", "CI uploads with {} to the bucket.",
     _p("AK", "IA") + _made(16, string.ascii_uppercase + _DIGITS)),
    ("AWS secret key in prose", "the aws secret key is {} for the uploader", _b64(40)),
    ("AWS secret key labelled", "AWS secret access key: {}", _b64(40)),
    ("password is", "the staging password is {}", _made(12, string.ascii_lowercase)),
    ("password is (made-up shape)", "the staging password is {}.", _made(12)),
    ("password:", "password: {}", _made(12)),
    ("pwd=", "mysql -u app pwd={} -h db", _made(12)),
    ("GitHub classic token", "export GH_TOKEN={}", _p("gh", "p_") + _made(36)),
    ("GitHub fine-grained token", "uses {} for the mirror",
     _p("github", "_pat_") + _made(22) + "_" + _made(59)),
    ("Stripe secret key", "billing runs with {} today", _p("sk", "_live_") + _made(24)),
    ("Stripe restricted key", "the reporting job has {}", _p("rk", "_live_") + _made(24)),
    ("Google API key", "maps key {} in the web app",
     _p("AI", "za") + _made(35, _ALNUM + "_-")),
    ("GitLab token", "clone with {} please", _p("gl", "pat-") + _made(20)),
    ("npm token", "publish with {} from CI", _p("np", "m_") + _made(36)),
    ("Slack bot token", "the bot posts with {}",
     _p("xo", "xb-") + _made(12, _DIGITS) + "-" + _made(13, _DIGITS) + "-" + _made(24)),
    ("Slack user token", "the export uses {}",
     _p("xo", "xp-") + _made(12, _DIGITS) + "-" + _made(24)),
    ("Slack app token", "socket mode: {}", _p("xo", "xa-") + "2-" + _made(24) + "7"),
    ("Slack refresh token", "refresh with {}", _p("xo", "xr-") + _made(24) + "9"),
    ("Slack session token", "the scraper used {}", _p("xo", "xs-") + _made(24) + "3"),
    ("Slack webhook", "alerts go to https://{} now",
     _p("hooks.", "slack.com/services/") + "T" + _made(8, string.ascii_uppercase + _DIGITS)
     + "/B" + _made(8, string.ascii_uppercase + _DIGITS) + "/" + _made(24)),
    ("JWT", "the test user's session is {} until Friday",
     _p("ey", "J") + _made(20) + "." + _p("ey", "J") + _made(30) + "." + _made(43, _ALNUM + "_-")),
    ("password in an https URL", "Mirror: https://deployer:{}@git.example.com/infra.git",
     _made(14)),
    ("Authorization: Basic header", "curl -H '{}' https://api.example.com", _BASIC),
    ("Anthropic key", "the eval job uses {} here", _p("sk", "-ant-") + "api03-" + _made(40)),
    ("OpenAI project key", "OPENAI_API_KEY={}", _p("sk", "-proj-") + _made(48)),
    ("OpenAI legacy key", "fallback key {} in the notebook", _p("s", "k-") + _made(48)),
    ("hex after token", "the deploy token {} expires soon", _made(40, _HEX)),
    ("hex after key", "signing key {}", _made(64, _HEX)),
    ("base64 after secret", "webhook secret {} (rotate yearly)", _made(32)),
    ("hex after a bare key", "key: {}", _made(40, _HEX)),
]
_SECRETS_IN = {"PGP private key block": _PGP_BODY, "RSA private key block": _RSA_BODY,
               "SSH private key block": _SSH_BODY,
               "Authorization: Basic header": _BASIC_VALUE}


@pytest.mark.parametrize("case, around, secret", FORMATS_TABLE,
                         ids=[row[0] for row in FORMATS_TABLE])
def test_every_credential_format_is_redacted_before_it_is_sent(
    case: str, around: str, secret: str
) -> None:
    text = around.format(secret)
    assert find(text), case
    redacted = redact(text)
    assert _SECRETS_IN.get(case, secret) not in redacted
    assert PLACEHOLDER in redacted
    before, _, after = around.partition("{}")
    assert redacted.startswith(before.split("\n")[0][:8]), "the words around it stay"
    assert after.split("\n")[-1][-8:] in redacted


NOT_SECRETS = [
    "token: <your-token>",
    "Set <your-token> in the header.",
    "API_KEY=$API_KEY",
    "Read $API_KEY from the environment.",
    'token = os.environ["TOKEN"]',
    "pass the token to the function",
    "the key is in the vault",
    "sort by key then value",
    "token budget: 60000",
    "the token expires in 3600 seconds",
    "the password is required",
    "the password was rotated last week",
    "the password is stored in the vault",
    "token handleTokenRefreshCallback1 is the callback",
    "Authorization: Bearer <token>",
    "postgres://user:password@localhost:5432/app",
    "commit " + _made(40, _HEX) + " fixed the build",
    "the cache key " + _made(64, _HEX) + " is the lockfile's hash",
    "public key " + _made(43) + " goes in authorized_keys",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_a_placeholder_reference_or_prose_is_not_masked(text: str) -> None:
    assert find(text) == []
    assert redact(text) == text


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


# --- claims hold line by line (issue 14) --------------------------------------------------

RULES = ("- Do not deploy on Fridays; the release train leaves on Thursday at 16:00.\n"
         "- Migrations run before the new code starts (see db/migrate.sh).\n"
         "- Ask Priya before changing the billing webhook.\n"
         "- Priya also reviews every change to the webhook retries.\n")
HABITS = ("- Never skip the staging run; it takes about 25 minutes.\n"
          "- Feature flags default to off in production.\n")
HONEST = ("- Feature flags are off by default in production.\n"
          "- Don't deploy on Fridays: the release train leaves Thursday at 16:00.\n"
          "- Before touching the billing webhook, ask Priya.\n"
          "- Priya reviews every change to the webhook retries too.\n"
          "- Database migrations run before the new code starts (db/migrate.sh).\n"
          "- Never skip the staging run (about 25 minutes).\n")


def test_an_honest_merge_reordered_and_reworded_around_its_facts_keeps_every_claim() -> None:
    assert missing_claims([RULES, HABITS], HONEST) == []


def test_a_merge_that_says_a_shared_line_once_keeps_it() -> None:
    shared = "- Every deploy needs a green staging run first.\n"
    assert missing_claims([RULES + shared, HABITS + shared], HONEST + shared) == []


@pytest.mark.parametrize("dropped", [
    "- Database migrations run before the new code starts (db/migrate.sh).\n",
    "- Feature flags are off by default in production.\n",
    "- Priya reviews every change to the webhook retries too.\n",
], ids=["a line with a path", "a line with no fact at all", "its facts said elsewhere"])
def test_a_merge_that_drops_a_sentence_is_refused(dropped: str) -> None:
    merged = HONEST.replace(dropped, "")
    assert missing_claims([RULES, HABITS], merged)


def test_a_merge_that_drops_one_sentence_of_a_line_is_refused() -> None:
    merged = HONEST.replace(": the release train leaves Thursday at 16:00", "")
    assert {"16:00", "Thursday"} <= set(missing_claims([RULES, HABITS], merged))


def test_a_merge_that_moves_a_claims_facts_to_another_line_is_refused() -> None:
    merged = (HONEST.replace(": the release train leaves Thursday at 16:00", "")
              .replace("in production.", "in production since Thursday at 16:00."))
    assert missing_claims([RULES, HABITS], merged)


@pytest.mark.parametrize("sources, merged", [
    ([RULES, HABITS], HONEST.replace("Don't deploy", "Deploy")),
    ([RULES, HABITS], HONEST.replace("Never skip", "Skip")),
    (["- 周五不要部署生产环境。\n"], "- 周五部署生产环境。\n"),
    (["- 金曜日は本番にデプロイしない。\n"], "- 金曜日は本番にデプロイする。\n"),
    (["- 금요일에는 배포하지 않는다.\n"], "- 금요일에는 배포한다.\n"),
], ids=["don't", "never", "zh", "ja", "ko"])
def test_a_merge_that_drops_a_negation_is_refused(sources: list[str], merged: str) -> None:
    assert "a negation" in missing_claims(sources, merged)


def test_a_merge_that_adds_a_negation_is_refused() -> None:
    merged = HONEST.replace("Feature flags are off", "Feature flags are never off")
    assert any(lost.startswith("a negation added") for lost in
               missing_claims([RULES, HABITS], merged))


def test_a_merge_into_one_line_of_the_sources_tokens_is_refused() -> None:
    tokens = " ".join(sorted(claim_tokens(RULES + HABITS)))
    assert missing_claims([RULES, HABITS], tokens + "\n")


def test_a_merge_into_one_line_of_every_word_of_the_sources_is_refused() -> None:
    words = list(dict.fromkeys((RULES + HABITS).replace("- ", " ").split()))
    lost = missing_claims([RULES, HABITS], " ".join(words) + "\n")
    assert any("claims packed into one line" in item for item in lost)


def test_a_claim_checked_in_its_own_line_is_not_kept_by_facts_scattered_elsewhere() -> None:
    sources = ["- The API gateway listens on port 8443.\n- The admin UI listens on port 9090.\n"]
    swapped = "- The API gateway listens on port 9090.\n- The admin UI listens on port 8443.\n"
    assert missing_claims(sources, swapped)


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_merged_text_too_large_to_check_is_refused_not_waited_for() -> None:
    lines = "".join(f"- deploy rule number {n} for the billing service\n" for n in range(3000))
    assert missing_claims([lines], lines) == ["a merged text too long to check"]
