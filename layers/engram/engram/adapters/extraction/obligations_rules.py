"""The obligation rules: the phrasings of what must not be done ("we can't use GPL
code"), of what must be ("the API must respond within 200 ms"), of limits stated by their
figure ("uploads are capped at 25 MB"), and of deadlines, set or moved.

Kept apart from ``obligations.py``, which reads a clause with them: these are long
pattern tables that grow by a word as new phrasings turn up, while the reading (what the
content says, how a fact is keyed so a changed figure replaces the old one) rarely
changes.
"""

from __future__ import annotations

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import WHO, XL, I
from engram.adapters.extraction.lexicon import PEOPLE

__all__ = [
    "ALLOWS_AT_MOST",
    "CAN_ONLY",
    "DATE",
    "DEADLINE",
    "DELIVERABLE",
    "FIRST_PERSON_CANT",
    "FIRST_PERSON_MUST",
    "FIRST_PERSON_NEED",
    "FROZEN",
    "IDLE_CANT",
    "IMPERSONAL_CANT",
    "IMPERSONAL_MUST",
    "LIMIT",
    "LIMITED_TO",
    "MACHINE",
    "MAX_IS",
    "MAX_N",
    "MOVED",
    "MOVED_TO_DATE",
    "NEVER_EVER",
    "NOBODY",
    "NOT_ALLOWED",
    "NOT_THEIRS",
    "NO_ACCESS",
    "NO_BUDGET",
    "NO_X_MAY",
    "NP_EXCLUDED",
    "ONLY_HAS",
    "POINTERS",
    "PROJECT_VERBS",
    "RECURRING",
    "REQUIRED",
    "REQUIREMENTS_ARE",
    "SET_TO",
    "STRETCH",
    "STUCK_ON",
    "TARGET_IS",
]

_CANT = (
    r"(?:cannot|can\s+not|must\s+not|should\s+not|may\s+not|must\s+never|should\s+never|"
    r"can\s+never|(?:are|am|is)\s+not\s+allowed\s+to|(?:are|am|is)\s+not\s+permitted\s+to|"
    r"(?:are|is|am)\s+(?:forbidden|prohibited|banned|barred)\s+(?:to|from)|have\s+to\s+avoid|"
    r"need\s+to\s+avoid|must\s+avoid|do\s+not\s+want\s+to|will\s+not|are\s+not\s+going\s+to|"
    r"(?:are|is)\s+not\s+supposed\s+to|(?:do|does)\s+not\s+(?:allow|permit)|"
    r"(?:am|are|is)\s+(?:not\s+able|unable)\s+to)"
)
_MUST = (
    r"(?P<modal>must|has\s+to|have\s+to|needs\s+to|need\s+to|has\s+got\s+to|(?:are|is|am)\s+"
    r"required\s+to|shall|should|will\s+need\s+to|ought\s+to|requires?|needs|"
    r"need(?=\s+(?:at\s+least|at\s+most|a\s+minimum\s+of|\d|(?:two|three|four|five|six|ten)\s)))"
)
_NP = (
    r"(?P<np>(?:(?:the|our|my|all|any|every|each|this|these|those|every\s+single)\s+)?"
    r"[A-Za-z][\w'/+#.\u2024-]*(?:\s+[\w'/+#.\u2024-]+){0,5}?)"
)
NP_EXCLUDED = rx.compile(
    r"^(?:i|we|you|he|she|they|that|there|here|everyone|everybody|someone|somebody|anyone|"
    r"anybody|people|one|nobody|no\s+one|who|what|which|let\s+us|let\s+me|u|ya|things?|"
    r"something|(?:anything|everything)(?!\s+(?:we|I|you|that)\b)|life|(?:my|our|his|her|their)\s+"
    r"(?:\w+\s+)?" + PEOPLE + r"|"
    r"he\s+\w+|she\s+\w+)\b",
    I,
)
# "It" and "this" may stand for the project when what follows is about software.
PROJECT_VERBS = rx.compile(
    r"^(?:run|support|work|be\s+compatible|handle|scale|be\s+deployed|comply|integrate|"
    r"respond|load|stay|be\s+accessible|be\s+available|use|store|encrypt|pass|build|compile|"
    r"ship|launch|be\s+done|be\s+ready|be\s+finished|go\s+live|hit|call|exceed|send|poll|"
    r"scrape|crawl|query|access|log|leak|cost|touch|block|retry)\b",
    I,
)
FIRST_PERSON_CANT = rx.compile(
    WHO + r"\s+(?:really\s+|absolutely\s+|simply\s+)?" + _CANT + r"\s+" + XL, I
)
IMPERSONAL_CANT = rx.compile(r"^" + _NP + r"\s+" + _CANT + r"\s+" + XL, I)
NOT_ALLOWED = rx.compile(
    r"^(?:no\s+)?" + _NP + r"\s+(?:is|are)\s+(?:simply\s+|just\s+|absolutely\s+|totally\s+|"
    r"strictly\s+|completely\s+)?(?:not\s+allowed|forbidden|prohibited|banned|not\s+permitted|"
    r"off[- ]limits|a\s+no-go|not\s+an\s+option|out\s+of\s+the\s+question|not\s+acceptable|"
    r"unacceptable|not\s+tolerated|off\s+the\s+table|a\s+dealbreaker|allowed)\b",
    I,
)
# "No PII may leave the VPC", "Under no circumstances can we store raw IPs".
NO_X_MAY = rx.compile(
    r"^no\s+" + _NP + r"\s+(?:may|can|should|must|shall|will|is\s+allowed\s+to|are\s+allowed\s+to|"
    r"is\s+to|are\s+to|ever)\s+" + XL,
    I,
)
NOBODY = rx.compile(
    r"^(?:nobody|no\s+one|none\s+of\s+us|no\s+engineer|no\s+developer|no\s+user)\s+(?:is|are|may|can|"
    r"should|must|gets\s+to)\s+(?:allowed\s+to\s+|permitted\s+to\s+)?" + XL,
    I,
)
LIMIT = rx.compile(
    r"(?:^|,\s+)(?:the\s+|our\s+|my\s+)?(?P<np>(?:[\w-]+\s+){0,4}?(?:budget|cap|limit|ceiling|maximum|max|"
    r"allowance|quota)(?:\s+(?:for|on)\s+(?:the\s+|a\s+|my\s+|our\s+)?(?:[\w-]+\s+){0,2}?[\w-]+)?)"
    r"\s+(?:is|was|has\s+been|will\s+be)\s+(?:now\s+|set\s+to\s+|raised\s+to\s+|"
    r"lowered\s+to\s+|capped\s+at\s+)?(?P<x>[^,;:!?\n]*\d[^,;:!?\n]*)",
    I,
)
_NUMBER = r"\d+(?:[.,\u2024\u201a]\d+)*"
_NUMBER_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)"
)
_FIGURE = (
    r"(?P<x>(?:about\s+|around\s+|roughly\s+|just\s+|only\s+)?(?:[$€£¥]?\d|(?i:"
    + _NUMBER_WORDS
    + r")\s+\w)[^,;:!?\n]*)"
)
# "Uploads are limited to 25 MB per file", "uploads can go up to 50 MB": one limit, by
# what it limits, so the second replaces the first.
LIMITED_TO = [
    rx.compile(
        r"^(?:the\s+|our\s+|my\s+)?(?P<np>[\w\s'-]{1,40}?)\s+(?:is|are)\s+(?:now\s+)?(?:limited|capped|"
        r"restricted)\s+(?:to|at)\s+" + _FIGURE,
        I,
    ),
    rx.compile(
        r"^(?!(?:a|an)\s)(?:the\s+|our\s+|my\s+)?(?P<np>(?-i:[a-z])[\w\s-]{0,39}?)\s+can\s+(?:now\s+)?"
        r"(?:go|be|take|use|reach)\s+(?:up\s+to|as\s+(?:much|long|high)\s+as)\s+" + _FIGURE,
        I,
    ),
]
# "Make the budget £250", "we got approval to raise the Lambda memory limit to 1024 MB",
# "the organisers raised the team size limit to 6".
SET_TO = rx.compile(
    r"(?:^|\bto\s+|\b(?=(?:raised|lowered|increased|reduced|bumped|cut|dropped|changed|set)\b))"
    r"(?:please\s+)?(?:make|set|change|raise|lower|bump|increase|reduce|drop|cut|up|stretch|raised|"
    r"lowered|increased|reduced|bumped|dropped|changed)\s+(?:the|my|our)\s+(?P<np>[\w\s-]{0,30}?(?:budget|cap|limit|ceiling|maximum|"
    r"max|allowance|quota|spend))\s+(?:to\s+|at\s+)?"
    r"(?P<x>[$€£¥]?" + _NUMBER + r"(?:\s?(?:%|[a-zA-Z]+))?)",
    I,
)
# "I can stretch to $1,800 for the laptop": a budget restated.
STRETCH = rx.compile(
    r"\b(?:I|we)\s+can\s+(?:now\s+)?(?:stretch|go|spend|afford)\s+(?:up\s+)?to\s+"
    r"(?P<x>[$€£¥]" + _NUMBER + r"k?)(?:\s+(?:on|for)\s+(?P<np>[^,;:!?\n]+))?",
    I,
)
# "I can only spend about 5 hours a week on this side project".
CAN_ONLY = rx.compile(
    r"\b(?:I|we)\s+can\s+only\s+(?:spend|give|afford|do|manage|put\s+in|set\s+aside|commit)\s+"
    + _FIGURE,
    I,
)
# "The VPS only has 1 GB of RAM", "I only have about 45 minutes a day to study".
ONLY_HAS = rx.compile(
    r"^(?P<lead>on\s+(?:weekdays|weekends|workdays|school\s+nights)\s*,?\s+)?"
    r"(?P<np>(?:the\s+|our\s+|my\s+)?[\w\s-]{1,30}?|I|we)\s+only\s+(?:has|have|get|gets)\s+"
    + _FIGURE,
    I,
)
# What "only has" limits: a recurring allowance of the user's ("45 minutes a day"), or
# a machine's resources ("the VPS only has 1 GB of RAM"); "I only have 2 eggs" is neither.
RECURRING = rx.compile(
    r"\b(?:a|per|each|every)\s+(?:day|week|month|year|night|evening|weekday|session)\b", I
)
MACHINE = rx.compile(
    r"\b(?:vps|server|machine|laptop|instance|box|pi|droplet|container|cluster|node|vm|plan|tier|"
    r"account|disk|drive|database|db|runner)s?$",
    I,
)
# "Max 2 production deploys per day", "deploys are frozen for the whole of December".
# "The free tier allows no more than 3 API calls per second".
ALLOWS_AT_MOST = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<np>[\w\s-]{1,30}?)\s+(?:only\s+)?(?:allows?|permits?|lets\s+(?:us|me)\s+"
    r"(?:do|make|send|have))\s+(?:no\s+more\s+than|at\s+most|up\s+to|a\s+maximum\s+of|only)\s+"
    + _FIGURE,
    I,
)
MAX_N = rx.compile(
    r"^(?:a\s+)?(?P<kind>max(?:imum)?|at\s+most|no\s+more\s+than)\s+"
    r"(?P<x>\d[\d.,]*\s+(?:[\w-]+\s+){0,3}?[\w-]+(?:\s+(?:per|a|an|each)\s+\w+)?)\s*$",
    I,
)
FROZEN = rx.compile(
    r"^(?:the\s+|our\s+|all\s+)?(?P<np>(?:[\w-]+\s+)?(?:deploys|deployments|releases|merges|changes|"
    r"commits|pushes|code|hiring|spending|purchases|travel|launches|migrations))\s+(?:is|are)\s+(?:frozen|paused|blocked|"
    r"suspended|on\s+hold|not\s+allowed)\s+(?P<x>(?:for|during|until|in|over|through)\s+[^,;:!?\n]+)",
    I,
)
STUCK_ON = rx.compile(
    r"\b(?:I|we)\s+(?:am|are)\s+(?:still\s+)?(?:stuck|locked|pinned)\s+(?:on|with|to)\s+"
    r"(?P<x>(?-i:[A-Z])[^,;:!?\n]*?)(?=\s+(?:because|since|due|for|until|as)\b|\s*$)",
    I,
)
_ACCESS = (
    r"(?:internet|network|root|admin|administrator|sudo|write|ssh|vpn|gpu|docker|install|"
    r"outbound|external|production|prod|cloud)"
)
# "No internet access on the build machines", "I don't have admin rights on my laptop".
NO_ACCESS = [
    rx.compile(
        r"^no\s+(?P<x>" + _ACCESS + r"(?:\s+[\w-]+){0,2}?)\s+(?:on|in|at|for|from)\s+"
        r"(?P<where>[^,;:!?\n]+)$",
        I,
    ),
    rx.compile(
        r"\b(?:I|we)\s+(?:do\s+not|does\s+not|did\s+not|cannot|can\s+not)\s+(?:have|get)\s+"
        r"(?:any\s+)?(?P<x>" + _ACCESS + r"(?:\s+[\w-]+){0,2}?\s*(?:rights|access|privileges|"
        r"permissions?))(?:\s+(?:on|to|in|for|at)\s+(?P<where>[^,;:!?\n]+))?",
        I,
    ),
]
POINTERS = frozenset("it this that these those they he she".split())
# "Max file size for uploads is 10 MB", "uptime target is 99.95%".
MAX_IS = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<kind>max(?:imum)?|min(?:imum)?)\s+(?P<np>[\w\s-]{1,40}?)\s+"
    r"(?:is|are)\s+(?:now\s+)?" + _FIGURE,
    I,
)
TARGET_IS = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<np>(?:[\w-]+\s+){0,3}?(?:target|goal|sla|slo|objective))\s+"
    r"(?:is|are)\s+(?:now\s+)?" + _FIGURE,
    I,
)
NEVER_EVER = rx.compile(
    r"^(?:under\s+no\s+circumstances|in\s+no\s+case|at\s+no\s+(?:point|time)|never\s+ever|"
    r"on\s+no\s+account)\s*,?\s+(?:can|should|may|will|must|do|are|shall)\s+(?:we|I|you|they|it)\s+"
    r"(?:be\s+allowed\s+to\s+)?" + XL,
    I,
)
FIRST_PERSON_MUST = rx.compile(
    WHO + r"\s+(?:really\s+|absolutely\s+|definitely\s+|also\s+|still\s+)?(?P<modal>must|have\s+to|"
    r"has\s+to|need\s+to|needs\s+to|have\s+got\s+to|(?:are|am|is)\s+required\s+to|"
    r"(?:are|am|is)\s+obliged\s+to)\s+" + XL,
    I,
)
FIRST_PERSON_NEED = rx.compile(
    WHO + r"\s+(?:really\s+|absolutely\s+|definitely\s+|also\s+|still\s+)?(?:need|needs|require|"
    r"requires)\s+(?!to\b)" + XL,
    I,
)
IMPERSONAL_MUST = rx.compile(r"^" + _NP + r"\s+" + _MUST + r"\s+" + XL, I)
REQUIRED = rx.compile(
    r"^" + _NP + r"\s+(?:is|are)\s+(?:required|mandatory|a\s+must|essential|non-negotiable|"
    r"a\s+hard\s+requirement|compulsory|a\s+requirement)\b",
    I,
)
REQUIREMENTS_ARE = rx.compile(
    r"\b(?:the\s+|our\s+|my\s+)?(?:main\s+|key\s+|hard\s+)?requirements?\s+(?:is|are|:)\s*" + XL, I
)
DELIVERABLE = rx.compile(
    r"\b(?:paper|report|thesis|project|proposal|assignment|essay|draft|submission|deliverable|"
    r"review|audit|application|invoice|article|deck|chapter|manuscript|grant|release|launch)$",
    I,
)
DEADLINE = [
    # "The launch is on September 5": a dated event the user works towards.
    rx.compile(
        r"^(?:the\s+|our\s+|my\s+)?(?P<what>(?:[\w-]+\s+){0,2}?(?:launch|release|go-live|demo\s+day|"
        r"submission|exam|presentation|audit|cutover|deadline|due\s+date|defen[cs]e|viva|thesis\s+"
        r"defen[cs]e|interview))\s+(?:is|will\s+be)\s+(?:now\s+)?"
        r"(?:(?:on|set\s+for|scheduled\s+for|planned\s+for|due\s+on)\s+)?"
        r"(?P<x>(?:\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d|"
        r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|the\s+\d)[^,;:!?\n]*)",
        I,
    ),
    rx.compile(
        r"\b(?:extended|moved|pushed|postponed|changed|shifted|set|brought\s+forward)\s+(?:back\s+)?"
        r"(?:the\s+|our\s+|my\s+)?(?:deadline|due\s+date|launch(?:\s+date)?|release(?:\s+date)?)"
        r"(?:\s+for\s+[^,;:!?\n]+?)?\s+(?:back\s+)?(?:to|until)\s+(?P<x>[^,;:!?\n]+)",
        I,
    ),
    rx.compile(
        r"\b(?:the\s+|our\s+|my\s+)?(?:deadline|due\s+date|launch\s+date|release\s+date|cutoff|"
        r"go-live(?:\s+date)?)(?:\s+for\s+[^,;:!?\n]+?)?\s+(?:is|was|has\s+been|got|is\s+now|"
        r"will\s+be)\s+(?:(?:pushed|moved|extended|changed|postponed|delayed|brought\s+forward|"
        r"set|fixed|updated)\s+(?:back\s+)?(?:to|until|for)\s+)?(?P<x>[^,;:!?\n]+)",
        I,
    ),
    rx.compile(
        r"^(?P<what>(?:the\s+|our\s+|my\s+)?(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:is|are)\s+(?:now\s+)?due\s+"
        r"(?P<x>(?:by|on|in|at|before)\s+[^,;:!?\n]+|(?P<bare>\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]+[^,;:!?\n]*|"
        r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2}[^,;:!?\n]*))",
        I,
    ),
    rx.compile(
        r"\b(?:we|I)\s+(?:need|have|must|got)\s+(?:to\s+)?(?:ship|launch|release|deliver|"
        r"finish|deploy|submit)\s+(?:it|this|everything|the\s+\w+)?\s*(?P<x>by\s+[^,;:!?\n]+)",
        I,
    ),
]
IDLE_CANT = rx.compile(
    r"^(?:get\s+enough|believe|wait|remember|recall|think|imagine|tell|say|see|hear|decide|figure|find|"
    r"help|stop|stand|bear|sleep|focus|get\s+over|understand|make\s+it|come|go|be\s+bothered|"
    r"even|really|seem\s+to|quite|thank|complain|lie|deny|argue|resist|fathom|wrap|keep\s+up|"
    r"do\s+this|do\s+that|do\s+it|handle\s+(?:this|that|it)|deal\s+with\s+(?:this|that|it)|"
    r"afford\s+to\s+lose\s+you|wait\s+to)\b",
    I,
)
NOT_THEIRS = rx.compile(
    r"\b(?:in|for)\s+(?:this|the|my|our)\s+(?:example|exercise|snippet|file|code|question|problem|"
    r"homework|assignment|test)\b|\bexample\b",
    I,
)
NO_BUDGET = rx.compile(
    r"\b(?:I|we)\s+(?:have|got|are\s+stuck\s+with)\s+(?:zero|no|a\s+tiny|very\s+little|little)\s+"
    r"(?:budget|money|funds|funding)\s+(?:for|to\s+spend\s+on)\s+" + XL,
    I,
)
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
DATE = rx.compile(
    r"(?P<x>(?:"
    + _MONTHS
    + r"\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{1,2}(?:st|nd|rd|th)?\s+"
    + _MONTHS
    + r"(?:\s+\d{4})?|\d{4}-\d{2}-\d{2}|(?:the\s+)?end\s+of\s+(?:"
    + _MONTHS
    + r"|the\s+(?:month|quarter|year)|q[1-4])|q[1-4](?:\s+\d{4})?|(?:next\s+)?(?:monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)(?:\s+the\s+\d{1,2}(?:st|nd|rd|th)?)?|"
    r"the\s+\d{1,2}(?:st|nd|rd|th)))\b",
    I,
)
# "The audit has been brought forward to 28 April": whatever it is, a date that moved.
MOVED_TO_DATE = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<what>(?:[\w-]+\s+){0,3}?(?:audit|review|exam|launch|release|"
    r"demo|submission|delivery|handover|hand-in|presentation|migration|cutover|go-live|project|"
    r"assignment|thesis|dissertation|paper|report|milestone|deliverable|inspection|deadline|"
    r"due\s+date|beta|rollout|ship\s+date|filing|payment))\s+(?:(?:has\s+been|have\s+been|was|were|got|"
    r"is|are)\s+)?(?:now\s+)?(?:moved|pushed|brought\s+forward|postponed|delayed|extended|"
    r"rescheduled|shifted|bumped|slipped)\s+(?:back\s+|up\s+|out\s+)?(?:to|until|till)\s+",
    I,
)
MOVED = rx.compile(
    r"\b(?:deadline|launch|release|go-live|due\s+date|ship\s+date|cutoff|submission)\b.*\b(?:slipped|"
    r"moved|pushed|postponed|delayed|extended|changed|shifted|brought\s+forward|now)\b"
    r"|\b(?:slipped|moved|pushed|postponed|delayed|extended|changed|shifted)\b.*\b(?:deadline|launch|"
    r"release|go-live|due\s+date|ship\s+date|(?:is|are)\s+(?:now\s+)?due)\b",
    I,
)
