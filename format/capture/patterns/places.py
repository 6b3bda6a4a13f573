"""Facts of place: where the user lives, comes from, grew up and moved."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _g, _rx, _simple
from mem.format.capture.patterns.guards import body_of
from mem.format.capture.patterns.lexicon import (
    _ABOUT_TAIL,
    _ORG_FROM,
    _TAIL,
    _TASK_THING,
    _WHEN_PAST,
)
from mem.format.capture.patterns.rewrite import _rest_pronouns, user_clause


def _r_from_originally(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if _ORG_FROM.match(x):
        return None
    if re.match(r"(?i)(?:the (?![A-Z])|here|there|around|work|school|home|another|my|this|that|it|nowhere|everywhere|out|far|all over|somewhere|the future|the past|a (?!(?:\w+ ){0,2}(?:town|village|city|island|farm|suburb|country|family|place)\b))", x):
        return None
    if not re.search(r"[A-Z]", x) and not x.islower():
        return None
    return f"User is from {x}"


def _r_place(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if re.match(r"(?i)(?:it|this|that|the moment|the past|the present|my head|denial|hope|fear|coffee|love|trouble|a (?:meeting|rush|hurry|mood)|the (?:car|office|shower|bath|meeting|middle))\b", x):
        return None
    return f"User {_g(m, 'v').lower()} {_g(m, 'p').lower()} {_rest_pronouns(x, for_assistant=False)}"


def _r_lives_household(m: re.Match[str]) -> str | None:
    p, x = _g(m, "p").lower(), _g(m, "x")
    if p in ("alone", "by myself", "on my own"):
        return "User lives alone" + (f" {_rest_pronouns(x.strip(), for_assistant=False)}" if re.match(r"(?i) (?:in|near|on|at|outside|with) ", x) else "")
    if p == "on" and not re.match(r"(?:a |an |the |[A-Z0-9])", x):
        return None
    if re.match(r"(?i)(?:it|this|that|fear|hope|denial|the moment|the past|the present|my head|the weekends?|coffee|for)\b", x):
        return None
    who = "User" if _g(m, "s").lower() in ("i",) else "User (with household)"
    return f"{who} lives {p} {_rest_pronouns(x, for_assistant=False)}"


def _r_relocated(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if re.match(r"(?i)(?:the (?:other|next|new|same)|a (?:new|different|better|bigger|smaller) (?:folder|file|place|desk|spot|room|team|seat)|it|this|that|another)\b", x):
        return None
    return f"User moved to {_rest_pronouns(x, for_assistant=False)}"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("fact.from", "fact",
            _rx(r"(?i:i(?:'m| am) (?:originally )?from)\s+(?P<x>[A-Z][^,;]{1,60})" + _TAIL),
            lambda m: None if _ORG_FROM.match(_g(m, "x")) or _ABOUT_TAIL.search(m.group(0)) else f"User is from {_g(m, 'x')}", "'I'm from <Place>'", "I'm from Lagos."),
    Pattern("fact.lives", "fact",
            _rx(r"(?i)i (?:live|reside|am living|'m living|currently live) (?P<p>in|near|on(?= (?:a |an |the |(?-i:[A-Z0-9])))|at|with|outside|close to) (?!it\b|this\b|that\b|fear\b|hope\b|denial\b|the moment\b|the past\b|the present\b|my head\b|the weekends?\b|the edge\b)(?P<x>[^;]{2,80}?)(?: now| these days| currently)?" + _TAIL),
            _simple("User lives {p} {x}"), "'I live in/near/with ...'", "I live in Berlin."),
    Pattern("fact.based", "fact",
            _rx(r"(?i)i(?:'m| am) (?:currently )?based (?P<p>in|out of|near) (?P<x>[^,;]{2,60})" + _TAIL),
            _simple("User is based {p} {x}"), "'I'm based in ...'", "I'm based in Singapore."),
    Pattern("fact.moved", "fact",
            _rx(r"(?i)(?:i|we) (?:just |recently |finally |have |'ve )?moved to (?P<x>[^,;]{2,80})" + _TAIL),
            _simple("User moved to {x}"), "'I (just) moved to ...'", "I just moved to Lisbon."),
    Pattern("fact.lives-household", "fact",
            _rx(r"(?i)(?P<s>I|we) (?:currently |still |now |also |both |all |just |actually )?(?:live|reside|are living|am living|'re living|'m living) (?:(?:just|right|somewhere|mostly|currently) )?(?P<p>alone|by myself|on my own|in|near|on|at|with|outside|close to|by)(?P<x>(?: .{2,80}?)?)(?: now| these days| currently)?" + _TAIL),
            _r_lives_household, "'we live just outside Denver', 'I live alone'", "We live just outside Denver."),
    Pattern("fact.place-copula", "fact",
            _rx(r"(?i)(?:I(?:'m| am)|we(?:'re| are)) (?:currently |now |also )?(?P<v>based|located|living|settled|staying long-term) (?P<p>in|out of|near|outside|on) (?P<x>[^,;]{2,60})" + _TAIL),
            _r_place, "'we're based out of Manchester'", "We're based out of Manchester."),
    Pattern("fact.in-place", "fact",
            _rx(r"I(?:'m| am) (?:in|over in|down in|up in|out in) (?P<x>[A-Z][\w'-]+(?:,? [A-Z][\w'-]+){0,2})(?:\s*,.*)?$"),
            lambda m: f"User is in {_g(m, 'x')}", "'I'm in Melbourne, ...' (a capitalized place)",
            "I'm in Melbourne."),
    Pattern("fact.home-place", "fact",
            _rx(r"(?i)(?:my|our) (?P<h>house|home|flat|apartment|place|office|farm|cottage|family home) is (?P<p>in|near|on|outside|just outside|close to|right by) (?P<x>[^;]{2,80})$"),
            lambda m: f"User's {_g(m, 'h').lower()} is {_g(m, 'p').lower()} {_g(m, 'x')}", "'our house is in Surrey'",
            "Our house is in Surrey."),
    Pattern("fact.relocated", "fact",
            _rx(r"(?i)(?:I|we) (?:just |recently |finally |have |'ve |have just |'ve just |already )*(?:moved|relocated|moved back|moved over|emigrated) (?:here )?to (?P<x>[^,;]{2,80}?)(?: (?:last|this|in|a few|two|three|\d+) [\w ]{1,20}?(?: ago)?)?(?: for [\w ]{2,30})?(?: from [^,;]{2,40})?" + _TAIL),
            _r_relocated, "'I recently relocated to Dubai', 'just moved to seattle'", "I recently relocated to Dubai."),
    Pattern("fact.from-originally", "fact",
            _rx(r"(?i)I(?:'m| am| come) (?:originally |actually |also )?from (?P<x>[^,;]{2,60}?)(?: originally)?" + _TAIL),
            _r_from_originally, "'im from brazil originally', 'I'm originally from a small town in Wales'",
            "I'm originally from a small town in Wales."),
    Pattern("fact.grew-up", "fact",
            _rx(r"(?i)I (?:grew up|was raised|was brought up|spent my childhood) (?P<p>in|on|near|outside|around|between) (?P<x>[^;]{2,80}?)" + _TAIL),
            lambda m: f"User grew up {_g(m, 'p').lower()} {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I grew up in Cork'", "I grew up in Cork."),
    Pattern("fact.used-to", "fact",
            _rx(r"(?i)I used to (?P<v>live|work|study|teach) (?P<p>in|at|for|near|as) (?P<x>[^;]{2,80}?)" + _TAIL),
            lambda m: None if re.match(r"(?i)(?:it|this|that|home)\b", _g(m, "x")) else f"User used to {_g(m, 'v').lower()} {_g(m, 'p').lower()} {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I used to live in Tokyo' (a past residence or job, in the past tense)", "I used to live in Tokyo."),
    Pattern("fact.born-and-raised", "fact",
            _rx(r"(?i)I was born (?P<a>and (?:raised|bred)|and grew up) (?P<p>in|on|near) (?P<x>[^;]{2,60}?)" + _TAIL),
            lambda m: f"User was born {_g(m, 'a').lower()} {_g(m, 'p').lower()} {_g(m, 'x')}", "'I was born and raised in Naples'",
            "I was born and raised in Naples."),
    Pattern("fact.family-of", "fact",
            _rx(r"(?i)we(?:'re| are) a (?:family|household) of (?P<n>\w+)(?: (?:living|based) (?P<p>in|near|outside|on) (?P<x>[^,;]{2,60}))?" + _TAIL),
            lambda m: f"User's family has {_g(m, 'n')} members" + (f", living {_g(m, 'p').lower()} {_g(m, 'x')}" if _g(m, "x") else ""),
            "'we're a family of four living in Cape Town'", "We're a family of four living in Cape Town."),
    Pattern("fact.home-or-business", "fact",
            _rx(r"(?i)(?:I|we) (?:have|'ve got|own|rent|share|live in|run) (?P<x>(?:a|an|our|my) (?:[\w&'-]+ ){0,3}(?:house|home|flat|apartment|cottage|caravan|boat|allotment|cabin|villa|semi|bungalow|condo|farm|place|b&b|shop|cafe|café|restaurant|pub|business|studio|bakery|guesthouse|stall|market stall|pitch|unit|workshop|salon|garage|bedsit|maisonette|terrace|narrowboat|houseboat)) (?P<p>in|on|near|outside|by|above|below|over|off|behind|opposite|next to) (?P<y>[^;]{2,60}?)" + _TAIL),
            lambda m: user_clause(body_of(re.split(r"\s*[,(–—]\s", m.group(0))[0])), "'we have a holiday cottage in Wales', 'we run a B&B in Cornwall'",
            "We have a holiday cottage in Wales."),
    Pattern("fact.moved-from", "fact",
            _rx(r"(?i)(?P<s>I|we) (?:originally |first )?(?:moved|came|came over|emigrated|fled|relocated|immigrated)(?: over| here| to (?:the )?(?-i:[A-Z])[\w']+(?: [A-Z][\w']+)?)?(?: here)? from (?P<x>(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?)(?P<w> (?:in|back in) (?:\d{4}|the \d0s)| (?:\w+ )?years ago| as a (?:child|kid|teenager|baby)| when I was \w+)?" + _TAIL),
            lambda m: None if _ORG_FROM.match(_g(m, "x")) else f"User {'and family ' if _g(m, 's').lower() == 'we' else ''}moved from {_g(m, 'x')}{' ' + _g(m, 'w') if _g(m, 'w') else ''}",
            "'I moved here from Syria in 2016', 'I came over from Poland in 2004'", "I moved here from Syria in 2016."),
    Pattern("fact.lived-whole-life", "fact",
            _rx(r"(?i)I(?:'ve| have) (?P<v>lived|been|worked|farmed|stayed) (?P<x>[^;,]{2,50}?) (?P<d>my (?:whole|entire) life|all my life|since (?:birth|I was born)|for generations)" + _TAIL),
            lambda m: None if _TASK_THING.search(_g(m, "x")) else f"User has {_g(m, 'v').lower()} {_rest_pronouns(_g(m, 'x'), for_assistant=False)} {_rest_pronouns(_g(m, 'd'), for_assistant=False)}",
            "'I've lived on the same street my whole life'", "I've lived on the same street my whole life."),
    Pattern("fact.came-to-when", "fact",
            _rx(rf"(?i)(?P<s>I|we) (?:first |originally )?(?P<v>came|came over|moved|emigrated|immigrated|relocated|left|arrived in|arrived) (?:to )?(?P<x>(?:the )?(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?) (?P<w>{_WHEN_PAST})(?P<y> with (?:my|our) (?:family|parents|wife|husband|partner|kids|children|mum|mom|dad))?" + _TAIL),
            lambda m: None if _ORG_FROM.match(_g(m, "x")) else f"User {'and family ' if _g(m, 's').lower() == 'we' else ''}{ {'came over': 'came', 'arrived in': 'arrived in'}.get(_g(m, 'v').lower(), _g(m, 'v').lower()) }{' to' if _g(m, 'v').lower() in ('came', 'came over', 'moved', 'emigrated', 'immigrated', 'relocated') else ''} {_g(m, 'x')} {_g(m, 'w')}{' ' + _rest_pronouns(_g(m, 'y'), for_assistant=False) if _g(m, 'y') else ''}",
            "'I came to the UK in 1998', 'I left Hong Kong in 2021 with my family' (a move with a time)",
            "I came to the UK in 1998."),
)
