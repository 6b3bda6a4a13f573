"""Zero-LLM capture of candidate memories from conversation transcripts.

- :mod:`.transcripts`: readers (JSON Lines, plain ``User:``/``Assistant:`` text, Skales session
  files, WindieOS ``episodic.db`` transcript rows) and format detection.
- :mod:`.patterns`: the anchored pattern table and sentence guards.
- :mod:`.secrets`: secret detection (a capture holding a secret is refused, never echoed).
- :mod:`.extract`: one user turn -> candidates.
- :mod:`.engine`: capture into a store (watermarks, dedup, tombstone and rejection suppression).
"""

from .extract import Candidate, extract
from .secrets import find_secret

__all__ = ["Candidate", "extract", "find_secret"]
