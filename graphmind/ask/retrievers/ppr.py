"""Chunks ranked by personalized PageRank from the entities the query names."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions
from graphmind.communities.centrality import PPR_ENTITIES, personalized_pagerank_ranking
from graphmind.core.recipes import PPR
from graphmind.store.base import GraphStore

SEED_SIMILARITY = 0.8  # an entity vector this close to the query's is a seed


class PersonalizedPageRank:
    """Entities the query names seed PageRank; their best-scored chunks come first."""

    name = PPR
    source = "ppr"

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        seeds = entity_seeds(store, query, options.seeds)
        if not seeds:
            return []
        ranking = personalized_pagerank_ranking(store, seeds, k=PPR_ENTITIES)
        return [chunk for chunk, _ in ranking.chunks[: options.per_list]]


def entity_seeds(store: GraphStore, query: Query, limit: int) -> list[str]:
    """Entities the query names: full-text matches on names, then close vectors."""
    seeds = [h.id for h in store.fulltext_search("Entity", query.text, limit)]
    for hit in store.vector_search("Entity", query.vector, limit):
        if hit.similarity >= SEED_SIMILARITY and hit.id not in seeds:
            seeds.append(hit.id)
    return seeds[: limit * 2]
