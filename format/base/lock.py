"""The store-wide writer lock: one writer at a time, readers never wait."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

from mem.format.base.errors import LockTimeoutError
from mem.format.base.fsutil import io_error


class WriterLock:
    """An exclusive ``flock`` on ``.mem/lock``, re-entrant within one process object.

    The lock is advisory and held by the open file description, so a killed process releases
    it at once (no stale lock files to clean up).
    """

    def __init__(self, path: Path, timeout: float = 10.0, check: Callable[[], None] | None = None) -> None:
        self.path = path
        self.timeout = timeout
        self.check = check  # run before the lock is taken (the store refuses symlinked folders)
        self._fd: int | None = None
        self._depth = 0
        self._limit = threading.local()  # a reader's shorter wait, this thread only

    @contextlib.contextmanager
    def waiting_at_most(self, seconds: float) -> Iterator[None]:
        """Within the block, this thread waits at most ``seconds`` for the lock (a reader that
        would tidy the index as it goes, such as a search, answers from the index as it is
        rather than wait on a writer: LockTimeoutError, which it catches)."""
        before = getattr(self._limit, "seconds", None)
        self._limit.seconds = seconds if before is None else min(before, seconds)
        try:
            yield
        finally:
            self._limit.seconds = before

    @property
    def held(self) -> bool:
        return self._fd is not None

    def fileno(self) -> int | None:
        """The descriptor that holds the lock (None when not held). A forked child must close its
        copy: the ``flock`` belongs to the open file description, which the copy keeps alive."""
        return self._fd

    def acquire(self) -> None:
        if self._fd is not None:
            self._depth += 1
            return
        if self.check is not None:
            self.check()
        try:  # never through a symbolic link: it would create or lock a file outside the store
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as exc:  # a read-only store: ReadOnlyStoreError (readers catch it)
            raise io_error(exc, self.path, "open the lock file") from None
        limit = getattr(self._limit, "seconds", None)
        timeout = self.timeout if limit is None else min(self.timeout, limit)
        deadline = time.monotonic() + max(0.0, timeout)
        delay = 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockTimeoutError(
                        f"another mem process holds the store's writer lock (waited {timeout:g} s)",
                        path=self.path,
                        hint="wait for it to finish, or raise --lock-timeout / MEM_LOCK_TIMEOUT",
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.02)  # short: a waiter that sleeps long loses its turn
        self._fd = fd
        self._depth = 1

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


class Claim:
    """An exclusive ``flock`` on a side file that tells other processes "this one is doing it"
    (a search building a store's first index): they wait for it to end (``wait_for_holder``)
    instead of answering without what it makes. It guards no data (the writer lock does); a
    killed holder releases it at once, as the writer lock.

    ``take()`` is True when this process now holds the claim, False when it does not: another
    process holds it, or no claim can be made here (``unclaimable``: the file cannot be opened,
    as in a read-only store or where it is a link, or the file system has no ``flock``; the work
    then goes on unclaimed, and no other process can wait for it either).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        #: no claim can be made here (set by ``take``): nothing to hold, nothing to wait for
        self.unclaimable = False

    @property
    def held(self) -> bool:
        """This process holds the claim (``take`` was True, and it is not released yet)."""
        return self._fd is not None

    def take(self) -> bool:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError:  # read-only, a link, no folder
            self.unclaimable = True
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # held by another process
            os.close(fd)
            return False
        except OSError:  # no flock on this file system (ENOLCK): no process can hold it
            os.close(fd)
            self.unclaimable = True
            return False
        self.unclaimable = False
        self._fd = fd
        return True

    def wait_for_holder(self, seconds: float) -> bool:
        """Wait (at most ``seconds``) until no other process holds the claim; True if it ended
        (or no claim can be made here: then none is held)."""
        deadline = time.monotonic() + max(0.0, seconds)
        delay = 0.005
        while True:
            if self.take():
                self.release()
                return True
            if self.unclaimable:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
