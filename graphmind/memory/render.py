"""How a decision is shown: one renderer for ``graphmind ask`` (its answer, and with
``--trace`` each round as it ends), ``graphmind trace DECISION_ID`` and their ``--json``.

Everything renders the one decision model (``core.decision``), live from the loop or read
back from the graph. Text from the graph or a model is always wrapped in
:class:`rich.text.Text`, so brackets in a question or a chunk are never read as markup.
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

from graphmind.core.decision import Decision, Round, full_answer, numbered_sources

SNIPPET_CHARS = 300
# the one colour table for grades, verdicts and outcomes
GRADE_STYLES = {
    "EXACT": "bold green",
    "INFERRABLE": "green",
    "PARTIAL": "yellow",
    "NONE": "red",
}
VERDICT_STYLES = {"used": "bold green", "rejected": "red"}
OUTCOME_STYLES = {"correct": "green", "incorrect": "red", "pending": "yellow"}


def render_trace(decision: Decision) -> list[RenderableType]:
    """The header, one panel per round, and the citations, in printing order."""
    shown = [_header(decision), *(round_panel(r) for r in decision.rounds)]
    if decision.communities:
        shown.append(_communities(decision))
    return [*shown, _citations(decision)]


def print_trace(decision: Decision, console: Console) -> None:
    """Print ``render_trace(decision)`` to ``console``."""
    for renderable in render_trace(decision):
        console.print(renderable)


def print_round(console: Console, rnd: Round) -> None:
    """One round as it ends (``graphmind ask --trace``): the panel ``trace`` shows."""
    console.print(round_panel(rnd))


def print_decision(console: Console, d: Decision) -> None:
    """``graphmind ask``'s answer: the short answer, the full answer with its markers, the
    passages they number, grade and decision id; a broad answer's full answer (it has no
    short one) and the communities it read."""
    if d.mode != "broad" or not d.explanation:
        console.print(Text(d.answer, style="bold"))
    if d.explanation:
        console.print(Text(full_answer(d), style="bold" if d.mode == "broad" else ""))
    for number, c in enumerate(numbered_sources(d), start=1):
        console.print(Text(f"  [{number}] {c.title} ({c.chunk_id}): {shorten(c.text, 100)}"))
    if d.communities:
        console.print(Text(f"broad question: {len(d.communities)} communities read", style="dim"))
    for co in d.communities:
        console.print(
            Text.assemble(
                "  ",
                Text(co.verdict, style=VERDICT_STYLES.get(co.verdict, "")),
                f" {co.title} (level {co.level}): {shorten(co.reason, 100)}",
            )
        )
    console.print(
        Text.assemble(
            "grade ",
            _grade(d.sufficiency),
            f", confidence {d.confidence:.2f}, {len(d.rounds)} round(s), {d.tokens} tokens, "
            f"{d.latency_ms / 1000:.1f}s (LLM {d.llm_ms / 1000:.1f}s, "
            f"store {d.store_ms / 1000:.1f}s)",
        )
    )
    rv = d.retrieval
    if rv.memory != "off":
        console.print(
            Text(
                f"memory {rv.memory}: {rv.profiled}/{rv.judged} candidates with an evidence "
                f"profile, {len(rv.excluded)} excluded by the planner, retrieval {rv.config}"
                + (" (exploring)" if rv.explored else ""),
                style="dim",
            )
        )
    console.print(Text(f"decision {d.id}  (graphmind trace {d.id})", style="dim"))
    console.print(
        Text(f"feedback: graphmind feedback {d.id} --correct | --incorrect | --gold ANSWER"),
        style="dim",
    )


def decision_as_dict(d: Decision) -> dict[str, Any]:
    """The decision as JSON-ready data (``ask --json``, ``trace --json``, the MCP trace)."""
    data = asdict(d)
    data["full_answer"] = full_answer(d)
    data["sufficiency"] = d.sufficiency.value
    data["retrieval"].pop("query_vector", None)
    data["retrieval"]["coverage"] = d.retrieval.coverage
    for row, r in zip(data["rounds"], d.rounds, strict=True):
        row["judgement"] = r.judgement.model_dump(mode="json")
    return data


def shorten(text: str, limit: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _header(d: Decision) -> RenderableType:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    answer = Text(d.answer or "(no answer)")
    if d.abstained:
        answer.append("  (abstained)", style="yellow")
    grid.add_row("question", Text(d.question))
    grid.add_row("answer", answer)
    if d.explanation:
        grid.add_row("full answer", Text(full_answer(d)))
    temporal = Text("   temporal", style="magenta") if d.temporal else Text("")
    grid.add_row(
        "grade", Text.assemble(_grade(d.sufficiency), f"   confidence {d.confidence:.2f}", temporal)
    )
    grid.add_row("decision", Text(d.id))
    grid.add_row(
        "rounds",
        Text(
            f"{len(d.rounds)}   tokens {d.tokens}   latency {_ms(d.latency_ms)} "
            f"(store {_ms(d.store_ms)}, LLM {_ms(d.llm_ms)})"
        ),
    )
    grid.add_row("outcome", Text(d.outcome, style=OUTCOME_STYLES.get(d.outcome, "")))
    who = f"{d.model}, mode {d.mode}" if d.mode else d.model
    stored = d.stored
    if stored is not None and stored.agent is not None:
        who += f", prompt {stored.agent.prompt_version}"
    grid.add_row("agent", Text(who))
    if d.created_at:
        grid.add_row("created", Text(_when(d.created_at)))
    rv = d.retrieval
    if rv.query_type:
        label, size = (stored.query_type_label, stored.query_type_size) if stored else ("", 0)
        grid.add_row("query type", Text(f"{label} ({rv.query_type[:12]}, {size} question(s))"))
        explored = ", explored" if rv.explored else ""
        grid.add_row(
            "memory",
            Text(
                f"{rv.memory}; {rv.filters}{explored}\n"
                f"funnel: {rv.candidates_pre} fused → {len(rv.excluded)} excluded by the planner "
                f"→ {rv.candidates_post} judged; {rv.profiled}/{rv.judged} shown with a profile"
            ),
        )
    if d.cues:
        grid.add_row("cues", Text("\n".join(f"• {c}" for c in d.cues)))
    return Panel(grid, title="Decision", title_align="left", border_style="cyan", expand=False)


def round_panel(rnd: Round) -> RenderableType:
    """One round: its queries, candidates with the verdicts they got, grade and gap."""
    j = rnd.judgement
    queries = Text()
    for i, query in enumerate(rnd.queries):
        if i:
            queries.append("\n")
        queries.append("query ", style="bold")
        queries.append(query)
    table = Table(box=box.SIMPLE_HEAD, expand=False, show_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("document", max_width=30)
    table.add_column("text", max_width=80)
    table.add_column("sources", max_width=30)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("reason", max_width=48)
    table.add_column("Δconf", justify="right", no_wrap=True)
    for rank, c in enumerate(rnd.candidates, start=1):
        v = rnd.verdict_of(c.id)
        table.add_row(
            str(rank),
            Text(c.title or c.id),
            Text(shorten(c.text)),
            Text(", ".join(c.sources)),
            f"{c.score:.3f}",
            Text("—", style="dim")
            if v is None
            else Text(v.verdict, style=VERDICT_STYLES.get(v.verdict, "")),
            Text("" if v is None else v.reason),
            Text("")
            if v is None
            else Text(f"{v.confidence_delta:+.2f}", style=_delta_style(v.confidence_delta)),
        )
    outcome = Table.grid(padding=(0, 2))
    outcome.add_column(style="bold", no_wrap=True)
    outcome.add_column()
    outcome.add_row("draft", Text(j.draft_answer or "(none)"))
    outcome.add_row(
        "grade", Text.assemble(_grade(j.sufficiency), f"   confidence {j.confidence:.2f}")
    )
    if j.missing:
        outcome.add_row("missing", Text(j.missing))
    if j.cue:
        outcome.add_row("cue", Text(j.cue))
    if j.probes:
        outcome.add_row("probes", Text("\n".join(j.probes)))
    if rnd.expanded or rnd.extracted:
        outcome.add_row(
            "evolved",
            Text(f"{len(rnd.expanded)} chunk(s) by expansion, {rnd.extracted} triplet(s)"),
        )
    body: list[RenderableType] = [queries, table, outcome]
    if not rnd.candidates:
        body[1] = Text("no candidates retrieved", style="dim")
    return Panel(
        Group(*body),
        title=f"Round {rnd.number}",
        title_align="left",
        subtitle=f"{rnd.tokens} tokens, store {_ms(rnd.store_ms)}, LLM {_ms(rnd.llm_ms)}",
        subtitle_align="right",
        border_style="blue",
        expand=False,  # as wide as its content: a piped console is 10,000 columns wide
    )


def _communities(d: Decision) -> RenderableType:
    """The communities a broad answer read, with their verdicts and best points."""
    table = Table(title="Communities", title_justify="left", box=box.SIMPLE_HEAD, expand=False)
    table.add_column("community", max_width=40)
    table.add_column("level", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("best point, or why none", max_width=80)
    for co in d.communities:
        table.add_row(
            Text(co.title or co.id),
            str(co.level),
            Text(co.verdict, style=VERDICT_STYLES.get(co.verdict, "")),
            f"{co.score:.2f}",
            Text(co.reason),
        )
    return table


def _citations(d: Decision) -> RenderableType:
    passages = numbered_sources(d)
    if not passages:
        return Text("no citations", style="dim")
    table = Table(title="Citations", title_justify="left", box=box.SIMPLE_HEAD, expand=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("document", max_width=30)
    table.add_column("text", max_width=80)
    table.add_column("chunk", no_wrap=True, style="dim")
    for rank, c in enumerate(passages, start=1):
        title = Text(c.title) if c.title else Text("(chunk no longer stored)", style="dim")
        table.add_row(str(rank), title, Text(shorten(c.text)), Text(c.chunk_id[:12]))
    return table


def _grade(grade: str) -> Text:
    return Text(grade or "?", style=GRADE_STYLES.get(grade, ""))


def _delta_style(delta: float) -> str:
    return "green" if delta > 0 else "red" if delta < 0 else "dim"


def _ms(value: float) -> str:
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def _when(created_at: int) -> str:
    """An epoch timestamp (milliseconds, or seconds when small) as UTC text."""
    seconds = created_at / 1000 if created_at > 10**11 else float(created_at)
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
