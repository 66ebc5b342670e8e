"""Graph stores behind one interface: FalkorDB Lite (embedded default) and Neo4j 5."""

from __future__ import annotations

from graphmind.config import Settings, parse_store_uri
from graphmind.store.base import GraphStore, IndexInfo, QueryResult, StoreInfo, TextHit, VectorHit

__all__ = [
    "GraphStore",
    "IndexInfo",
    "QueryResult",
    "StoreInfo",
    "TextHit",
    "VectorHit",
    "open_store",
]


def open_store(settings: Settings, *, ensure_schema: bool = True) -> GraphStore:
    """Open the configured store and, by default, set up its schema for the embedder."""
    target = parse_store_uri(settings.store)
    embedder = settings.embedder_spec()
    store: GraphStore
    if target.backend == "falkordb":
        from graphmind.store.falkordb import FalkorDBLiteStore

        store = FalkorDBLiteStore(target.location, lock_wait=settings.store_lock_wait)
    else:
        from graphmind.store.neo4j import Neo4jStore

        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
        store = Neo4jStore(
            target.location,
            user=settings.neo4j_user,
            password=password,
            database=settings.neo4j_database,
        )
    if ensure_schema:
        try:
            store.ensure_schema(embedder)
        except BaseException:
            store.close()
            raise
    return store
