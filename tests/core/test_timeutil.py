"""Times: the canonical fast path refuses impossible calendar dates like every other form."""

from __future__ import annotations

from pathlib import Path

import pytest

from mem.format.base.errors import ValidationError
from mem.format.rules.timeutil import format_time, parse_time


@pytest.mark.parametrize("bad", ["2026-13-45T00:00:00.000Z", "2026-02-30T00:00:00.000Z",
                                 "2026-01-01T24:00:00.000Z", "2026-01-01T12:61:00.000Z"])
def test_canonical_shape_with_impossible_date_is_a_validation_error(bad: str) -> None:
    with pytest.raises(ValidationError, match="not a valid time"):
        parse_time(bad, "recorded_at")


def test_canonical_round_trip() -> None:
    t = parse_time("2024-02-29T23:59:59.999Z")
    assert format_time(t) == "2024-02-29T23:59:59.999Z"


def test_record_file_with_impossible_date_is_named_in_the_error(tmp_path: Path) -> None:
    from mem.format.base.errors import MemError
    from mem.format.model.record import read_record_file
    from mem.format.store.store import Store

    root = tmp_path / "s"
    store = Store.init(root)
    rec = store.add("green tea", scope="ana")
    p = root / "records" / "ana" / f"{rec.id}.md"
    text = p.read_text("utf-8")
    assert format_time(rec.recorded_at) in text
    p.write_text(text.replace(format_time(rec.recorded_at), "2026-13-45T00:00:00.000Z"), "utf-8")
    with pytest.raises(MemError) as exc:
        read_record_file(p)
    assert str(p) in str(exc.value) or exc.value.path == p
