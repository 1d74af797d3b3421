"""From a message to the clauses the rules read: sentences, questions left out, discourse
markers ("Actually,", "Scratch that,") removed, two statements joined by "and I" split."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from engram.adapters.extraction.dates import direction
from engram.adapters.extraction.life_words import (
    Word,
    is_past,
    names_people,
    split_words,
    time_at,
)
from engram.adapters.extraction.tables import tables

__all__ = ["INNER_DOT", "clauses", "expand", "restore", "sentences"]

# Dots inside tokens (Node.js, 3.11, e.g.) must neither end a sentence nor an object:
# they travel as ONE DOT LEADER until the content is built.
INNER_DOT = "\u2024"
# Likewise the comma inside a number ("4,000 words") is no list separator.
INNER_COMMA = "\u201a"
_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|approx|incl|no)\.(?=\s)", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})

# Openers that carry no fact ("Actually, I prefer React" states "I prefer React").
_MARKERS = re.compile(
    r"^(?:(?:actually|also|and|but|btw|by\s+the\s+way|anyway|honestly|to\s+be\s+honest|tbh|"
    r"fyi|just\s+so\s+you\s+know|for\s+the\s+record|for\s+context|scratch\s+that|correction|"
    r"update|change\s+of\s+plans?|hmm+|oops|hey|hi|hello|in\s+fact|as\s+it\s+turns\s+out|heads\s+up|"
    r"quick\s+update|small\s+update|good\s+news|bad\s+news|funny\s+thing|fun\s+fact|[\w-]+-wise|"
    r"change\s+of\s+plan|ngl|fine|no\s+wait|oh\s+wait|"
    r"on\s+second\s+thought|never\s*mind|forget\s+(?:that|what\s+I\s+said)|one\s+more\s+thing|"
    r"please\s+note|also\s+note|fwiw|personally|these\s+days|nowadays|lately|oh|ok(?:ay)?|"
    r"for\s+now|right\s+now|at\s+the\s+moment|currently|long\s+story\s+short|evening|morning|"
    r"afternoon|good\s+(?:morning|evening|afternoon)|ugh|phew|wow|yay|"
    # "I should say I'm vegetarian myself": a preamble to the speaker's own fact.
    r"I\s+(?:should|must|have\s+to|need\s+to|ought\s+to)\s+(?:say|mention|add|note|point\s+out|"
    r"admit|confess|warn\s+you)(?:\s+that)?)"
    r"(?:\s*[,:;!-]+\s*|\s+)"
    # Words that are markers only when a comma sets them apart ("No, ..." but "No X allowed").
    r"|(?:well|so|wait|right|yes|yeah|yep|no|nope|sorry|note|remember|lol|haha|cool|great|"
    r"thanks|sure|true|fine)\s*[,:;!-]+\s*)+",
    re.IGNORECASE,
)
# A question without its mark still asks: "what do you think", "should we use X".
_ASKS = re.compile(
    r"^(?:what(?!\s+(?:I|we)\s+(?:\w+\s+){0,2}(?:enjoy|love|like|hate|need|want|use|prefer)\b[^?]*\bis\b)|"
    r"which|who|whom|whose|why|how|where|when(?!\s+(?:I|you|we)\b)|is\s+(?:it|there|this|that)|"
    r"are\s+(?:you|there|we)|do\s+(?:you|we|I)|does|did|can\s+(?:we|I)|could\s+(?:we|I)|"
    r"should\s+(?:we|I)|shall\s+(?:we|I)|would\s+(?:it|we|I)|will\s+(?:it|we)|have\s+you|"
    r"has\s+anyone|any\s+(?:idea|thoughts))\b",
    re.IGNORECASE,
)
# A request phrased as a question can still set how answers should be ("Could you keep
# answers short from now on?"): such questions are read.
_STANDING_REQUEST = re.compile(
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:(?:always|never|from\s+now\s+on|"
    r"stop|not)\b|.*\b(?:from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|"
    r"(?:all|your|the)\s+(?:answers|responses|replies)|every\s+time|always)\b)",
    re.IGNORECASE,
)
# Statements joined in one sentence: "I like Python but I hate Java", "...; we use Go".
_JOINS = re.compile(
    r"\s*;\s*|,\s+(?:but|yet|though|however|whereas)\s+"
    r"|\s*,?\s+(?:and|but|so|while|whereas|although|though|plus)\s+"
    r"(?=(?:just\s+|recently\s+|then\s+|now\s+)?(?:switched|moved|migrated|relocated|joined|"
    r"started|quit|dropped|stopped|left|picked|chose|settled|ditched|replaced|went\s+with|"
    r"went\s+for)\b)"
    # not "me and my dad built...": one subject, the user with someone
    r"|(?<!^(?i:me))\s*,?\s+(?:and|but|so|while|whereas|although|though|plus|dan|tapi|tetapi|serta)\s+"
    r"(?=(?:I|I'm|I've|I'll|I'd|we|we're|we've|we'll|my|our|saya|kami|aku)\b)"
    # "I adopted a cat because I love animals": the reason is a statement of its own
    # (not "a cause I care about")
    r"|(?<!\ba)(?<!\bthe)\s*,?\s+(?:because|'cause|cause|cuz|coz)\s+(?=(?:I|I'm|I've|I'd|we|we're|we've)\b)"
    r"|,\s+(?=(?:I|I'm|I've|I'll|we|we're|we've|we'll|saya|kami|aku)\s+(?!mean\b|guess\b|think\b))"
    r"|,\s+(?=(?:it's|it\s+is|that's|everything\s+is|everything's|now\s+it's)\s+)"
    r"|,\s+(?=(?:just\s+|now\s+)?(?:switched|moved|migrated|relocated|joined)\s+)"
    # "the pool kept degrading, so storage is on Unraid now": a consequence, said apart.
    r"|,\s+so\s+(?!(?:much|many|far|long|that|to\s+speak|good|bad|yes|no)\b)"
    # "Not Notion anymore - I switched to Obsidian": a dash between two statements.
    r"|\s+[\u2014\u2013]\s+|\s+-\s+(?=[A-Za-z])"
    # "I'm on Linux now, so give me bash commands": a statement, then an instruction.
    r"|,\s+(?:so|and)\s+(?=(?:please\s+)?(?:give|use|write|answer|reply|respond|show|keep|"
    r"stop|always|never|don't|do\s+not)\s+)",
    re.IGNORECASE,
)


_CONTRACTIONS = [
    # "startin' my biz", "livin' my dreams": chat drops the g, the rules read the word
    # (not a name in quotes: "our puppy 'Muffin'")
    (re.compile(r"(?<![\w'\"])([A-Za-z][a-z]+)in'(?![\w'])"), r"\1ing"),
    (re.compile(r"\b(can)'t\b", re.I), r"\1not"),
    (re.compile(r"\b(w)on't\b", re.I), r"\1ill not"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\b(I)'m\b", re.I), r"\1 am"),
    (re.compile(r"\b(we|you|they)'re\b", re.I), r"\1 are"),
    (re.compile(r"\b(I|we|you|they)'ve\b", re.I), r"\1 have"),
    (re.compile(r"\b(I|we|you|they|it|that)'ll\b", re.I), r"\1 will"),
    (
        re.compile(
            r"\b(I|we|you|they)'d(?=\s+(?:been|gone|had|done|already|never|just|"
            r"better|seen|used|tried|made|written|heard)\b)",
            re.I,
        ),
        r"\1 had",
    ),
    (
        re.compile(r"\b(I|we|you|they)'d\b", re.I),
        r"\1 would",
    ),
    (
        re.compile(
            r"\b(it|that|there|what|name|stack|plan|deadline|everything|nothing|"
            r"decision)'s\b",
            re.I,
        ),
        r"\1 is",
    ),
]


@cache
def _enjoyed_at() -> re.Pattern[str]:
    """ "We had a blast at a live music event": to enjoy oneself at a place is to have
    gone there, which is the fact; "at home" or "at work" names no outing. The outings
    are the data's (``closed.outings``)."""
    outings = "|".join(sorted(map(re.escape, tables("en").closed["outings"])))
    return re.compile(
        r"(?<!\bnever\s)(?<!\bnot\s)(?<!\bhave\s)\bhad\s+(?:a\s+(?:blast|ball|great\s+time|"
        r"good\s+time|wonderful\s+time|fantastic\s+time|lot\s+of\s+fun)"
        r"|(?:so\s+much\s+|great\s+|lots\s+of\s+)?fun)\s+"
        r"(?P<when>(?:last|this)\s+\w+\s+|yesterday\s+)?at\s+"
        rf"(?=(?:the|a|an|our|my)\s+(?:[\w'-]+\s+){{0,3}}?(?:{outings})s?\b)",
        re.IGNORECASE,
    )


# "I'm lucky to have my husband and kids": what the user has, said with gratitude
_LUCKY_TO_HAVE = re.compile(
    r"\b(?P<who>I|we)\s+(?:am|are)\s+(?:so\s+|really\s+|very\s+)?"
    r"(?:lucky|blessed|fortunate|grateful|thankful)\s+to\s+have\b",
    re.IGNORECASE,
)


def expand(clause: str) -> str:
    """Contractions written out, so a rule states each form once ("we're" = "we are")."""
    for pattern, replacement in _CONTRACTIONS:
        clause = pattern.sub(replacement, clause)
    clause = _LUCKY_TO_HAVE.sub(r"\g<who> have", clause)
    return _enjoyed_at().sub(r"went \g<when>to ", clause)


# A short label before a colon ("Quick intro:", "Final call:", "Some context first:")
# frames a statement without being part of it; labels that name a kind of fact stay.
_LABEL = re.compile(r"^(?P<label>[\w'\s-]{1,30}?):\s+(?=\S)")
_KEEP_LABELS = re.compile(
    r"requirement|constraint|deadline|stack|rule|preference|favou?rite|goal|name|"
    r"role|location|timezone|instruction|must|note\s+to\s+self|akış|gereksinim|ihtiyac|tercih",
    re.I,
)


# A label that names what follows, read as the sentence it stands for: "Our stack:
# Django, Celery" -> "Our stack is Django, Celery"; "Favourite bands: A, B" -> "My
# favourite bands are A, B"; "Things I can't stand: A, B" -> "I can't stand A, B".
_LABEL_AS_SENTENCE = [
    (
        re.compile(
            r"^((?:our|my|the)\s+(?:[\w-]+\s+){0,2}(?:stack|setup|tools|toolchain|tooling))$", re.I
        ),
        r"\1 is ",
    ),
    (re.compile(r"^(?:my\s+)?(favou?rite\s+[\w\s-]{1,20})$", re.I), r"My \1 are "),
    (
        re.compile(
            r"^things\s+(I\s+(?:love|like|enjoy|hate|avoid|cannot\s+stand|can't\s+stand|dislike))$",
            re.I,
        ),
        r"\1 ",
    ),
]


def _unlabel(sentence: str) -> str:
    match = _LABEL.match(sentence)
    if match is None:
        return sentence
    label = match.group("label").strip()
    for pattern, lead in _LABEL_AS_SENTENCE:
        if pattern.match(label):
            return pattern.sub(lead, label) + sentence[match.end() :]
    if len(label.split()) <= 4 and not _KEEP_LABELS.search(label):
        return sentence[match.end() :]
    return sentence


def _protect(text: str) -> str:
    text = text.translate(_QUOTES)
    text = _ABBREVIATIONS.sub(lambda m: m.group(1) + INNER_DOT, text)
    text = re.sub(r"(?<=\w)\.(?=\w)", INNER_DOT, text)
    text = re.sub(r"(?<![\w.])\.(?=[A-Za-z]\w)", INNER_DOT, text)  # ".NET", ".io"
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", INNER_COMMA, text)
    # Initials and dotted names end no sentence: "Ursula K. Le Guin", "Fontaines D.C., ...".
    return re.sub(r"(?<=\b[A-Z])\.(?=,|\s+[A-Z]|\s+and\b)", INNER_DOT, text)


def restore(text: str) -> str:
    return text.replace(INNER_DOT, ".").replace(INNER_COMMA, ",")


# Words that announce a correction: what follows replaces what was said before.
CORRECTION = re.compile(
    r"^(?:(?:actually|well|oh|hmm+|wait|no|ok(?:ay)?)[,!]?\s+)*(?:scratch\s+that|on\s+second\s+thoughts?|"
    r"(?:I\s+(?:have\s+|'ve\s+)?)?changed\s+my\s+mind|correction|never\s*mind|no,?\s+wait|"
    r"let\s+me\s+correct\s+(?:that|myself)|I\s+take\s+(?:that|it)\s+back|sorry,?\s+I\s+meant|"
    r"I\s+misspoke|I\s+mistyped|(?:oops,?\s+)?typo|I\s+said\s+\w+\s+but\s+(?:I\s+)?meant)\b",
    re.IGNORECASE,
)


# Words in quotation marks are someone else's ("The article opened with: "I hate
# meetings...""): not the speaker's facts. Short quotes ("call me "Jo"") stay.
# A long quotation is someone else's words, unless it is a title the user names ("I
# loved "Becoming Nicole"", "my favourite song is "Perfect"").
_QUOTED = re.compile(
    r'"(?=\s*(?:I|I\'m|I\'ve|we|my|our|you)\b)[^"\n]{12,}"'  # a saying, whoever named it
    r"|(?<!\blove )(?<!\bloved )(?<!\bread )(?<!\bwatched )(?<!\bcalled )(?<!\bnamed )"
    r"(?<!\btitled )(?<!\bfavorite )(?<!\bfavourite )(?<!\bbook is )(?<!\bsong is )"
    r"(?<!\bmovie is )(?<!\bfilm is )(?<!\bshow is )(?<!\bband is )"
    r'"[^"\n]{12,}"'
)
_SHORT_QUOTE = re.compile(r'"([^"\n]{1,11})"')


_TRAILING_MARKERS = re.compile(r"(?:\s*,)?\s+(?:btw|by\s+the\s+way|fyi|ngl|lol|haha)\s*$", re.I)


_PSEUDO_CLEFT = re.compile(
    r"^what\s+(?P<who>I|we)\s+(?P<verb>(?:\w+\s+){0,2}?(?:enjoy|love|like|hate|need|want|use|prefer))"
    r"(?:\s+[^,;:!?]{0,40}?)?\s+is\s+(?:a\s+|an\s+|the\s+)?(?P<x>[^?]+)$",
    re.I,
)


# The rules read text in bounded pieces, which keeps every expression's time linear in a
# message however it is built: no word is longer than MAX_WORD_CHARS (a longer run of
# non-spaces, a URL, a hash, a line of base64 or of a script written without spaces, is
# one opaque word to the rules), and no sentence longer than MAX_SENTENCE_CHARS (a longer
# run without a sentence end is cut at spaces). Chat sentences are far shorter: the
# longest of LoCoMo's 8,317 is 176 characters.
MAX_WORD_CHARS = 64
MAX_SENTENCE_CHARS = 400
OPAQUE = "\u2026"
_LONG_WORD = re.compile(rf"\S{{{MAX_WORD_CHARS + 1},}}")
_LONG_RUN = re.compile(rf"[^.!?\n]{{{MAX_SENTENCE_CHARS + 1},}}")


def _cut_run(match: re.Match[str]) -> str:
    run, pieces = match.group(0), []
    while len(run) > MAX_SENTENCE_CHARS:
        # Words are at most MAX_WORD_CHARS long, so a space is never far back.
        cut = run.rfind(" ", 0, MAX_SENTENCE_CHARS)
        cut = cut if cut > 0 else MAX_SENTENCE_CHARS
        pieces.append(run[:cut])
        run = run[cut:]
    return "\n".join([*pieces, run])


_SPACES = re.compile(r"\s+")


def _one_space(match: re.Match[str]) -> str:
    return "\n" if "\n" in match.group(0) else " "


def bounded(text: str) -> str:
    """``text`` as the rules read it: each run of white space one space (or one line
    break), so no two expressions' ``\\s`` quantifiers ever compete for the same run; long
    words made opaque; long sentences cut."""
    text = _LONG_WORD.sub(OPAQUE, _SPACES.sub(_one_space, text))
    return _LONG_RUN.sub(_cut_run, text)


def sentences(text: str) -> Iterator[tuple[str, bool]]:
    """(sentence, is_question) for each sentence of ``text``; markers stripped. A
    correction's marker is kept as a leading "CORRECTION " for the caller."""
    text = _QUOTED.sub(" ", bounded(text).translate(_QUOTES))
    text = _SHORT_QUOTE.sub(r"\1", text)
    for match in _SENTENCE.finditer(_LONG_RUN.sub(_cut_run, _protect(text))):
        raw = match.group(0).strip()
        if not raw:
            continue
        question = raw.endswith("?")
        corrects = CORRECTION.match(raw) is not None
        sentence = _MARKERS.sub("", _unlabel(raw.rstrip(".!?\n "))).strip(" ,-")
        sentence = _MARKERS.sub("", _unlabel(sentence)).strip(" ,-")
        sentence = _TRAILING_MARKERS.sub("", sentence)
        # "What I really enjoy after a long day is a history podcast" -> "I really enjoy
        # a history podcast": the thing comes last in a pseudo-cleft.
        sentence = _PSEUDO_CLEFT.sub(r"\g<who> \g<verb> \g<x>", sentence)
        if not sentence:
            continue
        if _ASKS.match(sentence):
            question = True
        if question:
            # "We host everything on Atlas, is the URI encoded right?": a statement, then a
            # question; the statement is still read.
            head = re.match(
                r"^(?P<s>.+?)(?:,|\s+[\u2014\u2013-])\s+(?:(?:by\s+the\s+way|btw|so)\s*[,\u2014\u2013-]?\s+)?"
                r"(?:is|are|do|does|did|can|could|should|would|will|how|what|why|where|which|any)\b.*$",
                sentence,
                re.IGNORECASE,
            )
            # "I finished another pottery project - want to see a pic?": what the user
            # says of themselves before the comma or dash is no question.
            head = head or _TOLD_THEN_ASKED.match(sentence)
            if head and not _ASKS.match(head.group("s")):
                yield head.group("s"), False
        if question and _STANDING_REQUEST.match(sentence):
            sentence = re.sub(
                r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?",
                "",
                sentence,
                flags=re.IGNORECASE,
            )
            question = False
        if corrects and not question:
            sentence = "CORRECTION " + sentence
        yield sentence, question


_TOLD_THEN_ASKED = re.compile(
    r"^(?P<s>(?:I|I'm|I've|I'd|I'll|we|we're|we've|my|our)\s[^,\u2014\u2013]+?)"
    r"(?:,|\s+[\u2014\u2013-])\s+\S",
    re.IGNORECASE,
)


# Chat drops the subject ("Just moved to Edinburgh", "switched to Helix", "Big fan of
# Ghibli", "Not into spicy ramen anymore"): the rules read it with the subject restored.
_SUBJECT = re.compile(r"^(?P<who>I|we|our\s+team|my\s+team|the\s+team)\b", re.I)
_NO_SUBJECT = [
    (
        re.compile(
            r"^(?:(?:just|recently|finally|now|also|then|since|eventually|officially)\s+)*"
            r"(?:switched|moved|migrated|relocated|joined|started|quit|dropped|stopped|turned|"
            r"decided|left|picked|chose|settled|landed|became|began|changed|ditched|replaced|"
            r"went\s+with|gave\s+up|got\s+(?:a|promoted)|been\s+using|been\s+\w+ing)\b",
            re.I,
        ),
        "{who} ",
    ),
    (
        re.compile(
            r"^(?:(?:really|totally|absolutely|honestly|already|still|also)\s+)?(?:love|like|hate|dislike|"
            r"prefer|enjoy|adore|can't\s+stand|cannot\s+stand|can't\s+get\s+enough\s+of|"
            r"cannot\s+get\s+enough\s+of)\s+"
            r"(?!(?:I|you|we|he|she|they|that|this|it|a\s+lot|said)\b)",
            re.I,
        ),
        "I ",
    ),
    (re.compile(r"^(?:a\s+)?(?:big|huge|massive|long-time)\s+fan\s+of\b", re.I), "I am a "),
    (
        re.compile(
            r"^(?:not|no\s+longer)\s+(?:really\s+)?(?:into|(?:a\s+)?(?:big\s+|huge\s+|massive\s+)?"
            r"fan\s+of|keen\s+on|fond\s+of)\b",
            re.I,
        ),
        "I am ",
    ),
    (re.compile(r"^(?:working|living|based|staying)\s+(?:at|in|for|out\s+of)\b", re.I), "I am "),
    (re.compile(r"^originally\s+from\b", re.I), "I am "),
    (re.compile(r"^going\s+with\b", re.I), "we are "),
    (
        re.compile(
            r"^been\s+(?:(?:totally|really|completely|so)\s+)?(?:obsessed|hooked|into)\b", re.I
        ),
        "{who} have ",
    ),
]


_TOOLS_TALK = re.compile(
    r"\b(?:use|uses|using|used|stack|tool|tools|switched|quit|dropped|ditched|migrated|"
    r"stopped)\b",
    re.I,
)


def _with_subject(clause: str, who: str) -> str:
    for pattern, prefix in _NO_SUBJECT:
        if pattern.match(clause):
            words = clause.split(" ", 1)
            lead = re.sub(r"^a\s+", "", clause, flags=re.I) if prefix == "I am a " else clause
            if prefix == "I am a " and words[0].lower() == "a":
                lead = clause[2:]
            # The restored subject starts the sentence now: "Originally from..." is no name.
            return prefix.format(who=who) + lead[:1].lower() + lead[1:]
    return clause


# "Last year, I helped renovate...": a time said first belongs to the statement after it.
_BARE_TIME = re.compile(
    r"^(?:(?:last|next|this|on)\s+\w+|yesterday|today|tonight|recently|lately|"
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a\s+few|a\s+couple"
    r"(?:\s+of)?)\s+(?:days?|weeks?|months?|years?)\s+ago|(?:back\s+)?in\s+\d{4}|"
    r"(?:back\s+)?when\s+(?:I\s+was|we\s+were)\s+(?:a\s+)?(?:little\s+)?(?:kids?|child|little|"
    r"young|younger|teen|teenager)|as\s+a\s+(?:little\s+)?(?:kid|child|teen|teenager)|growing\s+up|"
    r"in\s+my\s+childhood)$",
    re.IGNORECASE,
)


_PARTICIPLE = re.compile(
    r",\s+(?:just\s+|also\s+|still\s+|currently\s+)?"
    r"(?=(?!(?:including|according|regarding|considering|during|following|concerning|"
    r"being|having|feeling|hoping|thinking|wondering|wishing|knowing|seeing|making|living|staying)\b)"
    r"[a-z]{3,}ing\s+(?:at|in|on|with|for|to|a|an|the|my|our|some|out|up|about|into)\s)"
)


def _only_company(part: str) -> bool:
    """Whether a part says only who was with the user, maybe after a time: "My sister",
    "Yesterday my best friend" (not "My laptop crashed", not "I called my mum")."""
    t = tables("en")
    words = split_words(part)
    at, _ = time_at(words, 0, t)
    if at < len(words) and words[at].low == ",":
        at += 1
    rest = words[at:]
    return 2 <= len(rest) <= 4 and rest[0].low in t.closed["own"] and names_people(rest[1:], t)


def _with_company(parts: list[str], sentence: str) -> list[str]:
    """The parts split at "and I", with "My sister and I went..." whole again: the user
    did it, with her."""
    joined: list[str] = []
    for part in parts:
        if (
            joined
            and _only_company(joined[-1])
            and re.match(r"(?:I|we)\b", part)
            and f"{joined[-1]} and {part}" in sentence
        ):
            joined[-1] = f"{joined[-1]} and {part}"
        else:
            joined.append(part)
    return joined


def _opening_time(text: str) -> tuple[str, bool]:
    """The time a clause opens with, if it names when ("Last night", "Two weeks ago"), and
    whether it lies behind: only a past time dates the events told after it ("Next week
    I fly to Tokyo and I packed my bags": the packing is done)."""
    t = tables("en")
    words = split_words(text)
    took, spec = time_at(words, 0, t)
    if not took or not spec:
        return "", False
    said = text[: words[took - 1].end]
    # childhood, or a season: "last winter", not "next summer"
    behind = (
        direction(spec) < 0 or spec == "childhood" or (spec == "season" and words[0].low == "last")
    )
    return said, behind


# how far into a clause a time of its own is looked for (and a bound on the work)
_SCANNED = 400


def _says_time(words: list[Word]) -> bool:
    """Whether a time expression starts at any of ``words``."""
    t = tables("en")
    starts = _time_starts()
    return any(
        time_at(words, k, t)[0]
        for k, word in enumerate(words)
        if word.low in starts or word.low.isdecimal()
    )


def _tells_past(words: list[Word]) -> bool:
    """Whether a clause tells an event of the user's ("I walked home")."""
    t = tables("en")
    return len(words) > 2 and words[0].low in t.subjects and is_past(words[1].low, t)


@cache
def _time_starts() -> frozenset[str]:
    """The words a time expression can start with (time_at is tried only there)."""
    t = tables("en")
    return frozenset(
        {phrase[0] for phrase in t.time_phrases}
        | {"last", "next", "this", "on", "in"}
        | set(t.time["numbers"])
    )


def clauses(sentence: str) -> list[str]:
    """The statements of one sentence, each starting where its subject starts (restored
    when chat left it out, from the sentence's first subject or "I")."""
    found: list[str] = []
    who = "I"
    carried = ""
    opening = ""  # the time the sentence opened with, for the events it goes on to tell
    for part in _with_company(_JOINS.split(sentence), sentence):
        text = _MARKERS.sub("", part.strip(" ,")).strip(" ,")
        if not text:
            continue
        if _BARE_TIME.match(text):
            carried = text + ", "
            continue
        subject = _SUBJECT.match(text)
        if subject:
            who = subject.group("who")
        text, carried = carried + expand(_with_subject(text, who)), ""
        if found and _TOOLS_TALK.search(found[-1]):
            # "We quit using Zoom and moved to Google Meet": a move between tools, not towns.
            text = re.sub(r"^(\S+(?:\s+\S+)?\s+)moved\s+(?:over\s+)?to\b", r"\1switched to", text)
        said_time, behind = _opening_time(text)
        if said_time:
            opening = said_time if behind else ""  # a later time replaces the first
            if opening and _says_time(split_words(text[len(said_time) : _SCANNED])):
                opening = ""  # "..., and this year I changed jobs": the first time is over
        elif opening:
            words = split_words(text[:_SCANNED])  # a clause's own time comes early
            if _says_time(words):
                opening = ""  # the clause's own time, which ends the first one
            elif _tells_past(words):
                # "Last night my phone died and I walked home": the walk was last night too
                text = f"{opening}, {text}"
        # only after "I am ...": "I met a guy, working at the bank" is about the guy
        doing = _PARTICIPLE.search(text) if re.match(r"(?:I\s+am|we\s+are)\s", text, re.I) else None
        if doing:
            # "I'm doing my part too, volunteering at a homeless shelter": what the user
            # is doing, said after a comma without its subject
            found.append(text[: doing.start()])
            text = ("I am " if who.lower() == "i" else "we are ") + text[doing.end() :]
        found.append(text)
    return found
