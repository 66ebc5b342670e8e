"""Where the ask loop's store time goes, per named query, on an already built store.

Asks questions from a 2Wiki/HotpotQA-style JSON list (``{"question": …}`` records) with
the loop (``record`` on) and a zero-latency scripted LLM (it answers from the first
passage and finds every answer complete; the loop's rules still run later rounds where
the question has a next hop), so that only the store's side is timed: the loop's
``store_ms`` per question (retrieval, profiles, the decision's write, and the query
embeddings, which the loop books there) as p50 / p90 / p95, and each named query's
milliseconds per question. Two untimed questions warm the server up first. The store is
the configured one (``GRAPHMIND_STORE``, or ``--store``) with its own embedder; each
question adds a decision to it.

    .venv/bin/python scripts/bench_ask_store.py QUESTIONS.json --store URI [--limit 40]
        [--skip 100] [--top 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from graphmind.ask.loop import AskLoop
from graphmind.ask.options import AskOptions
from graphmind.config import Settings, load_settings
from graphmind.core.errors import GraphMindError
from graphmind.factories import make_embedder, open_store
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from graphmind.store.base import GraphStore, QueryResult
from scripts.benchkit import responder

WARM_UP = ("Who directed the film Titanic?", "Where was the composer of Tosca born?")


def percentile(values: list[float], p: int) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, len(ranked) * p // 100)]


def timed_queries(store: GraphStore) -> dict[str, list[float]]:
    """From now on, each named query's milliseconds (a query the store runs for another,
    such as a full-text search's own reads, counts under the name that ran it)."""
    times: dict[str, list[float]] = defaultdict(list)
    current = ["?"]
    run, write_rows, execute = store.run, store.write_rows, store._execute

    def named(name: str, params: Mapping[str, Any] | None = None, **kw: Any) -> Any:
        current[0] = name
        return run(name, params, **kw)

    def written(name: str, rows: Any, **kw: Any) -> int:
        current[0] = name
        return write_rows(name, rows, **kw)

    def clocked(text: str, params: Mapping[str, Any], **kw: Any) -> QueryResult:
        started = time.perf_counter()
        try:
            return execute(text, params, **kw)
        finally:
            times[current[0]].append((time.perf_counter() - started) * 1000)

    store.run = named  # type: ignore[method-assign]
    store.write_rows = written  # type: ignore[method-assign]
    store._execute = clocked  # type: ignore[method-assign]
    return times


def measure(store: GraphStore, settings: Settings, questions: list[str]) -> dict[str, Any]:
    """Ask each question; the store time's percentiles and the per-query totals."""
    loop = AskLoop(
        store,
        make_embedder(settings),
        LLM(ScriptedProvider(responder(0.0)), cache=None),
        AskOptions(mode="loop", record=True),
    )
    for question in WARM_UP:
        loop.ask(question)
    times = timed_queries(store)
    store_ms: list[float] = []
    rounds: Counter[int] = Counter()
    for question in questions:
        decision = loop.ask(question)
        store_ms.append(decision.store_ms)
        rounds[len(decision.rounds)] += 1
    n = len(questions)
    queries = sorted(times.items(), key=lambda item: -sum(item[1]))
    return {
        "questions": n,
        "rounds": {str(k): v for k, v in sorted(rounds.items())},
        "store_ms": {
            "p50": percentile(store_ms, 50),
            "p90": percentile(store_ms, 90),
            "p95": percentile(store_ms, 95),
            "mean": sum(store_ms) / n,
        },
        "queries_ms_per_question": sum(sum(v) for v in times.values()) / n,
        "queries": [
            {
                "name": name,
                "ms_per_question": sum(values) / n,
                "calls": len(values),
                "mean_ms": sum(values) / len(values),
                "max_ms": max(values),
            }
            for name, values in queries
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--store", help="store URI (default: the configured store)")
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--skip", type=int, default=0, help="questions skipped first")
    parser.add_argument("--top", type=int, default=15, help="queries listed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    console = Console()
    try:
        records = json.loads(args.questions.read_text(encoding="utf-8"))
        questions = [str(r["question"]) for r in records[args.skip : args.skip + args.limit]]
        if not questions:
            raise GraphMindError(f"no questions in {args.questions} after skipping {args.skip}")
        settings = load_settings(store=args.store) if args.store else load_settings()
        with open_store(settings, shared=True) as store:
            report = measure(store, settings, questions)
    except (OSError, ValueError, KeyError, GraphMindError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 1
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    ms = report["store_ms"]
    console.print(
        f"{report['questions']} questions (rounds: {report['rounds']}): store ms p50 "
        f"{ms['p50']:.0f} / p90 {ms['p90']:.0f} / p95 {ms['p95']:.0f} / mean {ms['mean']:.0f}; "
        f"named queries {report['queries_ms_per_question']:.0f} ms per question"
    )
    table = Table("query", "ms / question", "calls", "mean ms", "max ms")
    for q in report["queries"][: args.top]:
        table.add_row(
            q["name"],
            f"{q['ms_per_question']:.1f}",
            str(q["calls"]),
            f"{q['mean_ms']:.1f}",
            f"{q['max_ms']:.1f}",
        )
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
