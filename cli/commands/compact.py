"""``mem compact``: drop dead vectors and deleted documents, merge segments, swap atomically."""

from __future__ import annotations

from typing import Annotated

import typer

from mem.cli.common import emit_json, info, open_store, progress


def _size(n: int | None) -> str:
    v = float(n or 0)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if v < 1024 or unit == "GiB":
            return f"{v:.0f} {unit}" if unit == "B" else f"{v:.1f} {unit}"
        v /= 1024
    return f"{v:.1f} GiB"


def register(app: typer.Typer) -> None:
    @app.command("compact")
    def compact(
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Show what would be removed; change nothing.")
        ] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Remove what deletes leave behind: dead vectors, deleted index documents, extra
        segments, stale temporary files and crashed builds. New indexes are built beside the
        old ones and swapped in atomically; nothing live is lost."""
        from mem.format.ops.compact import compact_store

        store = open_store()
        result = compact_store(store, dry_run=dry_run, progress=progress)
        if json_out:
            emit_json(result)
            return
        verb = "would remove" if dry_run else "removed"
        for p in result["temp_files_removed"]:
            info(f"{verb} temporary file {p}")
        for g in result.get("garbage_removed") or []:
            info(f"{verb} index leftover {g}")
        if not result["index"]:
            info("no search index to compact (it is built by the first search or `mem rebuild`)")
            return
        b, a = result["before"], result["after"]
        arrow = "-> would be" if dry_run else "->"

        def segs(n: int | None) -> str:
            return "" if n is None else f", {n} segments"  # unknown before the build

        info(
            f"lexical: {b['lexical']['docs']} docs, {b['lexical']['deleted_docs']} deleted"
            f"{segs(b['lexical']['segments'])} {arrow} {a['lexical']['docs']} docs, "
            f"{a['lexical']['deleted_docs']} deleted{segs(a['lexical']['segments'])}"
        )
        if b["vectors"]["present"]:
            info(
                f"vectors: {b['vectors']['vectors']} rows + {b['vectors']['delta']} delta, "
                f"{b['vectors']['dead']} dead {arrow} {a['vectors']['vectors']} rows + "
                f"{a['vectors']['delta']} delta, {a['vectors']['dead']} dead"
            )
        if a["bytes"] is None:
            info(f"index size: {_size(b['bytes'])} now")
        else:
            info(f"index size: {_size(b['bytes'])} -> {_size(a['bytes'])}")
