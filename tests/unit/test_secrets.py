"""A secret is a value, never the name that holds it (issue 12), in English, Chinese, Japanese
and Korean; more formats found (issue 14); a scan that stays linear on adversarial text; and
no secret copied into MEMORY.md or printed by a report (issue 14).

Each class of writing has a positive case and its negative twin in the same words. Every value
here is made up; provider formats are assembled at run time so no file holds one whole.
"""

from __future__ import annotations

import base64
import json
import os
import random
import string
import time
from pathlib import Path

import pytest

from consolidator.cli import main
from consolidator.detect.secrets import scan as secrets
from consolidator.detect.secrets.scan import PLACEHOLDER, find, hits, redact, scrub, secret_values
from consolidator.llm import redact as llm_redact


def flagged(text: str) -> bool:
    """Whether ``text`` draws a secret warning; checks that redaction agrees with it."""
    kinds = find(text)
    assert (redact(text) != text) == bool(kinds), "a warning always means a redaction"
    return bool(kinds)


# (class, holds a value, holds only a name / setting / reference / placeholder / prose)
TWINS = [
    ("env lookup", 'BOT_TOKEN = "Zx81kQ0pLm29vB7n"', 'token = os.environ["CHAT_BOT_TOKEN"]'),
    ("subscript assignment", 'os.environ["BOT_TOKEN"] = "Zx81kQ0pLm29vB7n"',
     'os.environ["BOT_TOKEN"] = os.environ["OLD_TOKEN"]'),
    ("number setting", "BOT_TOKEN=Zx81kQ0pLm29vB7n", "MAX_OUTPUT_TOKENS=25000"),
    ("boolean flag", "SESSION_TOKEN = 'Zx81kQ0pLm29vB7n'", "IS_TOKEN0 = True"),
    ("names listed in prose", "secrets live in `.env`: `BOT_TOKEN=Zx81kQ0pLm29vB7n`",
     "secrets live in `secrets/.env` (`BOT_TOKEN`, `DB_PASSWORD`, …)"),
    ("pointer to a vault", "password: hunter2", "password: see 1Password"),
    ("pointer to a person", "Token: Zx81kQ0pLm29vB7n", "Token: ask the on-call lead"),
    ("angle-bracket placeholder", "token: Zx81kQ0pLm29vB7n", "token: <your token here>"),
    ("shell variable", "API_KEY=Zx81kQ0pLm29vB7n", "API_KEY=${API_KEY}"),
    ("function call", "api_key: 'Zx81kQ0pLm29vB7n'", "api_key: os.getenv('PAYMENTS_KEY')"),
    ("command substitution", "export GH_TOKEN=Zx81kQ0pLm29vB7n",
     "export GITHUB_TOKEN=$(gh auth token)"),
    ("CI secret reference", "NPM_TOKEN: Zx81kQ0pLm29vB7n", "NPM_TOKEN: ${{ secrets.NPM_TOKEN }}"),
    ("masked value", "SMTP_PASSWORD=Tr0ub4dor3", "SMTP_PASSWORD=********"),
    ("your-key-here filler", "ADMIN_PASSWORD=Tr0ub4dor3",
     "ADMIN_PASSWORD=your_admin_password_here"),
    ("boolean setting", 'secret: "Wq8zT2vN"', "secret: false"),
    ("scheme named in parts", "token = Hq9tW3-zLm5Qx", "token = HMAC-SHA256"),
    ("a format's prefix alone", "the token `shpat_9fQ2xK7mL3pR8vT1` is static",
     "there is no static token `shpat_` any more"),
    ("password in another language", "senha: Tr0ub4dor3", "a resenha: Tr0ub4dor3"),
    ("account pair", "login: ana@example.org / hf0sx3eHylM8", "See the login / logout flow"),
    ("pw before code", "credentials.json (plaintext pw `gymbox2031`)",
     "run the suite with pw `test` first"),
    ("account pair of names", "account: deploy / Qm7vT2kx9LpZ", "account: prod / staging"),
    ("account pair after a label", "- **Akun uji (DB dev)**: `admin` / `quadran123`",
     "- **Akun uji (DB dev)**: lihat `.env` / README"),
    ("account pair after a longer label", "login for staging: admin / Qm7vT2kx9LpZ",
     "See the login page: /admin / settings"),
    ("cipher named in parts", "secret_key: Zx81-kQ0p-Lm29", "secret_key: AES-256-GCM"),
    ("type or enum", "access_token: Zx81kQ0pLm29vB7n", "token_type: bearer"),
    ("type annotation", 'api_key: str = "Zx81kQ0pLm29vB7n"', 'api_key: str = ""'),
    ("budget with a space", "token: Zx81kQ0pLm29vB7n", "token budget: 60000"),
    ("page cursor", "refresh_token: Zx81kQ0pLm29vB7n", "next_token: Zx81kQ0pLm29vB7n"),
    ("prose mention", "the reset password is hunter2", "the password reset flow sends one link"),
    ("'is' followed by a word", "the password is hunter2", "the password is required"),
    ("'is' followed by a place", "the API key is `Zx81kQ0pLm29vB7n`",
     "the API key is in the vault"),
    ("shell command", "pwd: Tr0ub4dor3", "Run `pwd` first; pwd: /srv/app"),
    ("bare pass", "SMTP_PASS=Tr0ub4dor3", "First pass: grep the logs"),
    ("error codes mapped to causes", "DEPLOY_TOKEN=Zx81kQ0pLm29vB7n",
     "- invalid_token=GOOGLE_CLIENT_IDS/restart; expired_token: Zx81kQ0pLm29vB7n"),
    ("another setting named in the value", "GOOGLE_TOKEN=Zx81kQ0pLm29vB7n",
     "GOOGLE_TOKEN=GOOGLE_CLIENT_IDS/restart"),
    ("a service's account", "FTP=deploy7/`Terminal26x!`, host `ftp.example.org:21`",
     'psql "postgresql://postgres.<ref>:<pwd>@db.example.org:5432/postgres?sslmode=require"'),
    ("an address and a password in code", "log in with `qa@example.org / Terminal26x`",
     "send it to `qa@example.org / ops@example.org`; mail `qa@example.org / inbox`"),
    ("pass after a user name", "sandbox: user `qa_store7` / pass `Terminal26x`",
     "user `qa_store7` / pass `validate` to the hook"),
    ("pass after a login, no code", "login: ana, pass Tr0ub4dor3", "user ana / pass the test"),
    ("pw with no separator", "internal page, Basic Auth; pw ntp-goldrush-26",
     "run the suite with pw test --headed"),
    ("pw as a name", "DB_PW=Tr0ub4dor3", "const pw = await chromium.launch()"),
    ("pw before a word", "pw: Tr0ub4dor3", "pw reset links expire after an hour"),
    ("dictionary word assigned", "DB_PASSWORD=swordfish", "password = swordfish  # a variable"),
    ("keyword argument", "Client(password='Tr0ub4dor3')", "Client(password=password)"),
    ("passphrase", "password: correct horse battery staple", "password: same as the staging one"),
    ("inline code after the word", "log in as `qa` with password `Tr0ub4dor3`",
     "the `password` field is masked; set the token `GITHUB_TOKEN` first"),
    ("public key", "private_key: Zx81kQ0pLm29vB7n", "publicKey: Zx81kQ0pLm29vB7n"),
    ("file holding it", "secret_key: Zx81kQ0pLm29vB7n", "secret_key: config/keys.json"),
    ("password in URL", "postgres://app:s3cr3t@db:5432/app",
     "postgres://user:password@localhost:5432/app"),
    ("URL with a variable", "redis://:Hq9tW3zLm5@cache:6379",
     "postgres://${DB_USER}:${DB_PASS}@db/app"),
    ("URL with the default role", "postgres://report:Qm7vT2kx9LpZ@db/app",
     "postgres://postgres:postgres@localhost:5432/app"),
    ("bearer header", "Authorization: Bearer 7fQ2xK9mL3pR8vT1wZ5cB6nD",
     'curl -H "Authorization: Bearer <token>"'),
    ("bearer variable", "Authorization: Bearer 7fQ2xK9mL3pR8vT1wZ5cB6nD",
     "Authorization: Bearer $API_TOKEN"),
    ("bearer as a word", "Bearer 7fQ2xK9mL3pR8vT1wZ5cB6nD", "we use bearer authentication"),
    ("basic credentials", "Authorization: Basic ZGVwbG95OlRyMHViNGRvcjM=",
     "Authorization: Basic dXNlcjpwYXNzd29yZA=="),
    ("private key header alone", "-----BEGIN OPENSSH PRIVATE KEY-----\n"
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
     "The file must start with `-----BEGIN OPENSSH PRIVATE KEY-----`."),
    # A word before the next label of an inline list is the whole value; a word before prose
    # may be the start of a sentence about the password.
    ("labelled list", "PostgreSQL (usuario: app, contraseña: orchid, base: shop)",
     "PostgreSQL (usuario: app, contraseña: requerida, ver el vault)"),
    # A property path names where a token is read, even in quotes and made-up in shape.
    ("property path", "- CSRF token: `Zx81kQ0pLm29vB7n` (XSRF)",
     "- CSRF token: `window.WIZ_global_data.SNlM0e` (XSRF)"),
    ("named lookup in quotes", "- token: `Zx81kQ0pLm2.9vB7n`", "- token: `process.env.API_T0KEN`"),
    ("dotted token in quotes", 'session_token = "live.A9fK2mQ7xR4tV8bN3cL6.p1Z5wE0yU2"',
     'session_token = "config.auth.sessionToken2"'),
    ("prefixed value in quotes", 'password = "secret:Xk9vQ2mLp7aB4rTz"',
     'password = "secret:prod/db/password"'),
    ("address and password in two code spans", "signs in with `qa@example.org` / `Hq7vX2p9!`",
     "signs in with `qa@example.org` / `see-the-vault`"),
]


@pytest.mark.parametrize("kind, secret, twin", TWINS, ids=[t[0] for t in TWINS])
def test_a_value_is_a_secret_and_its_name_alone_is_not(kind: str, secret: str, twin: str) -> None:
    assert flagged(secret), kind
    assert not flagged(twin), kind


CJK_TWINS = [
    ("zh label", "测试环境数据库密码：Vk3pQ8zTm2", "密码：见 1Password 里的「运维」条目"),
    ("zh 'is'", "密码是 s3cr3tPass", "密码重置流程：设置 → 账户"),
    ("zh token count", "令牌：Zx81kQ0pLm29vB7n", "每次运行的 token 预算：60000"),
    ("zh env name", "密钥：Zx81kQ0pLm29vB7n", "密钥放在 `.env` 里（`API_KEY`）"),
    ("ja label", "パスワード：hunter2", "パスワード：環境変数から読む"),
    ("ja は", "パスワードは `hunter2` です", "パスワードは8文字以上"),
    ("ja は with a product", "パスワードは「Tr0ub4dor3」", "パスワードは1Passwordにあります"),
    ("ja token count", "トークン：Zx81kQ0pLm29vB7n", "トークン数：25000"),
    ("ja API key", "APIキー：`k7Tq2Wm9Xz4LpR8v`", "APIキーは環境変数 `OPENAI_API_KEY` から読む"),
    ("ko label", "비밀번호: Guest-7412xq", "비밀번호: 설정 페이지에서 확인"),
    ("ru label", "Пароль: Kx8vQ2mTz", "пароль от почты хранится в 1Password"),
    ("pl label", "hasło: Zx81kQ0pLm", "hasło zmieniamy co miesiąc"),
    ("tr label", "Şifre: Gh7kLm2pQ", "Şifre: kasada saklanıyor"),
    ("ru account pair", "логин: ana@example.org / hf0sx3eHylM8",
     "логин: ana@example.org / см. менеджер"),
    ("ko account pair", "전체 계정: `k1m` / `4821`", "전체 계정: `k1m` / `admin`"),
    # another script's word for a password needs no separator before a made-up value
    ("zh no separator", "使用 root 登录，密码 Vk3pQ8zTm2（需保密）", "密码 MD5 加密后存储"),
    ("ru no separator", "пароль Kx8vQ2mTz от почты", "пароль SHA256 не хранится"),
    ("ja no separator", "パスワード Tr0ub4dor3 でログイン", "パスワード 8文字以上"),
    ("zh account pair with a remark", "用户登录 (`/login`)：`ana@example.org` / `Hq9tZ2kLm`",
     "用户 (`/admin`)：`root` / `admin`"),
]


@pytest.mark.parametrize("kind, secret, twin", CJK_TWINS, ids=[t[0] for t in CJK_TWINS])
def test_a_value_after_a_cjk_credential_word_is_a_secret_and_prose_is_not(
    kind: str, secret: str, twin: str
) -> None:
    assert flagged(secret), kind
    assert not flagged(twin), kind


def _fmt(*pieces: str) -> str:
    """A made-up credential in a provider's format, assembled so no file holds it whole."""
    return "".join(pieces)


FORMATS = [
    ("Stripe key", _fmt("rk_", "live_", "51Hq8ZtW3mK9vB2xL7pN")),
    ("Google API key", _fmt("AI", "za", "Sy", "A1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW")),
    ("GitLab token", _fmt("gl", "pat-", "Zq7Xb2Lm9Kp4Vt8Rw1Ny")),
    ("npm token", _fmt("np", "m_", "Zq7Xb2Lm9Kp4Vt8Rw1Ny6Hc3Jd5Fg0SaUeQo")),
    ("JWT", _fmt("eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiJxYS0xNyJ9", ".", "q2Vx8LmT4pN7wZ1kR9cB")),
    ("Slack webhook", _fmt("https://hooks.", "slack.com/services/", "T0AB12CD3/B0EF45GH6/",
                           "aB3dE5gH7jK9mN2pQ4sT6vW8")),
    ("AWS access key", "AKIAEXAMPLEEXAMPLE12"),
    ("Telegram bot token", _fmt("7412905538:", "AA", "Hq8ZtW3mK9vB2xL7pNc4Rd6Fg1SaUeQoJ")),
    ("private key", _fmt("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n",
                         "lQOYBGB1c2VyAQgAxyz123abcDEF456ghiJKL789\n",
                         "-----END PGP PRIVATE KEY BLOCK-----")),
]


@pytest.mark.parametrize("kind, value", FORMATS, ids=[f[0] for f in FORMATS])
def test_a_known_credential_format_is_found_and_redacted(kind: str, value: str) -> None:
    text = f"The release job uses {value} for now."
    assert find(text) == [kind]
    assert value not in redact(text)
    assert redact(text).startswith("The release job uses ")


def _jwt(claims: str) -> str:
    """A made-up JWT whose payload is ``claims`` (JSON)."""
    payload = base64.urlsafe_b64encode(claims.encode()).decode().rstrip("=")
    return _fmt("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".", payload, ".",
                "q2Vx8LmT4pN7wZ1kR9cBq2Vx8LmT4pN7wZ1kR9cB")


@pytest.mark.parametrize("text", [
    "- Anon public key (safe to embed):\n  `{}`",
    "anon key: {}",
    "SUPABASE_ANON_KEY={}",
])
def test_a_jwt_with_the_anon_role_is_a_public_client_key_and_its_twins_are_secrets(
    text: str,
) -> None:
    anon = _jwt('{"iss":"supabase","ref":"qhxw","role":"anon","iat":1700000000}')
    assert find(text.format(anon)) == []
    assert redact(text.format(anon)) == text.format(anon)
    # The service key, a JWT of no role, and one whose payload cannot be read are secrets.
    for twin in (_jwt('{"iss":"supabase","ref":"qhxw","role":"service_role"}'),
                 _jwt('{"sub":"qa-17","name":"test user"}'),
                 _fmt("eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiJxYS0xNyJ9bm9pc2U", ".", "q2Vx8LmT4pN7")):
        assert find(text.format(twin)) != [], twin
        assert twin not in redact(text.format(twin))


def test_a_jwt_whose_payload_nests_thousands_deep_is_judged_by_its_shape() -> None:
    deep = _jwt('{"role":' + "[" * 2900)
    for text in (f"x {deep}", f"token: {deep}"):
        assert find(text) != [] and deep not in redact(text)


# (shape, text holding a value, the value, the same words naming no value)
SEPARATORS = [
    ("table cell", "| password | hunter2 |", "hunter2", "| password | see 1Password |"),
    ("table cell, dictionary word", "| staging DB password | swordfish |", "swordfish",
     "| token | expired |"),
    ("table header row", "| Password | `Tr0ub4dor3` |", "Tr0ub4dor3",
     "| password | notes |\n|---|---|\n| shared | rotated |"),
    ("em dash", "password — hunter2", "hunter2", "password — rotated monthly"),
    ("spaced hyphen", "password - swordfish", "swordfish", "the password - see the vault"),
    ("en dash, no spaces", "password–Tr0ub4dor3", "Tr0ub4dor3", "password-protected zip"),
    ("dash in a heading", "- deploy password — Tr0ub4dor3", "Tr0ub4dor3",
     "## Password - rotation"),
    ("passphrase", "passphrase: purple monkey dishwasher", "purple monkey dishwasher",
     "passphrase: stored in the vault"),
    ("passphrase, one word", "passphrase: correcthorse", "correcthorse", "passphrase: value"),
    ("PIN", "PIN: 4821", "4821", "pin: 3.11"),
    ("PIN with 'is'", "The door PIN is 4821", "4821", "pinned: 4821"),
    ("PIN in a name", "SIM_PIN=4821", "4821", "pin `numpy==1.26` until the fix ships"),
    ("variable's name", "DB_PASSWORD=Tr0ub4dor3", "Tr0ub4dor3",
     "PASSWORD_FILE=/run/secrets/db; set DB_PASSWORD in .env; the password field"),
]


@pytest.mark.parametrize("shape, secret, value, twin", SEPARATORS,
                         ids=[s[0] for s in SEPARATORS])
def test_the_value_after_a_credential_word_and_any_separator_is_redacted_and_names_are_not(
    shape: str, secret: str, value: str, twin: str
) -> None:
    assert flagged(secret), shape
    assert value not in redact(secret)
    assert redact(secret) == secret.replace(value, PLACEHOLDER)
    assert not flagged(twin), shape


@pytest.mark.parametrize("text", [
    "the aws secret access key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AWS secret key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
], ids=["'is'", "label"])
def test_an_aws_secret_key_in_prose_is_found(text: str) -> None:
    assert find(text) == ["AWS secret key"]
    assert "wJalrXUtnFEMI" not in redact(text)


@pytest.mark.parametrize("text", [
    _fmt("GITHUB_TOKEN=", "github_pat_", "xxxxxxxx..."),
    _fmt("gh", "p_", "x" * 36),
    _fmt("sk-", "x" * 24),
    _fmt("xo", "xb-", "your-bot-token"),
    _fmt("https://hooks.", "slack.com/services/", "T00000000/B00000000/", "X" * 24),
    "Render service id: srv-d8ln1fnavr4c738p74qg",
    "SHA256 fb3b054dc9f91656abb4af04bc063898d63c969bfff8a959ec7717e54456deb9",
    "skill: sk-2024-release-notes-draft-for-skills",
], ids=["truncated pat", "masked ghp", "masked sk", "slack filler", "webhook filler",
        "service id", "hash", "kebab name"])
def test_a_filler_or_an_identifier_in_a_credential_format_is_not_a_secret(text: str) -> None:
    assert not flagged(text)


def test_a_label_followed_by_a_made_up_word_and_a_comment_redacts_only_the_word() -> None:
    text = "password: hunter2 (staging only)"
    assert redact(text) == f"password: {PLACEHOLDER} (staging only)"
    assert secret_values(text) == ["hunter2"]


def test_a_generic_label_inside_a_known_format_is_reported_once() -> None:
    text = _fmt("GITHUB_TOKEN=", "gh", "p_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789")
    assert find(text) == ["GitHub token"]
    assert len(hits(text)) == 1


def test_scrub_replaces_a_secret_quoted_elsewhere_in_any_case() -> None:
    source = "DB_PASSWORD=Qm7vT2kx9LpZ"
    scrubbed = scrub("the old value qm7vt2kx9lpz leaked", [source])
    assert scrubbed == f"the old value {PLACEHOLDER} leaked"


def test_redaction_is_idempotent_and_leaves_no_secret_behind() -> None:
    text = "\n".join(secret for _kind, secret, _twin in TWINS + CJK_TWINS)
    once = redact(text)
    assert redact(once) == once
    assert find(once) == []


ADVERSARIAL = ["token token ", "tokentoken", "token=", "api_key=", "password: ",
               "aws_secret_access_key=", "-----BEGIN RSA PRIVATE KEY-----", "eyJa.", "sk-",
               "://a:b", "Bearer a", "パスワード：", "DB_PASSWORD=a;"]


def _scan_time(unit: str, size: int) -> float:
    """Seconds to find and redact in ``unit`` repeated to ``size`` characters (best of two)."""
    text = (unit * (size // len(unit) + 1))[:size]
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        find(text)
        redact(text)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("unit", ADVERSARIAL)
def test_adversarial_text_is_scanned_in_linear_time(unit: str) -> None:
    small, large = _scan_time(unit, 64 * 1024), _scan_time(unit, 256 * 1024)
    assert large < 2.0, f"{large:.2f} s for 256 KB"
    assert large < 10 * max(small, 0.001), f"64 KB {small:.3f} s, 256 KB {large:.3f} s"


@pytest.mark.parametrize("text", [
    "The .env still needs its keys (API Key: GLM/Pexels/OpenAI).",
    "Set the token: GitHub/GitLab, one per forge.",
    "Then pass `uuid`/`slug`/`username` in the attribute array.",
    "First pass `parse_all` over the files, then the second one.",
    "| run | 1/10 PASS — QXRUSD31USDT |",
    "Backtest 3/10 PASS - ETH2USDT, the rest fail.",
    "| case 7 | PASS | Kx8vQ2mTz31 |",
])
def test_services_the_verb_pass_before_code_or_a_pass_verdict_is_no_secret(text: str) -> None:
    assert not flagged(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("判据（PASS = AUC≥0.93 且 尺寸比 ≤ 1.2）", False),
    ("- PASS = recall>=0.85, FAIL below", False),
    ("- PASS = p95<200ms", False),
    ("- PASS = error_rate<1%", False),
    ("- pass = Xq7≥Lm0vR2", True),
    ("password: Pa55w0rd<123", True),
    ("password: Secret==3.14", True),
    ("密码：Admin≥2024", True),
    ("2. **Plaintext password reset token** - `modules/Auth/ForgotController.php:65` - raw",
     False),
    ("Session token at `src/auth/session.ts:42:7`, never logged", False),
    ("password: admin.c:1234", True),
    ("token: deploy.bot:839201", True),
], ids=["a threshold", "a threshold in ascii", "a threshold with a unit", "a threshold as a share",
        "a made-up value with a sign in it", "a password with a sign", "a password with two signs",
        "a password with a sign after a cjk label", "a line of a file after a finding's title",
        "a line and column in prose", "a password shaped as a file's line",
        "a value after no file's extension"])
def test_a_threshold_or_a_line_of_a_file_is_no_value(text: str, secret: bool) -> None:
    """``PASS = AUC≥0.93`` is the bar a test must clear, and ``Controller.php:65`` after a
    finding's title the line it is about: neither is a credential's value. After a
    credential's own label, the same shapes are values."""
    assert flagged(text) == secret


@pytest.mark.parametrize(("text", "secret"), [
    ("- OPA_SUITE_TOKEN: credencial `9f2c4e1a7b3d5f6e8a0c2b4d`", True),
    ("API key: production `sk9Xq2LmP0vR7tY4wZ1bN6cH`", True),
    ("token: see `docs/auth_setup_for_the_team.md`", False),
    ("Token: rotated `2026-03-01`", False),
    ("token: callback `handleTokenRefreshCallback1`", False),
], ids=["hex after a word", "random after a word", "a path", "a date", "an identifier"])
def test_a_random_value_in_code_after_a_label_and_one_word_is_a_secret(
    text: str, secret: bool,
) -> None:
    """"TOKEN: credencial `…`": one word says what the value is, and the value follows in
    code; a path, a date or an identifier there is none."""
    assert flagged(text) is secret
    if secret:
        assert "9f2c4e1a7b3d" not in redact(text) and "sk9Xq2LmP0vR" not in redact(text)


@pytest.mark.parametrize("text", [
    "my api key `k3y_f0r_prod_use`",
    "db secret `p4ss_w0rd_admin`",
    "SECRET_KEY `django_s3cr3t_fallback`",
    "token `abc123_xyz`",
    "the shared secret `tr0ub4dor_and_three`",
])
def test_a_made_up_value_in_snake_case_in_code_after_a_credential_word_is_a_secret(
    text: str,
) -> None:
    """A value people make up is often lower case with underscores: in code right after a
    credential's word it is that credential, however much it looks like a name."""
    assert flagged(text)


def test_a_made_up_value_after_a_credential_label_is_still_a_secret() -> None:
    assert flagged("API Key: Zq81xVb0Pm4kTt7Q")


# --- one scan for every reader -------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["KINDS", "LABELLED", "PLACEHOLDER", "Hit", "find", "hits", "redact", "scrub",
             "secret_values"],
)
def test_the_backends_module_offers_the_same_scan_under_its_old_names(name: str) -> None:
    assert getattr(llm_redact, name) is getattr(secrets, name)


def test_the_scan_depends_on_no_backend() -> None:
    source = Path(secrets.__file__).read_text(encoding="utf-8")

    assert "consolidator.llm" not in source


# --- no secret copied into the index or printed by a report -------------------------------

OLD = 1_700_000_000  # long idle: nothing is held back as being written


def _made_up(seed: int) -> str:
    """A made-up password: eight letters and two digits."""
    rng = random.Random(seed)
    return ("".join(rng.choice(string.ascii_letters) for _ in range(8))
            + "".join(rng.choice(string.digits) for _ in range(2)))


def _root(tmp_path: Path, memories: dict[str, str], index: str) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    for file, text in memories.items():
        (root / file).write_text(text, encoding="utf-8")
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    for path in root.iterdir():
        os.utime(path, (OLD, OLD))
    return root


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_a_password_in_a_description_reaches_neither_the_new_pointer_nor_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = _made_up(1)
    root = _root(tmp_path, {
        "staging_db.md": ("---\nname: staging_db\n"
                          f'description: "Staging database login; password: {secret}"\n'
                          "type: reference\n---\n- The staging database is db-staging:5432.\n"),
        "tea.md": "---\nname: tea\ndescription: Tea\ntype: user\n---\nThe user likes tea.\n",
    }, "# Memory\n\n- [Tea](tea.md) — the user likes tea\n")
    common = ("--memory-dir", str(root), "--state-dir", str(tmp_path / "state"))

    outputs = [_cli(capsys, "report", *common), _cli(capsys, "report", "--format", "json", *common),
               _cli(capsys, "run", "--force", "--json", *common)]

    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    pointer = next(line for line in index.splitlines() if "(staging_db.md)" in line)
    assert secret not in index
    assert PLACEHOLDER in pointer, "the hook keeps its words, the password masked"
    assert "- [Tea](tea.md) — the user likes tea" in index, "the user's lines stay as written"
    for out in outputs:
        assert secret not in out
    assert "+- [Staging db](staging_db.md)" in outputs[0], "the report shows the new pointer"
    assert secret in (root / "staging_db.md").read_text(encoding="utf-8"), "the memory stays"


def test_a_conflict_over_two_passwords_is_reported_without_either(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = _made_up(2), _made_up(3)
    root = _root(tmp_path, {
        "staging_db.md": ("---\nname: staging_db\ndescription: Staging database\n"
                          f"type: reference\n---\n- The staging database password: {old}\n"),
        "staging_db_new.md": ("---\nname: staging_db_new\ndescription: Staging database\n"
                              f"type: reference\n---\n- The staging database password: {new}\n"),
    }, "# Memory\n\n- [Staging](staging_db.md) — staging\n")
    common = ("--memory-dir", str(root), "--state-dir", str(tmp_path / "state"))

    as_json = _cli(capsys, "report", "--format", "json", *common)
    as_markdown = _cli(capsys, "report", *common)

    (conflict,) = json.loads(as_json)["roots"][0]["conflicts"]
    assert PLACEHOLDER in conflict["reason"]
    for out in (as_json, as_markdown):
        assert old not in out and new not in out


def test_a_password_in_a_note_with_no_frontmatter_is_reported_and_the_note_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Markdown note beside the memories with no frontmatter is no memory, but a password in
    it is still a password: the report says what it seems to hold, never the value, and the
    note keeps every byte."""
    secret, other = _made_up(3), _made_up(4)
    note = (f"# 服务器\n\n- 使用 root 登录，密码 {secret}（需保密）\n"
            f"- 用户登录 (`/login`)：`ana@example.org` / `{other}`\n")
    root = _root(tmp_path, {
        "server-notes.md": note,
        "plain-notes.md": "# Notes\n\nThe deploy script lives in tools/.\n",
        "tea.md": "---\nname: tea\ndescription: Tea\ntype: user\n---\nThe user likes tea.\n",
    }, "# Memory\n\n- [Tea](tea.md) — the user likes tea\n")
    common = ("--memory-dir", str(root), "--state-dir", str(tmp_path / "state"))

    markdown = _cli(capsys, "report", *common)
    doc = json.loads(_cli(capsys, "run", "--force", "--json", *common))

    unparsed = {u["file"]: u for u in doc["roots"][0]["unparsed"]}
    assert unparsed["server-notes.md"]["secrets"] == ["password"]
    assert "secrets" not in unparsed["plain-notes.md"]
    assert "`server-notes.md`: no frontmatter; holds what looks like a secret (password)" \
        in markdown
    for out in (markdown, json.dumps(doc, ensure_ascii=False)):
        assert secret not in out and other not in out
    assert (root / "server-notes.md").read_text(encoding="utf-8") == note


def test_a_password_in_the_index_is_reported_and_never_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code loads MEMORY.md into every session, so a password written there is in all
    of them: the report says the index seems to hold one, never the value, and a clean index
    says nothing of the kind."""
    secret = _made_up(5)
    index = ("# Memory\n\n- [Tea](tea.md) — the user likes tea\n"
             f"- Admin: `admin` / senha: `{secret}`\n")
    root = _root(tmp_path, {
        "tea.md": "---\nname: tea\ndescription: Tea\ntype: user\n---\nThe user likes tea.\n",
    }, index)
    common = ("--memory-dir", str(root), "--state-dir", str(tmp_path / "state"))

    markdown = _cli(capsys, "report", *common)
    doc = json.loads(_cli(capsys, "report", "--format", "json", *common))

    assert doc["roots"][0]["index"]["secrets"] == ["password"]
    assert "holds what looks like a secret (password), never shown" in markdown
    assert secret not in markdown and secret not in json.dumps(doc, ensure_ascii=False)
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == index

    (root / "MEMORY.md").write_text("# Memory\n\n- [Tea](tea.md) — the user likes tea\n",
                                    encoding="utf-8")
    doc = json.loads(_cli(capsys, "report", "--format", "json", *common))
    assert doc["roots"][0]["index"]["secrets"] == []
