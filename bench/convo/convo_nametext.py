"""The speaker's name in each turn's text ("Ottilie: night!"): this checkout against an older
commit's, and whether the lexical arm should match the prefix (bench/README.md, "The speaker's
name out of the embedded text").

    # before/after, side by side: each set searched by the older commit's mem and by this one's
    nice .venv/bin/python bench/convo/convo_nametext.py --ref c083a81 \\
        --sets convo2,convo2:source,convo2:text,convo:plain
    # the lexical arm with and without the prefix, on bench/convo's development half
    nice .venv/bin/python bench/convo/convo_nametext.py --lexical

A set is ``BENCH:VARIANT``: BENCH ``convo`` (both halves) or ``convo2`` (a test set: never tune on
it); VARIANT ``plain`` (the speaker in the source only), ``source`` ("Name: text" turns, the
speaker in the source too) or ``text`` ("Name: text" turns, no speaker in the source). Each
version has its own cached stores (``MEM_NAMETEXT_CACHE``, default /tmp/mem-nametext-bench:
``base-convo``, ``base-convo2`` for ``--ref``, ``new-convo``, ``new-convo2`` for this checkout),
built by that version's code (its import and its vectors). Each version runs in a process of its
own with its ``src/`` first on ``sys.path`` (the older commit's is exported with ``git archive``);
the benchmark code (the generators, the harness) is this checkout's for both.

``--lexical`` rebuilds, in a copy of this checkout's ``convo:source`` store, the lexical index
from each record's embedded text (the prefix out; rules/embedtext.py) and reads the query terms
a candidate covers from the same text, then searches the development half with both indexes.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CACHE = Path(os.environ.get("MEM_NAMETEXT_CACHE", "/tmp/mem-nametext-bench"))
SETS = ("convo2", "convo2:source", "convo2:text", "convo:plain")


def _load() -> None:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent / "convo2"))


def _variant(s: str) -> tuple[str, str | None]:
    bench, _, var = s.partition(":")
    if bench not in ("convo", "convo2") or var not in ("", "plain", "source", "text"):
        raise SystemExit(f"unknown set {s!r}: BENCH:VARIANT, BENCH convo or convo2, VARIANT plain, source or text")
    return bench, None if var in ("", "plain") else var


def child(label: str, spec: str, modes: list[str], floor: str) -> dict[str, Any]:
    """One set searched by the mem on ``sys.path`` (its stores under ``CACHE/<label>-*``)."""
    os.environ["MEM_CONVO_CACHE"] = str(CACHE / f"{label}-convo")
    os.environ["MEM_CONVO2_CACHE"] = str(CACHE / f"{label}-convo2")
    _load()
    import convo2_run
    import convo_run

    import mem.format

    bench, var = _variant(spec)
    t0 = time.time()
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    prep = (convo2_run.prepare("minilm", with_speaker=var, log=say) if bench == "convo2"
            else convo_run.prepare("minilm", with_speaker=var, log=say))
    min_score = convo_run.default_floor() if floor == "default" else None
    if bench == "convo2":
        m = convo2_run.measure(prep, modes=modes, floor=min_score)
    else:
        m = convo_run.run("minilm", heldout=True, prepared=prep, modes=modes, min_score=min_score)
    m["setup"]["mem"] = str(Path(mem.format.__file__).parent)
    m["setup"]["wall_s"] = round(time.time() - t0, 1)
    return m


def export(ref: str) -> Path:
    """``src/`` and ``format/`` of ``ref``, exported once under ``CACHE``; returns its ``src``."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", ref], check=True, capture_output=True,
                         text=True).stdout.strip()
    into = CACHE / f"ref-{sha[:12]}"
    if not (into / "src").is_dir():
        into.mkdir(parents=True, exist_ok=True)
        archive = into / "ref.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), sha, "src", "format"], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(into)  # our own repository's archive
        archive.unlink()
    return into / "src"


def _run_child(label: str, src: Path | None, spec: str, modes: list[str], floor: str) -> dict[str, Any]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, __file__, "--child", label, "--sets", spec, "--modes", ",".join(modes),
                        "--min-score", floor], env=env, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{label} {spec} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout)  # type: ignore[no-any-return]


def side_by_side(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One result of the two versions' results: each mode as ``<mode> (<label>)``, BM25 once."""
    first = next(iter(runs.values()))
    out: dict[str, Any] = {"setup": dict(first["setup"], embedder=first["setup"]["embedder"])}
    for split in ("dev", "heldout"):
        if split not in first:
            continue
        modes: dict[str, Any] = {"bm25": first[split]["modes"]["bm25"]}
        for mode in first[split]["modes"]:
            if mode == "bm25":
                continue
            for label, m in runs.items():
                modes[f"{mode} ({label})"] = m[split]["modes"][mode]
        out[split] = {"questions": first[split]["questions"], "seconds": first[split]["seconds"], "modes": modes}
    return out


def _tables(m: dict[str, Any]) -> str:
    _load()
    import convo_run

    return convo_run.tables(m)  # (bench/convo2's one split is named "heldout" too)


@contextlib.contextmanager
def lexical_without_prefix() -> Iterator[None]:
    """The lexical index's documents, and the query terms a candidate covers, read from each
    record's embedded text instead of its content (for this measurement only)."""
    from mem.format.index import lexical
    from mem.format.search.candidates import CandidateViews

    doc, cov = lexical.make_doc, CandidateViews._coverage
    lexical.make_doc = lambda rec: doc(rec._replace(content=rec.embedding_text))  # type: ignore[assignment]

    def coverage(self: Any, weights: Any, rec: Any, digest: str) -> float:
        return cov(self, weights, dataclasses.replace(rec, content=rec.embedding_text), digest)

    CandidateViews._coverage = coverage  # type: ignore[method-assign]
    try:
        yield
    finally:
        lexical.make_doc = doc  # type: ignore[assignment]
        CandidateViews._coverage = cov  # type: ignore[method-assign]


def lexical_choice(modes: list[str]) -> dict[str, Any]:
    """bench/convo's development half ("Name: text" turns, speaker in the source), its lexical
    index with the prefix (as mem builds it) and without."""
    os.environ["MEM_CONVO_CACHE"] = str(CACHE / "new-convo")
    _load()
    import convo_run

    from mem.format.index.derived import rebuild
    from mem.format.store.store import Store

    prep = convo_run.prepare("minilm", with_speaker="source", log=lambda m: print(m, file=sys.stderr))
    stripped_root = prep.store_dir.parent / "store-lexical-without-prefix"
    with lexical_without_prefix():
        if not (stripped_root / "ready").exists():
            if stripped_root.exists():
                shutil.rmtree(stripped_root)
            shutil.copytree(prep.store_dir, stripped_root, symlinks=True)
            rebuild(Store.open(stripped_root), lexical=True, vectors=False)
            (stripped_root / "ready").write_text("", "utf-8")
    runs: dict[str, dict[str, Any]] = {}
    runs["prefix in"] = convo_run.run("minilm", prepared=prep, modes=modes)
    with lexical_without_prefix():
        runs["prefix out"] = convo_run.run("minilm", prepared=dataclasses.replace(prep, store_dir=stripped_root),
                                           modes=modes)
    return side_by_side(runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="The speaker's name in each turn's text (module docstring).")
    ap.add_argument("--ref", help="the older commit searched beside this checkout")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated BENCH:VARIANT (module docstring)")
    ap.add_argument("--modes", default="lexical,vector,hybrid")
    ap.add_argument("--min-score", default="none", choices=("none", "default"),
                    help="'default': each mode also under MCP recall's default floor")
    ap.add_argument("--lexical", action="store_true", help="the lexical arm with and without the prefix (dev)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    modes = args.modes.split(",")
    if args.child:
        print(json.dumps(child(args.child, args.sets, modes, args.min_score)))
        return 0
    load = lambda: " ".join(open("/proc/loadavg").read().split()[:3])  # noqa: E731, SIM115
    if args.lexical:
        t0 = time.strftime("%H:%M:%S")
        m = lexical_choice(modes)
        print(json.dumps(m, indent=1) if args.json else
              f"bench/convo dev, 'Name: text' turns, lexical index with/without the prefix "
              f"({t0}-{time.strftime('%H:%M:%S')} UTC, load {load()}){_tables(m)}")
        return 0
    if not args.ref:
        raise SystemExit("--ref COMMIT (or --lexical)")
    src = export(args.ref)
    for spec in args.sets.split(","):
        t0 = time.strftime("%H:%M:%S")
        runs = {"before": _run_child("base", src, spec, modes, args.min_score),
                "after": _run_child("new", None, spec, modes, args.min_score)}
        m = side_by_side(runs)
        if args.json:
            print(json.dumps({"set": spec, "runs": runs}))
            continue
        print(f"\n### {spec}: {args.ref} (before) vs this checkout (after), {t0}-{time.strftime('%H:%M:%S')} "
              f"UTC, load {load()}; built in {runs['before']['setup']['built_seconds']} / "
              f"{runs['after']['setup']['built_seconds']} s (None: cached)")
        print(_tables(m))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
