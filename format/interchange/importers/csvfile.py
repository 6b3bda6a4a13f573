"""CSV import: a header row naming columns of the export shape; only ``content`` is required.

Columns (any order, unknown columns refused): ``id, scope, kind, status, confidence, tags,
valid_from, valid_to, recorded_at, updated_at, superseded_at, supersedes, superseded_by,
derived_from, source, extra, digest, content``. ``tags``, ``supersedes`` and ``derived_from``
are separated by commas or spaces; ``source`` and ``extra`` are JSON objects; empty cells mean
"not given"; a cell neutralized against formulas loses that one apostrophe
(:func:`mem.format.base.csvcell.restore`). Each row is then read like a JSON Lines object.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mem.format.base.csvcell import restore
from mem.format.base.errors import InvalidInputError, NotFoundError, ValidationError
from mem.format.interchange.importers.base import Entry, Problem, ReadOptions, Where
from mem.format.interchange.importers.jsonl import RECORD_KEYS, item_from_object

_JSON_COLUMNS = ("source", "extra")


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise NotFoundError("no such file", path=path) from None
    except OSError as exc:
        raise InvalidInputError(f"cannot read: {exc.strerror}", path=path) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InvalidInputError(f"not valid UTF-8 (byte {exc.start})", path=path, line=line) from None
    csv.field_size_limit(8 * 1024 * 1024)
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    name = opts.display or str(path)
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        raise InvalidInputError(f"not CSV: {exc}", path=path, line=1) from None
    if not header:
        return
    cols = [h.strip() for h in header]
    unknown = [c for c in cols if c not in RECORD_KEYS or c == "type"]
    if unknown or "content" not in cols:
        raise InvalidInputError(
            "the header row must name a content column"
            + (f"; unknown column(s): {', '.join(unknown)}" if unknown else ""),
            path=path,
            line=1,
            hint="columns are the keys of the export shape, see spec/export.md",
        )
    reader.fieldnames = cols
    start = 2
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            yield Problem("invalid", f"not CSV: {exc}", Where(name, reader.line_num))
            break
        where = Where(name, start)
        start = reader.line_num + 1
        if None in row:
            yield Problem("invalid", "more cells than header columns", where)
            continue
        obj: dict[str, Any] = {}
        try:
            for k, v in row.items():
                if v is None or v == "":
                    continue
                v = restore(v)  # undo the export's formula neutralization (format/base/csvcell.py)
                if k in _JSON_COLUMNS:
                    try:
                        obj[k] = json.loads(v)
                    except ValueError:
                        raise ValidationError(f"{k} is not a JSON object") from None
                else:
                    obj[k] = v
            yield item_from_object(obj, where, opts, "csv")
        except ValidationError as exc:
            yield Problem("invalid", exc.message, where, obj.get("id"))
