"""The example summarizers in examples/summarizers/ keep working with `mem consolidate`."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema

from mem.format.ops.consolidate import Consolidation, Options, parse_answer
from mem.format.store.store import Store
from tests.conftest import run_mem
from tests.consolidate.conftest import Episodes, load_schema

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "summarizers"
EXTRACTIVE = [sys.executable, str(EXAMPLES / "extractive.py")]


def _window(store: Store) -> dict[str, object]:
    with Consolidation(store, Options(mode="plan")) as run:
        (w,) = run.plan()
        return run.window_input(w)


def test_extractive_summarizer_end_to_end(store: Store, episodes: Episodes) -> None:
    episodes(
        "Hi!",
        "I live in Lisbon. The weather is nice today.",
        "My favourite colour is green",
        "I love long train journeys",
        "thanks",
    )
    r = run_mem(
        "--store", str(store.root), "consolidate", "--summarizer", shlex.join(EXTRACTIVE), "--json"
    )
    assert r.returncode == 0, r.stderr
    (res,) = r.json()["results"]
    assert res["outcome"] == "created"
    facts = sorted(store.get(i).content for i in res["facts"])
    assert facts == [
        "The user likes long train journeys\n",
        "The user lives in Lisbon\n",
        "The user's favourite colour is green\n",
    ]


def test_extractive_summarizer_says_none_to_small_talk(store: Store, episodes: Episodes) -> None:
    episodes("hello", "thanks!", "bye")
    out = subprocess.run(
        EXTRACTIVE, input=json.dumps(_window(store)), capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "NONE"


def test_llm_bridge_extracts_the_json_from_a_chatty_model(store: Store, episodes: Episodes) -> None:
    episodes("I moved to Porto last month")
    doc = _window(store)
    jsonschema.validate(doc, load_schema("consolidate-window.schema.json"))
    model = (
        "import sys; p = sys.stdin.read(); assert 'I moved to Porto' in p; "
        'print(\'Sure! Here you go:\\n{"summary": "The user told us about moving to Porto.", '
        '"facts": ["The user lives in Porto"]}\\nHope that helps.\')'
    )
    bridge = [sys.executable, str(EXAMPLES / "llm_cli.py"), "--", sys.executable, "-c", model]
    p = subprocess.run(bridge, input=json.dumps(doc), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    answer = parse_answer(p.stdout.encode("utf-8"), Options(summarizer=["x"]))
    assert [f.content for f in answer.facts] == ["The user lives in Porto"]
    failing = [
        sys.executable,
        str(EXAMPLES / "llm_cli.py"),
        "--",
        sys.executable,
        "-c",
        "print('no')",
    ]
    p = subprocess.run(failing, input=json.dumps(doc), capture_output=True, text=True)
    assert p.returncode == 1 and "neither JSON nor NONE" in p.stderr
