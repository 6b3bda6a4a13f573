"""Events: dated occasions of the user or of people in the user's life (a day-level date)."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _date_ok, _g, _rx
from mem.format.capture.patterns.guards import body_of
from mem.format.capture.patterns.lexicon import (
    _DATE_RE,
    _DAYS_PL,
    _KIDS,
    _PETS,
    _RELATIONS,
    _TASK_THING,
)
from mem.format.capture.patterns.rewrite import _rest_pronouns, cap, user_clause


def _r_event(m: re.Match[str]) -> str | None:
    v = _g(m, "v")
    if not _DATE_RE.search(v):
        return None
    return f"User's {_g(m, 'e').lower()}{(' ' + _g(m, 'd')) if _g(m, 'd') else ''} is {v}"


_EVENT_NOUNS = (
    r"(?:appointment|appt|interview|exam|test|surgery|operation|flight|wedding|party|trip|"
    r"vacation|holiday|check-?up|presentation|conference|recital|graduation|reunion|concert|"
    r"match|race|marathon|scan|procedure|hearing|court date|deadline|performance|gig|"
    r"anniversary|birthday party|funeral|ceremony|christening|baby shower|due date|"
    r"driving test|viva|defense|defence|review|audition|competition|tournament|shift|"
    r"check-?in|consultation|session|class|lesson|course|seminar|workshop|retreat|"
    r"mri|mri scan|ct scan|x-ray|ultrasound|jab|vaccine|vaccination|booster|smear(?: test)?|"
    r"mammogram|colonoscopy|endoscopy|biopsy|root canal|filling|blood test|parents'? evening|"
    r"sports day|open day|school play|nativity|prom|baby|house move|move|completion|induction|"
    r"orientation|first day|leaving do|hen do|stag do|hen party|stag party|bar mitzvah|bat mitzvah|"
    r"job|new job|exams|finals|a-levels|gcses|"
    r"festival|harvest festival|fete|fair|fayre|carnival|parade|gala|quiz night|bake sale|jumble sale|fundraiser|"
    r"grand opening|opening|launch|line check|inspection|assessment|appraisal|audit|tribunal|medical|annual review|mot)"
)


def _r_event_have(m: re.Match[str]) -> str | None:
    e, v = _g(m, "e"), _g(m, "v")
    if not _date_ok(v):
        return None
    return f"User has {_rest_pronouns(e, for_assistant=False)} {_rest_pronouns(v, for_assistant=False)}"


def _r_travel(m: re.Match[str]) -> str | None:
    if not _date_ok(_g(m, "v")):
        return None
    who = "User is" if _g(m, "s").lower().startswith("i") else "User and family are"
    return f"{who} {_g(m, 'g').lower()} to {_g(m, 'x')} {_g(m, 'v')}"


def _r_my_event_verb(m: re.Match[str]) -> str | None:
    v = _g(m, "v")
    if not _date_ok(v):
        return None
    return f"User's {_g(m, 'e').lower()} {_g(m, 'w').lower()} {v}"


def _r_event_dated(m: re.Match[str]) -> str | None:
    rest = _g(m, "x")
    if re.search(rf"(?i)\b(?:on |at )?(?:{_DAYS_PL}|weekends|weekdays)\b|\bevery\b", rest):
        return None
    if not _date_ok(rest) or _TASK_THING.search(re.sub(r"(?i)\btonight\b", "", rest)):
        return None
    if re.match(r"(?i)(?:to )?(?:bed|sleep|the gym|the shops?|the store|the supermarket|work|lunch|dinner|the toilet|the loo|"
                r"the pub|a meeting|a walk|home now)\b", rest):
        return None
    return user_clause(body_of(m.group(0)))


def _r_rel_event(m: re.Match[str]) -> str | None:
    v = _g(m, "v")
    if not _date_ok(v):
        return None
    return f"User's {_g(m, 'r').lower()} {_g(m, 'w').lower()} {_rest_pronouns(v, for_assistant=False)}"


def _r_my_any_event(m: re.Match[str]) -> str | None:
    e, v = _g(m, "e"), _g(m, "v")
    if not _date_ok(v) or re.fullmatch(rf"(?i){_RELATIONS}|{_PETS}|{_KIDS}|name|birthday|favou?rite.*|go-to.*|day off|days off", e):
        return None
    if re.match(r"(?i)(?:life|day|week|head|mind|brain|mood|house|flat|car|phone|laptop|wife|husband)\b", e):
        return None
    w = _g(m, "w").lower()
    return f"User's {e.lower()} {w} {_rest_pronouns(v, for_assistant=False)}"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("event.my-event", "event",
            _rx(r"(?i)my (?P<e>(?:[\w'-]+ ){0,2}(?:appointment|flight|interview|wedding|exam|surgery|operation|party|trip|vacation|holiday|check-?up|presentation|recital|graduation|court date|conference|due date|performance)(?: home| back| out)?)(?P<d> (?:to|from|in|with) [A-Z][\w ]{1,30}?)? is (?P<v>(?:on|at|next|this|tomorrow|tonight|in|due) .{1,60})$"),
            _r_event, "'my <appointment/flight/...> is on <date>'",
            "My dentist appointment is on March 12."),
    Pattern("event.have", "event",
            _rx(rf"(?i)(?:I|we)(?: have|'ve got| have got| got) (?P<e>(?:a |an |my |our |the )?(?:[\w'-]+ ){{0,3}}{_EVENT_NOUNS}s?(?: (?:with|at|in|for) [\w' ]{{2,30}}?)?) (?P<v>(?:on|at|next|this|tomorrow|in|coming up|due|the|tonight|early|late|first|later) .{{1,60}})$"),
            _r_event_have, "'I have a job interview on Monday' (a day-level date)",
            "I have a job interview on Monday morning."),
    Pattern("event.having", "event",
            _rx(rf"(?i)I(?:'m| am) (?:having|getting|taking|sitting|doing|attending|going to) (?P<e>(?:(?:a|an|my|the) )?(?:[\w'-]+ ){{0,3}}{_EVENT_NOUNS}s?(?: on my [\w ]{{2,20}}?)?) (?P<v>(?:on|next|this|tomorrow|in|at the end|the) .{{1,60}})$"),
            lambda m: f"User is having {_rest_pronouns(_g(m, 'e'), for_assistant=False)} {_g(m, 'v')}" if _date_ok(_g(m, "v")) else None,
            "'I'm having surgery next month'", "I'm having surgery on my knee next month."),
    Pattern("event.travel", "event",
            _rx(r"(?i)(?P<s>I'm|I am|we're|we are) (?P<g>going|flying|travel?ling|heading|driving|leaving|off|moving|sailing) (?:to|for) (?P<x>[A-Za-z][\w' -]{1,40}?) (?P<v>(?:on|next|this|tomorrow|in|at the end|the|for) .{1,60})$"),
            _r_travel, "'I'm flying to Berlin on the 3rd of March'", "I'm flying to Berlin on the 3rd of March."),
    Pattern("event.my-event-verb", "event",
            _rx(rf"(?i)(?:my|our) (?P<e>(?:[\w'-]+ ){{0,3}}{_EVENT_NOUNS}(?: (?:to|from|in|with) [A-Za-z][\w ]{{1,30}}?)?) (?P<w>is|leaves|departs|starts|begins|lands|takes off|is scheduled for|was moved to|got moved to) (?P<v>.{{2,60}})$"),
            _r_my_event_verb, "'my flight to Rome leaves Friday at 7am', 'our anniversary is June 12'",
            "Our wedding anniversary is June 12."),
    Pattern("event.first-person-dated", "event",
            _rx(r"(?i)(?:I|we)(?:'m|'re| am| are)? (?:(?:also|finally|actually) )?(?:fly|flying|land|landing|leave|leaving|arrive|arriving|move|moving|start|starting|begin|beginning|finish|finishing|graduate|graduating|retire|retiring|get married|getting married|marry|marrying|go|going|head|heading|travel|travell?ing|run|running|sit|sitting|perform|performing|give birth|giving birth|return|returning|come back|coming back|check in|checking in|move house|moving house|off|due|visit|visiting|compete|competing|race|racing|defend|defending|close|closing|exchange|exchanging)(?P<x>\b.{2,80})$"),
            _r_event_dated, "'we fly to Crete on the 2nd', 'I'm getting married in September', 'I start my new job on the 1st of May'",
            "We fly to Crete on the 2nd."),
    Pattern("event.relation-dated", "event",
            _rx(rf"(?i)(?:my|our) (?P<r>{_RELATIONS}|kids|children|boys|girls|family|parents) (?P<w>starts?|finish(?:es)?|graduates?|leaves?|moves?|flies|fly|arrives?|visits?|comes?|is coming|are coming|is visiting|are visiting|gets? married|is getting married|are getting married|is due|are due|retires?|is retiring|turns? \d+|is turning \d+) (?P<v>.{{2,60}})$"),
            _r_rel_event, "'my twins start reception in September'", "My twins start reception in September."),
    Pattern("event.bare", "event",
            _rx(rf"(?i)(?=[^,;]{{0,60}}? (?:is|starts|begins) )(?:the )?(?P<e>(?:[\w'-]+ ){{0,2}}{_EVENT_NOUNS}) (?P<w>is|starts|begins|is booked for|is scheduled for) (?P<v>(?:on|next|this|tomorrow|in|the) .{{1,60}})$"),
            lambda m: f"User's {_g(m, 'e').lower()} {_g(m, 'w').lower()} {_g(m, 'v')}" if _date_ok(_g(m, "v")) and not re.match(r"(?i)(?:my|our|his|her|their)\b", _g(m, "e")) else None,
            "'parents evening is on tuesday at 6'", "Parents evening is on Tuesday at 6."),
    Pattern("event.my-any-event", "event",
            _rx(r"(?i)(?:my|our) (?P<e>(?:[\w'-]+ ){0,2}[\w'-]+) (?P<w>is|are|starts|start|begins|begin|is booked for|are booked for|is due|are due|kicks off|kick off) (?P<v>(?:on|next|this|tomorrow|the|in (?:january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|autumn|winter)|at the (?:end|start) of)\b.{1,50})$"),
            _r_my_any_event, "'my hip op is next Wednesday', 'my exams start on the 2nd of June' (any noun, a day-level date)",
            "My hip op is next Wednesday."),
    Pattern("event.season-starts", "event",
            _rx(r"(?i)(?P<e>[a-z]+ing(?: season)?|(?:the )?(?:[a-z]+ )?season) (?P<w>starts|begins|kicks off|is|opens) (?P<v>(?:on|next|this|in|the|at the (?:end|start) of)\b.{1,40})$"),
            lambda m: f"{cap(_g(m, 'e'))} {_g(m, 'w').lower()} {_g(m, 'v')}" if _date_ok(_g(m, "v")) and not re.match(r"(?i)(?:nothing|something|everything|anything|morning|evening|ceiling|building|thing|king|ring|spring|string|wedding|meeting|painting|clothing|shopping|ping|feeling|being|timing)$", _g(m, "e")) else None,
            "'Lambing starts on the 1st of March'", "Lambing starts on the 1st of March."),
)
