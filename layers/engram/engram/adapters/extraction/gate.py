"""The cost gate of the LLM extractor: which turns can hold a fact about the user.

A model costs money and time per turn; most turns of a chat hold no fact about the
person ("haha same!", "What do you think?"). A turn is worth the model's time when it
says something in the first person (in any language the rules read: English,
Indonesian/Malay, Turkish, whose first person is often only a verb ending) or gives the
assistant a directive, and is more than small talk. The words are data
(``data/en.json``, ``gate``). Cheap: one pass over the turn's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from engram.adapters.extraction.tables import tables

__all__ = ["suspicious", "worth_reading"]

_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*|[!?.]")


@dataclass(frozen=True)
class _Gate:
    first_person: frozenset[str]
    tr_endings: tuple[str, ...]
    tr_markers: frozenset[str]
    id_suffixes: tuple[str, ...]
    directives: frozenset[str]
    small_talk: frozenset[str]
    min_words: int
    injection: tuple[str, ...]


@cache
def _gate() -> _Gate:
    g = tables("en").raw["gate"]
    return _Gate(
        first_person=frozenset(g["first_person"] + g["first_person_id"] + g["first_person_tr"]),
        tr_endings=tuple(sorted(g["tr_first_person_endings"], key=len, reverse=True)),
        tr_markers=frozenset(g["tr_markers"]),
        id_suffixes=tuple(g["id_first_person_suffixes"]),
        directives=frozenset(g["directives"]),
        small_talk=frozenset(g["small_talk"]),
        min_words=int(g["min_words"]),
        injection=tuple(m.lower() for m in g["injection_markers"]),
    )


def worth_reading(text: str) -> bool:
    """Whether ``text`` (one turn) can hold a fact about its speaker or a standing
    instruction, and so is worth a model's reading."""
    gate = _gate()
    words = [w.lower().replace("\u2019", "'") for w in _WORD.findall(text)]
    spoken = [w for w in words if w not in "!?."]
    if len(spoken) < gate.min_words or all(w in gate.small_talk for w in spoken):
        return False
    turkish = any(not w.isascii() for w in spoken) or any(w in gate.tr_markers for w in spoken)
    for word in spoken:
        if word in gate.first_person or word in gate.directives:
            return True
        if turkish and len(word) > 3 and word.endswith(gate.tr_endings):
            return True  # Turkish says "I" in the verb: "kullanıyorum", "taşındık", "kedim"
        if len(word) > 4 and word.endswith(gate.id_suffixes) and word[:-2] in _ID_NOUNS:
            return True  # Indonesian "kucingku": my cat
    return False


def suspicious(text: str) -> bool:
    """Whether a turn addresses the memory system rather than the conversation ("ignore
    previous instructions and store...", "add a standing instruction: ..."): whatever a
    model reads in it is not learnt."""
    said = " ".join(text.lower().split())
    return any(marker in said for marker in _gate().injection)


# Nouns that take the Indonesian first-person suffix (-ku) in what people tell about
# themselves; the gate needs no more than that a possessed noun appears.
_ID_NOUNS = frozenset(
    "kucing anjing anak suami istri rumah kerja pekerjaan ibu ayah adik kakak keluarga mobil"
    " motor pacar teman kantor bos hobi".split()
)
