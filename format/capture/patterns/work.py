"""Facts of work and study: jobs, employers, schools, livelihoods and careers."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _g, _rx, _simple, _strong_evidence
from mem.format.capture.patterns.guards import body_of
from mem.format.capture.patterns.lexicon import (
    _HAB_OBJ_BLOCK,
    _HOBBY_VERBS,
    _IDIOM_POSS,
    _JOBS,
    _LANGS,
    _MOMENT,
    _SINCE,
    _TAIL,
    _TASK_THING,
    _WHEN_PAST,
)
from mem.format.capture.patterns.rewrite import _rest_pronouns, third_singular, user_clause

#: Role nouns that describe the user (family roles, life situations), besides jobs.
_ROLES = (
    r"(?:mom|mum|dad|mother|father|parent|grandmother|grandfather|grandma|grandpa|granny|"
    r"homeowner|renter|tenant|carer|caregiver|volunteer|veteran|expat|immigrant|widow|widower|"
    r"student|pupil|apprentice|trainee|dev|programmer|coder|medic|nurse|doctor|gp|vet|"
    r"freelancer|contractor|consultant|retiree|pensioner|small business owner|business owner|"
    r"shop owner|landlord|landlady|twin|only child|first-time (?:mom|mum|dad|parent)|new (?:mom|mum|dad|parent))"
)
_AGENTIVE = re.compile(r"(?i)^[a-z]{3,}(?:er|or|ist|ian|eer|ant|ent|man|woman|person|wright|smith)$")
#: Agentive nouns that name a trait or a taste, not an occupation ("a worrier", "a dog lover").
_NOT_OCCUPATIONS = {
    "lover", "fan", "believer", "sucker", "worrier", "loser", "winner", "beginner", "learner",
    "eater", "sleeper", "napper", "procrastinator", "overthinker", "thinker", "talker", "dreamer",
    "perfectionist", "optimist", "pessimist", "realist", "introvert", "extrovert", "member",
    "user", "owner", "person", "other", "brother", "sister", "mother", "father", "daughter",
    "partner", "customer", "client", "patient", "passenger", "visitor", "stranger", "foreigner",
    "tourist", "newcomer", "outsider", "insider", "fighter", "survivor", "warrior", "hater",
    "cheater", "liar", "joker", "gamer", "player", "reader", "writer", "follower", "leader",
    "gardener", "baker", "cook", "runner", "walker", "swimmer", "climber", "hiker", "biker",
    "drinker", "smoker", "snorer", "texter", "caller", "sender", "viewer", "listener", "watcher",
    "collector", "supporter", "subscriber", "donor", "voter", "fanatic", "enthusiast", "addict",
    "moment", "component", "student", "parent", "assistant", "agent", "resident", "citizen",
    "number", "center", "centre", "monster", "disaster", "character", "nightmare",
    "idiot", "genius", "legend", "expert", "master", "pro", "amateur", "novice", "veteran",
    "human", "woman", "man", "gentleman", "snowman", "superman", "batman", "fireman",
}  # fmt: skip
#: Modifiers that make "I'm a <noun>" hyperbole or a joke, not an occupation.
_HYPERBOLE = re.compile(
    r"(?i)\b(?:world[- ]class|professional|total|complete|huge|big|massive|serial|chronic|"
    r"habitual|certified|self-proclaimed|proper|absolute|real|true|natural|born|bit of|bit|"
    r"little|kind of|sort of|such|terrible|awful|bad|good|great|lousy|horrible|wannabe)\b"
)


def _r_job_noun(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    words = re.sub(r"(?i)\b(?:at|for|in|on|with|from|by)\b.*$", "", x).split()
    if not words:
        return None
    head = words[-1].lower().rstrip("s") if words[-1].lower() not in ("physics", "maths") else words[-1].lower()
    known = re.fullmatch(rf"(?i){_JOBS}|{_ROLES}", head) or re.search(rf"(?i)\b(?:{_JOBS}|{_ROLES})$", " ".join(words))
    if not known and (head in _NOT_OCCUPATIONS or not _AGENTIVE.match(head) or _HYPERBOLE.search(" ".join(words))):
        return None
    article = _g(m, "art")
    return f"User is {article} {_rest_pronouns(x, for_assistant=False)}"


def _r_works_in(m: re.Match[str]) -> str | None:
    p, x = _g(m, "p").lower(), _g(m, "x")
    if re.match(r"(?i)(?:it|this|that|my own pace|a (?:minute|second|bit|while|moment)|the moment|progress|peace|silence|pairs?|teams|bursts|sprints|the (?:morning|evening|night)s?|hours|least|home office)\b", x):
        return None
    if p == "in" and re.match(r"(?i)(?:the (?:morning|afternoon|evening)|a (?:team|group)|an? (?:hour|minute))", x):
        return None
    return f"User works {p} {_rest_pronouns(x, for_assistant=False)}".replace("works as ", "works as ")


def _r_started(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if not re.match(r"[A-Z0-9]|(?i:the [A-Z]|a new job|a job|an? (?:\w+ ){0,2}(?:company|startup|firm|school|hospital|bank|agency))", x):
        return None
    return f"User {_g(m, 'v').lower()} {_g(m, 'p').lower()} {_rest_pronouns(x, for_assistant=False)}".replace("  ", " ")


def _r_duration(m: re.Match[str]) -> str | None:
    v = _g(m, "v").lower()
    if re.match(r"(?:waiting|trying|thinking|meaning|wanting|looking|asking|hoping|dying|struggling|putting|"
                r"saying|telling|worrying|coughing|feeling|going|doing|getting|having|wondering|planning)$", v):
        return None
    return user_clause(body_of(m.group(0)))


def _r_past_job(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if re.match(r"(?i)(?:at|in) (?:school|primary school|secondary school|junior school|uni|university|college|sixth form)\b", _g(m, "d")):
        return None  # "I was a chorister at school": a past state of childhood (section 1a)
    words = x.split()
    head = words[-1].lower().rstrip("s") if words else ""
    if re.match(r"(?i)(?:vegetarian|vegan|pescatarian|smoker|drinker|member|fan|kid|child|baby|teen|student)$", head):
        return None
    known = re.search(rf"(?i)\b(?:{_JOBS}|{_ROLES}|headmistress|headmaster|headteacher|postman|postwoman|miner|"
                      r"seamstress|nurse|midwife|clerk|secretary|typist|policeman|policewoman|fireman)$", x)
    if not known and (head in _NOT_OCCUPATIONS or not _AGENTIVE.match(head) or _HYPERBOLE.search(x)):
        return None
    return f"User was {_g(m, 'art')} {x} {_g(m, 'd')}".strip()


def _r_verb_job(m: re.Match[str]) -> str | None:
    """The job-verb family needs the same evidence as the habitual one, except for the
    livelihood verbs of _HOBBY_VERBS with a noun object ("I teach piano", "I own two alpacas")."""
    v, x = _g(m, "v"), _g(m, "x")
    head = v.split()[0].lower()
    if re.match(r"(?i)(?:by|with|into|over|through|for it|on empty|to|the show|the risk|a mile|a tight|rings|circles|riot|amok|wild|dry|low|high|short|deep)\b", x):
        return None  # "I lead by example", "I run with it", "I run rings round them"
    if x and (_IDIOM_POSS.match(x) or _MOMENT.search(x) or _TASK_THING.search(x)):
        return None
    rest = m.group(0)[m.end("v"):]
    if not (head in _HOBBY_VERBS or " " in v or head in ("founded", "co-founded", "co-own")) and not _strong_evidence(x, "", rest):
        return None
    return f"User {' '.join([third_singular(head), *v.split()[1:]])} {_rest_pronouns(x, for_assistant=False)}"


_PAST_BIO_VERB = re.compile(
    r"(?i)^(?:[a-z]+ed|drove|ran|taught|sold|built|flew|rode|sang|fought|wrote|kept|led|grew|dug|spun|sewed|"
    r"swam|drew|held|bred|fed|made|did|spent|was)$"
)


def _r_past_bio(m: re.Match[str]) -> str | None:
    v = _g(m, "v")
    if not _PAST_BIO_VERB.match(v) or v.lower() in ("used", "tried", "wanted", "needed", "hated", "loved", "liked",
                                                    "enjoyed", "waited", "lived", "worked", "stayed", "seemed", "looked"):
        return None
    x = _g(m, "x")
    if x and (_HAB_OBJ_BLOCK.match(x) or _TASK_THING.search(x)):
        return None
    return f"User {v.lower()} {_rest_pronouns(x, for_assistant=False) + ' ' if x else ''}{_g(m, 'd')}".strip()


def _r_the_role(m: re.Match[str]) -> str | None:
    r, y = _g(m, "r"), _g(m, "y")
    head = r.split()[-1].lower()
    if _HYPERBOLE.search(r) or re.search(r"(?i)\b(?:best|worst|only|last|first|biggest|designated|unofficial|resident)\b", r):
        return None
    if _TASK_THING.search(y) or _MOMENT.search(y) or re.search(r"(?i)\b(?:party|wedding|event|meeting|game|match|trip|night|dinner|house|family|group chat|day)\b", y):
        return None
    if not re.search(rf"(?i)\b(?:{_JOBS}|{_ROLES})$", r) and (head in _NOT_OCCUPATIONS or not _AGENTIVE.match(head)):
        return None
    return f"User is the {r.lower()} {_g(m, 'p').lower()} {_rest_pronouns(y, for_assistant=False)}"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("fact.works-as", "fact",
            _rx(r"(?i)i(?:'m| am)? (?:currently )?(?:work|working) as (?P<x>an? [^,;]{2,60})" + _TAIL),
            _simple("User works as {x}"), "'I work as a ...'", "I work as a nurse."),
    Pattern("fact.job", "fact",
            _rx(rf"(?i)i(?:'m| am) (?P<x>an? (?:[\w-]+ ){{0,3}}{_JOBS}(?: (?:at|for|in|on|with|from|speciali[sz]ing in|based (?:in|at)|working (?:in|at|for)) [^,;]{{2,60}})?)" + _TAIL),
            _simple("User is {x}"), "'I'm a <job>' (a closed list of jobs)", "I'm a software engineer."),
    Pattern("fact.studies", "fact",
            _rx(r"(?i)i(?:'m| am)? (?:study|studying) (?P<x>[^,;]{2,60}?) (?P<p>at|in) (?P<y>(?:the )?[A-Z][^,;]{1,60})" + _TAIL),
            _simple("User studies {x} {p} {y}"), "'I study <subject> at <School>'",
            "I study computer science at McGill."),
    Pattern("fact.works-at", "fact",
            _rx(r"(?i)i(?:'m| am)? (?:currently )?(?:work|working)(?: full[- ]time| part[- ]time| remotely)? (?P<p>at|for) (?!it\b|this\b|that\b|hours\b|a while\b|now\b|the moment\b|least\b|my own\b|a (?:steady|slow|fast|good) pace\b|night\b|home\b)(?P<x>[^,;]{2,60}?)(?: now| these days| currently| nowadays)?" + _TAIL),
            _simple("User works {p} {x}"), "'I work at/for ...'", "I work at Acme Corp."),
    Pattern("fact.employed", "fact",
            _rx(r"(?i)I(?:'m| am) (?:currently |now |also )?(?:employed|working|a (?:\w+ )?contractor|contracting) (?P<p>at|by|for|with) (?P<x>[^;]{2,60}?)" + _TAIL),
            lambda m: None if re.match(r"(?i)(?:it|this|that|the moment|home)\b", _g(m, "x")) else f"User is employed {_g(m, 'p').lower()} {_g(m, 'x')}",
            "'I'm employed at ...'", "I'm employed at Deloitte."),
    Pattern("fact.works-in", "fact",
            _rx(r"(?i)I (?:currently |mainly |mostly |still |now |also |actually )?work(?: (?:[\w-]+ ){0,3}?(?:shifts?|nights|days|weekends|hours|hour days|hour weeks))?(?: full[- ]time| part[- ]time| remotely| freelance)? (?P<p>as|at|for|in|from home|remotely|with)(?P<x>(?: [^;]{2,80}?)?)" + _TAIL),
            _r_works_in, "'I work in HR', 'I work night shifts at the hospital', 'I work remotely for ...'",
            "I work in HR."),
    Pattern("fact.started", "fact",
            _rx(r"(?i)I(?:'ve)? (?:just |recently |finally )?(?P<v>started|joined|got a job|landed a job|started a new job|started working|began working|got hired) (?P<p>at|with|for|)(?P<x> ?[^;]{2,60}?)(?: as (?:an? )?[^,;]{2,40})?(?: (?:last|this|in) \w+)?" + _TAIL),
            _r_started, "'I just started at Stripe', 'I joined Google as ...'", "I just started at Stripe."),
    Pattern("fact.job-noun", "fact",
            _rx(r"(?i)I(?:'m| am) (?:also |now |currently |actually |just )?(?P<art>an?) (?P<x>(?:[\w-]+ ){0,4}?[\w-]+(?: of (?:\d+|one|two|three|four|five|six|twins))?(?: (?:at|for|in|with|from) [^,;]{2,60}?)?)(?: by (?:training|trade|profession|day))?" + _TAIL),
            _r_job_noun, "'I'm a <noun>' where the noun is a job or role (lexicon or -er/-ist/-ian... with exclusions)",
            "I'm a welder."),
    Pattern("fact.verb-job", "fact",
            _rx(r"(?i)I (?:also )?(?P<v>teach|run|own|manage|lead|coach|head|co-own|founded|co-founded|freelance as|volunteer at|volunteer as|volunteer for) (?P<x>(?!it\b|this\b|that\b|late\b|out\b|away\b|around\b|every\b|daily\b|fast\b|slow\b)[^;]{2,80}?)" + _TAIL),
            lambda m: _r_verb_job(m),
            "'I teach piano', 'I run a small bakery', 'I manage a team of 12' (evidence needed outside the livelihood verbs)", "I teach piano."),
    Pattern("fact.studying", "fact",
            _rx(r"(?i)I(?:'m| am)? (?:currently |also )?(?:studying|doing (?:a|an|my) (?:phd|masters?|master's|degree|bachelor'?s?|ba|bsc|msc|ma|mba|doctorate|diploma|apprenticeship)(?: degree)?|(?:a )?(?:phd|masters|master's) (?:student|candidate)) (?:in |of |on )?(?P<x>[^;]{2,80}?)" + _TAIL),
            lambda m: None if re.match(r"(?i)(?:it|this|that|for|hard|the (?:docs|code|text|file))\b", _g(m, "x")) else user_clause(body_of(m.group(0))),
            "'I'm studying law at Edinburgh', 'I'm doing a PhD in ...'", "I'm doing a PhD in marine biology."),
    Pattern("fact.learning", "fact",
            _rx(rf"(?i)I(?:'m| am) (?:currently |also |slowly )?learning (?:to (?P<v>play|speak) )?(?:the )?(?P<x>{_LANGS}|piano|guitar|violin|cello|drums|bass|ukulele|saxophone|flute|trumpet|to code|coding|programming|python|javascript|rust|to drive|to swim|to cook|to sew|to knit|sign language)" + _TAIL),
            lambda m: f"User is learning {((_g(m, 'v') + ' ') if _g(m, 'v') else '') + _g(m, 'x')}", "'I'm learning Japanese'",
            "I'm learning Japanese."),
    Pattern("fact.duration", "fact",
            _rx(rf"(?i)I(?:'ve| have) (?:been (?P<v>[a-z]+ing)|(?P<w>lived|worked|taught|studied|played|coded|driven|practised|practiced|been))(?P<x>(?: [^;]{{1,50}}?)?){_SINCE}(?: (?:now|so far))?" + _TAIL),
            _r_duration, "'I've been coding for about 12 years', 'I've lived in Montreal for 15 years'",
            "I've lived in Montreal for 15 years."),
    Pattern("fact.past-job", "fact",
            _rx(r"(?i)I (?:was|used to be|worked as) (?P<art>an?) (?P<x>(?:[\w-]+ ){0,3}[\w-]+) (?P<d>for (?:\d+|[a-z]+|over \w+|nearly \w+|almost \w+) (?:years|decades)|until (?:I retired|\d{4}|[\w ]{2,20})|before I retired|all my (?:life|career|working life)|in the (?:army|navy|\w+ force)|(?:at|for) [A-Z][^,;]{1,40})" + _TAIL),
            _r_past_job, "'I was a headmistress for thirty years' (a past job, in the past tense)",
            "I was a headmistress for thirty years."),
    Pattern("fact.school", "fact",
            _rx(r"(?i)I(?: go to| attend|'m at| am at) (?P<x>(?:[A-Z][\w'-]+ ){1,3}(?:High|School|College|University|Uni|Academy|Primary|Grammar|Secondary|Polytechnic|Institute|Form|Comprehensive|Seminary|Conservatoire)\b(?: [A-Z][\w'-]+)?)" + _TAIL),
            lambda m: f"User goes to {_g(m, 'x')}", "'I go to Westfield High'", "I go to Westfield High."),
    Pattern("fact.school-year", "fact",
            _rx(r"(?i)I(?:'m| am) (?:now |currently )?in (?P<x>(?:year|grade|form) \d{1,2}|(?:my )?(?:first|second|third|fourth|final|last) year (?:of|at) [^,;]{2,40}|sixth form|high school|secondary school|middle school|med school|law school|grad school)" + _TAIL),
            lambda m: f"User is in {_rest_pronouns(_g(m, 'x'), for_assistant=False)}", "'I'm in year 11', 'I'm in my final year of uni'",
            "I'm in year 11."),
    Pattern("fact.plays-for", "fact",
            _rx(r"(?i)I (?P<v>play|sing|drum) (?P<x>[^,;]{2,40}?) (?P<p>for|in|with) (?P<y>(?:my|an?|the|our) (?:[\w-]+ ){0,3}(?:team|club|band|orchestra|choir|league|side|squad|group|ensemble|quartet))" + _TAIL),
            lambda m: f"User {third_singular(_g(m, 'v').lower())} {_g(m, 'x')} {_g(m, 'p').lower()} {_rest_pronouns(_g(m, 'y'), for_assistant=False)}",
            "'I play centre back for my school football team'", "I play centre back for my school team."),
    Pattern("fact.runs-project", "fact",
            _rx(r"(?i)(?:I|we) (?:also )?(?P<v>maintain|run|own|manage|co-own|co-run|founded|started|look after|care for) (?P<x>(?:a|an|my|our|the) (?:[\w&'-]+ ){0,4}(?:library|project|package|app|website|blog|channel|podcast|newsletter|business|company|startup|shop|charity|team|school|clinic|practice|b&b|bakery|cafe|restaurant|pub|farm|garage|salon|studio|mother|father|mum|dad|parents?|grandparents?|son|daughter)(?: (?:called|named) [\w'-]+)?(?: (?:in|on|near|for) [^,;]{2,40})?)" + _TAIL),
            lambda m: f"User {third_singular(_g(m, 'v').split()[0]) + (' ' + ' '.join(_g(m, 'v').split()[1:]) if ' ' in _g(m, 'v') else '')} {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I maintain an open source library called tinyjson', 'we run a B&B in Cornwall'",
            "I maintain an open source library called tinyjson."),
    Pattern("fact.job-living-in", "fact",
            _rx(r"(?i)I(?:'m| am) (?:also |now |currently )?(?P<art>an?) (?P<x>(?:[\w-]+ ){0,4}?[\w-]+) (?P<t>(?:living|based|working) (?:in|near|at|for|outside|from) [^,;]{2,60}?|with (?:two|three|four|five|\d+|a|an) [^,;]{2,40}?|by (?:training|trade|profession|day))" + _TAIL),
            lambda m: _r_job_noun(m) and f"{_r_job_noun(m)} {_g(m, 't')}", "'I'm a retired engineer living in Aberdeen'",
            "I'm a retired engineer living in Aberdeen."),
    Pattern("fact.works-like", "fact",
            _rx(rf"(?i)I(?:'m| am)? (?:work|working) (?:as|like) (?:an? )?(?P<x>(?:[\w-]+ ){{0,2}}{_JOBS}(?: (?:in|at|for) [^;]{{2,60}}?)?)" + _TAIL),
            lambda m: f"User works as {_g(m, 'x')}", "'I am working like nurse in hospital' (a job from the lexicon)",
            "I am working like nurse in hospital in Dublin."),
    Pattern("fact.organisation-role", "fact",
            _rx(r"(?i)I(?:'m| am) (?:also |now )?(?P<art>an?) (?P<x>(?:[\w-]+ ){1,2}(?:leader|reader|governor|trustee|volunteer|member|steward|warden|deacon|elder|treasurer|chair|chairman|chairwoman|chairperson|secretary|captain|organiser|organizer|coordinator|ambassador|mentor|marshal|referee|umpire|magistrate|councillor|councilor|officer|ranger|special constable|first aider|lifeguard)(?: (?:at|for|in|of|with) [^,;]{2,50})?)" + _TAIL),
            lambda m: None if re.match(r"(?i)(?:slow|fast|big|avid|voracious|keen|speed|good|bad|poor|quick|heavy|light|mind|lip|natural|born|great|terrible|awful|huge|massive|proud|long-?time|paid-up|card-carrying|new)\b", _g(m, "x")) else f"User is {_g(m, 'art')} {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I'm a lay reader at my local church', 'I'm a Scout leader'", "I'm a Scout leader."),
    Pattern("fact.on-a-programme", "fact",
            _rx(r"(?i)I(?:'m| am) (?:currently |now )?(?:on|doing) (?P<x>(?:a|an|my) (?:year abroad|gap year|placement year|year in industry|exchange(?: year| programme| program)?|sabbatical|career break|apprenticeship|work placement|study abroad year|semester abroad|working holiday)(?: (?:in|at|with) [^,;]{2,40})?|my (?:a[- ]levels|gcses|highers|ib|leaving cert|finals|apprenticeship|nvq|btec))" + _TAIL),
            lambda m: f"User is on {_rest_pronouns(_g(m, 'x'), for_assistant=False)}" if not re.match(r"(?i)my (?:a|g|h|i|l|f|n|b)", _g(m, "x")) or "apprenticeship" in _g(m, "x").lower() else f"User is doing {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I'm on a year abroad in Seoul', 'I'm doing my A levels'", "I'm on a year abroad in Seoul."),
    Pattern("fact.works-shifts", "fact",
            _rx(r"(?i)I (?:mostly |usually |mainly |only |still )?work (?P<x>nights|night shifts|days|day shifts|shifts|rotating shifts|lates|earlies|weekends|part[- ]time|full[- ]time|two jobs|flexible hours|(?:twelve|12|ten|10|long)[- ]hour (?:shifts|days)|nine to five|9 to 5|(?:\w+ )?days a week)" + _TAIL),
            lambda m: f"User works {_g(m, 'x')}", "'I work nights', 'I work shifts'", "I work nights."),
    Pattern("fact.had-for-span", "fact",
            _rx(r"(?i)I(?:'ve| have) (?P<v>had|run|owned|kept|managed|farmed|bred|coached|taught|played|driven|sung|volunteered|fostered|rented) (?P<x>[^;,]{2,50}?) (?P<d>for (?:about |over |almost |nearly |more than )?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|forty|many|several) (?:years|decades)|since (?:\d{4}|I was \w+|the \d0s))" + _TAIL),
            lambda m: None if _TASK_THING.search(_g(m, "x")) or re.match(r"(?i)(?:a|an|this|that|the) (?:cold|headache|cough|bug|flu|problem|issue|feeling|question)\b", _g(m, "x")) else f"User has {_g(m, 'v').lower()} {_rest_pronouns(_g(m, 'x'), for_assistant=False)} {_g(m, 'd')}",
            "'I've had my own cleaning business for eight years'", "I've had my own cleaning business for eight years."),
    Pattern("fact.past-biography", "fact",
            _rx(r"(?i)I (?P<v>[a-z]+) (?P<x>(?:[^;,]{2,50}?) )?(?P<d>for (?:about |over |almost |nearly |more than )?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|forty|fifty|many|several) (?:years|decades)(?: (?:before|until) I retired)?|until I retired|before I retired|all my (?:working )?life)" + _TAIL),
            _r_past_bio, "'I drove buses for 30 years before I retired', 'I served in the navy for 22 years'",
            "I served in the navy for 22 years."),
    Pattern("fact.the-role-of", "fact",
            _rx(r"(?i)I(?:'m| am) (?:also |now |currently )?the (?P<r>(?:[\w-]+ ){0,2}[\w-]+) (?P<p>of|at) (?P<y>[^,;]{2,60}?)" + _TAIL),
            _r_the_role, "'I'm the vicar of three rural parishes', 'I'm the head chef at a hotel' (a definite role)",
            "I'm the vicar of three rural parishes."),
    Pattern("fact.retired-when", "fact",
            _rx(rf"(?i)I (?:finally |officially |took early )?retired(?: early)?(?: from (?P<f>(?:the )?[^,;]{{2,40}}?))? (?P<w>{_WHEN_PAST}|last year|at (?:\d{{2}}|sixty|fifty|seventy)[\w-]*)" + _TAIL),
            lambda m: f"User retired{(' from ' + _rest_pronouns(_g(m, 'f'), for_assistant=False)) if _g(m, 'f') else ''} {_g(m, 'w')}",
            "'I retired from the Met in 2019'", "I retired from the Met in 2019."),
)
