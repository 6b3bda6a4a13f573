"""Chit-chat between the facts: greetings, small talk, reactions and goodbyes.

Exchanges are built from parts (a topic's opener, a detail, a reply), so a conversation of a few
hundred turns rarely says the same thing twice (the generator skips a repeat). Some small talk
uses words the facts use too (work, the weekend, food, family, music, travel): what makes a
question's answer hard to find by its words alone.
"""

from __future__ import annotations

import random

from convo_facts import Line

HI = ["Hey", "Hi", "Morning", "Hello", "Hiya", "Evening", "Heyyy", "Good morning", "Yo"]
HOW = ["How's your week going?", "How are things?", "What's new with you?", "Long time, how have you been?",
       "How was the weekend?", "Surviving the week?", "Got a minute to chat?", "How's life treating you?"]
FINE = ["Pretty good, busy as usual.", "Not bad at all, a bit tired.", "Honestly, a bit of a blur.",
        "Good! Been a slow one, which I needed.", "Up and down, but okay.", "All good here, you?",
        "Chaotic, but the fun kind.", "Can't complain. Well, I could, but I won't."]
BYE = ["Gotta run, talk soon!", "I'll let you go, speak later.", "Right, dinner's calling. Bye!",
       "Catch you later!", "Off to bed, night night.", "Talk at the weekend?", "Back to work, ugh. Later!",
       "Let's catch up properly soon.", "Okay, my break is over, bye!"]
BYE_REPLY = ["Bye!", "Take care!", "Later!", "Speak soon x", "Night!", "Yes, definitely.", "Have a good one!",
             "See ya!"]

WHERE = ["Here", "Over here", "This week", "Today", "At ours", "Round here"]
WEATHER = ["it's been raining for three days straight", "the heat is unbearable this week",
           "we finally got some sunshine", "the wind nearly took the bins away", "there was frost on the car",
           "the fog hasn't lifted all day", "it hailed for ten minutes and then sun again"]
SHOWS = ["a baking competition", "that Danish crime series", "a documentary about octopuses",
         "the new sci-fi show everyone mentions", "an old sitcom from the nineties", "a reality show about houses",
         "a nature series about deserts", "a cooking show with grumpy chefs"]
CHORES = ["sorting out the attic", "cleaning the oven", "doing the taxes", "fixing the leaky tap",
          "clearing out the garage", "washing the windows", "ironing a mountain of shirts", "defrosting the freezer"]
WORK = ["endless meetings", "a deadline moved forward", "the printer dying again", "a new intern starting",
        "an all-hands that could have been an email", "the wifi going down twice", "a surprise audit",
        "someone microwaving fish in the office"]
FOODS = ["a big pot of soup", "homemade pizza", "leftover curry", "pancakes for dinner", "a mushroom risotto",
         "tacos", "a roast with all the trimmings", "noodles from the place downstairs", "a lentil stew"]
PLANS = ["a long walk if the weather holds", "nothing at all, blissfully", "visiting the in-laws",
         "a car boot sale", "catching up on sleep", "a friend's birthday drinks", "the farmers market",
         "painting the fence", "a museum I keep meaning to see"]
REACT = ["Haha, classic.", "Oh no!", "That sounds lovely.", "Ugh, I know the feeling.", "Ha, same here.",
         "Wow, really?", "Sounds like a good plan.", "Oof.", "Tell me about it.", "Love that.", "Fair enough!",
         "Brilliant.", "No way.", "That's so you.", "Honestly, good for you."]
SMALL = ["The lift in our building has been broken for a week.", "I finally cleared my inbox. Felt amazing.",
         "Somebody left a sofa on the pavement outside.", "My phone autocorrected my own name today.",
         "The parcel went to the wrong house again.", "I walked ten thousand steps without noticing.",
         "Accidentally joined a meeting with my camera on.", "The pigeons are back on the balcony.",
         "The neighbours' kid is learning the drums, send help.", "I lost my keys twice today.",
         "Our internet is slower than a snail.", "Found a tenner in an old coat pocket!",
         "The cat next door keeps sitting on our windowsill.", "My plant finally flowered.",
         "Trains were delayed again this morning.", "I need a holiday from my holiday.",
         "Tried a new podcast, it's about old shipwrecks.", "The dishwasher is making a weird noise.",
         "Someone parked across our driveway all morning.", "I've been sleeping terribly this week.",
         "The supermarket moved everything around again.", "My sister keeps sending me memes at 2am.",
         "I bought a plant and I've already forgotten its name.", "There's a new bakery on our street."]


OUTINGS = ["the street food festival", "that new climbing wall", "the open day at the observatory",
           "your colleague's leaving do", "the flea market by the station", "the quiz night", "the pottery fair",
           "the free concert in the park", "the garden centre sale", "the comedy night", "the lantern parade",
           "the boat trip on the lake"]
VERDICTS = ["better than expected", "far too crowded", "a bit of a washout", "great fun", "weirdly wholesome",
            "exactly as chaotic as I feared", "lovely, we stayed for hours", "okay, not worth the queue"]
FAMILY = ["My mum", "My dad", "My aunt", "My grandad", "Our neighbour", "My uncle", "My flatmate", "My boss"]
FAMILY_NEWS = ["has discovered voice messages and sends ten a day", "is redoing the whole garden again",
               "wants everyone over for lunch on Sunday", "joined a choir and won't stop singing",
               "is convinced the toaster is haunted", "bought a smart speaker and argues with it",
               "has taken up birdwatching", "is planning a cruise", "locked themselves out twice this week",
               "started baking bread every single day"]
RANDOM_Q = ["pineapple on pizza, yes or no?", "best biscuit for dunking?", "would you rather be early or late?",
            "what's the last thing you laughed at?", "sea or mountains?", "how many tabs do you have open right now?",
            "worst chore, go.", "what did you have for breakfast?", "socks with sandals, acceptable?",
            "what's on your desk right now?"]
RANDOM_A = ["Controversial, but yes.", "Absolutely not.", "Hmm, depends on the day.", "Far too many to count.",
            "Ask me after coffee.", "Easy: the first one.", "I refuse to answer that.", "Both, obviously.",
            "A cold mug of something and a pile of receipts.", "Cereal, standing up."]


def greeting(rng: random.Random, a: str, b: str) -> list[Line]:
    """The session's first exchange (``a`` speaks first; lines are speaker names here)."""
    hi = f"{rng.choice(HI)} {b}!" if rng.random() < 0.5 else rng.choice(HI) + "!"
    return [(a, f"{hi} {rng.choice(HOW)}"), (b, rng.choice(FINE) + " " + rng.choice(["You?", "And you?", "", "What about you?"]))]


def goodbye(rng: random.Random, a: str, b: str) -> list[Line]:
    return [(a, rng.choice(BYE)), (b, rng.choice(BYE_REPLY))]


def small_talk(rng: random.Random, a: str, b: str) -> list[Line]:
    """One exchange of small talk (two or three lines)."""
    kind = rng.randrange(11)
    if kind == 0:
        return [(a, f"{rng.choice(WHERE)} {rng.choice(WEATHER)}."),
                (b, rng.choice(REACT) + f" {rng.choice(WHERE)} {rng.choice(WEATHER)}.")]
    if kind == 1:
        return [(a, f"We started watching {rng.choice(SHOWS)}, can't stop."),
                (b, rng.choice(["Ooh, is it good?", "I've heard about it!", "Add it to my list."])),
                (a, rng.choice(["Weirdly addictive.", "So good. Don't judge.", "Two episodes a night, at least."]))]
    if kind == 2:
        return [(a, f"Spent the whole afternoon {rng.choice(CHORES)}."), (b, rng.choice(REACT))]
    if kind == 3:
        return [(a, f"Work this week: {rng.choice(WORK)}, {rng.choice(WORK)}, and {rng.choice(WORK)}."),
                (b, rng.choice(REACT) + " " + rng.choice(["Ours too.", "Hang in there.", "Friday soon."]))]
    if kind == 4:
        return [(a, f"Made {rng.choice(FOODS)} tonight, pretty proud of it."),
                (b, rng.choice(["Save me some!", "Yum.", "Now I'm hungry.", "Recipe please!"]))]
    if kind == 5:
        return [(a, "Any plans for the weekend?"), (b, f"Just {rng.choice(PLANS)}. You?"),
                (a, f"Probably {rng.choice(PLANS)}.")]
    if kind == 6:
        return [(a, rng.choice(SMALL)), (b, rng.choice(REACT))]
    if kind == 7:
        return [(a, rng.choice(REACT) + " " + rng.choice(SMALL))]
    if kind == 8:
        return [(a, f"Did you end up going to {rng.choice(OUTINGS)}?"),
                (b, rng.choice(["Yes, it was ", "We did, and it was ", "Briefly, it was "]) + rng.choice(VERDICTS) + ".")]
    if kind == 9:
        return [(a, f"{rng.choice(FAMILY)} {rng.choice(FAMILY_NEWS)}."), (b, rng.choice(REACT))]
    return [(a, f"Random question: {rng.choice(RANDOM_Q)}"), (b, rng.choice(RANDOM_A))]
