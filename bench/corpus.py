"""Generate a realistic synthetic memory store (1k / 10k / 100k records) plus a labelled
retrieval-quality set.

    python bench/corpus.py OUT_DIR N [--seed 7]

Writes canonical record files directly (dump_record; fast), then prints the store path. The
labelled set (bench/quality.py: QUALITY) is planted in scope ``ana``; its ids are written to
OUT_DIR/quality.json as [{"query", "relevant": [ids], "kind": "keyword"|"paraphrase"|"exact"|"buried"}].
``--plant-buried`` adds the long-record family to a store generated before it existed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from mem.format.model.record import dump_record, make_record
from mem.format.rules import ids
from mem.format.store.store import Store

sys.path.insert(0, str(Path(__file__).parent))
from quality import BURIED, EXACT, QUALITY, buried_record

PEOPLE = ["Ana", "Bob", "Carla", "Dmitri", "Eve", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi",
          "Liam", "Mei", "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor"]
PLACES = ["Lisbon", "Porto", "Berlin", "Osaka", "Nairobi", "Toronto", "Lima", "Oslo", "Hanoi",
          "Seville", "Krakow", "Austin", "Dublin", "Cairo", "Melbourne", "Quito"]
TOPICS = ["the quarterly budget", "the database migration", "the onboarding guide", "the API redesign",
          "the marketing launch", "the hiring plan", "the security audit", "the mobile release",
          "the data pipeline", "the customer survey", "the office move", "the pricing page"]
TOOLS = ["vim", "VS Code", "Emacs", "PyCharm", "tmux", "zsh", "fish", "Docker", "Kubernetes",
         "Postgres", "SQLite", "Redis", "Grafana", "Terraform"]
FOODS = ["ramen", "falafel", "sushi", "tacos", "pho", "paella", "dumplings", "curry", "pierogi",
         "ceviche", "croissants", "bibimbap"]
HOBBIES = ["rock climbing", "watercolour painting", "chess", "sourdough baking", "cycling",
           "birdwatching", "pottery", "salsa dancing", "trail running", "woodworking", "knitting"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
EXTRA = [
    "They mentioned it twice during the call.",
    "This came up while we were planning the week.",
    "Worth remembering before the next meeting.",
    "It was said casually, but it seemed important.",
    "Follow up on this in a few weeks.",
    "The details may change later in the year.",
    "Confirmed again in a later conversation.",
    "",
    "",
]

TEMPLATES = [
    ("fact", "{p} lives in {pl} and works remotely for a company based in {pl2}."),
    ("preference", "{p} prefers {tool} over {tool2} for day-to-day work."),
    ("preference", "{p}'s favourite food is {food}, especially from the place near the station."),
    ("event", "Meeting with {p} about {topic} on {day} at {h}:00."),
    ("action_item", "Send {p} the draft of {topic} before {day}."),
    ("fact", "{p} has been practising {hobby} for {n} years."),
    ("note", "{p} said that {topic} is behind schedule because of {topic2}."),
    ("episode", "Talked with {p} about travelling to {pl}; they recommended trying {food} there."),
    ("contact", "{p}'s team lead is {p2}; reach them through the team channel."),
    ("instruction", "When writing to {p}, keep messages short and mention {topic} first."),
    ("summary", "Summary of the week: {topic} progressed, {topic2} is blocked, {p} is on leave {day}."),
    ("fact", "{p} switched from {tool2} to {tool} last {day} and is happier with it."),
]


def sentence(rng: random.Random) -> tuple[str, str]:
    kind, t = rng.choice(TEMPLATES)
    text = t.format(
        p=rng.choice(PEOPLE), p2=rng.choice(PEOPLE), pl=rng.choice(PLACES), pl2=rng.choice(PLACES),
        tool=rng.choice(TOOLS), tool2=rng.choice(TOOLS), food=rng.choice(FOODS),
        topic=rng.choice(TOPICS), topic2=rng.choice(TOPICS), hobby=rng.choice(HOBBIES),
        day=rng.choice(DAYS), h=rng.randint(8, 18), n=rng.randint(1, 20),
    )
    extra = rng.choice(EXTRA)
    return kind, (text + " " + extra).strip()


def generate(out: Path, n: int, seed: int = 7) -> Store:
    store = Store.init(out, actor="bench@bench")
    rng = random.Random(seed)
    base_ms = 1_600_000_000_000
    scopes = ["ana"] * 6 + ["bob"] * 3 + ["project-x"]
    quality_out: list[dict[str, object]] = []
    for i, q in enumerate(QUALITY):
        rec = make_record(id=ids.new_id(base_ms - 10_000 + i), scope="ana", kind="fact",
                          content=q["record"], recorded_at="2024-01-01T00:00:00.000Z",
                          source={"type": "import", "system": "bench"})
        _write(store, rec)
        quality_out.append({"query": q["keyword"], "relevant": [rec.id], "kind": "keyword"})
        quality_out.append({"query": q["paraphrase"], "relevant": [rec.id], "kind": "paraphrase"})
    plant_exact(store, quality_out, base_ms)
    plant_buried(store, quality_out, base_ms)
    for i in range(n - len(QUALITY) - len(EXACT) - len(BURIED)):
        kind, text = sentence(rng)
        ms = base_ms + i * 60_000
        status = "candidate" if rng.random() < 0.1 else "active"
        rec = make_record(
            id=ids.new_id(ms), scope=rng.choice(scopes), kind=kind, content=text, status=status,
            confidence=round(rng.uniform(0.5, 1.0), 2), tags=[rng.choice(["work", "personal", "travel", "food"])],
            recorded_at=ms / 1000.0, source={"type": "import", "system": "bench"},
        )
        _write(store, rec)
    (out / "quality.json").write_text(json.dumps(quality_out, indent=1), "utf-8")
    return store


def plant_exact(store: Store, quality_out: list[dict[str, object]], base_ms: int) -> None:
    """The exact-token part of the labelled set (see quality.EXACT)."""
    for i, q in enumerate(EXACT):
        rec = make_record(id=ids.new_id(base_ms - 20_000 + i), scope="ana", kind="fact",
                          content=q["record"], recorded_at="2024-01-01T00:00:00.000Z",
                          source={"type": "import", "system": "bench"})
        _write(store, rec)
        quality_out.append({"query": q["query"], "relevant": [rec.id], "kind": "exact"})


def plant_buried(store: Store, quality_out: list[dict[str, object]], base_ms: int) -> None:
    """Long records whose detail lies past the embedder's 256-token window (see quality.BURIED)."""
    for i, q in enumerate(BURIED):
        rec = make_record(id=ids.new_id(base_ms - 30_000 + i), scope="ana", kind="episode",
                          content=buried_record(i), recorded_at="2024-01-01T00:00:00.000Z",
                          source={"type": "import", "system": "bench"})
        _write(store, rec)
        quality_out.append({"query": q["query"], "relevant": [rec.id], "kind": "buried"})


def _write(store: Store, rec: object) -> None:
    from mem.format.model.record import Record

    assert isinstance(rec, Record)
    d = store.records_dir / rec.scope
    d.mkdir(exist_ok=True)
    (d / f"{rec.id}.md").write_text(dump_record(rec), "utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--plant-buried", action="store_true",
                    help="only add the BURIED family to an existing corpus store (and its quality.json)")
    a = ap.parse_args()
    if a.plant_buried:
        store = Store.open(a.out)
        qpath = a.out / "quality.json"
        quality_out = []
        for q in json.loads(qpath.read_text("utf-8")):
            if q.get("kind") != "buried":
                quality_out.append(q)
                continue
            for rid in q["relevant"]:  # planted by an earlier run: replaced
                (store.records_dir / "ana" / f"{rid}.md").unlink(missing_ok=True)
        plant_buried(store, quality_out, 1_600_000_000_000)
        qpath.write_text(json.dumps(quality_out, indent=1), "utf-8")
    else:
        generate(a.out, a.n, a.seed)
    print(a.out)


if __name__ == "__main__":
    main()
