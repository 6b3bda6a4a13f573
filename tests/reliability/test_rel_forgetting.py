"""Forgetting is complete (issue 19): copies mem keeps outside the records go with the record,
and what mem cannot remove is named. Through the real `mem` executable."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import run_mem

#: The row of the reliability report this file's tests count in (conftest.py).
ATTACK = "attack: forgetting that is complete (drafts, exports, lift lines, emptied tombstones, by session), via `mem`"

SECRET = "Quillfeather"


@pytest.fixture
def sdir(tmp_path: Path) -> Path:
    assert run_mem("init", str(tmp_path / "s")).returncode == 0
    return tmp_path / "s"


def mem(sdir: Path, *args: str, **kw):  # type: ignore[no-untyped-def]
    return run_mem("--store", str(sdir), *args, **kw)


def test_forget_removes_the_draft_of_a_failed_edit(sdir: Path, tmp_path: Path) -> None:
    rid = mem(sdir, "add", f"my codename is {SECRET}", "--scope", "a").stdout.strip()
    breaker = tmp_path / "break.py"
    breaker.write_text("import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
                       "p.write_text(p.read_text().replace('status: active', 'status: bogus'))\n")
    r = mem(sdir, "edit", rid, env={"EDITOR": f"{sys.executable} {breaker}"})
    assert r.returncode == 4 and "draft is kept" in r.stderr
    draft = sdir / ".mem" / "drafts" / f"{rid}.md"
    assert SECRET in draft.read_text("utf-8")
    r = mem(sdir, "forget", "--yes", rid)
    assert r.returncode == 0, r.stderr
    assert not draft.exists()


def _export_lines(sdir: Path) -> list[dict]:  # type: ignore[type-arg]
    r = mem(sdir, "export", "--format", "jsonl")
    assert r.returncode == 0, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines() if x.strip()]


def test_an_imported_lift_line_does_not_unforget(sdir: Path, tmp_path: Path) -> None:
    rid = mem(sdir, "add", f"my codename is {SECRET}", "--scope", "a").stdout.strip()
    assert mem(sdir, "forget", "--yes", rid).returncode == 0
    tomb = json.loads((sdir / "tombstones" / "a.jsonl").read_text("utf-8").splitlines()[0])
    attack = tmp_path / "lift.jsonl"
    attack.write_text(json.dumps({"type": "lift", "scope": "a", "digest": tomb["digest"], "id": rid,
                                  "lifted_at": "2001-01-01T00:00:00.000Z", "reason": "x", "actor": "y"}) + "\n")
    r = mem(sdir, "import", str(attack), "--from", "jsonl", "--json")
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert out["tombstones"]["refused"] == 1 and out["tombstones"]["added"] == 0
    assert "--allow-forgotten" in out["problems"][0]["message"]
    # still forgotten: a plain add of the text is refused
    r = mem(sdir, "add", f"my codename is {SECRET}", "--scope", "a")
    assert r.returncode == 6, r.stderr
    # with the override: imported, dated now, logged
    r = mem(sdir, "import", str(attack), "--from", "jsonl", "--allow-forgotten", "--json")
    assert r.returncode == 0 and r.json()["tombstones"]["added"] == 1, r.stderr
    lift = [json.loads(x) for x in (sdir / "tombstones" / "a.jsonl").read_text("utf-8").splitlines()][-1]
    assert lift["type"] == "lift" and not lift["lifted_at"].startswith("2001")
    assert lift["actor"] == "tester@test" and "--allow-forgotten" in lift["reason"]
    events = mem(sdir, "log", "--json").json()
    assert [e["op"] for e in events][-1] == "lift-tombstone"


def test_an_export_round_trip_keeps_its_lift(sdir: Path, tmp_path: Path) -> None:
    rid = mem(sdir, "add", "weekly sync on mondays", "--scope", "a").stdout.strip()
    assert mem(sdir, "forget", "--yes", rid).returncode == 0
    again = mem(sdir, "add", "weekly sync on mondays", "--scope", "a", "--allow-forgotten", "--reason", "back")
    assert again.returncode == 0, again.stderr
    dump = tmp_path / "all.jsonl"
    dump.write_text("".join(json.dumps(x) + "\n" for x in _export_lines(sdir)), "utf-8")
    other = tmp_path / "o"
    assert run_mem("init", str(other)).returncode == 0
    r = mem(other, "import", str(dump), "--from", "jsonl", "--json")
    assert r.returncode == 0, r.stderr
    assert r.json()["tombstones"] == {"added": 2, "unchanged": 0, "conflict": 0, "invalid": 0, "refused": 0}
    assert mem(other, "verify", "--full").returncode == 0


def test_deleted_tombstones_are_found_and_the_log_still_refuses_the_id(sdir: Path, tmp_path: Path) -> None:
    rid = mem(sdir, "add", f"my codename is {SECRET}", "--scope", "a").stdout.strip()
    old_export = tmp_path / "old.jsonl"
    old_export.write_text("".join(json.dumps(x) + "\n" for x in _export_lines(sdir)), "utf-8")
    assert mem(sdir, "forget", "--yes", rid).returncode == 0
    (sdir / "tombstones" / "a.jsonl").write_text("", "utf-8")  # `: > tombstones/a.jsonl`
    r = mem(sdir, "verify", "--full", "--json")
    assert r.returncode == 1, r.stdout
    codes = {(f["code"], f["path"]) for f in r.json()["findings"]}
    assert ("E209", "tombstones/a.jsonl") in codes
    # the old export does not bring the record back: the log says it was forgotten
    r = mem(sdir, "import", str(old_export), "--from", "jsonl", "--json")
    assert r.json()["counts"]["refused_forgotten"] == 1 and r.json()["counts"]["created"] == 0, r.stdout
    assert not (sdir / "records" / "a" / f"{rid}.md").exists()


def test_add_is_idempotent_for_the_same_content(sdir: Path) -> None:
    first = mem(sdir, "add", "Ana drinks green tea", "--scope", "a")
    assert first.returncode == 0
    rid = first.stdout.strip()
    for variant in ("Ana drinks green tea", "  ana DRINKS   green tea. "):
        r = mem(sdir, "add", variant, "--scope", "a")
        assert r.returncode == 0, r.stderr
        assert r.stdout == rid + "\n"
        assert "already stored" in r.stderr and "nothing added" in r.stderr
    # another scope is another memory; and once an index exists, it answers the question
    assert mem(sdir, "add", "Ana drinks green tea", "--scope", "b").stdout.strip() != rid
    assert mem(sdir, "rebuild", env={"MEM_EMBEDDER": "hashing"}).returncode == 0
    for n in range(3):
        mem(sdir, "add", f"another memory number {n}", "--scope", "a")
    r = mem(sdir, "add", "ana drinks green tea", "--scope", "a", "--json")
    assert r.returncode == 0 and r.json()["id"] == rid
    later = mem(sdir, "add", "another memory number 2!", "--scope", "a")  # in the journal only
    assert later.returncode == 0 and "already stored" in later.stderr
    files = list((sdir / "records" / "a").glob("*.md"))
    assert len(files) == 4
    assert [e["op"] for e in mem(sdir, "log", "--json").json()].count("add") == 5


def test_add_is_idempotent_for_a_record_written_around_mem(sdir: Path, tmp_path: Path) -> None:
    """A record file that came around mem (a git pull, a hand-written file) after the index last
    caught up is found by the idempotence check like one mem wrote: `mem add` of the same content
    reports it and adds nothing, and so does MCP-free `mem add --json`."""
    assert mem(sdir, "add", "an unrelated memory", "--scope", "a").returncode == 0
    assert mem(sdir, "rebuild", env={"MEM_EMBEDDER": "hashing"}).returncode == 0
    other = tmp_path / "other"
    assert run_mem("init", str(other)).returncode == 0
    pulled = run_mem("--store", str(other), "add", "Ana drinks green tea", "--scope", "a").stdout.strip()
    # the file arrives as a git pull would bring it (and its log: the other clone's own file)
    (sdir / "records" / "a" / f"{pulled}.md").write_bytes((other / "records" / "a" / f"{pulled}.md").read_bytes())
    for log in (other / "log").glob("*.jsonl"):
        (sdir / "log" / log.name).write_bytes(log.read_bytes())
    r = mem(sdir, "add", "ana drinks green tea", "--scope", "a")
    assert r.returncode == 0, r.stderr
    assert r.stdout == pulled + "\n" and "already stored" in r.stderr
    # a hand-written file, in a mem add loop whose journal has entries the index has not applied
    assert mem(sdir, "add", "journaled memory", "--scope", "a").returncode == 0
    hand = pulled[:-1] + ("0" if pulled[-1] != "0" else "1")
    text = (sdir / "records" / "a" / f"{pulled}.md").read_text("utf-8")
    digest = "sha256:" + hashlib.sha256(b"Bob rides a red bike\n").hexdigest()
    text = re.sub(r"digest: sha256:[0-9a-f]+", f"digest: {digest}", text.replace(pulled, hand))
    (sdir / "records" / "a" / f"{hand}.md").write_text(text.replace("Ana drinks green tea", "Bob rides a red bike"), "utf-8")
    assert mem(sdir, "show", hand).returncode == 0, "the hand-written record is valid"
    r = mem(sdir, "add", "Bob rides a red bike.", "--scope", "a", "--json")
    assert r.returncode == 0, r.stderr
    assert r.json()["id"] == hand
    assert len(list((sdir / "records" / "a").glob("*.md"))) == 4


def test_a_markdown_export_rerun_removes_the_forgotten_scope_document(sdir: Path, tmp_path: Path) -> None:
    rid = mem(sdir, "add", f"my codename is {SECRET}", "--scope", "secret").stdout.strip()
    mem(sdir, "add", "ordinary memory", "--scope", "a")
    out = tmp_path / "md"
    mine = out / "notes.md"  # not a mem scope document: never touched
    assert mem(sdir, "export", "--format", "markdown", "-o", str(out)).returncode == 0
    mine.write_text("# My notes\n", "utf-8")
    assert SECRET in (out / "secret.md").read_text("utf-8")
    assert mem(sdir, "forget", "--yes", rid).returncode == 0
    r = mem(sdir, "export", "--format", "markdown", "-o", str(out), "--json")
    assert r.returncode == 0, r.stderr
    assert r.json()["removed"] == [str(out / "secret.md")]
    assert sorted(p.name for p in out.iterdir()) == ["_index.md", "a.md", "notes.md"]
    assert all(SECRET not in p.read_text("utf-8") for p in out.iterdir())
    # an export of another scope leaves the other documents alone
    mem(sdir, "add", "b memory", "--scope", "b")
    assert mem(sdir, "export", "--format", "markdown", "-o", str(out), "--scope", "b").returncode == 0
    assert (out / "a.md").exists()


def _jsonl(path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_forget_by_session_transcript_and_whole_scope(sdir: Path, tmp_path: Path) -> None:
    t1 = _jsonl(tmp_path / "t1.jsonl", [
        {"role": "user", "content": "My name is Sam.", "conversation": "monday"},
        {"role": "user", "content": "I am allergic to peanuts.", "conversation": "tuesday"},
    ])
    t2 = _jsonl(tmp_path / "t2.jsonl", [{"role": "user", "content": "I work at Acme.", "conversation": "wed"}])
    for t in (t1, t2):
        r = mem(sdir, "capture", str(t), "--scope", "sam")
        assert r.returncode == 0, r.stderr
    kept = mem(sdir, "add", "typed by hand", "--scope", "sam").stdout.strip()
    other = mem(sdir, "add", "another scope", "--scope", "zed").stdout.strip()

    def contents(scope: str) -> list[str]:
        return sorted(r["content"] for r in mem(sdir, "list", "--scope", scope, "--status", "all", "--json").json())

    before = contents("sam")
    assert len(before) == 4
    # planned like any forget: a dry run lists the records and changes nothing
    r = mem(sdir, "forget", "--source", "monday", "--dry-run")
    assert r.returncode == 0 and "name is Sam" in r.stdout and contents("sam") == before
    assert mem(sdir, "forget", "--source", "monday").returncode == 8  # no --yes off a terminal
    r = mem(sdir, "forget", "--source", "monday", "--yes", "--reason", "forget monday")
    assert r.returncode == 0, r.stderr
    assert not any("Sam" in c for c in contents("sam"))
    # by capture source (the transcript file)
    assert mem(sdir, "forget", "--transcript", str(t2), "--yes").returncode == 0
    assert not any("Acme" in c for c in contents("sam"))
    # the whole scope; other scopes untouched
    assert mem(sdir, "forget", "--scope", "sam", "--all", "--yes").returncode == 0
    assert contents("sam") == [] and mem(sdir, "show", other).returncode == 0
    tombs = [json.loads(x) for x in (sdir / "tombstones" / "sam.jsonl").read_text("utf-8").splitlines()]
    assert len(tombs) == 4 and kept in {t["id"] for t in tombs}
    # a captured memory cannot come back by re-capturing it
    r = mem(sdir, "capture", str(t1), "--scope", "sam", "--rescan")
    assert contents("sam") == []
    # nothing matches: nothing to do; bad combinations are refused
    r = mem(sdir, "forget", "--source", "nobody", "--yes")
    assert r.returncode == 0 and "nothing to forget" in r.stderr
    assert mem(sdir, "forget", "--all", "--yes").returncode == 4
    assert mem(sdir, "forget", other, "--source", "x", "--yes").returncode == 4
    assert mem(sdir, "forget", "--yes").returncode == 4


def test_forget_by_source_matches_every_session_a_record_was_captured_in(sdir: Path, tmp_path: Path) -> None:
    """A record captured in one session and seen again in others (its sightings) is forgotten by
    any of them: `--source` and `--transcript` read every capture, not only the first."""
    first = _jsonl(tmp_path / "first.jsonl", [{"role": "user", "content": "I am allergic to peanuts.",
                                                "conversation": "monday"}])
    again = _jsonl(tmp_path / "again.jsonl", [{"role": "user", "content": "I am allergic to peanuts.",
                                                "conversation": "friday"}])
    for t in (first, again):
        r = mem(sdir, "capture", str(t), "--scope", "sam")
        assert r.returncode == 0, r.stderr
    (rec,) = mem(sdir, "list", "--scope", "sam", "--json").json()
    assert rec["source"]["conversation"] == "monday"
    assert [s["conversation"] for s in rec["source"]["sightings"]] == ["friday"]
    r = mem(sdir, "forget", "--source", "friday", "--dry-run")
    assert r.returncode == 0 and rec["id"] in r.stdout, r.stderr
    r = mem(sdir, "forget", "--transcript", str(again), "--dry-run")
    assert r.returncode == 0 and rec["id"] in r.stdout, r.stderr
    r = mem(sdir, "forget", "--source", "friday", "--yes")
    assert r.returncode == 0, r.stderr
    assert mem(sdir, "list", "--scope", "sam", "--status", "all", "--json").json() == []
    assert rec["id"] in (sdir / "tombstones" / "sam.jsonl").read_text("utf-8")


def test_a_refused_edit_does_not_keep_a_secret_in_its_draft(sdir: Path, tmp_path: Path) -> None:
    """The draft of an edit refused for a secret is deleted (a refused secret is never kept on
    disk); a draft refused for another reason is kept, and so is one whose secret the record
    already held; with --allow-secret the draft of an otherwise bad edit is kept."""
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    rid = mem(sdir, "add", "The wifi network is called BlueHeron", "--scope", "home").stdout.strip()
    draft = sdir / ".mem" / "drafts" / f"{rid}.md"
    editor = tmp_path / "ed.py"

    def edit(*extra: str, new: str, also: str = "") -> object:
        editor.write_text(
            "import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
            f"p.write_text(p.read_text().replace('The wifi network is called BlueHeron', {new!r})"
            f".replace('status: active', 'status: active' + {also!r}))\n")
        return mem(sdir, "edit", rid, *extra, env={"EDITOR": f"{sys.executable} {editor}"})

    r = edit(new=f"the wifi password is {token}")
    assert r.returncode == 4 and "secret" in r.stderr and "draft held a secret and was deleted" in r.stderr
    assert not draft.exists()
    assert all(token not in p.read_bytes().decode("utf-8", "replace") for p in sdir.rglob("*") if p.is_file())
    # a secret in an edit that is refused for another reason (bad YAML) is not kept either
    r = edit(new=f"token {token}", also="\nstatus: [")
    assert r.returncode == 4 and "was deleted" in r.stderr and not draft.exists()
    # refused for something else: the draft is kept, as before
    r = edit(new="The wifi network is called RedHeron", also="x")
    assert r.returncode == 4 and "draft is kept" in r.stderr and draft.exists()
    draft.unlink()
    # allowed secret, bad edit: kept (the user asked to store it)
    r = edit("--allow-secret", new=f"token {token}", also="x")
    assert r.returncode == 4 and "draft is kept" in r.stderr and token in draft.read_text("utf-8")


def test_a_basic_memory_export_rerun_removes_what_it_no_longer_writes(sdir: Path, tmp_path: Path) -> None:
    """Like the markdown export: a re-run into the same folder removes the notes an earlier
    basic-memory export wrote that it no longer writes (a forgotten record's own note, a kind
    note left empty, a forgotten scope's folder), never a file mem did not write."""
    long_secret = f"my codename is {SECRET}\nsecond line"  # several lines: a note of its own
    own = mem(sdir, "add", long_secret, "--scope", "secret").stdout.strip()
    pref = mem(sdir, "add", f"I prefer {SECRET} ink", "--scope", "a", "--kind", "preference").stdout.strip()
    mem(sdir, "add", "ordinary memory", "--scope", "a")
    mem(sdir, "add", "b memory", "--scope", "b")
    out = tmp_path / "bm"
    assert mem(sdir, "export", "--format", "basic-memory", "-o", str(out)).returncode == 0
    assert (out / "secret" / f"{own}.md").exists() and (out / "a" / "preference.md").exists()
    mine = out / "a" / "my-notes.md"  # a user's note in mem's folder: never touched
    mine.write_text("---\ntitle: mine\ntype: note\npermalink: a-preference\n---\nhello\n", "utf-8")
    lookalike = out / "a" / "event.md"  # a note of the user's that looks like a kind note, without mem_scope
    lookalike.write_text("---\ntitle: Events\ntype: note\npermalink: a-event\n---\n- [event] mine\n", "utf-8")
    assert mem(sdir, "forget", "--yes", own, pref).returncode == 0
    # a --scope b export covers only b: a's and secret's notes stay for now
    r = mem(sdir, "export", "--format", "basic-memory", "-o", str(out), "--scope", "b", "--json")
    assert r.returncode == 0 and "removed" not in r.json(), r.stdout
    assert (out / "secret" / f"{own}.md").exists()
    r = mem(sdir, "export", "--format", "basic-memory", "-o", str(out), "--json")
    assert r.returncode == 0, r.stderr
    assert sorted(r.json()["removed"]) == sorted([str(out / "a" / "preference.md"), str(out / "secret" / f"{own}.md")])
    assert not (out / "secret").exists()
    assert sorted(p.name for p in (out / "a").iterdir()) == ["event.md", "my-notes.md", "note.md"]
    assert all(SECRET not in p.read_text("utf-8") for p in out.rglob("*.md"))
    assert (out / "b" / "note.md").exists()


def test_forget_by_source_finds_a_session_beyond_the_kept_sightings(sdir: Path, tmp_path: Path) -> None:
    """`source.sightings` keeps a record's first 20 sightings; the sessions and transcripts of
    later ones are kept by name (`sighting_sessions`, `sighting_transcripts`), so `--source` and
    `--transcript` still find the record by the 22nd session that said it."""
    rows = [{"role": "user", "content": "I am allergic to peanuts.", "conversation": f"day-{n:02d}"} for n in range(22)]
    t = _jsonl(tmp_path / "many.jsonl", rows)
    r = mem(sdir, "capture", str(t), "--scope", "sam")
    assert r.returncode == 0, r.stderr
    late = _jsonl(tmp_path / "late.jsonl", [{"role": "user", "content": "I am allergic to peanuts.",
                                             "conversation": "day-99"}])
    assert mem(sdir, "capture", str(late), "--scope", "sam").returncode == 0
    (rec,) = mem(sdir, "list", "--scope", "sam", "--json").json()
    src = rec["source"]
    assert len(src["sightings"]) == 20 and src["sighting_count"] == 22
    assert src["sighting_sessions"] == ["day-21", "day-99"]
    assert src["sighting_transcripts"] == [str(late)]
    for args in (("--source", "day-21"), ("--source", "day-99"), ("--transcript", str(late))):
        r = mem(sdir, "forget", *args, "--dry-run")
        assert r.returncode == 0 and rec["id"] in r.stdout, (args, r.stderr)
    r = mem(sdir, "capture", str(t), "--scope", "sam", "--rescan")  # read again: nothing new, no count
    assert r.returncode == 0, r.stderr
    (again,) = mem(sdir, "list", "--scope", "sam", "--json").json()
    assert again["source"] == src
