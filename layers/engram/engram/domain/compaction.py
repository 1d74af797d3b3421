"""Compaction rules for summarization: which memories a summary keeps, and how short.

Pure functions over ``Memory`` values (no storage). Candidates are grouped by owner,
session, whose words they are, category and subject (the metadata extraction
writes; a memory without it is grouped by its type). Within a group:
- **superseded**: a fact about an object (``metadata.object``) that a newer fact
  about it contradicts (the other polarity: "likes Python" before "no longer likes
  Python"), and an identity fact that a newer one about the same subject replaces
  (one name, one home town);
- **duplicate**: a fact whose words are all in another fact of the same polarity
  (``uses Docker`` beside ``uses Docker for local development``) is dropped; of
  two facts with the same words the newest stays;
- each kept fact is **shortened**: its first three sentences (the SPEC's rule),
  without filler words and phrases ("basically", "I think", "the user") or
  articles; negations and every other word are kept.
The kept lines of a group become summaries of at most ``MAX_SUMMARY_CHARS``
characters: ``subject: fact; fact; fact``. A summary carries the time range of
everything it replaces (``validFrom``: the oldest first statement, ``validTo``:
the newest write), which is also its stored ``createdAt``/``updatedAt``: retention
treats it as it would its newest original.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from engram.domain.models import Memory, MemoryType, SummaryCandidate, SummaryDraft
from engram.domain.models.common import from_millis, to_millis
from engram.domain.tokens import estimate_tokens

__all__ = [
    "MAX_SUMMARY_CHARS",
    "SUMMARY_KEY_PREFIX",
    "Compaction",
    "compact",
    "first_sentences",
    "is_summary",
    "shorten",
]

SUMMARY_KEY_PREFIX = "summary:"
# A summary is retrieved and injected whole: kept small, so one relevant fact does not
# bring a page of others along (and far below the content limit).
MAX_SUMMARY_CHARS = 1000
_MAX_LINE_CHARS = 400
# Categories where a newer fact about the same subject replaces the older one.
_ONE_PER_SUBJECT = frozenset({"identity"})

Outcome = Literal["kept", "duplicate", "superseded"]
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Words and phrases that carry no fact. Negations ("not", "no", "never", "no longer")
# and qualifiers that change meaning ("always", "only") are never on this list.
_FILLER = re.compile(
    r"\b(?:i think|i believe|i guess|i feel like|you know|to be honest|honestly|basically"
    r"|actually|really|just|kind of|sort of|please note that|note that"
    r"|it is worth (?:noting|mentioning) that|for what it'?s worth|as a matter of fact"
    r"|in general|generally speaking|the user(?!'))\b[,]?\s*",
    re.IGNORECASE,
)
# "that is written in Go" -> "written in Go"; "Pixel, who is a collie" -> "Pixel, collie".
_RELATIVE = re.compile(r"\b(?:that|which|who) (?:is|are) ", re.IGNORECASE)
# A line whose subject (the user) was dropped starts with its verb: "is allergic to
# peanuts" says no more than "allergic to peanuts".
_LEADING_COPULA = re.compile(r"^(?:is|are) (?!not\b)", re.IGNORECASE)
# Articles, lower case only (or "The" opening a sentence): "Plan A" keeps its A.
_ARTICLE = re.compile(r"(?:\b(?:the|an|a)|(?:^|(?<=[.!?] ))The)\s+(?=\w)")
_WORD = re.compile(r"[\w'+#.-]+")


def first_sentences(text: str, n: int = 3) -> str:
    parts = _SENTENCE_END.split(text.strip())
    return " ".join(parts[:n])


def shorten(text: str) -> str:
    """One line: the first three sentences without filler words or articles, no final
    full stop, at most ``_MAX_LINE_CHARS`` characters (cut at a word)."""
    line = " ".join(first_sentences(" ".join(text.split())).split())
    short = _ARTICLE.sub("", _RELATIVE.sub("", _FILLER.sub("", line)))
    short = _LEADING_COPULA.sub("", " ".join(short.split()).strip(" ,;"))
    if not _words(short):
        short = line  # nothing but filler by these rules: keep it as said
    short = short.rstrip(".").strip()
    if len(short) > _MAX_LINE_CHARS:
        short = short[: _MAX_LINE_CHARS - 3].rsplit(" ", 1)[0] + "..."
    return short


def is_summary(memory: Memory) -> bool:
    return memory.key.startswith(SUMMARY_KEY_PREFIX)


def _words(text: str) -> frozenset[str]:
    return frozenset(w.strip(".'-").casefold() for w in _WORD.findall(text) if w.strip(".'-"))


@dataclass(frozen=True)
class _GroupKey:
    owner: str
    session_id: str | None
    source: str
    category: str
    subject: str | None
    # Whether the category is the metadata's (False: the memory's type stands in).
    named: bool


def _group_key(memory: Memory) -> _GroupKey:
    meta = memory.metadata
    category = meta.get("category")
    subject = meta.get("subject")
    source = meta.get("source")
    return _GroupKey(
        memory.api_key_id,
        memory.session_id,
        source if source == "assistant" else "user",
        category if isinstance(category, str) and category else memory.type.value,
        subject if isinstance(subject, str) and subject else None,
        isinstance(category, str) and bool(category),
    )


def _newest_first(memories: Iterable[Memory]) -> list[Memory]:
    return sorted(memories, key=lambda m: (m.updated_at, m.created_at), reverse=True)


@dataclass
class Compaction:
    """What summarizing some memories gives: each candidate's fate, and the summaries."""

    candidates: list[SummaryCandidate] = field(default_factory=list)
    summaries: list[SummaryDraft] = field(default_factory=list)

    @property
    def tokens_before(self) -> int:
        return sum(c.tokens for c in self.candidates)

    @property
    def tokens_after(self) -> int:
        return sum(s.tokens for s in self.summaries)


def compact(memories: Sequence[Memory]) -> Compaction:
    """Group, drop superseded facts and duplicates, shorten, pack into summaries."""
    groups: dict[_GroupKey, list[Memory]] = {}
    for memory in memories:
        if not is_summary(memory):
            groups.setdefault(_group_key(memory), []).append(memory)
    result = Compaction()
    for group_key, members in groups.items():
        candidates, drafts = _group(group_key, members)
        before = sum(c.tokens for c in candidates)
        if sum(d.tokens for d in drafts) >= before:
            continue  # nothing to gain: the group stays as it is
        result.candidates += candidates
        result.summaries += drafts
    return result


def _group(
    group_key: _GroupKey, members: list[Memory]
) -> tuple[list[SummaryCandidate], list[SummaryDraft]]:
    fates = _fates(group_key, members)
    by_id = {m.id: m for m in members}
    kept = [(by_id[i], line) for i, (outcome, line) in fates.items() if outcome == "kept"]
    # Oldest kept fact first: the summary reads in the order things were said.
    kept.sort(key=lambda pair: (pair[0].created_at, pair[0].id))
    dropped = [by_id[i] for i, (outcome, _) in fates.items() if outcome != "kept"]
    drafts: list[SummaryDraft] = []
    summary_of: dict[str, str] = {}
    for index, chunk in enumerate(_chunks(group_key, kept)):
        # Dropped facts are replaced by the first summary of their group.
        replaced = [m for m, _ in chunk] + (dropped if index == 0 else [])
        draft = _draft(group_key, chunk, replaced)
        drafts.append(draft)
        summary_of.update((m.id, draft.key) for m in replaced)
    candidates = []
    for memory in sorted(members, key=lambda m: (m.created_at, m.id)):
        outcome, line = fates[memory.id]
        candidates.append(
            SummaryCandidate(
                id=memory.id,
                api_key_id=memory.api_key_id,
                session_id=memory.session_id,
                type=memory.type,
                key=memory.key,
                content=memory.content,
                tokens=estimate_tokens(memory.content),
                created_at=memory.created_at,
                updated_at=memory.updated_at,
                outcome=outcome,
                line=line if outcome == "kept" else None,
                summary_key=summary_of[memory.id],
            )
        )
    return candidates, drafts


def _fates(group: _GroupKey, members: list[Memory]) -> dict[str, tuple[Outcome, str]]:
    """Each member's outcome (kept, duplicate, superseded) and shortened line, by id."""
    fates: dict[str, tuple[Outcome, str]] = {}
    polarity_of: dict[str, bool] = {}
    newest = _newest_first(members)
    alive: list[Memory] = []
    for index, memory in enumerate(newest):
        about = memory.metadata.get("object")
        negative = memory.metadata.get("polarity") == "negative"
        if group.category in _ONE_PER_SUBJECT and group.subject and index > 0:
            fates[memory.id] = ("superseded", "")
        elif isinstance(about, str) and about and polarity_of.get(about, negative) != negative:
            fates[memory.id] = ("superseded", "")  # "likes Python" after "no longer ..."
        else:
            if isinstance(about, str) and about:
                polarity_of.setdefault(about, negative)
            alive.append(memory)
    lines = {m.id: shorten(m.content) for m in alive}
    # Longest first, so a fact is compared with the fuller statements of it; among
    # equals the newest comes first (sorted is stable over newest-first order).
    # Kept facts by word: a fact containing every word of another contains its rarest
    # one, so only those are compared (linear for distinct facts, not quadratic).
    postings: dict[tuple[str, bool], list[frozenset[str]]] = {}
    for memory in sorted(alive, key=lambda m: len(_words(lines[m.id])), reverse=True):
        words = _words(lines[memory.id])
        negative = memory.metadata.get("polarity") == "negative"
        rarest = min((postings.get((w, negative), []) for w in words), key=len, default=[])
        if words and any(words <= other for other in rarest):
            fates[memory.id] = ("duplicate", "")
        else:
            for word in words:
                postings.setdefault((word, negative), []).append(words)
            fates[memory.id] = ("kept", lines[memory.id])
    return fates


def _chunks(group: _GroupKey, kept: list[tuple[Memory, str]]) -> list[list[tuple[Memory, str]]]:
    prefix = len(_label(group))
    chunks: list[list[tuple[Memory, str]]] = [[]]
    size = prefix
    for memory, line in kept:
        if chunks[-1] and size + len(line) + 2 > MAX_SUMMARY_CHARS:
            chunks.append([])
            size = prefix
        chunks[-1].append((memory, line))
        size += len(line) + 2
    return chunks


def _label(group: _GroupKey) -> str:
    return f"{group.subject.replace('_', ' ')}: " if group.subject else ""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")[:40] or "other"


def _draft(
    group: _GroupKey, chunk: list[tuple[Memory, str]], replaced: list[Memory]
) -> SummaryDraft:
    content = _label(group) + "; ".join(line for _, line in chunk)
    ids = sorted(m.id for m in replaced)
    digest = hashlib.sha256(",".join(ids).encode()).hexdigest()[:12]
    key = f"{SUMMARY_KEY_PREFIX}{_slug(group.category)}:{_slug(group.subject or '')}:{digest}"
    types = {m.type for m, _ in chunk}
    valid_from = min(m.created_at for m in replaced)
    valid_to = max(m.updated_at for m in replaced)
    expiries = [m.expires_at for m in replaced]
    expires_at = None if any(e is None for e in expiries) else max(e for e in expiries if e)
    metadata: dict[str, object] = {
        "summary": True,
        "summarized": len(replaced),
        "validFrom": _iso(valid_from),
        "validTo": _iso(valid_to),
    }
    if group.named:
        metadata["category"] = group.category
    if group.subject:
        metadata["subject"] = group.subject
    if group.source == "assistant":
        metadata["source"] = "assistant"
    return SummaryDraft(
        api_key_id=group.owner,
        session_id=group.session_id,
        type=types.pop() if len(types) == 1 else MemoryType.SEMANTIC,
        key=key,
        content=content,
        metadata=metadata,
        tokens=estimate_tokens(content),
        valid_from=valid_from,
        valid_to=valid_to,
        expires_at=expires_at,
        replaces=ids,
    )


def _iso(value: datetime) -> str:
    # Milliseconds, as stored: the same instant the summary's createdAt/updatedAt show.
    return from_millis(to_millis(value)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
