"""MiniLM's int8 graph: derived offline from the verified wheel, its digest pinned and checked,
its own embedding space; a store made with the float graph keeps it (spec/index.md, "Embedding
spaces")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mem.format.base.errors import EmbedderUnavailableError
from mem.format.embed import EmbedderChoice, choose, configured_space, resolve_graph, space_of
from mem.format.rules.config import Config, config_problems
from mem.format.store.store import Store
from tests.conftest import run_mem


def test_graph_selection_follows_the_config_then_the_recorded_space() -> None:
    from mem.format.embed.minilm import FLOAT_SPACE, Q8_SPACE

    minilm = EmbedderChoice("minilm", 1)
    assert resolve_graph(minilm, None) == "int8"  # a new vector index
    assert resolve_graph(minilm, FLOAT_SPACE) == "float"  # a store made before: kept
    assert resolve_graph(minilm, Q8_SPACE) == "int8"
    assert resolve_graph(EmbedderChoice("minilm", 1, "int8"), FLOAT_SPACE) == "int8"  # the config wins
    assert resolve_graph(EmbedderChoice("minilm", 1, "float"), None) == "float"
    assert resolve_graph(EmbedderChoice("hashing", 1), FLOAT_SPACE) == ""
    assert space_of("minilm") == Q8_SPACE and space_of("minilm", "float") == FLOAT_SPACE
    assert FLOAT_SPACE.digest == "sha256:8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
    assert Q8_SPACE != FLOAT_SPACE and Q8_SPACE.provider == FLOAT_SPACE.provider == "minilm"
    assert configured_space(None, env={}, recorded=FLOAT_SPACE) == FLOAT_SPACE
    assert configured_space(Config(embedder={"graph": "int8"}), env={}, recorded=FLOAT_SPACE) == Q8_SPACE
    with pytest.raises(EmbedderUnavailableError) as ei:
        choose(Config(embedder={"graph": "fp16"}), env={})
    assert "graph" in ei.value.message and ei.value.exit_code == 10
    assert config_problems({"embedder": {"graph": "fp16"}}) == ['[embedder] graph = \'fp16\' must be "int8" or "float"']
    assert config_problems({"embedder": {"graph": "float"}}) == []


@pytest.mark.model
def test_the_int8_graph_is_derived_deterministically_and_pinned() -> None:
    import hashlib

    from mem.format.embed.minilm import Q8_SHA256, default_model_path
    from mem.format.embed.q8graph import EXPECTED_PRODUCTS, GraphError, derive

    raw = default_model_path().read_bytes()
    out = derive(raw)
    assert hashlib.sha256(out).hexdigest() == Q8_SHA256 and derive(raw) == out
    assert out.count(b"DynamicQuantizeMatMul") == EXPECTED_PRODUCTS and b"DynamicQuantizeMatMul" not in raw
    with pytest.raises(GraphError, match="already"):
        derive(out)  # not the wheel's graph
    with pytest.raises(GraphError):
        derive(raw[: len(raw) // 2])  # truncated
    with pytest.raises(GraphError, match="no graph"):
        derive(b"")


@pytest.mark.model
def test_int8_vectors_are_close_to_the_float_graphs_and_rank_paraphrases() -> None:
    import numpy as np

    from mem.format.embed.minilm import FLOAT_SPACE, Q8_SPACE, MiniLMEmbedder

    q8, f32 = MiniLMEmbedder(), MiniLMEmbedder(graph="float")
    assert q8.space == Q8_SPACE and f32.space == FLOAT_SPACE
    docs = ["My daughter is allergic to peanuts.", "The car insurance renewal is due in March.",
            "I run five kilometres every Sunday."]
    queries = ["which kid cannot eat nuts", "when must I extend the vehicle policy", "weekly jogging routine"]
    a, b = q8.embed(docs + queries), f32.embed(docs + queries)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-4)
    assert float((a * b).sum(axis=1).min()) > 0.95  # measured 0.98-1.0 (bench/README.md)
    assert list((a[3:] @ a[:3].T).argmax(axis=1)) == [0, 1, 2]


@pytest.mark.model
def test_an_int8_graph_that_is_not_the_expected_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from mem.format.embed import minilm

    monkeypatch.setattr(minilm, "Q8_SHA256", "0" * 64)
    with pytest.raises(EmbedderUnavailableError) as ei:
        minilm.MiniLMEmbedder()
    msg = str(ei.value)
    assert "int8 graph derived from the model is not the expected one" in msg and ei.value.exit_code == 10
    assert str(minilm.default_model_path()) in msg and 'graph = "float"' in (ei.value.hint or "")
    assert minilm.MiniLMEmbedder(graph="float").space == minilm.FLOAT_SPACE  # the float graph is not derived

    def no_graph(model: bytes) -> bytes:
        from mem.format.embed.q8graph import GraphError

        raise GraphError("found 0 int8 matrix products")

    monkeypatch.setattr("mem.format.embed.q8graph.derive", no_graph)
    with pytest.raises(EmbedderUnavailableError, match="cannot derive the MiniLM int8 graph"):
        minilm.MiniLMEmbedder()


def _space(store_root: Path) -> dict[str, object]:
    got: dict[str, object] = json.loads((store_root / ".mem" / "index" / "vectors.json").read_text())["space"]
    return got


@pytest.mark.model
def test_a_new_store_embeds_in_the_int8_space(tmp_path: Path) -> None:
    from mem.format.embed.minilm import Q8_SPACE

    root = tmp_path / "s"
    env = {"MEM_EMBEDDER": "minilm", "MEM_EMBED_THREADS": "1"}
    assert run_mem("init", str(root), env=env).returncode == 0
    lines = "\n".join(json.dumps({"content": c}) for c in (
        "My daughter is allergic to peanuts.", "The car insurance renewal is due in March."))
    (tmp_path / "in.jsonl").write_text(lines + "\n")
    r = run_mem("--store", str(root), "import", str(tmp_path / "in.jsonl"), env=env)
    assert r.returncode == 0, r.stderr
    assert _space(root) == Q8_SPACE.to_dict()
    r = run_mem("--store", str(root), "search", "which kid cannot eat nuts", "--mode", "vector", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert "peanuts" in r.json()["hits"][0]["content"]


@pytest.mark.model
def test_a_store_made_with_the_float_graph_keeps_it_until_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store whose vectors were made before the int8 graph (the float space) keeps searching
    with them, and new records are embedded in that space; naming the int8 graph refuses vector
    search with the command to run, which moves it."""
    from mem.format.embed.minilm import FLOAT_SPACE, Q8_SPACE
    from mem.format.search.engine import Searcher

    env = {"MEM_EMBEDDER": "minilm", "MEM_EMBED_THREADS": "1"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    store = Store.init(tmp_path / "s", actor="tester@test")
    conf = store.root / "config.toml"
    conf.write_text('[embedder]\ngraph = "float"\n')  # as mem made every MiniLM index before
    store = Store.open(store.root)
    store.add("My daughter is allergic to peanuts.", scope="ana", kind="fact")
    with Searcher(store, long_lived=False) as s:
        assert s.search("which kid cannot eat nuts", mode="vector").hits
    assert _space(store.root) == FLOAT_SPACE.to_dict()

    conf.write_text("[embedder]\n")  # unset: the recorded space is honoured
    store = Store.open(store.root)
    store.add("The car insurance renewal is due in March.", scope="ana", kind="fact")
    with Searcher(store, long_lived=True) as s:
        res = s.search("when must I extend the vehicle policy", mode="vector")
        assert "insurance" in res.hits[0].content and not res.warnings
        assert s.embedder().space == FLOAT_SPACE
    r = run_mem("--store", str(store.root), "search", "which kid cannot eat nuts", "--json", env=env)
    assert r.returncode == 0 and r.json()["mode"] == "hybrid" and not r.json().get("warnings"), r.stdout
    assert "W402" not in run_mem("--store", str(store.root), "verify", env=env).stdout  # no space mismatch
    assert _space(store.root) == FLOAT_SPACE.to_dict()

    conf.write_text('[embedder]\ngraph = "int8"\n')  # asked for: refused until rebuilt, and told how
    r = run_mem("--store", str(store.root), "search", "which kid cannot eat nuts", "--mode", "vector", env=env)
    assert r.returncode == 10 and "mem rebuild --vectors" in r.stderr and "int8" in r.stderr, r.stderr
    r = run_mem("--store", str(store.root), "search", "which kid cannot eat nuts", "--json", env=env)
    assert r.returncode == 0 and any("vector search unavailable" in w for w in r.json()["warnings"])
    assert "W402" in run_mem("--store", str(store.root), "verify", env=env).stdout
    assert run_mem("--store", str(store.root), "rebuild", "--vectors", env=env).returncode == 0
    assert _space(store.root) == Q8_SPACE.to_dict()
    conf.write_text("[embedder]\n")  # unset again: it now keeps int8
    r = run_mem("--store", str(store.root), "search", "which kid cannot eat nuts", "--mode", "vector", "--json", env=env)
    assert r.returncode == 0 and "peanuts" in r.json()["hits"][0]["content"], r.stderr
