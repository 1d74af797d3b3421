"""Decisions ("we'll use Django") and the tools in use ("our stack is React and Node.js").

A decision is exclusive on its subject (a later choice of backend framework retires
the earlier one) and "X instead of Y" retires Y; tools accumulate, one fact each.

The phrasings are tables (``usage_decision_rules``, ``usage_tool_rules``); this module
reads a clause with them.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import I, Step, make_fact, objects, own
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
    TOOL_SHAPED,
    is_known,
    known_term,
    subject_of,
)
from engram.adapters.extraction.text import restore
from engram.adapters.extraction.usage_decision_rules import (
    DECIDED_ANY,
    DECISIONS,
    IDLE_DECISIONS,
    INSTEAD,
    IT_IS,
    NAMING,
    PLAN,
    WILL_RUN,
)
from engram.adapters.extraction.usage_tool_rules import (
    A_SHOP,
    ALL_X,
    AND_TASK,
    CALENDAR,
    DRIVER,
    EVERYTHING,
    FOR_TASK,
    HEAVY_USER,
    IS_MY,
    LANGUAGES,
    LEAD_PREP,
    LETS,
    MODAL,
    ON_X,
    OUR_THING,
    PASSIVE,
    RUN_X,
    SETUP,
    TEAM_NAMES,
    THING_MOVING,
    THING_WILL_BE,
    THINGS_RUN,
    THROUGH,
    TOOL_DOES,
    USAGE,
    WHAT_I_USE,
    WHERE_I,
    WITH_FOR,
)
from engram.domain.models import MemoryType

__all__ = ["read_decision", "read_tools"]

F, E = MemoryType.FACTUAL, MemoryType.EPISODIC


def _with_instead(clause: str) -> tuple[str, str | None]:
    """The clause without a trailing "instead of X" / "rather than X", and X."""
    match = INSTEAD.search(clause)
    if match is None:
        return clause, None
    return clause[: match.start()] + clause[match.end() :], match.group("old")


def _retracting(olds: list[str], fact: object) -> list[Retraction]:
    return [Retraction(object_id(restore(o)), replaced_by=fact) for o in olds]  # type: ignore[arg-type]


def _idle(obj: str) -> bool:
    # Idle phrases are lower-case words ("a minute", "rest"); "REST" the API style is not.
    return obj[:1].islower() and (
        IDLE_OBJECTS.match(obj) is not None or IDLE_DECISIONS.match(obj) is not None
    )


def _implicit(clause: str, replaced: str | None, fact: ExtractedFact) -> list[Retraction]:
    """ "...instead" with nothing named: the fact it replaces is found when learning."""
    if replaced is None and re.search(r"\binstead\s*$", clause, I):
        return [Retraction("", (fact.category,), replaced_by=fact, implicit=True)]
    return []


def _naming(clause: str) -> list[Step] | None:
    for pattern in rx.able(NAMING, clause):
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
    for pattern in rx.able(DECISIONS, body):
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
    match = IT_IS.search(body)
    if match is not None:
        found = [o for o in objects(match.group("x")) if not SPOKEN_LANGUAGE.match(o)]
        if found:
            fact = make_fact("decision", E, found[0], f"go with {found[0]}", exclusive=True)
            return [(fact, _retracting(olds, fact))]
    match = WILL_RUN.search(body)
    if match is not None:
        what = (match.group("what") or "").strip()
        found = objects(match.group("x"))
        if found:
            return [(make_fact("decision", E, o, f"{what} runs on {o}".strip()), []) for o in found]
    match = PLAN.search(body)
    if match is not None and own(body, match.start()):
        phrase = clean_object(match.group("vp"))
        if phrase and not IDLE_DECISIONS.match(phrase):
            fact = make_fact("decision", E, phrase, phrase)
            return [(fact, _retracting(olds, fact))]
    match = DECIDED_ANY.search(body)
    if match is not None and own(body, match.start()):
        phrase = clean_object(match.group("vp"))
        if phrase and not IDLE_DECISIONS.match(phrase):
            fact = make_fact("decision", E, phrase, phrase)
            return [(fact, _retracting(olds, fact))]
    return None


def _named(obj: str) -> bool:
    plain = restore(obj)
    if CALENDAR.match(plain):
        return False
    first = re.search(r"[^\W_]", plain)  # ".NET MAUI" is named by its N
    return (
        is_known(plain)
        or known_term(plain) is not None
        or bool(first and first.group().isupper())
        or NAME_SHAPED.search(plain) is not None
    )


def read_tools(clause: str) -> list[Step] | None:
    steps = _read_tools(clause)
    for extra in (WITH_FOR, AND_TASK):
        match = extra.search(clause)
        if steps and match is not None:
            steps += [
                (make_fact("tech_preference", F, o, f"uses {o}"), [])
                for o in objects(match.group("x"))
            ]
    return steps


def _read_tools(clause: str) -> list[Step] | None:
    match = THING_WILL_BE.search(clause)
    if match is not None:
        found = [o for o in objects(match.group("x")) if _named(o)]
        if found:
            return [(make_fact("decision", E, o, f"use {o}", exclusive=True), []) for o in found]
    if MODAL.search(clause):
        return None
    body, replaced = _with_instead(clause)
    olds = objects(replaced)
    match = OUR_THING.search(body)
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
    match = LANGUAGES.search(body)
    if match is not None and own(body, match.start()):
        found = objects(match.group("x"))
        languages = [o for o in found if subject_of(restore(o)) == "programming_language"]
        if found and len(languages) * 2 > len(found) and all(_named(o) for o in found):
            return [(make_fact("tech_preference", F, o, f"uses {o}"), []) for o in found]
    for pattern in (
        SETUP,
        *USAGE,
        PASSIVE,
        THROUGH,
        THINGS_RUN,
        DRIVER,
        EVERYTHING,
        ALL_X,
        FOR_TASK,
    ):
        match = pattern.search(body)
        if match is None or not own(body, match.start()):
            continue
        found = [o for o in objects(match.group("x")) if not _idle(o) and not LEAD_PREP.match(o)]
        verb = (match.groupdict().get("verb") or "").lower()
        if pattern is USAGE[0] and re.match(r"(?:run|build|writ)\w*\s+\S", verb):
            # "I run Fedora on every machine": what is run, not where, may be the tool.
            found = [o for o in found if _named(o)]
            if not found:
                continue
        if pattern is not USAGE[0]:
            # Named things only, though a list may hold a lower-case name ("dbt, BigQuery").
            named = [o for o in found if _named(o)]
            found = found if len(named) * 2 > len(found) else named
        if found:
            if re.search(r"\binstead\b", clause, I) or LETS.match(clause):
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
    match = THING_MOVING.search(body)
    if match is not None:
        found = [o for o in objects(match.group("x")) if _named(o)]
        if found:
            return [
                (make_fact("decision", E, o, f"move to {o}", exclusive=True), []) for o in found
            ]
    for pattern in (IS_MY, WHAT_I_USE, WHERE_I, A_SHOP, TOOL_DOES, ON_X, HEAVY_USER, RUN_X):
        match = pattern.search(body)
        if match is None or not own(body, match.start()):
            continue
        found = [o for o in objects(match.group("x")) if _named(o)]
        if pattern is TOOL_DOES:
            # "Sarah handles our deploys" names a colleague: only tool-shaped names count.
            found = [
                o
                for o in found
                if is_known(restore(o)) or (o not in TEAM_NAMES and TOOL_SHAPED.search(o))
            ]
        if found:
            return [(make_fact("tech_preference", F, o, f"uses {o}"), []) for o in found]
    return None
