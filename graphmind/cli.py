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
from graphmind.store.registry import default_root

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


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--include", multiple=True, metavar="GLOB", help="Only files matching (repeatable).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching (repeatable).")
@click.option("--text-field", default="text", show_default=True, help="JSON field with the text.")
@click.option(
    "--title-field", default="title", show_default=True, help="JSON field with the title."
)
@click.option("--chunk-size", default=512, show_default=True, help="Tokens per chunk.")
@click.option("--chunk-overlap", default=64, show_default=True, help="Tokens shared by neighbours.")
@click.option(
    "--extract",
    type=click.Choice(["llm", "none"]),
    default="llm",
    show_default=True,
    help="'none' builds a chunk-only (vector RAG) index, no LLM needed.",
)
@click.option(
    "--resolve",
    type=click.Choice(["link", "merge", "off"]),
    default="link",
    show_default=True,
    help="Near-duplicate entities: SAME_AS links, merge, or nothing.",
)
@click.option("--batch-docs", default=64, show_default=True, help="Documents per atomic write.")
@click.option("--limit", type=int, help="Build only the first N documents.")
@click.option(
    "--communities/--no-communities",
    default=True,
    show_default=True,
    help="Recompute communities and PageRank when entities changed.",
)
@click.option(
    "--max-community-size",
    default=50,
    show_default=True,
    help="Communities larger than this are split into a deeper level.",
)
@click.option(
    "--layers",
    type=click.Choice(["episodic"]),
    multiple=True,
    help="Optional layers: 'episodic' adds sliding-window narrative summaries.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_obj
def build(
    settings: Callable[[], Settings],
    paths: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    text_field: str,
    title_field: str,
    chunk_size: int,
    chunk_overlap: int,
    extract: str,
    resolve: str,
    batch_docs: int,
    limit: int | None,
    communities: bool,
    max_community_size: int,
    layers: Sequence[str],
    as_json: bool,
) -> None:
    """Build documents (files or folders: txt, md, html, pdf, json, jsonl) into the graph."""
    from graphmind import api
    from graphmind.build.loaders import LoadOptions
    from graphmind.build.pipeline import BuildOptions
    from graphmind.cli_progress import RichProgress, print_build_report
    from graphmind.communities.pipeline import CommunityOptions

    if chunk_size < 8 or not 0 <= chunk_overlap < chunk_size:
        raise click.BadParameter("need chunk size >= 8 and 0 <= overlap < chunk size")
    options = BuildOptions(
        load=LoadOptions(include, exclude, text_field, title_field),
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        extract=extract,  # type: ignore[arg-type]
        resolve=resolve,  # type: ignore[arg-type]
        batch_docs=max(1, batch_docs),
        limit=limit,
    )
    with RichProgress(err, enabled=not as_json) as progress:
        report = api.build(
            paths,
            options,
            settings(),
            progress,
            communities=communities,
            community_options=CommunityOptions(max_size=max_community_size),
            layers=layers,
        )
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2, default=str))
    else:
        print_build_report(out, report)
    if report.interrupted:
        err.print("[yellow]interrupted:[/] run the same command again to resume")
        sys.exit(130)


@main.command()
@click.argument("question")
@click.option(
    "--mode",
    type=click.Choice(["loop", "naive"]),
    default="loop",
    show_default=True,
    help="'naive' is the baseline: vector top-k and one answer call.",
)
@click.option("--max-rounds", default=3, show_default=True, help="Rounds of the evidence loop.")
@click.option("--k", "k", default=20, show_default=True, help="Candidate chunks per round.")
@click.option(
    "--memory",
    type=click.Choice(["off", "profiles", "full"]),
    default="full",
    show_default=True,
    help="What earlier answers contribute: nothing; evidence profiles in the judge's "
    "prompt; profiles plus the planner (exclusions, retrieval configuration).",
)
@click.option("--trace", "show_trace", is_flag=True, help="Show every round as it happens.")
@click.option("--json", "as_json", is_flag=True, help="Print the decision as JSON.")
@click.pass_obj
def ask(
    settings: Callable[[], Settings],
    question: str,
    mode: str,
    max_rounds: int,
    k: int,
    memory: str,
    show_trace: bool,
    as_json: bool,
) -> None:
    """Answer a question from the graph, with citations; the reasoning is recorded in it."""
    from graphmind import api
    from graphmind.ask.loop import AskOptions
    from graphmind.cli_ask import decision_as_dict, print_decision, print_round
    from graphmind.memory.session import MemoryOptions

    if max_rounds < 1 or k < 1:
        raise click.BadParameter("--max-rounds and --k must be at least 1")
    options = AskOptions(
        mode=mode,  # type: ignore[arg-type]
        max_rounds=max_rounds,
        k=k,
        memory=MemoryOptions(mode=memory),  # type: ignore[arg-type]
    )
    on_round = (lambda r: print_round(err, r)) if show_trace and not as_json else None
    decision = api.ask(question, options, settings(), on_round)
    if as_json:
        click.echo(json.dumps(decision_as_dict(decision), indent=2, default=str))
    else:
        print_decision(out, decision)


@main.command(name="trace")
@click.argument("decision_id")
@click.option("--json", "as_json", is_flag=True, help="Print the trace as JSON.")
@click.pass_obj
def trace_command(settings: Callable[[], Settings], decision_id: str, as_json: bool) -> None:
    """Read a past decision back from the graph: rounds, candidates, verdicts, citations."""
    from graphmind import api
    from graphmind.memory.render import print_trace, trace_as_dict

    found = api.trace(decision_id, settings())
    if as_json:
        click.echo(json.dumps(trace_as_dict(found), indent=2, default=str))
    else:
        print_trace(found, out)


@main.command()
@click.argument("decision_id")
@click.option("--correct", "verdict", flag_value="correct", help="The answer was right.")
@click.option("--incorrect", "verdict", flag_value="incorrect", help="The answer was wrong.")
@click.option("--gold", help="The right answer: token F1 >= 0.8 with it counts as correct.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
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
@click.option(
    "--keep",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Evaluations kept per evidence item (the most recent).",
)
@click.option("--dry-run", is_flag=True, help="Only count what would be deleted.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def prune(settings: Callable[[], Settings], keep: int, dry_run: bool, as_json: bool) -> None:
    """Bound the reasoning graph: keep each evidence item's most recent evaluations."""
    from graphmind import api

    report = api.prune(keep, dry_run=dry_run, settings=settings())
    if as_json:
        click.echo(json.dumps(report.__dict__, indent=2))
        return
    verb = "would delete" if dry_run else "deleted"
    out.print(
        f"{report.items} evidence item(s) had more than {keep} evaluations; "
        f"{verb} {report.deleted} EVALUATED edge(s)",
        highlight=False,
    )


@main.command(name="eval")
@click.argument(
    "dataset", required=False, type=click.Choice(["musique", "hotpotqa", "2wiki", "locomo"])
)
@click.option("--data", "data_root", type=click.Path(path_type=Path), help="Benchmark data folder.")
@click.option(
    "--questions",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Another question file in the dataset's format.",
)
@click.option("--limit", type=click.IntRange(min=1), default=30, show_default=True)
@click.option("--seed", default=0, show_default=True, help="Which questions --limit picks.")
@click.option(
    "--configs",
    default="naive,loop,profiles,full",
    show_default=True,
    help="Comma-separated configurations to compare.",
)
@click.option("--k", "k", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--max-rounds", type=click.IntRange(min=1), default=2, show_default=True)
@click.option(
    "--protocol",
    type=click.Choice(["sequential", "given"]),
    default="sequential",
    show_default=True,
    help="'sequential': grouped by query type, gold feedback after each answer.",
)
@click.option(
    "--extract",
    type=click.Choice(["none", "llm"]),
    default="none",
    show_default=True,
    help="Build the corpus chunk-only, or with LLM triplet extraction (slow on a CPU).",
)
@click.option(
    "--consistency",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Probe questions for verdict consistency (0: skip).",
)
@click.option("--consistency-runs", type=click.IntRange(min=2), default=3, show_default=True)
@click.option(
    "--temperature",
    type=click.FloatRange(min=0.01),
    default=0.7,
    show_default=True,
    help="Temperature of the consistency runs.",
)
@click.option(
    "--run-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where the run lives (default: eval-runs/DATASET-nLIMIT-sSEED).",
)
@click.option(
    "--store",
    "eval_store",
    help="Evaluate on this (empty) store, e.g. bolt://…: configurations in turn, each from "
    "the base build with an empty memory. Default: a FalkorDB Lite copy per configuration.",
)
@click.option(
    "--compare",
    nargs=2,
    type=click.Path(path_type=Path, file_okay=False),
    help="Compare two finished runs instead (RUN_A RUN_B).",
)
@click.pass_obj
def eval_command(
    settings: Callable[[], Settings],
    dataset: str | None,
    data_root: Path | None,
    questions: Path | None,
    limit: int,
    seed: int,
    configs: str,
    k: int,
    max_rounds: int,
    protocol: str,
    extract: str,
    consistency: int,
    consistency_runs: int,
    temperature: float,
    run_dir: Path | None,
    eval_store: str | None,
    compare: tuple[Path, Path] | None,
) -> None:
    """Evaluate on a benchmark: EM/F1, recall@k, memory's dose-response, cost, baselines."""
    if compare:
        from graphmind.eval.report import compare_runs

        click.echo(compare_runs(*compare))
        return
    if dataset is None:
        raise click.UsageError("give a DATASET (or --compare RUN_A RUN_B)")
    from graphmind.eval.runner import EvalOptions, run_eval

    options = EvalOptions(
        dataset=dataset,
        data_root=data_root,
        questions=questions,
        limit=limit,
        seed=seed,
        configs=tuple(c.strip() for c in configs.split(",") if c.strip()),
        k=k,
        max_rounds=max_rounds,
        protocol=protocol,  # type: ignore[arg-type]
        extract=extract,  # type: ignore[arg-type]
        consistency=consistency,
        consistency_runs=consistency_runs,
        temperature=temperature,
        store=eval_store,
    )
    from graphmind.cli_progress import RichProgress

    target = run_dir or Path("eval-runs") / f"{dataset}-n{limit}-s{seed}"
    with RichProgress(err) as progress:
        report = run_eval(
            target,
            options,
            settings(),
            lambda line: err.print(line, highlight=False),
            progress=progress,
        )
    out.print(report.read_text(encoding="utf-8"), highlight=False, markup=False)
    out.print(f"report: {report}", style="dim", highlight=False)


@main.command(name="communities")
@click.option(
    "--projection",
    type=click.Choice(["related", "cooccurrence"]),
    default="related",
    show_default=True,
    help="Entity graph: RELATED edges or co-mention in a chunk.",
)
@click.option("--max-size", default=50, show_default=True, help="Split communities above this.")
@click.option("--levels", default=3, show_default=True, help="At most this many levels.")
@click.option("--resolution", default=1.0, show_default=True, help="Leiden resolution.")
@click.option(
    "--summaries/--no-summaries",
    default=True,
    show_default=True,
    help="Summarise new communities with the LLM (else: member names).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def communities_command(
    settings: Callable[[], Settings],
    projection: str,
    max_size: int,
    levels: int,
    resolution: float,
    summaries: bool,
    as_json: bool,
) -> None:
    """Recompute communities (hierarchical Leiden), their summaries and PageRank."""
    from graphmind import api
    from graphmind.cli_progress import RichProgress, print_community_stats
    from graphmind.communities.pipeline import CommunityOptions

    options = CommunityOptions(
        projection=projection,  # type: ignore[arg-type]
        max_size=max_size,
        max_levels=levels,
        resolution=resolution,
    )
    with RichProgress(err, enabled=not as_json) as progress:
        stats = api.communities(options, settings(), progress, summarize=summaries)
    if as_json:
        click.echo(json.dumps(stats.__dict__, indent=2, default=str))
    else:
        print_community_stats(out, stats.__dict__)


_BUNDLED = re.compile(r"^audit/[a-z_]+$")


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


if __name__ == "__main__":
    main()
