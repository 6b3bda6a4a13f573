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
   mentioned it but"), repeatedly;
4. **completed** when the subject was dropped ("just moved to Seattle" -> "I just moved to
   Seattle", "need to renew my passport by June" -> "I need to ..."), and a fronted time phrase
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


def normalize(sentence: str) -> str:
    """Chat spelling -> the spelling the pattern table expects (see the module docstring)."""
    s = sentence.replace("’", "'").replace("‘", "'").replace("´", "'").replace("`", "'")
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
    s = sentence.strip()
    if not s:
        return []
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
    r"to be honest|tbh|ngl|to be clear|for what it's worth|fwiw|besides|incidentally"
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


def strip_leadins(sentence: str) -> str:
    """The sentence without its leading interjections and discourse openers."""
    s = sentence.strip()
    for _ in range(6):
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


def complete(clause: str) -> str:
    """Restore a dropped subject, move a fronted time phrase to the end, 'my X and I' -> 'we'."""
    s = clause.strip()
    m = _TIME_FRONT_RE.match(s)
    if m:
        s = s[m.end() :] + " " + m.group("t")
    if _DROPPED_SUBJECT_RE.match(s):
        s = "I " + s
    elif _DROPPED_BE_RE.match(s):
        s = "I'm " + ("a " if s.lower().startswith(("huge", "big", "massive", "long", "fan")) else "") + s
    s = _WE_RE.sub("we", s)
    return s
