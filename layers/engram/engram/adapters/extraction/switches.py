"""Changes of mind: switches, replacements and withdrawals retire what they name."""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import WHO, XL, I, Step, activity, make_fact, objects, own
from engram.adapters.extraction.facts import USAGE, Retraction, clean_object, object_id
from engram.adapters.extraction.lexicon import SPOKEN_LANGUAGE, THINGS, known_term
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_switch"]

F, E = MemoryType.FACTUAL, MemoryType.EPISODIC
_AUX = (
    r"(?:\s+have|\s+are|\s+am|\s+had|\s+will|\s+just|\s+recently|\s+finally|\s+already|"
    r"\s+now|\s+officially|\s+completely|\s+fully|\s+(?:have\s+)?decided\s+to|"
    r"\s+are\s+going\s+to|\s+am\s+going\s+to|\s+plan\s+to|\s+want\s+to|\s+need\s+to|"
    r"\s+eventually|\s+also|\s+since)*"
)
_SWITCH = rx.compile(
    WHO + _AUX + r"\s+(?P<verb>switch(?:ed|ing|es)?|mov(?:ed|ing|es|e)|migrat(?:ed|ing|es|e)|"
    r"chang(?:ed|ing|es|e)|transition(?:ed|ing|s)?|convert(?:ed|ing|s)?|port(?:ed|ing|s)?|"
    r"gone\s+over|went\s+over|go(?:ing)?\s+over|upgraded|upgrading|jumped|jumping)\s+"
    r"(?P<thing>(?:our|my|the|everything|all|it|this|that)\b[^,;:!?\n]{0,40}?\s+|[\w/.\-]+\s+){0,1}"
    r"(?:(?:from|off(?:\s+of)?)\s+(?P<old>[^,;:!?\n]+?)\s+(?:and\s+)?)?(?:over\s+)?(?:to|onto|into)\s+"
    r"(?P<new>[^,;:!?\n]+)",
    I,
)
# "We moved the marketing site from Webflow to Framer": a move of software, not of home.
_SOFTWARE = rx.compile(r"\b" + THINGS + r"\b", I)
_BACK = rx.compile(
    WHO + _AUX + r"\s+(?:going|go|went|gone|switch(?:ed|ing)?|revert(?:ed|ing)?|return(?:ed|ing)?|"
    r"mov(?:ed|ing|e)|fall(?:ing)?|fell|come|coming|came|(?P<state>am|are))\s+back\s+to\s+"
    r"(?P<new>[^,;:!?\n]+)",
    I,
)
_AWAY = rx.compile(
    WHO + r"(?:\s+are|\s+have|\s+am)?\s+(?:been\s+)?(?:moving|moved|migrating|migrated|getting|"
    r"got|phasing|phased|shifting|shifted|walking)\s+(?:away\s+from|rid\s+of|out|off)\s+"
    r"(?P<old>[^,;:!?\n]+?)(?:\s+(?:to|for|in\s+favou?r\s+of)\s+(?P<new>[^,;:!?\n]+))?$",
    I,
)
_REPLACE = rx.compile(
    WHO + r"(?:\s+have|\s+are|\s+will|\s+just)*\s+(?:replaced|replacing|replace|swapped|"
    r"swapping|swap|traded|exchanged)\s+(?:out\s+)?(?P<old>[^,;:!?\n]+?)\s+"
    r"(?:with|for|by)\s+(?P<new>[^,;:!?\n]+)",
    I,
)
_HAS_REPLACED = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<new>[A-Z][^,;:!?\n]*?)\s+(?:has|have)\s+(?:now\s+)?replaced\s+"
    r"(?P<old>[^,;:!?\n]+?)(?:\s+(?:as|for|in)\s+[^,;:!?\n]+)?$",
)
_GONE = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<x>[^,;:!?\n]+?)\s+(?:is|are|has\s+been|have\s+been|got|was|were)\s+"
    r"(?:got\s+|was\s+|were\s+)?(?:gone|out|dead|history|deprecated|retired|removed|dropped|ripped\s+out|"
    r"phased\s+out|decommissioned|killed|sunset|"
    r"no\s+longer\s+(?:used|in\s+use|part\s+of\s+\w+(?:\s+\w+)?))"
    r"(?:\s+(?:from|in|of)\s+[^,;:!?\n]+)?(?=\s*(?:,|$))",
    I,
)
_REPLACED_BY = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<old>[^,;:!?\n]+?)\s+(?:has\s+been|have\s+been|was|were|is|"
    r"are|got|is\s+being|are\s+being)\s+replaced\s+(?:by|with)\s+(?P<new>[^,;:!?\n]+)",
    I,
)
_WITHDRAW = rx.compile(
    WHO + r"(?:\s+am|\s+are|\s+do|\s+does|\s+have|\s+has|\s+had|\s+just)?\s+"
    r"(?P<neg>no\s+longer|not|stopped|quit|gave\s+up|never)\s+(?:really\s+|even\s+)?"
    r"(?:(?:deploy|run|host|put|build)\s+(?:anything|everything|stuff|things)\s+(?:to|on|in|with)|"
    r"use|uses|using|used|touched|touch|opened|work\s+with|working\s+with|code\s+in|coding\s+in|"
    r"program\s+in|programming\s+in|write|writing|rely\s+on|relying\s+on|deploy\s+(?:to|on)|"
    r"deploying\s+(?:to|on)|host\s+(?:on|with)|hosting\s+(?:on|with)|develop\s+(?:in|with)|"
    r"developing\s+(?:in|with)|build\s+(?:with|on)|building\s+(?:with|on)|run|running|"
    r"touching)\s+" + XL,
    I,
)
_DROPPED = rx.compile(
    # "dropped off the cakes", "dropped by": a particle makes it another verb
    WHO + r"(?:\s+have|\s+has|\s+just|\s+finally)*\s+(?:dropped(?!\s+(?:off|by|in|out)\b)|"
    r"ditched|abandoned|quit|"
    r"gave\s+up(?:\s+on)?|"
    r"retired|deprecated|sunset|sunsetted|removed|got\s+rid\s+of|stopped\s+using|"
    r"uninstalled|deleted|killed|decommissioned|turned\s+off)\s+" + XL,
    I,
)
# "Not Sublime anymore", "no more Windows for me".
_NOT_ANYMORE = rx.compile(
    r"^(?:not|no\s+more)\s+(?P<x>[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)\s*(?:(?:any\s*more|any\s+longer)|"
    r"for\s+(?:me|us))\b",
    I,
)
# "We ripped Prisma out": the particle after the tool.
_RIPPED_OUT = rx.compile(
    WHO + r"(?:\s+have|\s+just|\s+finally)*\s+(?:ripped|pulled|tore|torn|yanked|phased|swapped)\s+"
    r"(?P<x>[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)\s+out\b",
    I,
)
_WEEKDAY = rx.compile(
    r"^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekends?|weekdays?)s?\b", I
)
_QUIT_HABIT = rx.compile(
    WHO + r"(?:\s+have|\s+just|\s+finally)*\s+(?:quit|gave\s+up|given\s+up)\s+"
    r"(?!using\b|with\b|on\b|my\s+job\b|the\s+job\b|work\b|school\b|trying\b|halfway\b|after\b|"
    r"before\b|early\b|there\b|that\b|this\b|it\b)(?P<x>[a-z][^,;:!?\n]*)",
    I,
)
_NOT_TOOLS = rx.compile(
    r"^(?:my|our|the)\s+(?:job|career|position|role|team|company|studies|course|degree)\b", I
)


def _consumed(obj: str) -> bool:
    """Whether ``obj`` is something had rather than used: a drink, a food, a habit."""
    known = known_term(restore(obj))
    return (known is not None and known[0] == "drink") or not known_or_named(obj)


_LAPSED = rx.compile(r"\b(?:any\s*more|any\s+longer|these\s+days|now|since)\b", I)
_DONE_WITH = rx.compile(
    r"\bI\s+am\s+(?:so\s+|totally\s+|completely\s+)?(?:done|finished|through)\s+with\s+" + XL, I
)
_SCRAP = rx.compile(
    r"^(?:please\s+)?(?:scrap|ditch|drop|forget|cancel|nix|kill|bin|skip)\s+(?:the\s+)?"
    r"(?P<x>[A-Z][^,;:!?\n]*?)(?:\s+(?:idea|plan|option))?$"
)
_CHANGED_MIND = rx.compile(
    r"\b(?:I|we)\s+(?:have\s+)?(?:changed\s+(?:my|our)\s+minds?|reconsidered|rethought|"
    r"changed\s+course)\s+(?:about|on|regarding)\s+" + XL,
    I,
)
_FORGET_ABOUT = rx.compile(
    r"^(?:please\s+)?(?:forget|disregard|ignore)\s+(?:what\s+I\s+said\s+about|"
    r"(?:everything\s+)?(?:about|the\s+part\s+about))\s+" + XL,
    I,
)


_VERB_BASE = (("migrat", "migrate"), ("mov", "move"), ("chang", "change"), ("jump", "jump"))


def _base(verb: str) -> str:
    """The verb of a switch as a decision says it: "migrate", "move", else "switch"."""
    return next((base for stem, base in _VERB_BASE if verb.startswith(stem)), "switch")


def _switch_steps(
    old_raw: str | None, new_raw: str | None, *, decided: bool, verb: str = ""
) -> list[Step]:
    new = clean_object(new_raw) if new_raw else ""
    olds = objects(old_raw)
    fact = None
    if new:
        if decided:
            fact = make_fact("decision", E, new, f"{_base(verb)} to {new}", exclusive=True)
        elif re.match(r"^\w+ing\b", new) and known_term(restore(new)) is None:
            # "I switched to running in the evenings": a habit replacing the same activity.
            fact = make_fact("pattern", F, new, new, about=activity(new))
            return [(fact, [Retraction(fact.object, ("pattern",), replaced_by=fact)])]
        else:
            # A switch is a decision, made on a day: what is in use now, dated.
            fact = make_fact("decision", E, new, f"uses {new}")
    retractions = [
        Retraction(object_id(restore(o)), (*USAGE, "pattern"), replaced_by=fact) for o in olds
    ]
    if fact is not None and not olds and fact.subject:
        # "We switched to React": whatever front-end framework was in use is not now.
        retractions.append(Retraction(fact.subject, replaced_by=fact, keep=fact.object))
    if fact is None and not retractions:
        return []
    return [(fact, retractions)]


def known_or_named(raw: str) -> bool:
    plain = restore(raw).strip()
    return known_term(plain) is not None or plain[:1].isupper()


def _no_longer(raw: str, verb: str = "no longer uses") -> list[Step]:
    steps: list[Step] = []
    for obj in objects(raw):
        if _NOT_TOOLS.match(obj) or (re.match(r"^[a-z]+ing\b", obj) and known_term(obj) is None):
            continue  # "I quit my job", "I gave up trying to fix it": no tool left
        fact = make_fact("tech_preference", F, obj, f"{verb} {obj}", negative=True)
        steps.append((fact, [Retraction(fact.object, USAGE, replaced_by=fact)]))
    return steps


def read_switch(clause: str) -> list[Step] | None:
    for pattern in (_SWITCH, _REPLACE, _REPLACED_BY, _HAS_REPLACED):
        match = pattern.search(clause)
        if match is None or not own(clause, match.start()):
            continue
        verb = (match.groupdict().get("verb") or "").lower()
        old = match.group("old")
        new = restore(match.group("new"))
        if (
            verb.startswith(("mov", "chang", "jump"))
            and known_term(new) is None
            and (old is None or known_term(restore(old)) is None)
            and not (old is not None and _SOFTWARE.search(match.group("thing") or ""))
        ) or _WEEKDAY.match(new):
            return None  # "I moved to Berlin", "moved my blog from Tuesday to Friday": not tools
        future = bool(re.search(r"\bwill\b|going\s+to|plan\s+to|decided", match.group(0), I))
        return _switch_steps(old, match.group("new"), decided=future, verb=verb) or None
    match = _BACK.search(clause)
    if match is not None and own(clause, match.start()):
        # "We're going back to AWS after all": the earlier choice again, replacing the latest.
        new = clean_object(match.group("new"))
        if match.group("state") and known_term(re.sub(r"^\w+\s+", "", new) or new) is None:
            new = ""  # "I'm back to normal", "we're back to London next week"
        if SPOKEN_LANGUAGE.match(new):
            new = ""  # "switch back to English": how to answer, an instruction
        if new:
            fact = make_fact("decision", E, new, f"go back to {new}", exclusive=True)
            return [(fact, [])]
    match = _AWAY.search(clause)
    if match is not None and own(clause, match.start()):
        if match.group("new") is None:
            return _no_longer(match.group("old")) or None  # "We moved off CircleCI"
        return _switch_steps(match.group("old"), match.group("new"), decided=False) or None
    match = _GONE.search(clause)
    if match is not None and known_or_named(match.group("x")):
        return _no_longer(match.group("x")) or None
    match = _RIPPED_OUT.search(clause)
    if match is not None and own(clause, match.start()):
        return _no_longer(match.group("x")) or None
    match = _QUIT_HABIT.search(clause)
    if match is not None and own(clause, match.start()):
        found = [o for o in objects(match.group("x")) if _consumed(o)]
        if found:
            # "I quit coffee", "I gave up smoking": a habit or liking given up, not a tool.
            steps: list[Step] = []
            for o in found:
                fact = make_fact("preference", F, o, f"gave up {o}", negative=True)
                # "I quit drinking coffee after 3pm" ends no liking of coffee.
                partial = re.search(r"\b(?:after|before|during|at|on|in|when|while)\b", o, I)
                ended = (
                    [] if partial else [Retraction(fact.object, ("preference",), replaced_by=fact)]
                )
                steps.append((fact, ended))
            return steps
    for pattern in (_WITHDRAW, _DROPPED):
        match = pattern.search(clause)
        if match is not None and own(clause, match.start()):
            neg = (match.groupdict().get("neg") or "").lower()
            verb = "no longer uses"
            if neg == "never":
                verb = "never uses"
            elif neg == "not" and not _LAPSED.search(clause):
                verb = "does not use"
            return _no_longer(match.group("x"), verb) or None
    match = _NOT_ANYMORE.search(clause)
    if match is not None and known_term(restore(match.group("x"))) is not None:
        return _no_longer(match.group("x")) or None
    match = _DONE_WITH.search(clause)
    if match is not None and known_term(restore(match.group("x"))) is not None:
        return _no_longer(match.group("x")) or None
    for pattern in (_CHANGED_MIND, _FORGET_ABOUT, _SCRAP):
        match = pattern.search(clause)
        if match is not None:
            retractions = [
                Retraction(object_id(restore(o)), (*USAGE, "preference", "pattern"))
                for o in objects(match.group("x"))
            ]
            return [(None, retractions)] if retractions else None
    return None
