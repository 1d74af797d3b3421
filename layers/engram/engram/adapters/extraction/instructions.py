"""Standing instructions to the assistant about its answers ("keep answers under 200
words", "always answer in Spanish", "don't use emojis").

What makes an imperative standing rather than a one-off task ("write a function
that...", "tell me a joke") is what it is about: answers and their style, or a
marker that it holds from now on. One fact per aspect (``instruction:length``), so
"under 100 words" replaces "under 200 words". The rules and their vocabulary are in
``instructions_rules``.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import I, Step, make_fact, own
from engram.adapters.extraction.facts import Retraction, slug
from engram.adapters.extraction.instructions_rules import (
    ASPECTS,
    LANGUAGE_NAMES,
    NOT_IMPERATIVE,
    ONE_OFF,
    RULES,
    STANDING,
    WORK_IMPERATIVE,
)
from engram.adapters.extraction.lexicon import known_term, subject_of, terms_in
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["STANDING", "read_instruction"]

P = MemoryType.PROCEDURAL


def _aspect(text: str) -> str:
    for name, pattern in rx.able(ASPECTS, text):
        if pattern.search(text):
            return name
    # "give me bash commands" and "give me commands for PowerShell" are both about the
    # shell: a known tool's kind is the aspect.
    for term in terms_in(text):
        kind = subject_of(term)
        if kind:
            return kind
    return slug(text)


# "so give me bash commands from now on instead of PowerShell": the lead-in and what it
# replaces are not part of the instruction.
_LEAD = rx.compile(r"^(?:so|and|then|also|but|ok(?:ay)?|now)\s*,?\s+", I)
_INSTEAD_TAIL = rx.compile(
    r"\s+(?:instead\s+of|rather\s+than)\s+[^,;:!?\n]+?(?=\s+(?:from\s+now\s+on|going\s+forward|"
    r"in\s+(?:the\s+)?future|by\s+default)\s*$|$)",
    I,
)


# "Use tabs in this file", "answer in French for this one", "short answers are fine for
# this question": said for now, not from now on.
_FOR_NOW = rx.compile(
    r"\b(?:this|that)\s+(?:one|file|time|question|answer|case|example|snippet|message|chat|"
    r"conversation|script|function|project|reply|request)\b|\bhere\b|\bfor\s+now\b|"
    r"\bright\s+now\b|\bjust\s+this\b|\bthis\s+to\s+my\b",
    I,
)


def read_instruction(clause: str) -> list[Step] | None:
    if _FOR_NOW.search(clause) and not re.search(STANDING, clause, I):
        return None
    clause = _LEAD.sub("", clause)
    # "make it three questions instead of five": it replaces the instruction it names.
    instead = _INSTEAD_TAIL.search(clause)
    replaced = (
        re.sub(r"^\s*(?:instead\s+of|rather\s+than)\s+", "", instead.group(0), flags=I)
        if instead
        else ""
    )
    clause = _INSTEAD_TAIL.sub("", clause)
    for pattern in rx.able(RULES, clause):
        match = pattern.search(clause)
        if match is None or (match.start() > 0 and not own(clause, match.start())):
            continue
        tool = match.groupdict().get("tool")
        if tool is not None and known_term(restore(tool)) is None:
            continue  # "give me code for a login form" is a task
        body = restore(match.group("x")).strip(" ,.")
        if pattern.pattern.startswith("^(?:there"):
            body = "do not " + body
        elif re.fullmatch(LANGUAGE_NAMES, body, I):
            body = f"answer in {body}"
        body = re.sub(r"^please\s+|,?\s+please$", "", body, flags=I)
        standing = (
            re.search(STANDING, clause, I) is not None
            or re.search(r"\b(?:first|up\s+front|at\s+the\s+top)\b", body, I) is not None
        )
        if re.match(r"^(?:please\s+)?(?:always|never)\s", clause, I) and (
            NOT_IMPERATIVE.match(body) or not WORK_IMPERATIVE.match(body)
        ):
            return None
        if len(body) < 4 or (ONE_OFF.match(body) and not standing):
            return None
        if re.match(r"^(?:I|we|my|our)\b", body, I):
            continue  # "from now on I use Vim": a statement, read by other rules
        whole = restore(clause).strip(" ,.")
        content = body
        if re.match(r"^(?:please\s+)?(?:" + STANDING + r"|when|whenever|if)\b", whole, I):
            content = re.sub(r"^please\s+", "", whole, flags=I)
        content = re.sub(r",?\s+please$", "", content, flags=I)
        if not content[:2].isupper():
            content = content[:1].lower() + content[1:]
        aspect = _aspect(body)
        fact = make_fact(
            "instruction",
            P,
            body,
            content,
            key=f"instruction:{aspect}",
            exclusive=True,
            subject=aspect,
        )
        if replaced:
            ended = Retraction(
                "", ("instruction",), replaced_by=fact, implicit=True, words=replaced
            )
            return [(fact, [ended])]
        return [(fact, [])]
    return None
