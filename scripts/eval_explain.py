"""Full answers on explanatory questions: citation precision, answer support, echoes and a
pairwise judge against naive, over a real manual (Python's documentation by default).

    apt-get install python3.11-doc
    GRAPHMIND_LLM_MODEL=qwen2.5-coder-1.5b python scripts/eval_explain.py \
        --docs /usr/share/doc/python3.11/html \
        --questions scripts/questions/python_docs_explain.json --run-dir eval-runs/pydocs

The manual's HTML pages are built once into the run directory's store (chunk-only unless
``--extract fast``); each question is asked by naive (vector top-k, one answer call) and
by the loop, both with the full answer; then the configured model judges: whether each
cited passage supports the sentence that cites it (citation precision; a sentence is
supported when one of its passages is: answer support), and which of the two full
answers better answers the question in light of the manual's reference answer, in both
orders, its odds cancelling its position bias (``graphmind.eval.pairwise``). A full answer
that only restates the question is an echo (a rule, no model). Answers and judgements are
appended to ``results.jsonl`` and ``judged.jsonl`` (resumable) and model responses cached
in the run; ``spot.md`` lists 20 judged sentence-passage pairs to check by hand.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graphmind.ask.loop import AskLoop, AskOptions
from graphmind.ask.rules.question import restates_question
from graphmind.ask.rules.text import restates
from graphmind.config import Settings, load_settings
from graphmind.core.decision import Decision, full_answer, numbered_sources
from graphmind.core.errors import GraphMindError
from graphmind.embed.base import Embedder
from graphmind.eval.pairwise import Choice, Judgement, judge_pair, pair_prompt, win_rate
from graphmind.eval.retrieval import list_texts, question_lists
from graphmind.factories import make_embedder, make_llm, open_store
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.memory.session import MemoryOptions
from graphmind.store.base import GraphStore
from scripts.benchkit import (
    Row,
    append_jsonl,
    ask_each,
    build_manual,
    chosen,
    median,
    parse_configs,
    read_jsonl,
    share,
)

CONFIGS = ("naive", "loop")
PASSAGE_CHARS = 1200  # of a cited passage shown to the support judge
SPOT_PAIRS = 20


class Support(BaseModel):
    """The support judge's verdict on one sentence and one passage."""

    supported: bool = False


class Preference(BaseModel):
    """The pairwise judge's choice."""

    better: Choice


SUPPORT_PROMPT = (
    'You check a sentence against a passage. Return JSON: "supported": true if the passage '
    "states what the sentence says (in the same or other words), false if the sentence says "
    "something the passage does not."
)
PAIRWISE_PROMPT = (
    "You compare two answers to a question about a software manual. A reference answer from "
    "the manual is given. Prefer the answer that explains the question correctly and "
    "usefully, agrees with the reference and does not just repeat the question. Return "
    'JSON: "better": "1" or "2".'
)


def answer_row(q: dict[str, Any], config: str, d: Decision, explain_s: float) -> dict[str, Any]:
    """What one configuration answered: short and full answer, the sentences with their
    passages' texts, and the time (the full answer's call apart)."""
    sources = numbered_sources(d)
    by_id = {c.chunk_id: c.text for c in sources}
    return {
        "id": q["id"],
        "config": config,
        "answer": d.answer,
        "abstained": d.abstained,
        "grade": d.sufficiency.value,
        "full_answer": full_answer(d),
        "sentences": [
            {"text": s.text, "passages": [by_id[c] for c in s.chunks if c in by_id]}
            for s in d.explanation
        ],
        "echo": echoes(q["question"], d),
        "seconds": round(d.latency_ms / 1000, 2),
        "explain_seconds": round(explain_s, 2),
        "rounds": len(d.rounds),
    }


def echoes(question: str, d: Decision) -> bool:
    """Whether the answer shown only restates the question: every sentence of the full
    answer, or the short answer when there is no full one."""
    if d.explanation:
        return all(restates(s.text, question, "") for s in d.explanation)
    return not d.abstained and restates_question(question, d.answer)


def ask_all(
    settings: Settings,
    llm: LLM,
    questions: list[dict[str, Any]],
    results: Path,
    k: int,
    configs: Sequence[str] = CONFIGS,
) -> None:
    """Each question by each configuration, appended to ``results`` (done ones skipped)."""

    def answer(store: GraphStore, embedder: Embedder, q: dict[str, Any], config: str) -> Row:
        options = AskOptions(
            mode="naive" if config == "naive" else "loop",
            k=k,
            record=False,
            memory=MemoryOptions(mode="off"),
        )
        before = explain_seconds(llm)
        d = AskLoop(store, embedder, llm, options).ask(q["question"])
        return answer_row(q, config, d, explain_seconds(llm) - before)

    def line(row: Row) -> str:
        return f"{row['seconds']:6.1f}s {len(row['sentences'])} sentence(s) {row['answer'][:50]!r}"

    ask_each(settings, questions, configs, results, answer, line)


def explain_seconds(llm: LLM) -> float:
    """Seconds the model has spent on full answers so far."""
    return llm.ledger.get("explain").seconds


def judge_all(llm: LLM, questions: list[dict[str, Any]], results: Path, judged: Path) -> None:
    """Support of every sentence-passage pair and the pairwise choice in both orders."""
    rows = {(r["id"], r["config"]): r for r in read_jsonl(results)}
    done = {r["id"] for r in read_jsonl(judged)}
    for q in questions:
        pair = rows.get((q["id"], "naive")), rows.get((q["id"], "loop"))
        if q["id"] in done or None in pair:
            continue
        out: dict[str, Any] = {"id": q["id"], "support": {}}
        for row in pair:
            assert row is not None
            out["support"][row["config"]] = [
                [supports(llm, s["text"], p) for p in s["passages"]] for s in row["sentences"]
            ]
        naive, loop = (r["full_answer"] if r else "" for r in pair)
        said = judge_pair(
            llm,
            "judge_pairwise",
            pairwise_messages(q),
            Preference,
            ["better"],
            loop,
            naive,
            max_tokens=16,
        )["better"]  # A is the loop's
        out["pairwise"] = said.as_dict()
        append_jsonl(judged, out)
        print(
            f"judged {q['id']}: {said.a_first} / {said.a_second}, P(loop better) {said.p_a:.2f}",
            flush=True,
        )


def supports(llm: LLM, sentence: str, passage: str) -> bool:
    messages = [
        {"role": "system", "content": SUPPORT_PROMPT},
        {
            "role": "user",
            "content": f"Passage: {passage[:PASSAGE_CHARS]}\n\nSentence: {sentence}",
        },
    ]
    return llm.structured("judge_support", messages, Support, max_tokens=16).supported


def pairwise_messages(q: dict[str, Any]) -> Callable[[str, str], list[Message]]:
    """The pairwise judge's prompt for question ``q``, given answer 1 and answer 2."""
    head = f"Question: {q['question']}\n\nReference answer: {q['reference']}"
    return pair_prompt(PAIRWISE_PROMPT, head)


def report(questions: list[dict[str, Any]], results: Path, judged: Path) -> dict[str, Any]:
    """The measured numbers, per configuration, over the questions judged."""
    rows = {(r["id"], r["config"]): r for r in read_jsonl(results)}
    verdicts = {r["id"]: r for r in read_jsonl(judged)}
    ids = [q["id"] for q in questions if q["id"] in verdicts]
    table: dict[str, Any] = {"questions": len(ids)}
    for config in CONFIGS:
        pairs = [ok for i in ids for s in verdicts[i]["support"][config] for ok in s]
        sentences = [any(s) for i in ids for s in verdicts[i]["support"][config]]
        seconds = [rows[(i, config)]["seconds"] for i in ids]
        without = [rows[(i, config)]["seconds"] - rows[(i, config)]["explain_seconds"] for i in ids]
        table[config] = {
            "citation_precision": share(pairs),
            "answer_support": share(sentences),
            "sentences": len(sentences),
            "explained": sum(1 for i in ids if rows[(i, config)]["sentences"]),
            "echoes": sum(1 for i in ids if rows[(i, config)]["echo"]),
            "median_s": median(seconds),
            "median_s_short": median(without),
        }
    table["loop_vs_naive"] = win_rate([Judgement.from_dict(verdicts[i]["pairwise"]) for i in ids])
    return table


def spot_check(results: Path, judged: Path, out: Path) -> None:
    """``SPOT_PAIRS`` judged sentence-passage pairs, drawn at random, to check by hand."""
    rows = {(r["id"], r["config"]): r for r in read_jsonl(results)}
    pairs = [
        (v["id"], config, s["text"], passage, ok)
        for v in read_jsonl(judged)
        for config, marks in v["support"].items()
        for s, oks in zip(rows[(v["id"], config)]["sentences"], marks, strict=True)
        for passage, ok in zip(s["passages"], oks, strict=True)
    ]
    chosen = random.Random(0).sample(pairs, min(SPOT_PAIRS, len(pairs)))
    lines = ["# Support judgements to check by hand", ""]
    for qid, config, sentence, passage, ok in chosen:
        lines += [
            f"## {qid} ({config}): judged {'supported' if ok else 'not supported'}",
            f"Sentence: {sentence}",
            f"Passage: {' '.join(passage.split())[:600]}",
            "",
        ]
    out.write_text("\n".join(lines), encoding="utf-8")


OPENING_WORDS = 8  # a passage holds the reference when it holds its first words in order
RECALL_K = (1, 3, 5, 10)


def reference_recall(settings: Settings, questions: list[dict[str, Any]], k: int) -> Row:
    """For each list ``ask`` ranks (``vector:chunk`` is naive's, ``round1`` what the
    loop's round 1 shows), the share of questions with a passage among its top n that
    holds the reference answer's opening words (the manual's own answer to it). No LLM."""
    first = AskOptions().first
    hits: dict[str, dict[int, list[bool]]] = {}
    with open_store(settings) as store:
        embedder = make_embedder(settings)
        vectors = embedder.embed([q["question"] for q in questions])
        for q, vector in zip(questions, vectors, strict=True):
            opening = " ".join(_words(q["reference"])[:OPENING_WORDS])
            lists, _ = question_lists(store, q["question"], vector, k, first)
            texts = list_texts(store, lists, max(RECALL_K))
            for name, ranking in lists.items():
                found = [opening in " ".join(_words(texts[c][1])) for c in ranking if c in texts]
                for n in RECALL_K:
                    hits.setdefault(name, {}).setdefault(n, []).append(any(found[:n]))
    return {
        name: {f"recall@{n}": share(values) for n, values in sorted(by_n.items())}
        for name, by_n in sorted(hits.items())
    }


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, required=True, help="the manual's HTML folder")
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, help="N questions, spread over the set")
    parser.add_argument("--ids", help="only these questions (comma-separated ids)")
    parser.add_argument("--k", type=int, default=AskOptions.k)
    parser.add_argument("--extract", choices=("none", "fast"), default="none")
    parser.add_argument("--store", help="a Neo4j URI instead of the run's FalkorDB Lite file")
    parser.add_argument("--no-judge", action="store_true", help="ask only")
    parser.add_argument(
        "--configs",
        default=",".join(CONFIGS),
        help="comma-separated, of naive and loop (the judge needs both)",
    )
    parser.add_argument(
        "--retrieval-only",
        action="store_true",
        help="no LLM: whether each list's top passages hold the manual's reference answer",
    )
    args = parser.parse_args()
    configs = parse_configs(parser, args.configs, CONFIGS)
    args.run_dir.mkdir(parents=True, exist_ok=True)
    try:
        questions = chosen(args.questions, args.limit, args.ids)
        store = args.store or f"falkordb-lite://{(args.run_dir / 'store.db').resolve()}"
        settings = load_settings(store=store)
        build_manual(settings, args.docs, args.run_dir, args.extract, communities=False)
        recall = reference_recall(settings, questions, args.k)
        (args.run_dir / "recall.json").write_text(json.dumps(recall, indent=2))
        if args.retrieval_only:
            print(json.dumps(recall, indent=2))
            return 0
        llm = make_llm(settings, cache_dir=args.run_dir)
        if llm is None:
            raise GraphMindError("no model: run scripts/fetch_model.py or set an endpoint")
        results, judged = args.run_dir / "results.jsonl", args.run_dir / "judged.jsonl"
        ask_all(settings, llm, questions, results, args.k, configs)
        if not args.no_judge:
            judge_all(llm, questions, results, judged)  # the same model, at temperature 0
            spot_check(results, judged, args.run_dir / "spot.md")
        table = {**report(questions, results, judged), "reference_recall": recall}
    except (GraphMindError, OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    (args.run_dir / "report.json").write_text(json.dumps(table, indent=2))
    print(json.dumps(table, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
