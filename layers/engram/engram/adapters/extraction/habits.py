"""Habits: what the user (or their team) does always, never, or on a schedule.

Keyed by the activity without its frequency, so "I always commit directly to main"
replaces "I never commit directly to main".
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import WHO, XL, I, Step, X, activity, make_fact, own
from engram.adapters.extraction.facts import Retraction, clean_object, trim_clause
from engram.adapters.extraction.lexicon import PEOPLE
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_habit"]

F = MemoryType.FACTUAL
_FREQUENCY = (
    r"always|usually|typically|generally|normally|never|rarely|seldom|often|frequently|"
    r"regularly|sometimes|occasionally|tend\s+to|habitually|constantly|religiously|"
    r"almost\s+always|almost\s+never|hardly\s+ever"
)
_WHEN = (
    r"morning|day|night|evening|afternoon|week|weekend|month|year|quarter|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|time|sprint|release|standup|"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+(?:morning|evening|night|"
    r"afternoon)"
)
_TRAILING = (
    r"(?P<when>(?:every|each)\s+(?:other\s+|second\s+|third\s+|2nd\s+|3rd\s+)?(?:" + _WHEN + r")|"
    r"(?:late\s+)?at\s+night|(?:early\s+)?in\s+the\s+(?:mornings?|evenings?|afternoons?)|"
    r"on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\s+(?:mornings|afternoons|"
    r"evenings|nights)|(?:once|twice|\w+\s+times)\s+a\s+"
    r"(?:day|week|month|year)|daily|weekly|nightly|monthly|on\s+(?:weekends|weekdays|mondays|"
    r"tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|(?:first|last)\s+thing\s+in\s+"
    r"the\s+(?:morning|day)|before\s+(?:bed|work|breakfast|lunch|dinner)|after\s+(?:work|"
    r"dinner|lunch)|(?:right\s+|straight\s+)?(?:after|before|when)\s+I\s+(?:wake\s+up|get\s+up|"
    r"go\s+to\s+bed|get\s+home|finish\s+work|get\s+to\s+work))"
)
_TIME = (
    r"(?P<when>(?:(?:at|by|around|before|after|until|till|from)\s+(?:about\s+|roughly\s+)?"
    r"(?:\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d\d|noon|midnight|dawn|sunrise|"
    r"sunset)|between\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)?\s+and\s+\d{1,2}(?::\d\d)?)\b.*)"
)
# Whose habit: the user's, their team's, or something of theirs ("my shifts normally end...").
_WHOSE = (
    r"(?:" + WHO + r"|^[A-Z]?[a-z]+ing\b|\b(?:my|our)\s+(?!" + PEOPLE + r"\b)[\w-]+(?:\s+[\w-]+)?)"
)
_MOVED_TO = rx.compile(
    WHO + r"(?:\s+have|\s+just)?\s+(?:moved|shifted|changed|switched|rescheduled|pushed)\s+"
    r"(?:my|our|the)\s+(?P<x>[\w\s-]{1,30}?)\s+to\s+(?P<when>(?:(?:monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)s?|weekends?|weekdays?|mornings?|evenings?|nights?|"
    r"afternoons?|lunchtime|\d{1,2}(?::\d\d)?\s*(?:am|pm))[^,;:!?\n]*)",
    I,
)
_WORKFLOW = rx.compile(
    r"^(?:my|our)\s+(?:usual\s+|daily\s+|normal\s+|whole\s+)?(?:workflow|work\s+flow|routine|"
    r"process)\s+(?:involves|includes|is|consists\s+of|starts\s+with)\s+" + XL,
    I,
)
_RULES = [
    rx.compile(_WHOSE + r"\s+(?:also\s+|still\s+)?(?P<adv>" + _FREQUENCY + r")\s+" + X, I),
    rx.compile(
        WHO + r"\s+(?:usually\s+|normally\s+|always\s+)?(?P<x>(?!am\b|are\b|was\b|were\b|will\b|"
        r"would\b|have\b|had\b|need\b|want\b|like\b|love\b|hate\b|prefer\b)[a-z][\w\s'-]*?)\s+"
        + _TIME
        + r"$",
        I,
    ),
    rx.compile(
        r"^(?P<lead>(?:(?:first|last)\s+thing\s+)?(?:every|each|most|some|many)\s+(?:other\s+)?(?:"
        + _WHEN
        + r")s?(?:\s+(?:before\s+bed|after\s+work|after\s+dinner|after\s+lunch|"
        r"before\s+work))?|(?:once|twice|\w+\s+times)\s+a\s+(?:day|week|month|year)|on\s+the\s+(?:first|last|"
        r"\d{1,2}(?:st|nd|rd|th))\s+(?:day\s+)?of\s+(?:every|each|the)\s+month|(?:weekends|weekdays|"
        r"mornings|evenings|nights)|on\s+(?:weekends|weekdays|"
        r"mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays))\s*,?\s+"
        r"(?:(?i:I|we|our\s+team|the\s+team|my\s+team)\s+)(?:usually\s+|often\s+|always\s+)?" + X,
        I,
    ),
    rx.compile(
        WHO + r"\s+(?P<x>(?!am\b|are\b|will\b|would\b|have\b|had\b|need\b|want\b|like\b|love\b|"
        r"hate\b)[^,;:!?\n]+?)\s+" + _TRAILING + r"(?:\s+[^,;:!?\n]*)?(?=\s*(?:,|$))",
        I,
    ),
    rx.compile(r"\bI\s+am\s+in\s+the\s+habit\s+of\s+" + X, I),
    rx.compile(r"\bI\s+make\s+(?:a\s+point\s+of|it\s+a\s+rule\s+to)\s+" + X, I),
]
_IDLE_HABITS = rx.compile(
    r"^(?!am\s+(?:(?:usually|often|always|normally)\s+)?(?:up|online|in\s+the\s+office|at\s+my\s+desk|"
    r"at\s+the\s+[\w-]+(?:\s+gym|\s+pool|\s+club|\s+office|\s+library)?|in\s+bed|asleep|awake|out)\b)(?:forget|forgot|know|knew|thought|think|say|said|wanted|want|wonder|wondered|feel|felt|"
    r"mean|meant|get\s+confused|mix\s+up|manage|managed|tell|told|ask|asked|liked?|loved?|"
    r"hated?|get\s+(?:lost|tired|bored)|end\s+up|wish|hope|worry|worried|assume[d]?|reach\s+for|"
    r"only\s+have|only\s+get|cannot|can\s+not|must\s+not|may\s+not|should\s+not|are\s+not\s+allowed|"
    r"believed?|imagined?|dreamed|dreamt|enjoy(?:ed)?|found|appreciate|am|was|were|have|had|"
    r"do\s+not\s+know|love\s+it|hate\s+it)\b",
    I,
)


# Fixed events of the user's week: "Standup is at 9:30 every weekday", "Release day is
# Wednesday", and when they move: "Standup moved to 10:15 starting this week".
_EVENT = (
    r"^(?P<have>(?:we|I)\s+(?:have|hold|do)\s+)?(?:the\s+|our\s+|my\s+|a\s+)?(?P<x>(?:[\w-]+\s+){0,2}?(?:standup|stand-up|retro|retrospective|"
    r"sync|meeting|class|classes|practice|training|lesson|lessons|release\s+day|deploy\s+day|"
    r"sprint\s+review|review|"
    r"planning|demo\s+day|one-on-one|1:1|check-in|shift|shifts|rehearsal|appointment))"
)
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend)s?\b"
_CLOCK = r"(?:\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)?|noon|midnight)"
# The rest of the clause, where a clock time's colon does not end it ("9:30").
_REST = r"(?:[^,;:!?\n]|(?<=\d):(?=\d\d))*"
_EVENT_AT = rx.compile(
    _EVENT + r"(?:\s+(?:is|are|happens|happen|starts|start|runs|run)|(?<=\w)(?=\s+at\s+\d))"
    r"\s+(?:always\s+|usually\s+)?"
    r"(?P<when>(?:at\s+"
    + _CLOCK
    + r"|on\s+"
    + _DAY
    + r"|(?:every|each)\s+\w+|"
    + _DAY
    + r")"
    + _REST
    + r")",
    I,
)
_EVENT_MOVED = rx.compile(
    _EVENT + r"\s+(?:has\s+|have\s+|got\s+|is\s+|was\s+)?(?:moved|shifted|changed|moving|"
    r"rescheduled|pushed)\s+(?:back\s+)?(?:to|until)\s+(?P<when>(?:"
    + _CLOCK
    + r"|"
    + _DAY
    + r"|(?:the\s+)?(?:morning|afternoon|evening)s?)"
    + _REST
    + r")",
    I,
)
# "Deploys are on Thursdays now": something done on a day.
_ON_DAY = rx.compile(
    r"^(?:our\s+|my\s+|the\s+)?(?P<x>(?-i:[A-Z]?[a-z]+ing)|(?:[\w-]+\s+)?(?:deploys|deployments|releases|newsletters?|standups?|"
    r"meetings|reviews|retros|syncs|demos|backups|lessons|classes|practices|trainings|runs|swims|"
    r"workouts|shifts|office\s+hours))\s+(?:is|are)\s+(?:now\s+)?(?:on\s+)?"
    r"(?P<when>(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s)(?P<now>\s+now)?"
    r"(?=\s*(?:$|,))",
    I,
)
# "Mornings are for deep work now": what a time of the week is kept for.
_KEPT_FOR = rx.compile(
    r"^(?:my\s+|our\s+)?(?P<when>mornings|afternoons|evenings|nights|weekends|weekdays|lunchtimes|"
    r"mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\s+(?:are|is)\s+(?:now\s+)?"
    r"(?:for|reserved\s+for|kept\s+for|set\s+aside\s+for|blocked\s+(?:off\s+)?for)\s+(?P<x>[^,;:!?\n]+)",
    I,
)
# Events that recur by their nature; others recur only when the time says so ("every
# Tuesday", "on Fridays", "each morning"), and a date or "today" makes them one-offs.
_RECURRING_EVENT = rx.compile(
    r"\b(?:standup|stand-up|retro|retrospective|sync|release\s+day|deploy\s+day|one-on-one|1:1|"
    r"check-in|planning|shifts)\b",
    I,
)
_RECURRENCE = rx.compile(
    r"\b(?:every|each|daily|weekly|monthly|weekdays?|weekends?|(?:monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)s|mornings|evenings|afternoons|nights)\b",
    I,
)
_ONE_OFF_TIME = rx.compile(
    r"\b(?:today|tomorrow|tonight|yesterday|this\s+(?:week|morning|afternoon|evening|time)|"
    r"next\s+(?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"imagine|suppose)\b",
    I,
)


def _once(clause: str) -> bool:
    """Whether a time in ``clause`` makes it a one-off ("starting this week" does not)."""
    rest = re.sub(r"\b(?:starting|from|as\s+of|beginning)\s+this\s+week\b", "", clause, flags=I)
    return _ONE_OFF_TIME.search(rest) is not None


# A time of day alone tells of once ("I called my mom in the morning", "I can call you
# in the morning") unless the verb is in the present and nothing makes it a one-off.
_DAYPART = rx.compile(
    r"^(?:(?:late|early)\s+)?(?:at\s+night|in\s+the\s+(?:morning|evening|afternoon)s?)|"
    r"^(?:right\s+|straight\s+)?(?:after|before|when)\s+I\b",
    I,
)
_PAST_OR_MODAL = rx.compile(
    r"^(?:\w+ed|went|got|woke|ate|saw|did|had|made|took|came|ran|wrote|read|met|left|felt|"
    r"thought|found|gave|told|sent|spent|bought|brought|caught|slept|swam|drove|rode|flew|"
    r"can|could|will|would|might|may|should|am\s+going\s+to)\b",
    I,
)
# "... so I swim on Tuesdays at 8 pm now": a habit restated as changed.
_NOW = rx.compile(r"\s+(?:now|these\s+days|nowadays|from\s+now\s+on)$", I)


def _event(clause: str) -> list[Step] | None:
    match = _ON_DAY.search(clause)
    if match is not None:
        what = clean_object(match.group("x"))
        if what and what.lower() not in ("i", "we", "it", "they", "you"):
            when = restore(match.group("when"))
            fact = make_fact("pattern", F, what, f"{what} on {when}", about=activity(what))
            ended = [Retraction(fact.object, ("pattern",), replaced_by=fact, words=what)]
            return [(fact, ended if match.group("now") else [])]
    match = _KEPT_FOR.search(clause)
    if match is not None:
        what = clean_object(_NOW.sub("", match.group("x")))
        if what:
            when = match.group("when").lower()
            fact = make_fact("pattern", F, what, f"{when} for {what}", about=activity(what))
            return [(fact, [])]
    for pattern in (_EVENT_MOVED, _EVENT_AT):
        match = pattern.search(clause)
        if match is None:
            continue
        what = clean_object(match.group("x"))
        when = restore(match.group("when")).strip()
        if not what:
            return None
        if _once(clause) or not (_RECURRING_EVENT.search(what) or _RECURRENCE.search(when)):
            return None  # "my appointment is at 10am", "the meeting is at 3 today": once
        if re.match(r"\d|noon\b|midnight\b", when, I):
            when = f"at {when}"
        elif re.match(_DAY, when, I):
            when = f"on {when}"
        fact = make_fact("pattern", F, what, f"{what} {when}".strip(), about=activity(what))
        moved = pattern is _EVENT_MOVED or _NOW.search(clause) is not None
        return [
            (
                fact,
                [Retraction(fact.object, ("pattern",), replaced_by=fact, words=what)]
                if moved
                else [],
            )
        ]
    return None


def read_habit(clause: str) -> list[Step] | None:
    found = _event(clause)
    if found is not None:
        return found
    match = _MOVED_TO.search(clause)
    if match is not None and own(clause, match.start()):
        # "I've moved my swims to Wednesday evenings": the same activity, a new time.
        what = clean_object(re.sub(r"\s+from\s+\w+$", "", match.group("x")))
        when = restore(match.group("when")).strip()
        if what:
            fact = make_fact("pattern", F, what, f"{what} on {when}", about=activity(what))
            return [(fact, [Retraction(fact.object, ("pattern",), replaced_by=fact, words=what)])]
    match = _WORKFLOW.search(clause)
    if match is not None:
        # "My workflow involves writing failing tests first": how the user works.
        steps = trim_clause(restore(match.group("x")))
        if steps:
            return [(make_fact("pattern", F, steps, f"workflow: {steps}"), [])]
    for pattern in rx.able(_RULES, clause):
        match = pattern.search(clause)
        if match is None or not own(clause, match.start()):
            continue
        obj = clean_object(match.group("x"))
        if not obj or _IDLE_HABITS.match(obj):
            return None
        obj = re.sub(r"^am\s+", "", obj)  # "weekends I'm usually at the climbing gym"
        groups = match.groupdict()
        adverb = re.sub(r"\s+", " ", (groups.get("adv") or "").lower())
        lead = re.sub(r"\s+", " ", (groups.get("lead") or "").lower())
        when = restore(re.sub(r"\s+", " ", (groups.get("when") or "")))
        daypart = when and not adverb and not lead and _DAYPART.match(when)
        if daypart and (_PAST_OR_MODAL.match(obj) or _once(clause)):
            return None
        content = f"{obj} {when}" if when else f"{adverb or lead} {obj}".strip()
        negative = adverb in ("never", "rarely", "seldom", "almost never", "hardly ever")
        gerund = re.match(r"^([A-Z]?[a-z]+ing)\s", clause)
        # not "Growing up, I rode horses every day": a time, then the user
        told = re.search(r",|\b(?:I|we)\b", clause[: match.start()]) is not None
        if gerund and not told and not re.match(r"(?i)^(?:I|we)\b", clause):
            obj = f"{gerund.group(1).lower()} {obj}"  # "Marking usually eats my whole Sunday"
            content = f"{gerund.group(1)} {content}"
        changed = _NOW.search(content) is not None
        content = _NOW.sub("", content)
        fact = make_fact("pattern", F, obj, content, negative=negative, about=activity(obj))
        if re.search(r"\binstead\s*$", clause, I) is not None:
            return [(fact, [Retraction("", ("pattern",), replaced_by=fact, implicit=True)])]
        if changed:
            # The same activity on a new schedule replaces the old one.
            return [(fact, [Retraction(fact.object, ("pattern",), replaced_by=fact)])]
        return [(fact, [])]
    return None
