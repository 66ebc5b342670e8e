"""The iterative evidence loop, top-down: retrieve, read, check, stop or evolve, answer,
record.

ToG-3's Retriever / Responder / Reflector / Constructor, EviMem's graded sufficiency
with a missing-information diagnosis and dual-path retrieval, IRCoT / self-ask's one
follow-up query naming the bridge entity, and QRMeM's failure-reason-guided graph
expansion. Each round asks the model two small things: an answer with the passages it
rests on (the naive baseline's call, over at least the naive baseline's passages), then,
as the next turn of the same conversation (so a prefix-caching model reads only that
turn), whether a link is missing and what to search for. The round's grade and verdicts
follow from what was cited and whether the answer is stated in it. A later round
replaces the answer only when its answer is grounded in what it cites. Nothing is
written until the whole decision is known, and then in one atomic query.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from graphmind.ask.baselines import judged, naive
from graphmind.ask.broad import answer_broad, scope_of
from graphmind.ask.grading import (
    ABSTAIN_ANSWER,
    REASON_CHARS,
    better,
    choose,
    grade,
    grounded,
    shown_grade,
)
from graphmind.ask.options import (
    ANSWER_MAX_TOKENS,
    BRIDGE_PASSAGES,
    BRIDGE_POOL,
    CHECK_MAX_TOKENS,
    EVOLVE_CHUNKS,
    EXPAND_ANCHORS,
    EXPAND_ENTITIES,
    EXPAND_POOL,
    EXPAND_RELATIONS,
    FUSE_ALL,
    VERDICT_TOKENS,
    AskOptions,
    Mode,
)
from graphmind.ask.policies import POLICIES, Answered
from graphmind.ask.prompts import prompt_version
from graphmind.ask.retrievers import RETRIEVERS
from graphmind.ask.rules.alike import two_options
from graphmind.ask.rules.evidence import SUPPORTING
from graphmind.ask.rules.hops import bridge_hop, first_hop, owned_hop
from graphmind.ask.rules.question import TEMPORAL, off_kind, question_entities, restates_question
from graphmind.ask.rules.text import (
    GROUNDED,
    STEM_CHARS,
    copied,
    echoes,
    grounding,
    restates,
    states,
)
from graphmind.ask.state import AskState, Tools
from graphmind.ask.steps.compare import Picked, compare, one_country, statements
from graphmind.ask.steps.expand import evolve
from graphmind.ask.steps.explain import explain
from graphmind.ask.steps.gather import next_queries, retrieve, start
from graphmind.ask.steps.read import copies_example, read
from graphmind.core.decision import (
    Candidate,
    Citation,
    Decision,
    Judgement,
    Retrieval,
    Round,
    Statement,
    Sufficiency,
)
from graphmind.memory.decisions import write_decision
from graphmind.store.base import GraphStore
from graphmind.store.memo import remembered_searches

if TYPE_CHECKING:
    from graphmind.ask.models import Check
    from graphmind.embed import Embedder
    from graphmind.llm import LLM

__all__ = [  # the loop, and the names it held before it was split, where they are now
    "ABSTAIN_ANSWER",
    "ANSWER_MAX_TOKENS",
    "BRIDGE_PASSAGES",
    "BRIDGE_POOL",
    "CHECK_MAX_TOKENS",
    "EVOLVE_CHUNKS",
    "EXPAND_ANCHORS",
    "EXPAND_ENTITIES",
    "EXPAND_POOL",
    "EXPAND_RELATIONS",
    "FUSE_ALL",
    "GROUNDED",
    "REASON_CHARS",
    "STEM_CHARS",
    "SUPPORTING",
    "TEMPORAL",
    "VERDICT_TOKENS",
    "AskLoop",
    "AskOptions",
    "Mode",
    "better",
    "bridge_hop",
    "copied",
    "copies_example",
    "echoes",
    "first_hop",
    "grade",
    "grounded",
    "grounding",
    "off_kind",
    "owned_hop",
    "question_entities",
    "restates",
    "restates_question",
    "states",
]


class AskLoop:
    """Answers questions over a built graph and records each answer in it."""

    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        llm: LLM,
        options: AskOptions | None = None,
        on_round: Callable[[Round], None] | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.llm = llm
        self.options = options or AskOptions()
        self.on_round = on_round

    def ask(self, question: str) -> Decision:
        """Answer ``question``; the decision, its steps and verdicts are written atomically
        (unless ``record`` is off)."""
        with remembered_searches():  # its rounds search the same vectors again
            return self._ask(question)

    def _ask(self, question: str) -> Decision:
        started = time.perf_counter()
        tokens_before = self.llm.ledger.total().total_tokens
        tools = Tools(self.store, self.embedder, self.llm, self.options)
        state = start(tools, question.strip())
        state.tokens_mark = tokens_before
        if scope_of(self.options, self.store, state.question) == "broad":
            return self.record(state, self.broad(tools, state, started, tokens_before))
        if self.options.mode == "naive":
            self.remember(state, 1, [state.question], *naive(tools, state), None)
        elif self.options.mode == "judged":
            self.remember(state, 1, [state.question], *judged(tools, state), None)
        else:
            asks = two_options(state.question) if self.options.compare else None
            picked = (
                compare(
                    state,
                    asks,
                    lambda q, first: self.ask_one(tools, q, first),
                    lambda a, b: one_country(tools, state, a, b),
                )
                if asks
                else None
            )
            if picked is not None:
                return self.record(state, self.compared(state, picked, started, tokens_before))
            self.rounds(tools, state)
        chosen, answer, citations = choose(state.question, state.rounds, state.asked, state.first)
        explained: tuple[list[Statement], list[Citation]] = ([], [])
        if self.options.explain:
            explained = explain(tools, state, chosen, answer, citations)
        last = state.rounds[-1]  # the answer's time and tokens count with the last round
        last.store_ms += state.pending_store_ms
        last.llm_ms += state.pending_llm_ms
        last.tokens += self.llm.ledger.total().total_tokens - state.tokens_mark
        decision = self.decision(state, chosen, answer, citations, started, tokens_before)
        decision.explanation, decision.sources = explained
        return self.record(state, decision)

    def record(self, state: AskState, decision: Decision) -> Decision:
        """Write the decision (unless ``record`` is off) and return it."""
        if not self.options.record:
            return decision
        with state.timed("store"):
            write_decision(
                self.store, decision, agent_model=self.llm.model_id, prompt_version=prompt_version()
            )
        return decision

    def broad(self, tools: Tools, state: AskState, started: float, tokens_before: int) -> Decision:
        """A broad question, answered from the communities (``graphmind.ask.broad``): one
        round whose passages are the communities' and whose answer is the full answer."""
        found = answer_broad(tools, state)
        state.asking = state.question
        self.remember(state, 1, [state.question], found.shown, found.judgement, None)
        chosen = state.rounds[0] if found.statements else None
        answer = found.statements[0].text if found.statements else ABSTAIN_ANSWER
        decision = self.decision(state, chosen, answer, [], started, tokens_before)
        decision.mode = "broad"
        decision.sufficiency = found.judgement.sufficiency
        decision.citations = found.citations
        decision.explanation = found.statements
        decision.communities = found.communities
        return decision

    def ask_one(
        self, tools: Tools, question: str, first: str
    ) -> tuple[AskState, Round | None, str, list[Candidate]]:
        """One option's date or country for a comparison: the loop's rounds on the
        question that asks it, from its first hop when it has one; its run, chosen
        round, answer and cited passages."""
        sub = start(tools, question)
        sub.shows_first = "vector"  # one thing's fact: its own page is nearest
        if first:
            sub.asking = sub.first = first
        sub.tokens_mark = self.llm.ledger.total().total_tokens
        self.rounds(tools, sub)
        return sub, *choose(sub.question, sub.rounds, sub.asked, sub.first)

    def compared(
        self, state: AskState, picked: Picked, started: float, tokens_before: int
    ) -> Decision:
        """A comparison's decision: the option that wins (or yes/no), on the passages the
        options' answers were read from (INFERRABLE: together they decide), with those
        answers and the comparison as the full answer."""
        last = state.rounds[-1]
        last.store_ms += state.pending_store_ms
        last.llm_ms += state.pending_llm_ms
        chosen, cited = picked.dated[-1].chosen, picked.cited()
        decision = self.decision(state, chosen, picked.winner, cited, started, tokens_before)
        decision.sufficiency = Sufficiency.INFERRABLE
        decision.confidence = min(d.chosen.judgement.confidence for d in picked.dated if d.chosen)
        if self.options.explain:
            decision.explanation = statements(picked)
        return decision

    def rounds(self, tools: Tools, state: AskState) -> None:
        """The loop's rounds: gather, read, grade; then the policy (``[ask] policy``)
        names the next hop or checks the answer, the round is kept, and the policy says
        whether another round goes on, after the sub-graph evolves toward what is missing."""
        policy = POLICIES[self.options.policy]
        for number in range(1, self.options.max_rounds + 1):
            queries = next_queries(state)
            found = retrieve(tools, state, queries)
            asked, reply = read(tools, state, found)
            judgement = grade(state.question, found, reply, None)
            step = policy.plan(tools, state, Answered(number, found, asked, reply, judgement))
            self.remember(state, number, queries, found, step.judgement, step.check)
            final = number == self.options.max_rounds
            if final or not policy.goes_on(state, step.judgement, step.check, step.hop):
                break
            state.asking = step.hop or state.question
            evolve(tools, state, step.judgement)

    def remember(
        self,
        state: AskState,
        number: int,
        queries: list[str],
        found: list[Candidate],
        j: Judgement,
        check: Check | None,
    ) -> None:
        """Keep the round (with the time spent on it), its check and its memory cue."""
        state.checks.append(check)
        tokens = self.llm.ledger.total().total_tokens
        round_ = Round(
            number,
            queries,
            found,
            j,
            expanded=list(state.expanded),
            store_ms=state.pending_store_ms,
            llm_ms=state.pending_llm_ms,
            tokens=tokens - state.tokens_mark,
        )
        state.pending_store_ms = state.pending_llm_ms = 0.0
        state.tokens_mark = tokens
        state.rounds.append(round_)
        state.asked.append(state.asking)
        cue = j.cue or (f"Still missing: {j.missing}" if j.missing else "")
        if cue:
            state.cues.append(cue)
        if self.on_round is not None:
            self.on_round(round_)

    def decision(
        self,
        state: AskState,
        chosen: Round | None,
        answer: str,
        cited: list[Candidate],
        started: float,
        tokens_before: int,
    ) -> Decision:
        """Everything the graph keeps about this answer (graded as the round it came from)."""
        final = (chosen or state.rounds[-1]).judgement
        return Decision(
            id=uuid.uuid4().hex,
            question=state.question,
            answer=answer,
            abstained=chosen is None,
            sufficiency=shown_grade(state.question, final, answer),
            confidence=final.confidence,
            mode=self.options.mode,
            rounds=state.rounds,
            citations=[Citation(c.id, c.title, c.text) for c in cited],
            cues=state.cues,
            temporal=state.temporal,
            tokens=self.llm.ledger.total().total_tokens - tokens_before,
            latency_ms=(time.perf_counter() - started) * 1000,
            store_ms=state.store_ms,
            llm_ms=state.llm_ms,
            model=self.llm.model_id,
            created_at=int(time.time() * 1000),
            retrieval=self.retrieval(state),
        )

    def retrieval(self, state: AskState) -> Retrieval:
        """What retrieval and the memory did, for the RETRIEVED_VIA edge."""
        memory = state.memory
        judged = [c for r in state.rounds for c in r.candidates]
        qt = memory.query_type
        return Retrieval(
            memory=memory.mode,
            query_type="" if qt is None else qt.id,
            query_type_new=qt is not None and qt.new,
            query_vector=state.vectors.get(state.question, []),
            config=memory.config.name,
            explored=memory.plan.explored,
            filters=memory.config.filters(self.options.k, list(RETRIEVERS)),
            excluded=list(memory.excluded),
            candidates_pre=len(state.fused),
            candidates_post=len({c.id for c in judged}),
            judged=len(judged),
            profiled=sum(1 for c in judged if c.profile),
            latency_ms=state.retrieve_ms,
        )
