"""The decision rules: the phrasings of a choice made ("we'll use Django", "we went with
Postgres", "let's call the app Lumen") and of a choice replacing another ("instead of").

Kept apart from ``usage.py``, which reads a clause with them: these are long pattern
tables that grow by a word as new phrasings turn up, while the reading (which verb the
fact says, what the choice retires) rarely changes. ``DECISIONS`` are tried in order.
"""

from __future__ import annotations

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import ADV, WHO, XL, I

__all__ = [
    "DECIDED_ANY",
    "DECISIONS",
    "IDLE_DECISIONS",
    "INSTEAD",
    "IT_IS",
    "NAMING",
    "PLAN",
    "SOME",
    "WILL_RUN",
]

# A short object between a verb and its preposition ("deploy everything to", "write
# the backend in").
SOME = (
    r"(?:(?:it|this|that|everything|things|all|the\s+[\w-]+(?:\s+[\w-]+)?|our\s+[\w-]+|"
    r"my\s+[\w-]+|[\w-]+)\s+)?"
)
_DECISION_VERB = (
    r"(?P<verb>use|using|go\s+with|going\s+with|pick|choose|adopt|stick\s+with|stay\s+with|keep\s+using|"
    r"standardi[sz]e\s+on|start\s+using|switch\s+over\s+to|rely\s+on|try|"
    r"build\s+" + SOME + r"(?:with|on|in)|write\s+" + SOME + r"in|"
    r"deploy\s+" + SOME + r"(?:to|on|with)|host\s+" + SOME + r"(?:on|with)|"
    r"ship\s+" + SOME + r"(?:on|to|with)|launch\s+" + SOME + r"(?:on|with)|"
    r"implement\s+" + SOME + r"(?:in|with)|run\s+" + SOME + r"on|"
    r"store\s+" + SOME + r"(?:in|as)|save\s+" + SOME + r"(?:in|as)|keep\s+" + SOME + r"in|"
    r"schedule\s+" + SOME + r"(?:with|via|using|on)|trigger\s+" + SOME + r"(?:with|via)|"
    r"put\s+" + SOME + r"(?:in|on)|migrate\s+" + SOME + r"to|"
    r"move\s+"
    + SOME
    + r"(?:over\s+|back\s+)?to|port\s+"
    + SOME
    + r"(?:over\s+)?to|handle\s+"
    + SOME
    + r"with|manage\s+"
    + SOME
    + r"(?:with|in))"
)
_WILL = (
    r"(?:\s+will\s+be|\s+are\s+going\s+to\s+be|\s+will|\s+shall|\s+are\s+going\s+to|\s+am\s+going\s+to|\s+are\s+gonna|\s+am\s+gonna|"
    r"\s+plan\s+to|\s+intend\s+to|\s+want\s+to\s+go\s+with)"
)
# Verbs that are a decision whatever follows ("decided to learn Japanese this year").
_DECIDED = (
    r"(?:\s+have|\s+has)?\s+" + ADV + r"(?:decided|chose|opted|agreed|committed|resolved|"
    r"voted|made\s+up\s+(?:my|our)\s+minds?|set\s+(?:my|our)\s+hearts?\s+on|promised\s+myself|"
    r"am\s+determined|are\s+determined)\s+to\s+(?P<vp>[^,;:!?\n]+)"
)
DECISIONS = [
    rx.compile(WHO + _WILL + r"\s+" + ADV + _DECISION_VERB + r"\s+" + XL, I),
    rx.compile(
        WHO + r"(?:\s+have|\s+has)?\s+" + ADV + r"(?:decided|chose|opted|agreed|committed|"
        r"resolved|voted|settled\s+on|plan|want)\s+to\s+" + ADV + _DECISION_VERB + r"\s+" + XL,
        I,
    ),
    rx.compile(
        WHO
        + r"(?:\s+have|\s+has|\s+are|\s+am)?\s+"
        + ADV
        + r"(?P<verb>decided|settled|settling|agreed|"
        r"landed|landing)"
        r"\s+(?:on|upon)\s+" + XL,
        I,
    ),
    rx.compile(
        WHO + r"(?:\s+went|\s+are\s+going|\s+will\s+go|\s+am\s+going|\s+ended\s+up\s+going)"
        r"\s+(?P<verb>with)\s+" + XL,
        I,
    ),
    rx.compile(
        WHO + r"(?:\s+have|\s+has)?\s+" + ADV + r"(?P<verb>chose|chosen|picked|selected|"
        r"opted\s+for|settled\s+on|committed\s+to)\s+" + XL,
        I,
    ),
    rx.compile(
        WHO + r"\s+ended\s+up\s+(?P<verb>using|choosing|picking|going\s+with|with)\s+" + XL, I
    ),
    rx.compile(r"\blet\s*'?\s*s\s+" + _DECISION_VERB + r"\s+" + XL, I),
    rx.compile(
        WHO + r"(?:\s+are|\s+am|\s+have|\s+will)?\s+" + ADV + r"(?P<verb>(?:moving|going|pushing|"
        r"pressing)\s+(?:forward|ahead)\s+with|proceeding\s+with|adopting|rolling\s+out|"
        r"introducing|standardi[sz]ing\s+on|betting\s+on|doubling\s+down\s+on)\s+" + XL,
        I,
    ),
    rx.compile(
        r"^(?:the\s+|our\s+|my\s+)?(?P<what>(?:[\w-]+\s+){0,4}?)(?:will|is\s+going\s+to|shall)\s+"
        r"be\s+(?P<verb>built|written|hosted|deployed|done|implemented|made|developed|run|"
        r"powered|served|stored|kept)\s+(?:in|with|on|using|by)\s+" + XL,
        I,
    ),
    rx.compile(
        r"^(?:the\s+|our\s+|my\s+)?(?P<what>(?:[\w-]+\s+){0,4}?)(?:will\s+be|is\s+going\s+to\s+be)"
        r"\s+(?P<verb>in|on)\s+" + XL,
        I,
    ),
    rx.compile(
        r"\b(?:the|our|my)\s+(?:final\s+)?(?P<verb>decision|choice|pick|call)\s+is\s+"
        r"(?:to\s+(?:use\s+|go\s+with\s+)?)?" + XL,
        I,
    ),
]
DECIDED_ANY = rx.compile(WHO + _DECIDED, I)
IT_IS = rx.compile(r"^(?P<x>[A-Z][^,;:!?\n]*?)\s+it\s+is(?:\s+then)?(?:\s+for\s+[^,;:!?\n]+)?$")
WILL_RUN = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<what>(?:[\w-]+\s+){0,4}?)(?:will|is\s+going\s+to|shall)\s+"
    r"(?P<verb>run|live|sit|be\s+hosted|be\s+deployed|be\s+stored)\s+(?:on|in)\s+" + XL,
    I,
)
# "I'm going to accept the offer in Trondheim": a plan with a life verb.
PLAN = rx.compile(
    WHO + r"(?:\s+am|\s+are)?(?:\s+going\s+to|\s+will|\s+plan\s+to|\s+intend\s+to|\s+want\s+to)\s+"
    r"(?P<vp>(?:accept|take|join|start|buy|learn|apply\s+for|enrol+|enroll|quit|hire|launch|"
    r"sell|adopt|rent|book|sign\s+up\s+for|retire|study|train\s+for|run|climb|visit)\b"
    r"[^,;:!?\n]+)",
    I,
)
INSTEAD = rx.compile(
    r"(?:\s+(?:instead\s+of|rather\s+than|in\s+place\s+of|in\s+favou?r\s+of|over)|,\s+not)\s+"
    r"(?P<old>[^,;:!?\n]+?)(?=\s*(?:,|$))",
    I,
)
IDLE_DECISIONS = rx.compile(
    r"^(?:(?:to\s+)?(?:think|sleep|see|wait|try|check|go|leave|rest|relax|call|ask|look|head|"
    r"get\s+back|circle\s+back|let\s+you\s+know|take\s+a\s+(?:break|nap|look|walk))\b"
    r"(?:\s+(?:home|out|away|now|back|ahead|to\s+bed|to\s+sleep|about\s+it|it\s+over|"
    r"on\s+it|and\s+see|later|tomorrow|tonight|soon|for\s+a\s+(?:bit|while|walk)))*$|"
    r"(?:to\s+)?(?:think|sleep|see|wait|try|check|leave|rest|relax|call|ask|look|"
    r"get\s+back|circle\s+back)\b.*\b(?:it|this|that|you|tomorrow|later|tonight|now)\b|"
    r"it\b|that\b|this\b)",
    I,
)

# "The plan is to call the app Tidewater", "the app will be called Lumen": a name chosen
# for something of theirs, which a later name replaces.
_NAMED_THING = (
    r"(?P<thing>app|project|company|product|startup|repo|band|podcast|blog|game|site|website|"
    r"channel|newsletter|library|package|shop|business|cat|dog|puppy|kitten|baby|boat|server)"
)
NAMING = [
    rx.compile(
        r"\b(?:(?:I|we)\s+(?:will|shall|are\s+going\s+to|am\s+going\s+to|want\s+to|decided\s+to|"
        r"plan\s+to|have\s+decided\s+to)\s+|let(?:'s|\s+us)\s+|(?:plan|idea)\s+is\s+to\s+|"
        r"going\s+to\s+)(?:call|name)\s+(?:the|our|my)\s+(?:new\s+)?"
        + _NAMED_THING
        + r"\s+(?P<x>[A-Z][\w-]*(?:\s+(?!and\b)[A-Z][\w-]*){0,2})",
        I,
    ),
    rx.compile(
        r"\b(?:the|our|my)\s+(?:new\s+)?"
        + _NAMED_THING
        + r"\s+(?:will\s+be|is\s+going\s+to\s+be|is\s+now|is\s+getting)\s+"
        r"(?:called|named|renamed)\s+(?P<x>[A-Z][\w-]*(?:\s+(?!and\b)[A-Z][\w-]*)?)",
        I,
    ),
]
