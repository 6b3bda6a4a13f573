"""``mem verify``: check a store; exit 0 when valid, 1 when any error is found."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from mem.cli.common import OPTIONS, emit_json, info

#: Folders that make a directory look like a store even without its declaration (E001).
_STORE_PARTS = ("records", "tombstones", "log")


def locate(path: Path | None) -> Path:
    """The store to verify: PATH, --store, or the store found from the current directory up.

    A directory that has store folders but no declaration is still verified (it yields E001).
    """
    from mem.format.base.errors import StoreNotFoundError
    from mem.format.rules.config import DECLARATION_FILE
    from mem.format.store.store import find_store_root

    target = path or OPTIONS.store
    if target is None:
        cwd = Path.cwd()
        if not (cwd / DECLARATION_FILE).exists() and any((cwd / p).is_dir() for p in _STORE_PARTS):
            return cwd
        return find_store_root()
    target = target.expanduser()
    if not target.is_dir():
        raise StoreNotFoundError("no such directory", path=target)
    if not (target / DECLARATION_FILE).exists() and not any(
        (target / p).is_dir() for p in _STORE_PARTS
    ):
        raise StoreNotFoundError(
            "not a mem store (no memstore.json, no records/)", path=target, hint="run `mem init` there"
        )
    return target


def register(app: typer.Typer) -> None:
    @app.command("verify")
    def verify(
        path: Annotated[
            Path | None,
            typer.Argument(help="The store to check (default: --store, or found from the current directory)."),
        ] = None,
        full: Annotated[
            bool, typer.Option("--full", help="Also recompute every content digest and check canonical form.")
        ] = False,
        no_index: Annotated[
            bool, typer.Option("--no-index", help="Skip the derived-index checks (E401, W401-W404).")
        ] = False,
        forgotten: Annotated[
            bool, typer.Option("--forgotten", help="Instead: list copies of forgotten records that are still around.")
        ] = False,
        history: Annotated[
            bool, typer.Option("--history", help="With --forgotten: also the git commits that hold them, and how to purge them.")
        ] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Check a store against the format; print one line per finding.

        Exit 0 when valid (warnings allowed), 1 when any error is found. Never modifies the store.
        Codes are listed in spec/validation-codes.md.
        """
        from mem.format.verify.checks import verify_store

        root = locate(path).resolve()
        if forgotten or history:
            _forgotten(root, history, json_out)
            return
        report = verify_store(root, full=full, indexes=not no_index)
        if json_out:
            emit_json(report.to_dict())
        else:
            out = sys.stdout
            for f in report.findings:
                out.write(f.line() + "\n")
            out.flush()
        for code, level in sorted(report.overrides.items()):
            hidden = report.ignored.get(code, 0)
            extra = f" ({hidden} finding{'s' if hidden != 1 else ''} hidden)" if level == "ignore" else ""
            info(f"note: config.toml [verify] severity sets {code} = {level}{extra}")
        c = report.counts()
        what = (
            f"{c['records']} records, {c['tombstones']} tombstones, {c['events']} log events "
            f"({report.level} check)"
        )
        if report.valid:
            tail = f", {c['warnings']} warning(s)" if c["warnings"] else ""
            info(f"valid: {what}{tail}")
        else:
            info(f"invalid: {c['errors']} error(s), {c['warnings']} warning(s) in {what}")
            raise typer.Exit(1)


def _forgotten(root: Path, history: bool, json_out: bool) -> None:
    """``mem verify --forgotten [--history]``: where forgotten records still have copies."""
    from mem.format.store.store import Store

    store = Store.open(root)
    copies: list[dict[str, str]] = []
    tombs = list(store.tombstones)
    for t in tombs:
        for what, p in (("record file", store.records_dir / t.scope / f"{t.id}.md"),
                        ("draft", store.root / ".mem" / "drafts" / f"{t.id}.md")):
            if p.is_file():
                copies.append({"scope": t.scope, "id": t.id, "where": what, "path": str(p.relative_to(store.root))})
    top: Path | None = None
    hits: list[Any] = []
    if history:
        from mem.format.ops.history import forgotten_in_history, purge_command

        top, hits = forgotten_in_history(store)
    out: dict[str, object] = {"forgotten": len(tombs), "copies": copies}
    if history:
        out["git"] = top is not None
        out["history"] = [h.to_dict() for h in hits]
        out["purge"] = purge_command(hits) if hits else None
    if json_out:
        emit_json(out)
    else:
        w = sys.stdout.write
        for c in copies:
            w(f"{c['path']}: forgotten record {c['id']} (scope {c['scope']}): its {c['where']} is still here\n")
        for h in hits:
            for c in h.commits:
                w(f"{h.path}: forgotten record {h.id} (scope {h.scope}) is in git commit "
                  f"{c['commit'][:12]} ({c['date'][:10]}, {c['subject']})\n")
        sys.stdout.flush()
        if history and top is None:
            info("not in a git repository: no history to check")
        if hits:
            info("the git history keeps the text of these records; to purge it (rewrites history):\n"
                 + purge_command(hits))
    if copies or hits:
        info(f"{len(copies) + len(hits)} forgotten record(s) still have copies")
        raise typer.Exit(1)
    info(f"no copies of the {len(tombs)} forgotten record(s) found"
         + (" (records, drafts, git history)" if history and top is not None else " (records, drafts)"))
