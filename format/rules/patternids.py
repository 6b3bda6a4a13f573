"""Capture pattern ids: the former id of every renamed capture pattern.

A captured record keeps, in ``source.pattern``, the id of the pattern that found it, and its
source key (``store.source_key``, kept in tombstones and used to recognise a sighting again)
hashes that id. When patterns were regrouped by what they capture, the ids that carried a
development round ("fact.speaks2", "fact.habitual4") were renamed to say what they match; the
former ids stay valid aliases (spec/capture.md section 3, "Pattern ids"):

- :func:`current` reads any id, former or current, as the current one (for display, filters);
- :func:`key_id` gives the id a source key hashes: the former id of a renamed pattern, so a
  key computed before the rename (a tombstone, a rejection) and one computed after are equal.

Standard library only, and cheap to import: the store's source key calls it.
"""

from __future__ import annotations

# fmt: off
#: former id -> current id
RENAMED: dict[str, str] = {
    "fact.speaks2": "fact.speaks-language-named",
    "instruction.want-you2": "instruction.like-you-to",
    "fact.name2": "fact.name-contracted",
    "fact.age2": "fact.age-bare",
    "fact.birthday2": "fact.birthday-contracted",
    "fact.lives2": "fact.lives-household",
    "fact.moved2": "fact.relocated",
    "fact.from2": "fact.from-originally",
    "fact.work2": "fact.works-in",
    "fact.job2": "fact.job-noun",
    "fact.studies2": "fact.studying",
    "fact.state2": "fact.state-extended",
    "fact.has2": "fact.has-got",
    "preference.like2": "preference.taste-verb",
    "preference.rather2": "preference.rather-open",
    "instruction.manner3": "instruction.talk-to-me",
    "instruction.whenever-i3": "instruction.when-i-ask",
    "fact.condition3": "fact.condition-diagnosed",
    "fact.state3": "fact.state-household",
    "fact.medication3": "fact.on-medication",
    "fact.born3": "fact.born-and-raised",
    "fact.speaks3": "fact.speaks-count",
    "fact.home3": "fact.home-or-business",
    "fact.verb-job3": "fact.runs-project",
    "fact.job3": "fact.job-living-in",
    "fact.works-as3": "fact.works-like",
    "instruction.when-you3": "instruction.do-when-you",
    "preference.not-fan3": "preference.not-a-fan-fragment",
    "contact.is-my3": "contact.is-my-with-detail",
    "contact.relation-is3": "contact.relation-is-detail",
    "event.go3": "event.first-person-dated",
    "event.rel3": "event.relation-dated",
    "fact.on-list5": "fact.on-waiting-list",
    "preference.support5": "preference.supports-team",
    "fact.the-role5": "fact.the-role-of",
    "fact.been-status5": "fact.been-status-span",
    "fact.came-to5": "fact.came-to-when",
    "fact.retired5": "fact.retired-when",
    "instruction.style-adj5": "instruction.presentation-style",
    "fact.condition4": "fact.condition-shaped",
    "fact.med-event4": "fact.medical-event",
    "fact.state4": "fact.state-phrase",
    "fact.parent-of4": "fact.parent-of",
    "fact.org-role4": "fact.organisation-role",
    "fact.holds4": "fact.holds-pass-or-licence",
    "fact.on-a4": "fact.on-a-programme",
    "fact.moved-from4": "fact.moved-from",
    "fact.speaks4": "fact.speaks-where",
    "fact.work-pattern4": "fact.works-shifts",
    "fact.has4": "fact.has-counted",
    "fact.new-baby4": "fact.new-baby",
    "fact.whole-life4": "fact.lived-whole-life",
    "fact.had-for4": "fact.had-for-span",
    "fact.up-at4": "fact.gets-up-at",
    "fact.past-bio4": "fact.past-biography",
    "fact.habitual4": "fact.habitual-verb",
    "contact.is-my4": "contact.is-my-role",
    "contact.role-called4": "contact.role-called",
    "instruction.convention4": "instruction.convention",
    "instruction.generic-manner4": "instruction.format-generic",
    "instruction.whenever-obj4": "instruction.whenever-i-send",
    "preference.cant-get-into4": "preference.cant-get-into",
    "preference.my-thing4": "preference.my-thing",
    "preference.choose-over4": "preference.choose-over",
    "preference.sweet-tooth4": "preference.sweet-tooth",
    "preference.supporter4": "preference.supporter",
    "event.my-event4": "event.my-any-event",
    "event.season4": "event.season-starts",
}
# fmt: on

_FORMER: dict[str, str] = {new: old for old, new in RENAMED.items()}


def current(pattern: str) -> str:
    """The current id of ``pattern`` (itself when it was never renamed)."""
    return RENAMED.get(pattern, pattern)


def former(pattern: str) -> str | None:
    """The former id of a renamed pattern, given either id; None when it was never renamed."""
    if pattern in RENAMED:
        return pattern
    return _FORMER.get(pattern)


def key_id(pattern: str) -> str:
    """The id a capture's source key hashes: the former id of a renamed pattern (so that keys
    stored before the rename still match), else the id itself."""
    return _FORMER.get(pattern, pattern)


def describe(pattern: str) -> str:
    """``pattern`` for people: the current id, and the id recorded when it is a former one."""
    now = current(pattern)
    return now if now == pattern else f"{now} (recorded as {pattern})"
