"""BM25 ranking used where the full-text index's own score ignores word rarity."""

from __future__ import annotations

import math

import pytest

from graphmind.store.bm25 import idf, pool_terms, query_terms, rank, stem


def test_query_terms_are_distinct_lowercase_words() -> None:
    assert query_terms("Who directed Film? The film's director!") == [
        "who",
        "directed",
        "film",
        "the",
        "s",
        "director",
    ]
    assert query_terms(" ?! ") == []
    assert len(query_terms(" ".join(f"w{i}" for i in range(50)))) == 32


def test_stem_folds_plurals_only() -> None:
    assert [stem(w) for w in ("films", "film", "class", "is", "gas")] == [
        "film",
        "film",
        "class",
        "is",
        "gas",
    ]


def test_idf_by_hand() -> None:
    assert idf(1, 100) == pytest.approx(math.log(1 + 99.5 / 1.5))
    assert idf(100, 100) == pytest.approx(math.log(1 + 0.5 / 100.5))
    assert idf(100, 100) > 0


def test_pool_takes_the_rarest_words_within_the_budget() -> None:
    df = {"film": 2400, "aatma": 1, "gowravam": 1, "producer": 700, "the": 5300}
    assert pool_terms(df, 1000) == ["aatma", "gowravam", "producer"]
    assert pool_terms(df, 1) == ["aatma"]
    assert pool_terms({"the": 5300}, 1000) == ["the"]  # never empty


def test_rank_scores_by_hand() -> None:
    docs = [("a", "film film film"), ("b", "aatma film"), ("c", "nothing here")]
    df = {"film": 90, "aatma": 1}
    ranked = rank(docs, df, 100, 5)
    assert [d for d, _ in ranked] == ["b", "a"]  # "c" matches no word: left out
    avg = (3 + 2 + 2) / 3

    def part(tf: int, length: int) -> float:
        norm = 1.2 * (1 - 0.75 + 0.75 * length / avg)
        return tf * 2.2 / (tf + norm)

    assert ranked[0][1] == pytest.approx(idf(1, 100) * part(1, 2) + idf(90, 100) * part(1, 2))
    assert ranked[1][1] == pytest.approx(idf(90, 100) * part(3, 3))


def test_rank_folds_plurals_and_breaks_ties_by_id() -> None:
    docs = [("z", "Films of 1966"), ("y", "films of 1966")]
    ranked = rank(docs, {"film": 3}, 10, 2)
    assert [d for d, _ in ranked] == ["y", "z"]
    assert ranked[0][1] == ranked[1][1] > 0
    assert rank([], {"film": 3}, 10, 2) == []
