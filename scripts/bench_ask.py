"""Time the ask loop on benchmark questions against an already built store.

Reads a 2Wiki/HotpotQA-style JSON list of ``{"question", "answer"}`` records, asks the
first N with the configured store and LLM, and prints per-round store and LLM time,
tokens per question, and the answers next to the gold ones. Asserts nothing.

    GRAPHMIND_STORE=... .venv/bin/python scripts/bench_ask.py QUESTIONS.json [--limit 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from graphmind import api
from graphmind.ask.options import AskOptions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--max-rounds", type=int, default=3)
    args = parser.parse_args()
    records = json.loads(args.questions.read_text(encoding="utf-8"))[: args.limit]
    console = Console()
    rounds = Table(
        "q", "round", "candidates", "grade", "store ms", "LLM ms", "tokens", title="per round"
    )
    questions = Table(
        "q", "question", "answer", "gold", "rounds", "tokens", "seconds", title="per question"
    )
    totals = []
    for number, record in enumerate(records, start=1):
        started = time.perf_counter()
        decision = api.ask(record["question"], AskOptions(k=args.k, max_rounds=args.max_rounds))
        seconds = time.perf_counter() - started
        totals.append((decision.tokens, seconds, decision.store_ms, decision.llm_ms))
        for r in decision.rounds:
            rounds.add_row(
                str(number),
                str(r.number),
                str(len(r.candidates)),
                r.judgement.sufficiency.value,
                f"{r.store_ms:.0f}",
                f"{r.llm_ms:.0f}",
                str(r.tokens),
            )
        questions.add_row(
            str(number),
            record["question"],
            decision.answer,
            str(record.get("answer", "")),
            str(len(decision.rounds)),
            str(decision.tokens),
            f"{seconds:.1f}",
        )
    console.print(rounds)
    console.print(questions)
    if totals:
        console.print(
            f"mean per question: {statistics.mean(t[0] for t in totals):.0f} tokens, "
            f"{statistics.mean(t[1] for t in totals):.1f} s "
            f"(store {statistics.mean(t[2] for t in totals) / 1000:.1f} s, "
            f"LLM {statistics.mean(t[3] for t in totals) / 1000:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
