"""Hybrid retrieval over one vector space, fused by reciprocal rank.

Ranked lists of chunks come from: chunk vectors, chunk full text, triplet vectors
(through the chunks that state them), community and episode summaries (through their
chunks), and entities named in the query ranked by personalized PageRank. Reciprocal
rank fusion merges them into one candidate list, each candidate remembering which
lists found it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from graphmind.communities.centrality import personalized_pagerank_ranking
from graphmind.core.decision import Candidate
from graphmind.memory.planner import ALL_LAYERS
from graphmind.store.base import GraphStore

RRF_K = 60
SEED_SIMILARITY = 0.8


@dataclass
class RetrieveOptions:
    """How wide each retriever looks, and which retrievers run."""

    per_list: int = 20
    summaries: int = 5
    per_summary: int = 3
    seeds: int = 5
    ppr: bool = True
    max_triplets: int = 6
    layers: tuple[str, ...] = ALL_LAYERS  # retrievers that run (PPR has its own switch)


Ranking = list[str]


def rank_lists(
    store: GraphStore, query: str, vector: list[float], options: RetrieveOptions
) -> dict[str, Ranking]:
    """Every retriever's ranked chunk ids for one query."""
    lists: dict[str, Ranking] = {}
    on = set(options.layers)
    if "chunk" in on:
        lists["vector:chunk"] = [
            h.id for h in store.vector_search("Chunk", vector, options.per_list)
        ]
    if "text" in on:
        lists["text:chunk"] = [
            h.id for h in store.fulltext_search("Chunk", query, options.per_list)
        ]
    if "triplet" in on:
        triplets = [h.id for h in store.vector_search("Triplet", vector, options.per_list)]
        lists["vector:triplet"] = _ordered(
            store.run("ask/chunks_for_triplets", {"ids": triplets}), "triplet", "chunk", triplets
        )
    if "community" in on:
        communities = [h.id for h in store.vector_search("Community", vector, options.summaries)]
        lists["vector:community"] = _ordered(
            store.run(
                "ask/chunks_for_communities",
                {"ids": communities, "per_community": options.per_summary},
            ),
            "community",
            "chunk",
            communities,
        )
    if "episode" in on:
        episodes = [h.id for h in store.vector_search("Episode", vector, options.summaries)]
        lists["vector:episode"] = _ordered(
            store.run("ask/chunks_for_episodes", {"ids": episodes}), "episode", "chunk", episodes
        )
    if options.ppr:
        seeds = entity_seeds(store, query, vector, options.seeds)
        if seeds:
            ranking = personalized_pagerank_ranking(store, seeds, k=50)
            lists["ppr"] = [chunk for chunk, _ in ranking.chunks[: options.per_list]]
    return {name: ranking for name, ranking in lists.items() if ranking}


def entity_seeds(store: GraphStore, query: str, vector: list[float], limit: int) -> list[str]:
    """Entities the query names: full-text matches on names, then close vectors."""
    seeds = [h.id for h in store.fulltext_search("Entity", query, limit)]
    for hit in store.vector_search("Entity", vector, limit):
        if hit.similarity >= SEED_SIMILARITY and hit.id not in seeds:
            seeds.append(hit.id)
    return seeds[: limit * 2]


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
        for r in store.run("ask/candidate_context", {"ids": ids, "max_triplets": max_triplets})
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


def _ordered(rows: list[dict[str, str]], key: str, value: str, order: Ranking) -> Ranking:
    """Chunks in the order of the items (triplets, communities…) that led to them."""
    position = {item: i for i, item in enumerate(order)}
    ranked = sorted(rows, key=lambda r: (position.get(r[key], len(order)), r[value]))
    seen: dict[str, None] = {}
    for row in ranked:
        seen.setdefault(row[value], None)
    return list(seen)
