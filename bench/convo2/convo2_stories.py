"""The storylines of the second conversational benchmark (bench/convo2): what happens to a person
over several sessions, told the way friends text it, and the questions a third party would ask.

Written independently of bench/convo (no shared tables, phrasings or question templates). A
storyline is a function of a :class:`Ctx`: it picks the sessions its beats fall in, writes each
beat as a few turns (``S``: the person it happens to, ``O``: the friend; ``GAP``: a digression
goes here, so a reply can come two or three turns after what it answers), tags the turns that
hold an answer, and returns questions that name those tags. Facts are stated indirectly where
friends would ("finally got the keys!!" for a move), turns refer back by pronoun ("she", "it",
"there"), dates are relative to the session's day ("on saturday", "two days ago"), and some facts
change later (a new job, a new bedtime drink).

Each storyline also says what can be asked when it did NOT happen (``absent``) and a detail that
it never states (``unstated``): the unanswerable questions.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass, field

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
GAP = "\x00gap"


@dataclass
class Person:
    name: str
    they: str  # she / he
    them: str  # her / him
    their: str  # her / his


@dataclass
class T:
    who: str  # "S" the storyline's person, "O" the friend, GAP a digression
    text: str
    tag: str | None = None


@dataclass
class Beat:
    session: int
    turns: list[T]


@dataclass
class Q:
    kind: str  # single, multi, temporal, preference, unanswerable
    text: str
    tags: list[str]
    answer: str
    trap: str | None = None


@dataclass
class Story:
    beats: list[Beat] = field(default_factory=list)
    questions: list[Q] = field(default_factory=list)


@dataclass
class Ctx:
    rng: random.Random
    s: Person
    o: Person
    dates: list[dt.datetime]
    pick: Callable[[int], list[int]]  # k distinct sessions, in order, the least loaded first

    def c(self, *options: str) -> str:
        return self.rng.choice(options)


def fmt_day(d: dt.date) -> str:
    return f"{d.day} {d.strftime('%B')} {d.year}"


def rel_past(rng: random.Random, when: dt.datetime) -> tuple[str, str]:
    """A past day said relative to ``when``, and the answer it stands for."""
    d = when.date()
    kind = rng.choice(["yesterday", "days", "weekday", "weekend", "lastweek", "morning", "weekday"])
    if kind == "yesterday":
        return "yesterday", fmt_day(d - dt.timedelta(days=1))
    if kind == "days":
        n = rng.choice([2, 3, 4])
        return f"{['', '', 'two', 'three', 'four'][n]} days ago", fmt_day(d - dt.timedelta(days=n))
    if kind == "morning":
        return "this morning", fmt_day(d)
    if kind == "weekday":
        back = rng.randint(2, 6)
        day = d - dt.timedelta(days=back)
        return f"on {WEEKDAYS[day.weekday()]}", fmt_day(day)
    if kind == "weekend":
        sat = d - dt.timedelta(days=(d.weekday() - 5) % 7 or 7)
        if sat >= d - dt.timedelta(days=1):
            sat -= dt.timedelta(days=7)
        return "last weekend", f"the weekend of {fmt_day(sat)}"
    mon = d - dt.timedelta(days=d.weekday() + 7)
    return "last week", f"the week of {fmt_day(mon)}"


def season(d: dt.date) -> str:
    return ["winter", "winter", "spring", "spring", "spring", "summer", "summer", "summer", "autumn", "autumn",
            "autumn", "winter"][d.month - 1]


# ---------------------------------------------------------------------------------------------
# storylines


def pet(c: Ctx) -> Story:
    s, o = c.s, c.o
    animal, kinds = c.rng.choice([("cat", ["tabby", "black", "ginger", "tortoiseshell"]),
                                  ("dog", ["greyhound", "terrier mix", "beagle", "collie cross"]),
                                  ("rabbit", ["lop-eared", "grey", "dwarf"])])
    breed = c.rng.choice(kinds)
    pname = c.rng.choice(["Pickle", "Biscuit", "Mochi", "Fennel", "Waffles", "Juniper", "Pesto", "Olive", "Noodle"])
    age = c.rng.choice(["two", "three", "four", "six"])
    spot = c.rng.choice(["on my laptop keyboard", "in the laundry basket", "on top of the fridge",
                         "in the bathroom sink", "on the radiator shelf"])
    a, b = c.pick(2)
    when, answer = rel_past(c.rng, c.dates[a])
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"sooo we have a new flatmate 🐾 picked {pname.lower()} up from the shelter {when}",
                   f"guess who came home with a tiny furry roommate {when}... {pname.lower()}!! from the rescue place",
                   f"ok i did a thing {when}. went to the shelter 'just to look'. came back with {pname}"), "adopt"),
        T("O", c.c("WAIT. cat or dog or what??", f"omg {s.name.lower()} no you didn't. what is it",
                   "hold on what kind of animal are we talking")),
        T("S", c.c(f"a {breed} {animal}! {age} years old and very shy, {s.they} says with great authority",
                   f"{animal}!! {breed}, {age} years old, hides behind the sofa a lot",
                   f"a {animal} obviously. {breed}. {age}. i'm in love"), "kind"),
        T("O", c.c("send pics immediately", "photos or it didn't happen", "i need to meet this creature")),
    ]))
    st.beats.append(Beat(b, [
        T("O", c.c("how's the little one settling in?", f"how is {pname} doing, still hiding?", "hows the furball")),
        GAP_T(),
        T("S", c.c(f"oh and re your question - she's totally fine now lol, sleeps {spot} every time i try to work",
                   f"sorry, back - yeah doing great, {spot} is apparently her bed now",
                   f"much better! she's claimed {spot}, i've lost that spot forever"), "spot"),
    ]))
    st.questions += [
        Q("single", c.c(f"What kind of pet did {s.name} adopt?", f"What animal did {s.name} get from the shelter?"),
          ["kind"], f"a {breed} {animal}"),
        Q("single", f"What did {s.name} name {s.their} {animal}?", ["adopt"], pname),
        Q("temporal", c.c(f"When did {s.name} adopt {pname}?", f"When did {s.name} bring {s.their} {animal} home?"),
          ["adopt"], answer),
        Q("preference", c.c(f"Where does {s.name}'s {animal} like to sleep?", f"What is {pname}'s favourite spot?"),
          ["spot"], spot),
        Q("single", f"What did {s.name} adopt in {season(c.dates[a].date())} {c.dates[a].year}?", ["adopt", "kind"],
          f"a {animal}"),
        Q("unanswerable", f"What did {s.name} have to pay the shelter for {pname}?", [], "", "unstated"),
        Q("unanswerable", f"What is the name of {o.name}'s {animal}?", [], "", "other-person"),
    ]
    return st


def move(c: Ctx) -> Story:
    s = c.s
    area = c.rng.choice(["Leith", "Kreuzberg", "Clapton", "Ostend", "Gràcia", "Neukölln", "Stokes Croft", "Jordaan"])
    old = c.rng.choice(["the damp place on Elm Row", "the shoebox above the kebab shop", "my sister's spare room"])
    broken = c.rng.choice(["the boiler", "the shower", "the oven door", "the bedroom radiator", "the intercom"])
    a, b = c.pick(2)
    when, answer = rel_past(c.rng, c.dates[a])
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"finally got the keys!!! 🔑 {when}", f"it's official, we got the keys {when}. goodbye {old}",
                   f"KEYS. IN. HAND. picked them up {when}"), "keys"),
        T("O", c.c("to the new place?? congrats!!", "ahh finally! where is it again?", "omg yay. where did you end up")),
        T("S", c.c(f"{area}! top floor, no lift, my calves are going to be incredible",
                   f"{area}, ten mins from the water, tiny kitchen but who cares",
                   f"yeah in {area}. it's tiny but it's ours"), "area"),
    ]))
    st.beats.append(Beat(b, [
        T("S", c.c(f"landlord update: {broken} has died AGAIN and he's ignoring my texts",
                   f"day 3 without {broken} working. i'm losing it",
                   f"so {broken} in the new place just stopped working. third time this month"), "broken"),
        T("O", c.c("ugh landlords. document everything", "that's so grim, can you withhold rent or smth",
                   "noooo. have you called someone?")),
    ]))
    st.questions += [
        Q("single", c.c(f"Which neighbourhood did {s.name} move to?", f"Where is {s.name}'s new flat?"),
          ["area"], area),
        Q("temporal", c.c(f"When did {s.name} get the keys to {s.their} new flat?", f"When did {s.name} move?"),
          ["keys"], answer),
        Q("single", f"What keeps breaking in {s.name}'s new flat?", ["broken"], broken),
        Q("unanswerable", f"How much rent does {s.name} pay for the flat in {area}?", [], "", "unstated"),
    ]
    return st


def job(c: Ctx) -> Story:
    s = c.s
    co1, co2 = c.rng.sample(["Brightwell Insurance", "Kestrel Logistics", "Norra Health", "Papercut Studio",
                             "Halden Bank", "Orbital Foods", "Tidewater Games", "Lumen Analytics"], 2)
    role = c.rng.choice(["data analyst", "product designer", "backend developer", "account manager", "copywriter"])
    a, b, d = c.pick(3)
    start = c.dates[b].date() + dt.timedelta(days=7 - c.dates[b].weekday() + 7)  # a monday, ~2 weeks on
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"another 8am standup at {co1}, i swear they think we all live in singapore",
                   f"{co1} has decided we need a 'culture committee'. i am being volunteered",
                   f"my manager at {co1} just scheduled a meeting about meetings. i wish i was joking"), "old"),
        T("O", c.c("corporate life", "lmaooo", "just quit and become a goat farmer")),
    ]))
    st.beats.append(Beat(b, [
        T("O", c.c("any news on the thing you applied for?", "did you hear back from the interview??")),
        GAP_T(),
        T("S", c.c(f"ok so re the interview - they offered!!! i'm going to {co2}, {role}, way better team",
                   f"back. and YES. got it. {co2} wants me as a {role}. i handed my notice in today",
                   f"sorry was on the phone. it was THEM. {co2} offered me the {role} job"), "new"),
        T("S", c.c(f"first day is monday the {start.day}{_th(start.day)}, feels unreal",
                   f"i start on the {start.day}{_th(start.day)} of {start.strftime('%B').lower()}",
                   f"start date is {start.strftime('%B').lower()} {start.day}, two weeks notice and then freedom"),
          "start"),
    ]))
    st.beats.append(Beat(d, [
        T("S", c.c("first week at the new place done. everyone is lovely, the coffee machine is a war crime",
                   "new job update: people nice, laptop ancient, i already have a lunch buddy",
                   "so far so good at the new gig! no 8am standups 🙏"), "settled"),
        T("O", c.c("so glad it's going well", "told you it'd be better", "yay!! proud of you")),
    ]))
    st.questions += [
        Q("multi", c.c(f"Where did {s.name} work before {co2}?", f"Which company did {s.name} leave, and for which?"),
          ["old", "new"], f"{co1}, then {co2}"),
        Q("single", c.c(f"What job was {s.name} offered at {co2}?", f"What is {s.name}'s new role?"),
          ["new"], role),
        Q("temporal", c.c(f"When did {s.name} start {s.their} new job?", f"When was {s.name}'s first day at {co2}?"),
          ["start"], fmt_day(start)),
        Q("multi", f"Where does {s.name} work now, and how is it going?", ["new", "settled"], f"{co2}; going well"),
        Q("unanswerable", f"What salary did {co2} offer {s.name}?", [], "", "unstated"),
    ]
    return st


def trips(c: Ctx) -> Story:
    s, o = c.s, c.o
    (c1, food), (c2, _thing) = c.rng.sample([
        ("Lisbon", "custard tarts"), ("Naples", "pizza fritta"), ("Porto", "francesinha"), ("Kraków", "pierogi"),
        ("Seville", "orange wine"), ("Ghent", "waffles"), ("Ljubljana", "cream cake"), ("Tbilisi", "khachapuri"),
        ("Valencia", "horchata"), ("Bergen", "fish soup")], 2)
    a, b = c.pick(2)
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"back from {c1}! my legs are destroyed, it's all hills",
                   f"just got back from {c1} and i already miss it",
                   f"home from {c1} 😭 want to go back already"), "trip1"),
        T("O", c.c("how was it?? what did you eat", "jealous. best thing you ate?", "tell me everything")),
        T("S", c.c(f"the {food} there were unreal, i had like four a day",
                   f"honestly just the {food}. i'd go back for that alone",
                   f"i basically lived on {food} there, zero regrets"), "food"),
    ]))
    st.beats.append(Beat(b, [
        T("S", c.c(f"greetings from {c2} ☔ it's raining, obviously", f"landed in {c2} last night!! hostel smells weird",
                   f"writing this from a cafe in {c2}, trip number two of the year"), "trip2"),
        T("O", c.c("you're never home anymore lol", "stop travelling without me", "have the best time!!")),
    ]))
    st.questions += [
        Q("multi", f"Which city did {s.name} visit after {c1}?", ["trip1", "trip2"], c2),
        Q("single", c.c(f"What food did {s.name} love in {c1}?", f"What did {s.name} keep eating on the {c1} trip?"),
          ["food"], food),
        Q("unanswerable", f"Who did {s.name} travel to {c2} with?", [], "", "unstated"),
        Q("unanswerable", f"What did {o.name} eat in {c1}?", [], "", "other-person"),
    ]
    return st


def coffee(c: Ctx) -> Story:
    s = c.s
    how = c.rng.choice(["a long black, no milk", "an oat cortado", "a double espresso with sugar", "iced americano"])
    a, = c.pick(1)
    st = Story()
    st.beats.append(Beat(a, [
        T("O", c.c("getting coffee before we meet, want me to grab you a flat white?",
                   "i'm at the cafe, what do you want?")),
        T("S", c.c(f"god no not a flat white lol. {how} please, always", f"you know me. {how}. nothing fancy",
                   f"{how}! thank youuu"), "coffee"),
    ]))
    st.questions += [
        Q("preference", c.c(f"How does {s.name} take {s.their} coffee?", f"What coffee does {s.name} order?"),
          ["coffee"], how),
    ]
    return st


def bedtime(c: Ctx) -> Story:
    s = c.s
    before = c.rng.choice(["chamomile tea", "peppermint tea", "rooibos"])
    after = c.rng.choice(["warm milk with honey", "a magnesium drink", "tart cherry juice"])
    a, b = c.pick(2)
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"can't sleep without my {before} anymore, it's a whole ritual",
                   f"{before} and a book by 10, i'm basically 80"), "before"),
        T("O", c.c("honestly that sounds lovely", "grandma energy, respect")),
    ]))
    st.beats.append(Beat(b, [
        T("S", c.c(f"update nobody asked for: i've ditched the tea. it's {after} now and i sleep like a baby",
                   f"switched my night drink to {after}, the tea was making me get up at 3am"), "after"),
        T("O", c.c("the sleep hygiene journey continues", "ha ok sleep queen/king")),
    ]))
    st.questions += [
        Q("preference", f"What does {s.name} drink before bed now?", ["after"], after),
        Q("multi", f"What did {s.name} drink at night before switching?", ["before", "after"], before),
    ]
    return st


def music(c: Ctx) -> Story:
    s = c.s
    artist = c.rng.choice(["Khruangbin", "Phoebe Bridgers", "Little Simz", "Mitski", "Fontaines D.C.", "Nils Frahm"])
    a, = c.pick(1)
    st = Story()
    st.beats.append(Beat(a, [
        T("O", c.c("what are you listening to these days, i need new stuff", "send me a song, my playlist is stale")),
        T("S", c.c(f"been playing {artist} on repeat all week tbh, the new record is so good",
                   f"only {artist}. i have a problem", f"{artist} 100%. literally nothing else on my commute"), "artist"),
    ]))
    st.questions += [
        Q("preference", c.c(f"Which artist has {s.name} been listening to a lot?", f"What music is {s.name} into?"),
          ["artist"], artist),
    ]
    return st


def dislike(c: Ctx) -> Story:
    s = c.s
    food = c.rng.choice(["mushrooms", "olives", "coriander", "aubergine", "blue cheese", "raw onion"])
    a, = c.pick(1)
    st = Story()
    st.beats.append(Beat(a, [
        T("O", c.c("thinking of making that risotto for the dinner on friday?", "i'm doing the food for saturday, any requests?")),
        GAP_T(),
        T("S", c.c(f"sorry missed this! anything but {food} lol, it's the texture, i physically can't",
                   f"oh re food - as long as there's no {food} in it i'm happy. i'd rather starve"), "dislike"),
    ]))
    st.questions += [
        Q("preference", c.c(f"What food does {s.name} refuse to eat?", f"Which ingredient does {s.name} dislike?"),
          ["dislike"], food),
    ]
    return st


def wedding(c: Ctx) -> Story:
    s = c.s
    sib = c.rng.choice(["sister", "brother", "cousin"])
    item = c.rng.choice(["shoes", "a suit that fits", "a present", "a plus one"])
    a, b = c.pick(2)
    day = c.dates[a].date() + dt.timedelta(days=21)
    day += dt.timedelta(days=(5 - day.weekday()) % 7)  # a saturday
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"my {sib}'s wedding is three weeks on saturday and i still don't have {item}",
                   f"the {sib}'s big day is in three weeks (the {day.day}{_th(day.day)}!) and i have no {item}. panic"),
          "wedding"),
        T("O", c.c("you have time!! barely", "classic you")),
    ]))
    st.beats.append(Beat(b, [
        T("S", c.c("the wedding was perfect. i cried during the speeches, everyone did",
                   "still recovering from the wedding lol. best day, the dancing went on till 2"), "after"),
        T("O", c.c("aww so happy for them", "did you survive the dancing")),
    ]))
    st.questions += [
        Q("temporal", f"When was {s.name}'s {sib}'s wedding?", ["wedding"], fmt_day(day)),
        Q("single", f"What did {s.name} still need for {s.their} {sib}'s wedding?", ["wedding"], item),
        Q("single", f"How did {s.name}'s {sib}'s wedding go?", ["after"], "perfect; cried at the speeches"),
        Q("unanswerable", f"Where was {s.name}'s {sib}'s wedding held?", [], "", "unstated"),
    ]
    return st


def language(c: Ctx) -> Story:
    s = c.s
    lang = c.rng.choice(["Portuguese", "Japanese", "Greek", "Korean", "Dutch", "Turkish"])
    wd = c.rng.choice(["monday", "tuesday", "wednesday", "thursday"])
    a, b = c.pick(2)
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"signed up for an evening {lang.lower()} class 🤓 {wd}s 7-9",
                   f"so i'm doing {lang} lessons now, every {wd} after work"), "lang"),
        T("O", c.c("ooh why that one", "love that for you", "obrigado or whatever")),
        T("S", c.c("long story but mostly so i can order food properly next trip",
                   "honestly i just liked how it sounds")),
    ]))
    st.beats.append(Beat(b, [
        T("S", c.c("did the past tense in class yesterday and my brain fully melted",
                   "teacher made me read out loud in class, i wanted the floor to swallow me"), "class"),
        T("O", c.c("haha you'll get there", "that's how you learn tho")),
    ]))
    st.questions += [
        Q("single", c.c(f"What language is {s.name} learning?", f"Which language did {s.name} sign up to study?"),
          ["lang"], lang),
        Q("single", f"On which evening does {s.name} have {s.their} {lang} class?", ["lang"], wd),
        Q("unanswerable", f"What is the name of {s.name}'s {lang} teacher?", [], "", "unstated"),
    ]
    return st


def race(c: Ctx) -> Story:
    s = c.s
    what = c.rng.choice(["half marathon", "10k", "marathon", "sprint triathlon"])
    t = c.rng.choice(["1:58", "52 minutes", "4:21", "1:31"])
    a, b = c.pick(2)
    when, answer = rel_past(c.rng, c.dates[b])
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"i've done something stupid. signed up for a {what}", f"entered my first {what} 😬 training starts now"),
          "signup"),
        T("O", c.c("you hate running??", "who are you")),
    ]))
    st.beats.append(Beat(b, [
        T("S", c.c(f"DID IT. finished {when}, {t}!! can't walk", f"so the race was {when}... {t}, i cried at the end"),
          "race"),
        T("O", c.c("legend!!!", "omg congrats, ice bath time")),
    ]))
    st.questions += [
        Q("temporal", c.c(f"When did {s.name} run {s.their} {what}?", f"When was {s.name}'s race?"), ["race"], answer),
        Q("single", f"What was {s.name}'s finishing time?", ["race"], t),
        Q("multi", f"What race did {s.name} train for, and how did it go?", ["signup", "race"], f"{what}, {t}"),
    ]
    return st


def gift(c: Ctx) -> Story:
    s = c.s
    who = c.rng.choice(["dad", "mum", "grandad", "nan"])
    g = c.rng.choice(["a bread maker", "a drone", "a pasta machine", "an e-reader", "noise-cancelling headphones"])
    a, = c.pick(1)
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"got my {who} {g} for the big birthday. pretended to hate it, has used it every day since",
                   f"{who}'s 60th was a success, the {g.split(' ', 1)[1]} was a hit"), "gift"),
        T("O", c.c("aw that's the best kind of present", "cute!! what a good child")),
    ]))
    st.questions += [
        Q("single", f"What did {s.name} give {s.their} {who} for {'his' if who in ('dad', 'grandad') else 'her'} birthday?",
          ["gift"], g),
    ]
    return st


def injury(c: Ctx) -> Story:
    s = c.s
    part = c.rng.choice(["ankle", "wrist", "knee"])
    how = c.rng.choice(["on the stairs at work", "stepping off a tram", "at five-a-side", "chasing the bus"])
    a, = c.pick(1)
    when, answer = rel_past(c.rng, c.dates[a])
    st = Story()
    st.beats.append(Beat(a, [
        T("O", c.c("you coming climbing thursday?", "up for a walk this weekend?")),
        T("S", c.c(f"can't 😭 sprained my {part} {when}, {how}. so graceful",
                   f"i'm out for a bit, did my {part} in {how} {when}"), "injury"),
        T("O", c.c("nooo. rest it!!", "ouch. ice and feet up")),
    ]))
    st.questions += [
        Q("temporal", f"When did {s.name} hurt {s.their} {part}?", ["injury"], answer),
        Q("single", f"How did {s.name} get injured?", ["injury"], how),
    ]
    return st


def garden(c: Ctx) -> Story:
    s = c.s
    crop = c.rng.choice(["tomatoes", "chillies", "strawberries", "courgettes", "basil"])
    a, = c.pick(1)
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"the {crop} on the balcony are finally ready, picked a whole bowl this morning",
                   f"balcony harvest: {crop}!! like a real adult with a garden"), "crop"),
        T("O", c.c("save me some", "green fingers")),
    ]))
    st.questions += [Q("single", f"What is {s.name} growing on {s.their} balcony?", ["crop"], crop)]
    return st


def concert(c: Ctx) -> Story:
    s = c.s
    band = c.rng.choice(["Wet Leg", "IDLES", "Big Thief", "Arlo Parks", "The Staves", "Bombay Bicycle Club"])
    a, = c.pick(1)
    when, answer = rel_past(c.rng, c.dates[a])
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"ears still ringing from {band} {when}, we were right at the front",
                   f"went to see {band} {when} and i think i've lost my voice"), "gig"),
        T("O", c.c("was it good??", "so jealous")),
        T("S", c.c("best gig of my life, no exaggeration", "they played for 2 hours, unreal")),
    ]))
    st.questions += [
        Q("single", f"Which band did {s.name} see live?", ["gig"], band),
        Q("temporal", f"When did {s.name} go to the {band} gig?", ["gig"], answer),
    ]
    return st


def partner(c: Ctx) -> Story:
    s = c.s
    pn = c.rng.choice(["Ollie", "Camille", "Rafa", "Jess", "Nico", "Bea", "Luka", "Imogen"])
    a, b = c.pick(2)
    st = Story()
    st.beats.append(Beat(a, [
        T("S", c.c(f"ok so i've been seeing someone. {pn}. we met at the pub quiz",
                   f"third date with {pn} tonight 🙈 the one from the climbing wall"), "meet"),
        T("O", c.c("EXCUSE ME. details", "finally!! tell me everything")),
    ]))
    st.beats.append(Beat(b, [
        T("S", c.c("big news... we're moving in together!! i know it's fast",
                   "we signed a lease together today. me. living with a partner. wild"), "movein"),
        T("O", c.c("omg!! so happy for you two", "WHAT. huge. congrats")),
    ]))
    st.questions += [
        Q("multi", f"Who is {s.name} moving in with?", ["meet", "movein"], pn),
        Q("single", f"Where did {s.name} meet {pn}?", ["meet"], "pub quiz / climbing wall"),
        Q("unanswerable", f"What does {pn} do for a living?", [], "", "unstated"),
    ]
    return st


def hobbies(c: Ctx) -> Story:
    s = c.s
    h1, h2 = c.rng.sample([("pottery", "my bowl came out of the kiln wonky but it's MINE"),
                           ("bouldering", "forearms are destroyed after the wall"),
                           ("sourdough", "the starter is alive and i named it Gerald"),
                           ("life drawing", "drew a nose that looked like a potato, progress"),
                           ("crochet", "made a hat. it's lumpy. i'm wearing it anyway")], 2)
    a, b = c.pick(2)
    st = Story()
    st.beats.append(Beat(a, [T("S", f"new hobby alert: {h1[0]}. {h1[1]}", "h1"),
                             T("O", c.c("love a hobby era", "ha you'll be selling them soon"))]))
    st.beats.append(Beat(b, [T("S", c.c(f"started {h2[0]} too now, {h2[1]}", f"{h2[1]} - yes i'm doing {h2[0]} now too"),
                               "h2"),
                             T("O", c.c("how do you have time for all this", "collecting hobbies like pokemon"))]))
    st.questions += [
        Q("multi", f"What hobbies has {s.name} taken up?", ["h1", "h2"], f"{h1[0]} and {h2[0]}"),
        Q("preference", f"What does {s.name} do in {s.their} free time these days?", ["h1", "h2"], f"{h1[0]}, {h2[0]}"),
    ]
    return st


def bike(c: Ctx) -> Story:
    s = c.s
    what = c.rng.choice(["road bike", "vintage moped", "cargo bike", "used Fiat Panda"])
    col = c.rng.choice(["mint green", "bright orange", "navy", "red"])
    a, = c.pick(1)
    st = Story()
    st.beats.append(Beat(a, [
        T("O", c.c("how are you getting to the thing sunday?", "need a lift on sunday?")),
        T("S", c.c(f"i have WHEELS now. bought a {col} {what} off a guy at work, it squeaks but it goes",
                   f"nope! a colleague sold me his {what}, {col}, slightly haunted"), "buy"),
    ]))
    st.questions += [
        Q("single", f"What did {s.name} buy from a coworker?", ["buy"], f"a {col} {what}"),
        Q("single", f"What colour is {s.name}'s {what}?", ["buy"], col),
    ]
    return st


def promotion(c: Ctx) -> Story:
    """The fact is said by the friend, about the person (congratulations), who only thanks."""
    s, o = c.s, c.o
    title = c.rng.choice(["head of design", "senior nurse", "team lead", "deputy manager", "principal engineer"])
    a, = c.pick(1)
    st = Story()
    st.beats.append(Beat(a, [
        T("O", c.c(f"saw the news on linkedin!!! {title}?!? congratulations", f"{title.upper()}. i'm so proud of you omg",
                   f"my friend the {title} 😎 congrats!!"), "title"),
        T("S", c.c("haha stalker. thank you!! still sinking in", "stoppp 🙈 thank you", "ahh thanks! more meetings though")),
    ]))
    st.questions += [
        Q("single", c.c(f"What was {s.name} promoted to?", f"What is {s.name}'s new title at work?"), ["title"], title),
        Q("unanswerable", f"What was {o.name} promoted to?", [], "", "other-person"),
    ]
    return st


def party(c: Ctx) -> Story:
    """A surprise party for the person, told by the friend who was there."""
    s = c.s
    venue = c.rng.choice(["the bowling alley", "a karaoke bar", "the rooftop at Gemma's", "a boat on the canal"])
    a, = c.pick(1)
    when, answer = rel_past(c.rng, c.dates[a])
    st = Story()
    st.beats.append(Beat(a, [
        T("O", c.c(f"still can't believe you didn't suspect ANYTHING {when}. your face when you walked into {venue} 😂",
                   f"best surprise party ever {when}, {venue} was such a good shout"), "party"),
        T("S", c.c("i genuinely nearly cried. you're all sneaky", "i hate you all (i love you all)")),
    ]))
    st.questions += [
        Q("single", f"Where was {s.name}'s surprise party?", ["party"], venue),
        Q("temporal", f"When was {s.name}'s surprise party?", ["party"], answer),
    ]
    return st


def tattoo(c: Ctx) -> Story:
    """The friend asks about it by name; the person's answer only says "yes" to it."""
    s = c.s
    what = c.rng.choice(["a little whale", "a sunflower", "your nan's handwriting", "a moth", "a wave"])
    place = c.rng.choice(["ankle", "forearm", "shoulder", "ribs"])
    a, = c.pick(1)
    st = Story()
    st.beats.append(Beat(a, [
        T("O", f"wait did you actually go through with {what} on your {place}??", "ask"),
        GAP_T(),
        T("S", c.c("YES. it hurt like hell but i love it", "i did!!! three hours, i was so brave (i was not)"), "yes"),
    ]))
    st.questions += [
        Q("single", c.c(f"What tattoo did {s.name} get?", f"Where did {s.name} get {s.their} tattoo?"),
          ["ask", "yes"], f"{what} on the {place}"),
    ]
    return st


STORIES: dict[str, Callable[[Ctx], Story]] = {
    "pet": pet, "move": move, "job": job, "trips": trips, "coffee": coffee, "bedtime": bedtime, "music": music,
    "dislike": dislike, "wedding": wedding, "language": language, "race": race, "gift": gift, "injury": injury,
    "garden": garden, "concert": concert, "partner": partner, "hobbies": hobbies, "bike": bike,
    "promotion": promotion, "party": party, "tattoo": tattoo,
}

#: Asked of someone whose conversation never raised the storyline (``{n}``: the name, ``{p}``: their pronoun).
ABSENT: dict[str, list[str]] = {
    "pet": ["What breed is {n}'s dog?", "What did {n} name {p} new kitten?"],
    "move": ["Which neighbourhood did {n} move to last year?", "Who helped {n} move house?"],
    "job": ["Which company did {n} leave for a startup?", "When did {n} get promoted?"],
    "trips": ["Which city did {n} visit after Rome?", "What did {n} eat on the trip to Marrakesh?"],
    "coffee": ["How does {n} take {p} coffee?"],
    "bedtime": ["What does {n} drink to help {p} sleep?"],
    "music": ["Which singer does {n} listen to on repeat?"],
    "dislike": ["Which vegetable can't {n} stand?"],
    "wedding": ["When is {n}'s sister getting married?"],
    "language": ["Which language is {n} studying at evening class?"],
    "race": ["When did {n} run the Berlin marathon?"],
    "gift": ["What did {n} buy {p} mum for Christmas?"],
    "injury": ["When did {n} break {p} arm?"],
    "garden": ["What vegetables does {n} grow in {p} allotment?"],
    "concert": ["Which band did {n} see at the festival?"],
    "partner": ["Who is {n} dating?"],
    "hobbies": ["What instrument is {n} learning to play?"],
    "bike": ["What car did {n} buy?"],
    "promotion": ["What was {n} promoted to last year?"],
    "party": ["Where did {n} celebrate {p} thirtieth birthday?"],
    "tattoo": ["What tattoo does {n} have on {p} back?"],
}


def GAP_T() -> T:
    return T(GAP, "")


def _th(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
