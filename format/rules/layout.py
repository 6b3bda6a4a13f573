"""The store's layout: the names of its files and folders, and which entries of a folder are scopes
and record files. Every reader (the store, the indexes, verify, the one-shot search) lists a store
with these functions, so a folder or file that one of them skips, all of them skip.

Standard library (``os``) only and cheap to import: the lean read path of a one-shot search
(:mod:`mem.format.search.lexfast`) imports it.
"""

from __future__ import annotations

import os

from mem.format.rules import ids

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (lean search path)
if TYPE_CHECKING:
    from collections.abc import Iterator

#: The store declaration and the configuration at the store's root (spec/format.md §2).
DECLARATION_FILE = "memstore.json"
CONFIG_FILE = "config.toml"
#: What the declaration must say (``format``, ``version``).
FORMAT_NAME = "mem-store"
FORMAT_VERSION = 1
#: The folders of a store: ``records/<scope>/<ID>.md``, ``tombstones/<scope>.jsonl``,
#: ``log/<clone-id>.jsonl``, ``state/``, and ``.mem/`` (local, derived, never committed).
RECORDS_DIR = "records"
TOMBSTONES_DIR = "tombstones"
LOG_DIR = "log"
STATE_DIR = "state"
LOCAL_DIR = ".mem"
#: ``.mem/first-build``: flocked by a search while it builds the store's first lexical index, so
#: that the other first searches wait for that build (spec/index.md, "First build").
FIRST_BUILD_CLAIM = "first-build"
#: ``.mem/index/``: the derived indexes, each a generation folder named by a pointer file.
INDEX_DIR = "index"
LEXICAL_POINTER = "lexical.json"
VECTORS_POINTER = "vectors.json"
LEXICAL_KIND = "mem-lexical-index"
VECTORS_KIND = "mem-vector-index"
POINTER_VERSION = 1
#: The environment: the store to open, and the writer lock's timeout in seconds.
STORE_ENV = "MEM_STORE"
LOCK_TIMEOUT_ENV = "MEM_LOCK_TIMEOUT"
#: A record file's name is its id and this suffix.
RECORD_SUFFIX = ".md"


def _is_scope_entry(e: os.DirEntry[str]) -> bool:
    return e.is_dir(follow_symlinks=False) and ids.is_scope(e.name)


def scope_names(records: str) -> list[str]:
    """The scopes of a store, sorted: the folders of ``records/`` named like a scope (a symbolic
    link is never a scope; other entries are not records and are left to ``mem verify``)."""
    try:
        entries = os.scandir(records)
    except FileNotFoundError:
        return []
    with entries:
        return sorted(e.name for e in entries if _is_scope_entry(e))


def scope_mtimes(records: str) -> dict[str, int]:
    """``scope_names`` with each folder's mtime in nanoseconds (-1: it vanished meanwhile), in
    name order: one listing and one stat per scope."""
    got: dict[str, int] = {}
    try:
        entries = os.scandir(records)
    except FileNotFoundError:
        return got
    with entries:
        for e in entries:
            if _is_scope_entry(e):
                try:  # not a symbolic link: its lstat is its stat
                    got[e.name] = e.stat(follow_symlinks=False).st_mtime_ns
                except FileNotFoundError:
                    got[e.name] = -1
    return dict(sorted(got.items()))


def record_files(scope_dir: str) -> Iterator[tuple[str, os.stat_result]]:
    """(id, lstat) of the record files of one scope folder, in the folder's order: regular files
    named ``<ID>.md`` (a symbolic link is never a record file). Nothing for a missing folder."""
    try:
        it = os.scandir(scope_dir)
    except (FileNotFoundError, NotADirectoryError):
        return
    with it:
        for e in it:
            name = e.name
            if not name.endswith(RECORD_SUFFIX) or not ids.is_id(name[:-3]):
                continue
            try:
                if not e.is_file(follow_symlinks=False):
                    continue
                st = e.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            yield name[:-3], st


def record_file(scope_dir: str, rid: str) -> os.stat_result | None:
    """The lstat of one record file, when ``record_files`` would list it (a regular file, never a
    symbolic link); None when it is not one (missing, or something else by that name)."""
    from stat import S_ISREG

    try:
        st = os.lstat(os.path.join(scope_dir, rid + RECORD_SUFFIX))
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st if S_ISREG(st.st_mode) and ids.is_id(rid) else None


def record_ids(scope_dir: str) -> list[str]:
    """The ids of ``record_files`` of one scope folder, sorted, without a stat per file: the
    files the store reads (``Store.iter_paths``)."""
    try:
        it = os.scandir(scope_dir)
    except (FileNotFoundError, NotADirectoryError):
        return []
    with it:
        names = sorted(e.name for e in it if e.name.endswith(RECORD_SUFFIX) and e.is_file(follow_symlinks=False))
    return [n[:-3] for n in names if ids.is_id(n[:-3])]


def named_store(path: str) -> str | None:
    """The store folder ``path`` names (``~`` expanded, resolved), or None when it is not a folder
    holding a store declaration (``Store.open(path)`` then says which)."""
    p = os.path.expanduser(path)
    if not os.path.isdir(p) or not os.path.exists(os.path.join(p, DECLARATION_FILE)):
        return None
    return os.path.realpath(p)


def store_above(start: str) -> str | None:
    """The nearest folder from ``start`` (resolved) upward that holds a store declaration file, or
    None: the store a command run in ``start`` opens when no store is named."""
    d = os.path.realpath(start)
    while True:
        if os.path.isfile(os.path.join(d, DECLARATION_FILE)):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
