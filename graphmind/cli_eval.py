"""``graphmind eval``: run a benchmark, or compare two finished runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from graphmind.ask.options import PolicyName
from graphmind.cli_common import choice, err, knob, loop_knobs, out
from graphmind.config import Settings
from graphmind.eval.datasets import DATASETS
from graphmind.eval.options import CONFIGS, EvalOptions, EvalProtocol
from graphmind.ingest.options import ExtractMode


def register(main: click.Group) -> None:
    """Add the ``eval`` command to the command line."""

    @main.command(name="eval")
    @click.argument("dataset", required=False, type=click.Choice(DATASETS))
    @click.option(
        "--data", "data_root", type=click.Path(path_type=Path), help="Benchmark data folder."
    )
    @click.option(
        "--questions",
        type=click.Path(path_type=Path, dir_okay=False),
        help="Another question file in the dataset's format.",
    )
    @click.option(
        "--subset",
        **knob(EvalOptions, "subset", "eval"),
        help="Only the questions whose id starts with this: a LoCoMo conversation (conv-30), "
        "MuSiQue's hop count (2hop).",
    )
    @click.option("--limit", type=click.IntRange(min=1), **knob(EvalOptions, "limit", "eval"))
    @click.option(
        "--seed",
        type=click.IntRange(min=0),
        **knob(EvalOptions, "seed", "eval"),
        help="Which questions --limit picks.",
    )
    @click.option(
        "--configs",
        **knob(EvalOptions, "configs", "eval"),
        help="Comma-separated configurations to compare, of: " + ", ".join(CONFIGS) + ".",
    )
    @loop_knobs(EvalOptions, "eval")
    @click.option(
        "--protocol",
        type=choice(EvalOptions, "protocol"),
        **knob(EvalOptions, "protocol", "eval"),
        help="'sequential': grouped by query type, gold feedback after each answer.",
    )
    @click.option(
        "--extract",
        type=choice(EvalOptions, "extract"),
        **knob(EvalOptions, "extract", "eval"),
        help="Build the corpus chunk-only, with spaCy extraction (fast), or with LLM triplet "
        "extraction (slow on a CPU).",
    )
    @click.option(
        "--consistency",
        type=click.IntRange(min=0),
        **knob(EvalOptions, "consistency", "eval"),
        help="Probe questions for verdict consistency (0: skip).",
    )
    @click.option(
        "--consistency-runs",
        type=click.IntRange(min=2),
        **knob(EvalOptions, "consistency_runs", "eval"),
    )
    @click.option(
        "--temperature",
        type=click.FloatRange(min=0.01),
        **knob(EvalOptions, "temperature", "eval"),
        help="Temperature of the consistency runs.",
    )
    @click.option(
        "--profile-reasons",
        type=click.IntRange(min=0),
        **knob(EvalOptions, "profile_reasons", "eval"),
        help="Top reasons an evidence profile quotes (0: verdict counts and reliability only).",
    )
    @click.option(
        "--max-triplets",
        type=click.IntRange(min=0),
        **knob(EvalOptions, "max_triplets", "eval"),
        help="Graph facts (triplets) read with each passage (0: the passages alone).",
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
    @click.option(
        "--retrieval-only",
        is_flag=True,
        help="Measure retrieval alone, no LLM: recall@k of every retriever's list and of the "
        "list round 1 shows (retrieval.json in the run).",
    )
    @click.option(
        "--json",
        "as_json",
        is_flag=True,
        help="Print the results (results.json) instead of the report.",
    )
    @click.pass_obj
    def eval_command(
        settings: Callable[[], Settings],
        dataset: str | None,
        data_root: Path | None,
        questions: Path | None,
        subset: str | None,
        limit: int | None,
        seed: int | None,
        configs: str | None,
        max_rounds: int | None,
        k: int | None,
        policy: PolicyName | None,
        protocol: EvalProtocol | None,
        extract: ExtractMode | None,
        consistency: int | None,
        consistency_runs: int | None,
        temperature: float | None,
        profile_reasons: int | None,
        max_triplets: int | None,
        run_dir: Path | None,
        eval_store: str | None,
        compare: tuple[Path, Path] | None,
        retrieval_only: bool,
        as_json: bool,
    ) -> None:
        """Evaluate on a benchmark: EM/F1, recall@k, memory's dose-response, cost, baselines."""
        if compare:
            from graphmind.eval.report import compare_runs

            if as_json:
                raise click.UsageError("--json prints one run's results; --compare prints text")
            click.echo(compare_runs(*compare))
            return
        if dataset is None:
            raise click.UsageError("give a DATASET (or --compare RUN_A RUN_B)")
        from graphmind.eval.options import eval_options
        from graphmind.eval.runner import run_eval

        config = settings()
        options = eval_options(
            config,
            dataset,
            data_root=data_root,
            questions=questions,
            subset=subset,
            limit=limit,
            seed=seed,
            configs=None
            if configs is None
            else tuple(c.strip() for c in configs.split(",") if c.strip()),
            k=k,
            max_rounds=max_rounds,
            policy=policy,
            protocol=protocol,
            extract=extract,
            consistency=consistency,
            consistency_runs=consistency_runs,
            temperature=temperature,
            profile_reasons=profile_reasons,
            max_triplets=max_triplets,
            store=eval_store,
        )
        from graphmind.cli_progress import make_progress

        target = run_dir or Path("eval-runs") / f"{dataset}-n{options.limit}-s{options.seed}"

        def say(line: str) -> None:
            if not as_json:
                err.print(line, highlight=False)

        if retrieval_only:
            from graphmind.eval.retrieval import format_table, run_retrieval

            with make_progress(err, enabled=not as_json) as progress:
                measured = run_retrieval(
                    target,
                    options,
                    config,
                    say,
                    progress=progress,
                )
            click.echo(json.dumps(measured, indent=2) if as_json else format_table(measured))
            return
        with make_progress(err, enabled=not as_json) as progress:
            report = run_eval(
                target,
                options,
                config,
                say,
                progress=progress,
            )
        if as_json:
            click.echo((report.parent / "results.json").read_text(encoding="utf-8").rstrip())
            return
        out.print(report.read_text(encoding="utf-8"), highlight=False, markup=False)
        out.print(f"report: {report}", style="dim", highlight=False)
