"""The evaluation report's three charts, drawn with matplotlib's Agg backend."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmind.core.errors import ConfigError
from graphmind.eval.metrics import COVERAGE_BINS, ConfigSummary, DoseCell, LearningCurve

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _figure(rows: int, cols: int, width: float) -> tuple[Figure, Any]:
    """A figure drawn with the Agg backend (no display, no global pyplot state)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ConfigError(
            "the evaluation report draws its charts with matplotlib; install it with "
            "pip install 'graphmind[eval]'"
        ) from None
    figure = Figure(figsize=(width, 3.6 * rows), layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.subplots(rows, cols, squeeze=False)


def plot_dose_response(path: Path, datasets: list[str], doses: list[DoseCell], base: str) -> None:
    figure, axes = _figure(len(datasets), 1, 8.0)
    for ax, dataset in zip(axes[:, 0], datasets, strict=True):
        cells = [d for d in doses if d.dataset == dataset]
        configs = list(dict.fromkeys(d.config for d in cells))
        ax.set_title(f"{dataset}: accuracy Δ vs {base} by evidence-profile coverage")
        ax.set_xticks(range(len(COVERAGE_BINS)), COVERAGE_BINS)
        ax.set_ylabel("Δ accuracy (pp)")
        ax.axhline(0, color="grey", linewidth=0.8)
        if not configs:
            ax.text(0.5, 0.5, f"no {base} baseline", transform=ax.transAxes, ha="center")
            continue
        width = 0.8 / len(configs)
        for i, config in enumerate(configs):
            mine = [d for d in cells if d.config == config]
            xs = [b + (i - (len(configs) - 1) / 2) * width for b in range(len(mine))]
            heights = [100 * d.delta if d.delta is not None else 0.0 for d in mine]
            bars = ax.bar(xs, heights, width, label=config)
            ax.bar_label(bars, labels=[f"n={d.n}" for d in mine], fontsize=7)
        ax.legend(fontsize=8)
    figure.savefig(path, dpi=110)


def plot_learning_curves(path: Path, datasets: list[str], curves: list[LearningCurve]) -> None:
    figure, axes = _figure(len(datasets), 1, 8.0)
    for ax, dataset in zip(axes[:, 0], datasets, strict=True):
        for curve in (c for c in curves if c.dataset == dataset):
            ax.plot(curve.positions, curve.running, label=curve.config)
        ax.set_title(f"{dataset}: running accuracy in asking order")
        ax.set_xlabel("position")
        ax.set_ylabel("accuracy")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=8)
    figure.savefig(path, dpi=110)


def plot_cost_latency(path: Path, datasets: list[str], summaries: list[ConfigSummary]) -> None:
    figure, axes = _figure(len(datasets), 2, 11.0)
    for row, dataset in zip(axes, datasets, strict=True):
        mine = [s for s in summaries if s.dataset == dataset]
        names = [s.config for s in mine]
        row[0].bar(names, [s.tokens_mean for s in mine])
        row[0].set_title(f"{dataset}: tokens per question")
        llm = [s.llm.mean_ms / 1000 for s in mine]
        store = [s.store.mean_ms / 1000 for s in mine]
        timed = [a + b for a, b in zip(llm, store, strict=True)]
        other = [max(0.0, s.latency.mean_ms / 1000 - t) for s, t in zip(mine, timed, strict=True)]
        row[1].bar(names, llm, label="LLM")
        row[1].bar(names, store, bottom=llm, label="store")
        row[1].bar(names, other, bottom=timed, label="other")
        row[1].set_title(f"{dataset}: latency per question (s)")
        row[1].legend(fontsize=8)
    figure.savefig(path, dpi=110)
