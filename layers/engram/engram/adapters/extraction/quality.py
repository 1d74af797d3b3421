"""What no English rule may store, whichever family read it.

A memory is kept when it is true of the user, about the user, and worth keeping. The
families read statements; this is the last look before a fact is stored, and it turns
away the classes of noise real conversations are full of (measured on LoCoMo, judged by
the rubric in docs/extraction.md):

- idioms read literally ("I'm over the moon" is no dislike of the moon);
- reactions to what the other person showed ("love the necklace!", "the yellow leaves"):
  a liking of *the*/*this*/*your* thing, unless the thing is a kind of place or pastime
  ("I love the outdoors");
- objects that only point elsewhere ("holding them", "the energy there"), or that are
  about the other person ("having you in my corner");
- fragments: content that starts or ends mid-phrase ("is awesome", "a place with");
- small talk said as a resolve ("I won't give up", "I'll try my best", "make it work");
- "must" of inference ("that must have been fun", "your pups must have a lot of fun"),
  which states a guess, not a requirement;
- a standing instruction whose words are no directive to the assistant.

Every list is data (``data/en.json``, ``quality``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from itertools import pairwise

from engram.adapters.extraction.lexicon import terms_in
from engram.adapters.extraction.tables import tables
from engram.domain.models.facts import ExtractedFact

__all__ = ["acceptable", "directive", "tidy"]

_WORDS = re.compile(r"\w[\w'\u2019-]*")
# Facts of these categories say who the user is or how to answer: their words differ.
_EXEMPT = frozenset({"identity", "instruction"})
_LEADS = ("cannot ", "can not ", "never ", "always ", "must ", "plans to ", "dislikes ")


@dataclass(frozen=True)
class _Lists:
    idioms: tuple[tuple[str, frozenset[str]], ...]
    reactions: frozenset[str]
    generic: frozenset[str]
    pronouns: frozenset[str]
    determiners: frozenset[str]
    vague: tuple[str, ...]
    pointing: frozenset[str]
    other_party: frozenset[str]
    fragment_starts: frozenset[str]
    short_fragment_starts: frozenset[str]
    fragment_ends: frozenset[str]
    small_talk: tuple[str, ...]
    small_talk_categories: frozenset[str]
    epistemic: tuple[str, ...]
    assistant_verbs: frozenset[str]
    cheering: tuple[str, ...]
    interjections: frozenset[str]
    dangling: frozenset[str]
    requirement_words: frozenset[str]
    about_us: tuple[str, ...]
    vague_nouns: frozenset[str]
    evaluative: frozenset[str]
    substance_categories: frozenset[str]
    continuations: frozenset[str]
    light_verbs: frozenset[str]
    mental: frozenset[str]
    function_words: frozenset[str]
    cut_categories: frozenset[str]
    phrase_goes_on: frozenset[str]
    object_starts: frozenset[str]
    adverbial_heads: frozenset[str]
    past: frozenset[str]
    feelings: tuple[str, ...]
    feeling_verbs: frozenset[str]
    leaving: tuple[str, ...]
    leaving_verbs: frozenset[str]
    bare_verbs: frozenset[str]
    effects_on_me: re.Pattern[str]
    empty_likes: frozenset[str]
    dangling_approximator: re.Pattern[str]
    named_with_the: frozenset[str]
    social_time: frozenset[str]
    public_subjects: frozenset[str]
    opinions: frozenset[str]
    had_verbs: frozenset[str]
    effect_verbs: frozenset[str]
    time_together: frozenset[str]
    prepositions: frozenset[str]


@cache
def _lists() -> _Lists:
    t = tables("en")
    q = t.raw["quality"]
    return _Lists(
        idioms=tuple((i, frozenset(i.split())) for i in q["idioms"]),
        reactions=frozenset(q["definite_reactions"]),
        generic=frozenset(q["generic_after_the"]),
        pronouns=frozenset(q["pronoun_objects"]),
        determiners=frozenset(q["determiners"]),
        vague=tuple(q["vague_objects"]),
        pointing=frozenset(q["pointing_categories"]),
        other_party=frozenset(q["other_party"]),
        fragment_starts=frozenset(q["fragment_starts"]),
        short_fragment_starts=frozenset(q["short_fragment_starts"]),
        fragment_ends=frozenset(q["fragment_ends"]),
        small_talk=tuple(q["small_talk"]),
        small_talk_categories=frozenset(q["small_talk_categories"]),
        epistemic=tuple(q["epistemic"]),
        assistant_verbs=frozenset(q["assistant_verbs"]),
        cheering=tuple(q["cheering"]),
        interjections=frozenset(q["interjections"]),
        dangling=frozenset(q["dangling_verbs"]),
        requirement_words=frozenset(q["requirement_words"]),
        about_us=tuple(q["about_us"]),
        vague_nouns=frozenset(q["vague_nouns"]),
        evaluative=frozenset(q["evaluative"]),
        substance_categories=frozenset(q["substance_categories"]),
        continuations=frozenset(q["continuations"]),
        light_verbs=frozenset(q["light_verbs"]),
        mental=t.not_facts,
        function_words=t.function_words,
        cut_categories=frozenset(q["cut_categories"]),
        phrase_goes_on=frozenset(q["phrase_goes_on"]),
        object_starts=frozenset(q["object_starts"]),
        adverbial_heads=frozenset(q["adverbial_heads"]),
        past=t.irregular_past | frozenset(t.participles),
        feelings=tuple(q["feelings"]),
        feeling_verbs=frozenset(q["feeling_verbs"]),
        leaving=tuple(q["leaving"]),
        leaving_verbs=frozenset(q["leaving_verbs"]),
        bare_verbs=frozenset(q["bare_verbs"]),
        effects_on_me=re.compile(r"\b(?:" + "|".join(q["effects_on_me"]) + r")\b"),
        empty_likes=frozenset(q["empty_likes"]),
        # "the beach", "the kids", "the marathon", "the job", "the army": a kind of place,
        # a relative, an event, a domain of life named with "the" is no pointer
        named_with_the=frozenset(q["generic_after_the"])
        | frozenset(q["place_kinds"])
        | frozenset(q["kinds_with_the"])
        | t.family
        | t.pets
        | t.scheduled_nouns
        | frozenset().union(*(nouns for _, nouns in t.topics.values())),
        social_time=frozenset(q["social_time"]),
        public_subjects=frozenset(q["public_subjects"]),
        opinions=frozenset(q["opinions"]),
        had_verbs=frozenset(q["had_verbs"]),
        effect_verbs=frozenset(q["effect_verbs"]),
        time_together=frozenset(q["time_together"]),
        prepositions=frozenset(q["prepositions"]),
        # "started volunteering about after witnessing": a time phrase was taken out of
        # "about a year ago after", and its approximator stayed behind.
        dangling_approximator=re.compile(
            # (?<!\s): one start per run of spaces, or a long run is read quadratically
            r"(?<!\s)\s+(?:"
            + "|".join(q["approximators"])
            + r")(?=\s+(?:"
            + "|".join(q["clause_links"])
            + r")\s)",
            re.IGNORECASE,
        ),
    )


_ASIDE = re.compile(r",\s+(?:they|it|he|she|that|which|this)\s.*$", re.IGNORECASE)


_POINTED = re.compile(
    r"\s+(?:with|for|to|at|about|on|of|from|by|in|into)\s+"
    r"(?:(?:them|it|him|her|you)\b.*|(?:this|that|those|these)\s*)$",
    re.IGNORECASE,
)


def tidy(fact: ExtractedFact) -> ExtractedFact:
    """``fact`` without what a cut left behind: a redacted secret's clause ("works at X and
    the password is [REDACTED]"), an aside after a comma (", they've overtaken Coldplay")
    and words dangling at the end ("watercolor painting now and")."""
    content = fact.content
    secret = content.find("[REDACTED]")
    if secret > 0:
        cut = max(content.rfind(" and ", 0, secret), content.rfind(", ", 0, secret))
        content = content[:cut] if cut > 0 else content
    if fact.category not in _EXEMPT:
        content = _ASIDE.sub("", content)
        # "started volunteering here": where "here" is, the other words say or nothing does
        content = re.sub(r"\s+(?:here|there)\b(?=\s|$)", "", content)
        # "played soccer with them all afternoon": what follows a pointer says no more
        content = _POINTED.sub("", content)
        if fact.when is not None:
            # a dated event stands without where it happened; a state "on this journey"
            # is bound to it ("lucky to have my partner on this adventure")
            content = _without_place_pointed_at(content, _lists())
    if fact.category not in _EXEMPT:
        content = _lists().dangling_approximator.sub("", content)
    if content.count('"') % 2:
        # 'called "Finding Freedom.' cut at the full stop inside the quotation
        content = content.replace('"', "")
    ends = _lists().fragment_ends
    words = content.split(" ")
    if fact.category not in _EXEMPT:
        while len(words) > 1 and words[-1].lower() in ends:
            words.pop()
    content = " ".join(words)
    return fact if content == fact.content else replace(fact, content=content)


def _without_place_pointed_at(content: str, lists: _Lists) -> str:
    """Without a general word pointed at ("quit my job at that place" -> "quit my job"):
    a week later it names nothing, but the event before it stands ("this week" is a time)."""
    words = content.split(" ")
    if len(words) < 4:
        return content
    preposition, determiner, noun = (w.lower().strip(".,!?") for w in words[-3:])
    if preposition in lists.prepositions and _general(determiner, noun, lists):
        return " ".join(words[:-3])
    return content


def _general(determiner: str, noun: str, lists: _Lists) -> bool:
    """Whether a determiner points at a general word ("that place", "this journey"):
    "this week", "that moment" are times, which say when."""
    return (
        determiner in lists.determiners
        and noun in lists.vague_nouns
        and noun not in lists.adverbial_heads
    )


def acceptable(fact: ExtractedFact, clause: str) -> bool:
    """Whether ``fact``, read from ``clause``, is worth storing."""
    lists = _lists()
    said = clause.lower()
    content = fact.content.lower()
    words = _WORDS.findall(content)
    if not words:
        return False
    if "[redacted]" in content:
        return False  # a fact about a secret is not worth keeping once the secret is gone
    if fact.category == "instruction":
        return _directive(words, lists)
    if fact.category in _EXEMPT:
        return True
    meaningful = [w for w in words if w not in lists.function_words]
    for idiom, idiom_words in lists.idioms:
        if idiom in said and set(meaningful) - {"likes", "dislikes"} <= idiom_words:
            return False
    if fact.category == "preference" and not fact.negative:
        head = next((w for w in words if w not in lists.reactions), "")
        if words[0] in lists.reactions and head not in lists.generic:
            return False
    if any(w in lists.other_party for w in words):
        return False  # "having you in my corner": about the other person
    if fact.category in lists.pointing and any(
        w in lists.pronouns
        and not (w in lists.determiners and k + 1 < len(words) and words[k + 1] in meaningful)
        for k, w in enumerate(words)
    ):
        # "holding them", "the energy there" (but "this side project" names its thing; a
        # decision's or a requirement's "it" is the project: "ship it on Vercel")
        return False
    if words[0] in lists.fragment_starts and not (
        # a life fact starts with its verb: "made an apple pie" is whole, "makes me
        # smile" as a liking is not
        words[0] not in lists.function_words and fact.category in lists.substance_categories
    ):
        return False
    if words[-1] in lists.fragment_ends:
        return False
    if len(words) >= 2 and words[-2] in ("to", "how") and words[-1] in lists.dangling:
        return False  # "started teaching people how to make": what is made is cut
    if fact.category in ("decision", "tech_preference") and words[-1] in lists.interjections:
        return False  # "go with Yes": a reply is no choice
    if words[0] in lists.short_fragment_starts and len(words) <= 3:
        return False  # "in sports", but "on weekdays only 30 minutes for a workout" is whole
    if not meaningful:
        return False
    if fact.category in lists.cut_categories and _cut_short(words, said, lists):
        # "had a ton" (of fun), "started writing" (another one): the meaning was cut. The
        # technical rules name their object ("budget is 1200 euros for the two" of us).
        return False
    core = content
    for lead in _LEADS:
        core = core.removeprefix(lead)
    small_talk = fact.category in lists.small_talk_categories
    if small_talk and _opening(core, lists.small_talk) is not None:
        return False
    if _feeling(core, lists):
        return False  # "thankful for my friends", "got a surge of energy": a mood, not a fact
    if _leaving(fact, core, lists):
        return False  # "off to do some research": leaving the conversation, no plan
    if fact.category in ("preference", "pattern") and lists.effects_on_me.search(content):
        return False  # "volunteering made me feel great", "X reminds me to slow down"
    if fact.category == "preference" and all(w in lists.empty_likes for w in meaningful):
        return False  # "a place", "working": a liking that names nothing
    if (
        fact.category == "preference"
        and any(w in lists.time_together for w in words[:2])
        and all(
            w in lists.social_time or w in lists.vague_nouns or w in lists.evaluative
            for w in meaningful
            if w not in ("i", "we", "have")
        )
    ):
        return False  # "time with family", "being around friends": true of everyone
    if len(words) == 1 and words[0] in lists.bare_verbs:
        return False  # "talked", but "graduated" says what happened
    rest = core.split(" ", 1)[-1]  # what follows the verb, and after its preposition
    after = re.sub(r"^(?:into|in|on|at|to|for|with|about|up|out)\s+", "", rest)
    if any(o == v or o.startswith(v + " ") for v in lists.vague for o in (rest, after)):
        return False  # "got into trouble", "have a meeting": nothing to keep
    if any(us in content for us in lists.about_us):
        return False  # "blessed we both have this mindset": about the two of them
    verbs = [w for w in words if w not in ("plans", "wants", "hopes", "aims", "to", "sometimes")]
    verbs = [w for w in verbs if w not in ("usually", "often", "always", "never", "rarely")]
    if fact.category in ("plan", "goal") and _resolve(verbs, lists):
        return False  # "plans to keep spreading positivity": a resolve, not a plan
    if fact.category in ("pattern", "plan", "activity") and verbs and verbs[0] in lists.mental:
        return False  # "sometimes doubt", "wants to think": a state of mind, not a fact
    if fact.category == "tech_preference" and not _concrete(fact, words, lists):
        return False  # "uses tokenize successes": a tool has a name
    if fact.category in lists.substance_categories and not _substance(words, lists):
        return False  # "had a setback", "worked hard", "got a great turnout": nothing named
    if fact.category in lists.substance_categories and _unresolved(core, fact, lists):
        return False  # "got the tattoo", "helped with the painting": which one, the turn shows
    if fact.category in lists.cut_categories and _points_at_nothing(words, lists):
        return False  # "my family on this journey", "a list of the ones that suit"
    if (
        fact.category == "requirement"
        and _PUBLIC_NEED.match(content)
        and any(w in lists.public_subjects for w in words[:4])
    ):
        return False  # "the LGBTQ community needs more platforms": an opinion on the world
    if (
        fact.category == "family"
        and words[:1] == ["have"]
        and words[1:]
        in (
            ["my", "family"],
            ["my", "fam"],
            ["our", "family"],
        )
    ):
        return False  # "have my family": everyone has; who they are is what to keep
    if fact.category in lists.substance_categories and _vague_possession(words, lists):
        return False  # "had an experience that reminded me...": what it was is left out
    if fact.category == "preference" and _hollow_effect(content, lists):
        return False  # "being able to make a difference brings me joy": true of anyone
    if fact.category in lists.substance_categories and any(
        w in ("is", "are", "was", "were")
        and words[k - 1] not in ("i", "we")
        and k + 1 < len(words)
        and (words[k + 1] in lists.evaluative or words[k + 1] in lists.opinions)
        for k, w in enumerate(words[1:], start=1)
    ):
        return False  # "staying in shape is important": an opinion read as an activity
    if "both" in words[-2:-1] and re.search(
        rf"\bboth\s+{re.escape(words[-1])}\s+(?:like|such|including|as well)\b", said
    ):
        return False  # "a fan of both classical" (like Bach...): the other half was cut
    if fact.category in ("decision", "tech_preference") and _opening(
        core.removeprefix("go with ").removeprefix("use "), ("i", "we", "you", "they")
    ):
        return False  # "go with I love how uncomplicated": a sentence is no choice
    if fact.category in ("decision", "tech_preference") and words[-1].endswith("ly"):
        return False  # "go with Thankfully": a sentence adverb is no choice
    promised = re.search(r"\bwill not\b|\bwon't\b", said) is not None
    if (fact.category == "requirement" or (fact.category == "constraint" and promised)) and not (
        _concrete(fact, words, lists)
    ):
        # "We need folks in the community", "I won't quit on my dreams": a need or a limit
        # worth keeping names a thing, a figure or a part of what is built.
        return False
    return not (fact.category == "requirement" and any(e in said for e in lists.epistemic))


def _cut_short(words: list[str], said: str, lists: _Lists) -> bool:
    """Whether the fact stops where its phrase goes on in what was said: the next word
    is "of" or "another", or, after a verb, the start of its object ("started writing"
    another one, "powered" through; not "gone camping" a few times, which says when). A
    comma or a full stop between ends the phrase."""
    tail = words[-2:]
    pattern = r"\b" + r"\W+".join(re.escape(w) for w in tail) + r"\b([^\w]*)(\w+)(?:\s+(\w+))?"
    verb = tail[-1].endswith(("ing", "ed")) or tail[-1] in lists.past
    mentions = list(re.finditer(pattern, said))
    return bool(mentions) and all(
        not re.search(r"[.,;:!?()\"]", found.group(1))
        and (
            found.group(2) in lists.phrase_goes_on
            or (
                verb
                and found.group(2) in lists.object_starts
                and found.group(3) not in lists.adverbial_heads
            )
        )
        for found in mentions  # one mention that ends the phrase may be the fact's
    )


def _opening(text: str, phrases: Iterable[str]) -> str | None:
    """The first of ``phrases`` that ``text`` is, or starts with as whole words."""
    return next((p for p in phrases if text == p or text.startswith(p + " ")), None)


def _feeling(core: str, lists: _Lists) -> bool:
    """Whether the fact is a mood: a feeling word first, after any verb of feeling or
    intensifier ("feeling so blessed", "got a surge of energy")."""
    words = core.split()
    while words and words[0] in lists.feeling_verbs:
        words.pop(0)
    return _opening(" ".join(words), lists.feelings) is not None


def _leaving(fact: ExtractedFact, core: str, lists: _Lists) -> bool:
    """Whether the fact only says the user is leaving the conversation now ("off to bake
    some cakes", "gotta go"): the lead alone, or followed by an everyday verb. A trip
    or a change of life names a place or a thing ("off to boot camp", "off to Lisbon in
    March") and has no such verb."""
    lead = _opening(core, lists.leaving)
    if lead is None or fact.when is not None:
        return False
    after = core[len(lead) :].split()
    return not after or after[0] in lists.leaving_verbs


def _points_at_nothing(words: list[str], lists: _Lists) -> bool:
    """Whether the fact points at something only the conversation shows, named by a
    general word ("this journey", "at that place", "the ones"): a week later it names
    nothing. The general word must be the head ("this event called Burning Man", "that
    work conference" name something), and "that" after a noun opens a clause ("a book
    that people enjoy")."""
    for k, (w, after) in enumerate(pairwise(words)):
        head = k + 2 == len(words) or words[k + 2] in lists.function_words
        if not head:
            continue
        if w == "that" and k and words[k - 1] not in lists.prepositions:
            continue
        if _general(w, after, lists):
            return True
        if w in ("the", *lists.determiners) and after in ("one", "ones"):
            return True
    return False


def _resolve(verbs: list[str], lists: _Lists) -> bool:
    """Whether a plan only goes on with something ("keep spreading positivity", "try to
    relax"): "try" with a thing of its own ("wants to try yoga") is something new."""
    if not verbs or verbs[0] not in lists.continuations:
        return False
    if verbs[0] == "try" and verbs[1:2] not in (["to"], ["and"]):
        return not _substance(verbs, lists)
    return True


def _substance(words: list[str], lists: _Lists) -> bool:
    """Whether a dated or personal fact names something beyond its verb: a word that is
    not a function word, not vague ("experience", "memories", "dreams"), not evaluative
    ("great", "busy", "hard")."""
    rest = words[1:] if len(words) > 1 else words
    return any(
        w not in lists.function_words
        and w not in lists.vague_nouns
        and w not in lists.evaluative
        and w not in lists.light_verbs
        and w not in ("plans", "wants", "hopes", "aims", "to", "about", "working", "thinking")
        for w in rest
    )


_DEFINITE_OBJECT = re.compile(
    r"^\S+(?:\s+(?:with|on))?\s+(?:the|this|that|these|those)\s+(?P<np>[\w'-]+(?:\s+[\w'-]+)?)$"
)


def _unresolved(core: str, fact: ExtractedFact, lists: _Lists) -> bool:
    """Whether all the fact names is a thing pointed at ("got the tattoo", "plans to get
    the video"): the other person saw it, a week later nobody knows which. A kind of place
    or pastime ("the beach", "the gym"), a relative ("the kids") or a name is no pointer."""
    found = _DEFINITE_OBJECT.match(core)
    if found is None or fact.content.split()[-1][:1].isupper():
        return False
    *adjectives, head = found.group("np").split()
    if any(a not in lists.evaluative for a in adjectives):
        return False  # "the adoption agency": its first word says which
    # "finished the marathon": a kind of event is said with "the" and still names it
    return not {head} & lists.named_with_the


_PUBLIC_NEED = re.compile(
    r"^(?:the\s+|our\s+)?(?:[\w+-]+\s+){0,2}?(?:[\w-]+)\s+(?:needs?|must|should|has\s+to|have\s+to)\b",
    re.IGNORECASE,
)


def _vague_possession(words: list[str], lists: _Lists) -> bool:
    """Whether the fact only says the user had or got something vague ("had an
    experience that reminded me...", "got the right attitude"): the head of the object,
    after its determiners and adjectives, names nothing, and nothing after it does."""
    if len(words) < 2 or words[0] not in lists.had_verbs:
        return False
    at = next(
        (
            k
            for k, w in enumerate(words)
            if k and w not in lists.function_words and w not in lists.evaluative
        ),
        None,
    )
    if at is None or words[at] not in lists.vague_nouns:
        return False
    # "an experience at a military memorial", "... hiking with friends" say what it was
    return at + 1 == len(words) or words[at + 1] in ("that", "which", "who", "so")


def _hollow_effect(content: str, lists: _Lists) -> bool:
    """Whether what does something for the user names nothing ("being able to make a
    difference brings me joy"), unlike "dancing brings me joy"."""
    # words, not a regular expression: a model's answer is not bounded like a turn is
    words = content.lower().split()
    at = next(
        (
            k
            for k in range(1, len(words) - 1)
            if words[k] in lists.effect_verbs and words[k + 1] == "me"
        ),
        None,
    )
    if at is None:
        return False
    thing = words[:at]
    return ("being" in thing or any(w in lists.light_verbs for w in thing)) and all(
        w in lists.function_words
        or w in lists.vague_nouns
        or w in lists.evaluative
        or w in lists.light_verbs
        or w in ("being", "able", "made", "makes")
        for w in thing
    )


def _concrete(fact: ExtractedFact, words: list[str], lists: _Lists) -> bool:
    return (
        any(c.isdigit() for c in fact.content)
        or any(w in lists.requirement_words for w in words)
        or bool(terms_in(fact.content))
        or any(w[:1].isupper() for w in fact.content.split()[1:])
    )


def directive(content: str) -> bool:
    """Whether an instruction's words name something the assistant does."""
    return _directive(_WORDS.findall(content.lower()), _lists())


def _directive(words: list[str], lists: _Lists) -> bool:
    """An instruction names something the assistant does ("answer", "use", "explain",
    "apologize"...) among its first words; "that is why I love" names nothing of it, and
    cheering ("keep up the great work", "never give up") is said to a person."""
    said = " ".join(words)
    if _opening(said, lists.cheering) is not None:
        return False
    if re.search(r"\bi (?:will|would|might|could)\b", said):
        return False  # "there's a chance I will be visiting...": the user's own plans
    return any(word in lists.assistant_verbs for word in words[:8])
