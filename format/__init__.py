"""mem's core library: the store format, typed, with no CLI dependencies.

Start with :func:`open_store` (or :meth:`Store.init`)::

    from mem.format import open_store
    store = open_store("~/memory")
    rec = store.add("I am allergic to peanuts", scope="alice", kind="fact")
    store.forget([rec.id], reason="asked to")

Importing this package is cheap: the search indexes and the embedding model are imported only
by the modules that use them.
"""

from .errors import ExitCode, MemError
from .record import Record, dump_record, make_record, parse_record
from .store import Change, ForgetPlan, RecordFilter, Store, open_store

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
