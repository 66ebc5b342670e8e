"""Grading a round and choosing which round's answer is kept."""

from __future__ import annotations

from graphmind.ask.grading import better, grade, shown_grade
from graphmind.ask.models import Answer, Check
from graphmind.core.decision import Candidate, Round, Sufficiency
from helpers.ask import BETTANY, passage


def test_a_hop_that_goes_back_does_not_replace_the_answer() -> None:
    """A next hop's answer that the kept answer's passages already state went back ("Paul
    Bettany", the bridge, for the spouse of Jennifer Connelly): the kept answer stays. Any
    other supported answer replaces it: the hop's question named the kept answer."""
    question = "Who is the spouse of the actor that plays Vision?"
    hop = "Who is the spouse of Jennifer Connelly?"
    connelly = passage("Jennifer Connelly", "Jennifer Connelly married Paul Bettany in 2003.")
    kept = _round(1, question, [BETTANY], "Jennifer Connelly")
    back = _round(2, hop, [connelly], "Paul Bettany")
    assert not better(question, back, kept, hop)
    on = _round(2, hop, [passage("Ray Lux", "Ray Lux was married twice.")], "Ray Lux")
    assert better(question, on, kept, hop)


def test_a_hop_whose_answer_a_kept_passage_states_goes_on() -> None:
    """A kept passage may state the hop's answer without it being a step back: round 1
    cited Brian Moynihan's passage beside the one on who bought FleetBoston, and the
    passage linking the Miami Hurricane to its university gives the enrollment too. Only
    an answer that is itself the question's bridge went back (Paul Bettany, above)."""
    question = "Who is the chairman of the company that bought FleetBoston Financial?"
    hop = "Who is the chairman of Bank of America?"
    bought = passage("Bank of America", "Bank of America bought FleetBoston Financial.")
    chairman = passage("Brian Moynihan", "Brian Moynihan is chairman of Bank of America.")
    kept = _round(1, question, [bought, chairman], "Bank of America")
    assert better(question, _round(2, hop, [chairman], "Brian Moynihan"), kept, hop)

    question = "What is the enrollment at the school that owns the Miami Hurricane?"
    hop = "What is the enrollment at University of Miami?"
    owns = passage(
        "University of Miami",
        "The University of Miami owns the Miami Hurricane; it enrolls 16,801 students.",
    )
    kept = _round(1, question, [owns], "University of Miami")
    assert better(question, _round(2, hop, [owns], "16,801"), kept, hop)


def _round(number: int, asked: str, cited: list[Candidate], answer: str) -> Round:
    reply = Answer(answer=answer, citations=list(range(1, len(cited) + 1)))
    return Round(number, [asked], cited, grade(asked, cited, reply, None))


def test_a_right_cited_answer_is_not_partial_for_missing_its_own_name() -> None:
    """The demo's "Otto Hahn": the check said "Otto Hahn" was missing; the round stays
    PARTIAL (the loop went on from it), the decision shows what the citations support."""
    question = "Who did Lise Meitner work with?"
    hahn = passage("Lise Meitner", "Lise Meitner worked with Otto Hahn in Berlin.")
    reply = Answer(answer="Otto Hahn", citations=[1])
    j = grade(question, [hahn], reply, Check(complete=False, missing="Otto Hahn"))
    assert j.sufficiency is Sufficiency.PARTIAL
    assert shown_grade(question, j, "Otto Hahn") is Sufficiency.EXACT
    # a missing fact the answer does not say still counts
    j = grade(question, [hahn], reply, Check(complete=False, missing="where they met"))
    assert shown_grade(question, j, "Otto Hahn") is Sufficiency.PARTIAL
    # and an answer no cited passage states is not raised
    j = grade(question, [hahn], Answer(answer="Max Planck", citations=[1]), Check(missing="x"))
    assert shown_grade(question, j, "Max Planck") is Sufficiency.PARTIAL


def test_an_answer_that_only_echoes_the_question_is_partial_at_most() -> None:
    question = "What does the global interpreter lock do?"
    glossary = passage("Glossary", "The global interpreter lock lets one thread run at a time.")
    reply = Answer(answer="Global interpreter lock", citations=[1])
    j = grade(question, [glossary], reply, None)
    assert j.sufficiency is Sufficiency.EXACT  # the passage states the words
    assert shown_grade(question, j, reply.answer) is Sufficiency.PARTIAL
    told = Answer(answer="lets one thread run at a time", citations=[1])
    j = grade(question, [glossary], told, None)
    assert shown_grade(question, j, told.answer) is Sufficiency.EXACT
