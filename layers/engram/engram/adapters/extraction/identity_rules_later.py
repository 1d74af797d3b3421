"""The identity rules tried after those of ``identity_rules``: where the user lives and
comes from, their age, time zone, native language and diet, then rarer phrasings of every
aspect (a name spelled out, "I'm Sam, a ...", a degree under way, the team they lead).

Apart from ``identity_rules`` only to keep each half of the long table readable:
``identity_rules.RULES`` ends with these, in this order, and the order matters (a match
keeps its span from the rules after it).
"""

from __future__ import annotations

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import I
from engram.adapters.extraction.identity_fragments import ADVS, DIET, NAME, PLACE, WE_I, ZONE, ci

__all__ = ["LATER_RULES"]

LATER_RULES: list[tuple[str, rx.Rule, str]] = [
    (
        "location",
        rx.compile(
            WE_I
            + ADVS
            + ci(
                r"\s+(?:live|lived|living|reside|residing|based|located|staying|settled)"
                r"(?:\s+(?:just\s+)?(?:out\s+of|outside(?:\s+of)?|near|close\s+to|"
                r"on\s+the\s+outskirts\s+of)|\s+in|\s+down\s+in|\s+up\s+in)\s+"
            )
            + PLACE
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(
            WE_I
            + ADVS
            + ci(
                r"\s+(?:moved|relocated|moving|relocating|emigrated)\s+"
                r"(?:back\s+|over\s+)?to\s+"
            )
            + PLACE
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(r"\bI\s+work\s+(?:at|for)\s+[^,;:!?\n]+?\s+in\s+" + PLACE),
        "based in {x}",
    ),
    (
        "location",
        rx.compile(ci(r"\bI\s+(?:work|am\s+working)\s+(?:in|from|out\s+of)\s+") + PLACE),
        "works in {x}",
    ),
    (
        "location",
        rx.compile(r"^I\s+am\s+[A-Z][\w'-]+,\s+(?:an?|the)\s+[^,;:!?\n]+?\s+in\s+" + PLACE),
        "based in {x}",
    ),
    (
        "hometown",
        rx.compile(
            ci(r"\bI\s+(?:am|come)\s+(?:originally\s+)?from\s+")
            + PLACE
            + ci(r"(?=\s*(?:$|,|\s+and\b|\s+but\b))")
        ),
        "is from {x}",
    ),
    (
        "hometown",
        rx.compile(
            ci(
                r"\bI\s+(?:grew\s+up|was\s+born|was\s+raised|"
                r"was\s+born\s+and\s+(?:raised|bred))\s+in\s+"
            )
            + PLACE
        ),
        "grew up in {x}",
    ),
    ("hometown", rx.compile(ci(r"\b(?:my\s+)?home\s*town\s+is\s+") + PLACE), "is from {x}"),
    # Where home is, said the other way round: "Home for me is Hobart", "Bristol is where
    # I live", "Lisbon is home now", "I call Leeds home".
    (
        "location",
        rx.compile(
            r"^"
            + ci(
                r"(?:home\s+(?:for\s+(?:me|us)\s+)?is|(?:my|our)\s+home\s+is(?:\s+in)?)\s+(?:now\s+)?"
            )
            + PLACE
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(
            r"^"
            + PLACE
            + ci(
                r"\s+is\s+(?:now\s+)?(?:where\s+(?:I|we)\s+(?:live|am\s+based|are\s+based|"
                r"reside|call\s+home|am\s+living|are\s+living)|(?:my|our)\s+home|home)"
                r"(?=\s*(?:$|,|\s+now\b|\s+(?:for|to)\s+(?:me|us)\b))"
            )
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(ci(r"\b(?:I|we)\s+(?:now\s+)?call\s+") + PLACE + ci(r"\s+home\b")),
        "lives in {x}",
    ),
    (
        "age",
        rx.compile(
            r"\bI\s+am\s+(?P<x>\d{1,3})(?:\s+years?\s+old|\s+y/?o)?"
            r"(?=(?:\s+(?:now|today|this\s+year|actually|in\s+fact))*\s*(?:$|,|\s+and\b))",
            I,
        ),
        "is {x} years old",
    ),
    (
        "age",
        rx.compile(r"\bI\s+(?:just\s+|recently\s+)?turned\s+(?P<x>\d{1,3})\b", I),
        "is {x} years old",
    ),
    ("timezone", rx.compile(ci(r"\bmy\s+time\s*zone\s+is\s+") + ZONE), "timezone: {x}"),
    (
        "timezone",
        rx.compile(
            ci(r"\bmy\s+time\s*zone\s+is\s+")
            + r"(?P<x>Pacific|Eastern|Central|Mountain|Atlantic|Alaska|Hawaii)\b"
        ),
        "timezone: {x}",
    ),
    (
        "timezone",
        rx.compile(
            ci(r"\b(?:I\s+am|it\s+is|we\s+are)\s+(?:in|on)\s+(?:the\s+)?")
            + ZONE
            + ci(r"(?:\s+(?:time\s*zone|time))?(?=\s|$|,)")
        ),
        "timezone: {x}",
    ),
    (
        "timezone",
        rx.compile(
            ci(r"\bit\s+is\s+") + r"(?P<x>(?:Pacific|Eastern|Central|Mountain|"
            r"Atlantic|Greenwich|Central\s+European|Eastern\s+European|"
            r"Western\s+European|Japan|India|China|Australian\s+\w+)\s+time)"
            + ci(r"\s+for\s+(?:me|us)")
        ),
        "timezone: {x}",
    ),
    (
        "native_language",
        rx.compile(
            ci(r"\bmy\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+") + r"(?P<x>[A-Z]\w+)"
        ),
        "native language: {x}",
    ),
    (
        "native_language",
        rx.compile(
            r"^(?P<x>[A-Z]\w+)" + ci(r"\s+is\s+my\s+(?:native|first|mother)\s+(?:language|tongue)")
        ),
        "native language: {x}",
    ),
    (
        "native_language",
        rx.compile(ci(r"\bI\s+am\s+a\s+native\s+") + r"(?P<x>[A-Z]\w+)" + ci(r"\s+speaker")),
        "native language: {x}",
    ),
    (
        "diet",
        rx.compile(
            r"\bI\s+(?:am|have\s+been)\s+(?:now\s+|fully\s+|strictly\s+|mostly\s+|"
            r"a\s+|an\s+)*" + DIET,
            I,
        ),
        "is {x}",
    ),
    (
        "diet",
        rx.compile(r"\bI\s+(?:went|have\s+gone|became|turned)\s+(?:fully\s+)?" + DIET, I),
        "is {x}",
    ),
    (
        # One at a time: "I'm divorced now" retires "is married". "We got married" stays
        # the life grammar's dated event.
        "marital",
        rx.compile(
            # Not said of a time to come or a supposition: "when I'm married", "let's say".
            r"(?<!when\s)(?<!once\s)(?<!until\s)(?<!before\s)(?<!after\s)(?<!if\s)"
            r"(?<!say\s)(?<!assume\s)(?<!suppose\s)"
            r"\b(?:I|we|my\s+(?:husband|wife|partner|spouse|fianc[eé]e?)\s+and\s+I)\s+"
            r"(?:am|are|have\s+been)\s+(?:now\s+|happily\s+|newly\s+|recently\s+|"
            r"just\s+|finally\s+|officially\s+)*(?P<x>married|divorced|engaged|separated|"
            r"widowed)\b(?![\w-])"
            # "engaged in talks", "separated by 3 hours", "married to the idea", "divorced
            # from reality", "married twice": no status
            r"(?!\s+(?:in|by|before|twice|with\s+(?:the|our)\b|"
            r"from\s+(?!my\s+(?:husband|wife|partner|spouse|ex)\b)|"
            r"to\s+(?:the|this|that|my\s+(?:job|work|career|phone))\b))",
            I,
        ),
        "is {x}",
    ),
    (
        "hometown",
        rx.compile(
            r"^"
            + PLACE
            + ci(
                r"\s+is\s+(?:my\s+)?(?:home\s*town|where\s+I\s+"
                r"(?:grew\s+up|was\s+born|am\s+from))"
            )
        ),
        "is from {x}",
    ),
    (
        "location",
        rx.compile(
            ci(r"^I\s+am\s+(?:now\s+|currently\s+)?(?:in|over\s+in)\s+")
            + PLACE
            + ci(r"(?=\s+(?:now|these\s+days|for\s+good)\b|\s*$)")
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(ci(r"\bI\s+am\s+(?:an?|the)\s+[^,;:!?\n]+?\s+(?:in|on|at)\s+") + PLACE + r"$"),
        "based in {x}",
    ),
    (
        "timezone",
        rx.compile(
            ci(r"\bI\s+am\s+on\s+") + r"(?P<x>[A-Z][\w]+(?:\s+[A-Z][\w]+)?\s+"
            r"(?i:time))\b"
        ),
        "timezone: {x}",
    ),
    ("diet", rx.compile(r"\bI\s+(?:keep|eat|only\s+eat)\s+(?P<x>kosher|halal)\b", I), "keeps {x}"),
    (
        "role",
        rx.compile(
            ci(r"\bI\s+(?:teach|lecture\s+in|lecture\s+on|tutor)\s+")
            + r"(?P<x>[\w\s-]{2,30}?)"
            + ci(r"(?=\s+(?:at|in|to|for)\b|$)")
        ),
        "teaches {x}",
    ),
    (
        "role",
        rx.compile(
            ci(
                r"\bI\s+am\s+(?:now\s+)?(?:freelancing|working|moonlighting|consulting)\s+"
                r"as\s+(?:an?\s+|the\s+)?"
            )
            + r"(?P<x>[\w\s-]{2,40}?)"
            + ci(r"(?=\s+(?:at|in|for|now)\b|$)")
        ),
        "is {a} {x}",
    ),
    (
        "role",
        rx.compile(
            r"^"
            + ci(r"I\s+am\s+")
            + r"[A-Z][\w'-]+,\s+"
            + ci(r"(?:an?|the)\s+")
            + r"(?P<x>(?:[\w-]+\s+){0,3}?[\w-]+)"
            + ci(r"(?=\s+(?:at|in|on|for|from)\b|\s*$|,)")
        ),
        "is {a} {x}",
    ),
    (
        "location",
        rx.compile(
            r"^"
            + ci(r"I\s+am\s+")
            + r"[A-Z][\w'-]+,\s+"
            + ci(r"(?:an?|the)\s+[^,;:!?\n]+?\s+(?:on|in)\s+")
            + PLACE
        ),
        "based in {x}",
    ),
    (
        "age",
        rx.compile(
            r"\bI\s+am\s+(?P<x>\d{1,3})\s+(?:as\s+of\b|since\b|not\s+\d{1,3}(?=\s*(?:$|,|\.)))", I
        ),
        "is {x} years old",
    ),
    (
        "name",
        rx.compile(ci(r"\b(?:it\s+is|that\s+is|my\s+name\s+is)\s+spelled\s+") + NAME),
        "name is {x}",
    ),
    (
        "role",
        rx.compile(
            ci(r"\bI\s+am\s+(?:currently\s+|now\s+)?doing\s+(?:a|my)\s+")
            + r"(?P<x>(?i:phd|ph\.d\.|doctorate|master'?s|msc|mba|bachelor'?s|degree|masters|"
            r"postdoc|apprenticeship|residency)(?:\s+(?:in|on)\s+(?!the\b)[\w\s-]{2,40})?)"
            + ci(r"(?=\s*(?:$|,|\s+at\b))")
        ),
        "doing a {x}",
    ),
    # "Hi, I'm Lachlan, 38, living in Pittsburgh".
    (
        "age",
        rx.compile(r"^" + ci(r"I\s+am\s+") + r"[A-Z][\w'-]+,\s+(?P<x>\d{1,3})(?=\s*(?:,|$))"),
        "is {x} years old",
    ),
    # Leading a team is beside the role ("a software engineer who leads the API team").
    (
        "team",
        rx.compile(
            ci(r"\bI\s+(?:now\s+)?(?:lead|manage|head|coordinate)\s+(?:the|our|a)\s+")
            + r"(?P<x>(?:[\w&-]+\s+){0,3}?(?i:team|department|division|lab|squad))\b"
        ),
        "leads the {x}",
    ),
]
