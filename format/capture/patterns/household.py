"""Facts of the household: children, pets, animals, vehicles and things held."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _g, _r_name, _rx, _simple
from mem.format.capture.patterns.lexicon import _KIDS, _PETS, _TAIL, _TASK_THING, NAME
from mem.format.capture.patterns.rewrite import _rest_pronouns


def _r_dont_have(m: re.Match[str]) -> str | None:
    return f"User doesn't have {_g(m, 'x')}"


_LIVESTOCK = (
    r"(?:sheep|goats?|cows?|cattle|pigs?|chickens?|hens?|ducks?|geese|alpacas?|llamas?|ponies|pony|donkeys?|bees|"
    r"beehives|hives|horses?|quail|turkeys?|rabbits?|ferrets?|tortoises?|lizards?|chinchillas?|budgies?|"
    r"grandchildren|grandkids|great-grandchildren|godchildren|nieces|nephews|step-?kids|stepchildren|foster kids)"
)
_NUM = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple of|several|some|\d+)"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("fact.has", "fact",
            _rx(rf"(?i)i have (?P<x>(?:a|an|one|two|three|four|five|six|\d+) (?:[\w-]+ ){{0,2}}(?:{_PETS}|{_KIDS})(?: (?:named|called) [A-Z][\w'-]+(?: and [A-Z][\w'-]+)?)?)" + _TAIL),
            _simple("User has {x}"), "'I have a dog/two kids/...'", "I have a dog named Pepper."),
    Pattern("fact.pet-name", "fact",
            _rx(rf"(?i:my (?P<p>{_PETS})'?s? names? (?:is|are))\s+{NAME}{_TAIL}"),
            _r_name("User's {p} is named {name}"), "'my dog's name is <Name>'", "My dog's name is Rufus."),
    Pattern("fact.has-got", "fact",
            _rx(rf"(?i)(?:I|we)(?: have|'ve got| have got| got| own) (?P<x>(?:(?:a|an|one|two|three|four|five|six|\d+) (?:[\w-]+ ){{0,4}}|(?=twin|twins\b|grandkids\b|grandchildren\b))(?:{_PETS}|{_KIDS}|\d+[- ]year[- ]olds?|[\w-]+ (?:retriever|terrier|collie|spaniel|shepherd|poodle|labrador|lab|beagle|bulldog|husky|pug|dachshund|chihuahua|corgi|greyhound|whippet|tabby|siamese|persian|maine coon))(?: (?:named|called) [A-Z][\w'-]+(?:(?:,| and) [A-Z][\w'-]+)*)?(?:,? [A-Z][\w'-]+ and [A-Z][\w'-]+)?(?: (?:under|aged|ages|age|both|all|over) [\w -]{{1,20}})?)" + _TAIL),
            _simple("User has {x}"), "'I've got a 2 year old', 'we've got a border collie called Skye'",
            "We've got a border collie called Skye."),
    Pattern("fact.has-named", "fact",
            _rx(r"(?i)(?:I|we)(?: have|'ve got| have got| own) (?P<x>an? (?:[\w-]+ ){1,3}(?:named|called) [A-Z][\w'-]+)" + _TAIL),
            _simple("User has {x}"), "'I have a <something> named <Name>'", "I have a stick insect called Twiggy."),
    Pattern("fact.pet-is", "fact",
            _rx(rf"(?i)my (?P<p>{_PETS}) (?:is|'s) (?P<x>an? (?:[\w-]+ ){{0,5}}[\w-]+(?: (?:named|called) [A-Z][\w'-]+)?)" + _TAIL),
            lambda m: None if re.search(r"(?i)\b(?:nightmare|menace|monster|idiot|angel|sweetheart|bit|little)\b", _g(m, "x")) else f"User's {_g(m, 'p').lower()} is {_g(m, 'x')}",
            "'my dog is a 5 year old beagle named Rufus'", "My dog is a 5 year old beagle named Rufus."),
    Pattern("fact.dont-have", "fact",
            _rx(r"(?i)I (?:don't|do not) (?:have|own) (?P<x>(?:a|an|any) (?:car|kids|children|pets|dog|cat|tv|television|license|licence|driving licen[cs]e|driver's license|smartphone|siblings|family nearby|garden|printer|computer|laptop|internet|wifi|wi-fi|email address|microwave|dishwasher|washing machine|mobile|mobile phone|cell phone|bank account|credit card|partner))" + _TAIL),
            _r_dont_have, "'I don't have a car'", "I don't have a car."),
    Pattern("fact.drive", "fact",
            _rx(r"(?i)I (?:drive|ride|own) (?P<x>an? (?:\d{4} )?(?:[\w-]+ ){0,3}[\w-]+)" + _TAIL),
            lambda m: None if re.search(r"(?i)\b(?:hard bargain|lot|bit|while|mile|point)\b", _g(m, "x")) else f"User drives {_g(m, 'x')}",
            "'I drive a 2015 Honda Civic'", "I drive a 2015 Honda Civic."),
    Pattern("fact.holds-pass-or-licence", "fact",
            _rx(r"(?i)I(?: have|'ve got| have got| hold| own) (?P<x>(?:an? |my |two |three )(?:[\w'-]+ ){0,3}(?:season ticket|licence|license|membership|allotment|degree|qualification|certificate|visa|permit|black belt|phd|masters|master's|passport|green card|blue badge|bus pass|railcard|pension)s?(?: (?:at|for|in|with|from) [^,;]{2,40})?)" + _TAIL),
            lambda m: None if _TASK_THING.search(_g(m, "x")) else f"User has {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I have a season ticket at Anfield', 'I've got an HGV licence'", "I have a season ticket at Anfield."),
    Pattern("fact.has-counted", "fact",
            _rx(rf"(?i)(?:I|we)(?P<v> have|'ve got| have got| keep| own|'ve| have) (?:(?:also|just) )?(?P<x>(?:{_NUM} )?(?:[\w-]+ ){{0,2}}{_LIVESTOCK}(?:(?:,| and| plus) (?:{_NUM} )?(?:[\w-]+ ){{0,1}}{_LIVESTOCK})*)" + _TAIL),
            lambda m: f"User {'keeps' if _g(m, 'v').lower() == 'keep' else 'owns' if _g(m, 'v').lower() == 'own' else 'has'} {_g(m, 'x')}",
            "'we've got chickens and two goats', 'I've got seven grandchildren'", "We've got chickens and two goats."),
    Pattern("fact.new-baby", "fact",
            _rx(r"(?i)(?:I|we)(?:'ve| have)? (?:just |recently )?had (?P<x>(?:a|our|my) (?:first |second |third |new |little )?(?:baby(?: (?:girl|boy))?|son|daughter|little (?:girl|boy))|twins)" + _TAIL),
            lambda m: f"User just had {_rest_pronouns(_g(m, 'x'), for_assistant=False)}", "'We've just had a baby girl'",
            "We've just had a baby girl."),
)
