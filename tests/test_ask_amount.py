"""Comparisons of two options' measures: reading the question and the numbers, deciding
in code, and the loop asking each option's question (scripted model, both stores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import StoreFactory, asked_question
from graphmind.ask.rules.alike import two_options
from graphmind.ask.rules.amount import (
    Amount,
    amount,
    larger,
    numbers_in,
    parse_amount,
    with_unit,
)
from graphmind.ask.rules.compare import Comparison
from graphmind.llm.base import Message
from helpers.ask import built, candidates_in, is_check, loop


@pytest.mark.parametrize(
    ("question", "asked", "more"),
    [
        ("Which mountain is higher, Nanda Devi or Broad Peak?", "How high is Nanda Devi?", 1),
        (
            "Which mountain is taller, Gasherbrum II or Langtang Ri?",
            "How tall is Gasherbrum II?",
            1,
        ),
        ("Which river is longer, the Don or the Volga?", "How long is the Don?", 1),
        (
            "Which city has a smaller population, Lyon or Porto?",
            "What is the population of Lyon?",
            0,
        ),
        ("Which peak has a higher elevation, K2 or Lhotse?", "What is the elevation of K2?", 1),
    ],
)
def test_a_comparison_of_measures_is_read_from_the_question(
    question: str, asked: str, more: int
) -> None:
    found = amount(question)
    assert found is not None and found.more == bool(more)
    assert found.questions(found.options[0]) == [(asked, "")]
    assert two_options(question) == found


@pytest.mark.parametrize(
    "question",
    [
        "Which opera has more acts, Parsifal or Manon?",  # a count: not asked per option
        "Which genus contains more species, Crowea or Dracula?",
        "Which actor is more famous, Tom Hanks or Tom Cruise?",
        "Who lived longer, Ida Brenn or Lars Dahl?",  # a lifespan
        "How high is Nanda Devi?",  # one option
        "Which mountain is higher?",
    ],
)
def test_other_questions_are_no_comparison_of_measures(question: str) -> None:
    assert amount(question) is None


def test_dates_are_still_read_as_dates() -> None:
    assert isinstance(two_options("Which film came out more recently, Up or Cars?"), Comparison)


@pytest.mark.parametrize(
    ("text", "value", "written"),
    [
        ("7,816 metres (25,643 ft)", 7816.0, 7816.0),
        ("8,051 m", 8051.0, 8051.0),
        ("8035m", 8035.0, 8035.0),
        ("26,864 ft", 26864 * 0.3048, 26864.0),
        ("three acts", 3.0, 3.0),
        ("about 1.2 million", 1.2e6, 1.2e6),
        ("It has 1,100 species.", 1100.0, 1100.0),
        ("2 km", 2000.0, 2.0),
    ],
)
def test_amounts_are_read_as_written(text: str, value: float, written: float) -> None:
    found = parse_amount(text)
    assert found is not None
    assert found.value == pytest.approx(value) and found.written == written


def test_no_number_is_no_amount() -> None:
    assert parse_amount("none known") is None
    assert parse_amount("the 1990s") is None and parse_amount("3rd") is None
    assert numbers_in("an opera in three acts, first staged in 1884") == {3.0, 1884.0}


def test_an_answer_without_its_unit_takes_the_one_its_passage_writes() -> None:
    assert with_unit("7205", ["Langtang Ri (7,205 m) is a mountain."]) == "7205 m"
    assert with_unit("7205", ["Langtang Ri is 7,205 high."]) == "7205"
    assert with_unit("8,051 m", ["8,051 ft"]) == "8,051 m"


def test_the_larger_or_smaller_amount_wins_in_comparable_units() -> None:
    higher = Amount(("Nanda Devi", "Broad Peak"), True, "high")
    assert larger(higher, ("7,816 m", "8,051 m")) == "Broad Peak"
    assert larger(higher, ("7,816 m", "26,414 ft")) == "Broad Peak"  # 8,051 m
    assert larger(higher, ("7,816 m", "8051")) is None  # a unit on one only
    assert larger(higher, ("8,051 m", "8,051 metres")) is None  # a tie
    smaller = Amount(("Lyon", "Porto"), False, "population", adjective=False)
    assert larger(smaller, ("about 516,000", "0.23 million")) == "Porto"
    assert larger(smaller, ("", "231,800")) is None
    longer = Amount(("Up", "Cars"), True, "long")
    assert larger(longer, ("2 hours", "95 minutes")) == "Up"  # 7,200 s against 5,700 s
    assert larger(longer, ("2 hours", "95")) is None


PEAKS = {
    "Nanda Devi": "Nanda Devi is the second-highest mountain in India, at 7,816 m (25,643 ft).",
    "Broad Peak": "Broad Peak is a mountain in the Karakoram, 8,051 metres high.",
    "Langtang Ri": "Langtang Ri is a mountain in the Langtang Himal of Nepal.",
}
HEIGHTS = {"Nanda Devi": "7,816 m", "Broad Peak": "8051", "Langtang Ri": "7,205 m"}


def answers(asked: list[str]) -> object:
    """A model that answers each peak's height, citing the passages that name the peak
    (Langtang Ri's passage gives none: the model guesses); checks say complete; abstains
    on anything else."""

    def respond(messages: list[Message]) -> str:
        if is_check(messages):
            return json.dumps({"complete": True, "missing": "", "query": ""})
        question = asked_question(messages).removeprefix("Question: ")
        asked.append(question)
        peak = next((p for p in HEIGHTS if question == f"How high is {p}?"), "")
        cited = [n for n, t in candidates_in(messages).items() if peak and peak in t]
        if cited:
            return json.dumps({"answer": HEIGHTS[peak], "citations": cited})
        return json.dumps({"answer": "", "citations": [], "abstain": True})

    return respond


def test_a_comparison_of_measures_asks_each_option_and_compares(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = built(open_store(), tmp_path, PEAKS)
    asked: list[str] = []
    question = "Which mountain is higher, Nanda Devi or Broad Peak?"
    decision = loop(store, tmp_path, answers(asked), k=5, explain=True).ask(question)
    assert asked == ["How high is Nanda Devi?", "How high is Broad Peak?"]
    assert decision.answer == "Broad Peak"
    assert [c.title for c in decision.citations] == ["Nanda Devi", "Broad Peak"]
    assert [s.text for s in decision.explanation] == [
        "Nanda Devi is 7,816 m high.",
        "Broad Peak is 8051 metres high.",  # the unit its passage writes
        "7,816 m is less than 8051 metres, so the answer is Broad Peak.",
    ]


def test_a_number_no_passage_writes_leaves_the_question_to_the_loop(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """Langtang Ri's passage gives no height: the model's 7,205 m decides nothing."""
    store = built(open_store(), tmp_path, PEAKS)
    asked: list[str] = []
    question = "Which mountain is higher, Langtang Ri or Broad Peak?"
    decision = loop(store, tmp_path, answers(asked), k=5).ask(question)
    assert asked[0] == "How high is Langtang Ri?"
    assert question in asked and decision.abstained
