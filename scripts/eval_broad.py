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
and overall, once with broad's as answer 1 and once as answer 2, and the log-probabilities
of its choices cancel its position bias (``graphmind.eval.pairwise``). The report gives,
per criterion, broad's win rate (the mean probability that broad's answer is better, with
a bootstrap 95% interval), wins, ties and losses (Wilson's interval), what the verdicts
alone give, how often the two orders name the same winner and how far the judge leaned on
position (the judge's noise), and the median seconds per configuration. Answers and
judgements are appended to ``results.jsonl`` and ``judged.jsonl`` (resumable) and model
responses cached in the run; ``--record FOLDER`` saves the three there and starts a new run
directory from them (``eval-records/pydocs-broad``).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, model_validator

from graphmind.ask.loop import AskLoop, AskOptions
from graphmind.config import Settings, load_settings
from graphmind.core.decision import Decision, full_answer, numbered_sources
from graphmind.core.errors import GraphMindError
from graphmind.embed.base import Embedder
from graphmind.eval.carry import restore_responses, save_responses
from graphmind.eval.pairwise import (
    Choice,
    Judgement,
    judge_pair,
    pair_prompt,
    win_rate,
)
from graphmind.factories import make_llm
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.memory.session import MemoryOptions
from graphmind.store.base import GraphStore
from scripts.benchkit import (
    BROAD,
    BROAD_CRITERIA,
    BROAD_QUESTIONS,
    Row,
    append_jsonl,
    ask_each,
    build_manual,
    chosen,
    median,
    parse_configs,
    read_jsonl,
)

# what each configuration sets on AskOptions beside the knobs they share
CONFIGS: dict[str, dict[str, str]] = {
    "naive": {"mode": "naive", "scope": "deep"},
    "loop": {"mode": "loop", "scope": "deep"},
    BROAD: {"scope": "broad"},
}
RESULTS, JUDGED = "results.jsonl", "judged.jsonl"
RECORD_FILES = (RESULTS, JUDGED)  # with the responses: what --record carries
ANSWER_CHARS = 3000  # of each answer shown to the judge
JUDGE_MAX_TOKENS = 48  # four one-character choices in JSON
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")

JUDGE_PROMPT = (
    "You compare two answers to the same broad question about a software manual on three "
    "criteria. Comprehensiveness: how much detail the answer gives to cover every aspect of "
    "the question. Diversity: how varied and rich the perspectives and insights it offers "
    "are. Empowerment: how well it helps the reader understand the topic and make informed "
    "judgements. Only what answers this question counts: an answer about something else "
    "loses on every criterion. For each criterion name the better answer, then the overall "
    'winner on the three. Return JSON: "comprehensiveness", "diversity", "empowerment" and '
    '"overall", each "1" or "2".'
)


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
            out[re.split(r"[\s_]+", str(key).strip().lower())[0]] = value  # read by Choice
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
    replay: bool = False,
) -> None:
    """Each question by each configuration, appended to ``results`` (done ones skipped;
    broad's asked again from the responses when ``replay``: its lazy summaries)."""

    def answer(store: GraphStore, embedder: Embedder, q: dict[str, Any], config: str) -> Row:
        return answer_row(
            q, config, AskLoop(store, embedder, llm, ask_options(config, k)).ask(q["question"])
        )

    def line(row: Row) -> str:
        return (
            f"{row['seconds']:6.1f}s {row['passages']} passage(s) {row['communities']} "
            f"communities {row['answer'][:50]!r}"
        )

    ask_each(settings, questions, configs, results, answer, line, [BROAD] if replay else [])


def others(configs: list[str]) -> list[str]:
    """The configurations broad is judged against (none without broad)."""
    return [c for c in configs if c != BROAD] if BROAD in configs else []


def judge_all(
    llm: LLM, questions: list[dict[str, Any]], results: Path, judged: Path, configs: list[str]
) -> None:
    """Broad (A) against each other configuration (B), in both orders, appended to
    ``judged`` (done pairs, and questions a configuration has not answered, skipped)."""
    rows = {(r["id"], r["config"]): r for r in read_jsonl(results)}
    done = {(r["id"], r["other"]) for r in read_jsonl(judged)}
    for q in questions:
        for other in others(configs):
            pair = rows.get((q["id"], BROAD)), rows.get((q["id"], other))
            if (q["id"], other) in done or pair[0] is None or pair[1] is None:
                continue
            said = judge_pair(
                llm,
                "judge_broad",
                judge_messages(q["question"]),
                Verdicts,
                BROAD_CRITERIA,
                pair[0]["full_answer"],
                pair[1]["full_answer"],
                max_tokens=JUDGE_MAX_TOKENS,
            )
            out = {
                "id": q["id"],
                "other": other,
                "criteria": {c: j.as_dict() for c, j in said.items()},
            }
            append_jsonl(judged, out)
            overall = said["overall"]
            print(
                f"judged {q['id']} broad vs {other}: overall {overall.a_first} / "
                f"{overall.a_second}, P(broad better) {overall.p_a:.2f}",
                flush=True,
            )


def judge_messages(question: str) -> Callable[[str, str], list[Message]]:
    """The judge's prompt for ``question``, given answer 1 and answer 2."""
    return pair_prompt(JUDGE_PROMPT, f"Question: {question}", ANSWER_CHARS)


def check_judge(llm: LLM, references: list[dict[str, Any]]) -> dict[str, Any]:
    """Judge the judge where the better answer is known: each question's reference answer
    (written from the manual) against another question's (``unrelated``) and against its
    own first sentence (``first_sentence``, where it has more than one). The win rate is
    then the judge's accuracy; ``verdicts_rate`` what its verdicts alone would give."""
    said: dict[str, list[dict[str, Judgement]]] = {"unrelated": [], "first_sentence": []}
    for i, q in enumerate(references):
        rivals = {"unrelated": references[(i + 1) % len(references)]["reference"]}
        sentences = _SENTENCE_END.split(q["reference"].strip())
        if len(sentences) > 1:
            rivals["first_sentence"] = sentences[0]
        for control, rival in rivals.items():
            said[control].append(
                judge_pair(
                    llm,
                    "judge_broad",
                    judge_messages(q["question"]),
                    Verdicts,
                    BROAD_CRITERIA,
                    q["reference"],
                    rival,
                    max_tokens=JUDGE_MAX_TOKENS,
                )
            )
            overall = said[control][-1]["overall"]
            print(
                f"checked {q['id']} against {control}: {overall.a_first} / "
                f"{overall.a_second}, P(reference better) {overall.p_a:.2f}",
                flush=True,
            )
    return {
        control: {c: win_rate([j[c] for j in rows]) for c in BROAD_CRITERIA}
        for control, rows in said.items()
    }


def pair_stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Broad's numbers per criterion over judged rows (``graphmind.eval.pairwise``)."""
    table: dict[str, Any] = {"questions": len(rows)}
    for criterion in BROAD_CRITERIA:
        table[criterion] = win_rate([Judgement.from_dict(r["criteria"][criterion]) for r in rows])
    return table


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
    parser.add_argument("--docs", type=Path, help="the manual's HTML folder (required to ask)")
    parser.add_argument("--questions", type=Path, default=BROAD_QUESTIONS)
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, help="N questions, spread over the set")
    parser.add_argument("--ids", help="only these questions (comma-separated ids)")
    parser.add_argument("--k", type=int, default=AskOptions.k)
    parser.add_argument("--store", help="a Neo4j URI instead of the run's FalkorDB Lite file")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated")
    parser.add_argument("--no-judge", action="store_true", help="ask only")
    parser.add_argument(
        "--record",
        type=Path,
        help="a folder the run's answers, judgements and model responses are saved to, "
        "and restored from into a new --run-dir (eval-records/...)",
    )
    parser.add_argument(
        "--check-judge",
        type=Path,
        metavar="REFERENCES",
        help="only judge the judge on a question file with reference answers "
        "(scripts/questions/python_docs_explain.json): no store, no asks",
    )
    args = parser.parse_args()
    if args.docs is None and args.check_judge is None:
        parser.error("--docs is required (the manual's HTML folder), unless --check-judge")
    configs = parse_configs(parser, args.configs, CONFIGS)
    try:
        args.run_dir.mkdir(parents=True, exist_ok=True)
        if args.check_judge:
            return judge_check(args)
        questions = chosen(args.questions, args.limit, args.ids)
        store = args.store or f"falkordb-lite://{(args.run_dir / 'store.db').resolve()}"
        settings = load_settings(store=store)
        llm = make_llm(settings, cache_dir=args.run_dir)
        if llm is None:
            raise GraphMindError("no model: run scripts/fetch_model.py or set an endpoint")
        build_manual(settings, args.docs, args.run_dir, "fast", communities=True)
        results, judged = args.run_dir / RESULTS, args.run_dir / JUDGED
        replay = restore(args.record, args.run_dir) if args.record else False
        try:
            ask_all(settings, llm, questions, results, args.k, configs, replay)
            if not args.no_judge:
                llm.temperature = 0.0  # the judge's, whatever the answers were asked at
                judge_all(llm, questions, results, judged, configs)
        finally:  # an interrupted run keeps what it asked
            if args.record:
                count = save(args.run_dir, args.record)
                print(f"{args.record}: {count} model responses", file=sys.stderr)
        table = report(questions, results, judged, configs)
        (args.run_dir / "report.json").write_text(json.dumps(table, indent=2))
    except (GraphMindError, OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(table, indent=2))
    return 0


def restore(record: Path, run_dir: Path) -> bool:
    """Lay ``record`` out in a new ``run_dir`` (its answers, judgements and model
    responses); whether it did, so that broad's answers are asked again from the
    responses and write their lazy summaries into the freshly built store."""
    if (run_dir / RESULTS).exists() or not (record / RESULTS).is_file():
        return False
    restore_responses(record, run_dir)
    for name in RECORD_FILES:
        if (record / name).is_file():
            shutil.copyfile(record / name, run_dir / name)
    return True


def save(run_dir: Path, record: Path) -> int:
    """Write the run's answers, judgements and model responses into ``record`` (no store:
    a resumed run builds the manual again); returns how many responses."""
    record.mkdir(parents=True, exist_ok=True)
    for name in RECORD_FILES:
        if (run_dir / name).is_file():
            shutil.copyfile(run_dir / name, record / name)
    return save_responses(run_dir, record)


def judge_check(args: argparse.Namespace) -> int:
    """``--check-judge``: the judge's accuracy where the better answer is known."""
    llm = make_llm(load_settings(), cache_dir=args.run_dir)
    if llm is None:
        raise GraphMindError("no model: run scripts/fetch_model.py or set an endpoint")
    llm.temperature = 0.0
    references = chosen(args.check_judge, args.limit, args.ids)
    missing = [q.get("id", "?") for q in references if not q.get("reference")]
    if missing or len(references) < 2:
        raise GraphMindError(
            f"{args.check_judge}: --check-judge needs at least two questions with a "
            f"reference answer (none for {', '.join(map(str, missing[:5])) or 'the rest'})"
        )
    table = check_judge(llm, references)
    (args.run_dir / "judge-check.json").write_text(json.dumps(table, indent=2))
    print(json.dumps(table, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
