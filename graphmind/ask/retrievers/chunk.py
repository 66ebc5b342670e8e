"""Chunk vectors nearest the query's."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions
from graphmind.core.recipes import CHUNK
from graphmind.store.base import GraphStore

VECTOR_CHUNK = "vector:chunk"  # the list's name; also the naive baseline's


class VectorChunks:
    """Chunks by vector similarity to the query."""

    name = CHUNK
    source = VECTOR_CHUNK

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        return [h.id for h in store.vector_search("Chunk", query.vector, options.per_list)]
