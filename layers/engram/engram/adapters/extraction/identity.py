"""Who the user is: name, employer, role, location, origin, age, time zone, diet...

One fact per aspect (``identity:employer``), so a new job or a move replaces the
old one and the old one goes to the history.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import I, Step, make_fact, objects, own
from engram.adapters.extraction.facts import clean_object, slug
from engram.adapters.extraction.lexicon import is_known
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

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
# Roles named by a suffix the list does not hold ("a bioinformatician", "a pianist").
_NOT_ROLES = (
    r"vegetarian|christian|optimist|pessimist|perfectionist|realist|idealist|minimalist|"
    r"introvert|extrovert|utilitarian|libertarian|egalitarian|contrarian|humanitarian|feminist|"
    r"atheist|socialist|communist|capitalist|buddhist|narcissist|completionist|tourist|activist|"
    r"purist|hedonist|loyalist|nationalist|moralist|centrist|leftist|pacifist|populist|"
    r"specialist|finalist|comedian|guardian|civilian|median|custodian|thespian"
)
# Lower case only: "I'm a Canadian" is a nationality, not a job.
_SUFFIX_ROLE = rf"(?P<x>(?!(?:{_NOT_ROLES})\b)(?-i:[a-z]{{4,}}(?:ician|ologist|ist|ian)))"
_ROLE = rf"(?P<x>(?:[\w+#./]+[\s-]+){{0,4}}?(?:{_ROLES})s?(?:[\s-]+(?:{_ROLES})s?\b)?)"
_ZONE = (
    r"(?P<x>[A-Z][a-z]+/[A-Z][\w/]+|UTC\s*[+-]\s*\d{1,2}(?::\d\d)?|GMT\s*[+-]\s*\d{1,2}|"
    r"(?:Pacific|Eastern|Central|Mountain|Atlantic|Central\s+European|Eastern\s+European|"
    r"Western\s+European)(?=\s+time)|(?-i:[A-Z]{2,5})(?![\w-]))"
)
_DIET = (
    r"(?P<x>vegetarian|vegan|pescatarian|flexitarian|plant[- ]based|dairy[- ]free|omnivore|"
    r"gluten[- ]free|lactose[- ]intolerant|"
    r"keto|halal|kosher|teetotal|sober|celiac|coeliac)"
)


def _ci(pattern: str) -> str:
    """Case-insensitive words around case-sensitive names and places."""
    return f"(?i:{pattern})"


_WE_I = _ci(r"\b(?:I|we)")
_ADVS = _ci(
    r"(?:\s+(?:just|recently|finally|currently|now|still|also|have|has|had|am|are|been|"
    r"officially|actually|eventually))*"
)
_RULES: list[tuple[str, rx.Rule, str]] = [
    (
        "pronouns",
        rx.compile(
            _ci(r"\b(?:my\s+pronouns\s+are|I\s+go\s+by|I\s+use)\s+")
            + r"(?P<x>(?i:she/her|he/him|they/them|she/they|he/they|"
            r"xe/xem|ze/zir|any\s+pronouns)(?:/\w+)?)"
        ),
        "pronouns: {x}",
    ),
    (
        "name",
        rx.compile(_ci(r"\bmy\s+name\s+is|\bmy\s+name's|^name's|^name\s+is") + r"\s+" + _NAME),
        "name is {x}",
    ),
    (
        "employer",
        rx.compile(
            r"^(?P<x>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2})"
            + _ci(
                r"\s+is\s+where\s+I\s+(?:work|have\s+worked|have\s+been\s+working|am\s+working)"
                r"(?=\s*(?:$|,|\s+now\b|\s+for\s+(?:the\s+)?(?:past|last)\b|\s+since\b))"
            )
        ),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(
            _ci(r"\bI\s+(?:have\s+been|have\s+worked|have\s+now\s+been)\s+at\s+")
            + r"(?P<x>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2})"
            # "for four years", "since 2019": a job; "for three hours" is a visit.
            + _ci(
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
            _ci(
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
            _ci(r"\bI\s+(?:currently\s+|now\s+)?work\s+as\s+(?:an?\s+|the\s+)")
            + r"(?P<x>(?:(?!with\b|for\b|at\b|in\b|and\b)[\w-]+\s+){0,3}?(?:"
            + _ROLES
            + r"|[a-z]+(?:er|or|ist|ian|ant|eer))s?)"
            + _ci(r"(?=\s+(?:at|in|for|since)\b|$|,)")
        ),
        "is {a} {x}",
    ),
    (
        "name",
        rx.compile(
            _ci(
                r"\b(?:call\s+me|I\s+go\s+by|people\s+call\s+me|"
                r"everyone\s+calls\s+me)"
            )
            + r"\s+"
            + _NAME
        ),
        "name is {x}",
    ),
    (
        "name",
        rx.compile(
            r"^"
            # Only "I am": "this is Max" shows someone (a dog, a friend), it names no user.
            + _ci(r"I\s+am")
            + r"\s+"
            + _NAME
            + _ci(r"(?=\s*(?:$|,|\s+and\b|\s+from\b|\s+here\b))")
        ),
        "name is {x}",
    ),
    # A greeting that introduces: "Sasha here, hi!", "Hi all, Tom here".
    (
        "name",
        rx.compile(
            r"^"
            + _ci(r"(?:(?:hi|hey|hello),?\s+)?(?:(?:all|there|everyone|folks|team),?\s+)?")
            + r"(?P<x>[A-Z][\w'\-]+)"
            + _ci(r"\s+here(?=\s*(?:$|[,!.]\s*(?:hi|hey|hello|hiya)\b))")
        ),
        "name is {x}",
    ),
    (
        "employer",
        rx.compile(
            _WE_I
            + _ADVS
            + _ci(r"\s+(?:work|working|employed|interning)\s+(?:at|for|by|with)\s+")
            + r"(?P<x>[A-Z][^,;:!?\n]*?)"
            + _ci(
                r"(?=\s+(?:as|in|on|since|from|last|this|a\s+few|"
                r"two|three|for|now)\b|$|,)"
            )
        ),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(_ci(r"\bmy\s+(?:employer|company|workplace)\s+is\s+") + _ORG),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(
            _WE_I
            + _ADVS
            + _ci(
                r"\s+(?:joined|started\s+(?:working\s+)?at|"
                r"(?:started|got|landed|accepted|took)\s+(?:a\s+)?(?:new\s+)?"
                r"(?:job|position|role|offer)\s+(?:at|with)|"
                r"(?:moved|moving|switched|switching)\s+jobs\s+to)\s+"
            )
            + r"(?P<x>[A-Z][^,;:!?\n]*?)"
            + _ci(
                r"(?=\s+(?:as|in|last|this|since|a\s+few|two|"
                r"three|on|for)\b|$|,)"
            )
        ),
        "works at {x}",
    ),
    (
        "employer",
        rx.compile(
            _ci(
                r"\bI\s+am\s+(?:now\s+)?(?:an?|the)\s+(?:[\w\-+#./]+\s+){0,4}?(?:"
                + _ROLES
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
            + _ci(r"I\s+am\s+")
            + r"[A-Z][\w'-]+"
            + _ci(r"\s+from\s+")
            + r"(?P<x>[A-Z][^,;:!?\n]*?)(?=\s*(?:$|,))"
        ),
        "is from {x}",
    ),
    (
        "role",
        rx.compile(
            _ci(r"\bI\s+(?:work|am\s+working)\b[^,;:!?\n]*?\bas\s+(?:an?\s+|the\s+)?")
            + r"(?P<x>(?i:(?:[\w\-+#./]+\s+){0,4}?(?:"
            + _ROLES
            + r")s?))\b"
        ),
        "is {a} {x}",
    ),
    (
        "role",
        rx.compile(
            r"\bI\s+am\s+(?:now\s+|currently\s+|still\s+)?(?:an?|the)\s+" + _ROLE + r"\b", I
        ),
        "is {a} {x}",
    ),
    (
        "employer",
        rx.compile(
            r"^"
            + _ci(r"I\s+am\s+")
            + r"[A-Z][\w'-]+,\s+"
            + _ci(
                r"(?:an?|the)\s+[^,;:!?\n]+?\s+"
                r"(?:at|for|with)\s+"
            )
            + r"(?P<x>[A-Z][^,;:!?\n]*?)(?=\s*(?:$|,|\s+in\b))"
        ),
        "works at {x}",
    ),
    (
        "location",
        rx.compile(_ci(r"^I\s+am\b.*,\s+(?:based|living|located)\s+(?:in|out\s+of)\s+") + _PLACE),
        "lives in {x}",
    ),
    (
        "role",
        rx.compile(r"^I\s+am\s+[A-Z][\w'-]+,\s+(?:an?|the)\s+" + _ROLE + r"\b", I),
        "is {a} {x}",
    ),
    ("role", rx.compile(r"^I\s+am\s+an?\s+" + _SUFFIX_ROLE + r"$", I), "is {a} {x}"),
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
    (
        "location",
        rx.compile(
            _WE_I
            + _ADVS
            + _ci(
                r"\s+(?:live|lived|living|reside|residing|based|located|staying|settled)"
                r"(?:\s+(?:just\s+)?(?:out\s+of|outside(?:\s+of)?|near|close\s+to|"
                r"on\s+the\s+outskirts\s+of)|\s+in|\s+down\s+in|\s+up\s+in)\s+"
            )
            + _PLACE
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(
            _WE_I
            + _ADVS
            + _ci(
                r"\s+(?:moved|relocated|moving|relocating|emigrated)\s+"
                r"(?:back\s+|over\s+)?to\s+"
            )
            + _PLACE
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(r"\bI\s+work\s+(?:at|for)\s+[^,;:!?\n]+?\s+in\s+" + _PLACE),
        "based in {x}",
    ),
    (
        "location",
        rx.compile(_ci(r"\bI\s+(?:work|am\s+working)\s+(?:in|from|out\s+of)\s+") + _PLACE),
        "works in {x}",
    ),
    (
        "location",
        rx.compile(r"^I\s+am\s+[A-Z][\w'-]+,\s+(?:an?|the)\s+[^,;:!?\n]+?\s+in\s+" + _PLACE),
        "based in {x}",
    ),
    (
        "hometown",
        rx.compile(
            _ci(r"\bI\s+(?:am|come)\s+(?:originally\s+)?from\s+")
            + _PLACE
            + _ci(r"(?=\s*(?:$|,|\s+and\b|\s+but\b))")
        ),
        "is from {x}",
    ),
    (
        "hometown",
        rx.compile(
            _ci(
                r"\bI\s+(?:grew\s+up|was\s+born|was\s+raised|"
                r"was\s+born\s+and\s+(?:raised|bred))\s+in\s+"
            )
            + _PLACE
        ),
        "grew up in {x}",
    ),
    ("hometown", rx.compile(_ci(r"\b(?:my\s+)?home\s*town\s+is\s+") + _PLACE), "is from {x}"),
    # Where home is, said the other way round: "Home for me is Hobart", "Bristol is where
    # I live", "Lisbon is home now", "I call Leeds home".
    (
        "location",
        rx.compile(
            r"^"
            + _ci(
                r"(?:home\s+(?:for\s+(?:me|us)\s+)?is|(?:my|our)\s+home\s+is(?:\s+in)?)\s+(?:now\s+)?"
            )
            + _PLACE
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(
            r"^"
            + _PLACE
            + _ci(
                r"\s+is\s+(?:now\s+)?(?:where\s+(?:I|we)\s+(?:live|am\s+based|are\s+based|"
                r"reside|call\s+home|am\s+living|are\s+living)|(?:my|our)\s+home|home)"
                r"(?=\s*(?:$|,|\s+now\b|\s+(?:for|to)\s+(?:me|us)\b))"
            )
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(_ci(r"\b(?:I|we)\s+(?:now\s+)?call\s+") + _PLACE + _ci(r"\s+home\b")),
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
    ("timezone", rx.compile(_ci(r"\bmy\s+time\s*zone\s+is\s+") + _ZONE), "timezone: {x}"),
    (
        "timezone",
        rx.compile(
            _ci(r"\bmy\s+time\s*zone\s+is\s+")
            + r"(?P<x>Pacific|Eastern|Central|Mountain|Atlantic|Alaska|Hawaii)\b"
        ),
        "timezone: {x}",
    ),
    (
        "timezone",
        rx.compile(
            _ci(r"\b(?:I\s+am|it\s+is|we\s+are)\s+(?:in|on)\s+(?:the\s+)?")
            + _ZONE
            + _ci(r"(?:\s+(?:time\s*zone|time))?(?=\s|$|,)")
        ),
        "timezone: {x}",
    ),
    (
        "timezone",
        rx.compile(
            _ci(r"\bit\s+is\s+") + r"(?P<x>(?:Pacific|Eastern|Central|Mountain|"
            r"Atlantic|Greenwich|Central\s+European|Eastern\s+European|"
            r"Western\s+European|Japan|India|China|Australian\s+\w+)\s+time)"
            + _ci(r"\s+for\s+(?:me|us)")
        ),
        "timezone: {x}",
    ),
    (
        "native_language",
        rx.compile(
            _ci(r"\bmy\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+")
            + r"(?P<x>[A-Z]\w+)"
        ),
        "native language: {x}",
    ),
    (
        "native_language",
        rx.compile(
            r"^(?P<x>[A-Z]\w+)" + _ci(r"\s+is\s+my\s+(?:native|first|mother)\s+(?:language|tongue)")
        ),
        "native language: {x}",
    ),
    (
        "native_language",
        rx.compile(_ci(r"\bI\s+am\s+a\s+native\s+") + r"(?P<x>[A-Z]\w+)" + _ci(r"\s+speaker")),
        "native language: {x}",
    ),
    (
        "diet",
        rx.compile(
            r"\bI\s+(?:am|have\s+been)\s+(?:now\s+|fully\s+|strictly\s+|mostly\s+|"
            r"a\s+|an\s+)*" + _DIET,
            I,
        ),
        "is {x}",
    ),
    (
        "diet",
        rx.compile(r"\bI\s+(?:went|have\s+gone|became|turned)\s+(?:fully\s+)?" + _DIET, I),
        "is {x}",
    ),
    (
        "hometown",
        rx.compile(
            r"^"
            + _PLACE
            + _ci(
                r"\s+is\s+(?:my\s+)?(?:home\s*town|where\s+I\s+"
                r"(?:grew\s+up|was\s+born|am\s+from))"
            )
        ),
        "is from {x}",
    ),
    (
        "location",
        rx.compile(
            _ci(r"^I\s+am\s+(?:now\s+|currently\s+)?(?:in|over\s+in)\s+")
            + _PLACE
            + _ci(r"(?=\s+(?:now|these\s+days|for\s+good)\b|\s*$)")
        ),
        "lives in {x}",
    ),
    (
        "location",
        rx.compile(_ci(r"\bI\s+am\s+(?:an?|the)\s+[^,;:!?\n]+?\s+(?:in|on|at)\s+") + _PLACE + r"$"),
        "based in {x}",
    ),
    (
        "timezone",
        rx.compile(
            _ci(r"\bI\s+am\s+on\s+") + r"(?P<x>[A-Z][\w]+(?:\s+[A-Z][\w]+)?\s+"
            r"(?i:time))\b"
        ),
        "timezone: {x}",
    ),
    ("diet", rx.compile(r"\bI\s+(?:keep|eat|only\s+eat)\s+(?P<x>kosher|halal)\b", I), "keeps {x}"),
    (
        "role",
        rx.compile(
            _ci(r"\bI\s+(?:teach|lecture\s+in|lecture\s+on|tutor)\s+")
            + r"(?P<x>[\w\s-]{2,30}?)"
            + _ci(r"(?=\s+(?:at|in|to|for)\b|$)")
        ),
        "teaches {x}",
    ),
    (
        "role",
        rx.compile(
            _ci(
                r"\bI\s+am\s+(?:now\s+)?(?:freelancing|working|moonlighting|consulting)\s+"
                r"as\s+(?:an?\s+|the\s+)?"
            )
            + r"(?P<x>[\w\s-]{2,40}?)"
            + _ci(r"(?=\s+(?:at|in|for|now)\b|$)")
        ),
        "is {a} {x}",
    ),
    (
        "role",
        rx.compile(
            r"^"
            + _ci(r"I\s+am\s+")
            + r"[A-Z][\w'-]+,\s+"
            + _ci(r"(?:an?|the)\s+")
            + r"(?P<x>(?:[\w-]+\s+){0,3}?[\w-]+)"
            + _ci(r"(?=\s+(?:at|in|on|for|from)\b|\s*$|,)")
        ),
        "is {a} {x}",
    ),
    (
        "location",
        rx.compile(
            r"^"
            + _ci(r"I\s+am\s+")
            + r"[A-Z][\w'-]+,\s+"
            + _ci(r"(?:an?|the)\s+[^,;:!?\n]+?\s+(?:on|in)\s+")
            + _PLACE
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
        rx.compile(_ci(r"\b(?:it\s+is|that\s+is|my\s+name\s+is)\s+spelled\s+") + _NAME),
        "name is {x}",
    ),
    (
        "role",
        rx.compile(
            _ci(r"\bI\s+am\s+(?:currently\s+|now\s+)?doing\s+(?:a|my)\s+")
            + r"(?P<x>(?i:phd|ph\.d\.|doctorate|master'?s|msc|mba|bachelor'?s|degree|masters|"
            r"postdoc|apprenticeship|residency)(?:\s+(?:in|on)\s+(?!the\b)[\w\s-]{2,40})?)"
            + _ci(r"(?=\s*(?:$|,|\s+at\b))")
        ),
        "doing a {x}",
    ),
    # "Hi, I'm Lachlan, 38, living in Pittsburgh".
    (
        "age",
        rx.compile(r"^" + _ci(r"I\s+am\s+") + r"[A-Z][\w'-]+,\s+(?P<x>\d{1,3})(?=\s*(?:,|$))"),
        "is {x} years old",
    ),
    # Leading a team is beside the role ("a software engineer who leads the API team").
    (
        "team",
        rx.compile(
            _ci(r"\bI\s+(?:now\s+)?(?:lead|manage|head|coordinate)\s+(?:the|our|a)\s+")
            + r"(?P<x>(?:[\w&-]+\s+){0,3}?(?i:team|department|division|lab|squad))\b"
        ),
        "leads the {x}",
    ),
]
_NOT_NAMES = frozenset(
    "sorry sure fine good great okay ok glad happy sad tired here back done ready new not "
    "hey well wow yay phew ugh yikes "
    "just also still going trying working looking thinking learning using building so very "
    "really in on at from a an the excited afraid confused curious interested stuck same "
    "nothing everything something someone everyone anyone nobody none it this that "
    "me us we they he she you there where what which click sign start stop look go come put "
    "paste type enter read check see wait sit stand stay right over down up more less tap "
    "scroll drop press hit originally mom mum dad mother father grandma grandpa nan nana".split()
)


_LANGUAGES = rx.compile(
    _ci(r"\bI\s+(?:also\s+)?(?:speak|am\s+fluent\s+in|am\s+bilingual\s+in)\s+")
    + r"(?P<x>(?:(?i:a\s+(?:bit|little)\s+of|some|basic|fluent|conversational)\s+)?[A-Z][^;:!?\n]*)"
)


# "I'm allergic to penicillin, latex and bee stings": one fact per allergy, each its own
# (an allergy neither replaces a diet nor another allergy).
_ALLERGIES = rx.compile(
    _ci(
        r"\bI\s+am\s+(?:[\w-]+\s+and\s+)?(?:also\s+|severely\s+|very\s+|mildly\s+|a\s+bit\s+)?"
        r"allergic\s+to\s+"
    )
    + r"(?P<x>[^;:!?\n]+)"
)
_ALLERGY_TAIL = rx.compile(r"\s*,?\s+(?:so|which|and\s+(?:I|it)|but|because)\b.*$", I)


def allergy_facts(raw: str) -> list[Step]:
    """One fact per allergy named in ``raw`` (also the other languages' readers)."""
    steps: list[Step] = []
    for item in objects(_ALLERGY_TAIL.sub("", raw)):
        name = restore(item).strip(" .")
        if not name or name.lower() in ("it", "that", "this", "them"):
            continue
        fact = make_fact(
            "identity", F, name, f"is allergic to {name}", key=f"identity:allergy_{slug(name)}"
        )
        steps.append((fact, []))
    return steps


def _allergies(clause: str) -> list[Step]:
    match = _ALLERGIES.search(clause)
    if match is None or not own(clause, match.start()):
        return []
    if re.search(r"\b(?:think|might|maybe|probably|wonder|suspect)\b", clause[: match.start()], I):
        return []  # "I think I'm allergic to cats": a worry, not yet a fact
    return allergy_facts(match.group("x"))


def _languages(clause: str) -> list[Step]:
    """ "I speak English, Portuguese and a bit of Japanese": one fact per language."""
    match = _LANGUAGES.search(clause)
    if match is None or not own(clause, match.start()):
        return []
    steps: list[Step] = []
    parts = re.split(r"\s*,\s*(?:and\s+)?|\s+(?:and|&)\s+", match.group("x"))
    for item in [o for p in parts for o in objects(p)]:
        name = re.sub(
            r"^(?i:a\s+(?:bit|little)\s+of|some|basic|fluent|conversational)\s+", "", item
        )
        if not name[:1].isupper() or is_known(name.split()[0]):
            continue  # "I speak Python fluently": a tool, not a language spoken
        fact = make_fact("identity", F, name, f"speaks {item}", key=f"identity:speaks_{slug(name)}")
        steps.append((fact, []))
    return steps


def read_identity(clause: str) -> list[Step] | None:
    steps: list[Step] = _languages(clause) + _allergies(clause)
    taken: list[tuple[int, int]] = []
    for aspect, pattern, template in rx.able(_RULES, clause):
        for match in pattern.finditer(clause):
            span = match.span("x")
            if any(s < span[1] and span[0] < e for s, e in taken) or not own(clause, match.start()):
                continue
            value = restore(match.group("x")).strip(" .")
            value = re.sub(r"\s+(?:now|currently|these\s+days|anymore|today)$", "", value, flags=I)
            if aspect in ("name", "location") and value.split()[0].lower() in _NOT_NAMES:
                continue
            if aspect == "name" and is_known(value):  # "it's spelled Kubernetes": no name
                continue
            if aspect in ("employer", "role") and not clean_object(value):
                continue
            if aspect == "age" and not 1 <= int(value) <= 120:
                continue
            if aspect == "diet":
                value = value.lower()
            field = re.match(r"\s+in\s+([a-z][a-z\s-]{2,40}?)\s*$", clause[span[1] :])
            if aspect == "role" and field:
                value = f"{value} in {field.group(1)}"  # "a postdoc in marine biology"
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
