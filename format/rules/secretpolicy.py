"""The secrets policy: text that holds a credential is never stored unless explicitly allowed.

One detector and one policy for every write path (``spec/format.md`` §5.5, rules listed in
``spec/capture.md`` "Secrets"):

- :func:`find_secret` names the first rule that fires on a text (``"password"``,
  ``"card-number"``...) and never returns the secret itself, so callers can report a refusal
  without echoing it. Capture refuses a sentence it fires on (``refused-secret``).
- :func:`check_record` applies the policy to a record about to be written (``Store.put``,
  ``update``, ``replace``, ``supersede``; import and consolidate ask it first so that a dry run
  agrees with a real one): the texts of the record that the write changes (content, tags,
  extension values) are checked; a hit raises :class:`SecretRefusedError` (exit 4), unless the
  caller allows secrets, in which case the rule name is returned for the audit log (never the
  text).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import SecretRefusedError

if TYPE_CHECKING:
    from mem.format.model.record import Record


@dataclass(frozen=True, slots=True)
class SecretRule:
    """A rule: its name (reported), its pattern (compiled on first use: compiling every rule
    costs tens of milliseconds, which commands that never write must not pay) and what it
    fires on."""

    name: str
    pattern: str
    description: str

    @property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern)  # re's own cache keeps the compiled pattern


# "is", "was", "=", ":"... between a name and the value it states.
_CONNECT = r"(?:\s+(?:is|was|will\s+be|are|were)\b|'s\b|\s*[=:-])\s*"
# "for the house", "on the old laptop", "to the router": what a credential is for, between its
# name and the connector ("the wifi password for the beach house is ...").
_QUALIFIER = r"(?:\s+(?:for|to|of|on|at|from)\s+(?:[\w'.@-]+\s+){0,4}?[\w'.@-]+)?"
# Words that follow "password is" in sentences that state no password ("my password is too
# short", "the password is on the fridge", "the password was changed").
_NOT_A_VALUE = (
    r"(?:(?i:now|still)\s+)?(?!(?i:too|very|not|no|being|then|the|a|an|in|on|at|by|for|to|of|under|inside|"
    r"behind|with|my|your|our|their|his|her|its|same|different|case[\s-]sensitive|required|"
    r"needed|due|about|like|also|just|only|something|what|that|this|it|empty|blank|missing|"
    r"written|kept|known|shown|given|hidden|forgotten|lost|set|reset|sent|stolen|broken|"
    r"weak|strong|long|short|easy|hard|secure|insecure|safe|wrong|correct|invalid|valid|"
    r"[a-z]+(?:ed|ing)|easily|really|usually|probably|currently|definitely|actually|simply)\b)"
)
# A value that holds a digit (codes, PINs, tokens stated with a generic name).
_DIGIT_VALUE = r"(?=[^\s]*\d)"
_PASSWORD_NAMES = (
    r"pass\s?words?|passwd|passphrase|passkey|pwd|pw|wi-?fi\s+(?:pass|key)|wpa2?\s+key"
    r"|network\s+key"
)
_CODE_NAMES = (
    r"pin(?:\s?code|\s?number)?|passcode|security\s+code|cvv|cvc|combination"
    r"|combo|(?:door|gate|garage|alarm|disarm|safe|lock|locker|lockbox|keypad|unlock|entry|building"
    r"|key\s+safe)\s+code"
    r"|code\s+(?:for|to|of)\s+(?:the\s+|my\s+|our\s+)?(?:[\w'-]+\s+){0,2}?"
    r"(?:safe|door|gate|alarm|lock|lockbox|garage|building|house|padlock)"
)
_TOKEN_NAMES = (
    r"api[\s_-]?key|secret[\s_-]?key|access[\s_-]?(?:token|key)|auth[\s_-]?token"
    r"|refresh[\s_-]?token|client[\s_-]?secret|signing[\s_-]?secret|session[\s_-]?key"
    r"|encryption[\s_-]?key|license[\s_-]?key|private[\s_-]?key|secret|token"
)

SECRET_RULES: tuple[SecretRule, ...] = (
    SecretRule(
        "private-key",
        (r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----"),
        "PEM / OpenSSH / PGP private key block",
    ),
    SecretRule("aws-access-key", (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "AWS access key id"),
    SecretRule(
        "github-token",
        (r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        "GitHub personal, OAuth, app or fine-grained token",
    ),
    SecretRule(
        "slack-token",
        (r"\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})"),
        "Slack bot, user or app token",
    ),
    SecretRule(
        "stripe-key", (r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), "Stripe key"
    ),
    SecretRule(
        "sk-api-key",
        (r"\bsk-(?:[A-Za-z]{2,8}-)?[A-Za-z0-9_-]{20,}"),
        "API key of the 'sk-...' family (OpenAI, Anthropic and others)",
    ),
    SecretRule("google-api-key", (r"\bAIza[0-9A-Za-z_-]{35}"), "Google API key"),
    SecretRule(
        "vendor-token",
        (
            r"\b(?:glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}"
            r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|pypi-AgE[A-Za-z0-9_-]{50,})"
        ),
        "GitLab, npm, Hugging Face, SendGrid or PyPI token",
    ),
    SecretRule(
        "jwt",
        (r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        "JSON Web Token",
    ),
    SecretRule(
        "bearer-token", (r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*"), "HTTP bearer token"
    ),
    SecretRule(
        "url-credentials",
        (r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@"),
        "user:password inside a URL",
    ),
    SecretRule(
        "password",
        (
            r"(?i:\b(?:" + _PASSWORD_NAMES + r")\b" + _QUALIFIER + _CONNECT + r")"
            + _NOT_A_VALUE + r"\S+"
        ),
        "a password or passphrase being stated ('the wifi password for the house is ...', "
        "'pw is ...')",
    ),
    SecretRule(
        "password-set",
        (
            r"(?i:\b(?:change[ds]?|set|reset|update[ds]?|use|try)\b[^.!?\n]{0,30}?"
            r"\b(?:pass\s?word|passcode|passphrase|pin|pw)\s+(?:to\s+|as\s+)?)"
            + _DIGIT_VALUE + _NOT_A_VALUE + r"\S{4,}"
        ),
        "a password set or used ('I changed my password to ...', 'use the password ...')",
    ),
    SecretRule(
        "access-code",
        (
            r"(?i:\b(?:" + _CODE_NAMES + r")\b" + _QUALIFIER + _CONNECT + r")"
            + r"[*#]?" + _DIGIT_VALUE + r"\S+"
        ),
        "a PIN, passcode, security code, CVV, door/alarm/safe code or combination being stated",
    ),
    SecretRule(
        "login-pair",
        (
            r"(?i:\b(?:login|log-in|sign-in|credentials|creds)\b" + _QUALIFIER + _CONNECT + r")"
            + r"[^\s/:]+\s*[/:](?!//)\s*\S+"
        ),
        "a login stated as user and password ('bank login is sam / ...')",
    ),
    SecretRule(
        "recovery-codes",
        (
            r"(?i:\b(?:(?:2fa|mfa|two[\s-]factor|otp|backup|recovery|authenticator)\s+){1,3}"
            r"(?:codes?|keys?)\b" + _QUALIFIER + _CONNECT + r")"
            + r"(?=[\w-]*\d)[\w-]{3,}"
        ),
        "two-factor backup or recovery codes being stated ('2FA backup codes are ...')",
    ),
    SecretRule(
        "seed-phrase",
        (
            r"(?i:\b(?:seed|recovery|mnemonic|wallet)\s+(?:phrase|words)\b" + _CONNECT + r")"
            + r"(?:[a-z]+\s+){11,23}[a-z]+"
        ),
        "a wallet seed or recovery phrase (12 to 24 words) being stated",
    ),
    SecretRule(
        "api-key",
        (
            r"(?i:(?<![A-Za-z0-9])(?:" + _TOKEN_NAMES + r")\b" + _QUALIFIER + _CONNECT + r")"
            + _NOT_A_VALUE + r"(?:" + _DIGIT_VALUE + r"\S{6,}|\S{20,})"
        ),
        "an API key, token or secret being stated (a value with a digit, or 20+ characters)",
    ),
    SecretRule(
        "card-number",
        (
            r"(?i:\b(?:card|credit card|debit card|account|bank account|iban|routing)\s*"
            r"(?:number|no\.?|#)?" + _CONNECT + r")"
            r"(?:\d[\d -]{4,}\d|[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7})"
        ),
        "a card, bank account, routing or IBAN number being stated (even without a valid checksum)",
    ),
    SecretRule(
        "us-ssn",
        (r"(?i)(?:\b(?:ssn|social security(?: number)?)\b.{0,20})?\b\d{3}-\d{2}-\d{4}\b"),
        "US social security number",
    ),
    SecretRule(
        "high-entropy-token",
        (
            r"(?<![A-Za-z0-9+/_-])(?=(?:[A-Za-z+/_-]*\d){3})(?=(?:[A-Z0-9+/_-]*[a-z]){3})"
            r"(?=(?:[a-z0-9+/_-]*[A-Z]){3})[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_-])"
        ),
        "a long random-looking string (32+ characters, at least 3 digits, 3 lower-case and 3 "
        "upper-case letters)",
    ),
)

# 13 to 19 digits, spaces or dashes between, starting as issuers' numbers do (22-27: Mastercard's
# 2-series, 2221-2720; 3-6: Amex, Diners, JCB, Visa, Mastercard, Maestro, Discover, UnionPay), not
# inside a word: a millisecond time (1700000200000), an id like session_1700000200000_ab, or a
# compact time of this century or the next (20261202222610, YYYYMMDDhhmmss) is no card, however
# its checksum falls (one in ten such times passes Luhn).
_CARD_RE = r"(?<![\w-])(?:2(?=[ -]?[2-7])|[3-6])(?:[ -]?\d){12,18}(?![\w-])"
_compiled: list[tuple[str, re.Pattern[str]]] = []


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum of a string of digits (card numbers)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _has_card(text: str) -> bool:
    for m in re.finditer(_CARD_RE, text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_ok(digits):
            return True
    return False


def find_secret(text: str) -> str | None:
    """The name of the first secret rule that fires on ``text``, or None. Never the secret."""
    if _has_card(text):
        return "card-number"
    if not _compiled:
        _compiled.extend((rule.name, rule.regex) for rule in SECRET_RULES)
    for name, regex in _compiled:
        if regex.search(text):
            return name
    return None


def rule_names() -> list[str]:
    return ["card-number", *(r.name for r in SECRET_RULES if r.name != "card-number")]


# -- the policy ---------------------------------------------------------------------------------

REFUSAL_HINT = (
    "keep credentials in a password manager; to store it anyway pass --allow-secret "
    "(the override is logged, the text is not)"
)


def _texts(rec: Record) -> Iterator[tuple[str, str]]:
    """(field, text) pairs of a record that the policy checks: content, tags, extension values."""
    yield "content", rec.content
    for t in rec.tags:
        yield "tags", t
    for key, value in sorted((rec.extra or {}).items()):
        yield from ((key, s) for s in _strings(value))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def record_secret(rec: Record, old: Record | None = None) -> tuple[str, str] | None:
    """(field, rule) of the first secret in a text of ``rec`` that ``old`` did not hold already.

    Without ``old`` (a new record) every text is checked. A text already stored unchanged (a
    record kept with ``--allow-secret`` whose tags are now edited) is not refused again.
    """
    before = set() if old is None else {t for _, t in _texts(old)}
    for field, text in _texts(rec):
        if text in before:
            continue
        rule = find_secret(text)
        if rule is not None:
            return field, rule
    return None


def check_record(rec: Record, *, old: Record | None = None, allow: bool = False) -> str | None:
    """Apply the policy: raise :class:`SecretRefusedError` if ``rec`` holds a new secret.

    With ``allow`` the write goes on and the rule name is returned (the writer logs it as
    ``detail.allow_secret``); None when nothing fired.
    """
    hit = record_secret(rec, old)
    if hit is None:
        return None
    field, rule = hit
    if allow:
        return rule
    where = "the content" if field == "content" else f"the {field} field"
    raise SecretRefusedError(
        f"{where} looks like it holds a secret (rule {rule}); mem does not store secrets",
        rule=rule,
        hint=REFUSAL_HINT,
    )


__all__ = [
    "REFUSAL_HINT",
    "SECRET_RULES",
    "SecretRule",
    "check_record",
    "find_secret",
    "luhn_ok",
    "record_secret",
    "rule_names",
]
