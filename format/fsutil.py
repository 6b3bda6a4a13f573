"""File-system primitives: atomic writes, fsync of directories, owner-only permissions."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from .errors import StoreIOError

#: Temporary files carry this marker so ``verify`` can find leftovers of a crash.
TMP_MARKER = ".mem-tmp-"
FILE_MODE = 0o600
DIR_MODE = 0o700


def _io_error(exc: OSError, path: Path, what: str) -> StoreIOError:
    reason = exc.strerror or str(exc)
    hint = None
    if exc.errno == errno.ENOSPC:
        hint = "the disk is full; free space and run the command again"
    elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        hint = "the store is read-only or not writable by you"
    return StoreIOError(f"cannot {what}: {reason}", path=path, hint=hint)


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


def atomic_write(path: Path, data: bytes | str, mode: int = FILE_MODE, *, sync: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part.

    Temp file in the same directory, write, fsync, rename over the target, fsync the directory.
    On any failure the temp file is removed and the target is untouched.
    """
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
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), mode)
    except OSError as exc:
        raise _io_error(exc, path, "append to") from None
    start = -1
    try:
        start = os.fstat(fd).st_size
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
    """Remove a file; True if it existed."""
    try:
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
