"""The pattern type, and the renderers and value checks that several families share."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mem.format.capture.patterns.lexicon import (
    _BUSINESS,
    _DAY_DATE,
    _DETERMINER,
    _EMAIL_RE,
    _FREQ,
    _HABIT_ADV,
    _LIVELIHOOD,
    _NOT_NAMES,
    _SPAN,
    _TASK_LOCAL,
    _VOCATIVE,
)
from mem.format.capture.patterns.rewrite import _rest_pronouns

Render = Callable[[re.Match[str]], "str | None"]


@dataclass(frozen=True)
class Pattern:
    """One anchored declaration pattern."""

    id: str
    kind: str
    regex: re.Pattern[str]
    render: Render
    description: str
    example: str


def _g(m: re.Match[str], name: str) -> str:
    return (m.groupdict().get(name) or "").strip()


def _name_ok(name: str) -> bool:
    first = name.split()[0].rstrip(".").lower() if name.split() else ""
    return bool(name) and first not in _NOT_NAMES


def _r_name(template: str) -> Render:
    def r(m: re.Match[str]) -> str | None:
        name = _g(m, "name")
        if not _name_ok(name):
            return None
        d = {k: (v or "").strip() for k, v in m.groupdict().items()}
        return template.format(**d)

    return r


_SENSITIVE = {
    "password", "passcode", "pin", "pin code", "card number", "credit card number", "credit card",
    "debit card number", "bank account number", "account number", "iban", "api key",
    "access token", "token", "secret key", "ssn", "social security number",
}  # fmt: skip


def _attr_value_ok(attr: str, value: str) -> bool:
    a = attr.lower()
    if a in _SENSITIVE:
        return True  # recognized so that the secret rules refuse it (and report it)
    if "email" in a or "e-mail" in a:
        return bool(_EMAIL_RE.match(value))
    if any(w in a for w in ("phone", "number", "cell", "mobile")):
        return len(re.sub(r"\D", "", value)) >= 7 and bool(re.fullmatch(r"[+\d\s().-]+(?:\s?(?:ext|x)\.?\s?\d+)?", value))
    if "address" in a:
        return bool(re.search(r"\d", value)) and len(value) >= 6
    if a in ("zip code", "zip", "postcode", "postal code"):
        return bool(re.fullmatch(r"[A-Za-z0-9 -]{3,10}", value))
    if a in ("time zone", "timezone"):
        return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9/_+:\- ]{1,39}", value))
    if a in ("blood type",):
        return bool(re.fullmatch(r"(?i)(?:type )?(?:a|b|ab|o)\s?(?:\+|-|positive|negative|pos|neg)", value))
    if a in ("shoe size", "dress size", "ring size"):
        return bool(re.fullmatch(r"(?i)(?:us |uk |eu )?\d{1,2}(?:\.5)?(?: (?:us|uk|eu))?", value))
    if a in ("height",):
        return bool(re.search(r"\d", value)) and len(value) <= 20
    if a in ("website", "blog", "homepage"):
        return bool(re.fullmatch(r"(?:https?://)?[\w.-]+\.[a-z]{2,}(?:/\S*)?", value))
    if a in ("github handle", "github username", "twitter handle", "handle", "username",
             "user name", "discord", "slack handle", "instagram"):  # fmt: skip
        return bool(re.fullmatch(r"@?[\w.-]{2,40}", value))
    if a in ("car",):
        return bool(re.match(r"(?i)an? ", value)) and bool(re.search(r"\b[A-Z]", value))
    # hometown, languages, employer, company, job title, nationality...: a proper noun
    return bool(re.match(r"[A-Z0-9]", value)) and len(value) <= 60


def _simple(template: str, *, clean: bool = True) -> Render:
    def r(m: re.Match[str]) -> str | None:
        d = {k: (v or "").strip() for k, v in m.groupdict().items()}
        if clean:
            d = {k: _rest_pronouns(v, for_assistant=False) for k, v in d.items()}
        return template.format(**d)

    return r


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _date_ok(text: str) -> bool:
    return bool(_DAY_DATE.search(text))


def _not_task(x: str, *, allow_it: bool = False) -> bool:
    if _VOCATIVE.search(x):
        return False
    t = re.sub(r"(?i)\bit\b", "", x) if allow_it else x
    t = re.sub(r"(?i)\b(?:from now on|for now on)\b", "", t)
    return not _TASK_LOCAL.search(t) and not re.search(r"(?i)\b(?:before|above|else|anything|everything|one)\s*$", x)


def _bare_plural(x: str) -> bool:
    """Does the object start with a bare plural noun phrase ("old motorbikes", "weddings")?"""
    if not x or _DETERMINER.match(x):
        return False
    words = re.split(r"\s+", x)
    for w in words[:4]:
        low = w.lower().strip(",.")
        if low in ("and", "or", "in", "at", "for", "on", "with", "from", "to", "of", "into", "out", "around", "about"):
            return False
        if re.fullmatch(r"[a-z-]{3,}(?:s|ies)", low) and not re.search(r"(?:ss|us|is|'s)$", low) and low not in (
            "sometimes", "always", "towards", "afterwards", "nowadays", "perhaps", "less", "unless", "yes", "does",
            "was", "has", "this", "its", "plus", "thus", "news", "series", "species", "means", "physics", "maths",
            "politics", "lots", "loads", "tons", "ages", "odds", "thanks", "pains", "hats", "birds", "punches",
        ):
            return True
    return False


#: Hyperbolic spans that are not evidence of a habit ("I bark orders all day", "I put out fires 24/7").
_HYPERBOLIC_SPAN = re.compile(r"(?i)\b(?:all day(?: long)?|all the time|24/7|constantly|non-?stop|day and night|round the clock)\b")


def _strong_plural(x: str) -> bool:
    """A bare plural object that reads as a trade or a collection: an adjective or noun before the
    plural ("old motorbikes", "Welsh Mountain ponies") or coordinated ("patios and ..."), not a lone
    plural ("I ruffle feathers", "I herd cats")."""
    if not _bare_plural(x):
        return False
    words = re.split(r"\s+", x.strip())
    first = words[0].lower().strip(",.")
    if re.fullmatch(r"[a-z-]{3,}(?:s|ies)", first):  # the plural comes first: it must be coordinated
        return len(words) > 1 and (words[1].lower() in ("and", "or") or words[0].endswith(","))
    return True


def _strong_evidence(x: str, adv: str, rest: str = "") -> bool:
    """Positive evidence for a verb outside _HOBBY_VERBS: a habit adverb, a (non-hyperbolic)
    frequency, a span, a livelihood frame, a business object, "my own ...", or a strong plural."""
    if adv and adv.lower() not in ("now", "still", "also", "both", "all"):
        return True
    rest = rest or x
    plain = _HYPERBOLIC_SPAN.sub("", rest)
    return bool(
        _strong_plural(x)
        or (bool(x) and _bare_plural(x) and bool(re.match(r"(?i)\s*" + re.escape(x) + r"\s*(?:,|and\b|or\b)", rest)))
        or re.search(rf"(?i)\b(?:{_FREQ}|{_HABIT_ADV}|sometimes|occasionally|regularly|all year round|year-round)\b", plain)
        or _SPAN.search(rest)
        or _LIVELIHOOD.search(rest)
        or _BUSINESS.match(x)
        or re.search(r"(?i)\b(?:my|our) own \w", x)
        or re.match(r"(?i)(?:ultra-?)?marathons|(?:half[- ])?marathons|triathlons|races|5ks|10ks|fell races|errands", x)
    )
