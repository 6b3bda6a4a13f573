"""Idioms and fixed expressions shaped like a declaration ("I keep my cards close to my chest").

The open-class families of the pattern table read "I + present verb + object" as a
livelihood or a hobby ("I keep bees", "I run a café"). Many common English idioms have exactly
that shape and say nothing durable about the user: "I keep an eye on it", "I run a tight ship",
"I play it by ear", "I draw the line at karaoke". A clause that contains one of the expressions
in ``data/idioms.txt`` yields no capture at all (whatever pattern would match it).

Each entry is written from general English knowledge as ``verb rest``: the verb in its base form
(every inflection is matched: keeps, kept, keeping), then the fixed words, where

- ``one's`` stands for a possessive (my, your, his, her, our, their, one's),
- ``sb`` for one to three words naming someone or something ("people", "the boss", "him"),
- ``sb's`` for a possessive of someone (a pronoun or a word ending in 's),
- ``(a|b)`` for alternatives and ``[x]`` for an optional word.

The expression must be followed by a word boundary, so "keep an eye on" also refuses "I keep an eye
on the kettle". Copula idioms ("I'm on thin ice", "I'm game") use the verb ``be``.
"""

from __future__ import annotations

import re
from pathlib import Path

_DATA = Path(__file__).parent / "data"


def _data_lines(name: str) -> list[str]:
    text = (_DATA / name).read_text("utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


#: Verb + fixed words, one expression a line (``data/idioms.txt``).
IDIOMS: tuple[str, ...] = tuple(_data_lines("idioms.txt"))

#: base form -> its other forms (``data/verb-forms.txt``); regular verbs are inflected by rule.
_IRREGULAR: dict[str, tuple[str, ...]] = {
    verb: tuple(forms.split("|")) for verb, _, forms in (ln.partition("\t") for ln in _data_lines("verb-forms.txt"))
}

_POSS = r"(?:my|your|his|her|our|their|one's|its)"
_SB = r"(?:[\w'-]+(?: [\w'-]+){0,2}?)"
_SBS = r"(?:my|your|his|her|our|their|[\w-]+'s)"


def forms(verb: str) -> tuple[str, ...]:
    """Every inflection of ``verb`` (base, -s, past, participle, -ing)."""
    if verb in _IRREGULAR:
        return (verb, *_IRREGULAR[verb])
    if "-" in verb or " " in verb:
        return (verb,)
    if verb.endswith("e"):
        return verb, verb + "s", verb + "d", verb[:-1] + "ing"
    if re.search(r"[^aeiou]y$", verb):
        return verb, verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"
    if re.search(r"(?:s|sh|ch|x|z)$", verb):
        return verb, verb + "es", verb + "ed", verb + "ing"
    if re.search(r"[^aeiou][aeiou][bdgmnprt]$", verb) and len(verb) <= 4:
        return verb, verb + "s", verb + verb[-1] + "ed", verb + verb[-1] + "ing"
    return verb, verb + "s", verb + "ed", verb + "ing"


def _rest(rest: str) -> str:
    """The regular expression of the fixed words after the verb."""
    out = ""
    for tok in rest.split():
        if tok.startswith("[") and tok.endswith("]"):
            out += "(?:" + re.escape(tok[1:-1]) + " )?"
            continue
        if tok == "one's":
            piece = _POSS
        elif tok == "oneself":
            piece = r"(?:myself|yourself|himself|herself|ourselves|themselves|oneself)"
        elif tok == "sb":
            piece = _SB
        elif tok == "sb's":
            piece = _SBS
        elif tok.startswith("(") and tok.endswith(")"):
            piece = "(?:" + "|".join(re.escape(a) for a in tok[1:-1].split("|")) + ")"
        else:
            piece = re.escape(tok)
        out += piece + " "
    return out.rstrip()


def _compile() -> tuple[frozenset[str], dict[str, re.Pattern[str]]]:
    by_form: dict[str, list[str]] = {}
    for idiom in IDIOMS:
        verb, _, rest = idiom.partition(" ")
        body = _rest(rest) if rest else ""
        for f in forms(verb):
            by_form.setdefault(f.split()[-1] if not f.startswith("'") else f, []).append(body)
    compiled: dict[str, re.Pattern[str]] = {}
    for f, bodies in by_form.items():
        alts = "|".join(sorted({b for b in bodies}, key=len, reverse=True))
        head = re.escape(f)
        # "'m" / "'ve" are glued to the pronoun: "I'm toast"; other forms are whole words.
        lead = r"(?<=[A-Za-z])" if f.startswith("'") else r"\b"
        tail = rf"(?: (?:{alts}))" if alts and "" not in bodies else rf"(?: (?:{alts}))?" if alts else ""
        compiled[f] = re.compile(rf"(?i){lead}{head}(?: (?:really|just|so|totally|always|never|often|sometimes|usually|kind of|a bit))*{tail}(?![\w'])")
    return frozenset(compiled), compiled


_FORMS, _BY_FORM = _compile()
_WORD = re.compile(r"[A-Za-z][\w-]*|'[a-z]+")


def find_idiom(text: str) -> str | None:
    """The idiom or fixed expression found in ``text`` (its matched words), or None."""
    seen: set[str] = set()
    for w in _WORD.findall(text):
        low = w.lower()
        if low in _FORMS and low not in seen:
            seen.add(low)
            m = _BY_FORM[low].search(text)
            if m:
                return m.group(0)
    return None
