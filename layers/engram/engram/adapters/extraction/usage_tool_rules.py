"""The tool rules: the phrasings that name a tool in use ("our stack is React and Node.js",
"Postgres is our main database", "we track bugs in Jira"), and the words that rule one
out (a day rather than a name, an obligation rather than a use).

Kept apart from ``usage.py``, which reads a clause with them: these are long pattern
tables that grow by a word as new phrasings turn up, while the reading (which objects
are named tools, when a use is a decision) rarely changes.
"""

from __future__ import annotations

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import ADV, WHO, XL, I
from engram.adapters.extraction.lexicon import THINGS
from engram.adapters.extraction.usage_decision_rules import SOME

__all__ = [
    "ALL_X",
    "AND_TASK",
    "A_SHOP",
    "CALENDAR",
    "DRIVER",
    "EVERYTHING",
    "FOR_TASK",
    "HEAVY_USER",
    "IS_MY",
    "LANGUAGES",
    "LEAD_PREP",
    "LETS",
    "MODAL",
    "ON_X",
    "OUR_THING",
    "PASSIVE",
    "RUN_X",
    "SETUP",
    "TEAM_NAMES",
    "THINGS_RUN",
    "THING_MOVING",
    "THING_WILL_BE",
    "THROUGH",
    "TOOL_DOES",
    "USAGE",
    "WHAT_I_USE",
    "WHERE_I",
    "WITH_FOR",
]

_USE_VERBS = (
    r"(?:use|uses|using|have\s+been\s+using|been\s+using|work\s+with|works\s+with|working\s+with|"
    r"work\s+in|works\s+in|working\s+in|develop\s+with|developing\s+with|build\s+with|"
    r"builds\s+with|building\s+with|rely\s+on|relies\s+on|deploy\s+(?:to|on|with)|"
    r"deploys\s+(?:to|on|with)|deploying\s+(?:to|on|with)|host\s+(?:on|with)|hosts\s+(?:on|with)|"
    r"hosting\s+(?:on|with)|code\s+in|codes\s+in|coding\s+in|program\s+in|programming\s+in|"
    r"develop\s+in|write\s+(?:most\s+of\s+)?" + SOME + r"in|writes\s+" + SOME + r"in|"
    r"building\s+" + SOME + r"(?:with|on|in)|build\s+" + SOME + r"(?:with|on|in)|"
    r"run\s+" + SOME + r"on|runs\s+" + SOME + r"on|running\s+" + SOME + r"on|"
    r"live\s+in|lives\s+in|living\s+in|swear\s+by|do\s+(?:most\s+of\s+)?(?:my|our)?\s*(?:\w+\s+){0,2}(?:work|"
    r"development|coding|programming|dev)\s+(?:in|with|on))"
)
USAGE = [
    rx.compile(
        WHO
        + r"(?:\s+am|\s+are|\s+have|\s+has)?\s+"
        + ADV
        + r"(?P<verb>"
        + _USE_VERBS
        + r")\s+"
        + XL,
        I,
    ),
    rx.compile(
        r"\b(?:our|my|the)\s+(?:current\s+)?(?:tech(?:nology)?\s+)?stack\s+(?:is|includes|"
        r"consists\s+of|uses|is\s+built\s+on|is\s+made\s+of|is\s+basically)\s+" + XL,
        I,
    ),
]
OUR_THING = rx.compile(
    r"^(?:(?:our|my|the)\s+)?(?P<what>(?:[\w-]+\s+)?"
    + THINGS
    + r")\s+(?P<verb>(?:is|are)\s+(?:written|built|hosted|"
    r"deployed|implemented|running|made|done|managed|handled|stored|kept|run)\s+(?:in|with|on|by)|"
    r"runs\s+on|run\s+on|uses|use|lives\s+on|lives\s+in|is\s+on|are\s+on|is|are)\s+"
    r"(?:all\s+|entirely\s+|mostly\s+|basically\s+)?" + XL,
    I,
)
EVERYTHING = rx.compile(
    r"^(?:everything|it|all\s+(?:of\s+)?(?:it|our\s+" + THINGS + r"|my\s+" + THINGS + r")|"
    r"(?:our|my)\s+" + THINGS + r")\s+"
    r"(?:lives|is|are|runs|sits|is\s+hosted|is\s+stored)\s+(?:all\s+)?(?:on|in)\s+" + XL,
    I,
)
ALL_X = rx.compile(r"^it\s+is\s+(?:all|only|just)\s+" + XL + r"(?:\s+for\s+(?:me|us))?$", I)
DRIVER = rx.compile(
    r"\bmy\s+(?:daily\s+driver|weapon\s+of\s+choice|go-to\s+(?:tool|setup|stack)|main\s+(?:machine|"
    r"setup|rig)|setup|rig)\s+(?:is|=)\s+" + XL,
    I,
)
# "Our marketing site and customer portal both run on Gatsby".
THINGS_RUN = rx.compile(
    r"^(?:our|my|the)\s+(?=[^,;:!?\n]*?\b" + THINGS + r"\b)[^,;:!?\n]{1,60}?\s+(?:both\s+|all\s+)?"
    r"(?:run|runs|are\s+built|is\s+built|are\s+hosted|is\s+hosted|live|lives|sit|sits|builds|"
    r"build|deploys|deploy|ships|ship)\s+"
    r"(?:on|with|in)\s+" + XL,
    I,
)
# "Zed is my editor now", "Postgres is our main database".
IS_MY = rx.compile(
    r"^(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+(?:now\s+|still\s+)?(?:my|our)\s+(?:main\s+|primary\s+|"
    r"new\s+|current\s+|daily\s+|default\s+|only\s+)?" + THINGS + r"\b",
    I,
)
# "Capistrano handles all our deploys", "Plausible powers our analytics".
TOOL_DOES = rx.compile(
    r"^(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*){0,2})\s+(?:handles|powers|runs|does|serves|"
    r"manages|drives|hosts|stores|builds|deploys|sends|processes|tracks|takes\s+care\s+of)\s+"
    r"(?:all\s+(?:of\s+)?)?(?:our|my)\s+(?:[\w-]+\s+){0,2}?" + THINGS + r"\b"
)
# "pnpm is what I use for every JS project", "We're a Postgres shop".
WHAT_I_USE = rx.compile(
    r"^(?P<x>[^,;:!?\n]{1,40}?)\s+(?:is|are)\s+(?:what|all)\s+(?:I|we)\s+(?:use|run|rely\s+on|work\s+with|"
    r"code\s+in|write)\b",
    I,
)
A_SHOP = rx.compile(
    r"\b(?:I|we)\s+(?:am|are)\s+(?:an?\s+)?(?:(?:all-in|die-hard|full-on)\s+)?(?P<x>[^\s,;:!?]+(?:\s+[A-Z][\w.+-]*)?)\s+"
    r"(?:shop|house)\b",
    I,
)
# "The docs are moving to Docusaurus": a tool chosen for a thing of theirs.
THING_MOVING = rx.compile(
    r"^(?:the|our|my)\s+(?P<what>(?:[\w-]+\s+)?" + THINGS + r")\s+(?:is|are)\s+(?:moving|migrating|"
    r"switching|going|being\s+moved|being\s+migrated)\s+(?:over\s+)?to\s+" + XL,
    I,
)
# Teams spelt like tools ("DevOps handles our deploys").
TEAM_NAMES = frozenset("DevOps SecOps FinOps MLOps DevRel".split())
RUN_X = rx.compile(
    r"\bI\s+(?:always\s+|usually\s+|now\s+|mostly\s+|mainly\s+)?(?:run|am\s+running|daily-drive|use|"
    r"reach\s+for|type\s+on|code\s+on|play\s+on|game\s+on|edit\s+on|write\s+on)\s+" + XL,
    I,
)
# "Obsidian is where I keep everything".
WHERE_I = rx.compile(
    r"^(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+is\s+where\s+(?:I|we)\s+(?:keep|store|write|track|"
    r"draft|organi[sz]e)\s+(?:all\s+(?:of\s+)?|most\s+of\s+)?(?:everything|(?:my|our)\s+\w+|notes|tasks|"
    r"docs|code|ideas|todos)\b"
)
# "The docs are going to be hosted on GitHub Pages".
THING_WILL_BE = rx.compile(
    r"^(?:the|our|my)\s+(?P<what>(?:[\w-]+\s+)?" + THINGS + r")\s+(?:is|are)\s+(?:going\s+to|"
    r"gonna|about\s+to|set\s+to)\s+be\s+(?:hosted|built|deployed|written|run|served|stored|"
    r"rewritten|migrated|moved)\s+(?:on|with|in|by|to)\s+" + XL,
    I,
)
ON_X = rx.compile(
    r"\b(?:I|we)\s+(?:am|are)\s+(?:currently\s+|still\s+|now\s+|all\s+)?on\s+" + XL, I
)
HEAVY_USER = rx.compile(
    r"\bI\s+am\s+(?:an?\s+)?(?:heavy|big|long-?time|daily|happy|avid|huge|power|loyal)?\s*"
    r"(?P<x>[^,;:!?\n]+?)\s+user\b",
    I,
)
PASSIVE = rx.compile(
    r"^(?:(?:since|for|over|in)\s+[^,]{1,25}?,?\s+)?"
    r"(?:(?:all|both)\s+(?:of\s+)?(?:our\s+|my\s+|the\s+)?|(?:our|my|the)\s+)(?P<what>[\w\s/-]{1,40}?)\s+(?:is|are|was|were|"
    r"has\s+been|have\s+been|gets|get)\s+(?:\w+\s+)?(?:built|powered|written|hosted|run|managed|"
    r"handled|done|deployed|stored|served|rendered|tested|tracked|kept|backed|made|developed|"
    r"driven|orchestrated|monitored|automated|generated|scheduled|processed|implemented|"
    r"designed|coded|styled|bundled|compiled|indexed|cached|queued|secured|authenticated)\s+"
    r"(?:with|by|on|in|through|using|via)\s+" + XL,
    I,
)
THROUGH = rx.compile(
    r"^(?:all|everything)?\s*(?:of\s+)?(?:our|my|the)\s+(?:[\w/-]+\s+){0,3}?"
    + THINGS
    + r"\s+(?:goes|go|runs|run|flows|flow|lives|live|sits|sit|happens|happen)\s+"
    r"(?:through|on|in|via|to)\s+" + XL,
    I,
)
SETUP = rx.compile(
    r"^(?:our|my|the)\s+(?:[\w-]+\s+){0,3}?(?:stack|setup|toolchain|tooling|tools|toolbox|toolkit|"
    r"infra|infrastructure|pipeline)\s+(?:is|are|includes|consists\s+of|=)\s+(?:all\s+|"
    r"basically\s+|mostly\s+)?" + XL,
    I,
)
LANGUAGES = rx.compile(
    WHO + r"\s+" + ADV + r"(?:write|code\s+in|program\s+in|speak|know)\s+" + XL, I
)
# "We charge cards with Stripe", "I track tasks in Linear": a named tool for a task.
_TASK_VERBS = (
    r"(?:deploy|build|built|host|self-host|run|ran|charge|process|track|manage|store|writ(?:e|es|ing)|"
    r"wrote|written|code|develop|test|monitor|log|bundle|compile|package|ship|handle|send|"
    r"automate|provision|orchestrate|containeri[sz]e|cache|queue|index|search|analy[sz]e|train|"
    r"serve|edit|design|document|plan|chat|communicate|collaborate|version|back\s+up|sync|"
    r"schedule|render|lint|format|type-?check|profile|trace|authenticate|keep|kept|do|does|did|"
    r"make|made|draw|sketch|model|prototype|record|mix|produce|stream|publish|blog|note|"
    r"journal|budget|invoice|email|message|meet|video\s+call|organi[sz]e|visuali[sz]e|query|"
    r"wrangle|crunch|script|debug|profile|benchmark|rewr(?:ite|iting|itten|ote)|port|migrate|"
    r"redo|redid|redone|rebuild|rebuilt|reimplement)"
)
# "We charge cards with Stripe", "I track tasks in Linear": a named tool for a task.
FOR_TASK = rx.compile(
    r"(?i:(?:"
    + WHO
    + r"|\blet(?:'s|\s+us))(?:\s+(?:are|am|have\s+been|has\s+been|been|have|has|had|will|also|"
    r"still|now|mostly|mainly|usually|currently|always))*\s+"
    + _TASK_VERBS
    + r"(?:s|es|ed|d|ing)?\s+"
    r"(?:[\w'-]+\s+){0,7}?(?:with|using|in|on|via|through))\s+(?P<x>[^,;:!?\n]*[A-Z][^;:!?\n]*)"
)

CALENDAR = rx.compile(
    r"^(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekends?|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"christmas|easter)\b",
    I,
)

# An obligation ("the binary must run on Windows") is read by the obligation rules.
MODAL = rx.compile(
    r"\b(?:must|should|has\s+to|have\s+to|needs?\s+to|cannot|can\s+not|may\s+not|shall|"
    r"is\s+not\s+allowed|are\s+not\s+allowed)\b",
    I,
)


# "I use for every JS project": the object is missing, not "for every JS project".
LEAD_PREP = rx.compile(r"^(?:for|to|with|in|on|at|by|from|about)\b", I)
LETS = rx.compile(r"^(?:then\s+|so\s+|ok(?:ay)?\s+|right\s+)?let(?:'s|\s+us)\b", I)
# "Our tool runs on Rails, with Sidekiq for background jobs": a second tool, for a task.
WITH_FOR = rx.compile(
    r",\s+(?:with|plus|and)\s+(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+(?:for|handling|doing)\s+"
)


# "We track bugs in Jira and chat in Slack": a second tool for a second task.
AND_TASK = rx.compile(
    r"\s+and\s+(?:also\s+)?" + _TASK_VERBS + r"(?:s|es|ed|d|ing)?\s+(?:[\w'-]+\s+){0,3}?"
    r"(?:in|on|with|via|using|through)\s+(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)"
)
