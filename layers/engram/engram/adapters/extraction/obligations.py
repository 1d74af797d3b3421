"""Constraints (what must not be done) and requirements (what must be), with or without
a first-person subject ("We can't use GPL code", "The API must respond within 200 ms").

Impersonal ones keep their subject in the content and are keyed by subject and verb
phrase without numbers, so "within 100 ms" replaces "within 200 ms".
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import WHO, XL, I, Step, make_fact, objects, own
from engram.adapters.extraction.facts import (
    clean_object,
    fact_key,
    head,
    slug,
    split_list,
    trim_clause,
)
from engram.adapters.extraction.lexicon import IDLE_OBJECTS, PEOPLE
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_constraint", "read_moved_deadline", "read_requirement"]

F, P = MemoryType.FACTUAL, MemoryType.PROCEDURAL
_CANT = (
    r"(?:cannot|can\s+not|must\s+not|should\s+not|may\s+not|must\s+never|should\s+never|"
    r"can\s+never|(?:are|am|is)\s+not\s+allowed\s+to|(?:are|am|is)\s+not\s+permitted\s+to|"
    r"(?:are|is|am)\s+(?:forbidden|prohibited|banned|barred)\s+(?:to|from)|have\s+to\s+avoid|"
    r"need\s+to\s+avoid|must\s+avoid|do\s+not\s+want\s+to|will\s+not|are\s+not\s+going\s+to|"
    r"(?:are|is)\s+not\s+supposed\s+to|(?:do|does)\s+not\s+(?:allow|permit)|"
    r"(?:am|are|is)\s+(?:not\s+able|unable)\s+to)"
)
_MUST = (
    r"(?P<modal>must|has\s+to|have\s+to|needs\s+to|need\s+to|has\s+got\s+to|(?:are|is|am)\s+"
    r"required\s+to|shall|should|will\s+need\s+to|ought\s+to|requires?|needs|"
    r"need(?=\s+(?:at\s+least|at\s+most|a\s+minimum\s+of|\d|(?:two|three|four|five|six|ten)\s)))"
)
_NP = (
    r"(?P<np>(?:(?:the|our|my|all|any|every|each|this|these|those|every\s+single)\s+)?"
    r"[A-Za-z][\w'/+#.\u2024-]*(?:\s+[\w'/+#.\u2024-]+){0,5}?)"
)
_NP_EXCLUDED = rx.compile(
    r"^(?:i|we|you|he|she|they|that|there|here|everyone|everybody|someone|somebody|anyone|"
    r"anybody|people|one|nobody|no\s+one|who|what|which|let\s+us|let\s+me|u|ya|things?|"
    r"something|(?:anything|everything)(?!\s+(?:we|I|you|that)\b)|life|(?:my|our|his|her|their)\s+"
    r"(?:\w+\s+)?" + PEOPLE + r"|"
    r"he\s+\w+|she\s+\w+)\b",
    I,
)
# "It" and "this" may stand for the project when what follows is about software.
_PROJECT_VERBS = rx.compile(
    r"^(?:run|support|work|be\s+compatible|handle|scale|be\s+deployed|comply|integrate|"
    r"respond|load|stay|be\s+accessible|be\s+available|use|store|encrypt|pass|build|compile|"
    r"ship|launch|be\s+done|be\s+ready|be\s+finished|go\s+live|hit|call|exceed|send|poll|"
    r"scrape|crawl|query|access|log|leak|cost|touch|block|retry)\b",
    I,
)
_FIRST_PERSON_CANT = rx.compile(
    WHO + r"\s+(?:really\s+|absolutely\s+|simply\s+)?" + _CANT + r"\s+" + XL, I
)
_IMPERSONAL_CANT = rx.compile(r"^" + _NP + r"\s+" + _CANT + r"\s+" + XL, I)
_NOT_ALLOWED = rx.compile(
    r"^(?:no\s+)?" + _NP + r"\s+(?:is|are)\s+(?:simply\s+|just\s+|absolutely\s+|totally\s+|"
    r"strictly\s+|completely\s+)?(?:not\s+allowed|forbidden|prohibited|banned|not\s+permitted|"
    r"off[- ]limits|a\s+no-go|not\s+an\s+option|out\s+of\s+the\s+question|not\s+acceptable|"
    r"unacceptable|not\s+tolerated|off\s+the\s+table|a\s+dealbreaker|allowed)\b",
    I,
)
# "No PII may leave the VPC", "Under no circumstances can we store raw IPs".
_NO_X_MAY = rx.compile(
    r"^no\s+" + _NP + r"\s+(?:may|can|should|must|shall|will|is\s+allowed\s+to|are\s+allowed\s+to|"
    r"is\s+to|are\s+to|ever)\s+" + XL,
    I,
)
_NOBODY = rx.compile(
    r"^(?:nobody|no\s+one|none\s+of\s+us|no\s+engineer|no\s+developer|no\s+user)\s+(?:is|are|may|can|"
    r"should|must|gets\s+to)\s+(?:allowed\s+to\s+|permitted\s+to\s+)?" + XL,
    I,
)
_LIMIT = rx.compile(
    r"(?:^|,\s+)(?:the\s+|our\s+|my\s+)?(?P<np>(?:[\w-]+\s+){0,4}?(?:budget|cap|limit|ceiling|maximum|max|"
    r"allowance|quota)(?:\s+(?:for|on)\s+(?:the\s+|a\s+|my\s+|our\s+)?(?:[\w-]+\s+){0,2}?[\w-]+)?)"
    r"\s+(?:is|was|has\s+been|will\s+be)\s+(?:now\s+|set\s+to\s+|raised\s+to\s+|"
    r"lowered\s+to\s+|capped\s+at\s+)?(?P<x>[^,;:!?\n]*\d[^,;:!?\n]*)",
    I,
)
_NUMBER = r"\d+(?:[.,\u2024\u201a]\d+)*"
_NUMBER_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)"
)
_FIGURE = (
    r"(?P<x>(?:about\s+|around\s+|roughly\s+|just\s+|only\s+)?(?:[$€£¥]?\d|(?i:"
    + _NUMBER_WORDS
    + r")\s+\w)[^,;:!?\n]*)"
)
# "Uploads are limited to 25 MB per file", "uploads can go up to 50 MB": one limit, by
# what it limits, so the second replaces the first.
_LIMITED_TO = [
    rx.compile(
        r"^(?:the\s+|our\s+|my\s+)?(?P<np>[\w\s'-]{1,40}?)\s+(?:is|are)\s+(?:now\s+)?(?:limited|capped|"
        r"restricted)\s+(?:to|at)\s+" + _FIGURE,
        I,
    ),
    rx.compile(
        r"^(?!(?:a|an)\s)(?:the\s+|our\s+|my\s+)?(?P<np>(?-i:[a-z])[\w\s-]{0,39}?)\s+can\s+(?:now\s+)?"
        r"(?:go|be|take|use|reach)\s+(?:up\s+to|as\s+(?:much|long|high)\s+as)\s+" + _FIGURE,
        I,
    ),
]
# "Make the budget £250", "we got approval to raise the Lambda memory limit to 1024 MB",
# "the organisers raised the team size limit to 6".
_SET_TO = rx.compile(
    r"(?:^|\bto\s+|\b(?=(?:raised|lowered|increased|reduced|bumped|cut|dropped|changed|set)\b))"
    r"(?:please\s+)?(?:make|set|change|raise|lower|bump|increase|reduce|drop|cut|up|stretch|raised|"
    r"lowered|increased|reduced|bumped|dropped|changed)\s+(?:the|my|our)\s+(?P<np>[\w\s-]{0,30}?(?:budget|cap|limit|ceiling|maximum|"
    r"max|allowance|quota|spend))\s+(?:to\s+|at\s+)?"
    r"(?P<x>[$€£¥]?" + _NUMBER + r"(?:\s?(?:%|[a-zA-Z]+))?)",
    I,
)
# "I can stretch to $1,800 for the laptop": a budget restated.
_STRETCH = rx.compile(
    r"\b(?:I|we)\s+can\s+(?:now\s+)?(?:stretch|go|spend|afford)\s+(?:up\s+)?to\s+"
    r"(?P<x>[$€£¥]" + _NUMBER + r"k?)(?:\s+(?:on|for)\s+(?P<np>[^,;:!?\n]+))?",
    I,
)
# "I can only spend about 5 hours a week on this side project".
_CAN_ONLY = rx.compile(
    r"\b(?:I|we)\s+can\s+only\s+(?:spend|give|afford|do|manage|put\s+in|set\s+aside|commit)\s+"
    + _FIGURE,
    I,
)
# "The VPS only has 1 GB of RAM", "I only have about 45 minutes a day to study".
_ONLY_HAS = rx.compile(
    r"^(?P<lead>on\s+(?:weekdays|weekends|workdays|school\s+nights)\s*,?\s+)?"
    r"(?P<np>(?:the\s+|our\s+|my\s+)?[\w\s-]{1,30}?|I|we)\s+only\s+(?:has|have|get|gets)\s+"
    + _FIGURE,
    I,
)
# What "only has" limits: a recurring allowance of the user's ("45 minutes a day"), or
# a machine's resources ("the VPS only has 1 GB of RAM"); "I only have 2 eggs" is neither.
_RECURRING = rx.compile(
    r"\b(?:a|per|each|every)\s+(?:day|week|month|year|night|evening|weekday|session)\b", I
)
_MACHINE = rx.compile(
    r"\b(?:vps|server|machine|laptop|instance|box|pi|droplet|container|cluster|node|vm|plan|tier|"
    r"account|disk|drive|database|db|runner)s?$",
    I,
)
# "Max 2 production deploys per day", "deploys are frozen for the whole of December".
# "The free tier allows no more than 3 API calls per second".
_ALLOWS_AT_MOST = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<np>[\w\s-]{1,30}?)\s+(?:only\s+)?(?:allows?|permits?|lets\s+(?:us|me)\s+"
    r"(?:do|make|send|have))\s+(?:no\s+more\s+than|at\s+most|up\s+to|a\s+maximum\s+of|only)\s+"
    + _FIGURE,
    I,
)
_MAX_N = rx.compile(
    r"^(?:a\s+)?(?P<kind>max(?:imum)?|at\s+most|no\s+more\s+than)\s+"
    r"(?P<x>\d[\d.,]*\s+(?:[\w-]+\s+){0,3}?[\w-]+(?:\s+(?:per|a|an|each)\s+\w+)?)\s*$",
    I,
)
_FROZEN = rx.compile(
    r"^(?:the\s+|our\s+|all\s+)?(?P<np>(?:[\w-]+\s+)?(?:deploys|deployments|releases|merges|changes|"
    r"commits|pushes|code|hiring|spending|purchases|travel|launches|migrations))\s+(?:is|are)\s+(?:frozen|paused|blocked|"
    r"suspended|on\s+hold|not\s+allowed)\s+(?P<x>(?:for|during|until|in|over|through)\s+[^,;:!?\n]+)",
    I,
)
_STUCK_ON = rx.compile(
    r"\b(?:I|we)\s+(?:am|are)\s+(?:still\s+)?(?:stuck|locked|pinned)\s+(?:on|with|to)\s+"
    r"(?P<x>(?-i:[A-Z])[^,;:!?\n]*?)(?=\s+(?:because|since|due|for|until|as)\b|\s*$)",
    I,
)
_ACCESS = (
    r"(?:internet|network|root|admin|administrator|sudo|write|ssh|vpn|gpu|docker|install|"
    r"outbound|external|production|prod|cloud)"
)
# "No internet access on the build machines", "I don't have admin rights on my laptop".
_NO_ACCESS = [
    rx.compile(
        r"^no\s+(?P<x>" + _ACCESS + r"(?:\s+[\w-]+){0,2}?)\s+(?:on|in|at|for|from)\s+"
        r"(?P<where>[^,;:!?\n]+)$",
        I,
    ),
    rx.compile(
        r"\b(?:I|we)\s+(?:do\s+not|does\s+not|did\s+not|cannot|can\s+not)\s+(?:have|get)\s+"
        r"(?:any\s+)?(?P<x>" + _ACCESS + r"(?:\s+[\w-]+){0,2}?\s*(?:rights|access|privileges|"
        r"permissions?))(?:\s+(?:on|to|in|for|at)\s+(?P<where>[^,;:!?\n]+))?",
        I,
    ),
]
_POINTERS = frozenset("it this that these those they he she".split())
# "Max file size for uploads is 10 MB", "uptime target is 99.95%".
_MAX_IS = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<kind>max(?:imum)?|min(?:imum)?)\s+(?P<np>[\w\s-]{1,40}?)\s+"
    r"(?:is|are)\s+(?:now\s+)?" + _FIGURE,
    I,
)
_TARGET_IS = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<np>(?:[\w-]+\s+){0,3}?(?:target|goal|sla|slo|objective))\s+"
    r"(?:is|are)\s+(?:now\s+)?" + _FIGURE,
    I,
)
_NEVER_EVER = rx.compile(
    r"^(?:under\s+no\s+circumstances|in\s+no\s+case|at\s+no\s+(?:point|time)|never\s+ever|"
    r"on\s+no\s+account)\s*,?\s+(?:can|should|may|will|must|do|are|shall)\s+(?:we|I|you|they|it)\s+"
    r"(?:be\s+allowed\s+to\s+)?" + XL,
    I,
)
_FIRST_PERSON_MUST = rx.compile(
    WHO + r"\s+(?:really\s+|absolutely\s+|definitely\s+|also\s+|still\s+)?(?P<modal>must|have\s+to|"
    r"has\s+to|need\s+to|needs\s+to|have\s+got\s+to|(?:are|am|is)\s+required\s+to|"
    r"(?:are|am|is)\s+obliged\s+to)\s+" + XL,
    I,
)
_FIRST_PERSON_NEED = rx.compile(
    WHO + r"\s+(?:really\s+|absolutely\s+|definitely\s+|also\s+|still\s+)?(?:need|needs|require|"
    r"requires)\s+(?!to\b)" + XL,
    I,
)
_IMPERSONAL_MUST = rx.compile(r"^" + _NP + r"\s+" + _MUST + r"\s+" + XL, I)
_REQUIRED = rx.compile(
    r"^" + _NP + r"\s+(?:is|are)\s+(?:required|mandatory|a\s+must|essential|non-negotiable|"
    r"a\s+hard\s+requirement|compulsory|a\s+requirement)\b",
    I,
)
_REQUIREMENTS_ARE = rx.compile(
    r"\b(?:the\s+|our\s+|my\s+)?(?:main\s+|key\s+|hard\s+)?requirements?\s+(?:is|are|:)\s*" + XL, I
)
_DELIVERABLE = rx.compile(
    r"\b(?:paper|report|thesis|project|proposal|assignment|essay|draft|submission|deliverable|"
    r"review|audit|application|invoice|article|deck|chapter|manuscript|grant|release|launch)$",
    I,
)
_DEADLINE = [
    # "The launch is on September 5": a dated event the user works towards.
    rx.compile(
        r"^(?:the\s+|our\s+|my\s+)?(?P<what>(?:[\w-]+\s+){0,2}?(?:launch|release|go-live|demo\s+day|"
        r"submission|exam|presentation|audit|cutover|deadline|due\s+date|defen[cs]e|viva|thesis\s+"
        r"defen[cs]e|interview))\s+(?:is|will\s+be)\s+(?:now\s+)?"
        r"(?:(?:on|set\s+for|scheduled\s+for|planned\s+for|due\s+on)\s+)?"
        r"(?P<x>(?:\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d|"
        r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|the\s+\d)[^,;:!?\n]*)",
        I,
    ),
    rx.compile(
        r"\b(?:extended|moved|pushed|postponed|changed|shifted|set|brought\s+forward)\s+(?:back\s+)?"
        r"(?:the\s+|our\s+|my\s+)?(?:deadline|due\s+date|launch(?:\s+date)?|release(?:\s+date)?)"
        r"(?:\s+for\s+[^,;:!?\n]+?)?\s+(?:back\s+)?(?:to|until)\s+(?P<x>[^,;:!?\n]+)",
        I,
    ),
    rx.compile(
        r"\b(?:the\s+|our\s+|my\s+)?(?:deadline|due\s+date|launch\s+date|release\s+date|cutoff|"
        r"go-live(?:\s+date)?)(?:\s+for\s+[^,;:!?\n]+?)?\s+(?:is|was|has\s+been|got|is\s+now|"
        r"will\s+be)\s+(?:(?:pushed|moved|extended|changed|postponed|delayed|brought\s+forward|"
        r"set|fixed|updated)\s+(?:back\s+)?(?:to|until|for)\s+)?(?P<x>[^,;:!?\n]+)",
        I,
    ),
    rx.compile(
        r"^(?P<what>(?:the\s+|our\s+|my\s+)?(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:is|are)\s+(?:now\s+)?due\s+"
        r"(?P<x>(?:by|on|in|at|before)\s+[^,;:!?\n]+|(?P<bare>\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]+[^,;:!?\n]*|"
        r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2}[^,;:!?\n]*))",
        I,
    ),
    rx.compile(
        r"\b(?:we|I)\s+(?:need|have|must|got)\s+(?:to\s+)?(?:ship|launch|release|deliver|"
        r"finish|deploy|submit)\s+(?:it|this|everything|the\s+\w+)?\s*(?P<x>by\s+[^,;:!?\n]+)",
        I,
    ),
]
_IDLE_CANT = rx.compile(
    r"^(?:get\s+enough|believe|wait|remember|recall|think|imagine|tell|say|see|hear|decide|figure|find|"
    r"help|stop|stand|bear|sleep|focus|get\s+over|understand|make\s+it|come|go|be\s+bothered|"
    r"even|really|seem\s+to|quite|thank|complain|lie|deny|argue|resist|fathom|wrap|keep\s+up|"
    r"do\s+this|do\s+that|do\s+it|handle\s+(?:this|that|it)|deal\s+with\s+(?:this|that|it)|"
    r"afford\s+to\s+lose\s+you|wait\s+to)\b",
    I,
)


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
        IDLE_OBJECTS.match(obj) is not None or _IDLE_CANT.match(obj) is not None
    )


def _impersonal_np(match: re.Match[str], verb: str | None = None) -> str | None:
    np = match.group("np").strip()
    if len(np) < 2:
        return None
    if re.match(r"^(?:it|this)$", np, I):
        # "It has to be HIPAA compliant": about the project when it names something.
        named = verb is not None and re.search(r"[A-Z0-9]", verb) is not None
        return np if verb and (_PROJECT_VERBS.match(verb) or named) else None
    return None if _NP_EXCLUDED.match(np) else np


def _limit_fact(np: str, content: str) -> Step:
    np = re.sub(r"^(?:the|our|my)\s+", "", np.strip(), flags=I)
    named = re.search(r"\b(?:budget|cap|limit|ceiling|maximum|max|allowance|quota)$", np, I)
    key = fact_key("constraint", np if named else f"{np} limit")
    return (make_fact("constraint", F, np, content, key=key, subject=slug(np), exclusive=True), [])


_NOT_THEIRS = rx.compile(
    r"\b(?:in|for)\s+(?:this|the|my|our)\s+(?:example|exercise|snippet|file|code|question|problem|"
    r"homework|assignment|test)\b|\bexample\b",
    I,
)


def _read_limit(clause: str) -> list[Step] | None:
    """Limits stated by their figure rather than by "can't" (not those of an example)."""
    if _NOT_THEIRS.search(clause):
        return None
    for pattern in rx.able(_LIMITED_TO, clause):
        match = pattern.search(clause)
        np = match.group("np").strip() if match is not None else ""
        if match is not None and not _NP_EXCLUDED.match(np) and np.lower() not in _POINTERS:
            np, figure = match.group("np").strip(), restore(match.group("x")).strip()
            return [_limit_fact(np, restore(f"{np} limited to {figure}"))]
    match = _MAX_IS.search(clause)
    if match is not None:
        np, figure = match.group("np").strip(), restore(match.group("x")).strip()
        kind = "max" if match.group("kind").lower().startswith("max") else "min"
        return [_limit_fact(f"{kind} {np}", restore(f"{kind} {np}: {figure}"))]
    match = _SET_TO.search(clause)
    if match is not None:
        np, figure = match.group("np").strip(), restore(match.group("x")).strip()
        return [_limit_fact(np, restore(f"{np}: {figure}"))]
    match = _STRETCH.search(clause)
    if match is not None and own(clause, match.start()):
        np = f"budget for {match.group('np').strip()}" if match.group("np") else "budget"
        return [_limit_fact(np, restore(f"{np}: up to {match.group('x')}"))]
    match = _CAN_ONLY.search(clause)
    if match is not None and own(clause, match.start()):
        content = _as_said(clause)
        key = fact_key("constraint", _key_words("", "can only " + match.group("x")))
        return [(make_fact("constraint", F, match.group("x"), content, key=key), [])]
    match = _ONLY_HAS.search(clause)
    if match is not None and own(clause, match.start()):
        np = match.group("np").strip()
        person = np.lower() in ("i", "we")
        kept = _RECURRING.search(clause) or match.group("lead") if person else _MACHINE.search(np)
        if kept and "%" not in match.group("x"):
            content = _as_said(clause)
            who = "" if np.lower() in ("i", "we") else np
            key = fact_key("constraint", _key_words(who, "only have " + match.group("x")))
            return [(make_fact("constraint", F, np, content, key=key), [])]
    match = _ALLOWS_AT_MOST.search(clause)
    if match is not None and not _NP_EXCLUDED.match(match.group("np").strip()):
        np = match.group("np").strip()
        return [_limit_fact(np, restore(f"{np} allows at most {match.group('x').strip()}"))]
    match = _MAX_N.search(clause)
    if match is not None:
        kind = re.sub(r"\s+", " ", match.group("kind").lower())
        content = restore(f"{kind} {match.group('x').strip()}")
        key = fact_key("constraint", _key_words("", f"{kind} {match.group('x')}"))
        return [(make_fact("constraint", F, match.group("x"), content, key=key), [])]
    match = _FROZEN.search(clause)
    if match is not None and not _NP_EXCLUDED.match(match.group("np").strip()):
        content = _as_said(clause)
        key = fact_key("constraint", _key_words(match.group("np"), "frozen"))
        np = match.group("np").strip()
        return [(make_fact("constraint", F, np, content, key=key, negative=True), [])]
    match = _STUCK_ON.search(clause)
    if match is not None and own(clause, match.start()):
        what = clean_object(match.group("x"))
        if what:
            key = fact_key("constraint", "stuck on " + head(re.sub(r"\s+\d[\d.]*$", "", what)))
            return [(make_fact("constraint", F, what, f"stuck on {what}", key=key), [])]
    for pattern in rx.able(_NO_ACCESS, clause):
        match = pattern.search(clause)
        if match is not None and own(clause, match.start()):
            what = restore(match.group("x")).strip().lower()
            where = match.groupdict().get("where")
            content = f"no {what}" + (f" on {restore(where).strip()}" if where else "")
            key = fact_key("constraint", content)
            return [(make_fact("constraint", F, what, content, key=key, negative=True), [])]
    return None


_NO_BUDGET = rx.compile(
    r"\b(?:I|we)\s+(?:have|got|are\s+stuck\s+with)\s+(?:zero|no|a\s+tiny|very\s+little|little)\s+"
    r"(?:budget|money|funds|funding)\s+(?:for|to\s+spend\s+on)\s+" + XL,
    I,
)


def read_constraint(clause: str) -> list[Step] | None:
    found = _read_limit(clause)
    if found:
        return found
    match = _NO_BUDGET.search(clause)
    if match is not None and own(clause, match.start()):
        # "We have zero budget for paid third-party APIs"
        what = clean_object(match.group("x"))
        if what:
            return [(make_fact("constraint", F, what, f"no budget for {what}"), [])]
    match = _LIMIT.search(clause)
    if match is not None and not _NOT_THEIRS.search(clause):
        np = match.group("np").strip()
        content = restore(f"{np}: {clean_object(match.group('x')) or match.group('x')}")
        key = fact_key("constraint", np)
        return [
            (make_fact("constraint", F, np, content, key=key, subject=slug(np), exclusive=True), [])
        ]
    match = _NEVER_EVER.search(clause) or _NO_X_MAY.search(clause) or _NOBODY.search(clause)
    if match is not None:
        content = _as_said(clause)
        np = match.groupdict().get("np") or match.group("x")
        key = fact_key("constraint", _key_words(np, "not " + match.group("x")))
        return [(make_fact("constraint", F, match.group("x"), content, key=key, negative=True), [])]
    match = _FIRST_PERSON_CANT.search(clause)
    if match is not None and own(clause, match.start()):
        items = [o for o in _verb_list(match.group("x")) if not _idle(o)]
        return [
            (make_fact("constraint", F, o, f"cannot {o}", negative=True), []) for o in items
        ] or None
    for pattern in (_IMPERSONAL_CANT, _NOT_ALLOWED):
        match = pattern.search(clause)
        if match is None:
            continue
        rest = match.groupdict().get("x")
        np = _impersonal_np(match, rest)
        if np is None:
            continue
        if (
            pattern is _NOT_ALLOWED
            and not re.match(r"^no\s+", clause, I)
            and re.search(r"\bis\s+allowed\b|\bare\s+allowed\b", match.group(0), I)
        ):
            continue  # "X is allowed" permits; only "no X is allowed" forbids
        content = _as_said(clause)
        key = fact_key("constraint", _key_words(np, "not " + (rest or "allowed")))
        return [(make_fact("constraint", F, np, content, key=key, negative=True), [])]
    return None


def read_requirement(clause: str) -> list[Step] | None:
    match = _TARGET_IS.search(clause)
    if match is not None:
        target = re.sub(r"^(?:the|our|my)\s+", "", match.group("np").strip(), flags=I)
        content = restore(f"{target}: {match.group('x').strip()}")
        fact = make_fact("requirement", F, target, content, key=fact_key("requirement", target))
        return [(fact, [])]
    match = _FIRST_PERSON_MUST.search(clause)
    if match is not None and own(clause, match.start()):
        items = [o for o in _verb_list(match.group("x")) if not _idle(o)]
        return [(make_fact("requirement", F, o, f"must {o}"), []) for o in items] or None
    match = _FIRST_PERSON_NEED.search(clause)
    if match is not None and own(clause, match.start()):
        items = [o for o in objects(match.group("x")) if not _idle(o)]
        return [(make_fact("requirement", F, o, f"needs {o}"), []) for o in items] or None
    for pattern in rx.able(_DEADLINE, clause):
        match = pattern.search(clause)
        if match is None:
            continue
        if match.groupdict().get("bare") and not _DELIVERABLE.search(match.group("what") or ""):
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
    match = _REQUIREMENTS_ARE.search(clause)
    if match is not None:
        items = objects(match.group("x"))
        return [(make_fact("requirement", F, o, f"requires {o}"), []) for o in items] or None
    for pattern in (_IMPERSONAL_MUST, _REQUIRED):
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


_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DATE = rx.compile(
    r"(?P<x>(?:"
    + _MONTHS
    + r"\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{1,2}(?:st|nd|rd|th)?\s+"
    + _MONTHS
    + r"(?:\s+\d{4})?|\d{4}-\d{2}-\d{2}|(?:the\s+)?end\s+of\s+(?:"
    + _MONTHS
    + r"|the\s+(?:month|quarter|year)|q[1-4])|q[1-4](?:\s+\d{4})?|(?:next\s+)?(?:monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)(?:\s+the\s+\d{1,2}(?:st|nd|rd|th)?)?|"
    r"the\s+\d{1,2}(?:st|nd|rd|th)))\b",
    I,
)
# "The audit has been brought forward to 28 April": whatever it is, a date that moved.
_MOVED_TO_DATE = rx.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?P<what>(?:[\w-]+\s+){0,3}?(?:audit|review|exam|launch|release|"
    r"demo|submission|delivery|handover|hand-in|presentation|migration|cutover|go-live|project|"
    r"assignment|thesis|dissertation|paper|report|milestone|deliverable|inspection|deadline|"
    r"due\s+date|beta|rollout|ship\s+date|filing|payment))\s+(?:(?:has\s+been|have\s+been|was|were|got|"
    r"is|are)\s+)?(?:now\s+)?(?:moved|pushed|brought\s+forward|postponed|delayed|extended|"
    r"rescheduled|shifted|bumped|slipped)\s+(?:back\s+|up\s+|out\s+)?(?:to|until|till)\s+",
    I,
)
_MOVED = rx.compile(
    r"\b(?:deadline|launch|release|go-live|due\s+date|ship\s+date|cutoff|submission)\b.*\b(?:slipped|"
    r"moved|pushed|postponed|delayed|extended|changed|shifted|brought\s+forward|now)\b"
    r"|\b(?:slipped|moved|pushed|postponed|delayed|extended|changed|shifted)\b.*\b(?:deadline|launch|"
    r"release|go-live|due\s+date|ship\s+date|(?:is|are)\s+(?:now\s+)?due)\b",
    I,
)


def read_moved_deadline(sentence: str) -> list[Step]:
    """A deadline moved across clauses ("Launch slipped, it's now November 15")."""
    if not _MOVED.search(sentence) and not _MOVED_TO_DATE.search(sentence):
        return []
    dates = list(_DATE.finditer(sentence))
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
