"""The one small interface both graph stores implement.

Operations, not a query builder: run a named query, write rows in batches,
search vectors and text, read a projection for graph algorithms, set up the
schema, report health. Every query comes from the registry by name.
"""

from __future__ import annotations

import math
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmind.core.closing import Closing
from graphmind.core.errors import (
    BadInputError,
    EmbedderMismatchError,
    QueryParameterError,
    StoreError,
)
from graphmind.embed.spec import EmbedderSpec, same_vectors
from graphmind.store import memo
from graphmind.store.hits import TextHit, VectorHit
from graphmind.store.registry import Backend, QueryRegistry, check_parameters
from graphmind.store.schema import (
    META_ID,
    NODE_LABELS,
    SCHEMA_VERSION,
    vector_index_name,
)

Row = dict[str, Any]
# Relationships (or nodes without relationships) one deleting transaction removes at most:
# far below Neo4j's default transaction memory, however large the graph.
DELETE_BATCH = 10_000
# The most rows a user's or an agent's own read (``run_text``, ``read_capped``) may ask for.
MAX_READ_ROWS = 100_000
_SCALARS = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class IndexInfo:
    """One index or constraint and its state (ONLINE / OPERATIONAL / POPULATING …)."""

    name: str
    kind: str
    label: str
    properties: tuple[str, ...]
    state: str


@dataclass(frozen=True)
class Projection:
    """A weighted graph read for client-side algorithms: node ids and weighted edges."""

    nodes: list[str]
    edges: list[tuple[str, str, float]]


@dataclass
class StoreInfo:
    """What ``graphmind doctor`` reports about a store."""

    backend: Backend
    location: str
    server_version: str
    edition: str
    gds: str | None
    indexes: list[IndexInfo]
    counts: dict[str, int]
    meta: dict[str, Any] | None


@dataclass
class QueryResult:
    """Column names and rows (values converted to plain Python)."""

    columns: list[str]
    rows: list[list[Any]]
    more: bool = False  # rows beyond ``max_rows`` were left unread

    def records(self) -> list[Row]:
        """Rows as dicts keyed by column."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class GraphStore(Closing, ABC):
    """A graph store reached only through named queries."""

    backend: Backend
    # whether another thread may write while this one reads: the build then writes a
    # batch while it extracts and embeds the next (both stores do)
    concurrent: bool = False
    location: str
    _write_turn: threading.Lock | None = None  # set by ``serialize_writes``

    def __init__(self, registry: QueryRegistry) -> None:
        self.registry = registry

    # -- the backend's primitives ------------------------------------------------
    @abstractmethod
    def _execute(
        self,
        text: str,
        params: Mapping[str, Any],
        *,
        write: bool,
        max_rows: int | None = None,
        timeout: float | None = None,
    ) -> QueryResult:
        """Run one query atomically; raise QueryFailedError (nothing written) on failure.
        With ``max_rows``, a read produces at most that many rows and more are never
        read (``more`` says if it cut); with ``timeout`` (seconds) the server stops it
        then (QueryTimeoutError)."""

    @abstractmethod
    def _create_schema(self, embedder: EmbedderSpec) -> None:
        """Create missing constraints and indexes, one at a time, idempotently."""

    @abstractmethod
    def indexes(self) -> list[IndexInfo]:
        """Every index and constraint with its state."""

    @abstractmethod
    def _server(self) -> tuple[str, str, str | None]:
        """(server version, edition, GDS version or None)."""

    def has_gds(self) -> bool:
        """Whether the Graph Data Science plugin is available (only on Neo4j)."""
        return False

    @abstractmethod
    def wipe(self) -> None:
        """Delete every node, relationship, index and constraint of this graph."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection (and, for the embedded store, its lock and server)."""

    # -- operations ------------------------------------------------------------
    def run(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        *,
        write: bool = False,
        **slots: str,
    ) -> list[Row]:
        """Run the named query and return its records."""
        text, given = self._prepared(name, params, slots)
        if write:
            return self._write(text, given).records()
        return self._execute(text, given, write=False).records()

    def serialize_writes(self) -> None:
        """From now on, this object's writes run one at a time (a server's request
        threads: on Neo4j, concurrent decisions and feedback on one query type lock the
        same nodes, deadlock and are retried, for seconds each)."""
        self._write_turn = threading.Lock()

    def _write(self, text: str, params: Mapping[str, Any]) -> QueryResult:
        memo.forget()
        if self._write_turn is None:
            return self._execute(text, params, write=True)
        with self._write_turn:
            return self._execute(text, params, write=True)

    def _prepared(
        self, name: str, params: Mapping[str, Any] | None, slots: Mapping[str, str]
    ) -> tuple[str, dict[str, Any]]:
        """The named query's text and its checked parameters."""
        text = self.registry.render(name, **slots)
        given = dict(params or {})
        check_parameters(name, text, given)
        return text, given

    def drain(
        self,
        name: str,
        limit: int,
        params: Mapping[str, Any] | None = None,
        **slots: str,
    ) -> int:
        """Run a write query that deletes at most ``$limit`` things and returns how many
        (``deleted``), one transaction per call, until a call deletes fewer than
        ``limit``; the total. Keeps each transaction's size bounded."""
        total = 0
        while True:
            rows = self.run(name, {**(params or {}), "limit": limit}, write=True, **slots)
            deleted = int(rows[0]["deleted"]) if rows else 0
            total += deleted
            if deleted < limit:
                return total

    def run_text(
        self,
        text: str,
        params: Mapping[str, Any] | None = None,
        *,
        max_rows: int | None = None,
        timeout: float | None = None,
    ) -> QueryResult:
        """Run a read-only query of the caller's own (``graphmind cypher``): its first
        ``max_rows`` rows (1 to ``MAX_READ_ROWS``; None, for GraphMind's own code and
        tests: all), stopped after ``timeout`` seconds."""
        given = dict(params or {})
        check_parameters("<query>", text, given)
        cap = None if max_rows is None else _row_cap(max_rows)
        return self._execute(text, given, write=False, max_rows=cap, timeout=timeout)

    def read_capped(
        self,
        name: str,
        params: Mapping[str, Any] | None,
        max_rows: int,
        *,
        timeout: float | None = None,
        **slots: str,
    ) -> QueryResult:
        """The named read query's first ``max_rows`` rows (``more`` when it had more; at
        most ``MAX_READ_ROWS``), stopped after ``timeout`` seconds."""
        text, given = self._prepared(name, params, slots)
        return self._execute(text, given, write=False, max_rows=_row_cap(max_rows), timeout=timeout)

    def write_rows(
        self,
        name: str,
        rows: Sequence[Mapping[str, Any]],
        *,
        batch_size: int = 1000,
        params: Mapping[str, Any] | None = None,
        **slots: str,
    ) -> int:
        """``UNWIND $rows`` the rows through the named query, one atomic query per batch.

        Rows are checked before anything is sent: a malformed row fails the call
        with nothing written. A batch the store rejects is not written; batches
        before it are.
        """
        if batch_size < 1:
            raise ValueError("batch_size must be positive")
        _check_rows(name, rows)
        text = self.registry.render(name, **slots)
        extra = dict(params or {})
        check_parameters(name, text, {"rows", *extra})
        for batch in iter_batches(rows, batch_size):
            self._write(text, {**extra, "rows": [dict(r) for r in batch]})
        return len(rows)

    def vector_search(self, label: str, vector: Sequence[float], k: int) -> list[VectorHit]:
        """The ``k`` nodes of ``label`` nearest to ``vector`` by cosine similarity (inside
        ``memo.remembered_searches()``, a search made before answers a narrower one)."""
        known = memo.recall(self, label, vector, k)
        if known is not None:
            return known
        records = self.run(
            "store/vector_search",
            {
                "label": label,
                "index": vector_index_name(label),
                "k": int(k),
                "vector": list(vector),
            },
        )
        hits = [
            VectorHit(r["id"], min(1.0, max(0.0, float(r["similarity"]))), node_props(r["node"]))
            for r in records
        ]
        memo.remember(self, label, vector, k, hits)
        return hits

    @abstractmethod
    def fulltext_search(self, label: str, text: str, k: int) -> list[TextHit]:
        """Up to ``k`` nodes of ``label`` matching the words of ``text``, best first."""

    def read_projection(self, name: str, params: Mapping[str, Any] | None = None) -> Projection:
        """Read a projection from a named query returning ``source, target, weight`` rows.

        A row with a null ``target`` contributes an isolated node.
        """
        nodes: dict[str, None] = {}
        edges: list[tuple[str, str, float]] = []
        for r in self.run(name, params):
            nodes[r["source"]] = None
            if r.get("target") is not None:
                nodes[r["target"]] = None
                weight = r.get("weight")
                edges.append((r["source"], r["target"], 1.0 if weight is None else float(weight)))
        return Projection(list(nodes), edges)

    def write_results(self, name: str, rows: Sequence[Mapping[str, Any]]) -> int:
        """Write algorithm results (e.g. ``{id, pagerank}`` rows) through a named query."""
        return self.write_rows(name, rows)

    # -- schema and health -------------------------------------------------------
    def meta(self) -> dict[str, Any] | None:
        """The :GraphMindMeta node's properties, or None on a new store."""
        records = self.run("schema/meta_get", {"id": META_ID})
        return dict(records[0]["meta"]) if records else None

    def ensure_schema(self, embedder: EmbedderSpec, *, timeout: float = 300.0) -> None:
        """Create constraints and indexes idempotently; refuse another embedder's store."""
        meta = self.meta()
        if meta is not None:
            check_embedder(meta, embedder, self.location)
            if int(meta.get("schema_version", 0)) > SCHEMA_VERSION:
                raise StoreError(
                    f"store {self.location} has schema version {meta['schema_version']}, "
                    f"newer than this GraphMind ({SCHEMA_VERSION}); upgrade graphmind"
                )
        self._create_schema(embedder)
        self.wait_for_indexes(timeout)
        # A store opened with an equivalent local provider keeps the name it was built with.
        recorded = meta.get("embedder") if meta is not None else None
        name = (
            str(recorded) if recorded and same_vectors(str(recorded), embedder) else embedder.name
        )
        wanted = {
            "schema_version": SCHEMA_VERSION,
            "embedder": name,
            "dimension": embedder.dimension,
        }
        if meta is None or any(meta.get(k) != v for k, v in wanted.items()):
            self.run("schema/meta_set", {"id": META_ID, **wanted}, write=True)

    def wait_for_indexes(self, timeout: float = 300.0) -> None:
        """Block until every index is usable, failing on a FAILED one or at ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            states = self.indexes()
            failed = [i.name for i in states if i.state.upper() == "FAILED"]
            if failed:
                raise StoreError(f"index(es) failed on {self.location}: {', '.join(failed)}")
            pending = [i.name for i in states if i.state.upper() not in ("ONLINE", "OPERATIONAL")]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise StoreError(
                    f"indexes still not online after {timeout:.0f}s: {', '.join(pending)}"
                )
            time.sleep(0.1)

    def counts(self) -> dict[str, int]:
        """Number of nodes per GraphMind label."""
        return {
            label: int(self.run("store/count_label", label=label)[0]["count"])
            for label in NODE_LABELS
        }

    def relationship_count(self) -> int:
        """Total number of relationships in the graph."""
        return int(self.run("store/count_relationships")[0]["count"])

    def info(self) -> StoreInfo:
        """Everything ``graphmind doctor`` shows."""
        version, edition, gds = self._server()
        return StoreInfo(
            backend=self.backend,
            location=self.location,
            server_version=version,
            edition=edition,
            gds=gds,
            indexes=self.indexes(),
            counts=self.counts(),
            meta=self.meta(),
        )


def _row_cap(max_rows: int) -> int:
    """``max_rows`` when it is 1 to ``MAX_READ_ROWS``; BadInputError otherwise."""
    if not 1 <= max_rows <= MAX_READ_ROWS:
        raise BadInputError(f"a read returns 1 to {MAX_READ_ROWS} rows; {max_rows} were asked")
    return max_rows


def check_embedder(meta: Mapping[str, Any], embedder: EmbedderSpec, location: str) -> None:
    """Refuse a store built with another embedding model or dimension, naming both."""
    stored_name = meta.get("embedder")
    stored_dim = meta.get("dimension")
    if stored_name is None:
        return
    if not same_vectors(str(stored_name), embedder) or int(stored_dim or 0) != embedder.dimension:
        raise EmbedderMismatchError(
            f"store {location} was built with embedder {stored_name} (dimension {stored_dim}), "
            f"but the configured embedder is {embedder.name} (dimension {embedder.dimension}). "
            "Configure the store's embedder (GRAPHMIND_EMBEDDER), or use a new store."
        )


def node_props(node: Mapping[str, Any] | None) -> dict[str, Any]:
    """A node's properties as returned by a query, without its vector and nulls."""
    return {k: v for k, v in (node or {}).items() if k != "embedding" and v is not None}


def _check_rows(name: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Every row a mapping with the first row's keys and plain values."""
    if not rows:
        return
    keys: set[str] | None = None
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise QueryParameterError(f"query {name!r}: row {i} is not a mapping")
        if keys is None:
            keys = set(row)
        elif set(row) != keys:
            raise QueryParameterError(
                f"query {name!r}: row {i} has keys {sorted(row)}, row 0 has {sorted(keys)}"
            )
        for key, value in row.items():
            problem = _value_problem(value)
            if problem:
                raise QueryParameterError(f"query {name!r}: row {i} field {key!r} {problem}")


def _value_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a query parameter (None when it can)."""
    if isinstance(value, float):
        return None if math.isfinite(value) else "is not a finite number"
    if isinstance(value, _SCALARS):
        return None
    if isinstance(value, list | tuple):
        try:  # fast path for numeric lists (embeddings)
            total = sum(value)
        except TypeError:
            return next(filter(None, map(_value_problem, value)), None)
        return None if math.isfinite(total) else "holds a number that is not finite"
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            return "is a map with non-text keys"
        return next(filter(None, map(_value_problem, value.values())), None)
    return f"has unsupported type {type(value).__name__}"


def iter_batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """Consecutive slices of ``items`` of at most ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
