"""Chunks of the episodes whose summaries are nearest the query."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, chunks_in_order
from graphmind.core.recipes import EPISODE
from graphmind.store.base import GraphStore


class EpisodeChunks:
    """Episode summary vectors nearest the query's, through their chunks."""

    name = EPISODE
    source = "vector:episode"

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        episodes = [h.id for h in store.vector_search("Episode", query.vector, options.summaries)]
        rows = store.run("ask/chunks_for_episodes", {"ids": episodes})
        return chunks_in_order(rows, "episode", episodes)
