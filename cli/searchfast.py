"""The fast path of ``mem search``: the common invocations parsed without importing typer.

Importing typer and rich costs more than the whole search (see bench/README.md), and agents call
``mem search`` on every turn. ``fast_main`` handles ``mem [global options] search QUERY
[options]`` with the options documented in spec/cli/search.md and returns None for anything
else (``--help``, ``--batch``, an unknown or malformed option), which then goes through the
regular typer command in :mod:`mem.cli.commands.search` with identical behaviour and output.
"""

from __future__ import annotations

import os
import sys

from mem.cli.termtext import json_safe, safe

# json's output, without importing json (which imports re and enum: a third of a lean search)
from mem.format.base.jsonlite import dumps as _json_dumps

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms)
if TYPE_CHECKING:
    from typing import Any

    from mem.format.search.engine import SearchResult
    from mem.format.search.lexfast import LeanResult

_GLOBAL_VALUE = {"--store": "store", "-s": "store", "--lock-timeout": "lock_timeout"}
_GLOBAL_FLAG = {"--quiet": "quiet", "-q": "quiet", "--no-color": "no_color", "--no-pager": "no_pager",
                "--json-errors": "json_errors"}
_MULTI = {"--scope": "scope", "--kind": "kind", "--tag": "tag", "-t": "tag", "--status": "status"}
_VALUE = {"--mode": "mode", "-m": "mode", "--as-of": "as_of", "--known-at": "known_at", "-k": "k", "--limit": "k",
          "--min-score": "min_score"}
_FLAG = {"--json": "json", "--explain": "explain"}
_SWITCH = {"--rerank": ("rerank", True), "--no-rerank": ("rerank", False)}


def render(res: SearchResult | LeanResult, query: str, json_out: bool, explain: bool) -> None:
    """Print a search result (shared by the fast path and the typer command)."""
    if json_out:
        sys.stdout.write(json_safe(_json_dumps({"query": query, **res.to_dict()}, indent=2)) + "\n")
        sys.stdout.flush()
        return
    out = sys.stdout
    for h in res.hits:
        lines = [ln for ln in h.content.strip().splitlines() if ln.strip()]
        first = lines[0] if lines else ""
        if len(first) > 100:
            first = first[:99] + "…"
        first = safe(first).replace("\t", " ")
        if len(lines) > 1:  # a multi-line memory says that it has more (`mem show ID` prints it)
            first += f"  (+{len(lines) - 1} more line{'s' if len(lines) > 2 else ''})"
        out.write(f"{h.score:.4f}  {h.id}  {safe(h.scope)}/{safe(h.kind)}/{h.status}  [{'+'.join(h.arms)}]  {first}\n")
        if explain and h.explain is not None:
            out.write("        " + json_safe(_json_dumps(h.explain)) + "\n")
    if not res.hits:
        sys.stderr.write("no results\n")


def _csv(values: list[str]) -> list[str] | None:
    out = [x.strip() for v in values for x in v.split(",") if x.strip()]
    return out or None


def statuses_option(values: list[str] | None) -> list[str] | None:
    """``--status`` values (repeated or comma-separated); ``all`` means every status.

    The one reading of the option, for ``mem list`` and ``mem search`` (both paths)."""
    out = _csv(values or [])
    if out and "all" in out:
        from mem.format.rules.recordtext import STATUSES

        return list(STATUSES)
    return out


def parse(args: list[str]) -> dict[str, Any] | None:
    """The parsed invocation, or None when it is not a plain search this path handles."""
    g: dict[str, Any] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a in _GLOBAL_VALUE and i + 1 < len(args):
            g[_GLOBAL_VALUE[a]] = args[i + 1]
            i += 2
        elif a in _GLOBAL_FLAG:
            g[_GLOBAL_FLAG[a]] = True
            i += 1
        else:
            break
    if i >= len(args) or args[i] != "search":
        return None
    o: dict[str, Any] = {"scope": [], "kind": [], "tag": [], "status": [], "mode": "hybrid", "k": None,
                         "json": False, "explain": False, "as_of": None, "known_at": None, "rerank": None,
                         "min_score": None}
    query: list[str] = []
    rest = args[i + 1:]
    j = 0
    while j < len(rest):
        a = rest[j]
        if a == "--":
            query.extend(rest[j + 1:])
            break
        if a.startswith("-") and len(a) > 1:
            key, eq, val = a.partition("=")
            if a in _GLOBAL_FLAG:  # global options may follow the command, as for every command
                g[_GLOBAL_FLAG[a]] = True
                j += 1
                continue
            if key in _GLOBAL_VALUE:
                if not eq:
                    if j + 1 >= len(rest):
                        return None
                    val = rest[j + 1]
                    j += 1
                g[_GLOBAL_VALUE[key]] = val
                j += 1
                continue
            if key in _FLAG and not eq:
                o[_FLAG[key]] = True
                j += 1
                continue
            if key in _SWITCH and not eq:
                name, value = _SWITCH[key]
                o[name] = value
                j += 1
                continue
            if key in _MULTI or key in _VALUE:
                if not eq:
                    if j + 1 >= len(rest):
                        return None
                    val = rest[j + 1]
                    j += 1
                if key in _MULTI:
                    o[_MULTI[key]].append(val)
                else:
                    o[_VALUE[key]] = val
                j += 1
                continue
            return None  # --help, --batch, unknown: the typer command decides
        query.append(a)
        j += 1
    if len(query) != 1:
        return None
    if "lock_timeout" in g:
        try:
            float(g["lock_timeout"])
        except ValueError:
            return None  # typer's usage error (exit 2), as for every other command
    if o["k"] is not None:  # else the store's [search] default_k
        try:
            k = int(o["k"])
        except ValueError:
            return None
        if not 1 <= k <= 1000:
            return None
        o["k"] = k
    if o["min_score"] is not None:
        try:
            o["min_score"] = float(o["min_score"])
        except ValueError:
            return None  # typer's usage error
        if o["min_score"] != o["min_score"] or o["min_score"] in (float("inf"), float("-inf")):
            return None
    o["query"] = query[0]
    o["global"] = g
    return o


def _lean(o: dict[str, Any]) -> LeanResult | None:
    """The answer of the lean read path (mem.format.search.lexfast), or None: use the full path."""
    from mem.format.base.errors import MemError
    from mem.format.rules.timeutil import parse_time
    from mem.format.search.lexfast import lexical_search

    g = o["global"]
    try:  # (a --lock-timeout that is not a number never gets here: parse() leaves it to typer)
        as_of = parse_time(o["as_of"], "--as-of") if o["as_of"] else None
        known_at = parse_time(o["known_at"], "--known-at") if o["known_at"] else None
    except (ValueError, MemError):
        return None  # the full path reports it
    return lexical_search(
        g.get("store") or os.environ.get("MEM_STORE") or None,
        o["query"],
        scopes=_csv(o["scope"]),
        kinds=_csv(o["kind"]),
        tags=_csv(o["tag"]),
        statuses=statuses_option(o["status"]),
        as_of=as_of,
        known_at=known_at,
        k=o["k"],
    )


#: True once the lean read path has answered: it wrote and locked nothing and left nothing open, so
#: the console script may end the process without the interpreter's finalization (cli/main.py run).
answered_read_only = False


def _print(res: SearchResult | LeanResult, o: dict[str, Any]) -> int:
    try:
        for w in res.warnings:
            sys.stderr.write(f"warning: {w}\n")
        render(res, o["query"], o["json"], o["explain"])
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (e.g. `mem search x | head`): not an error (as cli/main.py)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def fast_main(args: list[str]) -> int | None:
    """Run a plain ``mem search``; None when the typer command should handle ``args``.

    A lexical search (without --explain) first tries the lean read path, which answers the
    common case (fresh index, nothing to write) without importing the store modules; anything
    else it leaves to the full path below.
    """
    o = parse(args)
    if o is None:
        return None
    if o["mode"] == "lexical" and not o["explain"] and o["min_score"] is None:
        lean = _lean(o)
        if lean is not None:
            global answered_read_only
            code = _print(lean, o)
            answered_read_only = True
            return code
    from mem.format.base.errors import MemError

    g = o["global"]
    try:
        from mem.format.index.derived import attach
        from mem.format.rules.timeutil import parse_time
        from mem.format.search.engine import Searcher
        from mem.format.store.store import Store

        lock_timeout = float(g["lock_timeout"]) if "lock_timeout" in g else None  # checked by parse()
        store_path = g.get("store") or os.environ.get("MEM_STORE") or None
        store = Store.open(store_path, lock_timeout=lock_timeout)
        attach(store)
        with Searcher(store, long_lived=False) as s:
            res = s.search(
                o["query"],
                scopes=_csv(o["scope"]),
                kinds=_csv(o["kind"]),
                tags=_csv(o["tag"]),
                statuses=statuses_option(o["status"]),
                as_of=parse_time(o["as_of"], "--as-of") if o["as_of"] else None,
                known_at=parse_time(o["known_at"], "--known-at") if o["known_at"] else None,
                k=o["k"],
                mode=o["mode"],
                explain=o["explain"],
                rerank=o["rerank"],
                min_score=o["min_score"],
            )
    except MemError as exc:
        if g.get("json_errors"):
            sys.stderr.write(_json_dumps(exc.to_json()) + "\n")
        else:
            sys.stderr.write(f"error: {exc}\n")
        return int(exc.exit_code)
    return _print(res, o)
