"""The ``graphmind`` command line: parses options, calls the API, prints results."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import click

from graphmind import __version__
from graphmind.ask.options import AskOptions, Mode, PolicyName, Scope
from graphmind.cli_common import choice, err, given, json_flag, knob, loop_knobs, out
from graphmind.communities.pipeline import CommunityOptions
from graphmind.config import Settings, load_settings
from graphmind.core.errors import GraphMindError, InterruptedBuildError
from graphmind.factories import open_store
from graphmind.ingest.loaders import LoadOptions
from graphmind.ingest.options import BuildOptions, ExtractChoice, Layer, ResolveMode
from graphmind.memory.prune import PruneOptions
from graphmind.memory.session import MemoryMode, MemoryOptions
from graphmind.serve import DEFAULT_HOST, DEFAULT_PORT

_ARGS = "graphmind.args"


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
    help="'llm': entities and relations by the LLM, a call a chunk; 'fast': by spaCy, "
    "no LLM; 'none': a chunk-only (vector RAG) index; 'auto': llm with an endpoint, "
    "fast with the offline models (about 80x quicker on a CPU).",
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
    extract: ExtractChoice | None,
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


def _register_commands() -> None:
    from graphmind import cli_communities, cli_cypher, cli_doctor, cli_documents, cli_eval

    cli_doctor.register(main)
    cli_cypher.register(main)
    cli_eval.register(main)
    cli_communities.register(main)
    cli_documents.register(main, out)


_register_commands()

if __name__ == "__main__":
    main()
