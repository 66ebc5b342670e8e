"""Chunks that state the triplets nearest the query."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, chunks_in_order
from graphmind.core.recipes import TRIPLET
from graphmind.store.base import GraphStore


class TripletChunks:
    """Triplet vectors nearest the query's, through the chunks that state them."""

    name = TRIPLET
    source = "vector:triplet"

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        triplets = [h.id for h in store.vector_search("Triplet", query.vector, options.per_list)]
        rows = store.run("ask/chunks_for_triplets", {"ids": triplets})
        return chunks_in_order(rows, "triplet", triplets)
