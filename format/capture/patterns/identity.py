"""Facts of identity: names, age, birthday, pronouns, languages, family role and status."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _g, _r_name, _rx, _simple
from mem.format.capture.patterns.lexicon import (
    _DATE_RE,
    _DAY_DATE,
    _LANGS,
    _MONTHS,
    _NOT_NAME_WORDS,
    _NOT_NAMES,
    _TAIL,
    _TASK_THING,
    NAME,
)
from mem.format.capture.patterns.rewrite import _rest_pronouns


def _r_birthday(m: re.Match[str]) -> str | None:
    v = _g(m, "v")
    if not _DATE_RE.search(v):
        return None
    return f"User's birthday is {v}"


def _r_age(m: re.Match[str]) -> str | None:
    n = int(_g(m, "x"))
    if not 1 <= n <= 120:
        return None
    return f"User is {n} years old"


def _r_will_be(m: re.Match[str]) -> str | None:
    n = int(_g(m, "x"))
    if not 1 <= n <= 120:
        return None
    return f"User will be {n} {_g(m, 'w')}"


def _r_turned(m: re.Match[str]) -> str | None:
    n = int(_g(m, "x"))
    if not 1 <= n <= 120:
        return None
    return f"User turned {n}{(' ' + _g(m, 'w')) if _g(m, 'w') else ''}"


_DEMONYM = re.compile(r"(?i)(?:ish|ese|ian|ean|ani|i|ic|ch|an|ese|ine|iot|ite|er|ic|catholic|christian|muslim|jewish|hindu|buddhist|sikh|atheist|agnostic)$")


def _r_im_name(m: re.Match[str]) -> str | None:
    name = _g(m, "name")
    first = name.split()[0].rstrip(".").lower()
    if first in _NOT_NAMES or first in _NOT_NAME_WORDS or len(first) < 2:
        return None
    if len(name.split()) == 1 and _DEMONYM.search(name) and len(name) > 5:
        return f"User is {name}"
    return f"User's name is {name}"


def _r_lower_name(m: re.Match[str]) -> str | None:
    name = _g(m, "name")
    if name.lower() in _NOT_NAMES or name.lower() in _NOT_NAME_WORDS or name.lower() in (
        "mud", "legion", "nobody", "irrelevant", "important", "unknown", "private", "secret", "weird", "long", "short", "common", "rare",
    ):
        return None
    return f"User's name is {name[:1].upper() + name[1:]}"


#: Statuses held for a span ("married 35 years", "ordained for eleven years").
_STATUSES = (
    r"(?:married|divorced|separated|widowed|ordained|qualified|retired|sober|clean|teetotal|vegan|vegetarian|"
    r"self[- ]employed|freelance|registered (?:blind|disabled)|disabled|diabetic|deaf|in remission|cancer[- ]free|"
    r"smoke[- ]free|a widow|a widower|a carer|a foster (?:carer|parent|mum|dad)|a (?:registered|qualified|practising) [\w-]+)"
)
_STATUS_SPAN = (
    r"(?:for )?(?:about |over |almost |nearly |more than |just over |just under )?(?:\d+|a|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|a few|many) (?:years?|decades?|months)|"
    r"since (?:\d{4}|I was \w+|the \d0s)"
)


PATTERNS: tuple[Pattern, ...] = (
    Pattern("fact.name", "fact",
            _rx(rf"(?i:my name(?:'s| is))\s+{NAME}{_TAIL}"),
            _r_name("User's name is {name}"), "'my name is <Name>'", "My name is Sam."),
    Pattern("fact.name-other", "fact",
            _rx(rf"(?i:my (?P<what>last name|surname|family name|middle name|first name|nickname|maiden name|full name)(?:'s| is))\s+{NAME}{_TAIL}"),
            _r_name("User's {what} is {name}"), "'my last/middle/... name is <Name>'",
            "My last name is Okafor."),
    Pattern("fact.goes-by", "fact",
            _rx(rf"(?i:i(?:'m| am) called|i go by|people call me|everyone calls me|my friends call me)\s+{NAME}(?:\s+(?i:by|not|at|to|among)\b.*|{_TAIL})"),
            _r_name("User goes by {name}"), "'I go by <Name>', 'I'm called <Name>'", "I go by Alex."),
    Pattern("fact.pronouns", "fact",
            _rx(r"(?i)my pronouns are (?P<x>[a-z]+/[a-z]+(?:/[a-z]+)?)$"),
            _simple("User's pronouns are {x}"), "'my pronouns are x/y'", "My pronouns are they/them."),
    Pattern("fact.age", "fact",
            _rx(r"(?i)i(?:'m| am) (?P<x>\d{1,3}) (?:years old|yrs old|y/?o)$"),
            _simple("User is {x} years old"), "'I'm N years old'", "I'm 34 years old."),
    Pattern("fact.born", "fact",
            _rx(r"(?i)i was born (?P<x>(?:in|on) .{2,40})$"),
            _simple("User was born {x}"), "'I was born in/on ...'", "I was born in 1988."),
    Pattern("fact.birthday", "fact",
            _rx(r"(?i)my (?:birthday|bday|b-day|date of birth|dob) is (?:on )?(?P<v>.{3,40})$"),
            _r_birthday, "'my birthday is <date>'", "My birthday is June 2."),
    Pattern("fact.married-to", "fact",
            _rx(rf"(?i:i(?:'m| am) married to)\s+{NAME}{_TAIL}"),
            _r_name("User is married to {name}"), "'I'm married to <Name>'", "I'm married to Dana."),
    Pattern("fact.speaks", "fact",
            _rx(r"(?i:i (?:speak|can speak))\s+(?P<x>(?:(?i:fluent|some|basic|a little|native|conversational) )?[A-Z]\w+(?:(?:,| and| or) (?:(?i:fluent|some|basic|a little) )?[A-Z]\w+)*)(?: (?i:fluently|natively|well))?" + _TAIL),
            _simple("User speaks {x}"), "'I speak <Language>'", "I speak Klingon."),
    Pattern("fact.name-contracted", "fact",
            _rx(rf"(?i:(?:my |the )?name(?:'s| is))\s+{NAME}{_TAIL}"),
            _r_name("User's name is {name}"), "'name's <Name>'", "Name's Bo."),
    Pattern("fact.name-lowercase", "fact",
            _rx(r"(?i)(?:my |the )?name(?:'s| is) (?P<name>[a-z][a-z'-]{1,20})(?:\s*,.*)?$"),
            _r_lower_name, "'my name is jake' (lowercase)", "my name is jake"),
    Pattern("fact.age-bare", "fact",
            _rx(r"(?i)I(?:'m| am) (?:only |just |almost |nearly |now )?(?P<x>\d{1,3})(?: years old| yrs old| years young| yo| y/o| y\.o\.)?(?:\s*,.*|\s+(?:now|this year|and|btw|next)\b.*)?$"),
            _r_age, "'I'm 52', 'im 41 and a mother of three'", "I'm 52."),
    Pattern("fact.will-be", "fact",
            _rx(r"(?i)I(?:'ll| will) be (?P<x>\d{1,3})(?: years old)? (?P<w>(?:in|on|next|this) .{2,40})$"),
            _r_will_be, "'I'll be 65 in March'", "I'll be 65 in March."),
    Pattern("fact.turned", "fact",
            _rx(r"(?i)I (?:just |recently |finally )?turned (?P<x>\d{1,3})(?: years old)?(?: (?P<w>(?:last|this|in|on|yesterday|today)\b[^,]{0,30}))?(?:\s*,.*)?$"),
            _r_turned, "'I just turned 30'", "I just turned 30 last week."),
    Pattern("fact.height", "fact",
            _rx(r"(?i)I(?:'m| am) (?P<x>\d(?:'| ?ft| ?foot| ?feet)\s?\d{0,2}(?:\"| ?in(?:ches)?)?|[12][.,]\d{1,2} ?m|1\d\d ?cm)(?: tall)?$"),
            _simple("User is {x} tall"), "'I'm 6 foot 2'", "I'm 6 foot 2."),
    Pattern("fact.birthday-contracted", "fact",
            _rx(r"(?i)(?:my )?(?:birthday|bday|b-day|date of birth|dob)(?:'s| is) (?:on )?(?P<v>.{3,40})$"),
            _r_birthday, "'my birthday's the 9th of November'", "My birthday's the 9th of November."),
    Pattern("fact.born-on", "fact",
            _rx(rf"(?i)(?:I was )?born (?:on )?(?P<v>(?:{_MONTHS}|\d{{1,2}}(?:st|nd|rd|th)?) .{{1,30}})$"),
            lambda m: f"User was born on {_g(m, 'v')}" if _DAY_DATE.search(_g(m, "v")) else None,
            "'born August 10th'", "Born August 10th."),
    Pattern("fact.im-a-proper", "fact",
            _rx(r"I(?:'m| am) an? (?P<x>[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?:\s*,.*)?$"),
            lambda m: None if _g(m, "x").split()[-1].lower() in ("fan", "lover", "person") else f"User is a {_g(m, 'x')}",
            "'I'm a Leo', 'I'm a Londoner'", "I'm a Leo."),
    Pattern("fact.im-name", "fact",
            _rx(r"I(?:'m| am) (?P<name>[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)(?:\s*,.*|\s+(?:by the way|btw|here|and)\b.*)?$"),
            _r_im_name, "'I'm <Name>' (a capitalized word that is not an adjective)", "I'm Hana, by the way."),
    Pattern("fact.speaks-language-named", "fact",
            _rx(rf"(?i)I(?: also)?(?: speak| can speak| am fluent in|'m fluent in| am also fluent in|'m also fluent in) (?P<x>(?:(?:fluent|some|basic|a little|a bit of|native|conversational|decent|broken|good|ok|okay) )?{_LANGS}(?:(?:,| and| or| plus) (?:(?:fluent|some|basic|a little|a bit of|native|conversational|decent|broken|good) )?{_LANGS})*)(?: (?:fluently|natively|well))?" + _TAIL),
            _simple("User speaks {x}"), "'i speak spanish and a bit of french' (a language lexicon, any case)",
            "i speak spanish and a bit of french"),
    Pattern("fact.speaks-count", "fact",
            _rx(r"(?i)I (?:can )?speak (?P<n>two|three|four|five|six|seven|\d) languages(?: fluently)?(?: \([^)]{2,60}\))?" + _TAIL),
            lambda m: f"User speaks {_g(m, 'n')} languages", "'I speak three languages'", "I speak three languages."),
    Pattern("fact.oldest-of", "fact",
            _rx(r"(?i)I(?:'m| am) (?P<x>(?:the )?(?:oldest|eldest|youngest|middle|second|third) (?:of (?:\w+|\d+)(?: kids| children| siblings| brothers| sisters| girls| boys)?|child|kid|one|sibling|of the family)|an only child|a twin)" + _TAIL),
            lambda m: f"User is {_g(m, 'x')}", "'I'm the oldest of five kids'", "I'm the oldest of five kids."),
    Pattern("fact.engaged", "fact",
            _rx(rf"(?i:I(?:'m| am) (?:now |recently |newly )?engaged to)\s+{NAME}{_TAIL}"),
            _r_name("User is engaged to {name}"), "'I'm engaged to Tom'", "I'm engaged to Tom."),
    Pattern("fact.parent-of", "fact",
            _rx(r"(?i)I(?:'m| am) (?:a |an )?(?P<x>(?:(?:single|working|stay-at-home|proud|busy|new|first-time|full-time|solo|widowed|divorced|foster|adoptive) )*(?:mum|mom|mother|dad|father|parent|grandma|grandmother|grandad|grandfather|nan) (?:of|to) (?:\w+|\d+)(?: (?:kids|children|boys|girls|teenagers|teens|under \w+))?)" + _TAIL),
            lambda m: f"User is a {_g(m, 'x')}", "'I'm a single mum of two'", "I'm a single mum of two."),
    Pattern("fact.speaks-where", "fact",
            _rx(rf"(?i)I (?:mostly |mainly |also |usually )?speak (?P<x>{_LANGS} (?:at|with|to|in) [^,;]{{2,30}}?(?:,? (?:and|but) {_LANGS} (?:at|with|to|in) [^,;]{{2,30}})?)" + _TAIL),
            lambda m: None if _TASK_THING.search(_g(m, "x")) else f"User speaks {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I speak Farsi at home and English at work'", "I speak Farsi at home and English at work."),
    Pattern("fact.been-status-span", "fact",
            _rx(rf"(?i)(?P<s>I|we)(?:'ve| have) (?:now )?been (?P<x>{_STATUSES}) (?P<d>{_STATUS_SPAN})(?: now)?" + _TAIL),
            lambda m: f"User {'and partner have' if _g(m, 's').lower() == 'we' else 'has'} been {_g(m, 'x')} {_g(m, 'd')}",
            "'I've been ordained for eleven years', 'I've been married 35 years'", "I've been married 35 years."),
)
