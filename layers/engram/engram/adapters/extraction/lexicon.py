"""Words the rules need: what a known thing is about (its subject), filler, idle remarks.

The subject taxonomy is how a correction finds what it corrects: "I prefer React
now" retires "I prefer Vue" because both are front-end frameworks, and "we're
moving to GCP" retires "we host on AWS" because both are clouds. Objects outside
the taxonomy are matched by their own name. The taxonomy itself is in
``lexicon_taxonomy``.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.lexicon_taxonomy import CASE_SENSITIVE, TAXONOMY

__all__ = [
    "FILLER_EDGES",
    "IDLE_OBJECTS",
    "NAME_SHAPED",
    "NON_OBJECTS",
    "PEOPLE",
    "POINTER_DETERMINERS",
    "SPOKEN_LANGUAGE",
    "THINGS",
    "TOOL_SHAPED",
    "canonical",
    "is_known",
    "known_term",
    "subject_of",
    "terms_in",
]

_ALIASES: dict[str, tuple[str, str]] = {
    alias: (subject, term)
    for subject, terms in TAXONOMY.items()
    for term, aliases in terms.items()
    for alias in (term.replace("_", " "), *aliases)
}
# Longest alias first, so "react native" wins over "react" and "sql server" over "sql".
_ALIAS_PATTERN = rx.compile(
    r"(?<![\w.#+-])("
    + "|".join(re.escape(a) for a in sorted(_ALIASES, key=len, reverse=True))
    + r")(?![\w#+]|\.\w)",
    re.IGNORECASE,
)


def _matches(alias_text: str) -> tuple[str, str] | None:
    lowered = alias_text.lower()
    found = _ALIASES.get(lowered)
    if found is None or (lowered in CASE_SENSITIVE and alias_text.islower()):
        return None
    return found


def known_term(text: str) -> tuple[str, str] | None:
    """(subject, canonical term) of the first known thing named in ``text``."""
    for match in _ALIAS_PATTERN.finditer(text):
        found = _matches(match.group(1))
        if found is not None:
            return found
    return None


def terms_in(text: str) -> list[str]:
    """Canonical names of every known thing ``text`` names."""
    found = (_matches(m.group(1)) for m in _ALIAS_PATTERN.finditer(text))
    return [term for _, term in (f for f in found if f is not None)]


def is_known(text: str) -> bool:
    """Whether ``text`` as a whole names a known thing."""
    return _matches(text.strip()) is not None


def subject_of(text: str) -> str | None:
    found = known_term(text)
    return found[0] if found else None


def canonical(text: str) -> str | None:
    found = known_term(text)
    return found[1] if found else None


# Words around an object that say nothing about it ("I don't like MongoDB anymore").
FILLER_EDGES = rx.compile(
    r"^(?:(?:really|actually|also|still|just|kind\s+of|sort\s+of|definitely|totally|"
    r"honestly|personally|mostly|mainly|primarily|currently|now|then|generally|"
    r"truly|very\s+much|quite|rather|probably|even)\s+)+"
    r"|(?:\s+(?:any\s*more|now|these\s+days|nowadays|lately|at\s+the\s+moment|right\s+now|"
    r"currently|for\s+now|still|too|also|as\s+well|though|tbh|honestly|really|"
    r"very\s+much|a\s+lot|so\s+much|either|again|instead|anyway|personally|"
    r"in\s+general|then|from\s+now\s+on|going\s+forward|these\s+days|for\s+sure|"
    r"lol|haha|btw|by\s+the\s+way|for\s+me|for\s+us|to\s+be\s+honest|if\s+I'm\s+honest|"
    r"if\s+I\s+am\s+honest|entirely|completely|altogether|for\s+good|fully|totally))+$",
    re.IGNORECASE,
)

# Other people: what they like or do is not the user's fact ("My girlfriend can't stand jazz").
PEOPLE = (
    r"(?:friend|girlfriend|boyfriend|wife|husband|partner|spouse|fianc[ée]e?|boss|manager|"
    r"colleague|co-?worker|teammate|brother|sister|sibling|mom|mum|mother|dad|father|parents?|"
    r"son|daughter|kids?|children|child|baby|grandma|grandpa|grandmother|grandfather|aunt|uncle|"
    r"cousin|nephew|niece|neighbou?r|roommate|flatmate|housemate|landlord|client|customer|"
    r"teacher|doctor|therapist|dentist|team\s+lead|cto|ceo|in-laws?|family)s?"
)
# Objects that only point elsewhere ("I like it", "I'll use that one").
NON_OBJECTS = frozenset(
    "it that this these those them they you him her what how when where if whether "
    "something anything everything nothing one some so too both either neither "
    "whatever whichever such yours mine ours theirs here there".split()
)
# First words of an object that make it a pointer, not a thing ("your suggestion").
POINTER_DETERMINERS = frozenset("your his her their its this that these those which".split())

# What people "need", "have to", "can't" or "will" do in passing: not facts to keep.
IDLE_OBJECTS = rx.compile(
    r"^(?:a\s+(?:minute|moment|second|sec|bit|while|break|nap|rest|hand|favou?r|hug|"
    r"drink|coffee|vacation|holiday|day\s+off)|"
    r"(?:some|more)\s+(?:time|coffee|sleep|rest|help|air|space|fresh\s+air|advice|ideas?)|"
    r"(?:to\s+)?(?:go|leave|run|think|check|sleep|eat|rest|relax|wait|hurry|ask|know|see|"
    r"figure|remember|recall|believe|imagine|tell|say|hear|decide|focus|stop|start|"
    r"finish|head|step|get\s+going|get\s+back|grab|take\s+a|catch|call|talk|reply|respond|"
    r"pee|shower|breathe|calm|vent|cry|laugh|admit|confess|apologi[sz]e|thank|understand|"
    r"wrap|log\s+off|sign\s+off|be\s+going|be\s+honest|say\s+goodbye|try\s+it|"
    r"look\s+into|mull|sleep\s+on|process|digest|get\s+some)\b|"
    r"help\b|more\s+time|time\b|you\b|it\b|that\b|this\b)",
    re.IGNORECASE,
)

# Tools named by what they are for: "our backend is Spring Boot", "the frontend uses X".
THINGS = (
    r"(?:main\s+|whole\s+|current\s+|new\s+)?(?:backend|back-end|back\s+end|frontend|front-end|"
    r"front\s+end|database|db|api|apis|app|apps|server|servers|infra(?:structure)?|website|site|"
    r"service|services|project|codebase|monorepo|repo|cloud(?:\s+provider)?|hosting|ci|cd|ci/cd|"
    r"pipelines?|editor|ide|os|laptop|machine|language|framework|orm|cache|caching|queue|cms|"
    r"mobile\s+apps?|data\s+warehouse|warehouse|monitoring|logging|observability|tooling|"
    r"build\s+system|bundler|package\s+manager|deployments?|auth|authentication|search|storage|"
    r"message\s+broker|broker|email\s+provider|payment\s+provider|payments|analytics|crm|"
    r"ticketing|issue\s+tracker|tracker|docs|wiki|version\s+control|orchestration|runtime|"
    r"shell|terminal|browser|phone|distro|dashboards?|alerting|tests?|test\s+suite|scripts|"
    r"data\s+pipeline|etl|ml\s+stack|models?|llm|vector\s+store|queue\s+system|workers?|code|"
    r"repos|repositories|source|data|logs|email|messages|messaging|notifications|traffic|"
    r"requests|events|jobs|builds|deploys|artifacts|images|backups|metrics|traces|files|"
    r"notes|tasks|tickets|issues|docs|documentation|designs|assets|videos|photos|tool|tools|"
    r"blog|newsletter|shop|storefront|store|portfolio|homelab|home\s+lab|cluster|home\s+server|"
    r"nas|platform|product|bot|extension|plugin|game)"
)
# Languages people speak: "English it is" chooses how to answer, not a tool.
SPOKEN_LANGUAGE = rx.compile(
    r"^(?:english|spanish|french|german|italian|portuguese|dutch|turkish|indonesian|malay|chinese|"
    r"mandarin|japanese|korean|arabic|hindi|russian|polish|swedish|norwegian|danish|finnish|greek)\b",
    re.IGNORECASE,
)
# Spellings only names have: an inner capital or a letter beside a digit ("iTerm2",
# "macOS", "S3"); a tool's name may also carry a digit or a dot anywhere ("Fly.io").
NAME_SHAPED = rx.compile(r"[a-z][A-Z]|[A-Za-z]\d")
TOOL_SHAPED = rx.compile(r"[a-z][A-Z]|\d|\.\w")
