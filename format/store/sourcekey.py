"""The source key: a digest that identifies the outside item a record came from (an import's
item, a capture's turn), kept in tombstones so that a forgotten item is not brought back."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from mem.format.rules import patternids


def source_key(source: Mapping[str, Any]) -> str | None:
    """A digest that identifies the outside item a record came from (import or capture).

    Imports are identified by (system, original_id); captures by (transcript, conversation,
    turn, pattern; a renamed pattern by its former id, see ``rules.patternids``). Tombstones
    keep this key so that a forgotten item is not brought back by re-importing or re-capturing
    its source, even if the source's wording changed.
    """
    system, orig = source.get("system"), source.get("original_id")
    if system and orig is not None:
        basis = f"import\x00{system}\x00{orig}"
    elif source.get("type") == "capture" and source.get("turn") is not None:
        pattern = source.get("pattern", "")
        basis = "capture\x00{}\x00{}\x00{}\x00{}".format(
            source.get("transcript", ""),
            source.get("conversation", ""),
            source.get("turn"),
            # a renamed pattern hashes its former id, so keys stored before the rename still match
            patternids.key_id(pattern) if isinstance(pattern, str) else pattern,
        )
        if source.get("clause") not in (None, 0):
            # a second find of the same pattern in one turn (e.g. "I love X and I love Y")
            basis += "\x00{}".format(source.get("clause"))
    else:
        return None
    return "sha256:" + hashlib.sha256(basis.encode("utf-8")).hexdigest()
