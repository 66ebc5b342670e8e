"""Graph stores behind one interface: FalkorDB Lite (embedded default) and Neo4j 5."""

from __future__ import annotations

from graphmind.config import Settings, parse_store_uri
from graphmind.errors import StoreError
from graphmind.store.base import (
    GraphStore,
    IndexInfo,
    QueryResult,
    StoreInfo,
    TextHit,
    VectorHit,
    check_embedder,
)

__all__ = [
    "GraphStore",
    "IndexInfo",
    "QueryResult",
    "StoreInfo",
    "TextHit",
    "VectorHit",
    "open_store",
]


def open_store(
    settings: Settings, *, ensure_schema: bool = True, shared: bool = False
) -> GraphStore:
    """Open the configured store and, by default, set up its schema for the embedder.

    ``shared``: for readers and single atomic writes (ask, feedback, doctor, cypher): an
    embedded store in use by another process is reached through that process's server
    instead of failing (its schema is then only checked, never changed).
    """
    target = parse_store_uri(settings.store)
    embedder = settings.embedder_spec()
    store: GraphStore
    if target.backend == "falkordb":
        from graphmind.store.falkordb import FalkorDBLiteStore

        store = FalkorDBLiteStore(
            target.location, lock_wait=settings.store_lock_wait, attach=shared
        )
    else:
        from graphmind.store.neo4j import Neo4jStore

        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
        try:
            store = Neo4jStore(
                target.location,
                user=settings.neo4j_user,
                password=password,
                database=settings.neo4j_database,
            )
        except StoreError as exc:
            if password is None and _refused_credentials(exc):
                raise StoreError(
                    f"{exc}: no password is set; set GRAPHMIND_NEO4J_PASSWORD "
                    "(or neo4j.password in graphmind.toml)"
                ) from exc
            raise
    if ensure_schema:
        try:
            if getattr(store, "attached_to", None) is not None:
                meta = store.meta()
                if meta is not None:
                    check_embedder(meta, embedder, store.location)
            else:
                store.ensure_schema(embedder)
        except BaseException:
            store.close()
            raise
    return store


def _refused_credentials(exc: StoreError) -> bool:
    """Whether Neo4j refused to authenticate (rather than not being reachable)."""
    from neo4j.exceptions import AuthError

    cause = exc.__cause__
    return isinstance(cause, AuthError) or "credentials" in str(exc) or "Unauthorized" in str(exc)
