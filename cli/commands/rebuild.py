"""``mem rebuild``: rebuild derived indexes from the records alone, swapped in atomically."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mem.cli.common import emit_json, info, open_store, progress


def register(app: typer.Typer) -> None:
    @app.command("rebuild")
    def rebuild(
        lexical: Annotated[bool, typer.Option("--lexical", help="Rebuild the lexical (tantivy) index.")] = False,
        vectors: Annotated[bool, typer.Option("--vectors", help="Re-embed every record into a new vector index.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print what was built as JSON.")] = False,
    ) -> None:
        """Rebuild the search indexes (both unless --lexical or --vectors is given)."""
        from mem.format.base.errors import ExitCode
        from mem.format.index.derived import cleanup_garbage
        from mem.format.index.derived import rebuild as do_rebuild

        if not lexical and not vectors:
            lexical = vectors = True
        store = open_store()
        out: dict[str, object] = {}
        if lexical:
            built = do_rebuild(store, lexical=True, vectors=False, progress=progress)
            out["lexical"] = built.to_dict()["lexical"]
            out["records"] = built.records
            out["skipped"] = built.skipped
            info(f"lexical index rebuilt: {built.records} records")
            for s in built.skipped:
                info(f"skipped (unreadable): {s}")
        if vectors:
            from mem.format.index.backlog import load_bulk_embedder

            emb = load_bulk_embedder(store)
            try:
                built = do_rebuild(store, lexical=False, vectors=True, embedder=emb, progress=progress)
            except KeyboardInterrupt:
                # the new generation is built aside and swapped in whole: nothing of it is kept
                sys.stderr.write("mem: interrupted: the vector index is unchanged (the records embedded so far "
                                 "are not kept); `mem embed` embeds only the records that lack a vector, and "
                                 "keeps what it does when interrupted\n")
                raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
            finally:
                emb.close()
            out["vectors"] = built.to_dict()["vectors"]
            out["records"] = built.records
            out.setdefault("skipped", built.skipped)
            info(f"vector index rebuilt: {built.embedded} records embedded with {emb.space.describe()}")
        cleanup_garbage(store)
        if json_out:
            emit_json(out)
