"""Search through the Python API: scope isolation, forgetting, staleness, filters, space guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mem.format.base.errors import (
    EmbedderUnavailableError,
    IndexUnavailableError,
    InvalidInputError,
)
from mem.format.embed import EmbeddingSpace
from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.common import LEXICAL_POINTER
from mem.format.index.derived import attach, index_stats, rebuild, refresh, staleness
from mem.format.model.record import dump_record
from mem.format.search.engine import Searcher, open_searcher
from mem.format.store.store import Store
from tests.conftest import run_mem, searched

MODES = ("lexical", "vector", "hybrid")


def ids_of(res: Any) -> list[str]:
    return [h.id for h in res.hits]


def test_scope_isolation_every_mode(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        for mode in MODES:
            res = s.search("lives in the city", scopes=["bob"], mode=mode, k=10)
            assert res.mode == mode
            assert res.hits, mode
            assert {h.scope for h in res.hits} == {"bob"}, mode
            res = s.search("Lisbon river", scopes=["bob"], mode=mode)
            assert all(h.scope == "bob" for h in res.hits)
            assert not any("Lisbon" in h.content for h in res.hits)
        # a scope that does not exist has no results, not an error
        assert s.search("Lisbon", scopes=["nobody"], mode="hybrid").hits == []


def test_forgotten_never_found_even_with_stale_index(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        src = sstore.list()[0]
        target = next(r for r in sstore.list() if "Lisbon" in r.content)
        derived = sstore.add("Summary: Ana is based in Lisbon", scope="ana", kind="summary",
                             derived_from=[target.id])
        for mode in MODES:
            assert target.id in ids_of(s.search("Lisbon", mode=mode, k=10))
        # forget through a second Store object WITHOUT the index listener: the index stays stale
        other = Store.open(sstore.root)
        plan = other.forget([target.id], reason="test")
        assert {r.id for r in plan.records} == {target.id, derived.id}
        for mode in MODES:
            got = ids_of(s.search("Lisbon Ana based", mode=mode, k=10))
            assert target.id not in got and derived.id not in got, mode
        assert src is not None


def test_forget_through_listener_updates_indexes(sstore: Store) -> None:
    s = Searcher(sstore, long_lived=False)  # (no background upkeep: the forget alone is looked at)
    s.search("tea", mode="hybrid")  # builds both indexes
    tea = next(r for r in sstore.list() if "tea" in r.content)
    before = index_stats(sstore).to_dict()
    sstore.forget([tea.id], reason="x")
    # a forget leaves no live copy in the indexes when it returns (spec/format.md §17): its
    # removals are applied at once, not journaled for the next search
    after = index_stats(sstore).to_dict()
    assert after["lexical"]["pending"] == 0
    refresh(sstore)  # what every search does first: nothing left to do
    assert index_stats(sstore).to_dict() == after
    assert after["lexical"]["docs"] == before["lexical"]["docs"] - 1
    assert after["lexical"]["generation"] == before["lexical"]["generation"]  # no rebuild
    assert after["vectors"]["vectors"] == before["vectors"]["vectors"] - 1
    for mode in MODES:
        assert tea.id not in ids_of(s.search("green tea coffee", mode=mode))


def test_add_is_incremental_and_vectors_backfilled(sstore: Store) -> None:
    s = Searcher(sstore, long_lived=False)  # (a long-lived one would apply the journal at once)
    s.search("anything here", mode="hybrid")
    st0 = index_stats(sstore).to_dict()
    new = sstore.add("Carla collects vintage typewriters", scope="ana")
    st1 = index_stats(sstore).to_dict()
    assert st1["lexical"]["pending"] == 1 and st1["lexical"]["docs"] == st0["lexical"]["docs"]
    refresh(sstore)
    st1 = index_stats(sstore).to_dict()
    assert st1["lexical"]["generation"] == st0["lexical"]["generation"]
    assert st1["lexical"]["docs"] == st0["lexical"]["docs"] + 1
    assert st1["lexical"]["stale_scopes"] == []
    assert st1["vectors"]["missing"] == 1  # mem add never embeds
    res = s.search("vintage typewriters", mode="hybrid")
    assert res.hits[0].id == new.id and res.hits[0].arms == ["lexical", "vector"]
    assert index_stats(sstore).to_dict()["vectors"]["missing"] == 0


def test_external_edit_delete_and_new_file(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        assert s.search("Porto bridge", mode="lexical").hits
        bob = next(r for r in sstore.list() if "Porto" in r.content)
        path = sstore.record_path("bob", bob.id)
        # an editor rewrites the file (new content) ...
        path.write_text(dump_record(bob.with_changes(content="Bob moved to Faro by the sea\n")), "utf-8")
        s.catch_up()  # a long-lived searcher picks up changes in the background
        res = s.search("Faro sea", mode="lexical")
        assert [h.id for h in res.hits] == [bob.id] and "Faro" in res.hits[0].content
        assert s.search("Porto bridge", mode="lexical").hits == []
        # ... a file appears (git pull) ...
        other = bob.with_changes(id="01JAAAAAAAAAAAAAAAAAAAAAAA", content="Dora plays the cello\n")
        (path.parent / f"{other.id}.md").write_text(dump_record(other), "utf-8")
        s.catch_up()
        assert ids_of(s.search("cello", mode="hybrid"))[0] == other.id
        assert ids_of(s.search("cello", mode="lexical")) == [other.id]
        # ... and a file is deleted (checkout)
        path.unlink()
        for mode in MODES:
            assert bob.id not in ids_of(s.search("Faro sea Bob", mode=mode))  # at once: every hit is read
        s.catch_up()
        assert not staleness(sstore).stale


def test_in_place_edit_keeping_dir_mtime_is_caught_at_hit(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        s.search("tea", mode="lexical")
        tea = next(r for r in sstore.list() if "tea" in r.content)
        path = sstore.record_path("ana", tea.id)
        d = path.parent
        dst = os.stat(d)
        with path.open("r+", encoding="utf-8") as f:  # in place: the directory is untouched
            text = dump_record(tea.with_changes(content="Ana prefers green tea, never juice\n"))
            f.write(text)
            f.truncate()
        os.utime(d, ns=(dst.st_atime_ns, dst.st_mtime_ns))
        res = s.search("green tea", mode="lexical")
        assert res.hits[0].id == tea.id and "juice" in res.hits[0].content
        assert ids_of(s.search("juice", mode="lexical")) == [tea.id]  # re-indexed


def test_filters_status_kind_tag_and_times(store: Store) -> None:
    attach(store)
    old = store.add("The office is in Berlin", scope="w", kind="fact", valid_from="2020-01-01")
    new, old2 = store.supersede(old.id, "The office is in Munich", valid_from="2023-06-01")
    rej = store.add("The office is in Paris", scope="w", kind="fact", status="candidate")
    store.reject(rej.id)
    cand = store.add("The office might be in Hamburg", scope="w", kind="note", status="candidate",
                     tags=["rumour"])
    with open_searcher(store) as s:
        for mode in MODES:
            got = ids_of(s.search("office", mode=mode))
            assert set(got) == {new.id, cand.id}, mode  # no superseded, no rejected by default
            assert got.index(new.id) < got.index(cand.id) or mode != "lexical"
            assert ids_of(s.search("office", mode=mode, statuses=["rejected"])) == [rej.id]
            assert ids_of(s.search("office", mode=mode, kinds=["note"])) == [cand.id]
            assert ids_of(s.search("office", mode=mode, tags=["rumour"])) == [cand.id]
            import datetime as dt

            as_of = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)
            assert old.id in ids_of(s.search("office", mode=mode, as_of=as_of))
            assert new.id not in ids_of(s.search("office", mode=mode, as_of=as_of))
            assert ids_of(s.search("office", mode=mode, known_at=old.recorded_at)) == [old.id]
        assert old2.status == "superseded"


def test_bad_queries_fail_not_empty(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        for q in ("", "   ", '"', "+-&&||"):
            with pytest.raises(InvalidInputError):
                s.search(q, mode="lexical")
        with pytest.raises(InvalidInputError):
            s.search("x", mode="fuzzy")
        with pytest.raises(InvalidInputError):
            s.search("x", statuses=["bogus"])


class FailingEmbedder:
    """An embedder whose model cannot run (e.g. a broken install): every call fails."""

    @property
    def space(self) -> EmbeddingSpace:
        return HashingEmbedder().space

    def embed(self, texts: Sequence[str]) -> Any:
        raise EmbedderUnavailableError("model runtime crashed")


def test_embedder_failure_keeps_record_and_backfills_later(sstore: Store) -> None:
    with open_searcher(sstore) as s0:  # (closed: its background thread would embed the new record)
        s0.search("tea", mode="hybrid")  # vector index exists
    rec = sstore.add("Eve keeps bees on the roof", scope="ana")
    with open_searcher(sstore, embedder=FailingEmbedder()) as bad:  # type: ignore[arg-type]
        res = bad.search("bees roof", mode="hybrid")
        assert res.mode == "lexical" and res.warnings and ids_of(res)[0] == rec.id
        with pytest.raises(EmbedderUnavailableError):
            bad.search("bees roof", mode="vector")
        assert sstore.get(rec.id).content.startswith("Eve")
        with open_searcher(sstore) as good:
            res = good.search("bees roof", mode="vector")
            assert ids_of(res)[0] == rec.id and res.warnings == []


def test_embedding_space_guard_and_rebuild(sstore: Store) -> None:
    rebuild(sstore, vectors=True)  # hashing space
    other = EmbeddingSpace("hashing", "other-model", "hashing:other", 384)

    class OtherSpace(HashingEmbedder):
        @property
        def space(self) -> EmbeddingSpace:
            return other

    with open_searcher(sstore, embedder=OtherSpace()) as s:
        res = s.search("Lisbon", mode="hybrid")
        assert res.mode == "lexical" and "mem rebuild --vectors" in res.warnings[0] and res.hits
        with pytest.raises(EmbedderUnavailableError) as ei:
            s.search("Lisbon", mode="vector")
        assert ei.value.exit_code == 10
        assert index_stats(sstore).to_dict()["vectors"]["space_matches"] is True  # config: hashing
        rebuild(sstore, lexical=False, vectors=True, embedder=OtherSpace())
        with open_searcher(sstore, embedder=OtherSpace()) as s2:
            res = s2.search("Lisbon", mode="hybrid")
            assert res.mode == "hybrid" and res.warnings == []


def test_rebuild_swaps_atomically_and_removes_old(sstore: Store) -> None:
    b1 = rebuild(sstore)
    g1 = b1.lexical["generation"] if b1.lexical else ""
    b2 = rebuild(sstore)
    assert b2.lexical and b2.lexical["generation"] != g1
    names = sorted(p.name for p in sstore.index_dir.iterdir() if p.is_dir())
    assert names == sorted([b2.lexical["generation"], b2.vectors["generation"]])  # type: ignore[index]


def test_corrupt_index_is_reported_never_trusted(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        s.search("tea", mode="lexical")
        (sstore.index_dir / LEXICAL_POINTER).write_text("{not json", "utf-8")
        with pytest.raises(IndexUnavailableError) as ei:
            searched(sstore, "tea", mode="lexical")
        assert ei.value.exit_code == 9 and "lexical.json" in str(ei.value)
        rebuild(sstore, lexical=True, vectors=False)
        assert searched(sstore, "tea", mode="lexical").hits


def test_compact_merges_delta_and_drops_dead(sstore: Store) -> None:
    from mem.format.index.derived import compact

    with open_searcher(sstore) as s:
        s.search("tea", mode="hybrid")
        rebuild(sstore)  # delta merged into main rows
        gone = next(r for r in sstore.list() if "Porto" in r.content)
        sstore.forget([gone.id], reason="x")
        sstore.add("Fresh record about kites", scope="bob")
        searched(sstore, "kites", mode="hybrid")  # backfill -> delta
        st = index_stats(sstore).to_dict()["vectors"]
        assert st["dead"] == 1 and st["delta"] == 1
        rep = compact(sstore)
        assert rep["vectors"]["dead_dropped"] == 1 and rep["vectors"]["delta_merged"] == 1
        assert rep["vectors"]["embedded"] == 0
        st = index_stats(sstore).to_dict()
        assert st["vectors"]["dead"] == 0 and st["vectors"]["delta"] == 0 and st["vectors"]["missing"] == 0
        assert st["lexical"]["deleted_docs"] == 0
        assert ids_of(searched(sstore, "kites", mode="vector", k=1))


def test_lexical_mode_imports_no_numpy_usearch_or_model(sstore: Store, tmp_path: Path) -> None:
    searched(sstore, "tea", mode="lexical")
    code = (
        "import sys, json\n"
        "from mem.format.search.engine import open_searcher\n"
        f"r = open_searcher({str(sstore.root)!r}).search('tea', mode='lexical')\n"
        "assert r.hits\n"
        "from mem.cli.main import main\n"
        f"assert main(['--store', {str(sstore.root)!r}, 'search', 'tea', '--mode', 'lexical']) == 0\n"
        "bad = [m for m in ('numpy', 'usearch', 'onnxruntime', 'tokenizers') if m in sys.modules]\n"
        "print(json.dumps(bad))\n"
    )
    env = dict(os.environ, MEM_EMBEDDER="minilm")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.strip().splitlines()[-1]) == []


def test_long_lived_searcher_sees_later_writes(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        s.search("tea", mode="hybrid")
        other = Store.open(sstore.root)
        attach(other)
        rec = other.add("Gina repairs bicycles on Sundays", scope="bob")
        s.catch_up()  # another process's write: picked up in the background (searches never wait for it)
        assert ids_of(s.search("bicycles", mode="hybrid"))[0] == rec.id


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(q=st.text(max_size=60))
def test_any_query_text_answers_or_says_why(sstore: Store, q: str) -> None:
    """Free text never reaches tantivy's query syntax: a result, or InvalidInputError."""
    with open_searcher(sstore) as s:
        try:
            res = s.search(q, mode="lexical")
        except InvalidInputError:
            return
        assert all(h.scope in ("ana", "bob") for h in res.hits)


def test_composed_and_decomposed_accents_are_one_word(store: Store) -> None:
    """The lexical index holds text in NFC with accents folded: a word typed with a composed
    accent ("é", U+00E9), a decomposed one ("e" + U+0301, as text from macOS or a PDF may come) or
    none finds the record written any of these ways, in the API, in the lean CLI path and in
    hybrid's query-term coverage."""
    import unicodedata

    from mem.format.index.terms import terms

    nfd = unicodedata.normalize("NFD", "café Málaga")
    assert nfd != "café Málaga" and len(nfd) == len("café Málaga") + 2
    composed = store.add("We met at the café near the station", scope="ana")
    decomposed = store.add(f"Flights to {unicodedata.normalize('NFD', 'Málaga')} are cheaper in May", scope="ana")
    other = store.add("The cafe on the corner closes early", scope="ana")
    with open_searcher(store) as s:
        cafes = {composed.id, other.id}
        for query, want in (("café", cafes), (unicodedata.normalize("NFD", "café"), cafes), ("CAFE", cafes),
                            ("Málaga", {decomposed.id}), (unicodedata.normalize("NFD", "Málaga"), {decomposed.id}),
                            ("malaga", {decomposed.id}), ("Zürich", set())):
            got = ids_of(s.search(query, mode="lexical"))
            assert set(got) == want and len(got) == len(want), query
            r = run_mem("--store", str(store.root), "search", query, "--mode", "lexical", "--json",
                        env={"MEM_EMBEDDER": "hashing"})
            assert r.returncode == 0 and [h["id"] for h in r.json()["hits"]] == got, (query, r.stderr)
            for rid in want:
                hit = next(h for h in s.search(query, mode="hybrid", explain=True, k=10).hits if h.id == rid)
                assert hit.explain["coverage"] == 1.0, query  # the query term found in the record
        assert terms(nfd) == terms("café Málaga") == terms("cafe malaga") == {"cafe", "malaga"}


def test_cjk_words_and_long_identifiers_are_searchable(store: Store) -> None:
    """Chinese and Japanese text has no spaces, and Korean joins particles to nouns: each such
    character is a term (else a whole sentence, or "서울에서", was one term and no word in it could
    be found); words up to 99 bytes are indexed (en_stem's
    limit of 40 lost full git commit ids and sha256 digests). Through the API and the CLI's lean
    path; what must not match does not."""
    sha = "3f9a0c1d2e4b5a6978877665544332211aabbcc0"
    digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    tokyo = store.add("我住在东京，每天坐地铁上班", scope="ana")
    beijing = store.add("他下个月去北京出差", scope="ana")
    tower = store.add("東京タワーに行きました", scope="ana")
    seoul = store.add("내일 서울에서 만나요", scope="ana")  # "in Seoul": the particle joins the noun
    busan = store.add("다음 주에 부산에 가요", scope="ana")
    commit = store.add(f"The fix shipped in commit {sha}", scope="ana")
    blob = store.add(f"The model file's sha256 is {digest}", scope="ana")
    store.add("The fix shipped in commit 3f9a0c1 of the other branch", scope="ana")
    with open_searcher(store) as s:
        # a query's characters are its words (any of them matches, the records with more rank first),
        # as a natural-language question, one run of characters, would otherwise be one long phrase
        for query, first, absent in (("东京", tokyo.id, None), ("他下个月去哪里出差", beijing.id, None),
                                     ("タワー", tower.id, tokyo.id), ("서울", seoul.id, busan.id),
                                     (sha, commit.id, None), (digest, blob.id, commit.id)):
            got = ids_of(s.search(query, mode="lexical"))
            assert got and got[0] == first, query
            assert absent is None or absent not in got, query
            r = run_mem("--store", str(store.root), "search", query, "--mode", "lexical", "--json",
                        env={"MEM_EMBEDDER": "hashing"})
            assert r.returncode == 0 and [h["id"] for h in r.json()["hits"]] == got, (query, r.stderr)
        assert ids_of(s.search(sha, mode="lexical")) == [commit.id]  # not the short id's record
        assert set(ids_of(s.search("东京", mode="lexical"))) == {tokyo.id, beijing.id, tower.id}  # 京 in all


def test_many_scopes_every_mode(store: Store) -> None:
    """A store of many small scopes (their vectors stacked into one product, the lexical arm with
    no term per scope, tombstones listed once a search): every mode finds each scope's records,
    keeps to the scopes asked, never returns a forgotten record, and sees a scope created since."""
    from mem.format.index import lexical as lexmod

    attach(store)
    towns = ["Lisbon", "Porto", "Braga", "Faro", "Evora", "Coimbra", "Aveiro", "Viseu", "Leiria", "Tomar"]
    recs = {f"u{i:02d}": store.add(f"User {i} lives in {towns[i % 10]} and likes chess number {i}",
                                   scope=f"u{i:02d}", kind="fact") for i in range(30)}
    with open_searcher(store) as s:
        for mode in MODES:
            hits = s.search("lives in Braga", mode=mode, k=20).hits
            assert hits, mode
            if mode != "vector":  # the hashing embedder is not semantic: words decide the others
                assert {h.scope for h in hits if "Braga" in h.content} == {"u02", "u12", "u22"}, mode
            got = s.search("lives in Braga", mode=mode, scopes=["u02", "u03"], k=20).hits
            assert got and {h.scope for h in got} <= {"u02", "u03"}, mode
        gone = recs["u12"]
        Store.open(store.root).forget([gone.id], reason="test")  # no listener: the index is stale
        for mode in MODES:
            assert gone.id not in ids_of(s.search("lives in Braga chess 12", mode=mode, k=30)), mode
        # a scope written outside mem since the last search is found by the next one
        other = Store.open(store.root)
        new = other.add("User 99 lives in Sintra", scope="u99", kind="fact")
        s.catch_up()  # (picked up in the background; the forgotten one above was left out at once)
        for mode in MODES:
            assert new.id in ids_of(s.search("lives in Sintra", mode=mode, k=30)), mode
        # the state rows of many scopes at once, with and without SQLite's JSON functions: the same
        lex = s._lexical([])
        keys = [(r.scope, r.id) for r in recs.values()] + [("u99", new.id), ("u00", "01JD3Z8Q4T6W0000000000000A")]
        joined = lex.meta_of(keys)
        assert set(joined) == set(keys[:-1]) - {("u12", gone.id)}  # the refresh dropped the forgotten one
        fresh = lexmod.LexicalIndex.open(store.index_dir)
        assert fresh is not None
        fresh._json_each = False
        assert fresh.meta_of(keys) == joined
        fresh.close()


def test_every_scope_scores_as_the_list_of_them_all(sstore: Store) -> None:
    """The lexical arm searches every scope without a term per scope, with the same scores (the
    same float32 sums) as the filter of all of them gave."""
    from mem.format.index import lexread

    sstore.add("Carla lives in Faro by the river", scope="carla", kind="fact")
    with open_searcher(sstore) as s:
        lex = s._lexical([])
        for q in ("river", "lives in Porto", "tea coffee river bridge", "Friday"):
            for statuses in (["active", "candidate"], None):
                def run(scopes: list[str] | None, q: str = q, statuses: list[str] | None = statuses) -> Any:
                    return lexread.run_query(lambda: lex.index, lex.searcher, q, scopes=scopes, kinds=None,
                                             statuses=statuses, tags=None, limit=40, damaged=lambda e: e)
                assert run(None) == run(sstore.scopes())
                assert run(None)


def test_the_refresh_lists_scopes_as_store_scopes_does(store: Store, tmp_path: Path) -> None:
    """``_scope_dirs`` (one listing, a stat per scope) names what ``Store.scopes()`` names, each
    with its folder's mtime: no symbolic link, no file, no folder whose name is not a scope."""
    from mem.format.index.staleness import _dir_mtime, _scope_dirs

    store.add("one", scope="ana", kind="fact")
    store.add("two", scope="bob", kind="fact")
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.records_dir / "evil").symlink_to(outside, target_is_directory=True)
    (store.records_dir / "afile").write_text("x")
    (store.records_dir / "Bad Name").mkdir()
    got = _scope_dirs(store)
    assert list(got) == store.scopes() == ["ana", "bob"]
    assert got == {s: _dir_mtime(store.records_dir / s) for s in store.scopes()}


def test_a_search_confined_to_scopes_refreshes_only_those(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search confined to some scopes applies the changes made outside mem to those scopes and
    looks at no other (their recorded folder mtimes stay); a search of another scope, or of all,
    applies that scope's changes then. Its full scans are counted per scope, in this process."""
    import mem.format.index.derived as index_mod
    from mem.format.index import lexical as lexmod

    attach(store)
    store.add("Ana likes the river", scope="ana", kind="fact")
    store.add("Bob likes the bridge", scope="bob", kind="fact")
    # a one-shot searcher: a long-lived one leaves the refresh to its background thread, of every scope
    s = Searcher(store, long_lived=False)
    assert s.search("likes", mode="lexical").hits
    outside = Store.open(store.root)  # no index listener: as an editor or a git pull would
    new_ana = outside.add("Ana also likes tea", scope="ana", kind="fact")
    new_bob = outside.add("Bob also likes tea", scope="bob", kind="fact")
    for mode in MODES:
        assert new_ana.id in ids_of(s.search("tea", scopes=["ana"], mode=mode)), mode
    lex = lexmod.LexicalIndex.open(store.index_dir)
    assert lex is not None
    scopes = lex.scope_mtimes()
    assert scopes["ana"] == os.stat(store.records_dir / "ana").st_mtime_ns
    assert scopes["bob"] != os.stat(store.records_dir / "bob").st_mtime_ns  # not looked at
    assert not lex.meta_of([("bob", new_bob.id)])
    lex.close()
    assert new_bob.id in ids_of(s.search("tea", scopes=["bob"], mode="lexical"))
    assert {new_ana.id, new_bob.id} <= set(ids_of(s.search("tea", mode="hybrid")))
    # full scans: a big store's refresh confined to scopes counts them per scope, in memory
    monkeypatch.setattr(index_mod, "FULL_SCAN_MAX_DOCS", 1)
    lex2 = lexmod.LexicalIndex.open(store.index_dir)
    assert lex2 is not None
    before = lex2.manifest.get("full_scan_ns")
    assert index_mod._auto_full(store, lex2, True, ["ana"])
    refresh(store, lex=lex2, full=None, only=["ana"])
    assert set(lex2.full_scans) == {"ana"} and lex2.manifest.get("full_scan_ns") == before
    assert not index_mod._auto_full(store, lex2, True, ["ana"])
    assert index_mod._auto_full(store, lex2, True, ["ana", "bob"])  # bob's was never scanned here
    lex2.close()


def test_filtered_vector_search_is_the_exact_filtered_top(store: Store) -> None:
    """With --kind, --tag, --status, --as-of or --known-at, the vector arm chooses among the rows
    the filters accept (index.vfilter): its hits are the best of the matching records, never
    fewer than k when k match, though the rows nearest the query fail the filter; a change of a
    record's status or kind after a search, and records added since the build, are seen."""
    import datetime as dt

    import numpy as np

    from mem.format.store.store import RecordFilter

    attach(store)
    kinds = ["note", "fact", "decision"]
    for i in range(240):
        kind = "note" if i % 12 else kinds[(i // 12) % 3]  # notes are most of the records
        store.add(f"coffee and tea number {i} " + ("river " * (i % 7)), scope=("ana", "bob")[i % 2], kind=kind,
                  tags=["t1"] if i % 5 == 0 else [], status="candidate" if i % 9 == 0 else "active",
                  valid_from="2020-01-01" if i % 4 == 0 else None)
    with open_searcher(store) as s:
        s.search("warm up", mode="vector")
        rebuild(store)  # the records so far in the main rows; later ones in the delta
        with open_searcher(store) as s:
            extra = [store.add(f"decision coffee late {i}", scope="ana", kind="decision") for i in range(3)]
            emb = s.embedder()

            def expect(query: str, k: int, **kw: Any) -> tuple[list[str], list[float]]:
                """The best k matching records by cosine alone (the vector arm's order), and their cosines."""
                flt = RecordFilter(**kw)
                recs = [r for r in store.iter_records() if flt.matches(r)]
                qv = emb.embed([query])[0]
                sims = emb.embed([r.content for r in recs]) @ qv
                order = sorted(range(len(recs)), key=lambda j: (-float(sims[j]), recs[j].id))[:k]
                return [recs[j].id for j in order], [float(sims[j]) for j in order]

            def arm(query: str, k: int, **kw: Any) -> tuple[list[str], list[float]]:
                """The vector arm's top k with the search's masks."""
                flt = RecordFilter(**kw)
                lex, vec = s._lexical([]), s._vectors(s._lexical([]))
                keep, dkeep = s._vector_masks(lex, vec, store.scopes(), flt)
                hits = vec.search(emb.embed([query])[0], store.scopes(), k, use_graph=True, keep=keep, delta_keep=dkeep)
                return [h.id for h in hits], [h.similarity for h in hits]

            cases: list[dict[str, Any]] = [
                {"kinds": ["decision"]}, {"kinds": ["fact"], "tags": ["t1"]}, {"statuses": ["candidate"]},
                {"tags": ["t1"]}, {"as_of": dt.datetime(2019, 6, 1, tzinfo=dt.UTC)},
                {"known_at": dt.datetime(2100, 1, 1, tzinfo=dt.UTC), "kinds": ["fact"]},
            ]
            for kw in cases:
                flt = RecordFilter(**kw)
                matching = {r.id for r in store.iter_records() if flt.matches(r)}
                for k in (3, 10, 40):
                    got_ids, got_sims = arm("coffee river", k, **kw)
                    want_ids, want_sims = expect("coffee river", k, **kw)
                    np.testing.assert_allclose(got_sims, want_sims, atol=1e-6, err_msg=str(kw))
                    cut = want_sims[-1] + 1e-5 if want_sims else 0.0  # above the kth by more than rounding: the same rows
                    assert {i for i, v in zip(got_ids, got_sims, strict=True) if v > cut} == \
                        {i for i, v in zip(want_ids, want_sims, strict=True) if v > cut}, kw
                    assert set(got_ids) <= matching, kw
                    for mode in ("vector", "hybrid"):
                        hits = s.search("coffee river", mode=mode, k=k, **kw).hits
                        assert len(hits) == min(k, len(matching)) and {h.id for h in hits} <= matching, (kw, mode)
            assert {h.id for h in s.search("decision coffee late", mode="vector", k=30, kinds=["decision"]).hits} \
                >= {r.id for r in extra}  # records added since the build (delta rows)
            # a one-shot searcher's masks, selected by SQLite, are the long-lived one's, and so are its hits
            from mem.format.index.vfilter import Columns, direct_keep
            from mem.format.search.engine import Searcher

            lex, vec = s._lexical([]), s._vectors(s._lexical([]))
            one_shot = Searcher(store, long_lived=False)
            for kw in cases:
                flt = RecordFilter(**kw)
                for scope in store.scopes():
                    np.testing.assert_array_equal(direct_keep(lex, vec, scope, flt), Columns(lex, vec, scope).keep(flt))
                for mode in ("vector", "hybrid"):
                    assert [h.id for h in one_shot.search("coffee river", mode=mode, k=10, **kw).hits] == \
                        [h.id for h in s.search("coffee river", mode=mode, k=10, **kw).hits], (kw, mode)
            one_shot.close()
            # a kind changed after a search: the next search's masks follow the state
            target = expect("coffee river", 1, kinds=["note"])[0][0]
            store.update(target, kind="decision")
            assert target in arm("coffee river", 3, kinds=["decision"])[0]
            assert target not in arm("coffee river", 40, kinds=["note"])[0]
            assert target in {h.id for h in s.search("coffee river", mode="vector", k=40, kinds=["decision"]).hits}
            assert s.search("coffee", mode="vector", k=5, statuses=["rejected"]).hits == []
