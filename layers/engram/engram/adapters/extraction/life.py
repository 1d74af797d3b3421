"""What people say about their own lives, in English: a small grammar over words.

A clause states a fact about the user when its subject is the user ("I", "we", "me and
my sister") or someone or something of theirs ("my son", "our dog Max"), and its
predicate says something durable or datable:

    [when ,] subject [adverbs] [aspect] verb [object] [when]

- aspect: a plan ("I'm going to", "we'll", "planning to", "thinking about"), a past habit
  ("used to"), something under way ("I've been taking", "I'm learning"), done ("I have
  started", "we adopted"), or a standing state ("I have two cats", "we live in Leeds");
- the verb must be one that states something (not "think", "feel", "guess", "hope",
  "love it", "can't wait"): light verbs ("get", "go", "take"...) count only before
  content ("got a puppy", "went hiking", "took up pottery");
- the object must name something: not only pronouns ("did it", "love them"), never the
  other person ("saw your post"), and it ends at an explanation ("because...", "and it
  was...", " - ...").

Negations, questions, conditionals and hypotheticals ("would", "could", "should",
"might") state nothing. Time words become the fact's date (``dates.resolve``): an event
is dated by its words or else by when it was said; a plan only by its words.

The category follows from the words (``data/en.json``): family and pets by who or what,
home, work, learning, health and possessions by their verbs and nouns, and otherwise by
aspect: a plan, an event, an activity under way, a habit. Every word list is in the data
file; the grammar that reads them, one pass over the clause's words, is this module (where
statements start in a clause) with ``life_words`` (the tests on words and phrases),
``life_statement`` (one statement, from its subject on) and ``life_kinds`` (what kind of
fact it makes).
"""

from __future__ import annotations

from engram.adapters.extraction.common import Step, make_fact, own
from engram.adapters.extraction.facts import slug
from engram.adapters.extraction.life_statement import parse_statement
from engram.adapters.extraction.life_words import Word, is_past, phrase_at, split_words, time_at
from engram.adapters.extraction.tables import Tables, tables
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_life"]


def read_life(clause: str) -> list[Step] | None:
    """The facts a clause states about the user's life: read from its start, and from
    each later place the user is the subject ("I'm so excited to tell you I started a
    yoga class"), unless what comes before makes it someone else's or no fact ("if I",
    "you said I")."""
    t = tables("en")
    words = split_words(clause)
    steps: list[Step] = []
    done = 0
    for start, word in enumerate(words):
        if start < done:
            continue
        if start and not (
            word.low in t.subjects
            or (
                (word.low in t.closed["own"] or word.low == "me")
                and start + 1 < len(words)
                and (
                    words[start + 1].low in t.family
                    or words[start + 1].low in t.pets
                    or word.low == "me"
                )
            )
        ):
            continue
        if start and not (own(clause, word.start) and _opens(words, start, t)):
            continue
        parsed = parse_statement(clause, words, start, t)
        while parsed is not None:
            step, done = parsed
            steps.append(step)
            # "We hiked, swam and made great memories": more verbs of the same subject.
            parsed = _coordinated(clause, words, done, step, t)
    if not steps:
        steps += _effect(clause, words, t)
    return steps or None


def _effect(clause: str, words: list[Word], t: Tables) -> list[Step]:
    """What something is to the user: "Painting's a fun way to express my feelings",
    "my family is everything to me", "yoga helps me sleep". The thing is what comes
    before the words that say what it does for them, and must be named (not "it",
    "that", "you"), at most a few words."""
    markers = t.effect_markers
    low = [w.low for w in words]
    # The thing is at most a few words: only the first places can start a marker.
    for k in range(1, min(len(words), t.effect_subject_limit + 1)):
        split = low[k - 1].endswith("'s") or low[k - 1].endswith("\u2019s")
        if low[k] not in t.effect_openers and not (split and low[k] in t.effect_openers_split):
            continue
        for marker in markers:
            said = marker[1:] if split and marker[0] == "is" else marker
            if tuple(low[k : k + len(said)]) != said:
                continue
            first = 0
            subject = low[first:k]
            if split:
                subject = [*subject[:-1], subject[-1][:-2]]
            if not 1 <= len(subject) <= t.effect_subject_limit or any(
                w in t.pronouns or w in t.other_party or w in ("what", "how", "which", "who")
                for w in subject
            ):
                return []
            if all(w in t.function_words for w in subject):
                return []
            end = k + len(said)
            while end < len(words) and end < k + len(said) + 10:
                if words[end].low in (",", ";", ":") or (
                    words[end].low != "so" and phrase_at(words, end, t.cuts)
                ):
                    break
                end += 1
            after = [w.low for w in words[k + len(said) : end]]
            if marker[-1] in ("me", "my") and not any(
                w not in t.function_words and w not in t.pronouns for w in after
            ):
                return []  # "dancing makes me": what it makes is cut
            if any(w in t.effect_first_person_only for w in marker) and not any(
                w in ("i", "me", "my", "myself") for w in low[:end]
            ):
                return []  # "yoga is a great way to relax": advice, not the user's own
            content = restore(clause[words[0].start : words[end - 1].end]).strip(" ,.-")
            fact = make_fact(
                "preference", MemoryType.FACTUAL, content, content, about=slug(content)
            )
            return [(fact, [])]
    return []


def _coordinated(
    clause: str, words: list[Word], end: int, previous: Step, t: Tables
) -> tuple[Step, int] | None:
    """The next verb phrase of a subject after one ends at ``end`` (", and went...")."""
    k = end
    while k < len(words) and words[k].low in (",", "and", "then", "also"):
        k += 1
    fact = previous[0]
    if k == end or k >= len(words) or fact is None or fact.category in ("plan", "goal"):
        return None
    low = words[k].low
    past = fact.type is MemoryType.EPISODIC and is_past(low, t)
    ongoing = fact.category == "activity" and low.endswith("ing")
    if not (past or ongoing):
        return None
    # only a date the words gave ("d:0" is also every undated event's)
    when, then = (fact.when if fact.when != "d:0" else None), ""
    took, spec = time_at(words, 0, t)
    if when is None and spec in ("childhood", "season"):
        # the first phrase kept "last summer" in its words, of no date: so does this one
        when, then = spec, clause[words[0].start : words[took - 1].end]
    return parse_statement(
        clause, words, k, t, subject_given=True, when_given=when, then_given=then
    )


def _opens(words: list[Word], start: int, t: Tables) -> bool:
    """Whether a subject at word ``start`` begins a statement (not a relative clause):
    what stands right before it ("..., I", "and we", "to tell you I") is in the data's
    ``before_subject``; after a noun it starts a relative clause ("the support I got was
    helpful"), whose object is the noun before it."""
    if words[start - 1].low in t.closed["before_subject"]:
        return True
    # "Since we last spoke I went...": a short clause of time first, without its comma
    if (
        start >= 3
        and start <= 5
        # not "when": "when I was little I..." is no news
        and words[0].low in t.closed["time_clause_openers"]
        and words[1].low in t.subjects
        and words[start].low == "i"
    ):
        return True
    # "Last weekend I did something new": a time expression right before the subject.
    return any(time_at(words, at, t)[0] == start - at for at in range(max(0, start - 4), start))
