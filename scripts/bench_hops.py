"""Recall of a later round's passages: which list finds the next hop's passage.

MuSiQue's questions come with their decomposition: each hop's sub-question ("#1 >>
capital", "Who is the spouse of #1?") and the passage that answers it; 2Wiki's with their
facts, where a fact whose subject an earlier fact named is a later hop. For every hop
after the first, the sub-question with the earlier hops' answers filled in is asked as
a later round's follow-up is, and the passages that round would show first are checked
for the hop's passage (the earlier hops' passages count as already cited: they are not
offered again). Compared: the order of ``[ask] first`` = ``vector`` (the bridge's
passages, then the follow-up's nearest chunks: the order before the graph walk was
used there), ``graph`` (the follow-up's walk, the default) and ``fused``. Recall@k per
hop count (MuSiQue) or question type (2Wiki), no LLM.

    python scripts/bench_hops.py --questions DATA/musique/dev_subset/musique_dev_292.json \\
        --store falkordb-lite://RUN/stores/base.db   # graphmind eval's --extract fast store
    python scripts/bench_hops.py --questions FILE --limit 5 --build DIR   # their own passages
        [--store bolt://HOST:PORT]                                      # built into Neo4j
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from graphmind.ask.options import AskOptions
from graphmind.ask.retrieve import FirstList, candidates, rank_lists
from graphmind.ask.state import Tools
from graphmind.ask.steps.gather import follow_up_passages, start
from graphmind.config import load_settings
from graphmind.core.decision import Judgement, Round
from graphmind.core.errors import GraphMindError
from graphmind.embed import Embedder
from graphmind.eval.datasets import GoldPassage, is_gold
from graphmind.factories import make_embedder, open_store
from graphmind.ingest.options import BuildOptions
from graphmind.ingest.pipeline import BuildPipeline
from graphmind.llm import LLM
from graphmind.store.base import GraphStore
from scripts.benchkit import spread

ORDERS: tuple[FirstList, ...] = ("vector", "graph", "fused")
KS = (2, 4, 6, 10)
DEPTH = 20  # how deep each order is read before the earlier hops' passages are dropped


@dataclass
class Hop:
    """A later hop: its sub-question with the earlier answers filled in, the answer it
    goes on from, its passage and the earlier hops' passages."""

    group: str  # MuSiQue's hop count, 2Wiki's question type
    question: str
    query: str
    bridge: str
    gold: GoldPassage
    earlier: list[GoldPassage]


def hop_query(text: str, answers: list[str]) -> str:
    """A sub-question with the earlier answers in place of "#1"; the Wikidata form
    "X >> capital" asked as "What is the capital of X?"."""
    text = re.sub(r"#(\d+)", lambda m: answers[int(m.group(1)) - 1], text)
    if " >> " in text:
        subject, relation = text.split(" >> ", 1)
        text = f"What is the {relation} of {subject}?"
    return text


def bridge_of(text: str, answers: list[str]) -> str:
    """The earlier answer a sub-question goes on from (its last "#n")."""
    refs = re.findall(r"#(\d+)", text)
    return answers[int(refs[-1]) - 1] if refs else ""


def musique_hops(record: dict[str, Any]) -> list[Hop]:
    """A MuSiQue question's hops after the first, from its decomposition."""
    steps = record["question_decomposition"]
    answers = [s["answer"] for s in steps]
    passages = [record["paragraphs"][s["paragraph_support_idx"]] for s in steps]
    gold = [GoldPassage(p["title"], p["paragraph_text"]) for p in passages]
    return [
        Hop(
            f"{len(steps)}hop",
            record["question"],
            hop_query(steps[n]["question"], answers),
            bridge_of(steps[n]["question"], answers),
            gold[n],
            gold[:n],
        )
        for n in range(1, len(steps))
    ]


def twowiki_hops(record: dict[str, Any]) -> list[Hop]:
    """A 2Wiki question's hops after the first, from its evidence triples: a fact whose
    subject is an earlier fact's object ("Free Guy, director, Shawn Levy" then "Shawn
    Levy, date of birth, ...") is asked as "What is the date of birth of Shawn Levy?"
    over the passage titled with its subject."""
    pages = {title.lower(): (title, " ".join(sentences)) for title, sentences in record["context"]}
    hops = []
    for subject, relation, _ in record["evidences"]:
        before = [s for s, _, o in record["evidences"] if o == subject]
        page, earlier = pages.get(subject.lower()), [pages.get(s.lower()) for s in before]
        if page is None or not earlier or None in earlier:
            continue
        query = f"What is the {relation} of {subject}?"
        known = [GoldPassage(*e) for e in earlier if e is not None]
        hops.append(
            Hop(record["type"], record["question"], query, subject, GoldPassage(*page), known)
        )
    return hops


def hops_of(record: dict[str, Any]) -> list[Hop]:
    """The later hops of a MuSiQue or a 2Wiki question."""
    return musique_hops(record) if "question_decomposition" in record else twowiki_hops(record)


def passages_of(record: dict[str, Any]) -> list[tuple[str, str]]:
    """A question's own passages (its gold ones and its distractors), as (title, text)."""
    if "paragraphs" in record:
        return [(p["title"], p["paragraph_text"]) for p in record["paragraphs"]]
    return [(title, " ".join(sentences)) for title, sentences in record["context"]]


def shown(store: GraphStore, embedder: Embedder, hop: Hop, order: FirstList) -> list[str]:
    """The passages a later round asking ``hop`` shows first in ``order``."""
    options = AskOptions(record=False, first=order, follow_up=DEPTH)
    tools = Tools(store, embedder, cast(LLM, None), options)
    state = start(tools, hop.question)
    state.rounds.append(Round(1, [state.question], [], Judgement(draft_answer=hop.bridge)))
    state.asking = hop.query
    vector = embedder.embed([hop.query])[0]
    state.ranked[hop.query] = rank_lists(store, hop.query, vector, options.retrieve)
    ahead = follow_up_passages(tools, state, hop.query, vector, set())  # measure() drops them
    return [c for c, _, _ in ahead]


def measure(store: GraphStore, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Recall@k of each order over every later hop of ``records``."""
    embedder = make_embedder(load_settings())
    hits: dict[tuple[str, str], dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for hop in (h for record in records for h in hops_of(record)):
        lists = {order: shown(store, embedder, hop, order) for order in ORDERS}
        ids = list(dict.fromkeys(c for ranking in lists.values() for c in ranking))
        read = candidates(store, [(i, 0.0, []) for i in ids], 0)
        text = {c.id: (c.title, c.text) for c in read}
        for order, ranking in lists.items():
            fresh = [c for c in ranking if not any(is_gold(*text[c], g) for g in hop.earlier)]
            for k in KS:
                found = any(is_gold(*text[c], hop.gold) for c in fresh[:k])
                for key in ((hop.group, order), ("all", order)):
                    hits[key][k].append(found)
    table: dict[str, Any] = defaultdict(dict)
    for (group, name), by_k in sorted(hits.items()):
        row = {f"recall@{k}": round(sum(v) / len(v), 3) for k, v in sorted(by_k.items())}
        table[group][name] = {"hops": len(by_k[KS[0]]), **row}
    return dict(table)


def build(folder: Path, records: list[dict[str, Any]], store: str | None) -> str:
    """The records' own passages built with ``--extract fast`` into ``store``, else into a
    new embedded store in ``folder``."""
    seen = dict.fromkeys(p for record in records for p in passages_of(record))
    folder.mkdir(parents=True, exist_ok=True)
    corpus = folder / "corpus.json"
    docs = [{"title": title, "text": text} for title, text in seen]
    corpus.write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    uri = store or f"falkordb-lite://{(folder / 'graph.db').resolve()}"
    settings = load_settings(store=uri)
    embedder = make_embedder(settings)
    with open_store(settings) as target:
        BuildPipeline(target, embedder, None, BuildOptions(extract="fast")).run([str(corpus)])
    return uri


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, required=True, help="a MuSiQue or 2Wiki file")
    parser.add_argument("--limit", type=int, help="N answerable questions, spread over the file")
    parser.add_argument("--store", help="a store the questions' corpus is built into")
    parser.add_argument(
        "--build", type=Path, help="build the questions' passages (into --store, else into DIR)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    try:
        records = [r for r in json.loads(args.questions.read_text()) if r.get("answerable", True)]
        records = spread(records, args.limit)
        if not (args.store or args.build):
            raise GraphMindError("name a built store (--store) or where to build (--build)")
        uri = build(args.build, records, args.store) if args.build else args.store
        with open_store(load_settings(store=uri)) as store:  # waits for its indexes
            recall = measure(store, records)
    except (GraphMindError, OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"store": uri, "questions": len(records), "recall": recall}, indent=2))
        return 0
    print(f"{len(records)} questions, store {uri}")
    for group, orders in recall.items():
        for order, row in orders.items():
            cells = "  ".join(f"@{k} {row[f'recall@{k}']:.3f}" for k in KS)
            print(f"{group:5s} {order:7s} {row['hops']:4d} hops  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
