"""Evaluation metrics: retrieval recall, paired significance, evidence-profile dose-response,
learning curves, verdict consistency and per-configuration summaries."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from graphmind.eval.datasets import GoldPassage, gold_hits
from graphmind.eval.records import QuestionResult

COVERAGE_BINS = ("0%", "(0,20)%", "[20,50)%", "≥50%")


@dataclass(frozen=True)
class McNemar:
    """Discordant pairs of two paired systems: ``b`` = A right and B wrong, ``c`` = A wrong
    and B right, with the exact two-sided binomial p-value."""

    b: int
    c: int
    p: float


@dataclass(frozen=True)
class Latency:
    """Mean, median and 95th percentile of a per-question time, in milliseconds."""

    mean_ms: float
    p50_ms: float
    p95_ms: float


@dataclass(frozen=True)
class ConfigSummary:
    """The aggregate scores, retrieval recall and cost of one configuration on one dataset."""

    dataset: str
    config: str
    n: int
    em: float
    f1: float
    accuracy: float
    recall_first: dict[int, float | None]
    recall_final: dict[int, float | None]
    abstention_rate: float
    errors: int
    llm_calls_mean: float
    llm_calls_total: int
    tokens_mean: float
    tokens_total: int
    latency: Latency
    llm: Latency
    store: Latency


@dataclass(frozen=True)
class DoseCell:
    """Accuracy of a configuration against the baseline on the same questions, for the
    questions whose evidence-profile coverage fell in one bin (deltas None when n is 0)."""

    dataset: str
    config: str
    bin: str
    n: int
    accuracy: float | None
    baseline_accuracy: float | None
    delta: float | None
    test: McNemar | None = None  # paired against the baseline within the bin


@dataclass(frozen=True)
class LearningCurve:
    """Correctness by the order questions were asked, with the running accuracy."""

    dataset: str
    config: str
    positions: list[int]
    correct: list[bool]
    running: list[float]


@dataclass(frozen=True)
class ConsistencyResult:
    """Verdict consistency of one question asked ``runs`` times under one configuration."""

    question_id: str
    config: str
    runs: int
    identity_rate: float | None
    entropy: float | None


def recall_at_k(
    retrieved: Sequence[tuple[str, str]], gold: Sequence[GoldPassage], k: int
) -> float | None:
    """Share of the distinct gold passages found in the top ``k`` chunks (None without gold)."""
    distinct = list(dict.fromkeys(gold))
    if not distinct:
        return None
    return gold_hits(retrieved, distinct, k) / len(distinct)


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> McNemar:
    """Exact McNemar test on paired correctness: two-sided binomial test of the discordant
    pairs against p = 1/2 (p = 1.0 when there are none)."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    n = only_a + only_b
    if n == 0:
        return McNemar(only_a, only_b, 1.0)
    tail = Fraction(sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)), 2**n)
    return McNemar(only_a, only_b, float(min(Fraction(1), 2 * tail)))


@dataclass(frozen=True)
class Correlation:
    """Spearman's rho of evidence-profile coverage with the paired delta against the
    baseline per question, of accuracy (+1 right where the baseline was wrong, -1 the
    reverse, 0 the same) or of F1, with a 95 % confidence interval (Fisher z); None when
    it is undefined."""

    dataset: str
    config: str
    measure: str  # "accuracy" or "F1"
    n: int
    rho: float | None
    low: float | None
    high: float | None


def _ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start : end + 1]:
            ranks[i] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (None when either side is constant or n < 2)."""
    if len(x) != len(y):
        raise ValueError(f"paired samples differ in length: {len(x)} and {len(y)}")
    if len(x) < 2:
        return None
    rx, ry = _ranks(x), _ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def coverage_correlation(
    results: Sequence[QuestionResult], baseline_config: str
) -> list[Correlation]:
    """Per dataset and configuration: Spearman's rho of coverage with the paired delta of
    accuracy, then of F1."""
    baseline = {(r.dataset, r.question_id): r for r in results if r.config == baseline_config}
    out: list[Correlation] = []
    for (dataset, config), group in by_config(results).items():
        paired = [
            (r, baseline[dataset, r.question_id])
            for r in group
            if (dataset, r.question_id) in baseline
        ]
        if config == baseline_config or not paired:
            continue
        coverage = [r.profile_coverage for r, _ in paired]
        for measure, deltas in (
            ("accuracy", [float(r.correct) - float(b.correct) for r, b in paired]),
            ("F1", [r.f1 - b.f1 for r, b in paired]),
        ):
            rho = spearman(coverage, deltas)
            low = high = None
            if rho is not None and len(paired) > 3:
                z = math.atanh(max(-0.999999, min(0.999999, rho)))
                se = 1 / math.sqrt(len(paired) - 3)
                low, high = math.tanh(z - 1.96 * se), math.tanh(z + 1.96 * se)
            out.append(Correlation(dataset, config, measure, len(paired), rho, low, high))
    return out


def gold_reuse(golds: Sequence[Sequence[GoldPassage]]) -> float | None:
    """Gold-passage reuse of questions in asking order: the share of their gold passages
    that an earlier question already had as gold (None without gold)."""
    seen: set[GoldPassage] = set()
    total = reused = 0
    for gold in golds:
        distinct = set(gold)
        total += len(distinct)
        reused += len(distinct & seen)
        seen |= distinct
    return reused / total if total else None


def coverage_bin(fraction: float) -> str:
    """The COVERAGE_BINS label of an evidence-profile coverage in [0, 1]."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"coverage must be within [0, 1], got {fraction}")
    if fraction == 0.0:
        return COVERAGE_BINS[0]
    if fraction < 0.2:
        return COVERAGE_BINS[1]
    if fraction < 0.5:
        return COVERAGE_BINS[2]
    return COVERAGE_BINS[3]


def verdict_identity_rate(runs: Sequence[Mapping[str, str]]) -> float | None:
    """Share of run pairs that gave identical verdicts (ROZA §5.5).

    Every unordered pair of runs is compared on the passages both judged; pairs with no
    passage in common are left out. None when no pair can be compared.
    """
    outcomes = [
        all(x[pid] == y[pid] for pid in shared)
        for x, y in combinations(runs, 2)
        if (shared := x.keys() & y.keys())
    ]
    return sum(outcomes) / len(outcomes) if outcomes else None


def verdict_entropy(runs: Sequence[Mapping[str, str]]) -> float | None:
    """Mean Shannon entropy, in bits, of each passage's verdicts across the runs.

    Only passages judged in at least two runs count; None when there are none.
    """
    verdicts: dict[str, list[str]] = {}
    for run in runs:
        for pid, verdict in run.items():
            verdicts.setdefault(pid, []).append(verdict)
    entropies = [_entropy(v) for v in verdicts.values() if len(v) >= 2]
    return sum(entropies) / len(entropies) if entropies else None


def consistency(
    question_id: str, config: str, runs: Sequence[Mapping[str, str]]
) -> ConsistencyResult:
    """Identity rate and entropy of one question's repeated verdicts."""
    return ConsistencyResult(
        question_id, config, len(runs), verdict_identity_rate(runs), verdict_entropy(runs)
    )


def by_config(results: Sequence[QuestionResult]) -> dict[tuple[str, str], list[QuestionResult]]:
    """Records grouped by (dataset, config), in first-appearance order."""
    groups: dict[tuple[str, str], list[QuestionResult]] = {}
    for result in results:
        groups.setdefault((result.dataset, result.config), []).append(result)
    return groups


def summarize(results: Sequence[QuestionResult]) -> ConfigSummary:
    """Scores, mean recall@k, abstention, LLM calls, tokens and latency of one configuration.

    Failed questions (``error`` set) count as asked and wrong. Recall means are over the
    questions that have gold passages.
    """
    groups = by_config(results)
    if len(groups) != 1:
        raise ValueError(f"summarize needs the records of one configuration, got {len(groups)}")
    (dataset, config), _ = groups.popitem()
    n = len(results)
    ks = sorted({k for r in results for k in (*r.recall_first, *r.recall_final)})
    return ConfigSummary(
        dataset=dataset,
        config=config,
        n=n,
        em=sum(r.em for r in results) / n,
        f1=sum(r.f1 for r in results) / n,
        accuracy=sum(r.correct for r in results) / n,
        recall_first={k: _mean_recall([r.recall_first.get(k) for r in results]) for k in ks},
        recall_final={k: _mean_recall([r.recall_final.get(k) for r in results]) for k in ks},
        abstention_rate=sum(r.abstained for r in results) / n,
        errors=sum(r.error is not None for r in results),
        llm_calls_mean=sum(r.llm_calls for r in results) / n,
        llm_calls_total=sum(r.llm_calls for r in results),
        tokens_mean=sum(r.tokens for r in results) / n,
        tokens_total=sum(r.tokens for r in results),
        latency=_latency([r.latency_ms for r in results]),
        llm=_latency([r.llm_ms for r in results]),
        store=_latency([r.store_ms for r in results]),
    )


def dose_response(
    results: Sequence[QuestionResult], baseline_config: str = "naive"
) -> list[DoseCell]:
    """Accuracy gain over the baseline on the same questions, by evidence-profile coverage.

    For every dataset and non-baseline configuration, each of its questions that the
    baseline also answered falls into the bin of its ``profile_coverage``; a cell compares
    the two accuracies on those questions. Every bin is listed, empty ones with n = 0;
    datasets the baseline was not run on have no cells.
    """
    baseline = {
        (r.dataset, r.question_id): r.correct for r in results if r.config == baseline_config
    }
    cells: list[DoseCell] = []
    compared = {dataset for dataset, _ in baseline}
    for (dataset, config), group in by_config(results).items():
        if config == baseline_config or dataset not in compared:
            continue
        pairs: dict[str, list[tuple[bool, bool]]] = {label: [] for label in COVERAGE_BINS}
        for r in group:
            if (dataset, r.question_id) in baseline:
                base = baseline[dataset, r.question_id]
                pairs[coverage_bin(r.profile_coverage)].append((r.correct, base))
        for label, pair in pairs.items():
            if not pair:
                cells.append(DoseCell(dataset, config, label, 0, None, None, None))
                continue
            accuracy = sum(c for c, _ in pair) / len(pair)
            base_accuracy = sum(b for _, b in pair) / len(pair)
            cells.append(
                DoseCell(
                    dataset,
                    config,
                    label,
                    len(pair),
                    accuracy,
                    base_accuracy,
                    accuracy - base_accuracy,
                    mcnemar_exact([b for _, b in pair], [c for c, _ in pair]),
                )
            )
    return cells


def learning_curve(results: Sequence[QuestionResult]) -> list[LearningCurve]:
    """Per dataset and configuration: correctness in asking order and its running mean."""
    curves: list[LearningCurve] = []
    for (dataset, config), group in by_config(results).items():
        ordered = sorted(group, key=lambda r: r.position)
        correct = [r.correct for r in ordered]
        running = [sum(correct[: i + 1]) / (i + 1) for i in range(len(correct))]
        curves.append(
            LearningCurve(dataset, config, [r.position for r in ordered], correct, running)
        )
    return curves


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) with linear interpolation between order statistics."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _latency(values: Sequence[float]) -> Latency:
    return Latency(sum(values) / len(values), percentile(values, 0.5), percentile(values, 0.95))


def _mean_recall(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _entropy(labels: Sequence[str]) -> float:
    total = len(labels)
    return 0.0 - sum(c / total * math.log2(c / total) for c in Counter(labels).values())
