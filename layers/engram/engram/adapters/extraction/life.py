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
file; this module is the grammar that reads them, one pass over the clause's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from engram.adapters.extraction.common import Step, make_fact, own
from engram.adapters.extraction.facts import slug
from engram.adapters.extraction.lexicon import terms_in
from engram.adapters.extraction.tables import Tables, tables
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_life"]

_WORD = re.compile(r"[^\s,;:!?()\"]+|[,;:]")
_EDGE = "'\u2019\"`*_.-"


@dataclass
class _Word:
    text: str
    low: str
    start: int
    end: int


def _words(clause: str) -> list[_Word]:
    found = []
    for match in _WORD.finditer(clause):
        text = match.group(0).strip(_EDGE) or match.group(0)
        found.append(_Word(text, text.lower(), match.start(), match.end()))
    return found


def _phrase_at(words: list[_Word], i: int, phrases: tuple[tuple[str, ...], ...]) -> int:
    """The length of the longest phrase of ``phrases`` starting at word ``i`` (0: none)."""
    for phrase in phrases:
        n = len(phrase)
        if i + n <= len(words) and all(words[i + k].low == phrase[k] for k in range(n)):
            return n
    return 0


def _clause_after(words: list[_Word], i: int, t: Tables) -> bool:
    """Whether a clause of its own starts at word ``i``: a determiner, a noun or two, then
    its verb ("and the people are awesome", "and my kids were thrilled")."""
    if i >= len(words) or words[i].low not in t.clause_determiners:
        return False
    return any(
        k < len(words) and words[k].low in t.copulas for k in range(i + 2, min(i + 4, len(words)))
    )


def _time_at(words: list[_Word], i: int, t: Tables) -> tuple[int, str | None]:
    """A time expression starting at word ``i``: its length and relative spec."""
    if i >= len(words):
        return 0, None
    time = t.time
    n = _phrase_at(words, i, t.time_phrases)
    if n:
        said = " ".join(w.low for w in words[i : i + n])
        if said in time["relative_days"]:
            return n, f"d:{time['relative_days'][said]}"
        if said in time["relative_months"]:
            return n, f"m:{time['relative_months'][said]}"
        if said in time["relative_years"]:
            return n, f"y:{time['relative_years'][said]}"
        return n, None  # "recently", "lately": time words without a date
    low = words[i].low
    following = words[i + 1].low if i + 1 < len(words) else ""
    # "last Saturday", "next Friday", "on Sunday", "last May", "in February", "next summer"
    if low in ("last", "next", "this", "on", "in") and following in time["weekdays"]:
        which = "last" if low in ("last", "on") else "next"
        return 2, f"wd:{which}:{following}"
    if low in ("last", "next", "in", "this") and following in time["months"]:
        which = "last" if low == "last" else "next"
        return 2, f"mo:{which}:{following}"
    if low in ("last", "next", "this") and following in (
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
    ):
        return 2, None
    # "three weeks ago", "a few days ago", "in two weeks", "2 months ago"
    number = time["numbers"].get(low) if not low.isdigit() else int(low)
    if number is not None and i + 2 < len(words):
        unit = words[i + 1].low if words[i + 1].low != "few" else ""
        step = 1 if words[i + 1].low in ("few", "couple") else 0
        if step and i + 3 < len(words):
            unit = words[i + 2].low if words[i + 2].low != "of" else words[i + 3].low
            step = 2 if words[i + 2].low != "of" else 3
        else:
            step = 1
        if unit in time["units"] and i + step < len(words) and words[i + step].low == "ago":
            days = time["units"][unit] * (3 if number == 1 and step > 1 else int(number))
            return step + 1, f"d:{-days}"
    if low == "in" and i + 2 < len(words):
        count = time["numbers"].get(words[i + 1].low)
        unit = words[i + 2].low
        if count is not None and unit in time["units"]:
            return 3, f"d:{time['units'][unit] * int(count)}"
    return 0, None


def _is_past(low: str, t: Tables) -> bool:
    return low in t.irregular_past or low in t.participles or (len(low) > 4 and low.endswith("ed"))


def _states(words: list[_Word], i: int, t: Tables) -> bool:
    """Whether the verb at ``i`` states something: a light verb ("get", "go", "take",
    "make"...) only before content ("got a puppy", but not "got it", "take care")."""
    low = words[i].low
    light = t.light_forms.get(low)
    if light is not None:
        if i + 1 >= len(words) or words[i + 1].low in (",", ";", ":"):
            return False
        return _phrase_at(words, i + 1, t.light_blocks.get(light, ())) == 0
    return low not in t.not_facts and low not in t.pronouns and low not in t.function_words


_HYPOTHETICAL = frozenset("would could should might may must shall can cannot".split())
_NEGATION = frozenset("not never no".split())


def read_life(clause: str) -> list[Step] | None:
    """The facts a clause states about the user's life: read from its start, and from
    each later place the user is the subject ("I'm so excited to tell you I started a
    yoga class"), unless what comes before makes it someone else's or no fact ("if I",
    "you said I")."""
    t = tables("en")
    words = _words(clause)
    steps: list[Step] = []
    done = 0
    for start, word in enumerate(words):
        if start < done:
            continue
        if start and not (
            word.low in t.subjects
            or (
                word.low in ("my", "our", "me")
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
        parsed = _parse(clause, words, start, t)
        while parsed is not None:
            step, done = parsed
            steps.append(step)
            # "We hiked, swam and made great memories": more verbs of the same subject.
            parsed = _coordinated(clause, words, done, step, t)
    if not steps:
        steps += _effect(clause, words, t)
    return steps or None


def _effect(clause: str, words: list[_Word], t: Tables) -> list[Step]:
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
                    words[end].low != "so" and _phrase_at(words, end, t.cuts)
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
    clause: str, words: list[_Word], end: int, previous: Step, t: Tables
) -> tuple[Step, int] | None:
    """The next verb phrase of a subject after one ends at ``end`` (", and went...")."""
    k = end
    while k < len(words) and words[k].low in (",", "and", "then", "also"):
        k += 1
    fact = previous[0]
    if k == end or k >= len(words) or fact is None or fact.category in ("plan", "goal"):
        return None
    low = words[k].low
    past = fact.type is MemoryType.EPISODIC and _is_past(low, t)
    ongoing = fact.category == "activity" and low.endswith("ing")
    if not (past or ongoing):
        return None
    return _parse(clause, words, k, t, subject_given=True)


# What may stand right before a subject that starts a statement of its own ("..., I",
# "and we", "guess what, I", "to tell you I"); after a noun it starts a relative clause
# ("the support I got was helpful"), whose object is the noun before it.
_BEFORE_SUBJECT = frozenset(", ; and but so then you because since now also plus".split())


def _opens(words: list[_Word], start: int, t: Tables) -> bool:
    """Whether a subject at word ``start`` begins a statement (not a relative clause)."""
    if words[start - 1].low in _BEFORE_SUBJECT:
        return True
    # "Last weekend I did something new": a time expression right before the subject.
    return any(_time_at(words, at, t)[0] == start - at for at in range(max(0, start - 4), start))


def _parse(
    clause: str, words: list[_Word], start: int, t: Tables, *, subject_given: bool = False
) -> tuple[Step, int] | None:
    """The fact stated from word ``start`` on, and the word it ends at."""
    n = len(words)
    i = start
    when: str | None = None
    timed = False
    # "Last week, my grandma passed away": a time first, then the statement.
    took, spec = _time_at(words, i, t)
    if took:
        when, timed = spec, True
        i += took
        if i < n and words[i].low == ",":
            i += 1
    if i >= n:
        return None
    # -- the subject: the user, or someone or something of theirs -------------------------
    relation: str | None = None
    first = words[i].low
    if first in t.subjects:
        i += 1
    elif (
        first in ("my", "our")
        and i + 1 < n
        and (words[i + 1].low in t.family or words[i + 1].low in t.pets)
    ):
        relation = words[i + 1].text
        i += 2
        if i < n and words[i].text[:1].isupper() and words[i].low not in t.subjects:
            relation += " " + words[i].text  # "my dog Max"
            i += 1
        if i < n and words[i].low == "and" and i + 1 < n and words[i + 1].low in t.subjects:
            relation, i = None, i + 2  # "my sister and I": the user did it
    elif first == "me" and i + 2 < n and words[i + 1].low == "and":
        i += 3  # "me and my sister went..."
        while i < n and words[i].low not in t.copulas and not _is_past(words[i].low, t):
            i += 1
            if i - start > 6:
                return None
    elif subject_given or (
        i == 0 and (first == "been" or (_is_past(first, t) and words[i].text[:1].isupper()))
    ):
        pass  # chat drops the subject: "Lost my job yesterday", "Been doing some promotion"
    else:
        return None
    # -- adverbs, then the aspect ----------------------------------------------------------
    aspect = "state"
    lead = ""
    goal = False
    phrase_verb = False  # the verb is a phrase's last word ("working on", "been to")
    framed: str | None = None  # the category a copula frame names ("interested in")
    if i == start and first == "been":
        after = i + 1
        while after < n and _phrase_at(words, after, t.adverbs):
            after += 1
        if after < n and words[after].low == "to":
            aspect, lead, phrase_verb = "past", "has been", True  # "Been only to Rome once"
        elif after < n and words[after].low.endswith("ing"):
            aspect, i = "ongoing", after  # "Been doing some promotion for my business"
        else:
            return None

    def skip_adverbs(at: int) -> int:
        nonlocal when, timed
        while at < n:
            step = _phrase_at(words, at, t.adverbs)
            if step and words[at].low not in _NEGATION:
                at += step
                continue
            took, spec = _time_at(words, at, t)
            if took:
                if spec:
                    when, timed = spec, True
                at += took
                continue
            return at
        return at

    i = skip_adverbs(i)
    if i >= n:
        return None
    low = words[i].low
    if low in _NEGATION or (low in _HYPOTHETICAL and low != "would"):
        return None
    if low == "would" and _phrase_at(words, i, t.future_phrases) == 0:
        return None
    if low in ("did", "do", "does"):
        return None  # "I did not", "I do think": emphasis or negation, no fact
    if aspect == "state" and (low in t.copulas or low in t.perfect):
        nxt = skip_adverbs(i + 1)
        if nxt >= n or words[nxt].low in _NEGATION:
            return None
        following = words[nxt].low
        if low in t.perfect and following == "been" and nxt + 1 < n:
            after = skip_adverbs(nxt + 1)
            if after < n and words[after].low.endswith("ing"):
                aspect, i = "ongoing", after  # "I've been taking a poetry class"
            elif after < n and words[after].low == "to":
                aspect, i, lead = "past", nxt, "has been"  # "I've been to Rome"
                phrase_verb = True
            else:
                return None
        elif low in t.perfect and _is_past(following, t):
            aspect, i = "past", nxt  # "we have adopted", "I had started"
        elif low in t.perfect:
            if low == "had":
                aspect = "past"
        elif frame := _phrase_at(words, nxt, t.copula_frame_list):
            # "I'm interested in pottery", "I'm part of a choir", "I'm allergic to nuts"
            phrase = tuple(w.low for w in words[nxt : nxt + frame])
            framed = t.copula_frames[phrase]
            lead = " ".join(w.text for w in words[nxt : nxt + frame])
            aspect, i, phrase_verb = "state", nxt + frame - 1, True
        elif _phrase_at(words, nxt, t.future_phrases) or _phrase_at(words, nxt, t.past_phrase_list):
            i = nxt  # "I'm going to...", "I was able to...": read below
        elif following.endswith("ing"):
            aspect, i = "ongoing", nxt  # "I'm learning Japanese"
        elif following in t.intransitive or (
            _is_past(following, t) and following in t.topics["health"][0]
        ):
            aspect, i = "past", nxt  # "I was promoted", "I got married", "was diagnosed"
        else:
            return None  # "I'm so happy", "we were there": no fact here
    step = _phrase_at(words, i, t.future_phrases)
    past_step = _phrase_at(words, i, t.past_phrase_list)
    if step:
        phrase = tuple(w.low for w in words[i : i + step])
        marker = t.future[phrase]
        aspect, lead = "plan", marker
        if phrase in t.np_complement:
            i += step - 1  # "working on my business": the phrase is the verb
            phrase_verb = True
        else:
            i = skip_adverbs(i + step)
            if i < n and marker == "wants to" and words[i].low in t.goal_verbs:
                goal = True
    elif past_step:
        phrase = tuple(w.low for w in words[i : i + past_step])
        aspect, lead = "past", t.past_phrases[phrase]
        i = skip_adverbs(i + past_step)
    elif _phrase_at(words, i, t.past_habit):
        i = skip_adverbs(i + 2)
        aspect, lead = "past", "used to"
        timed = True  # a habit of the past: no date of its own
    if i >= n:
        return None
    # -- the verb ---------------------------------------------------------------------------
    verb = words[i]
    if verb.low in _NEGATION or verb.low in _HYPOTHETICAL:
        return None
    if aspect == "state" and framed is None:
        if _is_past(verb.low, t):
            aspect = "past"
        elif verb.low.endswith("ing") or not (
            verb.low in t.state_verbs
            or (relation is not None and verb.low.endswith("s") and verb.low[:-1] in t.state_verbs)
        ):
            return None
    if (
        not phrase_verb
        and not _states(words, i, t)
        and not (aspect == "past" and verb.low in t.intransitive)
    ):
        return None
    # -- the object: up to an explanation, a pronoun-only object is none ---------------------
    end = i + 1
    limit = min(n, i + 1 + 16)
    cut_times: list[tuple[int, int]] = []
    while end < limit:
        if words[end].low in (",", ";", ":"):
            break
        if _phrase_at(words, end, t.cuts):
            break
        if words[end].low == "and" and _clause_after(words, end + 1, t):
            break  # "sticking to my routine and the people are great": a new clause
        if (
            words[end].low == "and"
            and end + 1 < n
            and aspect == "past"
            and _is_past(words[end + 1].low, t)
            and words[end + 1].low not in t.participles
        ):
            break  # "went to the park and played soccer": two things done
        took, spec = _time_at(words, end, t)
        if took:
            if spec and not timed:
                when, timed = spec, True
            cut_times.append((end, end + took))
            end += took
            continue
        end += 1
    object_words = [
        w
        for k, w in enumerate(words[i + 1 : end], start=i + 1)
        if not any(a <= k < b for a, b in cut_times)
    ]
    while (
        object_words
        and (object_words[-1].low in t.function_words or object_words[-1].low in t.pronouns)
        and object_words[-1].low not in t.particles
    ):
        object_words.pop()
    lows = [w.low for w in object_words]
    if any(w in t.other_party for w in lows) or any(w.low in t.other_party for w in words[start:i]):
        return None  # about the other person ("loved your photo", "I told you")
    content_words = [w for w in lows if w not in t.function_words and w not in t.pronouns]
    head = next((w for w in lows if w not in ("a", "an", "the", "my", "our", "some")), "")
    if head in t.pronouns and head not in t.particles:
        return None  # "I did it", "we made it": nothing named
    if (
        lows
        and lows[-1] in t.particles
        and len(content_words) <= 1
        and verb.low not in t.intransitive
        and relation is None
    ):
        return None  # "thinking of setting up": what is set up is cut
    if not content_words and not (
        verb.low in t.intransitive or (relation is not None and lows and lows[0] in t.particles)
    ):
        return None
    # -- what kind of fact ----------------------------------------------------------------------
    category = framed or _category(verb.low, lows, relation, aspect, goal, t)
    if verb.low in ("started", "began", "start", "begun") and lows[:1] == ["using"]:
        category = "decision"  # "I've started using Biome instead of ESLint": a tool adopted
    if category not in ("learning", "work") and terms_in(
        restore(clause[verb.start : words[end - 1].end])
    ):
        return None  # a tool or a service: the families before this one read those
    if (
        aspect == "state"
        and verb.low in ("have", "has")
        and category
        not in (
            "pet",
            "family",
            "possession",
            "health",
        )
    ):
        return None  # "I have a meeting", "I only have 2 eggs": nothing of theirs to keep
    # -- its words ---------------------------------------------------------------------------------
    pieces: list[str] = []
    cursor = verb.start
    for a, b in cut_times:
        if a < end and words[a].start > cursor:
            pieces.append(clause[cursor : words[a].start])
            cursor = words[b - 1].end if b - 1 < len(words) else words[a].end
    stop = object_words[-1].end if object_words else verb.end
    if stop > cursor:
        pieces.append(clause[cursor:stop])
    said = re.sub(r"\s+", " ", " ".join(p.strip() for p in pieces)).strip(" ,.-")
    if phrase_verb:
        said = said.split(" ", 1)[1] if " " in said else ""
    if not said:
        return None
    if lead:
        said = f"{lead} {said}"
    if relation is not None:
        said = f"{relation} {said}"
    content = restore(said)
    type_ = MemoryType.EPISODIC if category in ("event", "plan") else MemoryType.FACTUAL
    if aspect == "past" and not timed and lead != "has been":
        # An event is dated by when it was said, unless its words date it; "has been to
        # Rome" is an experience, of no particular day.
        when = "d:0"
    exclusive_subject = _exclusive(category, verb.low, lows)
    key = (
        (
            "identity:location"
            if exclusive_subject == "location"
            else f"{category}:{exclusive_subject}"
        )
        if exclusive_subject
        else None
    )
    fact = make_fact(
        category,
        type_,
        content,
        content,
        key=key or f"{category}:{slug(content)}",
        exclusive=exclusive_subject is not None,
        subject=exclusive_subject,
        about=slug(content),
    )
    return (replace(fact, when=when), []), end


def _category(
    verb: str, lows: list[str], relation: str | None, aspect: str, goal: bool, t: Tables
) -> str:
    if relation is not None:
        first = relation.split()[0].lower()
        return "pet" if first in t.pets else "family"
    if goal:
        return "goal"
    words = set(lows)
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
        if verb in verbs or (words & nouns and topic != "home"):
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


def _exclusive(category: str, verb: str, lows: list[str]) -> str | None:
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
