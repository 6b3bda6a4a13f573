"""Idioms and fixed expressions shaped like a declaration ("I keep my cards close to my chest").

Round 5. The open-class families of the pattern table read "I + present verb + object" as a
livelihood or a hobby ("I keep bees", "I run a café"). Many common English idioms have exactly
that shape and say nothing durable about the user: "I keep an eye on it", "I run a tight ship",
"I play it by ear", "I draw the line at karaoke". A clause that contains one of the expressions
below yields no capture at all (whatever pattern would match it).

Each entry is written from general English knowledge as ``verb rest``: the verb in its base form
(every inflection is matched: keeps, kept, keeping), then the fixed words, where

- ``one's`` stands for a possessive (my, your, his, her, our, their, one's),
- ``sb`` for one to three words naming someone or something ("people", "the boss", "him"),
- ``sb's`` for a possessive of someone (a pronoun or a word ending in 's),
- ``(a|b)`` for alternatives and ``[x]`` for an optional word.

The expression must be followed by a word boundary, so "keep an eye on" also refuses "I keep an eye
on the kettle". Copula idioms ("I'm on thin ice", "I'm game") use the verb ``be``.
"""

from __future__ import annotations

import re

#: Verb + fixed words, one expression a line.
IDIOMS: tuple[str, ...] = tuple(
    ln.strip()
    for ln in """
bark up the wrong tree
beat around the bush
beat about the bush
beat a dead horse
beat the clock
beat the system
bend over backwards
bend the rules
bite the bullet
bite the dust
bite one's tongue
bite off more than
bite sb's head off
blow off steam
blow one's own trumpet
blow one's top
blow it
blow sb away
break the ice
break the bank
break a leg
break even
break the mould
break one's back
break the news
break sb's heart
bring home the bacon
bring sb up to speed
brush sb off
burn the midnight oil
burn the candle at both ends
burn one's bridges
bury the hatchet
buy time
buy it
call dibs
call it a day
call it a night
call it quits
call the shots
call it as one sees it
call sb's bluff
call a spade a spade
carry the can
catch sb's drift
catch some z's
change one's tune
cherry-pick
chew the fat
chip in
clear the air
climb the walls
come clean
cool one's heels
cost an arm and a leg
count one's blessings
cross one's fingers
cross that bridge
cry over spilt milk
cry wolf
cut corners
cut to the chase
cut sb some slack
cut one's losses
cut it fine
cut it close
dig one's heels in
dig in one's heels
do one's bit
do one's head in
do the trick
draw the line
draw a blank
draw the short straw
get the short straw
drive a hard bargain
drive sb up the wall
drive sb mad
drive sb crazy
drive sb nuts
drop the ball
drop sb a line
eat one's words
eat humble pie
eat sb alive
face the music
fall on deaf ears
fall into place
feel the pinch
fight fire with fire
fill sb's shoes
find one's feet
fish for compliments
fit the bill
fly off the handle
fly by the seat of one's pants
follow suit
follow one's nose
follow one's heart
get a grip
get the ball rolling
get the picture
get the gist
get the hang of
get cold feet
get one's wires crossed
get one's act together
get one's head around
get on sb's nerves
get out of hand
get the wrong end of the stick
get wind of
get a kick out of
get it
get over it
give it a go
give it a whirl
give it a shot
give it a try
give up
give sb the benefit of the doubt
give sb a hand
give sb the cold shoulder
go the extra mile
go with the flow
go back and forth
go back to square one
go along with
go for broke
go off the rails
go out on a limb
go down a storm
go to pieces
go halves
go dutch
hang in there
hang on
have a lot on one's plate
have bigger fish to fry
have one's hands full
have a frog in one's throat
have an axe to grind
have a chip on one's shoulder
have egg on one's face
have butterflies
have a bone to pick
have a screw loose
have one's heart set on
have a lot on
have a go at
have it in for
have the last laugh
have no idea
have a feeling
have a hunch
have my doubts
have one's doubts
have sb's back
have sb over a barrel
have a word
have the time of one's life
hear sb out
hear you
hit the ground running
hit the nail on the head
hit the hay
hit the sack
hit the roof
hit the books
hit a wall
hit it off
hit the jackpot
hit the road
hold one's tongue
hold one's horses
hold the fort
hold one's breath
hold one's own
hold sb to it
jump the gun
jump through hoops
jump on the bandwagon
jump ship
keep an eye on
keep an eye out
keep one's eyes peeled
keep one's head down
keep one's head above water
keep one's nose clean
keep one's nose to the grindstone
keep one's chin up
keep one's cool
keep one's word
keep one's mouth shut
keep one's options open
keep one's cards close to one's chest
keep one's distance
keep one's fingers crossed
keep it real
keep it simple
keep it together
keep it up
keep it down
keep a straight face
keep a low profile
keep a lid on
keep a cool head
keep a tight rein on
keep tabs on
keep sb posted
keep sb in the loop
keep sb on their toes
keep sb at arm's length
keep the peace
keep the ball rolling
keep the wolf from the door
keep up appearances
keep up with the joneses
keep body and soul together
keep one's hand in
kick the bucket
kick the can down the road
kick the habit
kick up a fuss
kill two birds with one stone
kill time
kill it
knock it out of the park
knock sb's socks off
know the ropes
know one's stuff
lay it on thick
lead sb up the garden path
learn the ropes
learn one's lesson
leave no stone unturned
let the cat out of the bag
let off steam
let sb off the hook
let one's hair down
let it slide
let it go
lie low
live and learn
live in hope
live from hand to mouth
look on the bright side
look the other way
lose one's temper
lose one's cool
lose one's marbles
lose one's touch
lose sleep over
lose track
make ends meet
make do
make a point of
make it up as one goes
make a mountain out of a molehill
make a killing
make a splash
make a scene
make a fuss
make waves
make the cut
make the most of
make one's day
make up one's mind
make or break
miss the boat
miss the mark
miss the point
mind one's own business
mind one's p's and q's
move the goalposts
nail it
nip it in the bud
open a can of worms
owe sb one
owe you one
own up
paint the town red
pass the buck
pay through the nose
pay the price
pick sb's brains
pick up the slack
pick up the tab
play it by ear
play it safe
play it cool
play the long game
play the field
play the game
play the fool
play the victim
play the card
play devil's advocate
play second fiddle
play hardball
play with fire
play one's cards right
play one's cards close to one's chest
play catch-up
play hard to get
play it down
play dumb
play by the rules
play sb off against
pour one's heart out
pull one's weight
pull one's socks up
pull strings
pull sb's leg
pull the plug
pull a fast one
pull an all-nighter
pull out all the stops
push one's luck
push the boat out
push the envelope
put one's foot down
put one's foot in it
put one's feet up
put one's money where one's mouth is
put sb on the spot
put all one's eggs in one basket
put two and two together
raise the bar
raise the roof
read between the lines
read the room
read sb like a book
rest one's case
ride it out
ride one's luck
rock the boat
roll with the punches
rub sb up the wrong way
rub sb the wrong way
rub salt in the wound
rule the roost
run a tight ship
run late
run one's mouth
run out of steam
run the show
run the risk
run rings round
run hot and cold
run sb ragged
run a mile
save face
save the day
see red
see eye to eye
see the light
see what you did there
sell sb short
shoot oneself in the foot
shoot the breeze
sit on the fence
sit tight
sleep on it
smell a rat
speak one's mind
speak from experience
speak the same language
spill the beans
spill the tea
split hairs
spread oneself too thin
stand corrected
stand one's ground
steal the show
steal sb's thunder
stick to one's guns
stick one's neck out
stick one's oar in
stick out like a sore thumb
swallow one's pride
take it back
take it easy
take it or leave it
take it with a pinch of salt
take it with a grain of salt
take things one day at a time
take it one day at a time
take a rain check
take the plunge
take the mick
take the mickey
take the biscuit
take the cake
take one's point
take your point
take sb's word for it
take the bull by the horns
take a back seat
take sides
talk the talk
talk shop
talk sb's ear off
tear one's hair out
throw in the towel
throw caution to the wind
throw sb under the bus
throw a spanner in the works
tie the knot
tie up loose ends
tighten one's belt
toe the line
touch base
touch wood
turn a blind eye
turn over a new leaf
turn the tables
turn the corner
twist sb's arm
walk on eggshells
walk the walk
wash one's hands of
wear one's heart on one's sleeve
wear many hats
wear two hats
wear the trousers
wear thin
weather the storm
wing it
work one's fingers to the bone
work for peanuts
work one's socks off
work one's magic
zone out
space out
digress
beg to differ
kid you not
second that
be on it
be game
be beat
be toast
be so done
be done with
be all in
be all ears
be on thin ice
be on a roll
be on the mend
be on the ball
be on the same page
be in the same boat
be in the doghouse
be in hot water
be in a pickle
be out of one's depth
be at one's wits' end
be at the end of one's rope
be at the end of one's tether
be over it
be over the moon
be a fish out of water
be an open book
be all thumbs
be all fingers and thumbs
be running on fumes
be running on empty
be up for it
be spoilt for choice
be spoiled for choice
be sold
be all yours
be with you on
be not buying it
be not having it
be bricking it
be chuffed to bits
be easy either way
be easy, either way
be pulling sb's leg
be a dab hand
be in two minds
be on the fence
be a glutton for punishment
herd cats
juggle chainsaws
fall between two stools
sail close to the wind
ruffle feathers
ruffle some feathers
talk nineteen to the dozen
tread carefully
""".strip().splitlines()
    if ln.strip()
)

_IRREGULAR: dict[str, tuple[str, ...]] = {
    "be": ("'m", "am", "are", "is", "'re", "was", "were", "been", "being", "be"),
    "beat": ("beats", "beat", "beaten", "beating"),
    "bend": ("bends", "bent", "bending"),
    "bite": ("bites", "bit", "bitten", "biting"),
    "blow": ("blows", "blew", "blown", "blowing"),
    "break": ("breaks", "broke", "broken", "breaking"),
    "bring": ("brings", "brought", "bringing"),
    "burn": ("burns", "burnt", "burned", "burning"),
    "buy": ("buys", "bought", "buying"),
    "catch": ("catches", "caught", "catching"),
    "come": ("comes", "came", "coming"),
    "cost": ("costs", "cost", "costing"),
    "cut": ("cuts", "cut", "cutting"),
    "dig": ("digs", "dug", "digging"),
    "do": ("does", "did", "done", "doing"),
    "draw": ("draws", "drew", "drawn", "drawing"),
    "drive": ("drives", "drove", "driven", "driving"),
    "eat": ("eats", "ate", "eaten", "eating"),
    "fall": ("falls", "fell", "fallen", "falling"),
    "feel": ("feels", "felt", "feeling"),
    "fight": ("fights", "fought", "fighting"),
    "find": ("finds", "found", "finding"),
    "fly": ("flies", "flew", "flown", "flying"),
    "get": ("gets", "got", "gotten", "getting"),
    "give": ("gives", "gave", "given", "giving"),
    "go": ("goes", "went", "gone", "going"),
    "hang": ("hangs", "hung", "hanging"),
    "have": ("has", "had", "having", "'ve", "'ve got", "have got", "'ve had", "'d"),
    "hear": ("hears", "heard", "hearing"),
    "hit": ("hits", "hit", "hitting"),
    "hold": ("holds", "held", "holding"),
    "keep": ("keeps", "kept", "keeping"),
    "know": ("knows", "knew", "known", "knowing"),
    "lay": ("lays", "laid", "laying"),
    "lead": ("leads", "led", "leading"),
    "learn": ("learns", "learnt", "learned", "learning"),
    "leave": ("leaves", "left", "leaving"),
    "let": ("lets", "let", "letting"),
    "lie": ("lies", "lay", "lain", "lying"),
    "lose": ("loses", "lost", "losing"),
    "make": ("makes", "made", "making"),
    "pay": ("pays", "paid", "paying"),
    "put": ("puts", "put", "putting"),
    "read": ("reads", "read", "reading"),
    "ride": ("rides", "rode", "ridden", "riding"),
    "run": ("runs", "ran", "running"),
    "see": ("sees", "saw", "seen", "seeing"),
    "sell": ("sells", "sold", "selling"),
    "shoot": ("shoots", "shot", "shooting"),
    "sit": ("sits", "sat", "sitting"),
    "sleep": ("sleeps", "slept", "sleeping"),
    "speak": ("speaks", "spoke", "spoken", "speaking"),
    "spill": ("spills", "spilt", "spilled", "spilling"),
    "split": ("splits", "split", "splitting"),
    "spread": ("spreads", "spread", "spreading"),
    "stand": ("stands", "stood", "standing"),
    "steal": ("steals", "stole", "stolen", "stealing"),
    "stick": ("sticks", "stuck", "sticking"),
    "swallow": ("swallows", "swallowed", "swallowing"),
    "take": ("takes", "took", "taken", "taking"),
    "tear": ("tears", "tore", "torn", "tearing"),
    "think": ("thinks", "thought", "thinking"),
    "throw": ("throws", "threw", "thrown", "throwing"),
    "wear": ("wears", "wore", "worn", "wearing"),
    "win": ("wins", "won", "winning"),
    "wing": ("wings", "winged", "winging"),
}
_POSS = r"(?:my|your|his|her|our|their|one's|its)"
_SB = r"(?:[\w'-]+(?: [\w'-]+){0,2}?)"
_SBS = r"(?:my|your|his|her|our|their|[\w-]+'s)"


def forms(verb: str) -> tuple[str, ...]:
    """Every inflection of ``verb`` (base, -s, past, participle, -ing)."""
    if verb in _IRREGULAR:
        return (verb, *_IRREGULAR[verb])
    if "-" in verb or " " in verb:
        return (verb,)
    if verb.endswith("e"):
        return verb, verb + "s", verb + "d", verb[:-1] + "ing"
    if re.search(r"[^aeiou]y$", verb):
        return verb, verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"
    if re.search(r"(?:s|sh|ch|x|z)$", verb):
        return verb, verb + "es", verb + "ed", verb + "ing"
    if re.search(r"[^aeiou][aeiou][bdgmnprt]$", verb) and len(verb) <= 4:
        return verb, verb + "s", verb + verb[-1] + "ed", verb + verb[-1] + "ing"
    return verb, verb + "s", verb + "ed", verb + "ing"


def _rest(rest: str) -> str:
    """The regular expression of the fixed words after the verb."""
    out = ""
    for tok in rest.split():
        if tok.startswith("[") and tok.endswith("]"):
            out += "(?:" + re.escape(tok[1:-1]) + " )?"
            continue
        if tok == "one's":
            piece = _POSS
        elif tok == "oneself":
            piece = r"(?:myself|yourself|himself|herself|ourselves|themselves|oneself)"
        elif tok == "sb":
            piece = _SB
        elif tok == "sb's":
            piece = _SBS
        elif tok.startswith("(") and tok.endswith(")"):
            piece = "(?:" + "|".join(re.escape(a) for a in tok[1:-1].split("|")) + ")"
        else:
            piece = re.escape(tok)
        out += piece + " "
    return out.rstrip()


def _compile() -> tuple[frozenset[str], dict[str, re.Pattern[str]]]:
    by_form: dict[str, list[str]] = {}
    for idiom in IDIOMS:
        verb, _, rest = idiom.partition(" ")
        body = _rest(rest) if rest else ""
        for f in forms(verb):
            by_form.setdefault(f.split()[-1] if not f.startswith("'") else f, []).append(body)
    compiled: dict[str, re.Pattern[str]] = {}
    for f, bodies in by_form.items():
        alts = "|".join(sorted({b for b in bodies}, key=len, reverse=True))
        head = re.escape(f)
        # "'m" / "'ve" are glued to the pronoun: "I'm toast"; other forms are whole words.
        lead = r"(?<=[A-Za-z])" if f.startswith("'") else r"\b"
        tail = rf"(?: (?:{alts}))" if alts and "" not in bodies else rf"(?: (?:{alts}))?" if alts else ""
        compiled[f] = re.compile(rf"(?i){lead}{head}(?: (?:really|just|so|totally|always|never|often|sometimes|usually|kind of|a bit))*{tail}(?![\w'])")
    return frozenset(compiled), compiled


_FORMS, _BY_FORM = _compile()
_WORD = re.compile(r"[A-Za-z][\w-]*|'[a-z]+")


def find_idiom(text: str) -> str | None:
    """The idiom or fixed expression found in ``text`` (its matched words), or None."""
    seen: set[str] = set()
    for w in _WORD.findall(text):
        low = w.lower()
        if low in _FORMS and low not in seen:
            seen.add(low)
            m = _BY_FORM[low].search(text)
            if m:
                return m.group(0)
    return None
