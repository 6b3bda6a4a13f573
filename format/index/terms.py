"""Query-term evidence for hybrid fusion: how much of a query a record's text contains.

``coverage`` is the idf-weighted fraction of the query's terms found in a record, with terms
produced exactly as the lexical index produces them (``lexicon.content_analyzer``: words,
long ones dropped, lower-cased, English stemmer) and idf as tantivy's BM25 computes
it. Unlike a BM25 score it does not shrink with the record's length and does not depend on the
other hits of the query, so a long record that contains every query term scores 1.0 and a record
that shares one common word with the query scores little (see bench/README.md, "Fusion").
Importing this module does not import tantivy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mem.format.index.lexical import query_words
from mem.format.rules.lexicon import content_analyzer, nfc


def analyzer() -> Any:
    """The tantivy TextAnalyzer of the content field (``lexicon.content_analyzer``)."""
    return content_analyzer()


def terms(text: str) -> frozenset[str]:
    """The distinct indexed terms of ``text`` (read in NFC, as the index holds it)."""
    return frozenset(analyzer().analyze(nfc(text)))


def query_weights(searcher: Any, text: str, field: str = "content",
                  cache: dict[str, float] | None = None) -> dict[str, float]:
    """The query's distinct terms with their idf in ``searcher`` (tantivy's BM25 idf).

    ``cache`` (term -> idf) is read and filled; it is only valid for this same ``searcher``.
    """
    n = int(searcher.num_docs)
    out: dict[str, float] = {}
    for t in analyzer().analyze(" ".join(query_words(text))):
        if t in out:
            continue
        idf = None if cache is None else cache.get(t)
        if idf is None:
            df = int(searcher.doc_freq(field, t))
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            if cache is not None:
                if len(cache) > 100_000:
                    cache.clear()
                cache[t] = idf
        out[t] = idf
    return out


#: Terms per presence query: each is scored 2**i, and tantivy's float32 scores hold sums of
#: distinct powers of two below 2**24 exactly.
_PRESENCE_CHUNK = 20


def presence(searcher: Any, schema: Any, keys: Sequence[tuple[str, str]], words: Sequence[str],
             field: str = "content") -> dict[tuple[str, str], tuple[str, frozenset[str]]]:
    """Which of ``words`` (indexed terms) each document (scope, id) of ``keys`` contains, with
    the digest of the document read: ``{(scope, id): (digest, terms found)}``.

    Read from the index, not the records: one query per ``_PRESENCE_CHUNK`` terms, restricted to
    ``keys``, whose score is the sum of 2**i over the terms i a document contains. Documents
    that contain none of the terms are absent from the result.
    """
    import tantivy

    Q, Occur = tantivy.Query, tantivy.Occur
    out: dict[tuple[str, str], tuple[str, set[str]]] = {}
    if not keys or not words:
        return {}
    only = Q.const_score_query(Q.boolean_query(
        [(Occur.Should, Q.term_query(schema, "key", f"{sc}/{rid}")) for sc, rid in keys]), 0.0)
    for a in range(0, len(words), _PRESENCE_CHUNK):
        chunk = list(words[a:a + _PRESENCE_CHUNK])
        anyterm = Q.boolean_query([(Occur.Should, Q.const_score_query(Q.term_query(schema, field, t), float(1 << i)))
                                   for i, t in enumerate(chunk)])
        q = Q.boolean_query([(Occur.Must, only), (Occur.Must, anyterm)])
        for score, addr in searcher.search(q, limit=len(keys), count=False).hits:
            d = searcher.doc(addr)
            key = (d["scope"][0], d["id"][0])
            mask = round(score)
            got = out.setdefault(key, (d["digest"][0], set()))
            got[1].update(t for i, t in enumerate(chunk) if mask >> i & 1)
    return {k: (dg, frozenset(found)) for k, (dg, found) in out.items()}


def coverage(weights: dict[str, float], doc_terms: frozenset[str], total: float | None = None) -> float:
    """The idf-weighted fraction of the query terms present in ``doc_terms`` (0..1); ``total``,
    when given, is ``sum(weights.values())`` (computed once for many records)."""
    if total is None:
        total = sum(weights.values())
    if total <= 0.0:
        return 0.0
    return sum(w for t, w in weights.items() if t in doc_terms) / total


__all__ = ["analyzer", "coverage", "presence", "query_weights", "terms"]
