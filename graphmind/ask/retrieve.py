"""Hybrid retrieval over one vector space, fused by reciprocal rank.

Ranked lists of chunks come from the retrievers the recipe runs
(``graphmind/ask/retrievers/``): chunk vectors, chunk full text, triplet vectors (through
the chunks that state them), community and episode summaries (through their chunks), and
entities named in the query ranked by personalized PageRank. Reciprocal rank fusion
merges them into one candidate list, each candidate remembering which lists found it.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

from graphmind.ask.retrievers import (
    GRAPH_PPR,
    RETRIEVERS,
    VECTOR_CHUNK,
    Query,
    Ranking,
    RetrieveOptions,
)
from graphmind.ask.rules.hops import asks_explanation
from graphmind.core.decision import Candidate
from graphmind.core.recipes import DEFAULT_RECIPE, Recipe
from graphmind.extract.models import CONNECTIVES
from graphmind.store.base import GraphStore

__all__ = [
    "FirstList",
    "RetrieveOptions",
    "candidates",
    "first_round",
    "fuse",
    "own_first",
    "rank_lists",
]

RRF_K = 60  # reciprocal rank fusion's constant: a list's rank r scores 1 / (RRF_K + r)
FirstList = Literal["vector", "graph", "fused"]


def rank_lists(
    store: GraphStore,
    query: str,
    vector: list[float],
    options: RetrieveOptions,
    recipe: Recipe = DEFAULT_RECIPE,
    timings: dict[str, float] | None = None,
) -> dict[str, Ranking]:
    """The ranked chunk ids of every retriever the recipe runs, by list name, in the
    registry's order; empty lists are left out. ``timings`` gets each search's
    milliseconds by list name."""
    asked = Query(query, vector)
    lists: dict[str, Ranking] = {}
    for name, retriever in RETRIEVERS.items():
        if not recipe.runs(name):
            continue
        started = time.perf_counter()
        ranking = retriever.search(store, asked, options)
        if timings is not None:
            timings[retriever.source] = (time.perf_counter() - started) * 1000
        if ranking:
            lists[retriever.source] = ranking
    return lists


def fuse(rankings: Sequence[dict[str, Ranking]], k: int) -> list[tuple[str, float, list[str]]]:
    """Reciprocal rank fusion: (chunk id, score, lists that found it), best first."""
    scores: dict[str, float] = defaultdict(float)
    found: dict[str, list[str]] = defaultdict(list)
    for lists in rankings:
        for name, ranking in lists.items():
            for rank, chunk in enumerate(ranking, start=1):
                scores[chunk] += 1.0 / (RRF_K + rank)
                if name not in found[chunk]:
                    found[chunk].append(name)
    best = sorted(scores, key=lambda c: (-scores[c], c))[:k]
    return [(c, scores[c], found[c]) for c in best]


def candidates(
    store: GraphStore, fused: Sequence[tuple[str, float, list[str]]], max_triplets: int
) -> list[Candidate]:
    """The fused chunks with their text, document, triplets and communities."""
    ids = [chunk for chunk, _, _ in fused]
    context = {
        r["id"]: r
        for r in store.run(
            "ask/candidate_context",
            {"ids": ids, "max_triplets": max_triplets, "connectives": list(CONNECTIVES)},
        )
    }
    out = []
    for chunk, score, sources in fused:
        row = context.get(chunk)
        if row is None:
            continue  # deleted since it was indexed
        out.append(
            Candidate(
                id=chunk,
                text=row["text"],
                title=row["title"] or "",
                score=score,
                sources=sources,
                triplets=list(row["triplets"] or []),
                communities=list(row["communities"] or []),
                event_times=list(row["event_times"] or []),
            )
        )
    return out


def own_first(question: str) -> FirstList | None:
    """The list round 1 shows for ``question`` whatever ``[ask] first`` says, or None:
    naive's nearest passages for an explanation of one thing (``asks_explanation``)."""
    return "vector" if asks_explanation(question) else None


def first_round(
    lists: dict[str, Ranking], nearest: Ranking, k: int, first: FirstList, *, lead: bool = True
) -> Ranking:
    """The ``k`` chunks round 1 shows first: the chunks ``nearest`` the question (naive's
    vector top-k), the graph retriever's walk (``graph``), or the two fused by reciprocal
    rank (``fused``). Without a graph list (a chunk-only store) it is always ``nearest``.
    With ``lead``, the nearest chunk comes first and the walk's list follows, so the list
    never holds less of the gold at 1 than vector top-k, nor at 2 than its first, and the
    model reads the passage nearest the question first (docs/graph-retrieval.md)."""
    graph = lists.get(GRAPH_PPR, [])
    if first == "vector" or not graph:
        return list(nearest[:k])
    if first == "graph":
        return list(dict.fromkeys([*nearest[:1], *graph] if lead else graph))[:k]
    return [c for c, _, _ in fuse([{VECTOR_CHUNK: list(nearest), GRAPH_PPR: graph}], k)]
