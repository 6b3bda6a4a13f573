"""The store declaration and the configuration are accepted by one rule (rules/storefiles.py):
opening a store, `mem verify` and the one-shot search's store check agree on every input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mem.format.base.errors import MemError, StoreInvalidError, UnsupportedFormatError
from mem.format.search import lexfast
from mem.format.store.store import Store
from mem.format.verify.checks import verify_store

GOOD = {"format": "mem-store", "version": 1}
DECLARATIONS: list[object] = [
    GOOD,
    {**GOOD, "created_at": "2026-01-01T00:00:00.000Z", "other": 1},
    {**GOOD, "extensions": []},
    {**GOOD, "extensions": [{"name": "x-hint", "must_understand": False}]},
    {**GOOD, "extensions": [{"name": "x-crypt"}]},
    {**GOOD, "extensions": [{"name": "x-crypt", "must_understand": True}]},
    # must_understand is a boolean: only an explicit false lets a reader ignore the extension
    {**GOOD, "extensions": [{"name": "x-zero", "must_understand": 0}]},
    {**GOOD, "extensions": [{"name": "x-null", "must_understand": None}]},
    {**GOOD, "extensions": [{"name": "x-str", "must_understand": "false"}]},
    {**GOOD, "extensions": [{"name": 3, "must_understand": False}]},
    {**GOOD, "extensions": [{"must_understand": False}]},
    {**GOOD, "extensions": "x-hint"},
    {**GOOD, "extensions": ["x-hint"]},
    {**GOOD, "version": 2},
    {**GOOD, "version": 0},
    {**GOOD, "version": "1"},
    {**GOOD, "version": True},
    {**GOOD, "version": 1.0},
    {"format": "other", "version": 1},
    {"version": 1},
    [GOOD],
    "mem-store",
    None,
]
RAW = [b"{not json", b"\xff\xfe{}", b"", b"[" * 100_000]
EXIT_OF = {"E002": StoreInvalidError, "E003": UnsupportedFormatError, "E004": UnsupportedFormatError}


@pytest.mark.parametrize("raw", [json.dumps(d).encode() for d in DECLARATIONS] + RAW)
def test_declaration_one_rule(tmp_path: Path, raw: bytes) -> None:
    store = Store.init(tmp_path / "s")
    (store.root / "memstore.json").write_bytes(raw)
    refused: type[MemError] | None = None
    try:
        Store.open(store.root)
    except MemError as exc:
        refused = type(exc)
    codes = {f.code for f in verify_store(store.root, indexes=False).findings} & {"E002", "E003", "E004"}
    assert len(codes) <= 1
    assert refused == (EXIT_OF[codes.pop()] if codes else None), raw[:80]
    assert lexfast.store_ok(str(store.root)) == (refused is None)


@pytest.mark.parametrize("ext", [{"name": "x-zero", "must_understand": 0},
                                 {"name": "x-null", "must_understand": None}])
def test_extension_without_an_explicit_false_is_refused(tmp_path: Path, ext: dict[str, object]) -> None:
    store = Store.init(tmp_path / "s")
    (store.root / "memstore.json").write_text(json.dumps({**GOOD, "extensions": [ext]}))
    with pytest.raises(UnsupportedFormatError, match=str(ext["name"])):
        Store.open(store.root)
    assert [f.code for f in verify_store(store.root, indexes=False).findings if f.code.startswith("E")] == ["E004"]
    assert not lexfast.store_ok(str(store.root))


CONFIGS = ["", "[search]\ndefault_k = 5\n", "[search]\n[search]\n", "search = 1\n", "[x]\ny = [\n",
           "permissions = \"0600\"\n", "[other]\nsearch = 1\n", "capture = []\n", "[verify.severity]\nW101 = \"ignore\"\n"]


@pytest.mark.parametrize("text", CONFIGS)
def test_config_one_rule(tmp_path: Path, text: str) -> None:
    store = Store.init(tmp_path / "s")
    (store.root / "config.toml").write_text(text)
    try:
        Store.open(store.root)
        opened = True
    except StoreInvalidError:
        opened = False
    e005 = [f for f in verify_store(store.root, indexes=False).findings if f.code == "E005"]
    assert opened == (not e005), text
    assert lexfast.store_ok(str(store.root)) == opened
