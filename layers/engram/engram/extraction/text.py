"""From a message to the clauses the rules read: sentences, questions left out, discourse
markers ("Actually,", "Scratch that,") removed, two statements joined by "and I" split."""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["INNER_DOT", "clauses", "expand", "restore", "sentences"]

# Dots inside tokens (Node.js, 3.11, e.g.) must neither end a sentence nor an object:
# they travel as ONE DOT LEADER until the content is built.
INNER_DOT = "\u2024"
_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|approx|incl|no)\.(?=\s)", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})

# Openers that carry no fact ("Actually, I prefer React" states "I prefer React").
_MARKERS = re.compile(
    r"^(?:(?:actually|also|and|but|btw|by\s+the\s+way|anyway|honestly|to\s+be\s+honest|tbh|"
    r"fyi|just\s+so\s+you\s+know|for\s+the\s+record|for\s+context|scratch\s+that|correction|"
    r"update|change\s+of\s+plans?|hmm+|oops|hey|hi|hello|in\s+fact|as\s+it\s+turns\s+out|"
    r"on\s+second\s+thought|never\s*mind|forget\s+(?:that|what\s+I\s+said)|one\s+more\s+thing|"
    r"please\s+note|also\s+note|fwiw|personally|these\s+days|nowadays|lately|oh|ok(?:ay)?)"
    r"(?:\s*[,:;!-]+\s*|\s+)"
    # Words that are markers only when a comma sets them apart ("No, ..." but "No X allowed").
    r"|(?:well|so|wait|right|yes|yeah|yep|no|nope|sorry|note|remember|lol|haha|cool|great|"
    r"thanks|sure|true|fine)\s*[,:;!-]+\s*)+",
    re.IGNORECASE,
)
# A question without its mark still asks: "what do you think", "should we use X".
_ASKS = re.compile(
    r"^(?:what|which|who|whom|whose|why|how|where|when(?!\s+(?:I|you|we)\b)|is\s+(?:it|there|this|that)|"
    r"are\s+(?:you|there|we)|do\s+(?:you|we|I)|does|did|can\s+(?:we|I)|could\s+(?:we|I)|"
    r"should\s+(?:we|I)|shall\s+(?:we|I)|would\s+(?:it|we|I)|will\s+(?:it|we)|have\s+you|"
    r"has\s+anyone|any\s+(?:idea|thoughts))\b",
    re.IGNORECASE,
)
# A request phrased as a question can still set how answers should be ("Could you keep
# answers short from now on?"): such questions are read.
_STANDING_REQUEST = re.compile(
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:(?:always|never|from\s+now\s+on|"
    r"stop|not)\b|.*\b(?:from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|"
    r"(?:all|your|the)\s+(?:answers|responses|replies)|every\s+time|always)\b)",
    re.IGNORECASE,
)
# Statements joined in one sentence: "I like Python but I hate Java", "...; we use Go".
_JOINS = re.compile(
    r"\s*;\s*|\s*,?\s+(?:and|but|so|while|whereas|although|though|plus)\s+"
    r"(?=(?:I|I'm|I've|I'll|I'd|we|we're|we've|we'll|my|our)\b)"
    r"|,\s+(?=(?:I|I'm|I've|I'll|we|we're|we've|we'll)\s+(?!mean\b|guess\b|think\b))"
    r"|,\s+(?=(?:it's|it\s+is|that's|everything\s+is|everything's|now\s+it's)\s+)",
    re.IGNORECASE,
)


_CONTRACTIONS = [
    (re.compile(r"\b(can)'t\b", re.I), r"\1not"),
    (re.compile(r"\b(w)on't\b", re.I), r"\1ill not"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\b(I)'m\b", re.I), r"\1 am"),
    (re.compile(r"\b(we|you|they)'re\b", re.I), r"\1 are"),
    (re.compile(r"\b(I|we|you|they)'ve\b", re.I), r"\1 have"),
    (re.compile(r"\b(I|we|you|they|it|that)'ll\b", re.I), r"\1 will"),
    (
        re.compile(r"\b(I|we|you|they)'d\s+(rather|prefer|like|love|want|say|go|use|pick)\b", re.I),
        r"\1 would \2",
    ),
    (re.compile(r"\b(it|that|there|what|name|stack|plan|deadline)'s\b", re.I), r"\1 is"),
]


def expand(clause: str) -> str:
    """Contractions written out, so a rule states each form once ("we're" = "we are")."""
    for pattern, replacement in _CONTRACTIONS:
        clause = pattern.sub(replacement, clause)
    return clause


# A short label before a colon ("Quick intro:", "Final call:", "Some context first:")
# frames a statement without being part of it; labels that name a kind of fact stay.
_LABEL = re.compile(r"^(?P<label>[\w'\s-]{1,30}?):\s+(?=\S)")
_KEEP_LABELS = re.compile(
    r"requirement|constraint|deadline|stack|rule|preference|favou?rite|goal|decision|name|"
    r"role|location|timezone|instruction|must|note\s+to\s+self",
    re.I,
)


def _unlabel(sentence: str) -> str:
    match = _LABEL.match(sentence)
    if (
        match
        and len(match.group("label").split()) <= 4
        and not _KEEP_LABELS.search(match.group("label"))
    ):
        return sentence[match.end() :]
    return sentence


def _protect(text: str) -> str:
    text = text.translate(_QUOTES)
    text = _ABBREVIATIONS.sub(lambda m: m.group(1) + INNER_DOT, text)
    return re.sub(r"(?<=\w)\.(?=\w)", INNER_DOT, text)


def restore(text: str) -> str:
    return text.replace(INNER_DOT, ".")


def sentences(text: str) -> Iterator[tuple[str, bool]]:
    """(sentence, is_question) for each sentence of ``text``; markers stripped."""
    for match in _SENTENCE.finditer(_protect(text)):
        raw = match.group(0).strip()
        if not raw:
            continue
        question = raw.endswith("?")
        sentence = _MARKERS.sub("", _unlabel(raw.rstrip(".!?\n "))).strip(" ,-")
        if not sentence:
            continue
        if _ASKS.match(sentence):
            question = True
        if question and _STANDING_REQUEST.match(sentence):
            sentence = re.sub(
                r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?",
                "",
                sentence,
                flags=re.IGNORECASE,
            )
            question = False
        yield sentence, question


def clauses(sentence: str) -> list[str]:
    """The statements of one sentence, each starting where its subject starts."""
    parts = [p.strip(" ,") for p in _JOINS.split(sentence)]
    return [expand(_MARKERS.sub("", p).strip(" ,")) for p in parts if p and p.strip(" ,")]
