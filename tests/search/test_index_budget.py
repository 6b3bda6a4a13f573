"""A search never waits on a backlog of indexing either (issue 21): after `mem import --no-embed`
of thousands of records (or record files written around mem), a search indexes at most
``SEARCH_INDEX_LIMIT`` of them, answers from the index as it is plus those, and says how many
records are not searchable yet; `mem embed` indexes (and embeds) the rest. A small store is still
indexed whole by its first search."""

from __future__ import annotations

import json
from pathlib import Path

from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, read_pointer
from mem.format.index.derived import (
    PENDING_FILE,
    SEARCH_INDEX_LIMIT,
    attach,
    build_if_absent,
    refresh,
)
from mem.format.index.lexical import LexicalIndex
from mem.format.index.staleness import unindexed
from mem.format.model.record import dump_record, make_record
from mem.format.store.store import Store
from tests.conftest import run_mem

ENV = {"MEM_EMBEDDER": "hashing"}
#: records of scope "inbox" and of scope "other" the CLI test imports (a few thousand in all)
N_INBOX = SEARCH_INDEX_LIMIT + 400
N_OTHER = 700


def _jsonl(path: Path) -> Path:
    """N_INBOX + N_OTHER memories; every one holds "harbour", one of inbox's "quokka"."""
    lines = [{"content": f"Note {i} about the harbour ferry timetable", "scope": "inbox"} for i in range(N_INBOX - 1)]
    lines.append({"content": "The quokka at the harbour was photographed on Tuesday", "scope": "inbox"})
    lines += [{"content": f"Other note {i} about the harbour crane", "scope": "other"} for i in range(N_OTHER)]
    path.write_text("".join(json.dumps(o) + "\n" for o in lines), "utf-8")
    return path


def _search(root: Path, *args: str) -> dict[str, object]:
    r = run_mem("--store", str(root), "search", *args, "--json", env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    out: dict[str, object] = json.loads(r.stdout)
    return out


def _record_with(root: Path, scope: str, word: str) -> str:
    """The id of the record file of ``scope`` that holds ``word`` (read as a file: no index)."""
    found = [p.stem for p in (root / "records" / scope).glob("*.md") if word in p.read_text("utf-8")]
    assert len(found) == 1
    return found[0]


def _never_found(root: Path, rid: str) -> None:
    """The forgotten record: no hit by its word, nor among a hybrid search's hits."""
    assert _search(root, "quokka", "--mode", "lexical")["hits"] == []
    assert rid not in {h["id"] for h in _search(root, "quokka harbour", "-k", "50")["hits"]}  # type: ignore[attr-defined,index]


def test_no_embed_import_then_search_indexes_within_the_budget_and_embed_finishes(tmp_path: Path) -> None:
    root = tmp_path / "s"
    assert run_mem("init", str(root), env=ENV).returncode == 0
    r = run_mem("--store", str(root), "import", str(_jsonl(tmp_path / "in.jsonl")), "--no-embed", env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "run `mem embed` to index and embed the records written" in r.stderr
    assert not (root / ".mem" / "index" / LEXICAL_POINTER).exists()  # a new store: no index yet
    forgotten = _record_with(root, "inbox", "quokka")
    r = run_mem("--store", str(root), "forget", forgotten, "--reason", "test", "--yes", env=ENV)
    assert r.returncode == 0, r.stderr
    total = N_INBOX - 1 + N_OTHER

    # the first search, of one scope: an index of SEARCH_INDEX_LIMIT records (inbox's, the first
    # scope), the rest of its scope counted and named; nothing of another scope, nor forgotten
    out = _search(root, "quokka harbour", "--scope", "inbox", "--mode", "lexical", "-k", "50")
    assert out["unindexed"] == N_INBOX - 1 - SEARCH_INDEX_LIMIT
    assert any(f"{out['unindexed']} records are not searchable yet" in w and "`mem embed`" in w
               for w in out["warnings"])  # type: ignore[attr-defined]
    hits = out["hits"]
    assert len(hits) == 50 and {h["scope"] for h in hits} == {"inbox"}  # type: ignore[arg-type,attr-defined,index]
    assert forgotten not in {h["id"] for h in hits}  # type: ignore[attr-defined,index]
    m = read_pointer(root / ".mem" / "index", LEXICAL_POINTER, LEXICAL_KIND)
    assert m is not None and m["docs"] == SEARCH_INDEX_LIMIT

    # the next search indexes as many more, and says how many are left (of every scope)
    r = run_mem("--store", str(root), "search", "harbour", env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"{total - 2 * SEARCH_INDEX_LIMIT} records are not searchable yet" in r.stderr
    m = read_pointer(root / ".mem" / "index", LEXICAL_POINTER, LEXICAL_KIND)
    assert m is not None and m["docs"] == 2 * SEARCH_INDEX_LIMIT

    # the catch-up command named indexes the rest (and embeds everything)
    r = run_mem("--store", str(root), "embed", "--json", env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["left"] == 0
    out = _search(root, "harbour", "-k", "5")
    assert "unindexed" not in out and "unembedded" not in out and out["warnings"] == []
    m = read_pointer(root / ".mem" / "index", LEXICAL_POINTER, LEXICAL_KIND)
    assert m is not None and m["docs"] == total
    _never_found(root, forgotten)
    out = _search(root, "ferry timetable 7", "--mode", "lexical", "-k", "1")
    assert out["hits"][0]["content"].strip() == "Note 7 about the harbour ferry timetable"  # type: ignore[index]


def test_a_journaled_import_is_applied_within_the_budget(tmp_path: Path) -> None:
    """A store that has an index: `import --no-embed` journals its records; a search applies at
    most the budget of the journal and keeps the rest journaled, counted."""
    root = tmp_path / "s"
    assert run_mem("init", str(root), env=ENV).returncode == 0
    assert run_mem("--store", str(root), "add", "The lighthouse keeper retired", "--scope", "inbox",
                   env=ENV).returncode == 0
    assert "unindexed" not in _search(root, "lighthouse")  # the index exists now
    n = SEARCH_INDEX_LIMIT + 300
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"content": f"Journal note {i} on the lighthouse lamp", "scope": "inbox"}) + "\n"
                           for i in range(n)), "utf-8")
    r = run_mem("--store", str(root), "import", str(src), "--no-embed", env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr
    assert (root / ".mem" / "index" / PENDING_FILE).exists()
    out = _search(root, "lighthouse")
    assert out["unindexed"] == 300
    assert (root / ".mem" / "index" / PENDING_FILE).exists()  # the rest stays journaled
    out = _search(root, "lighthouse")
    assert "unindexed" not in out
    assert not (root / ".mem" / "index" / PENDING_FILE).exists()


def test_a_small_store_is_searchable_whole_on_its_first_search(tmp_path: Path) -> None:
    root = tmp_path / "s"
    assert run_mem("init", str(root), env=ENV).returncode == 0
    store = Store.open(root)
    n = 300  # a few hundred records added by hand
    for i in range(n):
        store.add(f"Hand note {i}: the bicycle pump is in the shed", scope="home")
    assert not (root / ".mem" / "index" / LEXICAL_POINTER).exists()
    out = _search(root, "bicycle pump", "-k", "100")
    assert "unindexed" not in out and len(out["hits"]) == 100  # type: ignore[arg-type]
    m = read_pointer(root / ".mem" / "index", LEXICAL_POINTER, LEXICAL_KIND)
    assert m is not None and m["docs"] == n


def _write_files(store: Store, scope: str, n: int, word: str = "anchor") -> list[str]:
    """Record files written around mem (a git pull): no journal entry."""
    folder = store.root / "records" / scope
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        rec = make_record(scope=scope, kind="note", content=f"{word} file {i} in {scope}")
        (folder / f"{rec.id}.md").write_text(dump_record(rec))
        out.append(rec.id)
    return out


def _indexed(store: Store, scope: str) -> int:
    lex = LexicalIndex.open(store.index_dir)
    assert lex is not None
    try:
        return len(lex.scope_state(scope))
    finally:
        lex.close()


def test_a_bounded_refresh_leaves_the_scope_to_be_listed_again(store: Store) -> None:
    """The scope a bounded refresh could not finish keeps no recorded mtime, so that neither the
    next refresh nor this process's own writes (which advance a fresh scope's mark) lose the rest."""
    attach(store)
    store.add("The first note", scope="inbox")
    build_if_absent(store)
    _write_files(store, "inbox", 30)
    st = refresh(store, full=False, limit=10)
    assert st.left == 20 and unindexed(store, LexicalIndex.open(store.index_dir)) == 20
    m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
    assert m is not None and "inbox" not in m["scopes"]
    store.add("A note written by this process after it", scope="inbox")  # journaled
    assert refresh(store, full=False, limit=10).left == 11  # the journal's record and 9 files
    assert refresh(store, full=False, limit=10).left == 1
    assert refresh(store, full=False, limit=10).left == 0
    assert _indexed(store, "inbox") == 32
    m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
    assert m is not None and "inbox" in m["scopes"]


def test_a_bounded_refresh_of_a_store_without_an_index_starts_one(store: Store) -> None:
    _write_files(store, "a", 25)
    _write_files(store, "b", 5)
    st = refresh(store, limit=10)
    assert st.left == 20 and _indexed(store, "a") + _indexed(store, "b") == 10
    # unbounded (`mem embed`, `mem rebuild` and an import refresh so): every record
    assert refresh(store).left == 0 and _indexed(store, "a") == 25 and _indexed(store, "b") == 5
    # no more records than the limit: built whole at once
    other = Store.init(store.root.parent / "small")
    _write_files(other, "a", 10)
    assert refresh(other, limit=10).left == 0 and _indexed(other, "a") == 10


def test_the_journal_keeps_what_the_budget_left_in_order(store: Store) -> None:
    attach(store)
    store.add("Seed note", scope="inbox")
    build_if_absent(store)
    ids = [store.add(f"Journaled note {i}", scope="inbox").id for i in range(12)]
    gone = store.add("A note soon forgotten", scope="inbox").id
    store.forget([gone], reason="test")  # applied at once, whatever the budget
    st = refresh(store, full=False, limit=5)
    assert st.left == -1  # the journal was not all applied: the caller counts
    assert unindexed(store, LexicalIndex.open(store.index_dir)) == 7
    kept = [json.loads(line)["id"] for line in (store.index_dir / PENDING_FILE).read_text().splitlines()]
    assert kept == ids[5:]
    assert refresh(store, full=False, limit=5).left == -1
    assert refresh(store, full=False, limit=5).left == 0
    assert _indexed(store, "inbox") == 13 and not (store.index_dir / PENDING_FILE).exists()
