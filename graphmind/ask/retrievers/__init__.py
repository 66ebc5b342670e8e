"""The retrievers, by name. Each turns a query into one ranked list of chunk ids; the
recipe (``graphmind.core.recipes``) says which run, reciprocal rank fusion
(``graphmind.ask.retrieve``) merges their lists.

Adding a retriever: a module here with a class that has a ``name``, a ``source`` and a
``search`` (``base.Retriever``), and its line in ``RETRIEVERS``. The registry's order is
the order the lists are fused in.
"""

from __future__ import annotations

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, Retriever
from graphmind.ask.retrievers.chunk import VECTOR_CHUNK, VectorChunks
from graphmind.ask.retrievers.community import CommunityChunks
from graphmind.ask.retrievers.episode import EpisodeChunks
from graphmind.ask.retrievers.graph import GRAPH_PPR, GraphPassages
from graphmind.ask.retrievers.ppr import PersonalizedPageRank
from graphmind.ask.retrievers.text import TEXT_CHUNK, FullTextChunks
from graphmind.ask.retrievers.triplet import TripletChunks

__all__ = [
    "GRAPH_PPR",
    "RETRIEVERS",
    "TEXT_CHUNK",
    "VECTOR_CHUNK",
    "Query",
    "Ranking",
    "RetrieveOptions",
    "Retriever",
]


def _by_name(*retrievers: Retriever) -> dict[str, Retriever]:
    return {r.name: r for r in retrievers}


RETRIEVERS: dict[str, Retriever] = _by_name(
    VectorChunks(),
    FullTextChunks(),
    TripletChunks(),
    CommunityChunks(),
    EpisodeChunks(),
    PersonalizedPageRank(),
    GraphPassages(),
)
