"""JSON Lines and CSV: the lossless round trip (property-tested), the minimal shape, bad lines."""

from __future__ import annotations

import datetime as _dt
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem.format.interchange import export as ex
from mem.format.interchange.importers import jsonl as jreader
from mem.format.interchange.importers.base import ImportItem, Problem, ReadOptions
from mem.format.interchange.migrate import ImportOptions, import_path
from mem.format.model.record import STATUSES, canonical_body, make_record
from mem.format.rules.ids import KNOWN_KINDS, new_id
from mem.format.rules.timeutil import format_time
from mem.format.store.store import Store

from .builders import snapshot

# ---------------------------------------------------------------------------------------------
# generated stores

UTC = _dt.UTC
_times = st.datetimes(
    min_value=_dt.datetime(1971, 1, 1), max_value=_dt.datetime(2100, 1, 1), timezones=st.just(UTC)
)
_text = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=60)
_content = _text.filter(lambda s: canonical_body(s) != "")
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), _text)


@st.composite
def record_specs(draw: st.DrawFn) -> list[dict[str, Any]]:
    n = draw(st.integers(1, 8))
    out: list[dict[str, Any]] = []
    for i in range(n):
        vf = draw(st.none() | _times)
        vt = draw(st.none() | _times)
        if vf and vt and vt < vf:
            vf, vt = vt, vf
        spec: dict[str, Any] = {
            "scope": draw(st.sampled_from(["default", "alice", "work.proj", "bob_2"])),
            "kind": draw(st.sampled_from([*KNOWN_KINDS, "custom_kind"])),
            "content": draw(_content),
            # (superseded only with its successor: mem's writers refuse it alone, E208)
            "status": draw(st.sampled_from([x for x in STATUSES if x != "superseded"])),
            "confidence": draw(st.floats(0, 1)),
            "tags": draw(st.lists(st.sampled_from(["a", "b-c", "日本", "x.y", "UPPER"]), max_size=3)),
            "valid_from": vf,
            "valid_to": vt,
            "recorded_at": draw(_times),
            "updated_at": draw(st.none() | _times),
            "source": draw(
                st.sampled_from(
                    [
                        {"type": "cli", "command": "add"},
                        {"type": "import", "system": "windieos", "original_id": f"episodic:{i}"},
                        {"type": "capture", "conversation": "c1", "turn": i, "pattern": "p"},
                    ]
                )
            ),
            "extra": draw(st.dictionaries(st.sampled_from(["x_note", "y-flag"]), _scalar, max_size=2)),
            "derived_from": draw(st.lists(st.integers(0, max(0, i - 1)), max_size=2)) if i else [],
            "forget": draw(st.integers(0, 9)) == 0,
        }
        out.append(spec)
    return out


def build_store(root: Path, specs: list[dict[str, Any]]) -> Store:
    """A store as mem's own writes leave it: lineage only to live records, forgets cascade."""
    store = Store.init(root, actor="tester@test")
    made: list[str] = []
    with store.batch():
        for spec in specs:
            forgotten = {t.id for t in store.tombstones}
            rec = make_record(
                scope=spec["scope"],
                kind=spec["kind"],
                content=spec["content"],
                status=spec["status"],
                confidence=spec["confidence"],
                tags=spec["tags"],
                valid_from=spec["valid_from"],
                valid_to=spec["valid_to"],
                recorded_at=spec["recorded_at"],
                updated_at=spec["updated_at"],
                derived_from=[made[j] for j in spec["derived_from"] if made[j] not in forgotten],
                source=spec["source"],
                extra=spec["extra"],
            )
            # the same content as a forgotten record: allowed explicitly (a logged lift)
            store.put(rec, allow_tombstoned=True, override_reason="test")
            made.append(rec.id)
            if spec["forget"]:
                store.forget([rec.id], reason="generated")
    return store


def record_files(store: Store) -> dict[str, bytes]:
    return {
        f"{scope}/{rid}": path.read_bytes() for scope, rid, path in store.iter_paths()
    }


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record_specs())
def test_export_import_round_trip_is_byte_identical(specs: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as d:
        a = build_store(Path(d) / "a", specs)
        buf = io.StringIO()
        ex.write_jsonl(a, buf, ex.ExportFilter())
        f = Path(d) / "export.jsonl"
        f.write_text(buf.getvalue(), "utf-8")
        b = Store.init(Path(d) / "b", actor="tester@test")
        s = import_path(b, f, "jsonl")
        assert not s.failed, s.to_dict()
        assert s.counts["refused_forgotten"] == 0 and s.warnings == 0
        assert record_files(b) == record_files(a)
        assert sorted((t.scope, t.id, t.digest) for t in b.tombstones) == sorted(
            (t.scope, t.id, t.digest) for t in a.tombstones
        )
        # CSV keeps every record field too (no tombstones)
        cbuf = io.StringIO()
        ex.write_csv(a, cbuf, ex.ExportFilter())
        cf = Path(d) / "export.csv"
        cf.write_text(cbuf.getvalue(), "utf-8", newline="")
        c = Store.init(Path(d) / "c", actor="tester@test")
        cs = import_path(c, cf, "csv")
        assert not cs.failed, cs.to_dict()
        assert record_files(c) == record_files(a)
        # and a second import adds nothing
        again = import_path(b, f, "jsonl")
        assert again.counts["created"] == 0 and again.counts["unchanged"] == len(record_files(a))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(_text, st.builds(json.dumps, st.dictionaries(_text, _scalar, max_size=3))), max_size=6))
def test_reader_never_crashes_and_names_lines(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "in.jsonl"
        p.write_text("\n".join(x.replace("\n", " ").replace("\r", " ") for x in lines) + "\n", "utf-8")
        try:
            entries = list(jreader.read(p, ReadOptions()))
        except Exception as exc:  # only a bad header may stop the whole file
            assert "header" in str(exc) or "export version" in str(exc)
            return
        for e in entries:
            assert isinstance(e, (ImportItem, Problem)) or hasattr(e, "obj")
            assert e.where.line is not None and 1 <= e.where.line <= len(lines)


# ---------------------------------------------------------------------------------------------
# the minimal shape and bad input


def write(tmp_path: Path, *lines: str, name: str = "in.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join(line + "\n" for line in lines), "utf-8")
    return p


def test_minimal_objects_get_documented_defaults(store: Store, tmp_path: Path) -> None:
    p = write(
        tmp_path,
        '{"content": "Likes jazz"}',
        '{"content": "Born in Oslo", "scope": "bob", "kind": "fact", "tags": ["bio"], '
        '"valid_from": "1990-04-01", "recorded_at": "2020-01-01T10:00:00+02:00", "confidence": 0.8}',
        '{"content": "From Notion", "source": {"system": "notion", "original_id": "page-1"}}',
    )
    s = import_path(store, p, "jsonl")
    assert s.counts["created"] == 3
    recs = {r.content: r for r in store.iter_records()}
    jazz = recs["Likes jazz\n"]
    assert (jazz.scope, jazz.kind, jazz.status, jazz.confidence, jazz.tags) == ("default", "note", "active", 1.0, ())
    assert jazz.source == {  # identified by scope and normalized content (spec/format.md 5.3)
        "type": "import",
        "writer": jazz.source["writer"],
        "system": "jsonl",
        "original_id": f"default:{jazz.match_digest}",
        "file": "in.jsonl",
        "line": 1,
    }
    oslo = recs["Born in Oslo\n"]
    assert (oslo.scope, oslo.kind, oslo.tags, oslo.confidence) == ("bob", "fact", ("bio",), 0.8)
    assert format_time(oslo.recorded_at) == "2020-01-01T08:00:00.000Z"
    assert format_time(oslo.valid_from) == "1990-04-01T00:00:00.000Z"  # type: ignore[arg-type]
    notion = recs["From Notion\n"].source
    assert notion == {"system": "notion", "original_id": "page-1", "type": "import", "writer": notion["writer"]}
    again = import_path(store, p, "jsonl")
    assert again.counts["created"] == 0 and again.counts["unchanged"] == 3


def test_bad_lines_are_reported_and_the_rest_imports(store: Store, tmp_path: Path) -> None:
    good_id = new_id()
    p = write(
        tmp_path,
        '{"content": "one"}',
        "{not json",
        '{"content": ""}',
        '["a list"]',
        '{"content": "x", "scope": "Bad Scope!"}',
        '{"content": "x", "colour": "red"}',
        f'{{"id": "{good_id}", "content": "changed", "digest": "sha256:{"0" * 64}"}}',
        '{"type": "widget", "content": "x"}',
        '{"content": "two", "status": "archived"}',
        '{"content": "three"}',
    )
    s = import_path(store, p, "jsonl")
    assert s.counts["created"] == 2 and s.counts["invalid"] == 8 and s.failed
    lines = {p.where.line: p.message for p in s.problems}
    assert sorted(lines) == [2, 3, 4, 5, 6, 7, 8, 9]
    assert lines[2].startswith("not JSON")
    assert "content is missing or empty" in lines[3]
    assert "scope 'Bad Scope!' is not valid" in lines[5]
    assert "unknown key(s) colour" in lines[6]
    assert "digest does not match" in lines[7]
    assert all(pr.where.file == str(p) for pr in s.problems)


def test_unknown_export_version_is_refused(store: Store, tmp_path: Path) -> None:
    from mem.format.base.errors import InvalidInputError

    p = write(tmp_path, '{"type": "header", "format": "mem-export", "version": 99}', '{"content": "x"}')
    with pytest.raises(InvalidInputError, match="export version 99"):
        import_path(store, p, "jsonl")
    assert list(store.iter_records()) == []


def test_same_id_different_record_is_a_conflict(store: Store, tmp_path: Path) -> None:
    rec = store.add("original", scope="default")
    obj = {"id": rec.id, "content": "something else", "recorded_at": format_time(rec.recorded_at)}
    s = import_path(store, write(tmp_path, json.dumps(obj)), "jsonl")
    assert s.counts["conflict"] == 1 and s.failed
    assert store.get(rec.id).content == "original\n"


def test_full_shape_lineage_is_applied_sources_first(store: Store, tmp_path: Path) -> None:
    src_id, sum_id = new_id(1_700_000_000_000), new_id(1_700_000_100_000)
    missing = new_id(1_600_000_000_000)
    summary = {"id": sum_id, "kind": "summary", "content": "sum", "derived_from": [src_id, missing]}
    source = {"id": src_id, "content": "src"}
    s = import_path(store, write(tmp_path, json.dumps(summary), json.dumps(source)), "jsonl")
    assert s.counts["created"] == 2 and s.warnings == 1  # the missing source is reported
    assert store.get(sum_id).derived_from == (src_id,)
    assert "neither in the store nor in the input" in s.problems[0].message


def test_tombstones_in_the_input_block_later_imports(store: Store, tmp_path: Path) -> None:
    a = Store.init(tmp_path / "a", actor="t@t")
    r = a.add("my old address is 1 Main St", scope="alice", source={"system": "x", "original_id": "42"})
    a.forget([r.id], reason="moved")
    buf = io.StringIO()
    ex.write_jsonl(a, buf, ex.ExportFilter())
    f = tmp_path / "a.jsonl"
    f.write_text(buf.getvalue(), "utf-8")
    s = import_path(store, f, "jsonl")
    assert s.tombstones["added"] == 1 and s.counts["created"] == 0
    assert import_path(store, f, "jsonl").tombstones["unchanged"] == 1
    # the forgotten content, and the forgotten source item, stay out of this store too
    s2 = import_path(
        store,
        write(tmp_path, '{"content": "My old address is 1 Main St.", "scope": "alice"}',
              '{"content": "reworded", "scope": "alice", "source": {"system": "x", "original_id": "42"}}',
              name="again.jsonl"),
        "jsonl",
    )
    assert s2.counts["refused_forgotten"] == 2 and not s2.failed
    assert list(store.iter_records()) == []


def test_scope_options(store: Store, tmp_path: Path) -> None:
    p = write(tmp_path, '{"content": "a", "scope": "alice"}', '{"content": "b", "scope": "Bob Smith"}')
    s = import_path(store, p, "jsonl", options=ImportOptions(scope_map={"Bob Smith": "bob"}))
    assert s.counts["created"] == 2
    assert sorted(r.scope for r in store.iter_records()) == ["alice", "bob"]
    s2 = import_path(store, write(tmp_path, '{"content": "c", "scope": "zed"}', name="2.jsonl"), "jsonl",
                     options=ImportOptions(scope="team"))  # fmt: skip
    assert s2.counts["created"] == 1 and store.list()[0].scope == "team"


def test_export_filters(store: Store) -> None:
    store.add("a fact", scope="alice", kind="fact", recorded_at="2024-01-01T00:00:00Z")
    store.add("a note", scope="alice", kind="note", recorded_at="2025-01-01T00:00:00Z")
    c = store.add("cand", scope="bob", kind="fact", status="candidate", recorded_at="2025-06-01T00:00:00Z")
    store.reject(c.id)

    def contents(**kw: Any) -> list[str]:
        return [r.content.strip() for r in ex.iter_records(store, ex.ExportFilter(**kw))]

    assert contents() == ["a fact", "a note", "cand"]  # every status by default
    assert contents(scopes=["alice"]) == ["a fact", "a note"]
    assert contents(kinds=["fact"]) == ["a fact", "cand"]
    assert contents(statuses=["active"]) == ["a fact", "a note"]
    assert contents(since=_dt.datetime(2024, 6, 1, tzinfo=UTC)) == ["a note", "cand"]
    assert contents(until=_dt.datetime(2025, 1, 1, tzinfo=UTC)) == ["a fact"]


def test_dry_run_plans_like_a_real_run(store: Store, tmp_path: Path) -> None:
    p = write(tmp_path, '{"content": "x"}', '{"content": "x"}', '{"content": "y"}')
    before = snapshot(store.root)
    s = import_path(store, p, "jsonl", options=ImportOptions(dry_run=True, keep_items=True))
    assert snapshot(store.root) == before
    assert [i.outcome for i in s.items] == ["created", "unchanged", "created"]
    real = import_path(store, p, "jsonl")
    assert real.counts == s.counts


def test_live_copy_of_forgotten_content_survives_the_round_trip(store: Store, tmp_path: Path) -> None:
    a = Store.init(tmp_path / "a", actor="t@t")
    keep = a.add("same words", scope="alice")
    gone = a.add("same words", scope="alice")
    a.forget([gone.id], reason="duplicate")
    f = tmp_path / "a.jsonl"
    with open(f, "w", encoding="utf-8") as out:
        ex.write_jsonl(a, out, ex.ExportFilter())
    s = import_path(store, f, "jsonl")
    assert (s.counts["created"], s.tombstones["added"]) == (1, 1)
    assert record_files(store) == record_files(a) and store.get(keep.id)


def test_export_lines_match_the_published_schemas(store: Store, tmp_path: Path) -> None:
    import jsonschema
    from referencing import Registry, Resource

    root = Path(__file__).resolve().parents[2] / "spec" / "schemas"
    schemas = {p.name: json.loads(p.read_text("utf-8")) for p in root.glob("*.schema.json")}
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )

    def check(obj: dict[str, Any], name: str) -> None:
        jsonschema.Draft202012Validator(schemas[name], registry=registry).validate(obj)

    a = store.add("kept", scope="alice", tags=["t"], extra={"x_mood": "fine"})
    b = store.add("summary of kept", scope="alice", kind="summary", derived_from=[a.id])
    gone = store.add("gone", scope="alice", source={"type": "import", "system": "s", "original_id": "1"})
    store.forget([gone.id], reason="r")
    buf = io.StringIO()
    ex.write_jsonl(store, buf, ex.ExportFilter())
    objs = [json.loads(x) for x in buf.getvalue().splitlines()]
    assert [o["type"] for o in objs] == ["header", "record", "record", "tombstone"]
    check(objs[0], "export-header.schema.json")
    for o in objs[1:3]:
        check(o, "export-record.schema.json")
    check(objs[3], "tombstone.schema.json")
    assert objs[2]["derived_from"] == [a.id] and objs[2]["id"] == b.id
    with pytest.raises(jsonschema.ValidationError):
        check({**objs[1], "colour": "red"}, "export-record.schema.json")


def test_interrupted_import_leaves_whole_records_and_can_be_rerun(store: Store, tmp_path: Path) -> None:
    from collections.abc import Iterable, Iterator

    from mem.format.base.fsutil import iter_tmp_files
    from mem.format.interchange.importers.base import ImportItem as Item

    p = write(tmp_path, *(json.dumps({"content": f"memory number {i}"}) for i in range(20)))

    def stop_after(n: int) -> Any:
        def wrap(items: Iterable[Item], count: int) -> Iterator[Item]:
            for i, it in enumerate(items):
                if i == n:
                    raise KeyboardInterrupt
                yield it

        return wrap

    with pytest.raises(KeyboardInterrupt):
        import_path(store, p, "jsonl", progress=stop_after(7))
    assert len(list(store.iter_records())) == 7  # every file written is a whole, valid record
    assert list(iter_tmp_files(store.root)) == []
    assert not store.lock.held  # the batch released the lock
    s = import_path(store, p, "jsonl")
    assert (s.counts["unchanged"], s.counts["created"]) == (7, 13)
    assert len(list(store.iter_records())) == 20


def test_dry_run_sees_conflicts_within_the_input(store: Store, tmp_path: Path) -> None:
    rid = new_id(1_700_000_000_000)
    p = write(tmp_path, json.dumps({"id": rid, "content": "one"}), json.dumps({"id": rid, "content": "two"}),
              json.dumps({"id": rid, "content": "one"}))  # fmt: skip
    dry = import_path(store, p, "jsonl", options=ImportOptions(dry_run=True))
    real = import_path(store, p, "jsonl")
    assert dry.counts == real.counts
    assert (real.counts["created"], real.counts["conflict"], real.counts["unchanged"]) == (1, 1, 1)


def test_fifo_and_devices_are_refused(store: Store, tmp_path: Path) -> None:
    import os

    from mem.format.base.errors import InvalidInputError

    fifo = tmp_path / "in.jsonl"
    os.mkfifo(fifo)
    for path, system in ((fifo, "jsonl"), (Path("/dev/zero"), "csv"), (Path("/dev/null"), "windieos")):
        with pytest.raises(InvalidInputError, match="not a regular file or a folder"):
            import_path(store, path, system)
    from mem.format.interchange.importers import detect

    with pytest.raises(InvalidInputError, match="not a regular file"):
        detect(fifo)
