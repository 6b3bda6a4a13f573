"""The capture pattern table: anchored declarations -> (kind, clean memory text).

Zero-LLM extraction. A user turn is split into sentences; a sentence is considered only if it
passes the guards (not a question, not inside quotes, not reported speech, no sarcasm marker, not
code, not in a role-play/hypothetical turn), then an optional lead-in ("btw", "also", "fyi", ...)
is removed and the *first* pattern that matches the whole rest of the sentence wins. Every
pattern is anchored at the start of the sentence, so "don't worry about it" or "I'll always
forget that" can never become an instruction.

Each pattern has an id, a kind and a confidence: its precision measured on the corpora in
``tests/capture/data`` (``bench/capture_precision.py`` prints the measurement; a test pins these
numbers to it). Memory text style: third person, starting with "User" for facts, preferences,
contacts and events ("User prefers tea over coffee", "User's sister is Ana"); an imperative for
instructions ("Never call the user Sammy"); "Remind the user to ..." for action items. No
trailing full stop. The original sentence is kept separately (provenance ``quote``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------------
# Vocabulary

IMP_VERBS = (
    "use|reply|respond|answer|write|call|address|include|add|format|show|send|cc|bcc|schedule|"
    "book|ask|check|double-check|confirm|suggest|recommend|give|put|start|end|sign|refer|speak|"
    "talk|translate|remind|wake|text|email|spell|round|assume|list|keep|make|explain|summarize|"
    "summarise|leave|share|contact|order|pick|tell|avoid|skip|mention|cite|link|convert|quote|"
    "notify|alert|warn|label|tag|file|save|copy|forward|default|set|prioritize|prioritise|"
    "limit|greet|respond|draft|reserve|offer|sort|measure|show|display|mark|describe|bring up|"
    "let me know|express|express|present|give|reply|post|publish|read|play|order"
)
_IMP = rf"(?:{IMP_VERBS})"
_IMP_ING = (
    r"(?:calling|using|sending|suggesting|recommending|adding|putting|asking|mentioning|including|"
    r"booking|scheduling|writing|formatting|apologi[sz]ing|saying|cc'?ing|texting|emailing|"
    r"waking|giving|starting|ending|signing|addressing|sharing|replying|responding|answering)"
)
_RELATIONS = (
    r"(?:best |close |oldest |old |younger |older |little |big |baby |twin |eldest |youngest )?"
    r"(?:wife|husband|partner|spouse|girlfriend|boyfriend|fianc[ée]e?|fiance|fiancee|mom|mum|"
    r"mother|dad|father|sister|brother|son|daughter|grandma|grandmother|grandpa|grandfather|"
    r"aunt|uncle|cousin|niece|nephew|friend|roommate|flatmate|neighbou?r|boss|manager|"
    r"supervisor|colleague|co-?worker|assistant|dentist|doctor|gp|therapist|lawyer|attorney|"
    r"accountant|landlord|landlady|trainer|coach|tutor|mentor|vet|babysitter|nanny|"
    r"(?:sister|brother|mother|father|son|daughter)-in-law|step(?:mom|mum|dad|mother|father|"
    r"sister|brother|son|daughter)|pediatrician|paediatrician|physio|physiotherapist|"
    r"hairdresser|barber|plumber|mechanic|financial advisor|advisor|adviser)"
)
_PETS = r"(?:dogs?|cats?|pupp(?:y|ies)|kittens?|parrots?|birds?|rabbits?|hamsters?|horses?|fish|turtles?|snakes?|geckos?|guinea pigs?)"
_KIDS = (
    r"(?:kids?|child(?:ren)?|sons?|daughters?|siblings?|brothers?|sisters?|twins|grandkids|"
    r"grandchildren|grandsons?|granddaughters?|step(?:sons?|daughters?)|baby|toddler|teenagers?)"
)
_JOBS = (
    r"(?:engineer|developer|programmer|nurse|teacher|doctor|physician|surgeon|dentist|lawyer|"
    r"attorney|accountant|designer|architect|student|researcher|scientist|professor|lecturer|"
    r"manager|consultant|writer|journalist|editor|photographer|artist|musician|chef|cook|baker|"
    r"farmer|pilot|driver|electrician|plumber|carpenter|mechanic|firefighter|police officer|"
    r"paramedic|pharmacist|therapist|psychologist|social worker|vet|veterinarian|translator|"
    r"analyst|data scientist|founder|co-founder|entrepreneur|freelancer|contractor|librarian|"
    r"cashier|barista|waiter|waitress|bartender|salesperson|realtor|recruiter|economist|intern|"
    r"retiree|stay-at-home (?:mom|dad|parent)|homemaker|civil servant|soldier|nanny|caregiver|"
    r"coach|trainer|tutor|midwife|optometrist|physiotherapist|paralegal|banker|trader|actor|"
    r"actress|dancer|illustrator|animator|sysadmin|devops engineer|product owner|ux designer|"
    r"copywriter|marketer|teaching assistant|postdoc|phd candidate|undergrad|grad student)"
)
_STATES = (
    r"(?:vegetarian|vegan|pescatarian|lactose[- ]intolerant|gluten[- ]intolerant|diabetic|"
    r"celiac|coeliac|left-handed|right-handed|colou?r-?blind|deaf|hard of hearing|blind|dyslexic|"
    r"autistic|epileptic|asthmatic|pregnant|sober|teetotal|kosher|halal|married|single|"
    r"divorced|widowed|engaged|retired|unemployed|self-employed|a night owl|an early bird|"
    r"an introvert|an extrovert|transgender|nonbinary|non-binary|hearing impaired|"
    r"visually impaired|in recovery|a smoker|a non-smoker|a morning person|not a morning person)"
)
_CONDITIONS = (
    r"(?:celiac disease|coeliac disease|diabetes|type [12] diabetes|asthma|epilepsy|adhd|"
    r"dyslexia|a heart condition|high blood pressure|migraines|ibs|crohn'?s(?: disease)?|lupus|"
    r"arthritis|tinnitus|a pacemaker|hearing aids|a bad back|a bad knee|long covid|"
    r"sleep apnea|anxiety|depression|ptsd|ocd|hypertension)"
)
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAYS = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?"
_DATE_RE = re.compile(
    rf"(?i)\b(?:{_MONTHS}|{_DAYS}|tomorrow|tonight|today|weekend|next \w+|this (?:week|weekend|"
    rf"month|year|evening|afternoon|morning)|end of (?:the )?\w+|\d{{1,4}}(?:st|nd|rd|th)?|"
    rf"noon|midnight|every \w+|in \d+ \w+)\b"
)

NAME = (
    r"(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s)?[A-Z][\w'’-]*"
    r"(?:\s(?:[A-Z][\w'’-]*|[A-Z]\.|de|van|von|da|del|le|la|bin|al))*)"
)
_NOT_NAMES = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "tomorrow",
    "today", "tonight", "later", "back", "maybe", "asap", "he", "she", "it", "this", "that",
    "there", "they", "we", "you", "i", "no", "not", "yes", "ok", "okay", "soon", "now",
}  # fmt: skip
_NOT_ALLERGENS = {
    "mondays", "monday", "mornings", "work", "hard work", "homework", "exercise", "effort",
    "school", "meetings", "people", "stupidity", "nonsense", "bs", "drama", "commitment",
    "responsibility", "math", "maths", "cleaning", "chores", "running", "early mornings",
    "small talk", "deadlines", "taxes", "paperwork", "you", "this", "that", "it", "everything",
}  # fmt: skip
#: Objects of like/love/hate/prefer that point back at the conversation, not at a taste.
_DISCOURSE = re.compile(
    r"(?i)^(?:it|this|that|these|those|them|him|her|you|your|yours|how|what|when|where|which|"
    r"who|why|so|too|either|neither|both|one|option|version|to (?:think|believe|say|know|see|hear)"
    r"|the (?:new|last|first|second|third|other|previous|above|latter|former|idea|way|tone|"
    r"answer|response|reply|version|option|design|format|formatting|layout|wording|plan|"
    r"suggestion|draft|result|change|changes|edit|update|one|rest|original|current|latest)\b)\b"
)
_TASK_LOCAL = re.compile(
    r"(?i)\b(?:this|that|these|those|here|above|below|today|tonight|now|for now|right now|"
    r"it|the (?:file|document|draft|report|essay|email|message|paragraph|answer|list|table|"
    r"code|script|text|post|article|slides?))\b"
)

LEADIN_RE = re.compile(
    r"(?i)^(?:(?:also|and|oh,? and|oh,? also|btw|by the way|fyi|just fyi|just so you know|"
    r"for the record|for context|for reference|for your info(?:rmation)?|actually|honestly|"
    r"ok(?:ay)?|so|hi|hey|hello|well|one more thing|quick note|heads up|just a heads up|"
    r"p\.?s\.?|oh and also)\s*(?:[,:!.;\-–—]+\s*|\s+))+"
)

# ---------------------------------------------------------------------------------------------
# Sentence guards


_QUESTION_END = re.compile(r"\?[\s\"'”’)\]]*$")
_QUOTE_START = re.compile(r"^[\"'“”‘’«»]")
_REPORTED = re.compile(
    r"(?i)\b(?:said|says|say|told|tells|asked|asks|wrote|writes|replied|yelled|shouted|goes|"
    r"go like|quote|quoting|opens with|lyrics|tweeted|posted|texted me)\b"
)
_SARCASM = re.compile(
    r"(?i)(?:\b(?:lol|lmao|lmfao|rofl|haha+|hehe+|jk|yeah right|obviously|totally|as if|not!|"
    r"sure thing|oh great|great, just great|what a joy|so much fun|yay)\b|/s\b|[🙄😒😂🤣😏🙃])"
)
_CODE = re.compile(r"[=;{}<>`|\\]|\(\)|^\s*[$#>]|\b\w+_\w+\s*[=:(]|^\s*(?:def|class|import|from)\s")
_FRAME = re.compile(
    r"(?i)\b(?:role-?play(?:ing)?|let'?s pretend|pretend (?:that |you|i|we)|imagine (?:that |you|"
    r"i|we)|hypothetical(?:ly)?|in (?:this|the|a|my) (?:story|game|novel|scenario|script|scene)|"
    r"for this (?:exercise|example|story|game|test)|let'?s say|suppose|supposing|what if|"
    r"as an example|for example|e\.g\.)"
)
_STRAIGHT_QUOTES = re.compile(r"[\"“”«»]")


def sentence_guard(sentence: str) -> str | None:
    """Why a sentence must not be mined (a short reason), or None when it may be."""
    s = sentence.strip()
    if not s:
        return "empty"
    if len(s) > 300:
        return "too long"
    if _QUESTION_END.search(s):
        return "question"
    if _QUOTE_START.match(s):
        return "quoted"
    if _STRAIGHT_QUOTES.search(s) and _REPORTED.search(s):
        return "reported speech"
    if _SARCASM.search(s):
        return "sarcasm marker"
    if _CODE.search(s):
        return "code"
    return None


def turn_guard(text: str) -> str | None:
    """Why a whole user turn must not be mined (role-play, hypotheticals), or None."""
    if _FRAME.search(text):
        return "hypothetical or role-play frame"
    return None


# ---------------------------------------------------------------------------------------------
# Sentences

_ABBREV = {
    "dr", "mr", "mrs", "ms", "mx", "prof", "st", "jr", "sr", "vs", "etc", "no", "approx",
    "e.g", "i.e", "inc", "ltd", "co", "corp", "ave", "mt", "ft", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "a.m", "p.m", "u.s", "u.k",
}  # fmt: skip
_SPLIT_RE = re.compile(r"[.!?]+[\"'”’)\]]*\s+")
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def split_sentences(text: str) -> list[tuple[str, bool]]:
    """Sentences of a turn, each with a flag: does it start inside a quotation?"""
    out: list[tuple[str, bool]] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = _BULLET_RE.sub("", line).strip()
        if not line:
            continue
        start = 0
        pieces: list[str] = []
        for m in _SPLIT_RE.finditer(line):
            before = line[start : m.start()]
            last = before.rsplit(None, 1)[-1] if before.split() else ""
            word = last.lower().rstrip(".")
            if word in _ABBREV or (len(last) == 1 and last.isupper()):
                continue
            pieces.append(line[start : m.end()].strip())
            start = m.end()
        if start < len(line):
            pieces.append(line[start:].strip())
        depth = 0
        for p in pieces:
            inside = depth % 2 == 1
            out.append((p, inside))
            depth += len(re.findall(r"[\"]", p)) + len(re.findall(r"[“”«»]", p))
    return out


def strip_leadin(sentence: str) -> str:
    s = LEADIN_RE.sub("", sentence.strip(), count=1)
    return s


def body_of(sentence: str) -> str:
    """The sentence without its final punctuation and surrounding space."""
    return re.sub(r"[\s.!;,:…]+$", "", sentence.strip())


# ---------------------------------------------------------------------------------------------
# Rewriting first person to third person

_MODALS = {
    "can", "can't", "cannot", "could", "couldn't", "will", "won't", "would", "wouldn't",
    "should", "shouldn't", "must", "mustn't", "may", "might", "shall", "need", "ought",
    "used", "was", "were", "had", "did", "didn't", "wasn't", "weren't", "hadn't",
}  # fmt: skip
_PAST = {
    "went", "got", "made", "bought", "left", "took", "met", "began", "grew", "saw", "came",
    "became", "said", "told", "found", "lost", "ran", "wrote", "broke", "fell", "felt", "kept",
    "sold", "spent", "sent", "built", "paid", "read", "won", "drove", "flew", "gave", "knew",
    "thought", "brought", "caught", "taught", "chose", "forgot", "quit", "put", "set", "let",
}  # fmt: skip
_ADVERBS = {
    "just", "really", "usually", "always", "never", "also", "only", "still", "often",
    "generally", "rarely", "sometimes", "mostly", "actually", "recently", "currently",
    "absolutely", "definitely", "much", "strongly", "genuinely", "truly", "normally", "finally",
    "now", "already", "typically", "seriously", "honestly", "mainly", "primarily", "even",
}  # fmt: skip
_IRREG = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is", "don't": "doesn't"}


def third_singular(verb: str) -> str:
    """'like' -> 'likes', 'go' -> 'goes', 'try' -> 'tries'; modals and past forms unchanged."""
    low = verb.lower()
    if low in _IRREG:
        return _IRREG[low]
    if low in _MODALS or low in _PAST or low.endswith("ed") or not low.isalpha():
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_HEAD_RE = re.compile(
    r"(?i)^(?:(?P<cont>i'm|i am|i've|i have|i'll|i will|i'd|i would|i was)|(?P<i>i)|"
    r"(?P<poss>my|our)|(?P<we>we're|we are|we've|we have|we))\b\s*"
)
_CONT = {
    "i'm": "is", "i am": "is", "i've": "has", "i have": "has", "i'll": "will", "i will": "will",
    "i'd": "would", "i would": "would", "i was": "was",
}  # fmt: skip
_WE = {"we're": "is", "we are": "is", "we've": "has", "we have": "has"}


def _rest_pronouns(text: str, *, for_assistant: bool) -> str:
    """First-person pronouns after the head: 'my' -> 'their' (or "the user's"), 'me' -> ..."""
    if for_assistant:
        table = {"my": "the user's", "me": "the user", "myself": "the user", "mine": "the user's",
                 "i'm": "the user is", "i am": "the user is", "i've": "the user has",
                 "i": "\x00", "our": "the user's", "us": "the user"}  # fmt: skip
    else:
        table = {"my": "their", "me": "them", "myself": "themselves", "mine": "theirs",
                 "i'm": "they're", "i am": "they are", "i've": "they've", "i": "they",
                 "our": "their", "us": "them"}  # fmt: skip

    def sub(m: re.Match[str]) -> str:
        return table[m.group(0).lower()]

    out = re.sub(r"(?i)\b(?:i'm|i am|i've|myself|mine|my|me|i|our|us)\b(?!['’-]\w)", sub, text)
    if for_assistant:  # "I" as a subject: "the user" + the verb in the third person
        parts = out.split("\x00")
        out = parts[0] + "".join("the user " + _conj_first(p.lstrip()) for p in parts[1:])
    return out


def user_clause(clause: str) -> str:
    """A first-person clause as a third-person statement starting with 'User'."""
    clause = clause.strip()
    m = _HEAD_RE.match(clause)
    if not m:
        return "User: " + _rest_pronouns(clause, for_assistant=False)
    rest = clause[m.end() :]
    if m.group("cont"):
        head = "User " + _CONT[m.group("cont").lower()]
    elif m.group("poss"):
        head = "User's"
    elif m.group("we"):
        w = m.group("we").lower()
        head = "User " + _WE[w] if w in _WE else "User"
        if w == "we":
            rest = _conj_first(rest)
    else:
        head = "User"
        rest = _conj_first(rest)
    rest = _rest_pronouns(rest, for_assistant=False)
    return f"{head} {rest}".strip() if rest else head


def _conj_first(rest: str) -> str:
    words = rest.split(" ")
    i = 0
    while i < len(words) and words[i].lower() in _ADVERBS:
        i += 1
    if i < len(words):
        w = words[i]
        if w.lower() in ("don't", "do") and i + 1 < len(words) and w.lower() == "do" and words[i + 1].lower() == "not":
            words[i] = "does"
        else:
            words[i] = third_singular(w)
    return " ".join(words)


def for_assistant(text: str) -> str:
    """An instruction to the assistant, with the user in the third person."""
    return _rest_pronouns(text.strip(), for_assistant=True)


def cap(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip().rstrip(".!;,:")
    return text[:1].upper() + text[1:] if text else text


def _unquote(text: str) -> str:
    return re.sub(r"^[\"'“”‘’]+|[\"'“”‘’]+$", "", text.strip())


# ---------------------------------------------------------------------------------------------
# The table


Render = Callable[[re.Match[str]], "str | None"]


@dataclass(frozen=True)
class Pattern:
    """One anchored declaration pattern."""

    id: str
    kind: str
    regex: re.Pattern[str]
    render: Render
    description: str
    example: str


def _g(m: re.Match[str], name: str) -> str:
    return (m.group(name) or "").strip()


def _name_ok(name: str) -> bool:
    first = name.split()[0].rstrip(".").lower() if name.split() else ""
    return bool(name) and first not in _NOT_NAMES


def _r_name(template: str) -> Render:
    def r(m: re.Match[str]) -> str | None:
        name = _g(m, "name")
        if not _name_ok(name):
            return None
        d = {k: (v or "").strip() for k, v in m.groupdict().items()}
        return template.format(**d)

    return r


_EMAIL_RE = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")


_SENSITIVE = {
    "password", "passcode", "pin", "pin code", "card number", "credit card number", "credit card",
    "debit card number", "bank account number", "account number", "iban", "api key",
    "access token", "token", "secret key", "ssn", "social security number",
}  # fmt: skip


def _attr_value_ok(attr: str, value: str) -> bool:
    a = attr.lower()
    if a in _SENSITIVE:
        return True  # recognized so that the secret rules refuse it (and report it)
    if "email" in a or "e-mail" in a:
        return bool(_EMAIL_RE.match(value))
    if any(w in a for w in ("phone", "number", "cell", "mobile")):
        return len(re.sub(r"\D", "", value)) >= 7 and bool(re.fullmatch(r"[+\d\s().-]+(?:\s?(?:ext|x)\.?\s?\d+)?", value))
    if "address" in a:
        return bool(re.search(r"\d", value)) and len(value) >= 6
    if a in ("zip code", "zip", "postcode", "postal code"):
        return bool(re.fullmatch(r"[A-Za-z0-9 -]{3,10}", value))
    if a in ("time zone", "timezone"):
        return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9/_+:\- ]{1,39}", value))
    if a in ("blood type",):
        return bool(re.fullmatch(r"(?i)(?:type )?(?:a|b|ab|o)\s?(?:\+|-|positive|negative|pos|neg)", value))
    if a in ("shoe size", "dress size", "ring size"):
        return bool(re.fullmatch(r"(?i)(?:us |uk |eu )?\d{1,2}(?:\.5)?(?: (?:us|uk|eu))?", value))
    if a in ("height",):
        return bool(re.search(r"\d", value)) and len(value) <= 20
    if a in ("website", "blog", "homepage"):
        return bool(re.fullmatch(r"(?:https?://)?[\w.-]+\.[a-z]{2,}(?:/\S*)?", value))
    if a in ("github handle", "github username", "twitter handle", "handle", "username",
             "user name", "discord", "slack handle", "instagram"):  # fmt: skip
        return bool(re.fullmatch(r"@?[\w.-]{2,40}", value))
    if a in ("car",):
        return bool(re.match(r"(?i)an? ", value)) and bool(re.search(r"\b[A-Z]", value))
    # hometown, languages, employer, company, job title, nationality...: a proper noun
    return bool(re.match(r"[A-Z0-9]", value)) and len(value) <= 60


def _r_attr(m: re.Match[str]) -> str | None:
    attr, value = _g(m, "a"), _unquote(_g(m, "v"))
    if not _attr_value_ok(attr, value):
        return None
    return f"User's {attr.lower()} is {value}"


def _r_rel_attr(m: re.Match[str]) -> str | None:
    rel, attr, value = _g(m, "r").lower(), _g(m, "a").lower(), _g(m, "v")
    if attr == "birthday":
        if not _DATE_RE.search(value):
            return None
    elif not _attr_value_ok(attr, value):
        return None
    return f"User's {rel}'s {attr} is {value}"


def _r_allergy(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
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


def _taste(verb_3sg: str) -> Render:
    def r(m: re.Match[str]) -> str | None:
        x = _g(m, "x")
        if not x or _DISCOURSE.match(x):
            return None
        return f"User {verb_3sg} {_rest_pronouns(x, for_assistant=False)}"

    return r


_LIKE_3SG = {"love": "loves", "like": "likes", "enjoy": "enjoys", "adore": "adores"}
_DISLIKE_3SG = {
    "hate": "hates", "dislike": "dislikes", "detest": "detests", "can't stand": "can't stand",
    "cannot stand": "cannot stand", "don't like": "doesn't like", "do not like": "does not like",
    "don't enjoy": "doesn't enjoy", "do not enjoy": "does not enjoy",
    "am not a fan of": "is not a fan of", "'m not a fan of": "is not a fan of",
    "am not into": "is not into", "'m not into": "is not into",
}  # fmt: skip


def _r_like(m: re.Match[str]) -> str | None:
    v = _g(m, "v").lower()
    x = _g(m, "x")
    if not x or _DISCOURSE.match(x):
        return None
    verb = _LIKE_3SG.get(v, "is into")
    return f"User {verb} {_rest_pronouns(x, for_assistant=False)}"


def _r_dislike(m: re.Match[str]) -> str | None:
    v = re.sub(r"\s+", " ", _g(m, "v").lower())
    v = v.replace("i'm", "'m").replace("i am", "am")
    x = _g(m, "x")
    if not x or _DISCOURSE.match(x):
        return None
    return f"User {_DISLIKE_3SG.get(v, 'dislikes')} {_rest_pronouns(x, for_assistant=False)}"


def _r_instruction(prefix: str = "") -> Render:
    def r(m: re.Match[str]) -> str | None:
        x = _g(m, "x")
        if _TASK_LOCAL.search(x):
            return None
        lead = prefix.format(**{k: (v or "").strip().lower() for k, v in m.groupdict().items()})
        return cap(for_assistant(lead + x))

    return r


def _r_from_now_on(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    x = re.sub(r"(?i)^please,?\s+", "", x)
    if not re.match(rf"(?i)(?:{IMP_VERBS}|always|never|don't|do not|stop|call me|be|keep|only)\b", x):
        return None
    if _TASK_LOCAL.search(re.sub(r"(?i)\bfrom now on\b", "", x)):
        return None
    return cap(for_assistant(x))


def _r_when_you(m: re.Match[str]) -> str | None:
    c, x = _g(m, "c"), _g(m, "x")
    if _TASK_LOCAL.search(c) or _TASK_LOCAL.search(x):
        return None
    x = re.sub(r"(?i)^please,?\s+", "", x)
    return cap(for_assistant(f"When you {c}, {x}"))


def _r_remind(m: re.Match[str]) -> str | None:
    p, x = _g(m, "p").lower() or "about", _g(m, "x")
    if _DISCOURSE.match(x) and p != "to":
        return None
    return f"Remind the user {p} {_rest_pronouns(x, for_assistant=False)}"


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


def _r_remember_that(m: re.Match[str]) -> str | None:
    x = _g(m, "x")
    if re.match(r"(?i)^(?:i|we) (?:said|told|asked|mentioned|was joking|meant)\b", x):
        return None
    return user_clause(x)


def _r_event(m: re.Match[str]) -> str | None:
    v = _g(m, "v")
    if not _DATE_RE.search(v):
        return None
    return f"User's {_g(m, 'e').lower()}{(' ' + _g(m, 'd')) if _g(m, 'd') else ''} is {v}"


def _r_birthday(m: re.Match[str]) -> str | None:
    v = _g(m, "v")
    if not _DATE_RE.search(v):
        return None
    return f"User's birthday is {v}"


def _r_list(m: re.Match[str]) -> str | None:
    x = _unquote(_g(m, "x"))
    if _DISCOURSE.match(x):
        return None
    lst = _g(m, "l").lower().replace("todo", "to-do")
    return f"On the user's {lst} list: {x}"


def _simple(template: str, *, clean: bool = True) -> Render:
    def r(m: re.Match[str]) -> str | None:
        d = {k: (v or "").strip() for k, v in m.groupdict().items()}
        if clean:
            d = {k: _rest_pronouns(v, for_assistant=False) for k, v in d.items()}
        return template.format(**d)

    return r


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_TAIL = r"(?:\s*[,(–—-]\s.*|\s*,.*)?$"
_ADV = r"(?:(?:really|much|strongly|generally|usually|definitely|absolutely|genuinely|truly|quite|also|normally|typically|kind of|sort of) )?"

PATTERNS: tuple[Pattern, ...] = (
    # ---- instructions (persistent, addressed to the assistant)
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
    # ---- action items
    Pattern("action.remind-me", "action_item",
            _rx(r"(?i)(?:(?:please|can you|could you|would you|will you),?\s+)?(?:please )?remind me (?P<p>to|about|that) (?P<x>.{2,200})$"),
            _r_remind, "'remind me to/about/that ...'", "Remind me to call my mom on Sunday."),
    Pattern("action.dont-let-me-forget", "action_item",
            _rx(r"(?i)(?:please )?(?:don't|do not) let me forget (?:(?P<p>to|about) )?(?P<x>.{2,200})$"),
            _r_remind, "'don't let me forget (to/about) ...'", "Don't let me forget to pay the rent."),
    Pattern("action.remember-to", "action_item",
            _rx(r"(?i)(?:please )?(?:remember|don't forget|do not forget) to (?P<x>.{2,200})$"),
            _r_remember_to, "'remember to' + an errand verb (buy, call, pay, send...)",
            "Remember to buy a gift for Leo."),
    Pattern("action.need-to-by", "action_item",
            _rx(r"(?i)i (?:really )?(?P<mod>need to|have to|must|gotta|got to|should) (?P<x>.{3,200})$"),
            _r_need, "'I need to/have to ...' with a date or deadline",
            "I need to renew my driver's license by the end of the month."),
    Pattern("action.add-to-list", "action_item",
            _rx(r"(?i)(?:please )?add (?P<x>.{2,100}?) to (?:my|the|our) (?P<l>shopping|grocery|groceries|to-?do|todo|task|reading|watch|packing|bucket|wish) list$"),
            _r_list, "'add X to my shopping/to-do list'", "Add oat milk to my shopping list."),
    # ---- remembered statements about the user
    Pattern("fact.remember-that", "fact",
            _rx(r"(?i)(?:please )?(?:remember|keep in mind|bear in mind|note|make a note|take note|never forget|don't forget|do not forget)(?: that|:)?\s+(?P<x>(?:i|i'm|i've|i'll|i'd|my|our|we|we're|we've)\b.{2,200})$"),
            _r_remember_that, "'remember that I/my ...', 'keep in mind ...', 'note that ...'",
            "Remember that I'm vegetarian."),
    # ---- identity
    Pattern("fact.name", "fact",
            _rx(rf"(?i:my name(?:'s| is))\s+{NAME}{_TAIL}"),
            _r_name("User's name is {name}"), "'my name is <Name>'", "My name is Sam."),
    Pattern("fact.name-other", "fact",
            _rx(rf"(?i:my (?P<what>last name|surname|family name|middle name|first name|nickname|maiden name|full name)(?:'s| is))\s+{NAME}{_TAIL}"),
            _r_name("User's {what} is {name}"), "'my last/middle/... name is <Name>'",
            "My last name is Okafor."),
    Pattern("fact.goes-by", "fact",
            _rx(rf"(?i:i(?:'m| am) called|i go by|people call me|everyone calls me|my friends call me)\s+{NAME}(?:\s+(?i:by|not|at|to|among)\b.*|{_TAIL})"),
            _r_name("User goes by {name}"), "'I go by <Name>', 'I'm called <Name>'", "I go by Alex."),
    Pattern("fact.pronouns", "fact",
            _rx(r"(?i)my pronouns are (?P<x>[a-z]+/[a-z]+(?:/[a-z]+)?)$"),
            _simple("User's pronouns are {x}"), "'my pronouns are x/y'", "My pronouns are they/them."),
    Pattern("fact.age", "fact",
            _rx(r"(?i)i(?:'m| am) (?P<x>\d{1,3}) (?:years old|yrs old|y/?o)$"),
            _simple("User is {x} years old"), "'I'm N years old'", "I'm 34 years old."),
    Pattern("fact.born", "fact",
            _rx(r"(?i)i was born (?P<x>(?:in|on) .{2,40})$"),
            _simple("User was born {x}"), "'I was born in/on ...'", "I was born in 1988."),
    Pattern("fact.birthday", "fact",
            _rx(r"(?i)my (?:birthday|bday|b-day|date of birth|dob) is (?:on )?(?P<v>.{3,40})$"),
            _r_birthday, "'my birthday is <date>'", "My birthday is June 2."),
    Pattern("fact.from", "fact",
            _rx(r"(?i:i(?:'m| am) (?:originally )?from)\s+(?P<x>[A-Z][^,;]{1,60})" + _TAIL),
            _simple("User is from {x}"), "'I'm from <Place>'", "I'm from Lagos."),
    Pattern("fact.married-to", "fact",
            _rx(rf"(?i:i(?:'m| am) married to)\s+{NAME}{_TAIL}"),
            _r_name("User is married to {name}"), "'I'm married to <Name>'", "I'm married to Dana."),
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
    # ---- work, study, places, languages, family
    Pattern("fact.works-as", "fact",
            _rx(r"(?i)i(?:'m| am)? (?:currently )?(?:work|working) as (?P<x>an? [^,;]{2,60})" + _TAIL),
            _simple("User works as {x}"), "'I work as a ...'", "I work as a nurse."),
    Pattern("fact.job", "fact",
            _rx(rf"(?i)i(?:'m| am) (?P<x>an? (?:[\w-]+ ){{0,3}}{_JOBS}(?: (?:at|for|in|on|with|from) [^,;]{{2,60}})?)" + _TAIL),
            _simple("User is {x}"), "'I'm a <job>' (a closed list of jobs)", "I'm a software engineer."),
    Pattern("fact.studies", "fact",
            _rx(r"(?i)i(?:'m| am)? (?:study|studying) (?P<x>[^,;]{2,60}?) (?P<p>at|in) (?P<y>(?:the )?[A-Z][^,;]{1,60})" + _TAIL),
            _simple("User studies {x} {p} {y}"), "'I study <subject> at <School>'",
            "I study computer science at McGill."),
    Pattern("fact.works-at", "fact",
            _rx(r"(?i)i(?:'m| am)? (?:currently )?(?:work|working)(?: full[- ]time| part[- ]time| remotely)? (?P<p>at|for) (?!it\b|this\b|that\b|hours\b|a while\b|now\b|the moment\b|least\b)(?P<x>[^,;]{2,60}?)(?: now| these days| currently| nowadays)?" + _TAIL),
            _simple("User works {p} {x}"), "'I work at/for ...'", "I work at Acme Corp."),
    Pattern("fact.lives", "fact",
            _rx(r"(?i)i (?:live|reside|am living|'m living|currently live) (?P<p>in|near|on|at|with|outside|close to) (?!it\b|this\b|that\b|fear\b|hope\b|denial\b|the moment\b|the past\b|the present\b|my head\b)(?P<x>[^;]{2,80}?)(?: now| these days| currently)?" + _TAIL),
            _simple("User lives {p} {x}"), "'I live in/near/with ...'", "I live in Berlin."),
    Pattern("fact.based", "fact",
            _rx(r"(?i)i(?:'m| am) (?:currently )?based (?P<p>in|out of|near) (?P<x>[^,;]{2,60})" + _TAIL),
            _simple("User is based {p} {x}"), "'I'm based in ...'", "I'm based in Singapore."),
    Pattern("fact.moved", "fact",
            _rx(r"(?i)(?:i|we) (?:just |recently |finally |have |'ve )?moved to (?P<x>[^,;]{2,80})" + _TAIL),
            _simple("User moved to {x}"), "'I (just) moved to ...'", "I just moved to Lisbon."),
    Pattern("fact.speaks", "fact",
            _rx(r"(?i:i (?:speak|can speak))\s+(?P<x>(?:(?i:fluent|some|basic|a little|native|conversational) )?[A-Z]\w+(?:(?:,| and| or) (?:(?i:fluent|some|basic|a little) )?[A-Z]\w+)*)(?: (?i:fluently|natively|well))?" + _TAIL),
            _simple("User speaks {x}"), "'I speak <Language>'", "I speak Portuguese and English."),
    Pattern("fact.has", "fact",
            _rx(rf"(?i)i have (?P<x>(?:a|an|one|two|three|four|five|six|\d+) (?:[\w-]+ ){{0,2}}(?:{_PETS}|{_KIDS})(?: (?:named|called) [A-Z][\w'-]+(?: and [A-Z][\w'-]+)?)?)" + _TAIL),
            _simple("User has {x}"), "'I have a dog/two kids/...'", "I have a dog named Pepper."),
    Pattern("fact.pet-name", "fact",
            _rx(rf"(?i:my (?P<p>{_PETS})'?s? names? (?:is|are))\s+{NAME}{_TAIL}"),
            _r_name("User's {p} is named {name}"), "'my dog's name is <Name>'", "My dog's name is Rufus."),
    # ---- contacts
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
    # ---- events
    Pattern("event.my-event", "event",
            _rx(r"(?i)my (?P<e>(?:[\w'-]+ ){0,2}(?:appointment|flight|interview|wedding|exam|surgery|operation|party|trip|vacation|holiday|check-?up|presentation|recital|graduation|court date|conference|due date|performance))(?P<d> (?:to|from|in|with) [A-Z][\w ]{1,30}?)? is (?P<v>(?:on|at|next|this|tomorrow|tonight|in|due) .{1,60})$"),
            _r_event, "'my <appointment/flight/...> is on <date>'",
            "My dentist appointment is on March 12."),
    # ---- attributes ("my X is Y", a closed list of X with value checks)
    Pattern("fact.my-attribute", "fact",
            _rx(r"(?i)my (?P<a>email address|email|e-mail|work email|personal email|phone number|cell number|mobile number|number|cell|mobile|home address|address|mailing address|postal address|work address|zip code|postcode|postal code|time ?zone|hometown|home town|native language|first language|mother tongue|blood type|shoe size|dress size|ring size|height|job title|occupation|profession|employer|company|website|blog|homepage|github handle|github username|twitter handle|handle|username|user name|car|nationality|citizenship|religion|star sign|zodiac sign|major|alma mater|university|password|passcode|pin|pin code|card number|credit card number|credit card|debit card number|bank account number|account number|iban|api key|access token|token|secret key|ssn|social security number) is (?P<v>.{1,80})$"),
            _r_attr, "'my <email/phone number/time zone/...> is <value>' (value checked per attribute)",
            "My time zone is CET."),
    # ---- preferences
    Pattern("preference.favorite", "preference",
            _rx(r"(?i)my (?:all-time )?(?:favou?rite|fave|favourite) (?!thing\b|part\b|moment\b|kind of\b|person\b|one\b)(?P<a>[\w -]{2,30}?) (?P<are>is|are) (?P<v>[^;]{1,80}?)" + _TAIL),
            _simple("User's favorite {a} {are} {v}"), "'my favorite <X> is <Y>'", "My favorite color is green."),
    Pattern("preference.prefer", "preference",
            _rx(rf"(?i)i {_ADV}prefer (?P<x>[^;]{{2,160}})$"),
            _taste("prefers"), "'I prefer ...' (not 'the first one', 'this', ...)", "I prefer tea over coffee."),
    Pattern("preference.rather", "preference",
            _rx(r"(?i)i(?:'d| would) (?:much )?rather (?P<x>(?!not\b)[^,;]{2,80} than [^,;]{2,80})" + _TAIL),
            _simple("User would rather {x}"), "'I'd rather X than Y'", "I'd rather take the train than fly."),
    Pattern("preference.fan", "preference",
            _rx(r"(?i)i(?:'m| am) (?:a )?(?:big |huge |massive |great |longtime |long-time )?fan of (?P<x>[^;]{2,80}?)" + _TAIL),
            _taste("is a fan of"), "'I'm a (big) fan of ...'", "I'm a big fan of science fiction."),
    Pattern("preference.dislike", "preference",
            _rx(r"(?i)i (?:(?:really|absolutely|genuinely|truly|just|kind of|also) )?(?P<v>hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy|do not enjoy|really don't like)(?P<x> [^;]{2,120}?)" + _TAIL),
            _r_dislike, "'I hate/dislike/can't stand/don't like ...'", "I hate cilantro."),
    Pattern("preference.not-fan", "preference",
            _rx(r"(?i)i(?P<v>'m not a fan of|'m not into| am not a fan of| am not into) (?P<x>[^;]{2,120}?)" + _TAIL),
            _r_dislike, "'I'm not a fan of ...'", "I'm not a fan of early meetings."),
    Pattern("preference.like", "preference",
            _rx(rf"(?i)i {_ADV}(?P<v>love|like|enjoy|adore) (?P<x>[^;]{{2,120}}?)" + _TAIL),
            _r_like, "'I (really) love/like/enjoy ...' (not 'it', 'this', 'how', 'the idea'...)",
            "I love hiking."),
    Pattern("preference.into", "preference",
            _rx(r"(?i)i(?:'m| am) (?:really |very |super |so |quite )?(?P<v>into) (?P<x>[^;]{2,80}?)" + _TAIL),
            _r_like, "'I'm (really) into ...'", "I'm really into bouldering."),
    Pattern("preference.call-me", "preference",
            _rx(rf"(?i:(?:please )?call me)\s+{NAME}(?:\s*,.*|\s+(?i:instead|from now on|please|for short)\b.*)?$"),
            _r_name("User wants to be called {name}"), "'call me <Name>'", "Call me Liz."),
)

PATTERN_IDS: tuple[str, ...] = tuple(p.id for p in PATTERNS)
KINDS: tuple[str, ...] = tuple(dict.fromkeys(p.kind for p in PATTERNS))
