"""The facts a generated conversation talks about: templates with slots, wordings and questions.

Each template is a function of a :class:`Ctx` (the random generator, the subject who holds the
fact, the other speaker) returning a :class:`Fact`: the *beats* (short exchanges that state the
fact, placed in increasing sessions), the *questions* about it (each naming the beats and turns
that answer it), and *distractors* (exchanges that mention the same things without answering).

The questions are written to be paraphrases of their evidence: they avoid the evidence turn's
key words where a person would (``dog`` for a turn that says ``greyhound``, ``allergic`` for one
that says ``the results came back, it's shellfish``), the evidence turn speaks of the subject in
the first person (the speaker's name is in the record's source, not in its text), and the same
entities come back in the distractors. Nothing here is taken from a public benchmark.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

#: A turn of a beat: ("S" the subject | "O" the other speaker, text).
Line = tuple[str, str]


@dataclass
class Beat:
    """An exchange stating (part of) a fact; ``when`` maps its session's date to the event's date."""

    key: str
    lines: list[Line]
    when: Callable[[dt.date], dt.date] | None = None


@dataclass
class Ask:
    """A question: ``evidence`` names (beat key, line index) pairs; ``answer`` may hold
    ``{date:KEY}``, filled with the date of beat KEY's event once it is placed."""

    kind: str
    text: str
    evidence: list[tuple[str, int]]
    answer: str


@dataclass
class Fact:
    topic: str
    beats: list[Beat]
    asks: list[Ask]
    distractors: list[list[Line]] = field(default_factory=list)


@dataclass
class Ctx:
    rng: random.Random
    S: str  # the subject's name
    O: str  # noqa: E741 - the other speaker's name
    he: str  # the subject's pronouns
    his: str

    def pick(self, seq: Sequence[str]) -> str:
        return self.rng.choice(list(seq))

    def when(self) -> tuple[str, Callable[[dt.date], dt.date]]:
        """A relative time expression and the date it denotes from the session's date."""
        phrase, fn = self.rng.choice(WHENS)
        return phrase, fn


def _days(n: int) -> Callable[[dt.date], dt.date]:
    return lambda d: d - dt.timedelta(days=n)


def _last(weekday: int) -> Callable[[dt.date], dt.date]:
    """The most recent ``weekday`` (Monday 0) strictly before the date."""

    def f(d: dt.date) -> dt.date:
        back = (d.weekday() - weekday) % 7 or 7
        return d - dt.timedelta(days=back)

    return f


WHENS: list[tuple[str, Callable[[dt.date], dt.date]]] = [
    ("yesterday", _days(1)),
    ("this morning", _days(0)),
    ("earlier today", _days(0)),
    ("two days ago", _days(2)),
    ("three days ago", _days(3)),
    ("last Saturday", _last(5)),
    ("on Sunday", _last(6)),
    ("last Friday", _last(4)),
    ("on Wednesday", _last(2)),
]

# -- slot pools ------------------------------------------------------------------------------

DOG_BREEDS = ["greyhound", "beagle", "border collie", "dachshund", "whippet", "labrador", "spaniel"]
CAT_BREEDS = ["tabby", "Maine Coon", "ginger tom", "Siamese", "tortoiseshell"]
PET_NAMES = ["Pepper", "Biscuit", "Miso", "Juniper", "Waffles", "Pickle", "Nutmeg", "Olive", "Bramble",
             "Ziggy", "Mochi", "Pistachio", "Clementine", "Rufus", "Tofu"]
COMPANIES = ["Lumen Analytics", "Harbourline Logistics", "Greenleaf Foods", "Northgate Insurance",
             "Bluepeak Software", "Copperfield Media", "Saltmarsh Energy", "Tidewater Health",
             "Ironbark Engineering", "Kestrel Robotics", "Mapleway Bank", "Quarry Lane Studios"]
ROLES = ["data analyst", "project manager", "UX designer", "backend developer", "account manager",
         "research scientist", "product owner", "site engineer"]
DEPTS = ["finance", "marketing", "support", "logistics", "platform", "research"]
CITIES = ["Porto", "Lyon", "Leeds", "Ghent", "Tartu", "Bergen", "Graz", "Krakow", "Valencia", "Utrecht",
          "Aarhus", "Bologna", "Cork", "Malmo", "Brno", "Ljubljana", "Bilbao", "Rotterdam"]
RACES = [("half marathon", "a 21 km road race"), ("marathon", "a full 42 km run"),
         ("sprint triathlon", "a swim-bike-run event"), ("10k", "a ten kilometre race"),
         ("trail ultra", "a very long off-road run")]
INSTRUMENTS = ["cello", "ukulele", "trumpet", "banjo", "violin", "saxophone", "harmonica", "mandolin",
               "bass guitar", "accordion"]
PLACES = [("Lisbon", "the tiled old town"), ("Iceland", "the glacier lagoon"), ("Crete", "the gorge hike"),
          ("Kyoto", "the temple gardens"), ("Morocco", "the desert camp"), ("Scotland", "the Highlands drive"),
          ("Slovenia", "the lake with the little church"), ("Vietnam", "the bay cruise"),
          ("Sicily", "the volcano tour"), ("Norway", "the fjord ferry"), ("Mexico City", "the murals"),
          ("Tasmania", "the coastal walk")]
DISHES_HOT = ["the vindaloo", "the jerk chicken", "that Sichuan hotpot", "the habanero salsa",
              "the green curry", "the nduja pizza"]
DRINKS = [("espresso", "coffee"), ("black coffee", "coffee"), ("green tea", "tea"), ("matcha", "tea"),
          ("chai", "tea"), ("peppermint tea", "tea"), ("hot chocolate", "cocoa"), ("cold brew", "coffee"),
          ("rooibos", "tea"), ("oat flat white", "coffee")]
GENRES = [("crime thrillers", "the more twists"), ("historical fiction", "the more court intrigue"),
          ("space opera", "the bigger the starships"), ("cosy mysteries", "the sleepier the village"),
          ("epic fantasy", "the thicker the maps"), ("literary memoirs", "the more honest"),
          ("horror", "the creepier the house")]
MUSIC = ["old jazz records", "bossa nova", "eighties synth-pop", "bluegrass", "Afrobeat", "classical piano",
         "lo-fi beats", "soul from the seventies", "punk", "film soundtracks"]
RELS = [("sister", "aunt"), ("brother", "aunt"), ("cousin", "godmother"), ("sister", "uncle"),
        ("brother", "uncle")]
SIBLING_NAMES = ["Ines", "Tomas", "Freya", "Callum", "Noor", "Anton", "Greta", "Rafael", "Ilse", "Declan",
                 "Amara", "Bastian", "Yara", "Emil"]
ALLERGENS = [("shellfish", "prawns"), ("peanuts", "satay"), ("sesame", "hummus"), ("kiwi", "fruit salad"),
             ("gluten", "fresh bread"), ("eggs", "omelettes"), ("soy", "tofu stir-fries")]
CARS = ["hatchback", "estate", "minivan", "pickup", "convertible", "electric SUV", "camper van"]
CAR_BRANDS = ["Skoda", "Volvo", "Kia", "Toyota", "Renault", "Hyundai", "Mazda", "Fiat"]
COLOURS = ["dark green", "silver", "bright red", "navy", "white", "mustard yellow"]
CLASSES = [("pottery", "ceramics"), ("salsa", "Latin dance"), ("life drawing", "sketching"),
           ("bouldering", "indoor climbing"), ("pasta-making", "Italian cooking"),
           ("woodworking", "carpentry"), ("aerial silks", "circus"), ("watercolour", "painting")]
KIDS = [("Leo", "son"), ("Mila", "daughter"), ("Oscar", "son"), ("Ava", "daughter"), ("Jonah", "son"),
        ("Lena", "daughter"), ("Kai", "son"), ("Nora", "daughter")]
THEMES = ["dinosaur", "space", "pirate", "unicorn", "jungle", "football"]
RESTAURANTS = [("Casa Lupita", "tacos al pastor"), ("The Copper Pot", "lamb stew"),
               ("Sakura House", "ramen"), ("Bella Notte", "truffle gnocchi"),
               ("Spice Route", "butter chicken"), ("The Green Fork", "mushroom burger"),
               ("Bao Down", "pork buns"), ("El Faro", "seafood paella")]
TEAMS = ["Riverside United", "the Harbour Hawks", "Northfield Rovers", "the Valley Tigers",
         "Eastport Athletic", "the Capital Comets"]
PARTNERS = ["Sam", "Alex", "Robin", "Jamie", "Morgan", "Charlie", "Dani", "Kit"]
SCENES = [("beach at sunset", "shore"), ("top of the lighthouse", "coast"), ("old bridge", "river"),
          ("summit of the ridge", "mountain"), ("rooftop bar", "city lights")]
BONES = ["wrist", "collarbone", "ankle", "elbow", "two fingers"]
VEG = ["tomatoes", "courgettes", "runner beans", "peas", "pumpkins", "chillies", "kale", "strawberries",
       "cucumbers", "beetroot"]
CAUSES = ["food bank", "animal shelter", "hospital radio", "river clean-up crew", "refugee language cafe",
          "community fridge"]
LANGS = ["Japanese", "Portuguese", "Welsh", "Korean", "Greek", "Swedish", "Turkish", "Dutch"]
FILMS = ["The Lighthouse Keeper", "Midnight Harbour", "Paper Moons", "The Long Orchard",
         "A Winter in Bruges", "Salt and Ember", "The Quiet Engine"]
ROOMS = [("kitchen", "a deep teal"), ("bedroom", "a soft sage"), ("living room", "a warm terracotta"),
         ("hallway", "a pale yellow"), ("bathroom", "charcoal grey")]
FLOORS = ["oak floorboards", "new tiles", "a wood-burning stove", "double glazing", "solar panels",
          "a loft conversion"]
FRIENDS = ["Priya", "Mateo", "Hannah", "Kofi", "Lucia", "Finn", "Sanne", "Dmitri", "Aoife", "Tariq"]
GIFTS = ["a record player", "a pasta machine", "a telescope", "a kayak", "noise-cancelling headphones",
         "a sourdough starter kit", "a vintage typewriter", "a hammock"]
BANDS = ["The Velvet Foxes", "Marlowe Street", "Neon Harvest", "The Paper Kites Club", "Saltwater Choir",
         "Dusty Compass"]
PHONES = ["a refurbished Pixel", "the cheapest iPhone", "a Fairphone", "a flip phone"]
TOPICS = ["coastal erosion", "medieval trade routes", "urban beekeeping", "sleep and memory",
          "solar microgrids", "migrant songbirds"]
SEASONS = [("Autumn", "the colours and the soup weather"), ("Winter", "the cold mornings and thick jumpers"),
           ("Spring", "everything blooming at once"), ("Summer", "the long light evenings")]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]

# -- the templates ---------------------------------------------------------------------------


def pet(c: Ctx) -> Fact:
    dog = c.rng.random() < 0.6
    breed = c.pick(DOG_BREEDS if dog else CAT_BREEDS)
    name = c.pick(PET_NAMES)
    she = c.rng.random() < 0.5
    p = "her" if she else "him"
    w, fn = c.when()
    adopt = Beat("adopt", [
        ("S", c.pick([f"We went to the rescue centre {w} and came home with a {breed}!",
                      f"Big family news: a {breed} moved in with us {w}, from the rescue."])),
        ("O", c.pick(["No way!! What did you call " + p + "?",
                      "Oh that's lovely, does " + ("she" if she else "he") + " have a name yet?"])),
        ("S", c.pick([f"We named {p} {name}. {'She' if she else 'He'} has already claimed the sofa.",
                      f"{name}! The kids picked it, {'she' if she else 'he'} answers to it already."])),
    ], when=fn)
    animal = "dog" if dog else "cat"
    return Fact("pet", [adopt], [
        Ask("single", c.pick([f"What is the name of {c.S}'s {animal}?", f"What did {c.S} call the new {animal}?",
                              f"What name did {c.S} give the {breed} from the rescue?"]),
            [("adopt", 2)], name),
        Ask("temporal", c.pick([f"When did {c.S} adopt a {animal}?", f"When did {c.S} bring home a pet from the shelter?"]),
            [("adopt", 0)], "{date:adopt}"),
    ], [
        [("O", f"My neighbour's {c.pick(DOG_BREEDS)} barked the whole night again, I could scream.")],
        [("O", "There was a dog show on TV, surprisingly gripping."), ("S", "Ha, I'd watch that.")],
        [("O", "The rescue centre near us is doing a fundraiser at the market this weekend.")],
    ])


def job(c: Ctx) -> Fact:
    old, new = c.rng.sample(COMPANIES, 2)
    role = c.pick(ROLES)
    dept = c.pick(DEPTS)
    a = Beat("old", [
        ("S", c.pick([f"Things at {old} are hectic, the {dept} team is two people short.",
                      f"Another long week at {old}. The {dept} people keep dumping urgent stuff on me."])),
        ("O", "That sounds exhausting, hang in there."),
    ])
    b = Beat("new", [
        ("S", c.pick([f"So... I signed the contract with {new}! Starting as a {role} next month.",
                      f"I handed in my notice. {new} offered me the {role} position and I said yes."])),
        ("O", c.pick(["Congratulations!! That's huge.", "Finally! You deserve it."])),
    ])
    return Fact("job", [a, b], [
        Ask("single", c.pick([f"Which company is {c.S} working for now?", f"Who is {c.S}'s current employer?",
                              f"Which company offered {c.S} the {role} position?"]),
            [("new", 0)], new),
        Ask("multi", c.pick([f"Which employer did {c.S} leave, and for which one?",
                             f"Where did {c.S} work before changing jobs, and where did {c.he} go?"]),
            [("old", 0), ("new", 0)], f"{old}, then {new}"),
    ], [
        [("O", f"My cousin had an interview at {old} once, she said the offices are gorgeous.")],
        [("O", f"Did you see {new} in the news? Something about a merger."), ("S", "Missed it, I'll look.")],
    ])


def move(c: Ctx) -> Fact:
    a_city, b_city = c.rng.sample(CITIES, 2)
    w, fn = c.when()
    a = Beat("old", [("S", c.pick([f"Our flat in {a_city} is tiny, but the view over the river makes up for it.",
                                   f"{a_city} is lovely in the evenings, we walk along the old walls after dinner."]))])
    b = Beat("new", [
        ("S", c.pick([f"The removal van came {w}, we officially live in {b_city} now!",
                      f"We did it, {w} we carried the last boxes into the new place in {b_city}."])),
        ("O", "Wow, new chapter! How are the boxes?"),
        ("S", "Half unpacked, the cutlery is still missing."),
    ], when=fn)
    return Fact("move", [a, b], [
        Ask("single", c.pick([f"In which city does {c.S} live at the moment?", f"Where is {c.S}'s home these days?"]),
            [("new", 0)], b_city),
        Ask("temporal", c.pick([f"When did {c.S} relocate to {b_city}?", f"When did {c.S} move house?"]),
            [("new", 0)], "{date:new}"),
        Ask("multi", f"Which two cities has {c.S} lived in?", [("old", 0), ("new", 0)], f"{a_city}, {b_city}"),
    ], [
        [("O", f"I might have a conference in {b_city} next spring, never been.")],
        [("O", f"A friend of mine grew up in {a_city}, she says the food is underrated.")],
    ])


def race(c: Ctx) -> Fact:
    r, para = c.rng.choice(RACES)
    w, fn = c.when()
    t = f"{c.rng.randint(1, 5)}:{c.rng.randint(0, 59):02d}"
    a = Beat("race", [
        ("S", c.pick([f"Finished my first {r} {w}! {t}, and my legs are jelly.",
                      f"Crossed the finish line of the {r} {w} in {t}. Never again. Maybe."])),
        ("O", "Amazing!! You trained so hard for that."),
    ], when=fn)
    return Fact("race", [a], [
        Ask("temporal", c.pick([f"When did {c.S} complete {para}?", f"When did {c.S} finish the {r}?"]),
            [("race", 0)], "{date:race}"),
        Ask("single", f"What was {c.S}'s finishing time in {para}?", [("race", 0)], t),
    ], [
        [("O", f"The {r} closed half the roads downtown, took me an hour to get home.")],
        [("S", "My knee complains after every long run lately."), ("O", "Ice and rest, you stubborn thing.")],
    ])


def instruments(c: Ctx) -> Fact:
    i1, i2 = c.rng.sample(INSTRUMENTS, 2)
    a = Beat("first", [("S", c.pick([f"I found a second-hand {i1} online and I'm teaching myself from videos.",
                                     f"Bought a cheap {i1}. The neighbours are being very patient."]))])
    b = Beat("second", [
        ("S", c.pick([f"Had my first proper {i2} lesson, the teacher is so patient with me.",
                      f"Signed up for {i2} lessons on Thursdays, I squeak a lot."])),
        ("O", "You're collecting hobbies!"),
    ])
    return Fact("instruments", [a, b], [
        Ask("multi", c.pick([f"Which musical instruments has {c.S} taken up?", f"What does {c.S} play, music-wise?"]),
            [("first", 0), ("second", 0)], f"{i1}, {i2}"),
    ], [
        [("O", f"My nephew plays {i1} in the school band. It's... loud.")],
        [("O", f"Went to a {i2} recital at the church, beautiful acoustics.")],
    ])


def trips(c: Ctx) -> Fact:
    (p1, s1), (p2, s2) = c.rng.sample(PLACES, 2)
    a = Beat("t1", [("S", f"Just got back from {p1}. {s1[0].upper() + s1[1:]} was unreal."),
                    ("O", "Jealous! Photos please.")])
    b = Beat("t2", [("S", c.pick([f"We spent ten days in {p2}, {s2} was the highlight.",
                                  f"Back home after {p2}. Still dreaming about {s2}."]))])
    return Fact("trips", [a, b], [
        Ask("multi", c.pick([f"Which places did {c.S} go to on holiday?", f"Where has {c.S} travelled for vacations?"]),
            [("t1", 0), ("t2", 0)], f"{p1}, {p2}"),
    ], [
        [("O", f"Everyone at work wants to go to {p1} this year, it's the trendy place.")],
        [("O", f"Saw a documentary about {p2} last night, gorgeous.")],
    ])


def spicy(c: Ctx) -> Fact:
    dish = c.pick(DISHES_HOT)
    likes = c.rng.random() < 0.5
    text = (c.pick([f"Ordered {dish} extra hot, the more chilli the happier I am.",
                    "I put chilli flakes on literally everything, even eggs."]) if likes else
            c.pick([f"{dish[0].upper() + dish[1:]} nearly finished me off, I just can't handle chilli.",
                    "Anything with chilli and my mouth is on fire for an hour, so no thanks."]))
    a = Beat("pref", [("S", text), ("O", "Ha, noted!")])
    return Fact("spicy", [a], [
        Ask("preference", c.pick([f"How does {c.S} feel about spicy food?", f"Would {c.S} enjoy a fiery curry?",
                                  f"Can {c.S} handle chilli?"]),
            [("pref", 0)], "loves it" if likes else "cannot handle it"),
    ], [[("O", "We tried the new place on the corner, the portions were enormous.")]])


def drink(c: Ctx) -> Fact:
    (d1, _), (d2, _) = c.rng.sample(DRINKS, 2)
    a = Beat("old", [("S", f"Can't function before my second {d1}, don't talk to me till then.")])
    b = Beat("new", [("S", c.pick([f"I've given up {d1} completely, it's {d2} every morning now.",
                                   f"New me: no more {d1}. Switched to {d2} and I sleep so much better."])),
                     ("O", "Respect, I could never.")])
    return Fact("drink", [a, b], [
        Ask("preference", c.pick([f"What does {c.S} drink to start the day now?", f"What is {c.S}'s morning beverage these days?",
                                  f"What does {c.S} have every morning now instead of {d1}?"]),
            [("new", 0)], d2),
        Ask("multi", f"What did {c.S} use to rely on in the morning before switching?", [("old", 0), ("new", 0)], d1),
    ], [[("O", f"The cafe downstairs started doing {d1} for one euro, dangerous.")]])


def reading(c: Ctx) -> Fact:
    g, more = c.rng.choice(GENRES)
    a = Beat("pref", [("S", c.pick([f"I can't put down {g} lately, {more} the better.",
                                    f"Devoured three {g} this month. I'm hooked."]))])
    return Fact("reading", [a], [
        Ask("preference", c.pick([f"What kind of books does {c.S} like?", f"Which genre does {c.S} enjoy reading?",
                                  f"What can't {c.S} put down lately?"]),
            [("pref", 0)], g),
    ], [[("O", f"My book club picked one of those {g}, I didn't finish it.")]])


def music(c: Ctx) -> Fact:
    m = c.pick(MUSIC)
    a = Beat("pref", [("S", c.pick([f"Nothing beats {m} on a rainy afternoon, had it on all day.",
                                    f"Honestly {m} is the only thing that calms me down after work."]))])
    return Fact("music", [a], [
        Ask("preference", c.pick([f"What sort of music does {c.S} prefer?", f"Which tunes does {c.S} like to listen to?"]),
            [("pref", 0)], m),
    ], [[("O", f"The bar on our street has {m} nights on Thursdays now.")]])


def sibling(c: Ctx) -> Fact:
    rel, _ = c.rng.choice(RELS)
    name = c.pick(SIBLING_NAMES)
    a = Beat("news", [("S", c.pick([f"My {rel} {name} just had twins! Two tiny humans at once.",
                                    f"{name}, my {rel}, had the baby at 4am, a little girl."])),
                      ("O", "Congratulations to the whole family!")])
    return Fact("sibling", [a], [
        Ask("single", c.pick([f"Who in {c.S}'s family recently became a parent?", f"Which relative of {c.S} had a baby?"]),
            [("news", 0)], name),
    ], [[("O", "Twins run in my family too, my grandmother was one.")]])


def allergy(c: Ctx) -> Fact:
    al, food = c.rng.choice(ALLERGENS)
    a = Beat("result", [("S", c.pick([f"The doctor finally called with the test results: it's {al}. No more {food} for me.",
                                      f"Mystery solved, my body hates {al}. Goodbye {food}."])),
                        ("O", "At least you know now.")])
    return Fact("allergy", [a], [
        Ask("single", c.pick([f"What is {c.S} allergic to?", f"Which food does {c.S} react badly to?",
                              f"What did {c.S}'s test results from the doctor show?"]),
            [("result", 0)], al),
    ], [[("O", f"We had {food} at the party, everyone loved it.")]])


def car(c: Ctx) -> Fact:
    old, new = c.rng.sample(CARS, 2)
    brand = c.pick(CAR_BRANDS)
    col = c.pick(COLOURS)
    a = Beat("car", [("S", c.pick([f"We traded the old {old} in for a {col} {brand} {new}, it still smells new.",
                                   f"Said goodbye to the {old} today. The new {brand} {new} is {col} and gorgeous."]))])
    return Fact("car", [a], [
        Ask("single", c.pick([f"What vehicle does {c.S} drive now?", f"What did {c.S} replace the old car with?"]),
            [("car", 0)], f"{col} {brand} {new}"),
    ], [[("O", f"My brother crashed his {old} into a bollard, nobody hurt.")]])


def course(c: Ctx) -> Fact:
    cl, para = c.rng.choice(CLASSES)
    w, fn = c.when()
    a = Beat("start", [("S", c.pick([f"First {cl} session at the community centre was {w}, I'm hooked already.",
                                     f"Went to my very first {cl} class {w}, I was hopeless but it was fun."]))],
             when=fn)
    return Fact("course", [a], [
        Ask("temporal", c.pick([f"When did {c.S} start going to {para} lessons?",
                                f"When was {c.S}'s first {cl} class?"]), [("start", 0)], "{date:start}"),
    ], [[("O", f"The community centre sent a flyer about {cl} for kids.")]])


def kid(c: Ctx) -> Fact:
    name, rel = c.rng.choice(KIDS)
    age = c.rng.randint(3, 11)
    theme = c.pick(THEMES)
    w, fn = c.when()
    a = Beat("bday", [("S", f"{name} turned {age} {w}, we did a {theme} party and I'm still finding confetti."),
                      ("O", f"Happy birthday to {name}!")], when=fn)
    return Fact("kid", [a], [
        Ask("single", c.pick([f"How old is {c.S}'s {rel} now?", f"How old did {name} turn?"]),
            [("bday", 0)], str(age)),
        Ask("temporal", f"When is the birthday of {c.S}'s {rel}?", [("bday", 0)], "{date:bday}"),
    ], [[("O", f"We went to a {theme} themed play area with the little ones, total chaos.")]])


def restaurant(c: Ctx) -> Fact:
    r, dish = c.rng.choice(RESTAURANTS)
    a = Beat("pref", [("S", c.pick([f"If it's up to me we always end up at {r}, their {dish} never disappoints.",
                                    f"{r} again tonight. I'm predictable, I know. The {dish}!"]))])
    return Fact("restaurant", [a], [
        Ask("preference", c.pick([f"Where does {c.S} like to eat out?", f"What is {c.S}'s go-to place for dinner?"]),
            [("pref", 0)], r),
    ], [[("O", f"Walked past {r} yesterday, the queue was around the block.")]])


def team(c: Ctx) -> Fact:
    t = c.pick(TEAMS)
    a = Beat("pref", [("S", c.pick([f"{t} lost again at the weekend, no idea why I still cheer for them.",
                                    f"Season ticket renewed. {t} forever, even when they break my heart."]))])
    return Fact("team", [a], [
        Ask("preference", c.pick([f"Which sports club does {c.S} support?", f"Which team does {c.S} cheer for?"]),
            [("pref", 0)], t),
    ], [[("O", f"Our office has a sweepstake, I drew {t}.")]])


def engaged(c: Ctx) -> Fact:
    who = c.pick(PARTNERS)
    scene, _ = c.rng.choice(SCENES)
    w, fn = c.when()
    a = Beat("yes", [("S", f"{who} proposed {w} at the {scene}! I said yes, obviously."),
                     ("O", "AAAH congratulations!!")], when=fn)
    return Fact("engaged", [a], [
        Ask("temporal", c.pick([f"When did {c.S} get engaged?", f"When did {c.S} accept a marriage proposal?"]),
            [("yes", 0)], "{date:yes}"),
        Ask("single", f"Who is {c.S} going to marry?", [("yes", 0)], who),
    ], [[("O", "My cousin's wedding is in June, I need a suit.")]])


def injury(c: Ctx) -> Fact:
    bone = c.pick(BONES)
    w, fn = c.when()
    a = Beat("fall", [("S", c.pick([f"I came off my bike {w} and fractured my {bone}. Six weeks in a cast.",
                                    f"Slipped on the wet cobbles on my bike {w}, the X-ray says a broken {bone}."])),
                      ("O", "Oh no, that's awful. Rest up!")], when=fn)
    return Fact("injury", [a], [
        Ask("single", c.pick([f"What did {c.S} break in the cycling accident?",
                              f"What did {c.S} fracture when {c.he} came off the bike?"]), [("fall", 0)], bone),
        Ask("temporal", f"When did {c.S} have the bicycle crash?", [("fall", 0)], "{date:fall}"),
    ], [[("O", "The bike lane on the high street is finally finished.")]])


def garden(c: Ctx) -> Fact:
    v1, v2 = c.rng.sample(VEG, 2)
    a = Beat("g1", [("S", f"Planted {v1} in the raised beds, fingers crossed the slugs stay away.")])
    b = Beat("g2", [("S", c.pick([f"The {v2} are finally coming up, I check them every morning.",
                                  f"First {v2} of the year from the allotment!"]))])
    return Fact("garden", [a, b], [
        Ask("multi", c.pick([f"What is {c.S} growing?", f"Which vegetables has {c.S} planted this year?"]),
            [("g1", 0), ("g2", 0)], f"{v1}, {v2}"),
    ], [[("O", f"The market had {v1} for next to nothing today.")]])


def volunteer(c: Ctx) -> Fact:
    place = c.pick(CAUSES)
    a = Beat("vol", [("S", c.pick([f"Saturdays are for the {place} now, I help out for four hours.",
                                   f"Did my first shift at the {place}, everyone there is so kind."]))])
    return Fact("volunteer", [a], [
        Ask("single", c.pick([f"Where does {c.S} volunteer?", f"Where does {c.S} help out on Saturdays?"]),
            [("vol", 0)], place),
    ], [[("O", f"The {place} is asking for donations on the radio.")]])


def language(c: Ctx) -> Fact:
    lang = c.pick(LANGS)
    a = Beat("lang", [("S", f"Day {c.rng.randint(20, 300)} of my {lang} streak on the app, the grammar is brutal.")])
    return Fact("language", [a], [
        Ask("single", c.pick([f"Which language is {c.S} studying?", f"What foreign tongue is {c.S} learning?",
                              f"Which language does {c.S} keep a streak going for on the app?"]),
            [("lang", 0)], lang),
    ], [[("O", f"There's a {lang} film festival at the cinema next month.")]])


def film(c: Ctx) -> Fact:
    f = c.pick(FILMS)
    a = Beat("pref", [("S", f"Watched {f} again last night, that's the fifth time and I still cried.")])
    return Fact("film", [a], [
        Ask("preference", c.pick([f"Which movie does {c.S} never get tired of?",
                                  f"Which film has {c.S} watched five times?"]), [("pref", 0)], f),
    ], [[("O", f"They're remaking {f}, apparently. Why.")]])


def diet(c: Ctx) -> Fact:
    month = c.pick(MONTHS)
    a = Beat("old", [("S", "Steak night tonight, I've been craving it all week.")])
    b = Beat("new", [("S", c.pick([f"I haven't touched meat since {month}, and honestly I feel lighter.",
                                   "Fully plant-based now, the lentil phase is real."])),
                     ("O", "Good for you! Send me recipes.")])
    return Fact("diet", [a, b], [
        Ask("preference", f"Does {c.S} eat meat these days?", [("new", 0)], "no"),
    ], [[("O", "The butcher on the corner closed down, end of an era.")]])


def renovation(c: Ctx) -> Fact:
    (room, col) = c.rng.choice(ROOMS)
    extra = c.pick(FLOORS)
    a = Beat("paint", [("S", f"We repainted the {room} in {col}, it feels like a new house.")])
    b = Beat("more", [("S", f"The builders finished putting in {extra}, the dust is everywhere.")])
    return Fact("renovation", [a, b], [
        Ask("multi", f"What improvements has {c.S} made to the home?", [("paint", 0), ("more", 0)], f"{room} painted, {extra}"),
    ], [[("O", f"Thinking of painting our {room} too, can't pick a colour.")]])


def driving(c: Ctx) -> Fact:
    w, fn = c.when()
    a = Beat("pass", [("S", f"I passed my driving test {w}! Third time lucky."), ("O", "Road trip!!")], when=fn)
    return Fact("driving", [a], [
        Ask("temporal", c.pick([f"When did {c.S} get a driving licence?", f"When did {c.S} pass the driving test?"]),
            [("pass", 0)], "{date:pass}"),
    ], [[("O", "The test centre moved across town, what a nightmare.")]])


def friend(c: Ctx) -> Fact:
    f = c.pick(FRIENDS)
    city = c.pick(CITIES)
    a = Beat("visit", [("S", f"{f}, my old roommate from uni, flies in from {city} tomorrow, I've cleaned everything.")])
    return Fact("friend", [a], [
        Ask("single", c.pick([f"Which university friend came to stay with {c.S}?", f"Who visited {c.S} from {city}?"]),
            [("visit", 0)], f),
    ], [[("O", f"My flight to {city} got cancelled twice last year.")]])


def gift(c: Ctx) -> Fact:
    g = c.pick(GIFTS)
    giver = c.pick(PARTNERS)
    a = Beat("gift", [("S", f"{giver} surprised me with {g} for my birthday, best present in years.")])
    return Fact("gift", [a], [
        Ask("single", c.pick([f"What did {c.S} receive as a birthday present?",
                              f"What birthday present did {c.S} get from {giver}?"]), [("gift", 0)], g),
    ], [[("O", f"I almost bought {g} for my dad, but it was too expensive.")]])


def concert(c: Ctx) -> Fact:
    band = c.pick(BANDS)
    w, fn = c.when()
    a = Beat("c1", [("S", f"Saw {band} live {w}, we were right at the front!")], when=fn)
    b = Beat("c2", [("S", f"{band} again at the festival, second time this year and they were even better.")])
    return Fact("concert", [a, b], [
        Ask("multi", f"How many times has {c.S} watched {band} perform?", [("c1", 0), ("c2", 0)], "twice"),
        Ask("temporal", f"When did {c.S} first see {band} on stage?", [("c1", 0)], "{date:c1}"),
    ], [[("O", f"{band} have a new album out, it's fine, not their best.")]])


def nightowl(c: Ctx) -> Fact:
    owl = c.rng.random() < 0.5
    text = ("I do my best thinking after midnight, mornings are a write-off for me." if owl else
            "Up at 5:30 with the birds, I get everything done before anyone else is awake.")
    a = Beat("pref", [("S", text)])
    return Fact("nightowl", [a], [
        Ask("preference", f"At what time of day is {c.S} most productive?", [("pref", 0)], "late at night" if owl else "early morning"),
    ], [[("O", "The street cleaners came at 6 again, so loud.")]])


def thesis(c: Ctx) -> Fact:
    topic = c.pick(TOPICS)
    w, fn = c.when()
    a = Beat("submit", [("S", f"I handed in the thesis on {topic} {w}!! Four years of work."),
                        ("O", "Doctor " + c.S + " incoming!")], when=fn)
    return Fact("thesis", [a], [
        Ask("temporal", c.pick([f"When did {c.S} submit the dissertation?", f"When did {c.S} hand in the thesis?"]),
            [("submit", 0)], "{date:submit}"),
        Ask("single", f"What was {c.S}'s doctoral research about?", [("submit", 0)], topic),
    ], [[("O", f"I heard a radio piece on {topic}, made me think of you.")]])


def season(c: Ctx) -> Fact:
    s, why = c.rng.choice(SEASONS)
    a = Beat("pref", [("S", f"{s} is my absolute favourite, {why}.")])
    return Fact("season", [a], [
        Ask("preference", f"Which time of year does {c.S} like best?", [("pref", 0)], s),
    ], [[("O", f"{s} is arriving early this year, according to the forecast.")]])


def phone(c: Ctx) -> Fact:
    ph = c.pick(PHONES)
    a = Beat("buy", [("S", f"Finally replaced the cracked screen situation, went with {ph}.")])
    return Fact("phone", [a], [
        Ask("single", f"Which mobile did {c.S} buy?", [("buy", 0)], ph),
    ], [[("O", "My phone battery dies by lunchtime now.")]])


TEMPLATES: list[Callable[[Ctx], Fact]] = [
    pet, job, move, race, instruments, trips, spicy, drink, reading, music, sibling, allergy, car,
    course, kid, restaurant, team, engaged, injury, garden, volunteer, language, film, diet,
    renovation, driving, friend, gift, concert, nightowl, thesis, season, phone,
]
