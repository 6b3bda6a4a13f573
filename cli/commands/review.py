"""``mem review``: a person accepts, edits or rejects candidate memories.

Interactive on a terminal (single keys), line by line when stdin is a pipe, and fully
non-interactive with ``--accept ID...``, ``--reject ID...`` and ``--list``. Every decision goes
through the store API, so it is in the audit log (accept, reject, update, reopen).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mem.cli.common import emit_json, info, open_store, split_csv
from mem.cli.termtext import safe
from mem.format.rules import patternids

if TYPE_CHECKING:
    from mem.format.model.record import Record
    from mem.format.store.store import Store

KEYS_HELP = "[a]ccept  [e]dit  [r]eject  [s]kip  [u]ndo  [q]uit"


def candidates(store: Store, scopes: list[str] | None, kinds: list[str] | None, sort: str) -> list[Record]:
    from mem.cli.common import SkipUnreadable
    from mem.format.store.store import RecordFilter

    recs = store.list(RecordFilter(scopes=scopes, kinds=kinds, statuses=["candidate"]), on_error=SkipUnreadable())
    if sort == "confidence":
        recs.sort(key=lambda r: (-r.confidence, -r.recorded_at.timestamp(), r.id))
    return recs  # store.list: newest first


def describe(rec: Record, pos: int, total: int) -> str:
    src = rec.source
    lines = [
        "",
        f"[{pos}/{total}] {rec.id}  {rec.kind}  confidence {rec.confidence:.2f}  scope {rec.scope}  ({rec.status})",
        "  " + safe(rec.content.strip()).replace("\n", "\n  "),
    ]
    if src.get("quote"):
        lines.append(f"  said:  \"{safe(str(src['quote']))}\"")
    where = []
    if src.get("transcript"):
        where.append(str(src["transcript"]))
    if src.get("conversation"):
        where.append(f"conversation {src['conversation']}")
    if src.get("turn") is not None:
        where.append(f"turn {src['turn']}")
    if src.get("pattern"):
        pattern = src["pattern"]
        where.append(f"pattern {patternids.describe(pattern) if isinstance(pattern, str) else pattern}")
    if not where:
        where.append(f"{src.get('type', 'unknown')} ({src.get('writer', '')})".strip())
    lines.append("  from:  " + safe(" · ".join(where)))
    seen = src.get("sighting_count")
    if isinstance(seen, int) and seen > 0:
        lines.append(f"  seen again {seen} time(s) since")
    return "\n".join(lines)


class Terminal:
    """Single-key input on a TTY (termios cbreak), whole lines otherwise; output on stdout."""

    def __init__(self) -> None:
        self.tty = sys.stdin.isatty()

    def say(self, text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def key(self, prompt: str) -> str:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        if self.tty:
            import termios
            import tty

            fd = sys.stdin.fileno()
            old = termios.tcgetattr(fd)
            try:
                tty.setcbreak(fd, termios.TCSANOW)  # not TCSAFLUSH (the default): keep keys typed ahead
                ch = os.read(fd, 1).decode("utf-8", "replace")
            finally:
                termios.tcsetattr(fd, termios.TCSADRAIN, old)
            sys.stdout.write((ch if ch.isprintable() else "") + "\n")
            sys.stdout.flush()
            return "q" if ch in ("\x04", "") else ch.lower()
        line = sys.stdin.readline()
        if not line:
            return "q"  # end of input: stop, keeping the decisions made
        return (line.strip()[:1] or "?").lower()


def edit_text(text: str) -> tuple[str | None, str]:
    """Open $VISUAL/$EDITOR on ``text``; (new text or None, message)."""
    import shlex
    import subprocess
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory(prefix="mem-review-") as d:
        path = os.path.join(d, "memory.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            rc = subprocess.run([*shlex.split(editor), path], check=False).returncode
        except (OSError, ValueError) as exc:
            return None, f"cannot run the editor {editor!r}: {exc}"
        if rc != 0:
            return None, f"the editor exited with status {rc}; the record is unchanged"
        try:
            with open(path, encoding="utf-8") as f:
                new = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            return None, f"cannot read the edited text: {exc}; the record is unchanged"
    if not new.strip():
        return None, "the edited text is empty; the record is unchanged"
    return new, ""


def interactive(store: Store, recs: list[Record]) -> dict[str, int]:
    from mem.format.base.errors import MemError, NotFoundError

    term = Terminal()
    total = len(recs)
    history: list[tuple[int, Record, str]] = []  # (position, record before, decision)
    skipped: set[int] = set()
    i = 0
    term.say(f"{total} candidate(s) to review. {KEYS_HELP}")
    while i < total:
        try:
            rec = store.get(recs[i].id)
        except NotFoundError:
            i += 1
            continue
        if rec.status != "candidate":
            i += 1
            continue
        term.say(describe(rec, i + 1, total))
        k = term.key(f"{KEYS_HELP} > ")
        try:
            if k == "a":
                store.accept(rec.id, reason="review")
                history.append((i, rec, "accepted"))
                term.say("  accepted")
                skipped.discard(i)
                i += 1
            elif k == "r":
                store.reject(rec.id, reason="review")
                history.append((i, rec, "rejected"))
                term.say("  rejected (it will not be captured again)")
                skipped.discard(i)
                i += 1
            elif k == "e":
                new, why = edit_text(rec.content)
                if new is None:
                    term.say("  " + why)
                    continue
                if new.strip() != rec.content.strip():
                    store.update(rec.id, content=new, detail={"reason": "review edit"})
                store.accept(rec.id, reason="review (edited)")
                history.append((i, rec, "edited"))
                term.say("  edited and accepted")
                skipped.discard(i)
                i += 1
            elif k == "s":
                skipped.add(i)
                i += 1
            elif k == "u":
                if not history:
                    term.say("  nothing to undo")
                    continue
                j, before, what = history.pop()
                cur = store.get(before.id)
                if what == "edited" and cur.content != before.content:
                    # the text restored was stored before (with --allow-secret if it held one)
                    store.update(
                        before.id, content=before.content, detail={"reason": "review undo"},
                        allow_secret=True,
                    )  # fmt: skip
                store.reopen(before.id, reason="review undo")
                term.say(f"  undone: {before.id} is a candidate again")
                i = j
            elif k == "q":
                break
            else:
                term.say(f"  keys: {KEYS_HELP}")
        except MemError as exc:
            term.say(f"  error: {exc}")
    counts = {"accepted": 0, "edited": 0, "rejected": 0}
    for _, _, what in history:
        counts[what] += 1
    counts["skipped"] = len(skipped)
    counts["remaining"] = sum(1 for r in recs if _is_candidate(store, r.id))
    term.say(
        f"done: {counts['accepted']} accepted, {counts['edited']} edited, {counts['rejected']} rejected, "
        f"{counts['skipped']} skipped; {counts['remaining']} candidate(s) left"
    )
    return counts


def _is_candidate(store: Store, rid: str) -> bool:
    from mem.format.base.errors import NotFoundError

    try:
        return store.get(rid).status == "candidate"
    except NotFoundError:
        return False


def decide(store: Store, record_ids: list[str], action: str) -> tuple[list[str], list[dict[str, Any]]]:
    from mem.format.base.errors import MemError

    done: list[str] = []
    failed: list[dict[str, Any]] = []
    for rid in record_ids:
        try:
            if action == "accept":
                rec = store.accept(rid, reason="review")
            else:
                rec = store.reject(rid, reason="review")
            done.append(rec.id)
        except MemError as exc:
            failed.append({"id": rid, **exc.to_json()})
    return done, failed


def register(app: typer.Typer) -> None:
    @app.command("review")
    def review(
        record_ids: Annotated[list[str] | None, typer.Argument(help="Record ids (with --accept or --reject).", show_default=False)] = None,
        accept: Annotated[bool, typer.Option("--accept", help="Accept the given ids (-> active), no questions.")] = False,
        reject: Annotated[bool, typer.Option("--reject", help="Reject the given ids (suppresses recapture).")] = False,
        list_: Annotated[bool, typer.Option("--list", help="List the candidates and exit.")] = False,
        scope: Annotated[list[str] | None, typer.Option("--scope", help="Only these scopes.")] = None,
        kind: Annotated[list[str] | None, typer.Option("--kind", help="Only these kinds.")] = None,
        sort: Annotated[str, typer.Option("--sort", help="confidence (highest first, default) or newest.")] = "confidence",
        limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many.")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="JSON output (with --list, --accept, --reject).")] = False,
    ) -> None:
        """Review captured candidates: accept, edit, reject, skip, undo, quit (decisions are kept)."""
        from mem.format.base.errors import ExitCode, InvalidInputError

        modes = [m for m, on in (("--accept", accept), ("--reject", reject), ("--list", list_)) if on]
        if len(modes) > 1:
            raise InvalidInputError(f"{' and '.join(modes)} cannot be combined")
        if sort not in ("confidence", "newest"):
            raise InvalidInputError(f"--sort {sort!r}: use confidence or newest")
        ids = split_csv(record_ids) or []
        if (accept or reject) and not ids:
            raise InvalidInputError(f"{modes[0]} needs at least one record id")
        if ids and not (accept or reject):
            raise InvalidInputError("record ids are given with --accept or --reject")
        store = open_store()
        if accept or reject:
            action = "accept" if accept else "reject"
            done, failed = decide(store, ids, action)
            if json_out:
                emit_json({"accepted" if accept else "rejected": done, "failed": failed})
            else:
                for rid in done:
                    sys.stdout.write(rid + "\n")
                for f in failed:
                    sys.stderr.write(f"error: {f['id']}: {f['message']}\n")
                info(f"{len(done)} {action}ed, {len(failed)} failed")
            if failed:
                raise typer.Exit(int(failed[0].get("exit_code", ExitCode.INVALID_INPUT)))
            return
        recs = candidates(store, split_csv(scope), split_csv(kind), sort)
        if limit is not None:
            recs = recs[:limit]
        if list_:
            if json_out:
                emit_json({"count": len(recs), "candidates": [r.to_dict() for r in recs]})
            else:
                for r in recs:
                    sys.stdout.write(
                        f"{r.id}  {r.kind:<11} {r.confidence:.2f}  {r.scope:<12} {safe(r.content.strip().splitlines()[0])}\n"
                    )
                info(f"{len(recs)} candidate(s)")
            return
        if json_out:
            raise InvalidInputError("--json is for --list, --accept and --reject; the interactive review is for a person")
        if not recs:
            info("no candidates to review")
            return
        interactive(store, recs)
