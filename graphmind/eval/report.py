"""Evaluation reports: ``report.md``, ``results.json`` and charts in a run directory, and the
comparison of two runs."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmind.core.errors import NotFoundError
from graphmind.core.scoring import CORRECT_F1
from graphmind.eval.charts import plot_cost_latency, plot_dose_response, plot_learning_curves
from graphmind.eval.metrics import (
    COVERAGE_BINS,
    ConfigSummary,
    ConsistencyResult,
    Correlation,
    DoseCell,
    LearningCurve,
    McNemar,
    by_config,
    coverage_correlation,
    dose_response,
    learning_curve,
    mcnemar_exact,
    summarize,
)
from graphmind.eval.records import RESULTS_FILE, QuestionResult, load_results

BASELINES = ("naive", "vr")  # what the others are compared with: the first one run
REPORT_K = 5
LEARNING_BLOCKS = 10
_META_FIRST = ("command", "dataset", "model", "limit", "seed", "date")


def write_report(
    run_dir: Path,
    results: Sequence[QuestionResult],
    *,
    meta: dict[str, Any],
    consistency: list[ConsistencyResult] | None = None,
) -> Path:
    """Write ``report.md``, ``results.json`` and the three charts; return the report's path."""
    if not results:
        raise NotFoundError(f"no evaluation results to report in {run_dir}")
    run_dir.mkdir(parents=True, exist_ok=True)
    meta = {"date": datetime.now(UTC).isoformat(timespec="seconds"), **meta}
    summaries = [summarize(group) for group in by_config(results).values()]
    base = baseline_of(results)
    doses = dose_response(results, base)
    correlations = coverage_correlation(results, base)
    curves = learning_curve(results)
    tests = _versus_baseline(results, base)

    lines = ["# GraphMind evaluation report", "", *_meta_table(meta)]
    for dataset in dict.fromkeys(s.dataset for s in summaries):
        lines += _dataset_section(
            dataset,
            [r for r in results if r.dataset == dataset],
            [s for s in summaries if s.dataset == dataset],
            [t for t in tests if t[0] == dataset],
            [d for d in doses if d.dataset == dataset],
            [c for c in correlations if c.dataset == dataset],
            [c for c in curves if c.dataset == dataset],
            base,
        )
    if consistency:
        lines += _consistency_section(consistency)
    report = run_dir / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")

    payload = {
        "meta": meta,
        "summaries": [asdict(s) for s in summaries],
        "mcnemar_vs_baseline": [
            {"dataset": d, "config": c, "paired": n, **asdict(m)} for d, c, n, m in tests
        ],
        "baseline": base,
        "dose_response": [asdict(d) for d in doses],
        "coverage_correlation": [asdict(c) for c in correlations],
        "learning_curve": [asdict(c) for c in curves],
        "consistency": [asdict(c) for c in consistency] if consistency is not None else None,
        "records": [r.to_json() for r in results],
    }
    text = json.dumps(payload, ensure_ascii=False, indent=2, default=str)
    (run_dir / "results.json").write_text(text + "\n", encoding="utf-8")

    datasets = list(dict.fromkeys(s.dataset for s in summaries))
    plot_dose_response(run_dir / "dose_response.png", datasets, doses, base)
    plot_learning_curves(run_dir / "learning_curve.png", datasets, curves)
    plot_cost_latency(run_dir / "cost_latency.png", datasets, summaries)
    return report


def compare_runs(run_a: Path, run_b: Path) -> str:
    """A Markdown table of metric changes (B - A) per configuration present in both runs.

    Both sides are scored on the questions both runs answered, and McNemar compares the
    same configuration across the two runs on those questions.
    """
    a_groups = by_config(_run_results(run_a))
    b_groups = by_config(_run_results(run_b))
    lines = [
        "# Run comparison (B - A)",
        "",
        f"A: `{run_a}`  ",
        f"B: `{run_b}`",
        "",
        f"| dataset | config | shared q | ΔEM | ΔF1 | ΔAcc@{CORRECT_F1} | ΔR@{REPORT_K} final "
        "| Δtokens/q | Δlatency s/q | McNemar b (A✓ B✗) | c (A✗ B✓) | p |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    only: list[str] = []
    for key in dict.fromkeys([*a_groups, *b_groups]):
        if key not in a_groups or key not in b_groups:
            only.append(f"{key[0]}/{key[1]} ({'A' if key in a_groups else 'B'} only)")
            continue
        a_by_id = {r.question_id: r for r in a_groups[key]}
        b_by_id = {r.question_id: r for r in b_groups[key]}
        shared = [qid for qid in a_by_id if qid in b_by_id]
        if not shared:
            only.append(f"{key[0]}/{key[1]} (no question in common)")
            continue
        sa = summarize([a_by_id[q] for q in shared])
        sb = summarize([b_by_id[q] for q in shared])
        test = mcnemar_exact(
            [a_by_id[q].correct for q in shared], [b_by_id[q].correct for q in shared]
        )
        lines.append(
            _row(
                key[0],
                key[1],
                str(len(shared)),
                _signed(sb.em - sa.em),
                _signed(sb.f1 - sa.f1),
                _signed(sb.accuracy - sa.accuracy),
                _delta_or_na(sb.recall_final.get(REPORT_K), sa.recall_final.get(REPORT_K)),
                f"{sb.tokens_mean - sa.tokens_mean:+.0f}",
                f"{(sb.latency.mean_ms - sa.latency.mean_ms) / 1000:+.2f}",
                str(test.b),
                str(test.c),
                _p(test.p),
            )
        )
    if only:
        lines += ["", "Not compared: " + "; ".join(only) + "."]
    return "\n".join(lines) + "\n"


def _run_results(run_dir: Path) -> list[QuestionResult]:
    if not run_dir.is_dir():
        raise NotFoundError(f"run directory {run_dir} does not exist")
    if not (run_dir / RESULTS_FILE).is_file():
        raise NotFoundError(f"{run_dir} is not an evaluation run: it has no {RESULTS_FILE}")
    results = load_results(run_dir)
    if not results:
        raise NotFoundError(f"evaluation run {run_dir} has no results yet")
    return results


def baseline_of(results: Sequence[QuestionResult]) -> str:
    """The configuration the others are compared with: naive when it ran, else ROZA's
    vanilla RAG (``vr``), which ``rg`` and ``rg-full`` extend."""
    run = {r.config for r in results}
    return next((b for b in BASELINES if b in run), BASELINES[0])


def _versus_baseline(
    results: Sequence[QuestionResult], baseline: str
) -> list[tuple[str, str, int, McNemar]]:
    """(dataset, config, paired questions, McNemar) of every configuration against the
    baseline."""
    groups = by_config(results)
    tests: list[tuple[str, str, int, McNemar]] = []
    for (dataset, config), group in groups.items():
        base = {r.question_id: r.correct for r in groups.get((dataset, baseline), [])}
        if config == baseline or not base:
            continue
        paired = [(base[r.question_id], r.correct) for r in group if r.question_id in base]
        test = mcnemar_exact([x for x, _ in paired], [y for _, y in paired])
        tests.append((dataset, config, len(paired), test))
    return tests


def _meta_table(meta: dict[str, Any]) -> list[str]:
    keys = [k for k in _META_FIRST if k in meta] + [k for k in meta if k not in _META_FIRST]
    rows = [_row(k, f"`{meta[k]}`" if k == "command" else str(meta[k])) for k in keys]
    return ["| run | |", "|---|---|", *rows, ""]


def _dataset_section(
    dataset: str,
    results: Sequence[QuestionResult],
    summaries: list[ConfigSummary],
    tests: list[tuple[str, str, int, McNemar]],
    doses: list[DoseCell],
    correlations: list[Correlation],
    curves: list[LearningCurve],
    base: str,
) -> list[str]:
    lines = [
        f"## {dataset}",
        "",
        f"| config | n | EM | F1 | Acc@{CORRECT_F1} | R@{REPORT_K} r1 | R@{REPORT_K} final "
        "| abstain | LLM calls/q | tokens/q | latency s/q (LLM / store) |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for s in summaries:
        lines.append(
            _row(
                s.config,
                str(s.n),
                _f3(s.em),
                _f3(s.f1),
                _f3(s.accuracy),
                _f3(s.recall_first.get(REPORT_K)),
                _f3(s.recall_final.get(REPORT_K)),
                _f3(s.abstention_rate),
                f"{s.llm_calls_mean:.1f}",
                f"{s.tokens_mean:.0f}",
                f"{s.latency.mean_ms / 1000:.2f} ({s.llm.mean_ms / 1000:.2f} / "
                f"{s.store.mean_ms / 1000:.2f})",
            )
        )
    failed = [f"{s.config}: {s.errors}" for s in summaries if s.errors]
    if failed:
        lines += ["", "Questions that failed with an error (scored wrong): " + ", ".join(failed)]
    lines += [
        "",
        "Latency percentiles (s): total p50 / p95, LLM p50 / p95, store p50 / p95",
        "",
        "| config | total | LLM | store |",
        "|---|--:|--:|--:|",
    ]
    for s in summaries:
        lines.append(
            _row(
                s.config,
                *(
                    f"{t.p50_ms / 1000:.2f} / {t.p95_ms / 1000:.2f}"
                    for t in (s.latency, s.llm, s.store)
                ),
            )
        )
    lines += ["", f"### McNemar vs {base} (exact, paired on the same questions)", ""]
    if tests:
        lines += [
            f"| config | paired | b ({base}✓ config✗) | c ({base}✗ config✓) | p |",
            "|---|--:|--:|--:|--:|",
        ]
        lines += [_row(c, str(n), str(m.b), str(m.c), _p(m.p)) for _, c, n, m in tests]
    else:
        lines.append(f"No {base} baseline with other configurations in this run.")
    lines += _rounds_table(results)
    lines += _planner_table(results)
    lines += _category_table(results)
    lines += _dose_table(doses, base)
    lines += _correlation_table(correlations, base)
    lines += _learning_table(curves)
    return [*lines, ""]


def _rounds_table(results: Sequence[QuestionResult]) -> list[str]:
    """Whether rounds pay: how many each configuration used, the accuracy of questions
    that stopped after one round and of those that went on, and calls that hit a cap."""
    lines = [
        "",
        "### Rounds and token caps",
        "",
        "| config | rounds/q | stopped after 1 | Acc (stopped after 1) | Acc (more rounds) "
        "| calls at their token cap |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for config, group in by_config(results).items():
        one = [r for r in group if r.rounds <= 1]
        more = [r for r in group if r.rounds > 1]
        lines.append(
            _row(
                config[1],
                f"{sum(r.rounds for r in group) / len(group):.2f}",
                str(len(one)),
                _f3(_mean([float(r.correct) for r in one])),
                _f3(_mean([float(r.correct) for r in more])),
                str(sum(r.capped for r in group)),
            )
        )
    return lines


def _planner_table(results: Sequence[QuestionResult]) -> list[str]:
    """What the planner left out, per configuration that uses it, and how much was gold."""
    pruning = {k: g for k, g in by_config(results).items() if any(r.excluded for r in g)}
    lines = ["", "### What the planner excluded", ""]
    if not pruning:
        return [*lines, "The planner excluded no passage in this run."]
    lines += [
        "| config | questions with exclusions | passages excluded | gold passages excluded "
        "| questions that lost gold |",
        "|---|--:|--:|--:|--:|",
    ]
    for (_, config), group in pruning.items():
        lines.append(
            _row(
                config,
                str(sum(1 for r in group if r.excluded)),
                str(sum(r.excluded for r in group)),
                str(sum(r.gold_excluded for r in group)),
                str(sum(1 for r in group if r.gold_excluded)),
            )
        )
    return lines


def _category_table(results: Sequence[QuestionResult]) -> list[str]:
    """F1 per question category (MuSiQue's hop count, HotpotQA's and 2Wiki's type)."""
    categories = sorted({r.category or "-" for r in results})
    configs = list(dict.fromkeys(r.config for r in results))
    lines = [
        "",
        "### F1 by question category",
        "",
        "| category | n | " + " | ".join(configs) + " |",
        "|---|--:|" + "--:|" * len(configs),
    ]
    for category in categories:
        cells = []
        for config in configs:
            group = [r for r in results if (r.category or "-") == category and r.config == config]
            cells.append(_f3(_mean([r.f1 for r in group])))
        n = sum(1 for r in results if (r.category or "-") == category and r.config == configs[0])
        lines.append(_row(category, str(n), *cells))
    return lines


def _dose_table(doses: list[DoseCell], base: str) -> list[str]:
    lines = [
        "",
        f"### Accuracy Δ vs {base} by evidence-profile coverage (same questions)",
        "",
        f"Each cell: Δ accuracy (questions; McNemar b/c and p, b = {base} alone right).",
        "",
    ]
    if not doses:
        return [*lines, f"No {base} baseline to compare with."]
    lines += [
        "| config | " + " | ".join(COVERAGE_BINS) + " |",
        "|---|" + "--:|" * len(COVERAGE_BINS),
    ]
    for config in dict.fromkeys(d.config for d in doses):
        cells = [d for d in doses if d.config == config]
        lines.append(
            _row(
                config,
                *(_dose_cell(d) for d in cells),
            )
        )
    return lines


def _dose_cell(d: DoseCell) -> str:
    if d.delta is None:
        return "n/a (n=0)"
    if d.test is None:
        return f"{_signed(d.delta)} (n={d.n})"
    return f"{_signed(d.delta)} (n={d.n}; {d.test.b}/{d.test.c}, p={_p(d.test.p)})"


def _correlation_table(correlations: list[Correlation], base: str) -> list[str]:
    lines = [
        "",
        f"### Coverage against the paired Δ vs {base}: Spearman rho per question (95 % CI)",
        "",
    ]
    if not correlations:
        return [*lines, f"No {base} baseline to compare with."]
    lines += ["| config | paired Δ of | questions | rho | 95 % CI |", "|---|---|--:|--:|--:|"]
    for c in correlations:
        rho = "n/a (constant)" if c.rho is None else f"{c.rho:+.3f}"
        ci = "n/a" if c.low is None or c.high is None else f"[{c.low:+.3f}, {c.high:+.3f}]"
        lines.append(_row(c.config, c.measure, str(c.n), rho, ci))
    return lines


def _learning_table(curves: list[LearningCurve]) -> list[str]:
    """Accuracy per block of consecutive questions, and the running accuracy at its end."""
    longest = max(len(c.correct) for c in curves)
    size = math.ceil(longest / LEARNING_BLOCKS)
    lines = [
        "",
        "### Learning curve: accuracy per block of questions in asking order (running accuracy)",
        "",
        "| questions | " + " | ".join(c.config for c in curves) + " |",
        "|---|" + "--:|" * len(curves),
    ]
    for start in range(0, longest, size):
        cells = []
        for curve in curves:
            block = curve.correct[start : start + size]
            if not block:
                cells.append("n/a")
                continue
            end = start + len(block) - 1
            cells.append(f"{sum(block) / len(block):.3f} ({curve.running[end]:.3f})")
        lines.append(_row(f"{start + 1}-{min(start + size, longest)}", *cells))
    return lines


def _consistency_section(results: list[ConsistencyResult]) -> list[str]:
    lines = [
        "## Verdict consistency",
        "",
        "Identity rate: share of run pairs with identical verdicts on the passages both "
        "judged. Entropy: mean over passages of the verdict entropy across runs (bits).",
        "",
        "| config | questions | mean identity rate | mean entropy |",
        "|---|--:|--:|--:|",
    ]
    for config in dict.fromkeys(r.config for r in results):
        mine = [r for r in results if r.config == config]
        lines.append(
            _row(
                config,
                str(len(mine)),
                _f3(_mean([r.identity_rate for r in mine])),
                _f3(_mean([r.entropy for r in mine])),
            )
        )
    lines += ["", "| question | config | runs | identity rate | entropy |", "|---|---|--:|--:|--:|"]
    lines += [
        _row(r.question_id, r.config, str(r.runs), _f3(r.identity_rate), _f3(r.entropy))
        for r in results
    ]
    return [*lines, ""]


def _row(*cells: str) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _f3(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _delta_or_na(new: float | None, old: float | None) -> str:
    return "n/a" if new is None or old is None else _signed(new - old)


def _p(value: float) -> str:
    return f"{value:.4g}"


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None
