"""What verify must NOT flag, and the fast-level scanner agrees with the full parser."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem.format.model.record import dump_record, make_record
from mem.format.ops.diff import textconv
from mem.format.store.store import Store
from mem.format.verify.checks import _lite_record, verify_store

IDS = ["01JGZ00000000000000000000" + c for c in "ABCDEFGH"]


def test_links_to_forgotten_records_and_lifted_tombstones_are_fine(store: Store) -> None:
    src = store.add("Alice's phone is 555 0100", scope="alice")
    store.add("Alice can be called", scope="alice", kind="summary", derived_from=[src.id])
    store.forget([src.id], reason="privacy")  # cascades to the summary
    # the same content stored again with an explicit, logged override: not E202
    store.add("Alice's phone is 555 0100", scope="alice", allow_tombstoned=True,
              override_reason="she said it is fine")
    assert verify_store(store.root, full=True).findings == []
    # a record (written through put, e.g. by an import) whose lineage names the forgotten id:
    # a link to something forgotten is not dangling
    store.put(make_record(scope="alice", kind="note", derived_from=[src.id],
                          content="remembered that a phone number was forgotten"))
    assert verify_store(store.root, full=True).findings == []


def test_hand_written_yaml_passes_fast_and_is_only_non_canonical_at_full(store: Store) -> None:
    rec = store.add("Tea at five", scope="bob", tags=["drinks"])
    p = store.record_path("bob", rec.id)
    text = p.read_text("utf-8")
    p.write_text(text.replace("tags: [\"drinks\"]", "tags:\n  - drinks").replace(
        "kind: note", "kind: 'note'"), "utf-8")
    assert verify_store(store.root).findings == []
    assert [f.code for f in verify_store(store.root, full=True).findings] == ["W101"]


def test_bad_values_are_e103_at_full_level(store: Store) -> None:
    rec = store.add("Coffee at nine", scope="bob")
    p = store.record_path("bob", rec.id)
    p.write_text(p.read_text("utf-8").replace("confidence: 1.0", "confidence: 7.0"), "utf-8")
    (f,) = verify_store(store.root, full=True).findings
    assert f.code == "E103" and "confidence" in f.message


texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200).filter(
    lambda t: t.strip()
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    content=texts,
    scope=st.sampled_from(["a", "alice", "x.y", "team_1"]),
    status=st.sampled_from(["active", "candidate", "rejected"]),
    tags=st.lists(st.from_regex(r"[a-z0-9:_-]{1,12}", fullmatch=True), max_size=3),
    derived=st.lists(st.sampled_from(IDS[1:]), max_size=3),
    source=st.dictionaries(st.sampled_from(["system", "original_id", "conversation"]),
                           st.one_of(st.text(max_size=20), st.integers()), max_size=3),
)
def test_lean_scan_agrees_with_the_parser(content, scope, status, tags, derived, source) -> None:
    rec = make_record(id=IDS[0], scope=scope, kind="fact", content=content, status=status,
                      tags=tags, derived_from=derived, source={"type": "import", **source})
    lite = _lite_record(dump_record(rec))
    assert lite is not None
    assert (lite.id, lite.scope, lite.status, lite.derived_from, lite.content) == (
        rec.id, rec.scope, rec.status, rec.derived_from, rec.content)
    assert {k: str(v) for k, v in lite.source.items()} == {k: str(v) for k, v in rec.source.items()}


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_textconv_never_fails(raw: bytes) -> None:
    out = textconv(b"---\n" + raw)
    assert isinstance(out, str)
