"""The baselines the loop is measured against: naive RAG and judged RAG (ROZA's)."""

from __future__ import annotations

import time

from graphmind.ask.grading import grade
from graphmind.ask.models import Answer, judged_answer
from graphmind.ask.options import ANSWER_MAX_TOKENS, VERDICT_TOKENS
from graphmind.ask.prompts import answer_messages, judged_messages, without_example
from graphmind.ask.retrieve import candidates
from graphmind.ask.retrievers import VECTOR_CHUNK
from graphmind.ask.state import AskState, Conversation, Tools
from graphmind.ask.steps.gather import embed
from graphmind.ask.steps.read import copies_example
from graphmind.core.decision import Candidate, Judgement, Verdict


def naive(tools: Tools, state: AskState) -> tuple[list[Candidate], Judgement]:
    """Naive RAG: vector top-k chunks and one answer call; its candidates and judgement
    are recorded like a loop round's."""
    started = time.perf_counter()
    with state.timed("store"):
        vector = embed(tools, state, [state.question])[0]
        hits = tools.store.vector_search("Chunk", vector, tools.options.k)
        found = candidates(
            tools.store,
            [(h.id, h.similarity, [VECTOR_CHUNK]) for h in hits],
            tools.options.retrieve.max_triplets,
        )
    state.fused.update(h.id for h in hits)
    state.retrieve_ms += (time.perf_counter() - started) * 1000
    state.queries.append(state.question)
    messages = answer_messages(
        state.question,
        found,
        [],
        "",
        temporal=state.temporal,
        budget_tokens=tools.options.context_tokens,
    )
    with state.timed("llm"):
        out = tools.llm.structured("answer", messages, Answer, max_tokens=ANSWER_MAX_TOKENS)
    state.conversations[1] = Conversation(messages, out.model_copy(deep=True), found)
    out.citations = [n for n in out.citations if 1 <= n <= len(found)]
    judgement = grade(state.question, found, out, None)
    return found, judgement


def judged(tools: Tools, state: AskState) -> tuple[list[Candidate], Judgement]:
    """ROZA's vanilla RAG, and with memory its Ours-RG (evidence profiles beside the
    passages) and Ours-Full (the planner's exclusions too): the naive baseline's
    passages and one call that judges every passage, with a reason, and answers; its
    candidates and judgement, recorded like a loop round's."""
    started = time.perf_counter()
    with state.timed("store"):
        vector = embed(tools, state, [state.question])[0]
        hits = tools.store.vector_search("Chunk", vector, state.k)
        state.fused.update(h.id for h in hits)
        excluded = state.memory.exclude([h.id for h in hits])
        ranked = [(h.id, h.similarity, [VECTOR_CHUNK]) for h in hits if h.id not in excluded]
        found = candidates(tools.store, ranked, tools.options.retrieve.max_triplets)
        profiles = state.memory.profiles([c.id for c in found])
    for c in found:
        c.profile = profiles.get(c.id, "")
    state.retrieve_ms += (time.perf_counter() - started) * 1000
    state.queries.append(state.question)
    messages = judged_messages(
        state.question,
        found,
        temporal=state.temporal,
        budget_tokens=tools.options.context_tokens,
    )
    cap = ANSWER_MAX_TOKENS + VERDICT_TOKENS * len(found)
    output = judged_answer(len(found))  # one verdict per passage, then the answer
    with state.timed("llm"):
        out = tools.llm.structured("judge", messages, output, max_tokens=cap)
    if copies_example(out.answer, found, "judged"):  # asked again without the example
        with state.timed("llm"):
            out = tools.llm.structured("judge", without_example(messages), output, max_tokens=cap)
    verdicts = _one_verdict_per_candidate([v.as_verdict() for v in out.verdicts], len(found))
    used = [v.ref for v in verdicts if v.verdict == "used"]
    judgement = grade(
        state.question, found, Answer.model_construct(answer=out.answer, citations=used), None
    )
    given = {v.ref: v for v in verdicts}
    judgement.verdicts = [given.get(v.ref, v) for v in judgement.verdicts]
    return found, judgement


def _one_verdict_per_candidate(verdicts: list[Verdict], count: int) -> list[Verdict]:
    """The first verdict for each candidate number in range (models repeat themselves)."""
    seen: dict[int, Verdict] = {}
    for v in verdicts:
        if 1 <= v.ref <= count:
            seen.setdefault(v.ref, v)
    return [seen[n] for n in sorted(seen)]
