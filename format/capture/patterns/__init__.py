"""The capture pattern table: anchored declarations -> (kind, clean memory text).

Zero-LLM extraction. A user turn is split into sentences; a sentence is considered only if it
passes the guards (:mod:`.guards`: not a question, not inside quotes, not reported speech, no
sarcasm marker, not code, not in a role-play/hypothetical turn); it is then normalized and split
into clauses, each clause is stripped of lead-ins ("btw", "oh and", "fyi", ...) and completed (see
``normalize.py``), and for each clause the *first* pattern that matches the whole clause wins.
Every pattern is anchored at the start of the clause, so "don't worry about it" or "I'll always
forget that" can never become an instruction.

Patterns are defined by what they capture, one module each: :mod:`.instructions`,
:mod:`.reminders` (action items), :mod:`.events`, :mod:`.people` (contacts),
:mod:`.preferences`, and the facts: :mod:`.identity`, :mod:`.places`, :mod:`.work`,
:mod:`.health`, :mod:`.household`, :mod:`.routines`, :mod:`.details`. The order in which they are
tried is one explicit table, :mod:`.precedence` (spec/capture.md section 3). Shared pieces:
:mod:`.lexicon` (closed word lists), :mod:`.rewrite` (first person -> third person),
:mod:`.common` (the :class:`Pattern` type and shared renderers).

Each pattern has an id that says what it matches (``<kind>.<shape>``), a kind and a
confidence: its precision measured on the corpora in ``tests/capture/data``
(``bench/capture_precision.py`` prints the measurement; a test pins these numbers to it).
Patterns renamed since records were captured keep their former ids as aliases
(:mod:`mem.format.rules.patternids`), so a stored ``source.pattern`` and its source key still
resolve. Memory text style: third person, starting with "User" for facts, preferences, contacts
and events ("User prefers tea over coffee", "User's sister is Ana"); an imperative for
instructions ("Never call the user Sammy"); "Remind the user to ..." for action items. No
trailing full stop. The original sentence is kept separately (provenance ``quote``).
"""

from __future__ import annotations

from types import ModuleType

from mem.format.capture.patterns import (
    details,
    events,
    health,
    household,
    identity,
    instructions,
    people,
    places,
    preferences,
    reminders,
    routines,
    work,
)
from mem.format.capture.patterns.common import Pattern, Render
from mem.format.capture.patterns.guards import (
    body_of,
    sentence_guard,
    split_sentences,
    strip_leadin,
    turn_guard,
)
from mem.format.capture.patterns.lexicon import IMP_VERBS, LEADIN_RE, NAME
from mem.format.capture.patterns.precedence import TIERS
from mem.format.capture.patterns.rewrite import cap, for_assistant, third_singular, user_clause

__all__ = [
    "FAMILIES",
    "FAMILY_OF",
    "IMP_VERBS",
    "KINDS",
    "LEADIN_RE",
    "NAME",
    "PATTERNS",
    "PATTERN_IDS",
    "Pattern",
    "Render",
    "body_of",
    "cap",
    "for_assistant",
    "sentence_guard",
    "split_sentences",
    "strip_leadin",
    "third_singular",
    "turn_guard",
    "user_clause",
]

#: The modules that define patterns, each a group by what its patterns capture.
FAMILIES: tuple[ModuleType, ...] = (
    instructions, reminders, events, people, preferences,
    identity, places, work, health, household, routines, details,
)  # fmt: skip


def _assemble() -> tuple[tuple[Pattern, ...], dict[str, str]]:
    """Every family's patterns in precedence order, and pattern id -> family name. Each pattern
    must be defined once and listed once in :data:`~.precedence.TIERS`."""
    by_id: dict[str, Pattern] = {}
    family: dict[str, str] = {}
    for mod in FAMILIES:
        name = mod.__name__.rsplit(".", 1)[-1]
        for p in mod.PATTERNS:
            if p.id in by_id:
                raise RuntimeError(f"capture pattern {p.id!r} is defined twice ({family[p.id]}, {name})")
            by_id[p.id], family[p.id] = p, name
    order = [pid for _, ids in TIERS for pid in ids]
    unknown = sorted(set(order) - set(by_id))
    unlisted = sorted(set(by_id) - set(order))
    twice = sorted({pid for pid in order if order.count(pid) > 1})
    if unknown or unlisted or twice:
        raise RuntimeError(
            f"capture precedence table out of step: unknown {unknown}, unlisted {unlisted}, listed twice {twice}"
        )
    return tuple(by_id[pid] for pid in order), family


PATTERNS, FAMILY_OF = _assemble()
PATTERN_IDS: tuple[str, ...] = tuple(p.id for p in PATTERNS)
KINDS: tuple[str, ...] = tuple(dict.fromkeys(p.kind for p in PATTERNS))
