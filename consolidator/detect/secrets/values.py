"""Is this string a credential's value, or only something standing where a value could?

A secret is a value, never the name that holds it. Next to a credential's name people write
the value itself (``hunter2``, ``Tr0ub4dor3``, a random key), but far more often something
else: a reference (``$API_KEY``, ``os.getenv("X")``, ``${{ secrets.X }}``, ``op://vault/x``),
a placeholder (``<your token>``, ``xxxx``, ``your_key_here``, ``…``), a setting (``false``,
``25000``, ``bearer``), a type (``str``, ``string``), a path or a URL, another identifier
(``api_key=api_key``, ``settings.TOKEN``, ``BOT_TOKEN``) or prose ("see 1Password", "ask the
on-call lead", 「環境変数から読む」). This module tells them apart; every function takes the
candidate text and answers without looking at its surroundings.

All the regexes here run on one bounded value (a few hundred characters at most), and none
nests unbounded quantifiers.
"""

from __future__ import annotations

import re

from consolidator.detect.script import CJK_TEXT, lazy

# The words that name a credential: a value equal to one of them, or an identifier built from
# them (`db_password`, `accessToken`), names a credential rather than being one.
FAMILY = frozenset({
    "password", "passwd", "passphrase", "pass", "pwd", "pw", "secret", "secrets", "token",
    "tokens", "key", "keys", "apikey", "credential", "credentials", "creds", "auth",
})
# Single words that are settings, types, places or states, not a value: `secret: false`,
# `token_type: bearer`, `password: required`, `api_key: env`, `token: jwt`.
NON_VALUES = frozenset({
    "true", "false", "yes", "no", "on", "off", "none", "null", "nil", "undefined", "empty",
    "unset", "set", "na", "n/a", "tbd", "todo", "unknown", "default", "same", "optional",
    "required", "mandatory", "string", "str", "int", "integer", "number", "bool", "boolean",
    "bytes", "any", "object", "text", "char", "varchar", "secretstr", "hidden", "masked",
    "redacted", "encrypted", "hashed", "plaintext", "plain", "base64", "base64url", "hex",
    "jwt", "bearer", "basic", "oauth", "oauth2", "oidc", "saml", "sso", "ldap", "hmac",
    "header", "headers", "cookie", "cookies", "query", "body", "param", "env", "environment",
    "envvar", "dotenv", "vault", "keychain", "keyring", "1password", "onepassword",
    "bitwarden", "lastpass", "dashlane", "keepass", "keepassxc", "ssm", "kms", "secretsmanager",
    "valid", "invalid", "expired", "revoked", "rotated", "missing", "present", "configured",
    "provided", "generated", "random", "auto", "automatic", "manual", "enabled", "disabled",
    "sha1", "sha256", "sha512", "md5", "hs256", "rs256", "es256", "aes", "aes256", "pbkdf2",
    "bcrypt", "scrypt", "argon2", "argon2id", "x509", "pkcs8", "pkcs12", "ed25519", "rsa",
    "sha", "sha2", "sha3", "sha224", "sha384", "hs384", "hs512", "rs384", "rs512", "es384",
    "es512", "ps256", "ecdsa", "eddsa", "ecdh", "hkdf", "gcm", "cbc", "ctr", "chacha20",
    "poly1305", "x25519", "blake2b", "crc32", "des", "3des", "tls", "ssl",
    "utf8", "ascii", "readonly", "write", "read", "private", "public", "value", "values",
    "input", "field", "hash", "salt", "digest", "data", "payload", "user", "username",
    "email", "login", "result", "response", "request", "req", "res", "params", "args",
    "options", "opts", "props", "state", "form", "nullable", "omitted", "blank",
})
# Function words and the verbs of instructions: a passphrase has none of them, prose does.
STOPWORDS = frozenset("""
a an the and or but if then else of in on at to for from by with without via into onto over
under is are was were be been being do does did done has have had not no never only also
just still see ask use used using set get got put keep kept store stored lives live living
read reads loaded load from copy paste pasted rotate rotated rotates every each per any all
this that these those it its them they we you your our my me he she his her their there here
when where which who what how why as same than more less after before until env
check find look lookup sent send provided generated created managed handled expire expires
expired valid invalid required needed optional please enter type click call run runs
""".split())

_CJK = lazy(rf"[{CJK_TEXT}]")
_MASK = re.compile(r"[*•●xX#?.\-_ ]+")
_RUN = re.compile(r"(.)\1{5}")  # six of one character: a mask or a filler ("xxxxxx", "000000")
_PLACEHOLDER_PARTS = ("your", "example", "placeholder", "changeme", "change_me", "change-me",
                      "changethis", "change-this", "change_this", "replace", "dummy", "sample",
                      "redacted", "xxx", "insert", "fill", "todo")
_REFERENCE_START = ("$", "%", "!", "&", "@", "op://", "vault:", "ssm:", "arn:", "env:",
                    "secret:", "secrets.", "vars.", "env.", "process.env", "os.environ",
                    "import.meta", "self.", "this.", "settings.", "config.", "cfg.")
_DOTTED = re.compile(r"[A-Za-z_]\w{0,63}(?:\.[A-Za-z_]\w{0,63}){1,8}")
_ALL_CAPS = re.compile(r"[A-Z][A-Z0-9_]{1,80}")
_WORDS_JOINED = re.compile(r"[a-z]{1,32}(?:[_-][a-z]{1,32}){1,8}")
_CAMEL = re.compile(r"[a-z]{1,32}(?:[A-Z][a-z]{1,32}){1,8}")
_PASCAL = re.compile(r"(?:[A-Z][a-z]{1,32}){1,8}")
_PARTS = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|\d+")
_NUMBER = re.compile(
    r"[+-]?\d[\d,._]{0,30}(?:[kmgt]b?|ms|s|sec|m|min|h|hr|d|w|x|px|%|chars?|tokens?|k)?")
_ALNUM = re.compile(r"[^\W_]")
_COLOUR = re.compile(r"#[0-9a-f]{3,8}")
_VERSION = re.compile(r"v?\d{1,4}(?:\.\d{1,6}){1,3}[\w.-]{0,20}")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_PATH = re.compile(r"(?:/|~/|\./|\.\./|[A-Za-z]:[\\/]|\\\\)")
_FILE_EXT = re.compile(r"[^\s]{0,200}\.[a-z][a-z0-9]{0,5}")
_URL = re.compile(r"[a-z][a-z0-9+.-]{1,20}://")
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")
_SYMBOL = re.compile(r"[!@#%^&*+=?~$]")
_SPACE = re.compile(r"\s")
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")
_UPPER = re.compile(r"[A-Z]")
_LOWER = re.compile(r"[a-z]")
_PASSPHRASE_WORD = re.compile(r"[a-z]{3,12}")
_TRAILING = ".,;:)]}>\"'`*"


def has_cjk(value: str) -> bool:
    """Whether ``value`` holds Chinese, Japanese or Korean text (prose, never a secret)."""
    return _CJK().search(value) is not None


def parts(identifier: str) -> list[str]:
    """The lower-case words of an identifier: `DB_PASSWORD` and `dbPassword` -> db, password."""
    return [p.lower() for p in _PARTS.findall(identifier)]


def is_masked(value: str) -> bool:
    """A filler or a mask (`xxxx`, `****`, `0000000`, `sk-xxxxxxxx…`), not a real value."""
    return _MASK.fullmatch(value) is not None or _RUN.search(value) is not None


_PREFIX = re.compile(r"[A-Za-z]{2,8}[_-]")  # a credential format's prefix alone: `shpat_`, `sk-`


def is_placeholder(value: str) -> bool:
    """A stand-in for a value: `<token>`, `[REDACTED]`, `your_key_here`, `...`, `password`,
    or the prefix that names a kind of token (`shpat_`, `ghp_`, `sk-`) with no value after it."""
    low = value.lower()
    if value[:1] in "<[{(" or "..." in value or "…" in value or is_masked(value):
        return True
    if _PREFIX.fullmatch(value):
        return True
    if any(part in low for part in _PLACEHOLDER_PARTS):
        return True
    words = parts(value)
    return "here" in words or low.strip("_-") in FAMILY


def is_reference(value: str) -> bool:
    """A pointer to a value kept elsewhere, or a name: an env lookup, a call, a variable."""
    if value.startswith(_REFERENCE_START) or any(c in value for c in "([{`"):
        return True
    core = value.strip("_")
    if _DOTTED.fullmatch(core) or _WORDS_JOINED.fullmatch(core) or _CAMEL.fullmatch(core):
        return True
    if _PASCAL.fullmatch(core) and len(parts(core)) > 1:
        return True  # a type or a class: `_PasswordType`, `SecretStr`
    if _ALL_CAPS.fullmatch(value) and ("_" in value or value.isalpha() or len(value) < 12):
        return True  # an environment variable's name, or an acronym
    if "/" in value and _names_settings(value.split("/")):
        return True  # `GOOGLE_CLIENT_IDS/restart`: another setting's name, and what to do
    return bool(FAMILY.intersection(parts(value))) and not strong(value)


# Where a program reads a value by name, quoted or not: a lookup, never the value itself.
_NAMED_START = ("process.env.", "os.environ", "import.meta.env", "window.", "globalThis.",
                "document.", "self.", "this.")
_PATH_NAME = re.compile(r"[A-Za-z_]{1,64}")  # a property's name, with no digit in it


def named_path(value: str) -> bool:
    """Whether ``value`` names where a value is read, even in quotes and made-up in shape: a
    lookup by a named root (``process.env.API_TOKEN``, ``window.WIZ_global_data.SNlM0e``)
    or a property path of three or more names from a lower-case word, none but the last
    with a digit in it (``config.auth.tokenV2``); a token's own dotted parts (a JWT's,
    ``live.A9fK2mQ7….p1Z5…``) are not names."""
    if value.startswith(_NAMED_START):
        return True
    names = value.split(".")
    return len(names) >= 3 and _DOTTED.fullmatch(value) is not None \
        and names[0].isalpha() and names[0].islower() and len(names[0]) >= 3 \
        and all(_PATH_NAME.fullmatch(name) for name in names[1:-1])


def _names_settings(parts: list[str]) -> bool:
    """Whether the parts of a value split at ``/`` are names and plain words, one of them an
    environment variable's name (``GOOGLE_CLIENT_IDS/restart``), nothing made up."""
    return any("_" in part and _ALL_CAPS.fullmatch(part) for part in parts) and all(
        _ALL_CAPS.fullmatch(part) or part.isalpha() for part in parts)


_SCHEME_PARTS = re.compile(r"[-_+/]")
# A line of a source file, as a finding cites it: `ForgotPasswordController.php:65`.
_CODE_PLACE = re.compile(
    r"[\w./\\-]{1,200}\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|php|rb|go|rs|java|kt|kts|swift|c|h|cc"
    r"|cpp|hpp|cs|m|mm|scala|sh|bash|sql|vue|svelte|css|scss|html|md|mdx|yml|yaml|json|toml"
    r"|dart|lua|ex|exs|erl|hs|ml|r|pl|ps1|tf|gradle|xml|ini|cfg|conf|txt):\d{1,6}(?::\d{1,4})?")
# A measure, a comparison and a number: `AUC≥0.93`, `p95<200ms`, `error_rate<1%`.
_CONDITION = re.compile(r"[^\W\d_][\w.]{0,40}[ \t]?(?:[≥≤≠⩾⩽<>]=?|[!=]=)[ \t]?[-+]?\d[\d.,]{0,12}"
                        r"(?:%|[^\W\d_]{1,4})?")


def is_condition(value: str) -> bool:
    """A threshold a test is held to (`AUC≥0.93`): what a PASS verdict's label is given."""
    return _CONDITION.fullmatch(value) is not None


def is_code_place(value: str) -> bool:
    """A line of a source file (`Controller.php:65`): what a finding's title is followed by."""
    return _CODE_PLACE.fullmatch(value) is not None


def is_setting(value: str) -> bool:
    """A setting, type, state, number, version, date, path, URL or address, not a value."""
    low = value.lower()
    if low in NON_VALUES or low.replace("-", "").replace("_", "") in NON_VALUES:
        return True
    named = [part for part in _SCHEME_PARTS.split(low) if part and not part.isdigit()]
    if named and all(part in NON_VALUES for part in named):
        return True  # a scheme named in parts: `HMAC-SHA256`, `AES-256-GCM`, `RSA-2048`
    if _VERSION.fullmatch(low) or _ISO_DATE.match(low) or _COLOUR.fullmatch(low):
        return True
    if _URL.match(low) or _EMAIL.fullmatch(value) or _PATH.match(value):
        return True
    # `secrets/.env`, `config/keys.json`, `.env.local`: a file, not its content.
    return ("/" in value or value.startswith(".")) and _FILE_EXT.fullmatch(value) is not None


def is_number(value: str) -> bool:
    """A count, size or duration (`25000`, `60,000`, `8k`, `3600s`)."""
    return _NUMBER.fullmatch(value.lower()) is not None


def strong(value: str) -> bool:
    """Shaped like a made-up value: letters with digits, random mixed case, or inner symbols."""
    if len(value) < 6 or _SPACE.search(value):
        return False
    if _LETTER.search(value) is None:
        return False
    if _DIGIT.search(value):
        return True
    if len(value) >= 10 and _UPPER.search(value) and _LOWER.search(value):
        core = value.strip("_")
        return _CAMEL.fullmatch(core) is None and _PASCAL.fullmatch(core) is None
    return _SYMBOL.search(value, 1, len(value) - 1) is not None


def looks_random(value: str) -> bool:
    """Shaped like a secret and not a stand-in for one (for a value with no label around it)."""
    return strong(value) and not is_placeholder(value) and not is_setting(value)


_HEX = re.compile(r"[0-9a-fA-F]{32,512}")
_BASE64 = re.compile(r"[A-Za-z0-9+/_\-]{24,512}={0,2}")
_CLASS_RUN = re.compile(r"[A-Z]+|[a-z]+|[0-9]+|[^A-Za-z0-9]+")


def looks_generated(value: str) -> bool:
    """A long random value: 32 hex digits or more (with letters and digits), or a base64 run of
    24 characters or more that mixes upper case, lower case and digits as random text does —
    its character class changes at least once every three characters, which no identifier
    (`handleTokenRefreshCallback1`) or word does."""
    if is_masked(value) or is_placeholder(value):
        return False
    if _HEX.fullmatch(value):
        return _DIGIT.search(value) is not None and _LETTER.search(value) is not None
    if _BASE64.fullmatch(value) is None:
        return False
    if not (_DIGIT.search(value) and _UPPER.search(value) and _LOWER.search(value)):
        return False
    return len(_CLASS_RUN.findall(value)) * 3 >= len(value)


def clean(value: str) -> str:
    """``value`` without the punctuation and Markdown that close a sentence or a span."""
    return value.strip().rstrip(_TRAILING).lstrip("*")


def is_literal(value: str, *, quoted: bool, strict: bool, password: bool) -> bool:
    """Whether one word next to a credential's name is the credential itself.

    ``quoted``: it stood in quotes (a literal, unless it is a stand-in). ``strict``: the
    context is weak ("the password is X", code's `token = X`), so only a made-up shape counts.
    ``password``: the name is a password's, where a number of four or more digits is a PIN.
    """
    if len(value) < 3 or _ALNUM.search(value) is None or has_cjk(value):
        return False
    if is_placeholder(value) or is_setting(value):
        return False
    if is_number(value):
        return password and value.isdigit() and len(value) >= 4
    if is_reference(value) and not (quoted and strong(value) and not named_path(value)):
        return False
    if strong(value):
        return True
    if quoted:
        return len(value) >= 4
    if strict:
        return False
    # `password: swordfish`, `DB_PASSWORD=hunter`: a dictionary word assigned to a credential.
    return value.isalpha() and value.islower() and len(value) >= 4


def is_passphrase(value: str, least: int = 4) -> bool:
    """``least`` (four) to eight lower-case words that are not prose (`correct horse battery
    staple`); after a passphrase's own name three are enough."""
    words = value.split()
    if not least <= len(words) <= 8:
        return False
    return all(_PASSPHRASE_WORD.fullmatch(w) and w not in STOPWORDS and w not in NON_VALUES
               and w not in FAMILY for w in words)


_NEXT_LABEL = re.compile(r"\s{1,3}[^\W\d][\w.-]{0,24}(?: [\w.-]{1,24})?[ \t]?[:：=]")


def secret_span(value: str, *, quoted: bool, strict: bool, password: bool,
                phrase: bool, words: int = 4) -> tuple[int, int] | None:
    """Where in ``value`` (what follows a credential's name) the secret stands, if anywhere.

    ``phrase``: a `label: value` line, where the value may run to the end of the line: a
    passphrase counts whole, and a made-up first word followed by a comment counts alone
    ("password: hunter2 (staging only)"). Elsewhere only one word is judged. ``words``: the
    fewest words a passphrase has.
    """
    text = value.strip()
    if not text:
        return None
    offset = value.find(text)
    if _SPACE.search(text) is None:
        word = text if quoted else clean(text)
        if not word or not is_literal(word, quoted=quoted, strict=strict, password=password):
            return None
        start = offset + text.find(word)
        return start, start + len(word)
    if (quoted or phrase) and is_passphrase(text, words):
        return offset, offset + len(text)
    if not phrase or quoted:
        return None
    head = text.split()[0]
    first = clean(head)
    # A list of labelled values ("usuario: postgres, contraseña: postgres, base: app"): the
    # word before the next label is the whole value, judged as one standing alone.
    listed = head.endswith((",", ";")) and _NEXT_LABEL.match(text, len(head)) is not None
    if first and is_literal(first, quoted=False, strict=not listed, password=password):
        start = offset + text.find(first)
        return start, start + len(first)
    return None
