"""File-system primitives: atomic writes, fsync of directories, owner-only permissions.

A store write that takes several steps (a record file, then its audit event; a tombstone, a
removal, an event) runs inside :func:`undoable`: each primitive below notes how to put back
what it changed, and an error at any later step undoes the earlier ones, so that a failed
command leaves nothing behind (``spec/format.md``, "Write order").
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from mem.format.base.errors import MemError, ReadOnlyStoreError, StoreIOError

#: Temporary files carry this marker so ``verify`` can find leftovers of a crash.
TMP_MARKER = ".mem-tmp-"
FILE_MODE = 0o600
DIR_MODE = 0o700


def io_error(exc: OSError, path: Path, what: str) -> StoreIOError:
    """The exit-11 error for an ``OSError`` met while doing ``what`` to ``path``, with a hint
    for a full disk or a read-only file system."""
    return _io_error(exc, path, what)


def _io_error(exc: OSError, path: Path, what: str) -> StoreIOError:
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return ReadOnlyStoreError(f"cannot {what}: {reason}", path=path,
                                  hint="the store is read-only or not writable by you")
    hint = None
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = "the disk is full; free space and run the command again"
    return StoreIOError(f"cannot {what}: {reason}", path=path, hint=hint)


class Journal:
    """What one store write changed so far, and how to put each change back.

    Undo never needs new data blocks: a replaced or removed file is kept as a hard link (or
    under a temp name) until the write commits, and an append is undone by truncating back.
    """

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []
        self._backups: list[Path] = []

    def backup(self, path: Path) -> Path | None:
        """Keep the current ``path`` (about to be replaced) as a hard link; None if it is absent."""
        bak = path.parent / f".{path.name}{TMP_MARKER}undo-{os.urandom(4).hex()}"
        try:
            os.link(path, bak, follow_symlinks=False)
        except FileNotFoundError:
            self._undo.append(lambda: _unlink_quiet(path))
            return None
        except OSError:
            data = path.read_bytes()  # a file system without hard links: keep the bytes
            self._undo.append(lambda: atomic_write(path, data, _journal=False))
            return None
        self._backups.append(bak)
        self._undo.append(lambda: _put_back(bak, path))
        return bak

    def moved_aside(self, path: Path, bak: Path) -> None:
        """``path`` was renamed to ``bak`` (a removal that the undo renames back)."""
        self._backups.append(bak)
        self._undo.append(lambda: _put_back(bak, path))

    def appended(self, path: Path, size: int, created: bool) -> None:
        """``path`` was ``size`` bytes long (or ``created`` by this append) before an append."""
        self._undo.append(lambda: _unlink_quiet(path) if created else _truncate(path, size))

    def rollback(self) -> list[str]:
        """Undo every change, newest first; the problems of steps that could not be undone."""
        problems: list[str] = []
        for fn in reversed(self._undo):
            try:
                fn()
            except (OSError, StoreIOError) as exc:
                problems.append(str(exc))
        self._undo.clear()
        self._drop_backups()
        return problems

    def commit(self) -> None:
        self._undo.clear()
        self._drop_backups()

    def _drop_backups(self) -> None:
        for bak in self._backups:
            _unlink_quiet(bak)
        self._backups.clear()


_JOURNAL: contextvars.ContextVar[Journal | None] = contextvars.ContextVar("mem_journal", default=None)


def _unlink_quiet(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _put_back(bak: Path, path: Path) -> None:
    os.replace(bak, path)
    fsync_dir(path.parent)


def _truncate(path: Path, size: int) -> None:
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def undoable() -> Iterator[Journal]:
    """Run a multi-step write so that an error at any step undoes the steps before it.

    Nested calls join the outermost one. When an undo step itself fails, the error that
    stopped the write is re-raised with what could not be put back added to its message.
    """
    outer = _JOURNAL.get()
    if outer is not None:
        yield outer
        return
    journal = Journal()
    token = _JOURNAL.set(journal)
    try:
        yield journal
    except BaseException as exc:
        _JOURNAL.reset(token)
        problems = journal.rollback()
        if problems and isinstance(exc, MemError):
            exc.message += "; the write could not be fully undone (" + "; ".join(problems) + ")"
            exc.hint = "run `mem verify` and `mem repair`"
        raise
    _JOURNAL.reset(token)
    journal.commit()


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def ensure_dir(path: Path, mode: int = DIR_MODE) -> None:
    """Create a directory (and parents) with owner-only permissions; fsync the parent."""
    if path.is_dir():
        return
    try:
        parent = path.parent
        if not parent.is_dir():
            ensure_dir(parent, mode)
        path.mkdir(mode=mode)
        fsync_dir(parent)
    except FileExistsError:
        if not path.is_dir():
            raise StoreIOError("exists and is not a directory", path=path) from None
    except OSError as exc:
        raise _io_error(exc, path, "create directory") from None


def atomic_write(
    path: Path, data: bytes | str, mode: int = FILE_MODE, *, sync: bool = True, _journal: bool = True
) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part.

    Temp file in the same directory, write, fsync, rename over the target, fsync the directory.
    On any failure the temp file is removed and the target is untouched. Inside
    :func:`undoable`, the old file (or its absence) is kept until the write commits.
    """
    journal = _JOURNAL.get() if _journal else None
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = path.parent / f".{path.name}{TMP_MARKER}{os.urandom(4).hex()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    except OSError as exc:
        raise _io_error(exc, path, "write") from None
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        if journal is not None:
            journal.backup(path)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _io_error(exc, path, "write") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync:
        fsync_dir(path.parent)


def append_line(path: Path, line: str, mode: int = FILE_MODE, *, sync: bool = True) -> None:
    """Append one line (with its newline) in a single write; fsync."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    journal = _JOURNAL.get()
    created = journal is not None and not os.path.lexists(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), mode)
    except OSError as exc:
        raise _io_error(exc, path, "append to") from None
    start = -1
    try:
        start = os.fstat(fd).st_size
        if journal is not None:
            journal.appended(path, start, created)
        view = memoryview(data)
        while view:  # a full disk can take part of a write: never leave a torn line behind
            n = os.write(fd, view)
            view = view[n:]
        if sync:
            os.fsync(fd)
    except OSError as exc:
        if start >= 0:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
        raise _io_error(exc, path, "append to") from None
    finally:
        os.close(fd)


def remove_file(path: Path, *, sync: bool = True) -> bool:
    """Remove a file; True if it existed. Inside :func:`undoable` it is moved aside until commit."""
    journal = _JOURNAL.get()
    try:
        if journal is not None:
            bak = path.parent / f".{path.name}{TMP_MARKER}undo-{os.urandom(4).hex()}"
            os.rename(path, bak)
            journal.moved_aside(path, bak)
        else:
            os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _io_error(exc, path, "remove") from None
    if sync:
        fsync_dir(path.parent)
    return True


def iter_tmp_files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git",)]
        for f in filenames:
            if TMP_MARKER in f:
                yield Path(dirpath) / f
