"""Chunks by full-text (BM25) match with the query's words."""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, text_chunks
from graphmind.core.recipes import TEXT
from graphmind.store.base import GraphStore

TEXT_CHUNK = "text:chunk"  # the list's name


class FullTextChunks:
    """Chunks by the store's full-text index."""

    name = TEXT
    source = TEXT_CHUNK

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        return list(text_chunks(store, query, options.per_list))
