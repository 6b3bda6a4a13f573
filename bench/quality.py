"""The labelled retrieval set: planted records, a keyword query and a paraphrase for each.

The paraphrase shares no content word with its record (checked by test_quality_set_is_honest in
tests/search/test_bench_quality.py), so lexical search alone cannot find it.
"""

from __future__ import annotations

#: Ten generic questions, not labelled: the repeated queries of the timings (bench/run.py,
#: bench/inproc_ab.py), whose caches are warm after the first round.
GENERIC_QUERIES: list[str] = [
    "where does Ana live", "favourite food", "database migration schedule", "who practises chess",
    "meeting on Friday", "switched editors", "team lead contact", "budget behind schedule",
    "travel recommendation", "keep messages short",
]

QUALITY: list[dict[str, str]] = [
    {"record": "My daughter is allergic to peanuts, so every snack must be checked.",
     "keyword": "daughter peanut allergy", "paraphrase": "which kid cannot eat nuts"},
    {"record": "The car insurance renewal is due at the end of March.",
     "keyword": "car insurance renewal", "paraphrase": "when must I extend the vehicle policy"},
    {"record": "I am learning Portuguese with a tutor twice a week.",
     "keyword": "learning Portuguese tutor", "paraphrase": "language lessons schedule"},
    {"record": "The wifi password at the cabin is written on the fridge.",
     "keyword": "cabin wifi password", "paraphrase": "where do I find the internet key for the holiday hut"},
    {"record": "Grandma's birthday is on the fourth of July; she loves orchids.",
     "keyword": "grandma birthday orchids", "paraphrase": "what flowers to give my grandmother"},
    {"record": "I stopped drinking coffee after noon because it ruins my sleep.",
     "keyword": "coffee after noon sleep", "paraphrase": "caffeine late in the day keeps me awake"},
    {"record": "The dentist said I need a crown on the upper left molar.",
     "keyword": "dentist crown molar", "paraphrase": "tooth treatment planned"},
    {"record": "Our landlord wants to raise the rent by eight percent next year.",
     "keyword": "landlord rent raise", "paraphrase": "apartment payment going up"},
    {"record": "I run five kilometres every Sunday morning along the canal.",
     "keyword": "run Sunday canal", "paraphrase": "weekly jogging routine"},
    {"record": "The cat needs her thyroid pills twice daily with food.",
     "keyword": "cat thyroid pills", "paraphrase": "medication for the kitty"},
    {"record": "I prefer aisle seats on long flights.",
     "keyword": "aisle seats flights", "paraphrase": "where do I like to sit on a plane"},
    {"record": "My passport expires in September, renew it before the Japan trip.",
     "keyword": "passport expires renew", "paraphrase": "travel document validity"},
    {"record": "The boiler makes a banging noise when the heating starts.",
     "keyword": "boiler banging noise heating", "paraphrase": "loud knocking from the furnace"},
    {"record": "I am vegetarian but I still eat fish occasionally.",
     "keyword": "vegetarian eat fish", "paraphrase": "diet restrictions meat"},
    {"record": "Our wedding anniversary dinner is booked at the Italian restaurant.",
     "keyword": "wedding anniversary dinner Italian", "paraphrase": "where are we celebrating our marriage"},
    {"record": "The garage door opener battery died and needs replacing.",
     "keyword": "garage door opener battery", "paraphrase": "remote for the carport stopped working"},
    {"record": "My blood pressure was slightly high at the last checkup.",
     "keyword": "blood pressure checkup", "paraphrase": "hypertension doctor visit result"},
    {"record": "I want to buy a used electric bike under a thousand euros.",
     "keyword": "used electric bike", "paraphrase": "budget e-bicycle purchase"},
    {"record": "The kids' school starts at eight fifteen and pickup is at three.",
     "keyword": "school starts pickup", "paraphrase": "children class hours"},
    {"record": "I am afraid of heights and avoid glass elevators.",
     "keyword": "afraid heights glass elevators", "paraphrase": "phobia of tall places"},
    {"record": "The spare house key is hidden under the blue flower pot.",
     "keyword": "spare house key flower pot", "paraphrase": "where did I stash a backup way to get into the home"},
    {"record": "My brother owes me two hundred euros from the concert tickets.",
     "keyword": "brother owes concert tickets", "paraphrase": "money my sibling has to pay back"},
    {"record": "I get migraines when I skip breakfast.",
     "keyword": "migraines skip breakfast", "paraphrase": "headaches from not eating in the morning"},
    {"record": "The laptop warranty covers accidental damage until 2026.",
     "keyword": "laptop warranty accidental damage", "paraphrase": "computer repair guarantee"},
    {"record": "We are saving for a down payment on a house by the sea.",
     "keyword": "saving down payment house sea", "paraphrase": "putting money aside for a coastal home"},
    {"record": "I like to read science fiction novels before bed.",
     "keyword": "science fiction novels bed", "paraphrase": "favourite books at night"},
    {"record": "The plumber is coming Thursday to fix the leaking kitchen tap.",
     "keyword": "plumber leaking kitchen tap", "paraphrase": "repair of the dripping faucet"},
    {"record": "My manager approved four weeks of parental leave.",
     "keyword": "manager approved parental leave", "paraphrase": "time off for the new baby"},
    {"record": "I am lactose intolerant and use oat milk instead.",
     "keyword": "lactose intolerant oat milk", "paraphrase": "dairy makes me sick"},
    {"record": "The tomato plants on the balcony need water every evening.",
     "keyword": "tomato plants balcony water", "paraphrase": "garden watering chores"},
]

#: Records found by an exact, rare token (codes, numbers, names) — where embeddings are weak.
EXACT: list[dict[str, str]] = [
    {"record": "The locker code at the climbing gym is 4471.", "query": "locker 4471"},
    {"record": "Order ZX-9921 for the standing desk ships next week.", "query": "ZX-9921"},
    {"record": "My frequent flyer number is KL88310452.", "query": "KL88310452"},
    {"record": "The router admin page is at 192.168.7.254.", "query": "192.168.7.254"},
    {"record": "Dr. Okonkwo-Baptiste is the new physiotherapist.", "query": "Okonkwo-Baptiste"},
    {"record": "Ticket INC-20417 tracks the broken badge reader.", "query": "INC-20417"},
    {"record": "The bike frame serial is WTU112C07733.", "query": "WTU112C07733"},
    {"record": "Book club picked Xenogenesis for November.", "query": "Xenogenesis"},
    {"record": "The Wi-Fi network at the studio is called quokka-5g.", "query": "quokka-5g"},
    {"record": "The tax reference for last year is 77-4410-QT.", "query": "77-4410-QT"},
]

#: Long records (journal entries, meeting notes) whose one memorable detail comes after the
#: first 256 tokens, where the default embedder (MiniLM, truncated at 256 tokens) no longer
#: sees it: the case a hybrid search exists for. ``filler`` sentences are joined before the
#: detail (bench/corpus.py: ``buried_record``); the query names the detail.
FILLER: list[str] = [
    "The morning started slowly with coffee on the balcony and a look at the weather forecast.",
    "We went through the inbox together and archived most of the newsletters without reading them.",
    "Traffic on the ring road was heavy again, so the drive took almost forty minutes.",
    "Lunch was leftovers from the weekend, warmed up in the office kitchen.",
    "The afternoon stand-up ran long because everyone wanted to talk about the new seating plan.",
    "I spent an hour cleaning up old files on the laptop and emptying the downloads folder.",
    "There was a short power cut around three, but the lights came back after a few minutes.",
    "The neighbours are renovating their kitchen, so there was drilling most of the day.",
    "In the evening we watched half of a documentary about deep sea creatures and fell asleep.",
    "The grocery delivery arrived late and two items had been replaced with other brands.",
    "A long phone call with the insurance company went nowhere and will have to be repeated.",
    "The printer jammed twice, which seems to happen every time something is urgent.",
    "We talked about maybe repainting the hallway in a lighter colour next spring.",
    "The bus was cancelled, so I walked to the station and caught the later train instead.",
    "Somebody left a box of pastries in the meeting room and they were gone within minutes.",
    "The weekly review covered the same open points as last week with little progress.",
    "It rained on and off all afternoon, which made the walk home rather unpleasant.",
    "I finally replied to the messages that had been waiting since the beginning of the month.",
    "The heating was turned on for the first time this season and the flat smelled of dust.",
    "A colleague shared photos from their holiday and everyone agreed the beach looked amazing.",
    "We postponed the decision about the new sofa until we have measured the living room again.",
    "The laptop needed a long update in the middle of the day, which broke my concentration.",
    "Dinner was a simple pasta with whatever vegetables were left in the fridge.",
    "The evening ended with a short walk around the block and an early night.",
]

BURIED: list[dict[str, str]] = [
    {"detail": "The padlock combination for the storage unit is 7-3-9-1.",
     "query": "storage unit padlock combination"},
    {"detail": "Marguerite from accounting asked to be invited to the vendor negotiation.",
     "query": "Marguerite vendor negotiation"},
    {"detail": "The spare car key is in the left drawer of the hallway cabinet.",
     "query": "spare car key drawer"},
    {"detail": "The landlord's emergency plumber is called Tavares and answers on weekends.",
     "query": "Tavares emergency plumber"},
    {"detail": "My daughter's swimming gala is on the ninth at the municipal pool.",
     "query": "swimming gala municipal pool"},
    {"detail": "The parking permit number for the new office is PX-20931.",
     "query": "parking permit PX-20931"},
    {"detail": "I promised to lend the camping stove to Benedetta for her hiking trip.",
     "query": "lend camping stove Benedetta"},
    {"detail": "The passport photos must be taken without glasses this time.",
     "query": "passport photos without glasses"},
    {"detail": "The gutter cleaner charges ninety euros and comes every October.",
     "query": "gutter cleaner October"},
    {"detail": "The bakery on Rua Augusta makes the almond tart my mother loves.",
     "query": "almond tart bakery Rua Augusta"},
]


def buried_record(i: int) -> str:
    """Record ``i`` of BURIED: eighteen filler sentences (a rotation per record), then the detail."""
    n = len(FILLER)
    filler = [FILLER[(i * 7 + j) % n] for j in range(18)]
    return " ".join(filler) + " " + BURIED[i]["detail"]
