"""Chat-text normalization, clause splitting and lead-in handling for capture.

Real user turns are lowercase, unpunctuated, typo-laden and multi-clause ("im from brazil
originally but i live in lisbon now", "oh and btw my daughter's name is Ivy"). The pattern table
matches clean declarations anchored at the start, so before matching, a sentence is:

1. **normalized** (:func:`normalize`): curly apostrophes straightened, shouted text lowered,
   apostrophe-less contractions restored ("im" -> "I'm", "dont" -> "don't", "id rather" ->
   "I'd rather"), chat abbreviations expanded ("pls", "u", "ur", "rn", "bday" is kept), a short
   list of very common misspellings fixed, and a lone "i" capitalized;
2. **split into clauses** (:func:`clauses`) at ";", dashes, and before a coordinating word or
   comma that starts a new first-person clause (", I ...", " but my ...", " and we're ...",
   " so I ..."). "my wife and I" stays one subject. A sentence that opens with a subordinator
   ("if", "when", "unless", "once", "until", "in case", ...) is not split and its later clauses
   are never mined: "if I lived in Paris, I'd ..." declares nothing;
3. **stripped of lead-ins** (:func:`strip_leadins`): interjections and discourse openers
   ("oh and", "btw", "fyi", "ok so", "thanks!", "honestly", "for context,", "not sure if I
   mentioned it but"), repeatedly. A *fragment list* ("43, two kids, live in Leeds") is split
   at every comma instead (:func:`clauses_ex` flags its items: a bare number is then an age);
4. **completed** when the subject was dropped ("just moved to Seattle" -> "I just moved to
   Seattle", "need to renew my passport by June" -> "I need to ...") or a fragment has an
   implied "I" ("been vegan since 2019", "retired teacher", "huge jazz fan"), and a fronted time phrase
   is moved to the end ("every Monday I have band practice" -> "I have band practice every
   Monday"); "my wife and I" / "me and my wife" become "we".

The original sentence is always what is quoted in provenance; normalization only feeds the
matcher.
"""

from __future__ import annotations

import re

_CONTRACTIONS: dict[str, str] = {
    "im": "I'm", "ive": "I've", "dont": "don't", "cant": "can't", "doesnt": "doesn't",
    "didnt": "didn't", "isnt": "isn't", "wasnt": "wasn't", "arent": "aren't",
    "havent": "haven't", "wouldnt": "wouldn't", "shouldnt": "shouldn't", "couldnt": "couldn't",
    "wont": "won't", "thats": "that's", "whats": "what's", "theres": "there's",
    "youre": "you're", "theyre": "they're", "hes": "he's", "shes": "she's",
    "u": "you", "ur": "your", "pls": "please", "plz": "please", "pleas": "please",
    "rn": "right now", "tmrw": "tomorrow", "tmr": "tomorrow", "tomoz": "tomorrow",
    "bc": "because", "cuz": "because", "coz": "because", "cos": "because", "thx": "thanks",
    "ty": "thanks", "fav": "favorite", "fave": "favorite", "gonna": "going to", "wanna": "want to", "gotta": "have to", "kinda": "kind of",
    "sorta": "sort of", "yrs": "years", "yr": "year", "appt": "appointment",
    "convo": "conversation", "bf": "boyfriend", "gf": "girlfriend",
    "hubby": "husband", "wifey": "wife",
    # very common chat misspellings
    "teh": "the", "definately": "definitely", "definitly": "definitely",
    "defintely": "definitely", "alot": "a lot", "alergic": "allergic", "allergick": "allergic",
    "alergies": "allergies", "alergy": "allergy", "recieve": "receive", "untill": "until",
    "wierd": "weird", "beleive": "believe", "seperate": "separate", "tommorow": "tomorrow",
    "tomorow": "tomorrow", "vegeterian": "vegetarian", "vegitarian": "vegetarian",
    "prefere": "prefer", "favorit": "favorite", "favourit": "favourite", "birthdya": "birthday",
    "remmber": "remember", "rember": "remember", "remeber": "remember", "becuase": "because",
    "beacuse": "because", "realy": "really", "reallly": "really", "pleese": "please",
    "adress": "address", "emial": "email", "neice": "niece", "freind": "friend",
    "freinds": "friends", "wendesday": "wednesday", "wensday": "wednesday",
    "febuary": "february", "calender": "calendar", "docter": "doctor", "dentiste": "dentist",
}  # fmt: skip
_WORD_RE = re.compile(r"[A-Za-z]+")
#: "id" is "I'd" only before a verb that follows "I'd" in declarations.
_ID_RE = re.compile(r"\b[Ii]d (?=(?:rather|prefer|like|love|hate|say|never|always|much|really|be|want)\b)")
_LONE_I_RE = re.compile(r"(?<![\w'.-])i(?=(?:'[a-z]+)?(?![\w.-]))")


_EMOJI_RE = re.compile(
    "[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff\u200d\ufe0f\u20e3]+"
)


def normalize(sentence: str) -> str:
    """Chat spelling -> the spelling the pattern table expects (see the module docstring)."""
    s = sentence.replace("’", "'").replace("‘", "'").replace("´", "'").replace("`", "'")
    s = _EMOJI_RE.sub(" ", s)
    s = re.sub(r"\s+", " ", s).strip()
    letters = [c for c in s if c.isalpha()]
    if len(letters) >= 6 and all(c.isupper() for c in letters):
        s = s.lower()
    s = _ID_RE.sub("I'd ", s)

    def word(m: re.Match[str]) -> str:
        w = m.group(0)
        low = w.lower()
        rep = _CONTRACTIONS.get(low)
        if rep is None or rep == low:
            return w
        # "Im" / "IM" at any case; keep a capital on the first letter when the word had one
        return rep[:1].upper() + rep[1:] if w[:1].isupper() and not rep.startswith("I") else rep

    # only whole words not glued to an apostrophe ("can't" stays, "cant" is fixed)
    s = re.sub(r"(?<!['\w])[A-Za-z]+(?!['\w])", word, s)
    s = _LONE_I_RE.sub("I", s)
    s = re.sub(r"(?i)\bstay at home\b", "stay-at-home", s)
    s = re.sub(r"(?i)\b(love|like|hate|really|very|so)(?:,? \1\b)+", r"\1", s)  # "love, love, love"
    s = re.sub(r"\bI'M\b", "I'm", s)
    s = re.sub(r"(?i)\b(i|you|we|they)'(m|re|ve|ll|d)\b", lambda m: ("I" if m.group(1).lower() == "i" else m.group(1)) + "'" + m.group(2).lower(), s)
    return s


# ---------------------------------------------------------------------------------------------
# Clauses

_FIRST_PERSON = r"(?:I|I'm|I've|I'd|I'll|I am|I have|my|My|we|We|we're|We're|we've|We've|our|Our|me and my)"
_SPLIT_RE = re.compile(
    rf"\s*;\s*|\s+[-–—]+\s+|\s*,\s*(?={_FIRST_PERSON}\b)|\s*,\s*(?=(?:if|unless|as long as|in case|provided)\b)|"
    rf"(?:\s*,)?\s+(?:and|but|so|because|though|although|plus|and also|but also|and then|also)\s+"
    rf"(?=(?:{_FIRST_PERSON}|please|call me)\b)"
)
SUBORDINATOR_RE = re.compile(
    r"(?i)^(?:if|if only|even if|unless|once|until|till|in case|suppose|supposing|whether|"
    r"when|while|whilst|as soon as|as long as|although|though|before|after|since|say|assuming|"
    r"imagine|maybe|perhaps|hopefully)\b"
)


def clauses(sentence: str) -> list[str]:
    """The clauses of a normalized sentence body that may be mined, in order."""
    return [c for c, _ in clauses_ex(sentence)]


#: A fragment list: comma-separated verbless items without a subject ("43, two kids, live in
#: Leeds", "Gordon here, 68, retired engineer"). Its items are mined one by one.
_SUBJECT_START = re.compile(
    r"(?i)^(?:I|I'm|I've|I'd|I'll|me|my|we|we're|we've|our|you|your|it|it's|this|that|these|those|"
    r"the|he|she|they|there|here|what|how|why|who|when|where|if|please|can|could|would|do|does|is|are)\b"
)


def _fragment_items(s: str) -> list[str] | None:
    body = strip_leadins(s)
    items = [i.strip() for i in re.split(r"\s*,\s*", body) if i.strip()]
    if len(items) < 2 or any(len(i.split()) > 7 for i in items) or not _is_fragment(items[0]):
        return None
    if not any(_is_fragment(i) and not i.isdigit() for i in items):
        return None  # "3, 4, 5" is not a list of ages
    return items


def _is_fragment(item: str) -> bool:
    """Is ``item`` a verbless fragment with an implied "I" that :func:`complete` fills in?"""
    s = item.strip()
    if _SUBJECT_START.match(s):
        return False
    if re.fullmatch(r"\d{1,3}", s) or _NAME_HERE_RE.fullmatch(s) or _ROLE_HERE_RE.match(s):
        return True
    return bool(_DROPPED_SUBJECT_RE.match(s) or _DROPPED_BE_RE.match(s) or any(rx.match(s) for rx, _ in _FRAGMENT_COMPLETIONS))


def clauses_ex(sentence: str) -> list[tuple[str, bool]]:
    """The clauses of a normalized sentence body, each with a flag: is it a fragment-list item?"""
    s = sentence.strip()
    if not s:
        return []
    items = _fragment_items(s)
    if items is not None:
        return [(i, True) for i in items]
    return [(c, False) for c in _clauses(s)]


def _clauses(s: str) -> list[str]:
    if SUBORDINATOR_RE.match(strip_leadins(s)):
        return [s]  # only whole-sentence patterns ("whenever you ..., ...") may match
    parts = [p for p in _SPLIT_RE.split(s) if p and p.strip()]
    merged: list[str] = []
    for p in parts:
        p = p.strip().strip(",").strip()
        if not p:
            continue
        # "my wife and I live ..." was split before "I": join the subject back
        if merged and re.fullmatch(r"(?i)(?:my|our) [\w-]+(?: [\w-]+)?", merged[-1]) and re.match(r"I\b", p):
            merged[-1] = merged[-1] + " and " + p
            continue
        # "me and my husband run ..." was split before "my"
        if merged and merged[-1].lower() == "me" and re.match(r"(?i)my\b", p):
            merged[-1] = "me and " + p
            continue
        merged.append(p)
    out = []
    for i, p in enumerate(merged):
        if i > 0 and SUBORDINATOR_RE.match(p):
            break  # "I'd move there, if I could afford it": nothing after a subordinate clause
        out.append(p)
    return out


# ---------------------------------------------------------------------------------------------
# Lead-ins

#: Openers removed with or without punctuation after them ("btw I live ...", "oh and my ...").
_INTERJECTIONS = (
    r"also|and|but|oh|ooh|ah|ahh|aha|ok|okay|k|kk|so|hey|hi|hello|hiya|yo|yeah|yep|yup|um|umm|uh|"
    r"er|erm|hmm|hm|anyway|anyways|actually|honestly|basically|btw|fyi|ps|p\.s\.|just|"
    r"oh yeah|oh and|oh also|and also|and btw|also btw|oh btw|ok so|okay so|so yeah|yeah so|"
    r"anyway so|by the way|for the record|for context|for reference|for your info(?:rmation)?|"
    r"just fyi|also fyi|just so you know|just so you're aware|just to let you know|"
    r"as a heads up|heads up|a heads up|just a heads up|quick note|side note|one more thing|"
    r"another thing|random but|random question but|fun fact|not sure if I mentioned(?: it| this)?"
    r"(?: but)?|in case you didn't know|as I said|like I said|as I mentioned|as mentioned|"
    r"to be honest|tbh|ngl|to be clear|for what it's worth|fwiw|besides|incidentally|"
    r"lowkey|highkey|literally|fr|so basically|so anyway|(?:ok |okay )?long story(?: short)?(?: but)?(?: basically)?|"
    r"before I forget|the thing is|a couple of things|two things|a few things|quick background|"
    r"some background|a bit about me|about me|(?:just )?to give you (?:some |a bit of )?(?:background|context)|"
    r"good morning|good afternoon|good evening|morning|evening|hiya|hello there|hi there|dear"
)
#: Openers removed only when punctuation follows ("No, I ...", "Great! I ...", "Note: my ...").
_INTERJECTIONS_PUNCT = (
    r"no|nope|nah|yes|right|well|fine|good|sure|great|perfect|cool|nice|awesome|thanks|"
    r"thank you|thanks again|cheers|sorry|oops|wait|alright|all right|now|first|firstly|second|"
    r"secondly|lastly|finally|then|plus|otherwise|note|update|correction|quick update|"
    r"small correction|important|context|lol|haha|wow|excellent|brilliant|lovely|amazing|"
    r"got it|sounds good|ok great|okay great|great thanks|perfect thanks|thanks so much"
)
_LEADIN_RE = re.compile(
    rf"(?i)^(?:(?:{_INTERJECTIONS})(?:\s*[,:!.;\-–—]+\s*|\s+)|(?:{_INTERJECTIONS_PUNCT})\s*[,:!.;\-–—]+\s*)"
)
#: A bare opener that ends with a comma, at most three words, not a subordinate clause and with
#: no pronoun or verb of its own ("sadly,", "for the record,", "on a different note,").
_SHORT_OPENER_RE = re.compile(
    r"(?i)^(?P<o>[a-z]+ly|on (?:a|that|another) (?:\w+ )?note|in any case|in short|long story short|"
    r"for (?:what it's worth|the record|context|reference|background|clarity)|as background|"
    r"good to know|got it|noted|understood|makes sense|that's (?:great|perfect|helpful|fine|fair|good|right))"
    r"[,:!.]\s+"
)
_OPENER_BLOCK = re.compile(
    r"(?i)\b(?:I|I'm|me|my|we|our|you|your|he|she|they|it|if|when|whenever|unless|once|while|"
    r"because|since|until|after|before|as|say|let's|imagine|suppose|pretend|is|are|was|were|"
    r"said|says|told|in this|in the|in a|in my)\b"
)


#: A first-person frame around a first-person complement: "I've found that I really like ...".
_COMPLEMENT_RE = re.compile(
    r"(?i)^(?:I(?:'ve| have)? (?:found|realised|realized|discovered|learned|learnt|noticed|figured out) (?:that )?|"
    r"(?:after|before|since) \w+ing(?: [\w']+){0,3},? (?=I(?:'ve| have)? (?:found|realised|realized|discovered|learned|learnt|noticed|figured out)\b))(?=I\b)"
)


def strip_leadins(sentence: str) -> str:
    """The sentence without its leading interjections and discourse openers."""
    s = sentence.strip()
    for _ in range(6):
        m = _COMPLEMENT_RE.match(s)
        if m:
            s = s[m.end() :]
            continue
        m = _LEADIN_RE.match(s)
        if m and m.end() < len(s):
            s = s[m.end() :].lstrip()
            continue
        m = _SHORT_OPENER_RE.match(s)
        if m and not _OPENER_BLOCK.search(m.group("o")):
            s = s[m.end() :].lstrip()
            continue
        break
    return s


# ---------------------------------------------------------------------------------------------
# Subject completion and time fronting

_DROPPED_SUBJECT_RE = re.compile(
    r"(?i)^(?=(?:just |recently |finally |also |really |totally |absolutely |still )*"
    r"(?:moved|relocated|turned|started|need to|have to|got to|love|hate|adore|prefer|"
    r"can't stand|cannot stand|can't eat|don't eat|don't drink|don't like|grew up|"
    r"planning to|planning on|hoping to|going to)\b)"
)
_DROPPED_BE_RE = re.compile(r"(?i)^(?=(?:huge |big |massive |long-?time )?fan of\b|allergic to\b|not a fan of\b)")
_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_TIME_FRONT_RE = re.compile(
    rf"(?i)^(?P<t>(?:every|each|most|on|at|in the) (?:other )?(?:day|morning|evening|night|afternoon|"
    rf"week|weekend|weekday|month|year|{_DAYS})s?(?: (?:mornings?|evenings?|nights?|afternoons?))?"
    rf"(?: and {_DAYS})?),?\s+(?=(?:I|we)\b)"
)
_WE_RE = re.compile(r"(?i)^(?:(?:my|our) (?P<r>[\w-]+(?: [\w-]+)?) and I|me and my (?P<r2>[\w-]+))\b")


_NAME_HERE_RE = re.compile(r"(?!(?:Me|Mum|Mom|Dad|Nobody|Everyone|Someone|Nothing|Still|Just|Back|Right|Over|Out|Up)\b)[A-Z][a-z-]+(?: [A-Z][a-z-]+)? here")
_TIME_FRONT_BARE_RE = re.compile(rf"(?i)^(?P<t>weekends|weekdays|weeknights|{_DAYS}s),?\s+(?=(?:I|we)\b)")
#: Verbless fragments with an implied "I": what to put in front of them.
_FRAG_STATES = (
    r"(?:vegetarian|vegan|pescatarian|veggie|gluten[- ]free|dairy[- ]free|lactose[- ]intolerant|"
    r"(?:type [12] )?diabetic|coeliac|celiac|left[- ]handed|right[- ]handed|colou?r[- ]?blind|deaf|"
    r"dyslexic|autistic|epileptic|asthmatic|pregnant|sober|teetotal|married|single|divorced|widowed|"
    r"engaged|retired|unemployed|self[- ]employed|semi[- ]retired|immunocompromised|partially sighted|"
    r"hard of hearing|neurodivergent|disabled|kosher|halal)"
)
_FRAG_JOBS = (
    r"(?:engineer|developer|programmer|nurse|teacher|doctor|gp|surgeon|dentist|lawyer|solicitor|"
    r"accountant|designer|architect|student|researcher|scientist|professor|lecturer|manager|"
    r"consultant|writer|journalist|editor|photographer|artist|musician|chef|cook|baker|farmer|pilot|"
    r"driver|electrician|plumber|carpenter|mechanic|firefighter|paramedic|pharmacist|therapist|"
    r"psychologist|social worker|vet|translator|analyst|freelancer|contractor|librarian|barista|"
    r"bartender|civil servant|soldier|carer|caregiver|midwife|postman|postwoman|headteacher|"
    r"cleaner|builder|welder|mum|mom|dad|parent|grandmother|grandfather|retiree|pensioner|widow|widower)"
)
_FRAGMENT_COMPLETIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?i)^been\b"), "I've "),
    (re.compile(r"(?i)^(?:born|raised|brought up)\b"), "I was "),
    (re.compile(rf"(?i)^(?:(?:strictly|fully|mostly|also) )?{_FRAG_STATES}(?:$| (?:since|for|btw|too|and|but|so|as|like|now)\b.{{0,40}}$)"), "I'm "),
    (re.compile(rf"(?i)^(?:(?!(?:is|are|was|were|am|be|my|our|his|her|their|your|the|a|an|this|that|not|no|and|or|of|to)\b)[\w-]+ ){{1,3}}{_FRAG_JOBS}(?: (?:living|based|working) .{{2,60}})?$"), "I'm a "),
    (re.compile(r"(?i)^(?:a |an |one |two |three |four |five |six |\d+ )(?:[\w-]+ )?(?:kids?|child(?:ren)?|sons?|daughters?|"
                r"boys?|girls?|grandkids|grandchildren|dogs?|cats?|pets?|rabbits?|horses?)\b(?: .{0,40})?$"), "I have "),
    (re.compile(r"(?i)^(?:live (?:in|with|near|alone|on|outside|just)|suffer from|commute)\b"), "I "),
    (re.compile(r"(?i)^(?:huge|big|massive|lifelong|die-hard) [\w-]+ (?:fan|lover|nerd|geek)\b"), "I'm a "),
    (re.compile(r"(?i)^(?:(?:really |just |absolutely )?(?:can't get enough of|can not get enough of)|(?:really )?obsessed with|"
                r"(?:lowkey |highkey )?obsessed with|(?:a )?(?:huge|big|massive) [\w-]+ fan|(?:really )?not (?:a |really a |much of a )?(?:big |huge )?fan of|"
                r"not (?:really |that )?(?:into|keen on|big on|fond of))\b"), "I'm "),
    (re.compile(r"(?i)^never (?:really )?been (?:a |much of a )?(?:big |huge )?fan of\b"), "I've "),
    # negative fandom and parent appositives
    (re.compile(r"(?i)^(?:really |just |honestly |totally |so )?not (?:really |that |too |at all )?(?:into|keen on|big on|fond of|a fan of)\b"), "I'm "),
    (re.compile(r"(?i)^(?:really |honestly )?not (?:much of an?|really an?|a big|a huge|an?) [\w-]+ (?:person|fan|drinker|eater|reader|cook|gamer|dancer|talker|traveller|traveler|swimmer|runner|watcher|lover)\b|^(?:really |honestly )?not much of an? [\w-]+"), "I'm "),
    (re.compile(r"(?i)^never (?:really )?been (?:into|keen on|big on|fond of|a [\w-]+ (?:person|fan))\b"), "I've "),
    (re.compile(r"(?i)^(?:(?:single|working|stay-at-home|proud|busy|new|first-time|full-time|solo) )*(?:mum|mom|mother|dad|father|parent) (?:of|to) \w+"), "I'm a "),
)
#: "Big Formula 1 fan here", "streamer here": a role or a fandom with "here".
_ROLE_HERE_RE = re.compile(r"(?i)^(?P<x>(?:[\w.-]+ ){0,3}(?:fan|lover|nerd|geek|supporter)|[a-z-]{3,}(?:er|or|ist|ian|ant|ent)) here$")


#: Bare verbs that are imperatives in a whole sentence ("use metric") but have an implied "I" as
#: items of a fragment list ("43, two kids, work in IT").
_FRAGMENT_ONLY_RE = re.compile(r"(?i)^(?:work|study|teach|speak|own|drive|use|go to|run|have)\b")


def complete(clause: str, *, fragment: bool = False) -> str:
    """Restore a dropped subject, move a fronted time phrase to the end, 'my X and I' -> 'we'.

    ``fragment``: the clause is an item of a fragment list ("43, two kids, live in Leeds"), so a
    bare number is an age ("I'm 43").
    """
    s = clause.strip()
    m = _TIME_FRONT_RE.match(s)
    if m:
        s = s[m.end() :] + " " + m.group("t")
    else:
        m = _TIME_FRONT_BARE_RE.match(s)
        if m:
            s = s[m.end() :] + " on " + m.group("t")
    if _DROPPED_SUBJECT_RE.match(s):
        s = "I " + s
    elif _DROPPED_BE_RE.match(s):
        s = "I'm " + ("a " if s.lower().startswith(("huge", "big", "massive", "long", "fan")) else "") + s
    elif fragment and re.fullmatch(r"\d{1,3}", s):
        s = "I'm " + s
    elif _NAME_HERE_RE.fullmatch(s):
        s = "I'm " + s[: -len(" here")]
    elif _ROLE_HERE_RE.match(s):
        s = "I'm a " + _ROLE_HERE_RE.match(s).group("x")  # type: ignore[union-attr]
    elif fragment and _FRAGMENT_ONLY_RE.match(s):
        s = "I " + s
    elif not _SUBJECT_START.match(s):
        for rx, head in _FRAGMENT_COMPLETIONS:
            if rx.match(s):
                s = head + s
                break
    # "my eldest, Ruby, is 9" / "my sister-in-law, who's a midwife, is called Naomi"
    s = re.sub(r"^((?i:my|our) [\w-]+(?: [\w-]+)?), ([A-Z][a-z'-]+), ", r"\1 \2 ", s)
    s = re.sub(r"^((?i:my|our) [\w-]+(?: [\w-]+)?), (?i:who|who's|who is|whose|which)\b[^,]{2,80}, ", r"\1 ", s)
    s = _WE_RE.sub("we", s)
    return s
