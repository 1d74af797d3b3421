"""Compiled rules that are tried only where they can match.

Most rules need a word the text rarely holds ("prefer", "switched", "kullanıyorum"):
``compile`` reads that need off the expression itself (Python's own parser of
expressions) and tries the expression only on text that contains one of the words it
requires, a plain substring test. A clause is then read by the few rules that could
apply instead of by hundreds, which keeps extraction fast on long messages; the answer
is the same, since text without a required word could never match.

What counts as required: an expression is a sequence, and every element of it that
must occur (not optional, repeated at least once) either is a run of literal
characters or a choice between alternatives that each require literal text. Of
those, the most selective is kept: the choice whose shortest word is longest.
Character classes, wildcards and lookarounds require nothing.

Which required words a text holds is found once per text for every rule at once, by an
Aho-Corasick automaton over all of them (``pyahocorasick``, in C): a rule's test is then
a set intersection.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any, TypeVar

import ahocorasick

# CPython's own parser of expressions, the one ``re`` compiles with (``sre_parse`` is its
# deprecated alias; typeshed describes neither).
_c: Any = importlib.import_module("re._constants")
_p: Any = importlib.import_module("re._parser")

__all__ = ["Rule", "able", "compile", "fold"]

# Words shorter than this are in nearly every text: requiring them filters nothing.
_SHORTEST_USEFUL = 3


def fold(text: str) -> str:
    """``text`` lower-cased the way required words are compared: the Turkish dotless and
    dotted i fold into i, since a case-insensitive expression matches either."""
    return text.lower().replace("\u0131", "i").replace("i\u0307", "i")


def _literal(items: Any) -> str | None:
    """The literal text a sequence of parsed items spells, if it is only literals."""
    chars = []
    for op, arg in items:
        if op is _c.LITERAL:
            chars.append(chr(arg))
        else:
            return None
    return "".join(chars)


def _required(items: Any) -> frozenset[str] | None:
    """Words one of which any match of this parsed sequence contains (None: unknown)."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def consider(words: frozenset[str] | None) -> None:
        nonlocal best
        if not words or min(len(w) for w in words) < _SHORTEST_USEFUL:
            return
        if best is None or min(len(w) for w in words) > min(len(w) for w in best):
            best = words

    for op, arg in items:
        if op is _c.LITERAL:
            run.append(chr(arg))
            continue
        consider(frozenset({fold("".join(run))}) if run else None)
        run = []
        if op is _c.SUBPATTERN:
            consider(_required(arg[-1]))
        elif op is _c.BRANCH:
            choices = [_alternative(branch) for branch in arg[1]]
            if all(choices):
                consider(frozenset().union(*choices))  # type: ignore[arg-type]
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            low, _, body = arg
            if low >= 1:
                consider(_required(body))
        elif op is _c.ATOMIC_GROUP:
            consider(_required(arg))
    consider(frozenset({fold("".join(run))}) if run else None)
    return best


def _alternative(branch: Any) -> frozenset[str] | None:
    """What one alternative of a choice requires: its literal text, or a required set."""
    literal = _literal(branch)
    if literal is not None:
        return frozenset({fold(literal)}) if literal else None
    found = _required(branch)
    if found is not None:
        return found
    # A prefix of literals still has to occur ("prefer\s+...": "prefer").
    prefix = []
    for op, arg in branch:
        if op is not _c.LITERAL:
            break
        prefix.append(chr(arg))
    return frozenset({fold("".join(prefix))}) if prefix else None


def required_words(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """The words one of which every match of ``pattern`` contains, or None when the
    expression requires no word long enough to be worth testing for."""
    parsed = _p.parse(pattern, flags)
    found = _required(list(parsed))
    if found is None or min(len(w) for w in found) < _SHORTEST_USEFUL:
        return None
    return found


class _Words:
    """Every rule's required words, and which of them a text contains."""

    def __init__(self) -> None:
        self._words: set[str] = set()
        self._automaton: Any = None
        self._lock = threading.Lock()

    def add(self, words: frozenset[str]) -> None:
        with self._lock:
            if not words <= self._words:
                self._words |= words
                self._automaton = None
                self.present.cache_clear()

    def _built(self) -> Any:
        with self._lock:
            if self._automaton is None:
                automaton = ahocorasick.Automaton()
                for word in self._words:
                    automaton.add_word(word, word)
                automaton.make_automaton()
                self._automaton = automaton
            return self._automaton

    @lru_cache(maxsize=1024)  # noqa: B019 - one instance, for the life of the process
    def present(self, text: str) -> frozenset[str]:
        """The required words ``text`` contains (compared as ``fold`` leaves them)."""
        automaton = self._built()
        if not len(automaton):
            return frozenset()
        return frozenset(word for _, word in automaton.iter(fold(text)))


_WORDS = _Words()


class Rule:
    """A compiled expression that answers "no match" at once for text lacking every
    word it requires. The rest of ``re.Pattern`` is reached as usual."""

    __slots__ = ("_needs", "compiled")

    def __init__(self, compiled: re.Pattern[str]) -> None:
        self.compiled = compiled
        self._needs = required_words(compiled.pattern, compiled.flags)
        if self._needs is not None:
            _WORDS.add(self._needs)

    def can_match(self, text: str) -> bool:
        return self._needs is None or not self._needs.isdisjoint(_WORDS.present(text))

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        return self.compiled.search(text, *args) if self.can_match(text) else None

    def match(self, text: str, *args: int) -> re.Match[str] | None:
        return self.compiled.match(text, *args) if self.can_match(text) else None

    def fullmatch(self, text: str, *args: int) -> re.Match[str] | None:
        return self.compiled.fullmatch(text, *args) if self.can_match(text) else None

    def finditer(self, text: str, *args: int) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text, *args) if self.can_match(text) else iter(())

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
        return self.compiled.sub(repl, text, count) if self.can_match(text) else text

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)


def compile(pattern: str, flags: int = 0) -> Rule:
    return Rule(re.compile(pattern, flags))


_Item = TypeVar("_Item")


class _Index:
    """Which rules of one list each required word lets through (by position)."""

    def __init__(self, items: Sequence[object]) -> None:
        self.always: list[int] = []
        self.by_word: dict[str, list[int]] = {}
        for position, item in enumerate(items):
            rule = (
                item
                if isinstance(item, Rule)
                else next(
                    (part for part in item if isinstance(part, Rule)),  # type: ignore[attr-defined]
                    None,
                )
            )
            if rule is None or rule._needs is None:
                self.always.append(position)
                continue
            for word in rule._needs:
                self.by_word.setdefault(word, []).append(position)


_indexes: dict[int, tuple[Sequence[object], _Index]] = {}


def able(items: Sequence[_Item], text: str) -> list[_Item]:
    """The items of a list of rules (each a ``Rule``, or a tuple holding one) whose rule
    can match ``text``, in the list's order: one look-up per list instead of a test per
    rule. The list must not change once used."""
    known = _indexes.get(id(items))
    if known is None or known[0] is not items:
        known = _indexes[id(items)] = (items, _Index(items))
    index = known[1]
    chosen = set(index.always)
    for word in _WORDS.present(text):
        chosen.update(index.by_word.get(word, ()))
    return [items[position] for position in sorted(chosen)]
