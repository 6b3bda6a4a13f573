"""``mem search``: hybrid (BM25 + vector), lexical or vector search, one query or a batch."""

from __future__ import annotations

import datetime as dt
import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mem.cli.common import emit_jsonl, open_store, parse_time_option, split_csv, warn
from mem.cli.searchfast import render, statuses_option
from mem.format.rules.settings import default

if TYPE_CHECKING:
    from mem.format.search.engine import Searcher, SearchResult


def _as_list(v: Any, what: str) -> list[str] | None:
    from mem.format.base.errors import InvalidInputError

    if v is None:
        return None
    if isinstance(v, str):
        return [v]
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return list(v)
    raise InvalidInputError(f"{what} must be a string or a list of strings")


@dataclass(frozen=True)
class Bounds:
    """The command line's filters in ``--batch``: they apply to every line, which may narrow them
    (fewer scopes, kinds or statuses, more tags, a smaller ``k``), never widen them. ``None``:
    not given on the command line."""

    scopes: list[str] | None = None
    kinds: list[str] | None = None
    tags: list[str] | None = None
    statuses: list[str] | None = None
    as_of: dt.datetime | None = None
    known_at: dt.datetime | None = None
    k: int | None = None
    mode: str | None = None
    explain: bool = False
    rerank: bool | None = None  # a default: a line's own "rerank" wins
    min_score: float | None = None  # a line may raise it, not lower it


def _within(line: list[str] | None, cli: list[str] | None, what: str, flag: str) -> list[str] | None:
    """A line's values, which must all be among the command line's (when it gave some)."""
    from mem.format.base.errors import InvalidInputError

    if cli is None:
        return line
    if line is None:
        return cli
    wider = [v for v in line if v not in cli]
    if wider:
        raise InvalidInputError(
            f"{what} {', '.join(wider)} is outside the command line's {flag} {','.join(cli)}: "
            "a batch line may narrow the command-line filters, never widen them"
        )
    return line


def _same(line: Any, cli: Any, what: str, flag: str) -> Any:
    """A line's value for a setting the command line fixed: absent or the same."""
    from mem.format.base.errors import InvalidInputError

    if cli is None or line is None or line == cli:
        return cli if line is None else line
    raise InvalidInputError(
        f"{what} differs from the command line's {flag}: a batch line may narrow the "
        "command-line filters, never widen or change them"
    )


def _run_one(s: Searcher, q: dict[str, Any], bounds: Bounds | None = None) -> SearchResult:
    from mem.format.base.errors import InvalidInputError

    b = bounds or Bounds()
    known = {"query", "scope", "scopes", "kind", "kinds", "tag", "tags", "status", "statuses",
             "as_of", "known_at", "k", "mode", "explain", "id", "rerank", "min_score"}
    extra = sorted(set(q) - known)
    if extra:
        raise InvalidInputError(f"unknown key(s) {', '.join(extra)} in a batch query")
    query = q.get("query")
    if not isinstance(query, str):
        raise InvalidInputError("a batch query needs a string \"query\"")
    k = q.get("k", b.k)  # None: the store's [search] default_k
    if k is not None and (not isinstance(k, int) or isinstance(k, bool)):
        raise InvalidInputError("\"k\" must be an integer")
    if b.k is not None and k is not None and k > b.k:
        raise InvalidInputError(
            f"\"k\": {k} is more than the command line's -k {b.k}: a batch line may narrow the "
            "command-line filters, never widen them"
        )
    mode = _same(q.get("mode"), b.mode, "\"mode\"", "--mode") or "hybrid"
    if not isinstance(mode, str):
        raise InvalidInputError("\"mode\" must be a string")
    tags = _as_list(q.get("tags", q.get("tag")), "tag")
    if b.tags is not None:  # every tag must be there: the command line's and the line's
        tags = list(dict.fromkeys([*b.tags, *(tags or [])]))
    rerank = q.get("rerank", b.rerank)
    if rerank is not None and not isinstance(rerank, bool):
        raise InvalidInputError("\"rerank\" must be true or false")
    min_score = q.get("min_score", b.min_score)
    if min_score is not None and (not isinstance(min_score, (int, float)) or isinstance(min_score, bool)):
        raise InvalidInputError("\"min_score\" must be a number")
    if b.min_score is not None and min_score is not None and min_score < b.min_score:
        raise InvalidInputError(
            f"\"min_score\": {min_score} is below the command line's --min-score {b.min_score}: a batch "
            "line may narrow the command-line filters, never widen them"
        )
    return s.search(
        query,
        scopes=_within(_as_list(q.get("scopes", q.get("scope")), "scope"), b.scopes, "scope", "--scope"),
        kinds=_within(_as_list(q.get("kinds", q.get("kind")), "kind"), b.kinds, "kind", "--kind"),
        tags=tags,
        statuses=_within(statuses_option(_as_list(q.get("statuses", q.get("status")), "status")), b.statuses,
                         "status", "--status"),
        as_of=_same(parse_time_option(q.get("as_of"), "as_of"), b.as_of, "\"as_of\"", "--as-of"),
        known_at=_same(parse_time_option(q.get("known_at"), "known_at"), b.known_at,
                       "\"known_at\"", "--known-at"),
        k=k,
        mode=mode,
        explain=bool(q.get("explain", False)) or b.explain,
        rerank=rerank,
        min_score=None if min_score is None else float(min_score),
    )


def log_batch_read(store: Any, query: str, res: Any) -> None:
    """The read log's event for one batch query ([audit] reads; content-free)."""
    from mem.format.store.readlog import log_read

    try:
        log_read(store, via="search-batch", query=query, ids=[h.id for h in res.hits],
                 scores=[h.score for h in res.hits])
    except OSError as exc:
        warn(f"the read log could not be written: {exc}")


def _batch(s: Searcher, bounds: Bounds | None = None) -> int:
    """JSON Lines in, one JSON line out per query; exit status of the first failure (0 if none)."""
    from mem.format.base.errors import InvalidInputError, MemError

    status = 0
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        q: Any = None
        try:
            try:
                q = json.loads(line)
            except ValueError as exc:
                raise InvalidInputError(f"line {n} of stdin is not JSON: {exc}") from None
            if not isinstance(q, dict):
                raise InvalidInputError(f"line {n} of stdin is not a JSON object")
            res = _run_one(s, q, bounds)
            log_batch_read(s.store, q["query"], res)
            out: dict[str, Any] = {"query": q["query"], **res.to_dict()}
            if "id" in q:
                out = {"id": q["id"], **out}
        except MemError as exc:
            out = {"query": q.get("query") if isinstance(q, dict) else None, "error": exc.to_json()}
            if isinstance(q, dict) and "id" in q:
                out = {"id": q["id"], **out}
            status = status or int(exc.exit_code)
            warn(f"stdin line {n}: {exc}")
        emit_jsonl(out)
    return status


def register(app: typer.Typer) -> None:
    @app.command("search")
    def search(
        ctx: typer.Context,
        query: Annotated[str | None, typer.Argument(help="What to look for (free text).")] = None,
        mode: Annotated[str, typer.Option("--mode", "-m", help="hybrid (default), lexical or vector.")] = "hybrid",
        scope: Annotated[list[str] | None, typer.Option("--scope", help="Only this scope (repeat, or comma-separated).")] = None,
        kind: Annotated[list[str] | None, typer.Option("--kind", help="Only this kind (repeat).")] = None,
        tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Must have this tag (repeat: all of them).")] = None,
        status: Annotated[list[str] | None, typer.Option("--status", help="Statuses to include, or 'all' (default: active, candidate).")] = None,
        as_of: Annotated[str | None, typer.Option("--as-of", help="What was true at this time (world time).")] = None,
        known_at: Annotated[str | None, typer.Option("--known-at", help="What the store believed at this time (record time).")] = None,
        k: Annotated[int | None, typer.Option("-k", "--limit", min=1, max=1000, help=f"How many results (default: [search] default_k, {default('search', 'default_k')}).")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
        explain: Annotated[bool, typer.Option("--explain", help="Show how each score was made.")] = False,
        batch: Annotated[bool, typer.Option("--batch", help="Read JSON Lines queries on stdin; print one JSON line each.")] = False,
        rerank: Annotated[bool | None, typer.Option("--rerank/--no-rerank", help="Reorder the best hybrid hits with the reranker (default: [search] rerank).")] = None,
        min_score: Annotated[float | None, typer.Option("--min-score", help="Leave out hits scored below this (hybrid: a calibrated relevance, 0-1).")] = None,
    ) -> None:
        """Search memories. No results is not an error (exit 0); a failed search is."""
        from mem.format.base.errors import InvalidInputError
        from mem.format.search.engine import Searcher

        store = open_store()
        if batch:
            if query is not None:
                raise InvalidInputError("give queries on stdin with --batch, not as an argument")
            def given(name: str) -> bool:
                # by the enum's name: typer may bring its own copy of click's ParameterSource
                source = ctx.get_parameter_source(name)
                return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")

            bounds = Bounds(
                scopes=split_csv(scope),
                kinds=split_csv(kind),
                tags=split_csv(tag),
                statuses=statuses_option(status),
                as_of=parse_time_option(as_of, "--as-of"),
                known_at=parse_time_option(known_at, "--known-at"),
                k=k,
                mode=mode if given("mode") else None,
                explain=explain,
                rerank=rerank,
                min_score=min_score,
            )
            # a process that only serves searches: its loaded indexes frozen out of the GC's passes
            with Searcher(store, long_lived=True, freeze_gc=True) as s:
                code = _batch(s, bounds)
            raise typer.Exit(code)
        if query is None:
            from mem.format.base.errors import UsageError

            raise UsageError("missing argument QUERY: give a query (or use --batch)")
        with Searcher(store, long_lived=False) as s:
            res = s.search(
                query,
                scopes=split_csv(scope),
                kinds=split_csv(kind),
                tags=split_csv(tag),
                statuses=statuses_option(status),
                as_of=parse_time_option(as_of, "--as-of"),
                known_at=parse_time_option(known_at, "--known-at"),
                k=k,
                mode=mode,
                explain=explain,
                rerank=rerank,
                min_score=min_score,
            )
        for w in res.warnings:
            warn(w)

        render(res, query, json_out, explain)
