"""The reasoning graph: write each answer's decision, steps and verdicts; read them back.

One decision is written by one named query (``memory/write_decision``), so it is atomic
on both stores: either the decision with all its steps and edges is in the graph, or
nothing of it is, and the evidence stats of the chunks it judged (``memory.stats``) count
it in the same write.
"""

from __future__ import annotations

from typing import Any

from graphmind.core.decision import DECISION, Decision, Round, full_answer
from graphmind.core.ids import digest
from graphmind.memory import stats
from graphmind.memory.querytypes import type_label
from graphmind.store.base import GraphStore, Row

TOP_RELEVANT = 5  # used chunks listed on the RETRIEVED_VIA edge

# Decision node properties read back as the model's fields of the same name
_DECISION_PROPS = (
    "id",
    "question",
    "answer",
    "abstained",
    "sufficiency",
    "confidence",
    "outcome",
    "mode",
    "model",
    "temporal",
    "tokens",
    "latency_ms",
    "store_ms",
    "llm_ms",
    "created_at",
    "cues",
)
# RETRIEVED_VIA properties read back into ``Decision.retrieval``
_RETRIEVAL_PROPS = (
    "config",
    "filters",
    "explored",
    "excluded",
    "candidates_pre",
    "candidates_post",
    "judged",
    "profiled",
    "latency_ms",
)
_STEP_PROPS = ("queries", "expanded", "extracted", "store_ms", "llm_ms", "tokens")
_JUDGEMENT_PROPS = ("draft_answer", "sufficiency", "confidence", "missing", "cue", "probes")


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
    first = len(citations) + 1  # the full answer's own sources are numbered after them
    sources = [{"chunk": c.chunk_id, "rank": i} for i, c in enumerate(decision.sources, first)]
    chunk_ids = {r["chunk"] for s in steps for r in s["retrieved"]}
    chunk_ids.update(c["chunk"] for c in citations + sources)
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
        "sources": sources,
        "full_answer": full_answer(decision),
        "explanation": [s.text for s in decision.explanation],
        "explanation_chunks": [" ".join(s.chunks) for s in decision.explanation],
        "chunk_ids": sorted(chunk_ids),
        "communities": [
            {
                "community": c.id,
                "verdict": c.verdict,
                "reason": c.reason,
                "score": float(c.score),
            }
            for c in decision.communities
        ],
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


def read_decision(store: GraphStore, decision_id: str) -> Decision | None:
    """The decision read back from the graph, or None for an unknown id.

    It validates into the model the writer was given: equal to it but for the fields
    ``core.decision`` marks as not stored, the verdicts on candidates no longer stored
    (or repeated), and ``stored`` (the agent and the query type as they are now).
    """
    found = store.run("memory/read_decision", {"id": decision_id})
    if not found:
        return None
    head = found[0]
    d: dict[str, Any] = head["decision"]
    via: dict[str, Any] = head.get("retrieval") or {}
    data = {
        "cues": [],
        **_present(d, _DECISION_PROPS),
        "rounds": _rounds(store.run("memory/read_steps", {"id": decision_id})),
        "citations": _citations(d.get("citations") or [], head["cited"] or []),
        "sources": _citations(d.get("sources") or [], head["cited"] or []),
        "explanation": [
            {"text": text, "chunks": chunks.split()}
            for text, chunks in zip(
                d.get("explanation") or [], d.get("explanation_chunks") or [], strict=False
            )
        ],
        "communities": [
            {**r, "title": r["title"] or "", "reason": r["reason"] or "", "level": r["level"] or 0}
            for r in store.run("memory/read_communities", {"id": decision_id})
        ],
        "retrieval": {
            **_present(via, _RETRIEVAL_PROPS),
            **_present(d, ("memory", "query_type")),
        },
        "stored": {
            "agent": None
            if head.get("agent_id") is None
            else {
                "id": head["agent_id"],
                "model": head.get("agent_model") or "",
                "prompt_version": head.get("prompt_version") or "",
            },
            "query_type_label": head.get("query_type_label") or "",
            "query_type_size": head.get("query_type_size") or 0,
        },
    }
    return DECISION.validate_python(data)


def list_decisions(store: GraphStore, limit: int = 20) -> list[dict[str, Any]]:
    """The ``limit`` latest decisions: id, question, answer, sufficiency, outcome, created_at."""
    return store.run("memory/list_decisions", {"limit": int(limit)})


def _present(props: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The named properties that are set (a missing one takes the model's default)."""
    return {k: props[k] for k in names if props.get(k) is not None}


def _rounds(records: list[Row]) -> list[dict[str, Any]]:
    """Rounds from ``memory/read_steps`` rows (one per step and retrieved chunk, in round
    and rank order): the candidates still stored, and the verdicts on them renumbered."""
    rounds: dict[str, dict[str, Any]] = {}
    for r in records:
        s: dict[str, Any] = r["step"]
        rnd = rounds.get(s["id"])
        if rnd is None:
            rnd = rounds[s["id"]] = {
                "number": s.get("round") or 0,
                "queries": [],
                **_present(s, _STEP_PROPS),
                "candidates": [],
                "judgement": {**_present(s, _JUDGEMENT_PROPS), "verdicts": []},
            }
        if r.get("chunk_id") is None:
            continue
        rnd["candidates"].append(
            {
                "id": r["chunk_id"],
                "text": r.get("text") or "",
                "title": r.get("title") or "",
                "score": r.get("score") or 0.0,
                "sources": r.get("sources") or [],
            }
        )
        if r.get("verdict") is not None:
            rnd["judgement"]["verdicts"].append(
                {
                    "ref": len(rnd["candidates"]),
                    "verdict": r["verdict"],
                    "reason": r.get("reason") or "",
                    "confidence_delta": r.get("confidence_delta") or 0.0,
                }
            )
    return sorted(rounds.values(), key=lambda rnd: int(rnd["number"]))


def _citations(chunk_ids: list[Any], cited: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Citations in the decision's order, with titles and text where the chunk still exists."""
    found = {str(c["chunk_id"]): c for c in cited if c and c.get("chunk_id") is not None}
    return [
        {
            "chunk_id": str(cid),
            "title": found.get(str(cid), {}).get("title") or "",
            "text": found.get(str(cid), {}).get("text") or "",
        }
        for cid in chunk_ids
    ]
