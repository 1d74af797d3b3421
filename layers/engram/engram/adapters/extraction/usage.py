"""Decisions ("we'll use Django") and the tools in use ("our stack is React and Node.js").

A decision is exclusive on its subject (a later choice of backend framework retires
the earlier one) and "X instead of Y" retires Y; tools accumulate, one fact each.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import ADV, WHO, XL, I, Step, make_fact, objects, own
from engram.adapters.extraction.facts import (
    ExtractedFact,
    Retraction,
    clean_object,
    object_id,
    slug,
)
from engram.adapters.extraction.lexicon import (
    IDLE_OBJECTS,
    NAME_SHAPED,
    SPOKEN_LANGUAGE,
    THINGS,
    TOOL_SHAPED,
    is_known,
    known_term,
    subject_of,
)
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_decision", "read_tools"]

F, E = MemoryType.FACTUAL, MemoryType.EPISODIC
# A short object between a verb and its preposition ("deploy everything to", "write
# the backend in").
_SOME = (
    r"(?:(?:it|this|that|everything|things|all|the\s+[\w-]+(?:\s+[\w-]+)?|our\s+[\w-]+|"
    r"my\s+[\w-]+|[\w-]+)\s+)?"
)
_DECISION_VERB = (
    r"(?P<verb>use|using|go\s+with|going\s+with|pick|choose|adopt|stick\s+with|stay\s+with|keep\s+using|"
    r"standardi[sz]e\s+on|start\s+using|switch\s+over\s+to|rely\s+on|try|"
    r"build\s+" + _SOME + r"(?:with|on|in)|write\s+" + _SOME + r"in|"
    r"deploy\s+" + _SOME + r"(?:to|on|with)|host\s+" + _SOME + r"(?:on|with)|"
    r"ship\s+" + _SOME + r"(?:on|to|with)|launch\s+" + _SOME + r"(?:on|with)|"
    r"implement\s+" + _SOME + r"(?:in|with)|run\s+" + _SOME + r"on|"
    r"store\s+" + _SOME + r"(?:in|as)|save\s+" + _SOME + r"(?:in|as)|keep\s+" + _SOME + r"in|"
    r"schedule\s+" + _SOME + r"(?:with|via|using|on)|trigger\s+" + _SOME + r"(?:with|via)|"
    r"put\s+" + _SOME + r"(?:in|on)|migrate\s+" + _SOME + r"to|"
    r"move\s+"
    + _SOME
    + r"(?:over\s+|back\s+)?to|port\s+"
    + _SOME
    + r"(?:over\s+)?to|handle\s+"
    + _SOME
    + r"with|manage\s+"
    + _SOME
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
_DECISIONS = [
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
_DECIDED_ANY = rx.compile(WHO + _DECIDED, I)
_IT_IS = rx.compile(r"^(?P<x>[A-Z][^,;:!?\n]*?)\s+it\s+is(?:\s+then)?(?:\s+for\s+[^,;:!?\n]+)?$")
_WILL_RUN = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<what>(?:[\w-]+\s+){0,4}?)(?:will|is\s+going\s+to|shall)\s+"
    r"(?P<verb>run|live|sit|be\s+hosted|be\s+deployed|be\s+stored)\s+(?:on|in)\s+" + XL,
    I,
)
# "I'm going to accept the offer in Trondheim": a plan with a life verb.
_PLAN = rx.compile(
    WHO + r"(?:\s+am|\s+are)?(?:\s+going\s+to|\s+will|\s+plan\s+to|\s+intend\s+to|\s+want\s+to)\s+"
    r"(?P<vp>(?:accept|take|join|start|buy|learn|apply\s+for|enrol+|enroll|quit|hire|launch|"
    r"sell|adopt|rent|book|sign\s+up\s+for|retire|study|train\s+for|run|climb|visit)\b"
    r"[^,;:!?\n]+)",
    I,
)
_INSTEAD = rx.compile(
    r"(?:\s+(?:instead\s+of|rather\s+than|in\s+place\s+of|in\s+favou?r\s+of|over)|,\s+not)\s+"
    r"(?P<old>[^,;:!?\n]+?)(?=\s*(?:,|$))",
    I,
)
_IDLE_DECISIONS = rx.compile(
    r"^(?:(?:to\s+)?(?:think|sleep|see|wait|try|check|go|leave|rest|relax|call|ask|look|head|"
    r"get\s+back|circle\s+back|let\s+you\s+know|take\s+a\s+(?:break|nap|look|walk))\b"
    r"(?:\s+(?:home|out|away|now|back|ahead|to\s+bed|to\s+sleep|about\s+it|it\s+over|"
    r"on\s+it|and\s+see|later|tomorrow|tonight|soon|for\s+a\s+(?:bit|while|walk)))*$|"
    r"(?:to\s+)?(?:think|sleep|see|wait|try|check|leave|rest|relax|call|ask|look|"
    r"get\s+back|circle\s+back)\b.*\b(?:it|this|that|you|tomorrow|later|tonight|now)\b|"
    r"it\b|that\b|this\b)",
    I,
)

_USE_VERBS = (
    r"(?:use|uses|using|have\s+been\s+using|been\s+using|work\s+with|works\s+with|working\s+with|"
    r"work\s+in|works\s+in|working\s+in|develop\s+with|developing\s+with|build\s+with|"
    r"builds\s+with|building\s+with|rely\s+on|relies\s+on|deploy\s+(?:to|on|with)|"
    r"deploys\s+(?:to|on|with)|deploying\s+(?:to|on|with)|host\s+(?:on|with)|hosts\s+(?:on|with)|"
    r"hosting\s+(?:on|with)|code\s+in|codes\s+in|coding\s+in|program\s+in|programming\s+in|"
    r"develop\s+in|write\s+(?:most\s+of\s+)?" + _SOME + r"in|writes\s+" + _SOME + r"in|"
    r"building\s+" + _SOME + r"(?:with|on|in)|build\s+" + _SOME + r"(?:with|on|in)|"
    r"run\s+" + _SOME + r"on|runs\s+" + _SOME + r"on|running\s+" + _SOME + r"on|"
    r"live\s+in|lives\s+in|living\s+in|swear\s+by|do\s+(?:most\s+of\s+)?(?:my|our)?\s*(?:\w+\s+){0,2}(?:work|"
    r"development|coding|programming|dev)\s+(?:in|with|on))"
)
_USAGE = [
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
_OUR_THING = rx.compile(
    r"^(?:(?:our|my|the)\s+)?(?P<what>(?:[\w-]+\s+)?"
    + THINGS
    + r")\s+(?P<verb>(?:is|are)\s+(?:written|built|hosted|"
    r"deployed|implemented|running|made|done|managed|handled|stored|kept|run)\s+(?:in|with|on|by)|"
    r"runs\s+on|run\s+on|uses|use|lives\s+on|lives\s+in|is\s+on|are\s+on|is|are)\s+"
    r"(?:all\s+|entirely\s+|mostly\s+|basically\s+)?" + XL,
    I,
)
_EVERYTHING = rx.compile(
    r"^(?:everything|it|all\s+(?:of\s+)?(?:it|our\s+" + THINGS + r"|my\s+" + THINGS + r")|"
    r"(?:our|my)\s+" + THINGS + r")\s+"
    r"(?:lives|is|are|runs|sits|is\s+hosted|is\s+stored)\s+(?:all\s+)?(?:on|in)\s+" + XL,
    I,
)
_ALL_X = rx.compile(r"^it\s+is\s+(?:all|only|just)\s+" + XL + r"(?:\s+for\s+(?:me|us))?$", I)
_DRIVER = rx.compile(
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
_IS_MY = rx.compile(
    r"^(?P<x>[^,;:!?\n]+?)\s+(?:is|are)\s+(?:now\s+|still\s+)?(?:my|our)\s+(?:main\s+|primary\s+|"
    r"new\s+|current\s+|daily\s+|default\s+|only\s+)?" + THINGS + r"\b",
    I,
)
# "Capistrano handles all our deploys", "Plausible powers our analytics".
_TOOL_DOES = rx.compile(
    r"^(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*){0,2})\s+(?:handles|powers|runs|does|serves|"
    r"manages|drives|hosts|stores|builds|deploys|sends|processes|tracks|takes\s+care\s+of)\s+"
    r"(?:all\s+(?:of\s+)?)?(?:our|my)\s+(?:[\w-]+\s+){0,2}?" + THINGS + r"\b"
)
# "pnpm is what I use for every JS project", "We're a Postgres shop".
_WHAT_I_USE = rx.compile(
    r"^(?P<x>[^,;:!?\n]{1,40}?)\s+(?:is|are)\s+(?:what|all)\s+(?:I|we)\s+(?:use|run|rely\s+on|work\s+with|"
    r"code\s+in|write)\b",
    I,
)
_A_SHOP = rx.compile(
    r"\b(?:I|we)\s+(?:am|are)\s+(?:an?\s+)?(?:(?:all-in|die-hard|full-on)\s+)?(?P<x>[^\s,;:!?]+(?:\s+[A-Z][\w.+-]*)?)\s+"
    r"(?:shop|house)\b",
    I,
)
# "The docs are moving to Docusaurus": a tool chosen for a thing of theirs.
_THING_MOVING = rx.compile(
    r"^(?:the|our|my)\s+(?P<what>(?:[\w-]+\s+)?" + THINGS + r")\s+(?:is|are)\s+(?:moving|migrating|"
    r"switching|going|being\s+moved|being\s+migrated)\s+(?:over\s+)?to\s+" + XL,
    I,
)
# Teams spelt like tools ("DevOps handles our deploys").
_TEAM_NAMES = frozenset("DevOps SecOps FinOps MLOps DevRel".split())
_RUN_X = rx.compile(
    r"\bI\s+(?:always\s+|usually\s+|now\s+|mostly\s+|mainly\s+)?(?:run|am\s+running|daily-drive|use|"
    r"reach\s+for|type\s+on|code\s+on|play\s+on|game\s+on|edit\s+on|write\s+on)\s+" + XL,
    I,
)
# "Obsidian is where I keep everything".
_WHERE_I = rx.compile(
    r"^(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+is\s+where\s+(?:I|we)\s+(?:keep|store|write|track|"
    r"draft|organi[sz]e)\s+(?:all\s+(?:of\s+)?|most\s+of\s+)?(?:everything|(?:my|our)\s+\w+|notes|tasks|"
    r"docs|code|ideas|todos)\b"
)
# "The docs are going to be hosted on GitHub Pages".
_THING_WILL_BE = rx.compile(
    r"^(?:the|our|my)\s+(?P<what>(?:[\w-]+\s+)?" + THINGS + r")\s+(?:is|are)\s+(?:going\s+to|"
    r"gonna|about\s+to|set\s+to)\s+be\s+(?:hosted|built|deployed|written|run|served|stored|"
    r"rewritten|migrated|moved)\s+(?:on|with|in|by|to)\s+" + XL,
    I,
)
_ON_X = rx.compile(
    r"\b(?:I|we)\s+(?:am|are)\s+(?:currently\s+|still\s+|now\s+|all\s+)?on\s+" + XL, I
)
_HEAVY_USER = rx.compile(
    r"\bI\s+am\s+(?:an?\s+)?(?:heavy|big|long-?time|daily|happy|avid|huge|power|loyal)?\s*"
    r"(?P<x>[^,;:!?\n]+?)\s+user\b",
    I,
)
_PASSIVE = rx.compile(
    r"^(?:(?:since|for|over|in)\s+[^,]{1,25}?,?\s+)?"
    r"(?:(?:all|both)\s+(?:of\s+)?(?:our\s+|my\s+|the\s+)?|(?:our|my|the)\s+)(?P<what>[\w\s/-]{1,40}?)\s+(?:is|are|was|were|"
    r"has\s+been|have\s+been|gets|get)\s+(?:\w+\s+)?(?:built|powered|written|hosted|run|managed|"
    r"handled|done|deployed|stored|served|rendered|tested|tracked|kept|backed|made|developed|"
    r"driven|orchestrated|monitored|automated|generated|scheduled|processed|implemented|"
    r"designed|coded|styled|bundled|compiled|indexed|cached|queued|secured|authenticated)\s+"
    r"(?:with|by|on|in|through|using|via)\s+" + XL,
    I,
)
_THROUGH = rx.compile(
    r"^(?:all|everything)?\s*(?:of\s+)?(?:our|my|the)\s+(?:[\w/-]+\s+){0,3}?"
    + THINGS
    + r"\s+(?:goes|go|runs|run|flows|flow|lives|live|sits|sit|happens|happen)\s+"
    r"(?:through|on|in|via|to)\s+" + XL,
    I,
)
_SETUP = rx.compile(
    r"^(?:our|my|the)\s+(?:[\w-]+\s+){0,3}?(?:stack|setup|toolchain|tooling|tools|toolbox|toolkit|"
    r"infra|infrastructure|pipeline)\s+(?:is|are|includes|consists\s+of|=)\s+(?:all\s+|"
    r"basically\s+|mostly\s+)?" + XL,
    I,
)
_LANGUAGES = rx.compile(
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
_FOR_TASK = rx.compile(
    r"(?i:(?:"
    + WHO
    + r"|\blet(?:'s|\s+us))(?:\s+(?:are|am|have\s+been|has\s+been|been|have|has|had|will|also|"
    r"still|now|mostly|mainly|usually|currently|always))*\s+"
    + _TASK_VERBS
    + r"(?:s|es|ed|d|ing)?\s+"
    r"(?:[\w'-]+\s+){0,7}?(?:with|using|in|on|via|through))\s+(?P<x>[^,;:!?\n]*[A-Z][^;:!?\n]*)"
)


def _with_instead(clause: str) -> tuple[str, str | None]:
    """The clause without a trailing "instead of X" / "rather than X", and X."""
    match = _INSTEAD.search(clause)
    if match is None:
        return clause, None
    return clause[: match.start()] + clause[match.end() :], match.group("old")


def _retracting(olds: list[str], fact: object) -> list[Retraction]:
    return [Retraction(object_id(restore(o)), replaced_by=fact) for o in olds]  # type: ignore[arg-type]


def _idle(obj: str) -> bool:
    # Idle phrases are lower-case words ("a minute", "rest"); "REST" the API style is not.
    return obj[:1].islower() and (
        IDLE_OBJECTS.match(obj) is not None or _IDLE_DECISIONS.match(obj) is not None
    )


def _implicit(clause: str, replaced: str | None, fact: ExtractedFact) -> list[Retraction]:
    """ "...instead" with nothing named: the fact it replaces is found when learning."""
    if replaced is None and re.search(r"\binstead\s*$", clause, I):
        return [Retraction("", (fact.category,), replaced_by=fact, implicit=True)]
    return []


# "The plan is to call the app Tidewater", "the app will be called Lumen": a name chosen
# for something of theirs, which a later name replaces.
_NAMED_THING = (
    r"(?P<thing>app|project|company|product|startup|repo|band|podcast|blog|game|site|website|"
    r"channel|newsletter|library|package|shop|business|cat|dog|puppy|kitten|baby|boat|server)"
)
_NAMING = [
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


def _naming(clause: str) -> list[Step] | None:
    for pattern in rx.able(_NAMING, clause):
        match = pattern.search(clause)
        if match is not None and own(clause, match.start()):
            thing, name = match.group("thing").lower(), restore(match.group("x"))
            fact = make_fact(
                "decision",
                E,
                name,
                f"name the {thing} {name}",
                key=f"decision:name_of_{slug(thing)}",
                exclusive=True,
                subject=f"name_of_{slug(thing)}",
            )
            return [(fact, [])]
    return None


def read_decision(clause: str) -> list[Step] | None:
    named = _naming(clause)
    if named:
        return named
    body, replaced = _with_instead(clause)
    olds = objects(replaced)
    for pattern in rx.able(_DECISIONS, body):
        match = pattern.search(body)
        if match is None or not own(body, match.start()):
            continue
        verb = re.sub(r"\s+", " ", match.group("verb").lower())
        if (
            verb
            in (
                "decided",
                "settled",
                "settling",
                "agreed",
                "landed",
                "landing",
                "decision",
                "choice",
                "pick",
                "call",
                "chose",
                "chosen",
                "picked",
                "selected",
                "opted for",
                "settled on",
                "committed to",
                "using",
                "choosing",
                "picking",
            )
            or verb == "using"
        ):
            verb = "use"
        elif verb in ("with", "going with"):
            verb = "go with"
        elif verb in ("in", "on"):
            verb = "build " + verb
        elif (
            "forward" in verb
            or "ahead" in verb
            or verb.startswith(
                (
                    "proceeding",
                    "adopting",
                    "rolling",
                    "introducing",
                    "standardi",
                    "betting",
                    "doubling",
                )
            )
        ):
            verb = "adopt"
        elif verb in (
            "built",
            "written",
            "hosted",
            "deployed",
            "done",
            "implemented",
            "made",
            "developed",
            "run",
            "powered",
            "served",
            "stored",
            "kept",
        ):
            what = (match.groupdict().get("what") or "").strip()
            verb = f"{what} {verb} with".strip() if what else f"{verb} with"
        found = objects(match.group("x"))
        if not found or any(_idle(o) for o in found):
            return None
        if verb == "use" and len(found) == 1 and replaced and re.search(r"\sover\s", clause):
            # "I chose Rust over Go for the CLI tool": a preference between two tools
            other = restore(replaced).strip(" .")
            fact = make_fact("tech_preference", F, found[0], f"prefers {found[0]} over {other}")
            return [(fact, _retracting(olds, fact))]
        return [
            (
                fact := make_fact("decision", E, o, f"{verb} {o}", exclusive=len(found) == 1),
                _retracting(olds, fact) + _implicit(clause, replaced, fact),
            )
            for o in found
        ]
    match = _IT_IS.search(body)
    if match is not None:
        found = [o for o in objects(match.group("x")) if not SPOKEN_LANGUAGE.match(o)]
        if found:
            fact = make_fact("decision", E, found[0], f"go with {found[0]}", exclusive=True)
            return [(fact, _retracting(olds, fact))]
    match = _WILL_RUN.search(body)
    if match is not None:
        what = (match.group("what") or "").strip()
        found = objects(match.group("x"))
        if found:
            return [(make_fact("decision", E, o, f"{what} runs on {o}".strip()), []) for o in found]
    match = _PLAN.search(body)
    if match is not None and own(body, match.start()):
        phrase = clean_object(match.group("vp"))
        if phrase and not _IDLE_DECISIONS.match(phrase):
            fact = make_fact("decision", E, phrase, phrase)
            return [(fact, _retracting(olds, fact))]
    match = _DECIDED_ANY.search(body)
    if match is not None and own(body, match.start()):
        phrase = clean_object(match.group("vp"))
        if phrase and not _IDLE_DECISIONS.match(phrase):
            fact = make_fact("decision", E, phrase, phrase)
            return [(fact, _retracting(olds, fact))]
    return None


_CALENDAR = rx.compile(
    r"^(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekends?|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"christmas|easter)\b",
    I,
)


def _named(obj: str) -> bool:
    plain = restore(obj)
    if _CALENDAR.match(plain):
        return False
    first = re.search(r"[^\W_]", plain)  # ".NET MAUI" is named by its N
    return (
        is_known(plain)
        or known_term(plain) is not None
        or bool(first and first.group().isupper())
        or NAME_SHAPED.search(plain) is not None
    )


# An obligation ("the binary must run on Windows") is read by the obligation rules.
_MODAL = rx.compile(
    r"\b(?:must|should|has\s+to|have\s+to|needs?\s+to|cannot|can\s+not|may\s+not|shall|"
    r"is\s+not\s+allowed|are\s+not\s+allowed)\b",
    I,
)


# "I use for every JS project": the object is missing, not "for every JS project".
_LEAD_PREP = rx.compile(r"^(?:for|to|with|in|on|at|by|from|about)\b", I)
_LETS = rx.compile(r"^(?:then\s+|so\s+|ok(?:ay)?\s+|right\s+)?let(?:'s|\s+us)\b", I)
# "Our tool runs on Rails, with Sidekiq for background jobs": a second tool, for a task.
_WITH_FOR = rx.compile(
    r",\s+(?:with|plus|and)\s+(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+(?:for|handling|doing)\s+"
)


# "We track bugs in Jira and chat in Slack": a second tool for a second task.
_AND_TASK = rx.compile(
    r"\s+and\s+(?:also\s+)?" + _TASK_VERBS + r"(?:s|es|ed|d|ing)?\s+(?:[\w'-]+\s+){0,3}?"
    r"(?:in|on|with|via|using|through)\s+(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)"
)


def read_tools(clause: str) -> list[Step] | None:
    steps = _read_tools(clause)
    for extra in (_WITH_FOR, _AND_TASK):
        match = extra.search(clause)
        if steps and match is not None:
            steps += [
                (make_fact("tech_preference", F, o, f"uses {o}"), [])
                for o in objects(match.group("x"))
            ]
    return steps


def _read_tools(clause: str) -> list[Step] | None:
    match = _THING_WILL_BE.search(clause)
    if match is not None:
        found = [o for o in objects(match.group("x")) if _named(o)]
        if found:
            return [(make_fact("decision", E, o, f"use {o}", exclusive=True), []) for o in found]
    if _MODAL.search(clause):
        return None
    body, replaced = _with_instead(clause)
    olds = objects(replaced)
    match = _OUR_THING.search(body)
    if match is not None:
        what = re.sub(
            r"^(?:both|all|each)\s+", "", re.sub(r"\s+", " ", match.group("what").lower())
        )
        # "The app is called Notion": what it is named, not what it uses.
        named_as = re.match(r"(?:called|named)\b", match.group("x"), I) is not None
        found = [] if named_as else [o for o in objects(match.group("x")) if _named(o)]
        if found:
            return [
                (
                    fact := make_fact("tech_preference", F, o, f"{what}: {o}"),
                    _retracting(olds, fact),
                )
                for o in found
            ]
    match = _LANGUAGES.search(body)
    if match is not None and own(body, match.start()):
        found = objects(match.group("x"))
        languages = [o for o in found if subject_of(restore(o)) == "programming_language"]
        if found and len(languages) * 2 > len(found) and all(_named(o) for o in found):
            return [(make_fact("tech_preference", F, o, f"uses {o}"), []) for o in found]
    for pattern in (
        _SETUP,
        *_USAGE,
        _PASSIVE,
        _THROUGH,
        THINGS_RUN,
        _DRIVER,
        _EVERYTHING,
        _ALL_X,
        _FOR_TASK,
    ):
        match = pattern.search(body)
        if match is None or not own(body, match.start()):
            continue
        found = [o for o in objects(match.group("x")) if not _idle(o) and not _LEAD_PREP.match(o)]
        verb = (match.groupdict().get("verb") or "").lower()
        if pattern is _USAGE[0] and re.match(r"(?:run|build|writ)\w*\s+\S", verb):
            # "I run Fedora on every machine": what is run, not where, may be the tool.
            found = [o for o in found if _named(o)]
            if not found:
                continue
        if pattern is not _USAGE[0]:
            # Named things only, though a list may hold a lower-case name ("dbt, BigQuery").
            named = [o for o in found if _named(o)]
            found = found if len(named) * 2 > len(found) else named
        if found:
            if re.search(r"\binstead\b", clause, I) or _LETS.match(clause):
                # "...with Appsmith instead": a choice replacing another, so a decision.
                return [
                    (
                        fact := make_fact("decision", E, o, f"use {o}", exclusive=True),
                        _retracting(olds, fact) + _implicit(clause, replaced, fact),
                    )
                    for o in found
                ]
            return [
                (
                    fact := make_fact("tech_preference", F, o, f"uses {o}"),
                    _retracting(olds, fact) + _implicit(clause, replaced, fact),
                )
                for o in found
            ]
    match = _THING_MOVING.search(body)
    if match is not None:
        found = [o for o in objects(match.group("x")) if _named(o)]
        if found:
            return [
                (make_fact("decision", E, o, f"move to {o}", exclusive=True), []) for o in found
            ]
    for pattern in (_IS_MY, _WHAT_I_USE, _WHERE_I, _A_SHOP, _TOOL_DOES, _ON_X, _HEAVY_USER, _RUN_X):
        match = pattern.search(body)
        if match is None or not own(body, match.start()):
            continue
        found = [o for o in objects(match.group("x")) if _named(o)]
        if pattern is _TOOL_DOES:
            # "Sarah handles our deploys" names a colleague: only tool-shaped names count.
            found = [
                o
                for o in found
                if is_known(restore(o)) or (o not in _TEAM_NAMES and TOOL_SHAPED.search(o))
            ]
        if found:
            return [(make_fact("tech_preference", F, o, f"uses {o}"), []) for o in found]
    return None
