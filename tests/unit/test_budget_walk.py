"""The one budget walk (``domain.tokens.fit``) that libSQL's recall tier and the
manager's fitting of a remote backend's answer share."""

from engram.domain.tokens import fit


def _cost(word: str) -> int:
    return len(word)


def test_a_long_item_is_skipped_and_the_shorter_ones_after_it_keep_their_chance():
    assert fit(["aaaa", "bbbbbbbbbb", "cc", "d"], _cost, 7, 10) == [
        ("aaaa", 4),
        ("cc", 2),
        ("d", 1),
    ]


def test_the_limit_counts_items_not_tokens():
    assert [w for w, _ in fit(["a", "b", "c"], _cost, 100, 2)] == ["a", "b"]


def test_nothing_fits_means_nothing_unless_at_least_one_is_asked():
    ranked = ["a" * 50, "b" * 40]
    assert fit(ranked, _cost, 10, 5) == []
    assert fit(ranked, _cost, 10, 5, at_least_one=True) == [("a" * 50, 50)]


def test_at_least_one_needs_something_ranked_and_some_room():
    assert fit([], _cost, 10, 5, at_least_one=True) == []
    assert fit(["a" * 50], _cost, 0, 5, at_least_one=True) == []
    assert fit(["a" * 50], _cost, 10, 0, at_least_one=True) == []
