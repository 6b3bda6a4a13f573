"""Facts of health and diet: stable states, conditions, allergies, medication and aids."""

from __future__ import annotations

import re

from mem.format.capture.patterns.common import Pattern, _g, _rx, _simple
from mem.format.capture.patterns.guards import body_of
from mem.format.capture.patterns.lexicon import (
    _CONDITIONS,
    _DISCOURSE,
    _MOMENT,
    _NOT_ALLERGENS,
    _SINCE,
    _STATES,
    _TAIL,
    _TASK_THING,
)
from mem.format.capture.patterns.rewrite import _rest_pronouns, third_singular, user_clause

_TRAILING_FILLER = re.compile(
    r"(?i)(?:\s+(?:honestly|tbh|really|though|anyway|apparently|seriously|literally|i swear|i think|lol|haha|ngl|for real|fr))+$"
)


def _r_allergy(m: re.Match[str]) -> str | None:
    x = _TRAILING_FILLER.sub("", _g(m, "x"))
    if x.lower() in _NOT_ALLERGENS or _DISCOURSE.match(x):
        return None
    return f"User is allergic to {_rest_pronouns(x, for_assistant=False)}"


_NEG_MAP = {"don't": "doesn't", "do not": "does not", "can't": "can't", "cannot": "cannot",
            "never": "never"}  # fmt: skip


def _r_neg_habit(m: re.Match[str]) -> str | None:
    neg = _g(m, "v").lower()
    w = _g(m, "w").lower()
    verb = third_singular(w) if neg == "never" else w
    x = _g(m, "x")
    return f"User {_NEG_MAP[neg]} {verb}{(' ' + x) if x else ''}"


#: Medical conditions: a lexicon plus the headwords and suffixes that name one ("...itis",
#: "... disease", "... syndrome"); temporary complaints (a headache, a cold) are not in it.
_CONDITION_WORDS = (
    r"(?:(?:mild|severe|chronic|bad|early[- ]onset|type [12]|stage \d|rheumatoid|osteo|seasonal|"
    r"sleep|generali[sz]ed|social|postnatal|post-natal|high|low|an? (?:\w+ )?) ?){0,3}"
    r"(?:[a-z]+itis|[a-z]+osis|[a-z]+a?emia|apno?ea|diabetes|asthma|eczema|psoriasis|migraines?|"
    r"epilepsy|adhd|add|autism|dyslexia|dyspraxia|dyscalculia|tinnitus|vertigo|hay ?fever|cancer|"
    r"insomnia|glaucoma|cataracts?|scoliosis|fibromyalgia|hypothyroidism|hyperthyroidism|"
    r"endometriosis|pcos|copd|ms|ibs|gerd|acid reflux|reflux|gout|lupus|crohn'?s(?: disease)?|"
    r"celiac|coeliac|[\w'-]+ disease|[\w'-]+ syndrome|[\w'-]+ disorder|[\w'-]+ deficiency|"
    r"heart condition|blood pressure|cholesterol|bad back|bad knee|heart murmur|long covid|"
    r"anxiety|depression|ptsd|ocd|bipolar(?: disorder)?|panic attacks|cold sores|nosebleeds|"
    r"seasickness|motion sickness|pacemaker|stoma|prosthetic \w+|allerg(?:y|ies)|intolerance)"
    r"(?: in (?:my|both) [\w ]{2,20}?)?"
)


def _r_condition_diagnosed(m: re.Match[str]) -> str | None:
    v = re.sub(r"\s+", " ", _g(m, "v").lower())
    verb = {"have": "has", "'ve got": "has", "have got": "has", "got": "has", "live with": "lives with",
            "suffer from": "suffers from", "was diagnosed with": "was diagnosed with",
            "'ve been diagnosed with": "has been diagnosed with", "have been diagnosed with": "has been diagnosed with",
            "get": "gets", "struggle with": "struggles with"}.get(v.strip(), "has")  # fmt: skip
    x = _g(m, "x")
    if re.match(r"(?i)(?:a |an )?(?:headache|cold|flu|fever|bug|hangover|cough|sore throat)\b", x):
        return None
    return f"User {verb} {_rest_pronouns(x, for_assistant=False)}"


def _r_med_history(m: re.Match[str]) -> str | None:
    return f"User has had {_rest_pronouns(_g(m, 'x'), for_assistant=False)}"


#: Heads that name a condition by their shape ("...ia", "...ism", "...itis", "... palsy"), an
#: eponym ("Parkinson's"), or an abbreviation in capitals ("MS", "POTS").
_COND_SHAPE = re.compile(
    r"(?:(?i:[a-z]+(?:ia|ism|itis|osis|oma|pathy|plegia|algia|trophy|aemia|emia|iasis|ema|itus))|"
    r"(?i:(?:[\w-]+ ){1,2}(?:degeneration|disease|failure|deficiency|insufficiency|syndrome|disorder|dystrophy))|"
    r"(?i:(?:[\w-]+ ){0,2}(?:palsy|fatigue|loss|impairment|injury|pain|cell|stammer|stutter|lisp|tics?|tremor|limp|"
    r"murmur|implant|pacemaker|stent|shunt|stoma|catheter|prosthetic [\w]+|condition|disability|difference|neuropathy|scoliosis|deformity|spina bifida|"
    r"down'?s syndrome|cystic fibrosis|sickle cell|celiac|coeliac|hernia|ulcers?|stones?|cysts?|fibroids)(?: in (?:my|both|one) [\w ]{2,20})?)|"
    r"[A-Z][a-z]+'s(?: disease)?|[A-Z]{2,5}(?: [12])?)$"
)
_NOT_CONDITION = re.compile(
    r"(?i)^(?:an? )?(?:headache|cold|flu|fever|bug|hangover|cough|sore throat|meeting|question|idea|feeling|problem|"
    r"appointment|date|plan|lot|bit|few|point|chance|choice|clue|minute|moment|second|sec|break|day|job|car|house|"
    r"dog|cat|kid|son|daughter|life|way|media|pizzeria|criteria|trivia|militia|PR|PRs|PDF|TV|PC|CV|DM|DMs|ID|API|MBA|PhD)\b"
)


def _r_condition_shaped(m: re.Match[str]) -> str | None:
    v, x = re.sub(r"\s+", " ", _g(m, "v").lower()), _g(m, "x")
    if _NOT_CONDITION.match(x) or _TASK_THING.search(x) or re.match(r"(?i)(?:my|your|his|her|their|the|this|that|it|some|no)\b", x):
        return None
    core = re.sub(r"(?i)^(?:an? |mild |severe |chronic |bad |early[- ]onset |type [12] |stage \d |congenital |"
                  r"diagnosed |functional |hereditary |genetic |progressive |bilateral |partial |permanent )+", "", x)
    durable = v in ("live with", "was diagnosed with", "'ve been diagnosed with", "have been diagnosed with", "was born with") or bool(_g(m, "since"))
    if not durable and not _COND_SHAPE.match(core):
        return None
    verb = {"live with": "lives with", "was diagnosed with": "was diagnosed with", "was born with": "was born with",
            "'ve been diagnosed with": "has been diagnosed with", "have been diagnosed with": "has been diagnosed with",
            "'ve had": "has had", "have had": "has had"}.get(v, "has")  # fmt: skip
    return f"User {verb} {x}{(' ' + _g(m, 'since')) if _g(m, 'since') else ''}"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("fact.state", "fact",
            _rx(rf"(?i)i(?:'m| am) (?:(?:a|an|strictly|strict|severely|very|fully|also|now) )*(?P<x>{_STATES})" + _TAIL),
            _simple("User is {x}"), "'I'm vegetarian/diabetic/left-handed/married...' (a closed list)",
            "I'm vegetarian."),
    Pattern("fact.allergy", "fact",
            _rx(r"(?i)i(?:'m| am) (?:(?:very|severely|mildly|deathly|highly|extremely|also|slightly) )?allergic to (?P<x>[^,;]{2,60})" + _TAIL),
            _r_allergy, "'I'm allergic to ...'", "I'm allergic to peanuts."),
    Pattern("fact.allergy-have", "fact",
            _rx(r"(?i)i have (?:a |an )?(?:severe |mild |bad |serious )?(?P<x>[\w -]{2,30}?) (?P<t>allergy|allergies|intolerance|sensitivity)" + _TAIL),
            _simple("User has a {x} {t}"), "'I have a <X> allergy/intolerance'", "I have a peanut allergy."),
    Pattern("fact.condition", "fact",
            _rx(rf"(?i)i have (?P<x>{_CONDITIONS})" + _TAIL),
            _simple("User has {x}"), "'I have <condition>' (a closed list)", "I have celiac disease."),
    Pattern("fact.dont-eat", "fact",
            _rx(r"(?i)i (?P<v>don't|do not|can't|cannot|never) (?P<w>eat|drink|drive|smoke|fly|drink|eat any)(?P<x>(?: [^,;]{2,40})?)" + _TAIL),
            _r_neg_habit, "'I don't eat/drink/drive ...'", "I don't eat pork."),
    Pattern("fact.state-extended", "fact",
            _rx(rf"(?i)I(?:'m| am|'ve been| have been) (?:(?:a|an|strictly|strict|severely|very|fully|also|now|pretty|mostly|totally|completely|100%|officially|happily|recently|newly) )*(?P<x>{_STATES}|veggie|plant[- ]based|gluten[- ]free|dairy[- ]free|nut[- ]free|sugar[- ]free|self[- ]employed|left handed|right handed|type [12] diabetic|pre-?diabetic|colou?r ?blind|hard of hearing|a wheelchair user|in a wheelchair|married(?: with (?:\w+ )?(?:kids|children))?|a single (?:mom|mum|dad|parent)|pregnant(?: with (?:twins|my \w+ (?:child|baby)))?|sober(?: for [\w ]{{2,20}})?)" + _TAIL),
            _simple("User is {x}"), "'I'm gluten-free', 'I'm self employed', 'I've been sober for two years'",
            "I'm gluten-free."),
    Pattern("fact.diet", "fact",
            _rx(r"(?i)I(?:'m| am) (?:on|following|doing) (?:a |an |the )?(?P<x>(?:[\w-]+ ){0,3}(?:diet|fodmap|keto|paleo|meal plan|fast|medication|meds|insulin|blood thinners|antidepressants|statins|chemo(?:therapy)?|dialysis|hrt|the pill)(?: for [^,;]{2,40})?)" + _TAIL),
            _simple("User is on {x}"), "'I'm on a low sodium diet', 'I'm on blood thinners'", "I'm on a low sodium diet."),
    Pattern("fact.take-med", "fact",
            _rx(r"(?i)I (?:take|use|need) (?P<x>(?:[\w-]+ ){0,2}(?:medication|meds|pills|insulin|thinners|antidepressants|statins|an inhaler|inhalers|an epipen|epipens|hearing aids|a cpap|birth control|thyroid medication|vitamins|supplements)(?: for [^,;]{2,40})?)(?: (?:every|each|daily|twice|once)[^,;]*)?" + _TAIL),
            _simple("User takes {x}"), "'I take blood thinners'", "I take blood thinners."),
    Pattern("fact.wear", "fact",
            _rx(r"(?i)I (?:wear|have|use) (?P<x>(?:a )?(?:hearing aids?|glasses|contacts|contact lenses|a pacemaker|dentures|braces|a brace|a (?:back|knee|neck|wrist|ankle|leg) brace|a splint|compression stockings|an eye patch|a cpap mask|a prosthetic [\w]+|a cochlear implant|an insulin pump))" + _TAIL),
            _simple("User wears {x}"), "'I wear hearing aids'", "I wear hearing aids."),
    Pattern("fact.avoid", "fact",
            _rx(r"(?i)I (?:(?:strictly|completely|try to|have to|always|also) )?(?P<v>avoid|keep|can't have|cannot have|can't eat|cannot eat|can't drink|can't tolerate|don't do|stay away from|cut out|gave up) (?P<x>(?!it\b|this\b|that\b|you\b|them\b|him\b|her\b|people\b|traffic\b|drama\b)[^,;]{2,60}?)" + _TAIL),
            lambda m: None if _g(m, "v").lower() == "keep" and not re.match(r"(?i)(?:kosher|halal|vegan|vegetarian|a (?:kosher|halal|vegan|vegetarian|gluten-free) (?:kitchen|diet|home))$", _g(m, "x")) else f"User {third_singular(_g(m, 'v').split()[0]) + (' ' + ' '.join(_g(m, 'v').split()[1:]) if len(_g(m, 'v').split()) > 1 else '')} {_g(m, 'x')}",
            "'I avoid sugar', 'I keep kosher', 'I can't have dairy'", "I keep kosher."),
    Pattern("fact.condition-diagnosed", "fact",
            _rx(rf"(?i)(?:I|we)(?P<v> have| 've got|'ve got| have got| got| live with| suffer from| was diagnosed with|'ve been diagnosed with| have been diagnosed with| get| struggle with) (?:(?:also|really|quite|pretty|bad|severe) )?(?P<x>(?:an? )?{_CONDITION_WORDS}(?: (?:last|this) year| in \d{{4}}| (?:\w+ )?years ago| as a (?:child|kid|teenager|baby))?){_SINCE}?" + _TAIL),
            _r_condition_diagnosed, "'I've got coeliac disease', 'I suffer from migraines', 'I was diagnosed with ...'",
            "I suffer from migraines."),
    Pattern("fact.get-sick", "fact",
            _rx(r"(?i)I (?:also |always |usually |easily )?get (?P<x>(?:really |very |quite |badly )?(?:seasick|carsick|airsick|travel ?sick|motion sick|sunburnt|sunburned|migraines|hay fever|cold sores|panic attacks|nosebleeds|headaches|heartburn|cramps)(?: (?:easily|when [^,;]{2,40}|if [^,;]{2,40}|on [^,;]{2,30}|in [^,;]{2,30}))?)" + _TAIL),
            lambda m: f"User gets {_g(m, 'x')}", "'I get seasick easily', 'I get migraines when it's humid'",
            "I get seasick easily."),
    Pattern("fact.med-history", "fact",
            _rx(r"(?i)I(?:'ve| have)? had (?P<x>(?:a|an|two|three|four|\d+|my) (?:[\w-]+ ){0,2}(?:replacement|transplant|bypass|strokes?|heart attacks?|mastectomy|hysterectomy|c-section|caesarean|vasectomy|amputation|concussions?|miscarriages?|surgery|operation|breakdown|seizures?|cancer|chemo)(?: (?:on|in) (?:my |both )?[\w ]{2,20}?)?(?: (?:in|back in) (?:\d{4}|[\w ]{2,20}?)| (?:\w+ )?years ago| last year)?)" + _TAIL),
            _r_med_history, "'I had a hip replacement in 2021', 'I've had two heart attacks'",
            "I had a hip replacement in 2021."),
    Pattern("fact.state-household", "fact",
            _rx(rf"(?i)(?P<s>I(?:'m| am)|we(?:'re| are)|I(?:'ve| have) been|we(?:'ve| have) been) (?:(?:a|an|strictly|all|both|also|now|mostly|pretty much|fully|registered|severely|profoundly) )*(?P<x>{_STATES}|immunocompromised|immunosuppressed|partially sighted|registered blind|blind|disabled|housebound|neurodivergent|insulin[- ]dependent|a wheelchair user|widow|widower|a widow|a widower|single (?:mum|mom|dad|parent)|an only child|a twin|teetotal|tee-total|hard of hearing(?: in (?:my|one|both) [\w ]{{2,20}})?|deaf in (?:my|one) [\w ]{{2,20}})(?P<t> as a family| too| as well| like my \w+)?{_SINCE}?" + _TAIL),
            lambda m: user_clause(re.sub(r"(?i)^we(?:'re| are)", "we are", body_of(m.group(0)).split(",")[0])) if False else f"User {'and family are' if _g(m, 's').lower().startswith('we') else ('has been' if 'been' in _g(m, 's').lower() else 'is')} {_g(m, 'x')}{(' ' + _g(m, 't')) if _g(m, 't') and 'like' not in _g(m, 't') else ''}",
            "'I'm immunocompromised', 'We're vegetarian as a family', 'I've been a widow since 2015'",
            "I'm immunocompromised."),
    Pattern("fact.on-medication", "fact",
            _rx(r"(?i)I(?:'m| am) (?:on|taking) (?P<x>(?!(?:line|time|fire|board|holiday|route|site|hold|track|leave|call|duty|shift|break|mute|speaker|phone|one|tone|course|tape|vacation|paternity|maternity|offline|online|deadline|machine|medicine)\b)(?-i:[a-z]{3,}(?:formin|statin|pril|sartan|olol|azepam|oxetine|xetine|pine|zole|cillin|mycin|cycline|done|mide|tide|lin|ine|ide|one|ate|ol|ium|ex|ax))(?: \d+ ?(?:mg|mcg|g|ml))?)(?: (?P<f>(?:once|twice|three times) a day|daily|every (?:day|morning|night|evening)|for [^,;]{2,40}))?" + _TAIL),
            lambda m: f"User is on {_g(m, 'x')}{(' ' + _g(m, 'f')) if _g(m, 'f') else ''}",
            "'I'm on metformin twice a day'", "I'm on metformin twice a day."),
    Pattern("fact.aid", "fact",
            _rx(r"(?i)I (?:use|need|rely on|have|'ve got) (?P<x>an? (?:walking frame|walking stick|stick|cane|wheelchair|mobility scooter|rollator|cpap(?: machine)?|hearing aid|hearing loop|insulin pump|stairlift|guide dog|oxygen tank|oxygen concentrator|colostomy bag|stoma|cochlear implant|screen reader|white cane|hoist|back brace|knee brace|neck brace|splint|crutches)(?: (?:machine|at night))?)(?: (?:these days|now|to get around|at night|for [\w ]{2,20}|outside(?: the house)?|outdoors|indoors|at home|at work|most days|full[- ]time|when I go out))?" + _TAIL),
            lambda m: f"User uses {_g(m, 'x')}", "'I use a walking frame these days'", "I use a walking frame these days."),
    Pattern("fact.cant-take", "fact",
            _rx(r"(?i)I (?:can't|cannot|can not) (?P<v>take|do|have|tolerate|digest|process) (?P<x>(?!it\b|this\b|that\b|the\b|much\b|more\b|any ?more\b|criticism\b|jokes?\b|a joke\b|no\b|sides\b|any of\b|all of\b|everything\b|things\b|stuff\b|people\b|anything\b|this\b|mornings?\b|it anymore\b|you\b|them\b|him\b|her\b|a hint\b)[\w -]{3,40}?)(?: at all| anymore)?" + _TAIL),
            lambda m: f"User can't {_g(m, 'v').lower()} {_g(m, 'x')}", "'I can't take ibuprofen', 'I can't do dairy at all'",
            "I can't take ibuprofen."),
    Pattern("fact.condition-shaped", "fact",
            _rx(r"(?i)I(?P<v> have| 've got|'ve got| have got| live with| was diagnosed with|'ve been diagnosed with| have been diagnosed with| was born with|'ve had| have had) (?:(?:also|really|quite|pretty) )?(?P<x>(?!a few\b)[\w' -]{2,40}?)(?: fitted| implanted| put in)?(?P<since> (?:since|for) (?:\d{4}|I was (?:a )?\w+|(?:about |over |almost |nearly |more than )?(?:\d+|a|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|many|several|a few) (?:years|decades)|childhood|birth|school|uni|(?:my|the) [\w ]{2,20}))?" + _TAIL),
            _r_condition_shaped, "'I have Parkinson's', 'I have cerebral palsy', 'I live with <X>', 'I've had <X> since ...' (a condition by its shape)",
            "I have Parkinson's."),
    Pattern("fact.medical-event", "fact",
            _rx(r"(?i)I(?:'ve| have)? had (?P<x>(?:a|an|two|three|\d+|my) (?:[\w-]+ ){0,2}(?:stroke|heart attack|tia|mini-stroke|bypass|transplant|replacement|seizure|breakdown|amputation|mastectomy|hysterectomy|cancer|brain injury|head injury|spinal injury)s?) (?P<t>(?:last|this|in|back in|about|around|two|three|a few|\d+)\b[\w ]{1,25}?)" + _TAIL),
            lambda m: None if _MOMENT.search(_g(m, "t")) else f"User had {_g(m, 'x')} {_g(m, 't')}",
            "'I had a stroke last spring'", "I had a stroke last spring."),
    Pattern("fact.state-phrase", "fact",
            _rx(r"(?i)I(?:'m| am) (?:also |now |currently )?(?P<x>(?:\w+ (?:weeks|months) )pregnant(?: with (?:twins|my \w+ (?:child|baby)))?|on the (?:autism|autistic) spectrum|(?:a )?(?:lefty|leftie|southpaw|left-hander)|(?:trans|transgender|bi|bisexual|gay|lesbian|queer|asexual|ace|pan|pansexual|intersex)(?: (?:man|woman|guy|girl))?|dyspraxic|dyscalculic|anaemic|anemic|arthritic|bipolar|diabetic|hypermobile|immunocompromised|partially (?:deaf|sighted|blind)|deaf in (?:my|one|both) \w+|registered (?:blind|disabled|deaf)|profoundly deaf|a (?:type [12] )?diabetic|in my (?:early|mid|late) (?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties|[2-9]0s))" + _TAIL),
            lambda m: f"User is {_g(m, 'x')}", "'I'm 30 weeks pregnant', 'I'm on the autism spectrum', 'I'm a lefty', 'I'm in my late sixties'",
            "I'm on the autism spectrum."),
    Pattern("fact.on-waiting-list", "fact",
            _rx(r"(?i)I(?:'m| am|'ve been| have been) (?:now |still )?on (?P<x>the (?:[\w-]+ ){0,2}(?:waiting list|transplant list|list|register)(?: for (?:an? )?[\w -]{2,40}?)?)(?: (?:at|with) [^,;]{2,40})?" + _TAIL),
            lambda m: None if not re.search(r"(?i)\b(?:transplant|waiting|donor|organ|shielding|housing|council|disability|sight|deaf|blind|carers?|surgery|operation|hip|knee|adoption|fostering)\b", _g(m, "x")) else f"User is on {_rest_pronouns(_g(m, 'x'), for_assistant=False)}",
            "'I'm on the waiting list for a kidney transplant', 'I'm on the housing register'",
            "I'm on the waiting list for a kidney transplant."),
)
