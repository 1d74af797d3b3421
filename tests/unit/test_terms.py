"""Pure text rules in engram.terms."""

from __future__ import annotations

import pytest

from engram.terms import prefix_speaker


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
