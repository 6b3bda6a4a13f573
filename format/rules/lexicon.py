"""The words of the lexical index: how the ``content`` field and a query are cut into terms, and
the version of the index's schema. Whoever writes or reads the index (the full index path, the
one-shot search, query-term evidence for fusion) calls these; tantivy keeps only the tokenizer's
name in the index, so the rule cannot live anywhere else.

Standard library only and cheap to import; tantivy is imported when an analyzer is first built.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (lean search path)
if TYPE_CHECKING:
    from typing import Any

#: The lexical index's schema: 2, the content field's own tokenizer (CONTENT_TOKENIZER);
#: 1, tantivy's en_stem. A generation of an older schema is rebuilt, a newer one refused.
SCHEMA_VERSION = 2

#: The tokenizer of the tantivy ``content`` field since SCHEMA_VERSION 2 (``content_analyzer``):
#: tantivy keeps only its name in the index, so every Index object that reads or writes the field
#: registers it first (``mem.format.index.lexread.open_index``, ``lexical.build_lexical``).
CONTENT_TOKENIZER = "mem_text"
#: Chinese characters, Japanese kana and Korean syllables: the code point ranges of the CJK
#: ideograph blocks (unified, extensions A-H, compatibility), hiragana, katakana (with the
#: phonetic extensions and the half-width forms), the kana supplements and the Hangul syllables
#: (Korean writes spaces, but particles join the word before them: "서울에서", "in Seoul").
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3041, 0x309F), (0x30A1, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3), (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0x1B000, 0x1B16F), (0x20000, 0x323AF),
)
_CJK = "".join(f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in CJK_RANGES)
#: A word: one letter of ``CJK_RANGES`` (Chinese and Japanese have no spaces between words; a
#: character per term is what full-text engines do without a dictionary, e.g. Lucene's standard
#: tokenizer for ideographs), or a run of any other letters and digits, as tantivy's simple tokenizer
#: (``char::is_alphanumeric``) splits the rest.
CONTENT_PATTERN = rf"[[{_CJK}]&&[\p{{Alphabetic}}\p{{N}}]]|[[\p{{Alphabetic}}\p{{N}}]--[{_CJK}]]+"
#: Words of this many bytes or more are not indexed (tantivy's en_stem drops 40, which lost
#: 40-digit git commit ids and 64-digit sha256 digests).
MAX_TERM_BYTES = 100

_ANALYZER: Any = None


def content_analyzer() -> Any:
    """The tantivy TextAnalyzer of the content field: ``CONTENT_PATTERN`` words, those of
    ``MAX_TERM_BYTES`` or more dropped, lower-cased, accents folded to ASCII where Latin letters
    have an ASCII form ("Zürich" is "zurich", "straße" "strasse": people type names without
    their accents; MiniLM's own tokenizer strips them too), English stemmer (built once)."""
    global _ANALYZER
    if _ANALYZER is None:
        import tantivy

        _ANALYZER = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(CONTENT_PATTERN))
            .filter(tantivy.Filter.remove_long(MAX_TERM_BYTES))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold())
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
    return _ANALYZER


def nfc(text: str) -> str:
    """``text`` in Unicode normalization form C, as the lexical index holds it: the same word typed
    composed ("é", U+00E9) or decomposed ("e" + U+0301, as text from macOS or some PDFs comes) is
    one term. ASCII text is returned as it is, without importing unicodedata."""
    if text.isascii():
        return text
    import unicodedata

    return unicodedata.normalize("NFC", text)


#: The words of tantivy's query grammar (AND, OR, NOT, TO, IN), lowercased: ``query_words`` drops them.
OPERATORS = frozenset(("and", "or", "not", "to", "in"))
_CJK_FIRST = CJK_RANGES[0][0]


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return o >= _CJK_FIRST and any(a <= o <= b for a, b in CJK_RANGES)


def _cjk_split(word: str) -> list[str]:
    """``word`` cut before and after each of its letters of ``CJK_RANGES``."""
    if word.isascii() or not any(_is_cjk(c) for c in word):
        return [word]
    out: list[str] = []
    start = 0
    for i, c in enumerate(word):
        if _is_cjk(c):
            if start < i:
                out.append(word[start:i])
            out.append(c)
            start = i + 1
    if start < len(word):
        out.append(word[start:])
    return out


def query_words(text: str) -> list[str]:
    """The searchable words of a free-text query, lowercased: its runs of word characters, as the
    pattern ``\\w+`` finds them (a letter, digit or number of any script, or '_'), in code:
    ``import re`` costs a third of a lean ``mem search`` (ids.py). The words of ``OPERATORS``
    are dropped, unless the query has no other word: "not" or "IN" alone is searched as the word
    it is (tantivy reads lowercase words as terms, never as operators). The text is read in NFC
    (``nfc``), and each Chinese character, kana or Hangul syllable is a word of its own
    (``CJK_RANGES``): tantivy would read a run of them, one word of the query, as a phrase."""
    text = nfc(text)
    words: list[str] = []
    start = -1
    for i, c in enumerate(text):
        if c.isalnum() or c == "_":
            if start < 0:
                start = i
        elif start >= 0:
            words.append(text[start:i])
            start = -1
    if start >= 0:
        words.append(text[start:])
    if not text.isascii():  # each letter of CJK_RANGES its own word, as the index has them
        words = [part for w in words for part in _cjk_split(w)]
    low = [m.lower() for m in words]
    return [w for w in low if w not in OPERATORS] or low
