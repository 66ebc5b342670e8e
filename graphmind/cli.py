"""The ``graphmind`` command line: parses options, calls the API, prints results."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.markup import escape
from rich.table import Table

from graphmind import __version__
from graphmind.ask.options import AskOptions, Mode, PolicyName, Scope
from graphmind.cli_common import choice, err, given, json_flag, knob, loop_knobs, out
from graphmind.communities.pipeline import CommunityOptions
from graphmind.config import Settings, load_settings
from graphmind.core.errors import GraphMindError, InterruptedBuildError, QueryFailedError
from graphmind.doctor import DoctorReport, run_doctor
from graphmind.factories import open_store
from graphmind.ingest.loaders import LoadOptions
from graphmind.ingest.options import BuildOptions, ExtractMode, Layer, ResolveMode
from graphmind.memory.prune import PruneOptions
from graphmind.memory.session import MemoryMode, MemoryOptions
from graphmind.serve import DEFAULT_HOST, DEFAULT_PORT
from graphmind.store import QueryResult
from graphmind.store.base import MAX_READ_ROWS
from graphmind.store.registry import default_root, parameters

_ARGS = "graphmind.args"
CYPHER_ROWS = 1000  # rows `graphmind cypher` prints unless --limit says otherwise


def _fail(exc: GraphMindError) -> NoReturn:
    """One red line, and the exit code the error's class carries (``core.errors``)."""
    err.print(f"[bold red]error:[/] {exc}", highlight=False)
    sys.exit(exc.exit_code)


def _fail_json(message: str, kind: str, exit_code: int) -> NoReturn:
    """An error as JSON on stdout (``--json`` promises JSON there), with its exit code."""
    click.echo(json.dumps({"error": message, "type": kind, "exit_code": exit_code}, indent=2))
    sys.exit(exit_code)


class _Group(click.Group):
    """Turns GraphMind errors into one red line and an exit code, never a traceback; under
    ``--json``, into a JSON object on stdout (usage errors too)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_ARGS] = list(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        args = ctx.meta.get(_ARGS, [])
        as_json = "--json" in args[: args.index("--")] if "--" in args else "--json" in args
        try:
            return super().invoke(ctx)
        except GraphMindError as exc:
            if as_json:
                _fail_json(str(exc), type(exc).__name__, exc.exit_code)
            _fail(exc)
        except click.ClickException as exc:
            if as_json:
                _fail_json(exc.format_message(), type(exc).__name__, exc.exit_code)
            raise


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
                raise QueryFailedError(f"{exc} (graphmind cypher runs read-only queries)") from exc
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


_READ_ONLY = re.compile(r"read-only|read access mode|AccessMode", re.IGNORECASE)


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--include", multiple=True, metavar="GLOB", help="Only files matching (repeatable).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching (repeatable).")
@click.option(
    "--text-field",
    **knob(LoadOptions, "text_field", "build.load"),
    help="JSON field with the text.",
)
@click.option(
    "--title-field",
    **knob(LoadOptions, "title_field", "build.load"),
    help="JSON field with the title.",
)
@click.option(
    "--encoding",
    metavar="NAME",
    callback=lambda _ctx, _param, value: _encoding(value),
    help="Read every text file in this encoding (default: detected; UTF-8 first).",
)
@click.option(
    "--chunk-size",
    type=click.IntRange(min=8),
    help="Tokens per chunk  [default: 512, or what the embedder reads when less; "
    "[build] chunk_size]",
)
@click.option(
    "--chunk-overlap",
    type=click.IntRange(min=0),
    **knob(BuildOptions, "chunk_overlap", "build"),
    help="Tokens shared by neighbours.",
)
@click.option(
    "--extract",
    type=choice(BuildOptions, "extract"),
    **knob(BuildOptions, "extract", "build"),
    help="'fast': entities and relations by spaCy, no LLM; "
    "'none': a chunk-only (vector RAG) index.",
)
@click.option(
    "--resolve",
    type=choice(BuildOptions, "resolve"),
    **knob(BuildOptions, "resolve", "build"),
    help="Near-duplicate entities: SAME_AS links, merge, or nothing.",
)
@click.option(
    "--batch-docs",
    type=click.IntRange(min=1),
    **knob(BuildOptions, "batch_docs", "build"),
    help="Documents per atomic write.",
)
@click.option("--limit", type=click.IntRange(min=1), help="Build only the first N documents.")
@click.option(
    "--communities/--no-communities",
    **knob(BuildOptions, "communities", "build"),
    help="Recompute communities and PageRank when entities changed.",
)
@click.option(
    "--max-community-size",
    type=click.IntRange(min=2),
    **knob(CommunityOptions, "max_size", "communities"),
    help="Communities larger than this are split into a deeper level.",
)
@click.option(
    "--layers",
    type=choice(BuildOptions, "layers"),
    multiple=True,
    help="Optional layers: 'episodic' adds sliding-window narrative summaries  "
    "[default: none; [build] layers]",
)
@click.option(
    "--strict", is_flag=True, help="Exit with status 1 when any file or entry was not built."
)
@json_flag("the summary")
@click.pass_obj
def build(
    settings: Callable[[], Settings],
    paths: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    text_field: str | None,
    title_field: str | None,
    encoding: str | None,
    chunk_size: int | None,
    chunk_overlap: int | None,
    extract: ExtractMode | None,
    resolve: ResolveMode | None,
    batch_docs: int | None,
    limit: int | None,
    communities: bool | None,
    max_community_size: int | None,
    layers: tuple[Layer, ...],
    strict: bool,
    as_json: bool,
) -> None:
    """Build documents (files or folders: txt, md, html, pdf, json, jsonl) into the graph.

    A file or entry that cannot be read or written is named in the summary with the
    reason, and the rest is built; exit status 1 when nothing was built (or, with
    --strict, when anything was not), 130 when interrupted.
    """
    from graphmind import api
    from graphmind.cli_progress import make_progress, print_build_report

    config = settings()
    load = given(
        config.build.load,
        include=tuple(include) or None,
        exclude=tuple(exclude) or None,
        text_field=text_field,
        title_field=title_field,
        encoding=encoding,
    )
    options = given(
        config.build,
        load=load,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        extract=extract,
        resolve=resolve,
        batch_docs=batch_docs,
        limit=limit,
        communities=communities,
        layers=layers or None,
    )
    if options.chunk_size is not None and options.chunk_overlap >= options.chunk_size:
        raise click.BadParameter(
            f"must be less than --chunk-size ({options.chunk_size})", param_hint="--chunk-overlap"
        )
    community = given(config.communities, max_size=max_community_size)
    with make_progress(err, enabled=not as_json) as progress:
        report = api.build(paths, options, config, progress, community_options=community)
    problem = None
    if report.nothing_built:
        problem = report.nothing_built_reason()
    elif strict and report.load_failures:
        problem = f"--strict: {len(report.load_failures)} file(s) or entries not built"
    if as_json:
        data = report.as_dict()
        if problem:
            data["error"] = problem
        click.echo(json.dumps(data, indent=2, default=str))
    else:
        print_build_report(out, report)
    if report.interrupted:
        err.print(
            f"[yellow]interrupted:[/] {report.documents_written} document(s) written, "
            f"{report.documents_not_reached} not reached; run the same command again to resume",
            highlight=False,
        )
        sys.exit(InterruptedBuildError.exit_code)
    if problem:
        if not as_json:
            err.print(f"[bold red]error:[/] {problem}", highlight=False)
        sys.exit(1)


def _encoding(value: str | None) -> str | None:
    from graphmind.core.errors import ConfigError
    from graphmind.ingest.decoding import check_encoding

    if value is None:
        return None
    try:
        check_encoding(value)
    except ConfigError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


@main.command()
@click.argument("question")
@click.option(
    "--mode",
    type=choice(AskOptions, "mode"),
    **knob(AskOptions, "mode", "ask"),
    help="'naive' is the baseline: vector top-k and one answer call. 'judged': the same "
    "passages and one call that judges each (used or rejected, with a reason) and answers; "
    "with --memory it learns from earlier answers (ROZA's vanilla RAG / Ours-RG / Ours-Full).",
)
@loop_knobs(AskOptions, "ask")
@click.option(
    "--memory",
    type=choice(MemoryOptions, "mode"),
    **knob(MemoryOptions, "mode", "ask.memory", "mode"),
    help="What earlier answers contribute: nothing; evidence profiles in the judge's "
    "prompt; profiles plus the planner (exclusions, retrieval configuration).",
)
@click.option(
    "--scope",
    type=choice(AskOptions, "scope"),
    **knob(AskOptions, "scope", "ask"),
    help="'deep': the evidence loop; 'broad': a question about the collection as a whole "
    "(its main themes, what it says across documents), answered from the communities; "
    "'auto': by the question's form.",
)
@click.option(
    "--short",
    is_flag=True,
    help="Only the short answer (a name, date or phrase), without the full answer's call.",
)
@click.option("--trace", "show_trace", is_flag=True, help="Show every round as it happens.")
@json_flag("the decision")
@click.pass_obj
def ask(
    settings: Callable[[], Settings],
    question: str,
    mode: Mode | None,
    max_rounds: int | None,
    k: int | None,
    policy: PolicyName | None,
    memory: MemoryMode | None,
    scope: Scope | None,
    short: bool,
    show_trace: bool,
    as_json: bool,
) -> None:
    """Answer a question from the graph, with citations; the reasoning is recorded in it."""
    from graphmind import api
    from graphmind.memory.render import decision_as_dict, print_decision, print_round

    config = settings()
    options = given(
        config.ask,
        mode=mode,
        max_rounds=max_rounds,
        k=k,
        policy=policy,
        scope=scope,
        memory=given(config.ask.memory, mode=memory),
    )
    if short:
        options = replace(options, explain=False)
    on_round = (lambda r: print_round(err, r)) if show_trace and not as_json else None
    decision = api.ask(question, options, config, on_round)
    if as_json:
        click.echo(json.dumps(decision_as_dict(decision), indent=2, default=str))
    else:
        print_decision(out, decision)


@main.command(name="trace")
@click.argument("decision_id")
@json_flag("the trace")
@click.pass_obj
def trace_command(settings: Callable[[], Settings], decision_id: str, as_json: bool) -> None:
    """Read a past decision back from the graph: rounds, candidates, verdicts, citations."""
    from graphmind import api
    from graphmind.memory.render import decision_as_dict, print_trace

    found = api.trace(decision_id, settings())
    if as_json:
        click.echo(json.dumps(decision_as_dict(found), indent=2, default=str))
    else:
        print_trace(found, out)


@main.command()
@click.argument("decision_id")
@click.option("--correct", "verdict", flag_value="correct", help="The answer was right.")
@click.option("--incorrect", "verdict", flag_value="incorrect", help="The answer was wrong.")
@click.option("--gold", help="The right answer: token F1 >= 0.8 with it counts as correct.")
@json_flag("the result")
@click.pass_obj
def feedback(
    settings: Callable[[], Settings],
    decision_id: str,
    verdict: str | None,
    gold: str | None,
    as_json: bool,
) -> None:
    """Say whether a decision's answer was right; only correct decisions feed the memory."""
    from graphmind import api

    if (verdict is None) == (gold is None):
        raise click.UsageError("give one of --correct, --incorrect or --gold ANSWER")
    correct = None if verdict is None else verdict == "correct"
    result = api.feedback(decision_id, correct=correct, gold=gold, settings=settings())
    if as_json:
        click.echo(json.dumps(result.__dict__, indent=2))
        return
    score = "" if result.f1 is None else f" (token F1 {result.f1:.2f} against the gold answer)"
    change = "unchanged" if result.previous == result.outcome else f"was {result.previous}"
    out.print(
        f"decision {result.decision_id}: [bold]{result.outcome}[/]{score}, {change}",
        highlight=False,
    )


@main.command()
@click.argument("decision_id", required=False)
@click.option("--chunk", "chunk_id", metavar="ID", help="Show a passage's verdict history.")
@click.option("--query-type", "type_id", metavar="ID", help="Show a query type (id or label).")
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path),
    help="HTML file to write (default: beside the store).",
)
@click.option("--open", "open_page", is_flag=True, help="Open the page in the default browser.")
@click.pass_obj
def show(
    settings: Callable[[], Settings],
    decision_id: str | None,
    chunk_id: str | None,
    type_id: str | None,
    output: Path | None,
    open_page: bool,
) -> None:
    """Draw an evidence graph (a decision, a passage or a query type) as an offline HTML page."""
    from graphmind import show as viz

    views: tuple[tuple[viz.ViewKind, str | None], ...] = (
        ("decision", decision_id),
        ("chunk", chunk_id),
        ("query-type", type_id),
    )
    given = [(k, v) for k, v in views if v is not None]
    if len(given) != 1:
        raise click.UsageError("give one of DECISION_ID, --chunk ID or --query-type ID")
    kind, ident = given[0]
    config = settings()
    with open_store(config) as store:
        view = viz.read_view(store, kind, ident)
    path = viz.write_view(view, output or viz.default_path(config.state_dir(), kind, ident))
    err.print(viz.summary(view), style="dim", highlight=False)
    click.echo(str(path))
    if open_page and not viz.open_in_browser(path):
        err.print("[yellow]no browser could be started:[/] open the file yourself", highlight=False)


@main.command(name="mcp")
@click.pass_obj
def mcp_command(settings: Callable[[], Settings]) -> None:
    """Serve GraphMind's tools (ask, search, trace, feedback, audit, doctor) over MCP stdio."""
    from graphmind.mcp_server import serve

    serve(settings)


@main.command(name="serve")
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True)
@click.pass_obj
def serve_command(settings: Callable[[], Settings], host: str, port: int) -> None:
    """Serve the HTTP API, the web page (/) and an OpenAI-compatible chat endpoint.
    Listens on 127.0.0.1 unless told; another address needs GRAPHMIND_SERVE_TOKEN,
    which every writing request (build, delete, feedback) must then send."""
    from graphmind.core.errors import ConfigError

    try:
        from graphmind.serve.app import serve
    except ImportError as exc:
        raise ConfigError(
            f"graphmind serve needs its extra: pip install 'graphmind[serve]' ({exc})"
        ) from exc
    serve(host, port, settings)


@main.command()
@click.option(
    "--keep",
    type=click.IntRange(min=1),
    **knob(PruneOptions, "keep", "prune"),
    help="Evaluations kept per evidence item (the most recent).",
)
@click.option("--dry-run", is_flag=True, help="Only count what would be deleted.")
@json_flag("the result")
@click.pass_obj
def prune(settings: Callable[[], Settings], keep: int | None, dry_run: bool, as_json: bool) -> None:
    """Bound the reasoning graph: keep each evidence item's most recent evaluations."""
    from graphmind import api

    report = api.prune(keep, dry_run=dry_run, settings=settings())
    keep = report.keep
    if as_json:
        click.echo(json.dumps(report.__dict__, indent=2))
        return
    verb = "would delete" if dry_run else "deleted"
    out.print(
        f"{report.items} evidence item(s) had more than {keep} evaluations; "
        f"{verb} {report.deleted} EVALUATED edge(s)",
        highlight=False,
    )


_BUNDLED = re.compile(r"^audit/[a-z_]+$")
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


def _register_commands() -> None:
    from graphmind import cli_communities, cli_documents, cli_eval

    cli_eval.register(main)
    cli_communities.register(main)
    cli_documents.register(main, out)


_register_commands()

if __name__ == "__main__":
    main()
