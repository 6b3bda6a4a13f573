"""Facts of routine: habits stated with a frequency or habit adverb, hours, commutes."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _bare_plural, _g, _rx, _strong_evidence
from mem.format.capture.patterns.lexicon import (
    _BUSINESS,
    _DAYS,
    _FREQ,
    _HAB_OBJ_BLOCK,
    _HABIT_ADV,
    _HABIT_BLOCK,
    _HOBBY_VERBS,
    _IDIOM_POSS,
    _LIVELIHOOD,
    _MOMENT,
    _SPAN,
    _TAIL,
    _TASK_THING,
)
from mem.format.capture.patterns.rewrite import _ADVERBS, _MODALS, _PAST, user_clause


def _r_habit(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if _HABIT_BLOCK.match(x) or re.match(r"(?i)^\w+ed\b|^\w+ (?:best|better|worse|well|hard|fast|slowly|badly)\b|^(?:meant|thought|knew|did|was|were|had|saw|told|felt)\b", x) or re.match(rf"(?i)^(?:{'|'.join(sorted(_PAST))})\b", x):
        return None
    if re.search(r"(?i)\b(?:today|tonight|yesterday|right now|this morning|this afternoon|this evening|last \w+)\b", x):
        return None
    return user_clause("I " + _g(m, "a") + " " + x if _g(m, "a") else "I " + x)


#: Verbs that never state a habit or livelihood with a bare "I <verb> <object>": auxiliaries,
#: modals, mental and perception verbs, desire, communication, one-off actions of the moment.
_NOT_HABITUAL = frozenset(re.split(r"\s+", """
am is are was were be been being have has had do does did don't doesn't didn't can can't cannot could
couldn't will won't would wouldn't shall should shouldn't may might must mustn't need needs ought used
think know mean see guess want wish hope feel get gets got miss owe trust understand remember forget
agree disagree doubt suppose bet believe say tell ask promise apologise apologize appreciate wonder
reckon assume realise realize notice find love like hate adore prefer enjoy dislike detest loathe mind
care try seem look sound hear let come give take put make send leave check fix call start stop finish
thank admit expect plan intend deserve suggest recommend figure imagine just really always never also
still only even actually literally totally honestly basically probably definitely kinda sorta
no not nor never so then too very quite rather meant sent spent heard felt dealt lent bought brought caught
thought sought fought ate drank slept woke wore broke spoke chose stole froze hid bit shot hit cut shut
go keep keeps kept lose lost win won beg bet swear hear feel fear doubt regret blame recall recon
am wanna gotta gonna said told asked went came saw knew thought made took gave found left
understand accept refuse deny promise dare prefer want wonder worry struggle manage fail tend
appreciate apologise sense suspect smell taste touch hold hang grab pick pull push open close turn
sit stand stay wait sleep lie rest relax eat drink cook fancy crave need owe use live work speak
teach run own study play drive ride moved move start started join joined write read watch listen
""".strip()))
#: ...but these carry a livelihood or a hobby with a generic object ("I read a lot of sci-fi" is
#: left to the taste patterns; "I keep bees", "I run a café", "I play bass in a band").
_HABITUAL_OK = frozenset({"keep", "play", "run", "ride", "drive", "write", "cook", "do", "study", "fix", "sell", "build", "clean", "watch", "read", "teach", "own", "shoot", "mix", "look"})


def _present_verb(v: str) -> bool:
    """Does ``v`` look like a first-person present-tense verb (not a past form, not -ing)?"""
    low = v.lower()
    if low in _NOT_HABITUAL and low not in _HABITUAL_OK:
        return False
    if low in _PAST or low in _MODALS or not low.isalpha() or len(low) < 2:
        return False
    if (low.endswith("ing") and low not in ("sing", "bring", "ring", "swing", "string", "sting", "cling", "wing")) or (
        low.endswith("ed") and not low.endswith("eed")
    ):
        return False
    return not (low.endswith("s") and not low.endswith("ss"))


#: Verbs whose "I <verb> <object>" is as often an idiom or a one-off ("I keep a straight
#: face", "I play hardball", "I follow suit", "I save face") as a habit ("I keep bees"). With one
#: of these verbs the clause needs habitual evidence (see _habit_evidence).
_AMBIGUOUS_HAB = frozenset(re.split(r"\s+", """
keep play run take make hold put throw beat kill save wear rub roll follow stick fish bite pull push
break cut draw hit jump kick pass pick turn walk carry catch drop fly set show pay spend open close
watch read write cook do fix check study clean build sell cover handle deal bring lose win serve back
face mind miss chase cross dig blow burn shoot nail ace crush support shop host hunt shift split spin
pitch swing call raise paint wash drive ride own manage lead head mix lay look feed move bear count
""".strip()))
#: Intransitive verbs that state a trait, a mood or a speech act, never a hobby or a livelihood.
_NOT_HOBBY = frozenset(re.split(r"\s+", """
procrastinate overthink panic worry stress sulk ramble waffle exaggerate complain moan whinge gossip lie cheat
cry snap overreact dither fret digress concur insist object surrender relent yield confess quit resign
apologise apologize fidget dawdle grumble nag rant swear blush stammer stutter freak cope suffer struggle
""".strip()))


def _habit_evidence(x: str, adv: str, rest: str = "") -> bool:
    """Does the clause carry evidence of a habit or a livelihood (not an idiom, not a one-off)?
    ``x`` is the object, ``rest`` everything after the verb (a tail after a comma included)."""
    if adv and adv.lower() not in ("now", "still", "also", "both", "all"):
        return True  # "I mainly / professionally / occasionally ..."
    rest = rest or x
    return bool(
        _bare_plural(x)
        or re.search(rf"(?i)\b(?:{_FREQ}|{_HABIT_ADV}|sometimes|occasionally|regularly|all year round|year-round)\b", rest)
        or _SPAN.search(rest)
        or _LIVELIHOOD.search(rest)
        or _BUSINESS.match(x)
    )


def _r_habitual(m: re.Match[str]) -> str | None:
    v, x = _g(m, "v"), _g(m, "x")
    if _adverb_not_verb(v):  # "I simply adore ...": the adverb is not the verb
        return None
    if not _present_verb(v) and not (v.isupper() and 2 <= len(v) <= 3):  # "I DJ at a club"
        return None
    if x and ((_HAB_OBJ_BLOCK.match(x) and not re.match(r"(?i)out of (?-i:[A-Z])", x)) or _MOMENT.search(x) or _TASK_THING.search(x) or _IDIOM_POSS.match(x)):
        return None
    adv = _g(m, "adv")
    rest = m.group(0)[m.end("v"):]
    first = x.split()[0].lower() if x else ""
    if first.endswith("n't") or first in _MODALS or first in _ADVERBS or (
        v.lower() in ("do", "does") and first in _NOT_HABITUAL
    ):  # "I do think ...", "I do not ...", "I keep just ..."
        return None
    if v.lower() in _NOT_HOBBY:  # "I digress", "I procrastinate": a trait or a speech act
        return None
    # a particle after the verb is a phrasal verb or an idiom ("I fish around in my bag", "I own up")
    if re.match(r"(?i)(?:around|about|along|through|into|onto|off|over|up|down|out(?! of (?-i:[A-Z]))|back|away|by|past|across)\b", x):
        return None
    if re.match(r"(?i)(?:in|at|for|with|on|out of) ", x):
        # an intransitive verb + a group or a place it is done in: "I sing in a community choir",
        # "I volunteer with the RNLI", "I fly for easyJet", "I specialise in fine line work"
        if not (
            re.match(r"(?i)(?:in|at|for|with|on|out of) (?:an? |my |our |the (?:local|village|church|school|community) |(?:the )?(?-i:[A-Z]|[a-z]+[A-Z]))", x)
            or (v.lower() in ("specialise", "specialize", "deal", "trade", "major", "minor", "lecture", "work", "freelance") and x.lower().startswith("in "))
            or _habit_evidence(x, adv, rest)
        ):
            return None
    elif (
        x
        and re.match(r"(?i)(?:an?|my|our) ", x)
        and not re.match(r"(?i)(?:my|our) own ", x)
        and v.lower() not in ("drive", "run", "own", "ride", "manage", "breed")
        and not re.search(r"(?i)\b(?:for|in|at|on|out of)\b", x)
    ):
        return None  # "I make a mean lasagne", "I keep a straight face": no livelihood frame
    if v.lower() in _AMBIGUOUS_HAB and not _habit_evidence(x, adv, rest):
        return None  # "I follow suit", "I save face", "I play hardball with suppliers"
    if not v.isupper() and v.lower() not in _HOBBY_VERBS and not _strong_evidence(x, adv, rest):
        return None  # "I ruffle feathers", "I click save", "I bark orders all day"
    s = "we" if _g(m, "s").lower() == "we" else "I"
    clause = f"{s} {adv + ' ' if adv else ''}{v if v.isupper() else v.lower()}{(' ' + x) if x else ''}"
    return user_clause(clause)


def _adverb_not_verb(v: str) -> bool:
    """Is ``v`` an adverb in the verb slot ("I simply adore", "I truly cherish")?"""
    low = v.lower()
    return low in _ADVERBS or (
        low.endswith("ly") and len(low) > 4 and low not in ("reply", "apply", "rely", "supply", "bully", "rally", "tally", "multiply", "comply", "imply")
    )


PATTERNS: tuple[Pattern, ...] = (
    Pattern("fact.my-hours", "fact",
            _rx(r"(?i)my (?P<a>(?:usual |normal |regular )?(?:work(?:ing)? hours|office hours|hours|shifts?|work schedule|schedule|commute|lunch break)) (?:are|is) (?P<v>.{2,80})$"),
            lambda m: f"User's {_g(m, 'a').lower()} {'are' if _g(m, 'a').lower().endswith('s') else 'is'} {_g(m, 'v')}" if re.search(rf"(?i)\d|{_DAYS}|weekday|weekend|morning|evening|night|minutes|hours?\b", _g(m, "v")) else None,
            "'my work hours are 9 to 5'", "My work hours are 9 to 5."),
    Pattern("fact.day-off", "fact",
            _rx(rf"(?i)(?P<d>{_DAYS}|weekends) (?:is|are) my (?P<x>(?!(?:least|most|all-time|favou?rite|worst|best|fave|\w+est)\b)(?:[\w-]+ ){{0,2}}(?:day|days|night|nights) ?(?:off)?)$"),
            lambda m: f"{_g(m, 'd').capitalize()} {'are' if _g(m, 'd').lower().endswith('s') else 'is'} the user's {_g(m, 'x')}",
            "'Fridays are my day off'", "Fridays are my day off."),
    Pattern("fact.habit-adverb", "fact",
            _rx(rf"(?i)I (?P<a>{_HABIT_ADV}) (?P<x>[a-z][\w'-]*\b.{{2,120}})$"),
            _r_habit, "'I usually/normally/typically <do something>'", "I usually go to bed around midnight."),
    Pattern("fact.habit-frequency", "fact",
            _rx(rf"(?i)(?:I|we) (?P<a>)(?P<x>[a-z][\w'-]*\b.{{0,100}}? {_FREQ}\b.{{0,40}})$"),
            _r_habit, "'I <do something> every morning / on Sundays / twice a day / to work'",
            "I meditate every morning."),
    Pattern("fact.commute", "fact",
            _rx(r"(?i)I (?:usually |normally |mostly |always )?commute (?P<x>(?:by|on|via|in) [^,;]{2,40}?|\d+ (?:minutes|miles|km|hours?)[^,;]{0,30})" + _TAIL),
            lambda m: f"User commutes {_g(m, 'x')}", "'I commute by bike'", "I commute by bike."),
    Pattern("fact.usually-state", "fact",
            _rx(r"(?i)I(?:'m| am) (?P<a>usually|normally|generally|typically|mostly) (?P<x>(?:up|in bed|asleep|awake|at (?:work|home|the office|the gym|my desk)|home|free|busy|online|offline|off|working) [^,;]{1,40}?)" + _TAIL),
            lambda m: None if re.search(r"(?i)\b(?:today|tonight|now)\b", _g(m, "x")) else f"User is {_g(m, 'a').lower()} {_g(m, 'x')}",
            "'I'm usually up by 6'", "I'm usually up by 6."),
    Pattern("fact.gets-up-at", "fact",
            _rx(r"(?i)I (?:usually |normally |always |generally )?(?P<v>get up|wake up|go to bed|start work|finish work|clock on|clock off|start my shift|finish my shift) (?P<x>(?:at|around|by|before|after) [^,;]{2,40})" + _TAIL),
            lambda m: None if _MOMENT.search(_g(m, "x")) else user_clause(f"I {_g(m, 'v').lower()} {_g(m, 'x')}"),
            "'I get up at half four for milking'", "I get up at half four for milking."),
    Pattern("fact.habitual-verb", "fact",
            _rx(r"(?P<s>(?i:I|we)) (?P<adv>(?i:also|mainly|mostly|professionally|occasionally|sometimes|now|still|both|all))? ?(?P<v>[A-Za-z]+)(?: (?P<x>[^;]{2,90}?))?" + _TAIL),
            _r_habitual, "'I farm sheep', 'I keep bees', 'I restore old motorbikes', 'I sing in a community choir' (a present-tense verb and a generic object)",
            "I restore old motorbikes."),
)
