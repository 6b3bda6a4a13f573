"""``mem export --format mem0``: the JSON that mem0's ``get_all`` returns, ``{"results": [...]}``.

Each record is one memory: ``id`` (the mem id), ``memory`` (the text), ``hash`` (its MD5, as
mem0 computes it), ``created_at``/``updated_at`` (record time), ``user_id`` (the scope) and
``metadata`` with what mem0 has no field for: ``mem_kind``, ``mem_tags``, ``mem_confidence``,
``mem_valid_from``/``mem_valid_to`` (``mem import --from mem0`` reads them back). The
tombstones of the exported scopes go in a top-level ``mem_tombstones`` list (mem0 ignores it;
``mem import --from mem0`` applies it, so a round trip keeps forgetting).
"""

from __future__ import annotations

import hashlib
import json
from typing import IO, Any

from mem.format.interchange.export import ExportCounts, ExportFilter, iter_tombstone_objects
from mem.format.interchange.exporters import peer_records
from mem.format.model.record import Record
from mem.format.rules.timeutil import format_time
from mem.format.store.store import Store


def memory_object(r: Record) -> dict[str, Any]:
    meta: dict[str, Any] = {"mem_kind": r.kind}
    if r.tags:
        meta["mem_tags"] = list(r.tags)
    if r.confidence != 1.0:
        meta["mem_confidence"] = r.confidence
    if r.valid_from is not None:
        meta["mem_valid_from"] = format_time(r.valid_from)
    if r.valid_to is not None:
        meta["mem_valid_to"] = format_time(r.valid_to)
    text = r.content.rstrip("\n")
    return {
        "id": r.id,
        "memory": text,
        "hash": hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest(),
        "metadata": meta,
        "created_at": format_time(r.recorded_at),
        "updated_at": format_time(r.updated_at) if r.updated_at else None,
        "user_id": r.scope,
    }


def write(store: Store, out: IO[str], flt: ExportFilter, *, tombstones: bool = True) -> ExportCounts:
    counts = ExportCounts()
    results = []
    for r in peer_records(store, flt, counts, "mem0"):
        results.append(memory_object(r))
        counts.records += 1
    doc: dict[str, Any] = {"results": results}
    if tombstones:
        doc["mem_tombstones"] = list(iter_tombstone_objects(store, flt, counts))
    out.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return counts
