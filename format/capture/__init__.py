"""Zero-LLM capture of candidate memories from conversation transcripts.

- :mod:`.transcripts`: readers (JSON Lines, plain ``User:``/``Assistant:`` text, Skales session
  files, WindieOS ``episodic.db`` transcript rows) and format detection.
- :mod:`.patterns`: the anchored patterns, one module per family of what they capture, their
  precedence, and the sentence guards; :mod:`.idioms`: fixed expressions that declare nothing.
- secret detection is :mod:`mem.format.rules.secretpolicy` (a capture holding a secret is refused, never echoed).
- :mod:`.extract`: one user turn -> candidates.
- :mod:`.engine`: capture into a store (watermarks, dedup, tombstone and rejection suppression).
"""

from typing import Any

__all__ = ["Candidate", "extract", "find_secret"]


def __getattr__(name: str) -> Any:
    # imported on first use: the pattern table compiles hundreds of expressions, which a capture
    # run with nothing new to read (or a reader of transcripts alone) never needs
    if name in ("Candidate", "extract"):
        from mem.format.capture import extract as _extract

        return getattr(_extract, name)
    if name == "find_secret":
        from mem.format.rules.secretpolicy import find_secret

        return find_secret
    raise AttributeError(name)
