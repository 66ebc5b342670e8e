"""A decision trace for people (rich renderables) and for scripts (a JSON-ready dict).

Serves ``graphmind ask --trace`` and ``graphmind trace DECISION_ID``. Text from the
graph is always wrapped in :class:`rich.text.Text`, so brackets in a question or a
chunk are never read as console markup.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from graphmind.memory.decisions import DecisionTrace, TraceStep

GRADE_STYLES = {
    "EXACT": "bold green",
    "INFERRABLE": "green",
    "PARTIAL": "yellow",
    "NONE": "red",
}
VERDICT_STYLES = {"used": "bold green", "rejected": "red"}
OUTCOME_STYLES = {"correct": "green", "incorrect": "red", "pending": "yellow"}


def render_trace(trace: DecisionTrace) -> list[RenderableType]:
    """The header, one panel per round, and the citations, in printing order."""
    return [
        _header(trace),
        *(_round(step) for step in trace.steps),
        _citations(trace),
    ]


def print_trace(trace: DecisionTrace, console: Console) -> None:
    """Print ``render_trace(trace)`` to ``console``."""
    for renderable in render_trace(trace):
        console.print(renderable)


def trace_as_dict(trace: DecisionTrace) -> dict[str, Any]:
    """The trace as plain JSON-ready data (nested dicts and lists)."""
    return asdict(trace)


def _header(trace: DecisionTrace) -> RenderableType:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    answer = Text(trace.answer or "(no answer)")
    if trace.abstained:
        answer.append("  (abstained)", style="yellow")
    grid.add_row("question", Text(trace.question))
    grid.add_row("answer", answer)
    grid.add_row(
        "grade",
        Text.assemble(
            _grade(trace.sufficiency), f"   confidence {trace.confidence:.2f}", _temporal(trace)
        ),
    )
    grid.add_row("decision", Text(trace.id))
    grid.add_row(
        "rounds",
        Text(
            f"{trace.rounds}   tokens {trace.tokens}   latency {_ms(trace.latency_ms)} "
            f"(store {_ms(trace.store_ms)}, LLM {_ms(trace.llm_ms)})"
        ),
    )
    grid.add_row("outcome", Text(trace.outcome, style=OUTCOME_STYLES.get(trace.outcome, "")))
    who = f"{trace.model}, mode {trace.mode}" if trace.mode else trace.model
    if trace.agent is not None:
        who += f", prompt {trace.agent.prompt_version}"
    grid.add_row("agent", Text(who))
    if trace.created_at:
        grid.add_row("created", Text(_when(trace.created_at)))
    rv = trace.retrieval
    if rv is not None:
        grid.add_row(
            "query type",
            Text(f"{rv.query_type_label} ({rv.query_type[:12]}, {rv.query_type_size} question(s))"),
        )
        explored = ", explored" if rv.explored else ""
        grid.add_row(
            "memory",
            Text(
                f"{rv.memory}; {rv.filters}{explored}\n"
                f"funnel: {rv.candidates_pre} fused → {len(rv.excluded)} excluded by the planner "
                f"→ {rv.candidates_post} judged; {rv.profiled}/{rv.judged} shown with a profile"
            ),
        )
    if trace.cues:
        grid.add_row("cues", Text("\n".join(f"• {c}" for c in trace.cues)))
    return Panel(grid, title="Decision", title_align="left", border_style="cyan")


def _round(step: TraceStep) -> RenderableType:
    queries = Text()
    for i, query in enumerate(step.queries):
        if i:
            queries.append("\n")
        queries.append("query ", style="bold")
        queries.append(query)
    table = Table(box=box.SIMPLE_HEAD, expand=True, show_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("document", ratio=2)
    table.add_column("text", ratio=5)
    table.add_column("sources", ratio=2)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("reason", ratio=3)
    table.add_column("Δconf", justify="right", no_wrap=True)
    for c in step.candidates:
        verdict = (
            Text(c.verdict, style=VERDICT_STYLES.get(c.verdict, ""))
            if c.verdict is not None
            else Text("—", style="dim")
        )
        delta = (
            Text(f"{c.confidence_delta:+.2f}", style=_delta_style(c.confidence_delta))
            if c.confidence_delta is not None
            else Text("")
        )
        table.add_row(
            str(c.rank),
            Text(c.title or c.chunk_id),
            Text(c.text),
            Text(", ".join(c.sources)),
            f"{c.score:.3f}",
            verdict,
            Text(c.reason),
            delta,
        )
    outcome = Table.grid(padding=(0, 2))
    outcome.add_column(style="bold", no_wrap=True)
    outcome.add_column()
    outcome.add_row("draft", Text(step.draft_answer or "(none)"))
    outcome.add_row(
        "grade", Text.assemble(_grade(step.sufficiency), f"   confidence {step.confidence:.2f}")
    )
    if step.missing:
        outcome.add_row("missing", Text(step.missing))
    if step.cue:
        outcome.add_row("cue", Text(step.cue))
    if step.probes:
        outcome.add_row("probes", Text("\n".join(step.probes)))
    if step.expanded or step.extracted:
        outcome.add_row(
            "evolved",
            Text(f"{len(step.expanded)} chunk(s) by expansion, {step.extracted} triplet(s)"),
        )
    body: list[RenderableType] = [queries, table, outcome]
    if not step.candidates:
        body[1] = Text("no candidates retrieved", style="dim")
    subtitle = f"{step.tokens} tokens, store {_ms(step.store_ms)}, LLM {_ms(step.llm_ms)}"
    return Panel(
        Group(*body),
        title=f"Round {step.round}",
        title_align="left",
        subtitle=subtitle,
        subtitle_align="right",
        border_style="blue",
    )


def _citations(trace: DecisionTrace) -> RenderableType:
    if not trace.citations:
        return Text("no citations", style="dim")
    table = Table(title="Citations", title_justify="left", box=box.SIMPLE_HEAD, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("document", ratio=2)
    table.add_column("text", ratio=6)
    table.add_column("chunk", no_wrap=True, style="dim")
    for c in trace.citations:
        title = Text(c.title) if c.title else Text("(chunk no longer stored)", style="dim")
        table.add_row(str(c.rank), title, Text(c.text), Text(c.chunk_id[:12]))
    return table


def _grade(grade: str) -> Text:
    return Text(grade or "?", style=GRADE_STYLES.get(grade, ""))


def _temporal(trace: DecisionTrace) -> Text:
    return Text("   temporal", style="magenta") if trace.temporal else Text("")


def _delta_style(delta: float) -> str:
    return "green" if delta > 0 else "red" if delta < 0 else "dim"


def _ms(value: float) -> str:
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def _when(created_at: int) -> str:
    """An epoch timestamp (milliseconds, or seconds when small) as UTC text."""
    seconds = created_at / 1000 if created_at > 10**11 else float(created_at)
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
