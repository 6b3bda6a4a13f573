"""Closed word lists (lexicons) and the shared expressions built from them."""

from __future__ import annotations

import re

IMP_VERBS = (
    "use|reply|respond|answer|write|call|address|include|add|format|show|send|cc|bcc|schedule|"
    "book|ask|check|double-check|confirm|suggest|recommend|give|put|start|end|sign|refer|speak|"
    "talk|translate|remind|wake|text|email|spell|round|assume|list|keep|make|explain|summarize|"
    "summarise|leave|share|contact|order|pick|tell|avoid|skip|mention|cite|link|convert|quote|"
    "notify|alert|warn|label|tag|file|save|copy|forward|default|set|prioritize|prioritise|"
    "limit|greet|respond|draft|reserve|offer|sort|measure|show|display|mark|describe|bring up|"
    "let me know|express|express|present|give|reply|post|publish|read|play|order"
)
_IMP = rf"(?:{IMP_VERBS})"
_IMP_ING = (
    r"(?:calling|using|sending|suggesting|recommending|adding|putting|asking|mentioning|including|"
    r"booking|scheduling|writing|formatting|apologi[sz]ing|saying|cc'?ing|texting|emailing|"
    r"waking|giving|starting|ending|signing|addressing|sharing|replying|responding|answering)"
)
_RELATIONS = (
    r"(?:best |close |oldest |old |younger |older |little |big |baby |twin |eldest |youngest )?"
    r"(?:grandad|granddad|granny|gran|nan|nana|nanna|grandparents|parents|kids|children|"
    r"wife|husband|partner|spouse|girlfriend|boyfriend|fianc[ée]e?|fiance|fiancee|mom|mum|"
    r"mother|dad|father|sister|brother|son|daughter|grandma|grandmother|grandpa|grandfather|"
    r"(?:great-)?(?:granddaughter|grandson|grandchild|grandkid|grandniece|grandnephew)|"
    r"aunt|uncle|cousin|niece|nephew|friend|roommate|flatmate|neighbou?r|boss|manager|"
    r"supervisor|colleague|co-?worker|assistant|dentist|doctor|gp|therapist|lawyer|attorney|"
    r"accountant|landlord|landlady|trainer|coach|tutor|mentor|vet|babysitter|nanny|"
    r"(?:sister|brother|mother|father|son|daughter)-in-law|step(?:mom|mum|dad|mother|father|"
    r"sister|brother|son|daughter)|pediatrician|paediatrician|physio|physiotherapist|"
    r"hairdresser|barber|plumber|mechanic|financial advisor|advisor|adviser|"
    # more people in a life, and medical specialists by their suffix
    r"business partner|mate|pal|buddy|bestie|bff|other half|ex|ex-wife|ex-husband|ex-partner|"
    r"godmother|godfather|godson|goddaughter|carer|cleaner|childminder|optician|optometrist|"
    r"pharmacist|surgeon|consultant|midwife|solicitor|agent|line manager|team lead|tech lead|"
    r"eldest|youngest|oldest|middle child|twins|in-laws|[a-z]+ologist|[a-z]+iatrist|[a-z]+ician|"
    r"osteopath|chiropractor|psychotherapist|counsellor|counselor|nurse|teacher|headteacher)"
)
_PETS = (
    r"(?:dogs?|cats?|pupp(?:y|ies)|kittens?|parrots?|birds?|rabbits?|hamsters?|horses?|fish|turtles?|snakes?|geckos?|guinea pigs?|"
    r"greyhounds?|whippets?|lurchers?|spaniels?|labradors?|labs|terriers?|collies|collie|retrievers?|dachshunds?|"
    r"poodles?|pugs?|huskies|husky|beagles?|corgis?|chihuahuas?|alsatians?|boxers|rottweilers?|budgies?|ferrets?|"
    r"tortoises?|cockatiels?|lovebirds?|chinchillas?|gerbils?|rats|mice|axolotls?|bearded dragons?|ponies|pony|donkeys?)"
)
_KIDS = (
    r"(?:kids?|child(?:ren)?|childs|sons?|daughters?|siblings?|brothers?|sisters?|twins|twin (?:boys|girls)|grandkids|"
    r"grandchildren|grandsons?|granddaughters?|step(?:sons?|daughters?)|baby|toddler|teenagers?)"
)
_JOBS = (
    r"(?:engineer|developer|programmer|nurse|teacher|doctor|physician|surgeon|dentist|lawyer|"
    r"attorney|accountant|designer|architect|student|researcher|scientist|professor|lecturer|"
    r"manager|consultant|writer|journalist|editor|photographer|artist|musician|chef|cook|baker|"
    r"farmer|pilot|driver|electrician|plumber|carpenter|mechanic|firefighter|police officer|"
    r"paramedic|pharmacist|therapist|psychologist|social worker|vet|veterinarian|translator|"
    r"analyst|data scientist|founder|co-founder|entrepreneur|freelancer|contractor|librarian|"
    r"cashier|barista|waiter|waitress|bartender|salesperson|realtor|recruiter|economist|intern|"
    r"retiree|stay-at-home (?:mom|dad|parent)|homemaker|civil servant|soldier|nanny|caregiver|"
    r"coach|trainer|tutor|midwife|optometrist|physiotherapist|paralegal|banker|trader|actor|"
    r"actress|dancer|illustrator|animator|sysadmin|devops engineer|product owner|ux designer|"
    r"copywriter|marketer|teaching assistant|postdoc|phd candidate|undergrad|grad student|"
    r"security guard|guard|officer|care worker|support worker|factory worker|worker|operator|technician|"
    r"receptionist|clerk|porter|cleaner|labourer|laborer|miner|secretary|administrator|coordinator|"
    r"supervisor|director|executive|ceo|cto|cfo|headteacher|headmaster|headmistress|postman|postwoman|"
    r"hairdresser|beautician|carer|childminder|estate agent|solicitor|surveyor|dispatcher|"
    r"vicar|rabbi|imam|priest|pastor|curate|chaplain|minister|landscape gardener|market gardener|head gardener|"
    r"deckhand|skipper|fisherman|fisherwoman|trawlerman)"
)
_STATES = (
    r"(?:vegetarian|vegan|pescatarian|lactose[- ]intolerant|gluten[- ]intolerant|diabetic|"
    r"(?:(?:divorced|separated|widowed|married|single) with (?:a|one|two|three|four|five|\d) (?:kids?|children|child|sons?|daughters?|boys?|girls?|teenagers?))|"
    r"a recovering (?:alcoholic|addict|gambler)|(?:red-green |partially |completely )?colou?r-?blind|"
    r"bilingual|trilingual|multilingual|"
    r"celiac|coeliac|left-handed|right-handed|colou?r-?blind|deaf|hard of hearing|blind|dyslexic|"
    r"autistic|epileptic|asthmatic|pregnant|sober|teetotal|kosher|halal|married|single|"
    r"divorced|widowed|engaged|retired|unemployed|self-employed|a night owl|an early bird|"
    r"an introvert|an extrovert|transgender|nonbinary|non-binary|hearing impaired|"
    r"visually impaired|in recovery|a smoker|a non-smoker|a morning person|not a morning person)"
)
_CONDITIONS = (
    r"(?:celiac disease|coeliac disease|diabetes|type [12] diabetes|asthma|epilepsy|adhd|"
    r"dyslexia|a heart condition|high blood pressure|migraines|ibs|crohn'?s(?: disease)?|lupus|"
    r"arthritis|tinnitus|a pacemaker|hearing aids|a bad back|a bad knee|long covid|"
    r"sleep apnea|anxiety|depression|ptsd|ocd|hypertension)"
)
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAYS = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?"
_DATE_RE = re.compile(
    rf"(?i)\b(?:{_MONTHS}|{_DAYS}|tomorrow|tonight|today|weekend|next \w+|this (?:week|weekend|"
    rf"month|year|evening|afternoon|morning)|end of (?:the )?\w+|\d{{1,4}}(?:st|nd|rd|th)?|"
    rf"noon|midnight|every \w+|in \d+ \w+)\b"
)
NAME = (
    r"(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s)?[A-Z][\w'’-]*"
    r"(?:\s(?:[A-Z][\w'’-]*|[A-Z]\.|de|van|von|da|del|le|la|bin|al))*)"
)
_NOT_NAMES = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "tomorrow",
    "today", "tonight", "later", "back", "maybe", "asap", "he", "she", "it", "this", "that",
    "there", "they", "we", "you", "i", "no", "not", "yes", "ok", "okay", "soon", "now",
}  # fmt: skip
_NOT_ALLERGENS = {
    "mondays", "monday", "mornings", "work", "hard work", "homework", "exercise", "effort",
    "school", "meetings", "people", "stupidity", "nonsense", "bs", "drama", "commitment",
    "responsibility", "math", "maths", "cleaning", "chores", "running", "early mornings",
    "small talk", "deadlines", "taxes", "paperwork", "you", "this", "that", "it", "everything",
}  # fmt: skip
#: Organisational "from" ("I'm from the marketing team", "I'm from IT"): not a place.
_ORG_FROM = re.compile(
    r"(?i)^(?:the )?(?:[\w&-]+ ){0,3}(?:team|department|dept|office|division|unit|council|company|firm|agency|"
    r"desk|helpdesk|ministry|committee|board|bank|future|past|group|squad|crew|side)\b|"
    r"^(?:IT|HR|sales|marketing|accounts|finance|legal|support|customer service|admin|payroll|procurement|ops|"
    r"facilities|estates|maintenance|security|reception|compliance|logistics|purchasing|operations|engineering|"
    r"R&D|QA|infrastructure|comms|communications|PR|catering|housekeeping|planning|pharmacy|radiology|pathology|"
    r"occupational health|building control|environmental health|head office|the front desk)\b"
)
#: "I'm from X, about the broken door": a caller naming a department, not a home town.
_ABOUT_TAIL = re.compile(
    r"(?i),\s*(?:about|re|regarding|following up|calling|here about|with a (?:quick )?(?:question|query)|quick question|"
    r"just checking|checking in|chasing)\b"
)
#: Objects of like/love/hate/prefer that point back at the conversation, not at a taste.
_DISCOURSE = re.compile(
    r"(?i)^(?:it|this|that|these|those|them|him|her|you|your|yours|how|what|when|where|which|"
    r"who|why|so|too|either|neither|both|one|option|version|to (?:think|believe|say|know|see|hear)"
    r"|the (?:new|last|first|second|third|other|previous|above|latter|former|idea|way|tone|"
    r"answer|response|reply|version|option|design|format|formatting|layout|wording|plan|"
    r"suggestion|draft|result|change|changes|edit|update|one|rest|original|current|latest)\b)\b"
)
_TASK_LOCAL = re.compile(
    r"(?i)\b(?:this|that|these|those|here|above|below|today|tonight|now|for now|right now|"
    r"it|the (?:file|document|draft|report|essay|email|message|paragraph|answer|list|table|"
    r"code|script|text|post|article|slides?))\b"
)
LEADIN_RE = re.compile(
    r"(?i)^(?:(?:also|and|oh,? and|oh,? also|btw|by the way|fyi|just fyi|just so you know|"
    r"for the record|for context|for reference|for your info(?:rmation)?|actually|honestly|"
    r"ok(?:ay)?|so|hi|hey|hello|well|one more thing|quick note|heads up|just a heads up|"
    r"p\.?s\.?|oh and also)\s*(?:[,:!.;\-–—]+\s*|\s+))+"
)
_EMAIL_RE = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
#: What may follow a complete declaration: an aside after a comma or dash, or a new clause
#: introduced by a conjunction ("I'm lactose intolerant so no milk please").
_TAIL = (
    r"(?:\s*[,(–—-]\s.*|\s*,.*|\s+(?:so|because|since|which|but|though|although|and|lol|haha|"
    r"btw|by the way|these days|nowadays|at the moment|for (?:medical|health|religious|ethical) reasons|"
    r"through and through|any day(?: of the week)?|tbh|ngl|to be honest|if I'm honest|"
    r"for (?:many|several|a few|\d+|two|three|four|five|ten) years|since (?:I was|birth|childhood|\d{4}))\b.*)?$"
)
_LANGS = (
    r"(?:english|spanish|french|german|italian|portuguese|dutch|swedish|norwegian|danish|finnish|"
    r"icelandic|polish|czech|slovak|hungarian|romanian|bulgarian|greek|turkish|russian|ukrainian|"
    r"serbian|croatian|bosnian|slovenian|albanian|lithuanian|latvian|estonian|irish|welsh|gaelic|"
    r"catalan|basque|galician|arabic|hebrew|persian|farsi|urdu|hindi|bengali|punjabi|gujarati|"
    r"marathi|tamil|telugu|kannada|malayalam|nepali|sinhala|mandarin|cantonese|chinese|japanese|"
    r"korean|vietnamese|thai|khmer|lao|burmese|malay|indonesian|tagalog|filipino|swahili|amharic|"
    r"somali|yoruba|igbo|hausa|zulu|xhosa|afrikaans|esperanto|latin|sign language|asl|bsl)"
)
_MONTH_WORDS = _MONTHS
#: A day-level date: a meeting "at 4" or "in five minutes" is not an event worth a memory.
_DAY_DATE = re.compile(
    rf"(?i)\b(?:(?:{_MONTH_WORDS}|{_DAYS})\b|tomorrow|next (?:week|month|year|weekend|{_DAYS}|spring|summer|"
    rf"autumn|fall|winter|term|semester)|this (?:week|weekend|month|year|spring|summer|autumn|fall|"
    rf"winter|{_DAYS})|\d{{1,2}}(?:st|nd|rd|th)\b|\d{{1,2}}[/.]\d{{1,2}}(?:[/.]\d{{2,4}})?|"
    rf"in (?:\d+|a|two|three|four|a few|a couple of) (?:days|weeks|months)|end of (?:the )?(?:week|month|year)|"
    rf"(?:spring|summer|autumn|fall|winter|christmas|easter|new year|half[- ]term|bank holiday|"
    rf"thanksgiving|eid|diwali|hanukkah|passover|the holidays)\b)"
)
_DAYS_PL = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days"
_FREQ = (
    rf"(?:every (?:other )?\w+(?: \w+)?|each \w+|on {_DAYS_PL}(?: and {_DAYS_PL})?|on {_DAYS}(?: and {_DAYS})? (?:mornings|evenings|nights|afternoons)|"
    rf"on (?:weekdays|weekends|week ?nights|workdays)|at (?:the )?weekends?|at night|"
    rf"(?:once|twice|three times|four times|\d+ times) (?:a|per|every) (?:day|week|month|year)|"
    rf"(?:one|two|three|four|five|six|\d) (?:days|nights|mornings|evenings|afternoons|shifts) (?:a|per) (?:week|month|fortnight)|"
    rf"daily|weekly|monthly|most (?:days|mornings|evenings|nights|weekends|weeks)|"
    rf"in the (?:mornings|evenings)|(?:before|after) work|to (?:work|school|the office|uni|college)|"
    rf"{_DAYS_PL}(?: (?:mornings?|evenings?|nights?))?)"
)
_HABIT_ADV = r"(?:usually|normally|generally|typically|regularly|mostly|tend to|often|try to)"
_HABIT_BLOCK = re.compile(
    r"(?i)^(?:forget|forgot|know|think|feel|get|end up|lose|miss|mess|screw|worry|wonder|regret|"
    r"say|mean|find|try|seem|want|need|wish|hope|have to|love|hate|like|make mistakes|go crazy|"
    r"fall|fail|struggle|do (?:that|this|it)|panic|cry|complain|overthink|procrastinate|guess|"
    r"assume|believe|remember|am|was|were|had|did|went|got|made|ate|said|told|can|could|would|"
    r"should|will|might|must|just|also|really|can't|don't|didn't|won't|never|always)\b"
)
_VOCATIVE = re.compile(r"(?i),\s*(?:folks|guys|everyone|people|kids|y'all|all|friends|team)$")
_NOT_NAME_WORDS = {
    "sorry", "fine", "good", "ok", "okay", "here", "back", "done", "sure", "not", "so", "just",
    "ready", "in", "out", "on", "off", "home", "away", "busy", "tired", "happy", "sad", "glad",
    "english", "american", "british", "online", "free", "new", "late", "early", "still", "also",
    "excited", "afraid", "aware", "alive", "alone", "confused", "curious", "lost", "stuck",
    "hungry", "thirsty", "bored", "sick", "ill", "well", "cold", "hot", "feeling", "going",
    "trying", "looking", "working", "getting", "thinking", "wondering", "god", "dead",
}  # fmt: skip
_SINCE = (
    r"(?: (?:for (?:about |over |almost |nearly |more than |the (?:last|past) )?(?:\d+|a|two|three|four|five|"
    r"six|seven|eight|nine|ten|fifteen|twenty|thirty|forty|fifty|many|several|a few|a couple of) (?:years|decades)|"
    r"since (?:\d{4}|I was (?:a )?\w+|uni|school|college|childhood|birth|the \d0s|my \w+)))"
)
_TASK_THING = re.compile(
    r"(?i)\b(?:this|these|those|here|above|below|today|tonight|right now|for now|it)\b|"
    r"\bthat (?:one|file|function|bit|part|line|paragraph|email|draft)\b|"
    r"\bthe (?:file|draft|paragraph|variable|function|pr|branch|commit|test|line|doc|document|email|"
    r"essay|report|slide|slides|table|list|script|class|method|query|loop|last one|second|first)\b|"
    r"\b(?:in|for) this\b"
)
_HAB_OBJ_BLOCK = re.compile(
    r"(?i)^(?:the|this|that|these|those|it|its|it's|them|him|her|his|you|your|yours|there|here|out|up|off|down|back|over|"
    r"away|on|so|to|too|a bit|a lot|what|how|when|why|if|like|about|because|all the time|one|some more|more|again|"
    r"anything|everything|nothing|something|someone|somebody|anyone|everyone|nobody|myself|yourself|"
    r"an eye|a feeling|a point|a clue|a word|track|fingers|in touch|in mind|quiet|busy|calm|going|well|fine|"
    r"better|worse|hard|fast|slow|late|early|badly|right|wrong|best|first|last|now|today|tonight|tomorrow|yes|no)\b"
)
_MOMENT = re.compile(
    r"(?i)\b(?:today|tonight|tomorrow|yesterday|right now|now|at the moment|this (?:week|morning|afternoon|evening|"
    r"weekend|time)|later|soon|again|anymore|any more|just now|for now|for a bit|for a while|last night|lol|haha)\b"
)
#: Objects that are a body part or a personal quality after a possessive: nearly always an idiom
#: ("I keep my head down", "I bite my tongue", "I wear my heart on my sleeve").
_IDIOM_POSS = re.compile(
    r"(?i)^(?:my|our|your|his|her|their) (?:head|nose|chin|tongue|neck|heart|hands?|eyes?|mouth|foot|feet|fingers?|"
    r"cards|cool|temper|word|mind|breath|ground|options|distance|guns|luck|weight|socks|pride|back|shirt|hair|face|"
    r"thumbs|toes|ears|lips|chest|nerve|patience|wits|way|best|part|bit|share|turn|time|place|life|days|"
    r"money|mouth|game|feelings|tears|heels)\b"
)
#: Determiners, numerals and quantifiers: an object that starts with one is not a bare plural.
_DETERMINER = re.compile(
    r"(?i)^(?:a|an|the|my|our|your|his|her|their|its|this|that|these|those|some|any|no|every|each|all|both|"
    r"many|much|few|several|one|two|three|four|five|six|seven|eight|nine|ten|\d+|more|most|less|other|another)\b"
)
_LIVELIHOOD = re.compile(
    r"(?i)\b(?:for a living|professionally|semi-?professionally|for work|as a (?:hobby|job|living|side hustle)|"
    r"in my (?:spare|free) time|on the side|part[- ]time|full[- ]time|competitively|for fun|as a volunteer|"
    r"for (?:a|an|my|our|the) (?:local |small |big |large |family )?(?:living|club|team|charity|company|firm|band|"
    r"church|school|hospital|council|business|agency|studio|shop|restaurant|hotel|salon|garage|farm|club|chain|"
    r"supermarket|haulier|airline|retailer|courier|contractor|publisher|label|trust|network|service|agency)|"
    r"(?:in|with) (?:a|an|my|our|the (?:local|village|church|school|community|county)) (?:[\w'-]+ ){0,2}"
    r"(?:band|choir|orchestra|team|league|club|group|ensemble|troupe|crew|quartet|trio|society)|"
    r"(?:at|in|for|on|from|out of) (?:a |an |the )?(?:[\w'-]+ ){0,3}(?:market|studio|workshop|garage|depot|yard|"
    r"factory|farm|zoo|school|hospital|restaurant|caf[eé]|pub|salon|shop|gym|church|synagogue|mosque|temple|"
    r"club|theatre|theater|office|site|warehouse|kitchen|harbou?r|port|station|lab|laboratory|university|"
    r"college|prison|hotel|stables|kennels|surgery|clinic|practice|bakery|company|firm|agency|council)\b|"
    r"(?:at|in|for|from|out of|with) (?:the )?(?-i:[A-Z]|[a-z]+[A-Z])[\w'-]+|"
    r"for (?:[\w-]+ ){0,2}(?:bands|clients|companies|customers|brands|musicians|artists|charities|schools|businesses|"
    r"families|patients|tourists|students|restaurants|shops|hotels|events|festivals|theatres|magazines|newspapers|"
    r"publishers|studios|labels|farmers|landlords|builders|councils|hospitals|care homes|churches))"
)
_SPAN = re.compile(
    r"(?i)\b(?:for (?:about |over |almost |nearly |more than )?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|"
    r"twelve|fifteen|twenty|thirty|forty|many|several|a few) (?:years|decades)|since (?:\d{4}|I was \w+|the \d0s|"
    r"childhood|school|uni)|my whole life|all my life)\b"
)
_BUSINESS = re.compile(
    r"(?i)^(?:a|an|my own|our own|my|our|the family) (?:[\w'&-]+ ){0,3}(?:business|company|firm|shop|caf[eé]|"
    r"bakery|restaurant|pub|bar|b&b|guest ?house|hotel|salon|studio|practice|farm|stall|garage|gym|charity|club|"
    r"team|group|nursery|school|clinic|agency|consultancy|workshop|brewery|vineyard|allotment|food truck|van|"
    r"taxi|cab|lorry|truck|bus|boat|trawler|crabber|ferry|tractor|podcast|channel|blog|newsletter|website|shop)s?\b"
)
#: The short, explicit list of verbs that name a livelihood or a hobby by themselves ("I knit",
#: "I farm sheep", "I volunteer with the RNLI"). Any other verb in "I <verb> <object>" needs positive
#: evidence of a habit or a livelihood (see _strong_evidence): an open-class verb with an object is
#: as often an idiom, a figure of speech or a one-off ("I ruffle feathers", "I click save").
_HOBBY_VERBS = frozenset(re.split(r"\s+", """
farm breed knit crochet sew quilt garden volunteer collect restore foster brew forage busk tattoo specialise
specialize lecture freelance skipper speedrun translate tutor teach coach sing dance surf climb cycle hike ski
swim row skate sculpt weld own ride study crew bake groom tune lift
""".strip()))
_WHEN_PAST = r"(?:in \d{4}|in the (?:late |early |mid[- ])?\d0s|back in \d{4}|(?:\w+ ){0,2}years ago|as a (?:child|kid|teenager|baby|student)|when I was (?:\w+|a \w+))"
