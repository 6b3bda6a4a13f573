"""Extraction: one user turn -> candidate memories (pure function, no store access)."""

from __future__ import annotations

from dataclasses import dataclass

from mem.format.capture.confidence import CONFIDENCE, DEFAULT_CONFIDENCE
from mem.format.capture.idioms import find_idiom
from mem.format.capture.normalize import clauses_ex, complete, normalize, strip_leadins
from mem.format.capture.patterns import (
    PATTERNS,
    body_of,
    cap,
    sentence_guard,
    split_sentences,
    turn_guard,
)
from mem.format.rules.secretpolicy import find_secret

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
    #: index of the clause in the turn (or in the sentence, for :func:`match_sentence_all`)
    clause: int = 0


@dataclass(frozen=True, slots=True)
class Skip:
    """A sentence that was not mined, and why (for ``--explain`` style reporting and tests)."""

    sentence: str
    reason: str


def _clause_body(clause: str, fragment: bool) -> str | None:
    """The text of a clause that patterns are matched against; None when nothing may match."""
    body = body_of(complete(strip_leadins(clause), fragment=fragment))
    if not body or find_idiom(body) is not None:  # an idiom declares nothing
        return None
    return body


def _match_clause(clause: str, quote: str, *, fragment: bool = False, index: int = 0) -> Candidate | None:
    body = _clause_body(clause, fragment)
    if body is None:
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
        secret = find_secret(quote)
        return Candidate(
            pattern=p.id,
            kind=p.kind,
            content=content if secret is None else "",
            quote=quote if secret is None else "",
            confidence=CONFIDENCE.get(p.id, DEFAULT_CONFIDENCE),
            secret=secret,
            clause=index,
        )
    return None


def match_sentence_all(sentence: str) -> list[Candidate]:
    """The candidates of one sentence: the first matching pattern of each clause.

    The sentence is normalized (chat spelling), split into clauses, and each clause is stripped
    of lead-ins and completed (see :mod:`mem.format.capture.normalize`) before matching; the
    quote kept in provenance is always the original sentence.
    """
    return _match_sentence(sentence, 0)[0]


def _match_sentence(sentence: str, base: int) -> tuple[list[Candidate], int]:
    """Candidates of a sentence whose first clause has index ``base`` in the turn; and the
    number of clauses of the sentence."""
    quote = sentence.strip()
    out: list[Candidate] = []
    seen: set[tuple[str, str]] = set()
    parts = clauses_ex(body_of(normalize(sentence)))
    for i, (clause, fragment) in enumerate(parts):
        c = _match_clause(clause, quote, fragment=fragment, index=base + i)
        if c is not None and (c.pattern, c.content) not in seen:
            seen.add((c.pattern, c.content))
            out.append(c)
    return out, len(parts)


def competing(sentence: str) -> list[list[str]]:
    """For each clause of ``sentence``, the id of every pattern that would capture it on its own,
    in precedence order: the first one is the pattern that wins (``extract`` reports it), the
    others lose to it. For explaining and testing precedence; no guard is applied."""
    out: list[list[str]] = []
    for clause, fragment in clauses_ex(body_of(normalize(sentence))):
        body = _clause_body(clause, fragment)
        found: list[str] = []
        for p in PATTERNS if body is not None else ():
            m = p.regex.match(body or "")
            content = p.render(m) if m is not None else None
            if content and len(cap(content)) <= MAX_CONTENT:
                found.append(p.id)
        out.append(found)
    return out


def match_sentence(sentence: str) -> Candidate | None:
    """The first candidate of one sentence, or None."""
    found = match_sentence_all(sentence)
    return found[0] if found else None


def extract(text: str, *, explain: list[Skip] | None = None) -> list[Candidate]:
    """Candidates in a user turn, in sentence order. Skipped sentences go to ``explain``."""
    why = turn_guard(text)
    if why is not None:
        if explain is not None:
            explain.append(Skip(text.strip(), why))
        return []
    out: list[Candidate] = []
    base = 0  # clause index in the turn: a skipped sentence counts as one clause
    for sentence, inside_quote in split_sentences(text):
        reason = "inside a quotation" if inside_quote else sentence_guard(sentence)
        if reason is not None:
            base += 1
            if explain is not None:
                explain.append(Skip(sentence, reason))
            continue
        found, n = _match_sentence(sentence, base)
        base += max(n, 1)
        if found:
            out.extend(found)
        elif explain is not None:
            explain.append(Skip(sentence, "no pattern"))
    return out
