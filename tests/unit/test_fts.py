import pytest

from engram.adapters.libsql.fts import build_match, query_terms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('say "hello" now', '"say" OR "hello" OR "now"'),
        ("C++ & Rust", '"c" OR "rust"'),
        ("sci-fi", '"sci" OR "fi"'),
        ("it's (really) *great*", '"really" OR "great"'),
        ("NEAR AND OR NOT", '"near"'),
    ],
)
def test_user_text_becomes_quoted_terms(text, expected):
    assert build_match(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "what is it?", "***", "()", "'\""])
def test_text_without_content_words_gives_no_query(text):
    assert build_match(text) is None


def test_terms_are_distinct_and_capped():
    assert query_terms("Rust rust RUST go") == ["rust", "go"]
    assert len(query_terms(" ".join(f"w{i}" for i in range(100)))) == 32
