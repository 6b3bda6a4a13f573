"""The text a record's vector is made from (spec/index.md, "The embedded text").

A record's vector is made from its content without a leading own-speaker prefix: in a chat
export's turn written ``"Ottilie: night!"`` the name weighs, in a small embedder's vector of a
short turn, as much as the rest, so that the short turns of the person a question names crowd
out the answer (bench/README.md, "A variant: the speaker's name in each turn's text"). Who said
it stays known (``source.speaker``, or the prefix itself: the search's stage 2 reads it); only
the embedded text leaves it out. Every writer of a vector (a search's backfill, bulk embedding,
a build) calls :func:`embedding_text` (through ``Record.embedding_text`` or
``DocFields.embedding_text``); the query side is not changed.

The prefix removed, at the very start of the content (spaces and tabs before it allowed), then a
colon, then white space, then the rest:

- the record's own speaker (``source.speaker``, else ``source.author``, else ``source.name``; a
  non-empty string), compared without case and with runs of white space as one space;
- for a record with no speaker in its source, and only of kind ``episode`` (a turn of a
  conversation): a name of one or two words, each a capital letter then letters (at least one
  lower-case; ``'``, ``’`` and ``-`` inside), at most ``NAME_MAX`` characters, that is not a
  label word (``LABELS``: "Note:", "Todo:", "Update:", the days and months...).

Nothing else is removed: not "TODO:" or "NB:" (no lower-case letter), "10:30", "https://..."
(no white space after the colon), a name not the record's own speaker's, a prefix of a record of
another kind without a speaker. A content that is only the prefix ("Ottilie:") keeps its text:
the embedded text is never empty.

The same rule says who said a record (:func:`record_speaker`): its source's speaker, else the
name of such a prefix of an ``episode``; the search's stage 2 reads it
(``relevance.speaker_of``), so that the name a vector leaves out is the name stage 2 matches.

Standard library only and cheap to import.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

#: The recipe of the embedded text, kept in the vector index's manifest (``text_recipe``; an
#: index without one was made by a mem of recipe 1). 1: the content as it is; 2: the content
#: without a leading own-speaker prefix (:func:`embedding_text`).
TEXT_RECIPE = 2
#: The recipe of a vector index whose manifest names none.
TEXT_RECIPE_UNNAMED = 1

#: The longest name read as a speaker prefix without a speaker in the source (both words).
NAME_MAX = 40
#: The source keys naming who said a record, in order.
SPEAKER_KEYS: tuple[str, ...] = ("speaker", "author", "name")
_LABEL_WORDS = """
    note notes todo to-do reminder reminders update updates edit edited summary question
    questions answer answers warning error important tip tips example examples source
    sources subject re fwd fw cc bcc to from date dates time times title status task tasks
    step steps result results fact facts goal goals idea ideas tldr caution info hint hints
    quote link links url file path ref see also action actions decision decisions issue
    issues problem solution fix bug feature plan plans agenda topic context background
    location place where when why how what who which breakfast lunch dinner day week month
    year morning afternoon evening night today tomorrow yesterday tonight weekend monday
    tuesday wednesday thursday friday saturday sunday january february march april may june
    july august september october november december correction disclaimer spoiler hot take
    pro fun side fyi memo log entry draft final next last first second third then now later
    remember remembered new old good bad yes no ok okay
"""
#: Capitalised words that label a line rather than name who speaks (lower case).
LABELS: frozenset[str] = frozenset(_LABEL_WORDS.split())

_NAME_WORD = r"[^\W\d_][^\W\d_'’\-]*(?:['’\-][^\W\d_]+)*"
#: Up to two words, the colon and the white space after it (compiled on first use: a command
#: that imports the rule without reading an episode's prefix, ``mem add``, does not pay for it).
_PREFIX_PATTERN = rf"[ \t]*({_NAME_WORD}(?: {_NAME_WORD})?)[ \t]*:\s+"
_PREFIX: re.Pattern[str] | None = None


def source_speaker(source: Mapping[str, Any]) -> str | None:
    """Who said a record, as its source names it (``SPEAKER_KEYS``), stripped; None: no one."""
    for key in SPEAKER_KEYS:
        v = source.get(key)
        if isinstance(v, str) and v.strip():
            return v.strip()
    return None


def _folded(name: str) -> str:
    return " ".join(name.split()).casefold()


def _is_name(words: str) -> bool:
    """A name as a speaker prefix without a source speaker: each word capitalised, with a
    lower-case letter, not a label word; the whole at most ``NAME_MAX`` characters."""
    if len(words) > NAME_MAX:
        return False
    for w in words.split(" "):
        if not w[0].isupper() or not any(c.islower() for c in w[1:]) or w.casefold() in LABELS:
            return False
    return True


def _name_prefix(content: str, kind: str) -> re.Match[str] | None:
    """The leading ``Name:`` of an ``episode`` whose source names no speaker (see the module's
    docstring), or None."""
    global _PREFIX
    if kind != "episode":
        return None
    if _PREFIX is None:
        _PREFIX = re.compile(_PREFIX_PATTERN)
    m = _PREFIX.match(content)
    return m if m is not None and _is_name(m.group(1)) else None


def record_speaker(source: Mapping[str, Any], content: str, kind: str) -> str | None:
    """Who said a record: its source's speaker (:func:`source_speaker`), else, for an
    ``episode``, the name of a leading speaker prefix of its content ("Ottilie: night!" ->
    "Ottilie"; the prefix :func:`prefix_end` finds); None: no one."""
    named = source_speaker(source)
    if named is not None:
        return named
    m = _name_prefix(content, kind)
    return m.group(1) if m is not None else None


def prefix_end(content: str, kind: str, speaker: str | None) -> int:
    """Where the text after a leading own-speaker prefix starts in ``content`` (0: there is none;
    see the module's docstring). ``speaker``: the record's source speaker (:func:`source_speaker`)."""
    if speaker is not None:
        own = _folded(speaker)
        if not own:
            return 0
        lead = len(content) - len(content.lstrip(" \t"))
        # the speaker's words (as many as its name has) then the colon
        head = content[lead:lead + len(speaker) + 2 * own.count(" ") + 8]
        colon = head.find(":")
        if colon <= 0 or "\n" in head[:colon] or _folded(head[:colon]) != own:
            return 0
        end = lead + colon + 1
        after = len(content) - len(content[end:].lstrip())
        if after == end:  # no white space after the colon ("Re:x", "10:30")
            return 0
    else:
        m = _name_prefix(content, kind)
        if m is None:
            return 0
        after = m.end()
    return after if content[after:].strip() else 0


def embedding_text(content: str, kind: str, speaker: str | None) -> str:
    """The text a record's vector is made from: ``content`` without a leading own-speaker prefix
    (never empty when ``content`` is not). ``speaker``: the record's source speaker
    (:func:`source_speaker`). ``Record.embedding_text`` and ``DocFields.embedding_text`` call it."""
    return content[prefix_end(content, kind, speaker):]


def manifest_recipe(value: object) -> int:
    """The text recipe a vector index's manifest names (``text_recipe``): absent, recipe
    ``TEXT_RECIPE_UNNAMED``; anything but a positive integer, 0 (unknown: never this mem's)."""
    if value is None:
        return TEXT_RECIPE_UNNAMED
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return 0


def same_text(recipe: int, content: str, kind: str, speaker: str | None) -> bool:
    """Whether a vector made with the text recipe ``recipe`` was made from the text this mem
    embeds (:func:`embedding_text`): always for this recipe; for recipe 1 (the content as it is)
    when the content has no prefix to remove; never for a recipe this mem does not know."""
    if recipe == TEXT_RECIPE:
        return True
    if recipe == 1:
        return prefix_end(content, kind, speaker) == 0
    return False
