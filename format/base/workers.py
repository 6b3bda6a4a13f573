"""Forked worker processes for work over many record files (``mem verify``, index rebuilds).

One implementation of the pool both use. The parent lists the files and describes the work as a
*job* (plain data); the pool forks its workers, which inherit the job (nothing of it is pickled),
runs ``fn(job, task)`` for each small task description and hands the results back in task
order. With fewer than two workers the same calls run lazily in this process, so a caller has
one code path and the pool is only an accelerator.

Forking needs a platform that forks and a parent with a single thread (a fork while another
thread holds a lock, e.g. inside malloc, can deadlock the child): :func:`pool_size` decides.
A worker never outlives this process: on Linux it is killed when its parent dies (a SIGKILLed
``mem rebuild`` leaves no orphan behind), and it closes the descriptors it is told to (the
store's writer lock: an inherited copy would keep the ``flock`` held after the parent died).
A worker that dies makes the caller fail (``BrokenProcessPool``), never hang.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

J = TypeVar("J")
T = TypeVar("T")
R = TypeVar("R")


def cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def threads() -> int:
    """Threads of this process: the system's count where it tells (tantivy, onnxruntime and BLAS
    start threads Python does not know of: a searcher leaves some behind), else Python's."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def pool_size(total: int, workers: int | None, min_total: int) -> int:
    """How many processes work on ``total`` items; 1: this one, no pool.

    ``workers`` None chooses: one per CPU from ``min_total`` items on (below, starting the pool
    costs more than it saves), and only in a process with a single thread. A number asks for that
    many (tests force the pool with it). A pool needs a platform that forks.
    """
    if total == 0 or not can_fork():
        return 1
    if workers is None:
        if total < min_total or threads() > 1:
            return 1
        return cpus()
    return max(1, workers)


_JOB: Any = None  # the job, in each worker process (set by _init)


def _init(job: Any, parent: int, close_fds: tuple[int, ...]) -> None:
    global _JOB
    _JOB = job
    for fd in close_fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes
            import signal

            ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


def _call(fn: Callable[[Any, T], R], task: T) -> R:
    return fn(_JOB, task)


class Workers(Generic[J]):
    """The pool of :func:`worker_pool` (or this process alone)."""

    def __init__(self, job: J, executor: ProcessPoolExecutor | None = None, size: int = 0) -> None:
        self.job = job
        self._ex = executor
        #: worker processes (0: the calls run in this process)
        self.size = size if executor is not None else 0

    def call(self, fn: Callable[..., R], *args: Any) -> Callable[[], R]:
        """Start ``fn(*args)`` now in a worker (or later, here); returns what waits for its result."""
        if self._ex is None:
            return lambda: fn(*args)
        return self._ex.submit(fn, *args).result

    def map(self, fn: Callable[[J, T], R], tasks: Iterable[T], *, ahead: int | None = None) -> Iterator[R]:
        """``fn(job, task)`` for every task, results in task order. ``fn`` must be a module-level
        function (the workers look it up by name). All tasks are queued at once, or with
        ``ahead``, at most that many beyond the results taken so far (the first ones now, so
        that the pool forks here): results wait for a slow consumer in bounded numbers."""
        if self._ex is None:
            job = self.job
            return (fn(job, t) for t in tasks)
        tasks = list(tasks)
        if ahead is None:
            return self._ex.map(_call, [fn] * len(tasks), tasks)
        ex = self._ex
        pending = collections.deque(ex.submit(_call, fn, t) for t in tasks[:max(1, ahead)])
        rest = iter(tasks[max(1, ahead):])

        def in_order() -> Iterator[R]:
            while pending:
                got = pending.popleft().result()
                for t in itertools.islice(rest, 1):
                    pending.append(ex.submit(_call, fn, t))
                yield got

        return in_order()


@contextlib.contextmanager
def worker_pool(job: J, workers: int, *, close_fds: Sequence[int] = ()) -> Iterator[Workers[J]]:
    """A pool of ``workers`` forked processes for ``job`` (this process alone when fewer than 2).

    The workers fork at the first ``call``/``map``: do that before this process starts threads
    (a progress bar, tantivy's writer). On leaving, the pool waits for its workers to exit;
    after an error the tasks not yet started are cancelled.
    """
    if workers < 2 or not can_fork():
        yield Workers(job, None)
        return
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_init,
        initargs=(job, os.getpid(), tuple(close_fds)),
    )
    done = False
    try:
        yield Workers(job, pool, workers)
        done = True
    finally:
        pool.shutdown(wait=True, cancel_futures=not done)
