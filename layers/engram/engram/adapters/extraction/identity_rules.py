"""The identity rule table: the phrasings that state a name, pronouns, an employer or a
role, each an (aspect, rule, template) triple.

Kept apart from ``identity.py``, which applies it: the table is long literal data that
grows by a rule as new phrasings turn up, while the reading (one fact per aspect, the
matches it refuses) rarely changes. Rules are tried in the order of ``RULES`` and a match
keeps its span from the rules after it, so the order matters; the table goes on with
``identity_rules_later.LATER_RULES``.
"""

from __future__ import annotations

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import I
from engram.adapters.extraction.identity_fragments import (
    ADVS,
    NAME,
    ORG,
    PLACE,
    ROLE,
    ROLES,
    SUFFIX_ROLE,
    WE_I,
    ci,
)
from engram.adapters.extraction.identity_rules_later import LATER_RULES

__all__ = ["RULES"]

RULES: list[tuple[str, rx.Rule, str]] = [
    (
        "pronouns",
        rx.compile(
            ci(r"\b(?:my\s+pronouns\s+are|I\s+go\s+by|I\s+use)\s+")
            + r"(?P<x>(?i:she/her|he/him|they/them|she/they|he/they|"
            r"xe/xem|ze/zir|any\s+pronouns)(?:/\w+)?)"
        ),
        "pronouns: {x}",
    ),
    (
        "name",
        rx.compile(ci(r"\bmy\s+name\s+is|\bmy\s+name's|^name's|^name\s+is") + r"\s+" + NAME),
        "name is {x}",
    ),
    (
        "employer",
        rx.compile(
            r"^(?P<x>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2})"
            + ci(
                r"\s+is\s+where\s+I\s+(?:work|have\s+worked|have\s+been\s+working|am\s+working)"
                r"(?=\s*(?:$|,|\s+now\b|\s+for\s+(?:the\s+)?(?:past|last)\b|\s+since\b))"
            )
        ),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(
            ci(r"\bI\s+(?:have\s+been|have\s+worked|have\s+now\s+been)\s+at\s+")
            + r"(?P<x>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2})"
            # "for four years", "since 2019": a job; "for three hours" is a visit.
            + ci(
                r"(?=\s+(?:for\s+(?:(?:the\s+)?(?:past|last)\s+)?(?:\w+\s+)?(?:years?|months?)|"
                r"since\s+(?:\d{4}|january|february|march|april|may|june|july|august|september|"
                r"october|november|december|last\s+year))\b)"
            )
        ),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(
            ci(
                r"\bwe\s+(?:have\s+|just\s+)?(?:renamed|rebranded)\s+(?:the|our|my)\s+"
                r"(?:company|startup|business|firm|agency|studio)\s+(?:to|as)\s+"
            )
            + r"(?P<x>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2})"
        ),
        "works at {x}",
    ),
    (
        "role",
        rx.compile(
            ci(r"\bI\s+(?:currently\s+|now\s+)?work\s+as\s+(?:an?\s+|the\s+)")
            + r"(?P<x>(?:(?!with\b|for\b|at\b|in\b|and\b)[\w-]+\s+){0,3}?(?:"
            + ROLES
            + r"|[a-z]+(?:er|or|ist|ian|ant|eer))s?)"
            + ci(r"(?=\s+(?:at|in|for|since)\b|$|,)")
        ),
        "is {a} {x}",
    ),
    (
        "name",
        rx.compile(
            ci(
                r"\b(?:call\s+me|I\s+go\s+by|people\s+call\s+me|"
                r"everyone\s+calls\s+me)"
            )
            + r"\s+"
            + NAME
        ),
        "name is {x}",
    ),
    (
        "name",
        rx.compile(
            r"^"
            # Only "I am": "this is Max" shows someone (a dog, a friend), it names no user.
            + ci(r"I\s+am")
            + r"\s+"
            + NAME
            + ci(r"(?=\s*(?:$|,|\s+and\b|\s+from\b|\s+here\b))")
        ),
        "name is {x}",
    ),
    # A greeting that introduces: "Sasha here, hi!", "Hi all, Tom here".
    (
        "name",
        rx.compile(
            r"^"
            + ci(r"(?:(?:hi|hey|hello),?\s+)?(?:(?:all|there|everyone|folks|team),?\s+)?")
            + r"(?P<x>[A-Z][\w'\-]+)"
            + ci(r"\s+here(?=\s*(?:$|[,!.]\s*(?:hi|hey|hello|hiya)\b))")
        ),
        "name is {x}",
    ),
    (
        "employer",
        rx.compile(
            WE_I
            + ADVS
            + ci(r"\s+(?:work|working|employed|interning)\s+(?:at|for|by|with)\s+")
            + r"(?P<x>[A-Z][^,;:!?\n]*?)"
            + ci(
                r"(?=\s+(?:as|in|on|since|from|last|this|a\s+few|"
                r"two|three|for|now)\b|$|,)"
            )
        ),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(ci(r"\bmy\s+(?:employer|company|workplace)\s+is\s+") + ORG),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(
            WE_I
            + ADVS
            + ci(
                r"\s+(?:joined|started\s+(?:working\s+)?at|"
                r"(?:started|got|landed|accepted|took)\s+(?:a\s+)?(?:new\s+)?"
                r"(?:job|position|role|offer)\s+(?:at|with)|"
                r"(?:moved|moving|switched|switching)\s+jobs\s+to)\s+"
            )
            + r"(?P<x>[A-Z][^,;:!?\n]*?)"
            + ci(
                r"(?=\s+(?:as|in|last|this|since|a\s+few|two|"
                r"three|on|for)\b|$|,)"
            )
        ),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(
            ci(
                r"\bI\s+am\s+(?:now\s+)?(?:an?|the)\s+(?:[\w\-+#./]+\s+){0,4}?(?:"
                + ROLES
                + r")s?\s+(?:at|for|with)\s+"
            )
            + r"(?P<x>[A-Z][^,;:!?\n]*?)(?=\s+(?:in|since|for)\b|$)"
        ),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(
            r"^"
            + ci(r"I\s+am\s+")
            + r"[A-Z][\w'-]+"
            + ci(r"\s+from\s+")
            + r"(?P<x>[A-Z][^,;:!?\n]*?)(?=\s*(?:$|,))"
        ),
        "is from {x}",
    ),
    (
        "role",
        rx.compile(
            ci(r"\bI\s+(?:work|am\s+working)\b[^,;:!?\n]*?\bas\s+(?:an?\s+|the\s+)?")
            + r"(?P<x>(?i:(?:[\w\-+#./]+\s+){0,4}?(?:"
            + ROLES
            + r")s?))\b"
        ),
        "is {a} {x}",
    ),
    (
        "role",
        rx.compile(r"\bI\s+am\s+(?:now\s+|currently\s+|still\s+)?(?:an?|the)\s+" + ROLE + r"\b", I),
        "is {a} {x}",
    ),
    (
        "employer",
        rx.compile(
            r"^"
            + ci(r"I\s+am\s+")
            + r"[A-Z][\w'-]+,\s+"
            + ci(
                r"(?:an?|the)\s+[^,;:!?\n]+?\s+"
                r"(?:at|for|with)\s+"
            )
            + r"(?P<x>[A-Z][^,;:!?\n]*?)(?=\s*(?:$|,|\s+in\b))"
        ),
        "works at {x}",
    ),
    (
        "location",
        rx.compile(ci(r"^I\s+am\b.*,\s+(?:based|living|located)\s+(?:in|out\s+of)\s+") + PLACE),
        "lives in {x}",
    ),
    (
        "role",
        rx.compile(r"^I\s+am\s+[A-Z][\w'-]+,\s+(?:an?|the)\s+" + ROLE + r"\b", I),
        "is {a} {x}",
    ),
    ("role", rx.compile(r"^I\s+am\s+an?\s+" + SUFFIX_ROLE + r"$", I), "is {a} {x}"),
    (
        "role",
        rx.compile(
            r"\bI\s+(?:have\s+)?(?:moved\s+into|stepped\s+(?:into|up\s+(?:to|as))|"
            r"(?:got|was|have\s+been|just\s+got)\s+promoted\s+to|transitioned\s+(?:into|to))\s+"
            r"(?:an?\s+|the\s+)?(?P<x>[^,;:!?\n]+?)(?:\s+(?:role|position|job))?"
            r"(?=\s+(?:in|at|last|this|since)\b|$)",
            I,
        ),
        "is {a} {x}",
    ),
    (
        "role",
        rx.compile(
            r"\bmy\s+(?:job|role|title|position|job\s+title)\s+is\s+(?:an?\s+)?"
            r"(?P<x>[^,;:!?\n]+)",
            I,
        ),
        "role: {x}",
    ),
    *LATER_RULES,
]
