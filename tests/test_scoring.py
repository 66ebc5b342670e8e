"""SQuAD-style scoring against hand-computed values."""

from __future__ import annotations

import pytest

from graphmind.core.scoring import (
    best_exact_match,
    best_token_f1,
    exact_match,
    is_correct,
    normalize_answer,
    token_f1,
)


def test_normalize_answer() -> None:
    assert normalize_answer("The  Eiffel Tower!") == "eiffel tower"
    assert normalize_answer("An apple, a day") == "apple day"


def test_exact_match_ignores_case_articles_and_punctuation() -> None:
    assert exact_match("the Port Ellis.", "port ellis") == 1.0
    assert exact_match("Port Ellis harbour", "Port Ellis") == 0.0


def test_token_f1_hand_computed() -> None:
    # prediction "port ellis harbour" vs gold "port ellis": P = 2/3, R = 1, F1 = 0.8
    assert token_f1("Port Ellis harbour", "Port Ellis") == pytest.approx(0.8)
    # "new york city" vs "york": P = 1/3, R = 1 -> 0.5
    assert token_f1("New York City", "York") == pytest.approx(0.5)
    assert token_f1("Paris", "London") == 0.0
    assert token_f1("", "London") == 0.0


def test_yes_no_only_match_themselves() -> None:
    assert token_f1("yes", "yes") == 1.0
    assert token_f1("yes it is", "yes") == 0.0


def test_best_over_aliases_and_correctness() -> None:
    golds = ["United States", "USA", "U.S."]
    assert best_exact_match("usa", golds) == 1.0
    # "united states of america" vs "united states": P = 2/4, R = 1 -> 2/3
    assert best_token_f1("the United States of America", golds) == pytest.approx(2 / 3)
    assert is_correct("Port Ellis harbour", ["Port Ellis"])  # F1 0.8 counts
    assert not is_correct("Port Ellis old harbour", ["Port Ellis"])  # F1 2/3
    assert best_token_f1("x", []) == 0.0
