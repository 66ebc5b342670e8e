"""Explain: the full answer beside the short one, a few sentences from the passages the
short answer was read from, each citing the passages it rests on."""

from __future__ import annotations

from graphmind.ask.grading import grounded
from graphmind.ask.models import MAX_CITATIONS, MAX_STATEMENTS, Answer, FullAnswer
from graphmind.ask.options import EXPLAIN_MAX_TOKENS, EXPLAIN_MORE
from graphmind.ask.prompts import answer_messages, explain_messages
from graphmind.ask.rules.attribution import attribute
from graphmind.ask.rules.evidence import cited_passages
from graphmind.ask.rules.text import restates
from graphmind.ask.state import AskState, Conversation, Tools
from graphmind.core.decision import Candidate, Citation, Round, Statement


def explain(
    tools: Tools, state: AskState, chosen: Round | None, answer: str, cited: list[Candidate]
) -> tuple[list[Statement], list[Citation]]:
    """The full answer to the question, as the next turn of the conversation that gave
    the short answer (its passages keep their numbers, and a prefix-caching model reads
    only the new turn); over the cited passages alone when that conversation asked
    something else (a next hop) or judged (ROZA's call). Passages the other rounds used
    (up to ``EXPLAIN_MORE``) follow in the same turn, numbered after the conversation's:
    what the loop went on to find explains the answer too. Each sentence cites the shown
    passages that state it (``rules.attribution``); one that none states, or that says
    nothing beyond the question's own words, is left out, and the first ``MAX_STATEMENTS``
    are kept. Returns the sentences and the passages they cite beyond ``cited``; nothing
    for an abstention."""
    if chosen is None or not answer:
        return [], []
    talk = _conversation(tools, state, chosen, answer, cited)
    more = used_elsewhere(state.rounds, state.asked, chosen, {c.id for c in talk.shown})
    share = tools.options.context_tokens // max(len(talk.shown), 1)
    messages = explain_messages(
        talk.messages, talk.answer, more, shown=len(talk.shown), budget_tokens=share * len(more)
    )
    shown = [*talk.shown, *more]
    with state.timed("llm"):
        out = tools.llm.structured("explain", messages, FullAnswer, max_tokens=EXPLAIN_MAX_TOKENS)
    written = [(" ".join(s.text.split()), s.citations) for s in out.sentences]
    said: dict[str, Statement] = {}
    for part in attribute(written, [f"{c.title} {c.text}" for c in shown]):
        if part.text not in said and not restates(part.text, state.question, ""):
            chunks = [shown[n - 1].id for n in part.citations]
            said[part.text] = Statement(part.text, list(dict.fromkeys(chunks)))
    statements = list(said.values())[:MAX_STATEMENTS]
    known = {c.id for c in cited}
    by_id = {c.id: c for c in shown}
    extra = dict.fromkeys(c for s in statements for c in s.chunks if c not in known)
    return statements, [Citation(c, by_id[c].title, by_id[c].text) for c in extra]


def used_elsewhere(
    rounds: list[Round], asked: list[str], chosen: Round, shown: set[str], limit: int = EXPLAIN_MORE
) -> list[Candidate]:
    """The passages that rounds other than ``chosen`` used (their answers cited them, and
    they state the answer: ``grounded``), not in ``shown``, in round and rank order, at
    most ``limit``. ``asked``: each round's question."""
    found: dict[str, Candidate] = {}
    for r, question in zip(rounds, asked, strict=True):
        if r is chosen or not grounded(question, r.judgement):
            continue
        for c in cited_passages(r):
            if c.id not in shown:
                found.setdefault(c.id, c)
    return list(found.values())[:limit]


def _conversation(
    tools: Tools, state: AskState, chosen: Round, answer: str, cited: list[Candidate]
) -> Conversation:
    """The answer call that gave the chosen round's answer to the question itself, else
    the answer call it would have been over the cited passages."""
    number = next(n for n, r in enumerate(state.rounds, start=1) if r is chosen)
    talk = state.conversations.get(number)  # every round asked something (``remember``)
    if (
        talk is not None
        and state.asked[number - 1] == state.question
        and talk.answer.answer.strip() == answer
    ):
        return talk
    messages = answer_messages(
        state.question,
        cited,
        [],
        "",
        temporal=state.temporal,
        budget_tokens=tools.options.context_tokens,
    )
    given = Answer(answer=answer, citations=list(range(1, len(cited) + 1))[:MAX_CITATIONS])
    return Conversation(messages, given, cited)
