"""The run: streams cut into windows, each sent to the summarizer, its answer validated and written."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

from mem.format.base.errors import LockTimeoutError, NotFoundError, TombstonedError
from mem.format.base.fsutil import atomic_write, ensure_dir, remove_file
from mem.format.base.lock import WriterLock
from mem.format.model.record import Record, make_record, match_digest
from mem.format.ops.consolidate.answer import parse_answer
from mem.format.ops.consolidate.model import (
    JOURNAL_FORMAT,
    MAX_FACTS,
    MAX_SUPERSEDES,
    VERSION,
    WINDOW_FORMAT,
    Answer,
    Options,
    Refusal,
    Supersession,
    Window,
    window_key,
)
from mem.format.ops.consolidate.report import Report, WindowResult
from mem.format.ops.consolidate.state import (
    Mark,
    _journal_dir,
    _journal_path,
    load_watermark,
    save_watermark,
)
from mem.format.ops.consolidate.summarizer import find_program, run_summarizer
from mem.format.rules.secretpolicy import find_secret, record_secret
from mem.format.rules.timeutil import format_time
from mem.format.store.store import Store


def _conversation(rec: Record) -> str | None:
    conv = rec.source.get("conversation")
    if conv is None or conv == "":
        return None
    return str(conv)


class Consolidation:
    """One consolidation run over a store. Steps: :meth:`plan`, then :meth:`process` each window
    (which is :meth:`summarize` + :meth:`apply` + :meth:`advance`), then :meth:`close`.

    The run holds ``.mem/consolidate.lock`` from :meth:`open` to :meth:`close`, so two runs never
    interleave; ordinary writers are not blocked except while a window's records are written.
    """

    def __init__(self, store: Store, opts: Options) -> None:
        self.store = store
        self.opts = opts.check()
        self.report = Report(mode=opts.mode, summarizer=opts.program)
        self._run_lock = WriterLock(store.local_dir / "consolidate.lock", timeout=0)
        self._marks: dict[tuple[str, str | None], Mark] = {}
        self._done_windows: set[str] = set()  # window keys with a summary record
        self._items: dict[tuple[str, str], str] = {}  # (window key, item) -> record id
        self._digests: dict[str, dict[str, str]] = {}  # scope -> match digest -> record id
        self._existing: dict[str, list[Record]] = {}  # scope -> newest non-episode records
        self._streams: dict[tuple[str, str | None], list[Record]] = {}
        self._blocked: set[tuple[str, str | None]] = set()
        self._calls = 0
        self._open = False

    # -- lifetime ---------------------------------------------------------------------------------

    def open(self) -> Consolidation:
        if self.opts.mode != "plan":
            find_program(self.opts.summarizer)
        if self.opts.mode == "run":
            try:
                self._run_lock.acquire()
            except LockTimeoutError:
                raise LockTimeoutError(
                    "another `mem consolidate` is running on this store",
                    path=self._run_lock.path,
                    hint="wait for it to finish",
                ) from None
        self._open = True
        return self

    def close(self) -> None:
        if self._open:
            self._run_lock.release()
            self._open = False

    def __enter__(self) -> Consolidation:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- planning ---------------------------------------------------------------------------------

    def _scan(self) -> None:
        """One pass over the records: episodes per stream, finished windows, content digests."""
        kinds = set(self.opts.kinds)
        scopes = list(self.opts.scopes) if self.opts.scopes is not None else None
        per_scope_other: dict[str, list[Record]] = {}
        for r in self.store.iter_records(scopes):
            self._digests.setdefault(r.scope, {}).setdefault(r.match_digest, r.id)
            src = r.source
            if src.get("type") == "consolidate" and isinstance(src.get("window"), str):
                key = str(src["window"])
                item = str(src.get("item", ""))
                self._items[(key, item)] = r.id
                if item == "summary" or r.kind == "summary":
                    self._done_windows.add(key)
            if r.kind in kinds:
                if r.status in ("active", "candidate"):
                    self._streams.setdefault((r.scope, _conversation(r)), []).append(r)
            elif r.status in ("active", "candidate"):
                per_scope_other.setdefault(r.scope, []).append(r)
        for stream in self._streams.values():
            stream.sort(key=lambda e: (e.recorded_at, e.id))
        for scope, recs in per_scope_other.items():
            recs.sort(key=lambda e: (e.recorded_at, e.id), reverse=True)
            self._existing[scope] = recs[: self.opts.existing]

    def plan(self) -> list[Window]:
        """Every window to process this run, stream by stream (sorted), oldest first."""
        self._marks = load_watermark(self.store)
        self._scan()
        windows: list[Window] = []
        n, m = self.opts.window, self.opts.overlap
        for skey in sorted(self._streams, key=lambda k: (k[0], k[1] or "")):
            eps = self._streams[skey]
            mark = self._marks.get(skey)
            start = 0
            if mark is not None:
                pos = mark.position()
                while (
                    start < len(eps) and (format_time(eps[start].recorded_at), eps[start].id) <= pos
                ):
                    start += 1
            while start < len(eps):
                ctx = eps[max(0, start - m) : start]
                new = eps[start : start + (n - len(ctx))]
                if len(new) < self.opts.min_new:
                    self.report.deferred.append(
                        {
                            "scope": skey[0],
                            "conversation": skey[1],
                            "new": len(new),
                            "min_new": self.opts.min_new,
                        }
                    )
                    break
                group = (*ctx, *new)
                windows.append(Window(skey[0], skey[1], group, len(ctx), window_key(group)))
                start += len(new)
        return windows

    # -- the window JSON ----------------------------------------------------------------------

    def window_input(self, w: Window) -> dict[str, Any]:
        """The JSON document written to the summarizer's stdin (consolidate-window schema)."""
        in_window = set(w.episode_ids)
        existing = [r for r in self._existing.get(w.scope, []) if r.id not in in_window]
        return {
            "format": WINDOW_FORMAT,
            "version": VERSION,
            "window": w.key,
            "scope": w.scope,
            "conversation": w.conversation,
            "overlap": w.overlap,
            "episodes": [
                {
                    "id": e.id,
                    "kind": e.kind,
                    "recorded_at": format_time(e.recorded_at),
                    "turn": e.source.get("turn"),
                    "role": e.source.get("role"),
                    "tags": list(e.tags),
                    "overlap": i < w.overlap,
                    "content": e.content,
                }
                for i, e in enumerate(w.episodes)
            ],
            "existing": [
                {
                    "id": r.id,
                    "kind": r.kind,
                    "status": r.status,
                    "recorded_at": format_time(r.recorded_at),
                    "tags": list(r.tags),
                    "content": r.content,
                }
                for r in existing
            ],
            "limits": {
                "min_summary_chars": self.opts.min_summary_chars,
                "min_fact_chars": self.opts.min_fact_chars,
                "max_facts": MAX_FACTS,
                "max_supersedes": MAX_SUPERSEDES,
                "episode_kinds": list(self.opts.kinds),
            },
        }

    # -- steps ------------------------------------------------------------------------------------

    def is_done(self, w: Window) -> bool:
        """True when a summary of exactly this window exists (its records were written)."""
        return w.key in self._done_windows

    def read_journal(self, w: Window) -> Answer | None:
        """A validated answer journaled for this window by a run that stopped mid-window."""
        path = _journal_path(self.store, w.key)
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            remove_file(path)
            return None
        if (
            not isinstance(data, dict)
            or data.get("format") != JOURNAL_FORMAT
            or data.get("window") != w.key
            or not isinstance(data.get("answer"), dict)
        ):
            remove_file(path)
            return None
        try:
            return parse_answer(json.dumps(data["answer"]).encode("utf-8"), self.opts)
        except Refusal:
            remove_file(path)
            return None

    def summarize(self, w: Window) -> tuple[Answer, bool]:
        """The window's answer: from the journal if a run stopped mid-window, else from the
        summarizer. Returns (answer, resumed). Raises :class:`Refusal`."""
        journaled = self.read_journal(w) if self.opts.mode == "run" else None
        if journaled is not None:
            return journaled, True
        payload = json.dumps(self.window_input(w), ensure_ascii=False).encode("utf-8")
        self._calls += 1
        raw = run_summarizer(self.opts.summarizer, payload, self.opts.timeout)
        return parse_answer(raw, self.opts), False

    def _check_window(self, w: Window) -> None:
        """Every episode of the window is still live and unchanged (under the writer lock)."""
        for e in w.episodes:
            try:
                cur = self.store.get(e.id, e.scope)
            except NotFoundError:
                raise Refusal(
                    "window-changed",
                    f"episode {e.id} was forgotten while the window was summarized",
                ) from None
            if cur.digest != e.digest:
                raise Refusal(
                    "window-changed", f"episode {e.id} was edited while the window was summarized"
                )

    def _check_targets(self, w: Window, answer: Answer) -> list[Supersession]:
        """Supersession targets: live, same scope, active or candidate, not an episode.

        Returns the supersessions still to apply (one already applied for this window, by a
        run that stopped mid-window, is skipped).
        """
        todo: list[Supersession] = []
        in_window = set(w.episode_ids)
        for i, s in enumerate(answer.supersedes):
            if (w.key, f"supersede:{i}") in self._items:
                continue
            where = f"supersedes[{i}]"
            if s.id in in_window:
                raise Refusal(
                    "bad-target",
                    f"{where} names an episode of this window; episodes are not superseded",
                )
            try:
                old = self.store.get(s.id, w.scope)
            except NotFoundError:
                raise Refusal(
                    "bad-target",
                    f"{where} names {s.id}, which is not a live record in scope {w.scope!r}",
                ) from None
            if old.status not in ("active", "candidate"):
                raise Refusal("bad-target", f"{where} names {s.id}, which is {old.status}")
            if old.kind in self.opts.kinds:
                raise Refusal(
                    "bad-target", f"{where} names {s.id}, an episode; episodes are not superseded"
                )
            if match_digest(s.content) == old.match_digest:
                raise Refusal("bad-target", f"{where} repeats the content of {s.id}")
            todo.append(s)
        return todo

    def _source(self, w: Window, item: str) -> dict[str, Any]:
        src: dict[str, Any] = {"type": "consolidate"}
        if w.conversation is not None:
            src["conversation"] = w.conversation
        src.update(
            {"summarizer": self.opts.program, "window": w.key, "item": item, "writer": _writer()}
        )
        return src

    def apply(self, w: Window, answer: Answer, *, resumed: bool = False) -> WindowResult:
        """Write the window's records (or, in preview mode, work out what would be written).

        Order: journal the answer, then under the writer lock re-check the window and the
        supersession targets, then supersessions, facts and the summary last. A content that was
        forgotten in the scope, or that an existing record already holds, is dropped (reported),
        never resurrected or duplicated. Raises :class:`Refusal` before any write.
        """
        res = WindowResult(
            w, "created" if self.opts.mode == "run" else "previewed", resumed=resumed, answer=answer
        )
        write = self.opts.mode == "run"
        status = "active" if self.opts.trust else "candidate"
        if write:
            journal = {
                "format": JOURNAL_FORMAT,
                "version": VERSION,
                "window": w.key,
                "scope": w.scope,
                "answer": answer.to_dict(),
            }
            ensure_dir(_journal_dir(self.store))
            atomic_write(_journal_path(self.store, w.key), json.dumps(journal, ensure_ascii=False))
        store = self.store
        guard: contextlib.AbstractContextManager[Store] = (
            store.batch() if write else contextlib.nullcontext(store)
        )
        with guard:
            self._check_window(w)
            sups = self._check_targets(w, answer)
            digests = self._digests.setdefault(w.scope, {})
            tomb = store.tombstones.load(w.scope)
            for i, s in enumerate(answer.supersedes):
                if s not in sups:
                    res.superseded.append(
                        {"old": s.id, "new": self._items[(w.key, f"supersede:{i}")]}
                    )
                    continue
                md = match_digest(s.content)
                if md in tomb.digests:
                    res.dropped.append({"item": f"supersede:{i}", "reason": "forgotten"})
                    continue
                rule = find_secret(s.content)
                if rule is not None:  # the secrets policy: a summarizer's text is never allowed
                    res.dropped.append({"item": f"supersede:{i}", "reason": "secret", "rule": rule})
                    continue
                if write:
                    new, _old = store.supersede(
                        s.id,
                        s.content,
                        reason=s.reason,
                        source=self._source(w, f"supersede:{i}"),
                        status=status,
                        derived_from=w.episode_ids,
                    )
                    self._items[(w.key, f"supersede:{i}")] = new.id
                    digests.setdefault(md, new.id)
                    res.superseded.append({"old": s.id, "new": new.id})
                else:
                    res.superseded.append({"old": s.id, "new": ""})
                    digests.setdefault(md, "")
            for i, f in enumerate(answer.facts):
                item = f"fact:{i}"
                rid = self._write_derived(
                    w,
                    res,
                    item,
                    f.content,
                    kind=f.kind,
                    tags=f.tags,
                    confidence=self.opts.confidence if f.confidence is None else f.confidence,
                    status=status,
                    write=write,
                    dedup=True,
                )
                if rid is not None:
                    res.facts.append(rid)
            res.summary = self._write_derived(
                w,
                res,
                "summary",
                answer.summary,
                kind="summary",
                tags=(),
                confidence=self.opts.confidence,
                status=status,
                write=write,
                dedup=False,
            )
        if write:
            self._done_windows.add(w.key)
        return res

    def _write_derived(
        self,
        w: Window,
        res: WindowResult,
        item: str,
        content: str,
        *,
        kind: str,
        tags: Sequence[str],
        confidence: float,
        status: str,
        write: bool,
        dedup: bool,
    ) -> str | None:
        existing = self._items.get((w.key, item))
        if existing is not None:
            return existing  # written by a run that stopped mid-window
        digests = self._digests.setdefault(w.scope, {})
        md = match_digest(content)
        if dedup and md in digests:
            res.dropped.append(
                {"item": item, "reason": "duplicate", "duplicate_of": digests[md] or None}
            )
            return None
        rec = make_record(
            scope=w.scope,
            kind=kind,
            content=content,
            status=status,
            confidence=confidence,
            tags=list(tags),
            derived_from=w.episode_ids,
            source=self._source(w, item),
        )
        try:
            self.store.check_not_tombstoned(rec)
        except TombstonedError:
            res.dropped.append({"item": item, "reason": "forgotten"})
            return None
        secret = record_secret(rec)
        if secret is not None:  # the secrets policy: a summarizer's text is never allowed
            res.dropped.append({"item": item, "reason": "secret", "rule": secret[1]})
            return None
        if not write:
            digests.setdefault(md, "")
            return ""
        self.store.put(
            rec, op="consolidate", detail={"outcome": "created", "window": w.key, "item": item}
        )
        self._items[(w.key, item)] = rec.id
        digests.setdefault(md, rec.id)
        return rec.id

    def advance(self, w: Window) -> None:
        """Move the stream's watermark past the window's last episode (atomic write)."""
        skey = (w.scope, w.conversation)
        prev = self._marks.get(skey)
        last = w.last
        self._marks[skey] = Mark(
            recorded_at=format_time(last.recorded_at),
            id=last.id,
            window=w.key,
            windows=(prev.windows if prev else 0) + 1,
        )
        with self.store.lock:
            save_watermark(self.store, self._marks)
        remove_file(_journal_path(self.store, w.key))

    def _log(self, w: Window, outcome: str, refusal: Refusal | None = None) -> None:
        detail: dict[str, Any] = {
            "outcome": outcome,
            "window": w.key,
            "episodes": len(w.episodes),
            "summarizer": self.opts.program,
        }
        if refusal is not None:
            detail["code"] = refusal.code
            detail["reason"] = refusal.message
        with self.store.lock:
            self.store.log.append("consolidate", scope=w.scope, detail=detail)

    def process(self, w: Window) -> WindowResult | None:
        """Handle one window; None when it is not run (budget spent, or its stream is blocked)."""
        skey = (w.scope, w.conversation)
        if skey in self._blocked:
            self.report.not_run.append(w)
            return None
        mode = self.opts.mode
        if mode == "plan":
            res = WindowResult(w, "done" if self.is_done(w) else "planned")
            self.report.results.append(res)
            return res
        if self.is_done(w):
            if mode == "run":
                self.advance(w)
            res = WindowResult(w, "done")
            self.report.results.append(res)
            return res
        spent = self.opts.max_windows is not None and self._calls >= self.opts.max_windows
        if spent and not (mode == "run" and _journal_path(self.store, w.key).exists()):
            self.report.budget_exhausted = True
            self.report.not_run.append(w)
            return None
        try:
            answer, resumed = self.summarize(w)
            if answer.none:
                if mode == "run":
                    self._log(w, "none")
                    self.advance(w)
                res = WindowResult(w, "none", resumed=resumed, answer=answer)
            else:
                res = self.apply(w, answer, resumed=resumed)
                if mode == "run":
                    self.advance(w)
        except Refusal as ref:
            if mode == "run":
                self._log(w, "refused", ref)
                remove_file(_journal_path(self.store, w.key))
            self._blocked.add(skey)
            res = WindowResult(w, "refused", refusal=ref)
        self.report.results.append(res)
        return res

    def cleanup_journal(self, windows: Sequence[Window]) -> None:
        """Remove journal entries of windows that no longer exist (their episodes changed or were
        forgotten), in the scopes this run covers; derived text must not outlive its sources."""
        if self.opts.mode != "run":
            return
        d = _journal_dir(self.store)
        if not d.is_dir():
            return
        keep = {w.key.split(":", 1)[-1] for w in windows}
        for p in d.glob("*.json"):
            if p.stem in keep:
                continue
            if self.opts.scopes is not None:
                try:
                    scope = json.loads(p.read_text("utf-8")).get("scope")
                except (OSError, ValueError, AttributeError):
                    scope = None
                if scope is not None and scope not in self.opts.scopes:
                    continue  # another scope's window: not ours to judge in this run
            remove_file(p)


def _writer() -> str:
    from mem import __version__

    return f"mem {__version__}"


def consolidate(store: Store, opts: Options) -> Report:
    """Run a whole consolidation (see :class:`Consolidation` for the steps)."""
    with Consolidation(store, opts) as run:
        windows = run.plan()
        run.cleanup_journal(windows)
        for w in windows:
            run.process(w)
        return run.report
