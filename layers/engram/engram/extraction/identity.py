"""Who the user is: name, employer, role, location, origin, age, time zone, diet...

One fact per aspect (``identity:employer``), so a new job or a move replaces the
old one and the old one goes to the history.
"""

from __future__ import annotations

import re

from ..models import MemoryType
from .common import I, Step, make_fact, own
from .facts import clean_object
from .text import restore

__all__ = ["read_identity"]

F = MemoryType.FACTUAL
_NAME = r"(?P<x>[A-Z][\w'\-]+(?:\s+[A-Z][\w'\-]+){0,2})"
_PLACE = (
    r"(?:the\s+)?(?P<x>[A-Z][\w'\-]+(?:[\s,]+(?:[A-Z][\w'\-]+|(?:de|del|la|le|am|upon|on|of)\b)){0,4})"
    r"(?:\s+(?:office|area|region|branch|hq|campus))?"
)
_ORG = r"(?P<x>[^,;:!?\n]+?)(?=\s+(?:as|in|on|since|from|last|this|a\s+few|two|three|for)\b|$)"
_ROLES = (
    r"developer|engineer|programmer|designer|manager|scientist|researcher|analyst|architect|"
    r"consultant|founder|co-founder|cofounder|ceo|cto|cfo|coo|vp|director|lead|head|teacher|"
    r"professor|lecturer|student|intern|doctor|nurse|physician|surgeon|dentist|lawyer|"
    r"accountant|writer|author|journalist|editor|artist|musician|photographer|chef|"
    r"entrepreneur|freelancer|contractor|administrator|admin|sysadmin|devops|sre|tester|"
    r"marketer|recruiter|salesperson|owner|officer|specialist|technician|mechanic|pharmacist|"
    r"therapist|counselor|counsellor|psychologist|economist|statistician|mathematician|"
    r"physicist|chemist|biologist|veterinarian|vet|pilot|librarian|translator|coach|trainer|"
    r"phd\s+student|postdoc|maintainer|hobbyist|beginner|retiree|parent|mom|dad|mother|"
    r"father|paralegal|pm|po|qa|ux\s+researcher|data\s+engineer|product\s+owner|barista|"
    r"electrician|plumber|carpenter|farmer|firefighter|police\s+officer|soldier|nanny|"
    r"bookkeeper|cashier|clerk|receptionist|secretary|assistant"
)
_ROLE = rf"(?P<x>(?:[\w\-+#./]+\s+){{0,4}}?(?:{_ROLES})s?)"
_ZONE = (
    r"(?P<x>[A-Z][a-z]+/[A-Z][\w/]+|UTC\s*[+-]\s*\d{1,2}(?::\d\d)?|GMT\s*[+-]\s*\d{1,2}|"
    r"(?-i:[A-Z]{2,5}))"
)
_DIET = (
    r"(?P<x>vegetarian|vegan|pescatarian|gluten[- ]free|lactose[- ]intolerant|"
    r"allergic\s+to\s+[\w\s]+|keto|halal|kosher|teetotal|sober|celiac|coeliac)"
)
_RULES: list[tuple[str, re.Pattern[str], str]] = [
    ("name", re.compile(r"\b(?i:my\s+name\s+is)\s+" + _NAME), "name is {x}"),
    (
        "name",
        re.compile(r"\b(?i:call\s+me|i\s+go\s+by|people\s+call\s+me)\s+" + _NAME),
        "name is {x}",
    ),
    ("name", re.compile(r"^(?:I\s+am|This\s+is)\s+" + _NAME + r"$"), "name is {x}"),
    (
        "employer",
        re.compile(
            r"\bI\s+(?:currently\s+|now\s+|still\s+)?(?:work|am\s+working|am\s+employed)\s+"
            r"(?:at|for|by)\s+" + _ORG,
            I,
        ),
        "works at {x}",
    ),
    (
        "employer",
        re.compile(r"\bmy\s+(?:employer|company|workplace)\s+is\s+" + _ORG, I),
        "works at {x}",
    ),
    (
        "employer",
        re.compile(
            r"\bI\s+(?:just\s+|recently\s+|finally\s+)?(?:joined|started\s+(?:working\s+)?at|"
            r"(?:started|got|landed|accepted|took)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role|"
            r"offer)\s+(?:at|with)|(?:have\s+|am\s+)?(?:moved|moving|switched|switching)\s+"
            r"jobs\s+to)\s+(?P<x>[A-Z][^,;:!?\n]*?)(?=\s+(?:as|in|last|this|since|a\s+few|"
            r"two|three)\b|$)"
        ),
        "works at {x}",
    ),
    (
        "employer",
        re.compile(
            r"\bI\s+am\s+(?:now\s+)?(?:an?|the)\s+(?:[\w\-+#./]+\s+){0,4}?(?:" + _ROLES + r")s?\s+"
            r"(?:at|for|with)\s+(?P<x>[A-Z][^,;:!?\n]*?)(?=\s+(?:in|since|for)\b|$)"
        ),
        "works at {x}",
    ),
    ("role", re.compile(r"\bI\s+work\s+as\s+(?:an?\s+|the\s+)?" + _ROLE + r"\b", I), "is {a} {x}"),
    (
        "role",
        re.compile(r"\bI\s+am\s+(?:now\s+|currently\s+)?(?:an?|the)\s+" + _ROLE + r"\b", I),
        "is {a} {x}",
    ),
    (
        "role",
        re.compile(
            r"\bmy\s+(?:job|role|title|position|job\s+title)\s+is\s+(?:an?\s+)?(?P<x>[^,;:!?\n]+)",
            I,
        ),
        "role: {x}",
    ),
    (
        "location",
        re.compile(
            r"\bI(?:\s+currently|\s+now)?\s+(?:live|reside|am\s+based|am\s+located|am\s+living|"
            r"am\s+staying)\s+in\s+" + _PLACE
        ),
        "lives in {x}",
    ),
    (
        "location",
        re.compile(
            r"\bI\s+(?:just\s+|recently\s+|have\s+|finally\s+)*(?:moved|relocated|am\s+moving|"
            r"am\s+relocating)\s+(?:back\s+)?to\s+" + _PLACE
        ),
        "lives in {x}",
    ),
    (
        "location",
        re.compile(r"\bI\s+work\s+(?:at|for)\s+[^,;:!?\n]+?\s+in\s+" + _PLACE),
        "based in {x}",
    ),
    (
        "location",
        re.compile(r"\bI\s+(?:work|am\s+working)\s+(?:in|from|out\s+of)\s+" + _PLACE),
        "works in {x}",
    ),
    (
        "hometown",
        re.compile(r"\bI\s+(?:am|come)\s+(?:originally\s+)?from\s+" + _PLACE),
        "is from {x}",
    ),
    (
        "hometown",
        re.compile(r"\bI\s+(?:grew\s+up|was\s+born|was\s+raised)\s+in\s+" + _PLACE),
        "grew up in {x}",
    ),
    (
        "age",
        re.compile(
            r"\bI\s+am\s+(?P<x>\d{1,3})(?:\s+years?\s+old|\s+y/?o)?"
            r"(?=\s*(?:now|today|this\s+year)?\s*(?:$|,|\s+and\b))",
            I,
        ),
        "is {x} years old",
    ),
    ("age", re.compile(r"\bI\s+(?:just\s+)?turned\s+(?P<x>\d{1,3})\b", I), "is {x} years old"),
    ("timezone", re.compile(r"\bmy\s+time\s*zone\s+is\s+" + _ZONE, I), "timezone: {x}"),
    (
        "timezone",
        re.compile(
            r"\bI\s+am\s+(?:in|on)\s+(?:the\s+)?" + _ZONE + r"(?:\s+(?:time\s*zone|time))?(?=\s|$)"
        ),
        "timezone: {x}",
    ),
    ("pronouns", re.compile(r"\bmy\s+pronouns\s+are\s+(?P<x>[^,;:!?\n]+)", I), "pronouns: {x}"),
    (
        "native_language",
        re.compile(
            r"\bmy\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+(?P<x>[A-Z]\w+)", I
        ),
        "native language: {x}",
    ),
    (
        "native_language",
        re.compile(r"\bI\s+am\s+a\s+native\s+(?P<x>[A-Z]\w+)\s+speaker", I),
        "native language: {x}",
    ),
    (
        "diet",
        re.compile(r"\bI\s+am\s+(?:now\s+|fully\s+|strictly\s+|mostly\s+|a\s+|an\s+)*" + _DIET, I),
        "is {x}",
    ),
    ("diet", re.compile(r"\bI\s+(?:went|have\s+gone|became)\s+(?:fully\s+)?" + _DIET, I), "is {x}"),
]
_NOT_NAMES = frozenset(
    "sorry sure fine good great okay ok glad happy sad tired here back done ready new not "
    "just also still going trying working looking thinking learning using building so very "
    "really in on at from a an the excited afraid confused curious interested stuck".split()
)


def read_identity(clause: str) -> list[Step] | None:
    steps: list[Step] = []
    taken: list[tuple[int, int]] = []
    for aspect, pattern, template in _RULES:
        for match in pattern.finditer(clause):
            span = match.span("x")
            if any(s < span[1] and span[0] < e for s, e in taken) or not own(clause, match.start()):
                continue
            value = restore(match.group("x")).strip(" .")
            value = re.sub(r"\s+(?:now|currently|these\s+days|anymore|today)$", "", value, flags=I)
            if aspect == "name" and value.split()[0].lower() in _NOT_NAMES:
                continue
            if aspect in ("employer", "role") and not clean_object(value):
                continue
            if aspect == "age" and not 1 <= int(value) <= 120:
                continue
            if aspect == "diet":
                value = value.lower()
            article = "an" if value[:1].lower() in "aeiou" else "a"
            taken.append(span)
            fact = make_fact(
                "identity",
                F,
                value,
                template.format(x=value, a=article),
                key=f"identity:{aspect}",
                exclusive=True,
                subject=aspect,
            )
            steps.append((fact, []))
    return steps or None
