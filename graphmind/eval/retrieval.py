"""``graphmind eval --retrieval-only``: recall@k of every retriever's list, no LLM.

The run directory's corpus is built once (``--extract`` decides whether it holds a
graph), then each question's lists are computed as ``graphmind ask`` computes them:
every registered retriever's ranking (``vector:chunk`` is the naive baseline's vector
top-k), their reciprocal-rank fusion (``fused:all``), the vector and graph lists' alone
(``fused:vector+graph``), and ``round1``, the first ``k``
passages the loop's round 1 shows. Recall@k is the share of a question's gold passages
among a list's top k, averaged over the questions, overall and per category (MuSiQue's
hop count, 2Wiki's and HotpotQA's question type); each list's search time is kept too.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmind.ask.options import AskOptions
from graphmind.ask.retrieve import FirstList, candidates, first_round, fuse, own_first, rank_lists
from graphmind.ask.retrievers import (
    GRAPH_PPR,
    VECTOR_CHUNK,
    Ranking,
    RetrieveOptions,
)
from graphmind.config import Settings
from graphmind.core.progress import NoProgress, Progress
from graphmind.eval.datasets import EvalQuestion
from graphmind.eval.metrics import percentile, recall_at_k
from graphmind.eval.options import EvalOptions
from graphmind.eval.rundir import Report, open_base_store
from graphmind.store.base import GraphStore

if TYPE_CHECKING:
    from graphmind.embed import Embedder

RETRIEVAL_FILE = "retrieval.json"
ROUND1 = "round1"
FUSED = "fused:all"
FUSED_GRAPH = "fused:vector+graph"
PER_LIST = 20  # how deep each retriever's list is read (as ``ask`` reads it)


@dataclass
class _Tally:
    recall: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    ms: list[float] = field(default_factory=list)

    def add(self, found: Sequence[tuple[str, str]], q: EvalQuestion, ks: Sequence[int]) -> None:
        for k in ks:
            value = recall_at_k(found, q.gold, k)
            if value is not None:
                self.recall[k].append(value)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            f"recall@{k}": round(sum(v) / len(v), 4) for k, v in sorted(self.recall.items()) if v
        }
        if self.ms:
            out["ms_p50"] = round(percentile(self.ms, 0.5), 1)
            out["ms_p95"] = round(percentile(self.ms, 0.95), 1)
        return out


def run_retrieval(
    run_dir: Path,
    options: EvalOptions,
    settings: Settings,
    say: Report = lambda _: None,
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Build (or reuse) the run's corpus and measure every list's recall@k; the result is
    also written to ``retrieval.json`` in the run directory."""
    from graphmind.factories import make_embedder

    embedder = embedder or make_embedder(settings)
    ks = sorted(set(options.recall_k))
    first = AskOptions().first
    with open_base_store(run_dir, options, settings, embedder, say, progress) as (store, run):
        questions = run.dataset.questions
        bar = progress or NoProgress()
        bar.start("questions", len(questions))
        overall: dict[str, _Tally] = defaultdict(_Tally)
        by_category: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
        vectors = embedder.embed([q.question for q in questions])
        for q, vector in zip(questions, vectors, strict=True):
            lists, ms = question_lists(store, q.question, vector, options.k, first)
            texts = list_texts(store, lists, max(ks))
            for name, ranking in lists.items():
                found = [texts[c] for c in ranking if c in texts]
                for tally in (overall[name], by_category[q.category or "all"][name]):
                    tally.add(found, q, ks)
                    if name in ms:
                        tally.ms.append(ms[name])
            bar.advance("questions", 1)
    result = {
        "dataset": run.dataset.name,
        "questions": len(questions),
        "corpus passages": len(run.dataset.corpus),
        "extract": options.extract,
        "k": options.k,
        "round1": first,
        "embedder": embedder.spec.name,
        "lists": {name: t.summary() for name, t in sorted(overall.items())},
        "by_category": {
            cat: {name: t.summary() for name, t in sorted(tallies.items())}
            for cat, tallies in sorted(by_category.items())
        },
    }
    (run_dir / RETRIEVAL_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def question_lists(
    store: GraphStore, question: str, vector: list[float], k: int, first: FirstList
) -> tuple[dict[str, Ranking], dict[str, float]]:
    """Every retriever's list (timed), their fusion and round 1's first ``k``."""
    ms: dict[str, float] = {}
    lists = rank_lists(store, question, vector, RetrieveOptions(per_list=PER_LIST), timings=ms)
    lists[FUSED] = [c for c, _, _ in fuse([lists], PER_LIST)]
    if GRAPH_PPR in lists:
        pair = {VECTOR_CHUNK: lists.get(VECTOR_CHUNK, []), GRAPH_PPR: lists[GRAPH_PPR]}
        lists[FUSED_GRAPH] = [c for c, _, _ in fuse([pair], PER_LIST)]
    nearest = lists.get(VECTOR_CHUNK, [])[:k]
    lists[ROUND1] = first_round(lists, nearest, k, own_first(question) or first)  # as ask
    return lists, ms


def list_texts(
    store: GraphStore, lists: dict[str, Ranking], depth: int
) -> dict[str, tuple[str, str]]:
    """(title, text) of every chunk in the lists' top ``depth``."""
    ids = list(dict.fromkeys(c for ranking in lists.values() for c in ranking[:depth]))
    return {c.id: (c.title, c.text) for c in candidates(store, [(i, 0.0, []) for i in ids], 0)}


def format_table(result: dict[str, Any]) -> str:
    """The result as a plain-text table: one line per list, overall then per category."""
    lines = [
        f"{result['dataset']}: {result['questions']} questions, {result['corpus passages']} "
        f"passages, extract {result['extract']}, round 1 = {result['round1']}"
    ]
    for title, lists in [("all", result["lists"]), *result["by_category"].items()]:
        lines.append(f"\n[{title}]")
        for name, values in lists.items():
            cells = "  ".join(f"{key} {value}" for key, value in values.items())
            lines.append(f"  {name:16} {cells}")
    return "\n".join(lines)
