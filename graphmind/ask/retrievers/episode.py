"""Chunks of the episodes whose summaries are nearest the query."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, nearest_then_chunks
from graphmind.core.recipes import EPISODE
from graphmind.store.base import GraphStore


class EpisodeChunks:
    """Episode summary vectors nearest the query's, through their chunks."""

    name = EPISODE
    source = "vector:episode"

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        return nearest_then_chunks(
            store, "Episode", query, options.summaries, "ask/chunks_for_episodes"
        )
