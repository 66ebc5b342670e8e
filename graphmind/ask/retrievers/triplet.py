"""Chunks that state the triplets nearest the query."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, nearest_then_chunks
from graphmind.core.recipes import TRIPLET
from graphmind.store.base import GraphStore


class TripletChunks:
    """Triplet vectors nearest the query's, through the chunks that state them."""

    name = TRIPLET
    source = "vector:triplet"

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        return nearest_then_chunks(
            store, "Triplet", query, options.per_list, "ask/chunks_for_triplets"
        )
