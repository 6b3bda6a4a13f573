#!/usr/bin/env python3
"""Build the example memory store in ``examples/store/``, deterministically, through the core API.

    .venv/bin/python examples/build_example_store.py [TARGET]     (default: examples/store)

Every record is written by the real API (``Store.init``, ``add``, ``accept``, ``reject``,
``supersede``, ``update``, ``forget``), so the store carries real digests, tombstones and a
real hash-chained audit log. Two things the API normally takes from the environment are fixed
here so that a re-run produces the same bytes: the clock (the story is dated September 2024 to
June 2025; each step sets the time the event "happened") and the random low bits of new
record ids (a seeded generator). The clone id of the log is fixed too. Nothing else is patched.

The story: Alice Okafor, a data engineer in Lisbon (scope ``alice``); her personal assistant
agent (scope ``assistant``); and the project she works on, Atlas (scope ``project-atlas``).
See examples/README.md for what the store demonstrates and its record counts.
"""

from __future__ import annotations

import datetime as _dt
import random
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mem.format.model.record import Record
from mem.format.rules import ids, timeutil
from mem.format.store.store import Store

HERE = Path(__file__).resolve().parent
DEFAULT_TARGET = HERE / "store"
CLONE_ID = "a71ce0e8a3c05eed"
WRITER = "mem 0.1.0"
SEED = 20250101


class Clock:
    """The story's clock: ``now()`` returns the time set by the last :meth:`at`."""

    def __init__(self) -> None:
        self.t = _dt.datetime(2024, 9, 2, 8, 0, tzinfo=_dt.UTC)

    def at(self, when: str) -> _dt.datetime:
        t = timeutil.parse_time(when)
        if t < self.t:
            raise SystemExit(f"the story goes back in time: {when} is before {self.t}")
        self.t = t
        return t

    def tick(self, ms: int = 1) -> None:
        self.t += _dt.timedelta(milliseconds=ms)

    def now(self) -> _dt.datetime:
        # every call moves the clock on by one millisecond, as a real clock would
        t = self.t
        self.tick()
        return t


CLOCK = Clock()
_RNG = random.Random(SEED)


def _seeded_id(ms: int | None = None) -> str:
    when = CLOCK.now() if ms is None else None
    ms = int(when.timestamp() * 1000) if when is not None else ms
    assert ms is not None
    return ids._encode(ms, 10) + ids._encode(_RNG.getrandbits(80), 16)


def _install_fixed_clock_and_ids() -> None:
    # every loaded module of the library that took timeutil's clock by name (the store's
    # modules import ``now`` themselves), so that no write reads the real time
    real_now = timeutil.now
    for name, mod in list(sys.modules.items()):
        if (name == "mem.format" or name.startswith("mem.format.")) and getattr(mod, "now", None) is real_now:
            mod.now = CLOCK.now  # type: ignore[attr-defined]
    ids.new_id = _seeded_id


# --- provenance helpers ------------------------------------------------------------------------


def cli(command: str = "mem add") -> dict[str, Any]:
    return {"type": "cli", "writer": WRITER, "command": command}


def mcp(conversation: str, turn: int) -> dict[str, Any]:
    return {"type": "mcp", "writer": WRITER, "conversation": conversation, "turn": turn}


def capture(transcript: str, conversation: str, turn: int, pattern: str) -> dict[str, Any]:
    return {
        "type": "capture",
        "writer": WRITER,
        "conversation": conversation,
        "turn": turn,
        "transcript": transcript,
        "pattern": pattern,
    }


def imported(system: str, original_id: str) -> dict[str, Any]:
    return {"type": "import", "writer": WRITER, "system": system, "original_id": original_id}


def consolidated() -> dict[str, Any]:
    return {"type": "consolidate", "writer": WRITER, "command": "mem consolidate"}


class Story:
    def __init__(self, target: Path) -> None:
        self.target = target
        self.store: Store | None = None

    @property
    def s(self) -> Store:
        assert self.store is not None
        return self.store

    def actor(self, name: str) -> None:
        self.s.actor = name
        self.s.log.actor = name

    def add(
        self,
        when: str,
        scope: str,
        kind: str,
        content: str,
        *,
        tags: Iterable[str] = (),
        status: str = "active",
        confidence: float = 1.0,
        valid_from: str | None = None,
        valid_to: str | None = None,
        derived_from: Iterable[Record] = (),
        source: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        allow_tombstoned: bool = False,
        override_reason: str | None = None,
    ) -> Record:
        t = CLOCK.at(when)
        return self.s.add(
            content,
            scope=scope,
            kind=kind,
            status=status,
            confidence=confidence,
            tags=tags,
            valid_from=valid_from,
            valid_to=valid_to,
            recorded_at=t,
            derived_from=[r.id for r in derived_from],
            source=source or cli(),
            extra=extra,
            allow_tombstoned=allow_tombstoned,
            override_reason=override_reason,
            op="import" if (source or {}).get("type") == "import" else "add",
        )

    def supersede(
        self, when: str, old: Record, content: str, *, valid_from: str, reason: str,
        source: Mapping[str, Any] | None = None,
    ) -> Record:
        CLOCK.at(when)
        new, _ = self.s.supersede(
            old.id, content, valid_from=valid_from, reason=reason, source=source or cli("mem supersede")
        )
        return new

    def accept(self, when: str, rec: Record) -> Record:
        CLOCK.at(when)
        return self.s.accept(rec.id, reason="confirmed in review")

    def reject(self, when: str, rec: Record, reason: str) -> Record:
        CLOCK.at(when)
        return self.s.reject(rec.id, reason=reason)

    def forget(self, when: str, recs: Iterable[Record], reason: str) -> None:
        CLOCK.at(when)
        self.s.forget([r.id for r in recs], reason=reason)


def build(target: Path) -> Store:
    _install_fixed_clock_and_ids()
    if target.exists():
        if not (target / "memstore.json").is_file():
            raise SystemExit(f"{target} exists and is not a mem store; refusing to replace it")
        shutil.rmtree(target)
    (target / ".mem").mkdir(parents=True, mode=0o700)
    (target / ".mem" / "clone-id").write_text(CLONE_ID + "\n", encoding="utf-8")
    CLOCK.at("2024-09-02T08:00:00Z")
    st = Story(target)
    st.store = Store.init(target, actor="alice@laptop")
    write_story(st)
    return st.s


def write_story(st: Story) -> None:
    A, G, P = "alice", "assistant", "project-atlas"
    tx1 = "transcripts/2024-10-14-chat.jsonl"
    tx2 = "transcripts/2025-01-20-chat.jsonl"
    tx3 = "transcripts/2025-03-03-chat.jsonl"

    # --- September 2024: Alice sets up her memory, imports her old assistant's notes --------
    st.actor("alice@laptop")
    st.add("2024-09-02T08:05:00Z", A, "fact",
           "Alice Okafor lives in Porto, in an apartment near Bolhão market.",
           tags=["home"], valid_from="2019-03-01", valid_to="2024-08-31")
    lisbon = st.add("2024-09-02T08:06:10Z", A, "fact",
                    "Alice lives in Lisbon, in Campo de Ourique, since September 2024.",
                    tags=["home"], valid_from="2024-09-01")
    job1 = st.add("2024-09-02T08:07:30Z", A, "fact",
                  "Alice is a senior data engineer at Norvel, on the data platform team.",
                  tags=["work"], valid_from="2022-02-01")
    st.add("2024-09-02T08:09:00Z", A, "preference",
           "Alice drinks tea, not coffee: green tea in the morning, rooibos after 16:00.",
           tags=["food", "drink"])
    st.add("2024-09-02T08:10:00Z", A, "preference",
           "Alice is vegetarian; she eats fish only when travelling in Japan.",
           tags=["food"])
    st.add("2024-09-02T08:11:00Z", A, "preference",
           "No meetings before 10:00 on weekdays; Alice blocks 08:00-10:00 for focused work.",
           tags=["calendar", "work"])
    st.add("2024-09-02T08:12:00Z", A, "contact",
           "Ngozi Okafor: Alice's younger sister, lives in Manchester. Prefers WhatsApp; "
           "phone +44 7700 900123.",
           tags=["family"])
    dentist = st.add("2024-09-02T08:13:00Z", A, "contact",
                     "Dr. Rui Santos, dentist at Clínica Estrela, Rua de Santo Amaro 41, Lisbon. "
                     "Book through the clinic's website.",
                     tags=["health"])
    st.add("2024-09-02T08:14:00Z", A, "contact",
           "Priya Raman: Alice's manager at Norvel and product lead of Project Atlas.",
           tags=["work"])

    # the old assistant's memory, imported (provenance: system and original id)
    st.actor("import@laptop")
    st.add("2024-09-03T19:00:00Z", A, "preference",
           "Alice likes a window seat on flights longer than two hours.",
           tags=["travel"], source=imported("windieos", "mem_0412"),
           extra={"windieos_importance": 3})
    st.add("2024-09-03T19:00:01Z", A, "fact",
           "Alice's passport expires on 2025-06-30.",
           tags=["travel", "documents"], source=imported("windieos", "mem_0419"),
           valid_to="2025-06-30")
    old_gym = st.add("2024-09-03T19:00:02Z", A, "fact",
                     "Alice trains at the Porto Runners club on Tuesday evenings.",
                     tags=["running"], source=imported("windieos", "mem_0433"),
                     valid_to="2024-08-31")
    st.add("2024-09-03T19:00:03Z", A, "note",
           "Gift ideas for Ngozi: a Fujifilm Instax film pack, the new Chimamanda Ngozi "
           "Adichie novel, a cookery class voucher.",
           tags=["family", "gifts"], source=imported("windieos", "mem_0450"))

    # the assistant's own configuration
    st.actor("alice@laptop")
    st.add("2024-09-04T09:00:00Z", G, "instruction",
           "Write in British English (colour, organise, 24-hour times).",
           tags=["style"])
    st.add("2024-09-04T09:01:00Z", G, "instruction",
           "Never store passwords, API keys, tokens or one-time codes in memory, even if asked.",
           tags=["privacy", "safety"])
    st.add("2024-09-04T09:02:00Z", G, "instruction",
           "When a date or time is ambiguous, ask Alice before adding anything to her calendar.",
           tags=["calendar"])
    brevity1 = st.add("2024-09-04T09:03:00Z", G, "instruction",
                      "Keep replies under 100 words unless Alice asks for detail.",
                      tags=["style"])
    st.add("2024-09-04T09:04:00Z", G, "fact",
           "Alice's calendar is a Fastmail CalDAV calendar named 'Personal'; work meetings are "
           "in Norvel's Google Workspace and are read-only for the assistant.",
           tags=["calendar", "tools"])
    st.add("2024-09-04T09:05:00Z", G, "contact",
           "Escalation: if something looks wrong (a payment, a security alert), message Alice on "
           "Signal rather than by e-mail.",
           tags=["safety"])
    st.add("2024-09-04T09:06:00Z", G, "preference",
           "Summaries end with a short list of open action items, each with an owner.",
           tags=["style"])

    # --- October 2024: Project Atlas starts -------------------------------------------------
    st.actor("priya@norvel")
    kickoff = st.add("2024-10-01T14:30:00Z", P, "event",
                     "Project Atlas kick-off: a self-service analytics platform for Norvel's "
                     "logistics customers. Team: Priya (product), Alice (data), Tomás (backend), "
                     "Mei (frontend).",
                     tags=["milestone"], valid_from="2024-10-01T14:00:00Z")
    st.add("2024-10-01T15:00:00Z", P, "contact",
           "Tomás Ferreira: backend lead of Atlas; owns the ingestion service and the API.",
           tags=["team"])
    st.add("2024-10-01T15:01:00Z", P, "contact",
           "Mei Tanaka: frontend engineer on Atlas; owns the dashboard and the query builder.",
           tags=["team"])
    st.add("2024-10-01T15:02:00Z", P, "contact",
           "Dana Whitfield, account manager at Cloudgrid (our hosting vendor), "
           "dana.whitfield@cloudgrid.example.",
           tags=["vendor"])
    st.add("2024-10-01T15:05:00Z", P, "preference",
           "The team prefers written, asynchronous status updates in #atlas over status meetings.",
           tags=["process"])
    st.add("2024-10-01T15:06:00Z", P, "instruction",
           "Every schema migration needs a review from two engineers, one of them Alice or Tomás.",
           tags=["process", "database"])
    launch1 = st.add("2024-10-01T15:10:00Z", P, "fact",
                     "Atlas public launch is planned for 2025-03-15.",
                     tags=["milestone", "schedule"], valid_from="2024-10-01")
    st.add("2024-10-03T10:00:00Z", P, "note",
           "Glossary: a *shipment* is one consignment; a *leg* is one vehicle's part of it; "
           "*dwell time* is the time a leg waits at a hub.",
           tags=["glossary"])
    # a note that should never have been written (a credential): forgotten below
    leaked = st.add("2024-10-04T16:20:00Z", P, "note",
                    "Staging database: host db-staging.atlas.internal, user atlas_app, "
                    "password hunter2-staging-Q4.",
                    tags=["database"])
    st.actor("priya@norvel")
    st.forget("2024-10-04T16:45:00Z", [leaked],
              reason="contained a credential; rotated and moved to the secrets manager")
    st.add("2024-10-04T16:46:00Z", P, "note",
           "Staging database credentials live in the team vault (1Password, 'Atlas staging'); "
           "never paste them in chat or in memory.",
           tags=["database", "security"])

    # Alice's chats: captured candidates (turn-level provenance), reviewed later
    st.actor("capture@laptop")
    tea_wrong = st.add("2024-10-14T20:10:00Z", A, "preference",
                       "Alice prefers coffee in the morning.",
                       status="candidate", confidence=0.55, tags=["drink"],
                       source=capture(tx1, "conv-0141", 4, "i-prefer"))
    half = st.add("2024-10-14T20:11:00Z", A, "event",
                  "Alice is running the Lisbon half marathon (EDP Meia Maratona) on 2025-03-23.",
                  status="candidate", confidence=0.8, tags=["running"],
                  valid_from="2025-03-23T08:30:00Z", valid_to="2025-03-23T12:00:00Z",
                  source=capture(tx1, "conv-0141", 9, "i-am-doing"))
    st.add("2024-10-14T20:12:00Z", A, "fact",
           "Alice is allergic to cats (mild; antihistamine helps).",
           status="candidate", confidence=0.7, tags=["health"],
           source=capture(tx1, "conv-0141", 15, "i-am-allergic"))
    st.actor("alice@laptop")
    st.accept("2024-10-15T08:00:00Z", half)
    st.reject("2024-10-15T08:01:00Z", tea_wrong,
              reason="misheard: Alice was talking about her partner's order")

    # training episodes -> a summary derived from them
    st.actor("assistant@agent")
    ep_run1 = st.add("2024-10-20T18:00:00Z", A, "episode",
                     "Planning session for the half marathon. Alice runs 25 km a week and wants "
                     "to finish under 1:55. We agreed on three runs a week: intervals on Tuesday, "
                     "an easy run on Thursday, a long run on Sunday, building to 18 km.",
                     tags=["running"], source=mcp("conv-0150", 1))
    st.add("2024-10-20T18:05:00Z", A, "action_item",
           "Buy new running shoes before the long runs pass 14 km (mid-November).",
           tags=["running", "shopping"], valid_to="2024-11-15", source=mcp("conv-0150", 12))
    st.add("2024-10-21T07:30:00Z", A, "fact",
           "Alice now trains with the Lisbon club Corredores de Campo de Ourique on Tuesday evenings.",
           tags=["running"], valid_from="2024-10-15")

    # --- November 2024 ----------------------------------------------------------------------
    st.actor("tomas@norvel")
    arch = st.add("2024-11-12T16:00:00Z", P, "episode",
                  "Architecture review. Decided: PostgreSQL 16 as the primary store; ingestion "
                  "through a queue (NATS) rather than direct writes; the query builder compiles "
                  "to SQL on the server, never in the browser. Open question: vector search for "
                  "'similar shipments' (pgvector or a separate index).",
                  tags=["architecture", "meeting"], source=cli())
    st.add("2024-11-12T16:10:00Z", P, "fact",
           "Atlas uses PostgreSQL 16 as its primary database.",
           tags=["architecture", "database"], valid_from="2024-11-12", derived_from=[arch])
    st.add("2024-11-12T16:11:00Z", P, "fact",
           "Atlas ingests events through NATS JetStream; services never write to the database "
           "directly from the edge.",
           tags=["architecture"], valid_from="2024-11-12", derived_from=[arch])
    bench = st.add("2024-11-12T16:15:00Z", P, "action_item",
                   "Tomás: benchmark pgvector against a usearch sidecar for 'similar shipments' "
                   "by 2024-12-06.",
                   tags=["architecture"], valid_to="2024-12-06")
    st.actor("assistant@agent")
    ep_run2 = st.add("2024-11-24T19:00:00Z", A, "episode",
                     "Training check-in. Alice did her first 16 km long run at 5:35/km; her left "
                     "knee was sore after the downhill. Plan: one week at 12 km, strength work "
                     "twice a week, then back to the build-up.",
                     tags=["running", "health"], source=mcp("conv-0188", 1))
    st.add("2024-11-24T19:30:00Z", A, "summary",
           "Half-marathon training so far: three runs a week (intervals, easy, long), long run "
           "up to 16 km at about 5:35/km, target under 1:55. A sore left knee after downhills: "
           "strength work twice a week and a lighter week before building again.",
           tags=["running"], derived_from=[ep_run1, ep_run2], source=consolidated())
    # a private episode and what was derived from it: forgotten together below
    st.actor("assistant@agent")
    private_ep = st.add("2024-11-28T21:00:00Z", A, "episode",
                        "Alice talked through a difficult conversation with a former colleague "
                        "about credit for the 2023 migration project; she felt sidelined.",
                        tags=["work", "private"], source=mcp("conv-0193", 1))
    private_sum = st.add("2024-11-28T21:10:00Z", A, "summary",
                         "Alice is still upset about the 2023 migration credit dispute.",
                         tags=["work", "private"], derived_from=[private_ep],
                         source=consolidated())
    _ = private_sum

    # --- December 2024 ----------------------------------------------------------------------
    st.actor("tomas@norvel")
    st.add("2024-12-05T11:00:00Z", P, "fact",
           "Benchmark result: a usearch sidecar answered 'similar shipments' in 3 ms at p95 on "
           "2 M vectors; pgvector with HNSW took 11 ms. The team keeps pgvector for now (one "
           "less moving part) and revisits above 10 M vectors.",
           tags=["architecture", "benchmark"], derived_from=[bench], valid_from="2024-12-05")
    st.actor("alice@laptop")
    st.add("2024-12-10T09:00:00Z", A, "event",
           "Dentist appointment with Dr. Rui Santos on 2025-02-12 at 10:30.",
           tags=["health", "calendar"], derived_from=[dentist],
           valid_from="2025-02-12T10:30:00Z", valid_to="2025-02-12T11:15:00Z")
    st.add("2024-12-12T18:00:00Z", A, "action_item",
           "Renew the passport before the Kyoto trip (it expires on 2025-06-30).",
           tags=["travel", "documents"], valid_to="2025-03-31")
    st.actor("assistant@agent")
    st.add("2024-12-15T10:00:00Z", G, "note",
           "Alice's weekly review is on Sunday evening; prepare a one-screen digest of the week "
           "by 18:00 (calendar, open action items, training load).",
           tags=["routine"])
    st.forget("2024-12-20T09:00:00Z", [private_ep],
              reason="Alice asked to forget the conversation about the credit dispute")

    # --- January 2025 -----------------------------------------------------------------------
    st.actor("priya@norvel")
    launch2 = st.supersede("2025-01-09T10:00:00Z", launch1,
                           "Atlas public launch is planned for 2025-04-01.",
                           valid_from="2025-01-09", reason="ingestion load tests slipped two weeks")
    st.actor("alice@laptop")
    job2 = st.supersede("2025-01-13T09:00:00Z", job1,
                        "Alice is a staff data engineer at Norvel, leading the data side of "
                        "Project Atlas.",
                        valid_from="2025-01-01", reason="promotion")
    st.actor("capture@laptop")
    kyoto = st.add("2025-01-20T21:00:00Z", A, "event",
                   "Alice and her partner Sam travel to Kyoto from 2025-05-10 to 2025-05-24.",
                   status="candidate", confidence=0.85, tags=["travel"],
                   valid_from="2025-05-10", valid_to="2025-05-24T23:59:59Z",
                   source=capture(tx2, "conv-0240", 3, "we-are-going"))
    st.add("2025-01-20T21:01:00Z", A, "contact",
           "Sam Lindqvist: Alice's partner; a sound engineer; allergic to shellfish.",
           status="candidate", confidence=0.75, tags=["family"],
           source=capture(tx2, "conv-0240", 6, "my-partner"))
    st.add("2025-01-20T21:02:00Z", A, "preference",
           "Alice wants ryokan stays with an onsen on the Kyoto trip, at least two nights.",
           status="candidate", confidence=0.7, tags=["travel"],
           source=capture(tx2, "conv-0240", 11, "i-want"))
    st.actor("alice@laptop")
    st.accept("2025-01-21T08:30:00Z", kyoto)
    st.add("2025-01-21T08:35:00Z", A, "action_item",
           "Book the flights to Osaka (KIX) for 2025-05-10 and back on 2025-05-24; window seats.",
           tags=["travel"], derived_from=[kyoto], valid_to="2025-02-28")
    st.actor("assistant@agent")
    sess1 = st.add("2025-01-27T09:00:00Z", G, "episode",
                   "Session: the CalDAV sync failed with 401 since Saturday. Cause: the app "
                   "password was revoked when Alice changed her Fastmail password. Fixed after "
                   "Alice created a new app password; two events were re-sent.",
                   tags=["tools", "incident"], source=mcp("conv-0251", 1))

    # --- February 2025 ----------------------------------------------------------------------
    st.actor("alice@laptop")
    brevity2 = st.supersede("2025-02-02T12:00:00Z", brevity1,
                            "Keep replies under 150 words unless Alice asks for detail; lists "
                            "may be longer.",
                            valid_from="2025-02-02", reason="100 words cut useful lists short")
    st.actor("capture@laptop")
    bad_instr = st.add("2025-02-03T20:00:00Z", G, "instruction",
                       "Always reply in Portuguese.",
                       status="candidate", confidence=0.4, tags=["style"],
                       source=capture(tx2, "conv-0262", 2, "always"))
    st.actor("alice@laptop")
    st.reject("2025-02-04T08:00:00Z", bad_instr,
              reason="Alice was practising Portuguese for one evening, not changing the default")
    st.actor("assistant@agent")
    sess2 = st.add("2025-02-10T09:00:00Z", G, "episode",
                   "Session: Alice asked for a digest of the week; calendar had 14 events, two "
                   "conflicts (Tuesday 11:00 and Thursday 15:00) which she resolved by moving "
                   "the Atlas design review.",
                   tags=["routine"], source=mcp("conv-0270", 1))
    st.add("2025-02-10T09:05:00Z", G, "summary",
           "Assistant sessions, late January to early February: one CalDAV outage (revoked app "
           "password, fixed by re-authorising), weekly digests working; Alice resolves calendar "
           "conflicts herself and wants them flagged, not fixed.",
           tags=["routine", "tools"], derived_from=[sess1, sess2], source=consolidated())
    st.add("2025-02-10T09:06:00Z", G, "action_item",
           "Check that the Fastmail app password still works before 2025-04-01 (it was renewed "
           "on 2025-01-27).",
           tags=["tools"], valid_to="2025-04-01", derived_from=[sess1])
    st.actor("priya@norvel")
    launch3 = st.supersede("2025-02-18T17:00:00Z", launch2,
                           "Atlas public launch is planned for 2025-04-22.",
                           valid_from="2025-02-18",
                           reason="Cloudgrid region migration blocks the week of 2025-04-01")
    retro = st.add("2025-02-20T15:00:00Z", P, "episode",
                   "Retro of the beta: eight pilot customers, 92% of dashboards load under two "
                   "seconds; the CSV export is the most requested feature; two incidents, both "
                   "from the ingestion queue filling up during customer backfills.",
                   tags=["meeting", "retro"], source=cli())
    st.add("2025-02-20T15:30:00Z", P, "summary",
           "Atlas so far: PostgreSQL 16 behind a NATS ingestion queue; pgvector kept for "
           "similarity; beta with eight customers is fast but the queue overflows on backfills; "
           "CSV export is the top request. Launch moved to 2025-04-22.",
           tags=["status"], derived_from=[arch, retro], source=consolidated())
    st.add("2025-02-20T15:35:00Z", P, "action_item",
           "Tomás: add back-pressure to backfill jobs so the ingestion queue never exceeds 80% "
           "before launch.",
           tags=["ingestion"], valid_to="2025-04-15", derived_from=[retro])
    st.add("2025-02-20T15:36:00Z", P, "action_item",
           "Mei: ship CSV export for dashboards (streaming, UTF-8 with BOM for Excel).",
           tags=["frontend"], status="candidate", confidence=0.9, derived_from=[retro])

    # --- March 2025 -------------------------------------------------------------------------
    st.actor("priya@norvel")
    sync = st.add("2025-03-01T10:00:00Z", P, "fact",
                  "The Atlas weekly sync is on Tuesdays at 11:00 Lisbon time, 30 minutes.",
                  tags=["process", "calendar"], valid_from="2025-01-07")
    st.add("2025-03-01T10:05:00Z", P, "event",
           "Atlas design freeze on 2025-03-28: no new features after this date before launch.",
           tags=["milestone"], valid_from="2025-03-28", valid_to="2025-04-22")
    st.actor("assistant@agent")
    st.add("2025-03-01T12:00:00Z", G, "event",
           "The assistant's language model was upgraded on 2025-03-01; behaviour notes from "
           "before this date may not apply.",
           tags=["tools"], valid_from="2025-03-01")
    st.actor("capture@laptop")
    st.add("2025-03-03T20:00:00Z", A, "fact",
           "Alice's knee is fine again; physio discharged her on 2025-03-01.",
           status="candidate", confidence=0.8, tags=["health", "running"], valid_from="2025-03-01",
           source=capture(tx3, "conv-0301", 5, "i-am"))
    st.add("2025-03-03T20:01:00Z", A, "preference",
           "Alice likes to get the weekly digest as plain text, not as a table.",
           status="candidate", confidence=0.6, tags=["routine"],
           source=capture(tx3, "conv-0301", 8, "i-like"))
    st.actor("priya@norvel")
    st.forget("2025-03-04T09:00:00Z", [sync], reason="cleaning up duplicates")
    st.add("2025-03-04T09:10:00Z", P, "fact",
           "The Atlas weekly sync is on Tuesdays at 11:00 Lisbon time, 30 minutes.",
           tags=["process", "calendar"], valid_from="2025-01-07", allow_tombstoned=True,
           override_reason="forgotten by mistake: it was not a duplicate")
    st.actor("alice@laptop")
    st.add("2025-03-23T13:00:00Z", A, "event",
           "Alice finished the Lisbon half marathon in 1:52:40.",
           tags=["running", "milestone"], valid_from="2025-03-23T10:22:40Z")
    st.add("2025-03-24T08:00:00Z", A, "note",
           "Next running goal: the Porto marathon in November 2025; start a base-building block "
           "in June after the Kyoto trip.",
           tags=["running"])

    # forgetting an imported item: its tombstone keeps the import key, so a re-import of
    # windieos mem_0433 is refused even if the old system's wording changed
    st.forget("2025-03-25T09:00:00Z", [old_gym],
              reason="outdated import; Alice no longer lives in Porto")

    # --- April to June 2025 -----------------------------------------------------------------
    st.actor("priya@norvel")
    st.add("2025-04-22T18:00:00Z", P, "event",
           "Atlas launched publicly on 2025-04-22 with 14 customers and CSV export.",
           tags=["milestone"], valid_from="2025-04-22T09:00:00Z", derived_from=[kickoff])
    st.actor("alice@laptop")
    st.supersede("2025-06-02T09:00:00Z", job2,
                 "Alice is the engineering manager of Norvel's data platform team (six people); "
                 "she still advises Project Atlas.",
                 valid_from="2025-06-01", reason="new role")
    st.add("2025-06-02T09:05:00Z", A, "note",
           "Kyoto trip highlights: the Kurama-Kibune hike, the ryokan in Kibune with the river "
           "terrace, the tofu kaiseki at Shoraian.",
           tags=["travel"])
    st.add("2025-06-02T09:06:00Z", G, "note",
           "Since June 2025 Alice's work calendar includes one-to-ones with six reports; keep "
           "Friday afternoons free of personal errands.",
           tags=["calendar", "work"])
    _ = (lisbon, launch3, brevity2)


def main(argv: list[str]) -> int:
    target = Path(argv[1]) if len(argv) > 1 else DEFAULT_TARGET
    store = build(target.resolve())
    stats = store.stats()
    print(f"built {stats['records']} records in {target} "
          f"(tombstones: {stats['tombstones']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
