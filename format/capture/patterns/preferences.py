"""Preferences: tastes, favourites, dislikes, fandom and standing choices."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, Render, _g, _not_task, _rx, _simple
from mem.format.capture.patterns.lexicon import (
    _DETERMINER,
    _DISCOURSE,
    _HABIT_BLOCK,
    _ORG_FROM,
    _TAIL,
    _TASK_THING,
)
from mem.format.capture.patterns.rewrite import _rest_pronouns, third_singular

#: "I hate to bother you", "I prefer not to talk about it": politeness, not a taste.
_POLITE = re.compile(
    r"(?i)^(?:not to |not\b)?(?:to )?(?:bother|say|admit|interrupt|ask|break|disappoint|rush|nag|"
    r"complain|tell|hear|see|talk about|discuss|answer|comment|go into|get into|share|be that)\b"
)


def _taste(verb_3sg: str) -> Render:
    def r(m: re.Match[str]) -> str | None:
        x = _g(m, "x")
        if not x or _DISCOURSE.match(x) or _POLITE.match(x):
            return None
        return f"User {verb_3sg} {_rest_pronouns(x, for_assistant=False)}"

    return r


_LIKE_3SG = {"love": "loves", "like": "likes", "enjoy": "enjoys", "adore": "adores"}
_DISLIKE_3SG = {
    "hate": "hates", "dislike": "dislikes", "detest": "detests", "can't stand": "can't stand",
    "cannot stand": "cannot stand", "don't like": "doesn't like", "do not like": "does not like",
    "don't enjoy": "doesn't enjoy", "do not enjoy": "does not enjoy",
    "am not a fan of": "is not a fan of", "'m not a fan of": "is not a fan of",
    "am not into": "is not into", "'m not into": "is not into",
}  # fmt: skip


def _r_like(m: re.Match[str]) -> str | None:
    v = _g(m, "v").lower()
    x = _g(m, "x")
    if not x or _DISCOURSE.match(x) or _POLITE.match(x) or re.search(r"(?i)\b(?:this|these)\b", x):
        return None  # "I love the colour of this logo" is about the thing at hand
    verb = _LIKE_3SG.get(v, "is into")
    return f"User {verb} {_rest_pronouns(x, for_assistant=False)}"


def _r_dislike(m: re.Match[str]) -> str | None:
    v = re.sub(r"\s+", " ", _g(m, "v").lower())
    v = v.replace("i'm", "'m").replace("i am", "am")
    x = _g(m, "x")
    if not x or _DISCOURSE.match(x) or _POLITE.match(x):
        return None
    return f"User {_DISLIKE_3SG.get(v, 'dislikes')} {_rest_pronouns(x, for_assistant=False)}"


_ADV = (
    r"(?:(?:really|much|strongly|generally|usually|definitely|absolutely|genuinely|truly|quite|also|"
    r"normally|typically|kind of|sort of|tend to|just|honestly|seriously|totally|especially|"
    r"actually|always|still|personally) ){0,2}"
)


def _r_taste_verb(verb: str) -> Render:
    def r(m: re.Match[str]) -> str | None:
        x = _g(m, "x")
        if not x or _DISCOURSE.match(x) or _POLITE.match(x) or re.match(r"(?i)^(?:to be\b|when|how|what|it|this|that)\b", x):
            return None
        if re.match(r"(?i)^(?:punishment|pain|trouble|a challenge|attention|drama)\b", x) or re.search(r"(?i)\b(?:this|these)\b", x):
            return None  # "... the colour of this logo" is about the thing at hand
        return f"User {verb.format(**{k: (v or '').strip().lower() for k, v in m.groupdict().items()})} {_rest_pronouns(x, for_assistant=False)}"

    return r


#: "I always get lost/confused/...": 'get' + a state is not a standing choice.
_GET_STATE = re.compile(
    r"(?i)(?:\w+ed|lost|stuck|caught|bored|sick|tired|distracted|upset|nervous|anxious|cold|hot|hungry|sleepy|"
    r"carsick|seasick|sunburnt|sunburned|overwhelmed|mixed up|told off|told|asked|called|into trouble|in trouble|"
    r"it wrong|things wrong|it right|so|too|really|very|a bit|kind of|sort of|quite|pretty)\b"
)
_FICTION_CATEGORY = re.compile(
    r"(?i)\b(?:character|villain|hero|heroine|protagonist|antagonist|episode|scene|chapter|line|quote|"
    r"bit|part|moment|level|boss|weapon|season|storyline|arc|ship|couple|wizard|witch|sorcerer|elf|hobbit|jedi|sith|"
    r"superhero|avenger|pok[eé]mon|dragon|vampire|werewolf|princess|knight|companion|waifu|husbando|"
    r"ghost|monster|robot|alien|dinosaur|muppet|smurf|disney princess|bond girl|doctor who)s?\b|\bin the (?:show|series|book|books|"
    r"film|movie|game|comic|novel|story)\b"
)


def _r_fav_inverted(m: re.Match[str]) -> str | None:
    v, a = _g(m, "v"), _g(m, "a")
    if _FICTION_CATEGORY.search(a):
        return None
    if re.match(r"(?i)(?:this|that|it|these|those|here|there|he|she|they|mine|yours|which|what)\b", v):
        return None
    kind = _g(m, "k").lower().replace("fave", "favorite").replace("favourite", "favorite")
    return f"User's {kind}{(' ' + a.lower()) if a else ''} is {v}"


def _r_rather_open(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if _DETERMINER.match(x) and not re.search(r"(?i)\bthan\b", x):
        return None  # "I'd rather the Thursday delivery slot": a one-off choice of a thing, not a standing preference
    if re.match(r"(?i)(?:not|go with|have the|use the|do that|do this|take the (?:first|second|other|latter|former)|see|keep it|skip it|leave it)\b", x) or not _not_task(x) or re.search(r"(?i)\boption\b", x):
        return None
    return f"User would rather {_rest_pronouns(x, for_assistant=False)}"


def _r_better(m: re.Match[str]) -> str | None:
    a, b = _g(m, "a"), _g(m, "b")
    if _DISCOURSE.match(a) or re.match(r"(?i)(?:it|this|that|he|she|they|you|mine|yours)\b", a):
        return None
    a = re.sub(r"(?i)^the ", "", a)
    return f"User prefers {a} to {b}"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("preference.favorite", "preference",
            _rx(r"(?i)my (?:all-time )?(?:favou?rite|fave|favourite) (?!thing\b|part\b|moment\b|kind of\b|person\b|one\b|line\b|quote\b|scene\b|bit\b|episode\b|answer\b|option\b|version\b|chapter\b|sentence\b|word\b)(?P<a>[\w -]{2,30}?) (?P<are>is|are) (?P<v>[^;]{1,80}?)" + _TAIL),
            _simple("User's favorite {a} {are} {v}"), "'my favorite <X> is <Y>'", "My favorite color is green."),
    Pattern("preference.prefer", "preference",
            _rx(rf"(?i)i {_ADV}prefer (?P<x>[^;]{{2,160}})$"),
            _taste("prefers"), "'I prefer ...' (not 'the first one', 'this', ...)", "I prefer tea over coffee."),
    Pattern("preference.rather", "preference",
            _rx(r"(?i)i(?:'d| would) (?:much )?rather (?P<x>(?!not\b)[^,;]{2,80} than [^,;]{2,80})" + _TAIL),
            _simple("User would rather {x}"), "'I'd rather X than Y'", "I'd rather take the train than fly."),
    Pattern("preference.fan", "preference",
            _rx(r"(?i)i(?:'m| am) (?:a )?(?:big |huge |massive |great |longtime |long-time )?fan of (?P<x>[^;]{2,80}?)" + _TAIL),
            _taste("is a fan of"), "'I'm a (big) fan of ...'", "I'm a big fan of science fiction."),
    Pattern("preference.dislike", "preference",
            _rx(r"(?i)i (?:(?:really|absolutely|genuinely|truly|just|kind of|also) )?(?P<v>hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy|do not enjoy|really don't like)(?P<x> [^;]{2,120}?)" + _TAIL),
            _r_dislike, "'I hate/dislike/can't stand/don't like ...'", "I hate cilantro."),
    Pattern("preference.not-fan", "preference",
            _rx(r"(?i)i(?P<v>'m not a fan of|'m not into| am not a fan of| am not into) (?P<x>[^;]{2,120}?)" + _TAIL),
            _r_dislike, "'I'm not a fan of ...'", "I'm not a fan of early meetings."),
    Pattern("preference.like", "preference",
            _rx(rf"(?i)i {_ADV}(?P<v>love|like|enjoy|adore) (?P<x>[^;]{{2,120}}?)" + _TAIL),
            _r_like, "'I (really) love/like/enjoy ...' (not 'it', 'this', 'how', 'the idea'...)",
            "I love hiking."),
    Pattern("preference.into", "preference",
            _rx(r"(?i)i(?:'m| am) (?:really |very |super |so |quite )?(?P<v>into) (?P<x>[^;]{2,80}?)" + _TAIL),
            _r_like, "'I'm (really) into ...'", "I'm really into bouldering."),
    Pattern("preference.copula-taste", "preference",
            _rx(r"(?i)I(?:'m| am) (?:also |really |so |totally |quite |pretty |a bit |kind of |seriously |just )?(?P<v>obsessed with|fond of|crazy about|mad about|passionate about|keen on|partial to|a sucker for|hooked on|addicted to|big on|huge on|not big on|not huge on|not really into|not into|not keen on|not fond of|not much of a [\w-]+ (?:person|fan)|not a [\w-]+ person|not really a [\w-]+ (?:person|fan)|not a big [\w-]+ (?:person|fan))(?P<x>(?: [^;]{2,80}?)?)" + _TAIL),
            _r_taste_verb("is {v}"), "'I'm obsessed with/fond of/a sucker for ...', 'I'm not big on ...'",
            "I'm obsessed with true crime podcasts."),
    Pattern("preference.person", "preference",
            _rx(r"(?i)I(?:'m| am) (?:definitely |really |totally |very much |so |much |also )?(?P<x>(?:more of |more |not |not really |definitely not |much more of )?(?:an? )(?:[\w-]+ ){0,2}(?:person|people person|kind of (?:guy|girl|person)|type|guy|girl|fan|lover|enthusiast|buff|nerd|geek|junkie|addict|aficionado|connoisseur|snob)(?: than (?:an? )?(?:[\w-]+ ){0,2}(?:person|type|fan))?)" + _TAIL),
            lambda m: None if re.search(r"(?i)\b(?:morning|night|people) person\b", _g(m, "x")) and False else (None if re.match(r"(?i)(?:not )?an? (?:big |huge )?(?:fan|lover)$", _g(m, "x")) else f"User is {_g(m, 'x')}"),
            "'I'm more of a dog person', 'I'm a huge Arsenal fan', 'I'm a coffee snob'",
            "I'm more of a dog person."),
    Pattern("preference.taste-verb", "preference",
            _rx(rf"(?i)I(?:'ve)? {_ADV}(?P<v>love|loved|like|liked|enjoy|enjoyed|adore|adored|prefer|preferred|dig|fancy|appreciate|hate|hated|dislike|detest|loathe|can't stand|cannot stand|can't bear|don't care for|do not care for|(?:don't|do not) (?:really |particularly |much |especially |actually )?(?:like|enjoy|love))(?P<x> [^;]{{2,120}}?)" + _TAIL),
            lambda m: (_r_taste_verb("{v}")(m) or "").replace("User 've ", "User ").replace("don't", "doesn't").replace("do not", "does not").replace(" hate ", " hates ").replace(" love ", " loves ").replace(" like ", " likes ").replace(" enjoy ", " enjoys ").replace(" adore ", " adores ").replace(" prefer ", " prefers ") or None,
            "'I (really/absolutely/always) love/like/hate/don't really like ...' incl. perfect tense",
            "I've always loved astronomy."),
    Pattern("preference.rather-open", "preference",
            _rx(r"(?i)I(?:'d| would) (?:much |definitely |honestly |always |generally )?rather (?P<x>[^;]{2,120}?)" + _TAIL),
            _r_rather_open, "'I'd much rather work in the mornings'", "I'd much rather work in the mornings."),
    Pattern("preference.favorite-inverted", "preference",
            _rx(r"(?i)(?P<v>[\w' -]{2,40}?) (?:is|are) (?:definitely |probably |easily |still )?my (?:all-time |absolute |top |number one |#1 )?(?P<k>favou?rite|fave|go-to|comfort|guilty pleasure)(?: (?P<a>[\w -]{2,30}))?$"),
            _r_fav_inverted, "'Jazz is my favorite genre', 'Pizza is my comfort food'", "Jazz is my favorite genre."),
    Pattern("preference.go-to", "preference",
            _rx(r"(?i)my (?:usual |regular |standard )?(?P<a>go-to(?: [\w -]{2,30}?)?|usual(?: [\w -]{2,30}?)?|default(?: [\w -]{2,30}?)?) (?:is|are) (?P<v>[^;]{1,80}?)" + _TAIL),
            lambda m: None if _DISCOURSE.match(_g(m, "v")) else f"User's {_g(m, 'a').lower()} is {_g(m, 'v')}",
            "'my go-to drink is an oat latte'", "My go-to drink is an oat latte."),
    Pattern("preference.would-prefer", "preference",
            _rx(r"(?i)I(?:'d| would) (?:much |really |definitely |generally |always )?prefer (?P<x>(?!not\b|to not\b|you\b)[^;]{2,120}?)" + _TAIL),
            lambda m: None if not _not_task(_g(m, "x")) or _DISCOURSE.match(_g(m, "x")) else f"User would prefer {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I'd prefer emails over Slack messages'", "I'd prefer emails over Slack messages."),
    Pattern("preference.choose", "preference",
            _rx(r"(?i)I (?P<a>always|usually|normally|generally|typically|tend to) (?P<v>choose|pick|go for|order|get|opt for|book|take|drink|eat|buy|wear|use|listen to|watch|read) (?P<x>(?!it\b|this\b|that\b|the (?:first|second|third|last|other) (?:one|option)\b)[^;]{2,80}?)" + _TAIL),
            lambda m: None if _HABIT_BLOCK.match(_g(m, "x")) or (_g(m, "v").lower() == "get" and _GET_STATE.match(_g(m, "x"))) else f"User {_g(m, 'a').lower()} {third_singular(_g(m, 'v').split()[0]) + (' ' + ' '.join(_g(m, 'v').split()[1:]) if ' ' in _g(m, 'v') else '')} {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I always choose/order/pick ...' (a standing choice)", "I always choose the vegetarian option."),
    Pattern("preference.not-a-fan-fragment", "preference",
            _rx(r"(?i)I(?:'m| am) (?:really |just )?not (?:really |exactly |much of )?(?:a |an )?(?:big |huge |massive |great |fan-of )?(?:fan|lover) of (?P<x>[^;]{2,80}?)" + _TAIL),
            _r_taste_verb("is not a fan of"), "'not a big fan of seafood', 'not really a fan of spicy food'",
            "I'm not a big fan of seafood."),
    Pattern("preference.we-like", "preference",
            _rx(r"(?i)we (?:all |both )?(?:really |absolutely )?(?P<v>love|like|enjoy|adore|hate|can't stand) (?P<x>[^;]{2,80}?)" + _TAIL),
            _r_taste_verb("and family {v}"), "'my kids and I love camping' (a household taste)", "My kids and I love camping."),
    Pattern("preference.never", "preference",
            _rx(r"(?i)I(?:'ve| have)? never (?:really )?(?P<v>been (?:a |much of a )?(?:big |huge )?fan of|liked|enjoyed|cared for|been into|got into|been keen on|been a [\w-]+ (?:person|fan)) (?P<x>[^;]{2,80}?)(?: much| at all| really)?" + _TAIL),
            _r_taste_verb("has never {v}"), "'I've never liked television much', 'never been a fan of opera'",
            "I've never been a fan of opera."),
    Pattern("preference.dont-do", "preference",
            _rx(r"(?i)I (?:(?:really|just|generally) )?(?:don't|do not) (?:really |generally |usually )?(?P<v>do|care (?:much |too much )?for|go in for|get on with|have time for) (?P<x>(?!it\b|this\b|that\b|anything\b|much\b|well\b|that\b|so\b|the\b|a\b|an\b|any\b|drugs\b|you\b|him\b|her\b|them\b)[^;]{2,60}?)(?: much| at all| really)?" + _TAIL),
            lambda m: f"User doesn't {_g(m, 'v').lower()} {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I don't really do horror films', 'I don't care much for sweet wine'", "I don't really do horror films."),
    Pattern("preference.cant-get-enough", "preference",
            _rx(r"(?i)I (?:just |really |honestly |literally )?(?:can't|cannot|can not) get enough of (?P<x>[^;]{2,80}?)" + _TAIL),
            _r_taste_verb("can't get enough of"), "'I can't get enough of Korean dramas'", "I can't get enough of Korean dramas."),
    Pattern("preference.emphatic", "preference",
            _rx(r"(?i)I (?:do|did|really do) (?P<v>love|like|enjoy|adore|hate|prefer) (?P<x>[^;]{2,80}?)" + _TAIL),
            _r_taste_verb("{v}s"), "'I do love a good crossword'", "I do love a good crossword."),
    Pattern("preference.not-much-of", "preference",
            _rx(r"(?i)I(?:'m| am) (?:really )?not (?:much of |really |a big |a huge |a )?(?:an? )?(?P<x>[\w-]+ (?:drinker|eater|reader|cook|gamer|dancer|talker|traveller|traveler|swimmer|runner|watcher|person|fan|lover))" + _TAIL),
            lambda m: f"User is not much of a {_g(m, 'x')}", "'I'm not much of a coffee drinker'", "I'm not much of a coffee drinker."),
    Pattern("preference.drinker", "preference",
            _rx(r"(?i)I(?:'m| am) (?:more of |more |definitely |very much )?(?P<x>an? (?:[\w-]+ ){1,2}(?:drinker|eater|reader|watcher|listener))(?P<y>,? (?:not|rather than|over) [^;]{2,40})?$"),
            lambda m: None if re.search(r"(?i)\b(?:heavy|social|binge|slow|fast|messy|picky|fussy|big|light)\b", _g(m, "x")) and not _g(m, "y") else f"User is {_g(m, 'x')}{(', ' + _g(m, 'y').lstrip(', ')) if _g(m, 'y') else ''}",
            "'I'm a tea drinker, not coffee'", "I'm a tea drinker, not coffee."),
    Pattern("preference.find", "preference",
            _rx(r"(?i)I (?:really |always |generally |usually |honestly )?find (?P<x>(?!it\b|this\b|that\b|you\b|him\b|her\b|them\b|myself\b|the (?:new|last|first|second|other|previous|current)\b)[^;]{2,60}?) (?P<a>(?:really |very |so |quite |pretty |super |incredibly |a bit |kind of |deeply )?(?:relaxing|calming|soothing|boring|tedious|stressful|fun|annoying|exhausting|comforting|satisfying|overwhelming|enjoyable|interesting|fascinating|tiring|therapeutic|dull|unbearable|irritating))" + _TAIL),
            lambda m: f"User finds {_rest_pronouns(_g(m, 'x'), for_assistant=False)} {_g(m, 'a')}", "'I find jazz really relaxing'",
            "I find jazz really relaxing."),
    Pattern("preference.better-than", "preference",
            _rx(r"(?i)(?:for me|personally|in my opinion|imo)(?:,\s*|\s+)(?P<a>[\w' -]{2,30}?) (?:is|are) (?:much |way |far |so much |a lot |always )?better than (?P<b>[\w' -]{2,30}?)(?: for me)?$"),
            _r_better, "'for me, tea is much better than coffee'", "For me, tea is much better than coffee."),
    Pattern("preference.cant-get-into", "preference",
            _rx(r"(?i)I (?:just |really |honestly )?(?:can't|cannot|can not|never could) get into (?P<x>(?!my\b|the\b|your\b|our\b|his\b|her\b|their\b|this\b|that\b|it\b|a\b|an\b)[^;]{2,60}?)" + _TAIL),
            lambda m: None if _TASK_THING.search(_g(m, "x")) or re.match(r"(?-i:[A-Z])\w+$", _g(m, "x")) else f"User can't get into {_g(m, 'x')}",
            "'I can't get into podcasts'", "I can't get into podcasts."),
    Pattern("preference.my-thing", "preference",
            _rx(r"(?i)(?P<v>(?!this\b|that\b|it\b|these\b|those\b|which\b|what\b|he\b|she\b|they\b)[\w' -]{2,40}?) (?:is|are|'s) (?P<n>not |n't |really not |just not |definitely not )?(?:totally |really |very much |definitely |just |absolutely )?(?:my|our) (?:thing|jam|bag|happy place|cup of tea|kind of thing)" + _TAIL),
            lambda m: f"User {'does not like' if _g(m, 'n') else 'likes'} {_g(m, 'v').lower() if not re.match('[A-Z][a-z]+ [A-Z]', _g(m, 'v')) else _g(m, 'v')}",
            "'Jazz is my thing', 'Horror isn't my cup of tea'", "Jazz is my thing."),
    Pattern("preference.choose-over", "preference",
            _rx(r"(?i)I(?:'d| would)? (?:always |happily |honestly )?(?:choose|pick|take|go for|have|want) (?P<a>[^,;]{2,40}?) over (?P<b>[^,;]{2,40}?)(?: any day(?: of the week)?| every time| anytime| any time)?" + _TAIL),
            lambda m: None if _TASK_THING.search(_g(m, "a") + " " + _g(m, "b")) or re.search(r"(?i)\b(?:option|one|version|first|second)\b", _g(m, "a")) else f"User prefers {re.sub(r'(?i)^the ', '', _g(m, 'a'))} over {re.sub(r'(?i)^the ', '', _g(m, 'b'))}",
            "'I'd choose the mountains over the beach any day'", "I'd choose the mountains over the beach any day."),
    Pattern("preference.sweet-tooth", "preference",
            _rx(r"(?i)I(?:'ve| have)?(?: got)? (?:a (?:real |bit of a |massive |huge |terrible )?(?P<x>sweet|savoury|savory) tooth)" + _TAIL),
            lambda m: f"User has a {_g(m, 'x').lower()} tooth", "'I have a sweet tooth'", "I have a sweet tooth."),
    Pattern("preference.supporter", "preference",
            _rx(r"(?i)I(?:'m| am) (?:a |an )(?P<x>(?:(?:huge|big|massive|lifelong|die-hard|diehard|long-suffering|loyal|proud) )?(?:[\w.-]+ ){1,3}(?:supporter|fan|follower|devotee|season ticket holder))" + _TAIL),
            lambda m: f"User is a {_g(m, 'x')}", "'I'm a huge Arsenal supporter'", "I'm a huge Arsenal supporter."),
    Pattern("preference.supports-team", "preference",
            _rx(r"(?i)I (?:also |still |have always |'ve always |always )?(?:support(?:ed)?|follow) (?P<x>(?-i:[A-Z])[\w.'&-]+(?: (?:(?-i:[A-Z])[\w.'&-]+|FC|AFC|United|City|Rovers|Athletic|Town)){0,3})(?: (?:FC|football club))?(?P<y> (?:through thick and thin|home and away|religiously|since I was \w+|since \d{4}))?" + _TAIL),
            lambda m: None if _g(m, "x").split()[0] in ("I", "I'm", "It", "This", "That") or _ORG_FROM.match(_g(m, "x")) else f"User supports {_g(m, 'x')}",
            "'I support Celtic', 'I follow Leeds United' (a team, by its capitalized name)", "I support Celtic."),
)
