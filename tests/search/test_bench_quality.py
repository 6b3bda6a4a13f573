"""The labelled retrieval set is honest: paraphrases share no content word with their record."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from quality import EXACT, QUALITY

STOP = set(
    ["a", "an", "the", "i", "my", "me", "we", "our", "is", "are", "am", "to", "of", "in", "on", "at", "for", "with", "and", "or", "but", "so", "by", "be", "it", "its", "this", "that", "which", "what", "when", "where", "who", "how", "do", "does", "did", "must", "can", "cannot", "not", "no", "after", "before", "every", "each", "from", "up"]
)


def words(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", text.lower())} - STOP


def test_paraphrases_share_no_content_word() -> None:
    assert len(QUALITY) >= 30
    for q in QUALITY:
        assert not words(q["record"]) & words(q["paraphrase"]), q
        assert words(q["record"]) & words(q["keyword"]), q


def test_exact_queries_are_in_their_record() -> None:
    for q in EXACT:
        assert all(w.lower() in q["record"].lower() for w in q["query"].split()), q


def test_buried_details_lie_past_the_embedding_window() -> None:
    """Each BURIED record's detail starts after MiniLM's 256-token window, and its query's
    words are all in the record (lexical can find it; the vector arm cannot see it)."""
    from quality import BURIED, buried_record
    from tokenizers import Tokenizer

    from mem.format.embed.minilm import MAX_TOKENS, TOKENIZER_PATH

    tok = Tokenizer.from_file(str(TOKENIZER_PATH))
    tok.no_truncation()
    assert len(BURIED) >= 10
    for i, q in enumerate(BURIED):
        text = buried_record(i)
        before = text[: text.index(q["detail"])]
        assert len(tok.encode(before).ids) > MAX_TOKENS, q  # [CLS] + filler already fill the window
        assert words(q["query"]) <= words(text), q
