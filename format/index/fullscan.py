"""The periodic full stat scan of a long-lived searcher, off the search path.

A store of more than ``FULL_SCAN_MAX_DOCS`` records is fully scanned (every record file
stat'ed: in-place edits that keep the folder's mtime) at most once per ``[search]
full_scan_seconds`` (spec/index.md, "Staleness rules"). Done by a search, that scan would
stall one search a minute by far more than a search takes (bench/README.md, "Figures behind constants in the code"). A long-lived
:class:`~mem.format.search.engine.Searcher` runs it in this background thread instead, with its own
:class:`Store` (its own writer lock: the lock's depth count is per object, not per thread),
yielding to searches: every ``PAUSE_EVERY`` files it waits while a search is running. What it
finds is applied to the index as any refresh applies it; the next search sees the new state.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from mem.format.base.errors import MemError

#: How long the scanner waits, at most, for searches to finish before it goes on anyway (a
#: searcher that is never idle must still see in-place edits).
MAX_YIELD_S = 2.0


class _Stopped(Exception):
    """The searcher closed: the scan in progress is abandoned (it has written nothing yet)."""


class FullScanner:
    """Runs the periodic full scan of the store at ``root`` every ``every`` seconds."""

    def __init__(self, root: Path, every: float) -> None:
        self.root = root
        self.every = every
        self.scans = 0  # full scans done (tests and bench read it)
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._cond = threading.Condition()
        self._searches = 0
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None and self.every >= 0:
            self._thread = threading.Thread(target=self._run, name="mem-fullscan", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    @contextlib.contextmanager
    def searching(self) -> Iterator[None]:
        """Held by each search: the scanner waits while any is running."""
        with self._cond:
            self._searches += 1
        try:
            yield
        finally:
            with self._cond:
                self._searches -= 1
                if not self._searches:
                    self._cond.notify_all()

    def _pause(self) -> None:
        deadline = time.monotonic() + MAX_YIELD_S
        with self._cond:
            while self._searches and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
        if self._stop.is_set():
            raise _Stopped

    def _due_in(self) -> float:
        """Seconds until the next full scan is due (0: now), from the index's record of the last."""
        from mem.format.index.derived import FULL_SCAN_MAX_DOCS
        from mem.format.index.lexical import LexicalIndex

        lex = LexicalIndex.open(self.root / ".mem" / "index")
        if lex is None:  # not built yet (the first search builds it): look again soon
            return min(self.every, 1.0)
        try:
            if int(lex.manifest.get("docs", 0)) <= FULL_SCAN_MAX_DOCS:
                return self.every  # small stores: every search scans them all, cheaply
            last = int(lex.manifest.get("full_scan_ns", 0))
        finally:
            lex.close()
        return max(0.0, self.every - (time.time_ns() - last) / 1e9)

    def scan_now(self) -> None:
        """One full scan (the thread's work; callable directly)."""
        from mem.format.index.derived import refresh
        from mem.format.store.store import Store

        store = Store.open(self.root)
        refresh(store, full=True, pause=self._pause)
        self.scans += 1

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                wait = self._due_in()
                if wait <= 0:
                    self.scan_now()
                    wait = self.every
            except _Stopped:
                return
            except (MemError, OSError) as exc:  # locked by a writer, a damaged index: next time
                self.last_error = str(exc)
                wait = min(self.every, 5.0) if self.every > 0 else 5.0
            except Exception as exc:  # never let the thread die silently
                self.last_error = f"{type(exc).__name__}: {exc}"
                wait = self.every if self.every > 0 else 5.0
            self._stop.wait(max(wait, 0.05))


__all__ = ["FullScanner"]
