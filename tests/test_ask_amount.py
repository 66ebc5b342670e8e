"""Comparisons of two options' amounts: reading the question and the numbers, deciding
in code, and the loop asking each option's question (scripted model, both stores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import StoreFactory, asked_question
from graphmind.ask.rules.alike import two_options
from graphmind.ask.rules.amount import Amount, amount, larger, numbers_in, parse_amount
from graphmind.ask.rules.compare import Comparison
from graphmind.llm.base import Message
from helpers.ask import built, candidates_in, is_check, loop


@pytest.mark.parametrize(
    ("question", "asked", "more"),
    [
        ("Which opera has more acts, Parsifal or Manon?", "How many acts does Parsifal have?", 1),
        (
            "Who won more academy awards,  Joseph L. Mankiewicz or Tony Kaye?",
            "How many academy awards has Joseph L. Mankiewicz won?",
            1,
        ),
        (
            "Who has worked for more film companies, Kelly Reichardt or Jacques Tourneur?",
            "How many film companies has Kelly Reichardt worked for?",
            1,
        ),
        (
            "Which genus contains fewer species, Crowea or Dracula?",
            "How many species does Crowea have?",
            0,
        ),
        ("Which mountain is higher, Nanda Devi or Broad Peak?", "How high is Nanda Devi?", 1),
        ("Which river is longer, the Don or the Volga?", "How long is the Don?", 1),
        (
            "Which city has a smaller population, Lyon or Porto?",
            "What is the population of Lyon?",
            0,
        ),
    ],
)
def test_an_amount_comparison_is_read_from_the_question(
    question: str, asked: str, more: int
) -> None:
    found = amount(question)
    assert found is not None and found.more == bool(more)
    assert found.questions(found.options[0]) == [(asked, "")]
    assert two_options(question) == found


@pytest.mark.parametrize(
    "question",
    [
        "Which actor is more famous, Tom Hanks or Tom Cruise?",  # not a count
        "Who has written more than 300 papers, Gershgorin or Alexandrov?",  # a threshold
        "Who lived longer, Ida Brenn or Lars Dahl?",  # a lifespan
        "How many acts does Parsifal have?",  # one option
        "Which opera has more acts?",
    ],
)
def test_other_questions_are_no_amount_comparison(question: str) -> None:
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


def test_the_larger_or_smaller_amount_wins_in_comparable_units() -> None:
    higher = Amount(("Nanda Devi", "Broad Peak"), True, "measure", "high")
    assert larger(higher, ("7,816 m", "8,051 m")) == "Broad Peak"
    assert larger(higher, ("7,816 m", "26,414 ft")) == "Broad Peak"  # 8,051 m
    assert larger(higher, ("7,816 m", "8051")) is None  # a unit on one only
    assert larger(higher, ("8,051 m", "8,051 metres")) is None  # a tie
    fewer = Amount(("Crowea", "Dracula"), False, "count", "species")
    assert larger(fewer, ("eight", "about 1,100")) == "Crowea"
    assert larger(fewer, ("", "1,100")) is None
    longer = Amount(("Up", "Cars"), True, "measure", "long")
    assert larger(longer, ("2 hours", "95 minutes")) == "Up"  # 7,200 s against 5,700 s
    assert larger(longer, ("2 hours", "95")) is None


OPERAS = {
    "Parsifal": "Parsifal is an opera in three acts by Richard Wagner, first staged in 1882.",
    "Manon": "Manon is an opéra comique in five acts by Jules Massenet, first staged in 1884.",
    "Carmen": "Carmen is an opera by Georges Bizet, first staged in 1875.",
}
ACTS = {"Parsifal": "3", "Manon": "five", "Carmen": "4"}


def answers(asked: list[str]) -> object:
    """A model that answers each opera's acts with the number its passage writes (as
    digits or as the passage's word), citing the passages that name the opera; checks
    say complete; abstains on anything else."""

    def respond(messages: list[Message]) -> str:
        if is_check(messages):
            return json.dumps({"complete": True, "missing": "", "query": ""})
        question = asked_question(messages).removeprefix("Question: ")
        asked.append(question)
        opera = next((o for o in ACTS if question == f"How many acts does {o} have?"), "")
        cited = [n for n, t in candidates_in(messages).items() if opera and opera in t]
        if cited:
            return json.dumps({"answer": ACTS[opera], "citations": cited})
        return json.dumps({"answer": "", "citations": [], "abstain": True})

    return respond


def test_an_amount_comparison_asks_each_option_and_compares(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = built(open_store(), tmp_path, OPERAS)
    asked: list[str] = []
    question = "Which opera has more acts, Parsifal or Manon?"
    decision = loop(store, tmp_path, answers(asked), k=5, explain=True).ask(question)
    assert asked == ["How many acts does Parsifal have?", "How many acts does Manon have?"]
    assert decision.answer == "Manon"  # five acts against 3
    assert [c.title for c in decision.citations] == ["Parsifal", "Manon"]
    assert [s.text for s in decision.explanation] == [
        "Parsifal has 3 acts.",
        "Manon has five acts.",
        "3 is less than five, so the answer is Manon.",
    ]


def test_a_number_no_passage_writes_leaves_the_question_to_the_loop(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """Carmen's passage gives no count of its acts: the model's 4 decides nothing."""
    store = built(open_store(), tmp_path, OPERAS)
    asked: list[str] = []
    question = "Which opera has more acts, Carmen or Manon?"
    decision = loop(store, tmp_path, answers(asked), k=5).ask(question)
    assert asked[0] == "How many acts does Carmen have?"
    assert question in asked and decision.abstained
