"""Reading a store's record files for a build: in this process, or from ``POOL_MIN_RECORDS`` files
on in forked worker processes, task by task, the results taken in file order (``_reading``)."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import RecordParseError
from mem.format.index.staleness import _dir_mtime, _fields_of
from mem.format.rules.layout import record_ids
from mem.format.rules.recordtext import canonical_pattern

if TYPE_CHECKING:
    from mem.format.index.lexical import DocFields
    from mem.format.store.store import Store


Progress = Callable[[Iterable[Any], int | None, str], Iterable[Any]]


#: From this many record files on, a build reads and parses them in forked worker processes
#: (one per CPU) while this process feeds tantivy; below it, starting the pool costs more than
#: it saves (on 2 CPUs: a loss at 2,000, even at 4,000, 5% faster at 10k, 10-25% at 100k;
#: bench/README.md, "Rebuild (lexical)").
POOL_MIN_RECORDS = 5000
#: Record files per task of a worker: small, so that tantivy gets its first documents early.
READ_CHUNK = 500
_O_READ = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True, slots=True)
class _ReadJob:
    """The record files a build reads: per scope, the ids to read, in order (a worker's job)."""

    rdir: str
    scopes: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def total(self) -> int:
        return sum(len(ids) for _s, ids in self.scopes)


#: One record file read for a build: the values of its DocFields, then the file's mtime_ns and
#: size; a str: why it is skipped (the error, naming the file); None: it vanished meanwhile.
#: Plain tuples and strings: this is what a worker sends back (a named tuple pickles 3x slower).
_Read = tuple[Any, ...] | str | None


def _record_ids(d: str) -> list[str]:
    """The record ids of a scope folder, in order: the files Store.iter_paths lists."""
    return record_ids(d)


def _read_file(path: str) -> tuple[bytes, int, int]:
    """The bytes of a record file and its (mtime_ns, size): one open, the stat of that file."""
    try:
        fd = os.open(path, _O_READ)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RecordParseError(f"cannot read record: {exc.strerror}", path=path) from None
    try:
        st = os.fstat(fd)
        size = st.st_size
        raw = os.read(fd, size + 1)
        if len(raw) != size:  # changed while read, or a short read: read on to the end
            parts = [raw]
            while b := os.read(fd, 1 << 20):
                parts.append(b)
            raw = b"".join(parts)
    except OSError as exc:
        raise RecordParseError(f"cannot read record: {exc.strerror}", path=path) from None
    finally:
        os.close(fd)
    return raw, st.st_mtime_ns, size


def _read_tasks(job: _ReadJob, chunk: int) -> list[tuple[int, int, int]]:
    """(scope index, start, stop): runs of at most ``chunk`` files of one scope, in file order."""
    return [(si, start, min(start + chunk, len(ids)))
            for si, (_s, ids) in enumerate(job.scopes) for start in range(0, len(ids), chunk)]


def _read_task(job: _ReadJob, task: tuple[int, int, int]) -> list[_Read]:
    """Read and parse the record files of one task (in a worker process, or in this one).

    All the files first, then all the parsing: interleaved, each file's system calls left the
    parser's code and data cold (bench/README.md, "Figures behind constants in the code").
    """
    from mem.format.index.lexical import fast_fields

    si, start, stop = task
    scope, ids = job.scopes[si]
    sdir = os.path.join(job.rdir, scope, "")
    files: list[tuple[bytes, int, int] | str | None] = []
    for rid in ids[start:stop]:
        try:
            files.append(_read_file(sdir + rid + ".md"))
        except FileNotFoundError:
            files.append(None)
        except RecordParseError as exc:
            files.append(str(exc))
    out: list[_Read] = []
    for rid, got in zip(ids[start:stop], files, strict=True):
        if got is None or isinstance(got, str):
            out.append(got)
            continue
        raw, mtime, size = got
        try:
            f = fast_fields(raw)
            if f is None or f.id != rid or f.scope != scope:
                # the full parser, or the error naming the file
                f = _fields_of(raw, sdir + rid + ".md", scope, rid)
        except FileNotFoundError:  # the full parser reads the file again: gone meanwhile
            out.append(None)
            continue
        except RecordParseError as exc:
            out.append(str(exc))
            continue
        out.append((*f, mtime, size))
    return out


class _Records:
    """The records of a build in file order: iterate once for (DocFields, mtime_ns, size).

    ``skipped`` fills with the errors of the files that cannot be read, as they are met; the
    progress bar (if any) advances file by file.
    """

    def __init__(self, results: Iterable[_Read], total: int, mtimes: dict[str, int],
                 progress: Progress | None, label: str = "reading records") -> None:
        self.mtimes = mtimes
        self.total = total
        self.skipped: list[str] = []
        self._results = results
        self._progress = progress
        self._label = label

    def __iter__(self) -> Iterator[tuple[DocFields, int, int]]:
        from mem.format.index.lexical import DocFields

        fields = DocFields._make
        n = len(DocFields._fields)
        it = self._results
        if self._progress is not None:
            it = self._progress(it, self.total, self._label)
        skipped = self.skipped
        for r in it:
            if r is None:
                continue
            if isinstance(r, str):
                skipped.append(r)
                continue
            yield fields(r[:n]), r[n], r[n + 1]


@contextlib.contextmanager
def _reading(store: Store, progress: Progress | None, workers: int | None = None, *,
             bounded: bool = False, label: str = "reading records") -> Iterator[_Records]:
    """The records of ``store`` for a build (see _Records).

    From POOL_MIN_RECORDS files on (or when ``workers`` asks for it) forked worker processes
    read and parse them, task by task, and this process takes their results in file order as
    they come; the pool forks here, before the caller starts tantivy's threads or a progress
    bar. Otherwise this process reads them as they are iterated. The result is the same.
    ``bounded``: the workers read at most two tasks each ahead of what the caller has taken
    (a caller slower than the reading, e.g. one that embeds, holds a bounded number of records);
    else all tasks are queued at once (tantivy takes them as fast as they come).
    ``label``: the progress bar's.
    """
    from mem.format.base.workers import pool_size, worker_pool

    mtimes: dict[str, int] = {}
    scopes: list[tuple[str, tuple[str, ...]]] = []
    rdir = str(store.records_dir)
    for s in store.scopes():
        mtimes[s] = _dir_mtime(store.records_dir / s)  # before listing: later changes show
        tomb = store.tombstones.load(s).ids
        scopes.append((s, tuple(r for r in _record_ids(os.path.join(rdir, s)) if r not in tomb)))
    job = _ReadJob(rdir, tuple(scopes))
    lock_fd = store.lock.fileno()
    canonical_pattern()  # the pattern fast_fields reads by, compiled before the workers fork (they share it)
    with worker_pool(job, pool_size(job.total, workers, POOL_MIN_RECORDS),
                     close_fds=() if lock_fd is None else (lock_fd,)) as pool:
        results = pool.map(_read_task, _read_tasks(job, READ_CHUNK), ahead=2 * pool.size if bounded else None)
        yield _Records(itertools.chain.from_iterable(results), job.total, mtimes, progress, label)
