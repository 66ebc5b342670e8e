"""Hop: the next hop's question, found in the question's words (self-ask)."""

from __future__ import annotations

from graphmind.ask.grading import grounded
from graphmind.ask.rules.evidence import says, used_in
from graphmind.ask.rules.hops import FIRST_HOP, OWNED_PEOPLE, bridge_hop
from graphmind.ask.rules.question import question_entities, restates_question
from graphmind.ask.rules.text import states
from graphmind.ask.state import AskState, Tools
from graphmind.core.decision import Candidate, Judgement


def hop(state: AskState, found: list[Candidate], j: Judgement) -> str:
    """The next hop's question (``bridge_hop``) of the round's answer (``j``, its grade
    before any check) when a passage it cites supports it, not asked before; "" when
    there is none. The first hop's answer is a bridge of the question itself: the
    question with the first hop's description replaced by it is asked next."""
    if not grounded(state.asking, j):
        return ""
    if state.hopping and not state.bridging:  # the first hop's answer
        if restates_question(state.first, j.draft_answer, OWNED_PEOPLE):
            return ""  # "Osbert Sitwell's brother" for his sibling names no one
        phrase = state.first.removeprefix(FIRST_HOP).rstrip("?")
        hop = state.question.replace(phrase, j.draft_answer, 1)
        hop = "" if hop == state.question else hop
    else:
        hop = bridge_hop(state.asking, j.draft_answer, used_in(found, j))
    return "" if hop.lower() in {q.lower() for q in state.queries} else hop


def first_hop_pays(tools: Tools, state: AskState, found: list[Candidate], j: Judgement) -> bool:
    """Whether round 1 goes on to the question's first hop (two more rounds must
    fit): yes, unless its answer (no bridge) is stated by a cited passage that also
    names what the question names. Such an answer may be the answer, so it is
    checked instead (hopping from them replaced right ones on MuSiQue: "Bill
    Pullman", from the passage on A League of Their Own, became "Harvey Keitel"). A
    date stated by a passage on someone else ("1914" for the mother of Joseph
    Ferdinand Leopold of Bavaria, from Franz Ferdinand's) is still a guess."""
    if len(state.rounds) + 3 > tools.options.max_rounds:
        return False
    if not grounded(state.question, j):
        return True
    names = question_entities(state.question)
    return not any(
        states(j.draft_answer, [said]) and (not names or any(states(n, [said]) for n in names))
        for said in (says(c) for c in used_in(found, j))
    )
