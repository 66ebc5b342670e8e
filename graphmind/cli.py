"""The ``graphmind`` command line: parses options, calls the API, prints results."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.table import Table

from graphmind import __version__
from graphmind.config import Settings, load_settings
from graphmind.doctor import DoctorReport, run_doctor
from graphmind.errors import GraphMindError, QueryFailedError
from graphmind.store import QueryResult, open_store

out = Console()
err = Console(stderr=True)


def _fail(exc: GraphMindError) -> NoReturn:
    err.print(f"[bold red]error:[/] {exc}", highlight=False)
    sys.exit(exc.exit_code)


class _Group(click.Group):
    """Turns GraphMind errors into one red line and an exit code, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except GraphMindError as exc:
            _fail(exc)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="graphmind")
@click.option("--store", "store", help="Store URI (overrides GRAPHMIND_STORE).")
@click.pass_context
def main(ctx: click.Context, store: str | None) -> None:
    """GraphMind: build a knowledge graph from documents and answer questions over it."""
    ctx.obj = _settings_factory(store)


def _settings_factory(store: str | None) -> Callable[[], Settings]:
    return lambda: load_settings(store=store)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
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


@main.command()
@click.argument("file_or_query")
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="A query parameter; VALUE is read as JSON when it parses, else as text.",
)
@click.option("--json", "as_json", is_flag=True, help="Print rows as JSON objects.")
@click.pass_obj
def cypher(
    settings: Callable[[], Settings], file_or_query: str, params: Sequence[str], as_json: bool
) -> None:
    """Run a read-only Cypher query (text or a .cypher file) on the configured store."""
    text = _query_text(file_or_query)
    values = _parse_params(params)
    with open_store(settings()) as store:
        try:
            result = store.run_text(text, values)
        except QueryFailedError as exc:
            if _READ_ONLY.search(str(exc)):
                raise QueryFailedError(f"{exc} (graphmind cypher runs read-only queries)") from exc
            raise
    if as_json:
        click.echo(json.dumps(result.records(), indent=2, default=str))
    else:
        _print_result(result)


_READ_ONLY = re.compile(r"read-only|read access mode|AccessMode", re.IGNORECASE)


def _query_text(file_or_query: str) -> str:
    path = Path(file_or_query)
    if file_or_query.endswith(".cypher") or (len(file_or_query) < 4096 and path.is_file()):
        if not path.is_file():
            raise click.BadParameter(f"no such file: {path}", param_hint="FILE_OR_QUERY")
        return path.read_text(encoding="utf-8")
    return file_or_query


def _parse_params(params: Sequence[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in params:
        name, sep, raw = item.partition("=")
        if not sep or not name.isidentifier():
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint="--param")
        try:
            values[name] = json.loads(raw)
        except json.JSONDecodeError:
            values[name] = raw
    return values


def _print_result(result: QueryResult) -> None:
    table = Table(*result.columns, show_lines=False)
    for row in result.rows:
        table.add_row(*(_cell(v) for v in row))
    out.print(table)
    out.print(f"{len(result.rows)} row(s)", style="dim")


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


def _print_doctor(report: DoctorReport) -> None:
    info = report.store
    overview = Table(show_header=False, box=None)
    overview.add_column(style="bold")
    overview.add_column()
    overview.add_row("store", f"{report.backend} at {report.location}")
    if info is not None:
        overview.add_row("server", f"{info.server_version} ({info.edition})")
        overview.add_row("GDS", info.gds or "no")
        if info.meta:
            overview.add_row(
                "schema",
                f"version {info.meta.get('schema_version')}, embedder "
                f"{info.meta.get('embedder')} (dimension {info.meta.get('dimension')})",
            )
    overview.add_row("embedder", report.embedder)
    overview.add_row("LLM", report.llm)
    for problem in report.problems:
        overview.add_row("[red]problem[/]", problem)
    out.print(overview)
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


if __name__ == "__main__":
    main()
