"""Likes, dislikes, comparisons and favourites.

A like or dislike is keyed by its object, so "I don't like Python" replaces "I like
Python"; "prefer" and favourites are exclusive on their subject ("I prefer React now"
retires "I prefer Vue"); a comparison is keyed by the pair, whichever way round.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import ADV, XL, I, Step, activity, make_fact, objects, own
from engram.adapters.extraction.facts import Retraction, clean_object, fact_key, slug
from engram.adapters.extraction.lexicon import PEOPLE, TOOL_SHAPED, is_known, known_term, subject_of
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_preference"]

F = MemoryType.FACTUAL
_LIKE_VERBS = (
    r"(?:prefer|like|love|enjoy|adore|favou?r|dig|appreciate|fancy|relish|cherish|treasure)"
)
_COMPARATIVE = rx.compile(
    r"\bI\s+" + ADV + r"(?:" + _LIKE_VERBS + r"|would\s+rather|would\s+prefer|would\s+much\s+"
    r"rather)\s+(?:to\s+use\s+|using\s+|to\s+)?(?P<x>[^,;:!?\n]+?)\s+(?:over|to|more\s+than|"
    r"rather\s+than|instead\s+of|better\s+than|than)\s+(?P<y>[^,;:!?\n]+)",
    I,
)
_BETTER = rx.compile(
    r"\b(?:I\s+(?:think|find|feel|believe)\s+(?:that\s+)?|for\s+me,?\s+|in\s+my\s+opinion,?\s+|"
    r"imo,?\s+)(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+(?:much\s+|way\s+|far\s+)?(?:better|nicer|"
    r"superior)\s+than\s+(?P<y>[^,;:!?\n]+)",
    I,
)
_FIND = rx.compile(
    r"\bI\s+" + ADV + r"(?:find|found|think)\s+(?P<x>[^,;:!?\n]+?)\s+(?:to\s+be\s+)?(?:really\s+|"
    r"quite\s+|so\s+|super\s+|pretty\s+|incredibly\s+|very\s+|a\s+bit\s+|rather\s+)?"
    r"(?P<how>boring|tedious|annoying|overrated|dull|painful|frustrating|exhausting|stressful|"
    r"awful|terrible|unbearable|pointless|fun|great|amazing|relaxing|interesting|fascinating|"
    r"brilliant|wonderful|enjoyable|satisfying|calming)\b",
    I,
)
_POSITIVE_FEELINGS = frozenset(
    "fun great amazing relaxing interesting fascinating brilliant wonderful enjoyable "
    "satisfying calming".split()
)
# Kinds of person one is or is not ("a cat person", "not a morning person").
_PERSON_KINDS = (
    r"cat|dog|morning|night|beach|mountain|city|country|summer|winter|coffee|tea|book|outdoors|"
    r"people|pet|horse|sports?|gym|party"
)
_DISLIKE = [
    # "Treadmills bore me to tears", "cruises don't appeal to me", "crowded beaches are my
    # idea of hell", "Hockey, on the other hand, bores me".
    rx.compile(
        r"^(?!(?:it|this|that|everything|nothing|he|she|they|you|my\s+(?:\w+\s+)?"
        + PEOPLE
        + r"|the\s+(?:second|first|other|new|last)\b)\b)(?P<x>[^;:!?\n]+?)\s*,?\s+"
        r"(?:(?:really\s+|just\s+|kind\s+of\s+|honestly\s+)?(?:bores?|bored|bug|bugs|annoys?|irritates?)"
        r"\s+me\b|(?:do|does)\s+not\s+(?:really\s+)?(?:appeal\s+to|interest|excite|do\s+it\s+for)\s+me\b|"
        r"(?:is|are)\s+(?:just\s+|really\s+)?my\s+idea\s+of\s+(?:hell|a\s+nightmare|torture))",
        I,
    ),
    # "I don't drink alcohol", "I don't eat red meat": what the user keeps off the table.
    rx.compile(
        r"\bI\s+(?:do\s+not|never|no\s+longer|try\s+not\s+to)\s+(?:drink|eat|touch|smoke|"
        r"consume)\s+(?!it\b|that\b|this\b|much\b|anything\b|there\b|before\b|after\b|enough\b|"
        r"during\b|at\b|in\b|on\b|late\b|past\b|until\b|until\b|when\b|while\b|too\b|so\b)"
        r"(?P<x>(?:(?!\s(?:after|before|during|at|late|past|until|on|in|when)\b)[^,;:!?\n])+?)(?=\s*$|,)",
        I,
    ),
    # "I'm really not a cat person".
    rx.compile(
        r"\bI\s+am\s+(?:really\s+|just\s+|definitely\s+)?not\s+an?\s+(?P<x>"
        + _PERSON_KINDS
        + r")\s+person\b",
        I,
    ),
    rx.compile(
        r"\bI\s+" + ADV + r"(?:do\s+not|did\s+not)\s+(?:really\s+|particularly\s+|much\s+|even\s+|"
        r"actually\s+)?(?:like|enjoy|love|care\s+for|want\s+to\s+use|fancy|dig|prefer|"
        r"get\s+along\s+with)\s+" + XL,
        I,
    ),
    rx.compile(
        r"\bI\s+" + ADV + r"(?:hate|dislike|despise|loathe|detest|cannot\s+stand|cannot\s+bear|"
        r"avoid|abhor|resent)\s+" + XL,
        I,
    ),
    rx.compile(
        r"\bI\s+am\s+" + ADV + r"(?:(?:not|no\s+longer)\s+(?:really\s+|that\s+|particularly\s+|"
        r"much\s+of\s+)?(?:an?\s+(?:big\s+|huge\s+|massive\s+)?(?:fan|lover)\s+of|into|keen\s+on|"
        r"fond\s+of|crazy\s+about|big\s+on)|tired\s+of|sick\s+of|fed\s+up\s+with|done\s+with|"
        r"over|allergic\s+to\s+the\s+idea\s+of)\s+" + XL,
        I,
    ),
    rx.compile(
        r"\bI\s+(?:have\s+)?never\s+(?:really\s+)?(?:liked|enjoyed|cared\s+for|got\s+into|"
        r"been\s+(?:a\s+fan\s+of|into))\s+" + XL,
        I,
    ),
    rx.compile(
        r"^(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+(?:definitely\s+|probably\s+)?my\s+"
        r"(?:least\s+favou?rite|pet\s+peeve|worst\s+nightmare)\b",
        I,
    ),
    rx.compile(r"\bI\s+no\s+longer\s+(?:like|enjoy|love|prefer|care\s+for)\s+" + XL, I),
    rx.compile(
        r"\bI\s+(?:have\s+|had\s+)?(?:gone\s+off|went\s+off|lost\s+(?:interest\s+in|my\s+taste\s+for)|"
        r"fallen\s+out\s+of\s+love\s+with|fell\s+out\s+of\s+love\s+with|grown\s+tired\s+of|"
        r"got\s+tired\s+of|soured\s+on|cooled\s+on)\s+(?:of\s+)?" + XL,
        I,
    ),
    rx.compile(
        r"\bI\s+am\s+(?:so\s+|totally\s+|completely\s+|a\s+bit\s+)?(?:burnt\s+out|burned\s+out|"
        r"bored)\s+(?:on|of|with)\s+" + XL,
        I,
    ),
    rx.compile(
        r"^(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+not\s+(?:really\s+)?my\s+(?:thing|cup\s+of\s+tea|"
        r"style|jam)$",
        I,
    ),
    rx.compile(
        r"^(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+(?:really\s+|just\s+|honestly\s+|simply\s+)?not\s+for\s+me"
        r"(?=\s*(?:$|,))",
        I,
    ),
    # "Jira is the worst": a named thing; "the weather is the worst" is small talk.
    rx.compile(
        r"^(?!(?i:the|this|that|it|today|everything|traffic|life|my|our|your|his|her)\b)"
        r"(?P<worst>[A-Z][^,;:!?\n]*?)\s+"
        r"(?i:is|are)\s+(?i:really\s+|just\s+|honestly\s+|simply\s+)?(?i:the\s+worst|a\s+nightmare|"
        r"the\s+bane\s+of\s+my\s+(?:life|existence))(?=\s*(?:$|,))"
    ),
]
_LIKE = [
    # "I find it easier to work with SQL than ORMs"
    rx.compile(
        r"\bI\s+find\s+it\s+(?:much\s+|far\s+|a\s+lot\s+)?(?:easier|simpler|nicer|better|"
        r"faster|more\s+natural)\s+to\s+(?:work\s+with|use|write|read|debug|maintain)\s+"
        r"(?P<x>[^,;:!?\n]+?)\s+than\b",
        I,
    ),
    rx.compile(r"\bI\s+(?:really\s+|just\s+)?(?:cannot|can\s+not)\s+get\s+enough\s+of\s+" + XL, I),
    rx.compile(
        r"\bI\s+(?:have\s+)?(?:grown|come|learned|learnt)\s+to\s+(?:really\s+)?(?:love|like|enjoy|appreciate)\s+"
        + XL,
        I,
    ),
    # "Watercolour painting has become my favourite way to unwind".
    rx.compile(
        r"^(?P<x>[^,;:!?\n]+?)(?:'s|\s+has|\s+have)\s+become\s+(?:my|a)\s+(?:favou?rite|go-to|"
        r"new\s+favou?rite)\b",
        I,
    ),
    rx.compile(
        r"\bI\s+am\s+(?:really\s+|definitely\s+|totally\s+)?an?\s+(?P<x>"
        + _PERSON_KINDS
        + r")\s+person\b",
        I,
    ),
    # "We love hiking": the user's household likes it, the user among them
    rx.compile(r"\b(?:I|we)\s+(?:do\s+)?" + ADV + r"(?P<verb>" + _LIKE_VERBS + r")\s+" + XL, I),
    rx.compile(
        r"\bI\s+(?:have\s+been|am)\s+" + ADV + r"(?:loving|enjoying|liking|digging|adoring|"
        r"getting\s+into|into)\s+" + XL,
        I,
    ),
    rx.compile(
        r"\bI\s+(?:am|have\s+been)\s+"
        + ADV
        + r"(?:a\s+(?:big\s+|huge\s+|massive\s+|long-time\s+)?fan\s+of|into|"
        r"keen\s+on|fond\s+of|passionate\s+about|obsessed\s+with|crazy\s+about|partial\s+to|"
        r"a\s+sucker\s+for|a\s+(?:big\s+|huge\s+)?lover\s+of|mad\s+about|"
        r"a\s+(?:big\s+)?believer\s+in|hooked\s+on|addicted\s+to)\s+" + XL,
        I,
    ),
    rx.compile(
        r"^(?:(?:on|in|at|during|for|after|before|when)\s+[^,]{1,30},\s+)?"
        r"(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+(?:totally\s+|really\s+)?my\s+(?:thing|jam|"
        r"cup\s+of\s+tea|guilty\s+pleasure|passion|happy\s+place)"
        r"(?:\s+(?:these\s+days|nowadays|now|lately))?(?=\s*(?:$|,))",
        I,
    ),
    rx.compile(
        r"\bI\s+(?:have\s+|had\s+)?(?:(?:gotten|got|been\s+getting)\s+(?:really|very|so|quite|super|"
        r"seriously|totally|properly)\s+|(?:become|grown)\s+(?:really\s+|very\s+|so\s+|quite\s+)?)"
        r"(?:into|hooked\s+on|obsessed\s+with|fond\s+of)\s+(?!fixing\b|debugging\b|this\b|that\b|it\b)"
        r"(?!trouble\b|debt\b|a\s+(?:fight|mess|habit|car|accident|jam|spot|state)\b|an\s+"
        r"(?:argument|accident)\b|the\s+habit\b|(?:university|college|uni|school|grad\s+school|"
        r"the\s+program(?:me)?|medical\s+school|law\s+school)\b)" + XL,
        I,
    ),
    # "I'm a huge Studio Ghibli fan".
    rx.compile(
        r"\bI\s+am\s+(?:an?\s+)?(?:big|huge|massive|long-time|lifelong|die-hard|diehard|total|"
        r"massive|proper)\s+(?P<x>[^,;:!?\n]+?)\s+(?:fan|nerd|geek|buff)\b",
        I,
    ),
    rx.compile(
        r"\bI\s+am\s+(?:happiest|most\s+productive|most\s+comfortable|most\s+at\s+home|in\s+my\s+element)"
        r"\s+(?:writing|using|coding\s+in|working\s+(?:in|with)|programming\s+in)\s+" + XL,
        I,
    ),
    rx.compile(r"^nothing\s+beats\s+(?:a\s+|an\s+|the\s+|good\s+)?" + XL, I),
    rx.compile(
        r"^(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+the\s+only\s+[\w\s-]{1,20}?\s+I\s+(?:actually\s+|"
        r"really\s+|truly\s+|genuinely\s+)?(?:enjoy|like|love|drink|eat|read|watch|trust)\b",
        I,
    ),
]
# "I play guitar, piano and drums": things played for their own sake.
_PLAY = rx.compile(
    r"\bI\s+(?:also\s+|still\s+)?play\s+(?!around\b|with\b|along\b|it\b|safe\b|dumb\b|on\b|"
    r"by\b|a\s+role\b|a\s+part\b|the\s+(?:role|part|victim|fool|lottery|odds|field|market|game|"
    r"long\s+game|devil)\b)(?:the\s+)?" + XL,
    I,
)
_FAVOURITE = [
    # "My favorite is VS Code for editing", "my go-to is Bun": a favourite of no named kind
    rx.compile(
        r"\bmy\s+(?:absolute\s+|all-time\s+)?(?:favou?rite|go-to|top\s+pick)(?P<what>)\s+"
        r"(?:is|are)\s+" + XL,
        I,
    ),
    rx.compile(
        r"\bmy\s+(?:absolute\s+|all-time\s+)?(?:favou?rite|preferred|go-to)\s+(?P<what>"
        r"[a-z][\w\s-]{0,30}?)\s+(?:is|are|would\s+be|has\s+to\s+be|has\s+got\s+to\s+be|"
        r"must\s+be)\s+" + XL,
        I,
    ),
    rx.compile(
        r"^(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+(?:definitely\s+|probably\s+|now\s+|hands\s+down\s+|"
        r"easily\s+|by\s+far\s+)?my\s+(?:absolute\s+)?"
        r"(?:favou?rite|preferred|go-to|number\s+one|no\.?\s*1|#1|top\s+(?:pick|choice))"
        r"(?:\s+(?P<what>[a-z][\w\s-]{0,30}?))?(?=\s*(?:$|,))",
        I,
    ),
]
# "I would like a coffee" is a request, "I would love to help" an offer: not preferences.
# "I'd prefer a ThinkPad" states a preference; "I would like a coffee" asks for one.
_REQUEST_FORM = rx.compile(r"\bI\s+would\s+(?:like|love|enjoy)\b", I)
_IDLE_LIKES = rx.compile(
    r"^(?:to\s+(?:think|say|know|see|ask|help|hear|add|mention|point|thank|check)|the\s+idea|"
    r"the\s+sound|how\s|what\s|your\s|you\b|that\s|this\s|it\b|the\s+way\s+you|talking|"
    r"chatting|working\s+with\s+you)",
    I,
)


_LAPSED = rx.compile(r"\b(?:any\s*more|any\s+longer|no\s+longer)\b", I)


def _about(obj: str) -> str | None:
    """What a liking is about, as a later change of heart names it: an activity by its
    verb ("running half marathons" -> ``run``), anything else by its name (None)."""
    plain = restore(obj)
    if re.match(r"^[a-z]+ing\b", plain) and known_term(plain) is None:
        return activity(plain)
    return None


def _comparison(clause: str) -> list[Step] | None:
    for pattern in (_COMPARATIVE, _BETTER):
        match = pattern.search(clause)
        if match is None or not own(clause, match.start()):
            continue
        joint = match.group(0)[match.end("x") - match.start(0) : match.start("y") - match.start(0)]
        if joint.strip().lower() == "to" and not re.search(
            r"\bprefer|\bfavou?r", match.group(0), I
        ):
            continue  # "I like using Poetry to manage dependencies": a purpose, not a rival
        x, y = clean_object(match.group("x")), clean_object(match.group("y"))
        if not x or not y:
            continue
        pair = sorted([slug(restore(x)), slug(restore(y))])
        fact = make_fact(
            "preference",
            F,
            x,
            f"prefers {x} over {y}",
            key=f"preference:{pair[0]}_vs_{pair[1]}",
            exclusive=True,
        )
        return [(fact, [])]
    return None


def read_preference(clause: str) -> list[Step] | None:
    found = _comparison(clause)
    if found:
        return found
    match = _FIND.search(clause)
    if match is not None and own(clause, match.start()):
        obj = clean_object(match.group("x"))
        if obj and not _IDLE_LIKES.match(obj):
            good = match.group("how").lower() in _POSITIVE_FEELINGS
            content = obj if good else f"dislikes {obj}"
            return [(make_fact("preference", F, obj, content, negative=not good), [])]
    for pattern in rx.able(_DISLIKE, clause):
        match = pattern.search(clause)
        if match is None or not own(clause, match.start()):
            continue
        lapsed = (
            re.search(
                r"no\s+longer|gone\s+off|went\s+off|lost|fallen|fell|grown|got\s+tired|"
                r"soured|cooled|burnt|burned|bored",
                match.group(0),
                I,
            )
            is not None
        )
        verb = "no longer likes" if lapsed else "dislikes"
        lapsed = lapsed or _LAPSED.search(clause) is not None
        worst = match.groupdict().get("worst")
        if worst is not None and not (is_known(restore(worst)) or TOOL_SHAPED.search(worst)):
            continue  # "John is the worst", "Parking is a nightmare": not a thing to remember
        steps: list[Step] = []
        for o in objects(worst or match.group("x")):
            if _IDLE_LIKES.match(o):
                continue
            fact = make_fact("preference", F, o, f"{verb} {o}", negative=True, about=_about(o))
            # "I don't enjoy running anymore" ends "I love running half marathons"; "running
            # on treadmills" is narrower and ends nothing else.
            bare = len(o.split()) == 1
            ended = (
                [Retraction(fact.object, ("preference",), replaced_by=fact)]
                if lapsed and bare
                else []
            )
            steps.append((fact, ended))
        return steps or None
    if _REQUEST_FORM.search(clause):
        return None
    for pattern in rx.able(_LIKE, clause):
        match = pattern.search(clause)
        if match is None or not own(clause, match.start()):
            continue
        verb = (match.groupdict().get("verb") or "").lower()
        found_objects = [o for o in objects(match.group("x")) if not _IDLE_LIKES.match(o)]
        exclusive = verb == "prefer" and len(found_objects) == 1
        return [
            (make_fact("preference", F, o, o, exclusive=exclusive, about=_about(o)), [])
            for o in found_objects
        ] or None
    match = _PLAY.search(clause)
    if match is not None and own(clause, match.start()):
        found_objects = [o for o in objects(match.group("x")) if not _IDLE_LIKES.match(o)]
        if found_objects:
            return [(make_fact("preference", F, o, f"plays {o}"), []) for o in found_objects]
    for pattern in rx.able(_FAVOURITE, clause):
        match = pattern.search(clause)
        if match is None or not own(clause, match.start()):
            continue
        what = re.sub(r"\s+", " ", (match.group("what") or "").strip().lower())
        what = re.sub(
            r"\s+(?:these\s+days|nowadays|right\s+now|at\s+the\s+moment|now|lately)$", "", what
        )
        items = objects(match.group("x"))
        if len(items) > 1:
            # "My favourite bands are A, B and C": three favourites, none replacing another.
            return [
                (make_fact("preference", F, o, f"favorite {what}: {o}" if what else o), [])
                for o in items
            ]
        obj = clean_object(match.group("x"))
        if not obj:
            continue
        subject = slug(what) if what else subject_of(restore(obj))
        content = f"favorite {what}: {obj}" if what else f"favorite: {obj}"
        key = fact_key("preference", f"favorite {what}") if what else None
        fact = make_fact(
            "preference", F, obj, content, key=key, exclusive=bool(subject), subject=subject
        )
        return [(fact, [])]
    return None
