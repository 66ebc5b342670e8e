"""Same-country and lifespan comparisons: reading the question, deciding from the two
options' answers, and the loop asking each option's question (scripted model, both
stores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import StoreFactory, asked_question
from graphmind.ask.rules.alike import (
    Lifespan,
    SameCountry,
    alike,
    lifespan,
    longer,
    same_country,
    two_options,
    years_lived,
)
from graphmind.ask.rules.compare import Comparison
from graphmind.core.decision import Sufficiency
from graphmind.llm.base import Message
from graphmind.memory.decisions import read_decision
from helpers.ask import built, candidates_in, is_check, loop, titles_in


@pytest.mark.parametrize(
    ("question", "options", "relation", "where", "asked"),
    [
        (
            "Are the directors of films Sword Of The Empire and Seven Guns For Timothy both "
            "from the same country?",
            ("Sword Of The Empire", "Seven Guns For Timothy"),
            "director",
            "nationality",
            "What nationality is the director of Sword Of The Empire?",
        ),
        (
            "Do director of film Excalibur (Film) and director of film The Day They Robbed The "
            "Bank Of England share the same nationality?",
            ("Excalibur (Film)", "The Day They Robbed The Bank Of England"),
            "director",
            "nationality",
            "What nationality is the director of Excalibur (Film)?",
        ),
        (
            "Do both films Levity (Film) and I Come With The Rain have the directors that "
            "share the same nationality?",
            ("Levity (Film)", "I Come With The Rain"),
            "director",
            "nationality",
            "What nationality is the director of Levity (Film)?",
        ),
        (
            "Do both Padroni Di Casa and Let'S Hope It'S A Girl films have the directors "
            "from the same country?",
            ("Padroni Di Casa", "Let'S Hope It'S A Girl"),
            "director",
            "nationality",
            "What nationality is the director of Padroni Di Casa?",
        ),
        (
            "Are both Patience Lake and Eastern Lake (Kamouraska) located in the same country?",
            ("Patience Lake", "Eastern Lake (Kamouraska)"),
            "",
            "located",
            "Which country is Patience Lake located in?",
        ),
        (
            "Were Scott Derrickson and Ed Wood of the same nationality?",
            ("Scott Derrickson", "Ed Wood"),
            "",
            "nationality",
            "What nationality is Scott Derrickson?",
        ),
        (
            "Were the Commodore 16 and Prológica CP-400 from the same country?",
            ("Commodore 16", "Prológica CP-400"),
            "",
            "from",
            "Which country is Commodore 16 from?",
        ),
    ],
)
def test_a_same_country_question_is_read_from_the_question(
    question: str, options: tuple[str, str], relation: str, where: str, asked: str
) -> None:
    found = same_country(question)
    assert found == SameCountry(options, relation, where)  # type: ignore[arg-type]
    first = f"What is the name of the {relation} of {options[0]}?" if relation else ""
    assert found.questions(options[0]) == [(asked, first)]
    assert two_options(question) == found


@pytest.mark.parametrize(
    ("question", "options", "longest"),
    [
        (
            "Who lived longer, Friedrich Gogarten or Giangiacomo Feltrinelli?",
            ("Friedrich Gogarten", "Giangiacomo Feltrinelli"),
            True,
        ),
        (
            "Who lived to an older age, Elia Kazan or Moustapha Akkad?",
            ("Elia Kazan", "Moustapha Akkad"),
            True,
        ),
        (
            "Which playwright lived a longer life, Edward Albee or J. M. Barrie?",
            ("Edward Albee", "J. M. Barrie"),
            True,
        ),
        ("Which poet lived a shorter life, Ann Lee or Bo Yin?", ("Ann Lee", "Bo Yin"), False),
    ],
)
def test_a_lifespan_question_is_read_from_the_question(
    question: str, options: tuple[str, str], longest: bool
) -> None:
    found = lifespan(question)
    assert found == Lifespan(options, longest)
    assert found.questions(options[0]) == [
        (f"When was {options[0]} born?", ""),
        (f"When did {options[0]} die?", ""),
    ]
    assert two_options(question) == found


@pytest.mark.parametrize(
    "question",
    [
        "Are Sutera and Rhodotypos both types of shrub?",
        "Are Aladdin and Song of the South produced by the same company?",
        "Which country is the same size as Texas?",
        "Is the Eiffel Tower in Paris or in Lyon?",
        "Where did Ann Lee live, Paris or Lyon?",
        "Which film has more directors, Bad Times At The El Royale or The Immortal Garrison?",
    ],
)
def test_other_questions_are_neither(question: str) -> None:
    assert same_country(question) is None and lifespan(question) is None


def test_date_comparisons_are_still_read_first() -> None:
    found = two_options("Who was born first, Ann Lee or Bo Yin?")
    assert found == Comparison(("Ann Lee", "Bo Yin"), "earlier", "born")


def test_a_life_is_measured_at_the_precision_its_dates_give() -> None:
    assert years_lived("1900", "1950") == (49.0, 51.0)
    exact = years_lived("3 May 1900", "3 May 1950")
    assert exact == (50.0, 50.0)
    assert years_lived("1900", "Paris") is None
    asks = Lifespan(("A", "B"))
    assert longer(asks, (("1900", "1950"), ("1900", "1953"))) == "B"
    assert longer(asks, (("1900", "1950"), ("1900", "1951"))) is None  # within a year
    assert longer(asks, (("3 May 1900", "4 May 1950"), ("3 May 1900", "2 May 1950"))) == "A"
    assert longer(Lifespan(("A", "B"), False), (("1900", "1950"), ("1900", "1953"))) == "A"
    assert longer(asks, (("1950", "1900"), ("1900", "1953"))) is None  # died before born


def test_countries_written_alike_need_no_model() -> None:
    assert alike("the United States", "United States") is True
    assert alike("Italy", "Italian") is None  # written differently: the model says
    assert alike("", "") is None


FILMS = {
    "Harbor Lights": "Harbor Lights is a 1951 drama film directed by Ida Brenn.",
    "Ida Brenn": "Ida Brenn (3 March 1901 - 1 August 1942) was a Danish film director.",
    "Night Train West": "Night Train West is a 1960 western film directed by Olav Strand.",
    "Olav Strand": "Olav Strand (9 June 1922 - 27 August 2006) was a Norwegian film director.",
    "Cold Harbour": "Cold Harbour is a 1958 film directed by Lars Dahl.",
    "Lars Dahl": "Lars Dahl (1 May 1910 - 2 June 1970) was a Norwegian film director.",
}
DIRECTORS = {
    "Harbor Lights": "Ida Brenn",
    "Night Train West": "Olav Strand",
    "Cold Harbour": "Lars Dahl",
}
COUNTRY = {"Ida Brenn": "Danish", "Olav Strand": "Norway", "Lars Dahl": "Norwegian"}
BORN = {"Ida Brenn": "3 March 1901", "Olav Strand": "9 June 1922", "Lars Dahl": "1 May 1910"}
DIED = {"Ida Brenn": "1 August 1942", "Olav Strand": "27 August 2006", "Lars Dahl": "2 June 1970"}


def answers(asked: list[str], same: list[tuple[str, str]]) -> object:
    """A model that names each film's director, each director's country, birth and death,
    citing the passages that state them, and says two countries are one when both are
    Norway's; abstains on anything else. Checks say complete."""

    def respond(messages: list[Message]) -> str:
        if is_check(messages):
            return json.dumps({"complete": True, "missing": "", "query": ""})
        if messages[0]["content"].startswith("Say whether two answers name the same country"):
            first, second = (
                line.split(": ", 1)[1] for line in messages[1]["content"].split("\n")[:2]
            )
            same.append((first, second))
            return json.dumps({"same": {first, second} <= {"Norway", "Norwegian"}})
        question = asked_question(messages).removeprefix("Question: ")
        asked.append(question)
        said = ""
        for film, director in DIRECTORS.items():
            said = {
                f"What is the name of the director of {film}?": director,
                f"What nationality is {director}?": COUNTRY[director],
                f"When was {director} born?": BORN[director],
                f"When did {director} die?": DIED[director],
            }.get(question, "")
            if said:
                break
        quoted = {"Norway": "Norwegian"}.get(said, said)
        cited = [n for n, t in candidates_in(messages).items() if said and quoted in t]
        if cited:
            return json.dumps({"answer": said, "citations": cited})
        return json.dumps({"answer": "", "citations": [], "abstain": True})

    return respond


def test_two_countries_are_asked_and_compared(open_store: StoreFactory, tmp_path: Path) -> None:
    store = built(open_store(), tmp_path, FILMS)
    asked: list[str] = []
    same: list[tuple[str, str]] = []
    question = (
        "Are the directors of films Harbor Lights and Night Train West from the same country?"
    )
    decision = loop(store, tmp_path, answers(asked, same), k=5, explain=True).ask(question)
    assert asked == [  # each from its first hop, then the country of whom it names
        "What is the name of the director of Harbor Lights?",
        "What nationality is Ida Brenn?",
        "What is the name of the director of Night Train West?",
        "What nationality is Olav Strand?",
    ]
    assert same == [("Danish", "Norway")]  # written differently: the model was asked
    assert decision.answer == "no" and decision.sufficiency == Sufficiency.INFERRABLE
    assert [c.title for c in decision.citations] == ["Ida Brenn", "Olav Strand"]
    assert [s.text for s in decision.explanation] == [
        "The nationality of the director of Harbor Lights is Danish.",
        "The nationality of the director of Night Train West is Norway.",
        "Danish and Norway are different countries, so the answer is no.",
    ]
    kept = read_decision(store, decision.id)
    assert kept is not None and kept.answer == "no" and len(kept.rounds) == 4


def test_a_country_and_its_peoples_adjective_are_one(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = built(open_store(), tmp_path, FILMS)
    same: list[tuple[str, str]] = []
    question = (
        "Do both films Night Train West and Cold Harbour have the directors that share the "
        "same nationality?"
    )
    decision = loop(store, tmp_path, answers([], same), k=5).ask(question)
    assert same == [("Norway", "Norwegian")] and decision.answer == "yes"


def test_who_lived_longer_asks_four_dates(open_store: StoreFactory, tmp_path: Path) -> None:
    store = built(open_store(), tmp_path, FILMS)
    asked: list[str] = []
    question = "Who lived longer, Ida Brenn or Lars Dahl?"
    decision = loop(store, tmp_path, answers(asked, []), k=5, explain=True).ask(question)
    assert asked == [
        "When was Ida Brenn born?",
        "When did Ida Brenn die?",
        "When was Lars Dahl born?",
        "When did Lars Dahl die?",
    ]
    assert decision.answer == "Lars Dahl"  # 60 years against 41
    assert [s.text for s in decision.explanation][-1] == (
        "Lars Dahl lived longer, so the answer is Lars Dahl."
    )


def test_a_country_not_found_leaves_the_question_to_the_loop(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = built(open_store(), tmp_path, FILMS)
    asked: list[str] = []
    question = "Are Harbor Lights and Tom Reed located in the same country?"
    decision = loop(store, tmp_path, answers(asked, []), k=5).ask(question)
    assert asked[0] == "Which country is Harbor Lights located in?"
    assert question in asked and decision.abstained


def test_a_first_hop_reads_the_passages_on_the_title_not_its_disambiguator(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """ "(Film)" is no name of its own: the first hop on "Harbor Lights (Film)" reads the
    passages that name Harbor Lights, not every passage that says "film" (a director's
    biography among them, which the 1.5B named as the director)."""
    store = built(open_store(), tmp_path, FILMS)
    shown: dict[str, list[str]] = {}
    respond = answers([], [])

    def recording(messages: list[Message]) -> str:
        if not is_check(messages) and "Question: " in messages[1]["content"]:
            shown.setdefault(asked_question(messages), titles_in(messages))
        return respond(messages)  # type: ignore[operator,no-any-return]

    question = (
        "Are the directors of films Harbor Lights (Film) and Cold Harbour from the same country?"
    )
    loop(store, tmp_path, recording, k=5).ask(question)
    assert shown["Question: What is the name of the director of Harbor Lights (Film)?"] == [
        "Harbor Lights"
    ]
