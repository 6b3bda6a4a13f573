"""``mem context``: exact output, what never appears, budgets, byte stability (API and CLI)."""

from __future__ import annotations

import json
import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem.format.base.errors import InvalidInputError
from mem.format.rules.tokens import count_tokens
from mem.format.search.context import ContextArgs, build, omitted_listing
from mem.format.store.store import Store
from tests.conftest import run_mem


def _seed(store: Store) -> dict[str, str]:
    """A store with one memory of each fate; returns name -> id."""
    ids: dict[str, str] = {}
    t = "2026-11-0{}T10:00:00.000Z"
    ids["instr"] = store.add("Always answer in British English.", scope="sam", kind="instruction", recorded_at=t.format(1)).id
    ids["pref"] = store.add("Prefers tea over coffee.", scope="sam", kind="preference", recorded_at=t.format(2)).id
    ids["old"] = store.add("Lives in Lisbon.", scope="sam", kind="fact", recorded_at=t.format(3)).id
    ids["pay"] = store.add("Works on the payments service, written in Go.", scope="sam", kind="fact", recorded_at=t.format(4)).id
    ids["cand"] = store.add("Has a cat named Miso.", scope="sam", kind="fact", status="candidate", confidence=0.9, recorded_at=t.format(5)).id
    ids["rej"] = store.add("Is allergic to cats.", scope="sam", kind="fact", status="candidate", recorded_at=t.format(6)).id
    store.reject(ids["rej"])
    ids["gone"] = store.add("Banks with Northwind.", scope="sam", kind="fact", recorded_at=t.format(7)).id
    store.forget([ids["gone"]], reason="test")
    new, _ = store.supersede(ids["old"], "Lives in Porto.")
    ids["new"] = new.id
    ids["other"] = store.add("Bob likes chess.", scope="bob", kind="fact", recorded_at=t.format(8)).id
    return ids


def test_exact_markdown_and_what_never_appears(store: Store) -> None:
    ids = _seed(store)
    r = run_mem("--store", str(store.root), "context", "--scope", "sam")
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "# Memory\n\n"
        "From mem (scopes: sam): instructions and preferences, then the newest; [kind id] ends each line.\n"
        "\n## Standing instructions\n\n"
        f"- Always answer in British English. [instruction {ids['instr']}]\n"
        "\n## Preferences\n\n"
        f"- Prefers tea over coffee. [preference {ids['pref']}]\n"
        "\n## Other memories\n\n"
        f"- Lives in Porto. [fact {ids['new']}]\n"
        f"- Works on the payments service, written in Go. [fact {ids['pay']}]\n"
        "\n_All 4 memories are included._\n"
    )
    for word in ("Lisbon", "Miso", "allergic", "Northwind", "chess"):
        assert word not in r.stdout  # superseded, candidate, rejected, forgotten, other scope


def test_candidates_only_when_asked_and_marked(store: Store) -> None:
    ids = _seed(store)
    out = build(store, ContextArgs(scopes=("sam",), include_candidates=True)).text
    assert f"- (unreviewed) Has a cat named Miso. [fact {ids['cand']}]\n" in out
    assert "(unreviewed): captured from a conversation, not yet confirmed." in out
    assert "allergic" not in out and "Lisbon" not in out
    doc = json.loads(build(store, ContextArgs(scopes=("sam",), include_candidates=True, fmt="json")).text)
    cand = [m for m in doc["memories"] if m["id"] == ids["cand"]]
    assert cand == [{"id": ids["cand"], "scope": "sam", "kind": "fact", "status": "candidate",
                     "section": "memories", "content": "Has a cat named Miso.", "unreviewed": True}]


def test_query_puts_relevant_memories_after_instructions_and_preferences(store: Store) -> None:
    ids = _seed(store)
    block = build(store, ContextArgs(scopes=("sam",), query="payments service"))
    assert [(i.record.id, i.section) for i in block.included] == [
        (ids["instr"], "instructions"), (ids["pref"], "preferences"),
        (ids["pay"], "relevant"), (ids["new"], "memories"),
    ]
    assert "\n## Relevant to the query\n\n" in block.text


def test_budget_leaves_out_and_says_how_to_list_exactly_those(store: Store) -> None:
    ids = _seed(store)
    full = count_tokens(build(store, ContextArgs(scopes=("sam",))).text)
    budget = full - 20
    r = run_mem("--store", str(store.root), "context", "--scope", "sam", "--budget", str(budget))
    assert r.returncode == 0, r.stderr
    assert count_tokens(r.stdout) <= budget
    last = r.stdout.rstrip("\n").splitlines()[-1]
    left = int(last[1:].split(" ")[0])
    assert last == (f"_{left} of 4 memories left out to stay within {budget} tokens; list them with: "
                    f"`mem context --scope sam --budget {budget} --omitted`_")
    cmd = last.split("`")[1]
    assert cmd == f"mem context --scope sam --budget {budget} --omitted"
    listed = run_mem("--store", str(store.root), *shlex.split(cmd)[1:])
    assert listed.returncode == 0, listed.stderr
    shown = {i for i in ids.values() if i in r.stdout}
    missing = {i for i in (ids["instr"], ids["pref"], ids["new"], ids["pay"]) if i not in shown}
    assert len(missing) == left >= 1 and all(i in listed.stdout for i in missing)
    assert not any(i in listed.stdout for i in shown)


def test_a_bad_scope_is_named(store: Store) -> None:
    r = run_mem("--store", str(store.root), "context", "--scope", "../etc")
    assert r.returncode == 4 and "../etc" in r.stderr and r.stdout == ""


def test_budget_too_small_is_refused_with_its_minimum(store: Store) -> None:
    _seed(store)
    r = run_mem("--store", str(store.root), "context", "--budget", "5")
    assert r.returncode == 4
    assert "--budget 5 is below the smallest block" in r.stderr and r.stdout == ""


def test_same_store_same_bytes_even_after_a_rebuild(store: Store) -> None:
    _seed(store)
    args = ("--store", str(store.root), "context", "--query", "Go payments", "--budget", "400")
    first = run_mem(*args)
    assert first.returncode == 0, first.stderr
    assert run_mem(*args).stdout == first.stdout
    assert run_mem("--store", str(store.root), "rebuild").returncode == 0
    assert run_mem(*args).stdout == first.stdout


WORDS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=80)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    contents=st.lists(st.tuples(WORDS.filter(lambda s: s.strip() != ""),
                                st.sampled_from(["fact", "preference", "instruction", "event"]),
                                st.sampled_from(["active", "candidate"])), min_size=0, max_size=8),
    budget=st.integers(min_value=0, max_value=600),
    fmt=st.sampled_from(["markdown", "json"]),
    cands=st.booleans(),
)
def test_property_never_over_budget_byte_stable_and_complete(
    tmp_path_factory: pytest.TempPathFactory, contents: list[tuple[str, str, str]], budget: int, fmt: str, cands: bool
) -> None:
    store = Store.init(tmp_path_factory.mktemp("ctx") / "store", actor="tester@test")
    for text, kind, status in contents:
        try:
            store.add(text, scope="default", kind=kind, status=status)
        except InvalidInputError:
            continue  # content the store refuses (e.g. only whitespace after normalizing)
    args = ContextArgs(budget=budget, fmt=fmt, include_candidates=cands)
    try:
        block = build(store, args)
    except InvalidInputError as exc:
        assert "below the smallest block" in str(exc)
        return
    assert count_tokens(block.text) <= budget
    assert build(store, args).text == block.text
    live = [r for r in store.iter_records() if r.status == "active" or (cands and r.status == "candidate")]
    assert len(block.included) + len(block.omitted) == len(live)
    if fmt == "json":
        doc = json.loads(block.text)
        assert doc["omitted"] == len(block.omitted) and len(doc["memories"]) == len(block.included)
    else:
        assert block.text.endswith(
            f"_All {len(live)} memories are included._\n" if not block.omitted else "--omitted`_\n"
        )
    listing = omitted_listing(store, args)
    for it in block.omitted:
        assert it.record.id in listing
    for it in block.included:
        assert it.record.id not in listing


def test_budget_counts_with_the_documented_tokenizer() -> None:
    assert count_tokens("") == 0
    assert count_tokens("a memory") == 1 + 2  # 'a' (1), ' ' (0), 'memory' (2)
    assert count_tokens("2026-12-01\n") == 2 + 1 + 1 + 1 + 1 + 1  # 2026 (2) - 12 - 01 newline
    assert count_tokens("东京 é 🙂") == 2 + 2 + 1 + 3
    assert count_tokens("a  b") == 1 + 1 + 1
