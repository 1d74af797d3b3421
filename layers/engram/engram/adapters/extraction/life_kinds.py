"""What kind of fact a statement of the life grammar makes: family or pet by who it is
about, home, work, learning, health or possession by its verb and nouns, otherwise by its
aspect (a plan, an event, an activity under way, a habit); and which kinds a person has
one of at a time (where they live, their job).

Kept apart from ``life_statement``, which reads the statement: the kind follows from the
words alone, by the topics of ``data/en.json``, whatever the shape of the sentence.
"""

from __future__ import annotations

from engram.adapters.extraction.tables import Tables

__all__ = ["category_of", "exclusive_of"]


def category_of(
    verb: str, lows: list[str], relation: str | None, aspect: str, goal: bool, t: Tables
) -> str:
    if relation is not None:
        first = relation.split()[0].lower()
        return "pet" if first in t.pets else "family"
    if goal:
        return "goal"
    words = set(lows)
    # A particle right after the verb, before a function word, is part of the verb, not a
    # noun: "got back from Japan" is a trip, "got back pain" is not.
    particle = len(lows) > 1 and lows[0] in t.particles and lows[1] in t.function_words
    named = set(lows[1:]) if particle else words
    # "helped renovate a center back home": "back" names the body only when it is someone's
    # ("my back", "a bad back") or hurts ("back pain"); "the back wall", "my back garden"
    # are places
    owners, hurts = t.closed["body_owners"], t.closed["body_hurts"]
    named = named - {
        w
        for k, w in enumerate(lows)
        if w in t.body_words_also_adverbs
        and not (
            k and lows[k - 1] in owners and (k + 1 == len(lows) or lows[k + 1] in t.function_words)
        )
        and not (k + 1 < len(lows) and lows[k + 1] in hurts)
    }
    if verb in ("have", "has", "had", "got", "adopted", "rescued", "fostered") and words & t.pets:
        return "pet"
    if verb in ("have", "has") and words & t.family:
        return "family"
    if verb in ("have", "has", "own", "owns") and words & t.topics["possession"][1]:
        return "possession"
    for topic in ("home", "work", "learning", "health", "possession"):
        verbs, nouns = t.topics[topic]
        if topic == "possession":
            if verb in verbs and words & nouns:
                return topic
            continue
        if topic == "work" and verb in t.ambiguous_work and words & nouns:
            return topic  # "running my own studio", not "running longer"
        if verb in verbs or (named & nouns and topic != "home"):
            if topic == "home" and not words & ({"to", "in", "from", "into", "out"} | nouns):
                continue
            return topic
    if aspect == "plan":
        return "plan"
    if aspect == "past":
        return "event"
    if aspect == "ongoing":
        return "activity"
    return "pattern"


def exclusive_of(category: str, verb: str, lows: list[str]) -> str | None:
    """The one thing of a kind a person has at a time: where they live, their job. A new
    one retires the old ("we moved to Manchester" after "we live in Leeds")."""
    if (
        category == "home"
        and verb in ("moved", "relocated", "live", "lives", "living")
        and ("to" in lows or "in" in lows)
    ):
        return "location"  # the same fact as identity's "lives in X": one key for both
    if category == "work" and (
        (verb in ("work", "working", "works") and ("as" in lows or "at" in lows or "for" in lows))
        or ("job" in lows and verb in ("got", "started", "landed", "took", "accepted"))
    ):
        return "job"
    return None
