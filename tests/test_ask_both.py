""" "Are A and B both X?": reading the question, asking each option alone, and joining
the answers in code (scripted model, both stores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import StoreFactory, asked_question
from graphmind.ask.rules.alike import SameCountry, two_options
from graphmind.ask.rules.both import Both, both, yes_no
from graphmind.core.decision import Sufficiency
from graphmind.llm.base import Message
from helpers.ask import built, candidates_in, is_check, loop


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        (
            "Are Sutera and Rhodotypos both types of shrub?",
            ("Is Sutera a type of shrub?", "Is Rhodotypos a type of shrub?"),
        ),
        (
            "Are Karl Shapiro and Elie Wiesel both American writers?",
            ("Is Karl Shapiro an American writer?", "Is Elie Wiesel an American writer?"),
        ),
        (
            "Were both Ernst Messerschmid and Reinhold Ewald ESA astronauts?",
            ("Was Ernst Messerschmid an ESA astronaut?", "Was Reinhold Ewald an ESA astronaut?"),
        ),
        (
            "Are both The New Pornographers and Kings of Leon American rock bands?",
            (
                "Is The New Pornographers an American rock band?",
                "Is Kings of Leon an American rock band?",
            ),
        ),
        (
            "Did John Updike and Tom Clancy both publish more than 15 bestselling novels?",
            (
                "Did John Updike publish more than 15 bestselling novels?",
                "Did Tom Clancy publish more than 15 bestselling novels?",
            ),
        ),
        (
            "Are Eve Beglarian and Zach Bogosian both of Armenian descent?",
            ("Is Eve Beglarian of Armenian descent?", "Is Zach Bogosian of Armenian descent?"),
        ),
        (
            "Are Vintage Life and InStyle both US-based magazines?",
            ("Is Vintage Life a US-based magazine?", "Is InStyle a US-based magazine?"),
        ),
        ("Are both Cypress and Ajuga genera?", ("Is Cypress a genus?", "Is Ajuga a genus?")),
        (
            "Can Stenocereus and Pachypodium both include tree like plants?",
            (
                "Can Stenocereus include tree like plants?",
                "Can Pachypodium include tree like plants?",
            ),
        ),
        (
            "Do Daryl Hall and Gene Simmons both play guitar?",
            ("Does Daryl Hall play guitar?", "Does Gene Simmons play guitar?"),
        ),
        (
            "Are the films Alpha and Beta both American documentaries?",
            ("Is Alpha an American documentary?", "Is Beta an American documentary?"),
        ),
    ],
)
def test_each_option_is_asked_alone(question: str, asked: tuple[str, str]) -> None:
    found = both(question)
    assert found is not None
    assert tuple(found.question(o) for o in found.options) == asked


@pytest.mark.parametrize(
    "question",
    [
        "Are Aladdin and Song of the South produced by the same company?",  # a shared value
        "Are both Microcachrys and Protea endemic to the same continent ?",
        "Is Alpha or Beta a drama?",
        "Who directed both Alpha and Beta?",
        "Is the Virgilia found in Africa? And is Koeleria found all over?",
        "Are Alpha and Beta dramas?",
    ],
)
def test_other_questions_are_not_both(question: str) -> None:
    assert both(question) is None


def test_a_same_country_question_is_still_read_as_one() -> None:
    question = "Are Harbor Lights and Cold Harbour both from the same country?"
    assert isinstance(two_options(question), SameCountry)
    assert isinstance(two_options("Are Alpha and Beta both dramas?"), Both)


@pytest.mark.parametrize(
    ("answer", "read"),
    [("yes", True), ("Yes.", True), ("No, it is a tree.", False), ("Norway", None), ("", None)],
)
def test_an_answer_is_read_as_yes_or_no(answer: str, read: bool | None) -> None:
    assert yes_no(answer) is read


PLANTS = {
    "Sutera": "Sutera is a genus of flowering plants in the figwort family, most are shrubs.",
    "Rhodotypos": "Rhodotypos scandens is a deciduous shrub in the rose family.",
    "Elatostema": "Elatostema is a genus of herbs in the nettle family; none is a shrub.",
}
SHRUB = {"Sutera": "yes", "Rhodotypos": "yes", "Elatostema": "no"}


def answers(asked: list[str]) -> object:
    """A model that answers "Is X a shrub?" from X's passage, citing it; the joint
    question gets the wrong answer a small model gives ("yes"). Checks say complete."""

    def respond(messages: list[Message]) -> str:
        if is_check(messages):
            return json.dumps({"complete": True, "missing": "", "query": ""})
        question = asked_question(messages).removeprefix("Question: ")
        asked.append(question)
        name = next((n for n in SHRUB if question == f"Is {n} a shrub?"), "")
        cited = [n for n, t in candidates_in(messages).items() if name and t.startswith(name)]
        if cited:
            return json.dumps({"answer": SHRUB[name], "citations": cited})
        found = list(candidates_in(messages))
        return json.dumps({"answer": "yes", "citations": found[:1]})

    return respond


def test_both_options_are_asked_and_joined(open_store: StoreFactory, tmp_path: Path) -> None:
    store = built(open_store(), tmp_path, PLANTS)
    asked: list[str] = []
    question = "Are Sutera and Rhodotypos both shrubs?"
    decision = loop(store, tmp_path, answers(asked), k=3, explain=True).ask(question)
    assert asked == ["Is Sutera a shrub?", "Is Rhodotypos a shrub?"]
    assert decision.answer == "yes" and decision.sufficiency == Sufficiency.INFERRABLE
    assert [c.title for c in decision.citations] == ["Sutera", "Rhodotypos"]
    assert [s.text for s in decision.explanation] == [
        "Is Sutera a shrub? Yes.",
        "Is Rhodotypos a shrub? Yes.",
        "Both are, so the answer is yes.",
    ]


def test_one_no_decides_without_asking_the_other(open_store: StoreFactory, tmp_path: Path) -> None:
    store = built(open_store(), tmp_path, PLANTS)
    asked: list[str] = []
    question = "Are Elatostema and Rhodotypos both shrubs?"
    decision = loop(store, tmp_path, answers(asked), k=3, explain=True).ask(question)
    assert asked == ["Is Elatostema a shrub?"]  # the joint question would have said yes
    assert decision.answer == "no"
    assert [c.title for c in decision.citations] == ["Elatostema"]
    assert decision.explanation[-1].text == "Elatostema is not, so the answer is no."


def test_an_answer_no_passage_about_the_option_gives_leaves_it_to_the_loop(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = built(open_store(), tmp_path, PLANTS)
    asked: list[str] = []
    question = "Are Sutera and Tom Reed both shrubs?"  # no passage on Tom Reed
    decision = loop(store, tmp_path, answers(asked), k=3).ask(question)
    assert asked[:2] == ["Is Sutera a shrub?", "Is Tom Reed a shrub?"]
    assert question in asked and decision.answer == "yes"  # the loop's own answer
