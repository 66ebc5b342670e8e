"""Progress and summary tables for the command line (rich).

In a terminal, progress is a rich bar per stage with its total, elapsed time and an
estimate of the time left. Anywhere else (CI, ``nohup``, a log file) it is one plain line
per stage when it starts and ends, and every ``LINE_INTERVAL`` seconds in between.
Consoles that do not write to a terminal never wrap lines: a piped table or path stays
whole.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

if TYPE_CHECKING:
    from graphmind.ingest.options import BuildReport

LINE_INTERVAL = 10.0  # seconds between plain progress lines of one stage
PIPED_WIDTH = 10_000  # "no wrap": rich needs a width; tables only take what they need
MAX_LISTED = 50  # failures listed in the text summary (--json lists every one)


def make_console(*, stderr: bool = False, file: TextIO | None = None) -> Console:
    """A console that wraps to the terminal's width, or never wraps when piped."""
    probe = Console(stderr=stderr, file=file)
    if probe.is_terminal:
        return probe
    return Console(stderr=stderr, file=file, width=PIPED_WIDTH, soft_wrap=True)


class _Context:
    """``with progress:`` starts and stops the display."""

    def _begin(self) -> None:
        return None

    def _end(self) -> None:
        return None

    def __enter__(self) -> Self:
        self._begin()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._end()


class RichProgress(_Context):
    """One bar per stage, with its total and the time left; starting a stage again
    starts it over with the new total."""

    def __init__(self, console: Console, *, enabled: bool = True) -> None:
        self._bars = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<12}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            disable=not enabled,
            transient=False,
        )
        self._tasks: dict[str, TaskID] = {}

    def start(self, stage: str, total: int | None) -> None:
        task = self._tasks.get(stage)
        if task is None:
            self._tasks[stage] = self._bars.add_task(stage, total=total)
        else:
            self._bars.reset(task, total=total)

    def advance(self, stage: str, amount: int = 1) -> None:
        if stage not in self._tasks:
            self.start(stage, None)
        task = self._tasks[stage]
        bar = self._bars.tasks[task]
        if bar.total is not None and bar.completed + amount > bar.total:
            self._bars.update(task, total=bar.completed + amount)
        self._bars.advance(task, amount)

    def _begin(self) -> None:
        self._bars.start()

    def _end(self) -> None:
        self._bars.stop()


class _Stage:
    def __init__(self, total: int | None) -> None:
        self.total = total
        self.done = 0
        self.started = time.monotonic()
        self.printed = self.started


class LineProgress(_Context):
    """Plain progress lines for logs: a stage's start, its end, and every ``interval``
    seconds in between (with the rate and the time left)."""

    def __init__(
        self, console: Console, *, enabled: bool = True, interval: float = LINE_INTERVAL
    ) -> None:
        self.console = console
        self.enabled = enabled
        self.interval = interval
        self._stages: dict[str, _Stage] = {}

    def start(self, stage: str, total: int | None) -> None:
        self._stages[stage] = _Stage(total)
        if total:  # a stage with nothing to do says nothing
            self._say(stage, "started")

    def advance(self, stage: str, amount: int = 1) -> None:
        state = self._stages.get(stage)
        if state is None:
            state = self._stages[stage] = _Stage(None)
        state.done += amount
        now = time.monotonic()
        if state.total is not None and state.done >= state.total:
            self._say(stage, f"done in {_duration(now - state.started)}")
            state.total = None  # said once
            state.printed = now
        elif now - state.printed >= self.interval:
            state.printed = now
            self._say(stage, self._eta(state, now))

    def _eta(self, state: _Stage, now: float) -> str:
        elapsed = now - state.started
        rate = state.done / elapsed if elapsed > 0 else 0.0
        text = f"{_duration(elapsed)} elapsed, {rate:.1f}/s"
        if state.total and rate > 0:
            text += f", about {_duration((state.total - state.done) / rate)} left"
        return text

    def _say(self, stage: str, what: str) -> None:
        if not self.enabled:
            return
        state = self._stages[stage]
        of = f"/{state.total}" if state.total is not None else ""
        self.console.print(f"{stage}: {state.done}{of} {what}", highlight=False, markup=False)


def make_progress(console: Console, *, enabled: bool = True) -> RichProgress | LineProgress:
    """Bars in a terminal, plain lines elsewhere."""
    if console.is_terminal:
        return RichProgress(console, enabled=enabled)
    return LineProgress(console, enabled=enabled)


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


def _short(source: str) -> str:
    """A source path relative to the working directory when it is under it."""
    path, sep, key = source.partition("#")
    try:
        rel = str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        rel = path
    return rel + sep + key


def print_build_report(console: Console, report: BuildReport) -> None:
    """The summary after ``graphmind build``."""
    table = Table(title="build summary", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    rows: list[tuple[str, Any]] = [
        ("extraction", report.extraction or "none"),
        ("documents new", report.documents_new),
        ("documents changed", report.documents_changed),
        ("documents skipped (unchanged)", report.documents_skipped),
    ]
    if report.documents_elsewhere:
        rows.append(("documents written by another build", report.documents_elsewhere))
    if report.interrupted:
        rows.append(("documents not reached (interrupted)", report.documents_not_reached))
    rows += [
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
    if report.counts:
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
    for note in report.notes[:MAX_LISTED]:
        console.print(f"[dim]note:[/] {_short(note.source)}: {note.reason}", highlight=False)
    print_failures(console, report)
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)


def print_failures(console: Console, report: BuildReport) -> None:
    """``N not read:`` and one line per file or entry with the reason."""
    failures = report.load_failures
    if not failures:
        return
    names = ", ".join(Path(f.source.partition("#")[0]).name for f in failures[:5])
    more = f", … ({len(failures) - 5} more)" if len(failures) > 5 else ""
    console.print(f"[yellow]{len(failures)} not read:[/] {names}{more}", highlight=False)
    for failure in failures[:MAX_LISTED]:
        console.print(f"  {_short(failure.source)}: {failure.reason}", highlight=False)
    if len(failures) > MAX_LISTED:
        console.print(
            f"  … and {len(failures) - MAX_LISTED} more (--json lists every one)", highlight=False
        )


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
    if stats.get("scope") == "local":
        table.add_row("joined", f"{stats.get('joined')} new entities, to existing communities")
        table.add_row("recomputed", f"around the change: {stats.get('region')} entities")
    table.add_row("PageRank", str(stats.get("pagerank")))
    for level, count in sorted(levels.items()):
        table.add_row(f"level {level}", str(count))
    if stats.get("modularity") is not None:
        where = " of the region" if stats.get("scope") == "local" else ""
        table.add_row(f"modularity (level 0{where})", f"{stats['modularity']:.3f}")
    table.add_row(
        "new / unchanged / removed",
        f"{stats.get('new')} / {stats.get('unchanged')} / {stats.get('deleted')}",
    )
    table.add_row(
        "summaries (LLM / failed)", f"{stats.get('summarised')} / {stats.get('summary_failures')}"
    )
    table.add_row("seconds", f"{(stats.get('seconds') or {}).get('total', 0.0):.2f}")
    console.print(table)
