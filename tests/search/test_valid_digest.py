"""One record's valid vector digest (``VectorIndex.valid_digest``) agrees with the scope's map
(``valid_digests``) whatever holds the vector: a main row, a delta row, a main row made dead by
an edit or a forget; and a searcher's catch-up on a few new records looks them up one by one,
never building the map of their scope's every vector (issue 21: tens of ms of Python per new
record at 100k, while a long-lived searcher's searches waited for the GIL)."""

from __future__ import annotations

from typing import Any

import pytest

from mem.format.index.backlog import missing_vectors
from mem.format.index.build import rebuild
from mem.format.index.lexical import LexicalIndex
from mem.format.index.vectors import VectorIndex
from mem.format.search.engine import open_searcher
from mem.format.store.store import RecordFilter, Store


@pytest.fixture
def built(sstore: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    """Both indexes built (main rows), then a new record, an edit and a forget (delta, dead rows)."""
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
    rebuild(sstore)
    with open_searcher(sstore) as s:
        s.search("warm up", mode="hybrid")
        sstore.add("Ana keeps a kite in the hall", scope="ana")
        old = sstore.list(RecordFilter(scopes=["bob"]))
        sstore.update(old[0].id, content="Bob moved to Braga last spring")
        sstore.forget([old[1].id], reason="test")
        s.catch_up()
    return sstore


def both(store: Store) -> tuple[LexicalIndex, VectorIndex]:
    lex = LexicalIndex.open(store.index_dir)
    vec = VectorIndex.open(store.index_dir)
    assert lex is not None and vec is not None
    return lex, vec


def test_one_record_agrees_with_the_scope_map(built: Store) -> None:
    lex, vec = both(built)
    try:
        kinds = {"delta": 0, "main": 0, "none": 0}
        for scope in ("ana", "bob", "nobody"):
            valid = vec.valid_digests(scope)
            ids = set(valid) | lex.scope_ids(scope) | set(vec._dead.get(scope, set())) | {"01JZZZZZZZZZZZZZZZZZZZZZZZ"}
            for rid in sorted(ids):
                assert vec.valid_digest(scope, rid) == valid.get(rid), (scope, rid)
                at = vec._live_at(scope, rid)
                kinds["none" if at is None else "delta" if at[1] is not None else "main"] += 1
        # every kind of place was looked at: main rows, delta rows, dead or unknown ids
        assert kinds["main"] >= 2 and kinds["delta"] >= 2 and kinds["none"] >= 2
    finally:
        vec.close()
        lex.close()


def test_a_few_new_records_are_looked_up_without_the_scope_map(built: Store,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def no_map(self: VectorIndex, scope: str) -> Any:
        raise AssertionError(f"the map of {scope}'s every vector was built")

    built.add("Ana flies the kite on Sundays", scope="ana")
    built.add("Bob mends old bicycles", scope="bob")
    with open_searcher(built) as s:
        s.search("kite", mode="hybrid")
        lex, vec = both(built)
        try:
            monkeypatch.setattr(VectorIndex, "valid_digests", no_map)
            assert missing_vectors(lex, vec) == []  # the first search embedded them
            built.add("Ana paints the hall green", scope="ana")
            s.catch_up()  # the background round embeds it, looking it up alone
            res = s.search("paints the hall", mode="hybrid")
            assert "paints the hall" in res.hits[0].content and res.unembedded == 0
            assert res.hits[0].arms == ["lexical", "vector"]
            # the whole store's check still builds the maps (a full check of every record)
            with pytest.raises(AssertionError, match="every vector"):
                missing_vectors(lex, vec, full=True)
        finally:
            vec.close()
            lex.close()
