"""``graphmind cypher``: a read-only query (text, a .cypher file or a bundled audit query)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from graphmind.cli_common import json_flag, out
from graphmind.config import Settings
from graphmind.core.errors import QueryFailedError
from graphmind.factories import open_store
from graphmind.store import QueryResult
from graphmind.store.base import MAX_READ_ROWS
from graphmind.store.registry import default_root, parameters

CYPHER_ROWS = 1000  # rows `graphmind cypher` prints unless --limit says otherwise
_READ_ONLY = re.compile(r"read-only|read access mode|AccessMode", re.IGNORECASE)
_BUNDLED = re.compile(r"^audit/[a-z_]+$")
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def register(main: click.Group) -> None:
    """Add the ``cypher`` command to the command line."""

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
    @json_flag("rows")
    @click.option(
        "--limit",
        type=click.IntRange(min=1, max=MAX_READ_ROWS),
        default=CYPHER_ROWS,
        show_default=True,
        help=f"Print at most this many rows (at most {MAX_READ_ROWS:,}); the rest are not read.",
    )
    @click.pass_obj
    def cypher(
        settings: Callable[[], Settings],
        file_or_query: str,
        params: Sequence[str],
        as_json: bool,
        limit: int,
    ) -> None:
        """Run a read-only Cypher query (text or a .cypher file) on the configured store,
        stopped after GRAPHMIND_QUERY_TIMEOUT seconds."""
        text = _query_text(file_or_query)
        values = _parse_params(params, parameters(text))
        config = settings()
        with open_store(config, shared=True) as store:
            try:
                result = store.run_text(text, values, max_rows=limit, timeout=config.query_timeout)
            except QueryFailedError as exc:
                if _READ_ONLY.search(str(exc)):
                    raise QueryFailedError(
                        f"{exc} (graphmind cypher runs read-only queries)"
                    ) from exc
                raise
        if as_json:
            click.echo(json.dumps(result.records(), indent=2, default=str))
        else:
            _print_result(result)
        if result.more:
            click.echo(
                f"the query has more than {limit} rows; only the first {limit} are shown "
                "(--limit N for more)",
                err=True,
            )


def _query_text(file_or_query: str) -> str:
    """A query's text: a .cypher file, a bundled audit query by name, or the text itself."""
    path = Path(file_or_query)
    if _BUNDLED.match(file_or_query) and not path.is_file():
        bundled = default_root() / f"{file_or_query}.cypher"
        if not bundled.is_file():
            known = ", ".join(f"audit/{p.stem}" for p in sorted(bundled.parent.glob("*.cypher")))
            raise click.BadParameter(
                f"no bundled query {file_or_query!r}; there are: {known}",
                param_hint="FILE_OR_QUERY",
            )
        return bundled.read_text(encoding="utf-8")
    if file_or_query.endswith(".cypher") or (len(file_or_query) < 4096 and path.is_file()):
        if not path.is_file():
            raise click.BadParameter(f"no such file: {path}", param_hint="FILE_OR_QUERY")
        return path.read_text(encoding="utf-8")
    return file_or_query


def _parse_params(params: Sequence[str], used: set[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs: NAME one of the query's own parameters (``used``)."""
    values: dict[str, Any] = {}
    for item in params:
        name, sep, raw = item.partition("=")
        if not sep or not _PARAM_NAME.fullmatch(name):
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint="--param")
        if name not in used:
            takes = ", ".join(f"${p}" for p in sorted(used)) or "no parameters"
            raise click.BadParameter(f"the query takes {takes}, not ${name}", param_hint="--param")
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
