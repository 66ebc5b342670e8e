"""The ask loop's rules, pure functions of text: question reading, hops, evidence."""

from __future__ import annotations

import pytest

from graphmind.ask.rules.broad_text import Kept, point_line, summary_echoes, uncopied, untitled
from graphmind.ask.rules.evidence import supporting
from graphmind.ask.rules.hops import asks_explanation, bridge_hop, first_hop
from graphmind.ask.rules.question import off_kind, question_entities, restates_question
from graphmind.ask.rules.text import states
from graphmind.core.decision import Candidate
from helpers.ask import BETTANY, QUESTION, passage


@pytest.mark.parametrize(
    ("question", "answer", "fits"),
    [
        ("Are Aladdin and Song of the South produced by the same company?", "Disney", False),
        ("Are Aladdin and Song of the South produced by the same company?", "yes", True),
        ("Was Jamie Curry or Alyaksey Vasilewski born first?", "1993", False),
        ("Was Jamie Curry or Alyaksey Vasilewski born first?", "Jamie Curry", True),
        ("Which opera has more acts, Parsifal or Manon?", "Manon", True),
        ("Which opera has more acts, Parsifal or Manon?", "Wagner", False),
        ("Who directed Jaws?", "Steven Spielberg", True),  # neither kind
        ("Is it Paris?", "", True),  # an abstention has no kind
    ],
)
def test_off_kind(question: str, answer: str, fits: bool) -> None:
    assert (off_kind(question, answer) == "") is fits


@pytest.mark.parametrize(
    ("question", "first"),
    [
        (
            "Who is the sibling of the actress who played Susan Walker in Miracle on 34th Street?",
            "What is the name of the actress who played Susan Walker in Miracle on 34th Street?",
        ),
        (  # the clause's verb after the name: the clause runs to the question's end
            "What is the seat of the county where Van Hook Township is located?",
            "What is the name of the county where Van Hook Township is located?",
        ),
        (  # the clause's verb before the name: "play for" is the question's
            "What league does the team that uses Dick's Sporting Goods Park play for?",
            "What is the name of the team that uses Dick's Sporting Goods Park?",
        ),
        (  # a possessive name: what it owns is not known without passages
            "Who owns the company that Study in Brown's record label belongs to?",
            "",
        ),
        (  # unless it is a person: the question asks through them
            "When is Karl, Prince Of Leiningen's father's birthday?",
            "What is the name of Karl, Prince Of Leiningen's father?",
        ),
        (
            "Where was Anna Ross's maternal grandfather born?",
            "What is the name of Anna Ross's maternal grandfather?",
        ),
        ("Who is Anna Ross's maternal grandfather?", ""),  # the person is all it asks
        ("Who directed the film Jaws?", ""),  # the film is named: nothing to find first
        (  # the name of a film is the film: what the question asks, not a hop before it
            "What is the name of the 1999 film directed by Roman Polanski and starring his "
            "wife Emmanuelle Seigner that was unsuccessful in North America?",
            "",
        ),
        (  # a quoted title's words are the title's: its "by" links nothing
            'What was the name of a woman from the book titled "Their Lives: The Women '
            'Targeted by the Clinton Machine " and was also a former white house intern?',
            "",
        ),
        (  # nor its "of": the description is the one outside the quotes
            'Who directed the film "Story of a Love Affair" starring the actress who played '
            "Susan Walker in Miracle on 34th Street?",
            "What is the name of the actress who played Susan Walker in Miracle on 34th Street?",
        ),
    ],
)
def test_first_hop(question: str, first: str) -> None:
    assert first_hop(question) == first


VAN_HOOK = passage(
    "Van Hook Township", "Van Hook Township is a township in Mountrail County, North Dakota."
)


@pytest.mark.parametrize(
    ("question", "answer", "cited", "hop"),
    [
        (
            "What is the seat of the county where Van Hook Township is located?",
            "Mountrail County",
            [VAN_HOOK],
            "What is the seat of Mountrail County?",
        ),
        (
            "Why did Roncalli leave the city where the creator of Flora died?",
            "Titian",
            [passage("Flora (Titian)", "Flora is a painting by Titian.")],
            "Why did Roncalli leave the city where Titian died?",
        ),
        (  # the passage says what the question asks besides: the answer is final
            "Who directed the film Jaws?",
            "Steven Spielberg",
            [passage("Jaws (film)", "Jaws is a 1975 film directed by Steven Spielberg.")],
            "",
        ),
        (  # a hop, though the answer was final: its answer cannot replace it (below)
            "Who is the spouse of the actor that plays Vision?",
            "Jennifer Connelly",
            [BETTANY],
            "Who is the spouse of Jennifer Connelly?",
        ),
        (  # a date is no bridge
            "What is the date of death of the father of Jane Capell?",
            "1724",
            [passage("Jane Capell", "Jane Capell (1694 - January 1724) married William.")],
            "",
        ),
        (  # no passage states the answer
            "What is the seat of the county where Van Hook Township is located?",
            "Stark County",
            [VAN_HOOK],
            "",
        ),
        (  # "chairman" comes from the answer's own passage, not from the one linking to it
            "Who is the chairman of the company that bought FleetBoston Financial?",
            "Bank of America",
            [
                passage("Bank of America", "Bank of America bought FleetBoston Financial."),
                passage("Brian Moynihan", "Brian Moynihan is chairman of Bank of America."),
            ],
            "Who is the chairman of Bank of America?",
        ),
        (  # "the song The Story" is the song itself: the description is "the performer of"
            "Who wrote the song The Story sung by the performer of Give Up the Ghost?",
            "Brandi Carlile",
            [passage("Give Up the Ghost", "Give Up the Ghost is by Brandi Carlile of The Story.")],
            "Who wrote the song The Story sung by Brandi Carlile?",
        ),
        (  # the description is the governor, not the law in its clause
            "Who married the governor who passed a law in honor of Donda West?",
            "Arnold Schwarzenegger",
            [passage("Kanye West", "Governor Arnold Schwarzenegger signed the Donda West Law.")],
            "Who married Arnold Schwarzenegger?",
        ),
        (  # the clause's verb comes before the name: "play for" is the question's
            "What league does the team that uses Dick's Sporting Goods Park play for?",
            "Colorado Rapids",
            [passage("Dick's Sporting Goods Park", "The park is home to the Colorado Rapids.")],
            "What league does Colorado Rapids play for?",
        ),
        (
            "Where is the province that contains Maraveh Tappeh County located?",
            "Golestan Province",
            [passage("Golestan Province", "Maraveh Tappeh County is in Golestan Province.")],
            "Where is Golestan Province located?",
        ),
        (  # a time ("the end of") is no description a name replaces: the answer is final
            "Who was the monarch at the end of the Siege of Valdor?",
            "Queen Marra",
            [passage("Siege of Valdor", "The Siege of Valdor ended under Queen Marra.")],
            "",
        ),
        (  # the passage names the title's "Clinton", but the title's "by" links nothing:
            # the woman is the answer, not a book the question goes on from
            'Which woman from the book titled "Their Lives: The Women Targeted by the Clinton '
            'Machine " was a White House intern?',
            "Monica Lewinsky",
            [passage("Monica Lewinsky", "Monica Lewinsky, a White House intern, and Clinton.")],
            "",
        ),
    ],
)
def test_bridge_hop(question: str, answer: str, cited: list[Candidate], hop: str) -> None:
    assert bridge_hop(question, answer, cited) == hop


@pytest.mark.parametrize(
    ("question", "entities"),
    [
        (QUESTION, ["Aldo Vance"]),
        (
            "When was the sibling of Alice de Lusignan, Countess of Surrey crowned?",
            ["Alice de Lusignan", "Countess of Surrey"],
        ),
        ('Who sang "My Favourite Fabric" first?', ["My Favourite Fabric"]),
        (
            "Which film came out first, The Love Route or Engal Aasan?",
            ["Love Route", "Engal Aasan"],
        ),
        ("what year did it end?", []),
        # a disambiguator is no name: "Film" would pick every passage on a film
        ("Who directed Excalibur (Film)?", ["Excalibur"]),
        ("When was the director of Chatterbox (1936 film) born?", ["Chatterbox"]),
    ],
)
def test_question_entities(question: str, entities: list[str]) -> None:
    assert question_entities(question) == entities


def test_the_bridge_must_be_said_word_for_word() -> None:
    """A later answer builds on the kept one only when a passage it cites says the kept
    answer whole: on MuSiQue, "county" alone let "Baranya County" replace the right
    "Richland County", and "of England" let "John" replace "James I of England"."""
    baranya = "Baranya County The county lies in southern Hungary, on the border with Croatia."
    assert not states("Richland County", [baranya])
    assert not states("James I of England", ["John, King of England, sealed Magna Carta."])
    assert states("Silent Harbor", ["Aldo Vance directed the movie Silent Harbor."])
    assert states("the Silent Harbor", ["SILENT HARBOR (film), 1998"])  # normalised
    assert not states("Silent Harbor", ["Silent Harbors of Maine"])  # whole words only
    assert not states("", [baranya])


def test_an_uncited_answer_cites_the_passages_that_state_it_first() -> None:
    """When the answer's round cited nothing, its citations are the used passages, those
    saying the answer word for word first (the same reading as the bridge rule)."""
    plural = Candidate(id="a", text="Silent Harbors of Maine are foggy.", title="t", score=1.0)
    other = Candidate(id="b", text="A film shot in 1998.", title="t", score=1.0)
    stating = Candidate(id="c", text="SILENT HARBOR was shot there.", title="t", score=1.0)
    assert [c.id for c in supporting([plural, other, stating], "Silent Harbor")] == ["c", "a", "b"]
    assert [c.id for c in supporting([plural, other], "")] == ["a", "b"]


def test_an_answer_made_of_the_questions_words_restates_it() -> None:
    asked = "Who is the president of the organization that Avery Brundage is a member of?"
    assert restates_question(asked, "Avery Brundage")
    assert not restates_question(asked, "Thomas Bach")
    assert not restates_question("Which came first, Alpha or Beta?", "Alpha")


TITLE = "Internet Protocols and Support"


def test_a_copied_point_line_is_taken_off_a_sentence_or_ends_it() -> None:
    titles = {TITLE}
    line = point_line(6, TITLE, "urllib opens URLs.")
    assert untitled(line[len("[6] ") :], titles) == "urllib opens URLs."  # a leading title
    ran_on = f"http.client speaks HTTP. {line}"
    assert untitled(ran_on, titles) == "http.client speaks HTTP."
    kept = "open() takes a mode (for example 'rb') and returns a file."
    assert untitled(kept, titles) == kept  # a parenthesis that is no community's title


BROAD_QUESTION = "What does the manual say about security risks of untrusted input?"
INSTRUCTIONS = (
    "A broad question about the whole collection is asked; this group is one of several "
    "parts read for it."
)


def test_an_answer_keeps_only_new_sentences_of_its_own() -> None:
    kept = Kept(BROAD_QUESTION, INSTRUCTIONS)
    first = (
        "The manual describes security risks of untrusted input. "  # the question back
        "XML modules are not secure against maliciously constructed data. "
        "Use defusedxml instead. "
        "The XML modules are not secure against maliciously constructed data. "  # again
        "The broad question about the whole collection is asked."  # the prompt's words
    )
    assert kept.keep(first) == (
        "XML modules are not secure against maliciously constructed data. Use defusedxml instead."
    )
    assert kept.keep("Use defusedxml, instead!") == ""  # said before
    cut = "pickle can run arbitrary code while loading. Never unpickle data from an untrus"
    assert kept.keep(cut) == "pickle can run arbitrary code while loading."
    assert kept.keep("Use the secrets module for tokens") == "Use the secrets module for tokens"
    leaned_on = "The manual describes risks of untrusted input. These include shell injection."
    assert kept.keep(leaned_on) == leaned_on  # the echo stays where the next leans on it


def test_sentences_copying_the_prompt_are_taken_out_of_a_summary() -> None:
    summary = "Decimal arithmetic and its specification. This group is one of several parts read."
    assert uncopied(summary, INSTRUCTIONS) == "Decimal arithmetic and its specification."
    assert uncopied("This group is one of several parts read.", INSTRUCTIONS) == ""


def test_a_summary_borrowing_the_question_s_words_is_of_the_question() -> None:
    question = "How do I make long-running programs observable with logging?"
    read = ["random: generate pseudo-random numbers", "readline: line editing"]
    own = ("Random numbers and line editing", "Generating random numbers; editing input lines.")
    borrowed = ("Observability", "Modules for making long-running programs observable.")
    assert not summary_echoes(*own, question, read)
    assert summary_echoes(*borrowed, question, read)


@pytest.mark.parametrize(
    ("question", "explains"),
    [
        ("How do I read a file line by line?", True),
        ("Why are Python strings immutable?", True),
        ("What does the global interpreter lock do?", True),
        ("What does the slash(/) in the parameter list of a function mean?", True),
        ("How are dictionaries implemented in CPython?", True),
        # factoid forms: a quantity, a fact, a chain of facts in an explanation's form
        ("How many children did Otto Hahn have?", False),
        ("What does Otto Hahn's son study?", False),
        ("Who directed Free Guy?", False),
        (
            "Why did Roncalli leave the place where the composer of Al gran sole carico "
            "d'amore worked?",
            False,
        ),
        ("Why did John Middleton Murry's wife die?", False),
        # a description before a name may be a chain (``first_hop`` reads one): kept out
        ("How do I copy an object in Python?", False),
    ],
)
def test_an_explanation_of_one_thing_is_told_from_a_chain_of_facts(
    question: str, explains: bool
) -> None:
    assert asks_explanation(question) is explains
