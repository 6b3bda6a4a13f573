"""Precedence of the capture patterns: the order in which they are tried on a clause.

The first pattern (in this order) whose expression matches the whole clause and whose renderer
accepts it wins; a later pattern is tried only when every earlier one failed. Patterns are
defined by what they capture (the modules of this package); this table alone orders them, in
tiers from the most specific shape to the most open. Within a tier, a more specific pattern
comes first. ``tests/capture/test_precedence.py`` pins the outcome of overlapping patterns.

Each entry is a pattern id; the comment names the module that defines it.
"""

from __future__ import annotations

# fmt: off

# Two general patterns that must run before the specific ones they would otherwise lose to:
# 'remember to always ...' before 'remember to <errand>', and a language from the lexicon
# ('I speak spanish', any case) before 'I speak <Capitalized>'.
FIRST: tuple[str, ...] = (
    "instruction.remember-always",  # instructions
    "fact.speaks-language-named",  # identity
)

# Closed phrasings of one declaration each ('my name is <Name>', 'I'm allergic to ...',
# 'my <attribute> is <value>'): the most specific shapes, so they win over every family below.
SPECIFIC: tuple[str, ...] = (
    "instruction.from-now-on",  # instructions
    "instruction.always-never",  # instructions
    "instruction.dont-ever",  # instructions
    "instruction.dont-anymore",  # instructions
    "instruction.stop",  # instructions
    "instruction.want-you",  # instructions
    "instruction.when-you",  # instructions
    "action.remind-me",  # reminders
    "action.dont-let-me-forget",  # reminders
    "action.remember-to",  # reminders
    "action.need-to-by",  # reminders
    "action.add-to-list",  # reminders
    "fact.remember-that",  # details
    "fact.name",  # identity
    "fact.name-other",  # identity
    "fact.goes-by",  # identity
    "fact.pronouns",  # identity
    "fact.age",  # identity
    "fact.born",  # identity
    "fact.birthday",  # identity
    "fact.from",  # places
    "fact.married-to",  # identity
    "fact.state",  # health
    "fact.allergy",  # health
    "fact.allergy-have",  # health
    "fact.condition",  # health
    "fact.dont-eat",  # health
    "fact.works-as",  # work
    "fact.job",  # work
    "fact.studies",  # work
    "fact.works-at",  # work
    "fact.lives",  # places
    "fact.based",  # places
    "fact.moved",  # places
    "fact.speaks",  # identity
    "fact.has",  # household
    "fact.pet-name",  # household
    "contact.relation-name",  # people
    "contact.relation-attr",  # people
    "contact.relation-is",  # people
    "contact.is-my",  # people
    "event.my-event",  # events
    "fact.my-attribute",  # details
    "preference.favorite",  # preferences
    "preference.prefer",  # preferences
    "preference.rather",  # preferences
    "preference.fan",  # preferences
    "preference.dislike",  # preferences
    "preference.not-fan",  # preferences
    "preference.like",  # preferences
    "preference.into",  # preferences
    "instruction.call-me",  # instructions
)

# Grammatical families that generalize the specific shapes (a first-person subject, a verb
# or copula, a complement checked by kind): a specific pattern wins when both match.
GENERAL: tuple[str, ...] = (
    "instruction.persistent",  # instructions
    "instruction.always-general",  # instructions
    "instruction.manner",  # instructions
    "instruction.output-style",  # instructions
    "instruction.no-more",  # instructions
    "instruction.contrast",  # instructions
    "instruction.default-to",  # instructions
    "instruction.whenever-i",  # instructions
    "instruction.like-you-to",  # instructions
    "instruction.address-me",  # instructions
    "action.put-on-list",  # reminders
    "action.plan",  # reminders
    "action.plan-to",  # reminders
    "action.goal",  # reminders
    "event.have",  # events
    "event.having",  # events
    "event.travel",  # events
    "event.my-event-verb",  # events
    "contact.relation-appositive",  # people
    "contact.relation-called",  # people
    "contact.relation-lowercase-name",  # people
    "contact.relation-age",  # people
    "contact.relation-place",  # people
    "contact.relation-job",  # people
    "contact.plural-names",  # people
    "contact.name-is-my",  # people
    "fact.name-contracted",  # identity
    "fact.name-lowercase",  # identity
    "fact.age-bare",  # identity
    "fact.will-be",  # identity
    "fact.turned",  # identity
    "fact.height",  # identity
    "fact.birthday-contracted",  # identity
    "fact.born-on",  # identity
    "fact.im-a-proper",  # identity
    "fact.im-name",  # identity
    "fact.lives-household",  # places
    "fact.place-copula",  # places
    "fact.in-place",  # places
    "fact.home-place",  # places
    "fact.relocated",  # places
    "fact.from-originally",  # places
    "fact.grew-up",  # places
    "fact.used-to",  # places
    "fact.employed",  # work
    "fact.works-in",  # work
    "fact.started",  # work
    "fact.job-noun",  # work
    "fact.verb-job",  # work
    "fact.studying",  # work
    "fact.learning",  # work
    "fact.state-extended",  # health
    "fact.diet",  # health
    "fact.take-med",  # health
    "fact.wear",  # health
    "fact.avoid",  # health
    "fact.has-got",  # household
    "fact.has-named",  # household
    "fact.pet-is",  # household
    "fact.dont-have",  # household
    "fact.drive",  # household
    "fact.my-hours",  # routines
    "fact.day-off",  # routines
    "fact.reach-me",  # details
    "fact.attribute-s",  # details
    "preference.copula-taste",  # preferences
    "preference.person",  # preferences
    "preference.taste-verb",  # preferences
    "preference.rather-open",  # preferences
    "preference.favorite-inverted",  # preferences
    "preference.go-to",  # preferences
    "preference.would-prefer",  # preferences
    "preference.choose",  # preferences
)

# Stative first-person declaratives that fill the gaps of the two tiers above (health,
# biography, household 'we', negative and emphatic tastes, assistant-directed imperatives,
# relations, dated events).
STATIVE: tuple[str, ...] = (
    "instruction.dont-call-me",  # instructions
    "instruction.talk-to-me",  # instructions
    "instruction.neg-generic",  # instructions
    "instruction.domain",  # instructions
    "instruction.order",  # instructions
    "instruction.skip",  # instructions
    "instruction.keep-generic",  # instructions
    "instruction.no-ever",  # instructions
    "instruction.x-always",  # instructions
    "instruction.when-i-ask",  # instructions
    "fact.condition-diagnosed",  # health
    "fact.get-sick",  # health
    "fact.med-history",  # health
    "fact.state-household",  # health
    "fact.on-medication",  # health
    "fact.aid",  # health
    "fact.cant-take",  # health
    "fact.born-and-raised",  # places
    "fact.speaks-count",  # identity
    "fact.family-of",  # places
    "fact.home-or-business",  # places
    "fact.duration",  # work
    "fact.past-job",  # work
    "fact.oldest-of",  # identity
    "fact.school",  # work
    "fact.school-year",  # work
    "fact.plays-for",  # work
    "fact.runs-project",  # work
    "fact.tool",  # details
    "fact.platform",  # details
    "fact.my-tech",  # details
    "fact.commute",  # routines
    "fact.usually-state",  # routines
    "fact.job-living-in",  # work
    "fact.works-like",  # work
    "fact.engaged",  # identity
    "instruction.do-when-you",  # instructions
    "preference.not-a-fan-fragment",  # preferences
    "preference.we-like",  # preferences
    "preference.never",  # preferences
    "preference.dont-do",  # preferences
    "preference.cant-get-enough",  # preferences
    "preference.emphatic",  # preferences
    "preference.not-much-of",  # preferences
    "preference.drinker",  # preferences
    "preference.find",  # preferences
    "preference.better-than",  # preferences
    "contact.is-my-with-detail",  # people
    "contact.relation-is-detail",  # people
    "event.first-person-dated",  # events
    "event.relation-dated",  # events
    "event.bare",  # events
)

# The catch-all routines ('I usually <verb> ...', 'I <verb> ... every morning'): after every
# stative shape, since almost any clause with a habit adverb or a frequency matches them.
ROUTINES: tuple[str, ...] = (
    "fact.habit-adverb",  # routines
    "fact.habit-frequency",  # routines
)

# A few closed shapes that the open families below would misread (a team supported read
# as a habit) or not reach (a definite role, a status with a span, a dated move).
CLOSED_SHAPES: tuple[str, ...] = (
    "fact.on-waiting-list",  # health
    "preference.supports-team",  # preferences
    "fact.the-role-of",  # work
    "fact.been-status-span",  # identity
    "fact.came-to-when",  # places
    "fact.retired-when",  # work
    "instruction.presentation-style",  # instructions
)

# Open-class families that read the shape of a declaration instead of a word list
# ('I <present verb> <generic object>', '<condition-shaped noun phrase>', '<Name> is my
# <role noun>'), each with precision guards: last, so any more specific pattern wins.
OPEN_FAMILIES: tuple[str, ...] = (
    "fact.condition-shaped",  # health
    "fact.medical-event",  # health
    "fact.state-phrase",  # health
    "fact.parent-of",  # identity
    "fact.organisation-role",  # work
    "fact.holds-pass-or-licence",  # household
    "fact.on-a-programme",  # work
    "fact.moved-from",  # places
    "fact.speaks-where",  # identity
    "fact.works-shifts",  # work
    "fact.has-counted",  # household
    "fact.new-baby",  # household
    "fact.lived-whole-life",  # places
    "fact.had-for-span",  # work
    "fact.gets-up-at",  # routines
    "fact.past-biography",  # work
    "fact.habitual-verb",  # routines
    "contact.is-my-role",  # people
    "contact.role-called",  # people
    "instruction.convention",  # instructions
    "instruction.format-generic",  # instructions
    "instruction.whenever-i-send",  # instructions
    "preference.cant-get-into",  # preferences
    "preference.my-thing",  # preferences
    "preference.choose-over",  # preferences
    "preference.sweet-tooth",  # preferences
    "preference.supporter",  # preferences
    "event.my-any-event",  # events
    "event.season-starts",  # events
)

# fmt: on

#: The tiers, in the order they are tried.
TIERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("first", FIRST),
    ("specific", SPECIFIC),
    ("general", GENERAL),
    ("stative", STATIVE),
    ("routines", ROUTINES),
    ("closed-shapes", CLOSED_SHAPES),
    ("open-families", OPEN_FAMILIES),
)
