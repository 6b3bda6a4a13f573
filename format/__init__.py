"""mem's core library: the store format, typed, with no CLI dependencies.

Start with :func:`open_store` (or :meth:`Store.init`)::

    from mem.format import open_store
    store = open_store("~/memory")
    rec = store.add("I am allergic to peanuts", scope="alice", kind="fact")
    store.forget([rec.id], reason="asked to")

Importing this package is cheap: the names below are imported on first use (PEP 562), so
``import mem.format.base.errors`` or the lean lexical read path (:mod:`mem.format.search.lexfast`) do not pay
for the store and record modules; the search indexes and the embedding model are imported only
by the modules that use them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from mem.format.base.errors import ExitCode, MemError
    from mem.format.model.record import Record, dump_record, make_record, parse_record
    from mem.format.store.store import Change, ForgetPlan, RecordFilter, Store, open_store

#: exported name -> the submodule that defines it
_LAZY = {
    "ExitCode": "base.errors",
    "MemError": "base.errors",
    "Record": "model.record",
    "dump_record": "model.record",
    "make_record": "model.record",
    "parse_record": "model.record",
    "Change": "store.store",
    "ForgetPlan": "store.store",
    "RecordFilter": "store.store",
    "Store": "store.store",
    "open_store": "store.store",
}

__all__ = [
    "Change",
    "ExitCode",
    "ForgetPlan",
    "MemError",
    "Record",
    "RecordFilter",
    "Store",
    "dump_record",
    "make_record",
    "open_store",
    "parse_record",
]

if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        mod = _LAZY.get(name)
        if mod is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(f".{mod}", __name__), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
