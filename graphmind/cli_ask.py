"""How ``graphmind ask`` prints a decision and, with ``--trace``, each round."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.table import Table

from graphmind.core.decision import Decision, Round
from graphmind.memory.decisions import shorten

GRADE_STYLE = {"EXACT": "green", "INFERRABLE": "cyan", "PARTIAL": "yellow", "NONE": "red"}


def print_round(console: Console, r: Round) -> None:
    """One round: its queries, candidates with verdicts, grade and gap."""
    j = r.judgement
    table = Table(
        "#",
        "document",
        "passage",
        "found by",
        "verdict",
        "reason",
        "Δ",
        title=f"round {r.number}: " + " | ".join(r.queries),
    )
    for number, c in enumerate(r.candidates, start=1):
        v = r.verdict_of(c.id)
        verdict = (
            "-"
            if v is None
            else (f"[green]{v.verdict}[/]" if v.verdict == "used" else f"[red]{v.verdict}[/]")
        )
        table.add_row(
            str(number),
            c.title,
            shorten(c.text, 70),
            ", ".join(c.sources),
            verdict,
            "" if v is None else v.reason,
            "" if v is None else f"{v.confidence_delta:+.2f}",
        )
    console.print(table)
    style = GRADE_STYLE.get(j.sufficiency.value, "white")
    console.print(
        f"  grade [{style}]{j.sufficiency.value}[/] (confidence {j.confidence:.2f}); "
        f"draft: {j.draft_answer or '-'}",
        highlight=False,
    )
    if j.missing:
        console.print(f"  missing: {j.missing}", highlight=False)
    if r.expanded or r.extracted:
        console.print(
            f"  graph: {len(r.expanded)} chunks by expansion, {r.extracted} triplets extracted",
            highlight=False,
        )


def print_decision(console: Console, d: Decision) -> None:
    """The answer, its citations, grade and decision id."""
    style = GRADE_STYLE.get(d.sufficiency.value, "white")
    console.print(f"[bold]{d.answer}[/]", highlight=False)
    for number, c in enumerate(d.citations, start=1):
        console.print(
            f"  [{number}] {c.title} ({c.chunk_id}): {shorten(c.text, 100)}", highlight=False
        )
    console.print(
        f"grade [{style}]{d.sufficiency.value}[/], confidence {d.confidence:.2f}, "
        f"{len(d.rounds)} round(s), {d.tokens} tokens, {d.latency_ms / 1000:.1f}s "
        f"(LLM {d.llm_ms / 1000:.1f}s, store {d.store_ms / 1000:.1f}s)",
        highlight=False,
    )
    rv = d.retrieval
    if rv.memory != "off":
        console.print(
            f"memory {rv.memory}: {rv.profiled}/{rv.judged} candidates with an evidence profile, "
            f"{len(rv.excluded)} excluded by the planner, retrieval {rv.config}"
            + (" (exploring)" if rv.explored else ""),
            style="dim",
            highlight=False,
        )
    console.print(f"decision {d.id}  (graphmind trace {d.id})", style="dim", highlight=False)
    console.print(
        f"feedback: graphmind feedback {d.id} --correct | --incorrect | --gold ANSWER",
        style="dim",
        highlight=False,
    )


def decision_as_dict(d: Decision) -> dict[str, Any]:
    """The decision as JSON-ready data."""
    data = asdict(d)
    data["sufficiency"] = d.sufficiency.value
    data["retrieval"].pop("query_vector", None)
    data["retrieval"]["coverage"] = d.retrieval.coverage
    for row, r in zip(data["rounds"], d.rounds, strict=True):
        row["judgement"] = r.judgement.model_dump(mode="json")
    return data
