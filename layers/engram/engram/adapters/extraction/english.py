"""English statements: the families of rules, from the most specific to the most general.

A switch names what it replaces, so it is read before a plain statement of use; who
the user is and how answers should be come before preferences ("I'd like you to be
brief" is an instruction, not a liking); a frequency makes a habit of anything ("we
usually deploy on Tuesdays"), so habits come before decisions and tools; obligations
come last, since "we need to" and "must" also introduce other facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engram.adapters.extraction.common import Step
from engram.adapters.extraction.habits import read_habit
from engram.adapters.extraction.identity import read_identity
from engram.adapters.extraction.instructions import read_instruction
from engram.adapters.extraction.life import read_life
from engram.adapters.extraction.obligations import read_constraint, read_requirement
from engram.adapters.extraction.preferences import read_preference
from engram.adapters.extraction.quality import acceptable, tidy
from engram.adapters.extraction.switches import read_switch
from engram.adapters.extraction.usage import read_decision, read_tools

__all__ = ["read_clause"]

_FAMILIES: tuple[Callable[[str], list[Step] | None], ...] = (
    read_switch,
    read_identity,
    read_instruction,
    read_preference,
    read_habit,
    read_decision,
    read_tools,
    read_constraint,
    read_requirement,
    # What people say about their own lives, last: the families above read the technical
    # statements that also start "I" or "we" more precisely.
    read_life,
)


_HABITUAL = re.compile(
    r"^(?:I|we)\s+(?:usually|generally|typically|normally|always|never|often|rarely|seldom)\s",
    re.IGNORECASE,
)


def read_clause(clause: str) -> list[Step]:
    """The statements of one clause: the first family that reads it decides, with what
    survives the last look (``quality``); a family whose every fact is turned away lets
    the next one read the clause."""
    families = _FAMILIES
    if _HABITUAL.match(clause):
        # "I generally avoid ORMs": a frequency makes a habit before anything else.
        families = (read_habit, *(f for f in _FAMILIES if f is not read_habit))
    for family in families:
        steps = [
            (fact if fact is None or acceptable(fact, clause) else None, retractions)
            for fact, retractions in (
                (tidy(fact) if fact is not None else None, retractions)
                for fact, retractions in family(clause) or ()
            )
        ]
        steps = [(fact, retractions) for fact, retractions in steps if fact or retractions]
        if steps:
            return steps
    return []
