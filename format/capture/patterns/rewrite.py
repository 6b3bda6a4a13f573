"""Rewriting a first-person clause into the third-person memory text."""

from __future__ import annotations

import re

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
    if low in _MODALS or low in _PAST or (low.endswith("ed") and (not low.endswith("eed") or low in ("freed", "agreed", "decreed", "refereed", "guaranteed"))) or not low.isalpha():
        return verb  # "breed", "need", "feed" are present forms
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
