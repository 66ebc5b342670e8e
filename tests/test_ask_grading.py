"""Grading a round and choosing which round's answer is kept."""

from __future__ import annotations

from graphmind.ask.grading import better, grade
from graphmind.ask.models import Answer
from graphmind.core.decision import Candidate, Round
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
