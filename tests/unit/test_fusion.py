import numpy as np
import pytest

from engram.app.fusion import (
    DENSE_WEIGHT,
    SPEAKER_BONUS,
    named_speakers,
    rrf,
    strip_names,
    weighted,
)
from engram.ports import DenseScores


def test_named_speakers_match_whole_names_and_possessives():
    speakers = ["Caroline", "Melanie", None, "Al"]
    assert named_speakers("What did Caroline's sister say?", speakers) == {"Caroline"}
    assert named_speakers("Did Melanie and caroline meet?", speakers) == {"Melanie", "Caroline"}
    assert named_speakers("Also, what about Alabama?", speakers) == set()


def test_strip_names_removes_names_for_the_keyword_query():
    assert strip_names("What did Caroline's team research?", {"Caroline"}).split() == [
        "What",
        "did",
        "team",
        "research?",
    ]


def dense(sims, speakers):
    ids = [chr(ord("a") + i) for i in range(len(sims))]
    masks = {name: np.array([s == name for s in speakers]) for name in set(speakers) if name}
    return DenseScores(
        ids,
        np.array(sims, dtype=np.float32),
        {i: n for n, i in enumerate(ids)},
        masks,
        {100 + n: n for n in range(len(ids))},  # row seq 100 is "a", 101 "b"...
    )


def test_weighted_adds_squashed_bm25_cosine_and_speaker_bonus():
    scores = dict(
        weighted(
            [(100, 9.0), (101, 3.0), (103, 5.0), (999, 50.0)],
            dense([0.1, 0.5, 0.4, -np.inf], ["X", None, "Y", "Y"]),
            {"Y"},
            k=10,
        )
    )
    # Seq 999 is not the owner's and "d" (seq 103) is not allowed: neither is scored, and
    # neither sets the scale.
    assert scores["a"] == pytest.approx(1.0 + DENSE_WEIGHT * 0.1)
    assert scores["b"] == pytest.approx(np.log1p(3) / np.log1p(9) + DENSE_WEIGHT * 0.5)
    assert scores["c"] == pytest.approx(DENSE_WEIGHT * 0.4 + SPEAKER_BONUS)
    assert set(scores) == {"a", "b", "c"}  # "d" is not allowed (-inf): never returned


def test_weighted_returns_the_k_best_in_order():
    ranked = weighted([], dense([0.3, 0.9, 0.1, 0.5], [None] * 4), set(), k=2)
    assert [memory_id for memory_id, _ in ranked] == ["b", "d"]


def test_dense_top_skips_disallowed_rows():
    assert dense([-np.inf, 0.2], [None, None]).top(5) == [("b", pytest.approx(0.2))]


def test_rrf_sums_reciprocal_ranks():
    scores = rrf([["a", "b"], ["b", "c"]], k=60)
    assert scores == pytest.approx({"a": 1 / 61, "b": 1 / 62 + 1 / 61, "c": 1 / 62})


def test_a_row_newer_than_the_product_is_left_out_not_an_error():
    """Another thread may refresh an owner's index (a new row, position 2) after this
    query's product scored two rows: the shared ``seq_position`` then names a position
    past ``sims``. That row is not ranked this time; nothing raises."""
    sims = np.array([0.2, 0.1], dtype=np.float32)
    dense = DenseScores(["a", "b"], sims, {"a": 0, "b": 1, "c": 2}, {}, {10: 0, 11: 1, 12: 2})
    best = weighted([(12, 9.0), (11, 1.0)], dense, set(), 5)
    assert [memory_id for memory_id, _ in best] == ["b", "a"]
