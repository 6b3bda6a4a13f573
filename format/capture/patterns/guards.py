"""Sentence guards and sentence splitting: what is never mined, and the units that are."""

from __future__ import annotations

import re

from mem.format.capture.patterns.lexicon import LEADIN_RE

_QUESTION_END = re.compile(r"\?[\s\"'”’)\]]*$")
_QUOTE_START = re.compile(r"^[\"'“”‘’«»]")
_REPORTED = re.compile(
    r"(?i)\b(?:said|says|say|told|tells|asked|asks|wrote|writes|replied|yelled|shouted|goes|"
    r"go like|quote|quoting|opens with|lyrics|tweeted|posted|texted me)\b"
)
_SARCASM = re.compile(
    r"(?i)(?:\b(?:lol|lmao|lmfao|rofl|haha+|hehe+|jk|yeah right|obviously|totally|as if|not!|"
    r"sure thing|oh great|great, just great|what a joy|so much fun|yay|truly my passion|my passion,? truly|"
    r"living the dream|my favou?rite thing ever|said no one|said nobody|said no one ever)\b|/s\b|[🙄😒😂🤣😏🙃])"
)
_CODE = re.compile(r"[=;{}<>`|\\]|\(\)|^\s*[$#>]|\b\w+_\w+\s*[=:(]|^\s*(?:def|class|import)\s+\w|^\s*from\s+[\w.]+\s+import\b")
_FRAME = re.compile(
    r"(?i)\b(?:role-?play(?:ing)?|let'?s pretend|pretend (?:that |you|i|we)|imagine (?:that |you|"
    r"i|we)|hypothetical(?:ly)?|in (?:this|the|a|my) (?:story|game|novel|scenario|script|scene)|"
    r"for this (?:exercise|example|story|game|test)|let'?s say|suppose|supposing|what if|"
    r"as an example|for example|e\.g\.)"
)
_STRAIGHT_QUOTES = re.compile(r"[\"“”«»]")
#: Reported speech without quotation marks: "..., said my teacher", "my doctor says ...",
#: "... said no one ever", "according to my wife".
_REPORTED_BARE = re.compile(
    r"(?i)(?:,\s*(?:said|says|according to)\b|\bsaid no ?(?:one|body) ever\b|\baccording to\b|"
    r"^(?:he|she|they|my [\w-]+|his [\w-]+|her [\w-]+|[A-Z][a-z]+) (?:always |keeps? |just )?"
    r"(?:said|says|told me|tells me|thinks|reckons|claims|swears)\b)"
)
#: Sarcastic praise: an exclamation or an emphatic word in capitals before a verb of liking.
_SARCASM_LOVE = re.compile(
    r"(?:(?i:^(?:oh,? )?(?:wow|great|oh great|oh yeah|yeah|sure|gee|oh joy|fantastic|wonderful|"
    r"brilliant|just great)\b[,!.]?\s*(?:because |cause |since |and |as )?(?:I|I'm)\b)|\b(?:LOVE|LOOOVE|ADORE|LIKE|ENJOY)\b)"
)
#: Questions without a question mark: an interrogative opening.
_WH_START = re.compile(
    r"(?i)^(?:what|what's|whats|where|where's|why|how|how's|who|who's|whose|which|"
    r"(?:do|does|did|is|are|am|was|were|should|shall|have|has) (?:you|I|we|they|he|she|my|your|it)\b|"
    r"any idea|any thoughts|wondering|I wonder|I was wondering)\b"
)
#: Idioms shaped like declarations: "I'm dying to ...", "I'm married to
#: my job", "I live for drama", "I'm from the future", "I'm a sucker for punishment".
_IDIOM = re.compile(
    r"(?i)^(?:(?:oh|ok|okay|well|honestly|so|yeah),?\s+)*(?:I'm|I am|im) (?:(?:literally|just|so|all) )?"
    r"(?:dying to|dying for|all ears|down for|game for|all for|over the moon|on cloud nine|a glutton for|"
    r"a sucker for punishment|married to (?:my|the) (?:job|work|desk|phone|laptop)|from the future|"
    r"in two minds|on the fence|up to my (?:eyes|neck|ears)|all over the place|not in the mood)\b|"
    r"^(?:I|we) (?:live for|could (?:eat|sleep|kill)|have a bone to pick|have a soft spot for (?:this|that|it)|"
    r"'ve got your back|have your back)\b"
)
#: Statements inside a work of fiction, a game, a script or a form ("my character is a level 12
#: elf", "in the book, Elena lives in Naples", "the field says Name: John").
_FICTION = re.compile(
    r"(?i)\b(?:in the (?:show|series|book|books|novel|film|movie|game|comic|manga|anime|story|script|play|episode)|"
    r"(?:my|the|our) (?:[\w&-]+ )?character(?:'s)?\b|in (?:the |this )?game,? I|my (?:avatar|persona|alter ego|oc)\b|"
    r"the (?:form|field|template|placeholder|sign|quote|label)\b)"
)
#: Unmarked sarcasm: a verb of liking before an adverse situation ("I just love being on
#: hold for an hour", "I adore being stuck behind a tractor").
_SARCASM_ADVERSE = re.compile(
    r"(?i)\b(?:love|loves|adore|adores|enjoy|enjoys|relish)\s+(?:being|getting)\s+(?:stuck|on hold|ignored|kept waiting|"
    r"woken|interrupted|lied to|talked down to|patroni[sz]ed|left on read|shouted at|sick|rained on|overcharged|"
    r"cut off|stood up|ghosted|spammed|tailgated|delayed|cancelled on|put on hold)\b|"
    r"\b(?:love|loves|adore|adores|enjoy|enjoys|relish|cherish)\s+(?:sitting|standing|waiting|queu(?:e)?ing)\s+(?:in|at)\s+"
    r"(?:traffic|queues?|a queue|the queue|a jam|jams|roadworks|the post office|the bank)\b|"
    r"\b(?:love|loves|adore|adores|enjoy|enjoys|relish)\s+(?:filling in|filling out|doing|sorting out|chasing)\s+(?:my |the |our )?"
    r"(?:[\w-]+ )?(?:forms|paperwork|taxes|tax returns?|expenses|expense claims|invoices|timesheets|admin)\b"
)
#: Text introduced by a label and a colon is material, not a declaration: "Testing the
#: bot with: my name is Bob", "Example sentence: I work in a bank", "Caption: I live for sunsets".
_LABELLED = re.compile(
    r"(?i)^(?=[^:]{0,75}:\s)[^:]{0,40}\b(?:test|testing|example|examples|sample|template|caption|line|lines|dialogue|prompt|script|"
    r"placeholder|draft|subject|reply|bio|post|tweet|status|slogan|tagline|lyric|lyrics|translation|translate|"
    r"headline|scenario|role-?play|character|persona|dummy data|test data|fake data|mock data)\b[^:]{0,30}:\s"
)


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
    if _REPORTED_BARE.search(s):
        return "reported speech"
    if _SARCASM.search(s) or _SARCASM_LOVE.search(s) or _SARCASM_ADVERSE.search(s):
        return "sarcasm marker"
    if _IDIOM.search(s):
        return "idiom"
    if _FICTION.search(s):
        return "fiction, game or form"
    if _LABELLED.search(s):
        return "labelled text (a test, an example, a draft)"
    if _WH_START.match(s):
        return "question"
    if _CODE.search(s):
        return "code"
    return None


def turn_guard(text: str) -> str | None:
    """Why a whole user turn must not be mined (role-play, hypotheticals), or None."""
    if _FRAME.search(text):
        return "hypothetical or role-play frame"
    return None


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
