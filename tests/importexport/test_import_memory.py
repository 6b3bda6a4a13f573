"""An import does not hold its items (issue 21: 100k records in bounded memory): it reads its
input twice, applies the items as they are read again, sources first, and keeps every record,
its idempotence and its report of bad lines exactly."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

import mem.format.interchange.migrate.run as run
from mem.format.base.errors import InvalidInputError
from mem.format.interchange.importers import jsonl
from mem.format.interchange.importers.base import ImportItem, ReadOptions, Where
from mem.format.interchange.migrate import import_entries, import_path
from mem.format.rules.ids import new_id
from mem.format.store.store import Store
from tests.conftest import run_mem


def _lines(n: int) -> list[str]:
    out = []
    for i in range(n):
        if i in (17, 150, 333):
            out.append("{not json" if i != 150 else json.dumps({"scope": "ana"}))  # no content
        else:
            out.append(json.dumps({"content": f"memory number {i} about kites", "scope": ("ana", "bob")[i % 2]}))
    return out


def test_an_import_holds_only_the_item_it_applies(store: Store, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(_lines(400)) + "\n", "utf-8")
    alive: list[int] = []
    applied: list[int] = []
    real = run._apply_item

    def apply_item(*a: Any, **kw: Any) -> Any:
        applied.append(1)
        if len(applied) == 300:  # ImportItems alive now: the one applied, the one read ahead
            alive.append(sum(1 for o in gc.get_objects() if isinstance(o, ImportItem)))
        return real(*a, **kw)

    monkeypatch.setattr(run, "_apply_item", apply_item)
    s = import_path(store, src, "jsonl")
    assert alive and alive[0] <= 3  # (400 items were all held before)
    assert s.counts["created"] == 397 and len(store.list(limit=1000)) == 397
    bad = sorted((p.where.line, p.outcome) for p in s.problems)
    assert bad == [(18, "invalid"), (151, "invalid"), (334, "invalid")] and s.failed
    again = import_path(store, src, "jsonl")  # idempotent: nothing new, the same report
    assert again.counts["created"] == 0 and again.counts["unchanged"] + again.counts["duplicate"] == 397
    assert sorted((p.where.line, p.outcome) for p in again.problems) == bad


def test_an_item_read_before_its_source_waits_for_it(store: Store, tmp_path: Path) -> None:
    src_id, sum_id = new_id(1_700_000_000_000), new_id(1_700_000_100_000)
    lines = [json.dumps({"id": sum_id, "kind": "summary", "content": "sum of it", "derived_from": [src_id]})]
    lines += _lines(60)
    lines.append(json.dumps({"id": src_id, "content": "the source, last in the file"}))
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(lines) + "\n", "utf-8")
    s = import_path(store, f, "jsonl")
    assert s.counts["created"] == 2 + 59 and s.warnings == 0  # (line 18 of _lines is bad)
    assert store.get(sum_id).derived_from == (src_id,)
    log = [e["id"] for e in store.log.iter_events() if e["id"] in (src_id, sum_id)]
    assert log.index(src_id) < log.index(sum_id)  # the source was written first


def test_an_input_that_changes_between_its_two_readings_is_refused(store: Store) -> None:
    readings: list[int] = []

    def entries() -> list[Any]:
        readings.append(1)
        n = 5 if len(readings) == 1 else 3  # a file cut short between the two readings
        return [jsonl.entry_from_object({"content": f"line {i}"}, Where("in.jsonl", i + 1), ReadOptions(),
                                        first=i == 0) for i in range(n)]

    with pytest.raises(InvalidInputError, match="changed while it was imported") as ei:
        import_entries(store, entries, system="jsonl", path="in.jsonl")
    assert "3 record(s)" in ei.value.message and "nothing is duplicated" in ei.value.message
    assert len(store.list()) == 3


def test_mem_import_from_stdin_reads_it_twice_and_reports_bad_lines(tmp_path: Path) -> None:
    root = tmp_path / "s"
    assert run_mem("init", str(root)).returncode == 0
    text = "\n".join(_lines(200)) + "\n"
    out = run_mem("--store", str(root), "import", "-", "--no-embed", "--json", input=text)
    assert out.returncode == 4, out.stderr
    got = json.loads(out.stdout)
    assert got["counts"]["created"] == 198
    assert sorted(p["line"] for p in got["problems"]) == [18, 151]  # (line 334 is past 200)
    again = run_mem("--store", str(root), "import", "-", "--no-embed", "--json", input=text)
    assert json.loads(again.stdout)["counts"].get("created", 0) == 0
