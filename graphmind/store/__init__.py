"""Graph stores behind one interface: FalkorDB Lite (embedded default) and Neo4j 5."""

from __future__ import annotations

from graphmind.store.base import (
    GraphStore,
    IndexInfo,
    QueryResult,
    StoreInfo,
)
from graphmind.store.hits import TextHit, VectorHit

__all__ = [
    "GraphStore",
    "IndexInfo",
    "QueryResult",
    "StoreInfo",
    "TextHit",
    "VectorHit",
]
