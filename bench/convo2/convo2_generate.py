"""A second, independently written conversational benchmark: chats between two friends.

**A test set only. Never tune a search constant, weight, floor or threshold on it** (nor choose
between rankings by it and then report it as evidence): it exists to check, out of distribution,
whether the ranking fitted on bench/convo's development half holds on chats written another way.
Nothing in it shares bench/convo's fact tables, phrasings or question templates
(bench/convo2/convo2_stories.py and convo2_chatter.py were written from scratch).

What the chats look like: two friends, 15–18 dated sessions days to weeks apart, 12–19 turns a
session, mostly short, lower-case, with fillers ("ok so", "lol"), a typo now and then, greetings
that name the friend, digressions (a reply that comes two or three turns after the question it
answers), references by pronoun ("she sleeps on my keyboard", "the tarts there"), facts said
indirectly ("finally got the keys!!" for a move), dates relative to the session's day ("on
saturday", "two days ago", "last weekend"), facts spread over sessions and changed later (a new
job, a new bedtime drink), and chatter that touches the same topics (a friend's puppy, a show).
Each conversation draws 12 of 18 storylines (convo2_stories.py), each happening to one of the two.

Questions, asked as a third party would ("When did Theo start his new job?"), each with the ids of
the turns that answer it: ``single`` (one fact), ``multi`` (combined from two or three sessions, or
an old value and its replacement), ``temporal`` (the answer is a date, from the session's date and
the turn's relative day), ``preference`` (likes, habits, the current one of a changed habit) and
``unanswerable`` (no evidence; ``trap``: ``absent-topic``, a storyline this conversation never had;
``unstated``, a detail of a storyline it had but never said; ``other-person``, a fact of one
friend asked of the other).

Deterministic (seeded string seeds; standard library only; nothing downloaded).
``python bench/convo2/convo2_generate.py --stats`` prints its size; ``--show c03`` one conversation;
``--out FILE`` the whole set as JSON. Every conversation is in the ``heldout`` split: there is no
development half, because nothing may be fitted on it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "convo"))  # convo_cli: the command line

import convo_cli
from convo2_chatter import EXCHANGES, FILLERS, GOODBYES, GREETINGS, TAILS, fill, typo
from convo2_stories import ABSENT, GAP, STORIES, Ctx, Person, Q, Story

#: Bump whenever the output changes (the runner's cached store is keyed by the data's digest too).
VERSION = "1"
SEED = 4242
CONVERSATIONS = 20
STORIES_PER_CONVERSATION = 12
MAX_ANSWERABLE = 24  # questions with an answer kept per conversation (spread over kinds)
MAX_UNANSWERABLE = 7
SPLIT = "heldout"

NAMES: list[tuple[str, str]] = [
    ("Kasia", "f"), ("Theo", "m"), ("Leonie", "f"), ("Mateo", "m"), ("Priya", "f"), ("Callum", "m"),
    ("Ines", "f"), ("Yusuf", "m"), ("Freya", "f"), ("Arjun", "m"), ("Noor", "f"), ("Emeka", "m"),
    ("Lucia", "f"), ("Diego", "m"), ("Saskia", "f"), ("Finn", "m"), ("Mirela", "f"), ("Bruno", "m"),
    ("Aiko", "f"), ("Ravi", "m"), ("Tamsin", "f"), ("Kofi", "m"), ("Greta", "f"), ("Jae", "m"),
    ("Selin", "f"), ("Owen", "m"), ("Ottilie", "f"), ("Dev", "m"), ("Wren", "f"), ("Samir", "m"),
    ("Clio", "f"), ("Anders", "m"), ("Paloma", "f"), ("Idris", "m"), ("Roisin", "f"), ("Matthias", "m"),
    ("Zofia", "f"), ("Tariq", "m"), ("Esme", "f"), ("Henrik", "m"),
]
PRONOUNS = {"f": ("she", "her", "her"), "m": ("he", "him", "his")}
INTERRUPTIONS = [
    ["hang on, someone's at the door", "np"],
    ["wait one sec, oven timer", "go go"],
    ["also!! did you see {show} got renewed", "YES finally", "ok sorry, where was i"],
    ["brb phone's about to die", "charge it woman/man"],
    ["omg sorry my boss just walked past", "lol act natural"],
    ["ugh one sec, the delivery guy is here", "take your time"],
]


def _norm(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _person(i: int) -> Person:
    name, g = NAMES[i]
    they, them, their = PRONOUNS[g]
    return Person(name, they, them, their)


class _Conversation:
    def __init__(self, seed: int, index: int) -> None:
        self.rng = random.Random(f"convo2/{seed}/{index}")
        self.cid = f"c{index:02d}"
        self.a, self.b = _person(2 * index % len(NAMES)), _person((2 * index + 1) % len(NAMES))
        n = self.rng.randint(15, 18)
        t = dt.datetime(2022, 2, 1) + dt.timedelta(days=self.rng.randrange(700))
        self.dates: list[dt.datetime] = []
        for _ in range(n):
            t += dt.timedelta(days=self.rng.randint(3, 24))
            self.dates.append(t.replace(hour=self.rng.randint(7, 23), minute=self.rng.randrange(60)))
        self.load = [0] * n
        self.style = {p.name: self.rng.choice(["lower", "lower", "plain", "emoji"]) for p in (self.a, self.b)}
        self.seen: set[str] = set()
        self.used: dict[int, set[int]] = {}  # per list of exchanges: the ones used in this conversation

    def choose(self, options: list[list[str]]) -> list[str]:
        """An exchange this conversation has not had yet (all used: any one), as friends repeat
        themselves only so often."""
        used = self.used.setdefault(id(options), set())
        fresh = [i for i in range(len(options)) if i not in used] or list(range(len(options)))
        i = self.rng.choice(fresh)
        used.add(i)
        return options[i]

    def pick(self, k: int) -> list[int]:
        """k distinct sessions in order, from the least loaded ones (spread over the conversation)."""
        n = len(self.load)
        order = sorted(range(n), key=lambda s: (self.load[s], self.rng.random()))
        chosen = sorted(self.rng.sample(order[: max(k, n // 2)], k))
        for s in chosen:
            self.load[s] += 1
        return chosen

    def _style(self, who: Person, text: str) -> str:
        rng = self.rng
        if rng.random() < 0.14:
            text = rng.choice(FILLERS) + text
        if rng.random() < 0.18:
            text = text.rstrip(".") + rng.choice(TAILS)
        if rng.random() < 0.07:
            text = typo(rng, text)
        st = self.style[who.name]
        if st == "lower":
            text = text.lower()
        elif st == "plain":
            text = text[:1].upper() + text[1:]
        elif rng.random() < 0.3:
            text += rng.choice([" 😂", " 🙈", " 💀", " ✨", " 😭"])
        return text

    def _unique(self, who: Person, text: str) -> str:
        """The styled turn, restyled (then given a tail) until no earlier turn of the conversation
        reads the same: mem's importer would otherwise merge the two records."""
        for attempt in range(30):
            out = self._style(who, text)
            if attempt >= 10:
                out = f"{out} {self.rng.choice(['haha', 'lol', 'tbh', 'ngl', 'xx', 'omg', 'ugh', 'ok'])}"
            if attempt >= 20:
                out += "!" * (attempt - 19)
            key = _norm(out)
            if key and key not in self.seen:
                self.seen.add(key)
                return out
        raise RuntimeError(f"no unique form of {text!r}")

    def build(self) -> dict[str, Any]:
        rng = self.rng
        names = rng.sample(sorted(STORIES), STORIES_PER_CONVERSATION)
        subjects = [self.a, self.b] * (STORIES_PER_CONVERSATION // 2)
        rng.shuffle(subjects)
        stories: list[tuple[str, Person, Story]] = []
        for name, subj in zip(names, subjects, strict=True):
            other = self.b if subj is self.a else self.a
            stories.append((name, subj, STORIES[name](Ctx(rng, subj, other, self.dates, self.pick))))
        per_session: dict[int, list[tuple[str, Person, Person, Any]]] = {}
        for name, subj, st in stories:
            other = self.b if subj is self.a else self.a
            for beat in st.beats:
                per_session.setdefault(beat.session, []).append((name, subj, other, beat))
        tag_turns: dict[str, list[str]] = {}
        sessions = []
        for si, when in enumerate(self.dates):
            turns: list[dict[str, str]] = []
            self._session(si, turns, per_session.get(si, []), tag_turns)
            sessions.append({"index": si, "date": when.strftime("%Y-%m-%dT%H:%M:00Z"), "turns": turns})

        answerable: list[dict[str, Any]] = []
        unanswerable: list[dict[str, Any]] = []
        for name, _subj, st in stories:
            for q in st.questions:
                rec = self._question(name, q, tag_turns)
                if rec is not None:
                    (unanswerable if q.kind == "unanswerable" else answerable).append(rec)
        for name in sorted(set(STORIES) - set(names)):
            who = rng.choice([self.a, self.b])
            text = rng.choice(ABSENT[name]).format(n=who.name, p=who.their)
            unanswerable.append({"kind": "unanswerable", "trap": "absent-topic", "question": text,
                                 "answer": "", "evidence": [], "story": name})
        questions = _spread(rng, answerable, MAX_ANSWERABLE) + _spread(rng, unanswerable, MAX_UNANSWERABLE, "trap")
        for i, q in enumerate(questions):
            q["id"] = f"{self.cid}:q{i:02d}"
        return {"id": self.cid, "split": SPLIT, "scope": f"convo2-{self.cid}",
                "speakers": [self.a.name, self.b.name], "sessions": sessions, "questions": questions}

    def _session(self, si: int, turns: list[dict[str, str]], beats: list[tuple[str, Person, Person, Any]],
                 tag_turns: dict[str, list[str]]) -> None:
        """Session ``si``'s turns: a greeting, each beat (a digression before some, an interruption
        at a beat's GAP), chatter up to the session's length, a goodbye."""
        rng = self.rng
        last: list[Person | None] = [None]

        def say(who: Person, text: str, tag: str | None = None) -> None:
            other = self.b if who is self.a else self.a
            text = self._unique(who, fill(rng, text, other.name))
            tid = f"{self.cid}:D{si + 1}:{len(turns) + 1}"
            turns.append({"id": tid, "speaker": who.name, "text": text})
            if tag:
                tag_turns.setdefault(tag, []).append(tid)
            last[0] = who

        def exchange(lines: list[str]) -> None:
            x = (self.b if last[0] is self.a else self.a) if last[0] else rng.choice([self.a, self.b])
            y = self.b if x is self.a else self.a
            for i, line in enumerate(lines):
                say(x if i % 2 == 0 else y, line)

        exchange(self.choose(GREETINGS))
        rng.shuffle(beats)
        target = rng.randint(12, 19)
        for name, subj, other, beat in beats:
            if rng.random() < 0.55:
                exchange(self.choose(EXCHANGES))
            for t in beat.turns:
                if t.who == GAP:
                    lines = self.choose(INTERRUPTIONS)
                    for i, line in enumerate(lines):
                        say(subj if i % 2 == 0 else other, line)
                    continue
                say(subj if t.who == "S" else other, t.text, f"{name}:{t.tag}" if t.tag else None)
        while len(turns) < target - 2:
            exchange(self.choose(EXCHANGES))
        exchange(self.choose(GOODBYES))

    def _question(self, story: str, q: Q, tag_turns: dict[str, list[str]]) -> dict[str, Any] | None:
        ev = [tid for tag in q.tags for tid in tag_turns.get(f"{story}:{tag}", [])]
        if q.kind != "unanswerable" and not ev:
            return None
        rec: dict[str, Any] = {"kind": q.kind, "question": q.text, "answer": q.answer, "evidence": ev,
                               "story": story}
        if q.trap:
            rec["trap"] = q.trap
        return rec


def _spread(rng: random.Random, qs: list[dict[str, Any]], limit: int, key: str = "kind") -> list[dict[str, Any]]:
    """At most ``limit`` questions, taken round-robin over ``key`` so that every kind keeps some."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for q in qs:
        groups.setdefault(str(q.get(key)), []).append(q)
    for g in groups.values():
        rng.shuffle(g)
    out: list[dict[str, Any]] = []
    while len(out) < limit and any(groups.values()):
        for k in sorted(groups):
            if groups[k] and len(out) < limit:
                out.append(groups[k].pop())
    return out


def dataset(seed: int = SEED, conversations: int = CONVERSATIONS) -> dict[str, Any]:
    convs = [_Conversation(seed, i).build() for i in range(conversations)]
    body = json.dumps(convs, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return {"version": VERSION, "seed": seed, "digest": hashlib.sha256(body).hexdigest()[:16],
            "conversations": convs}


def stats(data: dict[str, Any]) -> dict[str, Any]:
    convs = data["conversations"]
    kinds: dict[str, int] = {}
    traps: dict[str, int] = {}
    for c in convs:
        for q in c["questions"]:
            kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
            if "trap" in q:
                traps[q["trap"]] = traps.get(q["trap"], 0) + 1
    return {"version": data["version"], "seed": data["seed"], "digest": data["digest"],
            "conversations": len(convs), "sessions": sum(len(c["sessions"]) for c in convs),
            "min_sessions": min(len(c["sessions"]) for c in convs),
            "turns": sum(len(s["turns"]) for c in convs for s in c["sessions"]),
            "questions": sum(kinds.values()), "kinds": dict(sorted(kinds.items())), "traps": dict(sorted(traps.items()))}


def main(argv: list[str] | None = None) -> int:
    return convo_cli.main(argv, __doc__, dataset, stats, SEED, CONVERSATIONS)


if __name__ == "__main__":
    raise SystemExit(main())
