"""Chunks of the communities whose summaries are nearest the query."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, chunks_in_order
from graphmind.core.recipes import COMMUNITY
from graphmind.store.base import GraphStore


class CommunityChunks:
    """Community summary vectors nearest the query's, through their chunks."""

    name = COMMUNITY
    source = "vector:community"

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        hits = store.vector_search("Community", query.vector, options.summaries)
        communities = [h.id for h in hits]
        rows = store.run(
            "ask/chunks_for_communities",
            {"ids": communities, "per_community": options.per_summary},
        )
        return chunks_in_order(rows, "community", communities)
