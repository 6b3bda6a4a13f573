"""Contacts: people in the user's life, their names, roles and details."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _attr_value_ok, _g, _name_ok, _r_name, _rx
from mem.format.capture.patterns.lexicon import (
    _DATE_RE,
    _DISCOURSE,
    _JOBS,
    _NOT_NAME_WORDS,
    _NOT_NAMES,
    _RELATIONS,
    _TAIL,
    NAME,
)
from mem.format.capture.patterns.rewrite import _rest_pronouns


def _r_rel_attr(m: re.Match[str]) -> str | None:
    rel, attr, value = _g(m, "r").lower(), _g(m, "a").lower(), _g(m, "v")
    if attr == "birthday":
        if not _DATE_RE.search(value):
            return None
    elif not _attr_value_ok(attr, value):
        return None
    return f"User's {rel}'s {attr} is {value}"


def _r_rel_appos(m: re.Match[str]) -> str | None:
    name, x = _g(m, "name"), _g(m, "x")
    if not _name_ok(name) or name.lower() in _NOT_NAME_WORDS:
        return None
    if re.match(r"(?i)(?:is|'s) (?:so|such|the|a bit|being|really|very|always|driving|getting|going|acting|not)\b", x):
        return None
    if re.match(r"(?i)(?:is|'s) (?!an? |\d|called|named|turning|from|in|at|based|married|engaged|pregnant|retired)", x):
        return None
    return f"User's {_g(m, 'r').lower()} {name} {_rest_pronouns(x, for_assistant=False)}"


def _r_rel_fact(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if _DISCOURSE.match(x) or re.match(r"(?i)(?:it|this|that|a bit|the moment|the past|denial|hope|fear)\b", x):
        return None
    return f"User's {_g(m, 'r').lower()} {_g(m, 'v').lower()} {_rest_pronouns(x, for_assistant=False)}"


def _r_rel_age(m: re.Match[str]) -> str | None:
    n = int(_g(m, "n"))
    if not 0 <= n <= 120:
        return None
    return f"User's {_g(m, 'r').lower()} is {n} years old"


def _r_rel_job(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    words = re.sub(r"(?i)\b(?:at|for|in|on|with|from|by)\b.*$", "", x).split()
    if not words or not re.search(rf"(?i)\b(?:{_JOBS})s?$", " ".join(words)):
        return None
    return f"User's {_g(m, 'r').lower()} is {_g(m, 'art')} {_rest_pronouns(x, for_assistant=False)}"


def _r_plural_names(m: re.Match[str]) -> str | None:
    names = re.split(r",\s*|\s+(?:and|&)\s+", _g(m, "n"))
    if len(names) < 2 or not all(_name_ok(n) and n.lower() not in _NOT_NAME_WORDS for n in names):
        return None
    return f"User's {_g(m, 'r').lower()} are {_g(m, 'n')}"


def _r_name_is_my(m: re.Match[str]) -> str | None:
    name = _g(m, "name")
    if not _name_ok(name) or name.lower() in ("that", "it", "he", "she", "who", "what", "there", "here"):
        return None
    return f"{name} is the user's {_g(m, 'r').lower()}"


#: Role nouns: agentive by their ending, abbreviations in capitals ("PA", "GP"), or a compound
#: whose head is a relation ("host mum", "support worker").
_ROLE_HEAD = re.compile(
    rf"(?:(?i:(?:[\w-]+ ){{0,2}}[a-z-]{{3,}}(?:er|or|ist|ian|ant|ent|eer|ee|man|woman|wife|mum|mom|dad|mother|father|"
    rf"sister|brother|nurse|guru|coach|medic|doc|vet|rep|boss|pal|mate|buddy|lead|head|chair|PA|hand|warden))|"
    rf"(?i:(?:[\w-]+ ){{0,2}}(?:apprentice|trainee|intern|deputy|mentee|chef|cook|pilot|nanny|surgeon|sponsor|warden|"
    rf"carer|tutor|vicar|rabbi|imam|priest|pastor|chaplain|curate|midwife|physio|GP))|[A-Z]{{2,4}}|"
    rf"(?i:(?:[\w-]+ ){{1,2}}{_RELATIONS}))$"
)
_NOT_ROLE = re.compile(
    r"(?i)\b(?:favou?rite|fave|fav|best|worst|least|go-to|all-time|hero|heroes|idol|inspiration|type|jam|thing|problem|"
    r"weakness|number|center|centre|computer|browser|printer|charger|player|controller|server|router|laptop|trainers?|"
    r"speaker|monitor|blender|heater|cooker|dryer|container|folder|poster|sticker|paper|letter|answer|number|order|"
    r"water|dinner|winter|summer|corner|chapter|character|cover|filter|layer|master|parameter|power|tower|flower|"
    r"timer|marker|banner|header|footer|chatbot|assistant|ai|client|patient|customer|student|member|user|owner|"
    r"resident|agent|argument|comment|moment|document|content|component|payment|element|segment|event|parent|talent|"
    r"present|accent|percent|rent|tent|giant|plant|restaurant|elephant|pleasant|servant|infant|bane|life|world|rock)$"
)


def _role_ok(r: str) -> bool:
    return bool(_ROLE_HEAD.match(r)) and not _NOT_ROLE.search(r) and not re.match(r"(?i)(?:new|old|own|first|only)$", r)


def _r_is_my_role(m: re.Match[str]) -> str | None:
    name, r = _g(m, "name"), _g(m, "r")
    if not _name_ok(name) or name.split()[0].lower() in _NOT_NAME_WORDS or not _role_ok(r):
        return None
    return f"{name} is the user's {r if r.isupper() else r.lower()}"


def _r_role_called(m: re.Match[str]) -> str | None:
    name, r = _g(m, "name"), _g(m, "r")
    if not _name_ok(name) or name.split()[0].lower() in _NOT_NAME_WORDS or not _role_ok(r):
        return None
    if not _g(m, "c") and not re.match(r"(?:Dr|Mr|Mrs|Ms|Mx|Prof)\b", name):
        return None  # "my manager is Sam" needs a title or "called": "my favourite is Debussy"
    return f"User's {r if r.isupper() else r.lower()} is {name}"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("contact.relation-name", "contact",
            _rx(rf"(?i:my (?P<r>{_RELATIONS})'?s name is)\s+{NAME}{_TAIL}"),
            _r_name("User's {r} is named {name}"), "'my sister's name is <Name>'",
            "My sister's name is Ana."),
    Pattern("contact.relation-attr", "contact",
            _rx(rf"(?i)my (?P<r>{_RELATIONS})'?s (?P<a>email address|email|e-mail|phone number|phone|cell number|cell|mobile number|mobile|number|address|birthday) is (?P<v>.{{3,80}})$"),
            _r_rel_attr, "'my mom's phone number is ...'", "My mom's phone number is 555-0134."),
    Pattern("contact.relation-is", "contact",
            _rx(rf"(?i:my (?P<r>{_RELATIONS}) is)\s+{NAME}$"),
            _r_name("User's {r} is {name}"), "'my dentist is <Name>' (the sentence ends with the name)",
            "My dentist is Dr. Lee."),
    Pattern("contact.is-my", "contact",
            _rx(rf"{NAME} (?i:is my) (?P<r>{_RELATIONS})$"),
            _r_name("{name} is the user's {r}"), "'<Name> is my sister'", "Sarah is my sister."),
    Pattern("contact.relation-appositive", "contact",
            _rx(rf"(?i:(?:my|our) (?P<r>{_RELATIONS}))\s+(?P<name>[A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+)?)\s+(?P<x>(?i:is|'s|just turned|turned|is turning|turns|lives|works|moved|was born|goes to|studies|is studying|has|got married|is getting married|is getting|just started|started)\b.{{1,80}})$"),
            _r_rel_appos, "'my son Tom is 7', 'my partner Alex works as a chef'", "My son Tom is 7."),
    Pattern("contact.relation-called", "contact",
            _rx(rf"(?i:(?:my|our) (?P<r>{_RELATIONS})(?:'?s names?(?:'s| is)| is called| is named|'s called|'s named| goes by))\s+{NAME}{_TAIL}"),
            _r_name("User's {r} is named {name}"), "'my wife is called Maria', 'our nanny's name is Rosa'",
            "My wife is called Maria."),
    Pattern("contact.relation-lowercase-name", "contact",
            _rx(rf"(?i)(?:my|our) (?P<r>{_RELATIONS})'?s? name(?:'s| is) (?P<name>[a-z][a-z'-]+)$"),
            lambda m: f"User's {_g(m, 'r').lower()} is named {_g(m, 'name').capitalize()}" if _g(m, "name").lower() not in _NOT_NAMES | _NOT_NAME_WORDS else None,
            "'my sister's name is jo' (lowercase)", "my brother's name is sam"),
    Pattern("contact.relation-age", "contact",
            _rx(rf"(?i)(?:my|our) (?P<r>{_RELATIONS}) (?:is|'s|just turned|turned) (?P<n>\d{{1,3}})(?: years old| yrs old| months old)?(?:\s*,.*|\s+(?:now|this year|and)\b.*)?$"),
            _r_rel_age, "'my grandad is 91'", "My grandad is 91."),
    Pattern("contact.relation-place", "contact",
            _rx(rf"(?i)(?:my|our) (?P<r>{_RELATIONS}) (?:(?:still|now|currently|also) )?(?P<v>lives|works|is based|studies|moved|is studying|is working) (?P<x>(?:in|at|for|near|as|to|with) .{{2,80}})$"),
            _r_rel_fact, "'my mum lives in Cardiff', 'my partner works at ...'", "My mum lives in Cardiff."),
    Pattern("contact.relation-job", "contact",
            _rx(rf"(?i)(?:my|our) (?P<r>{_RELATIONS}) (?:is|'s) (?P<art>an?) (?P<x>(?:[\w-]+ ){{0,3}}[\w-]+(?: (?:at|for|in) [^,;]{{2,60}})?){_TAIL}"),
            _r_rel_job, "'my husband is a chef'", "My husband is a chef."),
    Pattern("contact.plural-names", "contact",
            _rx(r"(?i:(?:my|our) (?P<r>kids|children|sons|daughters|parents|sisters|brothers|twins|grandkids|grandchildren|siblings|cats|dogs) are (?:called |named )?)(?P<n>[A-Z][a-z'-]+(?:(?:, | and | & )[A-Z][a-z'-]+)+)" + _TAIL),
            _r_plural_names, "'my kids are Ella and Finn'", "My kids are Ella and Finn."),
    Pattern("contact.name-is-my", "contact",
            _rx(rf"(?P<name>[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)(?:'s| is) (?i:my|our) (?P<r>{_RELATIONS})$"),
            _r_name_is_my, "'Paul's my brother'", "Paul's my brother."),
    Pattern("contact.is-my-with-detail", "contact",
            _rx(rf"{NAME} (?i:is|'s) (?i:my|our) (?P<r>{_RELATIONS})(?: (?i:at|from|in|on) [^,;]{{2,60}})?{_TAIL}"),
            lambda m: None if not _name_ok(_g(m, "name")) or _g(m, "name").split()[0].lower() in _NOT_NAME_WORDS else f"{_g(m, 'name')} is the user's {_g(m, 'r').lower()}",
            "'Dr. Kaur is my rheumatologist at St Mary's', 'Jonas is my business partner, ...'", "Dr. Kaur is my rheumatologist at St Mary's."),
    Pattern("contact.relation-is-detail", "contact",
            _rx(rf"(?i:(?:my|our) (?P<r>{_RELATIONS}) is)(?i: an? (?:[\w-]+ ){{0,2}}(?:called|named))?\s+{NAME}(?: (?i:at|from|in|on|over at) [^,;]{{2,60}})?{_TAIL}"),
            _r_name("User's {r} is {name}"), "'my GP is Dr. Ahmed at the Riverside surgery', 'my boss is a woman called Linda'",
            "My GP is Dr. Ahmed at the Riverside surgery."),
    Pattern("contact.is-my-role", "contact",
            _rx(rf"{NAME} (?i:is|'s) (?i:my|our) (?P<r>(?:[\w-]+ ){{0,2}}[\w-]+)(?: (?i:at|from|in|on|for) [^,;]{{2,60}})?{_TAIL}"),
            _r_is_my_role, "'Helen is my support worker', 'Dave is my drummer' (a role noun by its shape)",
            "Helen is my support worker."),
    Pattern("contact.role-called", "contact",
            _rx(rf"(?i:(?:my|our) (?P<r>(?:[\w-]+ ){{0,2}}[\w-]+?)(?P<c>'?s names?(?:'s| is)| is called| is named|'s called|'s named| goes by)?(?(c)|(?: is)))\s+{NAME}(?: (?i:at|from|in|on|over at) [^,;]{{2,60}})?{_TAIL}"),
            _r_role_called, "'my PA is called Martin', 'my host mum is Mrs. Kim'", "My PA is called Martin."),
)
