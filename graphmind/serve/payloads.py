"""The JSON the server sends for an answer and for each finished round of the loop."""

from __future__ import annotations

from typing import Any

from graphmind.core.decision import Decision, Round, both_answers


def answer_payload(d: Decision, place: int = 0) -> dict[str, Any]:
    """The decision's answer, grade and cited passages (``POST /ask``, the ``answer``
    event); ``queue_position``: the place in line the ask first had (0: ran at once)."""
    return {
        "decision_id": d.id,
        "question": d.question,
        **both_answers(d),
        "abstained": d.abstained,
        "grade": d.sufficiency.value,
        "confidence": d.confidence,
        "rounds": len(d.rounds),
        "model": d.model,
        "tokens": d.tokens,
        "latency_ms": round(d.latency_ms, 1),
        "queue_position": place,
        "trace": f"/decisions/{d.id}",
    }


def round_events(r: Round) -> list[tuple[str, dict[str, Any]]]:
    """A finished round as the stream's events, in order: ``round`` (its queries),
    ``passages`` (what was retrieved), ``verdicts`` (the judge's, with the draft answer
    and grade) and, when the check names one, ``gap`` (what is still missing)."""
    passages = [
        {
            "ref": n,
            "chunk_id": c.id,
            "title": c.title,
            "text": c.text,
            "score": round(c.score, 6),
            "found_by": c.sources,
        }
        for n, c in enumerate(r.candidates, start=1)
    ]
    j = r.judgement
    verdicts = [
        {
            "ref": v.ref,
            "chunk_id": r.candidates[v.ref - 1].id if v.ref <= len(r.candidates) else None,
            "verdict": v.verdict,
            "reason": v.reason,
        }
        for v in j.verdicts
    ]
    events: list[tuple[str, dict[str, Any]]] = [
        ("round", {"round": r.number, "queries": r.queries}),
        ("passages", {"round": r.number, "passages": passages}),
        (
            "verdicts",
            {
                "round": r.number,
                "verdicts": verdicts,
                "draft_answer": j.draft_answer,
                "grade": j.sufficiency.value,
                "confidence": j.confidence,
            },
        ),
    ]
    if j.missing:
        events.append(("gap", {"round": r.number, "missing": j.missing}))
    return events
