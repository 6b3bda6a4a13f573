"""The JSON Schemas in spec/schemas/ accept what the core API writes, and refuse what it must not.

Real records, events and tombstones are produced through ``Store`` (add, supersede, accept,
reject, update, forget with a cascade, a tombstone override) and validated against the schemas;
the grammar in the schemas is checked against the regular expressions the code uses, so the two
cannot drift apart.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from mem.format.base.jsonl import read_jsonl
from mem.format.model.audit import OPS
from mem.format.model.record import (
    KEY_ORDER,
    REQUIRED_KEYS,
    SOURCE_ORDER,
    STATUSES,
    Record,
    _parse_fast,
    make_record,
    split_record_text,
)
from mem.format.rules import ids
from mem.format.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "spec" / "schemas"
EXAMPLE_STORE = ROOT / "examples" / "store"


def _load(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / name).read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    return schema


RECORD_SCHEMA = _load("record.schema.json")
FRONTMATTER = Draft202012Validator(RECORD_SCHEMA)
RECORD_JSON = Draft202012Validator(
    {"$defs": RECORD_SCHEMA["$defs"], "$ref": "#/$defs/record"}
)
DECLARATION = Draft202012Validator(_load("declaration.schema.json"))
EVENT = Draft202012Validator(_load("audit-event.schema.json"))
TOMBSTONE = Draft202012Validator(_load("tombstone.schema.json"))


def _errors(v: Draft202012Validator, obj: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(obj)]


def frontmatter_of(text: str) -> dict[str, Any]:
    fm, _, _ = split_record_text(text)
    return _parse_fast(fm)


# --- a small store that exercises every write path ---------------------------------------------


@pytest.fixture(scope="module")
def busy_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    s = Store.init(tmp_path_factory.mktemp("schemas") / "store", actor="tester@test")
    ep = s.add("Met Rui at the café; talked about the Atlas launch.", scope="alice", kind="episode",
               source={"type": "mcp", "conversation": "c-7", "turn": 3})
    s.add("Atlas launch discussed with Rui.", scope="alice", kind="summary", derived_from=[ep.id],
          tags=["atlas", "café"], confidence=0.75)
    old = s.add("Alice lives in Porto.", scope="alice", kind="fact", valid_from="2019-03-01",
                tags=["home"], extra={"x_importance": 3, "x_note": "yes"})
    s.supersede(old.id, "Alice lives in Lisbon.", valid_from="2024-09-01", reason="moved")
    cand = s.add("Alice prefers coffee.", scope="alice", kind="preference", status="candidate",
                 confidence=0.5, source={"type": "capture", "transcript": "t.jsonl",
                                         "conversation": "c-1", "turn": 4, "pattern": "i-prefer"})
    s.reject(cand.id, reason="misheard")
    cand2 = s.add("Alice runs on Tuesdays.", scope="alice", kind="fact", status="candidate")
    s.accept(cand2.id)
    s.update(cand2.id, add_tags=["running"], valid_to="2030-01-01")
    imp = s.add("Window seat on long flights.", scope="assistant", kind="preference",
                source={"type": "import", "system": "windieos", "original_id": "mem_1"})
    s.add("Write in British English.", scope="assistant", kind="instruction")
    s.forget([ep.id, imp.id], reason="asked to")  # cascades to the summary
    gone = s.add("Weekly sync on Tuesdays.", scope="project-atlas", kind="fact")
    s.forget([gone.id], reason="by mistake")
    s.add("Weekly sync on Tuesdays.", scope="project-atlas", kind="fact",
          allow_tombstoned=True, override_reason="restored")
    for kind in ids.KNOWN_KINDS:
        s.add(f"A {kind} record.", scope="project-atlas", kind=kind)
    s.add("An extension kind.", scope="project-atlas", kind="x_decision")
    return s


def _record_files(root: Path) -> list[Path]:
    return sorted((root / "records").glob("*/*.md"))


def _jsonl_objects(paths: list[Path]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in paths:
        lines, tail = read_jsonl(p)
        assert tail is None, p
        for ln in lines:
            assert ln.value is not None, f"{p}:{ln.lineno}: {ln.error}"
            out.append(ln.value)
    return out


@pytest.mark.parametrize("root_name", ["busy", "example"])
def test_real_records_match_both_shapes(busy_store: Store, root_name: str) -> None:
    root = busy_store.root if root_name == "busy" else EXAMPLE_STORE
    files = _record_files(root)
    assert len(files) >= 10
    store = Store.open(root)
    for p in files:
        text = p.read_text("utf-8")
        assert _errors(FRONTMATTER, frontmatter_of(text)) == [], p
        rec = store.read_path(p)
        assert _errors(RECORD_JSON, rec.to_dict()) == [], p


@pytest.mark.parametrize("root_name", ["busy", "example"])
def test_real_log_and_tombstones_and_declaration(busy_store: Store, root_name: str) -> None:
    root = busy_store.root if root_name == "busy" else EXAMPLE_STORE
    events = _jsonl_objects(sorted((root / "log").glob("*.jsonl")))
    ops = {e["op"] for e in events}
    assert {"init", "add", "supersede", "update", "forget", "lift-tombstone"} <= ops
    assert ops <= set(OPS)
    for e in events:
        assert _errors(EVENT, e) == [], e
    tombs = _jsonl_objects(sorted((root / "tombstones").glob("*.jsonl")))
    assert {t["type"] for t in tombs} == {"tombstone", "lift"}
    assert any(t.get("cascade_of") for t in tombs)
    assert any("source_key" in t for t in tombs)
    for t in tombs:
        assert _errors(TOMBSTONE, t) == [], t
    decl = json.loads((root / "memstore.json").read_text("utf-8"))
    assert _errors(DECLARATION, decl) == []


# --- the schemas refuse what the format forbids -------------------------------------------------


def _good_frontmatter(busy_store: Store) -> dict[str, Any]:
    return frontmatter_of(_record_files(busy_store.root)[0].read_text("utf-8"))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("id", "01ARZ3NDEKTSV4RRFFQ69G5FAU"),  # 'U' is not Crockford base32
        ("id", "01arz3ndektsv4rrffq69g5fav"),  # lower case is not canonical
        ("scope", "../x"),
        ("scope", "a/b"),
        ("scope", "Alice"),
        ("scope", "a..b"),
        ("kind", "Fact"),
        ("status", "deleted"),
        ("confidence", 1.5),
        ("tags", ["two words"]),
        ("tags", []),
        ("recorded_at", "2024-01-01T00:00:00Z"),  # no milliseconds: not canonical
        ("digest", "md5:abc"),
        ("supersedes", []),
        ("content", "a body in the frontmatter"),
        ("Bad-Key", 1),
    ],
)
def test_frontmatter_schema_refuses(busy_store: Store, key: str, value: Any) -> None:
    fm = _good_frontmatter(busy_store)
    assert _errors(FRONTMATTER, fm) == []
    fm[key] = value
    assert _errors(FRONTMATTER, fm) != []


@pytest.mark.parametrize("missing", REQUIRED_KEYS)
def test_frontmatter_schema_requires(busy_store: Store, missing: str) -> None:
    fm = _good_frontmatter(busy_store)
    del fm[missing]
    assert _errors(FRONTMATTER, fm) != []


def test_record_json_refuses_unknown_keys_and_bad_content(busy_store: Store) -> None:
    rec = busy_store.read_path(_record_files(busy_store.root)[0]).to_dict()
    for change in ({"body": "x"}, {"content": ""}, {"content": "no newline"},
                   {"content": "two newlines\n\n"}, {"tags": None}):
        bad = dict(rec, **change)
        assert _errors(RECORD_JSON, bad) != [], change


def test_event_and_tombstone_schemas_refuse(busy_store: Store) -> None:
    events = _jsonl_objects(sorted((busy_store.root / "log").glob("*.jsonl")))
    tombs = _jsonl_objects(sorted((busy_store.root / "tombstones").glob("*.jsonl")))
    ev = next(e for e in events if e["op"] == "forget")
    for key in ("hash", "prev", "seq", "actor"):
        bad = {k: v for k, v in ev.items() if k != key}
        assert _errors(EVENT, bad) != [], key
    assert _errors(EVENT, dict(ev, content="what was forgotten")) != []
    assert _errors(EVENT, dict(ev, seq=0)) != []
    t = next(x for x in tombs if x["type"] == "tombstone")
    # a tombstone never carries content, under any name
    for key in ("content", "text", "body"):
        assert _errors(TOMBSTONE, dict(t, **{key: "secret"})) != [], key
    assert _errors(TOMBSTONE, dict(t, type="grave")) != []
    assert _errors(TOMBSTONE, {k: v for k, v in t.items() if k != "digest"}) != []


def test_declaration_schema_refuses() -> None:
    good = {"format": "mem-store", "version": 1, "extensions": []}
    assert _errors(DECLARATION, good) == []
    assert _errors(DECLARATION, dict(good, version=2)) != []
    assert _errors(DECLARATION, dict(good, format="other")) != []
    assert _errors(DECLARATION, dict(good, extensions=[{"must_understand": False}])) != []
    ext = {"name": "x-vectors", "must_understand": False}
    assert _errors(DECLARATION, dict(good, extensions=[ext])) == []


# --- the schemas and the code share one grammar -------------------------------------------------


def test_schema_grammar_is_the_code_grammar() -> None:
    d = RECORD_SCHEMA["$defs"]
    assert d["id"]["pattern"] == ids.ID_PATTERN
    assert d["scope"]["pattern"] == ids.SCOPE_PATTERN
    assert d["kind"]["pattern"] == ids.KIND_PATTERN
    # the code escapes '"' inside its character class (a no-op in a regex); the schema does not
    assert d["tag"]["pattern"] == ids.TAG_PATTERN.replace('\\"', '"')
    assert d["status"]["enum"] == list(STATUSES)
    assert d["kind"]["examples"] == list(ids.KNOWN_KINDS)
    assert list(d["source"]["properties"]) == list(SOURCE_ORDER)
    fm = d["frontmatter"]
    assert list(fm["properties"]) == list(KEY_ORDER)
    assert fm["required"] == list(REQUIRED_KEYS)
    rec_keys = RECORD_SCHEMA["$defs"]["record"]["properties"]
    sample = make_record(scope="a", kind="note", content="x", extra={"x_a": 1}).to_dict()
    assert list(sample) == list(rec_keys)
    for name in ("audit-event.schema.json", "tombstone.schema.json"):
        sd = _load(name)["$defs"]
        assert sd["id"]["pattern"] == ids.ID_PATTERN
        assert sd["scope"]["pattern"] == ids.SCOPE_PATTERN


# --- property: every record the API can build fits the schemas ---------------------------------

_text = st.text(
    st.characters(codec="utf-8", blacklist_characters="\x00"), min_size=1, max_size=60
).filter(lambda s: s.strip() != "")
_tag = st.from_regex(ids.TAG_PATTERN[:-1] + r"\Z", fullmatch=True)
_scope = st.from_regex(r"^[a-z0-9][a-z0-9_-]{0,20}$", fullmatch=True)
_time = st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2200, 1, 1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scope=_scope,
    kind=st.sampled_from(ids.KNOWN_KINDS),
    status=st.sampled_from(STATUSES),
    content=_text,
    confidence=st.floats(0, 1),
    tags=st.lists(_tag, max_size=4),
    recorded=_time,
    valid_from=st.none() | _time,
    conv=st.none() | _text,
    turn=st.none() | st.integers(0, 10_000),
)
def test_generated_records_fit_the_schemas(
    scope: str, kind: str, status: str, content: str, confidence: float, tags: list[str],
    recorded: Any, valid_from: Any, conv: str | None, turn: int | None,
) -> None:
    from mem.format.model.record import dump_record

    source: dict[str, Any] = {"type": "api"}
    if conv is not None:
        source["conversation"] = conv
    if turn is not None:
        source["turn"] = turn
    rec: Record = make_record(
        scope=scope, kind=kind, status=status, content=content, confidence=confidence, tags=tags,
        recorded_at=recorded, valid_from=valid_from, source=source,
    )
    assert _errors(FRONTMATTER, frontmatter_of(dump_record(rec))) == []
    assert _errors(RECORD_JSON, copy.deepcopy(rec.to_dict())) == []


@pytest.mark.parametrize("check", [ids.check_scope, ids.check_id, ids.check_kind, ids.check_tag])
def test_names_with_a_trailing_newline_are_refused(check: Any) -> None:
    good = {ids.check_scope: "alice", ids.check_id: "01JD3Z8Q4T6W0000000000000A",
            ids.check_kind: "fact", ids.check_tag: "work"}[check]
    with pytest.raises(Exception, match="not"):
        check(good + "\n")
