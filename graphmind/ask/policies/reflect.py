"""The reflect policy, for capable endpoint models: after each answer but the last the
model itself says whether it is complete and, when it is a step on the way, names the
next hop's question (self-ask's follow-up question, ToG-3's Reflector). The next round
asks that question over the passages that name the step, as the rules policy's hops do."""

from __future__ import annotations

from graphmind.ask.grading import grade
from graphmind.ask.models import Check, Reflection
from graphmind.ask.options import REFLECT_MAX_TOKENS
from graphmind.ask.policies.base import Answered, Next
from graphmind.ask.prompts import reflect_messages
from graphmind.ask.state import AskState, Tools
from graphmind.core.decision import Judgement


class ReflectPolicy:
    """The model names the next hop, or says the answer is complete."""

    def plan(self, tools: Tools, state: AskState, round_: Answered) -> Next:
        """One reflect call as the next turn of the answer's conversation (none after the
        last round): its verdict grades the round like a check, and its next question,
        when it was not asked before, is the next hop."""
        if round_.number == tools.options.max_rounds:
            return Next("", None, round_.judgement)
        messages = reflect_messages(round_.asked, round_.reply)
        with state.timed("llm"):
            out = tools.llm.structured(
                "reflect", messages, Reflection, max_tokens=REFLECT_MAX_TOKENS
            )
        checking = Check(complete=out.complete, missing=out.missing, query=out.query)
        asked_before = {q.lower() for q in [state.question, *state.queries]}
        question = out.next_question.strip()
        next_hop = "" if out.complete or question.lower() in asked_before else question
        return Next(next_hop, checking, grade(state.question, round_.found, round_.reply, checking))

    def goes_on(self, state: AskState, judgement: Judgement, check: Check | None, hop: str) -> bool:
        """On to the named hop; without one, on only while the model finds a link missing
        and there is a query not asked before."""
        if hop:
            return True
        return check is not None and not check.complete and bool(state.follow_up())
