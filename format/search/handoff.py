"""The query's embedding, handed from the pool thread that embeds it to the searching thread,
and the vector scan that thread starts the moment the vector is ready (``Searcher.search``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mem.format.embed import Embedder


def timed_embed(emb: Embedder, query: str) -> tuple[Any, float]:
    """The query's vector and when (perf_counter) it was ready."""
    from mem.format.embed import embed_query

    v = embed_query(emb, query)
    return v, time.perf_counter()


class Handoff:
    """The query's vector, passed from the pool thread that embeds it to the searching thread,
    which may first post the vector search's ``Scan``: the embedding thread then starts it the
    moment the vector is ready, and the searching thread joins it when its lexical work is done."""

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._scan: Any = None
        self._taken = False
        self.posted = False
        self.value: tuple[Any, float] | None = None

    def post(self, scan: Any) -> None:
        """Give the embedding thread ``scan`` to start, unless the vector is already there
        (``posted`` says which)."""
        with self._lock:
            if not self._taken:
                self._scan, self.posted = scan, True

    def deliver(self, value: tuple[Any, float] | None) -> Any:
        """The vector and when it was ready (None: the embedding failed); the scan posted, if any."""
        with self._lock:
            self._taken, self.value = True, value
            scan = self._scan
        self._ready.set()
        return scan

    def wait(self) -> tuple[Any, float] | None:
        self._ready.wait()
        return self.value


def embed_then_scan(emb: Embedder, query: str, handoff: Handoff) -> tuple[Any, float]:
    """``timed_embed``, then work on the vector scan the searching thread posted, if any."""
    try:
        got = timed_embed(emb, query)
    except BaseException:
        handoff.deliver(None)
        raise
    scan = handoff.deliver(got)
    if scan is not None:
        import numpy as np

        scan.start(np.asarray(got[0], dtype=np.float32).reshape(-1))
        scan.work()
    return got
