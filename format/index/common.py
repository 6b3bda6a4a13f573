"""Shared pieces of the derived indexes: pointer files (manifests), generations, sizes."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import IndexUnavailableError, StoreIOError

if TYPE_CHECKING:
    import sqlite3
from mem.format.base.fsutil import DIR_MODE, FILE_MODE, atomic_write, ensure_dir
from mem.format.rules.layout import LEXICAL_KIND as LEXICAL_KIND
from mem.format.rules.layout import LEXICAL_POINTER as LEXICAL_POINTER
from mem.format.rules.layout import POINTER_VERSION as POINTER_VERSION
from mem.format.rules.layout import VECTORS_KIND as VECTORS_KIND
from mem.format.rules.layout import VECTORS_POINTER as VECTORS_POINTER

REBUILD_HINT = "run `mem rebuild`"


def read_pointer(index_dir: Path, name: str, kind: str) -> dict[str, Any] | None:
    """The manifest in ``index_dir/name``; None when absent; IndexUnavailableError when corrupt."""
    raw = _pointer_bytes(index_dir / name)
    return None if raw is None else _parse_pointer(raw, index_dir, name, kind)


def _pointer_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise IndexUnavailableError(f"cannot read the index manifest: {exc.strerror}", path=path,
                                    hint=REBUILD_HINT) from None


def _parse_pointer(raw: bytes, index_dir: Path, name: str, kind: str) -> dict[str, Any]:
    path = index_dir / name
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise IndexUnavailableError(f"the index manifest is not valid JSON ({exc})", path=path,
                                    hint=REBUILD_HINT) from None
    if not isinstance(obj, dict) or obj.get("kind") != kind or not isinstance(obj.get("generation"), str):
        raise IndexUnavailableError("the index manifest is not a mem index manifest", path=path,
                                    hint=REBUILD_HINT)
    if obj.get("version") != POINTER_VERSION:
        raise IndexUnavailableError(
            f"the index manifest has version {obj.get('version')!r}; this mem reads {POINTER_VERSION}",
            path=path, hint=REBUILD_HINT,
        )
    gen = obj["generation"]
    if "/" in gen or gen.startswith(".") or not (index_dir / gen).is_dir():
        raise IndexUnavailableError(f"the index generation {gen!r} named by the manifest is missing",
                                    path=path, hint=REBUILD_HINT)
    return obj


class PointerCache:
    """``read_pointer`` for a long-lived reader, which reads the pointers at every search: a file
    whose bytes are those parsed before gives that manifest again (as a shallow copy: callers
    assign keys of the manifests they hold) instead of parsing it. A store of 2,000 scopes has
    manifests of 100 KB or more, parsed four times a search: 8.7 ms; reading and comparing their
    bytes costs some 20 us."""

    def __init__(self) -> None:
        self._got: dict[str, tuple[bytes, dict[str, Any]]] = {}

    def read(self, index_dir: Path, name: str, kind: str) -> dict[str, Any] | None:
        raw = _pointer_bytes(index_dir / name)
        if raw is None:
            self._got.pop(name, None)
            return None
        got = self._got.get(name)
        if got is not None and got[0] == raw and (index_dir / str(got[1]["generation"])).is_dir():
            return dict(got[1])
        m = _parse_pointer(raw, index_dir, name, kind)
        self._got[name] = (raw, m)
        return dict(m)

    def generation(self, index_dir: Path, name: str) -> str | None:
        """The generation the pointer names now, valid or not; None when it is absent or not
        JSON with a generation."""
        try:
            raw = (index_dir / name).read_bytes()
            got = self._got.get(name)
            if got is not None and got[0] == raw:
                return str(got[1]["generation"])
            g = json.loads(raw).get("generation")
        except (OSError, ValueError, AttributeError):
            return None
        return g if isinstance(g, str) else None


def write_pointer(index_dir: Path, name: str, obj: dict[str, Any]) -> None:
    """Replace a pointer file atomically, keeping its permissions (owner-only when new)."""
    ensure_dir(index_dir)
    mode = FILE_MODE
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(os.lstat(index_dir / name).st_mode) or FILE_MODE
    atomic_write(index_dir / name, json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True) + "\n", mode)


def create_private(path: Path, mode: int = FILE_MODE) -> None:
    """Create an empty file with ``mode`` unless it exists (SQLite then gives its -wal/-shm
    files the same permissions, instead of the umask's)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode))


def secure_tree(root: Path, file_mode: int = FILE_MODE, dir_mode: int = DIR_MODE) -> int:
    """Give every file and folder under ``root`` (root included) the store's modes; returns how
    many were changed. tantivy and numpy create files with the process umask (0644 usually);
    this runs after every index write. Symbolic links are never followed or changed."""
    changed = 0

    def fix(p: str, want: int) -> None:
        nonlocal changed
        try:
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode) or stat.S_IMODE(st.st_mode) == want:
                return
            os.chmod(p, want)
            changed += 1
        except FileNotFoundError:
            pass  # removed meanwhile (a merge, a swap): nothing to protect

    if not os.path.isdir(root) or os.path.islink(root):
        return 0
    fix(str(root), dir_mode)
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            fix(os.path.join(dirpath, d), dir_mode)
        for f in filenames:
            fix(os.path.join(dirpath, f), file_mode)
    return changed


def new_generation(prefix: str) -> str:
    return f"{prefix}-{os.urandom(5).hex()}"


def new_build_dir(index_dir: Path) -> Path:
    """A fresh directory for a build, inside the index folder (same file system: rename works)."""
    ensure_dir(index_dir)
    d = index_dir / f"build-{os.urandom(5).hex()}"
    d.mkdir(mode=0o700)
    return d


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def tree_bytes(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, f)).st_size
    return total


def garbage(index_dir: Path, live: set[str]) -> list[Path]:
    """Generation and build directories that no manifest names (left by a crash)."""
    out: list[Path] = []
    try:
        entries = list(os.scandir(index_dir))
    except FileNotFoundError:
        return out
    for e in entries:
        if e.is_dir(follow_symlinks=False) and e.name not in live and e.name.split("-")[0] in (
            "lexical", "vectors", "build",
        ):
            out.append(Path(e.path))
    return out


# -- the file system's refusals, told apart from damage ------------------------------------------

#: SQLite result codes (and their extended forms) that mean the file system refused, not that
#: the file is damaged: a full disk, a read-only mount, no permission, an I/O error.
_SQLITE_IO = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")
#: errno values of the file system refusing a write (tantivy reports them as "os error N").
_REFUSALS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM)
_OS_ERROR = re.compile(r"\(os error (\d+)\)|Os \{ code: (\d+)")


def _refusal_at(path: Path) -> int | None:
    """Why the file system holding ``path`` refuses writes now (an errno), or None when it does
    not: a read-only mount, a folder this process cannot write, no free block."""
    folder = path if path.is_dir() else path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    if st.f_flag & os.ST_RDONLY:
        return errno.EROFS
    if not os.access(folder, os.W_OK):
        return errno.EACCES
    if st.f_bavail == 0 or (st.f_favail == 0 and st.f_files > 0):
        return errno.ENOSPC
    return None


def io_failure(exc: BaseException, path: Path, what: str) -> StoreIOError | None:
    """The exit-11 error when ``exc`` (an ``sqlite3`` or tantivy error about ``path``) is the
    file system refusing (full, read-only, not writable), else None (the caller reports damage).

    tantivy names the errno in its message ("os error 28", "Os { code: 30"); SQLite says only "disk I/O error" or
    "unable to open database file", so for it the file system is asked (``_refusal_at``): an
    index is never called corrupt because the disk is full."""
    from mem.format.base.fsutil import io_error

    name = getattr(exc, "sqlite_errorname", None)
    err: int | None = None
    if isinstance(name, str):
        if name.startswith("SQLITE_FULL"):
            err = errno.ENOSPC  # "database or disk is full": SQLite says which
        elif name.startswith(_SQLITE_IO):
            err = _refusal_at(path)
    else:
        m = _OS_ERROR.search(str(exc))
        if m is not None and int(m.group(1) or m.group(2)) in _REFUSALS:
            err = int(m.group(1) or m.group(2))
    if err is None:
        return None
    return io_error(OSError(err, os.strerror(err)), path, what)


def open_sqlite(path: Path, timeout: float) -> tuple[sqlite3.Connection, bool]:
    """Open an existing index table (SQLite) and whether it is read-only.

    In a folder this process can write: WAL mode, as every index table. In one it cannot (a
    read-only store: a read-only mount, a checkout of another user), read-only without creating
    anything (SQLite's ``mode=ro``; when that needs the WAL's shared-memory file, which cannot be
    created there, ``immutable=1``: the table is read as it is on disk)."""
    import sqlite3
    from urllib.parse import quote

    if os.access(path.parent, os.W_OK):
        db = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        return db, False
    uri = "file:" + quote(str(path))
    try:
        db = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=timeout, isolation_level=None)
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return db, True
    except sqlite3.OperationalError:
        pass
    return sqlite3.connect(uri + "?immutable=1", uri=True, timeout=timeout, isolation_level=None), True


def build_failure(exc: BaseException, dest: Path) -> StoreIOError | None:
    """The exit-11 error when building or writing an index into ``dest`` failed because the file
    system refused (an ``OSError``, or a tantivy or SQLite error saying so), else None: the
    caller re-raises ``exc``. ``rebuild`` and ``compact`` call it, so a full disk is reported as
    a full disk, never as a traceback."""
    from mem.format.base.fsutil import io_error

    if isinstance(exc, OSError) and exc.errno in (*_REFUSALS, errno.EIO):
        return io_error(exc, Path(exc.filename) if isinstance(exc.filename, str) else dest, "write the index")
    if isinstance(exc, OSError | ValueError | RuntimeError) or type(exc).__module__ == "sqlite3":
        return io_failure(exc, dest, "write the index")
    return None
