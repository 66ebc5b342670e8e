"""``graphmind doctor``: the store, its schema and indexes, the embedder and the LLM."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import click
from rich.markup import escape
from rich.table import Table

from graphmind.cli_common import json_flag, out
from graphmind.config import Settings
from graphmind.doctor import DoctorReport, run_doctor


def register(main: click.Group) -> None:
    """Add the ``doctor`` command to the command line."""

    @main.command()
    @json_flag("the report")
    @click.pass_obj
    def doctor(settings: Callable[[], Settings], as_json: bool) -> None:
        """Check the store, its schema and indexes, the embedder and the LLM."""
        report = run_doctor(settings())
        if as_json:
            click.echo(json.dumps(report.as_dict(), indent=2, default=str))
        else:
            _print_doctor(report)
        if not report.ok:
            sys.exit(1)


def _print_doctor(report: DoctorReport) -> None:
    info = report.store
    rows = [("store", f"{report.backend} at {report.location}")]
    if report.attached_to is not None:
        rows.append(("shared", f"in use by PID {report.attached_to}: reached through its server"))
    if info is not None:
        rows += [("server", f"{info.server_version} ({info.edition})"), ("GDS", info.gds or "no")]
        if info.meta:
            rows.append(
                (
                    "schema",
                    f"version {info.meta.get('schema_version')}, embedder "
                    f"{info.meta.get('embedder')} (dimension {info.meta.get('dimension')})",
                )
            )
    rows += [("embedder", report.embedder), ("LLM", report.llm)]
    rows += [("problem", problem) for problem in report.problems]
    width = max(len(key) for key, _ in rows)
    for key, value in rows:  # key and value lines, no padding after the value
        style = "bold red" if key == "problem" else "bold"
        pad = " " * (width - len(key))
        out.print(f" [{style}]{key}[/]{pad}  {escape(value)}", highlight=False)
    if info is None:
        return
    indexes = Table("index", "type", "label", "properties", "state", title="indexes")
    for index in sorted(info.indexes, key=lambda i: (i.label, i.kind, i.name)):
        style = "green" if index.state.upper() in ("ONLINE", "OPERATIONAL") else "yellow"
        indexes.add_row(
            index.name,
            index.kind,
            index.label,
            ", ".join(index.properties),
            f"[{style}]{index.state}[/]",
        )
    out.print(indexes)
    counts = Table("label", "nodes", title="counts")
    for label, count in info.counts.items():
        counts.add_row(label, str(count))
    counts.add_row("(relationships)", str(report.relationships))
    out.print(counts)
    if report.communities:
        levels = Table(
            "level", "communities", "mean size", "max size", "algorithm", title="communities"
        )
        for row in report.communities:
            levels.add_row(
                str(row["level"]),
                str(row["communities"]),
                f"{row['mean_size']:.1f}",
                str(row["max_size"]),
                str(row["algorithm"]),
            )
        out.print(levels)
