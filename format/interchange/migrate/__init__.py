"""Applying import items to a store: idempotent, tombstone-respecting, lineage-mapping, atomic.

:func:`import_entries` takes the entries a reader produced (:mod:`mem.format.interchange.importers`) and
decides an outcome for each item (``spec/cli/import.md``):

- ``created``: written as a new record (``store.put(op="import")``, atomic per record);
- ``unchanged``: already in the store: the same id with identical content (full export shape),
  or the same source item (``source_key``: system + original id);
- ``duplicate``: an item without an id of its own whose normalized content is already a live
  record of the same scope (its lineage maps to that record);
- ``conflict``: a different record with the same id is already in the store;
- ``refused_forgotten``: its id, content or source item is tombstoned in the scope, or it is
  derived from a forgotten item; not a failure;
- ``refused_secret``: its text holds a secret (:mod:`.secretpolicy`) and ``allow_secret`` is
  off; a failure (exit 4), reported by rule name, never with the text;
- ``invalid`` / ``skipped_not_memory`` / ``skipped_empty``: reported by the reader.

Records are applied before the tombstones and lifts of the same input (an export's tombstones
describe the exporting store after its records were written). Items are applied sources first (lineage: a derived record is written after the records it was
derived from, and its ``derived_from`` names their mem ids). A derived record whose sources are
missing keeps the ones that exist and reports the others as a warning. All writes go through
``store.batch()`` (one lock, deferred fsync, one index update); an interrupted import leaves
whole records only and can be run again. ``dry_run`` computes the same plan and writes nothing.

The package: :mod:`.outcomes` (options and results), :mod:`.plan` (the store's state, the
order of the items, scope and provenance), :mod:`.apply` (one record, tombstone or lift),
:mod:`.run` (:func:`import_entries`, :func:`import_path`).
"""

from __future__ import annotations

from mem.format.interchange.migrate.outcomes import ImportOptions, ImportSummary, ItemResult
from mem.format.interchange.migrate.run import import_entries, import_path

__all__ = ["ImportOptions", "ImportSummary", "ItemResult", "import_entries", "import_path"]
