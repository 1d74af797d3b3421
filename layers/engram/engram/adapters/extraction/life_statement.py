"""One statement of the life grammar, read from its subject on: the subject, adverbs
and aspect, the verb, the object up to an explanation, then the fact it makes.

Kept apart from ``life.py``, which finds where statements start in a clause and reads
what is left when none does: this is the reading of a single statement, the longest and
most often tuned part of the grammar, and needs nothing of how the clause was searched.
"""

from __future__ import annotations

import re
from dataclasses import replace

from engram.adapters.extraction.common import Step, make_fact
from engram.adapters.extraction.dates import direction
from engram.adapters.extraction.facts import slug
from engram.adapters.extraction.lexicon import terms_in
from engram.adapters.extraction.life_kinds import category_of, exclusive_of
from engram.adapters.extraction.life_words import (
    Word,
    clause_after,
    is_past,
    names_people,
    phrase_at,
    states,
    time_at,
)
from engram.adapters.extraction.tables import Tables
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["parse_statement"]


def _adverb_then_past(words: list[Word], t: Tables) -> bool:
    """Whether the clause opens with an adverb that reports ("Just", "Finally", "Sadly")
    and then a verb in the past: the subject was dropped. "So excited", "Probably broke"
    or "Then went to bed" open with other adverbs and state no fact."""
    return len(words) > 1 and words[0].low in t.reporting_adverbs and is_past(words[1].low, t)


def _answering(words: list[Word], at: int, floor: int, t: Tables) -> int:
    """Where the words before ``at`` end without those that answer the other person
    ("went camping too last week", "a mentor too when I was..."), not before ``floor``."""
    while at - 1 > floor and words[at - 1].low in t.closed["answering"]:
        at -= 1
    return at


def _auxiliary(clause: str, words: list[Word], i: int, t: Tables) -> bool:
    """Whether "do" at ``i`` only helps the verb after it ("I did not", "I do love",
    "I did go") rather than being the verb ("I did a charity event", "I do yoga")."""
    after = words[i + 1].low if i + 1 < len(words) else ""
    return (
        not after
        # "I do- Oscar, my guinea pig": "do" ends an answer, punctuation follows it
        or not clause[words[i].start : words[i + 1].start].rstrip()[-1:].isalpha()
        # "I did meet her", "I do worry": a verb follows; "did a charity event": a thing
        or not (
            after in t.closed["object_determiners"]
            or after.isdecimal()
            or after in t.time["numbers"]
        )
    )


def _owned_body(words: list[Word], k: int, t: Tables) -> bool:
    """Whether word ``k`` is a body part that is also a function word, said as someone's:
    "hurt my back", "a bad back" (but "went back", "my back garden")."""
    return (
        words[k].low in t.body_words_also_adverbs
        and k > 0
        and words[k - 1].low in t.closed["body_owners"]
        and (
            k + 1 == len(words)
            or not words[k + 1].low.isalpha()
            or words[k + 1].low in t.function_words
        )
    )


def _with_company(clause: str, words: list[Word], i: int, t: Tables) -> tuple[str, int] | None:
    """Who the user did it with, when the subject says so, and the word after the
    subject: "My colleagues and I went" (read from "I", the others said before it), "my
    sister and I went", "me and my sister went". None for any other subject, and for a
    thing that did something ("my laptop crashed and I lost my thesis")."""
    n = len(words)
    first = words[i].low
    if first in t.subjects:
        before = words[1 : i - 1]
        if (
            2 <= i <= 5
            and words[i - 1].low == "and"
            and words[0].low in t.closed["own"]
            and not any(w.low in (",", "and") for w in before)
            and names_people(before, t)
        ):
            return clause[words[0].start : words[i - 2].end], i + 1
        return None
    if first in t.closed["own"]:
        j = i + 1
        while j < n and j - i <= 4 and words[j].low not in (",", "and"):
            j += 1
        if (
            i + 1 < j
            and j + 1 < n
            and words[j].low == "and"
            and words[j + 1].low in t.subjects
            and names_people(words[i + 1 : j], t)
        ):
            return clause[words[i].start : words[j - 1].end], j + 2
        return None
    if first == "me" and i + 2 < n and words[i + 1].low == "and":
        verb = i + 3  # after one word of company at least
        while verb < n and words[verb].low not in t.copulas and not is_past(words[verb].low, t):
            verb += 1
            if verb - i > 6:
                return None
        return clause[words[i + 2].start : words[verb - 1].end], verb
    return None


def _going_somewhere(words: list[Word], i: int, step: int, t: Tables) -> bool:
    """Whether "going to" at ``i`` goes to a place ("going to Japan", "going to the
    coast") rather than saying what will be done ("going to paint", "going to Google
    it": a name followed by its own object is a verb)."""
    # ``step`` is the phrase matched at "going": two words, "going to", not "going to be"
    if words[i].low != "going" or step != 2 or i + 2 >= len(words):
        return False
    after = words[i + 2]
    if after.low in t.closed["trip_determiners"]:
        return True
    following = words[i + 3].low if i + 3 < len(words) else ""
    return (
        after.text[:1].isupper()
        and after.low != "i"
        and following not in t.pronouns
        and following not in t.closed["object_determiners"]
    )


def _period(words: list[Word], at: int, limit: int, t: Tables) -> int:
    """The length of "when I was learning to dance" at ``at``: a stretch of the user's
    past that dates what they did then, up to the clause's end; 0 if none starts there."""
    if not (
        at + 3 < limit
        and words[at].low == "when"
        and words[at + 1].low in t.closed["period_subjects"]
        and words[at + 2].low in t.closed["period_copulas"]
    ):
        return 0
    doing = at + 3 + phrase_at(words, at + 3, t.adverbs)  # "when we were both working"
    if not (
        doing < limit
        and words[doing].low.endswith("ing")
        and words[doing].low not in t.closed["not_periods"]
    ):
        return 0
    end = doing + 1
    while (
        end < limit
        and words[end].low not in (",", ";", ":", "and")  # "... and Tom sold me his": his
        and not (words[end].low != "to" and phrase_at(words, end, t.cuts))
    ):
        end += 1
    return end - at


def _ahead(spec: str | None) -> bool:
    """Whether a time spec names a day to come, or a weekday ("on Monday")."""
    return direction(spec) > 0 or (spec or "").startswith("wd:")


def parse_statement(
    clause: str,
    words: list[Word],
    start: int,
    t: Tables,
    *,
    subject_given: bool = False,
    when_given: str | None = None,
    then_given: str = "",
) -> tuple[Step, int] | None:
    """The fact stated from word ``start`` on, and the word it ends at. ``when_given``
    (and ``then_given``, its words when they have no date): the time of the verb phrase
    before, for one that says none of its own ("Yesterday I went to the gym and ran
    10k", "Last summer I hiked the coast path and swam in the sea")."""
    n = len(words)
    i = start
    negation = t.closed["negation"]  # "almost got fired": what follows did not happen
    hypothetical = t.closed["hypothetical"]
    when: str | None = None
    timed = False
    # "Last week, my grandma passed away": a time first, then the statement.
    took, spec = time_at(words, i, t)
    then = ""  # "When I was a kid": said first, it must still be said in the memory
    if took:
        when, timed = spec, True
        if spec in ("childhood", "season"):
            then = clause[words[i].start : words[i + took - 1].end]
        i += took
        if i < n and words[i].low == ",":
            i += 1
    if i >= n:
        return None
    # -- the subject: the user, or someone or something of theirs -------------------------
    relation: str | None = None
    company = ""  # "my sister and I went...": who the user did it with
    first = words[i].low
    with_company = _with_company(clause, words, i, t)
    if with_company is not None:
        company, i = with_company
    elif first in t.subjects:
        i += 1
    elif (
        first in t.closed["own"]
        and i + 1 < n
        and (words[i + 1].low in t.family or words[i + 1].low in t.pets)
    ):
        relation = words[i + 1].text
        i += 2
        if i < n and words[i].text[:1].isupper() and words[i].low not in t.subjects:
            relation += " " + words[i].text  # "my dog Max"
            i += 1
    elif (
        subject_given
        or (
            i == 0
            and (
                first == "been"
                # "Set up a new project" asks; "Lost my job yesterday" tells
                or (
                    is_past(first, t)
                    and words[i].text[:1].isupper()
                    and first not in t.past_as_present
                )
            )
        )
    ):
        pass  # chat drops the subject: "Lost my job yesterday", "Been doing some promotion"
    elif i == 0 and words[i].text[:1].isupper() and _adverb_then_past(words, t):
        pass  # and after an adverb: "Just got back from a road trip", "Finally finished"
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
        while after < n and phrase_at(words, after, t.adverbs):
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
            step = phrase_at(words, at, t.adverbs)
            if step and words[at].low not in negation:
                at += step
                continue
            took, spec = time_at(words, at, t)
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
    # "I was going to Paris": a trip that did not happen
    told_past = low in t.closed["period_copulas"]
    if low in negation or (low in hypothetical and low != "would"):
        return None
    if low == "would" and phrase_at(words, i, t.future_phrases) == 0:
        return None
    if low in ("did", "do", "does") and _auxiliary(clause, words, i, t):
        return None  # "I did not", "I do think": emphasis or negation, no fact
    if (
        aspect == "state"
        and (low in t.copulas or low in t.perfect)
        and not phrase_at(words, i, t.past_phrase_list)  # "we were able to", "I had to"
    ):
        nxt = skip_adverbs(i + 1)
        if nxt >= n or words[nxt].low in negation:
            return None
        following = words[nxt].low
        if low in t.perfect and following == "been" and nxt + 1 < n:
            after = skip_adverbs(nxt + 1)
            if after < n and words[after].low.endswith("ing"):
                aspect, i = "ongoing", after  # "I've been taking a poetry class"
                if low == "had":
                    if phrase_at(words, after, t.future_phrases):
                        return None  # "I'd been wanting to try yoga": a wish of the past
                    # "I had been working at a bakery": no longer under way, of no day
                    aspect, lead, timed = "past", "had been", True
            elif (
                after < n
                and relation is None  # "my husband has been passionate about cars": his
                and (frame := phrase_at(words, after, t.copula_frame_list))
            ):
                # "I've always been passionate about veterans"
                framed = t.copula_frames[tuple(w.low for w in words[after : after + frame])]
                if framed != "preference":  # a liking is its object, as with "I'm"
                    lead = " ".join(w.text for w in words[after : after + frame])
                aspect, i, phrase_verb = "state", after + frame - 1, True
            elif after < n and words[after].low == "to":
                aspect, i, lead = "past", nxt, "has been"  # "I've been to Rome"
                phrase_verb = True
            else:
                return None
        elif low in t.perfect and is_past(following, t):
            aspect, i = "past", nxt  # "we have adopted", "I had started"
        elif low in t.perfect:
            if low == "had":
                aspect = "past"
        elif frame := phrase_at(words, nxt, t.copula_frame_list):
            # "I'm interested in pottery", "I'm part of a choir", "I'm allergic to nuts"
            phrase = tuple(w.low for w in words[nxt : nxt + frame])
            framed = t.copula_frames[phrase]
            lead = " ".join(w.text for w in words[nxt : nxt + frame])
            aspect, i, phrase_verb = "state", nxt + frame - 1, True
        elif phrase_at(words, nxt, t.future_phrases) or phrase_at(words, nxt, t.past_phrase_list):
            i = nxt  # "I'm going to...", "I was able to...": read below
        elif following.endswith("ing"):
            aspect, i = "ongoing", nxt  # "I'm learning Japanese"
        elif following in t.intransitive or (
            is_past(following, t) and following in t.topics["health"][0]
        ):
            aspect, i = "past", nxt  # "I was promoted", "I got married", "was diagnosed"
        else:
            return None  # "I'm so happy", "we were there": no fact here
    step = phrase_at(words, i, t.future_phrases)
    past_step = phrase_at(words, i, t.past_phrase_list)
    trip = bool(step) and not told_past and _going_somewhere(words, i, step, t)
    if trip:
        aspect = "plan"  # "I'm going to Japan next summer": a trip, not "going to" do
    elif step:
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
    elif phrase_at(words, i, t.past_habit):
        i = skip_adverbs(i + 2)
        aspect, lead = "past", "used to"
        timed = True  # a habit of the past: no date of its own
    if i >= n:
        return None
    # -- the verb ---------------------------------------------------------------------------
    verb = words[i]
    if verb.low in negation or verb.low in hypothetical:
        return None
    if aspect == "state" and framed is None:
        if is_past(verb.low, t):
            aspect = "past"
        elif verb.low.endswith("ing") or not (
            verb.low in t.state_verbs
            or (relation is not None and verb.low.endswith("s") and verb.low[:-1] in t.state_verbs)
        ):
            return None
    if (
        not phrase_verb
        and not states(words, i, t)
        and not (aspect == "past" and verb.low in t.intransitive)
    ):
        return None
    # -- the object: up to an explanation, a pronoun-only object is none ---------------------
    end = i + 1
    limit = min(n, i + 1 + 16)
    cut_times: list[tuple[int, int]] = []
    kept_times: list[tuple[int, int]] = []  # times said in the memory, naming nothing
    while end < limit:
        if words[end].low in (",", ";", ":"):
            break
        took, spec = time_at(words, end, t) if words[end].low == "when" else (0, None)
        if spec == "childhood":
            # "when I was a kid" is a time, not a clause, and stays in the memory's words
            if not timed:
                when, timed = "childhood", True
            if (answered := _answering(words, end, i, t)) < end:
                cut_times.append((answered, end))
            kept_times.append((end, end + took))
            end += took
            continue
        period = _period(words, end, limit, t)
        if period:
            # "I had a mentor when I was learning to dance": a time of no date, which the
            # memory must keep saying
            if not timed:
                when, timed = None, True
            if (answered := _answering(words, end, i, t)) < end:
                cut_times.append((answered, end))  # "a mentor too when...": said to the other
            kept_times.append((end, end + period))
            end += period
            if end < limit and words[end].low == "and":
                break  # "... when I was teaching and Tom sold me his piano": Tom's
            continue
        if phrase_at(words, end, t.cuts):
            break
        if (
            words[end].low == "i"
            and words[end - 1].low not in ("that", "which", "where", "who", "whom", "when")
        ) or (
            words[end].low in ("after", "before")
            and end + 1 < n
            and words[end + 1].low in t.subjects
        ):
            break  # "since we last spoke I went...", "...after I visited": a statement of its own
        if (
            words[end].low == "and"
            and end + 1 < n
            and (words[end + 1].low in t.not_facts or words[end + 1].low in t.closed["hoping"])
        ):
            break  # "made wishes and felt hopeful": what follows is a feeling, no object
        if words[end].low == "and" and clause_after(words, end + 1, t):
            break  # "sticking to my routine and the people are great": a new clause
        if (
            words[end].low == "and"
            and end + 1 < n
            and aspect == "past"
            and is_past(words[end + 1].low, t)
            and words[end + 1].low not in t.participles
        ):
            break  # "went to the park and played soccer": two things done
        took, spec = time_at(words, end, t)
        if took:
            if spec and not timed:
                when, timed = spec, True
            # "as a kid" stays in the words, a date would not
            said_then = spec in ("childhood", "season")  # "last winter" names no date
            if said_then and (answered := _answering(words, end, i, t)) < end:
                cut_times.append((answered, end))
            (kept_times if said_then else cut_times).append((end, end + took))
            end += took
            continue
        end += 1
    if end == limit < n and words[end].low not in (",", ";", ":"):
        # the object ran past the words a memory holds: end it where a phrase of its own
        # began ("made a window to remind myself that..."), or keep nothing cut mid-phrase
        reaching = [a for a, b in kept_times if b >= end]
        if reaching:
            # "... at the cafe when we were studying abroad in Spain during ...": the
            # stretch of time is what ran over; the fact ends before it
            end = reaching[0]
            kept_times = [(a, b) for a, b in kept_times if b <= end]
        else:
            joints = [
                k
                for k in range(i + 2, end)
                if words[k].low in t.closed["phrase_joints"]
                # "the corner of Fifth and Main": a name, not two phrases
                and not (words[k - 1].text[:1].isupper() and words[k + 1].text[:1].isupper())
            ]
            # "and" joins the last pieces of a list more often than it opens a clause
            clauses = [k for k in joints if words[k].low != "and"]
            if not joints:
                return None
            end = (clauses or joints)[-1]
    kept = {k for a, b in kept_times for k in range(a, b)}  # "when I was little" stays whole
    object_at = [k for k in range(i + 1, end) if not any(a <= k < b for a, b in cut_times)]
    while (
        object_at
        and (words[object_at[-1]].low in t.function_words or words[object_at[-1]].low in t.pronouns)
        and words[object_at[-1]].low not in t.particles
        and words[object_at[-1]].low not in t.closed["reflexives"]  # "be true to myself"
        and not _owned_body(words, object_at[-1], t)  # "hurt my back"
        and object_at[-1] not in kept
    ):
        object_at.pop()
    object_words = [words[k] for k in object_at]
    lows = [w.low for w in object_words]
    # the object without the childhood it was said in: what the checks below look at
    free_lows = [words[k].low for k in object_at if k not in kept]
    if any(w in t.other_party for w in lows) or any(w.low in t.other_party for w in words[start:i]):
        return None  # about the other person ("loved your photo", "I told you")
    timeless = [
        w.low
        for k, w in enumerate(words[i + 1 : end], start=i + 1)
        if not any(a <= k < b for a, b in (*cut_times, *kept_times))
    ]
    content_words = [w for w in timeless if w not in t.function_words and w not in t.pronouns]
    # "I made this bowl", "we adopted these kittens": a thing shown is still a thing made
    shown = (
        len(lows) > 1
        and lows[0] in ("this", "these")  # "that" also opens a clause: "learned that..."
        and lows[1] not in t.function_words
        and lows[1] not in t.pronouns
        and lows[1] not in t.closed["not_nouns_after_this"]
        and not time_at(object_words, 1, t)[0]
    )
    determiners = ("a", "an", "the", "my", "our", "some") + ((lows[0],) if shown else ())
    head = next((w for w in lows if w not in determiners), "")
    if head in t.pronouns and head not in t.particles:
        return None  # "I did it", "we made it": nothing named
    if (
        free_lows
        and free_lows[-1] in t.particles
        and len(content_words) <= 1
        and verb.low not in t.intransitive
        and relation is None
        and not _owned_body(words, object_at[-1], t)
    ):
        return None  # "thinking of setting up": what is set up is cut
    if not content_words and not (
        verb.low in t.intransitive
        or (relation is not None and lows and lows[0] in t.particles)
        or any(_owned_body(words, k, t) for k in object_at)
    ):
        return None
    # -- what kind of fact ----------------------------------------------------------------------
    category = framed or category_of(verb.low, lows, relation, aspect, goal, t)
    if verb.low in ("started", "began", "start", "begun") and lows[:1] == ["using"]:
        category = "decision"  # "I've started using Biome instead of ESLint": a tool adopted
    if category not in ("learning", "work") and terms_in(
        restore(clause[verb.start : words[end - 1].end])
    ):
        return None  # a tool or a service: the families before this one read those
    if (
        aspect == "state"
        and verb.low in ("have", "has")
        and relation is None
        and set(lows) & t.scheduled_nouns
        and ((end < n and phrase_at(words, end, t.upcoming) > 0) or _ahead(when))
    ):
        # "I have a community meeting next week", "a piano recital coming up": a plan
        category, aspect = "plan", "plan"
    if trip and not timed and not any(w.text[:1].isupper() for w in object_words):
        return None  # "I'm going to the gym": out now; "to Japan", "to a gig on Friday" last
    if aspect == "plan" and when and when.startswith("wd:on:"):
        when = "wd:next:" + when.removeprefix("wd:on:")  # "on Monday", ahead
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
    for a, b in sorted(cut_times):
        if a < end and words[a].start > cursor:
            # "went camping too last week": the "too" answers the other person
            upto = words[_answering(words, a, i, t)].start
            pieces.append(clause[cursor : max(cursor, upto)])
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
    if company and aspect in ("past", "plan", "ongoing"):
        # "went to a concert with my sister"; "together" said it already
        company = re.sub(r"^(?:My|Our|The)\b", lambda m: m.group().lower(), company)
        said = re.sub(r"\s+together\b", "", said) + f" with {company}"
    content = restore(said)
    if shown:
        # ... and a week later it is "a bowl": nobody sees what "this" pointed at
        plural = lows[0] in ("these", "those")
        article = "some" if plural else "an" if lows[1][:1] in "aeiou" else "a"
        content = re.sub(rf"\b{object_words[0].text}\s", article + " ", content, count=1)
    if not timed and when_given is not None:
        # the verb phrase before was dated, and this one says no time of its own
        when, timed, then = when_given, True, then_given
    if when in ("childhood", "season"):
        # "When I was a kid, I had a little doll", "Last winter, I went to Norway": of no
        # date, and a week later the memory must still say it was then, not now
        content = f"{content} {then[:1].lower()}{then[1:]}" if then else content
        when = None
    type_ = MemoryType.EPISODIC if category in ("event", "plan") else MemoryType.FACTUAL
    if aspect == "past" and not timed and lead != "has been":
        # An event is dated by when it was said, unless its words date it; "has been to
        # Rome" is an experience, of no particular day.
        when = "d:0"
    exclusive_subject = exclusive_of(category, verb.low, lows)
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
