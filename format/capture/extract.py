"""Extraction: one user turn -> candidate memories (pure function, no store access)."""

from __future__ import annotations

from dataclasses import dataclass

from .confidence import CONFIDENCE, DEFAULT_CONFIDENCE
from .patterns import (
    PATTERNS,
    body_of,
    cap,
    sentence_guard,
    split_sentences,
    strip_leadin,
    turn_guard,
)
from .secrets import find_secret

MAX_CONTENT = 300


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory found in a sentence. ``secret`` names the secret rule that refused it, if any."""

    pattern: str
    kind: str
    content: str
    quote: str
    confidence: float
    secret: str | None = None


@dataclass(frozen=True, slots=True)
class Skip:
    """A sentence that was not mined, and why (for ``--explain`` style reporting and tests)."""

    sentence: str
    reason: str


def match_sentence(sentence: str) -> Candidate | None:
    """The candidate of one sentence (first matching pattern), or None."""
    body = body_of(strip_leadin(sentence))
    if not body:
        return None
    for p in PATTERNS:
        m = p.regex.match(body)
        if m is None:
            continue
        content = p.render(m)
        if not content:
            continue
        content = cap(content)
        if not content or len(content) > MAX_CONTENT:
            continue
        quote = sentence.strip()
        secret = find_secret(quote)
        return Candidate(
            pattern=p.id,
            kind=p.kind,
            content=content if secret is None else "",
            quote=quote if secret is None else "",
            confidence=CONFIDENCE.get(p.id, DEFAULT_CONFIDENCE),
            secret=secret,
        )
    return None


def extract(text: str, *, explain: list[Skip] | None = None) -> list[Candidate]:
    """Candidates in a user turn, in sentence order. Skipped sentences go to ``explain``."""
    why = turn_guard(text)
    if why is not None:
        if explain is not None:
            explain.append(Skip(text.strip(), why))
        return []
    out: list[Candidate] = []
    for sentence, inside_quote in split_sentences(text):
        reason = "inside a quotation" if inside_quote else sentence_guard(sentence)
        if reason is not None:
            if explain is not None:
                explain.append(Skip(sentence, reason))
            continue
        c = match_sentence(sentence)
        if c is not None:
            out.append(c)
        elif explain is not None:
            explain.append(Skip(sentence, "no pattern"))
    return out
