"""The reasoning graph: write each answer's decision, steps and verdicts; read them back.

One decision is written by one named query (``memory/write_decision``), so it is atomic
on both stores: either the decision with all its steps and edges is in the graph, or
nothing of it is, and the evidence stats of the chunks it judged (``memory.stats``) count
it in the same write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmind.core.decision import Decision, Round
from graphmind.core.ids import digest
from graphmind.memory import stats
from graphmind.memory.querytypes import type_label
from graphmind.store.base import GraphStore, Row

SNIPPET_CHARS = 300
TOP_RELEVANT = 5  # used chunks listed on the RETRIEVED_VIA edge


@dataclass
class TraceAgent:
    """The agent that decided, with its DECIDED edge."""

    id: str
    model: str
    prompt_version: str
    confidence: float
    timestamp: int
    outcome: str


@dataclass
class TraceCandidate:
    """One retrieved chunk of a step, with the judge's verdict on it in that step (if any)."""

    rank: int
    chunk_id: str
    title: str
    text: str  # shortened to SNIPPET_CHARS
    score: float
    sources: list[str]
    verdict: str | None = None
    reason: str = ""
    confidence_delta: float | None = None


@dataclass
class TraceStep:
    """One round of the loop as stored on its Step node."""

    id: str
    round: int
    queries: list[str]
    sub_query: str
    draft_answer: str
    sufficiency: str
    confidence: float
    missing: str
    cue: str
    probes: list[str]
    expanded: list[str]
    extracted: int
    store_ms: float
    llm_ms: float
    tokens: int
    candidates: list[TraceCandidate] = field(default_factory=list)


@dataclass
class TraceCitation:
    """A cited chunk; ``title`` and ``text`` are empty when the chunk is no longer stored."""

    rank: int
    chunk_id: str
    title: str
    text: str


@dataclass
class TraceRetrieval:
    """The decision's RETRIEVED_VIA edge and query type: what the memory did."""

    memory: str
    config: str
    filters: str
    explored: bool
    excluded: list[str]
    candidates_pre: int
    candidates_post: int
    top_relevant: list[str]
    judged: int
    profiled: int
    latency_ms: float
    token_cost: int
    query_type: str
    query_type_label: str
    query_type_size: int


@dataclass
class DecisionTrace:
    """A decision read back from the graph: its properties, agent, steps and citations."""

    id: str
    question: str
    answer: str
    abstained: bool
    sufficiency: str
    confidence: float
    rounds: int
    outcome: str
    mode: str
    model: str
    temporal: bool
    tokens: int
    latency_ms: float
    store_ms: float
    llm_ms: float
    created_at: int
    cues: list[str]
    query_type: str | None
    agent: TraceAgent | None
    steps: list[TraceStep]
    citations: list[TraceCitation]
    retrieval: TraceRetrieval | None = None
    memory: str = "off"


def agent_id(model: str, prompt_version: str) -> str:
    """The deterministic id of the agent running ``model`` with ``prompt_version``."""
    return digest("agent", model, prompt_version)


def step_id(decision_id: str, round_number: int) -> str:
    """The deterministic id of a decision's step for one round."""
    return digest("step", decision_id, str(round_number))


def write_decision(
    store: GraphStore, decision: Decision, *, agent_model: str, prompt_version: str
) -> None:
    """Write the decision, its agent, steps, retrievals, verdicts and citations atomically.

    Raises QueryParameterError (nothing sent) on a value the store cannot hold (NaN, …)
    and QueryFailedError (nothing written) when the store rejects the query, e.g. for
    a decision id or a round written before.
    """
    row = decision_row(decision, agent_model=agent_model, prompt_version=prompt_version)
    # one decision per query: the evidence stats it updates are read before they are written
    store.write_rows(
        "memory/write_decision", [row], batch_size=1, params={"capacity": stats.CAPACITY}
    )


def decision_row(decision: Decision, *, agent_model: str, prompt_version: str) -> dict[str, Any]:
    """The nested parameter row ``memory/write_decision`` writes one decision from."""
    steps = [_step_row(decision.id, r) for r in decision.rounds]
    citations = [{"chunk": c.chunk_id, "rank": i} for i, c in enumerate(decision.citations, 1)]
    chunk_ids = {r["chunk"] for s in steps for r in s["retrieved"]}
    chunk_ids.update(c["chunk"] for c in citations)
    evaluated = final_verdicts(decision.rounds)
    rv = decision.retrieval
    return {
        "id": decision.id,
        "question": decision.question,
        "answer": decision.answer,
        "abstained": bool(decision.abstained),
        "sufficiency": str(decision.sufficiency.value),
        "confidence": float(decision.confidence),
        "outcome": decision.outcome,
        "mode": decision.mode,
        "memory": rv.memory,
        "model": decision.model,
        "temporal": bool(decision.temporal),
        "tokens": int(decision.tokens),
        "latency_ms": float(decision.latency_ms),
        "store_ms": float(decision.store_ms),
        "llm_ms": float(decision.llm_ms),
        "created_at": int(decision.created_at),
        "cues": [str(c) for c in decision.cues],
        "agent": {
            "id": agent_id(agent_model, prompt_version),
            "model": agent_model,
            "prompt_version": prompt_version,
        },
        "steps": steps,
        "evaluated": evaluated,
        "citations": citations,
        "chunk_ids": sorted(chunk_ids),
        "query_type_id": rv.query_type or None,
        "query_type": None
        if not rv.query_type
        else {
            "id": rv.query_type,
            "label": type_label(decision.question),
            "vector": [float(x) for x in rv.query_vector],
        },
        "retrieval": {
            "query_id": digest("query", decision.id),
            "queries": list(dict.fromkeys(q for r in decision.rounds for q in r.queries)),
            "config": rv.config,
            "filters": rv.filters,
            "explored": bool(rv.explored),
            "excluded": [str(x) for x in rv.excluded],
            "candidates_pre": int(rv.candidates_pre),
            "candidates_post": int(rv.candidates_post),
            "top_relevant": [e["chunk"] for e in evaluated if e["verdict"] == "used"][
                :TOP_RELEVANT
            ],
            "judged": int(rv.judged),
            "profiled": int(rv.profiled),
            "latency_ms": float(rv.latency_ms),
        },
    }


def final_verdicts(rounds: list[Round]) -> list[dict[str, Any]]:
    """One verdict per judged chunk: its latest "used", else its latest "rejected"."""
    final: dict[str, dict[str, Any]] = {}
    for rnd in rounds:
        for verdict in rnd.judgement.verdicts:
            if not 1 <= verdict.ref <= len(rnd.candidates):
                continue
            chunk = rnd.candidates[verdict.ref - 1].id
            kept = final.get(chunk)
            if verdict.verdict == "rejected" and kept is not None and kept["verdict"] == "used":
                continue
            final[chunk] = {
                "chunk": chunk,
                "step": int(rnd.number),
                "verdict": verdict.verdict,
                "reason": verdict.reason,
                "confidence_delta": float(verdict.confidence_delta),
            }
    return list(final.values())


def _step_row(decision_id: str, rnd: Round) -> dict[str, Any]:
    """One round as a step row: its candidates (first occurrence of each chunk), each
    with the verdict it got in this round (None when the judge skipped it)."""
    j = rnd.judgement
    retrieved: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rank, cand in enumerate(rnd.candidates, 1):
        if cand.id in seen:
            continue
        seen.add(cand.id)
        verdict = rnd.verdict_of(cand.id)
        retrieved.append(
            {
                "chunk": cand.id,
                "rank": rank,
                "score": float(cand.score),
                "sources": [str(s) for s in cand.sources],
                "verdict": None if verdict is None else verdict.verdict,
                "reason": None if verdict is None else verdict.reason,
                "confidence_delta": None if verdict is None else float(verdict.confidence_delta),
            }
        )
    return {
        "id": step_id(decision_id, rnd.number),
        "round": int(rnd.number),
        "sub_query": " | ".join(rnd.queries),
        "queries": [str(q) for q in rnd.queries],
        "draft_answer": j.draft_answer,
        "sufficiency": str(j.sufficiency.value),
        "confidence": float(j.confidence),
        "missing": j.missing,
        "cue": j.cue,
        "probes": [str(p) for p in j.probes],
        "expanded": [str(e) for e in rnd.expanded],
        "extracted": int(rnd.extracted),
        "store_ms": float(rnd.store_ms),
        "llm_ms": float(rnd.llm_ms),
        "tokens": int(rnd.tokens),
        "profiled": [c.id for c in rnd.candidates if c.profile],
        "retrieved": retrieved,
    }


def read_decision(store: GraphStore, decision_id: str) -> DecisionTrace | None:
    """The decision's full trace read back from the graph, or None for an unknown id."""
    found = store.run("memory/read_decision", {"id": decision_id})
    if not found:
        return None
    head = found[0]
    d: dict[str, Any] = head["decision"]
    return DecisionTrace(
        id=str(d["id"]),
        question=str(d.get("question") or ""),
        answer=str(d.get("answer") or ""),
        abstained=bool(d.get("abstained")),
        sufficiency=str(d.get("sufficiency") or ""),
        confidence=_float(d.get("confidence")),
        rounds=int(d.get("rounds") or 0),
        outcome=str(d.get("outcome") or ""),
        mode=str(d.get("mode") or ""),
        model=str(d.get("model") or ""),
        temporal=bool(d.get("temporal")),
        tokens=int(d.get("tokens") or 0),
        latency_ms=_float(d.get("latency_ms")),
        store_ms=_float(d.get("store_ms")),
        llm_ms=_float(d.get("llm_ms")),
        created_at=int(d.get("created_at") or 0),
        cues=[str(c) for c in d.get("cues") or []],
        query_type=None if d.get("query_type") is None else str(d["query_type"]),
        agent=_agent(head),
        steps=_steps(store.run("memory/read_steps", {"id": decision_id})),
        citations=_citations(d.get("citations") or [], head["cited"] or []),
        retrieval=_retrieval(head),
        memory=str(d.get("memory") or "off"),
    )


def list_decisions(store: GraphStore, limit: int = 20) -> list[dict[str, Any]]:
    """The ``limit`` latest decisions: id, question, answer, sufficiency, outcome, created_at."""
    return store.run("memory/list_decisions", {"limit": int(limit)})


def _agent(head: Row) -> TraceAgent | None:
    if head.get("agent_id") is None:
        return None
    return TraceAgent(
        id=str(head["agent_id"]),
        model=str(head.get("agent_model") or ""),
        prompt_version=str(head.get("prompt_version") or ""),
        confidence=_float(head.get("decided_confidence")),
        timestamp=int(head.get("decided_timestamp") or 0),
        outcome=str(head.get("decided_outcome") or ""),
    )


def _retrieval(head: Row) -> TraceRetrieval | None:
    via: dict[str, Any] | None = head.get("retrieval")
    if via is None:
        return None
    return TraceRetrieval(
        memory=str(via.get("memory") or "off"),
        config=str(via.get("config") or ""),
        filters=str(via.get("filters") or ""),
        explored=bool(via.get("explored")),
        excluded=[str(x) for x in via.get("excluded") or []],
        candidates_pre=int(via.get("candidates_pre") or 0),
        candidates_post=int(via.get("candidates_post") or 0),
        top_relevant=[str(x) for x in via.get("top_relevant") or []],
        judged=int(via.get("judged") or 0),
        profiled=int(via.get("profiled") or 0),
        latency_ms=_float(via.get("latency_ms")),
        token_cost=int(via.get("token_cost") or 0),
        query_type=str(head.get("query_type_id") or ""),
        query_type_label=str(head.get("query_type_label") or ""),
        query_type_size=int(head.get("query_type_size") or 0),
    )


def _steps(records: list[Row]) -> list[TraceStep]:
    """Group ``memory/read_steps`` rows (one per step and retrieved chunk) into steps."""
    steps: dict[str, TraceStep] = {}
    for r in records:
        s: dict[str, Any] = r["step"]
        step = steps.get(s["id"])
        if step is None:
            step = steps[s["id"]] = TraceStep(
                id=str(s["id"]),
                round=int(s.get("round") or 0),
                queries=[str(q) for q in s.get("queries") or []],
                sub_query=str(s.get("sub_query") or ""),
                draft_answer=str(s.get("draft_answer") or ""),
                sufficiency=str(s.get("sufficiency") or ""),
                confidence=_float(s.get("confidence")),
                missing=str(s.get("missing") or ""),
                cue=str(s.get("cue") or ""),
                probes=[str(p) for p in s.get("probes") or []],
                expanded=[str(e) for e in s.get("expanded") or []],
                extracted=int(s.get("extracted") or 0),
                store_ms=_float(s.get("store_ms")),
                llm_ms=_float(s.get("llm_ms")),
                tokens=int(s.get("tokens") or 0),
            )
        if r.get("chunk_id") is None:
            continue
        delta = r.get("confidence_delta")
        step.candidates.append(
            TraceCandidate(
                rank=int(r.get("rank") or 0),
                chunk_id=str(r["chunk_id"]),
                title=str(r.get("title") or ""),
                text=shorten(str(r.get("text") or "")),
                score=_float(r.get("score")),
                sources=[str(x) for x in r.get("sources") or []],
                verdict=None if r.get("verdict") is None else str(r["verdict"]),
                reason=str(r.get("reason") or ""),
                confidence_delta=None if delta is None else float(delta),
            )
        )
    ordered = sorted(steps.values(), key=lambda st: st.round)
    for step in ordered:
        step.candidates.sort(key=lambda c: c.rank)
    return ordered


def _citations(chunk_ids: list[Any], cited: list[dict[str, Any]]) -> list[TraceCitation]:
    """Citations in the decision's order, with titles and text where the chunk still exists."""
    found = {str(c["chunk_id"]): c for c in cited if c and c.get("chunk_id") is not None}
    out: list[TraceCitation] = []
    for rank, cid in enumerate(chunk_ids, 1):
        c = found.get(str(cid), {})
        out.append(
            TraceCitation(
                rank=rank,
                chunk_id=str(cid),
                title=str(c.get("title") or ""),
                text=shorten(str(c.get("text") or "")),
            )
        )
    return out


def shorten(text: str, limit: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _float(value: Any) -> float:
    return 0.0 if value is None else float(value)
