"""Progress bars and summary tables for the command line (rich)."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Self

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from graphmind.build.pipeline import BuildReport


class RichProgress:
    """One bar per stage; a stage started again adds to its total."""

    def __init__(self, console: Console, *, enabled: bool = True) -> None:
        self._bars = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<12}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            disable=not enabled,
            transient=False,
        )
        self._tasks: dict[str, TaskID] = {}

    def start(self, stage: str, total: int | None) -> None:
        task = self._tasks.get(stage)
        if task is None:
            self._tasks[stage] = self._bars.add_task(stage, total=total)
        elif total is not None:
            current = self._bars.tasks[task].total or 0
            self._bars.update(task, total=current + total)

    def advance(self, stage: str, amount: int = 1) -> None:
        if stage not in self._tasks:
            self.start(stage, None)
        task = self._tasks[stage]
        bar = self._bars.tasks[task]
        if bar.total is not None and bar.completed + amount > bar.total:
            self._bars.update(task, total=bar.completed + amount)
        self._bars.advance(task, amount)

    def __enter__(self) -> Self:
        self._bars.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._bars.stop()


def print_build_report(console: Console, report: BuildReport) -> None:
    """The summary after ``graphmind build``."""
    table = Table(title="build summary", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    rows: list[tuple[str, Any]] = [
        ("documents new", report.documents_new),
        ("documents changed", report.documents_changed),
        ("documents skipped (unchanged)", report.documents_skipped),
        ("files or entries not read", len(report.load_failures)),
        ("chunks written", report.chunks_written),
        ("chunks with failed extraction", report.chunks_failed),
        ("chunks with nothing extracted", report.chunks_empty),
        ("texts embedded", report.embedded_texts),
        ("SAME_AS links / merges", f"{report.same_as_links} / {report.entities_merged}"),
        ("orphans removed", report.orphans_deleted),
    ]
    for label, count in report.counts.items():
        rows.append((f"{label} nodes in store", count))
    rows.append(("relationships in store", report.relationships))
    for label, value in rows:
        table.add_row(label, str(value))
    console.print(table)
    _print_ledger(console, report.llm)
    stages = Table("stage", "seconds", title="time")
    for stage, seconds in report.seconds.items():
        stages.add_row(stage, f"{seconds:.2f}")
    console.print(stages)
    if report.communities:
        print_community_stats(console, report.communities)
    if report.episodes:
        e = report.episodes
        console.print(
            f"episodes: {e['episodes']} over {e['documents']} documents "
            f"({e['new']} new, {e['unchanged']} unchanged, {e['deleted']} removed; "
            f"{e['summarised']} LLM summaries, {e['fallbacks']} extractive)"
        )
    for failure in report.load_failures[:20]:
        console.print(f"[yellow]not read:[/] {failure.source}: {failure.reason}", highlight=False)
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)


def _print_ledger(console: Console, ledger: dict[str, Any]) -> None:
    tasks = ledger.get("tasks") if ledger else None
    if not tasks:
        return
    table = Table(
        "LLM task",
        "calls",
        "cache hits",
        "prompt tokens",
        "completion tokens",
        "failures",
        "seconds",
        title="LLM ledger",
    )
    for name, row in tasks.items():
        table.add_row(
            name,
            str(row.get("calls", 0)),
            str(row.get("cache_hits", 0)),
            str(row.get("prompt_tokens", 0)),
            str(row.get("completion_tokens", 0)),
            str(row.get("failures", 0)),
            f"{row.get('seconds', 0.0):.1f}",
        )
    console.print(table)


def print_community_stats(console: Console, stats: dict[str, Any]) -> None:
    """What the community stage did."""
    table = Table(title="communities", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    levels = stats.get("levels") or {}
    table.add_row("algorithm", str(stats.get("algorithm")))
    table.add_row("PageRank", str(stats.get("pagerank")))
    for level, count in sorted(levels.items()):
        table.add_row(f"level {level}", str(count))
    if stats.get("modularity") is not None:
        table.add_row("modularity (level 0)", f"{stats['modularity']:.3f}")
    table.add_row(
        "new / unchanged / removed",
        f"{stats.get('new')} / {stats.get('unchanged')} / {stats.get('deleted')}",
    )
    table.add_row(
        "summaries (LLM / failed)", f"{stats.get('summarised')} / {stats.get('summary_failures')}"
    )
    table.add_row("seconds", f"{(stats.get('seconds') or {}).get('total', 0.0):.2f}")
    console.print(table)
