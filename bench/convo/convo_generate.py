"""Generate the conversational benchmark: multi-session chats between two people, with questions.

Deterministic (a seed; ``random.Random`` seeded with strings is stable across Python versions),
standard library only, nothing downloaded. ``python bench/convo/convo_generate.py --stats`` prints the
size; ``--out FILE`` writes the whole data set as JSON.

Each conversation: two named speakers, 15-19 sessions a few days to three weeks apart (each with
a date and time), 12-19 turns per session: greetings, small talk, goodbyes, and between them the
*beats* of about fifteen facts (bench/convo/convo_facts.py), some stated once, some in parts across
sessions, some changed later, plus *distractors* that mention the same things without answering.
Questions, each with the ids of the turns that answer it:

- ``single``: one fact, stated once;
- ``multi``: facts from two sessions combined (or an old value and its replacement);
- ``temporal``: "when did ...": the answer is a date that depends on the session's date
  (the turn says "yesterday", "last Saturday");
- ``preference``: a like or dislike, a habit;
- ``unanswerable``: nothing in the conversation answers it (no evidence). ``trap`` says why:
  ``absent-topic`` (a topic never raised) or ``other-speaker`` (the fact is the other person's).
- ``dated``: a question that names the day of an event and not what happened ("What did Sofia
  do on 4 June 2022?", "... on June 4, 2022", "... on 2022-06-04"): its evidence is the turn that
  tells of it, said on that day or days later ("I passed my driving test yesterday!"); added
  in version 2, from a generator of their own, so the turns and the other questions are those of
  version 1.

**Evidence said by the friend** (version 3). In about ``FRIEND_SHARE`` of each conversation's
answerable questions the turn that answers is said by the *other* speaker, about the person the
question names, as real chats have it: a retelling ("A little bird told me: you handed in your
notice ..."), a question whose content is the answer ("Wait, is it true you ... ?"), a
congratulation. The turns are chosen after the conversation is built, by a generator of their own
(seeded per conversation, the same rule on both halves), and rewritten in place (``_friend_turns``):
the turn keeps its id and session, its speaker becomes the friend and its words are the subject's
put in the second person inside the friend's frame; every other turn is version 2's.

**The friend's words in several forms** (version 4). Version 3's friend always spoke to the
subject ("you handed in your notice"); real chats do not: the friend tells it on in the third
person, by name ("Just told my mum about Maya: she handed in her notice"), or echoes it in a
reply with neither "you" nor a name ("omg. handed in notice. Tidewater Health offered the backend
developer position and said yes?!"). Each rewritten turn takes one of ``FRIEND_FORMS``, drawn by a
generator of its own (seeded per conversation, the same rule on both halves); a turn that cannot
be echoed without a first-person object ("me", "us") is told by name instead. The turns chosen
are version 3's (``dataset(forms=("you",))`` gives version 3's turns).

The conversations are split by index: even -> ``dev`` (tune on these), odd -> ``heldout``
(report only; see bench/convo/convo_run.py). ``dataset(extra_dev=N)`` appends N more conversations
to the development half (indices from ``CONVERSATIONS`` on, each generated as any other): a larger
half to fit on, the held-out half the same conversations, byte for byte.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import convo_cli
from convo_chatter import goodbye, greeting, small_talk
from convo_facts import TEMPLATES, Ctx, Fact, Line

#: Bump whenever the output changes. The runner's cached stores are keyed by the digest of the
#: turns alone (``turns_digest``: a store holds the turns, not the questions).
VERSION = "4"
#: The share of each conversation's answerable questions whose evidence turn is said by the
#: friend of the person the question names (version 3; ``_friend_turns``).
FRIEND_SHARE = 0.10
#: The forms of the friend's words (version 4; ``_friend_turns``): to the subject in the second
#: person ("you"), of the subject in the third person by name ("name"), an echo with neither
#: ("bare").
FRIEND_FORMS: tuple[str, ...] = ("you", "name", "bare")
#: Questions of kind ``dated`` per conversation (fewer when it has fewer dated events).
DATED_PER_CONVERSATION = 3
_MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December"]
SEED = 2026
CONVERSATIONS = 24
FACTS_PER_CONVERSATION = 15
SPLITS = ("dev", "heldout")

SPEAKERS: list[tuple[str, str]] = [
    ("Maya", "f"), ("Jonas", "m"), ("Elif", "f"), ("Rohan", "m"), ("Chiara", "f"), ("Ben", "m"),
    ("Ingrid", "f"), ("Tobias", "m"), ("Zainab", "f"), ("Hugo", "m"), ("Marta", "f"), ("Kenji", "m"),
    ("Sofia", "f"), ("Lukas", "m"), ("Niamh", "f"), ("Pablo", "m"), ("Astrid", "f"), ("Omar", "m"),
    ("Beatriz", "f"), ("Felix", "m"), ("Hana", "f"), ("Vikram", "m"), ("Rosa", "f"), ("Nils", "m"),
]
PRONOUNS = {"f": ("she", "her"), "m": ("he", "his")}


def split_of(index: int) -> str:
    return SPLITS[index % 2]


def _norm(text: str) -> str:
    """A strict form for spotting repeats (stricter than mem's own de-duplication)."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _session_dates(rng: random.Random, n: int) -> list[dt.datetime]:
    t = dt.datetime(2022, 1, 3) + dt.timedelta(days=rng.randrange(900))
    out = []
    for _ in range(n):
        t += dt.timedelta(days=rng.randint(2, 21))
        out.append(t.replace(hour=rng.randint(7, 22), minute=rng.choice(range(0, 60, 5))))
    return out


class _Builder:
    """Lays the facts' beats and distractors out over the sessions, with small talk around them."""

    def __init__(self, rng: random.Random, cid: str, a: str, b: str, n_sessions: int) -> None:
        self.rng = rng
        self.cid = cid
        self.a, self.b = a, b
        self.dates = _session_dates(rng, n_sessions)
        self.slots: list[list[tuple[str, Any]]] = [[] for _ in range(n_sessions)]
        self.seen: set[str] = set()

    def place(self, fi: int, fact: Fact, subj: str, other: str) -> None:
        n = len(self.slots)
        sessions = sorted(self.rng.sample(range(n), len(fact.beats)))
        for bi, s in enumerate(sessions):
            self.slots[s].append(("beat", (fi, bi, subj, other)))
        for d in fact.distractors:
            self.slots[self.rng.randrange(n)].append(("lines", [(subj if r == "S" else other, t) for r, t in d]))

    def build(self, facts: list[Fact]) -> tuple[list[dict[str, Any]], dict[tuple[int, str], tuple[int, list[str]]]]:
        """The sessions, and where each beat landed: (fact, key) -> (session, its turn ids)."""
        sessions: list[dict[str, Any]] = []
        where: dict[tuple[int, str], tuple[int, list[str]]] = {}
        for si, items in enumerate(self.slots):
            self.rng.shuffle(items)
            turns: list[dict[str, Any]] = []
            first, second = (self.a, self.b) if self.rng.random() < 0.5 else (self.b, self.a)
            # 8-15 lines of small talk besides the greeting, goodbye and the facts' exchanges
            self._fresh(turns, si, lambda f=first, s=second: greeting(self.rng, f, s))
            gaps = self.rng.randint(8, 15)
            chunks = len(items) + 1
            per = [gaps // chunks + (1 if i < gaps % chunks else 0) for i in range(chunks)]
            for ci in range(chunks):
                budget = per[ci]
                while budget > 0:
                    x, y = (first, second) if self.rng.random() < 0.5 else (second, first)
                    budget -= max(self._fresh(turns, si, lambda x=x, y=y: small_talk(self.rng, x, y)), 1)
                if ci < len(items):
                    what, val = items[ci]
                    if what == "lines":
                        self._add(turns, si, val)
                    else:
                        fi, bi, subj, other = val
                        beat = facts[fi].beats[bi]
                        lines = [(subj if r == "S" else other, t) for r, t in beat.lines]
                        ids = self._add(turns, si, lines, keep_all=True)
                        where[(fi, beat.key)] = (si, ids)
            self._fresh(turns, si, lambda f=first, s=second: goodbye(self.rng, s, f))
            sessions.append({"index": si, "date": self.dates[si].strftime("%Y-%m-%dT%H:%M:00Z"), "turns": turns})
        return sessions, where

    def _fresh(self, turns: list[dict[str, Any]], si: int, make: Callable[[], list[Line]]) -> int:
        """Add an exchange from ``make`` whose lines are all new (ten tries, then what is new)."""
        for _ in range(10):
            lines = make()
            if not any(_norm(" ".join(t.split())) in self.seen for _, t in lines):
                break
        return int(self._add(turns, si, lines))

    def _add(self, turns: list[dict[str, Any]], si: int, lines: list[Line], keep_all: bool = False) -> Any:
        """Append the lines that are new to this conversation; a beat (``keep_all``) gets the
        turn id of each of its lines (None for a repeated, dropped line); else the count added."""
        ids: list[Any] = []
        added = 0
        for speaker, text in lines:
            text = " ".join(text.split())
            key = _norm(text)
            if not key or key in self.seen:
                ids.append(None)
                continue
            self.seen.add(key)
            tid = f"{self.cid}:s{si:02d}:t{len(turns):02d}"
            turns.append({"id": tid, "speaker": speaker, "text": text})
            ids.append(tid)
            added += 1
        return ids if keep_all else added


def conversation(index: int, seed: int = SEED, friend: bool = True,
                 forms: tuple[str, ...] = FRIEND_FORMS, split: str | None = None) -> dict[str, Any]:
    """Conversation ``index`` of the data set of ``seed`` (``friend``: with the friend-spoken
    evidence, in ``forms``; without, the turns of version 2; ``forms=("you",)``: version 3's;
    ``split``: its half, else ``split_of(index)``)."""
    rng = random.Random(f"convo:{seed}:{index}")
    cid = f"c{index:02d}"
    (a, ga), (b, gb) = rng.sample(SPEAKERS, 2)
    gender = {a: ga, b: gb}
    n_sessions = rng.randint(15, 19)
    builder = _Builder(rng, cid, a, b, n_sessions)
    chosen = rng.sample(TEMPLATES, FACTS_PER_CONVERSATION)
    facts: list[Fact] = []
    owners: list[tuple[str, str]] = []
    for fi, tpl in enumerate(chosen):
        subj = rng.choice([a, b])
        other = b if subj == a else a
        he, his = PRONOUNS[gender[subj]]
        fact = tpl(Ctx(rng, subj, other, he, his))
        facts.append(fact)
        owners.append((subj, other))
        builder.place(fi, fact, subj, other)
    sessions, where = builder.build(facts)
    date_of = {s["index"]: dt.date.fromisoformat(s["date"][:10]) for s in sessions}

    questions: list[dict[str, Any]] = []

    def add_q(kind: str, text: str, evidence: list[str], answer: str, trap: str | None = None,
              topic: str | None = None) -> None:
        q: dict[str, Any] = {"id": f"{cid}:q{len(questions):02d}", "kind": kind, "question": text,
                             "answer": answer, "evidence": evidence, "topic": topic}
        if trap is not None:
            q["trap"] = trap
        questions.append(q)

    for fi, fact in enumerate(facts):
        for ask in fact.asks:
            ev: list[str] = []
            for key, line in ask.evidence:
                tid = where[(fi, key)][1][line]
                if tid is None:
                    raise AssertionError(f"{cid}: evidence line {key}:{line} of {fact.topic} was a repeat")
                ev.append(tid)
            answer = ask.answer
            for beat in fact.beats:
                tag = "{date:" + beat.key + "}"
                if tag in answer and beat.when is not None:
                    answer = answer.replace(tag, beat.when(date_of[where[(fi, beat.key)][0]]).isoformat())
            add_q(ask.kind, ask.text, ev, answer, topic=fact.topic)

    # unanswerable: topics never raised, and facts asked of the wrong person
    used = {t.__name__ for t in chosen}
    unused = [t for t in TEMPLATES if t.__name__ not in used]
    qrng = random.Random(f"unanswerable:{seed}:{index}")
    for tpl in qrng.sample(unused, 3):
        subj = qrng.choice([a, b])
        other = b if subj == a else a
        he, his = PRONOUNS[gender[subj]]
        fact = tpl(Ctx(qrng, subj, other, he, his))
        add_q("unanswerable", fact.asks[0].text, [], "not in the conversation", "absent-topic", fact.topic)
    swappable = [fi for fi, f in enumerate(facts) if f.asks[0].kind in ("single", "preference")]
    for fi in qrng.sample(swappable, min(2, len(swappable))):
        subj, other = owners[fi]
        he, his = PRONOUNS[gender[other]]
        tpl = chosen[fi]
        fact = tpl(Ctx(qrng, other, subj, he, his))
        add_q("unanswerable", fact.asks[0].text, [], "not in the conversation", "other-speaker", fact.topic)
    # dated: the day of an event is named, not the event (version 2; a generator of their own)
    drng = random.Random(f"dated:{seed}:{index}")
    events = []
    for fi, fact in enumerate(facts):
        for beat in fact.beats:
            if beat.when is None or (fi, beat.key) not in where:
                continue
            si, tids = where[(fi, beat.key)]
            said = [t for t, (role, _line) in zip(tids, beat.lines, strict=True) if role == "S" and t is not None]
            if said:
                events.append((fi, beat.when(date_of[si]), said[:1]))
    for fi, day, ev in drng.sample(events, min(DATED_PER_CONVERSATION, len(events))):
        subj = owners[fi][0]
        month = _MONTH_NAMES[day.month - 1]
        text = drng.choice([f"What did {subj} do on {day.day} {month} {day.year}?",
                            f"What happened with {subj} on {month} {day.day}, {day.year}?",
                            f"What was {subj} up to on {day.isoformat()}?"])
        add_q("dated", text, ev, facts[fi].topic, topic=facts[fi].topic)
    if friend:
        _friend_turns(sessions, questions, {a: b, b: a}, random.Random(f"friend:{seed}:{index}"),
                      gender=gender, forms=forms, form_rng=random.Random(f"friend-form:{seed}:{index}"))
    return {"id": cid, "split": split or split_of(index), "scope": f"convo-{cid}", "speakers": [a, b],
            "sessions": sessions, "questions": questions}


#: First-person words and what the friend says instead (``second_person``).
_YOU = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "we": "you", "us": "you",
        "our": "your", "ours": "yours", "ourselves": "yourselves", "i'm": "you're", "i've": "you've",
        "i'll": "you'll", "i'd": "you'd", "we're": "you're", "we've": "you've", "we'll": "you'll",
        "we'd": "you'd"}
#: The verb after "I" (now "you") that must agree with "you".
_AGREE = {"am": "are", "was": "were", "wasn't": "weren't"}
#: The friend's frames around the subject's news in the second person: a retelling, a question
#: whose content is the answer, a congratulation, a recap ({x}: the news, no final stop; {X}: the
#: same, capitalized).
FRIEND_FRAMES = [
    "A little bird told me: {x}!",
    "Wait, is it true {x}?",
    "Hold on. {X}? Since when?!",
    "Still can't get over it, {x}. Proud of you.",
    "Let me get this straight: {x}. Incredible.",
    "So {x}? You kept that quiet!",
    "Your message made my day: {x}.",
]
_WORD = re.compile(r"\b[A-Za-z]+(?:'[a-z]+)?\b")


def second_person(text: str) -> str:
    """``text`` (said by someone of themselves, in the first person) as their friend would say it
    to them: I/me/my/we/our -> you/your, "I was" -> "you were"."""

    def swap(m: re.Match[str]) -> str:
        w = m.group(0)
        you = _YOU.get(w.lower())
        if you is None:
            return w
        return you.capitalize() if w[:1].isupper() and w.lower() not in ("i", "i'm", "i've", "i'll", "i'd") else you

    out = _WORD.sub(swap, text)
    out = re.sub(r"\b(you|You) (am|was|wasn't)\b", lambda m: f"{m.group(1)} {_AGREE[m.group(2)]}", out)
    return re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), out)  # "I" began a sentence


#: First-person words and what the friend says of the subject instead, by gender
#: (``third_person``); "we" stays plural.
_THEY = {"we": "they", "us": "them", "our": "their", "ours": "theirs", "ourselves": "themselves",
         "we're": "they're", "we've": "they've", "we'll": "they'll", "we'd": "they'd"}
_SHE = {"f": {"i": "she", "me": "her", "my": "her", "mine": "hers", "myself": "herself", "i'm": "she's",
              "i've": "she's", "i'll": "she'll", "i'd": "she'd"},
        "m": {"i": "he", "me": "him", "my": "his", "mine": "his", "myself": "himself", "i'm": "he's",
              "i've": "he's", "i'll": "he'll", "i'd": "he'd"}}
#: The forms of "I", written with a capital wherever they stand.
_I_FORMS = frozenset(["i", "i'm", "i've", "i'll", "i'd"])
#: A verb after "I" (now "she"/"he") and its third-person singular form.
_THIRD = {"am": "is", "have": "has", "do": "does", "don't": "doesn't", "haven't": "hasn't", "go": "goes",
          "help": "helps", "know": "knows", "sleep": "sleeps", "get": "gets", "feel": "feels", "put": "puts",
          "love": "loves", "hate": "hates", "like": "likes", "cheer": "cheers", "want": "wants",
          "need": "needs", "think": "thinks", "eat": "eats", "make": "makes", "take": "takes",
          "keep": "keeps", "say": "says", "run": "runs", "live": "lives", "work": "works"}
#: Adverbs that may stand between "I" and its verb ("I still cheer").
_ADVERBS = frozenset(["still", "always", "just", "really", "never", "officially", "only", "also", "usually"])
#: The friend's frames around the subject's news in the third person, by name ({n}: the name;
#: {x}: the news, no final stop): the friend tells it on.
NAME_FRAMES = [
    "Just told my mum about {n}: {x}.",
    "Group chat update, {n} edition: {x}!",
    "Bragging about {n} at work again: {x}.",
    "My sister asked what {n} has been up to. Told her {x}.",
    "Big week for {n}: {x}.",
    "Still telling everyone about {n}: {x}!",
]
#: The friend's frames around an echo of the news with neither "you" nor a name ({x}: the news,
#: no final stop; {X}: the same, capitalized).
BARE_FRAMES = [
    "omg. {x}?!",
    "{X}. Wild.",
    "Wait, {x}?",
    "Still laughing at this one: {x}.",
    "{X}... called it!",
    "Big news of the week: {x}!",
]
#: First-person words an echo leaves out (the subject, a possessive); a text with a first-person
#: object ("me", "us") left after that cannot be echoed (``bare_echo``).
_DROP = frozenset(["i", "we", "i'm", "i've", "i'll", "i'd", "we're", "we've", "we'll", "we'd", "my", "our"])
_OBJECT = re.compile(r"\b(me|us|myself|ourselves|mine|ours)\b", re.I)


def third_person(text: str, gender: str) -> str:
    """``text`` (said by someone of themselves) as their friend tells it of them: I/me/my ->
    she/her (he/him/his), we/our -> they/their, a verb after "I" in the present -> its third
    person ("I still cheer" -> "she still cheers"), "I was" stays "she was"."""
    sing = _SHE[gender]
    words = list(_WORD.finditer(text))
    out: list[str] = []
    pos = 0
    agree = False  # the word before (adverbs aside) was "I", now "she"/"he"
    for m in words:
        w = m.group(0)
        low = w.lower()
        out.append(text[pos:m.start()])
        pos = m.end()
        if low in sing:
            new = sing[low]
            agree = low == "i"
        elif low in _THEY:
            new, agree = _THEY[low], False
        elif agree and low in _ADVERBS:
            new = w
        elif agree and low in _THIRD:
            new, agree = _THIRD[low], False
        else:
            new, agree = w, False
        out.append(new.capitalize() if w[:1].isupper() and new != w and low not in _I_FORMS else new)
    out.append(text[pos:])
    said = "".join(out)
    return re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), said)  # "I" began a sentence


def bare_echo(text: str) -> str | None:
    """``text`` (said by someone of themselves) echoed back without a pronoun or a name, as a
    friend replies in a chat: the first-person subject and possessives left out ("I came off my
    bike" -> "came off bike"); None when a first-person object would be left ("surprised me")."""
    kept: list[str] = []
    pos = 0
    for m in _WORD.finditer(text):
        if m.group(0).lower() in _DROP:
            kept.append(text[pos:m.start()])
            pos = m.end()
            while pos < len(text) and text[pos] == " ":
                pos += 1
    kept.append(text[pos:])
    said = " ".join("".join(kept).split())
    said = re.sub(r"\s+([,.!?])", r"\1", said).lstrip(",.;: ")
    if not said or _OBJECT.search(said) or not any(c.isalpha() for c in said):
        return None
    said = re.sub(r"([.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), said)
    if _WORD.match(text) and text.split()[0].lower().strip(",.!?") in _DROP:
        said = said[0].lower() + said[1:]  # the turn began with the pronoun left out
    return said


def _friend_form_text(rng: random.Random, form: str, text: str, name: str, gender: str,
                      seen: set[str]) -> str | None:
    """The friend's turn telling ``text`` of its speaker ``name`` in ``form`` ("name" or "bare"),
    new to the conversation (None: none, or an echo that cannot be had)."""
    if form == "name":
        news = third_person(text, gender).strip().rstrip(".!")
        first = news.split()[0].lower() if news.split() else ""
        x = news[0].lower() + news[1:] if first in {*_SHE[gender].values(), *_THEY.values()} else news
        frames = list(NAME_FRAMES)
    else:
        echo = bare_echo(text)
        if echo is None:
            return None
        x = echo.strip().rstrip(".!")
        frames = list(BARE_FRAMES)
    if not x:
        return None
    rng.shuffle(frames)
    for frame in frames:
        out = frame.replace("{n}", name).replace("{x}", x).replace("{X}", x[0].upper() + x[1:])
        if _norm(out) not in seen:
            return out
    return None


def _friend_text(rng: random.Random, text: str, seen: set[str]) -> str | None:
    """The friend's turn telling ``text`` back to its speaker, new to the conversation (None: none)."""
    news = second_person(text).strip().rstrip(".!")
    if not news:
        return None
    x = news[0].lower() + news[1:] if news.split()[0].lower() in set(_YOU.values()) else news
    frames = list(FRIEND_FRAMES)
    rng.shuffle(frames)
    for frame in frames:
        out = frame.replace("{x}", x).replace("{X}", news[0].upper() + news[1:])
        if _norm(out) not in seen:
            return out
    return None


def _friend_turns(sessions: list[dict[str, Any]], questions: list[dict[str, Any]], other: dict[str, str],
                  rng: random.Random, *, gender: dict[str, str], forms: tuple[str, ...] = FRIEND_FORMS,
                  form_rng: random.Random | None = None) -> None:
    """Rewrite evidence turns in place so that about ``FRIEND_SHARE`` of the answerable
    questions are answered by what the friend said of the person named (version 3). A candidate
    is the one evidence turn the subject said of a single, temporal or preference question (a
    multi question that shares it follows; a ``dated`` question's turn is left as it is), in the
    first person and not speaking to the friend ("you"). Each is said in one of ``forms``, drawn
    from ``form_rng`` (version 4; an echo that cannot be had is told by name): version 3's
    turns are those of ``forms=("you",)``, whose draws from ``rng`` are version 3's."""
    form_rng = form_rng or random.Random(0)
    turns = {t["id"]: t for s in sessions for t in s["turns"]}
    answerable = [q for q in questions if q["evidence"]]
    dated = {e for q in questions if q["kind"] == "dated" for e in q["evidence"]}
    candidates = sorted({q["evidence"][0] for q in answerable
                         if q["kind"] in ("single", "temporal", "preference") and len(q["evidence"]) == 1
                         and q["evidence"][0] not in dated
                         and turns[q["evidence"][0]]["speaker"] in q["question"]
                         and not re.search(r"\byou(r|'re|'ve|'ll|'d)?\b", turns[q["evidence"][0]]["text"], re.I)
                         and re.search(r"\b(i|my|me|we|our|us|i'm|i've)\b", turns[q["evidence"][0]]["text"], re.I)})
    rng.shuffle(candidates)
    want = max(1, round(FRIEND_SHARE * len(answerable)))
    seen = {_norm(t["text"]) for t in turns.values()}
    done = 0
    for tid in candidates:
        if done >= want:
            break
        t = turns[tid]
        form = form_rng.choice(forms) if len(forms) > 1 else forms[0]
        said = None
        if form == "bare":
            said = _friend_form_text(form_rng, "bare", t["text"], t["speaker"], gender[t["speaker"]], seen)
            form = "name" if said is None and "name" in forms else form
        if form == "name":
            said = _friend_form_text(form_rng, "name", t["text"], t["speaker"], gender[t["speaker"]], seen)
        elif form == "you":
            said = _friend_text(rng, t["text"], seen)
        if said is None:
            continue
        seen.add(_norm(said))
        t["speaker"], t["text"] = other[t["speaker"]], said
        done += sum(tid in q["evidence"] for q in answerable)


def dataset(seed: int = SEED, conversations: int = CONVERSATIONS, friend: bool = True,
            forms: tuple[str, ...] = FRIEND_FORMS, extra_dev: int = 0) -> dict[str, Any]:
    """The data set (``friend=False``: without the friend-spoken evidence, for checking that it
    leaves every other turn as it was; ``forms=("you",)``: the friend's words as version 3 had
    them; ``extra_dev``: that many more conversations, all in the development half, after the
    ``conversations``, which are as they are without them)."""
    convs = [conversation(i, seed, friend, forms) for i in range(conversations)]
    convs += [conversation(i, seed, friend, forms, split="dev")
              for i in range(max(conversations, CONVERSATIONS), max(conversations, CONVERSATIONS) + extra_dev)]
    body = json.dumps(convs, sort_keys=True, ensure_ascii=False).encode("utf-8")
    turns = json.dumps([[c["id"], c["sessions"]] for c in convs], sort_keys=True, ensure_ascii=False).encode("utf-8")
    return {"generator": "mem bench/convo", "version": VERSION, "seed": seed,
            "digest": hashlib.sha256(body).hexdigest()[:16],
            "turns_digest": hashlib.sha256(turns).hexdigest()[:16], "conversations": convs}


def import_lines(data: dict[str, Any], split: str | None = None) -> list[dict[str, Any]]:
    """One ``mem import --from jsonl`` object per turn: an ``episode`` in its conversation's
    scope, valid from its session's time, the speaker and the turn id in its source."""
    out = []
    for conv in data["conversations"]:
        if split is not None and conv["split"] != split:
            continue
        for s in conv["sessions"]:
            for t in s["turns"]:
                out.append({
                    "content": t["text"], "kind": "episode", "scope": conv["scope"], "valid_from": s["date"],
                    "source": {"original_id": t["id"], "speaker": t["speaker"],
                               "conversation": conv["id"], "session": s["index"] + 1},
                })
    return out


def stats(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"version": data["version"], "seed": data["seed"], "digest": data["digest"]}
    for split in (None, *SPLITS):
        convs = [c for c in data["conversations"] if split is None or c["split"] == split]
        kinds: dict[str, int] = {}
        for c in convs:
            for q in c["questions"]:
                kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
        out[split or "all"] = {
            "conversations": len(convs),
            "sessions": sum(len(c["sessions"]) for c in convs),
            "min_sessions": min(len(c["sessions"]) for c in convs),
            "turns": sum(len(s["turns"]) for c in convs for s in c["sessions"]),
            "questions": sum(kinds.values()),
            "kinds": dict(sorted(kinds.items())),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    return convo_cli.main(argv, __doc__, dataset, stats, SEED, CONVERSATIONS)


if __name__ == "__main__":
    raise SystemExit(main())
