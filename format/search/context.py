"""``mem context``: a deterministic block of memory for an agent's prompt (``spec/cli/context.md``).

What goes in: the live memories of the chosen scopes (``active``; ``candidate`` too only when
asked, marked unreviewed). Rejected and superseded records are never read; forgotten ones are
gone from the store. In this order:

1. standing instructions (kind ``instruction``), then preferences (kind ``preference``), each
   newest first (record time, then id);
2. with a query: the other memories the query matches, most relevant first (the lexical
   search's score rounded to 3 decimals, then id), then the rest newest first; without one: the
   rest newest first.

The budget (tokens counted by :mod:`.tokens`) covers the whole output, header and footer
included. Memories are taken in that order while they fit; one that does not fit is left out and
counted, and smaller ones after it may still go in. The footer always says how many were left out
and the command that lists exactly those (``--omitted``). Nothing in the block depends on the
clock, the machine or the order files were written: the same store and arguments give the same
bytes (so a host's prompt cache keeps working).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import InvalidInputError
from mem.format.rules.ids import check_scope
from mem.format.rules.tokens import TOKENIZER, count_tokens

if TYPE_CHECKING:
    from mem.format.model.record import Record
    from mem.format.store.store import Store

FORMATS: tuple[str, ...] = ("markdown", "json")
SECTIONS: tuple[tuple[str, str], ...] = (
    ("instructions", "Standing instructions"),
    ("preferences", "Preferences"),
    ("relevant", "Relevant to the query"),
    ("memories", "Other memories"),
)
_HEADING = dict(SECTIONS)
SCORE_DECIMALS = 3
JSON_VERSION = "mem-context/1"


@dataclass(frozen=True, slots=True)
class Item:
    """One memory placed in a section (score: the rounded relevance, for ``relevant``)."""

    record: Record
    section: str
    score: float | None = None

    def line(self) -> str:
        text = " ".join(self.record.content.split())
        mark = "(unreviewed) " if self.record.status == "candidate" else ""
        return f"- {mark}{text} [{self.record.kind} {self.record.id}]"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.record.id,
            "scope": self.record.scope,
            "kind": self.record.kind,
            "status": self.record.status,
            "section": self.section,
            "content": self.record.content.strip("\n"),
        }
        if self.record.status == "candidate":
            d["unreviewed"] = True
        if self.score is not None:
            d["score"] = self.score
        return d


@dataclass
class ContextBlock:
    """The rendered block and what it holds."""

    text: str
    included: list[Item] = field(default_factory=list)
    omitted: list[Item] = field(default_factory=list)
    tokens: int = 0


@dataclass(frozen=True)
class ContextArgs:
    scopes: tuple[str, ...] | None = None
    query: str | None = None
    budget: int | None = None
    fmt: str = "markdown"
    include_candidates: bool = False

    def command(self, *, omitted: bool = False) -> str:
        """The ``mem context`` command line for these arguments (shell-quoted)."""
        parts = ["mem", "context"]
        for s in self.scopes or ():
            parts += ["--scope", s]
        if self.query is not None:
            parts += ["--query", self.query]
        if self.budget is not None:
            parts += ["--budget", str(self.budget)]
        if self.include_candidates:
            parts.append("--include-candidates")
        if self.fmt != "markdown":
            parts += ["--format", self.fmt]
        if omitted:
            parts.append("--omitted")
        return " ".join(shlex.quote(p) for p in parts)


def _newest_key(r: Record) -> tuple[float, str]:
    return (-r.recorded_at.timestamp(), r.id)


def order(store: Store, args: ContextArgs) -> list[Item]:
    """Every memory the block may hold, in the order it is filled (see the module docstring)."""
    from mem.format.search.listing import newest
    from mem.format.store.store import RecordFilter

    statuses = ("active", "candidate") if args.include_candidates else ("active",)
    records = newest(store, RecordFilter(scopes=args.scopes, statuses=statuses), None)
    records = sorted(records, key=_newest_key)
    items: list[Item] = []
    rest: list[Record] = []
    for kind, section in (("instruction", "instructions"), ("preference", "preferences")):
        items += [Item(r, section) for r in records if r.kind == kind]
    rest = [r for r in records if r.kind not in ("instruction", "preference")]
    if args.query is not None and args.query.strip() and rest:
        scores = _relevance(store, args, statuses, {r.id for r in rest})
        ranked = sorted((r for r in rest if r.id in scores), key=lambda r: (-scores[r.id], r.id))
        items += [Item(r, "relevant", scores[r.id]) for r in ranked]
        rest = [r for r in rest if r.id not in scores]
    items += [Item(r, "memories") for r in rest]
    return items


def _relevance(store: Store, args: ContextArgs, statuses: Sequence[str], wanted: set[str]) -> dict[str, float]:
    from mem.format.search.engine import MAX_K, Searcher

    assert args.query is not None
    with Searcher(store, long_lived=False) as s:
        res = s.search(args.query, scopes=args.scopes, statuses=list(statuses), k=MAX_K, mode="lexical")
    return {h.id: round(h.score, SCORE_DECIMALS) for h in res.hits if h.id in wanted}


# ---------------------------------------------------------------------------------------------
# Rendering


def _header(args: ContextArgs) -> str:
    scopes = ", ".join(args.scopes) if args.scopes else "all"
    then = "the most relevant to the task" if args.query else "the newest"
    lines = ["# Memory", "", f"From mem (scopes: {scopes}): instructions and preferences, then {then}; [kind id] ends each line."]
    if args.include_candidates:
        lines.append("(unreviewed): captured from a conversation, not yet confirmed.")
    return "\n".join(lines) + "\n"


def _footer(args: ContextArgs, total: int, left: int) -> str:
    if left == 0:
        return f"\n_All {total} memories are included._\n"
    why = f" to stay within {args.budget} tokens" if args.budget is not None else ""
    return f"\n_{left} of {total} memories left out{why}; list them with: `{args.command(omitted=True)}`_\n"


def render_markdown(args: ContextArgs, included: list[Item], total: int, left: int, *, listing: bool = False) -> str:
    out = [_header(args)] if not listing else []
    section = None
    for it in included:
        if it.section != section:
            section = it.section
            out.append(f"\n## {_HEADING[section]}\n\n")
        out.append(it.line() + "\n")
    if not listing:
        out.append(_footer(args, total, left))
    return "".join(out)


def render_json(args: ContextArgs, included: list[Item], total: int, left: int) -> str:
    doc = {
        "format": JSON_VERSION,
        "scopes": list(args.scopes) if args.scopes else None,
        "query": args.query,
        "budget": args.budget,
        "tokenizer": TOKENIZER,
        "include_candidates": args.include_candidates,
        "memories": [it.to_dict() for it in included],
        "total": total,
        "included": len(included),
        "omitted": left,
        "omitted_command": args.command(omitted=True) if left else None,
    }
    return json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def _render(args: ContextArgs, included: list[Item], total: int) -> str:
    left = total - len(included)
    if args.fmt == "json":
        return render_json(args, included, total, left)
    return render_markdown(args, included, total, left)


def build(store: Store, args: ContextArgs) -> ContextBlock:
    """The context block for ``args`` (raises :class:`InvalidInputError` for a budget too small
    for even the header and footer)."""
    if args.fmt not in FORMATS:
        raise InvalidInputError(f"--format {args.fmt!r} is not one of {', '.join(FORMATS)}")
    if args.budget is not None and args.budget < 0:
        raise InvalidInputError("--budget must be a number of tokens, 0 or more")
    for s in args.scopes or ():
        check_scope(s)
    items = order(store, args)
    total = len(items)
    if args.budget is None:
        text = _render(args, items, total)
        return ContextBlock(text, items, [], count_tokens(text))
    # the smallest block (no memory) must fit; its footer then names every memory as left out
    empty = _render(args, [], total)
    if count_tokens(empty) > args.budget:
        raise InvalidInputError(
            f"--budget {args.budget} is below the smallest block ({count_tokens(empty)} tokens "
            f"by {TOKENIZER}: the header and the footer naming what is left out)",
            hint="give a larger --budget",
        )
    chosen: list[Item] = []
    used = count_tokens(empty)
    for it in items:
        # an estimate of what the item adds (its line, and a heading when it opens a section);
        # the rendered block is counted exactly below
        cost = count_tokens(it.line() + "\n") if args.fmt == "markdown" else count_tokens(
            json.dumps(it.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":")) + ","
        )
        if args.fmt == "markdown" and (not chosen or chosen[-1].section != it.section):
            cost += count_tokens(f"\n## {_HEADING[it.section]}\n\n")
        if used + cost <= args.budget:
            chosen.append(it)
            used += cost
    text = _render(args, chosen, total)
    while count_tokens(text) > args.budget and chosen:
        chosen.pop()  # the estimate was short (a footer with more digits): drop the last one
        text = _render(args, chosen, total)
    kept = {id(c) for c in chosen}
    return ContextBlock(text, chosen, [it for it in items if id(it) not in kept], count_tokens(text))


def omitted_listing(store: Store, args: ContextArgs) -> str:
    """What ``--omitted`` prints: the memories the block for ``args`` leaves out, in its order."""
    block = build(store, args)
    if args.fmt == "json":
        return json.dumps({"format": JSON_VERSION, "omitted": [it.to_dict() for it in block.omitted]},
                          ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
    return render_markdown(args, block.omitted, len(block.omitted), 0, listing=True).lstrip("\n")
