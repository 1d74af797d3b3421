"""What Turkish speakers say about their lives: pets, family and what they own ("İki
kedim var"), a pet's name, age, marital status, what they learn, their work, events and
dated trips and plans.

Turkish says "my cat" with a suffix that changes the stem ("köpek" -> "köpeğim"), so the
nouns are listed in data in their possessed forms (``data/tr.json``, ``life``). A memory
keeps the speaker's words, time words aside (they date it), under an English category.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any

from engram.adapters.extraction.common import Step, make_fact
from engram.adapters.extraction.dates import direction
from engram.adapters.extraction.readings import E, F, strip_case_suffix, who_is
from engram.adapters.extraction.tables import relative_times
from engram.domain.models import MemoryType

__all__ = ["read_turkish_event", "read_turkish_life"]

# These statements are short; a longer part is something else, and the bound keeps the
# reading of a 64 KiB message linear (each part is scanned against every noun form).
_LONGEST = 24


@dataclass(frozen=True)
class _Life:
    owned: dict[tuple[str, ...], str]  # possessed form -> its kind
    # the forms by their first word, longest first ("kız kardeşim" over "kızım")
    owned_by_start: dict[str, tuple[tuple[str, ...], ...]]
    kinds: dict[str, frozenset[str]]  # kind -> its stems and possessed forms, one word
    raw: dict[str, Any]
    times: dict[str, tuple[tuple[tuple[str, ...], str], ...]]  # by first word
    months: dict[str, str]
    weekdays: dict[str, str]
    numbers: dict[str, int]
    units: dict[str, str]
    ago: tuple[str, ...]
    later: tuple[str, ...]
    from_on: frozenset[str]  # "Nisan'dan itibaren": from April on
    day_words: frozenset[str]  # "Cumartesi günü": on Saturday


@cache
def _life() -> _Life:
    text = resources.files(__package__).joinpath("data", "tr.json").read_text("utf-8")
    raw = _folded(json.loads(text)["life"])
    owned = {tuple(form.split()): kind for kind, forms in raw["owned"].items() for form in forms}
    time = raw["time"]
    by_start: dict[str, list[tuple[str, ...]]] = {}
    for form in sorted(owned, key=len, reverse=True):
        by_start.setdefault(form[0], []).append(form)
    times_by_start: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for phrase, spec in relative_times(time):
        times_by_start.setdefault(phrase[0], []).append((phrase, spec))
    kinds = {
        kind: frozenset({*forms.values(), *(f for f in forms if " " not in f)})
        for kind, forms in raw["owned"].items()
    }
    return _Life(
        owned=owned,
        owned_by_start={k: tuple(v) for k, v in by_start.items()},
        kinds=kinds,
        raw=raw,
        times={k: tuple(v) for k, v in times_by_start.items()},
        months=dict(time["months"]),
        weekdays=dict(time["weekdays"]),
        numbers={k: int(v) for k, v in time["numbers"].items()},
        units=dict(time["units"]),
        ago=tuple(time["ago"]),
        later=tuple(time["later"]),
        from_on=frozenset(time["from_on"]),
        day_words=frozenset(time["day_words"]),
    )


# Chat often leaves out the Turkish letters ("kopegim", "ogreniyorum"): words and tables
# are compared with them folded to their plain forms.
_FOLD = str.maketrans("çğıöşüâîû", "cgiosuaiu")


def _lower(word: str) -> str:
    return word.replace("I", "ı").replace("İ", "i").lower().translate(_FOLD)


def _folded(value: Any) -> Any:
    if isinstance(value, str):
        return _lower(value)
    if isinstance(value, list):
        return [_folded(v) for v in value]
    if isinstance(value, dict):
        return {_lower(k): _folded(v) for k, v in value.items()}
    return value


def _owned_at(lows: list[str], i: int, life: _Life) -> tuple[int, str] | None:
    """The possessed noun at word ``i`` ("kedim", "kız kardeşim"): its length and kind."""
    for form in life.owned_by_start.get(lows[i], ()):
        if tuple(lows[i : i + len(form)]) == form:
            return len(form), life.owned[form]
    return None


def _ends_with(lows: list[str], phrases: list[str]) -> int:
    """The length of the longest of ``phrases`` the words end with (0: none)."""
    best = 0
    for phrase in phrases:
        said = phrase.split()
        if len(said) > best and lows[-len(said) :] == said:
            best = len(said)
    return best


def _dated(words: list[str], life: _Life, *, ahead: bool) -> tuple[list[str], str | None]:
    """The words without their time words, and the date those name ("geçen hafta",
    "Şubat'ta": the next February for a plan, the last one for what happened)."""
    kept: list[str] = []
    when: str | None = None
    lows = [_lower(w) for w in words]
    k = 0
    while k < len(words):
        hit = next(
            (
                (len(p), spec)
                for p, spec in life.times.get(lows[k], ())
                if tuple(lows[k : k + len(p)]) == p
            ),
            None,
        )
        if hit:
            when = hit[1]
            k += hit[0]
            continue
        bare = _lower(strip_case_suffix(words[k]))
        after = lows[k + 1] if k + 1 < len(lows) else ""
        month = life.months.get(bare)
        if month and "'" in words[k]:  # "Şubat'ta": a month said with its case suffix
            when = f"mo:{'next' if ahead else 'last'}:{month}"
            k += 2 if after in life.from_on else 1
            continue
        weekday = life.weekdays.get(bare) or life.weekdays.get(lows[k])
        if weekday:  # "Pazartesi", "Cumartesi günü": the next one ahead, else the last
            when = f"wd:{'next' if ahead else 'last'}:{weekday}"
            k += 2 if after in life.day_words else 1
            continue
        span = _span(lows, k, life)
        if span is not None:  # "iki hafta önce", "üç gün sonra"
            when, took = span
            k += took
            continue
        kept.append(words[k])
        k += 1
    return kept, when


def _span(lows: list[str], k: int, life: _Life) -> tuple[str, int] | None:
    """ "iki hafta önce" (two weeks ago), "3 gün sonra" (in three days): the date and
    the number of words, or None."""
    if k + 2 >= len(lows):
        return None
    count = life.numbers.get(lows[k]) or (int(lows[k]) if lows[k].isdecimal() else None)
    unit = life.units.get(lows[k + 1])
    side = lows[k + 2]
    if count is None or unit is None or side not in (*life.ago, *life.later):
        return None
    kind, _, size = unit.partition(":")
    sign = -1 if side in life.ago else 1
    return f"{kind}:{sign * count * int(size)}", 3


def _fact(category: str, type_: MemoryType, words: list[str], when: str | None) -> list[Step]:
    content = " ".join(words)
    if not content:
        return []
    fact = make_fact(category, type_, content, content)
    return [(replace(fact, when=when), [])]


def read_turkish_life(part: str) -> list[Step]:
    """The life fact one part of a Turkish clause states, if any."""
    life = _life()
    raw = life.raw
    words = [w.strip(".!?") for w in part.split() if w.strip(".!?")]
    if not words or len(words) > _LONGEST:
        return []
    lows = [_lower(w) for w in words]
    if any(low in raw["negation"] for low in lows):
        return []  # "Köpeğim yok": what one does not have is no fact of this kind
    # "28 yaşındayım", "Yaşım 28"
    if len(lows) == 2 and lows[1] in raw["age"] and lows[0].isdigit():
        return _age(lows[0])
    if len(lows) == 2 and lows[0] in raw["age_before"] and lows[1].isdigit():
        return _age(lows[1])
    # "Evliyim", "Geçen yıl evlendik": one status at a time
    if lows[-1] in raw["marital"] and len(lows) <= 4:
        status = raw["marital"][lows[-1]]
        fact = who_is("marital", status, f"is {status}")
        return [(fact, [])]
    # "Köpeğimin adı Max": the pet's name, after "my pet" in the genitive
    for k in range(len(lows) - 2):
        if lows[k + 1] in raw["name_of"] and words[k + 2][:1].isupper():
            word = lows[k]
            if any(
                word.endswith(suffix) and word[: -len(suffix)] in life.kinds["pet"]
                for suffix in raw["genitive"]
            ):
                return _fact("pet", F, words[k:], None)
    words, when = _dated(words, life, ahead=_future(lows[-1], raw) or lows[-1] in raw["plans"])
    lows = [_lower(w) for w in words]
    if not words:
        return []
    # "İki kedim var", "Bir arabam var": a pet, a relative, a thing of one's own
    if lows[-1] in raw["have"] and len(lows) >= 2:
        found = next((o for k in range(len(lows) - 1) if (o := _owned_at(lows, k, life))), None)
        if found is not None:
            return _fact(found[1], F, words, None)
        return []
    # "Japonca öğreniyorum", "Hemşire olarak çalışıyorum"
    took = _ends_with(lows, raw["learning"])
    if took and len(lows) > took:
        return _fact("learning", F, words, when)
    took = _ends_with(lows, raw["works_as"])
    if took and len(lows) > took and not any("'" in w for w in words):
        # with a workplace ("Trendyol'da ... olarak") the employer rules read both
        role = " ".join(_role(words[:-took], lows[:-took], raw))
        if not role:
            return []
        fact = who_is("role", role, f"is {role}")
        return [(fact, [])]
    # "Geçen hafta bir kedi sahiplendik", "Yeni bir işe başladım"
    for kind, verbs in raw["events"].items():
        took = _ends_with(lows, verbs)
        if not took:
            continue
        nouns = lows[:-took]
        if kind == "pet" and not any(_is(noun, "pet", life) for noun in nouns):
            continue
        if kind == "possession" and not any(_is(noun, "possession", life) for noun in nouns):
            continue
        return _fact(kind, E, words, when or "d:0")
    # "Şubat'ta İzlanda'ya gideceğiz", "Gelecek yıl maraton koşmayı planlıyorum"
    took = _ends_with(lows, raw["trips"])
    if took and len(lows) > took and when and "'" in words[-took - 1]:
        return _fact("plan", E, words, when)
    took = _ends_with(lows, raw["plans"])
    if took and len(lows) > took and when:
        return _fact("plan", E, words, when)
    # "Oğlum anaokuluna başladı", "Kız kardeşim Londra'da yaşıyor": a relative's news
    found = _owned_at(lows, 0, life)
    if found is not None and found[1] in ("family", "pet") and len(lows) > found[0] + 1:
        past = lows[-1].endswith(tuple(raw["third_person_past"]))
        return _fact(found[1], E if past else F, words, (when or "d:0") if past else None)
    return []


def read_turkish_event(part: str) -> list[Step]:
    """What the user did or will do, said with its time and read by the verb's ending
    when no other rule read the part: "Geçen ay ilk kez maraton koştum" (an event, last
    month), "Önümüzdeki ay Berlin'e taşınıyorum" (a plan, next month), "Geçen yaz kolumu
    kırdım" (a hurt), "Pazartesi yeni işime başlıyorum" (work, on Monday). Without a time
    nothing is stored: a past remark alone is mostly the moment's."""
    life = _life()
    raw = life.raw
    words = [w.strip(".!?") for w in part.split() if w.strip(".!?")]
    if not words or len(words) > _LONGEST:
        return []
    last = _lower(words[-1])
    if any(_lower(w) in raw["negation"] for w in words):
        return []
    future = _future(last, raw)
    past = len(last) > 4 and last.endswith(tuple(raw["past_first_person"]))
    if not (future or past):
        return []
    words, when = _dated(words, life, ahead=future)
    lows = [_lower(w) for w in words]
    if when is None or len(lows) < 2:
        return []
    if future != (direction(when) > 0):
        return []  # "Dün gideceğim": the time and the verb disagree
    if past and any(low in raw["body"] for low in lows) and _ends_with(lows, raw["hurt"]):
        return _fact("health", E, words, when)
    if any(low in raw["work_words"] for low in lows[:-1]):
        return _fact("work", E, words, when)
    if future:
        return _fact("plan", E, words, when)
    if last in raw["moment_verbs"]:
        return []
    return _fact("event", E, words, when)


def _future(low: str, raw: dict[str, Any]) -> bool:
    """Whether a verb speaks of the user's future ("gideceğim", "başlıyorum": said with
    a time ahead, the present is a plan)."""
    return len(low) > 4 and low.endswith(tuple(raw["future_first_person"]))


def _role(words: list[str], lows: list[str], raw: dict[str, Any]) -> list[str]:
    """The role before "olarak": its last two words at most, not a pronoun or a particle
    ("ben de"), and not where ("hastanede hemşire": a nurse)."""
    role: list[str] = []
    for word, low in zip(reversed(words), reversed(lows), strict=True):
        if low in raw["role_lead"] or len(role) == 2:
            break
        if len(low) > 4 and low.endswith(tuple(raw["locative"])):
            break
        role.insert(0, word)
    return role


def _is(noun: str, kind: str, life: _Life) -> bool:
    """Whether a bare noun ("kedi", "köpek") or its possessed form is of ``kind``."""
    return noun in life.kinds[kind]


def _age(number: str) -> list[Step]:
    if not 1 <= int(number) <= 120:
        return []
    fact = who_is("age", number, f"is {number} years old")
    return [(fact, [])]
