"""Personal details: attributes ('my X is Y'), contact details, tools and platforms, and statements introduced by 'remember that'."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _attr_value_ok, _g, _rx
from mem.format.capture.patterns.lexicon import _EMAIL_RE, _TAIL
from mem.format.capture.patterns.rewrite import _unquote, third_singular, user_clause


def _r_attr(m: re.Match[str]) -> str | None:
    attr, value = _g(m, "a"), _unquote(_g(m, "v"))
    if not _attr_value_ok(attr, value):
        return None
    return f"User's {attr.lower()} is {value}"


def _r_remember_that(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if re.match(r"(?i)^(?:i|we) (?:said|told|asked|mentioned|was joking|meant)\b", x):
        return None
    return user_clause(x)


def _r_contact_self(m: re.Match[str]) -> str | None:
    v = _g(m, "v")
    if _EMAIL_RE.match(v):
        return f"User's email is {v}"
    if len(re.sub(r"\D", "", v)) >= 7 and re.fullmatch(r"[+\d\s().-]+", v):
        return f"User's phone number is {v}"
    return None


def _r_tool(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if re.match(r"(?:Google|Chrome|Excel|Word)$", x) and _g(m, "f"):
        return None
    return f"User {third_singular(_g(m, 'v').split()[-1])} {x}{(' ' + _g(m, 'f')) if _g(m, 'f') else ''}"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("fact.remember-that", "fact",
            _rx(r"(?i)(?:please )?(?:remember|keep in mind|bear in mind|note|make a note|take note|never forget|don't forget|do not forget)(?: that|:)?\s+(?P<x>(?:i|i'm|i've|i'll|i'd|my|our|we|we're|we've)\b.{2,200})$"),
            _r_remember_that, "'remember that I/my ...', 'keep in mind ...', 'note that ...'",
            "Remember that I'm vegetarian."),
    Pattern("fact.my-attribute", "fact",
            _rx(r"(?i)my (?P<a>email address|email|e-mail|work email|personal email|phone number|cell number|mobile number|number|cell|mobile|home address|address|mailing address|postal address|work address|zip code|postcode|postal code|time ?zone|hometown|home town|native language|first language|mother tongue|blood type|shoe size|dress size|ring size|height|job title|occupation|profession|employer|company|website|blog|homepage|github handle|github username|twitter handle|handle|username|user name|car|nationality|citizenship|religion|star sign|zodiac sign|major|alma mater|university|password|passcode|pin|pin code|card number|credit card number|credit card|debit card number|bank account number|account number|iban|api key|access token|token|secret key|ssn|social security number) is (?P<v>.{1,80})$"),
            _r_attr, "'my <email/phone number/time zone/...> is <value>' (value checked per attribute)",
            "My time zone is CET."),
    Pattern("fact.reach-me", "fact",
            _rx(r"(?i)(?:you can |feel free to )?(?:reach|contact|email|text|call) me (?:at|on|via) (?P<v>[\w.+@() -]{5,60}?)(?:\s+(?:any ?time|anytime|if [\w ]+))?$"),
            _r_contact_self, "'you can reach me at <email/phone>'", "You can reach me at tom.h@gmail.com."),
    Pattern("fact.attribute-s", "fact",
            _rx(r"(?i)my (?P<a>email address|email|e-mail|work email|personal email|phone number|cell number|mobile number|number|cell|mobile|home address|address) ?(?:'s|:) (?P<v>.{1,80})$"),
            _r_attr, "'my number's <value>', 'my email: <value>'", "My number's 415 555 0172."),
    Pattern("fact.tool", "fact",
            _rx(r"(?i)I (?P<v>use|mostly use|mainly use|code in|work in|write|mostly write|mainly write|run|daily drive) (?P<x>(?-i:[A-Z][\w.+#-]*)(?:(?:,| and| or| with| on) (?-i:[A-Z][\w.+#-]*))*)(?: (?P<f>(?:for|at) (?:work|everything|most things|coding|my \w+|home)))?" + _TAIL),
            _r_tool, "'I use Neovim', 'I mostly write Go at work'", "I use Neovim."),
    Pattern("fact.platform", "fact",
            _rx(r"(?i)I(?:'m| am) (?:on|using) (?P<x>(?:an? )?(?:Mac|MacBook(?: \w+)?|Windows(?: \d+)?|Linux|Ubuntu|Fedora|Arch|Debian|iPhone(?: \d+)?|iPad|Android|Pixel(?: \d+)?|Chromebook|ChromeOS|macOS(?: \w+)?|PC)(?: with [^,;]{2,30})?)" + _TAIL),
            lambda m: f"User is on {_g(m, 'x')}", "'I'm on a Mac with an M2 chip'", "I'm on a Mac with an M2 chip."),
    Pattern("fact.my-tech", "fact",
            _rx(r"(?i)(?:my|our) (?P<a>backend|back-end|front-?end|stack|tech stack|main language|primary language|editor|ide|os|operating system|database|db|laptop|shell|distro|cloud provider|framework|passport|ci|hosting|cms|nationality) (?:is|'s) (?P<v>(?:an? )?(?-i:[A-Z])[^;]{0,60}?)" + _TAIL),
            lambda m: f"User's {_g(m, 'a').lower()} is {_g(m, 'v')}", "'our backend is Django on Postgres', 'my passport is Irish'",
            "Our backend is Django on Postgres."),
)
