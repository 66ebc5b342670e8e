"""The rules policy (the default, for small local models that cannot decompose a
question): the next hop found in the question's words (``steps.hop``), the answer
checked only when no hop follows, and ``steps.check.goes_on``'s stop rule."""

from __future__ import annotations

from graphmind.ask.grading import grade
from graphmind.ask.models import Check
from graphmind.ask.policies.base import Answered, Next
from graphmind.ask.rules.hops import first_hop
from graphmind.ask.state import AskState, Tools
from graphmind.ask.steps.check import check, goes_on
from graphmind.ask.steps.hop import first_hop_pays, hop
from graphmind.core.decision import Judgement


class RulesPolicy:
    """Hops from the question's words; a check and the stop rule otherwise."""

    def plan(self, tools: Tools, state: AskState, round_: Answered) -> Next:
        """A bridge's next hop, else (round 1) the question's first hop when it pays; the
        answer is checked only when no hop follows and the round is one of the
        ``checked_rounds``."""
        number, found, judgement = round_.number, round_.found, round_.judgement
        final = number == tools.options.max_rounds
        next_hop = "" if final else hop(state, found, judgement)
        if not next_hop and number == 1 and first_hop_pays(tools, state, found, judgement):
            next_hop = state.first = first_hop(state.question)
        # a next hop goes on whatever a check would say: no check call for it
        checked = not final and not next_hop and number <= tools.options.checked_rounds
        checking = check(tools, state, round_.asked, round_.reply) if checked else None
        if checking is not None:
            judgement = grade(state.question, found, round_.reply, checking)
        return Next(next_hop, checking, judgement)

    def goes_on(self, state: AskState, judgement: Judgement, check: Check | None, hop: str) -> bool:
        """``steps.check.goes_on``: a next hop, or a check that finds a link missing."""
        return goes_on(state, judgement, check, hop)
