"""Check: whether a link is missing, and whether another round can pay."""

from __future__ import annotations

from graphmind.ask.grading import grounded
from graphmind.ask.models import Answer, Check
from graphmind.ask.options import CHECK_MAX_TOKENS
from graphmind.ask.prompts import check_messages, prompt
from graphmind.ask.rules.text import echoes, restates
from graphmind.ask.state import AskState, Tools
from graphmind.core.decision import Judgement


def check(tools: Tools, state: AskState, asked: list[dict[str, str]], reply: Answer) -> Check:
    """The answer's check, as the next turn of its conversation: a missing link and a
    follow-up query that names what it is about. A missing fact or query taken from
    the prompts' own examples ("Ana Roth born in", "1950") and from nothing the
    question and passages say is dropped."""
    messages = check_messages(asked, reply, temporal=state.temporal)
    with state.timed("llm"):
        out = tools.llm.structured("check", messages, Check, max_tokens=CHECK_MAX_TOKENS)
    shown = [m["content"] for m in asked if m["role"] == "user"][:1]  # the passages
    prompts = " ".join([prompt("check"), *(m["content"] for m in asked if m["role"] == "system")])
    for name in ("missing", "query"):
        if echoes(getattr(out, name), prompts, shown):
            setattr(out, name, "")
    return out


def goes_on(state: AskState, j: Judgement, check: Check | None, hop: str = "") -> bool:
    """Another round only when it can pay, and with a query not asked before (the
    check's, else the question's entities the citations miss): the answer is a step
    on the way (``bridge_hop``: the question that remains is asked next), the
    evidence does not support the answer (none, not stated by what it cites, or only
    a name from the question), or the check names a missing link that says more than
    the question and the answer already do. The model's "complete" alone does not
    stop a round that has no supported answer. An unchecked round (after
    ``checked_rounds``) goes on only for a next hop: a hop's answer may be a bridge
    too, in a chain of three or four."""
    if hop:
        return True
    if check is None or not state.follow_up():
        return False
    if not grounded(state.question, j):
        return True
    return not check.complete and not restates(check.missing, state.question, j.draft_answer)
