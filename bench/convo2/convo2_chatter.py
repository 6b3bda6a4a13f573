"""What friends say between the facts (bench/convo2): greetings, digressions, moaning, plans that
never happen, and goodbyes. Each exchange is a few lines for alternating speakers (``X`` speaks
first, ``Y`` answers); slots are filled from small word lists so that the same line rarely comes
twice. Some of it mentions the storylines' topics (someone else's dog, a friend's trip, a show
about moving house) without saying anything about the two speakers: what a question's words also
match."""

from __future__ import annotations

import random

GREETINGS = [
    ["hey {y}!! how's your week going", "hiii. surviving, just about. you?", "same tbh"],
    ["morning! you alive?", "barely. too much wine last night lol"],
    ["{y}!! long time", "i know i know, work has been insane", "excuses excuses"],
    ["yo", "yo yo. what's up"],
    ["hello stranger 👋", "hiya! sorry i've been so bad at replying"],
    ["ok i have like ten minutes, go", "haha hi. quick update round then"],
    ["happy {wd}!", "is it {wd}? i've lost all track of time"],
    ["you up?", "unfortunately yes"],
    ["heyy, quick one before my meeting", "go!"],
    ["{y} are you around?", "kind of, on the train. what's up"],
    ["good morning sunshine ☀️", "it is NOT a good morning but hi"],
    ["sorry for vanishing last week", "you're forgiven. mostly"],
    ["hiii how was your weekend", "too short. yours?", "also too short"],
    ["ok i'm finally free, how are you", "tired but fine! you?"],
    ["knock knock", "who's there", "me, bored at work"],
    ["evening! what are you up to", "sofa. blanket. you?"],
]

GOODBYES = [
    ["ok gotta run, talk soon x", "byeee"],
    ["anyway i should actually do some work", "same lol. laters"],
    ["right, dinner's ready. speak soon!", "enjoy! x"],
    ["my battery is at 2%, bye!!", "go go go"],
    ["night night", "sleep well"],
    ["ok that's enough procrastinating for one day", "ha. chat later"],
    ["gotta go, meeting in 2", "good luck, bye!"],
    ["ok my train's here, later!", "safe trip"],
    ["right i'm off to bed, speak tomorrow", "night!"],
    ["have to go pick up my {rel}, chat soon", "say hi from me"],
    ["ok laters, love ya", "love ya x"],
    ["talk at the weekend?", "deal 👍"],
]

EXCHANGES = [
    ["is it just me or is it freezing today", "it's {weather} here, i've given up on seasons"],
    ["have you watched {show} yet", "no!! is it good?", "it's so good. the {ep} episode wrecked me"],
    ["i think i'm getting a cold", "drink something hot and go to bed early", "yes mum"],
    ["my phone screen cracked again", "how??", "dropped it in the {place}. don't ask"],
    ["what are you having for dinner", "{dinner} probably. thrilling", "living the dream"],
    ["the {place} was packed today", "ugh, everyone had the same idea"],
    ["did you see that video of the {animal} on the trampoline", "YES i've watched it like 40 times"],
    ["i need a holiday", "don't we all", "somewhere with a beach and no wifi"],
    ["my {rel} called for an hour about the neighbour's hedge", "classic", "i know way too much about hedges now"],
    ["thinking of cutting my hair short", "do it!! you'd suit it", "hmm maybe. scared"],
    ["the bus was 25 minutes late AGAIN", "public transport is a scam", "honestly"],
    ["i bought a plant and it's already dying", "what kind", "no idea, a green one"],
    ["can't believe it's {month} already", "right?? where did the year go"],
    ["wait did i tell you about the {thing}", "no?", "ok never mind it's a long story, next time"],
    ["{rel} wants to do a group holiday to {city}", "oof. all of you?", "all of us. pray for me"],
    ["my friend {friend} just got a puppy, it's chewing everything", "puppies are chaos", "cute chaos though"],
    ["{friend} is moving to {city} apparently", "wow, for work?", "i think so yeah"],
    ["have you been to that new {food} place", "not yet, any good?", "overpriced but tasty"],
    ["my {rel} is learning {lang} on an app, the owl threatens her daily", "lol the owl is relentless"],
    ["did you end up doing anything fun", "nah, just cleaned the flat and napped", "sounds perfect actually"],
    ["i've had four coffees today", "that explains the typing speed", "ha"],
    ["the wifi in this cafe is from 2003", "use your hotspot", "doing that now"],
    ["{friend} ran the city marathon, mad", "i can barely run for the bus"],
    ["someone at work brought a dog in today", "best day ever?", "it sat on my foot for an hour. yes"],
    ["i'm so behind on emails", "declare email bankruptcy", "tempting"],
    ["what's the plan for {wd}", "nothing yet, you?", "same, let's see"],
    ["it's so loud outside, they're digging up the road again", "they literally just finished it"],
    ["my {rel} got married in {city} last year and still talks about the cake", "must've been some cake"],
    ["just burnt my toast", "how", "talent"],
    ["i keep seeing ads for {thing} since we talked about it", "the phones are listening", "100%"],
    ["do you know a good dentist", "mine's alright, i'll send you the name", "ta"],
    ["rain again 🙃", "it's {weather} here for once"],
    ["guess who i bumped into at the {place}", "who?", "{friend}! hasn't changed a bit"],
    ["my neighbour's cat keeps coming into my flat", "adopt it", "i think it has adopted me"],
    ["{show} season 2 is out", "no spoilers!!", "my lips are sealed"],
    ["can you recommend a book", "depends, sad or fun", "fun please, i've had enough sad"],
    ["my landlord finally fixed the door handle", "only took him six months"],
    ["i've started doing a crossword every morning", "smart. i can never get past 3 across"],
    ["the office heating is broken and i'm wearing my coat at my desk", "very glamorous"],
    ["my {rel} sent me a voice note that was eleven minutes long", "did you listen to all of it", "obviously not"],
    ["should i get a fringe", "no", "ok fair"],
    ["there's a fox in the garden again", "say hello from me", "he ignored me"],
    ["i ate an entire pizza to myself last night", "as you should"],
    ["{friend} is having a birthday thing on {wd}, you coming?", "maybe! where is it", "some bar in town, i'll send the link"],
    ["tried that {food} place you mentioned", "and??", "you were right, so good"],
    ["i accidentally replied-all to the whole company", "NO", "yes. i want to move to the woods"],
    ["i want to repaint my bedroom", "what colour", "thinking green? or is that too much"],
    ["has your internet been weird today", "mine's fine, must be you", "typical"],
    ["ok random but do you still have my {thing}", "oh god. maybe. i'll look"],
    ["i fell asleep on the sofa at 8pm", "iconic behaviour", "i woke up at 1 very confused"],
    ["my {rel}'s cat had kittens!!", "omg how many", "five. i'm not allowed one apparently"],
    ["i need new running shoes, mine have holes", "since when do you run", "i don't, i just wear them"],
    ["the new series of {show} is a bit meh", "really? i liked the first ep", "it gets slower"],
    ["my plants are thriving since i moved them to the window", "see, they just needed light"],
    ["do you ever just stare at the fridge hoping food appears", "every day"],
    ["i signed up for a newsletter and now i get 6 emails a day", "unsubscribe immediately"],
    ["hot take: {food} is overrated", "how dare you", "i said what i said"],
    ["the queue at the {place} was out the door", "was there something on?", "no idea, i gave up"],
    ["my {rel} just discovered emojis", "oh no", "i got 14 thumbs up this morning"],
    ["thinking about a weekend away in {city}", "ooh i've heard it's lovely", "need to find cheap trains first"],
    ["i left my umbrella on the bus. third one this year", "you need one of those hat umbrellas", "honestly considering it"],
    ["someone stole the milk from the office fridge again", "office crime", "i'm labelling everything now"],
    ["what's your go-to karaoke song", "never telling", "coward"],
    ["i cleaned the oven for the first time in two years", "proud of you", "it was horrifying"],
    ["got a parking ticket outside the {place}", "noooo how much", "don't want to talk about it"],
    ["my neighbours are learning the drums", "oh no", "every night at 9, like clockwork"],
]

SLOTS: dict[str, list[str]] = {
    "weather": ["boiling", "grey and drizzly", "weirdly sunny", "windy", "foggy", "muggy"],
    "show": ["The Bear", "Slow Horses", "Severance", "Taskmaster", "Succession", "Bake Off", "Fleabag", "Dark"],
    "ep": ["third", "last", "second", "fifth", "finale"],
    "place": ["supermarket", "gym", "post office", "park", "station", "library", "car park", "cafe"],
    "dinner": ["pasta", "leftover curry", "beans on toast", "a sad salad", "noodles", "cereal"],
    "animal": ["goat", "raccoon", "corgi", "duck", "panda", "hamster"],
    "rel": ["mum", "dad", "aunt", "brother", "gran", "cousin", "uncle"],
    "month": ["march", "june", "september", "november", "may", "october"],
    "thing": ["air fryer", "standing desk", "weighted blanket", "robot hoover", "massage gun", "kettle"],
    "city": ["Madrid", "Oslo", "Prague", "Dublin", "Athens", "Vienna", "Marseille", "Bruges"],
    "friend": ["Gemma", "Raj", "Lotte", "Marcus", "Helga", "Paddy", "Yara", "Stefan", "Chloe"],
    "food": ["ramen", "taco", "dim sum", "falafel", "poke", "burger", "thai"],
    "lang": ["spanish", "italian", "german", "french"],
    "wd": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
}

FILLERS = ["ok so ", "lol ", "omg ", "honestly ", "wait ", "anyway ", "hmm ", "ngl ", "ahh ", "so ", "right so "]
TAILS = [" lol", " haha", " 😅", " tbh", "!!", " x", " 🙃", " ...", " ha", "", "", ""]


def fill(rng: random.Random, text: str, other: str) -> str:
    out = text.replace("{y}", other.lower() if rng.random() < 0.5 else other)
    for key, vals in SLOTS.items():
        while "{" + key + "}" in out:
            out = out.replace("{" + key + "}", rng.choice(vals), 1)
    return out


def typo(rng: random.Random, text: str) -> str:
    """One slip of the thumb in a lower-case word of five letters or more (names and numbers stay)."""
    words = text.split(" ")
    idx = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha() and w.islower()]
    if not idx:
        return text
    i = rng.choice(idx)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    how = rng.random()
    if how < 0.4:
        w = w[:j] + w[j + 1] + w[j] + w[j + 2:]  # swapped letters
    elif how < 0.7:
        w = w[:j] + w[j + 1:]  # a dropped letter
    else:
        w = w[:j] + w[j] + w[j:]  # a doubled letter
    words[i] = w
    return " ".join(words)
