"""Opening and creating a store, finding one from a folder upward, and its paths and local state
(``.mem/``: the lock, the clone id, the indexes' folder); ``Store`` (store.py) builds on it."""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Self

from mem.format.base.errors import (
    ConflictError,
    StoreInvalidError,
    StoreNotFoundError,
    ValidationError,
)
from mem.format.base.fsutil import atomic_write, ensure_dir
from mem.format.base.lock import WriterLock
from mem.format.model.audit import AuditLog, default_actor
from mem.format.model.tombstones import TombstoneSet
from mem.format.rules import ids, layout
from mem.format.rules.config import (
    CONFIG_FILE,
    DECLARATION_FILE,
    DEFAULT_CONFIG,
    FORMAT_NAME,
    FORMAT_VERSION,
    Config,
    Declaration,
    read_config,
    read_declaration,
)
from mem.format.rules.layout import (
    LOCAL_DIR,
    LOCK_TIMEOUT_ENV,
    LOG_DIR,
    RECORDS_DIR,
    STATE_DIR,
    STORE_ENV,
    TOMBSTONES_DIR,
    named_store,
    store_above,
)
from mem.format.rules.timeutil import format_time, now

if TYPE_CHECKING:
    from mem.format.store.writes import Change


def find_store_root(start: Path | None = None) -> Path:
    """The store containing ``start`` (default: ``$MEM_STORE`` or the current directory)."""
    env = os.environ.get(STORE_ENV)
    if start is None and env:
        p = Path(env).expanduser()
        if not (p / DECLARATION_FILE).exists():
            raise StoreNotFoundError(
                f"{STORE_ENV} names {p}, which is not a mem store",
                path=p,
                hint="run `mem init` there, or unset MEM_STORE",
            )
        return p
    here = (start or Path.cwd()).resolve()
    found = store_above(str(here))  # the rule the one-shot search applies too
    if found is not None:
        return Path(found)
    raise StoreNotFoundError(
        "no mem store here or in any parent directory",
        path=here,
        hint="run `mem init`, pass --store DIR, or set MEM_STORE",
    )


class StoreBase:
    """An open store's root, declaration, config, lock, tombstones and audit log."""

    def __init__(self, root: Path, *, lock_timeout: float | None = None, actor: str | None = None):
        self.root = root
        self.declaration: Declaration = read_declaration(root)
        self.config: Config = read_config(root)
        rec_dir = root / RECORDS_DIR
        if rec_dir.is_symlink():
            raise StoreInvalidError("records/ is a symbolic link; refusing to follow it", path=rec_dir)
        if lock_timeout is None:
            env = os.environ.get(LOCK_TIMEOUT_ENV)
            try:
                lock_timeout = float(env) if env else 10.0
            except ValueError:
                raise ValidationError(f"{LOCK_TIMEOUT_ENV}={env!r} is not a number") from None
        # .mem/ is created when the lock is first taken, not here: a reader of a read-only store
        # (a read-only mount, another user's checkout) never needs to write anything
        self.lock = WriterLock(self.root / LOCAL_DIR / "lock", timeout=lock_timeout, check=self._before_lock)
        self._actor = actor
        self.tombstones = TombstoneSet(root / TOMBSTONES_DIR)
        self._log: AuditLog | None = None
        self.listeners: builtins.list[Callable[[builtins.list[Change]], None]] = []
        self._batch: builtins.list[Change] | None = None
        self._batch_ids: set[str] | None = None  # ids of record files, known inside a batch
        self._batch_depth = 0

    @property
    def actor(self) -> str:
        """Who the audit log names for this store's writes (``MEM_ACTOR`` or user@host)."""
        if self._actor is None:
            self._actor = default_actor()
        return self._actor

    @actor.setter
    def actor(self, value: str) -> None:
        self._actor = value

    @classmethod
    def open(
        cls,
        path: str | Path | None = None,
        *,
        lock_timeout: float | None = None,
        actor: str | None = None,
    ) -> Self:
        """Open the store at ``path``, or the one found from the current directory upward."""
        if path is not None:
            named = named_store(str(path))  # the rule the one-shot search applies too
            if named is None:
                root = Path(path).expanduser()
                if not root.is_dir():
                    raise StoreNotFoundError("no such directory", path=root)
                raise StoreNotFoundError(
                    "not a mem store (no memstore.json)", path=root, hint="run `mem init` there"
                )
            root = Path(named)
        else:
            root = find_store_root()
        return cls(root.resolve(), lock_timeout=lock_timeout, actor=actor)

    @classmethod
    def init(cls, path: str | Path, *, actor: str | None = None, exist_ok: bool = False) -> Self:
        """Create a new, empty store at ``path`` (the directory may exist and be empty)."""
        root = Path(path).expanduser()
        decl_path = root / DECLARATION_FILE
        if decl_path.exists():
            if exist_ok:
                return cls.open(root, actor=actor)
            raise ConflictError("a mem store already exists here", path=root)
        ensure_dir(root)
        root = root.resolve()
        for sub in (RECORDS_DIR, TOMBSTONES_DIR, LOG_DIR, STATE_DIR, LOCAL_DIR):
            ensure_dir(root / sub)
        for sub in (RECORDS_DIR, TOMBSTONES_DIR, LOG_DIR, STATE_DIR):
            keep = root / sub / ".gitkeep"
            if not keep.exists():
                atomic_write(keep, b"")
        atomic_write(root / LOCAL_DIR / ".gitignore", "# local and derived data: never commit\n*\n")
        if not (root / CONFIG_FILE).exists():
            atomic_write(root / CONFIG_FILE, DEFAULT_CONFIG)
        decl = Declaration(FORMAT_NAME, FORMAT_VERSION, (), format_time(now()))
        atomic_write(decl_path, decl.to_json())
        store = cls(root, actor=actor)
        with store.lock:
            store.log.append("init", detail={"format": FORMAT_NAME, "version": FORMAT_VERSION})
        return store

    @property
    def records_dir(self) -> Path:
        return self.root / RECORDS_DIR

    @property
    def local_dir(self) -> Path:
        d = self.root / LOCAL_DIR
        if d.is_symlink():  # indexes, lock and drafts would be written outside the store
            raise StoreInvalidError(
                f"{LOCAL_DIR}/ is a symbolic link; refusing to follow it out of the store",
                path=d,
                hint=f"remove the link (`rm {d}`): {LOCAL_DIR}/ holds only local, derived data",
            )
        if not d.is_dir():
            ensure_dir(d)
            atomic_write(d / ".gitignore", "# local and derived data: never commit\n*\n")
        return d

    @property
    def drafts_dir(self) -> Path:
        """``.mem/drafts/``: ``mem edit`` keeps a draft here (``<ID>.md``) when the edited text
        cannot be saved; forgetting the record removes it."""
        return self.local_dir / "drafts"

    @property
    def index_dir(self) -> Path:
        return self.local_dir / "index"

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def clone_id(self) -> str:
        p = self.local_dir / "clone-id"
        try:
            cid = p.read_text("utf-8").strip()
            if cid and all(c in "0123456789abcdef" for c in cid):
                return cid
        except FileNotFoundError:
            pass
        cid = os.urandom(8).hex()
        atomic_write(p, cid + "\n")
        return cid

    @property
    def log(self) -> AuditLog:
        if self._log is None:
            self._log = AuditLog(self.root / LOG_DIR, self.clone_id, self.actor)
        return self._log

    def record_path(self, scope: str, record_id: str) -> Path:
        d = self.records_dir / ids.check_scope(scope)
        if d.is_symlink():
            raise StoreInvalidError(
                f"records/{scope} is a symbolic link; refusing to follow it out of the store", path=d
            )
        return d / f"{ids.check_id(record_id)}.md"

    def scopes(self) -> builtins.list[str]:
        """Scopes that have a records folder."""
        return layout.scope_names(str(self.records_dir))

    def _before_lock(self) -> None:
        self.check_no_symlinks()
        _ = self.local_dir  # created (owner-only, with its .gitignore) for the lock file

    def check_no_symlinks(self) -> None:
        """Refuse to write (exit 5) when a folder mem writes to is a symbolic link: the audit log,
        tombstones, capture state or indexes would be written outside the store."""
        for name in (LOCAL_DIR, LOG_DIR, TOMBSTONES_DIR, STATE_DIR, RECORDS_DIR):
            p = self.root / name
            if p.is_symlink():
                raise StoreInvalidError(
                    f"{name}/ is a symbolic link; refusing to write through it out of the store",
                    path=p,
                    hint=f"replace the link by a real folder (e.g. copy the target's files into {name}/)",
                )
