"""Hostile input, property-based: every parser and reader either answers or raises a coded
MemError, never another exception, and never writes anything.

Targets: the record parser, the JSON Lines reader behind the audit log and tombstones (and the
chain verifier), the declaration and config readers, each import reader (mem JSON Lines and CSV
files), and the transcript readers of capture.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem.format.base.errors import MemError
from mem.format.model.record import dump_record, make_record, parse_record

FUZZ = settings(
    max_examples=int(os.environ.get("MEM_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)

VALID = dump_record(
    make_record(
        scope="user-ana", kind="fact", content="Ana lives in Lisbon.\n\nSince 2021.",
        tags=["home", "city"], source={"type": "cli", "command": "add"},
        valid_from="2021-01-01T00:00:00Z",
    )
)

# text that looks like records: the valid one cut, spliced and sprinkled with YAML syntax
_yamlish = st.sampled_from(
    ["---\n", "\n", ": ", "- ", "&a ", "*a ", "!!python/object:os.system ", "!tag ", "{", "}", "[",
     "]", "'", '"', "|\n  ", ">\n  ", "? ", "%YAML 1.1\n", "\t", "\ufeff", "\r\n", "id: ",
     "scope: ../../etc", "digest: sha256:", "null", "~", "1e999", "0x1F", "2024-13-45", "\0"]
)


@st.composite
def recordish(draw: st.DrawFn) -> str:
    base = VALID
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(base)))
        op = draw(st.sampled_from(["insert", "delete", "cut"]))
        if op == "insert":
            base = base[:i] + draw(st.one_of(_yamlish, st.text(max_size=20))) + base[i:]
        elif op == "delete":
            base = base[:i] + base[i + draw(st.integers(1, 30)) :]
        else:
            base = base[:i]
    return base


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def counted(tally: Callable[..., None], request: pytest.FixtureRequest) -> Callable[[], None]:
    n = {"k": 0}

    def bump() -> None:
        n["k"] += 1

    yield bump  # type: ignore[misc]
    tally(f"fuzz: {request.node.name.removeprefix('test_fuzz_')}", examples=n["k"], trials=1)


@FUZZ
@given(text=st.one_of(recordish(), st.text(max_size=400)))
def test_fuzz_parse_record(text: str, counted: Callable[[], None]) -> None:
    counted()
    try:
        rec = parse_record(text, "fuzz.md")
    except MemError as exc:
        assert exc.path == "fuzz.md" and exc.exit_code == 4
        return
    # a record that parses writes back canonically, and that parses to the same record
    assert parse_record(dump_record(rec)) == rec


@FUZZ
@given(data=st.binary(max_size=600), lines=st.lists(st.dictionaries(st.text(max_size=5), st.integers()), max_size=4))
def test_fuzz_jsonl_log_and_tombstones(data: bytes, lines: list[dict[str, int]], tmp_path_factory: pytest.TempPathFactory, counted: Callable[[], None]) -> None:
    from mem.format.base.jsonl import read_jsonl
    from mem.format.model.audit import verify_chain
    from mem.format.model.tombstones import TombstoneSet

    counted()
    d = tmp_path_factory.mktemp("j")
    body = data + b"".join(json.dumps(x).encode() + b"\n" for x in lines)
    (d / "default.jsonl").write_bytes(body)
    before = _snapshot(d)
    try:
        read_jsonl(d / "default.jsonl")
        verify_chain(d / "default.jsonl")
        list(TombstoneSet(d))
    except MemError:
        pass
    assert _snapshot(d) == before


@FUZZ
@given(decl=st.one_of(st.binary(max_size=200), st.builds(lambda o: json.dumps(o).encode(), st.dictionaries(st.sampled_from(["format", "version", "extensions", "created_at"]), st.one_of(st.integers(), st.text(max_size=8), st.just("mem-store"), st.lists(st.dictionaries(st.text(max_size=4), st.booleans()), max_size=2))))), conf=st.binary(max_size=200))
def test_fuzz_declaration_and_config(decl: bytes, conf: bytes, tmp_path_factory: pytest.TempPathFactory, counted: Callable[[], None]) -> None:
    from mem.format.rules.config import read_config, read_declaration

    counted()
    d = tmp_path_factory.mktemp("d")
    (d / "memstore.json").write_bytes(decl)
    (d / "config.toml").write_bytes(conf)
    for fn in (read_declaration, read_config):
        with contextlib.suppress(MemError):
            fn(d)


_export_obj = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["record", "tombstone", "header", "x", 3]),
        "id": st.one_of(st.text(max_size=30), st.just("01JD3Z8Q4T6W0000000000000A"), st.integers()),
        "scope": st.one_of(st.text(max_size=12), st.just("../../etc"), st.just("/abs"), st.just("default")),
        "kind": st.one_of(st.text(max_size=8), st.just("fact")),
        "content": st.one_of(st.text(max_size=40), st.integers(), st.none()),
        "status": st.text(max_size=8),
        "confidence": st.one_of(st.floats(allow_nan=True), st.text(max_size=4)),
        "tags": st.one_of(st.lists(st.text(max_size=6), max_size=3), st.text(max_size=6)),
        "recorded_at": st.one_of(st.text(max_size=25), st.just("2024-02-30T00:00:00Z")),
        "source": st.one_of(st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=3), st.text(max_size=5)),
        "derived_from": st.lists(st.text(max_size=26), max_size=2),
        "format": st.just("mem-export"),
        "version": st.integers(-1, 3),
    },
)


@FUZZ
@given(objs=st.lists(st.one_of(_export_obj, st.text(max_size=30)), max_size=6), raw=st.binary(max_size=80))
def test_fuzz_import_readers(objs: list[object], raw: bytes, tmp_path_factory: pytest.TempPathFactory, counted: Callable[[], None]) -> None:
    importers = pytest.importorskip("mem.format.interchange.importers")
    counted()
    d = tmp_path_factory.mktemp("imp")
    lines = [json.dumps(o) if not isinstance(o, str) else o for o in objs]
    (d / "in.jsonl").write_bytes("\n".join(lines).encode("utf-8", "surrogatepass") + b"\n" + raw)
    (d / "in.csv").write_bytes(b"content,scope,kind,tags\n" + raw + b"\n" + "\n".join(lines).encode("utf-8", "surrogatepass"))
    before = _snapshot(d)
    for name, system in (("in.jsonl", "jsonl"), ("in.csv", "csv")):
        try:
            for entry in importers.read_source(d / name, system):
                assert isinstance(entry, (importers.ImportItem, importers.Problem, importers.Tombstoneish))
        except MemError:
            pass
    assert _snapshot(d) == before


@FUZZ
@given(objs=st.lists(st.one_of(st.dictionaries(st.sampled_from(["role", "content", "text", "type", "message", "turn", "id"]), st.one_of(st.text(max_size=20), st.integers(), st.lists(st.text(max_size=5), max_size=2), st.none()), max_size=4), st.text(max_size=30)), max_size=6), raw=st.binary(max_size=60))
def test_fuzz_transcript_readers(objs: list[object], raw: bytes, tmp_path_factory: pytest.TempPathFactory, counted: Callable[[], None]) -> None:
    tr = pytest.importorskip("mem.format.capture.transcripts")
    counted()
    d = tmp_path_factory.mktemp("tr")
    body = "\n".join(json.dumps(o) if not isinstance(o, str) else o for o in objs).encode("utf-8", "surrogatepass")
    (d / "t.jsonl").write_bytes(body + b"\n" + raw)
    (d / "t.txt").write_bytes(raw + b"\nUser: hi\nAssistant: hello\n" + body)
    before = _snapshot(d)
    for fn, name in ((tr.read_jsonl, "t.jsonl"), (tr.read_text, "t.txt")):
        with contextlib.suppress(MemError):
            fn(d / name)
    assert _snapshot(d) == before
