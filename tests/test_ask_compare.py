"""Two-option date comparisons: reading the question, reading dates, and the loop asking
each option's date and comparing them in code (scripted model, both stores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildkit import HASH_SPEC, build, scripted_llm
from conftest import StoreFactory, asked_question
from graphmind.ask.rules.compare import Comparison, comparison, parse_date, pick
from graphmind.core.decision import Sufficiency
from graphmind.embed.hashing import HashingEmbedder
from graphmind.llm.base import Message
from graphmind.memory.decisions import read_decision
from helpers.ask import built, candidates_in, is_check, loop


@pytest.mark.parametrize(
    ("question", "options", "direction", "event", "relation", "asked"),
    [
        (
            "Which film has the director who died later, Majhli Didi or Dream Of The Rhine?",
            ("Majhli Didi", "Dream Of The Rhine"),
            "later",
            "died",
            "director",
            "When did the director of Majhli Didi die?",
        ),
        (
            "Which film whose director is younger, Forbidden Ground or Free Guy?",
            ("Forbidden Ground", "Free Guy"),
            "later",
            "born",
            "director",
            "When was the director of Forbidden Ground born?",
        ),
        (
            "Which film has the director born earlier, The Adventures Of Priscilla, Queen Of "
            "The Desert or Harvest: 3,000 Years?",
            ("The Adventures Of Priscilla, Queen Of The Desert", "Harvest: 3,000 Years"),
            "earlier",
            "born",
            "director",
            "When was the director of The Adventures Of Priscilla, Queen Of The Desert born?",
        ),
        (
            "Which film was released more recently, Boundaries Of The Heart or Truck Turner?",
            ("Boundaries Of The Heart", "Truck Turner"),
            "later",
            "released",
            "",
            "When was Boundaries Of The Heart released?",
        ),
        (
            "Which magazine came out first, Investors Chronicle or The New American?",
            ("Investors Chronicle", "The New American"),
            "earlier",
            "released",
            "",
            "When was Investors Chronicle released?",
        ),
        (
            "Was Jamie Curry or Alyaksey Vasilewski born first?",
            ("Jamie Curry", "Alyaksey Vasilewski"),
            "earlier",
            "born",
            "",
            "When was Jamie Curry born?",
        ),
        (
            "Did Dinosaur or McFarland, USA come out first?",
            ("Dinosaur", "McFarland, USA"),
            "earlier",
            "released",
            "",
            "When was Dinosaur released?",
        ),
        (
            "Who was born first out of Heng Pov and Rajesh Bhola?",
            ("Heng Pov", "Rajesh Bhola"),
            "earlier",
            "born",
            "",
            "When was Heng Pov born?",
        ),
        (
            "Which film director is younger, Robert Z. Leonard or Sinclair Hill?",
            ("Robert Z. Leonard", "Sinclair Hill"),
            "later",
            "born",
            "",
            "When was Robert Z. Leonard born?",
        ),
        (
            "Which documentary is the oldest, The Private Life of Plants or Marx Reloaded?",
            ("The Private Life of Plants", "Marx Reloaded"),
            "earlier",
            "created",
            "",
            "When was The Private Life of Plants created?",
        ),
        (
            "Which American band was formed the earliest, CKY or Violent Femmes?",
            ("CKY", "Violent Femmes"),
            "earlier",
            "formed",
            "",
            "When was CKY formed?",
        ),
        (
            "Which film came out first, Sankat City or Who'S Minding The Mint??",
            ("Sankat City", "Who'S Minding The Mint?"),
            "earlier",
            "released",
            "",
            "When was Sankat City released?",
        ),
    ],
)
def test_a_date_comparison_is_read_from_the_question(
    question: str,
    options: tuple[str, str],
    direction: str,
    event: str,
    relation: str,
    asked: str,
) -> None:
    found = comparison(question)
    assert found == Comparison(options, direction, event, relation)  # type: ignore[arg-type]
    assert found.question(options[0]) == asked


@pytest.mark.parametrize(
    "question",
    [
        "Are both Patience Lake and Eastern Lake (Kamouraska) located in the same country?",
        "Do both films Levity (Film) and I Come With The Rain have the directors that share "
        "the same nationality?",
        "Which film has more directors, Bad Times At The El Royale or The Immortal Garrison?",
        "Who lived longer, Friedrich Gogarten or Giangiacomo Feltrinelli?",
        "Who lived to an older age, Elia Kazan or Moustapha Akkad?",
        "Who was the first president of the country where the Nile ends?",
        "When was the first album of the band that played at Woodstock released?",
        "Is the Eiffel Tower in Paris or in Lyon?",
    ],
)
def test_other_questions_are_no_date_comparison(question: str) -> None:
    assert comparison(question) is None


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("29 May 1904", (1904, 5, 29)),
        ("born on 1st of August 1942 in Vienna", (1942, 8, 1)),
        ("May 29, 1904", (1904, 5, 29)),
        ("Sept. 3 1911", (1911, 9, 3)),
        ("1904-05-29", (1904, 5, 29)),
        ("August 1942", (1942, 8, 0)),
        ("c. 1200", (1200, 0, 0)),
        ("in 1933", (1933, 0, 0)),
        ("753 BC", None),  # three digits alone are no year ("141 films")
        ("1300 BC", (-1300, 0, 0)),
        ("Hrishikesh Mukherjee", None),
        ("", None),
    ],
)
def test_dates_are_read_as_written(text: str, date: tuple[int, int, int] | None) -> None:
    assert parse_date(text) == date


def test_the_earlier_or_later_date_wins_at_the_precision_both_give() -> None:
    later = Comparison(("A", "B"), "later", "died")
    earlier = Comparison(("A", "B"), "earlier", "died")
    assert pick(later, ("27 August 2006", "1 August 1942")) == "A"
    assert pick(earlier, ("27 August 2006", "1 August 1942")) == "B"
    assert pick(earlier, ("3 May 1950", "1 May 1950")) == "B"
    assert pick(earlier, ("1950", "May 1950")) is None  # the same year: cannot tell
    assert pick(earlier, ("1950", "1950")) is None
    assert pick(earlier, ("1950", "Hrishikesh Mukherjee")) is None
    assert pick(earlier, ("1300 BC", "1200 BC")) == "A"


FILMS = {
    "Harbor Lights": "Harbor Lights is a 1951 drama film directed by Ida Brenn.",
    "Ida Brenn": "Ida Brenn (3 March 1901 - 1 August 1942) was a Danish film director.",
    "Night Train West": "Night Train West is a 1960 western film directed by Olav Strand.",
    "Olav Strand": "Olav Strand (9 June 1922 - 27 August 2006) was a Norwegian film director.",
    "Tom Reed": "Tom Reed was a city clerk in a movie by a small studio.",
}
QUESTION = "Which film has the director who died later, Harbor Lights or Night Train West?"
DIED = {"Harbor Lights": "1 August 1942", "Night Train West": "27 August 2006"}


DIRECTORS = {"Harbor Lights": "Ida Brenn", "Night Train West": "Olav Strand"}


def dates(asked: list[str], known: dict[str, str]) -> object:
    """A model that answers "When did the director of X die?" (or "When did <director>
    die?") with ``known[X]`` and "What is the name of the director of X?" with the
    director, citing the passages that state it; abstains on anything else. Checks say
    complete."""

    def respond(messages: list[Message]) -> str:
        if is_check(messages):
            return json.dumps({"complete": True, "missing": "", "query": ""})
        question = asked_question(messages).removeprefix("Question: ")
        asked.append(question)
        for film, director in DIRECTORS.items():
            said = {
                f"What is the name of the director of {film}?": director,
                f"When did the director of {film} die?": known.get(film),
                f"When did {director} die?": known.get(film),
            }.get(question)
            cited = [n for n, t in candidates_in(messages).items() if said and said in t]
            if cited:
                return json.dumps({"answer": said, "citations": cited})
        return json.dumps({"answer": "", "citations": [], "abstain": True})

    return respond


def test_a_comparison_asks_each_options_date_and_compares_them(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = built(open_store(), tmp_path, FILMS)
    asked: list[str] = []
    decision = loop(store, tmp_path, dates(asked, DIED), k=5, explain=True).ask(QUESTION)
    first, second = (f"When did the director of {film} die?" for film in DIRECTORS)
    assert asked == [  # each from its first hop, then the date of whom it names
        "What is the name of the director of Harbor Lights?",
        "When did Ida Brenn die?",
        "What is the name of the director of Night Train West?",
        "When did Olav Strand die?",
    ]
    assert decision.answer == "Night Train West" and not decision.abstained
    assert decision.sufficiency == Sufficiency.INFERRABLE
    rounds = decision.rounds
    assert [r.number for r in rounds] == [1, 2, 3, 4]
    assert [r.queries[0] for r in rounds] == [first, first, second, second]
    assert [c.title for c in decision.citations] == ["Ida Brenn", "Olav Strand"]
    said = [s.text for s in decision.explanation]
    assert said == [
        "The director of Harbor Lights died 1 August 1942.",
        "The director of Night Train West died 27 August 2006.",
        "1 August 1942 is earlier than 27 August 2006, so the answer is Night Train West.",
    ]
    kept = read_decision(store, decision.id)
    assert kept is not None and kept.answer == "Night Train West"
    assert [r.judgement.draft_answer for r in kept.rounds] == [
        r.judgement.draft_answer for r in rounds
    ]


def test_a_date_no_passage_states_leaves_the_question_to_the_loop(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """The second option's date is not found: no comparison is made, the question itself
    is asked, and its rounds alone are the decision's."""
    store = built(open_store(), tmp_path, FILMS)
    asked: list[str] = []
    decision = loop(store, tmp_path, dates(asked, {"Harbor Lights": DIED["Harbor Lights"]}))
    decided = decision.ask(QUESTION)
    second = asked.index("What is the name of the director of Night Train West?")
    assert asked[:2] == [
        "What is the name of the director of Harbor Lights?",
        "When did Ida Brenn die?",
    ]
    assert QUESTION in asked[second:] and decided.abstained
    assert all(r.queries[0] == QUESTION for r in decided.rounds)


def test_comparisons_can_be_left_to_the_loop(open_store: StoreFactory, tmp_path: Path) -> None:
    store = built(open_store(), tmp_path, FILMS)
    asked: list[str] = []
    loop(store, tmp_path, dates(asked, DIED), compare=False).ask(QUESTION)
    assert asked[0] == QUESTION and not any(q.startswith("When did") for q in asked)


def test_a_date_read_from_a_passage_about_someone_else_is_not_compared(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """The film's page gives the film's year: "1951" for when Ida Brenn died, cited on
    "Harbor Lights", is not her date, so the question is left to the loop."""
    store = built(open_store(), tmp_path, FILMS)
    asked: list[str] = []
    wrong = {**DIED, "Harbor Lights": "1951"}
    decided = loop(store, tmp_path, dates(asked, wrong)).ask(QUESTION)
    assert asked[:2] == [
        "What is the name of the director of Harbor Lights?",
        "When did Ida Brenn die?",
    ]
    assert "What is the name of the director of Night Train West?" not in asked
    assert QUESTION in asked and decided.answer != "Night Train West"


def test_a_titles_own_question_mark_stays_out_of_the_date_question() -> None:
    asks = comparison(
        "Which film has the director died earlier, A Dream or What'S Your Husband Doing??"
    )
    assert asks is not None and asks.options[1] == "What'S Your Husband Doing?"
    assert (
        asks.question(asks.options[1]) == "When did the director of What'S Your Husband Doing die?"
    )


def test_on_a_graph_an_options_fact_question_reads_its_nearest_passages_first(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """On a graph store round 1 shows the graph walk first, except for the questions a
    comparison asks each option: one thing's fact is on its own page, the nearest (on
    2Wiki the walk's other passages stated other things' dates). Here the walk would
    show the film's page first, tied to the question by its name; the nearest passages
    share the question's other words."""
    store = open_store()
    docs = {**FILMS, **NEAR}
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps([{"title": t, "text": x} for t, x in docs.items()]))
    build(store, [corpus], scripted_llm(tmp_path / "build-cache.sqlite"))
    asked: list[str] = []
    decision = loop(store, tmp_path, dates(asked, DIED), k=3).ask(QUESTION)
    assert decision.answer == "Night Train West"
    questions = [f"When did the director of {film} die?" for film in DIRECTORS]
    firsts = [r for r in decision.rounds if r.queries in ([q] for q in questions)]
    assert [r.queries[0] for r in firsts] == questions  # each option's first round
    embedder = HashingEmbedder(HASH_SPEC)
    for r in firsts:
        nearest = store.vector_search("Chunk", embedder.embed(r.queries)[0], 3)
        assert [c.id for c in r.candidates[:3]] == [h.id for h in nearest]
        assert r.candidates[0].title in NEAR  # not the film's page, which the walk shows


NEAR = {  # pages that share a date question's words and no name with the films
    "Old King": "When did the old king die? Nobody knew when he did die.",
    "River Song": "When did the river die? When did the song of the river die?",
    "Winter": "When did winter die? It did die when spring came.",
}
