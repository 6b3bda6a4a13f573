"""Instructions: persistent requests addressed to the assistant (how to answer, address, format)."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, Render, _g, _not_task, _r_name, _rx
from mem.format.capture.patterns.guards import body_of
from mem.format.capture.patterns.lexicon import (
    _DISCOURSE,
    _IMP,
    _IMP_ING,
    _TAIL,
    _TASK_LOCAL,
    _TASK_THING,
    _VOCATIVE,
    IMP_VERBS,
    NAME,
)
from mem.format.capture.patterns.rewrite import _conj_first, _rest_pronouns, cap, for_assistant

_VOCATIVE_CORE = re.compile(r"(?i),\s*(?:folks|guys|everyone|people|kids|y'all|all|friends|team)$")


def _r_instruction(prefix: str = "") -> Render:
    def r(m: re.Match[str]) -> str | None:
        x = _g(m, "x")
        if _TASK_LOCAL.search(x) or _VOCATIVE_CORE.search(x):
            return None
        lead = prefix.format(**{k: (v or "").strip().lower() for k, v in m.groupdict().items()})
        return cap(for_assistant(lead + x))

    return r


def _r_from_now_on(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    x = re.sub(r"(?i)^please,?\s+", "", x)
    if not re.match(rf"(?i)(?:{IMP_VERBS}|always|never|don't|do not|stop|call me|be|keep|only)\b", x):
        return None
    if _TASK_LOCAL.search(re.sub(r"(?i)\b(?:from now on|it)\b", "", x)):
        return None
    return cap(for_assistant(x))


def _r_when_you(m: re.Match[str]) -> str | None:
    c, x = _g(m, "c"), _g(m, "x")
    if _TASK_LOCAL.search(c) or _TASK_LOCAL.search(x):
        return None
    x = re.sub(r"(?i)^please,?\s+", "", x)
    return cap(for_assistant(f"When you {c}, {x}"))


_PERSIST = re.compile(
    r"(?i)\b(?:always|never|from now on|going forward|moving forward|in (?:the )?future|by default|"
    r"in general|as a rule|at all times|every time|each time|whenever|anymore|any more|ever again|"
    r"no more|henceforth|from here on|for good)\b"
)
_OUTPUT_NOUNS = r"(?:answers?|replies|reply|responses?|messages?|summaries|summary|explanations?|emails?|texts?|code|output|tone|writing)"


def _r_persistent(m: re.Match[str]) -> str | None:
    """An imperative with a persistence marker ("... from now on", "... by default")."""
    x = re.sub(r"(?i)^(?:please|just|pls),?\s+", "", _g(m, "x"))
    if not re.match(rf"(?i)(?:{IMP_VERBS}|be|keep|stop|don't|do not|never|always|only|talk|speak|call me|default|"
                    r"double[- ]check|avoid|go easy|cut|drop|skip|include|use)\b", x):
        return None
    if not _not_task(x, allow_it=True):
        return None
    tail = _g(m, "t")
    return cap(for_assistant(x + (" " + tail.lower() if tail and tail.lower() not in ("from now on", "going forward", "moving forward", "henceforth") else "")))


def _r_always_general(m: re.Match[str]) -> str | None:
    """always/never + any verb, addressed to the assistant (mentions the user or its output)."""
    x = _g(m, "x")
    if not re.search(rf"(?i)\b(?:me|my|mine|I|I'm|you give me|{_OUTPUT_NOUNS})\b", x):
        return None
    if not _not_task(x) or _VOCATIVE.search(x):
        return None
    return cap(for_assistant(_g(m, "a").lower() + " " + x))


def _r_manner(m: re.Match[str]) -> str | None:
    x = re.sub(r"(?i)^(?:please|just),?\s+", "", m.group(0))
    if not _not_task(x, allow_it=True):
        return None
    return cap(for_assistant(x))


def _r_output_style(m: re.Match[str]) -> str | None:
    o, x = _g(m, "o").lower(), _g(m, "x")
    if not _not_task(x):
        return None
    x = re.sub(r"(?i),?\s*please$", "", x)
    return f"Keep {o} {x}"


def _r_no_more(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if not x or _DISCOURSE.match(x) or re.match(r"(?i)^(?:worries|problem|way|idea|thanks|clue|need|rush|pressure|more)\b", x):
        return None
    return f"No {x}" + (f" in {_g(m, 'o').lower()}" if _g(m, "o") else "")


def _r_contrast(m: re.Match[str]) -> str | None:
    a, b = _g(m, "a"), _g(m, "b")
    if not _not_task(a) or not _not_task(b) or _DISCOURSE.match(a):
        return None
    return f"{cap(_g(m, 'v'))} {a}, not {b}"


def _r_whenever_i(m: re.Match[str]) -> str | None:
    c, x = _g(m, "c"), re.sub(r"(?i)^please,?\s+", "", _g(m, "x"))
    if not _not_task(c) or not _not_task(x):
        return None
    return cap(for_assistant(f"Whenever the user {_conj_first(_rest_pronouns(c, for_assistant=False))}, {x}"))


def _r_want_you(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if not (_PERSIST.search(x) or re.match(r"(?i)be (?:more|less|a bit more|a bit less) ", x)):
        return None
    if not _not_task(x):
        return None
    return cap(for_assistant(x))


def _r_remember_always(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if not _not_task(x):
        return None
    return cap(for_assistant(f"{_g(m, 'a').lower()} {x}"))


_PLURAL_NP = r"(?:(?:[A-Z]?[a-z-]+ ){0,2}[a-z-]+s)"
_STYLE_ADJ = (
    r"(?:short|brief|concise|simple|casual|formal|friendly|polite|professional|clear|plain|under|below|"
    r"to|in|as|more|less|a bit|really|very|super|nice|neutral|quick|easy|cheap|light|low|basic)"
)
_COMM_VERBS = r"(?:explain|talk|speak|write|reply|respond|answer|describe|word|text|message|email)"


def _r_dont_call(m: re.Match[str]) -> str | None:
    name = _g(m, "name")
    if re.match(r"(?i)(?:after|before|at|on|until|till|back|tonight|tomorrow|today|now|again|later|when|if|that|"
                r"this|anymore|every|during|in|up|out|names|about|for|with|crazy|a liar)\b", name):
        return None
    return f"Never call the user {name}"


def _r_talk_to_me(m: re.Match[str]) -> str | None:
    x = re.sub(r"(?i)^(?:please|just),?\s+", "", body_of(m.group(0)))
    if _TASK_THING.search(re.sub(r"(?i)\bI'm\b|\blike I\b.*$", "", x)):
        return None
    return cap(for_assistant(x))


_GENERIC_OBJ = re.compile(
    rf"(?i)^(?:me\b|my\b|any\b|anything\b|the (?:words?|phrases?|terms?|expressions?) |your (?:[\w-]+ )?{_OUTPUT_NOUNS}\b|(?:so many|too many|so much|too much|more than \d+) |"
    rf"(?!the\b|a\b|an\b|this\b|that\b){_PLURAL_NP}\b)"
)


def _r_neg_generic(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if not _GENERIC_OBJ.match(x) or _TASK_THING.search(x) or _VOCATIVE.search(x):
        return None
    return cap(for_assistant(f"do not {_g(m, 'v').lower()} {x}"))


def _r_domain(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if _TASK_THING.search(x):
        return None
    return cap(for_assistant(body_of(m.group(0))))


def _r_no_ever(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if re.match(r"(?i)^(?:worries|worry|problem|problems|way|idea|thanks|thank you|clue|need|rush|pressure|more|offen[cs]e|"
                r"stress|hurry|biggie|doubt|wonder|chance|kidding|comment|time|reason|matter|shame|sweat|"
                r"big deal|harm done|hard feelings|luck|joke|kidding|bother|fuss|probs|drama|biggy)\b", x) or _DISCOURSE.match(x):
        return None
    return f"No {x}"


_CONVENTION = (
    r"(?:spelling|spellings|date format|dates|date|time|times|units|measurements|currency|prices|temperatures|"
    r"notation|punctuation|english|format|formatting|number format|decimal commas?|decimal points?|quotes|"
    r"quotation marks|weights|distances|sizes|paper sizes|keyboard shortcuts|shortcuts)"
)


def _r_convention(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if re.match(r"(?i)(?:the|this|that|a|an|it|my|same|other|another|new|old|right|wrong|correct|shorter|longer)\b", x) or _TASK_THING.search(body_of(m.group(0))):
        return None
    return cap(for_assistant(re.sub(r"(?i)^(?:please|always),?\s+", "", body_of(m.group(0)))))


def _r_generic_manner(m: re.Match[str]) -> str | None:
    o, c = _g(m, "o"), _g(m, "c")
    if not _GENERIC_OBJ.match(o) or _TASK_THING.search(o) or _TASK_THING.search(c) or _VOCATIVE.search(c):
        return None
    if re.match(r"(?i)(?:it|them|these|those|the|this|that|some|few|more|other|both|all the)\b", o) or re.search(r"\d", o):
        return None
    return cap(for_assistant(re.sub(r"(?i)^(?:please|always),?\s+", "", body_of(m.group(0)))))


def _r_whenever_obj(m: re.Match[str]) -> str | None:
    c, x = _g(m, "c"), re.sub(r"(?i)^please,?\s+", "", _g(m, "x"))
    if _TASK_THING.search(re.sub(r"(?i)\b(?:it|them)\b", "", x)) or _TASK_THING.search(c):
        return None
    return cap(for_assistant(f"Whenever the user {_conj_first(_rest_pronouns(c, for_assistant=False))}, {x}"))


PATTERNS: tuple[Pattern, ...] = (
    Pattern("instruction.from-now-on", "instruction",
            _rx(r"(?i)(?:from now on|going forward|in (?:the )?future|moving forward|for future reference|henceforth|from here on(?: out)?),?\s+(?P<x>.{3,200})$"),
            _r_from_now_on, "a persistent request introduced by 'from now on', 'going forward'...",
            "From now on, answer in Spanish."),
    Pattern("instruction.always-never", "instruction",
            _rx(rf"(?i)(?:please )?(?P<a>always|never) (?P<x>{_IMP}\b.{{2,200}})$"),
            _r_instruction("{a} "), "'always'/'never' + an assistant action verb",
            "Never schedule meetings before 10am."),
    Pattern("instruction.dont-ever", "instruction",
            _rx(rf"(?i)(?:please )?(?:don't|do not|dont) ever (?P<x>{_IMP}\b.{{0,200}})$"),
            _r_instruction("never "), "'don't ever' + an assistant action verb",
            "Don't ever call me Sammy."),
    Pattern("instruction.dont-anymore", "instruction",
            _rx(rf"(?i)(?:please )?(?:don't|do not|dont) (?P<x>{_IMP}\b.{{2,200}}?),?\s+(?:anymore|any more|ever again|again|from now on|going forward|in (?:the )?future)$"),
            _r_instruction("do not "), "'don't' + action verb + 'anymore'/'again'/'from now on'",
            "Don't use exclamation marks in your replies anymore."),
    Pattern("instruction.stop", "instruction",
            _rx(rf"(?i)(?:please )?stop (?P<x>{_IMP_ING}\b.{{2,200}}?)(?:,?\s+(?:anymore|please|from now on|going forward))?$"),
            _r_instruction("stop "), "'stop' + an assistant action in -ing", "Stop calling me buddy."),
    Pattern("instruction.want-you", "instruction",
            _rx(rf"(?i)i(?:'d like| would like| want| need) you to (?P<a>always|never) (?P<x>{_IMP}\b.{{2,200}})$"),
            _r_instruction("{a} "), "'I want you to always/never ...'",
            "I want you to always double-check dates."),
    Pattern("instruction.when-you", "instruction",
            _rx(rf"(?i)(?:whenever|every time|each time|when) you (?P<c>{_IMP}\b[^,]{{0,80}}),\s*(?P<x>(?:please )?(?:{_IMP}|don't|do not|never|always)\b.{{2,200}})$"),
            _r_when_you, "'whenever you <action>, <instruction>'",
            "Whenever you write code for me, use Python."),
    Pattern("instruction.call-me", "instruction",
            _rx(rf"(?i:(?:please )?call me)\s+{NAME}(?:\s*,.*|\s+(?i:instead|from now on|please|for short)\b.*)?$"),
            _r_name("User wants to be called {name}"), "'call me <Name>'", "Call me Liz."),
    Pattern("instruction.remember-always", "instruction",
            _rx(r"(?i)(?:please )?(?:remember|make sure|be sure|try) to (?P<a>always|never) (?P<x>.{2,200})$"),
            _r_remember_always, "'remember to always/never ...'", "Remember to always use my work calendar."),
    Pattern("instruction.persistent", "instruction",
            _rx(r"(?i)(?:please,? )?(?P<x>(?!I\b|I'm\b|we\b|my\b|it\b|things\b|everything\b|that\b|this\b).{3,200}?),? (?P<t>from now on|going forward|moving forward|in (?:the )?future|by default|in general|as a rule|at all times|henceforth|from here on(?: out)?|for good|every time|each time|for (?:anything|everything|all|any) [\w -]{2,40}|(?:every|each|any) (?:single )?(?:answer|reply|response|message|email|summary|explanation|recipe|plan|list))(?:,? please)?$"),
            _r_persistent, "an imperative ending with 'from now on', 'by default', 'in general'...",
            "Answer in French by default."),
    Pattern("instruction.always-general", "instruction",
            _rx(r"(?i)(?:please )?(?P<a>always|never) (?P<x>(?!been\b|was\b|had\b|knew\b|thought\b|forget|know|ever\b|mind\b|again\b|say never)[a-z][\w-]*\b.{2,200})$"),
            _r_always_general, "'always/never' + any verb, when it mentions the user or the assistant's output",
            "Always double check the dates you give me."),
    Pattern("instruction.manner", "instruction",
            _rx(r"(?i)(?:please |just )?(?:be (?:more |less |a bit more |a bit less |really |very |totally )?[a-z-]{3,20}(?: and [a-z-]{3,20})? with me|(?:talk|speak|write|reply|respond) to me (?:like|as if|as though|as) .{2,80}|(?:don't|do not|never) (?:\w+ ){1,2}(?:things |stuff |anything )?with me|go easy on me(?: with .{2,40})?)(?:,.{0,60})?$"),
            _r_manner, "'be blunt with me', 'talk to me like ...', 'don't sugarcoat things with me'",
            "Be blunt with me."),
    Pattern("instruction.output-style", "instruction",
            _rx(rf"(?i)(?:please )?(?:keep|make) (?:your |all your |the |all )?(?P<o>{_OUTPUT_NOUNS}) (?P<x>(?:short|brief|concise|simple|casual|formal|friendly|polite|professional|clear|plain|under|below|to|in|as|more|less|a bit|really|very|super|nice|neutral)\b.{{0,60}})$"),
            _r_output_style, "'keep (your) answers short', 'make your replies more formal'",
            "Keep your answers short."),
    Pattern("instruction.no-more", "instruction",
            _rx(rf"(?i)(?:please,? )?no (?:more (?P<x>[\w' -]{{2,40}}?)|(?P<y>[\w' -]{{2,40}}?) in (?P<o>your {_OUTPUT_NOUNS}|your {_OUTPUT_NOUNS}))(?:,? please)?(?:,.{{0,40}})?$"),
            lambda m: _r_no_more(m) if _g(m, "x") else (f"No {_g(m, 'y')} in {_g(m, 'o').lower()}" if _g(m, "y") and not _DISCOURSE.match(_g(m, "y")) else None),
            "'no more emojis', 'no bullet points in your answers'", "No more emojis, please."),
    Pattern("instruction.contrast", "instruction",
            _rx(r"(?i)(?:please )?(?P<v>use|answer in|reply in|respond in|write in|speak|talk in|give me|show|quote|measure in|default to) (?P<a>[^,]{2,40}?),? (?:not|instead of|rather than|over) (?P<b>[^,]{2,40})$"),
            _r_contrast, "'use Celsius, not Fahrenheit', 'answer in English instead of Spanish'",
            "Use Celsius, not Fahrenheit."),
    Pattern("instruction.default-to", "instruction",
            _rx(r"(?i)(?:please )?(?:always )?default to (?P<x>.{2,80})$"),
            lambda m: f"Default to {_rest_pronouns(_g(m, 'x'), for_assistant=True)}" if _not_task(_g(m, "x")) else None,
            "'default to ...'", "Default to 24h time for me."),
    Pattern("instruction.whenever-i", "instruction",
            _rx(rf"(?i)(?:whenever|every time|each time|any ?time) I (?P<c>[^,]{{2,80}}),\s*(?P<x>(?:please )?(?:{_IMP}|don't|do not|never|always|remind)\b.{{2,200}})$"),
            _r_whenever_i, "'whenever I <do X>, <instruction>'",
            "Whenever I ask for a recipe, give me the vegetarian version."),
    Pattern("instruction.like-you-to", "instruction",
            _rx(r"(?i)I(?:'d like| would like| want| need|'d prefer| would prefer| prefer) (?:for )?you to (?P<x>.{2,200})$"),
            _r_want_you, "'I'd like you to be more concise in general' (a persistent request)",
            "I'd like you to be more concise in general."),
    Pattern("instruction.address-me", "instruction",
            _rx(rf"(?i:(?:please |you can |just |you may )*(?:address me as|refer to me as|you can call me|just call me))\s+{NAME}(?:\s*,.*|\s+(?i:instead|from now on|please|for short)\b.*)?$"),
            _r_name("Call the user {name}"), "'address me as <Name>', 'just call me <Name>'",
            "Please address me as Dr. Patel."),
    Pattern("instruction.dont-call-me", "instruction",
            _rx(r"(?i)(?:please )?(?:don't|do not|never|stop) (?:ever )?call(?:ing)? me (?P<name>[\w' .-]{2,30}?)(?:,? (?:please|ever|anymore|again|ok|okay|thanks))*$"),
            _r_dont_call, "'don't call me mate', 'please never call me sweetie'", "Don't call me mate."),
    Pattern("instruction.talk-to-me", "instruction",
            _rx(rf"(?i)(?:please |just )?(?:(?:{_COMM_VERBS})(?: (?:things|stuff|everything|concepts|ideas|maths|math|science|code|\w+ing|[\w-]+s))? (?:to|with|for) me (?:like|as if|as though|as|in|with|using|slowly|simply|plainly|clearly|gently|without|step by step)\b.{{0,80}}|"
                rf"(?:{_COMM_VERBS}|use) (?:slowly|simply|plainly|more slowly|clearly|in (?:simple|plain|easy|short) \w+|simple words|short sentences|plain (?:english|language))(?: and .{{2,60}})?(?: (?:to|with|for) me)?)$"),
            _r_talk_to_me, "'explain things to me like I'm a beginner', 'please speak slowly with me'",
            "Explain things to me like I'm a beginner."),
    Pattern("instruction.neg-generic", "instruction",
            _rx(rf"(?i)(?:please )?(?:don't|do not|never) (?P<v>{_IMP}|sign off|pad|hedge|lecture|moralise|moralize|repeat|restate|over-?explain|sugarcoat|sugar-coat|assume|bring up|apologi[sz]e for|use up) (?P<x>.{{2,120}})$"),
            _r_neg_generic, "'don't use American spellings', 'don't add comments that restate the code' (a generic object)",
            "Don't use American spellings."),
    Pattern("instruction.domain", "instruction",
            _rx(rf"(?i)(?:please )?(?:always )?(?P<v>{_IMP}) (?P<x>.{{2,80}}?) (?:in|for) (?:all |any |my )?(?P<d>recipes|emails|code|answers|replies|responses|messages|summaries|explanations|examples|translations|documents|reports|meal plans|workouts|itineraries|letters|commit messages|pull requests|prs|essays|projects|python|javascript|typescript|sql|go|rust|java|scripts|shell commands|invoices|quotes|estimates|budgets)$"),
            _r_domain, "'give me metric measurements in recipes' (an imperative scoped to a kind of output)",
            "Give me metric measurements in recipes."),
    Pattern("instruction.order", "instruction",
            _rx(r"(?i)(?:please )?(?:always )?(?:give|show|tell|put|start with) (?:me )?(?P<a>(?:the )?(?:code|answer|summary|short version|tl;?dr|conclusion|bottom line|explanation|example|steps|result|key points?|verdict)s?) first(?:,? (?:and|then) (?P<b>(?:the )?[\w ]{2,30}?)(?: after(?:wards)?| later| second| at the end| below)?)?$"),
            lambda m: f"Give the user {_g(m, 'a')} first" + (f", then {_g(m, 'b')}" if _g(m, "b") else ""),
            "'give me the code first and the explanation after'", "Give me the code first and the explanation after."),
    Pattern("instruction.skip", "instruction",
            _rx(r"(?i)(?:please )?(?:skip|cut|drop|ditch|lose|spare me|no need for|leave out|cut out) (?:the |all the |any )?(?P<x>pleasantries|small talk|preamble|intros?|introductions|fluff|filler|waffle|disclaimers|caveats|chit-?chat|jargon|flattery|apologies|lectures?|moralising|moralizing|hedging|boilerplate)(?:,? (?:and|just) (?P<y>(?:get (?:straight )?to the point|be direct|.{2,40})))?(?:,? please)?$"),
            lambda m: f"Skip the {_g(m, 'x').lower()}" + (f" and {_g(m, 'y')}" if _g(m, "y") else ""),
            "'skip the pleasantries and get to the point'", "Skip the pleasantries and get to the point."),
    Pattern("instruction.keep-generic", "instruction",
            _rx(rf"(?i)(?:please )?(?:always )?(?:keep|make) (?:your |all your |all |my )?(?P<o>things|everything|{_PLURAL_NP}) (?P<x>{_STYLE_ADJ}\b.{{0,60}})$"),
            lambda m: None if _TASK_THING.search(_g(m, "x")) or re.match(r"(?i)(?:it|this|that|these|those|us|them|things going|everyone)\b", _g(m, "o")) else f"Keep {_g(m, 'o')} {_g(m, 'x')}",
            "'keep meal plans simple, nothing over 30 minutes'", "Keep meal plans simple."),
    Pattern("instruction.no-ever", "instruction",
            _rx(r"(?i)(?:please,? )?no (?P<x>[\w' -]{2,30}?),? (?:ever|at all|ever again|anymore|any more|please|going forward|from now on|in future|in the future)(?:,? (?:please|ever|thanks|thank you|from now on|going forward))*$"),
            _r_no_ever, "'no emojis ever', 'no jargon please, from now on'", "No emojis ever."),
    Pattern("instruction.x-always", "instruction",
            _rx(r"(?i)(?P<x>(?:[a-z]+ ){0,2}(?:units|measurements|spelling|spellings|format|formatting|dates|times|prices|currency|bullet points|tables|headings|sources|links|citations|celsius|fahrenheit|metric|imperial|euros|dollars|pounds|british english|american english|24h|24-hour time|plain text|markdown)),? (?P<a>always|only|by default|every time)(?:,? please)?$"),
            lambda m: f"Always use {_g(m, 'x')}" if not _TASK_THING.search(_g(m, "x")) else None,
            "'metric units always please'", "Metric units always, please."),
    Pattern("instruction.when-i-ask", "instruction",
            _rx(rf"(?i)(?:whenever|every time|each time|any ?time|when|if ever) I (?P<c>(?:ask|want|need|send|share|paste|mention|say|write|type|request)\b[^,]{{2,80}}?),? (?P<x>(?:please )?(?:{_IMP}|don't|do not|never|always|remind|just)\b.{{2,200}})$"),
            _r_whenever_i, "'when I ask about homework, don't give me the answers' (no comma needed)",
            "When I ask about homework don't give me the answers."),
    Pattern("instruction.do-when-you", "instruction",
            _rx(rf"(?i)(?:please )?(?:always )?(?P<v>{_IMP}) (?P<x>.{{2,80}}?) (?:when|whenever|every time|each time) you (?P<c>\w+(?: \w+)?) (?:me|to me|for me|with me|my \w+)\b.{{0,40}}$"),
            lambda m: None if _TASK_THING.search(_g(m, "x")) else cap(for_assistant(body_of(m.group(0)))),
            "'use my first name when you greet me'", "Use my first name when you greet me."),
    Pattern("instruction.convention", "instruction",
            _rx(rf"(?i)(?:please )?(?:always )?(?:use|write|give me|show|put|do|stick to|go with) (?P<x>(?:[\w'-]+ ){{0,3}}{_CONVENTION})(?:,? (?P<y>[^;]{{2,40}}))?$"),
            _r_convention, "'use UK spelling', 'use 24-hour time', 'use British date format, day first'",
            "Use UK spelling."),
    Pattern("instruction.format-generic", "instruction",
            _rx(rf"(?i)(?:please )?(?:always )?(?P<v>{_IMP}|describe|convert|format|explain|present|lay out|break down|structure|number|round|spell out|write out) (?P<o>(?:your |all |any )?(?:[\w'-]+ ){{0,2}}[\w'-]+) (?P<c>(?:in|as|into|with|using|step by step|in detail|for me|to me|one at a time|at the (?:top|end|start)|first|last|without)\b.{{0,60}})$"),
            _r_generic_manner, "'write prices in euros', 'format recipes as a numbered list', 'describe images in detail for me'",
            "Format recipes as a numbered list."),
    Pattern("instruction.whenever-i-send", "instruction",
            _rx(rf"(?i)(?:whenever|every time|each time|any ?time|when|if) I (?P<c>(?:send|give|paste|share|show|forward|upload|ask for|ask you for)(?: you)? (?:an? |my |any |some )?[\w-]+(?: [\w-]+)?)\s*,?\s*(?P<x>(?:please )?(?:{_IMP}|convert|translate|summari[sz]e|check|scale)\b.{{2,100}})$"),
            _r_whenever_obj, "'whenever I send you a recipe, convert it to grams' ('it' points back at the clause)",
            "Whenever I send you a recipe, convert it to grams."),
    Pattern("instruction.presentation-style", "instruction",
            _rx(r"(?i)(?:please )?(?:always )?(?P<v>use|give me|write (?:with|in)|make|stick to) (?P<a>(?:large|larger|big|bigger|small|smaller|clear|clearer|bold|short|shorter|simple|simpler|plain|high[- ]contrast|dyslexia[- ]friendly|sans[- ]serif|numbered|descriptive|fewer|more) )(?P<o>headings|headers|fonts?|text|type|print|letters|buttons|spacing|line spacing|paragraphs|sentences|words|margins|sections|bullet points|lists|subheadings|titles)(?P<c> (?:in|for|on) (?:anything|everything|all|every|any|your) [^,;]{0,50})?" + _TAIL),
            lambda m: None if _TASK_THING.search(_g(m, "c")) else cap(for_assistant(f"{_g(m, 'v').lower()} {_g(m, 'a')} {_g(m, 'o').lower()}{' ' + _g(m, 'c') if _g(m, 'c') else ''}")),
            "'use large headings', 'use bigger fonts in anything you make for me' (a presentation style)",
            "Use large headings."),
)
