"""Action items: reminders, errands with a date, list entries, plans and goals."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _date_ok, _g, _not_task, _rx
from mem.format.capture.patterns.lexicon import _DATE_RE, _DISCOURSE
from mem.format.capture.patterns.rewrite import _rest_pronouns, _unquote


def _r_remind(m: re.Match[str]) -> str | None:
    p, x = _g(m, "p").lower() or "about", _g(m, "x")
    if _DISCOURSE.match(x) and p != "to":
        return None
    w = _g(m, "w")
    return f"Remind the user {p} {_rest_pronouns(x, for_assistant=False)}" + (f" ({w})" if w else "")


_NEED_BLOCK = re.compile(
    r"(?i)^(?:go|run|leave|think|sleep|pee|eat|rest|check|figure|see|know|get going|get back|"
    r"ask|say|tell|admit|be honest|focus|hurry|vent|calm down|relax|stop|breathe)\b"
)


def _r_need(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if _NEED_BLOCK.match(x) or not _DATE_RE.search(x) or re.search(r"(?i)\b(?:now|right now|asap)$", x):
        return None
    verb = {"need to": "needs to", "have to": "has to", "must": "must", "gotta": "has to",
            "got to": "has to", "should": "should"}[_g(m, "mod").lower()]  # fmt: skip
    return f"User {verb} {_rest_pronouns(x, for_assistant=False)}"


_ERRANDS = re.compile(
    r"(?i)^(?:buy|call|pay|send|renew|book|pick up|email|text|water|feed|walk|take|bring|return|"
    r"cancel|schedule|order|submit|file|visit|get|make an appointment|clean|fix|check in|register|"
    r"sign up|apply|collect|drop off|mail|post|back up|update|ring|phone|wish|congratulate|"
    r"thank|invite|reply to|respond to|follow up|refill|replace|charge|feed)\b"
)


def _r_remember_to(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if not _ERRANDS.match(x):
        return None
    return f"Remind the user to {_rest_pronouns(x, for_assistant=False)}"


def _r_list(m: re.Match[str]) -> str | None:
    x = _unquote(_g(m, "x"))
    if _DISCOURSE.match(x):
        return None
    lst = _g(m, "l").lower().replace("todo", "to-do")
    return f"On the user's {lst} list: {x}"


def _r_plan(m: re.Match[str]) -> str | None:
    v, x = _g(m, "v").lower(), _g(m, "x")
    if _DISCOURSE.match(x) or re.match(r"(?i)^(?:be|do|say|try|have|get|see|think|go|stop|leave|ask|tell|check|figure|sleep|rest|pee|eat|cry|scream|lose it|wing it)\b(?! to)", x):
        return None
    if v == "going" and re.match(r"[A-Z]", x):
        return None  # "I'm going to Japan in April": travel, see event.travel
    if v in ("going", "hoping", "trying", "want", "would like", "'d like") and not (_date_ok(x) or re.search(r"(?i)\b(?:by|before) (?:the|my|our|next|this|end)\b", x)):
        return None
    if not _not_task(x):
        return None
    verb = {"going": "is going to", "hoping": "hopes to", "trying": "is trying to", "want": "wants to",
            "would like": "would like to", "'d like": "would like to", "plan": "plans to", "intend": "intends to",
            "planning": "plans to", "aiming": "aims to", "intending": "intends to"}.get(v, "plans to")  # fmt: skip
    x = re.sub(r"(?i)^(\w+)ing\b", lambda mm: mm.group(1), x) if _g(m, "on") else x
    return f"User {verb} {_rest_pronouns(x, for_assistant=False)}"


def _r_goal(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if _NEED_BLOCK.match(x) and re.match(r"(?i)(?:run|go) (?:a|an|my|the) (?:[\w-]+ ){0,3}(?:marathon|race|half|10k|5k|ultra|triathlon|trek|hike|climb|walk|pilgrimage|business|company|shop|caf[eé])\b", x):
        x_ok = True
    else:
        x_ok = not _NEED_BLOCK.match(x)
    if not x_ok or not _not_task(re.sub(r"(?i)\b(?:this|next) (?:year|month|summer|winter|spring|autumn|term|season)\b", "", x)):
        return None
    return f"User's {_g(m, 'g').lower()} is to {_rest_pronouns(x, for_assistant=False)}"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("action.remind-me", "action_item",
            _rx(r"(?i)(?:(?:please|can you|could you|would you|will you),?\s+)?(?:please )?remind me(?P<w> (?:on \w+|tomorrow(?: morning| evening| night)?|tonight|next \w+|this \w+|at [\w:.]+|in (?:a|an|\d+|two|three|a few|a couple of) \w+|later today|every \w+))? (?P<p>to|about|that) (?P<x>.{2,200})$"),
            _r_remind, "'remind me to/about/that ...'", "Remind me to call my mom on Sunday."),
    Pattern("action.dont-let-me-forget", "action_item",
            _rx(r"(?i)(?:please )?(?:don't|do not) let me forget (?:(?P<p>to|about) )?(?P<x>.{2,200})$"),
            _r_remind, "'don't let me forget (to/about) ...'", "Don't let me forget to pay the rent."),
    Pattern("action.remember-to", "action_item",
            _rx(r"(?i)(?:please )?(?:remember|don't forget|do not forget) to (?P<x>.{2,200})$"),
            _r_remember_to, "'remember to' + an errand verb (buy, call, pay, send...)",
            "Remember to buy a gift for Leo."),
    Pattern("action.need-to-by", "action_item",
            _rx(r"(?i)i(?:'ve| have)? (?:really )?(?P<mod>need to|have to|must|gotta|got to|should) (?P<x>.{3,200})$"),
            _r_need, "'I need to/have to ...' with a date or deadline",
            "I need to renew my driver's license by the end of the month."),
    Pattern("action.add-to-list", "action_item",
            _rx(r"(?i)(?:please )?add (?P<x>.{2,100}?) to (?:my|the|our) (?P<l>shopping|grocery|groceries|to-?do|todo|task|reading|watch|packing|bucket|wish) list$"),
            _r_list, "'add X to my shopping/to-do list'", "Add oat milk to my shopping list."),
    Pattern("action.put-on-list", "action_item",
            _rx(r"(?i)(?:please )?(?:put|stick|write|pop) (?P<x>.{2,100}?) (?:on|in|onto) (?:my|the|our) (?P<l>shopping|grocery|groceries|to-?do|todo|task|reading|watch|packing|bucket|wish) list$"),
            _r_list, "'put X on my to-do list'", "Put milk on my shopping list."),
    Pattern("action.plan", "action_item",
            _rx(r"(?i)I(?:'m| am) (?:also |really |still |seriously )?(?P<v>planning|hoping|going|aiming|intending|trying) (?:to|(?P<on>on)) (?P<x>.{3,200})$"),
            _r_plan, "'I'm planning to/on ...', 'I'm going/hoping to ... <when>'",
            "I'm planning to run a half marathon in October."),
    Pattern("action.plan-to", "action_item",
            _rx(r"(?i)I (?:also |really |still )?(?P<v>plan|intend|want|would like|'d like) to (?P<x>.{3,200})$"),
            _r_plan, "'I plan/intend to ...', 'I want to ... by <when>'",
            "I want to lose 5 kilos before the wedding."),
    Pattern("action.goal", "action_item",
            _rx(r"(?i)(?:my|our) (?:main |big |new |current |long-term |short-term |new year'?s? )?(?P<g>goal|aim|resolution|target|ambition|dream) (?:for (?:this|next) (?:year|month)|this year)? ?is to (?P<x>.{3,200})$"),
            _r_goal, "'my goal is to ...'", "My goal is to save 10k by the end of the year."),
)
