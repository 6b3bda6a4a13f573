"""``mem verify``: check a store; exit 0 when valid, 1 when any error is found."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import OPTIONS, emit_json, info

#: Folders that make a directory look like a store even without its declaration (E001).
_STORE_PARTS = ("records", "tombstones", "log")


def locate(path: Path | None) -> Path:
    """The store to verify: PATH, --store, or the store found from the current directory up.

    A directory that has store folders but no declaration is still verified (it yields E001).
    """
    from mem.format.config import DECLARATION_FILE
    from mem.format.errors import StoreNotFoundError
    from mem.format.store import find_store_root

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
        json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Check a store against the format; print one line per finding.

        Exit 0 when valid (warnings allowed), 1 when any error is found. Never modifies the store.
        Codes are listed in spec/validation-codes.md.
        """
        from mem.format.verify import verify_store

        root = locate(path).resolve()
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
