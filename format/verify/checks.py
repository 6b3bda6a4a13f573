"""``mem verify``: check a store against every rule of the format that a store can break.

Each rule has a stable code (``E…`` errors, ``W…`` warnings), a default severity, a meaning and
a fix; the table is :data:`RULES` and is documented, code by code, in
``spec/validation-codes.md`` (a test keeps the two and ``spec/fixtures/<CODE>/`` in sync).

Two levels, as BagIt's *complete*/*valid* and restic's ``check``/``--read-data``:

* **fast** (default): the declaration, the configuration, every record file is read and parsed
  (frontmatter and body validated, file name/id and folder/scope agreement, duplicate ids),
  tombstones (resurrection by id, by normalized content and by source item), lineage and
  supersession links, the audit log (hash chains, torn tails, agreement with the records using
  the records' stored ``digest:`` lines), derived indexes (staleness, corruption, counts, the
  embedding space), leftover temp files and unknown files.
* **full**: everything above, and every record's content digest is recomputed and compared with
  its stored ``digest:`` line, and every record is checked for canonical form.

On a store of at least :data:`POOL_MIN_RECORDS` records the record files and the audit log are
checked in forked worker processes (one per CPU) that send back compact per-file results; the
report is the same as with one process.

Verification never writes anything: no lock, no clone id, no index refresh. Per-code severity
can be changed in ``config.toml`` (``[verify] severity = { W101 = "ignore" }``), as
``git fsck`` allows with ``fsck.<msg-id>``; every such choice is reported.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mem.format.base.fsutil import TMP_MARKER
from mem.format.base.jsonl import read_jsonl
from mem.format.base.workers import pool_size, worker_pool
from mem.format.model.tombstones import TombstoneSet
from mem.format.rules import ids
from mem.format.rules.config import (
    CONFIG_FILE,
    DECLARATION_FILE,
    config_findings,
)
from mem.format.rules.embedtext import TEXT_RECIPE
from mem.format.rules.settings import severity_overrides
from mem.format.rules.storefiles import Refusal, accept_config, accept_declaration
from mem.format.verify.codes import OVERRIDE_LEVELS as OVERRIDE_LEVELS
from mem.format.verify.codes import RULES as RULES
from mem.format.verify.codes import SEVERITIES as SEVERITIES
from mem.format.verify.codes import SUBRULES as SUBRULES
from mem.format.verify.codes import Rule as Rule
from mem.format.verify.codes import SubRule as SubRule
from mem.format.verify.logfiles import _check_log_files as _check_log_files
from mem.format.verify.logfiles import _LogResult as _LogResult
from mem.format.verify.recordfiles import _ID_MATCH as _ID_MATCH
from mem.format.verify.recordfiles import _check_file as _check_file
from mem.format.verify.recordfiles import _FileResult as _FileResult
from mem.format.verify.recordfiles import _Job as _Job
from mem.format.verify.recordfiles import _Links as _Links
from mem.format.verify.recordfiles import _Lite as _Lite
from mem.format.verify.recordfiles import _lite_record as _lite_record
from mem.format.verify.recordfiles import _match_digest as _match_digest
from mem.format.verify.recordfiles import _scan as _scan
from mem.format.verify.recordfiles import _ScopeFiles as _ScopeFiles
from mem.format.verify.recordfiles import _skip_name as _skip_name
from mem.format.verify.recordfiles import _TaskResult as _TaskResult
from mem.format.verify.report import Finding as Finding
from mem.format.verify.report import VerifyReport as VerifyReport


class _Verifier:
    def __init__(self, root: Path, full: bool, indexes: bool, workers: int | None = None) -> None:
        self.root = root
        self.full = full
        self.indexes = indexes
        self.workers = workers
        self.report = VerifyReport(root, "full" if full else "fast")
        self.overrides: dict[str, str] = {}
        self.forgotten: dict[str, str] = {}  # id -> scope, from the audit log's forget events
        self._waited_for_writer = False

    # -- reporting -----------------------------------------------------------------------------

    def rel(self, path: Path) -> str:
        try:
            r = path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()
        return r or "."

    def add(self, code: str, path: Path | str, message: str) -> None:
        """Report a finding of ``code`` or of one of its sub-rules (``E204.3``: the finding keeps
        the code and names the sub-rule)."""
        parent = code.partition(".")[0]
        rule = RULES[parent]
        level = self.overrides.get(parent, rule.severity)
        if level == "ignore":
            self.report.ignored[parent] = self.report.ignored.get(parent, 0) + 1
            return
        p = path if isinstance(path, str) else self.rel(path)
        sub = SUBRULES[code] if code != parent else None
        if sub is None:
            self.report.findings.append(Finding(parent, level, p, message, rule.fix))
        else:
            self.report.findings.append(Finding(parent, level, p, message, sub.fix, sub.code))

    # -- the run ---------------------------------------------------------------------------------

    def run(self) -> VerifyReport:
        if not self.check_declaration():
            return self.report
        self.check_config()
        tombs = self.check_tombstones()
        job = self.list_records(tombs)
        with _run_checks(job, self.root, self.full, self.workers) as (log, results):
            files = self.check_records(tombs, job, results)
            last = self.apply_log(log())
        self.check_links(files, tombs)
        self.check_log(files, tombs, last)
        if self.indexes:
            self.check_indexes(files)
        self.check_temp_files()
        self.report.findings.sort(key=lambda f: (f.path, f.code, f.message))
        return self.report

    # -- declaration and configuration -------------------------------------------------------

    def check_declaration(self) -> bool:
        path = self.root / DECLARATION_FILE
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            self.add("E001", path, "the store declaration memstore.json is missing")
            return False
        except OSError as exc:
            self.add("E002.1", path, f"cannot read the declaration: {exc.strerror}")
            return False
        refused = accept_declaration(raw)  # the rule Store.open applies (E002-E004)
        if isinstance(refused, Refusal):
            self.add(refused.rule, path, refused.message)
            return False
        return True

    def check_config(self) -> None:
        path = self.root / CONFIG_FILE
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.add("E005.1", path, f"cannot read the configuration: {exc.strerror}")
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.add("E005.1", path, f"the configuration is not valid TOML: {exc}")
            return
        data = accept_config(text)  # the rule Store.open applies (E005)
        if isinstance(data, Refusal):
            self.add(data.rule, path, data.message)
            return
        for sub, problem in config_findings(data):  # every setting's rule (E007; [verify]'s: W001)
            self.add(sub, path, problem)
        for code, level in severity_overrides(data).items():  # the entries the rule accepts
            rule = RULES.get(code)
            if rule is None:
                self.add("W001", path, f"[verify] severity names unknown code {code!r}")
            elif rule.fatal or code == "E005":
                self.add("W001", path, f"the severity of {code} cannot be changed")
            else:
                self.overrides[code] = level
        self.report.overrides = dict(self.overrides)

    # -- tombstones -------------------------------------------------------------------------

    def check_tombstones(self) -> TombstoneSet:
        tdir = self.root / "tombstones"
        n = 0
        for entry in _scan(tdir):
            p = tdir / entry.name
            if _skip_name(entry.name):
                continue
            scope = entry.name[:-6] if entry.name.endswith(".jsonl") else None
            if (
                scope is None
                or not ids.is_scope(scope)
                or not entry.is_file(follow_symlinks=False)
            ):
                self.add("W502.1", p, "not a tombstones file (tombstones/<scope>.jsonl)")
                continue
            lines, tail = read_jsonl(p)
            for ln in lines:
                v = ln.value
                if v is None:
                    self.add("E204.1", p, f"line {ln.lineno} is {ln.error}")
                    continue
                if v.get("type") == "lift":
                    if not isinstance(v.get("digest"), str):
                        self.add("E204.2", p, f"line {ln.lineno}: a lift entry lacks its digest")
                    continue
                if not (ids.is_id(v.get("id")) and isinstance(v.get("digest"), str)):
                    self.add("E204.2", p, f"line {ln.lineno}: a tombstone needs a record id and a digest")
                    continue
                if v.get("scope", scope) != scope:
                    self.add(
                        "E204.3",
                        p,
                        f"line {ln.lineno}: tombstone names scope {v.get('scope')!r}, file is for {scope!r}",
                    )
                    continue
                n += 1
            if tail is not None:
                self.add(
                    "E205",
                    p,
                    f"last line is incomplete ({len(tail)} bytes after the last newline)",
                )
        self.report.tombstones = n
        return TombstoneSet(tdir)

    # -- records ----------------------------------------------------------------------------

    def list_records(self, tombs: TombstoneSet) -> _Job | None:
        """The record files to read, per scope folder (anything else in records/ is W502).

        None when records/ itself is unusable (E006).
        """
        rdir = self.root / "records"
        if rdir.is_symlink() or (rdir.exists() and not rdir.is_dir()):
            self.add("E006", rdir, "records/ is a symbolic link or not a directory")
            return None
        scopes: list[_ScopeFiles] = []
        for entry in _scan(rdir):
            scope = entry.name
            if _skip_name(scope):
                continue
            if (
                entry.is_dir(follow_symlinks=False)
                and ids.is_windows_reserved(scope)
                and ids.is_scope("x" + scope)  # the grammar's other rules hold
            ):
                self.add("E109", f"records/{scope}",
                         f"{scope.split('.', 1)[0]!r} is a device name Windows reserves; the "
                         "records in this folder are not read")
                continue
            if not entry.is_dir(follow_symlinks=False) or not ids.is_scope(scope):
                what = "a symbolic link" if entry.is_symlink() else "not a scope folder"
                self.add(
                    "W502.2",
                    f"records/{scope}",
                    f"{what} in records/ (records live in records/<scope>/<ID>.md)",
                )
                continue
            names: list[str] = []
            for e in _scan(rdir / scope):
                name = e.name
                if _skip_name(name):
                    continue
                if name.endswith(".md") and _ID_MATCH(name[:-3]) and e.is_file(follow_symlinks=False):
                    names.append(name)
                else:
                    what = "a symbolic link" if e.is_symlink() else "not a record file (<ID>.md)"
                    self.add("W502.3", f"records/{scope}/{name}", what)
            st = tombs.load(scope)
            scopes.append(_ScopeFiles(scope, tuple(names), frozenset(st.ids), bool(st.digests)))
        return _Job(str(rdir), self.full, tuple(scopes))

    def check_records(
        self, tombs: TombstoneSet, job: _Job | None, results: Iterator[_TaskResult]
    ) -> _Files:
        """Merge the per-file results (in file order) with the checks that need the whole store:
        duplicate ids (E107), forgotten ids (E201), forgotten content and source items (E202,
        E203)."""
        files = _Files()
        if job is None:
            files.unusable = True
            return files
        add = self.add
        where, live, digests = files.where, files.live, files.digests
        for si, start, res in results:
            sf = job.scopes[si]
            scope = sf.scope
            st = tombs.load(scope)
            for name, r in zip(sf.names[start : start + len(res)], res, strict=True):
                rid = name[:-3]
                prior = where.setdefault(rid, scope)
                if prior != scope:
                    add(
                        "E107",
                        f"records/{scope}/{name}",
                        f"id {rid} also has a file in scope {prior!r} (records/{prior}/{name})",
                    )
                    continue
                t = st.ids.get(rid)
                if t is not None and self._removed_by_a_writer(Path(job.rdir) / scope / name):
                    continue  # a forget was between its tombstone and the removal: not E201
                if t is not None:
                    add(
                        "E201",
                        f"records/{scope}/{name}",
                        f"record {rid} was forgotten on {t.forgotten_at or '?'} (tombstone in "
                        f"tombstones/{scope}.jsonl) but its file is still here",
                    )
                    files.forgotten.add(rid)
                    continue
                assert r is not None  # only forgotten files are not read
                found, links, stored, md, skey = r
                for code, message in found:
                    add(code, f"records/{scope}/{name}", message)
                if links is None:
                    continue
                live[rid] = _Links(scope, *links)
                digests[rid] = stored
                if md is not None:
                    hit = st.digests.get(md)
                    if hit is not None:
                        add(
                            "E202",
                            f"records/{scope}/{name}",
                            f"its content was forgotten in scope {scope!r} (tombstone of {hit})",
                        )
                    elif skey is not None and skey in st.digests:
                        add(
                            "E203",
                            f"records/{scope}/{name}",
                            f"its source item was forgotten in scope {scope!r} "
                            f"(tombstone of {st.digests[skey]})",
                        )
        files.count = job.total  # every file is counted once, whatever was found in it
        self.report.records = files.count
        return files

    def _removed_by_a_writer(self, path: Path) -> bool:
        """Whether ``path`` is gone once the writer that holds the lock (if any) is done.

        A forget appends the tombstone, then removes the file, under the writer lock; a verify
        that read the tombstones in between sees both. It waits (a shared lock, taken and
        released at once: no write) for that writer, then looks again."""
        if not self._waited_for_writer:
            self._waited_for_writer = True
            import fcntl
            import time

            try:
                fd = os.open(self.root / ".mem" / "lock", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                fd = -1
            if fd >= 0:
                try:
                    deadline = time.monotonic() + 10.0
                    while True:
                        try:
                            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                            fcntl.flock(fd, fcntl.LOCK_UN)
                            break
                        except OSError:
                            if time.monotonic() >= deadline:
                                break
                            time.sleep(0.01)
                finally:
                    os.close(fd)
        return not os.path.lexists(path)

    # -- links ------------------------------------------------------------------------------

    def check_links(self, files: _Files, tombs: TombstoneSet) -> None:
        def known(i: str) -> bool:
            return i in files.where or tombs.find_id(i) is not None

        for rid, rec in files.live.items():
            if not (rec.derived_from or rec.supersedes or rec.superseded_by) and rec.status != "superseded":
                continue  # no link, not superseded: nothing below can be found
            path = f"records/{rec.scope}/{rid}.md"
            for d in rec.derived_from:
                if not known(d):
                    self.add("E206", path, f"derived_from names {d}, which is not in the store")
            for s in rec.supersedes:
                if not known(s):
                    self.add("E207.1", path, f"supersedes names {s}, which is not in the store")
            sb = rec.superseded_by
            if sb is not None and not known(sb):
                self.add("E207.2", path, f"superseded_by names {sb}, which is not in the store")
            if rec.status == "superseded" and sb is None:
                self.add("E208.1", path, "status is superseded but superseded_by is not set")
            elif sb is not None and rec.status != "superseded":
                self.add("E208.2", path, f"superseded_by is set but status is {rec.status}")
            if sb is not None and sb in files.live and rid not in files.live[sb].supersedes:
                self.add(
                    "W201.1", path, f"superseded_by names {sb}, whose supersedes does not name {rid}"
                )
            for s in rec.supersedes:
                old = files.live.get(s)
                if old is not None and old.superseded_by is None and old.status in ("active", "candidate"):
                    self.add(
                        "W201.2",
                        path,
                        f"supersedes {s}, which is still {old.status} (an interrupted supersession)",
                    )
                elif old is not None and old.superseded_by not in (None, rid):
                    self.add(
                        "W201.1",
                        path,
                        f"supersedes {s}, whose superseded_by names {old.superseded_by}",
                    )

    # -- audit log --------------------------------------------------------------------------

    def apply_log(self, result: _LogResult) -> dict[str, tuple[str, str | None]]:
        """Report what :func:`_check_log_files` found; return the replayed state of the records."""
        found, self.report.events, last, self.forgotten = result
        for code, path, message in found:
            self.add(code, path, message)
        return last

    def check_log(
        self, files: _Files, tombs: TombstoneSet, last: dict[str, tuple[str, str | None]]
    ) -> None:
        """The audit log agrees with the records (W301, W302, W303)."""
        digests = files.digests
        for rid, rec in files.live.items():
            state = last.get(rid)
            if state is not None and state[1] == digests.get(rid) and state[0] != "forget":
                continue  # the usual case: the last logged digest is the file's
            path = f"records/{rec.scope}/{rid}.md"
            if state is None:
                self.add("W301", path, f"record {rid} has no event in the audit log")
            elif state[0] == "forget":
                self.add(
                    "W302", path, f"the audit log says {rid} was forgotten, but the file is here"
                )
            else:
                self.add(
                    "W302",
                    path,
                    f"digest {digests.get(rid)} differs from the last logged digest "
                    f"{state[1]} ({state[0]})",
                )
        if self.full:
            # every forget the log records left its tombstone (a tombstones file emptied or
            # cut by hand would let an old export bring the record back)
            for rid, scope in sorted(self.forgotten.items()):
                if ids.is_scope(scope) and rid not in tombs.load(scope).ids:
                    self.add("E209", f"tombstones/{scope}.jsonl",
                             f"the audit log says {rid} was forgotten in scope {scope!r}, but no "
                             "tombstone for it is here")
        if files.unusable:
            return
        where = files.where
        for rid in sorted(r for r, (op, _) in last.items() if op != "forget" and r not in where):
            if tombs.find_id(rid) is not None:
                continue
            self.add(
                "W303",
                "records",
                f"record {rid} is live in the audit log (last event: {last[rid][0]}) but has no "
                "file and no tombstone",
            )

    # -- derived indexes ----------------------------------------------------------------------

    def check_indexes(self, files: _Files) -> None:
        """Derived indexes, through the index API (spec/index.md). No index: nothing to check."""
        idx_dir = self.root / ".mem" / "index"
        if not idx_dir.is_dir():
            return
        from mem.format.base.errors import MemError, StoreIOError
        from mem.format.index.derived import index_stats, staleness
        from mem.format.store.store import Store

        live = len(files.live)
        try:
            store = Store(self.root)
            stats = index_stats(store).to_dict()
        except StoreIOError:
            raise  # the file system refused (a full disk): exit 11 with the truth, not E401
        except MemError as exc:  # (neither index in particular: no sub-rule)
            self.add("E401", Path(exc.path) if exc.path else idx_dir, exc.message)
            return
        lex, vec = stats.get("lexical", {}), stats.get("vectors", {})
        for name in stats.get("garbage") or []:
            self.add("W404", idx_dir / name, "index folder that no pointer names (left by an "
                     "interrupted rebuild or compact, or one in progress)")
        corrupt = False
        for name, part, fname in (("lexical", lex, "lexical.json"), ("vector", vec, "vectors.json")):
            if part.get("corrupt"):
                corrupt = True
                sub = "E401.1" if name == "lexical" else "E401.2"
                self.add(sub, idx_dir / fname, f"the {name} index is corrupt: {part['corrupt']}")
        if not lex.get("present") and lex.get("generation") and not lex.get("corrupt"):
            self.add("W401.2", idx_dir / "lexical.json",
                     "the lexical index was built by an older mem (another schema): the next search "
                     "rebuilds it, as do `mem compact` and `mem rebuild`")
        if lex.get("present") and not lex.get("corrupt"):
            try:
                st = staleness(store, full=self.full).to_dict()
            except StoreIOError:
                raise
            except MemError as exc:
                if not corrupt:  # the same damage is reported once
                    self.add("E401.1", Path(exc.path) if exc.path else idx_dir, exc.message)
                return
            n_stale = sum(len(st.get(k) or []) for k in ("added", "changed", "removed"))
            if n_stale:
                scopes = ", ".join(st.get("scopes_changed") or []) or "?"
                self.add(
                    "W401.1",
                    idx_dir / "lexical.json",
                    f"{n_stale} record(s) added, changed or removed since the index was updated "
                    f"(scopes: {scopes})",
                )
            elif lex.get("docs") is not None and lex["docs"] != live and not lex.get("pending"):
                # (journaled writes of mem's own are applied by the next search: not a finding)
                self.add(
                    "W403.1",
                    idx_dir / "lexical.json",
                    f"the lexical index holds {lex['docs']} documents for {live} live records",
                )
        if vec.get("present") and not vec.get("corrupt"):
            if vec.get("space_matches") is False:
                self.add(
                    "W402",
                    idx_dir / "vectors.json",
                    "the vectors were built in another embedding space than the configured "
                    "embedder's",
                )
            recipe = vec.get("text_recipe")
            if recipe is not None and recipe != TEXT_RECIPE:
                self.add(
                    "W405",
                    idx_dir / "vectors.json",
                    f"the vectors were made from the text of recipe {recipe or 'unknown'}, this mem "
                    f"embeds recipe {TEXT_RECIPE} (a turn's own-speaker prefix left out)",
                )
            valid = int(vec.get("vectors") or 0)  # live vectors: main rows - dead + delta
            if valid > live:
                self.add(
                    "W403.2",
                    idx_dir / "vectors.json",
                    f"the vector index holds {valid} valid vectors for {live} live records",
                )

    # -- files --------------------------------------------------------------------------------

    def check_temp_files(self) -> None:
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for f in filenames:
                if TMP_MARKER in f:
                    self.add(
                        "W501",
                        Path(dirpath) / f,
                        "temporary file left by an interrupted write (or one in progress)",
                    )


@dataclass
class _Files:
    where: dict[str, str] = field(default_factory=dict)  # id -> scope of every record file
    live: dict[str, _Links] = field(default_factory=dict)  # parsed, consistent, not forgotten
    digests: dict[str, str | None] = field(default_factory=dict)  # id -> stored digest line
    forgotten: set[str] = field(default_factory=set)
    count: int = 0
    unusable: bool = False  # records/ could not be read: no "removed outside mem" findings


# -- reading the record files (in worker processes on a large store) -------------------------

#: Below this many record files verify reads them in its own process: a pool costs more than it
#: saves. (``verify_store(workers=...)`` overrides the choice.)
POOL_MIN_RECORDS = 2000
_CHUNK_MAX = 4000  # record files per task of a worker


def _tasks(job: _Job, chunk: int) -> list[tuple[int, int, int]]:
    """(scope index, start, stop): runs of at most ``chunk`` files of one scope, in file order."""
    return [
        (si, start, min(start + chunk, len(sf.names)))
        for si, sf in enumerate(job.scopes)
        for start in range(0, len(sf.names), chunk)
    ]


def _run_task(job: _Job, task: tuple[int, int, int]) -> _TaskResult:
    si, start, stop = task
    sf = job.scopes[si]
    sdir = os.path.join(job.rdir, sf.scope, "")
    full, match, forgotten, scope = job.full, sf.match, sf.forgotten, sf.scope
    return si, start, [
        None if n[:-3] in forgotten else _check_file(sdir + n, n[:-3], scope, full, match)
        for n in sf.names[start:stop]
    ]


def _pool_size(total: int, workers: int | None) -> int:
    """How many processes read ``total`` record files; 1: this one, no pool (see
    :func:`mem.format.base.workers.pool_size`: one per CPU from :data:`POOL_MIN_RECORDS` files on)."""
    return pool_size(total, workers, POOL_MIN_RECORDS)


@contextlib.contextmanager
def _run_checks(
    job: _Job | None, root: Path, full: bool, workers: int | None
) -> Iterator[tuple[Callable[[], _LogResult], Iterator[_TaskResult]]]:
    """The audit log check (a call that returns its result) and the per-file results of
    ``job``, task by task in file order.

    On a large store (or when ``workers`` asks for it) a pool of forked worker processes starts
    at once (:mod:`mem.format.base.workers`): one checks the audit log while the others read record
    files, then it reads record files too; this process only merges. Otherwise everything runs
    lazily in this process. A worker that dies makes the check fail (BrokenProcessPool), never
    hang.
    """
    if job is None:
        yield (lambda: _check_log_files(str(root), full)), iter(())
        return
    total = job.total
    with worker_pool(job, _pool_size(total, workers)) as pool:
        log = pool.call(_check_log_files, str(root), full)  # queued first: a worker starts on it
        chunk = _CHUNK_MAX if pool.size < 2 else min(_CHUNK_MAX, max(1, -(-total // (pool.size * 8))))
        yield log, pool.map(_run_task, _tasks(job, chunk))


def verify_store(
    root: str | Path, *, full: bool = False, indexes: bool = True, workers: int | None = None
) -> VerifyReport:
    """Check the store at ``root``; never modifies it. See the module docstring for the levels.

    ``workers``: processes that read the record files; None chooses (one per CPU on a store of
    at least :data:`POOL_MIN_RECORDS` records, else 1, in this process). The report is the same
    whatever the number.
    """
    return _Verifier(Path(root), full, indexes, workers).run()


def rules() -> Iterable[Rule]:
    return RULES.values()


__all__ = ["RULES", "Finding", "Rule", "VerifyReport", "rules", "verify_store"]
