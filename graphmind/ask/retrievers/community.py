"""Chunks of the communities whose summaries are nearest the query."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, nearest_then_chunks
from graphmind.core.recipes import COMMUNITY
from graphmind.store.base import GraphStore


class CommunityChunks:
    """Community summary vectors nearest the query's, through their chunks."""

    name = COMMUNITY
    source = "vector:community"

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        return nearest_then_chunks(
            store,
            "Community",
            query,
            options.summaries,
            "ask/chunks_for_communities",
            per_community=options.per_summary,
        )
