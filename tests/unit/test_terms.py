"""Pure text rules in engram.domain.terms."""

from __future__ import annotations

import pytest

from engram.domain.terms import prefix_speaker


@pytest.mark.parametrize(
    ("opening", "speaker"),
    [
        ("Caroline: I went to the support group", "Caroline"),
        ("Mary Ann: hello there", "Mary Ann"),
        ("Note: buy milk", None),  # a line label, not a person
        ("Q: what time is it", None),
        ("R2D2: beep", None),
        ("I think: yes", None),
        ("Melanie:no space after the colon", None),
        ("see https://example.com", None),
        (None, None),
    ],
)
def test_a_transcript_line_names_its_speaker(opening, speaker):
    assert prefix_speaker(opening) == speaker


def test_stems_come_from_snowballs_c_stemmer_and_match_the_python_one():
    """PyStemmer is a dependency for speed (a query stems its candidates' new words);
    its stems must be the pure-Python Snowball's, which FTS5's porter agrees with."""
    import re
    from pathlib import Path

    import Stemmer
    from snowballstemmer.english_stemmer import EnglishStemmer
    from snowballstemmer.porter_stemmer import PorterStemmer

    from engram.adapters.extraction import facts
    from engram.domain import terms

    assert isinstance(terms._porter, Stemmer.Stemmer)
    assert isinstance(facts.STEMMER, Stemmer.Stemmer)
    text = Path(terms.__file__).read_text() + Path(facts.__file__).read_text()
    words = [*sorted(set(re.findall(r"[a-z]+", text.lower()))), "running", "généralement"]
    assert len(words) > 500
    for python, c in ((PorterStemmer(), terms._porter), (EnglishStemmer(), facts.STEMMER)):
        assert c.stemWords(words) == python.stemWords(words)
