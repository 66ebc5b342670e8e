"""The iterative evidence loop, top-down: retrieve, judge, stop or evolve, answer, record.

ToG-3's Retriever / Responder / Reflector / Constructor, EviMem's graded sufficiency
with a missing-information diagnosis and dual-path retrieval, ComoRAG's probes and
memory cues, and QRMeM's failure-reason-guided graph expansion. Every step is named
Cypher plus at most one LLM call; nothing is written until the whole decision is
known, and then in one atomic query.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from graphmind.ask.models import (
    Answer,
    Candidate,
    Citation,
    Decision,
    Judgement,
    Retrieval,
    Round,
    Sufficiency,
    Verdict,
)
from graphmind.ask.prompts import answer_messages, judge_messages, prompt_version
from graphmind.ask.retrieve import RetrieveOptions, candidates, fuse, rank_lists
from graphmind.extract.extractor import ChunkText, extract_chunks
from graphmind.extract.writer import write_extractions
from graphmind.memory.decisions import write_decision
from graphmind.memory.session import MemoryOptions, MemorySession
from graphmind.store.base import GraphStore

if TYPE_CHECKING:
    from graphmind.embed import Embedder
    from graphmind.llm import LLM

ABSTAIN_ANSWER = "Not found in the corpus."
TEMPORAL = re.compile(
    r"\b(when|what year|which year|what date|how long|since when|until when|how many years"
    r"|what century|what decade|born|died|founded)\b",
    re.IGNORECASE,
)
EXPAND_RELATIONS = 3
EVOLVE_CHUNKS = 3


@dataclass
class AskOptions:
    """The loop's knobs."""

    mode: Literal["loop", "naive"] = "loop"
    max_rounds: int = 3
    k: int = 20
    stop_confidence: float = 0.6
    temporal_stop_confidence: float = 0.8
    abstain_confidence: float = 0.5
    context_tokens: int = 2500
    expand: bool = True
    evolve_graph: bool = True
    synthesize: bool = False  # always write the answer with its own LLM call
    retrieve: RetrieveOptions = field(default_factory=RetrieveOptions)
    memory: MemoryOptions = field(default_factory=MemoryOptions)


@dataclass
class _State:
    question: str
    temporal: bool
    memory: MemorySession
    retrieve: RetrieveOptions  # the loop's options under the planner's configuration
    k: int
    rounds: list[Round] = field(default_factory=list)
    cues: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    expanded: list[str] = field(default_factory=list)
    store_ms: float = 0.0
    llm_ms: float = 0.0
    pending_store_ms: float = 0.0  # time not yet booked on a round
    pending_llm_ms: float = 0.0
    tokens_mark: int = 0
    vectors: dict[str, list[float]] = field(default_factory=dict)  # query -> embedding
    fused: set[str] = field(default_factory=set)  # every fused chunk, before exclusion
    retrieve_ms: float = 0.0

    def used(self) -> list[Candidate]:
        """Every candidate judged used, earliest round first, once."""
        seen: dict[str, Candidate] = {}
        for r in self.rounds:
            for v in r.judgement.verdicts:
                if v.verdict == "used" and 1 <= v.ref <= len(r.candidates):
                    seen.setdefault(r.candidates[v.ref - 1].id, r.candidates[v.ref - 1])
        return list(seen.values())

    def rejected(self) -> set[str]:
        return {
            r.candidates[v.ref - 1].id
            for r in self.rounds
            for v in r.judgement.verdicts
            if v.verdict == "rejected" and 1 <= v.ref <= len(r.candidates)
        } - {c.id for c in self.used()}


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
        """Answer ``question``; the decision, its steps and verdicts are written atomically."""
        started = time.perf_counter()
        tokens_before = self.llm.ledger.total().total_tokens
        state = self.start(question.strip())
        state.tokens_mark = tokens_before
        if self.options.mode == "naive":
            self.naive_round(state)
        else:
            for number in range(1, self.options.max_rounds + 1):
                queries = self.next_queries(state)
                found = self.retrieve(state, queries)
                judgement = self.judge(state, found)
                self.remember(state, number, queries, found, judgement)
                if self.sufficient(state, judgement) or number == self.options.max_rounds:
                    break
                self.evolve(state, judgement)
        answer, citations, abstained = self.answer(state)
        last = state.rounds[-1]  # the answer's time and tokens count with the last round
        last.store_ms += state.pending_store_ms
        last.llm_ms += state.pending_llm_ms
        last.tokens += self.llm.ledger.total().total_tokens - state.tokens_mark
        decision = self.decision(state, answer, citations, abstained, started, tokens_before)
        with self._timed(state, "store"):
            write_decision(
                self.store, decision, agent_model=self.llm.model_id, prompt_version=prompt_version()
            )
        return decision

    # -- the steps ------------------------------------------------------------
    def start(self, question: str) -> _State:
        """Embed the question, assign its query type and let the planner (in full memory
        mode) pick the retrieval configuration; the naive baseline reads no memory."""
        opts = self.options
        mode = "off" if opts.mode == "naive" else opts.memory.mode
        memory = MemorySession(self.store, replace(opts.memory, mode=mode))
        state = _State(
            question,
            temporal=bool(TEMPORAL.search(question)),
            memory=memory,
            retrieve=opts.retrieve,
            k=opts.k,
        )
        with self._timed(state, "store"):
            memory.start(question, self._embed(state, [question])[0])
        config = memory.config
        state.k = config.k(opts.k)
        state.retrieve = replace(
            opts.retrieve,
            ppr=opts.retrieve.ppr and config.ppr,
            layers=tuple(x for x in opts.retrieve.layers if x in config.layers),
        )
        return state

    def next_queries(self, state: _State) -> list[str]:
        """Round 1: the question. Later: the question (anchor) and the new probes."""
        if not state.rounds:
            return [state.question]
        probes = [
            p
            for p in state.rounds[-1].judgement.probes
            if p.lower() not in {q.lower() for q in state.queries}
        ]
        if not probes and state.rounds[-1].judgement.missing:
            probes = [state.rounds[-1].judgement.missing]
        return [state.question, *probes[:3]]

    def retrieve(self, state: _State, queries: list[str]) -> list[Candidate]:
        """Hybrid retrieval for each query, fused with the graph expansion; earlier used
        evidence stays, earlier rejected evidence is not offered again."""
        started = time.perf_counter()
        with self._timed(state, "store"):
            vectors = self._embed(state, queries)
            lists = [
                rank_lists(self.store, q, v, state.retrieve)
                for q, v in zip(queries, vectors, strict=True)
            ]
            if state.expanded:
                lists.append({"expand": state.expanded})
            carried = state.used()
            exclude = state.rejected() | {c.id for c in carried}
            fused = [f for f in fuse(lists, state.k * 2) if f[0] not in exclude]
            state.fused.update(f[0] for f in fused)
            excluded = state.memory.exclude([f[0] for f in fused])
            fused = [f for f in fused if f[0] not in excluded]
            room = max(0, state.k - len(carried))
            fresh = candidates(self.store, fused[:room], state.retrieve.max_triplets)
            found = carried + fresh
            profiles = state.memory.profiles([c.id for c in found])
        state.retrieve_ms += (time.perf_counter() - started) * 1000
        state.queries.extend(q for q in queries if q not in state.queries)
        for c in carried:
            if "memory" not in c.sources:
                c.sources = [*c.sources, "memory"]
        for c in found:
            c.profile = profiles.get(c.id, "")
        return found

    def judge(self, state: _State, found: list[Candidate]) -> Judgement:
        """One structured LLM call: a verdict per candidate, a draft, a grade, the gap."""
        messages = judge_messages(
            state.question,
            found,
            state.cues,
            state.queries[1:],
            temporal=state.temporal,
            budget_tokens=self.options.context_tokens,
        )
        with self._timed(state, "llm"):
            judgement = self.llm.structured("judge", messages, Judgement)
        judgement.verdicts = _one_verdict_per_candidate(judgement.verdicts, len(found))
        return judgement

    def remember(
        self, state: _State, number: int, queries: list[str], found: list[Candidate], j: Judgement
    ) -> None:
        """Keep the round (with the time spent on it) and its memory cue."""
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
        cue = j.cue or (f"Still missing: {j.missing}" if j.missing else "")
        if cue:
            state.cues.append(cue)
        if self.on_round is not None:
            self.on_round(round_)

    def sufficient(self, state: _State, j: Judgement) -> bool:
        """Stop on EXACT, or INFERRABLE above the (stricter, for time) threshold; never
        while the judge itself names something missing or an entity not covered, nor on
        an inference resting on fewer than two used passages."""
        if j.missing.strip() or any(not c.covered for c in j.coverage):
            return False
        if j.sufficiency is Sufficiency.INFERRABLE and len(state.used()) < 2:
            return False
        if j.sufficiency is Sufficiency.EXACT:
            return not state.temporal or j.confidence >= self.options.stop_confidence
        threshold = (
            self.options.temporal_stop_confidence
            if state.temporal
            else self.options.stop_confidence
        )
        return j.sufficiency is Sufficiency.INFERRABLE and j.confidence >= threshold

    def evolve(self, state: _State, j: Judgement) -> None:
        """The evolving sub-graph (extract triplets from used chunks that have none), then
        QRMeM's expansion toward the relation that best matches the diagnosed gap."""
        used = state.used()
        if self.options.evolve_graph and used:
            self.evolve_graph(state, [c.id for c in used])
        anchors = used or state.rounds[-1].candidates[:3]
        if self.options.expand:
            with self._timed(state, "store"):
                state.expanded = self.expand(state, j, [c.id for c in anchors])

    def expand(self, state: _State, j: Judgement, chunk_ids: list[str]) -> list[str]:
        """Chunks behind the relations (of the anchors' entities) most similar to
        [question; missing; entities]."""
        entities = self.store.run("ask/chunk_entities", {"ids": chunk_ids})
        if not entities:
            return []
        relations = self.store.run(
            "ask/entity_relations", {"ids": [e["id"] for e in entities], "limit": 200}
        )
        if not relations:
            return []
        target = " ".join([state.question, j.missing, *(e["name"] for e in entities[:10])])
        texts = [f"{r['name']} {r['predicate']} {r['neighbour_name']}" for r in relations]
        vectors = self.embedder.embed([target, *texts])
        goal = vectors[0]
        scored = sorted(
            zip(relations, vectors[1:], strict=True),
            key=lambda rv: -sum(a * b for a, b in zip(goal, rv[1], strict=True)),
        )
        triplets = [t for r, _ in scored[:EXPAND_RELATIONS] for t in (r["triplet_ids"] or [])]
        rows = self.store.run("ask/chunks_for_triplets", {"ids": triplets})
        return list(dict.fromkeys(r["chunk"] for r in rows))

    def evolve_graph(self, state: _State, chunk_ids: list[str]) -> None:
        """Extract and write triplets for used chunks that have none yet."""
        with self._timed(state, "store"):
            rows = self.store.run("ask/chunk_extraction_status", {"ids": chunk_ids})
        todo = [
            ChunkText(r["id"], r["title"] or "", r["text"]) for r in rows if r["extraction"] != "ok"
        ][:EVOLVE_CHUNKS]
        if not todo:
            return
        with self._timed(state, "llm"):
            results = extract_chunks(self.llm, todo)
        with self._timed(state, "store"):
            state.rounds[-1].extracted = write_extractions(self.store, self.embedder, results)

    def answer(self, state: _State) -> tuple[str, list[Candidate], bool]:
        """The answer from the whole trajectory with citations, or an abstention.

        The last judgement already saw every used passage and every round's cue, so its
        draft is the trajectory's answer; a separate answer call is made when there is
        no draft, or always with ``synthesize``.
        """
        final = state.rounds[-1].judgement
        evidence = state.used()
        weak = final.sufficiency is Sufficiency.NONE or (
            final.sufficiency is Sufficiency.PARTIAL
            and final.confidence < self.options.abstain_confidence
        )
        if weak or not evidence:
            return ABSTAIN_ANSWER, [], True
        draft = final.draft_answer.strip()
        if draft and not self.options.synthesize:
            return draft, _supporting(evidence, draft), False
        messages = answer_messages(
            state.question,
            evidence,
            state.cues,
            draft,
            temporal=state.temporal,
            budget_tokens=self.options.context_tokens,
        )
        with self._timed(state, "llm"):
            out = self.llm.structured("answer", messages, Answer)
        if out.abstain or not out.answer.strip():
            return ABSTAIN_ANSWER, [], True
        cited = [evidence[n - 1] for n in dict.fromkeys(out.citations) if 1 <= n <= len(evidence)]
        return out.answer.strip(), cited or _supporting(evidence, out.answer), False

    def naive_round(self, state: _State) -> None:
        """Baseline: vector top-k chunks and one answer call, recorded like a loop round."""
        started = time.perf_counter()
        with self._timed(state, "store"):
            vector = self._embed(state, [state.question])[0]
            hits = self.store.vector_search("Chunk", vector, self.options.k)
            found = candidates(
                self.store,
                [(h.id, h.similarity, ["vector:chunk"]) for h in hits],
                self.options.retrieve.max_triplets,
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
            budget_tokens=self.options.context_tokens,
        )
        with self._timed(state, "llm"):
            out = self.llm.structured("answer", messages, Answer)
        cited = {n for n in out.citations if 1 <= n <= len(found)}
        grade = Sufficiency.NONE if out.abstain or not out.answer else Sufficiency.INFERRABLE
        judgement = Judgement(
            verdicts=[
                Verdict(ref=n, verdict="used", reason="cited by the answer") for n in sorted(cited)
            ],
            draft_answer=out.answer,
            sufficiency=grade,
            confidence=0.5 if cited else 0.0,
        )
        self.remember(state, 1, [state.question], found, judgement)

    def decision(
        self,
        state: _State,
        answer: str,
        cited: list[Candidate],
        abstained: bool,
        started: float,
        tokens_before: int,
    ) -> Decision:
        """Everything the graph keeps about this answer."""
        final = state.rounds[-1].judgement
        return Decision(
            id=uuid.uuid4().hex,
            question=state.question,
            answer=answer,
            abstained=abstained,
            sufficiency=final.sufficiency,
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

    def retrieval(self, state: _State) -> Retrieval:
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
            filters=memory.config.filters(self.options.k),
            excluded=list(memory.excluded),
            candidates_pre=len(state.fused),
            candidates_post=len({c.id for c in judged}),
            judged=len(judged),
            profiled=sum(1 for c in judged if c.profile),
            latency_ms=state.retrieve_ms,
        )

    def _embed(self, state: _State, texts: list[str]) -> list[list[float]]:
        """Embeddings of ``texts``, each computed once per question."""
        todo = [t for t in dict.fromkeys(texts) if t not in state.vectors]
        if todo:
            state.vectors.update(zip(todo, self.embedder.embed(todo), strict=True))
        return [state.vectors[t] for t in texts]

    @contextmanager
    def _timed(self, state: _State, kind: Literal["store", "llm"]) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            ms = (time.perf_counter() - started) * 1000
            if kind == "llm":
                state.llm_ms += ms
                state.pending_llm_ms += ms
            else:
                state.store_ms += ms
                state.pending_store_ms += ms


def _supporting(evidence: list[Candidate], answer: str, limit: int = 5) -> list[Candidate]:
    """The used passages the answer rests on: those stating it first, then the others."""
    needle = " ".join(answer.lower().split())
    stating = [c for c in evidence if needle and needle in " ".join(c.text.lower().split())]
    return (stating + [c for c in evidence if c not in stating])[:limit]


def _one_verdict_per_candidate(verdicts: list[Verdict], count: int) -> list[Verdict]:
    """The first verdict for each candidate number in range (models repeat themselves)."""
    seen: dict[int, Verdict] = {}
    for v in verdicts:
        if 1 <= v.ref <= count:
            seen.setdefault(v.ref, v)
    return [seen[n] for n in sorted(seen)]
