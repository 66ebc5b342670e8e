"""Broad questions (global search, LightRAG's UltraDomain style) over a real manual
(Python's documentation by default): naive, the loop and the broad scope answer each, and
the configured model judges broad against each of the others, pairwise and in both orders.

    apt-get install python3.11-doc
    GRAPHMIND_LLM_MODEL=qwen2.5-coder-1.5b python scripts/eval_broad.py \
        --docs /usr/share/doc/python3.11/html --run-dir eval-runs/pydocs-broad

The manual's HTML pages are built once into the run directory's store with fast
extraction and communities, no model at build time (a community is titled by its members'
names; the broad scope summarises those it reads at question time). Each question is asked
by each configuration, with the full answer. The judge then names the better of broad's
answer and the other's on LightRAG's criteria (comprehensiveness, diversity, empowerment)
and overall, once with broad's as answer 1 and once as answer 2, to cancel position bias.
The report gives broad's win rate per criterion (a tie counts half) with two 95% intervals
(a bootstrap over questions, Wilson over judgements), how often the two orders name the
same winner (the judge's noise) and the median seconds per configuration. Answers and
judgements are appended to ``results.jsonl`` and ``judged.jsonl`` (resumable) and model
responses cached in the run.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, WithJsonSchema, model_validator

from graphmind.ask.loop import AskLoop, AskOptions
from graphmind.config import Settings, load_settings
from graphmind.core.decision import Decision, full_answer, numbered_sources
from graphmind.core.errors import GraphMindError
from graphmind.embed.base import Embedder
from graphmind.factories import make_llm
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
    read_jsonl,
    share,
)

DEFAULT_QUESTIONS = Path(__file__).resolve().parent / "questions" / "python_docs_broad.json"
BROAD = "broad"
# what each configuration sets on AskOptions beside the knobs they share
CONFIGS: dict[str, dict[str, str]] = {
    "naive": {"mode": "naive", "scope": "deep"},
    "loop": {"mode": "loop", "scope": "deep"},
    BROAD: {"scope": "broad"},
}
CRITERIA = ("comprehensiveness", "diversity", "empowerment", "overall")
ANSWER_CHARS = 3000  # of each answer shown to the judge
JUDGE_MAX_TOKENS = 48  # four one-character choices in JSON
RESAMPLES = 2000  # the bootstrap's, over questions
SEED = 0
Z95 = 1.96

JUDGE_PROMPT = (
    "You compare two answers to the same broad question about a software manual on three "
    "criteria. Comprehensiveness: how much detail the answer gives to cover every aspect of "
    "the question. Diversity: how varied and rich the perspectives and insights it offers "
    "are. Empowerment: how well it helps the reader understand the topic and make informed "
    "judgements. For each criterion name the better answer, then the overall winner on the "
    'three. Return JSON: "comprehensiveness", "diversity", "empowerment" and "overall", '
    'each "1" or "2".'
)

# the schema offers "1" or "2" (LightRAG's judge must choose); a "tie" said anyway is read
Choice = Annotated[Literal["1", "2", "tie"], WithJsonSchema({"type": "string", "enum": ["1", "2"]})]


def choice(value: Any) -> Any:
    """A judge's word for an answer as "1", "2" or "tie" ("Answer 2", 1, "Tie"); anything
    else passes through (and fails validation)."""
    text = str(value).strip().lower()
    one, two = "1" in text, "2" in text
    if one != two:
        return "1" if one else "2"
    if any(word in text for word in ("tie", "both", "equal", "neither")):
        return "tie"
    return text


class Verdicts(BaseModel):
    """The pairwise judge's better answer per criterion and overall."""

    comprehensiveness: Choice
    diversity: Choice
    empowerment: Choice
    overall: Choice

    @model_validator(mode="before")
    @classmethod
    def _loose(cls, data: Any) -> Any:
        """Also LightRAG's own shape: capitalised keys, "Overall Winner", values as
        ``{"Winner": "Answer 1", "Explanation": ...}``."""
        if not isinstance(data, dict):
            return data
        out: dict[str, Any] = {}
        for key, value in data.items():
            if isinstance(value, dict):
                value = next((v for k, v in value.items() if str(k).lower() == "winner"), None)
            out[re.split(r"[\s_]+", str(key).strip().lower())[0]] = choice(value)
        return out


def ask_options(config: str, k: int) -> AskOptions:
    """The options ``config`` asks with: no recording, no memory, the full answer."""
    knobs: dict[str, Any] = {
        **CONFIGS[config],
        "k": k,
        "record": False,
        "memory": MemoryOptions(mode="off"),
        "explain": True,
    }
    return AskOptions(**knobs)


def answer_row(q: dict[str, Any], config: str, d: Decision) -> dict[str, Any]:
    """What one configuration answered: the short and full answer, its time, how many
    passages it cites and (broad) the communities it read and used."""
    communities = getattr(d, "communities", [])
    return {
        "id": q["id"],
        "config": config,
        "mode": d.mode,
        "answer": d.answer,
        "abstained": d.abstained,
        "full_answer": full_answer(d),
        "seconds": round(d.latency_ms / 1000, 2),
        "passages": len(numbered_sources(d)),
        "communities": sum(1 for c in communities if c.verdict == "used"),
        "communities_read": [
            {"id": c.id, "title": c.title, "verdict": c.verdict, "reason": c.reason}
            for c in communities
        ],
    }


def ask_all(
    settings: Settings,
    llm: LLM,
    questions: list[dict[str, Any]],
    results: Path,
    k: int,
    configs: list[str],
) -> None:
    """Each question by each configuration, appended to ``results`` (done ones skipped)."""

    def answer(store: GraphStore, embedder: Embedder, q: dict[str, Any], config: str) -> Row:
        return answer_row(
            q, config, AskLoop(store, embedder, llm, ask_options(config, k)).ask(q["question"])
        )

    def line(row: Row) -> str:
        return (
            f"{row['seconds']:6.1f}s {row['passages']} passage(s) {row['communities']} "
            f"communities {row['answer'][:50]!r}"
        )

    ask_each(settings, questions, configs, results, answer, line)


def others(configs: list[str]) -> list[str]:
    """The configurations broad is judged against (none without broad)."""
    return [c for c in configs if c != BROAD] if BROAD in configs else []


def judge_all(
    llm: LLM, questions: list[dict[str, Any]], results: Path, judged: Path, configs: list[str]
) -> None:
    """Broad against each other configuration, in both orders, appended to ``judged``
    (done pairs, and questions a configuration has not answered, skipped)."""
    rows = {(r["id"], r["config"]): r for r in read_jsonl(results)}
    done = {(r["id"], r["other"]) for r in read_jsonl(judged)}
    for q in questions:
        for other in others(configs):
            pair = rows.get((q["id"], BROAD)), rows.get((q["id"], other))
            if (q["id"], other) in done or pair[0] is None or pair[1] is None:
                continue
            broad, theirs = pair[0]["full_answer"], pair[1]["full_answer"]
            out = {
                "id": q["id"],
                "other": other,
                "broad_first": judge(llm, q["question"], broad, theirs),
                "broad_second": judge(llm, q["question"], theirs, broad),
            }
            append_jsonl(judged, out)
            print(
                f"judged {q['id']} broad vs {other}: overall "
                f"{out['broad_first']['overall']} / {out['broad_second']['overall']}",
                flush=True,
            )


def judge(llm: LLM, question: str, first: str, second: str) -> dict[str, str]:
    """The judge's choice per criterion between answer 1 (``first``) and 2 (``second``)."""
    messages = [
        {"role": "system", "content": JUDGE_PROMPT},
        {
            "role": "user",
            "content": f"Question: {question}\n\nAnswer 1: {first[:ANSWER_CHARS]}\n\n"
            f"Answer 2: {second[:ANSWER_CHARS]}",
        },
    ]
    verdicts = llm.structured("judge_broad", messages, Verdicts, max_tokens=JUDGE_MAX_TOKENS)
    return verdicts.model_dump()


def score(said: str, broad: str) -> float:
    """One order's judgement for broad, which was answer ``broad``: 1 a win, 0.5 a tie,
    0 a loss."""
    return 1.0 if said == broad else 0.5 if said == "tie" else 0.0


def winner(said: str, broad: str) -> str:
    """Whom one order's judgement names: "broad", "other" or "tie"."""
    return "tie" if said == "tie" else BROAD if said == broad else "other"


def pair_stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Broad's win rate per criterion over judged rows (both orders of one question
    each), its 95% intervals and how often the two orders agree."""
    table: dict[str, Any] = {"questions": len(rows)}
    for criterion in CRITERIA:
        said = [(r["broad_first"][criterion], r["broad_second"][criterion]) for r in rows]
        per_question = [(score(a, "1") + score(b, "2")) / 2 for a, b in said]
        rate = sum(per_question) / len(per_question) if per_question else None
        table[criterion] = {
            "win_rate": round(rate, 3) if rate is not None else None,
            "bootstrap_95": bootstrap(per_question),
            "wilson_95": wilson(rate, 2 * len(rows)) if rate is not None else None,
            "orders_agree": share([winner(a, "1") == winner(b, "2") for a, b in said]),
        }
    return table


def bootstrap(values: list[float], resamples: int = RESAMPLES, seed: int = SEED) -> list[float]:
    """The 95% percentile interval of the mean, resampling ``values`` (one per question)
    with replacement; empty for no values."""
    if not values:
        return []
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return [
        round(means[round(0.025 * (resamples - 1))], 3),
        round(means[round(0.975 * (resamples - 1))], 3),
    ]


def wilson(rate: float, n: int, z: float = Z95) -> list[float]:
    """Wilson's 95% interval for a share ``rate`` of ``n`` judgements (a tie is half a
    win, which the interval treats as if it were a share of wins); empty for none."""
    if n == 0:
        return []
    denominator = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / denominator
    return [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]


def report(
    questions: list[dict[str, Any]], results: Path, judged: Path, configs: list[str]
) -> dict[str, Any]:
    """Times per configuration and broad's pairwise numbers, over the questions asked."""
    ids = [q["id"] for q in questions]
    rows = {(r["id"], r["config"]): r for r in read_jsonl(results)}
    verdicts = {(r["id"], r["other"]): r for r in read_jsonl(judged)}
    table: dict[str, Any] = {
        "questions": len(ids),
        "questions_judged": len({i for i in ids for o in others(configs) if (i, o) in verdicts}),
    }
    for config in configs:
        answered = [rows[(i, config)] for i in ids if (i, config) in rows]
        table[config] = {
            "answered": len(answered),
            "median_s": median([r["seconds"] for r in answered]),
            "median_passages": median([r["passages"] for r in answered]),
        }
        if config == BROAD:
            table[config]["median_communities"] = median([r["communities"] for r in answered])
    both = [i for i in ids if (i, BROAD) in rows and (i, "naive") in rows]
    naive_s = statistics.median([rows[(i, "naive")]["seconds"] for i in both]) if both else 0
    table["broad_time_vs_naive"] = (
        round(statistics.median([rows[(i, BROAD)]["seconds"] for i in both]) / naive_s, 2)
        if naive_s
        else None
    )
    for other in others(configs):
        pair = [verdicts[(i, other)] for i in ids if (i, other) in verdicts]
        table[f"broad_vs_{other}"] = pair_stats(pair)
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, required=True, help="the manual's HTML folder")
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, help="N questions, spread over the set")
    parser.add_argument("--ids", help="only these questions (comma-separated ids)")
    parser.add_argument("--k", type=int, default=AskOptions.k)
    parser.add_argument("--store", help="a Neo4j URI instead of the run's FalkorDB Lite file")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated")
    parser.add_argument("--no-judge", action="store_true", help="ask only")
    args = parser.parse_args()
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown or not configs:
        parser.error(f"--configs takes some of {', '.join(CONFIGS)} (got {args.configs!r})")
    try:
        args.run_dir.mkdir(parents=True, exist_ok=True)
        questions = chosen(args.questions, args.limit, args.ids)
        store = args.store or f"falkordb-lite://{(args.run_dir / 'store.db').resolve()}"
        settings = load_settings(store=store)
        llm = make_llm(settings, cache_dir=args.run_dir)
        if llm is None:
            raise GraphMindError("no model: run scripts/fetch_model.py or set an endpoint")
        build_manual(settings, args.docs, args.run_dir, "fast", communities=True)
        results, judged = args.run_dir / "results.jsonl", args.run_dir / "judged.jsonl"
        ask_all(settings, llm, questions, results, args.k, configs)
        if not args.no_judge:
            llm.temperature = 0.0  # the judge's, whatever the answers were asked at
            judge_all(llm, questions, results, judged, configs)
        table = report(questions, results, judged, configs)
        (args.run_dir / "report.json").write_text(json.dumps(table, indent=2))
    except (GraphMindError, OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(table, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
