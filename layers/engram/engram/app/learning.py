"""Learning from a conversation: extracted statements applied to what a key remembers.

Applied in order, inside the caller's transaction:
- a fact upserts its key; a different content on the same key supersedes the old
  fact (it moves to the history, naming its successor);
- an exclusive fact (a preference stated with "prefer", a decision, who the user
  is, an instruction) retires the earlier facts of its category about the same
  subject ("I prefer React now" after "I prefer Vue");
- a retraction retires the facts about what it names ("we switched from Vue",
  "I no longer use Python");
- a requirement or constraint with a new figure for the same limit retires the old
  figure ("page load under 1.5 seconds" after "the page must load in under 3 seconds").
Facts taken from the assistant's words are kept apart: their keys carry an
``assistant:`` prefix and they neither retire nor are retired by the user's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime

import snowballstemmer

from engram.domain.measures import measure, same_limit
from engram.domain.models import (
    ExtractionJob,
    ExtractionOutcome,
    MemoryCreate,
    Removed,
    UpsertOutcome,
)
from engram.domain.models.facts import ExtractedFact, Extraction, Retraction
from engram.ports import FactHistory, MemoryStore

__all__ = [
    "ASSISTANT_PREFIX",
    "Learned",
    "duplicate_outcome",
    "fact_items",
    "job_outcome",
    "learn",
]

# Keys of facts the assistant stated: never the same memory as the user's fact.
ASSISTANT_PREFIX = "assistant:"
_FUNCTION_WORDS = frozenset("the a an my our your their his her of to for on in at".split())
# Categories whose facts state a limit or a target, which a new figure replaces.
_LIMITS = ("requirement", "constraint")
_STEMMER = snowballstemmer.stemmer("english")


def content_stems(text: str) -> frozenset[str]:
    """The stems of every word of ``text``: a habit named by its object ("the
    newsletter") is found among the words of one keyed by its verb ("send")."""
    return frozenset(str(s) for s in _STEMMER.stemWords(re.findall(r"[a-z]+", text.lower())))


@dataclass
class Learned:
    outcomes: list[UpsertOutcome] = field(default_factory=list)
    retired: Removed = field(default_factory=Removed)


def _collapse(extraction: Extraction) -> Extraction:
    """Within one message the last statement on a key is what was meant ("I like
    Python. Now I don't like Python."): earlier facts on that key are dropped."""
    last: dict[str, int] = {}
    for index, (fact, _) in enumerate(extraction.steps):
        if fact is not None:
            last[fact.key] = index
    steps = [
        (fact if fact is None or last[fact.key] == index else None, retractions)
        for index, (fact, retractions) in enumerate(extraction.steps)
    ]
    return Extraction([(f, r) for f, r in steps if f is not None or r])


def learn(
    store: MemoryStore,
    history: FactHistory,
    extraction: Extraction,
    *,
    owner: str,
    session_id: str | None,
    source: str,
    extracted_at: datetime,
    now_ms: int,
    said_in: str | None = None,
) -> Learned:
    """Apply ``extraction`` to what ``owner`` remembers. ``said_in``: the key of the
    stored turn the facts were said in (conversation memory), kept as ``metadata.turn``
    so retrieval does not inject a fact beside the very turn that says it."""
    learned = Learned()
    for fact, retractions in _collapse(extraction).steps:
        retractions = [r for r in retractions if not r.implicit] + _resolve_implicit(
            history, extraction, [r for r in retractions if r.implicit], owner, source
        )
        stored_id: str | None = None
        if fact is not None and fact.category == "instruction" and source != "user":
            # The assistant saying "always back up your files" advises the user; stored
            # as a standing instruction it would go into every prompt as the user's rule.
            fact = None
        if fact is not None:
            fact = replace(fact, source=source)
            key = fact.key if source == "user" else ASSISTANT_PREFIX + fact.key
            item = MemoryCreate(
                api_key_id=owner,
                session_id=session_id,
                type=fact.type,
                key=key,
                content=fact.content,
                metadata=fact.metadata(extracted_at) | ({"turn": said_in} if said_in else {}),
            )
            outcome = store.upsert(item, key, now_ms, supersede=True)
            learned.outcomes.append(outcome)
            learned.retired += outcome.retired
            stored_id = outcome.memory.id
            if fact.exclusive and fact.subject and outcome.content_changed:
                learned.retired += _retire_rivals(history, fact, owner, stored_id, now_ms)
            if fact.category in _LIMITS and outcome.content_changed:
                learned.retired += _retire_old_figures(history, fact, owner, stored_id, now_ms)
            for old in fact.replaces:  # a model's "update": the memory it names goes
                if old != stored_id:
                    learned.retired += history.retire(old, owner, now_ms, superseded_by=stored_id)
        for retraction in retractions:
            successor = stored_id if retraction.replaced_by is not None else None
            for old in retraction.ids:  # a model's "retire", by id (the owner's only)
                learned.retired += history.retire(old, owner, now_ms, superseded_by=successor)
            if retraction.ids and not retraction.about:
                continue  # named by id only: nothing else is meant
            learned.retired += _retract(
                history, retraction, owner, source, stored_id, successor, now_ms
            )
    return learned


def fact_items(
    extraction: Extraction,
    *,
    owner: str,
    session_id: str | None,
    source: str,
    extracted_at: datetime,
) -> list[MemoryCreate]:
    """The facts of ``extraction`` as memories to write, without the history: what a
    remote memory backend (which keeps no retired versions) is given. Retractions are
    not applied there; the last statement on a key still wins (the key is the upsert)."""
    items = []
    for fact, _ in _collapse(extraction).steps:
        if fact is None:
            continue
        fact = replace(fact, source=source)
        key = fact.key if source == "user" else ASSISTANT_PREFIX + fact.key
        items.append(
            MemoryCreate(
                api_key_id=owner,
                session_id=session_id,
                type=fact.type,
                key=key,
                content=fact.content,
                metadata=fact.metadata(extracted_at),
            )
        )
    return items


def _resolve_implicit(
    history: FactHistory,
    extraction: Extraction,
    implicit: list[Retraction],
    owner: str,
    source: str,
) -> list[Retraction]:
    """Name what an unnamed "instead" replaces: the earlier facts of the category the
    message mentions, or failing that the latest one."""
    named: list[Retraction] = []
    for retraction in implicit:
        new = retraction.replaced_by
        # A habit "instead" replaces the same activity's old schedule ("I do my reviews
        # after lunch instead"); a tool chosen instead leaves other facts about it alone.
        same_kind = retraction.categories == ("pattern",)
        earlier = [
            m
            for m in history.live_about(owner, "", retraction.categories, source)
            if new is None or same_kind or m.metadata.get("object") != new.object
        ]
        if retraction.words:
            # "three questions instead of five": the instruction that says "five", if any;
            # never merely the latest ("single quotes instead of double" is new).
            said = content_stems(retraction.words) - _FUNCTION_WORDS
            hits = [m for m in earlier if said & content_stems(m.content)]
            earlier = []
        else:
            hits = [m for m in earlier if extraction.mentions(str(m.metadata.get("object", "")))]
        for memory in hits or earlier[:1]:
            about = str(memory.metadata.get("object", ""))
            if about:
                named.append(Retraction(about, retraction.categories, replaced_by=new))
    return named


def _retire_rivals(
    history: FactHistory, fact: ExtractedFact, owner: str, stored_id: str, now_ms: int
) -> Removed:
    retired = Removed()
    assert fact.subject is not None
    for rival in history.live_about(owner, fact.subject, (fact.category,), fact.source):
        same_side = (rival.metadata.get("polarity") == "negative") == fact.negative
        if rival.id != stored_id and rival.metadata.get("subject") == fact.subject and same_side:
            retired += history.retire(rival.id, owner, now_ms, superseded_by=stored_id)
    return retired


def _retire_old_figures(
    history: FactHistory, fact: ExtractedFact, owner: str, stored_id: str, now_ms: int
) -> Removed:
    """A new figure for the same limit ("page load under 1.5 seconds" after "the page
    must load in under 3 seconds") retires the old one, whatever either's key."""
    retired = Removed()
    figure = measure(fact.content)
    if figure is None:
        return retired
    for rival in history.live_about(owner, "", _LIMITS, fact.source):
        if rival.id != stored_id and same_limit(figure, rival.content):
            retired += history.retire(rival.id, owner, now_ms, superseded_by=stored_id)
    return retired


def _retract(
    history: FactHistory,
    retraction: Retraction,
    owner: str,
    source: str,
    stored_id: str | None,
    successor: str | None,
    now_ms: int,
) -> Removed:
    retired = Removed()
    found = history.live_about(owner, retraction.about, retraction.categories, source)
    if retraction.categories == ("pattern",) and retraction.words:
        # "We moved the newsletter to Thursdays" names the activity by its object, where
        # "we send the newsletter every Monday" was keyed by its verb: a habit whose words
        # after its verb hold every word of the moved thing is the same habit ("the dog
        # training class moved" leaves "walk the dog every morning").
        named = {f.id for f in found}
        wanted = content_stems(retraction.words) - _FUNCTION_WORDS
        found += [
            f
            for f in history.live_about(owner, "", ("pattern",), source)
            if f.id not in named and wanted and wanted <= content_stems(f.content.split(" ", 1)[-1])
        ]
    for fact in found:
        if fact.id == stored_id or fact.metadata.get("polarity") == "negative":
            continue  # "no longer uses Python" is itself the current truth
        if retraction.keep is not None and fact.metadata.get("object") == retraction.keep:
            continue
        retired += history.retire(fact.id, owner, now_ms, superseded_by=successor)
    return retired


def job_outcome(
    job: ExtractionJob, outcomes: list[UpsertOutcome], *, retired: list[str] | None = None
) -> ExtractionOutcome:
    """What learning from ``job`` did, whichever backend kept the facts."""
    return ExtractionOutcome(
        request_id=job.request_id,
        duplicate=False,
        created=[o.memory.id for o in outcomes if o.created],
        changed=[o.memory.id for o in outcomes if not o.created and o.content_changed],
        unchanged=[o.memory.id for o in outcomes if not o.created and not o.content_changed],
        retired=retired or [],
    )


def duplicate_outcome(job: ExtractionJob) -> ExtractionOutcome:
    """A job delivered again: already learnt from, nothing done."""
    return ExtractionOutcome(
        request_id=job.request_id, duplicate=True, created=[], changed=[], unchanged=[]
    )
