"""Secret detection: a captured sentence that holds a credential is refused, never stored.

:func:`find_secret` names the first rule that fires (``"password"``, ``"card-number"``...) and
never returns the secret itself, so callers can report the refusal without echoing it. The rules
are listed in ``spec/capture.md`` ("Secrets").
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SecretRule:
    name: str
    regex: re.Pattern[str]
    description: str


_CONNECT = r"\s*(?:is|was|will be|'s|=|:|-)\s*"

SECRET_RULES: tuple[SecretRule, ...] = (
    SecretRule(
        "private-key",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----"),
        "PEM / OpenSSH / PGP private key block",
    ),
    SecretRule("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "AWS access key id"),
    SecretRule(
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        "GitHub personal, OAuth, app or fine-grained token",
    ),
    SecretRule("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), "Slack token"),
    SecretRule(
        "stripe-key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), "Stripe key"
    ),
    SecretRule(
        "sk-api-key",
        re.compile(r"\bsk-(?:[A-Za-z]{2,8}-)?[A-Za-z0-9_-]{20,}"),
        "API key of the 'sk-...' family (OpenAI, Anthropic and others)",
    ),
    SecretRule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), "Google API key"),
    SecretRule(
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        "JSON Web Token",
    ),
    SecretRule(
        "bearer-token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*"), "HTTP bearer token"
    ),
    SecretRule(
        "url-credentials",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@"),
        "user:password inside a URL",
    ),
    SecretRule(
        "password",
        re.compile(
            r"(?i)\b(?:password|passwd|passphrase|pass\s?word|pwd|passcode|pin(?:\s?code|\s?number)?"
            r"|security\s+code|cvv|cvc|(?:door|gate|garage|alarm|safe|lock|entry)\s+code"
            r")\b" + _CONNECT + r"\S+"
        ),
        "a password, passphrase, PIN or access code being stated",
    ),
    SecretRule(
        "api-key",
        re.compile(
            r"(?i)\b(?:api[\s_-]?key|secret(?:[\s_-]key)?|access[\s_-]?(?:token|key)"
            r"|auth[\s_-]?token|refresh[\s_-]?token|client[\s_-]secret|token|private[\s_-]key)\b"
            + _CONNECT
            + r"\S{6,}"
        ),
        "an API key, token or secret being stated",
    ),
    SecretRule(
        "card-number",
        re.compile(
            r"(?i)\b(?:card|credit card|debit card|account|bank account|iban|routing)\s*"
            r"(?:number|no\.?|#)?" + _CONNECT + r"[\dA-Z][\d A-Z-]{5,}"
        ),
        "a card, bank account or IBAN number being stated (even without a valid checksum)",
    ),
    SecretRule(
        "us-ssn",
        re.compile(r"(?i)(?:\b(?:ssn|social security(?: number)?)\b.{0,20})?\b\d{3}-\d{2}-\d{4}\b"),
        "US social security number",
    ),
    SecretRule(
        "high-entropy-token",
        re.compile(
            r"(?<![A-Za-z0-9+/_-])(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[a-z])"
            r"(?=[A-Za-z0-9+/_-]*[A-Z])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_-])"
        ),
        "a long random-looking string of mixed-case letters and digits (32+ characters)",
    ),
)

_CARD_RE = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")


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
    for m in _CARD_RE.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_ok(digits):
            return True
    return False


def find_secret(text: str) -> str | None:
    """The name of the first secret rule that fires on ``text``, or None. Never the secret."""
    if _has_card(text):
        return "card-number"
    for rule in SECRET_RULES:
        if rule.regex.search(text):
            return rule.name
    return None


def rule_names() -> list[str]:
    return ["card-number", *(r.name for r in SECRET_RULES)]
