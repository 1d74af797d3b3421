"""Constraints (what must not be done) and requirements (what must be), with or without
a first-person subject ("We can't use GPL code", "The API must respond within 200 ms").

Impersonal ones keep their subject in the content and are keyed by subject and verb
phrase without numbers, so "within 100 ms" replaces "within 200 ms".

The phrasings are a table (``obligations_rules``); this module reads a clause with it.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import I, Step, make_fact, objects, own
from engram.adapters.extraction.facts import (
    clean_object,
    fact_key,
    head,
    slug,
    split_list,
    trim_clause,
)
from engram.adapters.extraction.lexicon import IDLE_OBJECTS
from engram.adapters.extraction.obligations_rules import (
    ALLOWS_AT_MOST,
    CAN_ONLY,
    DATE,
    DEADLINE,
    DELIVERABLE,
    FIRST_PERSON_CANT,
    FIRST_PERSON_MUST,
    FIRST_PERSON_NEED,
    FROZEN,
    IDLE_CANT,
    IMPERSONAL_CANT,
    IMPERSONAL_MUST,
    LIMIT,
    LIMITED_TO,
    MACHINE,
    MAX_IS,
    MAX_N,
    MOVED,
    MOVED_TO_DATE,
    NEVER_EVER,
    NO_ACCESS,
    NO_BUDGET,
    NO_X_MAY,
    NOBODY,
    NOT_ALLOWED,
    NOT_THEIRS,
    NP_EXCLUDED,
    ONLY_HAS,
    POINTERS,
    PROJECT_VERBS,
    RECURRING,
    REQUIRED,
    REQUIREMENTS_ARE,
    SET_TO,
    STRETCH,
    STUCK_ON,
    TARGET_IS,
)
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_constraint", "read_moved_deadline", "read_requirement"]

F, P = MemoryType.FACTUAL, MemoryType.PROCEDURAL


def _as_said(clause: str) -> str:
    """The clause as the fact's content: without its trailing explanation, capitalised."""
    whole = trim_clause(clause) or clause
    return restore(whole[:1].upper() + whole[1:])


def _key_words(np: str, rest: str) -> str:
    """A constraint's key: its subject and verb phrase without numbers, so a changed
    number ("within 200 ms" -> "within 100 ms") lands on the same key."""
    words = re.sub(r"\b\d[\d.,]*\b", " ", restore(f"{np} {rest}"))
    return re.sub(r"^(?:the|our|my|all|any|every|each)\s+", "", words.strip(), flags=I)


def _verb_list(raw: str) -> list[str]:
    """ "support Chrome, Firefox and Safari" -> one statement per item, verb kept."""
    value = clean_object(raw)
    if not value:
        return []
    match = re.match(r"^((?:[a-z]+\s+){1,3}?)(?=[A-Z\d])(.+)$", value)
    if match and re.search(r"\bboth\s+$", match.group(1)):
        return [value]  # "support both English and Arabic" is one requirement
    if match:
        items = split_list(match.group(2))
        if len(items) > 1:
            return [f"{match.group(1)}{clean_object(i)}" for i in items if clean_object(i)]
    return objects(raw)


def _idle(obj: str) -> bool:
    # "finish the grant proposal by Friday" names something: not an idle "finish up".
    if re.search(r"\s(?!I\b)[A-Z0-9]", obj):
        return False
    return obj[:1].islower() and (
        IDLE_OBJECTS.match(obj) is not None or IDLE_CANT.match(obj) is not None
    )


def _impersonal_np(match: re.Match[str], verb: str | None = None) -> str | None:
    np = match.group("np").strip()
    if len(np) < 2:
        return None
    if re.match(r"^(?:it|this)$", np, I):
        # "It has to be HIPAA compliant": about the project when it names something.
        named = verb is not None and re.search(r"[A-Z0-9]", verb) is not None
        return np if verb and (PROJECT_VERBS.match(verb) or named) else None
    return None if NP_EXCLUDED.match(np) else np


def _limit_fact(np: str, content: str) -> Step:
    np = re.sub(r"^(?:the|our|my)\s+", "", np.strip(), flags=I)
    named = re.search(r"\b(?:budget|cap|limit|ceiling|maximum|max|allowance|quota)$", np, I)
    key = fact_key("constraint", np if named else f"{np} limit")
    return (make_fact("constraint", F, np, content, key=key, subject=slug(np), exclusive=True), [])


def _read_limit(clause: str) -> list[Step] | None:
    """Limits stated by their figure rather than by "can't" (not those of an example)."""
    if NOT_THEIRS.search(clause):
        return None
    for pattern in rx.able(LIMITED_TO, clause):
        match = pattern.search(clause)
        np = match.group("np").strip() if match is not None else ""
        if match is not None and not NP_EXCLUDED.match(np) and np.lower() not in POINTERS:
            np, figure = match.group("np").strip(), restore(match.group("x")).strip()
            return [_limit_fact(np, restore(f"{np} limited to {figure}"))]
    match = MAX_IS.search(clause)
    if match is not None:
        np, figure = match.group("np").strip(), restore(match.group("x")).strip()
        kind = "max" if match.group("kind").lower().startswith("max") else "min"
        return [_limit_fact(f"{kind} {np}", restore(f"{kind} {np}: {figure}"))]
    match = SET_TO.search(clause)
    if match is not None:
        np, figure = match.group("np").strip(), restore(match.group("x")).strip()
        return [_limit_fact(np, restore(f"{np}: {figure}"))]
    match = STRETCH.search(clause)
    if match is not None and own(clause, match.start()):
        np = f"budget for {match.group('np').strip()}" if match.group("np") else "budget"
        return [_limit_fact(np, restore(f"{np}: up to {match.group('x')}"))]
    match = CAN_ONLY.search(clause)
    if match is not None and own(clause, match.start()):
        content = _as_said(clause)
        key = fact_key("constraint", _key_words("", "can only " + match.group("x")))
        return [(make_fact("constraint", F, match.group("x"), content, key=key), [])]
    match = ONLY_HAS.search(clause)
    if match is not None and own(clause, match.start()):
        np = match.group("np").strip()
        person = np.lower() in ("i", "we")
        kept = RECURRING.search(clause) or match.group("lead") if person else MACHINE.search(np)
        if kept and "%" not in match.group("x"):
            content = _as_said(clause)
            who = "" if np.lower() in ("i", "we") else np
            key = fact_key("constraint", _key_words(who, "only have " + match.group("x")))
            return [(make_fact("constraint", F, np, content, key=key), [])]
    match = ALLOWS_AT_MOST.search(clause)
    if match is not None and not NP_EXCLUDED.match(match.group("np").strip()):
        np = match.group("np").strip()
        return [_limit_fact(np, restore(f"{np} allows at most {match.group('x').strip()}"))]
    match = MAX_N.search(clause)
    if match is not None:
        kind = re.sub(r"\s+", " ", match.group("kind").lower())
        content = restore(f"{kind} {match.group('x').strip()}")
        key = fact_key("constraint", _key_words("", f"{kind} {match.group('x')}"))
        return [(make_fact("constraint", F, match.group("x"), content, key=key), [])]
    match = FROZEN.search(clause)
    if match is not None and not NP_EXCLUDED.match(match.group("np").strip()):
        content = _as_said(clause)
        key = fact_key("constraint", _key_words(match.group("np"), "frozen"))
        np = match.group("np").strip()
        return [(make_fact("constraint", F, np, content, key=key, negative=True), [])]
    match = STUCK_ON.search(clause)
    if match is not None and own(clause, match.start()):
        what = clean_object(match.group("x"))
        if what:
            key = fact_key("constraint", "stuck on " + head(re.sub(r"\s+\d[\d.]*$", "", what)))
            return [(make_fact("constraint", F, what, f"stuck on {what}", key=key), [])]
    for pattern in rx.able(NO_ACCESS, clause):
        match = pattern.search(clause)
        if match is not None and own(clause, match.start()):
            what = restore(match.group("x")).strip().lower()
            where = match.groupdict().get("where")
            content = f"no {what}" + (f" on {restore(where).strip()}" if where else "")
            key = fact_key("constraint", content)
            return [(make_fact("constraint", F, what, content, key=key, negative=True), [])]
    return None


def read_constraint(clause: str) -> list[Step] | None:
    found = _read_limit(clause)
    if found:
        return found
    match = NO_BUDGET.search(clause)
    if match is not None and own(clause, match.start()):
        # "We have zero budget for paid third-party APIs"
        what = clean_object(match.group("x"))
        if what:
            return [(make_fact("constraint", F, what, f"no budget for {what}"), [])]
    match = LIMIT.search(clause)
    if match is not None and not NOT_THEIRS.search(clause):
        np = match.group("np").strip()
        content = restore(f"{np}: {clean_object(match.group('x')) or match.group('x')}")
        key = fact_key("constraint", np)
        return [
            (make_fact("constraint", F, np, content, key=key, subject=slug(np), exclusive=True), [])
        ]
    match = NEVER_EVER.search(clause) or NO_X_MAY.search(clause) or NOBODY.search(clause)
    if match is not None:
        content = _as_said(clause)
        np = match.groupdict().get("np") or match.group("x")
        key = fact_key("constraint", _key_words(np, "not " + match.group("x")))
        return [(make_fact("constraint", F, match.group("x"), content, key=key, negative=True), [])]
    match = FIRST_PERSON_CANT.search(clause)
    if match is not None and own(clause, match.start()):
        items = [o for o in _verb_list(match.group("x")) if not _idle(o)]
        return [
            (make_fact("constraint", F, o, f"cannot {o}", negative=True), []) for o in items
        ] or None
    for pattern in (IMPERSONAL_CANT, NOT_ALLOWED):
        match = pattern.search(clause)
        if match is None:
            continue
        rest = match.groupdict().get("x")
        np = _impersonal_np(match, rest)
        if np is None:
            continue
        if (
            pattern is NOT_ALLOWED
            and not re.match(r"^no\s+", clause, I)
            and re.search(r"\bis\s+allowed\b|\bare\s+allowed\b", match.group(0), I)
        ):
            continue  # "X is allowed" permits; only "no X is allowed" forbids
        content = _as_said(clause)
        key = fact_key("constraint", _key_words(np, "not " + (rest or "allowed")))
        return [(make_fact("constraint", F, np, content, key=key, negative=True), [])]
    return None


def read_requirement(clause: str) -> list[Step] | None:
    match = TARGET_IS.search(clause)
    if match is not None:
        target = re.sub(r"^(?:the|our|my)\s+", "", match.group("np").strip(), flags=I)
        content = restore(f"{target}: {match.group('x').strip()}")
        fact = make_fact("requirement", F, target, content, key=fact_key("requirement", target))
        return [(fact, [])]
    match = FIRST_PERSON_MUST.search(clause)
    if match is not None and own(clause, match.start()):
        items = [o for o in _verb_list(match.group("x")) if not _idle(o)]
        return [(make_fact("requirement", F, o, f"must {o}"), []) for o in items] or None
    match = FIRST_PERSON_NEED.search(clause)
    if match is not None and own(clause, match.start()):
        items = [o for o in objects(match.group("x")) if not _idle(o)]
        return [(make_fact("requirement", F, o, f"needs {o}"), []) for o in items] or None
    for pattern in rx.able(DEADLINE, clause):
        match = pattern.search(clause)
        if match is None:
            continue
        if match.groupdict().get("bare") and not DELIVERABLE.search(match.group("what") or ""):
            continue  # "The paper is due 12 April" is work; "her baby is due 12 April" is not
        if match is not None and own(clause, match.start()):
            when = clean_object(match.group("x"))
            if when:
                what = (match.groupdict().get("what") or "deadline").lower()
                content = (
                    f"{what} due {when}"
                    if "due" in match.group(0).lower()
                    else (f"deadline: {when}")
                )
                return [
                    (
                        make_fact(
                            "requirement",
                            F,
                            when,
                            content,
                            key="requirement:deadline",
                            subject="deadline",
                            exclusive=True,
                        ),
                        [],
                    )
                ]
    match = REQUIREMENTS_ARE.search(clause)
    if match is not None:
        items = objects(match.group("x"))
        return [(make_fact("requirement", F, o, f"requires {o}"), []) for o in items] or None
    for pattern in (IMPERSONAL_MUST, REQUIRED):
        match = pattern.search(clause)
        if match is None:
            continue
        rest = match.groupdict().get("x")
        np = _impersonal_np(match, rest)
        if np is None:
            continue
        whole = trim_clause(clause)
        if not whole:
            continue
        content = restore(whole[:1].upper() + whole[1:])
        key = fact_key("requirement", _key_words(np, rest or "required"))
        items = _verb_list(rest) if rest else []
        if len(items) > 1:
            # "The site must be available in Spanish, Catalan and Basque": one each.
            modal = match.groupdict().get("modal") or "must"
            lead = restore(np[:1].upper() + np[1:])
            return [
                (
                    make_fact(
                        "requirement",
                        F,
                        item,
                        f"{lead} {modal} {item}",
                        key=fact_key("requirement", _key_words(np, item)),
                    ),
                    [],
                )
                for item in items
            ]
        return [(make_fact("requirement", F, np, content, key=key), [])]
    return None


def read_moved_deadline(sentence: str) -> list[Step]:
    """A deadline moved across clauses ("Launch slipped, it's now November 15")."""
    if not MOVED.search(sentence) and not MOVED_TO_DATE.search(sentence):
        return []
    dates = list(DATE.finditer(sentence))
    if not dates:
        return []
    when = restore(dates[-1].group("x"))
    fact = make_fact(
        "requirement",
        F,
        when,
        f"deadline: {when}",
        key="requirement:deadline",
        subject="deadline",
        exclusive=True,
    )
    return [(fact, [])]
